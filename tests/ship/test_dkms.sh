#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-ship (mk/ship.mk): the module's sources for DKMS. TAP lines
# on stdout, unnumbered; exits 1 if one is "not ok", 2 on bad usage.
#
#   tests/ship/test_dkms.sh SCRATCH
#
# make dkms-src's folder: its dkms.conf says the VERSION of make
# version; it holds what Kbuild names and every header its sources
# include; it builds gspace.ko, with dkms build where dkms is installed
# (in trees of SCRATCH's own: nothing is added to /var/lib/dkms), else
# with make -C KDIR M=., for the running kernel if it has headers and for
# each of Debian 12's 6.1 and 6.12 series (tools/vm/find-kernel.sh -s);
# a series without headers is skipped. Then make dkms-install and
# dkms-uninstall into a scratch DESTDIR.
set -u

# shellcheck source=tests/ship/lib.sh
. "$(dirname "$0")/lib.sh"
ship_setup "$@"
D=$S/dkms-dest

rm -rf "$S/dkms" "$D" "$S"/dkms-*.log
mkdir -p "$S/dkms"
ver=$(bare_version)
src=$B/dkms/gspace-$ver

# 1. The folder and its dkms.conf.
m BUILD="$B" dkms-src >"$S/dkms-src.log" 2>&1
rc=$?
conf=$src/dkms.conf
# conf_val NAME: the value dkms.conf gives NAME, quotes removed
conf_val() { sed -n "s/^$1=\"\\{0,1\\}\\([^\"]*\\)\"\\{0,1\\}\$/\\1/p" "$conf"; }
[ "$rc" = 0 ] && [ -f "$conf" ] &&
	[ "$(conf_val PACKAGE_VERSION)" = "$ver" ] &&
	[ "$(conf_val PACKAGE_NAME)" = gspace ] &&
	[ "$(conf_val 'BUILT_MODULE_NAME\[0\]')" = gspace ] &&
	[ "$(conf_val AUTOINSTALL)" = yes ] &&
	! grep -q '@[A-Z]*@' "$conf"
check $? "make dkms-src writes gspace-$ver/dkms.conf: PACKAGE_VERSION $ver (make version's VERSION), PACKAGE_NAME and module gspace, AUTOINSTALL" \
	"$S/dkms-src.log"

# 2. Everything Kbuild names, and every header those sources include
# from the tree (Kbuild's -I are uapi/ and kmod/), is in the copy.
missing=
for o in $(sed -n 's/\\$//; s/^gspace-y *:= *//p; /^[[:space:]]*kmod\//p' \
		"$src/Kbuild" 2>/dev/null | grep -oE 'kmod/[a-z_/]*\.o'); do
	[ -f "$src/${o%.o}.c" ] || missing="$missing ${o%.o}.c"
