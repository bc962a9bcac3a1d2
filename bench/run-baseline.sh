#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Reproduces the committed baseline on a GPU host:
#
#   bench/run-baseline.sh [OUTDIR] [PART...]
#
# PART is smoke, a or b (default: a b). Builds gsp-wl and gsp-bench,
# runs the CPU reference checks on the GPU, then each part's scenario
# into OUTDIR/<part>/ (default OUTDIR: bench/results/<date>-<gpu>).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 |
	sed 's/NVIDIA //; s/[^A-Za-z0-9]\+/-/g; s/-$//' | tr A-Z a-z)
out=${1:-bench/results/$(date -u +%Y-%m-%d)-$gpu}
shift || true
parts=${*:-a b}
make -s -j"$(nproc)" "$BUILD/gsp-wl" "$BUILD/gsp-bench"
mkdir -p "$out"
"$BUILD/gsp-wl" check 2>&1 | tee "$out/check.txt" || echo "gsp-wl check: failures" >&2
for p in $parts; do
	case $p in
	smoke) scn=bench/smoke.scn ;;
	a | b) scn=bench/baseline-$p.scn ;;
	*) echo "unknown part $p" >&2; exit 2 ;;
	esac
	"$BUILD/gsp-bench" -o "$out/$p" "$scn" 2>&1 | tee "$out/$p.log" ||
		echo "part $p: some cells failed (see $out/$p.log)" >&2
done
