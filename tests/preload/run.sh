#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The interposer's tests: test_preload's scenarios under LD_PRELOAD with
# the fake libcuda, with and without the fake libgsp next to the
# interposer, the warnings each prints, and gsp-run's argument checks.
# Prints TAP only.
set -u
B=${BUILD:-build}
T=$B/tests/preload
tmp=$(mktemp -d)
daemon_pid=
trap '[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null; rm -rf "$tmp"' EXIT
mkdir -p "$tmp/arb" "$tmp/noarb"
# The interposer loads libgsp.so.1 from its own directory first.
cp "$B/lib/libgsp_preload.so" "$T/fake_gsp/libgsp.so.1" "$tmp/arb/"
cp "$B/lib/libgsp_preload.so" "$tmp/noarb/"

# scenario SCENARIO DIR [ENV...]: runs one scenario of $prog (test_preload
# unless set), its stderr into $tmp/err
scenario() {
	local s=$1 dir=$2
	shift 2
	env -u LD_LIBRARY_PATH "$@" LD_LIBRARY_PATH="$T/cuda" \
		LD_PRELOAD="$tmp/$dir/libgsp_preload.so" \
		timeout 60 "${prog:-$T/test_preload}" "$s" 2>"$tmp/err" |
		grep -v '^1\.\.'
	local rc=${PIPESTATUS[0]}
	if [ "$rc" -gt 1 ]; then
		echo "not ok - preload: scenario $s exited with status $rc"
		sed 's/^/# /' "$tmp/err"
	fi
}

# count PATTERN N WHAT: exactly N stderr lines match
count() {
	local n
	n=$(grep -c -- "$1" "$tmp/err")
	if [ "$n" -eq "$2" ]; then
		echo "ok - preload: $3"
	else
		echo "not ok - preload: $3 (saw $n)"
		sed 's/^/# /' "$tmp/err"
	fi
}

# stat NAME: a counter of the last GSP_STATS_FILE
stat() { sed -n "s/^$1 //p" "$tmp/stats" 2>/dev/null; }

scenario table arb
count 'passing through cuMemcpyHtoD' 1 "table: a variant without a wrapper warns once, asked for twice"
scenario order arb
scenario sync arb
scenario gate arb
scenario lease arb GSP_STATS_FILE="$tmp/stats" LEASE_RUN_ON=1
[ "$(stat lease_run_on)" = 1 ] && [ "$(stat leases)" = 1 ] &&
	echo "ok - preload: lease: alone, one lease ran past its quantum (lease_run_on 1)" ||
	{ echo "not ok - preload: lease: alone, one lease ran past its quantum"; sed 's/^/# /' "$tmp/stats"; }
scenario lease arb GSP_RUN_ON=0
scenario lease arb LEASE_WAITING=1 GSP_STATS_FILE="$tmp/stats"
[ "$(stat lease_run_on)" = 0 ] &&
	echo "ok - preload: lease: with a job waiting, no lease ran on" ||
	{ echo "not ok - preload: lease: with a job waiting, no lease ran on"; sed 's/^/# /' "$tmp/stats"; }
# GSP_QUANTUM_US=auto: 20 ms shared by the tenants that want the engine,
# 2..5 ms each: 5 ms with one waiting, 2 ms with nine; 2 ms when given.
for w in 1:auto:7:10 9:auto:17:21 1:2000:17:21; do
	IFS=: read -r n q lo hi <<<"$w"
	scenario lease arb LEASE_WAITING="$n" GSP_QUANTUM_US="$q" GSP_STATS_FILE="$tmp/stats"
	l=$(stat leases)
	[ "${l:-0}" -ge "$lo" ] && [ "${l:-0}" -le "$hi" ] &&
		echo "ok - preload: lease: GSP_QUANTUM_US=$q, $n waiting: 40 ms of work in $l leases ($lo..$hi)" ||
		{ echo "not ok - preload: lease: GSP_QUANTUM_US=$q, $n waiting: 40 ms of work in $lo..$hi leases (saw ${l:-none})"; sed 's/^/# /' "$tmp/stats"; }
done
if grep -q '^launches 40$' "$tmp/stats" 2>/dev/null &&
   grep -q '^deferred 40$' "$tmp/stats"; then
	echo "ok - preload: GSP_STATS_FILE has the 40 launches, all deferred"
else
	echo "not ok - preload: GSP_STATS_FILE has the 40 launches, all deferred"
fi
scenario lc arb GSP_CLASS=lc
# CuMAS task heads and one lease per engine (test_task_heads.c).
prog=$T/test_task_heads scenario heads arb GSP_STATS_FILE="$tmp/stats"
th=$(sed -n 's/^task_heads //p' "$tmp/stats" 2>/dev/null)
la=$(sed -n 's/^lease_ahead //p' "$tmp/stats" 2>/dev/null)
[ "${th:-0}" -ge 3 ] && [ "${th:-0}" -le 4 ] && [ "${la:-0}" -ge 12 ] &&
	echo "ok - preload: heads: GSP_STATS_FILE counts $th task heads, $la leases asked for ahead" ||
	{ echo "not ok - preload: heads: GSP_STATS_FILE counts 3 or 4 task heads, 12 or more leases ahead (saw ${th:-none}, ${la:-none})"; sed 's/^/# /' "$tmp/stats"; }
prog=$T/test_task_heads scenario heads arb GSP_TASK_HEADS=0 HEADS_WANT=0
prog=$T/test_task_heads scenario ahead arb
prog=$T/test_task_heads scenario ahead arb GSP_LEASE_AHEAD=0 AHEAD_WANT=0
prog=$T/test_task_heads scenario order arb
prog=$T/test_task_heads scenario order arb GSP_LEASE_AHEAD=0 GSP_TASK_HEADS=0
# ... in real time (ops take their time: closing leases polled, the
# next lease asked for GSP_AHEAD_US before the last is due): the order.
prog=$T/test_task_heads scenario order arb FAKE_CUDA_REALTIME=1 TH_E2E=1
# stats_are NAME=VALUE...: every counter as given
stats_are() {
	local kv
	for kv in "$@"; do
		[ "$(stat "${kv%%=*}")" = "${kv#*=}" ] || return 1
	done
}
scenario die arb GSP_STATS_FILE="$tmp/stats"
count 'SUBMIT: lost the arbiter .*holding the program.s GPU work' 1 "die: the arbiter gone: said once, with what the interposer does"
count 'the arbiter is back after' 1 "die: the arbiter back: said once"
count 'passing every CUDA call through' 0 "die: no pass-through"
stats_are rejoins=1 rejoin_lost=1 passthroughs=0 &&
	echo "ok - preload: die: GSP_STATS_FILE counts one rejoin, lost, and no pass-through" ||
	{ echo "not ok - preload: die: GSP_STATS_FILE counts one rejoin, lost"; sed 's/^/# /' "$tmp/stats"; }
