#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A PyTorch BE's rate beside a PyTorch LC, under each mechanism, side by
# side in one run, on a GPU host (root, the MPS binaries in PATH):
#
#   bench/run-torch-pair.sh [--rows REGEX] [--be-batch N] [--self-solo] OUT
#
# The BE is bench/gpu/torch_train.py (a small CNN's training loop, each
# step synchronised), the LC bench/gpu/torch_resnet.py --serve (ResNet-50
# at batch 8, a request every 10 ms for 6 s, started 3 s after the BE).
# One MPS daemon and one gspaced (partition auto) for every row; rows:
#
#   lc-alone, lc-alone-gsp, lc-alone-gsp-noprio, lc-alone-gsp-fixedhold
#                         the LC alone: plain, under gsp-run --class lc,
#                         with --no-lc-priority, and with
#                         GSP_SEARCH_LEARN_HOLD=0 (requests end at any gap
#                         over lc_hold_us)
#   alone-plain, alone-mps50, alone-spatial, alone-nospatial
#                         the BE alone: plain, at 50 % threads, gsp-run
#                         --spatial, --no-spatial
#   plain, mps50          both plain under MPS; the BE at 50 % threads
#   plain-clientprio, mps50-clientprio
#                         the same, the BE at CUDA_MPS_CLIENT_PRIORITY=1
#                         (below normal)
#   predictive, reactive  both under gsp-run, the BE --spatial, the
#                         protect mode named, partition auto
#   predictive-fixedhold  predictive, the LC with GSP_SEARCH_LEARN_HOLD=0
#   predictive-noprio     predictive, the LC --no-lc-priority
#   predictive-clientprio predictive-noprio, the BE at MPS client priority 1
#   timeplane             reactive, the BE --no-spatial
#   reserved-66x32, reserved-auto
#                         protect reserved, partition 66,32 or auto
#   reserved-66x32-noprio reserved-66x32, the LC --no-lc-priority
#
# --rows keeps the rows whose name matches REGEX; --be-batch gives the BE
# that batch size (default 128: a step bound by the host; 1024 makes it
# bound by the GPU). Writes
#
#   OUT/be-rate.csv  row,mechanism,protect,partition,be_steps_per_s,
#                    lc_p50_us,lc_p99_us,green_launches,no_ptx_launches,gpu
#                    (the BE's steps per second while the LC ran; alone:
#                    from 2 s after its first step; the counters from the
#                    BE's GSP_STATS_FILE)
#   OUT/in-lc.csv, OUT/lc-search.csv
#                    from the logs (bench/gpu/torch_pair_logs.py): the BE's
#                    steps inside and outside the LC's requests, and the
#                    LC's partition-auto counters
#   OUT/logs.tgz, OUT/env.txt, OUT/commands.txt (the logs hold each
#                    program's output, the BE's trace, both
#                    GSP_STATS_FILEs and the LC's GSP_SEARCH_LOG: its
#                    invocations as partition auto saw them)
#
# Partition auto's q (2) is over the LC's solo p50 under gsp-run, from
# row lc-alone-gsp when it ran (GSP_LC_SOLO_US for the later rows);
# with --self-solo over the solo each LC times itself (its first
# invocations under the whole GPU).
#
# bench/results/2026-11-27-h200-search-real (be-rate.csv) was made with
# the same commands, from a script run by hand before this one.
set -uo pipefail
rows=.
be_batch=128
self_solo=0
while [ $# -gt 1 ]; do
	case $1 in
	--rows) rows=$2; shift ;;
	--self-solo) self_solo=1 ;;
	--be-batch)
		[[ $2 =~ ^[1-9][0-9]{0,4}$ ]] ||
			{ echo "run-torch-pair: --be-batch $2 is not a batch size (1-99999)" >&2; exit 2; }
		be_batch=$2; shift ;;
	*) echo "run-torch-pair: unknown option $1 (see the comment at the top of $0)" >&2; exit 2 ;;
	esac
	shift
done
[ $# = 1 ] || { echo "usage: $0 [--rows REGEX] [--be-batch N] [--self-solo] OUT" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}

# shellcheck source=bench/outdir.sh
. bench/outdir.sh
outdir_init run-torch-pair "$1"
LOGS=$OUT/logs
mkdir -p "$LOGS"
build_or_die run-torch-pair "$BUILD/gspaced" "$BUILD/gsp-run" "$BUILD/gspctl" \
	"$BUILD/lib/libgsp_preload.so" libgsp
GPU=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1)
gpu_env "$OUT/env.txt" "bench: run-torch-pair.sh rows=$rows be-batch=$be_batch self-solo=$self_solo" \
	"torch: $(python3 -c 'import torch; print(torch.__version__)' 2>&1)"

