#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# CuMAS on a GPU: transfer-heavy processes (bench/gpu/xfer) side by side
# under gspaced's FIFO and BAND, with and without CuMAS reordering, and
# under plain CUDA and MPS, on a GPU host (root or an admin of the
# gspaced it starts, nvidia-smi, the MPS binaries in PATH for the mps
# rows):
#
#   bench/run-cumas.sh [--quick] [--dry-run] [--iters N] [--kernel spin|mem]
#                      [--mixes LIST] [--procs LIST] [--configs REGEX]
#                      [--quantum-us Q] [--start-delay-ms MS]
#                      [--interposer-env 'GSP_X=V ...'] OUT
#
# Classes (each stage's length alone, ms: copy-in, kernel, copy-out;
# xfer sizes the copies from the measured bandwidth and the kernel from
# the measured rate, xfer --calibrate):
#
#   h2d 4,1,1   compute 1,4,1   d2h 1,1,4   balanced 2,2,2
#
# Mixes of N processes (2, 4, 8), the classes taken in turn:
#
#   xfer      h2d, d2h (transfer-bound)
#   balanced  balanced
#   mixed     h2d, compute, d2h, balanced
#
# Configurations (cells: every mix x N x configuration):
#
#   fifo, fifo-r4, fifo-r8, fifo-r16   gspaced policy fifo, reorder off,
#                                      then on at window 4, 8, 16
#   band, band-r8                      policy band, reorder off, on at 8
#   plain                              no gspace: the driver's time-slicing
#   mps                                no gspace, under one MPS daemon
#
# The gspace cells run each process under gsp-run --class be --no-spatial
# against one gspaced (lease_devices 1, no MPS), its knobs set with
# gspctl set policy/reorder/window before each cell. Every process does
# ITERS iterations (default 100) of copy-in, kernel, copy-out and a stream
# synchronise, on one stream of its own, starting together at a common
# time (--start-delay-ms after launch, default 3000). Before the cells:
# xfer --calibrate (logs/calib.txt) and each class alone (plain), whose
# stage medians are the job lengths of the model.
#
# Writes (bench/gpu/cumas_eval.py; Documentation/benchmarks.rst, "CuMAS on
# a GPU", defines every column):
#
#   OUT/cumas.csv        mix,procs,policy,reorder,window,makespan_ms,
#                        optimum_ms,fifo_makespan_ms,h2d_busy,kernel_busy,
#                        d2h_busy,gpu
#   OUT/cumas-procs.csv  one row per process: completion time, stage spans
#   OUT/cumas-cells.csv  cumas.csv plus the model's details and overlap
#   OUT/logs.tgz, OUT/env.txt, OUT/commands.txt, OUT/plan.txt
#
# --quick: mix mixed, N 2 4 8, configurations fifo fifo-r8 band plain
# mps, 40 iterations (about 1 minute); the default run took 357 s on an
# H200 (2026-11-27). --dry-run prints the plan (cells, commands, the
# time estimate) and exits without a GPU. --mixes, --procs and
# --configs narrow the run (space- or comma-separated lists; a regex
# over the configuration names); --kernel mem makes the kernel a
# memory-bound loop instead of a spin. --interposer-env sets GSP_*
# variables for every gspace process (env.txt records them): e.g.
# 'GSP_LEASE_AHEAD=0 GSP_TASK_HEADS=0' runs the interposer as before task
# heads and leases per engine (Documentation/interposer.rst), for a
# before/after pair on one machine:
#
#   bench/run-cumas.sh --configs '^(fifo|fifo-r8|band|band-r8)$' \
#       --interposer-env 'GSP_LEASE_AHEAD=0 GSP_TASK_HEADS=0' OUT/old
#   bench/run-cumas.sh --configs '^(fifo|fifo-r8|band|band-r8)$' OUT/new
set -uo pipefail
iters=100 kernel=spin quick=0 dry=0 quantum=2000 delay=3000
mixes="xfer balanced mixed" procs_list="2 4 8" cfg_re=. ienv=
usage() {
	echo "usage: $0 [--quick] [--dry-run] [--iters N] [--kernel spin|mem] [--mixes LIST] [--procs LIST] [--configs REGEX] [--quantum-us Q] [--start-delay-ms MS] [--interposer-env 'GSP_X=V ...'] OUT" >&2
	exit 2
}
set_iters=
while [ $# -gt 1 ]; do
	case $1 in
	--quick) quick=1 ;;
	--dry-run) dry=1 ;;
	--iters) set_iters=$2; shift ;;
	--kernel) kernel=$2; shift ;;
	--mixes) mixes=${2//,/ }; shift ;;
	--procs) procs_list=${2//,/ }; shift ;;
	--configs) cfg_re=$2; shift ;;
	--quantum-us) quantum=$2; shift ;;
	--start-delay-ms) delay=$2; shift ;;
	--interposer-env) ienv=$2; shift ;;
	*) echo "run-cumas: unknown option $1 (see the comment at the top of $0)" >&2; exit 2 ;;
	esac
	shift