scenario die arb GSP_FAIL_OPEN=1
count 'SUBMIT failed .*passing every CUDA call through from now on' 1 "die: GSP_FAIL_OPEN=1: one warning, pass-through from then on"
for how in hung watchdog; do
	scenario $how arb GSP_STATS_FILE="$tmp/stats"
	stats_are rejoins=1 rejoin_$how=1 passthroughs=0 launches=30 &&
		echo "ok - preload: $how: GSP_STATS_FILE counts one rejoin ($how), no pass-through" ||
		{ echo "not ok - preload: $how: GSP_STATS_FILE counts one rejoin ($how)"; sed 's/^/# /' "$tmp/stats"; }
done
count 'COMPLETE: a lease outlived the arbiter.s watchdog without being renewed' 1 "watchdog: said once"
scenario hung arb
count 'SUBMIT: the arbiter marked this tenant hung' 1 "hung: said once"
count '^gsp: ' 1 "hung: nothing else said"
scenario lcrejoin arb GSP_CLASS=lc
# Refused mid-run (test_modes.c): the arbiter marks the tenant hung and
# refuses its reopen.
prog=$T/test_modes scenario lost arb FAKE_GSP_REFUSE=1
count 'rejoining the arbiter failed .*refusing the program.s GPU work from now on' 1 "refuse: said once, with what the interposer does"
prog=$T/test_modes scenario lost arb FAKE_GSP_REFUSE=1 GSP_FAIL_OPEN=1 REFUSE_WANT=pass
prog=$T/test_modes scenario fork arb
prog=$T/test_modes scenario fork arb GSP_FAIL_OPEN=1 REFUSE_WANT=pass
prog=$T/test_modes scenario capture arb
count '^gsp: ' 0 "capture: the first cuStreamBeginCapture is wrapped: nothing said"
scenario noarb noarb NOARB=refuse GSP_STATS_FILE="$tmp/stats"
count '^gsp: ' 1 "noarb: no libgsp gives exactly one warning"
count 'refusing the program.s GPU work.*GSP_FAIL_OPEN=1' 1 "noarb: the warning says the work is refused, and how to run it anyway"
stats_are refused=3 passthroughs=1 &&
	echo "ok - preload: noarb: GSP_STATS_FILE counts the 3 refused calls; only the event record passed" ||
	{ echo "not ok - preload: noarb: GSP_STATS_FILE counts the 3 refused calls"; sed 's/^/# /' "$tmp/stats"; }
scenario noarb noarb NOARB=pass GSP_FAIL_OPEN=1
count 'GSP_FAIL_OPEN=1: passing every CUDA call through from now on' 1 "noarb: GSP_FAIL_OPEN=1 passes through, said once"
scenario noarb arb NOARB=refuse GSP_WEIGHT=abc
count 'GSP_WEIGHT=abc is not a number' 1 "a bad GSP_WEIGHT is named on stderr"
count 'settings above are not valid.*refusing' 1 "a bad GSP_WEIGHT: the program's GPU work is refused"
scenario noarb arb NOARB=refuse GSP_WEIGHT=abc GSP_FAIL_OPEN=1
count 'settings above are not valid.*refusing' 1 "a bad GSP_WEIGHT is refused even with GSP_FAIL_OPEN=1"
scenario noarb arb NOARB=pass GSP_DISABLE=1
count '^gsp: ' 0 "GSP_DISABLE=1 passes through silently"

# Against gspaced (a lease device) with the real libgsp next to the
# interposer in $B/lib.
e2e() {
	local s=$1
	shift
	env -u LD_LIBRARY_PATH "$@" LD_LIBRARY_PATH="$T/cuda" \
		LD_PRELOAD="$B/lib/libgsp_preload.so" GSP_ARBITER=daemon \
		GSP_SOCKET="$tmp/gspaced.sock" GSP_DEVICE=1 \
		GSP_STATS_FILE="$tmp/stats" \
		timeout 60 "${prog:-$T/test_preload}" "$s" 2>"$tmp/err" | grep -v '^1\.\.'
}
start_gspaced() {
	cat >"$tmp/gspaced.conf" <<CONF
sim_devices = 1
lease_devices = 1
lc_uids = $(id -u)
CONF
	rm -f "$tmp/gspaced.sock"
	"$B/gspaced" --foreground --config "$tmp/gspaced.conf" \
		--socket "$tmp/gspaced.sock" >"$tmp/gspaced.log" 2>&1 &
	daemon_pid=$!
	for _ in $(seq 100); do
		[ -S "$tmp/gspaced.sock" ] && return 0
		sleep 0.05
	done
	return 1
}
if [ ! -x "$B/gspaced" ] || [ ! -e "$B/lib/libgsp.so.1" ]; then
	echo "ok - preload: end-to-end with gspaced # SKIP $B/gspaced or $B/lib/libgsp.so.1 is not built"
elif ! start_gspaced; then
	echo "not ok - preload: gspaced did not start"
	sed 's/^/# /' "$tmp/gspaced.log" | tail -n 20
