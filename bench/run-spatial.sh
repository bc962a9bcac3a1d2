#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The spatial-sharing experiment (issue 6) on a GPU host, from a bare
# checkout (root, nvcc and the MPS binaries in PATH):
#
#   bench/run-spatial.sh OUT
#
# 1. builds gsp-wl, gsp-bench, gspaced, gsp-run and the interposer;
# 2. runs `gsp-wl digest` plain and as a BE under gsp-run --spatial (a
#    gspaced with a partition, no LC) and writes OUT/digest.csv
#    (wl,plain,spatial,equal): the transformed kernels' outputs must equal
#    the plain ones bit for bit;
# 3. runs gsp-bench on bench/spatial.scn into OUT (not with SWEEP=0);
# 4. appends to OUT/env.txt the GPU, driver, CUDA, commit and every
#    command this script ran (also in OUT/commands.txt as it goes).
# Exit status 1 if a digest differs or a cell failed.
set -uo pipefail
[ $# = 1 ] || { echo "usage: $0 OUT (a folder for the results; it is created)" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
# shellcheck source=bench/outdir.sh
. bench/outdir.sh
outdir_init run-spatial "$1"
rc=0
run() {	# log, then run
	log_cmd "$@"
	"$@"
}

run make -s -j"$(nproc)" "$BUILD/gsp-wl" "$BUILD/gsp-bench" "$BUILD/gspaced" \
	"$BUILD/gsp-run" "$BUILD/lib/libgsp_preload.so" libgsp ||
	{ echo "run-spatial: the build failed" >&2; exit 1; }

# --- digests: plain, then under gsp-run --spatial -------------------------
# shellcheck source=bench/gspaced.sh
. bench/gspaced.sh
printf 'lease_devices = 1\nsim_devices = 0\nlc_uids = %s\npartition = 132,8\n' \
	"$(id -u)" >"$OUT/digest-gspaced.conf"
run "$BUILD/gsp-wl" digest >"$OUT/digest-plain.txt" 2>"$OUT/digest-plain.err" ||
	{ echo "run-spatial: gsp-wl digest failed (see digest-plain.err)" >&2; rc=1; }
if gspaced_up spatial "$OUT/digest-gspaced.conf" "$OUT/digest-gspaced.log"; then
	run "$BUILD/gsp-run" --arbiter daemon --socket "$sockdir/s" --class be \
		--spatial -- "$BUILD/gsp-wl" digest >"$OUT/digest-spatial.txt" \
		2>"$OUT/digest-spatial.err" ||
		{ echo "run-spatial: gsp-wl digest under --spatial failed (see digest-spatial.err)" >&2; rc=1; }
	gspaced_down >>"$OUT/digest-gspaced.log"
else
	echo "run-spatial: gspaced did not come up (see digest-gspaced.log)" >&2
	: >"$OUT/digest-spatial.txt"
	rc=1
fi
{
	echo "wl,plain,spatial,equal"
	while read -r wl h; do
		s=$(awk -v w="$wl" '$1 == w { print $2 }' "$OUT/digest-spatial.txt")
		echo "$wl,$h,$s,$([ "$h" = "$s" ] && echo 1 || echo 0)"
	done <"$OUT/digest-plain.txt"
} >"$OUT/digest.csv"
if grep -q ',0$' "$OUT/digest.csv" || [ "$(wc -l <"$OUT/digest.csv")" -lt 2 ]; then
	echo "run-spatial: digests differ or are missing (see digest.csv)" >&2
	rc=1
fi
cat "$OUT/digest.csv"

# --- the sweep ---------------------------------------------------------------
if [ "${SWEEP:-1}" != 0 ]; then
	run "$BUILD/gsp-bench" -o "$OUT" bench/spatial.scn 2>&1 | tee "$OUT/bench.log"
	[ "${PIPESTATUS[0]}" = 0 ] || { echo "run-spatial: some cells failed (see bench.log)" >&2; rc=1; }
fi

# gsp-bench wrote env.txt (command, date, nvidia-smi, nvcc, device); add ours
{
	echo "# run-spatial.sh"
	echo "git: $(git rev-parse HEAD 2>/dev/null) ($(git status --porcelain 2>/dev/null | grep -vc '^??') modified tracked files)"
	echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,memory.total,compute_mode --format=csv,noheader 2>&1 | head -1)"
	echo "cuda: $("${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" --version 2>&1 | tail -1)"
	echo "kernel: $(uname -r)"
	echo "mps: $(command -v nvidia-cuda-mps-control || echo 'not in PATH')"
	echo "commands (from the repository root):"
	sed 's/^/  /' "$OUT/commands.txt"
} >>"$OUT/env.txt"
exit $rc