# shellcheck source=bench/mps.sh
. bench/mps.sh
# shellcheck source=bench/gspaced.sh
. bench/gspaced.sh
bench_up run-torch-pair 'lease_devices = 1\nsim_devices = 0\npartition = auto\nprotect = predictive'
G=("$BUILD/gsp-run" --arbiter daemon --socket "$sockdir/s")
gctl() {
	log_cmd "$BUILD/gspctl" --socket "$sockdir/s" "$@"
	"$BUILD/gspctl" --socket "$sockdir/s" "$@" >>"$LOGS/gspctl.log" 2>&1
}

# rate BE.trace [LC.trace]: the BE's steps per second, while the LC ran
rate() {
	python3 - "$@" <<'PY'
import sys
t = [int(l.split()[1]) for l in open(sys.argv[1]) if l.startswith('be ')]
lo, hi = (t[0] + 2e9, t[-1]) if t else (0, 0)
if len(sys.argv) > 2:
    lc = [l.split() for l in open(sys.argv[2]) if l.startswith('lc ')]
    if lc:
        lo, hi = int(lc[0][1]), int(lc[-1][1]) + int(lc[-1][2])
u = [x for x in t if lo <= x <= hi]
print(f"{(len(u) - 1) / ((u[-1] - u[0]) / 1e9):.1f}" if len(u) > 1 else "")
PY
}
counter() { sed -n "s/^$1 //p" "$2" 2>/dev/null; }

echo "row,mechanism,protect,partition,be_steps_per_s,lc_p50_us,lc_p99_us,green_launches,no_ptx_launches,gpu" \
	>"$OUT/be-rate.csv"
# row NAME MECH PROTECT PARTITION LC(0|1|2) LCPRE... -- BEPRE...: one row
# (LC 0: the BE alone, 1: both, 2: the LC alone)
row() {
	local name=$1 mech=$2 prot=$3 part=$4 withlc=$5 lcpid='' p50='' p99=''
	shift 5
	local lcpre=() bepre=()
	while [ "$1" != -- ]; do lcpre+=("$1"); shift; done
	shift
	bepre=("$@")
	[[ $name =~ $rows ]] || return 0
	local be=(python3 bench/gpu/torch_train.py --batch "$be_batch"
		--duration $((withlc ? 14 : 10))
		--trace-out "$LOGS/$name.be.trace")
	local lc=(python3 bench/gpu/torch_resnet.py --serve --batch 8
		--period-ms 10 --duration 6 --trace-out "$LOGS/$name.lc.trace")
	lcpre=(env GSP_STATS_FILE="$LOGS/$name.lc.stats"
		GSP_SEARCH_LOG="$LOGS/$name.lc.search.csv"
		${lcsolo:+GSP_LC_SOLO_US=$lcsolo} "${lcpre[@]}")
	if [ "$withlc" = 2 ]; then
		log_cmd "${lcpre[@]}" "${lc[@]}"
		timeout -k 5 60 "${lcpre[@]}" "${lc[@]}" \
			>"$LOGS/$name.lc.out" 2>"$LOGS/$name.lc.err"
		p50=$(sed -n 's/.*p50_us=\([0-9.]*\).*/\1/p' "$LOGS/$name.lc.out")
		p99=$(sed -n 's/.*p99_us=\([0-9.]*\).*/\1/p' "$LOGS/$name.lc.out")
		echo "$name,$mech,$prot,\"$part\",,$p50,$p99,,,$GPU" |
			tee -a "$OUT/be-rate.csv"
		return 0
	fi
	if [ "$withlc" = 1 ]; then
		log_cmd "${lcpre[@]}" "${lc[@]}"
		( sleep 3; timeout -k 5 60 "${lcpre[@]}" "${lc[@]}" \
			>"$LOGS/$name.lc.out" 2>"$LOGS/$name.lc.err" ) &
		lcpid=$!
	fi
	log_cmd env GSP_STATS_FILE="$LOGS/$name.be.stats" "${bepre[@]}" "${be[@]}"
	timeout -k 5 60 env GSP_STATS_FILE="$LOGS/$name.be.stats" "${bepre[@]}" \
		"${be[@]}" >"$LOGS/$name.be.out" 2>"$LOGS/$name.be.err"
	local r
	if [ -n "$lcpid" ]; then
		wait "$lcpid"
		p50=$(sed -n 's/.*p50_us=\([0-9.]*\).*/\1/p' "$LOGS/$name.lc.out")
		p99=$(sed -n 's/.*p99_us=\([0-9.]*\).*/\1/p' "$LOGS/$name.lc.out")
		r=$(rate "$LOGS/$name.be.trace" "$LOGS/$name.lc.trace")
	else
		r=$(rate "$LOGS/$name.be.trace")
	fi
	echo "$name,$mech,$prot,\"$part\",$r,$p50,$p99,$(counter spatial_green_launches "$LOGS/$name.be.stats"),$(counter spatial_fallback_no-ptx "$LOGS/$name.be.stats"),$GPU" |
		tee -a "$OUT/be-rate.csv"
}

