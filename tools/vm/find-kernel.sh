#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Names the Debian kernel the test VM boots and the headers to build
# gspace.ko against for it: the newest /boot/vmlinuz-*-amd64 (of SERIES,
# when given) and the linux-headers of the very same release.
#
#   tools/vm/find-kernel.sh [-s SERIES] vmlinuz|kdir|release
#
# SERIES is a kernel's major.minor, e.g. 6.1 or 6.12 (the VM's kernel
# matrix, mk/vm.mk): only /boot/vmlinuz-SERIES.*-amd64 count, so 6.1
# never picks 6.12. Debian's cloud and rt flavours never count.
set -eu

die() {
	echo "find-kernel: $*" >&2
	exit 1
}

series=
if [ "${1:-}" = -s ]; then
	[ $# -ge 2 ] || die "usage: $0 [-s SERIES] vmlinuz|kdir|release"
	series=$2
	shift 2
fi
case $series in
'') glob='*' pkg=linux-image-amd64 ;;
*[!0-9.]* | .* | *. | *..*) die "-s wants a kernel series such as 6.1, got '$series'" ;;
*) glob="$series.*" pkg=linux-image-$series-amd64 ;;
esac
[ "$pkg" != linux-image-6.1-amd64 ] || pkg=linux-image-amd64

newest=$(for f in /boot/vmlinuz-$glob-amd64; do
	case $f in
	*-cloud-amd64 | *-rt-amd64) ;;
	*) [ ! -e "$f" ] || echo "$f" ;;
	esac
done | sort -V | tail -n 1)
[ -n "$newest" ] ||
	die "no /boot/vmlinuz-$glob-amd64: install Debian's $pkg (tools/install-deps.sh)"
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
	die "usage: $0 [-s SERIES] vmlinuz|kdir|release"
	;;
esac
