#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prophet's inputs and its check on a GPU host, from a bare checkout (root,
# nvcc, ncu and the MPS binaries in PATH; Documentation/tracing.rst):
#
#   bench/run-prophet.sh [--pairs LIST] [--kmax K] [--duration S] [--no-ncu] OUT
#
#  a. hwprobe -> OUT/hw.csv (the machine's constants)
#  b. one solo traced run per workload (libgsp_trace.so through
#     CUDA_INJECTION64_PATH, no MPS): LC gsp-wl run --lc WL --period-ms 2,
#     BE gsp-wl run --be WL, S seconds -> OUT/traces/WL.lc.csv, WL.be.csv;
#     with pinned host<->device copies (--xfer-lc 1 / --xfer-be 1) for the
#     LCs and BEs of XFER_LCS and XFER_BES -> WL.lc.xfer.csv, WL.be.xfer.csv.
#     Then, unless --no-ncu, one ncu pass per workload and role (launches
#     11 to 40, dram__bytes.sum and gpu__time_duration.sum; no MPS: ncu
#     cannot count under it) and prophet-ncu.py fills the traces' dram_Bps
#     (the xfer traces from the plain run's CSV: the same kernels)
#  c. under one MPS daemon (bench/mps.sh), each LC alone, and for each pair
#     the LC with k = 1..K BE processes (gsp-wl run --be, one process
#     each), all started together through gsp-wl --sync (READY, then one
#     "GO start end" to every process): S seconds measured
#     -> OUT/measured.csv  lc,be,variant,k,lc_mean_us,lc_p95_us,be_units_per_s
#     (variant plain, or xfer for the XFER_LCS x XFER_BES pairs with copies;
#     k 0 is the LC alone; be_units_per_s is the mean over the k BE
#     processes, empty for k 0)
#  d. if BUILD/gspctl has a predict command, Prophet's prediction of every
#     measured row with the fluid and the sequential model
#     -> OUT/predicted.csv  lc,be,variant,k,model,lc_solo_us,lc_mean_us,
#                           lc_p95_us,be_tasks_per_s,be_iters_per_s
#     and bench/gpu/prophet-eval.py joins the two -> OUT/predict.csv,
#     OUT/summary.txt, OUT/admission.csv
#  e. OUT/env.txt, OUT/commands.txt, OUT/README.md, OUT/logs.tgz (every
#     program's output)
#
# LIST is comma-separated LC_BE pairs (bp_cfd); default the 24 of
# gsp-bench (LC bp lbm hotspot pathfinder streamcluster spmv, BE cfd md mm
# nn). K defaults to 4, S to 1.
#
# Time with the defaults (S = 1, K = 4) on an H200: steps a-c (14
# traces, 10 ncu passes, 118 co-runs) about 9.5 minutes; step d needs no
# GPU, runs a prediction per CPU at once, and takes up to about 5 s a
# prediction. Under a 10-minute limit run fewer pairs a call, or step d
# afterwards on any machine (bench/results/2026-11-26-h200-prophet).
set -uo pipefail
pairs='' kmax=4 dur=1 ncu=1
LCS="bp lbm hotspot pathfinder streamcluster spmv"
BES="cfd md mm nn"
# the PCIe variants: these LCs and BEs also run with pinned copies
XFER_LCS="bp hotspot"
XFER_BES="cfd mm"

usage() {
	echo "usage: $0 [--pairs LIST] [--kmax K] [--duration S] [--no-ncu] OUT" >&2
	exit 2
}
while [ $# -gt 1 ]; do
	case $1 in
	--pairs) pairs=$2; shift ;;
	--kmax) kmax=$2; shift ;;
	--duration) dur=$2; shift ;;
	--no-ncu) ncu= ;;
	*) echo "run-prophet: unknown option $1 (see the comment at the top of $0)" >&2; exit 2 ;;
	esac
	shift
done
case ${1:-} in ''|-*) usage ;; esac
case $kmax in [1-8]) ;; *) echo "run-prophet: --kmax takes 1 to 8" >&2; exit 2 ;; esac
case $dur in
''|*[!0-9.]*|*.*.*|.) echo "run-prophet: --duration takes seconds, such as 1 or 0.5" >&2; exit 2 ;;
esac
awk -v d="$dur" 'BEGIN { exit !(d > 0 && d <= 60) }' ||
	{ echo "run-prophet: --duration must be in (0, 60] seconds" >&2; exit 2; }
