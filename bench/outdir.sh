# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the bench scripts that write a results folder:
#
#   outdir_init NAME DIR   creates DIR, sets OUT to its absolute path and
#                          empties OUT/commands.txt; if DIR looks like an
#                          option (--help, say) or cannot be created, says
#                          so as NAME and exits 2
#   log_cmd CMD...         appends CMD, shell-quoted, to OUT/commands.txt
#   gpu_env FILE LINE...   writes FILE: the date, the GPU and its driver,
#                          nvcc's version, the commit, then each LINE
#   build_or_die NAME TARGET...
#                          logs and runs make -s -j of the TARGETs; if it
#                          fails, says so as NAME and exits 1
#   build_missing NAME FILE...
#                          build_or_die of the FILEs that do not exist
#                          ($BUILD/lib/libgsp.so by its target, libgsp)
#   outdir_scrub [PATH:NAME...]
#                          rewrites OUT/commands.txt and OUT/env.txt so
#                          that they name OUT as OUT, the repository's
#                          paths relative to it (run from its root) and
#                          each PATH as NAME: no host's paths in results
outdir_init() {
	case $2 in
	-*) echo "$1: $2 is not an output folder; the comment at the top of the script says how to run it" >&2
	    exit 2 ;;
	esac
	mkdir -p "$2" || { echo "$1: cannot create $2" >&2; exit 2; }
	OUT=$(cd "$2" && pwd)
	: >"$OUT/commands.txt"
}

log_cmd() {
	printf '%q ' "$@" >>"$OUT/commands.txt"
	echo >>"$OUT/commands.txt"
}

gpu_env() {
	local f=$1 l
	shift
	{
		echo "date: $(date -u +%FT%TZ)"
		nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
		"${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" --version | tail -n 1
		echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
		for l in "$@"; do
			echo "$l"
		done
	} >"$f"
}

build_or_die() {
	local name=$1
	shift
	log_cmd make -s -j"$(nproc)" "$@"
	make -s -j"$(nproc)" "$@" || { echo "$name: the build failed" >&2; exit 1; }
}

build_missing() {
	local name=$1 t need=()
	shift
	for t in "$@"; do
		[ -e "$t" ] && continue
		[ "$t" = "$BUILD/lib/libgsp.so" ] && t=libgsp
		need+=("$t")
	done
	[ ${#need[@]} = 0 ] || build_or_die "$name" "${need[@]}"
}

outdir_scrub() {
	local f p
	for f in "$OUT/commands.txt" "$OUT/env.txt"; do
		[ -f "$f" ] || continue
		for p in "$OUT:OUT" "$PWD/:" "$@"; do
			[ -n "${p%:*}" ] && sed -i "s|${p%:*}|${p##*:}|g" "$f"
		done
	done
}
