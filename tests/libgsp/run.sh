#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The libgsp suite (make check-libgsp), TAP on stdout and nothing else:
#  1. test_api: parsers and gsp_open() without any arbiter; test_board:
#     the board's rules (gsp_board.h) on a board in memory; test_drm:
#     the drm engine calls' argument checks (again against gspaced in 5)
#  2. libgsp.so exports exactly the functions gsp.h declares, versioned
#  3. gspctl rejects bad command lines with exit 2 and a message;
#     gspctl mps against a fake nvidia-cuda-mps-control (simulated: no
#     GPU, no MPS here; the fake records what gspctl asks of it)
#  4. make install + pkg-config: a program builds and runs against it
#  5. test_e2e and gspctl against a gspaced started here on a temp socket
#     (skipped until $GSPACED is built)
# Needs BUILD and GSPACED from mk/libgsp.mk.
set -u
B=${BUILD:-build}
T=$B/tests/libgsp
SO=$B/lib/libgsp.so.1.2
GSPACED=${GSPACED:-$B/gspaced}
CC=${CC:-cc}
SAN_FLAGS=${SAN_FLAGS:-}
MAKE=${MAKE:-make}
tmp=$(mktemp -d /tmp/gsp-check-libgsp.XXXXXX) || exit 1
daemon_pid=
cleanup() {
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null &&
		wait "$daemon_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; }
check() {	# check COND-STATUS DESCRIPTION
	if [ "$1" = 0 ]; then ok "$2"; else notok "$2"; fi
}
# A TAP binary: its lines, and a failure if it exits badly without one.
run_tap() {
	local out rc
	out=$("$@" 2>"$tmp/stderr")
	rc=$?
	printf '%s\n' "$out" | grep -E '^(ok|not ok|#)' | sed 's/^\(\(not \)\{0,1\}ok\) [0-9]*/\1/'
	if [ $rc != 0 ] && ! printf '%s\n' "$out" | grep -q '^not ok'; then
		notok "$(basename "$1") exited with status $rc"
		sed 's/^/# /' "$tmp/stderr" | head -n 20
	fi
}

# 1
run_tap "$T/test_api"
run_tap "$T/test_board"
(unset GSP_SOCKET; run_tap "$T/test_drm")

# 2: the declared API, from gsp.h with its comments stripped.
$CC -fpreprocessed -dD -E -P libgsp/include/gsp.h 2>/dev/null |
	grep -oE '\bgsp_[a-z_]+[[:space:]]*\(' | tr -d '( \t' | sort -u \
	>"$tmp/declared"
nm -D --defined-only "$SO" | awk '$2 != "A" { print $3 }' | sort \
	>"$tmp/exported"
sed 's/@@GSP_1\.[012]$//' "$tmp/exported" >"$tmp/exported.names"
if [ -s "$tmp/declared" ] && cmp -s "$tmp/declared" "$tmp/exported.names"; then
	ok "libgsp.so exports exactly the $(wc -l <"$tmp/declared") functions of gsp.h"
else
	notok "libgsp.so exports differ from gsp.h (< declared, > exported)"
	diff "$tmp/declared" "$tmp/exported.names" | sed 's/^/# /'
fi
# GSP_1.0, but for what libgsp 1.1 and 1.2 added.
if [ -s "$tmp/exported" ] &&
   ! grep -v '^gsp_reopen@@GSP_1\.1$' "$tmp/exported" |
	grep -v '^gsp_drm_[a-z_]*@@GSP_1\.2$' | grep -qv '@@GSP_1\.0$' &&
   grep -qx 'gsp_reopen@@GSP_1\.1' "$tmp/exported" &&
   [ "$(grep -c '^gsp_drm_[a-z_]*@@GSP_1\.2$' "$tmp/exported")" = \
	"$(grep -c '^gsp_drm_' "$tmp/declared")" ]; then
	ok "every export carries the version GSP_1.0, gsp_reopen GSP_1.1, gsp_drm_* GSP_1.2"
else
	notok "exports with other versions: $(grep -v '@@GSP_1\.0$' "$tmp/exported" | tr '\n' ' ')"
fi
soname=$(readelf -d "$SO" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
check "$([ "$soname" = libgsp.so.1 ]; echo $?)" "soname is libgsp.so.1 ($soname)"
# Built where libdrm-dev is missing (HAVE_LIBDRM empty): the same
# exports, no libdrm needed, and the drm calls answer -EOPNOTSUPP.
nb=$tmp/nodrm
if make -s BUILD="$nb" HAVE_LIBDRM= "$nb/lib/libgsp.so.1.2" >"$tmp/nodrm.log" 2>&1; then
	nm -D --defined-only "$nb/lib/libgsp.so.1.2" | awk '$2 != "A" { print $3 }' |
		sort >"$tmp/exported.nodrm"
	printf '#include <errno.h>\n#include <stdint.h>\n#include <gsp.h>\nint main(void) { uint32_t a; return gsp_drm_adapter_of(0, &a) != -EOPNOTSUPP; }\n' \
		>"$tmp/nodrm.c"
	if cmp -s "$tmp/exported" "$tmp/exported.nodrm" &&
	   ! readelf -d "$nb/lib/libgsp.so.1.2" | grep -q 'libdrm' &&
	   grep -q 'built without libdrm' "$tmp/nodrm.log" &&
	   $CC -Ilibgsp/include -Iuapi -o "$tmp/nodrm-call" "$tmp/nodrm.c" \
		"$nb/lib/libgsp.so.1.2" 2>>"$tmp/nodrm.log" &&
	   LD_LIBRARY_PATH="$nb/lib" "$tmp/nodrm-call"; then
		ok "built without libdrm: the same exports, no libdrm linked, said once, gsp_drm_* -EOPNOTSUPP"
	else
		notok "built without libdrm: the same exports, no libdrm linked, said once, gsp_drm_* -EOPNOTSUPP"
		diff "$tmp/exported" "$tmp/exported.nodrm" | sed 's/^/# /'
		sed 's/^/# /' "$tmp/nodrm.log" | head -n 20
	fi
else
	notok "libgsp builds without libdrm (HAVE_LIBDRM empty)"
	sed 's/^/# /' "$tmp/nodrm.log" | head -n 20
fi

# 3: "ARGS|expected stderr text"; every one must exit 2, print nothing on
# stdout and say what is wrong on stderr. No arbiter is needed for these.
GSPCTL=$T/gspctl
while IFS='|' read -r args want; do
	[ -z "$args" ] && continue
	[ "$args" = "<none>" ] && args=
	# shellcheck disable=SC2086
	GSP_SOCKET=$tmp/none GSPACE_DEV=$tmp/none env $args >"$tmp/out" \
		2>"$tmp/err" </dev/null
	rc=$?
	if [ $rc = 2 ] && [ ! -s "$tmp/out" ] && grep -qF -- "$want" "$tmp/err"; then
		ok "gspctl rejects '${args#"$GSPCTL" }': exit 2, '$want'"
	else
		notok "gspctl '${args#"$GSPCTL" }': exit $rc, stderr: $(head -n 1 "$tmp/err")"
	fi
done <<EOF
$GSPCTL|no command given
$GSPCTL bogus|unknown command 'bogus'
$GSPCTL --arbiter|--arbiter needs a value
$GSPCTL --arbiter foo status|--arbiter takes kernel, daemon or auto
$GSPCTL --arbiter Kernel status|--arbiter takes kernel, daemon or auto
GSP_ARBITER=bogus $GSPCTL status|GSP_ARBITER must be kernel, daemon or auto
$GSPCTL --frob status|unknown option '--frob'
$GSPCTL --socket= status|--socket needs a path
$GSPCTL status extra|status takes no argument but --json
$GSPCTL status --json extra|status takes no argument but --json
$GSPCTL metrics extra|metrics takes no argument or --textfile PATH
$GSPCTL metrics --textfile|metrics takes no argument or --textfile PATH
$GSPCTL get|get takes one knob name
$GSPCTL get policy extra|get takes one knob name
$GSPCTL get nosuch|unknown knob 'nosuch'
$GSPCTL set policy|set takes a knob name and a value
$GSPCTL set nosuch 1|unknown knob 'nosuch'
$GSPCTL set policy lifo|policy must be fifo, credit or band
$GSPCTL set policy FIFO|policy must be fifo, credit or band
$GSPCTL set period_us 5|1000..10000000
$GSPCTL set period_us -5|must be a decimal integer
$GSPCTL set period_us 1e6|must be a decimal integer
$GSPCTL set period_us 99999999999999999999999|must be a decimal integer
$GSPCTL set window 0|1..32
$GSPCTL set reorder 2|0 or 1
$GSPCTL set min_be_permille 1001|0..1000
$GSPCTL set watchdog_ms 0|1..3600000
$GSPCTL set lc_group -2|lc_group must be a gid
$GSPCTL set lc_max_ms 0|1..60000
$GSPCTL set band_wait_us 1.5|must be a decimal integer
$GSPCTL top --interval 0|--interval takes an integer in 10..3600000
$GSPCTL top --interval abc|--interval takes an integer
$GSPCTL top --count 0|--count takes an integer
$GSPCTL top --count|--count needs a value
$GSPCTL top --bogus|top: unknown option '--bogus'
$GSPCTL top extra|top: unexpected argument 'extra'
$GSPCTL set partition 8|partition must be N,K
$GSPCTL set partition 257,1|N 1..256 and K 1..32
$GSPCTL set partition 8,33|partition must be N,K
$GSPCTL set partition 0,2|0,0 for off, or auto
$GSPCTL set partition -1,2|partition must be N,K
$GSPCTL set partition 8,2,1|partition must be N,K
$GSPCTL set partition 8;2|partition must be N,K
$GSPCTL set search fast|search must be ns, gns, srs, nn_ns, nn_gns, nn_srs, nn, lr or grid
$GSPCTL set partition Auto|partition must be N,K
$GSPCTL set protect always|protect must be reactive, reserved, predictive or preemptive, not 'always'
$GSPCTL set protect Reserved|protect must be reactive, reserved, predictive or preemptive
$GSPCTL set protect 1|protect must be reactive, reserved, predictive or preemptive
$GSPCTL set protect preempt|protect must be reactive, reserved, predictive or preemptive
$GSPCTL set predict_lead_us 0|1..100000
$GSPCTL set predict_lead_us 100001|1..100000
$GSPCTL mps|mps takes one of start, stop or status
$GSPCTL mps bogus|mps takes one of start, stop or status
$GSPCTL mps start extra|mps takes one of start, stop or status
EOF
"$GSPCTL" --help >"$tmp/out" 2>"$tmp/err"
rc=$?
check "$([ $rc = 0 ] && grep -q '^usage: gspctl' "$tmp/out" && [ ! -s "$tmp/err" ]; echo $?)" \
	"gspctl --help: usage on stdout, exit 0"
GSP_SOCKET=$tmp/none "$GSPCTL" --arbiter daemon status >"$tmp/out" 2>"$tmp/err"
rc=$?
check "$([ $rc = 1 ] && grep -q 'no gspaced listens on' "$tmp/err"; echo $?)" \
	"gspctl with no daemon: exit 1, says to start gspaced (exit $rc)"

# 3, MPS: the fake control daemon logs its arguments and stdin, makes the
# control pipe on -d and removes it on quit, and lists one server.
mkdir -p "$tmp/bin" "$tmp/nobin" "$tmp/mps" "$tmp/mpslog"
cat >"$tmp/bin/nvidia-cuda-mps-control" <<'FAKE'
#!/bin/sh
log=$CUDA_MPS_PIPE_DIRECTORY/fake.log
echo "args:$* log:$CUDA_MPS_LOG_DIRECTORY" >>"$log"
if [ "$1" = -d ]; then
	[ "${FAKE_MPS_RC:-0}" = 0 ] && mkfifo "$CUDA_MPS_PIPE_DIRECTORY/control"
	exit "${FAKE_MPS_RC:-0}"
fi
while read -r line; do
	echo "stdin:$line" >>"$log"
	case $line in
	quit) rm -f "$CUDA_MPS_PIPE_DIRECTORY/control" ;;
	get_server_list) echo 4242 ;;
	esac