if [ -z "$pairs" ]; then
	for lc in $LCS; do
		for be in $BES; do
			pairs="$pairs,${lc}_$be"
		done
	done
	pairs=${pairs#,}
fi
for p in ${pairs//,/ }; do
	lc=${p%%_*} be=${p#*_}
	case " $LCS " in *" $lc "*) ;; *) bad=1 ;; esac
	case " $BES " in *" $be "*) ;; *) bad=1 ;; esac
	if [ "$p" != "${lc}_$be" ] || [ -n "${bad:-}" ]; then
		echo "run-prophet: --pairs: '$p' is not LC_BE with LC one of $LCS and BE one of $BES" >&2
		exit 2
	fi
done
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}

# shellcheck source=bench/outdir.sh
. bench/outdir.sh
outdir_init run-prophet "$1"
LOGS=$OUT/logs
mkdir -p "$LOGS" "$OUT/traces" "$OUT/ncu"
build_or_die run-prophet "$BUILD/gsp-wl" "$BUILD/gpu/hwprobe" \
	"$BUILD/lib/libgsp_trace.so" "$BUILD/gspctl"
WL=$BUILD/gsp-wl
TRACE_SO=$(realpath "$BUILD/lib/libgsp_trace.so")
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
NCU=${NCU:-$(command -v ncu || echo "${CUDA_HOME:-/usr/local/cuda}/bin/ncu")}
if [ -n "$ncu" ] && [ ! -x "$NCU" ]; then
	echo "run-prophet: no ncu at '$NCU' (set NCU): dram_Bps stays 0" >&2
	ncu=
fi
gpu_env "$OUT/env.txt" "bench: run-prophet.sh pairs=$pairs kmax=$kmax duration=$dur ncu=${ncu:+yes}" \
	"xfer: LCs $XFER_LCS, BEs $XFER_BES" \
	"ncu: $([ -n "$ncu" ] && "$NCU" --version | tail -n 1)"

# The workloads the pairs need, each role with its gsp-wl options.
lcs='' bes=''
for p in ${pairs//,/ }; do
	case " $lcs " in *" ${p%%_*} "*) ;; *) lcs="$lcs ${p%%_*}" ;; esac
	case " $bes " in *" ${p#*_} "*) ;; *) bes="$bes ${p#*_}" ;; esac
done
has() { case " $1 " in *" $2 "*) return 0 ;; esac; return 1; }
role_args() {	# ROLE WL VARIANT: gsp-wl run's options
	local a
	if [ "$1" = lc ]; then a="--lc $2 --period-ms 2"; else a="--be $2"; fi
	[ "$3" = xfer ] && a="$a --xfer-$1 1"
	echo "$a"
}
variants() {	# ROLE WL: plain, and xfer where that workload has it
	echo plain
	if [ "$1" = lc ]; then has "$XFER_LCS" "$2" && echo xfer; else has "$XFER_BES" "$2" && echo xfer; fi
}
suffix() { [ "$1" = xfer ] && echo .xfer; }

# a. the machine
log_cmd "$BUILD/gpu/hwprobe" --out "$OUT/hw.csv"
"$BUILD/gpu/hwprobe" --out "$OUT/hw.csv" >"$LOGS/hwprobe.out" 2>&1 ||
	{ cat "$LOGS/hwprobe.out" >&2; echo "run-prophet: hwprobe failed" >&2; exit 1; }
cat "$LOGS/hwprobe.out"

# b. solo traces, then ncu
for role in lc be; do
	[ "$role" = lc ] && wls=$lcs || wls=$bes
	for w in $wls; do
		for v in $(variants "$role" "$w"); do
			t=$OUT/traces/$w.$role$(suffix "$v").csv
			# shellcheck disable=SC2046
			set -- $(role_args "$role" "$w" "$v") --duration "$dur"
			log_cmd env CUDA_INJECTION64_PATH="$TRACE_SO" GSP_TRACE_OUT="$t" "$WL" run "$@"
			CUDA_INJECTION64_PATH=$TRACE_SO GSP_TRACE_OUT=$t timeout -k 5 60 \
				"$WL" run "$@" >"$LOGS/trace.$w.$role.$v.out" 2>&1 ||
				echo "run-prophet: the traced run of $w ($role, $v) failed (logs)" >&2
			echo "trace $w $role $v: $(grep '^gsp_trace' "$LOGS/trace.$w.$role.$v.out" | tr '\n' ' ')"
		done
		[ -n "$ncu" ] || continue
		c=$OUT/ncu/$w.$role.csv
		# shellcheck disable=SC2046
		set -- $(role_args "$role" "$w" plain) --duration "$dur"
		log_cmd "$NCU" -f --csv --print-units base --print-kernel-base mangled \
			--metrics dram__bytes.sum,gpu__time_duration.sum \
			--launch-skip 10 --launch-count 30 --log-file "$c" "$WL" run "$@"
		timeout -k 5 120 "$NCU" -f --csv --print-units base --print-kernel-base mangled \
			--metrics dram__bytes.sum,gpu__time_duration.sum \
			--launch-skip 10 --launch-count 30 --log-file "$c" "$WL" run "$@" \
			>"$LOGS/ncu.$w.$role.out" 2>&1 ||
			echo "run-prophet: ncu on $w ($role) failed (logs)" >&2
		for v in $(variants "$role" "$w"); do
			t=$OUT/traces/$w.$role$(suffix "$v").csv
			[ -s "$t" ] || continue
			log_cmd python3 bench/gpu/prophet-ncu.py "$t" "$c"
			python3 bench/gpu/prophet-ncu.py "$t" "$c" ||
				echo "run-prophet: $t keeps dram_Bps 0" >&2
		done
	done
