#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""be-cost.svg and be-cost-summary.csv from run-be-cost.sh's be-cost.csv:
per workload, each mode's mean units/s over the reference mode's (default
plain; timeplane for issue 6's cost figure), and the geomean over the
workloads. Usage: plot-be-cost.py DIR [REF] (DIR holds be-cost.csv)"""
import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svgplot  # noqa: E402


def main():
    if len(sys.argv) not in (2, 3):
        print("usage: plot-be-cost.py DIR [REF] (DIR holds be-cost.csv from "
              "bench/run-be-cost.sh; REF is the mode to compare with, default plain)",
              file=sys.stderr)
        sys.exit(2)
    d = sys.argv[1]
    ref = sys.argv[2] if len(sys.argv) == 3 else "plain"
    runs, wls, modes = {}, [], []
    try:
        f = open(os.path.join(d, "be-cost.csv"))
    except OSError as e:
        print("plot-be-cost: %s; give the folder that run-be-cost.sh wrote" % e,
              file=sys.stderr)
        sys.exit(2)
    for r in csv.DictReader(f):
        if r["status"] != "0" or not r["units_per_s"]:
            continue
        runs.setdefault((r["wl"], r["mode"]), []).append(float(r["units_per_s"]))
        if r["wl"] not in wls:
            wls.append(r["wl"])
        if r["mode"] not in modes:
            modes.append(r["mode"])
    if ref not in modes:
        print("plot-be-cost: be-cost.csv has no %s runs to compare with; run "
              "run-be-cost.sh with that mode, or name one it ran (%s)"
              % (ref, " ".join(modes)), file=sys.stderr)
        sys.exit(2)
    mean = {k: sum(v) / len(v) for k, v in runs.items()}
    others = [m for m in modes if m != ref]
    rows, logs = [], {m: [] for m in others}
    for w in wls:
        row = []
        for m in others:
            if (w, m) in mean and (w, ref) in mean:
                x = mean[(w, m)] / mean[(w, ref)]
                logs[m].append(math.log(x))
                row.append(x)
            else:
                row.append(None)
        rows.append(row)
    with open(os.path.join(d, "be-cost-summary.csv"), "w") as f:
        f.write("wl," + ",".join(others) + "\n")
        for w, row in zip(wls, rows):
            f.write(w + "," + ",".join("" if x is None else "%.4f" % x
                                       for x in row) + "\n")
        f.write("geomean," + ",".join(
            "%.4f" % math.exp(sum(logs[m]) / len(logs[m])) if logs[m] else ""
            for m in others) + "\n")
    svgplot.bars(os.path.join(d, "be-cost.svg"),
                 "A BE alone under gsp-run: throughput over the %s mode's" % ref,
                 "units/s over %s" % ref, wls, others, rows, ref=1.0)


if __name__ == "__main__":
    main()
