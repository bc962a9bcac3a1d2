#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The time plane on a GPU: GPUvm's rows (issue 30) with real kernels.
# BE processes of back-to-back gsp-load kernels share the GPU under
# gspaced's FIFO, CREDIT and BAND (leases, no MPS) and under plain CUDA
# (the driver's time-slicing); gsp-load records when each kernel ran on
# the GPU (%globaltimer), so every process's GPU time is known per
# window. On a GPU host, from the top of the tree:
#
#   bench/run-timeplane.sh [--dur S] [--configs REGEX] [--modes REGEX]
#                          [--dry-run] OUT
#
# Configurations (all weights 100; kernel lengths in us):
#
#   be1     one process, 100                  (what gating costs alone)
#   short2  two processes, 100 each           (CREDIT/BAND against FIFO)
#   short4  four, 100 each
#   short8  eight, 100 each
#   mix2    100, 1000                         (BAND's fairness, 1:10)
#   mix4    100, 1000, 100, 1000
#   mix8    four of each, in turn
#
# Modes: plain; fifo, credit, band (gsp-run --class be --no-spatial with
# the interposer's quantum, auto); a suffix -qQ sets the quantum to Q us
# (gsp-run --quantum-us), and -norun sets GSP_RUN_ON=0 (a lone lease
# ends at its quantum too). be1 runs plain fifo credit band fifo-norun
# credit-norun band-norun; the others plain fifo credit band band-q2000
# band-q5000. --configs and --modes narrow the cells (regexes
# over the names); --dur sets each cell's recorded seconds (default 6;
# a cell takes about S + 5 s). --dry-run prints the cells and exits.
#
# Writes OUT/timeplane.csv (bench/gpu/timeplane_eval.py; the columns are
# defined in Documentation/benchmarks.rst, "The time plane on a GPU"),
# OUT/logs.tgz (every process's records, stats and stderr, gspaced's
# log), OUT/env.txt, OUT/commands.txt.
set -uo pipefail
dur=6 cfg_re=. mode_re=. dry=0
while [ $# -gt 1 ]; do
	case $1 in
	--dur) dur=$2; shift ;;
	--configs) cfg_re=$2; shift ;;
	--modes) mode_re=$2; shift ;;
	--dry-run) dry=1 ;;
	*) echo "run-timeplane: unknown option $1 (see the comment at the top of $0)" >&2; exit 2 ;;
	esac
	shift
done
case ${1:-} in
''|-*) echo "usage: $0 [--dur S] [--configs REGEX] [--modes REGEX] [--dry-run] OUT" >&2; exit 2 ;;
esac
case $dur in ''|*[!0-9]*|0) echo "run-timeplane: --dur needs a whole number of seconds >= 1" >&2; exit 2 ;; esac
for re in "$cfg_re" "$mode_re"; do
	echo | grep -E -- "$re" >/dev/null 2>&1
	[ $? -le 1 ] || { echo "run-timeplane: '$re' is not an extended regex" >&2; exit 2; }
done
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}

declare -A PROCS=(
	[be1]="100"
	[short2]="100 100"
	[short4]="100 100 100 100"
	[short8]="100 100 100 100 100 100 100 100"
	[mix2]="100 1000"
	[mix4]="100 1000 100 1000"
	[mix8]="100 1000 100 1000 100 1000 100 1000"
)
declare -A MODES=([be1]="plain fifo credit band fifo-norun credit-norun band-norun")
for c in short2 short4 short8 mix2 mix4 mix8; do
	MODES[$c]="plain fifo credit band band-q2000 band-q5000"
done
CELLS=()
for c in be1 short2 short4 short8 mix2 mix4 mix8; do
	[[ $c =~ $cfg_re ]] || continue
	for m in ${MODES[$c]}; do
		[[ $m =~ $mode_re ]] && CELLS+=("$c.$m")
	done