done
# Kbuild takes kmod/core/*.c by wildcard.
for c in kmod/core/*.c; do
	[ -f "$src/$c" ] || missing="$missing $c"
done
for f in $(cd "$src" && find kmod uapi -name '*.[ch]' 2>/dev/null); do
	for h in $(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$src/$f"); do
		[ -f "$src/$(dirname "$f")/$h" ] || [ -f "$src/uapi/$h" ] ||
			[ -f "$src/kmod/$h" ] || missing="$missing $f:$h"
	done
done
n=$(cd "$src" 2>/dev/null && find . -name '*.[ch]' | wc -l)
[ "$rc" = 0 ] && [ -f "$src/Kbuild" ] && [ -z "$missing" ] && [ "$n" -gt 10 ]
check $? "the dkms-src copy holds Kbuild, every source it names and every header they include ($n files)${missing:+; missing:$missing}"
extra=$(cd "$src" && find . -type f ! -name '*.[ch]' ! -name Kbuild ! -name dkms.conf)
[ -z "$extra" ]
check $? "the dkms-src copy holds nothing else${extra:+: $extra}"

# 3. It builds gspace.ko: for the running kernel if it has headers, and
# for each kernel series of the VM's matrix (Debian 12's 6.1 and 6.12,
# tools/install-deps.sh installs both), each release once.
# build_for KDIR WHICH: one build, dkms build where dkms is installed;
# gspace_drm.ko too where KDIR's kernel has DRM (Kbuild builds it then)
build_for() {
	local kdir=$1 which=$2 rel t d ko rc drm=
	grep -qsE '^CONFIG_DRM=(y|m)$' "$kdir/include/config/auto.conf" &&
		drm=gspace_drm.ko
	rel=$(tools/find-kdir.sh --release "$kdir" 2>/dev/null)
	if [ -z "$rel" ]; then
		notok "the dkms-src copy builds gspace.ko for $which: no release in $kdir"
		return
	fi
	case " $built " in *" $rel "*) return ;; esac
	built="$built $rel"
	if command -v dkms >/dev/null 2>&1; then
		t=$S/dkms/$rel
		rm -rf "$t"
		mkdir -p "$t/src" "$t/tree" "$t/inst"
		cp -r "$src" "$t/src/"
		d="--dkmstree $t/tree --sourcetree $t/src --installtree $t/inst"
		# shellcheck disable=SC2086 # $d is a list of options
		{ dkms add -m gspace -v "$ver" $d &&
		  dkms build -m gspace -v "$ver" -k "$rel" --kernelsourcedir "$kdir" $d
		} >"$S/dkms-build-$rel.log" 2>&1
		rc=$?
		ko=$(find "$t/tree/gspace/$ver/$rel" -name 'gspace.ko*' 2>/dev/null | head -n 1)
		[ "$rc" = 0 ] && [ -n "$ko" ] && { [ -z "$drm" ] ||
			[ -n "$(find "$t/tree/gspace/$ver/$rel" -name 'gspace_drm.ko*' 2>/dev/null)" ]; }
		check $? "dkms add and dkms build make gspace.ko${drm:+ and $drm} of the dkms-src copy for $which, $rel" \
			"$S/dkms-build-$rel.log"
	else
		t=$S/dkms/copy-$rel
		rm -rf "$t"
		cp -r "$src" "$t"
		make -C "$kdir" M="$t" modules >"$S/dkms-build-$rel.log" 2>&1
		rc=$?
		[ "$rc" = 0 ] &&
			[ "$(modinfo -F vermagic "$t/gspace.ko" 2>/dev/null | cut -d' ' -f1)" = "$rel" ] &&
			{ [ -z "$drm" ] || [ -f "$t/$drm" ]; }
		check $? "make -C KDIR M=the dkms-src copy builds gspace.ko${drm:+ and $drm} for $which, $rel (no dkms here for dkms build)" \
			"$S/dkms-build-$rel.log"
	fi
}
built=
run=$(uname -r)
if kdir=$(tools/find-kdir.sh 2>/dev/null); then
	build_for "$kdir" "the running kernel $run"
fi
for series in 6.1 6.12; do
	if kdir=$(tools/vm/find-kernel.sh -s "$series" kdir 2>/dev/null); then
		build_for "$kdir" "Debian's $series series"
	else
		skip "the dkms-src copy builds gspace.ko for Debian's $series series" \
			"no linux-headers of $series here (tools/install-deps.sh installs them)"
	fi
done

# 4. dkms-install and dkms-uninstall, into a DESTDIR (no dkms runs).
P=/opt/gspace-ship-test
mkdir -p "$D"
m BUILD="$B" PREFIX="$P" DESTDIR="$D" dkms-install >"$S/dkms-install.log" 2>&1
rc=$?
want=$( (cd "$src" && find . -type f | sed "s|^\\.|./usr/src/gspace-$ver|")
	echo ".$P/share/gspace/dkms-manifest" )
[ "$rc" = 0 ] && [ "$(tree "$D")" = "$(sort <<<"$want")" ] &&
	grep -qx "dkms gspace $ver" "$D$P/share/gspace/dkms-manifest"
check $? "make dkms-install copies the dkms-src folder to /usr/src/gspace-$ver and lists it, and dkms, in its manifest" \
	"$S/dkms-install.log"
diff <(sort <<<"$want") <(tree "$D") | sed -n 's/^[<>]/#   &/p'
m BUILD="$B" PREFIX="$P" DESTDIR="$D" dkms-uninstall >"$S/dkms-uninstall.log" 2>&1
rc=$?
[ "$rc" = 0 ] && [ -z "$(cd "$D" && find . -mindepth 1)" ]
check $? "make dkms-uninstall removes what dkms-install wrote, folders included" \
	"$S/dkms-uninstall.log"

exit "$fail"
