#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boots the gspace test VM under QEMU (TCG, no KVM) and judges the run.
#
#   tools/vm/run.sh -i INITRD [-k VMLINUZ] [-t TIMEOUT_S] [-d LOGDIR]
#                   [-a "EXTRA KERNEL ARGS"]
#
# The VM's init (tools/vm/init.sh) writes the payload to ttyS1, which comes
# out here on stdout and is passed through unchanged, as it arrives (the
# selftests print TAP). The kernel console, ttyS0, goes to LOGDIR/console.log.
# After the VM powers off this prints, as TAP:
#
#   ok - vm: ran to the end          (not ok: no exit marker: the VM panicked,
#                                     hung or hit TIMEOUT_S)
#   ok - kernel log clean            (not ok: a WARNING, BUG, Oops, refcount,
#                                     lockdep, general protection, Call Trace
#                                     ... line after the payload started)
#
# and exits 1 if either failed or a payload command failed, else 0.
# LOGDIR (default build/vm) keeps console.log, payload.log and dmesg.log.
set -eu -o pipefail

# Kernel log lines that fail the run. Only lines logged after init wrote
# "gspace-vm: payload starts" count: boot noise is not the module's.
BAD='WARNING|\bBUG\b|Oops|refcount|lockdep|general protection|Call Trace'
BAD+='|Kernel panic|soft lockup|hard LOCKUP|blocked for more than'
BAD+='|detected stall|UBSAN|KASAN|list_(add|del) corruption|kmemleak'

kernel='' initrd='' timeout_s=600 dir=build/vm append=''

die() {
	echo "run.sh: $*" >&2
	exit 1
}

while getopts i:k:t:d:a: opt; do
	case $opt in
	i) initrd=$OPTARG ;;
	k) kernel=$OPTARG ;;
	t) timeout_s=$OPTARG ;;
	d) dir=$OPTARG ;;
	a) append=$OPTARG ;;
	*) die "usage: $0 -i INITRD [-k VMLINUZ] [-t TIMEOUT_S] [-d LOGDIR] [-a ARGS]" ;;
	esac
done

[ -n "$initrd" ] || die "no initramfs given (-i): pack one with tools/vm/mkinitramfs.sh"
[ -f "$initrd" ] || die "initramfs $initrd not found: pack it with tools/vm/mkinitramfs.sh"
if [ -z "$kernel" ]; then
	kernel=$("$(dirname "$0")/find-kernel.sh" vmlinuz)
fi
[ -r "$kernel" ] || die "kernel $kernel not readable: install linux-image-amd64 or run as root"
case $timeout_s in
'' | *[!0-9]*) die "-t wants whole seconds, got '$timeout_s'" ;;
esac
command -v qemu-system-x86_64 >/dev/null ||
	die "qemu-system-x86_64 not found: run tools/install-deps.sh (Debian package qemu-system-x86)"

mkdir -p "$dir"
rm -f "$dir/console.log" "$dir/serial.raw" "$dir/payload.log" \
	"$dir/dmesg.log" "$dir/qemu.err"

# -nographic with both serial ports named: ttyS0 (kernel console) to a
# file, ttyS1 (payload) to stdout, and no monitor on stdio.
qemu=(qemu-system-x86_64 -accel tcg -m 2G -smp 2 -nographic -no-reboot
	-monitor none -nic none
	-kernel "$kernel" -initrd "$initrd"
	-append "console=ttyS0 panic=-1 oops=panic quiet $append"
	-serial "file:$dir/console.log" -serial stdio)

boot() {
	set +e
	timeout --foreground -k 10 "$timeout_s" "${qemu[@]}" </dev/null 2>"$dir/qemu.err" |
		tee "$dir/serial.raw" |
		awk '{ sub(/\r$/, "") }
		     /^==== gspace-vm dmesg begin ====/ { quiet = 1 }
		     !quiet { print; fflush() }'
	qemu_rc=${PIPESTATUS[0]}
	set -e
}

start=$(date +%s%N)
boot
# A kernel that crashes while booting, before init has run, has not met
# the module yet: under TCG, Debian's 6.12 kernel now and then takes an
# int3 Oops in its own boot-time text patching (sched_clock_cpu). Boot
# once more, and say so; a second crash fails as any other.
if ! grep -q '^# vm: init started' "$dir/serial.raw" 2>/dev/null &&
   grep -qE 'Oops|Kernel panic' "$dir/console.log" 2>/dev/null; then
	mv -f "$dir/console.log" "$dir/console-boot1.log"
	echo "# vm: the kernel crashed while booting, before init ran (the module was not loaded): $(grep -m 1 -oE 'Oops: [^[]*|RIP: [^ ]* [^ ]*' "$dir/console-boot1.log" | head -n 1); its console is $dir/console-boot1.log; booting once more"
	boot
fi
end=$(date +%s%N)
secs=$(((end - start) / 1000000000)).$(((end - start) / 100000000 % 10))
echo "# vm: qemu ran ${secs}s (TCG, timeout ${timeout_s}s), logs in $dir"

tr -d '\r' <"$dir/serial.raw" >"$dir/payload.log"
rm -f "$dir/serial.raw"
failed=0

marker=$(grep -m 1 '^==== gspace-vm exit status=' "$dir/payload.log" || true)
if [ -n "$marker" ]; then
	echo "ok - vm: ran to the end"
	status=${marker#*status=}
	status=${status%% *}
	[ "$status" = 0 ] || failed=1
else
	failed=1
	if [ "$qemu_rc" = 124 ] || [ "$qemu_rc" = 137 ]; then
		why="the VM was still running after ${timeout_s}s and was killed (hang? raise the timeout with -t)"
	elif [ "$qemu_rc" != 0 ]; then
		why="qemu failed with status $qemu_rc"
	else
		why="the VM stopped before init finished (kernel panic or oops?)"
	fi
	echo "not ok - vm: ran to the end: no exit marker: $why"
	echo "# vm: last lines of the kernel console ($dir/console.log):"
	tail -n 20 "$dir/console.log" 2>/dev/null | tr -d '\r' | sed 's/^/#   /'
	if [ -s "$dir/qemu.err" ]; then
		echo "# vm: qemu said:"
		sed 's/^/#   /' "$dir/qemu.err"
	fi
fi

# The kernel log: init's dmesg dump, or, when the VM never got that far,
# the console log, which has every message logged after the payload started.
sed -n '/^==== gspace-vm dmesg begin ====/,/^==== gspace-vm dmesg end ====/p' \
	"$dir/payload.log" | sed '1d;$d' >"$dir/dmesg.log"
src=$dir/dmesg.log
if ! grep -q 'gspace-vm: payload ends' "$src"; then
	tr -d '\r' <"$dir/console.log" >"$dir/dmesg.log" 2>/dev/null || true
	src="$dir/console.log"
fi
bad=$(awk 'f; /gspace-vm: payload starts/ { f = 1 }' "$dir/dmesg.log" |
	grep -E -n -A 12 "$BAD" || true)
if [ -z "$bad" ] && grep -q 'gspace-vm: payload starts' "$dir/dmesg.log"; then
	echo "ok - kernel log clean"
elif [ -z "$bad" ]; then
	echo "not ok - kernel log clean: no kernel log to check (see $src)"
	failed=1
else
	echo "not ok - kernel log clean: bad lines in $src:"
	echo "$bad" | head -n 60 | sed 's/^/#   /'
	failed=1
fi
exit $failed
