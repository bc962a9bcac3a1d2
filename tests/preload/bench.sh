#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Micro-benchmark of the interposer against the fake libcuda in real-time
# mode (not a test; nothing here runs on a GPU): host time per launch of
# zero-length kernels (p50/p99) and the rate of back-to-back 100 us
# launches, with no interposer, with GSP_DISABLE=1, as LC and as BE
# against a real gspaced (a lease device). One RESULT line per mode.
# FAKE_CUDA_CALL_NS (default 0) adds a per-call cost to the fake driver.
set -u
B=${BUILD:-build}
T=$B/tests/preload
for f in "$T/test_preload" "$B/lib/libgsp_preload.so" "$B/lib/libgsp.so.1" \
	 "$B/gspaced"; do
	if [ ! -e "$f" ]; then
		echo "bench.sh: $f is not built; run make bench-preload" >&2
		exit 2
	fi
done
tmp=$(mktemp -d)
daemon_pid=
cleanup() {
	[ -n "$daemon_pid" ] && kill "$daemon_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
cat >"$tmp/gspaced.conf" <<CONF
sim_devices = 1
lease_devices = 1
lc_uids = $(id -u)
CONF
"$B/gspaced" --foreground --config "$tmp/gspaced.conf" \
	--socket "$tmp/gspaced.sock" >"$tmp/gspaced.log" 2>&1 &
daemon_pid=$!
for _ in $(seq 100); do
	[ -S "$tmp/gspaced.sock" ] && break
	sleep 0.05
done
if [ ! -S "$tmp/gspaced.sock" ]; then
	echo "bench.sh: gspaced did not start:" >&2
	cat "$tmp/gspaced.log" >&2
	exit 1
fi
echo "# fake libcuda, real-time mode, FAKE_CUDA_CALL_NS=${FAKE_CUDA_CALL_NS:-0}; $(nproc) CPUs"
run() {
	local mode=$1
	shift
	env -u LD_LIBRARY_PATH FAKE_CUDA_REALTIME=1 BENCH_MODE="$mode" \
		LD_LIBRARY_PATH="$T/cuda" GSP_ARBITER=daemon \
		GSP_SOCKET="$tmp/gspaced.sock" GSP_DEVICE=1 "$@" \
		timeout 120 "$T/test_preload" bench
}
run plain
run disable LD_PRELOAD="$B/lib/libgsp_preload.so" GSP_DISABLE=1
run lc LD_PRELOAD="$B/lib/libgsp_preload.so" GSP_CLASS=lc
run be LD_PRELOAD="$B/lib/libgsp_preload.so" GSP_CLASS=be
