#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# GPU check that a BE's module variables stay one variable under
# `gsp-run --spatial` (needs CUDA and a GPU): builds modvar-check with PTX,
# starts gspaced, and runs it alone, then as a spatial BE with this tree's
# gsp-run and, if BASE names another build folder, with that one's.
#
#   bench/gpu/modvar-check.sh OUT [ROUNDS]
#
# Writes OUT/modvar.csv (mode,status,result), OUT/stats-MODE.txt (the
# interposer's counters: spatial_launches says the kernels ran
# transformed), OUT/commands.txt and OUT/env.txt.
set -u -o pipefail
[ $# -ge 1 ] && [ $# -le 2 ] ||
	{ echo "usage: $0 OUT [ROUNDS]: OUT is the results folder" >&2; exit 2; }
cd "$(dirname "$0")/../.." || exit 2
BUILD=${BUILD:-build}
cuda=${CUDA_HOME:-/usr/local/cuda}
out=$1
rounds=${2:-100}
# shellcheck source=bench/outdir.sh
. bench/outdir.sh
outdir_init modvar-check "$out"
make -s "$BUILD/gspaced" "$BUILD/gsp-run" "$BUILD/lib/libgsp_preload.so" \
	libgsp || { echo "modvar-check: the build failed" >&2; exit 1; }
bin=$BUILD/gpu/modvar-check
mkdir -p "$(dirname "$bin")"
log_cmd "$cuda/bin/nvcc" -O2 -gencode arch=compute_90,code=[sm_90,compute_90] \
	-o "$bin" bench/gpu/modvar-check.cu
"$cuda/bin/nvcc" -O2 -gencode arch=compute_90,code=[sm_90,compute_90] \
	-o "$bin" bench/gpu/modvar-check.cu || exit 1
gpu_env "$OUT/env.txt" "rounds: $rounds"
# shellcheck source=bench/gspaced.sh
. bench/gspaced.sh
gspaced_up_gpu modvar ||
	{ echo "modvar-check: gspaced did not come up (see gspaced.log)" >&2; exit 1; }
echo "mode,status,result" >"$OUT/modvar.csv"
rc=0
run() {
	local mode=$1 res st
	shift
	log_cmd "$@"
	res=$(GSP_STATS_FILE=$OUT/stats-$mode.txt "$@" 2>>"$OUT/stderr.txt")
	st=$?
	echo "$mode,$st,${res#RESULT }" | tee -a "$OUT/modvar.csv"
	return $st
}
run plain "$bin" "$rounds" || rc=1
run spatial "$BUILD/gsp-run" --arbiter daemon --socket "$sockdir/s" \
	--class be --spatial -- "$bin" "$rounds" || rc=1
grep -q '^spatial_launches [1-9]' "$OUT/stats-spatial.txt" 2>/dev/null ||
	{ echo "modvar-check: the spatial run transformed no launch" | tee -a "$OUT/modvar.csv"; rc=1; }
if [ -n "${BASE:-}" ]; then
	run base-spatial "$BASE/gsp-run" --arbiter daemon --socket "$sockdir/s" \
		--class be --spatial -- "$bin" "$rounds"
fi
gspaced_down
exit $rc