done
exit "${FAKE_MPS_RC:-0}"
FAKE
chmod +x "$tmp/bin/nvidia-cuda-mps-control"
mps() {	# mps ARGS...: gspctl mps with the fake first in PATH
	PATH=$tmp/bin:$PATH CUDA_MPS_PIPE_DIRECTORY=$tmp/mps \
		CUDA_MPS_LOG_DIRECTORY=$tmp/mpslog "$GSPCTL" mps "$@" \
		>"$tmp/out" 2>"$tmp/err"
}
PATH=$tmp/nobin "$GSPCTL" mps start >"$tmp/out" 2>"$tmp/err"
rc=$?
check "$([ $rc = 1 ] && grep -q 'nvidia-cuda-mps-control not found in PATH' "$tmp/err"; echo $?)" \
	"gspctl mps start without nvidia-cuda-mps-control: exit 1, says so ($rc)"
CUDA_MPS_PIPE_DIRECTORY=$tmp/missing PATH=$tmp/bin:$PATH "$GSPCTL" mps start \
	>"$tmp/out" 2>"$tmp/err"
rc=$?
check "$([ $rc = 1 ] && grep -q 'CUDA_MPS_PIPE_DIRECTORY=.*missing is not a directory' "$tmp/err" &&
	 [ ! -e "$tmp/missing" ]; echo $?)" \
	"gspctl mps start with a missing pipe directory: exit 1, nothing run ($rc)"
