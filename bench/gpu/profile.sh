#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The profiles of G-Space's initial selection (Documentation/search.rst,
# "Profiles and the micro-benchmark tables"): the 7 contention features
# of every micro-benchmark instance and of the ten real workloads'
# kernels, measured by Nsight Compute (ncu) on the GPU host.
#
#   bench/gpu/profile.sh OUT [--instances LIST|FILE|all]
#
# Needs $BUILD/gpu/corun and $BUILD/gsp-wl (make -j build/gpu/corun
# build/gsp-wl) and ncu (NCU, else ncu in PATH, else
# $CUDA_HOME/bin/ncu). --instances is corun's (default: its 36); give
# the tables' run the same. Writes into OUT:
#
#   instances.csv      mb,name (corun's, for the run that profiled them)
#   features.csv       mb,l1_hit,l2_hit,dram_bw,l2_bw,l1_bw,arith,insts
#   features-real.csv  name,... for bp lbm hotspot pathfinder
#                      streamcluster spmv (LC) and cfd md mm nn (BE)
#   profiles.csv       one row per profiled kernel launch, keyed by
#                      (mangled name, grid, block) and the SASS's sha1
#                      when cuobjdump is there
#   ncu/               ncu's CSV per run, and what the programs printed
#   env.txt, commands.txt
#
# Each micro instance is launched once by corun --profile, each workload
# runs one unit under gsp-wl digest; ncu profiles every such kernel once
# (its default kernel replay, caches flushed and clocks locked for each
# pass). About 1 to 2 minutes on an H100/H200: ten ncu start-ups and
# about 70 kernels of a few replay passes.
set -u -o pipefail
cd "$(dirname "$0")/../.." || exit 2
BUILD=${BUILD:-build}
usage() {
	echo "profile.sh: $1" >&2
	echo "usage: bench/gpu/profile.sh OUT [--instances LIST|FILE|all] (the comment at the top says more)" >&2
	exit 2
}
[ $# -ge 1 ] || usage "OUT, the results folder, comes first"
out=$1
shift
inst=()
while [ $# -gt 0 ]; do
	case $1 in
	--instances)
		if [ $# -lt 2 ] || [ -z "$2" ]; then
			usage "--instances needs a value"
		fi
		inst=(--instances "$2")
		shift 2 ;;
	*) usage "unknown argument '$1'" ;;
	esac
done
corun=$BUILD/gpu/corun
wl=$BUILD/gsp-wl
for p in "$corun" "$wl"; do
	[ -x "$p" ] || usage "$p is missing: make -j $BUILD/gpu/corun $BUILD/gsp-wl"
done
cuda=${CUDA_HOME:-/usr/local/cuda}
NCU=${NCU:-$(command -v ncu || echo "$cuda/bin/ncu")}
[ -x "$NCU" ] || usage "no ncu at '$NCU': set NCU to Nsight Compute's ncu"
# The instance names are checked before anything is created.
"$corun" --list ${inst[@]+"${inst[@]}"} >/dev/null || exit 2
# shellcheck source=bench/outdir.sh
. bench/outdir.sh
outdir_init profile.sh "$out"
mkdir -p "$OUT/ncu"
t0=$(date +%s)

# The 7 features (search.rst names each metric and why).
BASE=gpu__time_duration.sum,l1tex__t_sector_hit_rate.pct,lts__t_sector_hit_rate.pct
BASE+=,dram__throughput.avg.pct_of_peak_sustained_elapsed
BASE+=,lts__t_sectors.avg.pct_of_peak_sustained_elapsed
BASE+=,l1tex__throughput.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
# Memory instructions (warp level, as smsp__inst_executed): the first set
# that this ncu and GPU know; MEM_METRICS overrides.
s=smsp__sass_inst_executed_op
core="${s}_global_ld.sum,${s}_global_st.sum,${s}_local_ld.sum,${s}_local_st.sum"
core+=",${s}_shared_ld.sum,${s}_shared_st.sum"
h=smsp__inst_executed_op
MEM_SETS=("$core,${s}_global_atom.sum,${s}_global_red.sum" "$core"
	"${h}_global_ld.sum,${h}_global_st.sum,${h}_local_ld.sum,${h}_local_st.sum,${h}_shared_ld.sum,${h}_shared_st.sum")
[ -n "${MEM_METRICS:-}" ] && MEM_SETS=("$MEM_METRICS")

ncu_run() {	# CSV STDOUT ARGS...: ncu with the metrics, into CSV
	local csv=$1 so=$2
	shift 2
	log_cmd "$NCU" -f --csv --print-units base --print-kernel-base mangled \
		--metrics "$METRICS" --log-file "$csv" "$@"
	"$NCU" -f --csv --print-units base --print-kernel-base mangled \
		--metrics "$METRICS" --log-file "$csv" "$@" >"$so" 2>&1
}

MEM=
for m in "${MEM_SETS[@]}"; do
	METRICS=$BASE,$m
	if ncu_run "$OUT/ncu/check.csv" "$OUT/ncu/check.out" --kernel-name corun_lc \
		"$corun" --profile --instances 1:0.00:1 &&
	   python3 bench/gpu/ncu_features.py check "$OUT/ncu/check.csv" "$METRICS" \
		2>>"$OUT/ncu/check.err"; then
		MEM=$m
		break
	fi
	echo "profile.sh: ncu cannot collect $m here; trying the next set (ncu/check.out)" >&2
done
[ -n "$MEM" ] || {
	echo "profile.sh: ncu collected none of the metric sets: see $OUT/ncu/check.out and check.err" >&2
	echo "profile.sh: (ERR_NVGPUCTRPERM there means the GPU's counters are for root only)" >&2
	exit 1
}
METRICS=$BASE,$MEM
gpu_env "$OUT/env.txt" "ncu: $("$NCU" --version | tail -n 1)" \
	"metrics: $METRICS" "memory instructions: $MEM" \
	"instances: ${inst[1]:-the default of corun}"

ncu_run "$OUT/ncu/micro.csv" "$OUT/ncu/micro.out" --kernel-name corun_lc \
	"$corun" --profile ${inst[@]+"${inst[@]}"} --out "$OUT" ||
	{ echo "profile.sh: ncu on corun --profile failed (ncu/micro.out)" >&2; exit 1; }
real=()
for w in bp lbm hotspot pathfinder streamcluster spmv cfd md mm nn; do
	ncu_run "$OUT/ncu/$w.csv" "$OUT/ncu/$w.out" "$wl" digest "$w" ||
		{ echo "profile.sh: ncu on gsp-wl digest $w failed (ncu/$w.out)" >&2; exit 1; }
	real+=(--real "$w=$OUT/ncu/$w.csv")
done
sass=()
if [ -x "$cuda/bin/cuobjdump" ]; then
	for p in "$corun" "$wl"; do
		"$cuda/bin/cuobjdump" -sass "$p" >"$OUT/ncu/$(basename "$p").sass" 2>/dev/null &&
			sass+=(--sass "$OUT/ncu/$(basename "$p").sass")
	done
fi
log_cmd python3 bench/gpu/ncu_features.py features --out "$OUT" \
	--instances "$OUT/instances.csv" --micro "$OUT/ncu/micro.csv" \
	--mem-metrics "$MEM" "${real[@]}" ${sass[@]+"${sass[@]}"}
python3 bench/gpu/ncu_features.py features --out "$OUT" \
	--instances "$OUT/instances.csv" --micro "$OUT/ncu/micro.csv" \
	--mem-metrics "$MEM" "${real[@]}" ${sass[@]+"${sass[@]}"} || exit 1
echo "seconds: $(($(date +%s) - t0))" >>"$OUT/env.txt"
echo "profile.sh: features.csv, features-real.csv and profiles.csv in $OUT ($(($(date +%s) - t0)) s)" >&2
