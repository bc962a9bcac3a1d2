#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""jit-latency.svg from bench/gpu/jit-latency.sh's jit-latency.csv: per
image size, each mode's first launch of the image's first kernel and the
mean first launch of the next ones. Usage: plot-jit.py DIR"""
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svgplot  # noqa: E402


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: plot-jit.py DIR (DIR holds jit-latency.csv from bench/gpu/jit-latency.sh)")
    d = sys.argv[1]
    try:
        rows = list(csv.DictReader(open(os.path.join(d, "jit-latency.csv"))))
    except OSError as e:
        sys.exit("plot-jit: %s; give the folder that jit-latency.sh wrote" % e)
    sizes, modes, first = [], [], {}
    for r in rows:
        n, m = int(r["n"]), r["mode"]
        if n not in sizes:
            sizes.append(n)
        if m not in modes:
            modes.append(m)
        first.setdefault((n, m), []).append(float(r["first_ms"]))
    groups, values = [], []
    for n in sizes:
        for what in ("first kernel", "next kernels"):
            groups.append("%d kernels, %s" % (n, what))
            row = []
            for m in modes:
                v = first.get((n, m))
                if not v:
                    row.append(None)
                elif what == "first kernel":
                    row.append(v[0])
                else:
                    row.append(sum(v[1:]) / len(v[1:]) if len(v) > 1 else None)
            values.append(row)
    svgplot.bars(os.path.join(d, "jit-latency.svg"),
                 "First launch of a kernel, image of N kernels",
                 "ms (host, launch to synchronize)", groups, modes, values)


main()
