#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The LC-protection benchmark (issue 27) on a GPU host, from a bare
# checkout (root, nvcc and the MPS binaries in PATH):
#
#   bench/run-lcprotect.sh [--quick] [--only REGEX] [--lc REGEX]
#                          [--mech REGEX] [--measure-s S] [--block-trace] OUT
#
# For each BE shape and LC shape it runs the LC beside the BE under every
# mechanism, side by side in one run: plain MPS, MPS with the BE at
# 10/25/50/75 % threads, stream priorities (one process with two streams,
# setting "process"; or two processes under MPS with the LC's stream at
# the greatest priority, setting "mps"), the gspace time plane, and
# gspace's spatial modes at each partition it tries (reactive, and
# reserved/predictive when the arbiter has the `protect` knob), and
# partition auto (mechanism gspace-auto, setting the protect mode: the
# LC's own search, ns, its target 2x the LC's solo p50 of this run, as a
# time: GSP_LC_TARGET_US). All cells run under one MPS daemon. Writes
#
#   OUT/pareto.csv   shape,lc,arrival,mechanism,setting,lc_solo_p99_us,
#                    lc_p50_us,lc_p99_us,lc_p999_us,be_solo_per_s,
#                    be_per_s,gpu
#   OUT/calib.txt    the --iters of every body (kept: a second run with
#                    the same OUT reuses them, so runs can be split)
#   OUT/logs.tgz     every program's stderr, stats file and gspaced's log
#   OUT/env.txt, OUT/commands.txt
#
# and OUT/plots/*.svg, one Pareto plot per shape (lcprotect-pareto.py).
# --quick runs three BE shapes and the short periodic LC only; --only
# keeps the BE shapes whose name matches REGEX, --lc the LC shapes whose
# "NAME-ARRIVAL" (100us-1k-periodic, say) matches, --mech the mechanisms
# (the solo runs always run). REACTIVE, RESERVED and PREDICTIVE in the
# environment replace the partitions each gspace mode tries ("N,K ...";
# a PREDICTIVE entry "N,K,L" also sets predict_lead_us to L, setting
# "NxK-leadLus"); AUTO the protect modes gspace-auto runs under
# ("predictive reactive"), AUTO_BOUND=0 its search unbounded
# (GSP_SEARCH_BOUND).
# --block-trace also records where and when every LC block ran (lcprotect
# --block-trace; about 12 MB a cell, so pick cells with --only, --lc and
# --mech; the LC's solo runs too)
# into OUT/logs.tgz, and prints where the slow requests' blocks ran
# (lcprotect-pareto.py --blocks). A cell lasts about
# 1 + 1 + S seconds (start, warm-up, measurement; S = 2 by default).
# Cells append to OUT/pareto.csv, so OUT may collect several runs.
set -uo pipefail
quick=0 only=. lcs_only=. mechs=. measure=2 btrace=0
while [ $# -gt 1 ]; do
	case $1 in
	--quick) quick=1 ;;
	--only) only=$2; shift ;;
	--lc) lcs_only=$2; shift ;;
	--mech) mechs=$2; shift ;;
	--block-trace) btrace=1 ;;
	--measure-s) measure=$2; shift ;;
	*) echo "run-lcprotect: unknown option $1 (see the comment at the top of $0)" >&2; exit 2 ;;
	esac
	shift
done
[ $# = 1 ] || { echo "usage: $0 [--quick] [--only REGEX] [--lc REGEX] [--mech REGEX] [--measure-s S] [--block-trace] OUT" >&2; exit 2; }
case $measure in ''|*[!0-9]*|0) echo "run-lcprotect: --measure-s needs a whole number of seconds >= 1" >&2; exit 2 ;; esac
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
# gspace's settings, n SMs and k slots (NxK in the CSV): k = 32 (at least any kernel's K)
# gives up whole SMs. An LC block beside compute-bound BE warps on its SM
# runs several times slower (Documentation/spatial.rst), so the benchmark
# tries whole SMs only.
REACTIVE=${REACTIVE:-132,32 66,32}
RESERVED=${RESERVED:-66,32 33,32}
PREDICTIVE=${PREDICTIVE:-132,32 132,32,300 132,32,50}
AUTO=${AUTO:-predictive reactive}