mps status
rc=$?
check "$([ $rc = 1 ] && grep -q 'not running' "$tmp/err" && [ ! -e "$tmp/mps/fake.log" ]; echo $?)" \
	"simulated: gspctl mps status before start: exit 1, not running ($rc)"
mps start
rc=$?
check "$([ $rc = 0 ] && [ -p "$tmp/mps/control" ] &&
	 grep -qx "args:-d log:$tmp/mpslog" "$tmp/mps/fake.log"; echo $?)" \
	"simulated: gspctl mps start runs 'nvidia-cuda-mps-control -d' with both directories ($rc)"
mps start
rc=$?
check "$([ $rc = 0 ] && grep -q 'already running' "$tmp/out" &&
	 [ "$(grep -c '^args:-d' "$tmp/mps/fake.log")" = 1 ]; echo $?)" \
	"simulated: gspctl mps start when running: exit 0, nothing started ($rc)"
mps status
rc=$?
check "$([ $rc = 0 ] && grep -q '^mps: running' "$tmp/out" && grep -qx 4242 "$tmp/out" &&
	 grep -qx 'stdin:get_server_list' "$tmp/mps/fake.log"; echo $?)" \
	"simulated: gspctl mps status: running, get_server_list's output ($rc)"
mps stop
rc=$?
check "$([ $rc = 0 ] && grep -qx 'stdin:quit' "$tmp/mps/fake.log" &&
	 [ ! -e "$tmp/mps/control" ]; echo $?)" \
	"simulated: gspctl mps stop sends quit ($rc)"