done
if [ ${#CELLS[@]} = 0 ]; then
	echo "run-timeplane: no cell matches --configs '$cfg_re' --modes '$mode_re'" >&2
	exit 2
fi
if [ "$dry" = 1 ]; then
	printf '%s\n' "${CELLS[@]}"
	echo "run-timeplane: ${#CELLS[@]} cells, about $(( ${#CELLS[@]} * (dur + 5) )) s" >&2
	exit 0
fi

# shellcheck source=bench/outdir.sh
. bench/outdir.sh
outdir_init run-timeplane "$1"
LOGS=$OUT/logs
rm -rf "$LOGS"
mkdir -p "$LOGS/cells"
LOAD=$BUILD/gpu/gsp-load
build_missing run-timeplane "$BUILD/gspaced" "$BUILD/gsp-run" "$BUILD/gspctl" \
	"$BUILD/lib/libgsp_preload.so" "$BUILD/lib/libgsp.so" "$LOAD"
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
gpu_env "$OUT/env.txt" "bench: run-timeplane.sh dur=$dur configs=$cfg_re modes=$mode_re" \
	"load: gsp-load back to back, --depth 4 (its default), weights 100" \
	"gspace: gsp-run --class be --no-spatial, one gspaced (lease_devices 1), no MPS"
TMO=(timeout -k 5 $((dur + 60)))
T_START=$(date +%s)

# shellcheck source=bench/gspaced.sh
. bench/gspaced.sh
finish() {
	gspaced_cleanup
	outdir_scrub "${sockdir:-}:SOCKDIR"
	tar czf "$OUT/logs.tgz" -C "$OUT" logs 2>/dev/null && rm -rf "$LOGS"
}
printf 'lease_devices = 1\nsim_devices = 0\npolicy = fifo\n' >"$OUT/gspaced.conf"
gspaced_up run-timeplane "$OUT/gspaced.conf" "$LOGS/gspaced.log" ||
	{ echo "run-timeplane: gspaced did not come up (see $LOGS/gspaced.log)" >&2; finish; exit 1; }
trap finish EXIT	# gspaced_up set its own

echo "# CELL CONFIG POLICY QUANTUM_US RUN_ON KERNELS_US" >"$LOGS/cells.txt"
for cell in "${CELLS[@]}"; do
	cfg=${cell%%.*} mode=${cell#*.}
	policy=${mode%%-*} quantum=auto run_on=1 pre=()
	[[ $mode =~ -q([0-9]+) ]] && quantum=${BASH_REMATCH[1]}
	[[ $mode == *-norun* ]] && run_on=0
	if [ "$policy" != plain ]; then
		gctl set policy "$policy" ||
			{ echo "run-timeplane: $cell: gspctl set policy failed (see logs/gspctl.log); skipped" >&2; continue; }
		pre=(env GSP_RUN_ON="$run_on" "$BUILD/gsp-run" --arbiter daemon
			--socket "$sockdir/s" --class be --no-spatial)
		[ "$quantum" = auto ] || pre+=(--quantum-us "$quantum")
		pre+=(--)
	else
		quantum=0 run_on=0
	fi
	dir=$LOGS/cells/$cell
	mkdir -p "$dir"
	at=$(($(date +%s%3N) + 3000))
	pids=() i=0
	for kus in ${PROCS[$cfg]}; do
		tag=p$i
		load=("$LOAD" --kernel-us "$kus" --duration-s "$dur" --start-at-ms "$at"
			--tag "$tag" --out "$dir/$tag.csv")
		log_cmd env GSP_STATS_FILE="$dir/$tag.stats" "${pre[@]}" "${load[@]}" "&"
		"${TMO[@]}" env GSP_STATS_FILE="$dir/$tag.stats" "${pre[@]}" "${load[@]}" \
			>"$dir/$tag.out" 2>"$dir/$tag.err" &
		pids+=($!)
		i=$((i + 1))
	done
	fails=0
	for p in "${pids[@]}"; do
		wait "$p" || fails=$((fails + 1))
	done
	echo "$cell $cfg $policy $quantum $run_on ${PROCS[$cfg]// /,}" >>"$LOGS/cells.txt"
	msg="run-timeplane: $cell done"
	[ "$fails" = 0 ] || msg+=", $fails processes failed (see logs/cells/$cell/*.err)"
	echo "$msg" >&2
done
gspaced_down >>"$LOGS/gspctl.log"

log_cmd python3 bench/gpu/timeplane_eval.py --logs OUT/logs --out OUT --gpu "$GPU"
python3 bench/gpu/timeplane_eval.py --logs "$LOGS" --out "$OUT" --gpu "$GPU" |
	tee "$OUT/summary.txt"
echo "run-timeplane: $(($(date +%s) - T_START)) s; results in $OUT (timeplane.csv)" >&2
