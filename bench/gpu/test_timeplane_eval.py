#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""timeplane_eval.py on synthetic gsp-load records: TAP.

Cells, 3 s each, time-sliced in 10 ms rounds:
  be1.plain  one process busy 9.5 of every 10 ms        (util 0.95)
  be1.fifo   busy 8.55 of every 10 ms                   (util 0.855: 10 % lost)
  mix2.plain p0 6.3 ms then p1 2.7 ms a round           (70 / 30, util 0.9)
  mix2.fifo  p0 4.5, p1 4.5                             (50 / 50, util 0.9)
  mix2.band  as fifo, but the first 100 ms of each second 5.4 / 3.6 a round
             (60 / 40 there: 10 pp off in 100 ms windows, 1 pp in 1 s ones)
"""
import csv
import importlib.util
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("timeplane_eval",
                                              os.path.join(HERE, "timeplane_eval.py"))
te = importlib.util.module_from_spec(spec)
spec.loader.exec_module(te)

n = bad = 0


def ok(cond, what):
    global n, bad
    n += 1
    print(f"{'ok' if cond else 'not ok'} {n} - timeplane_eval: {what}")
    bad += not cond


MS = 1_000_000
T0 = 10_000 * MS


def write_cell(logs, cell, cfg, policy, kus, rounds):
    """rounds(i) -> [busy ms of p0, p1, ...] for round i (10 ms each)."""
    d = os.path.join(logs, "cells", cell)
    os.makedirs(d)
    recs = [[] for _ in kus]
    for i in range(300):
        t = T0 + i * 10 * MS
        for p, busy in enumerate(rounds(i)):
            b = int(busy * MS)
            recs[p].append((t, t + b))
            t += b
    for p, rs in enumerate(recs):
        with open(os.path.join(d, f"p{p}.csv"), "w") as f:
            f.write("# synthetic\n")
            f.write("tag,seq,start_ns,end_ns,active_ns,ngaps,gaps,launch_ns,lat_ns\n")
            for s, (a, b) in enumerate(rs):
                f.write(f"p{p},{s},{a},{b},{b - a},0,,1000,0\n")
    q = 0 if policy == "plain" else 2000
    with open(os.path.join(logs, "cells.txt"), "a") as f:
        f.write(f"{cell} {cfg} {policy} {q} {0 if policy == 'plain' else 1} "
                f"{','.join(map(str, kus))}\n")


with tempfile.TemporaryDirectory() as tmp:
    logs = os.path.join(tmp, "logs")
    os.makedirs(logs)
    with open(os.path.join(logs, "cells.txt"), "w") as f:
        f.write("# CELL CONFIG POLICY QUANTUM_US RUN_ON KERNELS_US\n")
    write_cell(logs, "be1.plain", "be1", "plain", [100], lambda i: [9.5])
    write_cell(logs, "be1.fifo", "be1", "fifo", [100], lambda i: [8.55])
    write_cell(logs, "mix2.plain", "mix2", "plain", [100, 1000], lambda i: [6.3, 2.7])
    write_cell(logs, "mix2.fifo", "mix2", "fifo", [100, 1000], lambda i: [4.5, 4.5])
    write_cell(logs, "mix2.band", "mix2", "band", [100, 1000],
               lambda i: [5.4, 3.6] if (i // 10) % 10 == 0 else [4.5, 4.5])
    per_window = []
    rows = {(r["config"], r["policy"]): r for r in te.rows_of(logs, "TestGPU", per_window)}
    ok(sum(1 for w in per_window if w["config"] == "mix2" and w["policy"] == "band"
           and w["window_ms"] == 100) == 2 * 29 and
       all(set(w) == set(te.WINDOW_COLUMNS) for w in per_window),
       "per window: each process of mix2/band in each of its 29 whole 100 ms windows")

    def num(cfg, pol, key):
        v = rows[(cfg, pol)][key]
        return float(v) if v != "" else None

    ok(set(rows) == {("be1", "plain"), ("be1", "fifo"), ("mix2", "plain"),
                     ("mix2", "fifo"), ("mix2", "band")}, "one row per cell")
    ok(abs(num("be1", "plain", "util") - 0.95) < 0.002, "be1 plain: util 0.95")
    ok(abs(num("be1", "fifo", "loss_vs_plain") - 0.10) < 0.002,
       f"be1 fifo: 10 % lost against plain (got {num('be1', 'fifo', 'loss_vs_plain')})")
    ok(rows[("be1", "fifo")]["loss_vs_fifo"] == "", "fifo has no loss against itself")
    ok(abs(num("mix2", "plain", "err_1s_pp") - 20.0) < 0.1,
       f"mix2 plain: 70/30 is 20 pp off 50/50 (got {num('mix2', 'plain', 'err_1s_pp')})")
    ok(abs(num("mix2", "plain", "err_1s_pct") - 40.0) < 0.2, "mix2 plain: 40 % of target")
    ok(num("mix2", "fifo", "err_100ms_pp") < 0.01, "mix2 fifo: exactly fair in every window")
    ok(8.0 < num("mix2", "band", "err_100ms_pp") <= 10.0,
       f"mix2 band: 100 ms of 60/40 rounds put a 100 ms window up to 10 pp off "
       f"(got {num('mix2', 'band', 'err_100ms_pp')}; windows start 4.5 ms into a round)")
    ok(0.5 < num("mix2", "band", "err_1s_pp") <= 1.0,
       f"mix2 band: ... and a 1 s window 1 pp at most (got {num('mix2', 'band', 'err_1s_pp')})")
    ok(abs(num("mix2", "band", "loss_vs_fifo")) < 0.002, "mix2 band: same util as fifo")
    ok(int(rows[("mix2", "band")]["windows_1s"]) == 2,
       "three seconds of records, whole 1 s windows inside the common span: 2")
    out = os.path.join(tmp, "out")
    os.makedirs(out)
    te.plots(out, list(rows.values()))
    ok(os.path.getsize(os.path.join(out, "timeplane-util.svg")) > 0 and
       os.path.getsize(os.path.join(out, "timeplane-err.svg")) > 0, "both plots written")
    os.remove(os.path.join(logs, "cells", "mix2.band", "p1.csv"))
    rows = {(r["config"], r["policy"]): r for r in te.rows_of(logs, "TestGPU")}
    ok(rows[("mix2", "band")]["util"] == "" and rows[("mix2", "fifo")]["util"] != "",
       "a cell missing a process's records gets empty figures, the others keep theirs")
    with open(os.path.join(tmp, "check.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=te.COLUMNS)
        w.writeheader()
        w.writerows(rows.values())
    with open(os.path.join(tmp, "check.csv")) as f:
        ok(f.readline().strip() == ",".join(te.COLUMNS), "the CSV header is COLUMNS")

print(f"1..{n}")
sys.exit(1 if bad else 0)
