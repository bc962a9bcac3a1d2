#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# PID 1 of the gspace test VM (packed as /init by tools/vm/mkinitramfs.sh).
#
# Mounts the pseudo filesystems, creates the users root and tenant (1000,
# of the group gspace), checks uname -r against the KERNEL_RELEASE of
# /etc/gspace-vm.conf, loads /gspace.ko with the parameters in
# /etc/gspace-vm.conf, gives /dev/gspace the group gspace, loads the
# EXTRA_MODULES of /lib/gspace-vm (the drm engine's: drm, the TEST
# DEVICE gsp_testdrm, gspace_drm) and gives their render nodes the group
# gspace too, runs each line of /etc/gspace-vm.cmds, unloads the modules
# in reverse order, dumps the kernel log
# between markers, writes the exit marker and powers off. On a kernel
# with kmemleak or lockdep (tools/vm/debug-kernel.sh) it also scans for
# leaks after rmmod and checks that lockdep is still on.
#
# The payload (TAP, the dmesg dump, the exit marker) goes to the second
# serial port, ttyS1; the kernel console stays on ttyS0, so kernel messages
# never break a TAP line. tools/vm/run.sh reads both.
#
# It runs under busybox sh, not with set -e: PID 1 must reach poweroff.

export PATH=/bin:/sbin:/usr/bin:/usr/sbin
export HOME=/root

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /dev/pts /dev/shm /tmp /root /home/tenant /run
chmod 1777 /tmp /dev/shm

cat >/etc/passwd <<'EOF'
root:x:0:0:root:/root:/bin/sh
tenant:x:1000:1000:gspace test tenant:/home/tenant:/bin/sh
EOF
# tenant's own group is gspace, the group of /dev/gspace (below).
cat >/etc/group <<'EOF'
root:x:0:
gspace:x:1000:
EOF
chown 1000:1000 /home/tenant

out=/dev/ttyS1
[ -c "$out" ] || out=/dev/console
# Raw output: no \n -> \r\n translation on the payload port.
stty -F "$out" raw -echo 2>/dev/null
exec <"$out" >"$out" 2>&1

MODPARAMS=
CMD_TIMEOUT=600
KERNEL_RELEASE=
EXTRA_MODULES=
[ -r /etc/gspace-vm.conf ] && . /etc/gspace-vm.conf

read -r up _ </proc/uptime
echo "# vm: init started ${up}s after the kernel ($(uname -r))"

status=0
# The kernel of the run, as a test line: the log of make check shows
# the matrix (mk/vm.mk), and a wrong image fails here, not at insmod.
if [ -n "$KERNEL_RELEASE" ]; then
	if [ "$(uname -r)" = "$KERNEL_RELEASE" ]; then
		echo "ok - vm: booted $KERNEL_RELEASE (uname -r)"
	else
		echo "not ok - vm: booted $KERNEL_RELEASE (uname -r says $(uname -r))"
		status=1
	fi
fi

# A debug kernel (tools/vm/debug-kernel.sh) names its checkers, and
# kmemleak forgets the boot's suspects, before the payload starts: the
# scan at the end reports only what the payload left. kmemleak reports
# an object only once it is 5 s old.
kmemleak=/sys/kernel/debug/kmemleak
if [ -r /proc/config.gz ]; then
	on=
	for o in KASAN PROVE_LOCKING DEBUG_ATOMIC_SLEEP DEBUG_KMEMLEAK \
		 DEBUG_OBJECTS FAILSLAB; do
		zcat /proc/config.gz | grep -qx "CONFIG_$o=y" && on="$on $o"
	done
	[ -e "/proc/self/task/$$/fail-nth" ] && on="$on FAIL_NTH"
	[ -n "$on" ] && echo "# debug kernel:$on"
fi
if [ -w $kmemleak ]; then
	sleep 6
	echo scan >$kmemleak
	echo clear >$kmemleak
fi

# From here on every kernel message also reaches the console log (ttyS0),
# so an oops that kills the VM is still on record.
echo 8 >/proc/sys/kernel/printk
echo "gspace-vm: payload starts" >/dev/kmsg

