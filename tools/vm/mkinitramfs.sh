#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Packs the gzip cpio initramfs of the gspace test VM.
#
#   tools/vm/mkinitramfs.sh -o OUT.img [-m gspace.ko] [-p "PARAMS"]
#                           [-e MODULE.ko]... [-d DYNAMIC]... [-c CMDFILE]
#                           [-t CMD_TIMEOUT_S] [-r RELEASE] [FILE...]
#
#   -o  the image to write
#   -m  the module, packed as /gspace.ko and loaded with insmod by init
#   -p  its parameters, e.g. "sim_devices=2 lease_devices=1"
#   -e  a module init loads after gspace.ko, in the order given, and
#       unloads before it (the drm engine's: drm.ko, gsp_testdrm.ko,
#       gspace_drm.ko); packed as /lib/gspace-vm/NAME.ko, uncompressed
#       if it is a .ko.xz or .ko.zst
#   -d  a dynamically linked program (to /bin/NAME) or shared object
#       (NAME.so, to /lib/gspace-vm/NAME.so), with the dynamic loader and
#       every library ldd lists for it, each at its own path
#   -c  the commands to run, one shell command line per line ('#' starts a
#       comment line); each line becomes one TAP result
#   -t  seconds each command may run before it is killed (default 600)
#   -r  the kernel release the image is for: init checks uname -r
#   FILE...  extra files (static binaries, data), copied to /bin/<name>
#
# The image holds busybox-static with every applet installed as a symlink,
# tools/vm/init.sh as /init, and /dev/console (so PID 1 has a console from
# its first instruction; devtmpfs is mounted over /dev later).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out='' module='' params='' cmds='' cmd_timeout=600 release='' extra='' dyn=''

die() {
	echo "mkinitramfs: $*" >&2
	exit 1
}

while getopts o:m:p:e:d:c:t:r: opt; do
	case $opt in
	o) out=$OPTARG ;;
	m) module=$OPTARG ;;
	e) extra="$extra $OPTARG" ;;
	d) dyn="$dyn $OPTARG" ;;
	p) params=$OPTARG ;;
	c) cmds=$OPTARG ;;
	t) cmd_timeout=$OPTARG ;;
	r) release=$OPTARG ;;
	*) die "usage: $0 -o OUT.img [-m MODULE.ko] [-p PARAMS] [-e MODULE.ko]... [-d DYNAMIC]... [-c CMDFILE] [-t SECS] [-r RELEASE] [FILE...]" ;;
	esac
done
shift $((OPTIND - 1))

[ -n "$out" ] || die "no output given (-o OUT.img)"
case $cmd_timeout in
'' | *[!0-9]*) die "-t wants whole seconds, got '$cmd_timeout'" ;;
esac
busybox=$(command -v busybox || true)
[ -n "$busybox" ] || die "busybox not found: run tools/install-deps.sh (Debian package busybox-static)"
if ldd "$busybox" >/dev/null 2>&1; then
	die "$busybox is dynamically linked: install busybox-static"
fi
command -v cpio >/dev/null || die "cpio not found: run tools/install-deps.sh (Debian package cpio)"
[ -z "$module" ] || [ -f "$module" ] || die "module $module not found: build it first (make module)"
[ -z "$cmds" ] || [ -f "$cmds" ] || die "command file $cmds not found"
for f in $extra; do
	[ -f "$f" ] || die "module $f not found: build it first (make vm-module)"
done
for f in "$@"; do
	[ -f "$f" ] || die "file $f not found: build it first"
done
for f in $dyn; do
	[ -f "$f" ] || die "dynamic file $f not found: build it first"
	ldd "$f" >/dev/null 2>&1 || die "-d wants a dynamically linked file; ldd does not read $f"
done

root=$(mktemp -d "${TMPDIR:-/tmp}/gspace-initramfs.XXXXXX")
trap 'rm -rf "$root"' EXIT

