#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Runs `gsp-wl run ... --sync` as a BE of the LC-protection benchmark
(bench/run-lcprotect.sh): waits for its READY, gives it the benchmark's
window (--start-ms T, CLOCK_REALTIME ms, then --warmup-s W and
--measure-s M) in CLOCK_MONOTONIC as "GO start end", and prints its BE
result as lcprotect does: "be units_per_s X units N".

  wl_window.py --start-ms T --warmup-s W --measure-s M -- CMD [ARGS...]

CMD may be a wrapper (gsp-run ... -- gsp-wl run --be WL --sync). Exit
status: CMD's, or 2 for bad arguments."""
import subprocess
import sys
import time


def parse(argv):
    opts = {"--start-ms": None, "--warmup-s": None, "--measure-s": None}
    i = 1
    while i < len(argv) and argv[i] != "--":
        if argv[i] not in opts or i + 1 >= len(argv):
            return None
        try:
            opts[argv[i]] = int(argv[i + 1])
        except ValueError:
            return None
        i += 2
    cmd = argv[i + 1:]
    if None in opts.values() or not cmd or min(opts.values()) < 0 \
            or opts["--measure-s"] < 1:
        return None
    return opts, cmd


def main(argv):
    p = parse(argv)
    if not p:
        sys.stderr.write("wl_window: usage: wl_window.py --start-ms T "
                         "--warmup-s W --measure-s M -- CMD [ARGS...]\n")
        return 2
    opts, cmd = p
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    for line in proc.stdout:
        if line.strip() == "READY":
            break
    else:
        return proc.wait() or 1
    # the window, from the realtime start to the monotonic clock
    mono, real_ms = time.monotonic_ns(), time.time_ns() // 1000000
    start = mono + ((opts["--start-ms"] - real_ms) * 1000000 +
                    opts["--warmup-s"] * 1000000000)
    if start < mono + 100000000:
        sys.stderr.write("wl_window: the workload was ready after its "
                         "window began; it measures from now\n")
        start = mono + 100000000
    end = start + opts["--measure-s"] * 1000000000
    proc.stdin.write(f"GO {start} {end}\n")
    proc.stdin.flush()
    result = None
    for line in proc.stdout:
        f = dict(kv.split("=", 1) for kv in line.split()[1:] if "=" in kv)
        if line.startswith("RESULT") and f.get("role") == "be":
            result = f
    rc = proc.wait()
    if result:
        print(f"be units_per_s {result['units_per_s']} units {result['units']}")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv))