mps stop
rc=$?
check "$([ $rc = 1 ] && grep -q 'not running' "$tmp/err"; echo $?)" \
	"simulated: gspctl mps stop when stopped: exit 1, not running ($rc)"
FAKE_MPS_RC=3 mps start
rc=$?
check "$([ $rc = 1 ] && grep -q -- '-d failed (exit 3)' "$tmp/err"; echo $?)" \
	"simulated: nvidia-cuda-mps-control -d fails: exit 1 with its status ($rc)"

# 4: install into a staging root and build a client with pkg-config.
if ! command -v pkg-config >/dev/null; then
	ok "make install + pkg-config # SKIP pkg-config is not installed"
elif ! $MAKE --no-print-directory -s install DESTDIR="$tmp/stage" \
		PREFIX=/usr BUILD="$B" >"$tmp/install.log" 2>&1; then
	notok "make install DESTDIR=... PREFIX=/usr failed"
	sed 's/^/# /' "$tmp/install.log" | tail -n 20
else
	r=$tmp/stage/usr
	check "$([ -x "$r/bin/gspctl" ] && [ -f "$r/include/gsp.h" ] &&
		 [ -f "$r/include/gsp_board.h" ] && [ -f "$r/include/gspace.h" ] &&
		 [ "$(readlink "$r/lib/libgsp.so.1")" = libgsp.so.1.2 ] &&
		 [ "$(readlink "$r/lib/libgsp.so")" = libgsp.so.1 ]; echo $?)" \
		"make install: gspctl, headers, libgsp.so.1.2 and its links"
	flags=$(PKG_CONFIG_SYSROOT_DIR=$tmp/stage \
		PKG_CONFIG_LIBDIR=$r/lib/pkgconfig \
		pkg-config --cflags --libs libgsp 2>"$tmp/err")
	# shellcheck disable=SC2086
	if $CC -std=gnu11 -Wall -Wextra -Werror $SAN_FLAGS -o "$tmp/client" \
		tests/libgsp/client.c $flags 2>"$tmp/err"; then
		ok "a client builds with pkg-config --cflags --libs libgsp"
		LD_LIBRARY_PATH=$r/lib GSP_ARBITER=kernel \
			GSPACE_DEV=$tmp/none "$tmp/client" >"$tmp/out" 2>&1
		rc=$?
		check "$rc" "the client runs on the installed libgsp.so.1: $(head -n 1 "$tmp/out")"
	else
		notok "a client builds with pkg-config ($flags)"
		sed 's/^/# /' "$tmp/err" | head -n 10
	fi