else
	e2e e2e GSP_RUN_ON=0
	l=$(stat leases)
	[ "${l:-0}" -ge 2 ] && ! grep -q . "$tmp/err" &&
		echo "ok - preload: e2e: BE launches took $l leases from gspaced, no warning" ||
		{ echo "not ok - preload: e2e: BE leases from gspaced (leases ${l:-none})"; sed 's/^/# /' "$tmp/err"; }
	e2e e2e
	l=$(stat leases) r=$(stat lease_run_on)
	[ "${r:-0}" -ge 1 ] && [ "${l:-0}" -ge "${r:-0}" ] && ! grep -q . "$tmp/err" &&
		echo "ok - preload: e2e: alone, $r of $l leases from gspaced ran past their quantum, no warning" ||
		{ echo "not ok - preload: e2e: alone, a lease from gspaced ran past its quantum (leases ${l:-none}, run on ${r:-none})"; sed 's/^/# /' "$tmp/err"; }
	e2e e2e GSP_CLASS=lc
	j=$(stat jobs)
	[ "$(stat lc_ops)" = 100 ] && [ "${j:-0}" -ge 1 ] && ! grep -q . "$tmp/err" &&
		echo "ok - preload: e2e: 100 LC launches reported to gspaced in $j jobs, no warning" ||
		{ echo "not ok - preload: e2e: LC launches reported to gspaced (jobs ${j:-none})"; sed 's/^/# /' "$tmp/err"; }
	e2e flood FAKE_CUDA_REALTIME=1
	grep -q . "$tmp/err" && { echo "not ok - preload: flood: no warning"; sed 's/^/# /' "$tmp/err"; }
	# Task heads and leases per engine against the core's CuMAS pick
	# (fifo, reorder on), in real time: driver order, no warning.
	env GSP_ARBITER=daemon GSP_SOCKET="$tmp/gspaced.sock" "$B/gspctl" set reorder 1 >/dev/null 2>&1 ||
		echo "not ok - preload: gspctl set reorder 1"
	prog=$T/test_task_heads e2e order FAKE_CUDA_REALTIME=1 TH_E2E=1
	th=$(stat task_heads) la=$(stat lease_ahead)
	[ "${th:-0}" -ge 4 ] && [ "${la:-0}" -ge 8 ] && stats_are rejoins=0 passthroughs=0 &&
		! grep -q . "$tmp/err" &&
		echo "ok - preload: e2e: copy, kernel, copy on two streams under gspaced with reorder: $th task heads, $la leases ahead, no warning" ||
		{ echo "not ok - preload: e2e: task heads under gspaced with reorder (heads ${th:-none}, ahead ${la:-none})"; sed 's/^/# /' "$tmp/err" "$tmp/stats"; }
	env GSP_ARBITER=daemon GSP_SOCKET="$tmp/gspaced.sock" "$B/gspctl" set reorder 0 >/dev/null 2>&1

	# Kernels longer than the watchdog (50 ms): 300 ms each, one a lease.
	GSPCTL=(env GSP_ARBITER=daemon GSP_SOCKET="$tmp/gspaced.sock" "$B/gspctl")
	"${GSPCTL[@]}" set watchdog_ms 50 || echo "not ok - preload: gspctl set watchdog_ms 50"
	rm -f "$tmp/hold.ready" "$tmp/hold.go"
	e2e long FAKE_CUDA_REALTIME=1 E2E_HOLD="$tmp/hold" &
	e2e_pid=$!
	for _ in $(seq 400); do [ -e "$tmp/hold.ready" ] && break; sleep 0.05; done
	"${GSPCTL[@]}" status >"$tmp/status" 2>&1
	touch "$tmp/hold.go"
	wait $e2e_pid
	r=$(stat lease_renewals)
	[ "${r:-0}" -ge 10 ] && stats_are rejoins=0 passthroughs=0 launches=3 &&
		! grep -q . "$tmp/err" &&
		echo "ok - preload: long: 300 ms kernels under a 50 ms watchdog: $r renewals, no rejoin, no pass-through, no warning" ||
		{ echo "not ok - preload: long: 300 ms kernels under a 50 ms watchdog (renewals ${r:-none})"; sed 's/^/# /' "$tmp/err" "$tmp/stats"; }
	# Its row, the one tenant of device 1 (gspctl's own is marked *):
	# compute ms (column 11) about the 900 ms it ran, renewals (16), not
	# hung.
	row=$(awk '$3 == 1 && $2 !~ /[*]/' "$tmp/status")
	ms=$(echo "$row" | awk '{ printf "%d", $11 }')
	rn=$(echo "$row" | awk '{ print $16 }')
	[ -n "$row" ] && [ "${ms:-0}" -ge 850 ] && [ "${ms:-0}" -le 1100 ] &&
		[ "${rn:-0}" -ge 10 ] && ! echo "$row" | grep -q HUNG &&
		echo "ok - preload: long: gspaced charged ${ms} ms for the three 300 ms kernels, counts $rn renewals, not hung" ||
		{ echo "not ok - preload: long: gspaced's row for the tenant (charged ${ms:-?} ms, renewals ${rn:-?})"; sed 's/^/# /' "$tmp/status"; }
	# The same with renewals off: every lease outlives the watchdog.
	e2e long FAKE_CUDA_REALTIME=1 GSP_RENEW_US=0
	r=$(stat rejoin_watchdog)
	[ "${r:-0}" -ge 1 ] && stats_are lease_renewals=0 passthroughs=0 launches=3 &&
		echo "ok - preload: long, renewals off: the watchdog ends leases, the tenant rejoins ($r) and stays scheduled, no pass-through" ||
		{ echo "not ok - preload: long, renewals off: rejoins after the watchdog (${r:-none})"; sed 's/^/# /' "$tmp/err" "$tmp/stats"; }
	count 'a lease outlived the arbiter.s watchdog without being renewed' 1 "long, renewals off: said once"
	count 'passing every CUDA call through' 0 "long, renewals off: no pass-through"
	"${GSPCTL[@]}" set watchdog_ms 2000

	# gspaced killed mid-run, and started again 0.5 s later.
	( sleep 0.3; kill "$daemon_pid"; sleep 0.5; start_gspaced ) &
	e2e e2e E2E_SLEEP_US=10000
	wait
	daemon_pid=$(cat "$tmp/gspaced.sock.lock" 2>/dev/null)
	count 'lost the arbiter' 1 "e2e: gspaced killed mid-run: said once"
	count 'the arbiter is back after' 1 "e2e: gspaced started again: said once"
	count 'passing every CUDA call through' 0 "e2e: gspaced restarted: no pass-through"
	stats_are rejoin_lost=1 passthroughs=0 &&
		echo "ok - preload: e2e: gspaced restarted: one rejoin, the program finishes scheduled" ||
		{ echo "not ok - preload: e2e: gspaced restarted: one rejoin"; sed 's/^/# /' "$tmp/stats"; }

	# test_arbiter.c: the program SIGKILLs gspaced mid-run (a BE tenant
	# with work queued, an LC one while its charger talks to it).
	arbiter() {
		disown "$daemon_pid" 2>/dev/null
		env -u LD_LIBRARY_PATH "$@" LD_LIBRARY_PATH="$T/cuda" \
			LD_PRELOAD="$B/lib/libgsp_preload.so" GSP_ARBITER=daemon \
			GSP_SOCKET="$tmp/gspaced.sock" GSP_DEVICE=1 \
			GSP_STATS_FILE="$tmp/stats" ARB_PID="$daemon_pid" \
			timeout 30 "$T/test_arbiter" 2>"$tmp/err" | grep -v '^1\.\.'
		local rc=${PIPESTATUS[0]}
		[ "$rc" -le 1 ] || { echo "not ok - preload: test_arbiter $* exited with status $rc (124: a hang)"; sed 's/^/# /' "$tmp/err"; }
		wait
		# The program killed it: the restart's, or a new one.
		if [ -e "$tmp/arb.back" ]; then
			daemon_pid=$(cat "$tmp/gspaced.sock.lock" 2>/dev/null)
			rm -f "$tmp/arb.back"
		else
			start_gspaced || echo "not ok - preload: gspaced did not start again"
		fi
	}
	for c in be lc; do
		# Started again 0.3 s after the kill: rejoin, nothing refused.
		rm -f "$tmp/arb.killed" "$tmp/arb.back"
		( for _ in $(seq 100); do [ -e "$tmp/arb.killed" ] && break; sleep 0.05; done
		  sleep 0.3; start_gspaced; touch "$tmp/arb.back" ) &
		arbiter GSP_CLASS=$c ARB_WANT=rejoin ARB_HOLD="$tmp/arb"
		count 'lost the arbiter' 1 "arbiter ($c): gspaced SIGKILLed mid-run: said once"
		count 'the arbiter is back after' 1 "arbiter ($c): gspaced started again: said once"
		stats_are rejoin_lost=1 passthroughs=0 refused=0 &&
			echo "ok - preload: arbiter ($c): gspaced restarted: one rejoin, nothing passed through or refused" ||
			{ echo "not ok - preload: arbiter ($c): gspaced restarted: one rejoin"; sed 's/^/# /' "$tmp/stats" "$tmp/err"; }
		# Gone for good: refused after GSP_REJOIN_WAIT_MS.
		arbiter GSP_CLASS=$c ARB_WANT=refuse GSP_REJOIN_WAIT_MS=300
		count 'the arbiter has not come back in 0.3 s (GSP_REJOIN_WAIT_MS).*refusing' 1 "arbiter ($c): gone for good: said once, with what the interposer does"
		# GSP_FAIL_OPEN=1: passes through from the loss on.
		arbiter GSP_CLASS=$c ARB_WANT=pass GSP_FAIL_OPEN=1
		count 'GSP_FAIL_OPEN=1: passing every CUDA call through' 1 "arbiter ($c): GSP_FAIL_OPEN=1: said once"
	done
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
	sleep 0.2
