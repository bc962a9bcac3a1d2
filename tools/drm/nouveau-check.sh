#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The manual check of gspace's nouveau adapter on a host with an NVIDIA
# GPU driven by nouveau (Documentation/drm.rst, "On a nouveau GPU"):
# runs one GL or Vulkan command under the LD_PRELOAD shim, so that its
# submissions go through /dev/gspace, and says whether that worked.
#
#   tools/drm/nouveau-check.sh [-m MODDIR] [-s SHIM] [-t SECS] -- COMMAND [ARG...]
#
#   -m  the folder of gspace.ko and gspace_drm.ko to insmod (default:
#       modprobe gspace and gspace_drm, as make install or DKMS put them)
#   -s  libgsp_drmshim.so (default: build/lib/ of this tree, else the
#       installed one)
#   -t  seconds COMMAND may run (default 300)
#
# It checks the preconditions (nouveau loaded, a render node of nouveau,
# the kernel release, which says whether nouveau has EXEC (6.6 and
# later) or only PUSHBUF, root), loads the modules it finds missing,
# runs COMMAND with the shim (GSP_DRM_STATS counts what gspace took),
# and passes if COMMAND exited 0, gspace took at least one submission,
# none failed or went around gspace, and the kernel log of the run has
# no WARNING, BUG, Oops, lockdep or refcount line. It unloads what it
# loaded. Exit status: 0 PASS; 1 FAIL; 2 bad usage; 3 a precondition is
# missing (said which, and what to do).
#
# For its tests (tests/drm/run.sh), NOUVEAU_CHECK_SYSFS, NOUVEAU_CHECK_DEV
# and NOUVEAU_CHECK_RELEASE stand in for /sys, /dev and uname -r.
set -u

me=nouveau-check
usage="usage: $0 [-m MODDIR] [-s SHIM] [-t SECS] -- COMMAND [ARG...]"
sys=${NOUVEAU_CHECK_SYSFS:-/sys}
dev=${NOUVEAU_CHECK_DEV:-/dev}
release=${NOUVEAU_CHECK_RELEASE:-$(uname -r)}
here=$(cd "$(dirname "$0")" && pwd)
moddir='' shim='' secs=300

bad() {
	echo "$me: $*" >&2
	echo "$usage" >&2
	exit 2
}
missing() {
	echo "$me: NOT RUN: $*" >&2
	exit 3
}

while getopts :m:s:t:h opt; do
	case $opt in
	m) moddir=$OPTARG ;;
	s) shim=$OPTARG ;;
	t) secs=$OPTARG ;;
	h) echo "$usage"; exit 0 ;;
	:) bad "-$OPTARG needs a value" ;;
	*) bad "unknown option -$OPTARG" ;;
	esac
