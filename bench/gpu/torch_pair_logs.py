#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""What bench/run-torch-pair.sh's logs say beyond be-rate.csv.

  bench/gpu/torch_pair_logs.py OUT

Reads OUT/be-rate.csv and OUT/logs/ (NAME.be.trace, NAME.lc.trace,
NAME.be.stats, NAME.lc.stats) and writes

  OUT/in-lc.csv      row,lc_busy,be_steps_per_s_in_lc,be_steps_per_s_out_lc,
                     lc_waits,lc_wait_ms,green_copies,green_unavailable_cluster
                     for each row with both programs: the LC's busy
                     fraction, the BE's steps per second that ended inside
                     an LC request and outside one (from the LC's first
                     request to the end of its last), and the BE's counters
  OUT/lc-search.csv  row,lc_requests_timed, then the LC's search_* counters
                     and lc_priority_launches, for each row whose LC ran
                     partition auto

Standard library only.
"""
import bisect
import csv
import os
import sys

SEARCH = ("search_method", "search_state", "search_cell", "search_invocations",
          "search_cells", "search_restarts", "search_violations_done",
          "search_solo_us", "search_q", "search_chosen", "search_guard_steps",
          "search_far_jumps", "lc_priority_launches", "search_hold_us",
          "search_hold_learned")


def stats(path):
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return dict(l.split()[:2] for l in f if len(l.split()) >= 2)


def trace(path, tag):
    with open(path, encoding="utf-8") as f:
        return [[int(x) for x in l.split()[1:]] for l in f if l.startswith(tag + " ")]


def in_lc(be_path, lc_path):
    """(busy, steps/s inside LC requests, steps/s outside them)."""
    be = [t[0] for t in trace(be_path, "be")]
    lc = trace(lc_path, "lc")
    lo, hi = lc[0][0], lc[-1][0] + lc[-1][1]
    starts = [s for s, _ in lc]
    ins = outs = 0
    for t in be:
        if not lo <= t <= hi:
            continue
        i = bisect.bisect_right(starts, t) - 1
        if i >= 0 and t <= lc[i][0] + lc[i][1]:
            ins += 1
        else:
            outs += 1
    busy = sum(d for _, d in lc) / (hi - lo)
    dur = (hi - lo) / 1e9
    return busy, ins / (busy * dur), outs / ((1 - busy) * dur)


def main(argv):
    if len(argv) != 2 or argv[1].startswith("-"):
        print("usage: torch_pair_logs.py OUT (bench/run-torch-pair.sh's folder)",
              file=sys.stderr)
        return 2
    out = argv[1]
    logs = os.path.join(out, "logs")
    try:
        with open(os.path.join(out, "be-rate.csv"), encoding="utf-8") as f:
            names = [r["row"] for r in csv.DictReader(f)]
    except OSError as e:
        print(f"torch_pair_logs: {e}", file=sys.stderr)
        return 1
    inl, srch = [], []
    for n in names:
        p = os.path.join(logs, n)
        be, lc = stats(p + ".be.stats"), stats(p + ".lc.stats")
        if os.path.exists(p + ".be.trace") and os.path.exists(p + ".lc.trace"):
            busy, i, o = in_lc(p + ".be.trace", p + ".lc.trace")
            us = be.get("lc_wait_us")
            inl.append([n, f"{busy:.2f}", f"{i:.0f}", f"{o:.0f}",
                        be.get("lc_waits", ""),
                        f"{int(us) / 1000:.0f}" if us else "",
                        be.get("spatial_green_copies", ""),
                        be.get("spatial_green_unavailable_cluster", "")])
        if "search_state" in lc:
            timed = len(trace(p + ".lc.trace", "lc")) \
                if os.path.exists(p + ".lc.trace") else ""
            srch.append([n, timed] + [lc.get(k, "") for k in SEARCH])
    for name, head, rows in (
            ("in-lc.csv", ["row", "lc_busy", "be_steps_per_s_in_lc",
                           "be_steps_per_s_out_lc", "lc_waits", "lc_wait_ms",
                           "green_copies", "green_unavailable_cluster"], inl),
            ("lc-search.csv", ["row", "lc_requests_timed", *SEARCH], srch)):
        with open(os.path.join(out, name), "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(head)
            w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