loaded=0
if [ -f /gspace.ko ]; then
	# shellcheck disable=SC2086 # MODPARAMS is a list of words
	if insmod /gspace.ko $MODPARAMS; then
		echo "ok - vm: insmod gspace.ko${MODPARAMS:+ $MODPARAMS}"
		loaded=1
		# The node as the module makes it, then as udev's
		# packaging/60-gspace.rules would make it (no udev here).
		node=$(stat -c '%a %u:%g' /dev/gspace 2>&1)
		if [ "$node" = "660 0:0" ]; then
			echo "ok - vm: gspace.ko creates /dev/gspace root:root 0660"
		else
			echo "not ok - vm: gspace.ko creates /dev/gspace root:root 0660 (it is $node)"
			status=1
		fi
		chgrp gspace /dev/gspace
		if [ -x /bin/runas ]; then
			if /bin/runas 1001 1001 sh -c ': </dev/gspace' 2>/dev/null; then
				echo "not ok - vm: a user outside the group gspace cannot open /dev/gspace"
				status=1
			else
				echo "ok - vm: a user outside the group gspace cannot open /dev/gspace"
			fi
		fi
	else
		echo "not ok - vm: insmod gspace.ko${MODPARAMS:+ $MODPARAMS} failed"
		status=1
	fi
fi

# The drm engine's modules, after gspace.ko. The render nodes get the
# group gspace, as a udev rule for the render group would give them.
extra_loaded=
if [ $loaded = 1 ]; then
	for m in $EXTRA_MODULES; do
		if insmod "/lib/gspace-vm/$m.ko"; then
			echo "ok - vm: insmod $m.ko"
			extra_loaded="$m $extra_loaded"
		else
			echo "not ok - vm: insmod $m.ko failed"
			status=1
		fi
	done
	for n in /dev/dri/renderD*; do
		[ -c "$n" ] || continue
		chgrp gspace "$n" && chmod 660 "$n"
	done
fi

if [ -f /gspace.ko ] && [ $loaded = 0 ]; then
	echo "# vm: module not loaded, commands not run"
elif [ -r /etc/gspace-vm.cmds ]; then
	# A directory every user may write to, root and tenant alike.
	cd /tmp || status=1
	while IFS= read -r line; do
		case "$line" in
		'' | '#'*) continue ;;
		esac
		echo "# vm: run: $line"
		timeout "$CMD_TIMEOUT" sh -c "$line" </dev/null
		rc=$?
		case $rc in
		0) echo "ok - vm: $line" ;;
		4) echo "ok - vm: $line # SKIP (exit 4, kselftest skip)" ;;
		143 | 137) echo "not ok - vm: $line (killed after ${CMD_TIMEOUT}s)"
			status=1 ;;
		*) echo "not ok - vm: $line (exit $rc)"
			status=1 ;;
		esac
	done </etc/gspace-vm.cmds
fi

# In reverse order; a selftest may have unloaded and reloaded one
# (gspace_drm_sched_test's unload test): it must be loaded again by now.
for m in $extra_loaded; do
	if rmmod "$m"; then
		echo "ok - vm: rmmod $m"
	else
		echo "not ok - vm: rmmod $m failed"
		status=1
	fi
done
if [ $loaded = 1 ]; then
	if rmmod gspace; then
		echo "ok - vm: rmmod gspace"
	else
		echo "not ok - vm: rmmod gspace failed"
		status=1
	fi
fi

# What the module left behind after rmmod: objects 5 s old, and a
# second scan confirms the first.
if [ -w $kmemleak ]; then
	sleep 6
	echo scan >$kmemleak
	echo scan >$kmemleak
	leaks=$(grep -c '^unreferenced object' $kmemleak)
	if [ "$leaks" = 0 ]; then
		echo "ok - vm: kmemleak scan: no leaks"
	else
		echo "not ok - vm: kmemleak scan: $leaks leaked objects:"
		head -n 300 $kmemleak | sed 's/^/#   /'
		status=1
	fi
fi
# Lockdep turns itself off after its first report, or when it runs out
# of room: then it checked nothing from there on.
if [ -r /proc/lockdep_stats ]; then
	if grep -qE '^ *debug_locks: +1$' /proc/lockdep_stats; then
		echo "ok - vm: lockdep still on at the end (debug_locks 1)"
	else
		echo "not ok - vm: lockdep turned itself off ($(grep debug_locks /proc/lockdep_stats))"
		status=1
	fi
fi

echo "gspace-vm: payload ends" >/dev/kmsg
echo "==== gspace-vm dmesg begin ===="
dmesg
echo "==== gspace-vm dmesg end ===="
echo "==== gspace-vm exit status=$status ===="
# The last close of the port waits until its output has drained.
exec >/dev/console 2>&1 </dev/console
sync
poweroff -f
sleep 10
echo o >/proc/sysrq-trigger