done

# c. co-runs under MPS
# shellcheck source=bench/mps.sh
. bench/mps.sh
mps_up run-prophet "$LOGS/mps"
finish() {
	mps_down
	tar czf "$OUT/logs.tgz" -C "$OUT" logs 2>/dev/null && rm -rf "$LOGS"
}
trap finish EXIT

dur_s=${dur%%.*}
dur_s=$((${dur_s:-0} + 1))
mono_ns() { python3 -c 'import time; print(time.clock_gettime_ns(time.CLOCK_MONOTONIC))'; }

# corun TAG LC VARIANT K [BE]: the LC and K BE processes through --sync;
# prints "lc_mean_us lc_p95_us be_units_per_s" (empty fields on failure).
corun() {
	local tag=$1 lc=$2 v=$3 k=$4 be=${5:-} i pids=() fds=() fd ready t0 s e
	local dir=$LOGS/$tag
	mkdir -p "$dir"
	for ((i = 0; i <= k; i++)); do
		mkfifo "$dir/in.$i"
		if ((i == 0)); then
			# shellcheck disable=SC2046
			set -- $(role_args lc "$lc" "$v") --lat-out "$dir/lat"
		else
			# shellcheck disable=SC2046
			set -- $(role_args be "$be" "$v")
		fi
		log_cmd "$WL" run "$@" --sync
		timeout -k 5 $((30 + dur_s)) "$WL" run "$@" --sync <"$dir/in.$i" \
			>"$dir/out.$i" 2>"$dir/err.$i" &
		pids+=($!)
		exec {fd}>"$dir/in.$i"
		fds+=("$fd")
	done
	# every process set up (READY), or 30 s
	t0=$SECONDS
	while :; do
		ready=$(cat "$dir"/out.* 2>/dev/null | grep -c '^READY')
		((ready == k + 1 || SECONDS - t0 > 30)) && break
		sleep 0.05
	done
	s=$(($(mono_ns) + 300000000))
	e=$(awk -v s="$s" -v d="$dur" 'BEGIN { printf "%.0f", s + d * 1e9 }')
	for fd in "${fds[@]}"; do
		echo "GO $s $e" >&"$fd"
		exec {fd}>&-
	done
	wait "${pids[@]}"
	if ((ready != k + 1)); then
		echo "run-prophet: $tag: only $ready of $((k + 1)) processes came up" >&2
		echo ",,"
		return
	fi
	# gsp-wl's own mean; p95 from its latencies, its percentile rule
	awk -v lat="$dir/lat" '
		FILENAME ~ /out\.0$/ && /^RESULT role=lc/ {
			for (i = 1; i <= NF; i++) if ($i ~ /^mean_us=/) mean = substr($i, 9) }
		FILENAME !~ /out\.0$/ && /^RESULT role=be/ {
			for (i = 1; i <= NF; i++) if ($i ~ /^units_per_s=/) { u += substr($i, 13); nb++ } }
		END {
			n = 0
			while ((getline l < lat) > 0) v[++n] = l + 0
			p95 = ""
			if (n) { j = int(0.95 * n); if (j < 0.95 * n) j++; p95 = v[j] }
			printf "%s,%s,%s\n", mean, p95, nb ? sprintf("%.3f", u / nb) : "" }
	' "$dir"/out.*
}

