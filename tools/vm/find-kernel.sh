#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Names the Debian kernel the test VM boots and the headers to build
# gspace.ko against for it: the newest /boot/vmlinuz-*-amd64 and the
# linux-headers of the very same release.
#
#   tools/vm/find-kernel.sh vmlinuz|kdir|release
set -eu

die() {
	echo "find-kernel: $*" >&2
	exit 1
}

newest=$(ls /boot/vmlinuz-*-amd64 2>/dev/null | sort -V | tail -n 1)
[ -n "$newest" ] ||
	die "no /boot/vmlinuz-*-amd64: install Debian's linux-image-amd64 (tools/install-deps.sh)"
release=${newest#/boot/vmlinuz-}
case ${1:-} in
vmlinuz)
	[ -r "$newest" ] ||
		die "$newest is not readable: run as root or chmod a+r $newest"
	echo "$newest"
	;;
kdir)
	kdir=/usr/src/linux-headers-$release
	[ -f "$kdir/Makefile" ] ||
		die "no $kdir: install linux-headers-$release (the headers of the VM kernel)"
	echo "$kdir"
	;;
release)
	echo "$release"
	;;
*)
	die "usage: $0 vmlinuz|kdir|release"
	;;
esac
