#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# GPU check of gsp-xform (needs CUDA and an sm_90 GPU): builds gsp-xform
# and xform-check, transforms the corpus kernels that xform-check drives,
# and runs it (about a minute).
#
#   bench/gpu/xform-check.sh [OUT] [--trials N] [--refresh-ns NS] [--copy-ns NS]
#                            [--batch-ns NS]
#
# CSVs, xform-check.log and env.txt (device, driver, CUDA, commit) go to
# OUT (default: $OUT, else bench/results/xform-<date>). Exit status 0 when
# everything ran, failed checks included (they are in the log and the
# CSVs); non-zero when the harness itself failed.
set -eu -o pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-bench/results/xform-$(date -u +%Y-%m-%d)}
case ${1:-} in
--*) ;;
?*) out=$1; shift ;;
esac
build=${BUILD:-build}
cuda=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$out" "$build/xform/gpu"
make -s "$build/gsp-xform" "$build/xform/xform-check"
mods=()
for f in tests/xform/barriers.cu tests/xform/grids.cu \
	tests/xform/smem_templates.cu tests/xform/spin.cu tests/xform/func_ids.cu \
	kernels/wl_mm.cu; do
	b=$build/xform/gpu/$(basename "${f%.cu}")
	"$cuda/bin/nvcc" -ptx -arch=sm_90 -O2 -std=c++17 -Ikernels "$f" -o "$b.ptx"
	"$build/gsp-xform" "$b.ptx" -o "$b.xform.ptx" --report "$b.report" 2>/dev/null
	cp "$b.report" "$out/$(basename "$b").report"
	mods+=("$b.xform.ptx")
done
# shellcheck source=bench/outdir.sh
. bench/outdir.sh
CUDA_HOME=$cuda gpu_env "$out/env.txt" "options: $*"
timeout 600 "$build/xform/xform-check" "$@" "$out" "${mods[@]}" 2>&1 |
	tee "$out/xform-check.log"