lcsolo=
row lc-alone "plain MPS" - - 2 env --
row lc-alone-gsp "gsp-run --class lc" predictive auto 2 "${G[@]}" --class lc --
# Partition auto's q is over this solo p50 (GSP_LC_SOLO_US), as in
# bench/run-search.sh: without it the LC would time its solo beside the BE.
[ "$self_solo" = 1 ] ||
	lcsolo=$(awk -F, '$1 == "lc-alone-gsp" { printf "%d", $6 }' "$OUT/be-rate.csv")
row lc-alone-gsp-noprio "gsp-run --class lc --no-lc-priority" predictive auto 2 \
	"${G[@]}" --class lc --no-lc-priority --
row lc-alone-gsp-fixedhold "gsp-run --class lc (GSP_SEARCH_LEARN_HOLD=0)" predictive auto 2 \
	env GSP_SEARCH_LEARN_HOLD=0 "${G[@]}" --class lc --
row alone-plain "plain MPS" - - 0 -- env
row alone-mps50 "MPS 50 %" - - 0 -- env CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
row alone-spatial "gsp-run --spatial" predictive auto 0 -- "${G[@]}" --class be --spatial
row alone-nospatial "gsp-run --no-spatial" predictive auto 0 -- "${G[@]}" --class be --no-spatial
row plain "plain MPS" - - 1 env -- env
row mps50 "MPS 50 %" - - 1 env -- env CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50
row plain-clientprio "plain MPS (the BE at client priority 1)" - - 1 env -- \
	env CUDA_MPS_CLIENT_PRIORITY=1
row mps50-clientprio "MPS 50 % (the BE at client priority 1)" - - 1 env -- \
	env CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50 CUDA_MPS_CLIENT_PRIORITY=1
gctl set protect predictive
row predictive "gsp-run --spatial" predictive auto 1 "${G[@]}" --class lc -- \
	"${G[@]}" --class be --spatial
row predictive-fixedhold "gsp-run --spatial (the LC GSP_SEARCH_LEARN_HOLD=0)" predictive auto 1 \
	env GSP_SEARCH_LEARN_HOLD=0 "${G[@]}" --class lc -- "${G[@]}" --class be --spatial
row predictive-noprio "gsp-run --spatial (the LC --no-lc-priority)" predictive auto 1 \
	"${G[@]}" --class lc --no-lc-priority -- "${G[@]}" --class be --spatial
row predictive-clientprio "gsp-run --spatial (the LC --no-lc-priority; the BE at client priority 1)" \
	predictive auto 1 "${G[@]}" --class lc --no-lc-priority -- \
	env CUDA_MPS_CLIENT_PRIORITY=1 "${G[@]}" --class be --spatial
gctl set protect reactive
row reactive "gsp-run --spatial" reactive auto 1 "${G[@]}" --class lc -- \
	"${G[@]}" --class be --spatial
row timeplane "gsp-run --no-spatial (time plane)" reactive auto 1 "${G[@]}" --class lc -- \
	"${G[@]}" --class be --no-spatial
gctl set protect reserved
gctl set partition 66,32
row reserved-66x32 "gsp-run --spatial" reserved 66,32 1 "${G[@]}" --class lc -- \
	"${G[@]}" --class be --spatial
row reserved-66x32-noprio "gsp-run --spatial (the LC --no-lc-priority)" reserved 66,32 1 \
	"${G[@]}" --class lc --no-lc-priority -- "${G[@]}" --class be --spatial
gctl set partition auto
row reserved-auto "gsp-run --spatial" reserved auto 1 "${G[@]}" --class lc -- \
	"${G[@]}" --class be --spatial
python3 bench/gpu/torch_pair_logs.py "$OUT" ||
	echo "run-torch-pair: in-lc.csv and lc-search.csv not written" >&2
outdir_scrub "$sockdir:SOCKDIR" "${CUDA_MPS_PIPE_DIRECTORY:-}:MPSDIR"
