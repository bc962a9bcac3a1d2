#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The CuMAS experiment's logs as CSV (bench/run-cumas.sh).

    cumas_eval.py --logs DIR|logs.tgz --out DIR [--flowshop PATH] [--gpu NAME]

LOGS holds what run-cumas.sh wrote:

    cells.txt          one line per cell: CELL MIX PROCS POLICY REORDER WINDOW
                       (POLICY fifo, band, plain or mps; REORDER 0 or 1;
                       WINDOW 0 without reorder)
    calib.txt          xfer --calibrate's line (gpu= names the GPU)
    solo/CLASS.out     xfer of each class alone, plain CUDA
    cells/CELL/*.out   each process's xfer output (bench/gpu/xfer.cu)

and writes, in OUT:

    cumas.csv        mix,procs,policy,reorder,window,makespan_ms,optimum_ms,
                     fifo_makespan_ms,h2d_busy,kernel_busy,d2h_busy,gpu
    cumas-procs.csv  one row per process (below)
    cumas-cells.csv  cumas.csv's columns, then overlap (the share of the
                     makespan with two or more engines busy), start_skew_ms
                     (the last process's START less the first's), lb_ms,
                     cyclic_ms,
                     round_fifo_ms, round_opt_ms, round_lb_ms, opt_order,
                     iters, procs_ok

Definitions (Documentation/benchmarks.rst, "CuMAS on a GPU"):

* makespan: the last process's END less the first one's START (xfer's
  "proc" lines, CLOCK_MONOTONIC).
* busy fractions: from the processes' own stage intervals, not from the
  arbiter, merged over processes as a union of intervals within the
  makespan. A stage ends at the event after it. Under plain CUDA and
  MPS it starts at the event before it: the hardware has it as soon as
  the stream reaches it, and while it waits for an engine that engine
  is busy with another's (copies of several processes in one direction
  share the link at once, each slower than alone). Under gspaced the
  interposer issues it only once its lease is granted, and a lease
  holds its engine alone, so it starts at the later of the event before
  it and its end less the stage's solo length (the median of that class
  alone): the wait for the lease is not counted as busy.
* the model: the job lengths are each class's solo medians; one round is
  one task (copy-in, kernel, copy-out) per process, in the cell's process
  order. bench/gpu/flowshop (the scheduling core's gsp_cumas_solve(),
  exact up to 10 tasks) gives the round's makespan in that order
  (round_fifo) and its optimum (round_opt). optimum_ms is ITERS x
  round_opt: the best fixed order of the processes run round after round;
  fifo_makespan_ms is ITERS x round_fifo. lb_ms, a bound no schedule
  beats: ITERS x the larger of the busiest engine's load per round and
  the longest task (each process runs its tasks one after another).
  cyclic_ms: the best fixed order of the processes repeated ITERS
  times with rounds overlapping, each process's copy-in after its own
  last copy-out: what a scheduler that keeps one order could reach
  (between lb_ms and optimum_ms; computed here, not by the core).
"""

import argparse
import csv
import io
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile

CELL_COLS = ["mix", "procs", "policy", "reorder", "window", "makespan_ms",
             "optimum_ms", "fifo_makespan_ms", "h2d_busy", "kernel_busy",
             "d2h_busy", "gpu"]
EXTRA_COLS = ["overlap", "start_skew_ms", "lb_ms", "cyclic_ms", "round_fifo_ms", "round_opt_ms",
              "round_lb_ms", "opt_order", "iters", "procs_ok"]
PROC_COLS = ["mix", "procs", "policy", "reorder", "window", "proc", "class",
             "pid", "iters", "start_ms", "end_ms", "completion_ms",
             "h2d_ms", "kernel_ms", "d2h_ms", "iter_ms", "solo_iter_ms",
             "gpu"]


class LogError(Exception):
    pass


def parse_xfer(text):
    """One xfer output: {'cfg': dict, 'its': [(s, he, ke, de)], 'proc': dict}."""
    out = {"cfg": None, "its": [], "proc": None}
    for n, line in enumerate(text.splitlines(), 1):
        f = line.strip().split(",")
        try:
            if f[0] == "cfg" and len(f) == 11:
                out["cfg"] = {"name": f[1], "pid": int(f[2]),
                              "iters": int(f[3]), "h2d_bytes": int(f[4]),
                              "d2h_bytes": int(f[5]), "kernel": f[6],
                              "kwork": int(f[7]), "h2d_us": int(f[8]),
                              "kern_us": int(f[9]), "d2h_us": int(f[10])}
            elif f[0] == "it" and len(f) == 8:
                out["its"].append(tuple(float(x) for x in f[4:8]))
            elif f[0] == "proc" and len(f) == 6:
                out["proc"] = {"name": f[1], "pid": int(f[2]),
                               "start": float(f[3]), "end": float(f[4]),
                               "iters": int(f[5])}
        except ValueError as e:
            raise LogError("line %d: %s: %s" % (n, line.strip(), e))
    return out


def stages(its):
    """Per iteration: the raw spans of copy-in, kernel, copy-out (us)."""
    return [(he - s, ke - he, de - ke) for s, he, ke, de in its]


def solo_lengths(x):
    """Median stage lengths (us) of a solo run, stages it does not have 0."""
    sp = stages(x["its"])
    if not sp:
        return None
    cfg = x["cfg"] or {}
    med = [statistics.median(v[k] for v in sp) for k in range(3)]
    present = [cfg.get("h2d_bytes", 1) > 0, cfg.get("kwork", 1) > 0,
               cfg.get("d2h_bytes", 1) > 0]
    return [m if p else 0.0 for m, p in zip(med, present)]


def intervals(x, solo):
    """The busy intervals [start, end) of each engine for one process."""
    eng = ([], [], [])
    cfg = x["cfg"] or {}
    present = [cfg.get("h2d_bytes", 1) > 0, cfg.get("kwork", 1) > 0,
               cfg.get("d2h_bytes", 1) > 0]
    for s, he, ke, de in x["its"]:
        prev = (s, he, ke)
        end = (he, ke, de)
        for k in range(3):
            if not present[k]:
                continue
            st = prev[k]
            if solo is not None:
                st = max(st, end[k] - solo[k])
            if end[k] > st:
                eng[k].append((st, end[k]))
    return eng


def union(iv, lo, hi):
    """Merged [a, b) intervals of @iv clipped to [lo, hi]."""
    out = []
    for a, b in sorted(iv):
        a, b = max(a, lo), min(b, hi)
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def length(iv):
    return sum(b - a for a, b in iv)


def overlap2(unions):
    """Time during which two or more of the merged interval lists are busy."""
    ev = []
    for u in unions:
        for a, b in u:
            ev.append((a, 1))
            ev.append((b, -1))
    ev.sort()
    depth, last, tot = 0, None, 0.0
    for t, d in ev:
        if depth >= 2 and last is not None:
            tot += t - last
        depth += d
        last = t
    return tot


def flowshop(tasks, tool):
    """(round_fifo_us, round_opt_us, round_lb_us, order) from the tool."""
    if not tool or not os.access(tool, os.X_OK):
        raise LogError("no flowshop tool at %s (make build/gpu/flowshop)" % tool)
    text = "".join("%.3f %.3f %.3f\n" % tuple(t) for t in tasks)
    r = subprocess.run([tool], input=text, capture_output=True, text=True,
                       check=False)
    if r.returncode:
        raise LogError("flowshop: %s" % r.stderr.strip())
    kv = dict(w.split("=", 1) for w in r.stdout.split()[1:])
    return (float(kv["fifo_us"]), float(kv["opt_us"]), float(kv["lb_us"]),
            kv["order"])


def multiset_perms(items):
    """Each distinct order of @items (equal items are not told apart)."""
    kinds = sorted(set(items))
    count = {k: items.count(k) for k in kinds}
    out, cur = [], []

    def rec():
        if len(cur) == len(items):
            out.append(tuple(cur))
            return
        for k in kinds:
            if count[k]:
                count[k] -= 1
                cur.append(k)
                rec()
                cur.pop()
                count[k] += 1
    rec()
    return out


_cyclic_cache = {}


def cyclic(tasks, iters):
    """The best fixed order repeated for @iters rounds, each process's
    copy-in after its own last copy-out (its stream synchronise): the
    makespan (us) by the flow-shop recurrence, over every distinct order."""
    key = (tuple(tuple(t) for t in tasks), iters)
    if key in _cyclic_cache:
        return _cyclic_cache[key]
    best = None
    for seq in multiset_perms([tuple(t) for t in tasks]):
        cs = cp = cr = 0.0
        done = [0.0] * len(seq)
        for _ in range(iters):
            for j, (a, b, c) in enumerate(seq):
                cs = max(cs, done[j]) + a
                cp = max(cs, cp) + b
                cr = max(cp, cr) + c
                done[j] = cr
        m = max(done)
        if best is None or m < best:
            best = m
    _cyclic_cache[key] = best
    return best


def fmt(v, nd=3):
    return "" if v is None else ("%.*f" % (nd, v))


def proc_order(fn):
    """K.CLASS.out files by K, the process's place in its cell."""
    k = fn.split(".", 1)[0]
    return (0, int(k), fn) if k.isdigit() else (1, 0, fn)


def read_cells(logs):
    cells = []
    with open(os.path.join(logs, "cells.txt")) as f:
        for n, line in enumerate(f, 1):
            w = line.split()
            if not w or w[0].startswith("#"):
                continue
            if len(w) != 6:
                raise LogError("cells.txt line %d: want CELL MIX PROCS POLICY REORDER WINDOW" % n)
            cells.append({"cell": w[0], "mix": w[1], "procs": int(w[2]),
                          "policy": w[3], "reorder": int(w[4]),
                          "window": int(w[5])})
    return cells


def gpu_name(logs):
    try:
        with open(os.path.join(logs, "calib.txt")) as f:
            for line in f:
                if line.startswith("calib,") and ",gpu=" in line:
                    return line.strip().split(",gpu=", 1)[1]
    except OSError:
        pass
    return ""


def evaluate(logs, tool, gpu=None, warn=sys.stderr):
    """Returns (cell rows, extra rows, proc rows), each a list of dicts."""
    gpu = gpu if gpu is not None else gpu_name(logs)
    solo = {}
    sdir = os.path.join(logs, "solo")
    if os.path.isdir(sdir):
        for fn in sorted(os.listdir(sdir)):
            if fn.endswith(".out"):
                with open(os.path.join(sdir, fn)) as f:
                    x = parse_xfer(f.read())
                lens = solo_lengths(x)
                if lens:
                    solo[fn[:-4]] = lens
    rows, extra, procs = [], [], []
    for c in read_cells(logs):
        d = os.path.join(logs, "cells", c["cell"])
        xs = []
        if os.path.isdir(d):
            for fn in sorted(os.listdir(d), key=proc_order):
                if fn.endswith(".out"):
                    with open(os.path.join(d, fn)) as f:
                        x = parse_xfer(f.read())
                    x["file"] = fn
                    xs.append(x)
        ok = [x for x in xs if x["proc"] and x["cfg"] and x["its"]]
        key = {k: c[k] for k in ("mix", "procs", "policy", "reorder", "window")}
        row = dict(key, gpu=gpu)
        ex = {"procs_ok": len(ok)}
        if len(ok) != c["procs"]:
            print("cumas_eval: %s: %d of %d processes finished" %
                  (c["cell"], len(ok), c["procs"]), file=warn)
        if ok:
            t0 = min(x["proc"]["start"] for x in ok)
            t1 = max(x["proc"]["end"] for x in ok)
            span = t1 - t0
            row["makespan_ms"] = span / 1e3
            ex["start_skew_ms"] = (max(x["proc"]["start"] for x in ok) - t0) / 1e3
            if ex["start_skew_ms"] > 0.02 * row["makespan_ms"] + 5:
                print("cumas_eval: %s: the processes started %.1f ms apart "
                      "(a larger --start-delay-ms lets them start together)"
                      % (c["cell"], ex["start_skew_ms"]), file=warn)
            engs = ([], [], [])
            for i, x in enumerate(ok):
                cls = x["cfg"]["name"]
                # Under gspace a stage is issued once its lease is
                # granted, and then has its engine alone; without it the
                # hardware takes it when the stream reaches it.
                gated = c["policy"] not in ("plain", "mps")
                iv = intervals(x, solo.get(cls) if gated else None)
                for k in range(3):
                    engs[k].extend(iv[k])
                sp = stages(x["its"])
                procs.append(dict(
                    key, proc=i, gpu=gpu, **{"class": cls},
                    pid=x["proc"]["pid"], iters=x["proc"]["iters"],
                    start_ms=(x["proc"]["start"] - t0) / 1e3,
                    end_ms=(x["proc"]["end"] - t0) / 1e3,
                    completion_ms=(x["proc"]["end"] - t0) / 1e3,
                    h2d_ms=statistics.mean(v[0] for v in sp) / 1e3,
                    kernel_ms=statistics.mean(v[1] for v in sp) / 1e3,
                    d2h_ms=statistics.mean(v[2] for v in sp) / 1e3,
                    iter_ms=statistics.mean(b[3] - b[0] for b in x["its"]) / 1e3,
                    solo_iter_ms=(sum(solo[cls]) / 1e3 if cls in solo else None)))
            us = [union(e, t0, t1) for e in engs]
            if span > 0:
                for k, name in enumerate(("h2d_busy", "kernel_busy", "d2h_busy")):
                    row[name] = length(us[k]) / span
                ex["overlap"] = overlap2(us) / span
        # The model, from the planned classes (ok or not, in cell order).
        classes = [x["cfg"]["name"] for x in xs if x["cfg"]]
        iters = max([x["cfg"]["iters"] for x in xs if x["cfg"]] or [0])
        if classes and len(classes) == c["procs"] and all(k in solo for k in classes):
            tasks = [solo[k] for k in classes]
            try:
                rf, ro, rl, order = flowshop(tasks, tool)
                row["optimum_ms"] = iters * ro / 1e3
                row["fifo_makespan_ms"] = iters * rf / 1e3
                load = max(sum(t[k] for t in tasks) for k in range(3))
                chain = max(sum(t) for t in tasks)
                ex.update(round_fifo_ms=rf / 1e3, round_opt_ms=ro / 1e3,
                          round_lb_ms=rl / 1e3, opt_order=order.replace(",", " "),
                          lb_ms=iters * max(load, chain) / 1e3, iters=iters,
                          cyclic_ms=cyclic(tasks, iters) / 1e3)
            except LogError as e:
                print("cumas_eval: %s: %s" % (c["cell"], e), file=warn)
        rows.append(row)
        extra.append(dict(row, **ex))
    return rows, extra, procs


def write_csv(path, cols, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(cols)
        for r in rows:
            w.writerow([fmt(r.get(k)) if isinstance(r.get(k), float)
                        else ("" if r.get(k) is None else r.get(k))
                        for k in cols])


def summary(rows):
    out = io.StringIO()
    out.write("%-9s %5s %-6s %3s %3s %10s %10s %6s %6s %6s\n" %
              ("mix", "procs", "policy", "ro", "w", "makespan", "optimum",
               "h2d", "kern", "d2h"))
    for r in rows:
        out.write("%-9s %5s %-6s %3s %3s %10s %10s %6s %6s %6s\n" % (
            r["mix"], r["procs"], r["policy"], r["reorder"], r["window"],
            fmt(r.get("makespan_ms"), 1), fmt(r.get("optimum_ms"), 1),
            fmt(r.get("h2d_busy"), 2), fmt(r.get("kernel_busy"), 2),
            fmt(r.get("d2h_busy"), 2)))
    return out.getvalue()


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--logs", required=True,
                    help="run-cumas.sh's logs folder, or its logs.tgz")
    ap.add_argument("--out", required=True, help="where the CSVs go")
    ap.add_argument("--flowshop", default=os.path.join(
        os.environ.get("BUILD", "build"), "gpu", "flowshop"))
    ap.add_argument("--gpu", default=None, help="the gpu column (default: calib.txt's)")
    a = ap.parse_args(argv)
    tmp = None
    logs = a.logs
    try:
        if os.path.isfile(logs) and tarfile.is_tarfile(logs):
            tmp = tempfile.TemporaryDirectory()
            with tarfile.open(logs) as t:
                if hasattr(tarfile, "data_filter"):
                    t.extractall(tmp.name, filter="data")
                else:
                    t.extractall(tmp.name)
            logs = os.path.join(tmp.name, "logs")
        if not os.path.isfile(os.path.join(logs, "cells.txt")):
            print("cumas_eval: %s has no cells.txt (is it run-cumas.sh's logs?)"
                  % a.logs, file=sys.stderr)
            return 2
        rows, extra, procs = evaluate(logs, a.flowshop, a.gpu)
    except (LogError, OSError) as e:
        print("cumas_eval: %s" % e, file=sys.stderr)
        return 1
    finally:
        if tmp:
            tmp.cleanup()
    os.makedirs(a.out, exist_ok=True)
    write_csv(os.path.join(a.out, "cumas.csv"), CELL_COLS, rows)
    write_csv(os.path.join(a.out, "cumas-cells.csv"), CELL_COLS + EXTRA_COLS, extra)
    write_csv(os.path.join(a.out, "cumas-procs.csv"), PROC_COLS, procs)
    sys.stdout.write(summary(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
