#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench-daemon: starts GSPACED (sim device 0, lease device 1) on a
# temp socket, runs BENCH against it, and records the CSV with the setup
# in OUT/ (rtt.csv, README).
# Usage: bench.sh GSPACED BENCH OUT
set -eu
gspaced=$1 bench=$2 out=$3
tmp=$(mktemp -d /tmp/gsp-bench-daemon.XXXXXX)
pid=
cleanup() {
	[ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
printf 'sim_devices = 1\nlease_devices = 1\n' >"$tmp/gspaced.conf"
"$gspaced" --foreground --config "$tmp/gspaced.conf" --socket "$tmp/s" \
	2>"$tmp/log" &
pid=$!
for _ in $(seq 100); do [ -S "$tmp/s" ] && break; sleep 0.05; done
mkdir -p "$out"
GSP_SOCKET=$tmp/s "$bench" | tee "$tmp/out"
grep -v '^#' "$tmp/out" >"$out/rtt.csv"
{
	echo "gspaced round trips (tests/daemon/bench_rtt.c), one tenant per"
	echo "metric, one thread, client and daemon on the same machine."
	echo
	echo "command: make bench-daemon"
	echo "config: sim_devices = 1, lease_devices = 1, defaults otherwise"
	echo "cpu: $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"
	echo "cpus: $(nproc)"
	echo "kernel: $(uname -sr)"
	echo "compiler: $(${CC:-cc} --version | head -n 1)"
	echo "date: $(date -u +%Y-%m-%d)"
	echo
	echo "sim_submit_wait: SUBMIT of a zero-cost job on the sim device, then"
	echo "WAIT (the daemon answers the WAIT when the job ends, in the same"
	echo "loop iteration). lease_submit_grant_complete: SUBMIT on the lease"
	echo "device, WAIT GRANTED, COMPLETE: three requests. Both are the"
	echo "protocol's cost only; no GPU is involved."
} >"$out/README"
