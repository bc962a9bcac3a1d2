#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns bench/run-timeplane.sh's logs into timeplane.csv and two plots.

  timeplane_eval.py --logs OUT/logs --out OUT [--gpu NAME]

Reads LOGS/cells.txt ("CELL CONFIG POLICY QUANTUM_US RUN_ON KERNELS_US"
per line) and each cell's gsp-load records, LOGS/cells/CELL/pN.csv.
Busy intervals, windows and shares are analyze.py's (a kernel's
[start, end] minus its gaps; windows over the span where every process
recorded; share = a process's busy time over all processes'). All
weights are equal, so each target is 1/N. Writes OUT/timeplane.csv:

  config,procs,kernels_us,policy,quantum_us,run_on,util,loss_vs_plain,
  loss_vs_fifo,err_100ms_pp,err_100ms_pct,err_1s_pp,err_1s_pct,
  windows_1s,untracked,gpu

quantum_us is "auto" where the interposer sized the leases
(GSP_QUANTUM_US=auto), 0 for plain. util: the processes' busy time over the window, averaged over the 1 s
windows; loss_vs_plain: 1 - util / the plain cell's util (same config);
loss_vs_fifo: 1 - util / util of the fifo cell with the same quantum and
run-on (empty for fifo and plain); err_*: the largest |share - target|
over windows and processes, in percentage points and in percent of the
target. OUT/timeplane-windows.csv has every window of every cell
(config,policy,quantum_us,run_on,window_ms,t_s,proc,kernel_us,busy_ms,
share), the data behind both. Plots: OUT/timeplane-util.svg,
OUT/timeplane-err.svg.
"""
import argparse
import csv
import importlib.util
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import svgplot  # noqa: E402

_spec = importlib.util.spec_from_file_location("analyze", os.path.join(HERE, "analyze.py"))
analyze = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(analyze)

COLUMNS = ("config,procs,kernels_us,policy,quantum_us,run_on,util,loss_vs_plain,"
           "loss_vs_fifo,err_100ms_pp,err_100ms_pct,err_1s_pp,err_1s_pct,"
           "windows_1s,untracked,gpu").split(",")
WINDOW_COLUMNS = ("config,policy,quantum_us,run_on,window_ms,t_s,proc,kernel_us,"
                  "busy_ms,share").split(",")
WINDOWS = (("100ms", 100_000_000), ("1s", 1_000_000_000))


def read_cells(logs):
    cells = []
    with open(os.path.join(logs, "cells.txt")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            cell, cfg, policy, q, run_on, kus = line.split()
            cells.append({"cell": cell, "config": cfg, "policy": policy,
                          "quantum_us": q if q == "auto" else int(q),
                          "run_on": int(run_on),
                          "kernels_us": [int(k) for k in kus.split(",")]})
    return cells


def measure(logs, c, per_window=None):
    """util, errors and counts of one cell; None where records lack.
    Each window's busy time and share go to per_window (a list) too."""
    d = os.path.join(logs, "cells", c["cell"])
    recs = {}
    for i in range(len(c["kernels_us"])):
        p = os.path.join(d, f"p{i}.csv")
        if not os.path.isfile(p):
            return None
        recs[f"p{i}"] = analyze.read_load_csv(p)
    weights = {t: 1.0 for t in recs}
    tgt = analyze.targets(weights)
    out = {}
    for name, ns in WINDOWS:
        wins, untracked = analyze.window_shares(recs, weights, ns)
        if not wins:
            return None
        pp, rel = analyze.share_errors(wins, tgt)
        for w in wins if per_window is not None else ():
            for i, t in enumerate(recs):
                per_window.append({
                    "config": c["config"], "policy": c["policy"],
                    "quantum_us": c["quantum_us"], "run_on": c["run_on"],
                    "window_ms": ns // 1_000_000, "t_s": f"{w['t']:.1f}", "proc": t,
                    "kernel_us": c["kernels_us"][i],
                    "busy_ms": f"{w['busy'][t] / 1e6:.3f}",
                    "share": f"{w['share'][t]:.4f}"})
        out[f"err_{name}_pp"], out[f"err_{name}_pct"] = pp, rel
        if name == "1s":
            out["util"] = sum(w["util"] for w in wins) / len(wins)
            out["windows_1s"] = len(wins)
            out["untracked"] = untracked
    return out


