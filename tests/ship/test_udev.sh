#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check-ship (mk/ship.mk): /dev/gspace's udev rule, its group, and
# the hooks make install runs on a live system. TAP lines on stdout,
# unnumbered; exits 1 if one is "not ok", 2 on bad usage.
#
#   tests/ship/test_udev.sh SCRATCH
#
# The rule gives /dev/gspace root:gspace 0660, the mode gspace.ko itself
# creates it with (kmod/gsp_drv.c); udevadm verify accepts it where
# udevadm has verify (systemd 254 and later); systemd-sysusers creates
# the group from packaging/gspace.sysusers in a scratch root. Then
# tools/install.sh with DESTDIR empty, on paths under SCRATCH, with
# stand-ins for systemd-sysusers, getent, udevadm and dkms that log their
# calls: install creates the group, reloads udev and adds the module to
# dkms; uninstall removes it from dkms before its sources, reloads udev
# and keeps the group. (The VM, tools/vm/init.sh, checks the node the
# module makes, and that a user outside the group cannot open it.)
set -u

# shellcheck source=tests/ship/lib.sh
. "$(dirname "$0")/lib.sh"
ship_setup "$@"

U=$S/udev
rm -rf "$U"
mkdir -p "$U"
rule=packaging/60-gspace.rules

# 1. The rule: one line, for the misc device gspace, root:gspace 0660.
rules=$(grep -v -e '^#' -e '^[[:space:]]*$' "$rule")
[ "$(wc -l <<<"$rules")" = 1 ] &&
	grep -q 'SUBSYSTEM=="misc"' <<<"$rules" &&
	grep -q 'KERNEL=="gspace"' <<<"$rules" &&
	grep -q 'OWNER="root"' <<<"$rules" &&
	grep -q 'GROUP="gspace"' <<<"$rules" &&
	grep -q 'MODE="0660"' <<<"$rules"
check $? "$rule: one rule, /dev/gspace (misc) root:gspace mode 0660"
kmode=$(sed -n 's/^[[:space:]]*gsp->misc\.mode = \(0[0-7]*\);.*/\1/p' kmod/gsp_drv.c)
[ "$kmode" = 0660 ]
check $? "gspace.ko creates /dev/gspace with the rule's mode, 0660 (kmod/gsp_drv.c: ${kmode:-none found})"
grep -qx 'g gspace -' packaging/gspace.sysusers
check $? "packaging/gspace.sysusers declares the system group gspace"

# 2. udevadm verify, where it exists (systemd 254).
if ! command -v udevadm >/dev/null 2>&1; then
	skip "udevadm verify accepts $rule" "no udevadm here"
elif ! udevadm verify --help >/dev/null 2>&1; then
	skip "udevadm verify accepts $rule" "udevadm $(udevadm --version 2>/dev/null) has no verify (systemd 254 and later)"
else
	udevadm verify "$rule" >"$U/verify.log" 2>&1
	check $? "udevadm verify accepts $rule" "$U/verify.log"
fi

# 3. systemd-sysusers creates the group from the file.
if ! command -v systemd-sysusers >/dev/null 2>&1; then
	skip "systemd-sysusers creates the group gspace" "no systemd-sysusers here"
else
	mkdir -p "$U/sysroot/etc"
	for f in passwd group shadow gshadow; do : >"$U/sysroot/etc/$f"; done
	systemd-sysusers --root="$U/sysroot" "$PWD/packaging/gspace.sysusers" \
		>"$U/sysusers.log" 2>&1
	rc=$?
	[ "$rc" = 0 ] && grep -q '^gspace:x:[0-9]*:$' "$U/sysroot/etc/group"
	check $? "systemd-sysusers creates the group gspace from packaging/gspace.sysusers (in a scratch root)" \
		"$U/sysusers.log"
fi

# 4. tools/install.sh's hooks, DESTDIR empty, with logging stand-ins.
mkdir -p "$U/bin" "$U/sys"
for t in systemd-sysusers udevadm dkms getent; do
	cat >"$U/bin/$t" <<EOS
#!/bin/sh
echo "$t \$*" >>"$U/calls"
case "$t \$1" in
"getent group") exit 2 ;;	# no such group
"dkms status") exit 0 ;;	# nothing added
"dkms remove")			# the sources are still there
	[ -f "$U/sysroot/usr/src/gspace-1/dkms.conf" ] || echo "dkms remove: sources gone" >>"$U/calls" ;;
esac
exit 0
EOS
	chmod +x "$U/bin/$t"
done
spec="file 644 packaging/gspace.sysusers $U/sysroot/lib/sysusers.d/gspace.conf
file 644 $rule $U/sysroot/lib/udev/rules.d/60-gspace.rules
file 644 packaging/dkms.conf.in $U/sysroot/usr/src/gspace-1/dkms.conf
group gspace $U/sysroot/lib/sysusers.d/gspace.conf
udev gspace
dkms gspace 1"
PATH="$U/bin:$PATH" DESTDIR='' tools/install.sh install "$U/sysroot/manifest" \
	<<<"$spec" >"$U/install.log" 2>&1
rc=$?
nk=$(for k in /lib/modules/*; do [ -f "$k/build/Makefile" ] && echo; done | wc -l)
# and udevadm trigger, where gspace.ko is loaded
nt=0
[ ! -e /sys/class/misc/gspace ] || nt=1
[ "$rc" = 0 ] &&
	[ "$(grep -c . "$U/calls")" = $((5 + nk + nt)) ] &&
	grep -qx "getent group gspace" "$U/calls" &&
	grep -qx "systemd-sysusers $U/sysroot/lib/sysusers.d/gspace.conf" "$U/calls" &&
	grep -qx "udevadm control --reload" "$U/calls" &&
	grep -qx "dkms status -m gspace -v 1" "$U/calls" &&
	grep -qx "dkms add -m gspace -v 1" "$U/calls" &&
	[ "$(grep -c '^dkms install -m gspace -v 1 -k ' "$U/calls")" = "$nk" ] &&
	[ -f "$U/sysroot/lib/udev/rules.d/60-gspace.rules" ]
check $? "install with DESTDIR empty: the group (systemd-sysusers), udevadm control --reload, dkms add and dkms install for each of the $nk kernels with headers" \
	"$U/calls"
mv "$U/calls" "$U/calls.install"
# A dkms that has the module, for uninstall.
sed -i 's/^"dkms status") exit 0 ;;.*/"dkms status") echo "gspace\/1: added"; exit 0 ;;/' "$U/bin/dkms"
PATH="$U/bin:$PATH" DESTDIR='' tools/install.sh uninstall "$U/sysroot/manifest" \
	>"$U/uninstall.log" 2>&1
rc=$?
[ "$rc" = 0 ] &&
	grep -qx "dkms remove -m gspace -v 1 --all" "$U/calls" &&
	! grep -q "sources gone" "$U/calls" &&
	grep -qx "udevadm control --reload" "$U/calls" &&
	grep -q "kept the group gspace" "$U/uninstall.log" &&
	[ -z "$(find "$U/sysroot" -type f ! -path '*/etc/*')" ]
check $? "uninstall with DESTDIR empty: dkms remove --all while the sources are there, udev reloaded, the files removed, the group kept (and said so)" \
	"$U/calls"

exit "$fail"
