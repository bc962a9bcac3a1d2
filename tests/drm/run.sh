#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The drm suite (make check-drm), TAP on stdout: what of the DRM path
# runs on a host with no DRM driver gspace has an adapter for. (The path
# itself runs in the VM: selftests/gspace_drm_lib_test.c and
# gspace_drmshim_test.c.)
#  1. gsp-run --drm: the options it refuses, no arbiter, --fail-open
#  2. libgsp_drmshim.so exports ioctl() alone and passes other ioctls by
#  3. tools/drm/nouveau-check.sh: bad command lines (exit 2) and missing
#     preconditions (exit 3), each with a message saying what to do,
#     against fake /sys and /dev trees
# Needs BUILD from the Makefile.
set -u
B=${BUILD:-build}
CHECK=tools/drm/nouveau-check.sh
tmp=$(mktemp -d /tmp/gsp-check-drm.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }

# 1. gsp-run --drm. "ARGS|expected stderr text": exit 2, nothing run.
while IFS='|' read -r args want; do
	# shellcheck disable=SC2086 # ARGS is a list of words
	out=$("$B/gsp-run" $args -- sh -c 'echo ran' 2>"$tmp/err")
	rc=$?
	if [ $rc = 2 ] && [ -z "$out" ] && grep -qF -- "$want" "$tmp/err"; then
		ok "gsp-run $args: exit 2: $(head -n 1 "$tmp/err")"
	else
		notok "gsp-run $args: exit 2 saying '$want' (rc $rc, stdout '$out': $(head -n 1 "$tmp/err"))"
	fi
done <<'EOF'
--drm --spatial|--spatial is for CUDA programs
--drm --no-green|--no-green is for CUDA programs
--drm --quantum-us 500|--quantum-us is for CUDA programs
--drm --no-gate|--no-gate is for CUDA programs
--drm --arbiter daemon|--drm needs gspace.ko
EOF
out=$(GSP_ARBITER=daemon "$B/gsp-run" --drm -- sh -c 'echo ran' 2>"$tmp/err")
rc=$?
[ $rc = 2 ] && [ -z "$out" ] && grep -q 'gspaced cannot forward into a kernel driver' "$tmp/err" &&
	ok "gsp-run --drm with GSP_ARBITER=daemon: exit 2, says why" ||
	notok "gsp-run --drm with GSP_ARBITER=daemon: exit 2 (rc $rc: $(cat "$tmp/err"))"
out=$(GSPACE_DEV=$tmp/none "$B/gsp-run" --drm -- sh -c 'echo ran' 2>"$tmp/err")
rc=$?
[ $rc = 4 ] && [ -z "$out" ] && grep -q 'load gspace.ko and gspace_drm.ko' "$tmp/err" &&
	grep -q -- '--fail-open' "$tmp/err" &&
	ok "gsp-run --drm with no /dev/gspace: exit 4, the program not run, the modules and --fail-open named" ||
	notok "gsp-run --drm with no /dev/gspace: exit 4 (rc $rc, '$out': $(cat "$tmp/err"))"
out=$(GSPACE_DEV=$tmp/none "$B/gsp-run" --drm --fail-open -- \
	sh -c 'echo "$LD_PRELOAD|$GSP_DRM_FALLBACK|$GSP_ARBITER"' 2>"$tmp/err")
rc=$?
case "$rc:$out" in
0:*/lib/libgsp_drmshim.so\|1\|kernel)
	ok "gsp-run --drm --fail-open: the shim preloaded, GSP_DRM_FALLBACK=1, GSP_ARBITER=kernel" ;;
*)
	notok "gsp-run --drm --fail-open: the shim, GSP_DRM_FALLBACK=1, GSP_ARBITER=kernel (rc $rc: $out)" ;;
esac

# 2. The shim: ioctl() alone, and a program's own ioctls unchanged.
syms=$(nm -D --defined-only "$B/lib/libgsp_drmshim.so" | awk '{ print $3 }')
[ "$syms" = ioctl ] && ok "libgsp_drmshim.so exports ioctl alone" ||
	notok "libgsp_drmshim.so exports ioctl alone (it exports: $(echo $syms))"