fi

# Spatial sharing (Documentation/spatial.rst) against the fakes.
scenario spatial arb FAKE_GSP_PART=2,1 GSP_STATS_FILE="$tmp/stats"
count 'spatial sharing on' 1 "spatial: the mode is reported once"
count 'kernel kgs runs unchanged: grid-sync (line 22: reads %envreg1' 1 "spatial: a grid-sync kernel launched three times is reported once, at its line in the image"
count 'kernel kelf runs unchanged: no PTX' 1 "spatial: a kernel of an ELF-only image launched twice is reported once"
count 'kernel k1 runs unchanged: a cooperative launch' 1 "spatial: a cooperative launch is reported"
count 'MPS is off' 0 "spatial: MPS on: no MPS warning"
if grep -q '^spatial_launches 5$' "$tmp/stats" &&
   grep -q '^spatial_topups 2$' "$tmp/stats" &&
   grep -q '^spatial_orphans 0$' "$tmp/stats" &&
   grep -q '^spatial_lost 0$' "$tmp/stats" &&
   grep -q '^spatial_one_wave 1$' "$tmp/stats" &&
   grep -q '^spatial_fallback_xform-grid-sync 3$' "$tmp/stats" &&
   grep -q '^spatial_fallback_no-ptx 2$' "$tmp/stats" &&
   grep -q '^spatial_fallback_cooperative 1$' "$tmp/stats"; then
	echo "ok - preload: spatial: GSP_STATS_FILE counts transformed, one-wave and top-up launches, no lost job, and fallbacks by reason"
else
	echo "not ok - preload: spatial: GSP_STATS_FILE counts transformed, one-wave and top-up launches, no lost job, and fallbacks by reason"
	sed 's/^/# /' "$tmp/stats"
fi
if grep -q '^spatial_waited 5$' "$tmp/stats"; then
	echo "ok - preload: spatial: GSP_STATS_FILE counts the waited launches"
else
	echo "not ok - preload: spatial: GSP_STATS_FILE counts the waited launches"
fi
# Kept jobs: asked for, or reserved; and a waiter that cannot be
# launched (the launch waits on the host).
scenario spatial arb FAKE_GSP_PART=2,1 GSP_KEEP=1 GSP_STATS_FILE="$tmp/stats"
grep -q '^spatial_waited 0$' "$tmp/stats" &&
	echo "ok - preload: spatial: GSP_KEEP=1: no waited launch" ||
	echo "not ok - preload: spatial: GSP_KEEP=1: no waited launch"
scenario spatial arb FAKE_GSP_PART=2,1 FAKE_GSP_PROTECT=reserved GSP_STATS_FILE="$tmp/stats"
if grep -q '^spatial_orphans 1$' "$tmp/stats" &&
   grep -q '^spatial_topups 4$' "$tmp/stats"; then
	echo "ok - preload: spatial: reserved: GSP_STATS_FILE counts the orphaned job's top-up"
else
	echo "not ok - preload: spatial: reserved: GSP_STATS_FILE counts the orphaned job's top-up"
	sed 's/^/# /' "$tmp/stats"
fi
scenario spatial arb FAKE_GSP_PART=2,1 GSP_FILL=0
scenario spatial arb FAKE_GSP_PART=2,1 FAKE_CUDA_FAIL_FN=gsp_wait_done
count 'cannot launch the waiter' 1 "spatial: a waiter that cannot be launched: said once"
scenario spatial arb FAKE_GSP_PART=2,1 GSP_ONE_WAVE=0 GSP_STATS_FILE="$tmp/stats"
if grep -q '^spatial_launches 6$' "$tmp/stats" &&
   grep -q '^spatial_one_wave 0$' "$tmp/stats"; then
	echo "ok - preload: spatial: GSP_ONE_WAVE=0 counts no one-wave launch"
else
	echo "not ok - preload: spatial: GSP_ONE_WAVE=0 counts no one-wave launch"
	sed 's/^/# /' "$tmp/stats"
fi
scenario spatial arb FAKE_GSP_PART=2,1 FAKE_CUDA_NO_REGISTER=1 FAKE_CUDA_MPS=0
count 'cannot map the board into the GPU' 1 "spatial: the board cannot be registered: said once"
count 'MPS is off on CUDA device 0' 1 "spatial: MPS off: said once"
scenario spmoved arb FAKE_GSP_PART=2,1 FAKE_GSP_MOVED=1
count 'the arbiter.s board is a new page' 1 "spmoved: the board's move is said once"
# Its first two launches must share a lease: the fake holds their
# kernels until after the sync, and a lease that ended between them
# would wait for the first one for good (a hang under load, 1 in 4 here).
scenario ctlreset arb FAKE_GSP_PART=2,1 GSP_WATCH_US=1000000 GSP_QUANTUM_US=100000
scenario regcap arb FAKE_GSP_PART=2,1 GSP_LOG=1 GSP_STATS_FILE="$tmp/stats"
count 'kernel kr: its transformed form capped at 96 registers (it used 112): 5 blocks per SM, as the original, not 4' 1 "regcap: the cap is logged once, with the registers and blocks per SM"
count 'kernel ks: .*capped' 0 "regcap: a clone at the original's occupancy is not capped"
if grep -q '^spatial_regcap 1$' "$tmp/stats"; then
	echo "ok - preload: regcap: GSP_STATS_FILE counts one capped clone"
else
	echo "not ok - preload: regcap: GSP_STATS_FILE counts one capped clone"
	sed 's/^/# /' "$tmp/stats"
fi
scenario spvars arb FAKE_GSP_PART=2,1 GSP_STATS_FILE="$tmp/stats"
count 'kernel kh runs unchanged: its module variable hvar is not in the program' 1 "spvars: a variable missing in the program's module is reported once"
count 'kernel kt runs unchanged: it names the texture, sampler or surface tref' 1 "spvars: a texture reference is reported"
count 'kernel kv runs unchanged' 0 "spvars: kv is not reported"
if grep -q '^spatial_launches 5$' "$tmp/stats" &&
   grep -q '^spatial_fallback_module-variable 2$' "$tmp/stats" &&
   grep -q '^spatial_fallback_module-texture 1$' "$tmp/stats"; then
	echo "ok - preload: spvars: GSP_STATS_FILE counts module-variable and module-texture fallbacks"
