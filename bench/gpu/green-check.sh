#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The green-context fallback on a GPU (needs CUDA, MPS and root for MPS):
# builds gspaced, gsp-run, the interposer, gsp-wl and a SASS-only gsp-wl
# (no PTX, so no kernel of it can be transformed), then runs
# green-check.py (about 2 minutes; see its header for what it measures).
#
#   bench/gpu/green-check.sh OUT
set -eu -o pipefail
[ $# = 1 ] || { echo "usage: $0 OUT (a folder for the results)" >&2; exit 2; }
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
sass=${SASS_BUILD:-build-sass}
mkdir -p "$1"
make -s -j"$(nproc)" "$build/gsp-wl" "$build/gspaced" "$build/gsp-run" \
	"$build/lib/libgsp_preload.so" "$libgsp"
# shellcheck disable=SC2016 # KERN_ARCH is make's, not the shell's
make -s -j"$(nproc)" BUILD="$sass" \
	KERN_ARCH='-gencode arch=compute_90,code=sm_90' "$sass/gsp-wl"
# shellcheck source=bench/outdir.sh
. bench/outdir.sh
gpu_env "$1/env.txt" "command: bench/gpu/green-check.sh OUT"
python3 bench/gpu/green-check.py "$1" "$build" "$sass"
