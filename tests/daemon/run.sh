#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The daemon suite (make check-daemon), TAP on stdout and nothing else:
#  1. gspaced's command line and config file: bad input exits 2 naming
#     the line; a stale socket is replaced; a second daemon on a live
#     socket is refused and the first goes on serving
#  2. every selftest against a sanitized gspaced (GSPACE_TRANSPORT=daemon),
#     its TAP lines prefixed "daemon: "
#  3. gspaced's own tests (tests/daemon/*.c)
#  4. SIGTERM: gspaced exits 0, removes its socket, and the sanitizers
#     reported nothing
# Usage: run.sh SELFTEST... -- TEST...   (GSPACED: the sanitized daemon)
set -u
GSPACED=${GSPACED:?GSPACED must name the gspaced binary}
selftests=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do selftests+=("$1"); shift; done
[ $# -gt 0 ] && shift
tmp=$(mktemp -d /tmp/gsp-check-daemon.XXXXXX) || exit 1
# Searchable, so the test's child that becomes nobody reaches the socket.
chmod 755 "$tmp"
daemon_pid=
cleanup() {
	[ -n "$daemon_pid" ] && kill -9 "$daemon_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM
export ASAN_OPTIONS=abort_on_error=0:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
check() { if [ "$1" = 0 ]; then ok "$2"; else notok "$2"; fi; }
# The selftest harness numbers its lines; ours carry a prefix instead.
prefix_tap() {
	sed -n -e 's/^ok [0-9]* - /ok - daemon: /p' \
	       -e 's/^not ok [0-9]* - /not ok - daemon: /p' -e '/^#/p'
}

# 1: command line and config.
"$GSPACED" --bogus >/dev/null 2>"$tmp/err"
check "$([ $? = 2 ] && grep -q usage "$tmp/err"; echo $?)" \
	"gspaced --bogus: exit 2 with the usage"
"$GSPACED" --foreground --config "$tmp/none.conf" >/dev/null 2>"$tmp/err"
check "$([ $? = 2 ] && grep -q 'none.conf' "$tmp/err"; echo $?)" \
	"gspaced --config MISSING: exit 2 naming the file"
mkfifo "$tmp/fifo.conf" && mkdir "$tmp/dir.conf"
for c in fifo dir; do
	timeout 10 "$GSPACED" --foreground --config "$tmp/$c.conf" \
		--socket "$tmp/bad.sock" >/dev/null 2>"$tmp/err"
	rc=$?
	check "$([ $rc = 2 ] && grep -q "$c.conf: not a regular file" "$tmp/err"; echo $?)" \
		"gspaced --config on a $c: exit 2 naming it, at once (exit $rc)"
done
long=$tmp/$(printf 's%.0s' $(seq 100)).sock
: >"$tmp/empty.conf"
for fg in --foreground ""; do
	timeout 10 "$GSPACED" $fg --socket "$long" \
		--config "$tmp/empty.conf" >/dev/null 2>"$tmp/err"
	rc=$?
	check "$([ $rc = 2 ] && grep -q 'socket path too long' "$tmp/err"; echo $?)" \
		"gspaced ${fg:-detached} --socket too long: exit 2 (exit $rc)"
done
bad_conf() {	# bad_conf DESCRIPTION LINE-NUMBER TEXT
	printf '%b' "$3" >"$tmp/bad.conf"
	timeout 10 "$GSPACED" --foreground --config "$tmp/bad.conf" \
		--socket "$tmp/bad.sock" >/dev/null 2>"$tmp/err"
	local rc=$?
	check "$([ $rc = 2 ] && grep -q "bad.conf:$2:" "$tmp/err"; echo $?)" \
		"config $1: exit 2, line $2 named (exit $rc: $(head -c 120 "$tmp/err"))"
}
bad_conf "unknown key" 2 '# comment\nfrobnicate = 1\n'
bad_conf "line without =" 1 'policy band\n'
bad_conf "bad policy" 3 '\n\npolicy = lottery\n'
bad_conf "period_us below 1 ms" 1 'period_us = 10\n'
bad_conf "watchdog_ms 0" 1 'watchdog_ms = 0\n'
bad_conf "unknown group" 1 'lc_groups = no-such-group-gspace\n'
bad_conf "empty uid entry" 1 'lc_uids = 0,,1000\n'
bad_conf "partition without K" 2 'policy = band\npartition = 8\n'
bad_conf "partition N above 256" 1 'partition = 257,1\n'
bad_conf "partition K above 32" 1 'partition = 8,33\n'
bad_conf "partition with one of N, K zero" 1 'partition = 0,2\n'
bad_conf "partition with a blank after the comma" 1 'partition = 8, 2\n'
printf 'partition = 8,x\n' >"$tmp/bad.conf"
timeout 10 "$GSPACED" --foreground --config "$tmp/bad.conf" \
	--socket "$tmp/bad.sock" >/dev/null 2>"$tmp/err"
check "$([ $? = 2 ] && grep -q 'write N,K: N 1..256 SMs, K 1..32 slots, 0,0 (off), or auto' "$tmp/err"; echo $?)" \
	"config partition = 8,x: the message says how to write it"
bad_conf "search unknown" 1 'search = fast\n'
bad_conf "search off, not a method" 1 'search = off\n'
bad_conf "partition Auto in capitals" 1 'partition = Auto\n'
printf 'search = fast\n' >"$tmp/bad.conf"
timeout 10 "$GSPACED" --foreground --config "$tmp/bad.conf" \
	--socket "$tmp/bad.sock" >/dev/null 2>"$tmp/err"
check "$([ $? = 2 ] && grep -q 'write ns, gns, srs, nn_ns, nn_gns, nn_srs, nn, lr or grid' "$tmp/err"; echo $?)" \
	"config search = fast: the message names the methods"
bad_conf "protect unknown" 1 'protect = always\n'
bad_conf "protect in capitals" 1 'protect = Reserved\n'
bad_conf "protect preempt, not preemptive" 2 '# ABI 1.4\nprotect = preempt\n'
bad_conf "predict_lead_us 0" 1 'predict_lead_us = 0\n'
bad_conf "tenant_max_jobs 0" 1 'tenant_max_jobs = 0\n'
bad_conf "tenant_max_jobs above 16384" 2 '\ntenant_max_jobs = 16385\n'
bad_conf "tenant_max_fences not a number" 1 'tenant_max_fences = many\n'
bad_conf "tenant_max_waits negative" 1 'tenant_max_waits = -1\n'
bad_conf "predict_lead_us above 100 ms" 1 'predict_lead_us = 100001\n'
printf 'protect = sometimes\n' >"$tmp/bad.conf"
timeout 10 "$GSPACED" --foreground --config "$tmp/bad.conf" \
	--socket "$tmp/bad.sock" >/dev/null 2>"$tmp/err"
check "$([ $? = 2 ] && grep -q 'write reactive, reserved, predictive or preemptive$' "$tmp/err"; echo $?)" \
	"config protect = sometimes: the message names the four modes"
printf 'sim_devices = 0\nlease_devices = 0\n' >"$tmp/bad.conf"
timeout 10 "$GSPACED" --foreground --config "$tmp/bad.conf" \
	--socket "$tmp/bad.sock" >/dev/null 2>"$tmp/err"
check "$([ $? = 2 ] && grep -q 'sim_devices + lease_devices' "$tmp/err"; echo $?)" \
	"config with no device at all: exit 2"

sock=$tmp/gspaced.sock
cat >"$tmp/gspaced.conf" <<CONF
# As the VM loads gspace.ko: two sim devices, then one lease device.
sim_devices = 2
lease_devices = 1
lc_uids = $(id -u)
# test_partition expects them; the selftests restore what they change.
partition = 8,2
protect = predictive
predict_lead_us = 700
CONF
# Returns once the daemon listens: it logs "listening on" only then, with
# its socket in place. A socket on the path proves nothing: it may be the
# stale one this daemon has yet to replace, and a test that went on then
# would race the daemon's start (a loaded machine lost that race once).
start_daemon() {
	"$GSPACED" --foreground --config "$tmp/gspaced.conf" --socket "$sock" \
		2>"$tmp/gspaced.log" &
	daemon_pid=$!
	for _ in $(seq 1200); do
		grep -qF "listening on $sock:" "$tmp/gspaced.log" && return 0
		kill -0 "$daemon_pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
# A daemon killed by SIGKILL leaves its socket behind: the next replaces it.
if start_daemon; then
	kill -9 "$daemon_pid"
	wait "$daemon_pid" 2>/dev/null
	daemon_pid=
fi
check "$([ -S "$sock" ]; echo $?)" "SIGKILLed gspaced leaves a stale socket"
stale_ino=$(stat -c %i "$sock" 2>/dev/null)
if ! start_daemon; then
	notok "gspaced did not start on $sock"
	sed 's/^/# /' "$tmp/gspaced.log" | tail -n 20
	exit 0
fi
ino=$(stat -c %i "$sock" 2>/dev/null)
check "$([ -n "$ino" ] && [ "$ino" != "$stale_ino" ]; echo $?)" \
	"gspaced starts over a stale socket and listens on a new one"
timeout 60 "$GSPACED" --foreground --config "$tmp/gspaced.conf" \
	--socket "$sock" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && grep -qF "another gspaced (pid $daemon_pid) is listening on $sock;" "$tmp/err"; then
	ok "a second gspaced on a live socket: refused, naming the first's pid"
else
	notok "a second gspaced on a live socket: refused, naming the first's pid"
	echo "# exit $rc"
	sed 's/^/# /' "$tmp/err" | head -n 20
fi
# Everything below talks to the first: without it, stop here rather than
# fail (or skip) every test that cannot connect.
if ! kill -0 "$daemon_pid" 2>/dev/null ||
   [ "$(stat -c %i "$sock" 2>/dev/null)" != "$ino" ]; then
	notok "the first gspaced still serves its own socket"
	sed 's/^/# /' "$tmp/gspaced.log" | tail -n 20
	exit 0
fi
ok "the first gspaced still serves its own socket"

# 2 and 3: the tests.
export GSPACE_TRANSPORT=daemon GSP_SOCKET=$sock
for t in "${selftests[@]}"; do
	n=$(basename "$t")
	out=$(timeout 600 "$t" 2>"$tmp/stderr")
	rc=$?
	printf '%s\n' "$out" | prefix_tap
	if [ $rc != 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'; then
		notok "daemon: $n exited with status $rc"
		sed 's/^/# /' "$tmp/stderr" | tail -n 20
	fi
done
for t in "$@"; do
	n=$(basename "$t")
	out=$(timeout 300 "$t" 2>"$tmp/stderr")
	rc=$?
	printf '%s\n' "$out" | sed -n -e 's/^\(\(not \)\{0,1\}ok\) [0-9]* - /\1 - daemon: '"$n"': /p' -e '/^#/p'
	if [ $rc != 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'; then
		notok "daemon: $n exited with status $rc"
		sed 's/^/# /' "$tmp/stderr" | tail -n 20
	fi
done

# 4: shutdown.
kill -TERM "$daemon_pid"
wait "$daemon_pid"
rc=$?
daemon_pid=
check "$([ $rc = 0 ] && [ ! -e "$sock" ]; echo $?)" \
	"SIGTERM: gspaced exits 0 (exit $rc) and removes its socket"
if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$tmp/gspaced.log"; then
	notok "gspaced: the sanitizers reported nothing"
	grep -E -A12 'ERROR: |runtime error:' "$tmp/gspaced.log" | sed 's/^/# /' | head -n 40
else
	ok "gspaced: the sanitizers reported nothing"
fi
exit 0