else
	echo "not ok - preload: spvars: GSP_STATS_FILE counts module-variable and module-texture fallbacks"
	sed 's/^/# /' "$tmp/stats"
fi
# has FILE LINE...: every LINE is in FILE (the stats).
has() {
	local f=$1 l
	shift
	for l in "$@"; do
		grep -qx -- "$l" "$f" 2>/dev/null || return 1
	done
}
# Green contexts (simulated: a fake device of 132 SMs, see fake_cuda.c).
green_env=(FAKE_CUDA_SMS=132 FAKE_GSP_PART=60,1 GSP_STATS_FILE="$tmp/stats"
	FAKE_CUDA_GREEN_REPORT=1)
scenario green arb "${green_env[@]}"
count 'kernel kgs runs on a green context of 72 of 132 SMs while LC work runs' 1 "green: a confined kernel is reported once"
count 'kernels whose module load the interposer did not see run on a green context' 1 "green: confined unknown kernels are reported once"
count 'the 4 left are fewer than a green context.s 8; kernels that cannot be transformed wait' 1 "green: too few SMs left: said once"
count 'a cooperative launch cannot be confined to a green context' 1 "green: a cooperative launch: said once"
count 'primary context only' 1 "green: a context other than the primary one: said once"
count 'a launch with clusters of 16 blocks, more than the 8 SMs a green context keeps on one GPC' 1 "green: a cluster too large for a green context: said once"
count 'fake_cuda: at exit: 0 green contexts, 0 green streams, 0 events used with them alive' 1 "green: exit destroys the green contexts, their streams and events"
if has "$tmp/stats" 'spatial_green_launches 8' 'spatial_green_copies 2' \
	'spatial_green_unavailable 4' \
	'spatial_green_unavailable_small 1' \
	'spatial_green_unavailable_cooperative 1' \
	'spatial_green_unavailable_cluster 1' \
	'spatial_green_unavailable_context 1' \
	'lc_waits 4' 'lc_waits_sync 0'; then
	echo "ok - preload: green: GSP_STATS_FILE counts confined launches and, by reason, those that waited"
else
	echo "not ok - preload: green: GSP_STATS_FILE counts confined launches and, by reason, those that waited"
	sed 's/^/# /' "$tmp/stats"
fi
# Again with the ASan runtime loaded before the interposer: not
# instrumented, so LeakSanitizer and the allocator's checks only; the fake
# driver's own allocations (modules, functions) are suppressed.
asan=$(cc -print-file-name=libasan.so 2>/dev/null)
if [ -f "$asan" ]; then
	printf 'leak:libcuda.so.1\n' >"$tmp/lsan.supp"
	env -u LD_LIBRARY_PATH "${green_env[@]}" \
		ASAN_OPTIONS=detect_leaks=1:exitcode=86 \
		LSAN_OPTIONS=suppressions="$tmp/lsan.supp":print_suppressions=0 \
		LD_LIBRARY_PATH="$T/cuda" \
		LD_PRELOAD="$asan $tmp/arb/libgsp_preload.so" \
		timeout 60 "$T/test_preload" green >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && ! grep -q Sanitizer "$tmp/err"; then
		echo "ok - preload: green: no leak or bad free under LeakSanitizer (ASan runtime preloaded)"
	else
		echo "not ok - preload: green: no leak or bad free under LeakSanitizer (rc $rc)"
		grep -v '^gsp: ' "$tmp/err" | sed 's/^/# /' | head -n 40
	fi
else
	echo "ok - preload: green: no leak under LeakSanitizer # SKIP no libasan.so"
fi
scenario greengate arb "${green_env[@]}" FAKE_CUDA_VERSION=12030
count 'the CUDA driver (version 12030) has no green contexts (12.4 or later)' 1 "greengate: a driver without green contexts: said once"
count 'fake_cuda: at exit: 0 green contexts' 1 "greengate: a driver without green contexts: none made"
has "$tmp/stats" 'spatial_green_launches 0' 'spatial_green_unavailable_no-api 1' &&
	echo "ok - preload: greengate: a driver without green contexts: counted" ||
	{ echo "not ok - preload: greengate: a driver without green contexts: counted"; sed 's/^/# /' "$tmp/stats"; }
scenario greengate arb "${green_env[@]}" FAKE_CUDA_GREEN_FAIL=1
count 'cannot make a green context of 72 SMs on CUDA device 0 (cuGreenCtxCreate: error' 1 "greengate: creation failing: said once"
has "$tmp/stats" 'spatial_green_launches 0' 'spatial_green_unavailable_create 1' &&
	echo "ok - preload: greengate: creation failing: counted" ||
	{ echo "not ok - preload: greengate: creation failing: counted"; sed 's/^/# /' "$tmp/stats"; }
scenario greengate arb "${green_env[@]}" GSP_GREEN=0
count '^gsp: .*green' 0 "greengate: GSP_GREEN=0: nothing said about green contexts"
has "$tmp/stats" 'spatial_green_launches 0' 'spatial_green_unavailable 0' &&
	echo "ok - preload: greengate: GSP_GREEN=0: nothing counted" ||
	{ echo "not ok - preload: greengate: GSP_GREEN=0: nothing counted"; sed 's/^/# /' "$tmp/stats"; }
scenario noarb arb NOARB=refuse GSP_GREEN=yes
count 'GSP_GREEN=yes is not auto or 0' 1 "a bad GSP_GREEN is named on stderr"

# Protection modes (test_protect.c): the LC's reservation ahead of its
# periodic launches, and what a BE does with a request that stands.
prog=$T/test_protect
scenario predict arb GSP_CLASS=lc FAKE_GSP_PART=2,1 \
	FAKE_GSP_PROTECT=predictive FAKE_GSP_LEAD_US=3000
count '^gsp: ' 0 "predict: predictive: nothing said"
scenario predict arb GSP_CLASS=lc FAKE_GSP_PART=2,1 FAKE_GSP_LEAD_US=3000
scenario protect arb FAKE_CUDA_SMS=132 FAKE_GSP_PART=60,1
# The LC's charges wait for grants a BE lease withholds; its requests
# must come down regardless.
scenario charge arb GSP_CLASS=lc FAKE_GSP_PART=2,1
# The preemptive time plane: a BE gives its lease back when a job waits.
scenario preempt arb FAKE_GSP_PART=2,1 FAKE_GSP_PROTECT=preemptive \
	GSP_QUANTUM_US=10 GSP_STATS_FILE="$tmp/stats"
grep -q '^lease_preemptions [1-9]' "$tmp/stats" &&
	echo "ok - preload: preempt: the stats count the preemption" ||
	{ echo "not ok - preload: preempt: the stats count the preemption"; sed 's/^/# /' "$tmp/stats"; }
scenario preempt arb FAKE_GSP_PART=2,1 GSP_QUANTUM_US=10
prog=

