#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# How long a BE's first launches wait for gsp-run --spatial to transform
# and JIT their kernels, in images of many kernels (needs CUDA and a GPU).
#
#   bench/gpu/jit-latency.sh OUT [N...]
#
# For each N (default "100 400"), builds bench/gpu/many-kernels.py's
# program of N kernels (SASS and PTX for sm_90) and times the first and
# second launch of its first LAUNCHES kernels (default 5): alone (plain),
# as a spatial BE with this tree's gsp-run (spatial) and, if BASE names
# another build folder, with that one's (base-spatial). Writes
# OUT/jit-latency.csv (n,mode,kernel,first_ms,second_ms),
# OUT/stats-N-MODE.txt (the interposer's counters), OUT/commands.txt and
# OUT/env.txt.
set -u -o pipefail
[ $# -ge 1 ] || { echo "usage: $0 OUT [N...]: OUT is the results folder" >&2; exit 2; }
cd "$(dirname "$0")/../.." || exit 2
BUILD=${BUILD:-build}
LAUNCHES=${LAUNCHES:-5}
cuda=${CUDA_HOME:-/usr/local/cuda}
out=$1
shift
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(100 400)
for n in "${sizes[@]}"; do
	[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge "$LAUNCHES" ] ||
		{ echo "jit-latency: N '$n' must be a number of kernels, at least LAUNCHES ($LAUNCHES)" >&2; exit 2; }
done
# shellcheck source=bench/outdir.sh
. bench/outdir.sh
outdir_init jit-latency "$out"
make -s "$BUILD/gspaced" "$BUILD/gsp-run" "$BUILD/lib/libgsp_preload.so" \
	libgsp || { echo "jit-latency: the build failed" >&2; exit 1; }
mkdir -p "$BUILD/gpu"
gpu_env "$OUT/env.txt" "launches: $LAUNCHES"
# shellcheck source=bench/gspaced.sh
. bench/gspaced.sh
gspaced_up_gpu jit ||
	{ echo "jit-latency: gspaced did not come up (see gspaced.log)" >&2; exit 1; }
echo "n,mode,kernel,first_ms,second_ms" >"$OUT/jit-latency.csv"
rc=0
run() {	# N MODE CMD...
	local n=$1 mode=$2 line
	shift 2
	log_cmd "$@"
	GSP_STATS_FILE=$OUT/stats-$n-$mode.txt "$@" >"$OUT/run.out" 2>>"$OUT/stderr.txt" ||
		{ echo "jit-latency: $mode, $n kernels failed (stderr.txt)" >&2; rc=1; return; }
	tail -n +2 "$OUT/run.out" | while read -r line; do
		echo "$n,$mode,$line"
	done | tee -a "$OUT/jit-latency.csv"
}
for n in "${sizes[@]}"; do
	bin=$BUILD/gpu/many-kernels-$n
	log_cmd bench/gpu/many-kernels.py "$n" "$bin.cu" --main
	log_cmd "$cuda/bin/nvcc" -O2 -gencode arch=compute_90,code=[sm_90,compute_90] -o "$bin" "$bin.cu"
	bench/gpu/many-kernels.py "$n" "$bin.cu" --main &&
		"$cuda/bin/nvcc" -O2 -gencode arch=compute_90,code=[sm_90,compute_90] \
			-o "$bin" "$bin.cu" || exit 1
	run "$n" plain "$bin" "$LAUNCHES"
	run "$n" spatial "$BUILD/gsp-run" --arbiter daemon --socket "$sockdir/s" \
		--class be --spatial -- "$bin" "$LAUNCHES"
	if [ -n "${BASE:-}" ]; then
		run "$n" base-spatial "$BASE/gsp-run" --arbiter daemon \
			--socket "$sockdir/s" --class be --spatial -- "$bin" "$LAUNCHES"
	fi
done
rm -f "$OUT/run.out"
gspaced_down
exit $rc