done
[ $# = 1 ] || usage
case $1 in --dry-run) dry=1; set -- "${TMPDIR:-/tmp}/run-cumas-dry" ;; --quick|-*) usage ;; esac
if [ "$quick" = 1 ]; then
	iters=40 mixes=mixed procs_list="2 4 8" cfg_re='^(fifo|fifo-r8|band|plain|mps)$'
fi
[ -n "$set_iters" ] && iters=$set_iters
[[ $iters =~ ^[1-9][0-9]{0,4}$ ]] && [ "$iters" -le 20000 ] ||
	{ echo "run-cumas: --iters needs a whole number 1..20000, got '$iters'" >&2; exit 2; }
case $kernel in spin|mem) ;; *) echo "run-cumas: --kernel needs spin or mem, got '$kernel'" >&2; exit 2 ;; esac
[[ $quantum =~ ^[1-9][0-9]{1,7}$ ]] ||
	{ echo "run-cumas: --quantum-us needs a whole number of us (10..10000000), got '$quantum'" >&2; exit 2; }
[[ $delay =~ ^[1-9][0-9]{2,5}$ ]] ||
	{ echo "run-cumas: --start-delay-ms needs a whole number of ms (100..999999), got '$delay'" >&2; exit 2; }
for kv in $ienv; do
	[[ $kv =~ ^GSP_[A-Z0-9_]+=[A-Za-z0-9_.,:-]*$ ]] ||
		{ echo "run-cumas: --interposer-env needs GSP_NAME=VALUE words, got '$kv'" >&2; exit 2; }
done
for m in $mixes; do
	case $m in xfer|balanced|mixed) ;; *) echo "run-cumas: unknown mix '$m' (xfer, balanced, mixed)" >&2; exit 2 ;; esac
done
for n in $procs_list; do
	[[ $n =~ ^[1-9][0-9]?$ ]] && [ "$n" -le 32 ] ||
		{ echo "run-cumas: --procs needs process counts 1..32, got '$n'" >&2; exit 2; }
done
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
XFER=$BUILD/gpu/xfer

# class -> "H2D_US KERN_US D2H_US"
declare -A SHAPE=([h2d]="4000 1000 1000" [compute]="1000 4000 1000"
		  [d2h]="1000 1000 4000" [balanced]="2000 2000 2000")
# mix -> the classes taken in turn
declare -A MIX=([xfer]="h2d d2h" [balanced]="balanced"
		[mixed]="h2d compute d2h balanced")
CONFIGS="fifo fifo-r4 fifo-r8 fifo-r16 band band-r8 plain mps"

# classes MIX N: the N processes' classes, in order
classes() {
	local -a c=(${MIX[$1]})
	local i out=
	for ((i = 0; i < $2; i++)); do
		out+="${c[i % ${#c[@]}]} "
	done
	echo "$out"
}

# The cells, in run order: the MPS ones last, under one daemon.
CELLS=()
for cfg in $CONFIGS; do
	[[ $cfg =~ $cfg_re ]] || continue
	for m in $mixes; do
		for n in $procs_list; do
			CELLS+=("$m.n$n.$cfg")
		done
	done