scenario nospatial arb FAKE_GSP_PART=2,1 GSP_SPATIAL=0
count '^gsp: ' 0 "nospatial: GSP_SPATIAL=0: silent"
scenario nospatial arb FAKE_GSP_PART=2,1 GSP_CLASS=lc
count '^gsp: ' 0 "nospatial: an LC tenant under a partition: silent"
scenario nospatial arb GSP_SPATIAL=1 GSP_CLASS=lc
count 'spatial sharing is for BE tenants' 1 "nospatial: GSP_SPATIAL=1 for an LC tenant is refused with a message"
scenario nospatial arb
count '^gsp: ' 0 "nospatial: auto, no partition on the board: off, silent"
scenario noarb arb NOARB=refuse GSP_SPATIAL=yes
count 'GSP_SPATIAL=yes is not auto, 0 or 1' 1 "a bad GSP_SPATIAL is named on stderr"
scenario noarb arb NOARB=refuse GSP_WATCH_US=0
count 'GSP_WATCH_US=0 is not a number' 1 "a bad GSP_WATCH_US is named on stderr"

# LC work at the greatest stream priority (lcprio.c): test_lcprio against
# the fakes, LCPRIO_WANT saying whether its launches must move.
lcprio() {
	local s=$1
	shift
	env -u LD_LIBRARY_PATH "$@" LD_LIBRARY_PATH="$T/cuda" \
		LD_PRELOAD="$tmp/arb/libgsp_preload.so" \
		timeout 60 "$T/test_lcprio" "$s" 2>"$tmp/err" | grep -v '^1\.\.'
	local rc=${PIPESTATUS[0]}
	if [ "$rc" -gt 1 ]; then
		echo "not ok - preload: test_lcprio $s exited with status $rc"
		sed 's/^/# /' "$tmp/err"
	fi
}
# prio as an LC tenant makes 7 streams and launches 612 kernels on
# default streams outside a capture.
lcprio prio GSP_CLASS=lc LCPRIO_WANT=1 LCPRIO_CASE="lcprio (lc)" GSP_LOG=1 \
	GSP_STATS_FILE="$tmp/stats"
count 'LC work runs at stream priority -5, the greatest' 1 "lcprio: an LC tenant says once (GSP_LOG=1) that its work runs at the greatest priority"
has "$tmp/stats" 'lc_priority_streams 7' 'lc_priority_launches 612' &&
	echo "ok - preload: lcprio: GSP_STATS_FILE counts the LC streams made at the greatest priority and the launches moved" ||
	{ echo "not ok - preload: lcprio: GSP_STATS_FILE counts the LC streams made at the greatest priority and the launches moved"; sed 's/^/# /' "$tmp/stats"; }
lcprio prio GSP_CLASS=be LCPRIO_WANT=0 LCPRIO_CASE="lcprio (be)" GSP_LOG=1 \
	GSP_STATS_FILE="$tmp/stats"
count 'priority' 0 "lcprio: a BE tenant says nothing about priorities"
has "$tmp/stats" 'lc_priority_streams 0' 'lc_priority_launches 0' &&
	echo "ok - preload: lcprio: a BE tenant counts no priority stream or launch" ||
	{ echo "not ok - preload: lcprio: a BE tenant counts no priority stream or launch"; sed 's/^/# /' "$tmp/stats"; }
lcprio prio GSP_CLASS=lc GSP_LC_PRIORITY=0 LCPRIO_WANT=0 \
	LCPRIO_CASE="lcprio (lc, GSP_LC_PRIORITY=0)" GSP_STATS_FILE="$tmp/stats"
has "$tmp/stats" 'lc_priority_streams 0' 'lc_priority_launches 0' &&
	echo "ok - preload: lcprio: GSP_LC_PRIORITY=0 counts no priority stream or launch" ||
	{ echo "not ok - preload: lcprio: GSP_LC_PRIORITY=0 counts no priority stream or launch"; sed 's/^/# /' "$tmp/stats"; }
scenario noarb arb NOARB=refuse GSP_CLASS=lc GSP_LC_PRIORITY=yes
count 'GSP_LC_PRIORITY=yes is not auto or 0' 1 "a bad GSP_LC_PRIORITY is named on stderr"
count 'settings above are not valid.*refusing' 1 "a bad GSP_LC_PRIORITY: the program's GPU work is refused"
lcprio charge GSP_CLASS=lc
lcprio lcgraph GSP_CLASS=lc
lcprio lcgraph GSP_CLASS=be
# With the ASan runtime ahead of the interposer (see green above): the
# priority streams of exited threads are freed, nothing freed twice.
if [ -f "$asan" ]; then
	env -u LD_LIBRARY_PATH GSP_CLASS=lc LCPRIO_WANT=1 \
		ASAN_OPTIONS=detect_leaks=1:exitcode=86 \
		LSAN_OPTIONS=suppressions="$tmp/lsan.supp":print_suppressions=0 \
		LD_LIBRARY_PATH="$T/cuda" \
		LD_PRELOAD="$asan $tmp/arb/libgsp_preload.so" \
		timeout 60 "$T/test_lcprio" prio >/dev/null 2>"$tmp/err"
	rc=$?
	if [ $rc -eq 0 ] && ! grep -q Sanitizer "$tmp/err"; then
		echo "ok - preload: lcprio: no leak or bad free under LeakSanitizer (ASan runtime preloaded)"
	else
		echo "not ok - preload: lcprio: no leak or bad free under LeakSanitizer (rc $rc)"
		grep -v '^gsp: ' "$tmp/err" | sed 's/^/# /' | head -n 40
	fi
fi

# The fault sweep (test_faults.c): each driver call of a small program
# fails in turn, under the interposer and the fake libgsp, with the ASan
# runtime preloaded as above when there is one (leaks, bad frees). BE and
# LC at every point, BE under spatial sharing at every 4th or so.
faults() {
	local pre="$tmp/arb/libgsp_preload.so" san=() rc
	if [ -f "$asan" ]; then
		pre="$asan $pre"
		san=(ASAN_OPTIONS=detect_leaks=1:exitcode=86
		     LSAN_OPTIONS=suppressions="$tmp/lsan.supp":print_suppressions=0)
	fi
	env -u LD_LIBRARY_PATH "${san[@]}" "$@" TMPDIR="$tmp" \
		LD_LIBRARY_PATH="$T/cuda" LD_PRELOAD="$pre" \
		timeout 300 "$T/test_faults" sweep | grep -v '^1\.\.'
	rc=${PIPESTATUS[0]}
	[ "$rc" -le 1 ] || echo "not ok - preload: test_faults sweep $* exited with status $rc"
}
faults FAULTS_CASE=be
faults FAULTS_CASE=lc GSP_CLASS=lc
faults FAULTS_CASE=spatial FAKE_GSP_PART=2,1 GSP_ONE_WAVE=0 FAULTS_POINTS=80

