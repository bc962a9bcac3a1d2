# shellcheck shell=bash disable=SC2034 # fail is the sourcing script's
# SPDX-License-Identifier: GPL-2.0
# The helpers of make check-ship's scripts (tests/ship/test_*.sh), sourced
# by each first: its arguments and folders, TAP lines, and make as an
# operator runs it.

# ship_setup "$@": the one argument, SCRATCH, and the top of the tree
# as the current folder; sets S (SCRATCH, made and absolute) and B (the
# scratch BUILD, $S/build).
ship_setup() {
	[ $# -eq 1 ] || { echo "usage: $0 SCRATCH" >&2; exit 2; }
	if [ ! -f Makefile ] || [ ! -f mk/ship.mk ]; then
		echo "$0: run from the top of the gspace tree" >&2
		exit 2
	fi
	S=$(mkdir -p "$1" && cd "$1" && pwd)
	B=$S/build
}

fail=0
ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; fail=1; }
skip() { echo "ok - $1 # SKIP $2"; }
# check COND-EXIT-STATUS DESCRIPTION [LOG]: a TAP line; on failure, the
# log's tail as comments
check() {
	if [ "$1" = 0 ]; then
		ok "$2"
	else
		notok "$2"
		[ -z "${3:-}" ] || tail -n 20 "$3" | sed 's/^/#   /'
	fi
}

# PATH without any folder that holds an nvcc.
nonvcc=
IFS=: read -r -a dirs <<<"$PATH"
for d in "${dirs[@]}"; do
	[ -n "$d" ] && [ ! -x "$d/nvcc" ] && nonvcc=${nonvcc:+$nonvcc:}$d
done

# m ARGS...: make, with nothing of the make that runs this test (its
# MAKEFLAGS carry its command line) and no kernel or install settings
# from the environment.
m() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u KDIR \
		-u KVER -u GSP_VERSION -u DESTDIR -u PREFIX -u BINDIR \
		-u LIBDIR -u DATADIR -u MANDIR -u UNITDIR -u UDEVRULESDIR \
		-u SYSUSERSDIR -u DKMS_SRCDIR -u DKMS_MANIFEST -u MODULE_KO \
		-u MANIFEST -u NVCC -u CUDA_HOME \
		PATH="$nonvcc" make --no-print-directory "$@"
}

# lines PATTERN LOG: how many lines of LOG match PATTERN (ERE)
lines() { grep -E -c -- "$1" "$2"; }

# tree DIR: its files and links, as ./PATH, sorted
tree() { (cd "$1" && find . \( -type f -o -type l \) | sort); }

# The bare VERSION of mk/version.mk, as a tarball's build sees it.
bare_version() { GIT_DIR=/nonexistent m -s version; }