done
[ ${#CELLS[@]} -gt 0 ] || { echo "run-cumas: no cell left (--configs '$cfg_re' matches none of: $CONFIGS)" >&2; exit 2; }

# Work per round of a cell, ms: the busiest engine's load.
round_ms() {
	local k load
	load=$(for k in $(classes "$1" "$2"); do echo "${SHAPE[$k]}"; done |
		awk '{ for (i = 1; i <= 3; i++) s[i] += $i } END { m = s[1]; if (s[2] > m) m = s[2]; if (s[3] > m) m = s[3]; print m / 1000 }')
	echo "$load"
}

plan() {
	local c m n cfg est=0 t
	echo "# run-cumas plan: iters=$iters kernel=$kernel quantum_us=$quantum start_delay_ms=$delay"
	echo "# classes (copy-in, kernel, copy-out, us alone):"
	for c in h2d compute d2h balanced; do echo "#   $c ${SHAPE[$c]}"; done
	echo "# calibrate: $XFER --calibrate --kernel $kernel"
	for c in h2d compute d2h balanced; do
		read -r a b d <<<"${SHAPE[$c]}"
		echo "# solo $c: $XFER --name $c --iters $iters --h2d-us $a --kern-us $b --d2h-us $d --kernel $kernel --calib LOGS/calib.txt"
	done
	echo "# cell                      procs config    classes"
	for c in "${CELLS[@]}"; do
		m=${c%%.*} n=${c#*.n}; n=${n%%.*} cfg=${c##*.}
		printf '%-27s %5s %-9s %s\n' "$c" "$n" "$cfg" "$(classes "$m" "$n")"
		# start delay + teardown, then the rounds at 1.5x the busiest
		# engine's load (FIFO leaves gaps), at least the longest chain
		t=$(awk -v r="$(round_ms "$m" "$n")" -v i="$iters" -v d="$delay" \
			'BEGIN { w = r * 1.5; if (w < 6) w = 6; print d / 1000 + 0.5 + i * w / 1000 }')
		est=$(awk -v a="$est" -v b="$t" 'BEGIN { print a + b }')
	done
	est=$(awk -v a="$est" -v i="$iters" 'BEGIN { print a + 4 * (3 + i * 0.006) + 5 + 4 }')
	echo "# ${#CELLS[@]} cells; estimated wall time $(awk -v e="$est" 'BEGIN { printf "%d s (%.1f min)", e, e / 60 }')"
	echo "# gspace cells: ${ienv:+env $ienv }$BUILD/gsp-run --arbiter daemon --socket SOCK --class be --no-spatial --quantum-us $quantum -- $XFER ... --start-ms T"
	echo "#   before each cell: gspctl set policy fifo|band; gspctl set reorder 0|1; gspctl set window W"
}

if [ "$dry" = 1 ]; then
	plan
	exit 0
fi

# shellcheck source=bench/outdir.sh
. bench/outdir.sh
outdir_init run-cumas "$1"
LOGS=$OUT/logs
rm -rf "$LOGS"
mkdir -p "$LOGS/solo" "$LOGS/cells"
plan >"$OUT/plan.txt"
build_missing run-cumas "$BUILD/gspaced" "$BUILD/gsp-run" "$BUILD/gspctl" \
	"$BUILD/lib/libgsp_preload.so" "$BUILD/lib/libgsp.so" "$XFER" \
	"$BUILD/gpu/flowshop"
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
gpu_env "$OUT/env.txt" "bench: run-cumas.sh iters=$iters kernel=$kernel quick=$quick mixes=$mixes procs=$procs_list configs=$cfg_re quantum_us=$quantum start_delay_ms=$delay" \
	"classes: h2d=${SHAPE[h2d]// /,} compute=${SHAPE[compute]// /,} d2h=${SHAPE[d2h]// /,} balanced=${SHAPE[balanced]// /,} (us)" \
	"stream: one cudaStreamCreate stream per process, a stream synchronise per iteration" \
	"gspace: gsp-run --class be --no-spatial, one gspaced, no MPS" \
	"interposer env: ${ienv:-(none: GSP_LEASE_AHEAD and GSP_TASK_HEADS at their defaults, 1)}"
TMO=(timeout -k 5 120)
T_START=$(date +%s)

# shellcheck source=bench/gspaced.sh
. bench/gspaced.sh
mps_on=0
finish() {
	gspaced_cleanup
	if [ "$mps_on" = 1 ]; then
		"$BUILD/gspctl" mps stop >/dev/null 2>&1
		rm -rf "$CUDA_MPS_PIPE_DIRECTORY"
	fi
	outdir_scrub "${sockdir:-}:SOCKDIR"
	tar czf "$OUT/logs.tgz" -C "$OUT" logs 2>/dev/null && rm -rf "$LOGS"
}
# gspaced's own uid may set its knobs.
printf 'lease_devices = 1\nsim_devices = 0\npolicy = fifo\nreorder = 0\n' >"$OUT/gspaced.conf"
gspaced_up run-cumas "$OUT/gspaced.conf" "$LOGS/gspaced.log" ||
	{ echo "run-cumas: gspaced did not come up (see $LOGS/gspaced.log)" >&2; finish; exit 1; }
trap finish EXIT	# gspaced_up set its own

log_cmd "$XFER" --calibrate --kernel "$kernel"
"${TMO[@]}" "$XFER" --calibrate --kernel "$kernel" >"$LOGS/calib.txt" 2>"$LOGS/calib.err" ||
	{ echo "run-cumas: xfer --calibrate failed:" >&2; cat "$LOGS/calib.err" >&2; exit 1; }
cat "$LOGS/calib.txt" >>"$OUT/env.txt"
echo "run-cumas: $(cat "$LOGS/calib.txt")" >&2

# xargs CLASS: xfer's arguments for a process of that class
xargs_of() {
	local a b d
	read -r a b d <<<"${SHAPE[$1]}"
	echo "--name $1 --iters $iters --h2d-us $a --kern-us $b --d2h-us $d --kernel $kernel --calib $LOGS/calib.txt"
}

for c in h2d compute d2h balanced; do
	start=$(($(date +%s%3N) + 500))
	# shellcheck disable=SC2046
	log_cmd "$XFER" $(xargs_of $c) --start-ms "$start"
	# shellcheck disable=SC2046
	"${TMO[@]}" "$XFER" $(xargs_of $c) --start-ms "$start" \
		>"$LOGS/solo/$c.out" 2>"$LOGS/solo/$c.err" ||
		echo "run-cumas: solo $c failed (see logs/solo/$c.err)" >&2
done

echo "# CELL MIX PROCS POLICY REORDER WINDOW" >"$LOGS/cells.txt"
G="${ienv:+$ienv }$BUILD/gsp-run --arbiter daemon --socket $sockdir/s --class be --no-spatial --quantum-us $quantum"
for cell in "${CELLS[@]}"; do
	m=${cell%%.*} n=${cell#*.n}; n=${n%%.*} cfg=${cell##*.}
	pre= policy=$cfg reorder=0 window=0
	case $cfg in
	fifo|band) pre=$G ;;
	*-r*) pre=$G policy=${cfg%-r*} reorder=1 window=${cfg#*-r} ;;
	esac
	if [ -n "$pre" ]; then
		gctl set policy "$policy" && gctl set reorder "$reorder" &&
			{ [ "$reorder" = 0 ] || gctl set window "$window"; } ||
			{ echo "run-cumas: $cell: gspctl set failed (see logs/gspctl.log); skipped" >&2; continue; }
	fi
	if [ "$cfg" = mps ] && [ "$mps_on" = 0 ]; then
		CUDA_MPS_PIPE_DIRECTORY=$(mktemp -d) || exit 1
		export CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY=$LOGS/mps
		mkdir -p "$CUDA_MPS_LOG_DIRECTORY"
		log_cmd "$BUILD/gspctl" mps start
		if "$BUILD/gspctl" mps start >>"$LOGS/gspctl.log" 2>&1; then
			mps_on=1
		else
			echo "run-cumas: MPS did not start (see logs/gspctl.log); the mps cells are skipped" >&2
			rm -rf "$CUDA_MPS_PIPE_DIRECTORY"
			unset CUDA_MPS_PIPE_DIRECTORY CUDA_MPS_LOG_DIRECTORY
			mps_on=2
		fi
	fi
	[ "$cfg" = mps ] && [ "$mps_on" != 1 ] && continue
	dir=$LOGS/cells/$cell
	mkdir -p "$dir"
	start=$(($(date +%s%3N) + delay))
	pids=() i=0
	for c in $(classes "$m" "$n"); do
		# shellcheck disable=SC2046,SC2086
		log_cmd env GSP_STATS_FILE="$dir/$i.$c.stats" $pre "$XFER" $(xargs_of $c) --start-ms "$start"
		# shellcheck disable=SC2046,SC2086
		"${TMO[@]}" env GSP_STATS_FILE="$dir/$i.$c.stats" $pre "$XFER" $(xargs_of $c) \
			--start-ms "$start" >"$dir/$i.$c.out" 2>"$dir/$i.$c.err" &
		pids+=($!)
		i=$((i + 1))
	done
	fails=0
	for p in "${pids[@]}"; do
		wait "$p" || fails=$((fails + 1))
	done
	echo "$cell $m $n $policy $reorder $window" >>"$LOGS/cells.txt"
	ms=$(cat "$dir"/*.out | awk -F, '$1 == "proc" { if (s == "" || $4 < s) s = $4; if ($5 > e) e = $5 } END { if (s != "") printf "%.1f", (e - s) / 1000 }')
	msg="run-cumas: $cell: makespan ${ms:-failed} ms"
	late=$(cat "$dir"/*.err 2>/dev/null | grep -c 'ms after --start-ms')
	[ "$late" = 0 ] || msg+=", $late processes ready late (raise --start-delay-ms)"
	[ "$fails" = 0 ] || msg+=", $fails processes failed (see logs/cells/$cell/*.err)"
	echo "$msg" >&2
done
gspaced_down >>"$LOGS/gspctl.log"

log_cmd python3 bench/gpu/cumas_eval.py --logs OUT/logs --out OUT --flowshop "$BUILD/gpu/flowshop" --gpu "$GPU"
python3 bench/gpu/cumas_eval.py --logs "$LOGS" --out "$OUT" \
	--flowshop "$BUILD/gpu/flowshop" --gpu "$GPU" | tee "$OUT/summary.txt"
echo "run-cumas: $(($(date +%s) - T_START)) s; results in $OUT (cumas.csv, cumas-procs.csv, cumas-cells.csv)" >&2