# The fatbin parser alone (ASan/UBSan), with fatbins nvcc makes if it can.
fatbins=()
if [ -x "${NVCC:-}" ]; then
	for m in default none speed; do
		if "$NVCC" -arch="${CUDA_SM:-sm_90}" --compress-mode=$m -fatbin \
			-o "$tmp/k-$m.fatbin" tests/preload/fatbin_kernels.cu \
			>"$tmp/nvcc.log" 2>&1; then
			fatbins+=("$tmp/k-$m.fatbin")
		else
			echo "not ok - preload: nvcc -fatbin --compress-mode=$m"
			sed 's/^/# /' "$tmp/nvcc.log"
		fi
	done
else
	echo "ok - preload: fatbin: nvcc's own fatbins # SKIP no nvcc at ${NVCC:-\$NVCC}"
fi
"$T/test_fatbin" "${fatbins[@]}" |
	sed -n 's/^\(not ok\|ok\) [0-9]* - /\1 - preload: /p'
rc=${PIPESTATUS[0]}
[ "$rc" -le 1 ] || echo "not ok - preload: test_fatbin exited with status $rc"

# The arrival forecast of protect predictive alone (ASan/UBSan).
"$T/test_predict" | sed -n 's/^\(not ok\|ok\) [0-9]* - /\1 - preload: predict.c: /p'
rc=${PIPESTATUS[0]}
[ "$rc" -le 1 ] || echo "not ok - preload: test_predict exited with status $rc"

# Only the hooked driver functions and dlsym leave the library.
extra=$(nm -D --defined-only "$B/lib/libgsp_preload.so" | awk '{ print $3 }' |
	grep -v '^cu' | grep -vx dlsym)
if [ -z "$extra" ]; then
	echo "ok - preload: libgsp_preload.so exports only cu* hooks and dlsym"
else
	echo "not ok - preload: libgsp_preload.so exports more: $extra"
fi

# gsp-run: every bad argument gives exit 2 and a message naming it.
run_bad() {
	local out rc
	out=$("$B/gsp-run" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ $rc -eq 2 ] && [ -n "$out" ]; then
		echo "ok - preload: gsp-run $* exits 2: ${out%%$'\n'*}"
	else
		echo "not ok - preload: gsp-run $* exits 2 with a message (rc $rc: $out)"
	fi
}
run_bad --class xx -- true
run_bad --weight 0 -- true
run_bad --weight 10001 -- true
run_bad --weight 12abc -- true
run_bad --weight -5 -- true
run_bad --device 16 -- true
run_bad --quantum-us 5 -- true
run_bad --arbiter nope -- true
run_bad --lc-target-us 100 -- true
run_bad --class lc --lc-target-us x -- true
run_bad --socket '' -- true
run_bad --bogus -- true
run_bad --weight
run_bad --class be
run_bad --class lc --spatial -- true
run_bad --spatial --no-spatial -- true
run_bad --class lc --no-green -- true
run_bad --no-lc-priority -- true
run_bad --class be --no-lc-priority -- true
for a in "" "--class be"; do
	out=$("$B/gsp-run" $a --no-lc-priority -- true 2>&1 >/dev/null)
	case "$out" in
	*"--no-lc-priority is for --class lc"*)
		echo "ok - preload: gsp-run ${a:+$a }--no-lc-priority is refused: it is for --class lc" ;;
	*)
		echo "not ok - preload: gsp-run ${a:+$a }--no-lc-priority is refused: it is for --class lc ($out)" ;;
	esac
done

# gsp-run starts nothing that no arbiter would schedule: exit 4, said.
no_arb=(env GSP_ARBITER=daemon GSP_SOCKET="$tmp/none.sock")
out=$("${no_arb[@]}" "$B/gsp-run" -- sh -c 'echo ran' 2>&1)
rc=$?
case "$rc:$out" in
4:*"not started: no gspace arbiter answers"*"--fail-open"*)
	case "$out" in *ran*) echo "not ok - preload: gsp-run without an arbiter ran the program" ;;
	*) echo "ok - preload: gsp-run without an arbiter exits 4, the program not run, --fail-open named" ;; esac ;;
*) echo "not ok - preload: gsp-run without an arbiter exits 4 (rc $rc: $out)" ;;
esac
out=$("${no_arb[@]}" "$B/gsp-run" --fail-open -- sh -c 'echo "ran:$GSP_FAIL_OPEN"' 2>&1)
[ "$?:$out" = "0:ran:1" ] &&
	echo "ok - preload: gsp-run --fail-open without an arbiter runs the program, GSP_FAIL_OPEN=1" ||
	echo "not ok - preload: gsp-run --fail-open without an arbiter runs the program ($out)"
out=$("${no_arb[@]}" "$B/gsp-run" --no-gate -- sh -c 'echo ran' 2>&1)
[ "$?:$out" = "0:ran" ] &&
	echo "ok - preload: gsp-run --no-gate without an arbiter runs the program (pass-through was asked for)" ||
	echo "not ok - preload: gsp-run --no-gate without an arbiter runs the program ($out)"

# The rest run programs: against gspaced, as GSP_ARBITER/GSP_SOCKET say.
start_gspaced || { echo "not ok - preload: gspaced did not start for gsp-run"; exit 0; }
export GSP_ARBITER=daemon GSP_SOCKET="$tmp/gspaced.sock"
out=$("$B/gsp-run" --class lc --weight 7 --quantum-us 500 -- \
	sh -c 'echo "$GSP_CLASS $GSP_WEIGHT $GSP_QUANTUM_US $LD_PRELOAD"' 2>&1)
case "$out" in
"lc 7 500 "*/lib/libgsp_preload.so*)
	echo "ok - preload: gsp-run sets the GSP_* variables and LD_PRELOAD" ;;
*)
	echo "not ok - preload: gsp-run sets the GSP_* variables and LD_PRELOAD ($out)" ;;
esac
for o in --spatial --no-spatial --no-green; do
	v=GSP_SPATIAL want=1
	[ $o = --no-spatial ] && want=0
	[ $o = --no-green ] && v=GSP_GREEN want=0
	out=$("$B/gsp-run" $o -- sh -c "echo \"\$$v\"" 2>&1)
	if [ "$out" = "$want" ]; then
		echo "ok - preload: gsp-run $o sets $v=$want"
	else
		echo "not ok - preload: gsp-run $o sets $v=$want ($out)"
	fi
done
out=$("$B/gsp-run" --class lc --no-lc-priority -- sh -c 'echo "$GSP_LC_PRIORITY"' 2>&1)
if [ "$out" = 0 ]; then
	echo "ok - preload: gsp-run --class lc --no-lc-priority sets GSP_LC_PRIORITY=0"
else
	echo "not ok - preload: gsp-run --class lc --no-lc-priority sets GSP_LC_PRIORITY=0 ($out)"
fi
"$B/gsp-run" -- /nonexistent/program 2>/dev/null
rc=$?
if [ $rc -eq 127 ]; then
	echo "ok - preload: gsp-run exits 127 when the program cannot be run"
else
	echo "not ok - preload: gsp-run exits 127 when the program cannot be run (rc $rc)"
fi

