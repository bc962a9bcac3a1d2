#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# GPU check of gsp-xform (needs a GPU, sm_90): builds gsp-xform and
# xform-check, transforms the corpus kernels that xform-check drives, and
# runs it. CSV and the log go to OUT (default: $OUT, else
# bench/results/xform-<date>), with the device, driver and CUDA versions.
set -eu
cd "$(dirname "$0")/../.."
out=${1:-${OUT:-bench/results/xform-$(date -u +%Y-%m-%d)}}
build=${BUILD:-build}
cuda=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$out" "$build/xform/gpu"
make -s "$build/gsp-xform" "$build/xform/xform-check"
mods=()
for f in tests/xform/barriers.cu tests/xform/grids.cu \
	tests/xform/smem_templates.cu tests/xform/spin.cu kernels/wl_mm.cu; do
	b=$build/xform/gpu/$(basename "${f%.cu}")
	"$cuda/bin/nvcc" -ptx -arch=sm_90 -O2 -std=c++17 -Ikernels "$f" -o "$b.ptx"
	"$build/gsp-xform" "$b.ptx" -o "$b.xform.ptx" --report "$b.report"
	mods+=("$b.xform.ptx")
done
{
	echo "date: $(date -u +%FT%TZ)"
	nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
	"$cuda/bin/nvcc" --version | tail -n 1
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
} >"$out/env.txt"
"$build/xform/xform-check" "$out" "${mods[@]}" 2>&1 | tee "$out/xform-check.log"