fi

# 5: against gspaced.
if [ ! -x "$GSPACED" ]; then
	ok "libgsp against gspaced # SKIP $GSPACED is not built yet"
	exit 0
fi
sock=$tmp/gspaced.sock
cat >"$tmp/gspaced.conf" <<EOF
sim_devices = 1
lease_devices = 1
lc_uids = $(id -u)
EOF
"$GSPACED" --foreground --config "$tmp/gspaced.conf" --socket "$sock" \
	>"$tmp/gspaced.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 100); do
	[ -S "$sock" ] && break
	kill -0 "$daemon_pid" 2>/dev/null || break
	sleep 0.05
done
if [ ! -S "$sock" ]; then
	notok "gspaced --config FILE --socket $sock did not start"
	sed 's/^/# /' "$tmp/gspaced.log" | tail -n 20
	exit 0
fi
GSP_SOCKET=$sock run_tap "$T/test_e2e"
GSP_SOCKET=$sock run_tap "$T/test_drm"

export GSP_SOCKET=$sock GSP_ARBITER=daemon
"$GSPCTL" status >"$tmp/out" 2>"$tmp/err"
rc=$?
check "$([ $rc = 0 ] && grep -q '^arbiter:  daemon' "$tmp/out" &&
	 grep -q '^devices:  2' "$tmp/out" && grep -q '^tenants:' "$tmp/out" &&
	 grep -q '^ *policy ' "$tmp/out"; echo $?)" \
	"gspctl status: daemon, 2 devices, knobs, tenants (exit $rc)"
grep -q '\*' "$tmp/out"
check $? "gspctl status lists its own tenant, marked *"
grep -q '^features:.* lease_progress' "$tmp/out" && grep -q ' RENEWALS$' "$tmp/out" &&
	grep -qE '^ +[0-9]+ +[0-9]+\* .* 0$' "$tmp/out"
check $? "gspctl status: the lease_progress feature, and a RENEWALS column (0 for its own tenant)"
"$GSPCTL" set policy band 2>"$tmp/err" &&
	[ "$("$GSPCTL" get policy)" = band ]
check $? "gspctl set policy band, get policy: band"
"$GSPCTL" set period_us 50000 2>>"$tmp/err" &&
	[ "$("$GSPCTL" get period_us)" = 50000 ]
check $? "gspctl set period_us 50000, get: 50000"
"$GSPCTL" set band_wait_us 60000 >/dev/null 2>"$tmp/err"
rc=$?
check "$([ $rc = 2 ] && grep -q 'gspaced rejected band_wait_us=60000' "$tmp/err"; echo $?)" \
	"gspctl: band_wait_us above period_us: the daemon's EINVAL, exit 2 ($rc)"
"$GSPCTL" set partition 8,2 2>"$tmp/err" &&
	[ "$("$GSPCTL" get partition)" = 8,2 ]
check $? "gspctl set partition 8,2, get partition: 8,2"
"$GSPCTL" status >"$tmp/out" 2>"$tmp/err"
check "$(grep -q '^features:.* partition' "$tmp/out" && grep -q '^partition:' "$tmp/out" &&
	 grep -qE '^ +0 +8,2 +[0-9]+ +reactive +0,0 ' "$tmp/out" &&
	 grep -qE '^ +1 +8,2 ' "$tmp/out" && grep -qE '^ +partition +8,2$' "$tmp/out"; echo $?)" \
	"gspctl status: the partition feature, knob, and per device 8,2, request 0,0"
"$GSPCTL" set protect reserved 2>"$tmp/err" &&
	[ "$("$GSPCTL" get protect)" = reserved ] &&
	"$GSPCTL" status >"$tmp/out" 2>"$tmp/err"
check "$(grep -q '^features:.* protect' "$tmp/out" &&
	 grep -qE '^ +0 +8,2 +[0-9]+ +reserved +0,0 ' "$tmp/out" &&
	 grep -qE '^ +protect +reserved$' "$tmp/out"; echo $?)" \
	"gspctl set protect reserved: get says so; status: the feature, the knob, and reserved per device"
"$GSPCTL" set protect preemptive 2>"$tmp/err" &&
	[ "$("$GSPCTL" get protect)" = preemptive ] &&
	"$GSPCTL" status >"$tmp/out" 2>"$tmp/err"