echo "lc,be,variant,k,lc_mean_us,lc_p95_us,be_units_per_s" >"$OUT/measured.csv"
declare -A alone
for p in ${pairs//,/ }; do
	lc=${p%%_*} be=${p#*_}
	for v in plain xfer; do
		if [ "$v" = xfer ]; then
			if ! has "$XFER_LCS" "$lc" || ! has "$XFER_BES" "$be"; then continue; fi
		fi
		if [ -z "${alone[$lc.$v]:-}" ]; then
			alone[$lc.$v]=$(corun "alone.$lc.$v" "$lc" "$v" 0)
			echo "alone $lc $v: ${alone[$lc.$v]}"
		fi
		# the LC alone is the same for every BE: one run, a row per pair
		echo "$lc,$be,$v,0,${alone[$lc.$v]%,*}," >>"$OUT/measured.csv"
		for ((k = 1; k <= kmax; k++)); do
			r=$(corun "$p.$v.$k" "$lc" "$v" "$k" "$be")
			echo "$p $v k=$k: $r"
			echo "$lc,$be,$v,$k,$r" >>"$OUT/measured.csv"
		done
	done
done

# d. Prophet's predictions, if this build has them
if "$BUILD/gspctl" predict --help >"$LOGS/predict-help.txt" 2>&1; then
	echo "lc,be,variant,k,model,lc_solo_us,lc_mean_us,lc_p95_us,be_tasks_per_s,be_iters_per_s" \
		>"$OUT/predicted.csv"
	# one row of measured.csv, both models, into $LOGS/pred/N
	predict_row() {
		local n=$1 lc=$2 be=$3 v=$4 k=$5 m line args sx
		kv() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" <<<"$line"; }
		sx=$(suffix "$v")
		# query 0 of a gsp-wl trace is its set-up and warm-up
		args=(--hw "$OUT/hw.csv" --lc "$OUT/traces/$lc.lc$sx.csv" --skip 1)
		[ "$k" -gt 0 ] && args+=(--be "$OUT/traces/$be.be$sx.csv" --k "$k")
		for m in fluid sequential; do
			log_cmd "$BUILD/gspctl" predict --model "$m" "${args[@]}"
			line=$("$BUILD/gspctl" predict --model "$m" "${args[@]}" 2>>"$LOGS/predict.err")
			echo "$lc,$be,$v,$k,$m,$(kv lc_solo_us),$(kv lc_mean_us),$(kv lc_p95_us),$(kv be_tasks_per_s),$(kv be_iters_per_s)"
		done >"$LOGS/pred/$n"
	}
	mkdir -p "$LOGS/pred"
	n=0 cpus=$(nproc)
	while IFS=, read -r lc be v k _; do
		n=$((n + 1))
		predict_row "$n" "$lc" "$be" "$v" "$k" &
		while [ "$(jobs -rp | wc -l)" -ge "$cpus" ]; do wait -n; done
	done < <(tail -n +2 "$OUT/measured.csv")
	wait
	for ((i = 1; i <= n; i++)); do cat "$LOGS/pred/$i"; done >>"$OUT/predicted.csv"
	log_cmd python3 bench/gpu/prophet-eval.py --gpu "$GPU" --kmax "$kmax" "$OUT"
	python3 bench/gpu/prophet-eval.py --gpu "$GPU" --kmax "$kmax" "$OUT" |
		tee "$OUT/summary.txt"
	predicted="predicted.csv (gspctl predict, fluid and sequential), predict.csv, admission.csv and summary.txt (prophet-eval.py)"
else
	echo "run-prophet: $BUILD/gspctl has no predict command: predicted.csv skipped" >&2
	predicted="no predictions: this build's gspctl has no predict command (bench/gpu/prophet-eval.py OUT makes them later)"
fi

# e. what was run
cat >"$OUT/README.md" <<EOF
# Prophet inputs and check, $GPU

\`bench/run-prophet.sh\` (its header comment says what each step does),
pairs $pairs, k = 0..$kmax BE processes, $dur s measured per run; see
env.txt and commands.txt.

- hw.csv: hwprobe (SMs, per-SM limits, copy-kernel DRAM bandwidth, pinned
  PCIe bandwidth each way)
- traces/: one gsp-trace 1 CSV per workload and role, solo, no MPS
  (libgsp_trace.so); .xfer: with pinned copies (LCs $XFER_LCS, BEs
  $XFER_BES); dram_Bps from ncu: ${ncu:+yes}${ncu:-no, 0}
- measured.csv: under MPS, each LC alone (k 0) and beside k BE processes
  started together (gsp-wl --sync); LC mean and p95 latency (us), BE
  units/s, the mean over the BE processes
- $predicted
- logs.tgz: every program's output
EOF
outdir_scrub "${CUDA_MPS_PIPE_DIRECTORY:-}:MPSDIR"
echo "run-prophet: done, $OUT"