# shellcheck source=bench/outdir.sh
. bench/outdir.sh
outdir_init run-lcprotect "$1"
LOGS=$OUT/logs
mkdir -p "$LOGS"

build_or_die run-lcprotect "$BUILD/gspaced" "$BUILD/gsp-run" "$BUILD/gspctl" \
	"$BUILD/lib/libgsp_preload.so" libgsp "$BUILD/gpu/lcprotect" "$BUILD/gsp-wl"
LCP=$BUILD/gpu/lcprotect
TMO=(timeout -k 5 $((measure + 40)))	# a stuck cell fails, the run goes on
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
gpu_env "$OUT/env.txt" "bench: run-lcprotect.sh quick=$quick only=$only lc=$lcs_only mech=$mechs measure_s=$measure" \
	"partitions: reactive=$REACTIVE reserved=$RESERVED predictive=$PREDICTIVE auto=$AUTO"

# --- MPS for every cell ------------------------------------------------------
# shellcheck source=bench/mps.sh
. bench/mps.sh
mps_up run-lcprotect "$LOGS/mps"
# shellcheck source=bench/gspaced.sh
. bench/gspaced.sh
finish() {
	gspaced_cleanup
	mps_down
}
trap finish EXIT

# --- shapes ---------------------------------------------------------------------
# BE: "US-BODY-WAVES-SYNC": block length, compute|memory, many|one,
# sync|nosync, lcprotect's BE; "wl-WL": gsp-wl's BE workload WL (gsp-wl
# run --be WL, through bench/gpu/wl_window.py); "torch-train": a PyTorch
# training loop (bench/gpu/torch_train.py). The last two have blocks of
# every length, so their names carry none.
if [ "$quick" = 1 ]; then
	BE_SHAPES="22us-compute-many-sync 220us-compute-many-sync 94000us-compute-one-sync"
else
	BE_SHAPES="2us-compute-many-sync 10us-compute-many-sync 22us-compute-many-sync
50us-compute-many-sync 220us-compute-many-sync 2000us-compute-many-sync
20000us-compute-many-sync 100000us-compute-many-sync
22us-memory-many-sync 2000us-memory-many-sync
220us-compute-one-sync 94000us-compute-one-sync 220us-compute-many-nosync
wl-mm wl-nn wl-cfd wl-md torch-train"
fi
# LC: "NAME:US:KERNELS:PERIOD_US"; every BE shape gets the first, the
# shapes in LC_MORE_ON get the others too, periodic and Poisson.
LC_BASE="100us-1k:100:1:2000"
LC_MORE="1500us-1k:1500:1:10000 400us-4k:400:4:4000"
LC_MORE_ON="22us-compute-many-sync 220us-compute-many-sync"
[ "$quick" = 1 ] && LC_MORE=
LC_BLOCKS=264

# --- calibration (kept in OUT/calib.txt) ---------------------------------------
# shellcheck source=bench/calib.sh
. bench/calib.sh

# --- one cell -------------------------------------------------------------------
[ -s "$OUT/raw.csv" ] ||
	echo "shape,lc,arrival,mechanism,setting,lc_p50_us,lc_p99_us,lc_p999_us,lc_n,be_per_s" >"$OUT/raw.csv"
GSPACE_UP=0
gspace_up() {
	[ "$GSPACE_UP" = 1 ] && return 0
	printf 'lease_devices = 1\nsim_devices = 0\npolicy = band\nlc_uids = %s\n' \
		"$(id -u)" >"$OUT/gspaced.conf"
	gspaced_up lcprotect "$OUT/gspaced.conf" "$LOGS/gspaced.log" ||
		{ echo "run-lcprotect: gspaced did not come up" >&2; exit 1; }
	trap finish EXIT	# gspaced_up set its own
	GSPACE_UP=1
}
HAVE_PROTECT=
have_protect() {
	[ -n "$HAVE_PROTECT" ] || { gspace_up; if gctl set protect reactive; then
		HAVE_PROTECT=1; else HAVE_PROTECT=0; fi; }
	[ "$HAVE_PROTECT" = 1 ]
}