check "$(grep -q '^features:.* preempt' "$tmp/out" &&
	 grep -qE '^ +DEV +PARTITION .* LC_JOBS +WAITING$' "$tmp/out" &&
	 grep -qE '^ +0 +8,2 +[0-9]+ +preemptive +0,0 +[0-9]+ +0 +0$' "$tmp/out" &&
	 grep -qE '^ +protect +preemptive$' "$tmp/out"; echo $?)" \
	"gspctl set protect preemptive: get says so; status: the preempt feature, preemptive per device, LC_JOBS and WAITING 0"
"$GSPCTL" set predict_lead_us 900 2>"$tmp/err" &&
	[ "$("$GSPCTL" get predict_lead_us)" = 900 ]
check $? "gspctl set predict_lead_us 900, get: 900"
"$GSPCTL" set protect reactive 2>"$tmp/err" &&
	[ "$("$GSPCTL" get protect)" = reactive ]
check $? "gspctl set protect reactive: back to the default"
# metrics, parsed by Prometheus' own parser (python3-prometheus-client)
for PY in python3 /usr/bin/python3; do
	"$PY" -c 'import prometheus_client' 2>/dev/null && break
done
"$GSPCTL" metrics >"$tmp/metrics" 2>"$tmp/err"
rc=$?
check "$([ $rc = 0 ] && [ ! -s "$tmp/err" ]; echo $?)" "gspctl metrics: exit 0, nothing on stderr ($rc)"
"$PY" tests/libgsp/check_metrics.py "$tmp/metrics" 2 8 2
mkdir "$tmp/prom"
"$GSPCTL" metrics --textfile "$tmp/prom/gspace.prom" 2>"$tmp/err"
rc=$?
check "$([ $rc = 0 ] && [ "$(ls "$tmp/prom")" = gspace.prom ] &&
	 [ "$(stat -c %a "$tmp/prom/gspace.prom")" = 644 ] &&
	 grep -q '^gspace_up{arbiter="daemon"} 1$' "$tmp/prom/gspace.prom"; echo $?)" \
	"gspctl metrics --textfile: the file alone in its folder, mode 0644, gspace_up 1 ($rc)"
GSP_SOCKET=$tmp/none "$GSPCTL" metrics --textfile "$tmp/prom/gspace.prom" 2>"$tmp/err"
rc=$?
check "$([ $rc = 1 ] && grep -q '^gspace_up{arbiter="daemon"} 0$' "$tmp/prom/gspace.prom" &&
	 grep -q 'did not answer' "$tmp/err"; echo $?)" \
	"gspctl metrics --textfile with no arbiter: exit 1, the file says gspace_up 0 ($rc)"
"$GSPCTL" status --json >"$tmp/json" 2>"$tmp/err"
rc=$?
"$PY" - "$tmp/json" <<'PYEOF'
import json, sys
try:
    j = json.load(open(sys.argv[1]))
    me = [t for t in j['tenants'] if t['self']]
    ok = (j['arbiter'] == 'daemon' and j['devices'] == 2 and
          'partition' in j['features'] and j['knobs'].get('partition') == '8,2' and
          [(d['dev'], d['n'], d['k'], d['auto']) for d in j['partition']] ==
          [(0, 8, 2, False), (1, 8, 2, False)] and
          len(me) == 1 and me[0]['queued'] == 0 and me[0]['hung'] is False and
          set(me[0]['gpu_ns']) == {'compute', 'h2d', 'd2h'})
except Exception as e:
    ok, j = False, e
print(('ok' if ok else 'not ok') +
      ' - gspctl status --json: valid JSON; daemon, 2 devices at 8,2, the knobs, its own tenant'
      + ('' if ok else ' (%s)' % str(j)[:200]))
PYEOF
check "$([ $rc = 0 ] && [ "$(wc -l <"$tmp/json")" = 1 ]; echo $?)" "gspctl status --json: one line, exit 0 ($rc)"
"$GSPCTL" set partition 0,0 2>"$tmp/err" &&
	[ "$("$GSPCTL" get partition)" = 0,0 ]
check $? "gspctl set partition 0,0: off"
"$GSPCTL" top --interval 200 --count 2 >"$tmp/out" 2>"$tmp/err"
rc=$?
check "$([ $rc = 0 ] && [ "$(grep -c '^gspctl top:' "$tmp/out")" = 2 ] &&
	 grep -q 'COMPUTE%' "$tmp/out" && ! grep -q $'\033' "$tmp/out"; echo $?)" \
	"gspctl top --count 2: two screens, no ANSI codes when not a tty ($rc)"
exit 0
