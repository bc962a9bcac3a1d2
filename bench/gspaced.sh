# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the bench scripts that run programs beside one gspaced:
#
#   gspaced_up NAME CONF LOG   starts "$BUILD/gspaced" with CONF, its
#                              socket $sockdir/s in a short temporary
#                              folder (/tmp/gsp-NAME.*), logs the command
#                              with the caller's log_cmd, and waits for
#                              the socket; status 1 if it did not come up
#   gspaced_up_gpu NAME        gspaced_up with OUT/gspaced.conf for one GPU
#                              (one lease, partition 132,8, this user's
#                              programs may be LC), logging to
#                              OUT/gspaced.log
#   gspaced_down               stops it and prints "gspaced exit status N";
#                              the EXIT trap calls it and removes the folder
#   gctl ARGS...               gspctl ARGS against it, logged with log_cmd,
#                              its output appended to LOGS/gspctl.log
#   bench_up NAME KEYS         MPS (bench/mps.sh's mps_up, sourced by the
#                              caller; logs in LOGS/mps) and one gspaced on
#                              OUT/gspaced.conf: KEYS (config lines) and
#                              this user in lc_uids, logging to
#                              LOGS/gspaced.log; exits 1 if it does not
#                              come up. At exit both stop and LOGS is
#                              packed into OUT/logs.tgz.
sockdir=
gspd=

gspaced_down() {
	local st

	[ -n "$gspd" ] || return 0
	kill "$gspd" 2>/dev/null
	wait "$gspd" 2>/dev/null
	st=$?
	gspd=
	echo "gspaced exit status $st"
}

gspaced_cleanup() {
	gspaced_down >/dev/null
	[ -z "$sockdir" ] || rm -rf "$sockdir"
}

gctl() {
	log_cmd "$BUILD/gspctl" --arbiter daemon --socket "$sockdir/s" "$@"
	"$BUILD/gspctl" --arbiter daemon --socket "$sockdir/s" "$@" >>"$LOGS/gspctl.log" 2>&1
}

gspaced_up() {
	[ -n "$sockdir" ] || sockdir=$(mktemp -d "/tmp/gsp-$1.XXXXXX")
	trap gspaced_cleanup EXIT
	trap 'exit 130' INT TERM
	log_cmd "$BUILD/gspaced" --foreground --config "$2" --socket "$sockdir/s"
	sed -i '$ s/$/\&/' "$OUT/commands.txt"	# it runs in the background
	"$BUILD/gspaced" --foreground --config "$2" --socket "$sockdir/s" \
		>"$3" 2>&1 &
	gspd=$!
	for _ in $(seq 100); do
		[ -S "$sockdir/s" ] && return 0
		kill -0 "$gspd" 2>/dev/null || break
		sleep 0.1
	done
	[ -S "$sockdir/s" ]
}

gspaced_up_gpu() {
	printf 'lease_devices = 1\nsim_devices = 0\nlc_uids = %s\npartition = 132,8\n' \
		"$(id -u)" >"$OUT/gspaced.conf"
	gspaced_up "$1" "$OUT/gspaced.conf" "$OUT/gspaced.log"
}

bench_finish() {
	gspaced_cleanup
	mps_down
	tar czf "$OUT/logs.tgz" -C "$OUT" logs 2>/dev/null && rm -rf "$LOGS"
}

bench_up() {
	mps_up "$1" "$LOGS/mps"
	trap bench_finish EXIT
	printf '%b\nlc_uids = %s\n' "$2" "$(id -u)" >"$OUT/gspaced.conf"
	gspaced_up "$1" "$OUT/gspaced.conf" "$LOGS/gspaced.log" ||
		{ echo "$1: gspaced did not come up" >&2; exit 1; }
	trap bench_finish EXIT	# gspaced_up set its own
}
