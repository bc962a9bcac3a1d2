#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Partition auto on a GPU host (issue 28), from a bare checkout (root,
# nvcc and the MPS binaries in PATH):
#
#   bench/run-search.sh [--pairs LIST] [--methods LIST] [--q Q]
#                       [--models FILE] [--tail] [--no-guard]
#                       [--oracle CELLS] [--protect MODE] [--no-bound] OUT
#
# For each LC/BE pair of gsp-bench's 24 (LC bp, lbm, hotspot, pathfinder,
# streamcluster, spmv; BE cfd, md, mm, nn: gsp-wl workloads), one gspaced
# with partition auto, under MPS: the BE (gsp-run --class be, spatial)
# runs, and the LC (gsp-run --class lc, one request every 2 ms) runs
# beside it once per method, the knob search set to it. The LC's solo
# time (gsp-wl p50 under gspace, alone) is measured first and given to
# its search (GSP_LC_SOLO_US); its target is Q times that. "grid"
# measures every cell of the grid and is the oracle; nn, lr, gns, srs and
# the nn_ methods need a model: FILE, gsp-select --model-out's table of
# every pair (lc,be,n,k,lc_ratio,be_rate), else they run ns and say so.
# --tail judges a cell by its greatest sample (GSP_SEARCH_TAIL=1) and
# names the runs METHOD_tail (detail.csv and sidebyside.csv only).
# --no-guard holds the chosen cell (GSP_SEARCH_GUARD=0) and names the
# runs METHOD_noguard likewise. --oracle CELLS gives search-eval.py an
# earlier run's cells.csv for pairs this run measures no grid of.
# --no-bound sets GSP_SEARCH_BOUND=0 (the search measures every cell
# it asks, however far over q its neighbours are) and names the runs
# METHOD_nobound.
# --protect MODE sets gspaced's protect knob (reactive, the default,
# reserved, predictive or preemptive; Documentation/gspaced.rst).
# mps and mps50 run the same two programs without gspace under plain MPS,
# the BE at 100 % or 50 % of the threads (CUDA_MPS_ACTIVE_THREAD_PERCENTAGE). Writes, per pair and method, the search's log, the
# LC's requests and the BE's units (gsp-wl --trace-out) into OUT/logs.tgz,
# and then bench/gpu/search-eval.py makes
#
#   OUT/search.csv   pair,method,target_q,be_frac_of_oracle,
#                    invocations_to_converge,violations_after,gpu
#   OUT/cells.csv    the oracle's table: pair,n,k,lc_ratio,be_per_s
#   OUT/detail.csv   per run: the cell chosen, when, and the requests
#   OUT/sidebyside.csv  every run beside MPS: the BE's rate over the
#                    oracle's, the LC's p50 and p99 over solo and the
#                    requests over Q, after convergence (mps: after 0.5 s)
#
# Two real programs pair as torch-resnet_torch-train: the LC ResNet-50
# inference at batch 8, a request every 10 ms (bench/gpu/torch_resnet.py
# --serve), the BE a PyTorch training loop (bench/gpu/torch_train.py
# --duration); their grid measures 10 invocations a cell, and the LC
# starts 10 s after the BE, which needs them to load torch.
# LIST is comma-separated: pairs as LC_BE (bp_cfd), methods as the knob
# spells them. Default: the 24 pairs, methods grid and ns, Q 2. About
# 14 s a pair for grid (40 invocations a cell), 8 s for a method.
set -uo pipefail
pairs='' methods=grid,ns q=2 models='' tail='' noguard='' oracle=()
protect=reactive bound='' bound_state=on models_arg=''
while [ $# -gt 1 ]; do
	case $1 in
	--pairs) pairs=$2; shift ;;
	--methods) methods=$2; shift ;;
	--q) q=$2; shift ;;
	--models) models=$(realpath "$2") models_arg=$2; shift ;;
	--tail) tail=_tail ;;
	--no-guard) noguard=_noguard ;;
	--oracle) oracle=(--oracle "$(realpath "$2")"); shift ;;
	--protect) protect=$2; shift ;;
	--no-bound) bound=_nobound bound_state=off ;;
	*) echo "run-search: unknown option $1 (see the comment at the top of $0)" >&2; exit 2 ;;
	esac
	shift
