#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel build tree to build gspace.ko against, for the Makefile.
#
#   tools/find-kdir.sh [RELEASE]
#	prints /lib/modules/RELEASE/build, RELEASE being the running
#	kernel (uname -r) unless given. When that kernel has no headers it
#	prints nothing, says on stderr what to install, and exits 1: a
#	module built against another kernel's headers would not load on
#	this one, so none is picked in its place.
#   tools/find-kdir.sh --release KDIR
#	prints the release KDIR builds for (its UTS_RELEASE), or nothing
#	and exits 1 if it does not say.
set -eu

if [ "${1:-}" = --release ]; then
	[ $# -eq 2 ] || { echo "usage: $0 --release KDIR" >&2; exit 2; }
	sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' \
		"$2/include/generated/utsrelease.h" 2>/dev/null | grep . || exit 1
	exit 0
fi

if [ $# -gt 1 ]; then
	echo "usage: $0 [RELEASE] | --release KDIR" >&2
	exit 2
fi
if [ -n "${1:-}" ]; then
	release=$1
	which="kernel $release (KVER=$release)"
else
	release=$(uname -r)
	which="the running kernel $release"
fi
kdir=/lib/modules/$release/build
if [ -f "$kdir/Makefile" ]; then
	echo "$kdir"
	exit 0
fi
echo "no headers for $which: no $kdir; install linux-headers-$release, or build for another kernel with KDIR=/path/to/its/build" >&2
exit 1