out=$(LD_PRELOAD=$PWD/$B/lib/libgsp_drmshim.so python3 -c '
import fcntl, os, struct, termios
r, w = os.pipe()
os.write(w, b"abcd")
print(struct.unpack("i", fcntl.ioctl(r, termios.FIONREAD, b"\0\0\0\0"))[0])' 2>&1)
[ "$out" = 4 ] && ok "under the shim, a pipe's FIONREAD still answers 4" ||
	notok "under the shim, a pipe's FIONREAD answers 4 (got '$out')"

# 3. nouveau-check.sh: bad command lines, exit 2.
shim=$B/lib/libgsp_drmshim.so
while IFS='|' read -r args want; do
	# shellcheck disable=SC2086
	"$CHECK" $args >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = 2 ] && grep -qF -- "$want" "$tmp/err" && grep -q '^usage:' "$tmp/err"; then
		ok "nouveau-check $args: exit 2: $(head -n 1 "$tmp/err")"
	else
		notok "nouveau-check $args: exit 2 saying '$want' and the usage (rc $rc: $(cat "$tmp/err"))"
	fi
done <<EOF
|no command given
-s $shim|no command given
-s $shim --|no command given
-x -- true|unknown option -x
-t|-t needs a value
-t abc -s $shim -- true|-t wants whole seconds
-t 0 -s $shim -- true|-t wants whole seconds
-m $tmp/nomods -s $shim -- true|has no gspace.ko
-s $tmp/none.so -- true|no such file
EOF

# Missing preconditions, exit 3, against fake trees: no nouveau, no
# render node, not root. And the kernel release's choice of ioctl.
fs=$tmp/sys
mkdir -p "$fs/module" "$tmp/dev/dri"
pre() {	# pre WANT-RC WANT-TEXT DESCRIPTION [ENV...]
	local rc want=$1 text=$2 what=$3
	shift 3
	env NOUVEAU_CHECK_SYSFS="$fs" NOUVEAU_CHECK_DEV="$tmp/dev" "$@" \
		"$CHECK" -s "$shim" -- true >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc = "$want" ] && grep -qF -- "$text" "$tmp/out" "$tmp/err"; then
		ok "nouveau-check: $what: exit $want: $(grep -hF -- "$text" "$tmp/out" "$tmp/err" | head -n 1)"
	else
		notok "nouveau-check: $what: exit $want saying '$text' (rc $rc: $(cat "$tmp/out" "$tmp/err"))"
	fi
}
pre 3 "nouveau is not loaded: modprobe nouveau" "no nouveau module"
mkdir -p "$fs/module/nouveau"
pre 3 "no render node of nouveau" "nouveau but no render node"
mkdir -p "$fs/class/drm/renderD128/device" "$fs/bus/pci/drivers/nouveau" \
	"$fs/bus/pci/drivers/i915" "$fs/class/drm/renderD129/device"
ln -s "$fs/bus/pci/drivers/i915" "$fs/class/drm/renderD128/device/driver"
pre 3 "no render node of nouveau" "only another driver's render node"
ln -s "$fs/bus/pci/drivers/nouveau" "$fs/class/drm/renderD129/device/driver"
pre 3 "no render node of nouveau" "nouveau's node in sysfs, not in /dev/dri"
: >"$tmp/dev/dri/renderD129"
pre 3 "cannot read the kernel release" "an unreadable kernel release" \
	NOUVEAU_CHECK_RELEASE=banana
if [ "$(id -u)" = 0 ]; then
	nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	chmod -R a+rX "$tmp"
	pre 3 "run as root" "not root (as uid 65534)" "${nobody[@]}"
	pre 3 "has GEM_PUSHBUF only" "kernel 6.1: PUSHBUF" \
		NOUVEAU_CHECK_RELEASE=6.1.0-56-amd64 "${nobody[@]}"
	pre 3 "nouveau has EXEC" "kernel 6.12: EXEC" \
		NOUVEAU_CHECK_RELEASE=6.12.117+deb12-amd64 "${nobody[@]}"
	pre 3 "render node $tmp/dev/dri/renderD129" "the nouveau node found" \
		"${nobody[@]}"
else
	pre 3 "run as root" "not root"
	pre 3 "has GEM_PUSHBUF only" "kernel 6.1: PUSHBUF" \
		NOUVEAU_CHECK_RELEASE=6.1.0-56-amd64
	pre 3 "nouveau has EXEC" "kernel 6.12: EXEC" \
		NOUVEAU_CHECK_RELEASE=6.12.117+deb12-amd64
	pre 3 "render node $tmp/dev/dri/renderD129" "the nouveau node found"
fi
exit 0