mkdir -p "$root/bin" "$root/sbin" "$root/usr/bin" "$root/usr/sbin" \
	"$root/etc" "$root/proc" "$root/sys" "$root/dev" "$root/tmp" \
	"$root/root" "$root/home"
cp "$busybox" "$root/bin/busybox"
"$busybox" --list-full | while IFS= read -r applet; do
	case $applet in
	bin/busybox | '') continue ;;
	esac
	# Relative links: bin/x -> busybox, usr/sbin/x -> ../../bin/busybox
	up=$(echo "$applet" | sed 's|[^/]*/|../|g; s|[^/]*$||')
	ln -sf "${up}bin/busybox" "$root/$applet"
done

cp "$here/init.sh" "$root/init"
chmod 755 "$root/init"
if [ -n "$module" ]; then
	cp "$module" "$root/gspace.ko"
fi
extra_names=''
mkdir -p "$root/lib/gspace-vm"
for f in $extra; do
	name=$(basename "$f")
	case $name in
	*.ko.xz) name=${name%.xz}; xz -dc "$f" >"$root/lib/gspace-vm/$name" ;;
	*.ko.zst) name=${name%.zst}; zstd -qdc "$f" >"$root/lib/gspace-vm/$name" ;;
	*.ko) cp "$f" "$root/lib/gspace-vm/$name" ;;
	*) die "-e wants a .ko, .ko.xz or .ko.zst, got $f" ;;
	esac
	extra_names="$extra_names ${name%.ko}"
done
{
	printf 'MODPARAMS=%s\n' "'$params'"
	printf 'CMD_TIMEOUT=%s\n' "$cmd_timeout"
	printf 'KERNEL_RELEASE=%s\n' "'$release'"
	printf 'EXTRA_MODULES=%s\n' "'${extra_names# }'"
} >"$root/etc/gspace-vm.conf"
if [ -n "$cmds" ]; then
	cp "$cmds" "$root/etc/gspace-vm.cmds"
fi
for f in "$@"; do
	cp "$f" "$root/bin/$(basename "$f")"
	chmod 755 "$root/bin/$(basename "$f")"
done

# The dynamic files, and what they need: ldd's paths ("lib => /path"
# and the loader's "/path"), once each, in a fixed order.
if [ -n "$dyn" ]; then
	for f in $dyn; do
		case $f in
		*.so) cp "$f" "$root/lib/gspace-vm/$(basename "$f")" ;;
		*) cp "$f" "$root/bin/$(basename "$f")"
		   chmod 755 "$root/bin/$(basename "$f")" ;;
		esac
		ldd "$f" | sed -n 's|.*=> \(/[^ ]*\).*|\1|p; s|^[[:space:]]*\(/[^ ]*\).*|\1|p'
	done | LC_ALL=C sort -u | while IFS= read -r lib; do
		[ -f "$lib" ] || die "$lib, which ldd lists, is not a file"
		mkdir -p "$root$(dirname "$lib")"
		cp -L "$lib" "$root$lib"
	done
fi

# One newc entry without data, written by hand so that no mknod (and so no
# root) is needed: $1 name, $2 mode (octal), $3 rdev major, $4 rdev minor.
newc_entry() {
	namesize=$((${#1} + 1))
	printf '070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X' \
		1 "$((0$2))" 0 0 1 0 0 0 0 "$3" "$4" "$namesize" 0
	printf '%s\0' "$1"
	pad=$(((4 - (110 + namesize) % 4) % 4))
	[ $pad = 0 ] || head -c $pad /dev/zero
}

mkdir -p "$(dirname "$out")"
{
	newc_entry dev 040755 0 0
	newc_entry dev/console 020600 5 1
	newc_entry TRAILER!!! 0 0 0
	(cd "$root" && find . -mindepth 1 | LC_ALL=C sort |
		cpio --quiet -o -H newc -R 0:0)
} | gzip -6 >"$out.tmp"
mv "$out.tmp" "$out"
