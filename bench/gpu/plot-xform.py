#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Plots of xform-check's placement and yield-latency CSVs (see
Documentation/xform.rst). Usage: plot-xform.py XFORM_OUT_DIR"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svgplot  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: plot-xform.py XFORM_OUT_DIR (holds placement.csv, yield-summary.csv)")
    d = sys.argv[1]
    ys = list(csv.DictReader(open(os.path.join(d, "yield-summary.csv"))))
    t = [float(r["task_us"]) for r in ys]
    svgplot.lines(os.path.join(d, "yield-latency.svg"),
                  "Yield request to LC block start, (n, k) = (66, 4)",
                  "BE task length (us)", "us",
                  [("first LC block, p50", t, [float(r["lc_first_p50_us"]) for r in ys], False),
                   ("first LC block, p99", t, [float(r["lc_first_p99_us"]) for r in ys], False),
                   ("last LC block, p50", t, [float(r["lc_last_p50_us"]) for r in ys], True),
                   ("last LC block, p99", t, [float(r["lc_last_p99_us"]) for r in ys], True),
                   ("target p99 50 us", [t[0], t[-1]], [50, 50], True)])
    cells = {}
    for r in csv.DictReader(open(os.path.join(d, "placement.csv"))):
        c = cells.setdefault((int(r["n"]), int(r["k"])), [0, 0, 0, 0])
        c[0] += int(r["lc_blocks"])
        c[1] += int(r["lc_expected"])
        c[2] += int(r["be_blocks"])
        c[3] += int(r["be_expected"])
    keys = sorted(cells)
    svgplot.bars(os.path.join(d, "placement.svg"),
                 "Block slots per (n, k): measured (%smid) vs expected",
                 "blocks", [f"{n}:{k}" for n, k in keys],
                 ["LC blocks", "LC expected", "BE blocks", "BE expected"],
                 [cells[x] for x in keys])


if __name__ == "__main__":
    main()