# gsp-run --admit on tests/admit/fixtures: an LC of 1 ms copies beside
# batch copies sharing its channel, 2 ms with one BE and 3 ms with two,
# against a target of 2 x solo.
F=tests/admit/fixtures
adm=(--class be --admit-hw "$F/hw.csv" --admit-lc "$F/lc_copy.csv"
	--admit-be "$F/be_copy.csv")
out=$("$B/gsp-run" "${adm[@]}" --admit refuse -- sh -c 'echo "ran:$GSP_SPATIAL"' 2>&1)
rc=$?
case "$rc:$out" in
0:*"admitted"*"ran:") echo "ok - preload: gsp-run --admit refuse: one BE at 2x solo is admitted and runs as asked" ;;
*) echo "not ok - preload: gsp-run --admit refuse: one BE admitted (rc $rc: $out)" ;;
esac
out=$("$B/gsp-run" "${adm[@]}" --admit refuse --admit-k 2 -- sh -c 'echo ran' 2>&1)
rc=$?
case "$rc:$out" in
3:*"not admitted"*"not started"*) case "$out" in *ran*) echo "not ok - preload: gsp-run --admit refuse ran the program" ;;
	*) echo "ok - preload: gsp-run --admit refuse --admit-k 2: 3 ms > 2 ms, exit 3, the program not run" ;; esac ;;
*) echo "not ok - preload: gsp-run --admit refuse --admit-k 2 exits 3 (rc $rc: $out)" ;;
esac
out=$("$B/gsp-run" "${adm[@]}" --admit idle --admit-k 2 -- sh -c 'echo "ran:$GSP_SPATIAL"' 2>&1)
rc=$?
case "$rc:$out" in
0:*"not admitted"*"ran:0") echo "ok - preload: gsp-run --admit idle --admit-k 2: runs only while the LC is idle (GSP_SPATIAL=0)" ;;
*) echo "not ok - preload: gsp-run --admit idle --admit-k 2 runs as --no-spatial (rc $rc: $out)" ;;
esac
out=$("$B/gsp-run" "${adm[@]}" --admit idle --admit-q 3 --admit-k 2 -- sh -c 'echo "ran:$GSP_SPATIAL"' 2>&1)
case "$out" in
*" admitted"*"ran:") echo "ok - preload: gsp-run --admit-q 3: two BE at 3x solo admitted" ;;
*) echo "not ok - preload: gsp-run --admit-q 3: two BE admitted ($out)" ;;
esac
run_bad --class be --admit maybe -- true
run_bad --class be --admit-k 2 -- true
run_bad --class lc --admit refuse --admit-hw "$F/hw.csv" \
	--admit-lc "$F/lc_copy.csv" --admit-be "$F/be_copy.csv" -- true
run_bad --class be --admit refuse --admit-hw "$F/hw.csv" -- true
run_bad "${adm[@]}" --admit refuse --admit-k 65 -- true
run_bad "${adm[@]}" --admit refuse --admit-q 0 -- true
run_bad "${adm[@]}" --admit idle --spatial -- true
# --admit without --admit-hw/--admit-lc asks gspaced, which has them
# (admit_hw, admit_lc) and counts the BEs at work (gspaced.rst, "Admission").
run_bad --class be --admit refuse --admit-be "$F/be_kernel.csv" --admit-k 2 -- true
run_bad --class be --admit refuse --admit-be "$F/be_kernel.csv" --admit-q 3 -- true
if [ -x "$B/gspaced" ]; then
	printf 'sim_devices = 1\nlease_devices = 0\nadmit_hw = %s\nadmit_lc = %s\n' \
		"$PWD/$F/hw.csv" "$PWD/$F/lc_kernel.csv" >"$tmp/admit.conf"
	"$B/gspaced" --foreground --config "$tmp/admit.conf" \
		--socket "$tmp/admit.sock" >"$tmp/admit.log" 2>&1 &
	admit_pid=$!
	for _ in $(seq 100); do [ -S "$tmp/admit.sock" ] && break; sleep 0.05; done
	ask=(--class be --arbiter daemon --socket "$tmp/admit.sock")
	out=$("$B/gsp-run" "${ask[@]}" --admit refuse --admit-be "$F/be_kernel.csv" \
		-- sh -c 'echo ran' 2>&1)
	rc=$?
	case "$rc:$out" in
	3:*"admission (gspaced)"*"beside 1 BE"*"not admitted"*"not started"*)
		case "$out" in *ran*) echo "not ok - preload: gsp-run --admit refuse via gspaced ran the program" ;;
		*) echo "ok - preload: gsp-run --admit refuse via gspaced: the fixture BE breaks the target beside 1 BE, exit 3, not run" ;; esac ;;
	*) echo "not ok - preload: gsp-run --admit refuse via gspaced exits 3 (rc $rc: $out)" ;;
	esac
	out=$("$B/gsp-run" "${ask[@]}" --admit refuse --admit-be "$F/be_copy.csv" \
		-- sh -c 'echo "ran:$GSP_SPATIAL"' 2>&1)
	rc=$?
	case "$rc:$out" in
	0:*"admission (gspaced)"*" admitted"*"ran:") echo "ok - preload: gsp-run --admit refuse via gspaced: a BE that leaves the LC alone is admitted and runs as asked" ;;
	*) echo "not ok - preload: gsp-run --admit via gspaced admits a harmless BE (rc $rc: $out)" ;;
	esac
	out=$("$B/gsp-run" "${ask[@]}" --admit idle --admit-be "$F/be_kernel.csv" \
		-- sh -c 'echo "ran:$GSP_SPATIAL"' 2>&1)
	rc=$?
	case "$rc:$out" in
	0:*"not admitted"*"ran:0") echo "ok - preload: gsp-run --admit idle via gspaced: not admitted, runs as --no-spatial" ;;
	*) echo "not ok - preload: gsp-run --admit idle via gspaced (rc $rc: $out)" ;;
	esac
	out=$("$B/gsp-run" "${ask[@]}" --admit refuse --admit-be "$F/hw.csv" -- true 2>&1)
	rc=$?
	case "$rc:$out" in
	2:*"gspaced"*"gsp-trace"*) echo "ok - preload: gsp-run --admit via gspaced with a file that is no trace: exit 2, gspaced's reason" ;;
	*) echo "not ok - preload: gsp-run --admit via gspaced, not a trace: exit 2 with the reason (rc $rc: $out)" ;;
	esac
	kill "$admit_pid" 2>/dev/null
	wait "$admit_pid" 2>/dev/null
	out=$("$B/gsp-run" "${ask[@]}" --admit refuse --admit-be "$F/be_kernel.csv" -- true 2>&1)
	rc=$?
	case "$rc:$out" in
	2:*"no arbiter answers"*) echo "ok - preload: gsp-run --admit with gspaced gone: exit 2, says so" ;;
	*) echo "not ok - preload: gsp-run --admit with gspaced gone exits 2 (rc $rc: $out)" ;;
	esac
fi
run_bad --class be --admit refuse --admit-hw "$F/hw.csv" \
	--admit-lc "$F/no-such.csv" --admit-be "$F/be_copy.csv" -- true