# How long before its window a BE of SHAPE needs to start (ms): PyTorch
# takes seconds to import and set up.
start_lead() {
	case $1 in
	wl-*) echo 3000 ;;
	torch-*) echo 10000 ;;
	*) echo 1000 ;;
	esac
}

# be_cmd SHAPE TIMING BEARGS [PREFIX...]: the BE's command in BECMD, run
# under PREFIX (gsp-run ... --, or nothing).
be_cmd() {
	local shape=$1 timing=$2 beargs=$3
	shift 3
	# shellcheck disable=SC2086
	case $shape in
	wl-*) BECMD=(python3 bench/gpu/wl_window.py $timing -- "$@"
		"$BUILD/gsp-wl" run --be "${shape#wl-}" --sync) ;;
	torch-*) BECMD=("$@" python3 bench/gpu/torch_train.py $timing) ;;
	*) BECMD=("$@" "$LCP" be $beargs $timing) ;;
	esac
}

# gspaced's predict_lead_us, which a PREDICTIVE entry without a lead keeps
LEAD_DEFAULT=500
# A setting as the CSV names it: "N,K" is NxK, "N,K,L" NxK-leadLus.
setting_name() {
	local n k l
	IFS=, read -r n k l <<<"$1"
	if [ -z "$k" ]; then echo "$1"
	elif [ -z "$l" ]; then echo "${n}x$k"
	else echo "${n}x$k-lead${l}us"; fi
}