done
case ${1:-} in
''|-*) echo "usage: $0 [--pairs LIST] [--methods LIST] [--q Q] [--models FILE] [--tail] [--no-guard] [--oracle CELLS] [--protect MODE] [--no-bound] OUT" >&2; exit 2 ;;
esac
case $protect in reactive|reserved|predictive|preemptive) ;;
*) echo "run-search: --protect: '$protect' is not reactive, reserved, predictive or preemptive" >&2; exit 2 ;;
esac
case $q in ''|*[!0-9.]*) echo "run-search: --q takes a ratio such as 2 or 1.5" >&2; exit 2 ;; esac
for m in ${methods//,/ }; do
	case $m in ns|gns|srs|nn_ns|nn_gns|nn_srs|nn|lr|grid|mps|mps50) ;;
	*) echo "run-search: --methods: '$m' is not ns, gns, srs, nn_ns, nn_gns, nn_srs, nn, lr, grid, mps or mps50" >&2; exit 2 ;;
	esac
done
if [ -z "$pairs" ]; then
	for lc in bp lbm hotspot pathfinder streamcluster spmv; do
		for be in cfd md mm nn; do
			pairs="$pairs,${lc}_$be"
		done
	done
	pairs=${pairs#,}
fi
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}

# shellcheck source=bench/outdir.sh
. bench/outdir.sh
outdir_init run-search "$1"
LOGS=$OUT/logs
mkdir -p "$LOGS"
build_or_die run-search "$BUILD/gspaced" "$BUILD/gsp-run" "$BUILD/gspctl" \
	"$BUILD/lib/libgsp_preload.so" libgsp "$BUILD/gsp-wl"
WL=$BUILD/gsp-wl
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
gpu_env "$OUT/env.txt" "bench: run-search.sh pairs=$pairs methods=$methods q=$q models=${models_arg:-none} tail=${tail:-no} guard=${noguard:-on} bound=$bound_state protect=$protect"

# shellcheck source=bench/mps.sh
. bench/mps.sh
# shellcheck source=bench/gspaced.sh
. bench/gspaced.sh
bench_up run-search "lease_devices = 1\nsim_devices = 0\npartition = auto\nprotect = $protect"
G="$BUILD/gsp-run --arbiter daemon --socket $sockdir/s"

# gsp-select --model-out's rows, one model a pair, as the agent reads them.
if [ -n "$models" ]; then
	mkdir -p "$LOGS/models"
	awk -F, -v d="$LOGS/models" 'NR > 1 {
		f = d "/" $1 "_" $2 ".csv"
		if (!(f in seen)) { print "n,k,lc_ratio,be_rate" > f; seen[f] = 1 }
		print $3 "," $4 "," $5 "," $6 > f }' "$models" ||
		{ echo "run-search: cannot read --models $models" >&2; exit 2; }
fi

# The LC's and the BE's command lines, into the array "cmd": a gsp-wl
# workload or one of the two PyTorch programs.
lc_cmd() {	# NAME DURATION TRACE
	case $1 in
	torch-resnet) cmd=(python3 bench/gpu/torch_resnet.py --serve --batch 8
		--period-ms 10 --duration "$2") ;;
	*) cmd=("$WL" run --lc "$1" --period-ms 2 --duration "$2") ;;
	esac
	[ -n "$3" ] && cmd+=(--trace-out "$3")
}
be_cmd() {	# NAME DURATION TRACE
	case $1 in
	torch-train) cmd=(python3 bench/gpu/torch_train.py --duration "$2") ;;
	*) cmd=("$WL" run --be "$1" --duration "$2") ;;
	esac
	cmd+=(--trace-out "$3")
}
is_torch() { [[ $1 == torch-* ]]; }

