#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# How gsp-xform's time grows with the size of a module (no GPU needed):
#
#   bench/xform-scale.sh OUT [LABEL@GSP_XFORM...]
#
# For each N in SIZES (default "200 400 800 1600"), writes a .cu of N
# kernels and N __device__ variables (bench/gpu/many-kernels.py), turns
# it into PTX with `nvcc -ptx -arch=sm_90`, and times each gsp-xform
# binary on it REPS times (default 3; the CSV keeps every rep). Outputs
# of the binaries are compared byte for byte. Default binary:
# cur@build/gsp-xform. Writes OUT/xform-scale.csv
# (n,ptx_bytes,label,rep,seconds,max_rss_kb,same_output), OUT/env.txt
# and OUT/commands.txt.
set -uo pipefail
[ $# -ge 1 ] || { echo "usage: $0 OUT [LABEL@GSP_XFORM...]" >&2; exit 2; }
cd "$(dirname "$0")/.." || exit 2
. bench/outdir.sh
outdir_init xform-scale "$1"
shift
bins=("$@")
[ ${#bins[@]} -gt 0 ] || bins=(cur@build/gsp-xform)
SIZES=${SIZES:-200 400 800 1600}
REPS=${REPS:-3}
for b in "${bins[@]}"; do
	case $b in
	?*@?*) [ -x "${b#*@}" ] || { echo "xform-scale: ${b#*@} is not an executable; build it first (make build/gsp-xform)" >&2; exit 2; } ;;
	*) echo "xform-scale: '$b' is not LABEL@PATH" >&2; exit 2 ;;
	esac
done
for t in nvcc python3; do
	command -v $t >/dev/null || { echo "xform-scale: $t not found; install the CUDA toolkit and python3" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { echo "xform-scale: /usr/bin/time not found; apt-get install time" >&2; exit 2; }

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
echo "n,ptx_bytes,label,rep,seconds,max_rss_kb,same_output" >"$OUT/xform-scale.csv"
for n in $SIZES; do
	log_cmd bench/gpu/many-kernels.py "$n" "m$n.cu"
	bench/gpu/many-kernels.py "$n" "$tmp/m$n.cu" || exit 2
	log_cmd nvcc -ptx -arch=sm_90 -O2 "m$n.cu" -o "m$n.ptx"
	nvcc -ptx -arch=sm_90 -O2 "$tmp/m$n.cu" -o "$tmp/m$n.ptx" || exit 2
	bytes=$(stat -c %s "$tmp/m$n.ptx")
	first=
	for b in "${bins[@]}"; do
		label=${b%%@*} bin=${b#*@}
		for r in $(seq 1 "$REPS"); do
			log_cmd /usr/bin/time -f "%e %M" "$bin" "m$n.ptx" -o "m$n.$label.ptx"
			/usr/bin/time -o "$tmp/t" -f "%e %M" "$bin" "$tmp/m$n.ptx" \
				-o "$tmp/m$n.$label.ptx" 2>"$tmp/err" ||
				{ cat "$tmp/err" >&2; exit 1; }
			read -r sec rss <"$tmp/t"
			[ -n "$first" ] || first=$tmp/m$n.$label.ptx
			cmp -s "$first" "$tmp/m$n.$label.ptx" && same=1 || same=0
			echo "$n,$bytes,$label,$r,$sec,$rss,$same" >>"$OUT/xform-scale.csv"
			echo "n=$n $label rep $r: ${sec} s, ${rss} KB"
		done
	done
done
{
	echo "host: $(uname -srm)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "nvcc: $(nvcc --version | tail -1)"
	echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo ' (with changes)')"
} >"$OUT/env.txt"