# cell SHAPE BEARGS LCNAME LCARGS ARRIVAL MECH SETTING
cell() {
	local shape=$1 beargs=$2 lcname=$3 lcargs=$4 arr=$5 mech=$6 set=$7
	local tag="$shape.$lcname.$arr.$mech.$set" start be lc pn pk plead
	[[ $mech =~ $mechs ]] || return 0
	# one process with two streams: lcprotect's own BE only
	[[ $mech.$set == priority.process && $shape =~ ^(wl|torch)- ]] && return 0
	local berun=() lcrun=() beenv=() lcenv=() lcextra=()
	[ "$btrace" = 1 ] && lcextra=(--block-trace "$LOGS/${tag//,/_}.blocks.csv")
	tag=${tag//,/_}
	start=$(($(date +%s%3N) + $(start_lead "$shape")))
	local timing="--start-ms $start --warmup-s 1 --measure-s $measure"
	case $mech in
	mps) ;;
	priority) [ "$set" = mps ] && lcextra+=(--prio 1) ;;
	mps-cap) beenv=(CUDA_MPS_ACTIVE_THREAD_PERCENTAGE="$set") ;;
	gspace-*)
		gspace_up
		local g=("$BUILD/gsp-run" --arbiter daemon --socket "$sockdir/s")
		beenv=(GSP_STATS_FILE="$LOGS/$tag.be.stats")
		lcenv=(GSP_STATS_FILE="$LOGS/$tag.lc.stats")
		lcrun=("${g[@]}" --class lc --)
		if [ "$mech" = gspace-time ]; then
			gctl set partition 0,0
			berun=("${g[@]}" --class be --no-spatial --)
		elif [ "$mech" = gspace-auto ]; then
			# the LC searches its own cell (Documentation/partition-auto.rst)
			gctl set partition auto
			gctl set search ns
			gctl set protect "$set"
			gctl set predict_lead_us "$LEAD_DEFAULT"
			# the target 2x the LC's solo p50, as a time: its own
			# solo timing runs beside a BE that is already there
			local p50=${LC_SOLO_P50[$lcname.$arr]:-}
			if [ -n "$p50" ]; then
				lcenv+=(GSP_LC_TARGET_US="$(awk -v p="$p50" 'BEGIN { printf "%d", 2 * p + 0.5 }')")
			else
				lcenv+=(GSP_LC_Q=2)
			fi
			lcenv+=(GSP_SEARCH_LOG="$LOGS/$tag.search.csv"
				GSP_SEARCH_BOUND="${AUTO_BOUND:-1}")
			berun=("${g[@]}" --class be --spatial --)
		else
			# "N,K" or "N,K,LEAD_US" (predictive's lead)
			IFS=, read -r pn pk plead <<<"$set"
			gctl set partition "$pn,$pk"
			[ "$HAVE_PROTECT" = 1 ] && gctl set protect "${mech#gspace-}"
			[ "$mech" = gspace-predictive ] &&
				gctl set predict_lead_us "${plead:-$LEAD_DEFAULT}"
			berun=("${g[@]}" --class be --spatial --)
		fi ;;
	esac
	if [ "$mech" = priority ] && [ "$set" = process ]; then
		# shellcheck disable=SC2086
		log_cmd "$LCP" both --prio 1 $lcargs $beargs $timing
		# shellcheck disable=SC2086
		"${TMO[@]}" "$LCP" both --prio 1 $lcargs $beargs $timing \
			>"$LOGS/$tag.out" 2>"$LOGS/$tag.err"
	else
		be_cmd "$shape" "$timing" "$beargs" "${berun[@]}"
		log_cmd env "${beenv[@]}" "${BECMD[@]}"
		"${TMO[@]}" env "${beenv[@]}" "${BECMD[@]}" \
			>"$LOGS/$tag.be.out" 2>"$LOGS/$tag.be.err" &
		be=$!
		# shellcheck disable=SC2086
		log_cmd env "${lcenv[@]}" "${lcrun[@]}" "$LCP" lc ${lcargs//--lc-/--} "${lcextra[@]}" $timing
		# shellcheck disable=SC2086
		"${TMO[@]}" env "${lcenv[@]}" "${lcrun[@]}" "$LCP" lc ${lcargs//--lc-/--} "${lcextra[@]}" $timing \
			>"$LOGS/$tag.lc.out" 2>"$LOGS/$tag.lc.err"
		wait "$be"
		cat "$LOGS/$tag.be.out" "$LOGS/$tag.lc.out" >"$LOGS/$tag.out"
		[ "$btrace" = 1 ] && [ -s "$LOGS/$tag.blocks.csv" ] &&
			python3 bench/gpu/lcprotect-pareto.py --blocks "$LOGS/$tag.blocks.csv" |
			sed "s/^/run-lcprotect: $tag: /" >&2
	fi
	lc=$(awk '$1 == "lc" { print $3 "," $5 "," $7 "," $9 }' "$LOGS/$tag.out")
	be=$(awk '$1 == "be" { print $3 }' "$LOGS/$tag.out")
	echo "$shape,$lcname,$arr,$mech,$(setting_name "$set"),${lc:-,,,},${be:-}" >>"$OUT/raw.csv"
	echo "run-lcprotect: $tag: lc ${lc:-failed} be ${be:-failed}" >&2
}

# solo SHAPE BEARGS | solo - LCNAME LCARGS ARRIVAL
solo_be() {
	local start
	start=$(($(date +%s%3N) + $(start_lead "$1")))
	be_cmd "$1" "--start-ms $start --warmup-s 1 --measure-s $measure" "$2"
	log_cmd "${BECMD[@]}"
	"${TMO[@]}" "${BECMD[@]}" >"$LOGS/$1.solo.out" 2>"$LOGS/$1.solo.err"
	echo "$1,,,solo,default,,,,,$(awk '$1 == "be" { print $3 }' "$LOGS/$1.solo.out")" >>"$OUT/raw.csv"
}
solo_lc() {
	local start extra=()
	start=$(($(date +%s%3N) + 1000))
	[ "$btrace" = 1 ] && extra=(--block-trace "$LOGS/$1.$3.solo.blocks.csv")
	# shellcheck disable=SC2086
	log_cmd "$LCP" lc ${2//--lc-/--} "${extra[@]}" --start-ms "$start" --warmup-s 1 --measure-s "$measure"
	# shellcheck disable=SC2086
	"${TMO[@]}" "$LCP" lc ${2//--lc-/--} "${extra[@]}" --start-ms "$start" --warmup-s 1 --measure-s "$measure" \
		>"$LOGS/$1.$3.solo.out" 2>"$LOGS/$1.$3.solo.err"
	echo ",$1,$3,solo,default,$(awk '$1 == "lc" { print $3 "," $5 "," $7 "," $9 }' "$LOGS/$1.$3.solo.out")," >>"$OUT/raw.csv"
	LC_SOLO_P50[$1.$3]=$(awk '$1 == "lc" { print $3 }' "$LOGS/$1.$3.solo.out")
}

# --- the sweep ------------------------------------------------------------------
lc_args() {	# NAME:US:KERNELS:PERIOD ARRIVAL -> the LC's options
	local us k p it
	IFS=: read -r _ us k p <<<"$1"
	it=$(calib run-lcprotect "lc-$us" --body compute --target-us "$us" --blocks "$LC_BLOCKS")
	echo "--lc-iters $it --lc-blocks $LC_BLOCKS --kernels $k --period-us $p --arrival $2"
}
declare -A LC_SOLO_DONE LC_SOLO_P50
for shape in $BE_SHAPES; do
	[[ $shape =~ $only ]] || continue
	beargs=
	if ! [[ $shape =~ ^(wl|torch)- ]]; then
		IFS=- read -r us body waves sync <<<"$shape"
		us=${us%us}
		it=$(calib run-lcprotect "be-$body-$us" --body "$body" --target-us "$us")
		if [ "$waves" = one ]; then w=0; else w=$((14000 / us)); [ "$w" -lt 4 ] && w=4; fi
		beargs="--body $body --iters $it --waves $w --sync $([ "$sync" = sync ] && echo 1 || echo 0)"
	fi
	solo_be "$shape" "$beargs"
	lcs=$LC_BASE:periodic
	if [[ " $LC_MORE_ON " == *" $shape "* ]]; then
		lcs="$lcs $LC_BASE:poisson"
		for l in $LC_MORE; do lcs="$lcs $l:periodic"; done
	fi
	for l in $lcs; do
		arr=${l##*:}
		l=${l%:*}
		lcname=${l%%:*}
		[[ $lcname-$arr =~ $lcs_only ]] || continue
		lcargs=$(lc_args "$l" "$arr")
		if [ -z "${LC_SOLO_DONE[$lcname.$arr]:-}" ]; then
			solo_lc "$lcname" "$lcargs" "$arr"
			LC_SOLO_DONE[$lcname.$arr]=1
		fi
		cell "$shape" "$beargs" "$lcname" "$lcargs" "$arr" mps default
		for cap in 10 25 50 75; do
			cell "$shape" "$beargs" "$lcname" "$lcargs" "$arr" mps-cap "$cap"
		done
		cell "$shape" "$beargs" "$lcname" "$lcargs" "$arr" priority process
		cell "$shape" "$beargs" "$lcname" "$lcargs" "$arr" priority mps
		cell "$shape" "$beargs" "$lcname" "$lcargs" "$arr" gspace-time default
		for p in $REACTIVE; do
			cell "$shape" "$beargs" "$lcname" "$lcargs" "$arr" gspace-reactive "$p"
		done
		if have_protect; then
			for p in $RESERVED; do
				cell "$shape" "$beargs" "$lcname" "$lcargs" "$arr" gspace-reserved "$p"
			done
			for p in $PREDICTIVE; do
				cell "$shape" "$beargs" "$lcname" "$lcargs" "$arr" gspace-predictive "$p"
			done
			for p in $AUTO; do
				cell "$shape" "$beargs" "$lcname" "$lcargs" "$arr" gspace-auto "$p"
			done
		fi
	done
done

# --- pareto.csv from raw.csv: the solo figures joined in --------------------------
python3 bench/gpu/lcprotect-pareto.py "$OUT/raw.csv" "$GPU" >"$OUT/pareto.csv" ||
	{ echo "run-lcprotect: lcprotect-pareto.py failed" >&2; exit 1; }
log_cmd python3 bench/gpu/lcprotect-pareto.py "$OUT/raw.csv" "$GPU"
log_cmd python3 bench/gpu/lcprotect-pareto.py --plot "$OUT/pareto.csv" "$OUT/plots"
python3 bench/gpu/lcprotect-pareto.py --plot "$OUT/pareto.csv" "$OUT/plots"
gspaced_down >>"$LOGS/gspaced.log"
tar -C "$OUT" -czf "$OUT/logs.tgz" logs && rm -rf "$LOGS"
outdir_scrub "$sockdir:SOCKDIR" "${CUDA_MPS_PIPE_DIRECTORY:-}:MPSDIR"
echo "run-lcprotect: $(($(wc -l <"$OUT/pareto.csv") - 1)) rows in $OUT/pareto.csv"