done
shift $((OPTIND - 1))
case $secs in
'' | *[!0-9]* | 0) bad "-t wants whole seconds above 0, got '$secs'" ;;
esac
[ $# -gt 0 ] || bad "no command given: put the GL or Vulkan command after -- (e.g. -- vkcube --c 300)"
if [ -n "$moddir" ]; then
	for m in gspace.ko gspace_drm.ko; do
		[ -f "$moddir/$m" ] || bad "-m $moddir has no $m: build it (make module) or drop -m to modprobe"
	done
fi
if [ -z "$shim" ]; then
	for s in "$here/../../build/lib/libgsp_drmshim.so" \
		 /usr/local/lib/libgsp_drmshim.so \
		 /usr/lib/*/libgsp_drmshim.so /usr/lib/libgsp_drmshim.so; do
		[ -f "$s" ] && { shim=$s; break; }
	done
	[ -n "$shim" ] || bad "no libgsp_drmshim.so in build/lib or the library folders: build it (make) or name it with -s"
fi
[ -f "$shim" ] || bad "-s $shim: no such file"
case $shim in
/*) ;;
*) shim=$(pwd)/$shim ;;
esac

# 1. nouveau, and the ioctl its kernel has.
[ -d "$sys/module/nouveau" ] ||
	missing "nouveau is not loaded: modprobe nouveau (with no other driver, nvidia's included, bound to the GPU)"
major=${release%%.*}
rest=${release#*.}
minor=${rest%%[!0-9]*}
case $major$minor in
'' | *[!0-9]*) missing "cannot read the kernel release '$release'" ;;
esac
if [ "$major" -gt 6 ] || { [ "$major" = 6 ] && [ "$minor" -ge 6 ]; }; then
	ioctl=EXEC
	echo "$me: kernel $release: nouveau has EXEC (VM_BIND uapi); NVK and recent Mesa submit with it"
else
	ioctl=PUSHBUF
	echo "$me: kernel $release: nouveau has GEM_PUSHBUF only (no EXEC before 6.6)"
fi

# 2. A render node of nouveau's.
node=''
for d in "$sys"/class/drm/renderD*; do
	[ -e "$d/device/driver" ] || continue
	[ "$(basename "$(readlink "$d/device/driver")")" = nouveau ] || continue
	[ -e "$dev/dri/$(basename "$d")" ] || continue
	node=$dev/dri/$(basename "$d")
	break
done
[ -n "$node" ] ||
	missing "no render node of nouveau in $dev/dri: a GPU bound to nouveau has one (renderD128...); check dmesg for nouveau's errors"
echo "$me: render node $node"

# 3. Root: insmod, and the kernel log.
[ "$(id -u)" = 0 ] || missing "run as root: it loads gspace.ko and gspace_drm.ko and reads the kernel log"

loaded=''
load() {	# load NAME [PARAMS...]
	name=$1
	shift
	[ -d "$sys/module/$name" ] && return 0
	if [ -n "$moddir" ]; then
		insmod "$moddir/$name.ko" "$@"
	else
		modprobe "$name" "$@"
	fi || missing "cannot load $name: build and install it (make module, make install, or DKMS), or give -m"
	loaded="$name $loaded"
}
unload() {
	for m in $loaded; do
		rmmod "$m" || { echo "$me: rmmod $m failed: something still holds it" >&2; fail=1; }
	done
	loaded=''
}
fail=0
stats=$(mktemp "${TMPDIR:-/tmp}/nouveau-check.XXXXXX") || exit 1
trap 'unload; rm -f "$stats"' EXIT
trap 'exit 1' INT TERM
load gspace sim_devices=0 lease_devices=1
load gspace_drm
[ -c "$dev/gspace" ] || { echo "$me: FAIL: no $dev/gspace after loading gspace.ko" >&2; exit 1; }

# 4. The command under the shim, between two kernel log markers.
echo "$me: start" >/dev/kmsg
echo "$me: running under $shim: $*"
timeout "$secs" env -u GSP_DRM_FALLBACK LD_PRELOAD="$shim" \
	GSP_ARBITER=kernel GSP_DRM_STATS="$stats" "$@"
rc=$?
echo "$me: end" >/dev/kmsg
log=$(dmesg | sed -n "/$me: start/,/$me: end/p")
unload

taken=0 failed=0 around=0
while read -r _ _ t f b; do
	taken=$((taken + ${t#taken=}))
	failed=$((failed + ${f#failed=}))
	around=$((around + ${b#fallback=}))
done <"$stats"

why=''
[ "$rc" = 0 ] || why="$why; the command exited $rc$([ "$rc" = 124 ] && echo " (killed after ${secs}s)")"
[ "$taken" -gt 0 ] || why="$why; gspace took no submission (did the command use $node's nouveau, through libdrm or ioctl?)"
[ "$failed" = 0 ] || why="$why; $failed submissions failed in gspace (see the shim's line above)"
[ "$around" = 0 ] || why="$why; $around submissions went around gspace"
bad_lines=$(printf '%s\n' "$log" | grep -E 'WARNING:|BUG:|Oops|lockdep|possible recursive locking|circular locking|refcount_t:|INFO: task .* blocked')
[ -z "$bad_lines" ] || why="$why; the kernel log has: $(printf '%s\n' "$bad_lines" | head -n 3 | tr '\n' ' ')"
[ "$fail" = 0 ] || why="$why; a module did not unload"
if [ -z "$why" ]; then
	echo "$me: PASS: $* exited 0; gspace took $taken submissions ($ioctl) and forwarded them to nouveau; kernel log clean"
	exit 0
fi
echo "$me: FAIL:${why#;}"
exit 1