# The LCs' solo p50, under gspace, alone.
declare -A solo
for p in ${pairs//,/ }; do
	lc=${p%%_*}
	[ -n "${solo[$lc]:-}" ] && continue
	lc_cmd "$lc" 2 ''
	# shellcheck disable=SC2086
	log_cmd $G --class lc "${cmd[@]}"
	# shellcheck disable=SC2086
	timeout -k 5 60 $G --class lc "${cmd[@]}" \
		>"$LOGS/solo.$lc.out" 2>"$LOGS/solo.$lc.err"
	solo[$lc]=$(sed -n 's/.*p50_us=\([0-9.]*\).*/\1/p' "$LOGS/solo.$lc.out")
	echo "solo $lc ${solo[$lc]} us" | tee -a "$LOGS/solo.txt"
done

for p in ${pairs//,/ }; do
	lc=${p%%_*} be=${p#*_}
	s=${solo[$lc]%.*}
	[ -n "$s" ] && [ "$s" -gt 0 ] || { echo "run-search: no solo time for $lc" >&2; continue; }
	for m in ${methods//,/ }; do
		tag=$p.$m
		dur=3 gs=() model=()
		case $m in mps*|grid) ;; *)
			[ -n "$tail" ] && tag=$tag$tail gs+=(GSP_SEARCH_TAIL=1)
			[ -n "$noguard" ] && tag=$tag$noguard gs+=(GSP_SEARCH_GUARD=0)
			[ -n "$bound" ] && tag=$tag$bound gs+=(GSP_SEARCH_BOUND=0) ;;
		esac
		# grid: 40 invocations a cell, 88 cells, one every 2 ms;
		# the torch LC: 10 a cell, one every 10 ms
		[ "$m" = grid ] && dur=9 gs=(GSP_SEARCH_GRID_SAMPLES=40)
		wait_s=1.5 be_extra=3
		if is_torch "$lc" || is_torch "$be"; then
			dur=8 wait_s=10 be_extra=25
			[ "$m" = grid ] && dur=14 gs=(GSP_SEARCH_GRID_SAMPLES=10)
		fi
		[ -f "$LOGS/models/$p.csv" ] && model=(GSP_SEARCH_MODEL="$LOGS/models/$p.csv")
		case $m in
		mps) be_pre=(env) lc_pre=(env) ;;
		mps50) be_pre=(env CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50) lc_pre=(env) ;;
		*)	gctl set search "$m"
			# shellcheck disable=SC2206
			be_pre=(env GSP_STATS_FILE="$LOGS/$tag.be.stats" $G --class be --spatial)
			# shellcheck disable=SC2206
			lc_pre=(env GSP_LC_SOLO_US="$s" GSP_LC_Q="$q"
				GSP_SEARCH_LOG="$LOGS/$tag.search.csv"
				GSP_STATS_FILE="$LOGS/$tag.lc.stats" "${model[@]}" "${gs[@]}"
				$G --class lc) ;;
		esac
		rm -f "$LOGS/$tag".*
		be_cmd "$be" $((dur + be_extra)) "$LOGS/$tag.be.trace"
		log_cmd "${be_pre[@]}" "${cmd[@]}"
		timeout -k 5 90 "${be_pre[@]}" "${cmd[@]}" \
			>"$LOGS/$tag.be.out" 2>"$LOGS/$tag.be.err" &
		bpid=$!
		sleep "$wait_s"
		lc_cmd "$lc" "$dur" "$LOGS/$tag.lc.trace"
		log_cmd "${lc_pre[@]}" "${cmd[@]}"
		timeout -k 5 90 "${lc_pre[@]}" "${cmd[@]}" \
			>"$LOGS/$tag.lc.out" 2>"$LOGS/$tag.lc.err"
		wait "$bpid"
		echo "$tag: $(grep -h '^search_cell\|^search_state' "$LOGS/$tag.lc.stats" 2>/dev/null | tr '\n' ' ')"
	done
done

log_cmd python3 bench/gpu/search-eval.py --q "$q" --gpu "$GPU" "${oracle[@]}" "$LOGS" "$OUT"
python3 bench/gpu/search-eval.py --q "$q" --gpu "$GPU" "${oracle[@]}" "$LOGS" "$OUT"
outdir_scrub "$sockdir:SOCKDIR" "${CUDA_MPS_PIPE_DIRECTORY:-}:MPSDIR"