def rows_of(logs, gpu, per_window=None):
    cells = read_cells(logs)
    got = {c["cell"]: measure(logs, c, per_window) for c in cells}
    util = {c["cell"]: got[c["cell"]]["util"] for c in cells if got[c["cell"]]}

    def find(cfg, policy, q, run_on):
        for c in cells:
            if (c["config"], c["policy"], c["quantum_us"], c["run_on"]) == (cfg, policy, q, run_on) \
                    and c["cell"] in util:
                return util[c["cell"]]
        return None

    rows = []
    for c in cells:
        m = got[c["cell"]]
        row = {"config": c["config"], "procs": len(c["kernels_us"]),
               "kernels_us": " ".join(map(str, c["kernels_us"])),
               "policy": c["policy"], "quantum_us": c["quantum_us"],
               "run_on": c["run_on"], "gpu": gpu}
        if m is None:
            row.update({k: "" for k in COLUMNS if k not in row})
            rows.append(row)
            continue
        plain = find(c["config"], "plain", 0, 0)
        fifo = None if c["policy"] in ("fifo", "plain") else \
            find(c["config"], "fifo", c["quantum_us"], c["run_on"])
        row["util"] = f"{m['util']:.4f}"
        row["loss_vs_plain"] = f"{1 - m['util'] / plain:.4f}" if plain else ""
        row["loss_vs_fifo"] = f"{1 - m['util'] / fifo:.4f}" if fifo else ""
        for k in ("err_100ms_pp", "err_100ms_pct", "err_1s_pp", "err_1s_pct"):
            row[k] = f"{m[k]:.2f}"
        row["windows_1s"] = m["windows_1s"]
        row["untracked"] = m["untracked"]
        rows.append(row)
    return rows


def label(r):
    s = r["policy"]
    if r["policy"] != "plain":
        q = r["quantum_us"]
        s += " q auto" if q == "auto" else f" q{int(q) / 1000:g}ms"
    if r["policy"] != "plain" and not r["run_on"]:
        s += " no run-on"
    return s


def plots(out, rows):
    cfgs = list(dict.fromkeys(r["config"] for r in rows))
    names = list(dict.fromkeys(label(r) for r in rows))
    for key, title, ylabel, fname in (
            ("util", "GPU busy fraction (1 s windows)", "busy fraction", "timeplane-util.svg"),
            ("err_1s_pct", "Largest share error, 1 s windows", "% of target", "timeplane-err.svg")):
        vals = []
        for cfg in cfgs:
            by = {label(r): r[key] for r in rows if r["config"] == cfg}
            vals.append([float(by[n]) if by.get(n) not in (None, "") else None for n in names])
        svgplot.bars(os.path.join(out, fname), title, ylabel, cfgs, names, vals,
                     ref=5.0 if key == "err_1s_pct" else None)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--logs", required=True, help="run-timeplane.sh's OUT/logs")
    ap.add_argument("--out", required=True, help="where timeplane.csv goes")
    ap.add_argument("--gpu", default="unknown", help="the gpu column")
    a = ap.parse_args()
    if not os.path.isfile(os.path.join(a.logs, "cells.txt")):
        sys.exit(f"timeplane_eval: {a.logs}/cells.txt is missing: give run-timeplane.sh's OUT/logs")
    per_window = []
    rows = rows_of(a.logs, a.gpu, per_window)
    with open(os.path.join(a.out, "timeplane.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COLUMNS)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(a.out, "timeplane-windows.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=WINDOW_COLUMNS)
        w.writeheader()
        w.writerows(per_window)
    plots(a.out, rows)
    print("config   mode                     util  loss/plain loss/fifo err100ms% err1s%")
    for r in rows:
        print(f"{r['config']:8} {label(r):24} {r['util']:>6} {r['loss_vs_plain']:>9} "
              f"{r['loss_vs_fifo']:>9} {r['err_100ms_pct']:>8} {r['err_1s_pct']:>6}")


if __name__ == "__main__":
    main()
