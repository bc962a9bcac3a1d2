#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""cumas_eval.py and bench/gpu/flowshop on a synthetic log: TAP.

The log is CuMAS's worked example, A=[4,1,1], B=[1,4,1], C=[1,1,4] ms:
three processes of one iteration each, run in arrival order as a flow
shop would (makespan 14 ms; the core's optimum C,B,A is 8 ms), with the
events before each copy-in stamped at 0, as when the copies wait.
"""
import importlib.util
import itertools
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EVAL = os.path.join(HERE, "cumas_eval.py")
BUILD = os.environ.get("BUILD", "build")
TOOL = os.path.join(BUILD, "gpu", "flowshop")

spec = importlib.util.spec_from_file_location("cumas_eval", EVAL)
ce = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ce)

n = 0
bad = 0


def ok(cond, what):
    global n, bad
    n += 1
    print(f"{'ok' if cond else 'not ok'} {n} - cumas_eval: {what}")
    bad += not cond


T0 = 1000000.0
SHAPES = {"A": (4000, 1000, 1000), "B": (1000, 4000, 1000),
          "C": (1000, 1000, 4000)}


def xfer_out(name, pid, its, start=T0, end=None, iters=None):
    s, p, r = SHAPES[name]
    lines = ["cfg,%s,%d,%d,%d,%d,spin,1000,%d,%d,%d" %
             (name, pid, iters or len(its), 4096, 4096, s, p, r)]
    for i, t in enumerate(its):
        lines.append("it,%s,%d,%d,%.3f,%.3f,%.3f,%.3f" %
                     ((name, pid, i) + tuple(T0 + x for x in t)))
    if end is not None:
        lines.append("proc,%s,%d,%.3f,%.3f,%d" %
                     (name, pid, start, T0 + end, len(its)))
    return "\n".join(lines) + "\n"


def put(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def make_logs(d):
    put(os.path.join(d, "calib.txt"),
        "calib,h2d_bpus=55000.0,d2h_bpus=55000.0,spin_iters_per_us=100,"
        "spin_base_us=3,mem_us_per_pass=50,mem_base_us=3,sms=132,gpu=Test GPU\n")
    for k, (s, p, r) in SHAPES.items():
        its = [(10000 * i, 10000 * i + s, 10000 * i + s + p,
                10000 * i + s + p + r) for i in range(3)]
        put(os.path.join(d, "solo", k + ".out"),
            xfer_out(k, 1, its, end=30000))
    put(os.path.join(d, "cells.txt"),
        "# CELL MIX PROCS POLICY REORDER WINDOW\n"
        "m.fifo mixed 3 fifo 0 0\n"
        "m.lost mixed 2 fifo 1 8\n"
        "a.plain xfer 2 plain 0 0\n")
    cell = os.path.join(d, "cells", "m.fifo")
    put(os.path.join(cell, "0.A.out"), xfer_out("A", 10, [(0, 4000, 5000, 6000)], end=6000))
    put(os.path.join(cell, "1.B.out"), xfer_out("B", 11, [(0, 5000, 9000, 10000)], end=10000))
    put(os.path.join(cell, "2.C.out"), xfer_out("C", 12, [(0, 6000, 10000, 14000)], end=14000))
    # Two copy-ins that share the link, each twice its solo length.
    cell = os.path.join(d, "cells", "a.plain")
    put(os.path.join(cell, "0.A.out"), xfer_out("A", 30, [(0, 8000, 9000, 10000)], end=10000))
    put(os.path.join(cell, "1.A.out"), xfer_out("A", 31, [(0, 8000, 9000, 10000)], end=10000))
    cell = os.path.join(d, "cells", "m.lost")
    put(os.path.join(cell, "0.A.out"), xfer_out("A", 20, [(0, 4000, 5000, 6000)], end=6000))
    put(os.path.join(cell, "1.B.out"), "cfg,B,21,1,4096,4096,spin,1,1000,4000,1000\n")


def brute(tasks):
    best = None
    for perm in itertools.permutations(range(len(tasks))):
        cs = cp = cr = 0.0
        for i in perm:
            s, p, r = tasks[i]
            cs += s
            cp = max(cs, cp) + p
            cr = max(cp, cr) + r
        m = max(cp, cr)
        best = m if best is None or m < best else best
    return best


def tool(text):
    return subprocess.run([TOOL], input=text, capture_output=True, text=True)


# flowshop, the core's solver --------------------------------------------------
have_tool = os.access(TOOL, os.X_OK)
ok(have_tool, "bench/gpu/flowshop is built (%s)" % TOOL)
if have_tool:
    r = tool("4000 1000 1000\n1000 4000 1000\n1000 1000 4000\n")
    ok(r.returncode == 0 and "fifo_us=14000.000 opt_us=8000.000" in r.stdout
       and "lb_us=8000.000" in r.stdout and "order=2,1,0" in r.stdout,
       "flowshop: the worked example, FCFS 14 ms, C,B,A 8 ms")
    r = tool("1 10 1\n1 1 20\n1 1 1\n")
    ok(r.returncode == 0 and "fifo_us=33.000" in r.stdout,
       "flowshop: the exact recurrence (33, not Eq. 2's 24)")
    rng = random.Random(7)
    same = True
    for _ in range(20):
        k = rng.randint(2, 6)
        ts = [tuple(float(rng.randint(1, 5000)) for _ in range(3)) for _ in range(k)]
        r = tool("".join("%g %g %g\n" % t for t in ts))
        got = float(r.stdout.split("opt_us=")[1].split()[0]) if r.returncode == 0 else -1
        same &= abs(got - brute(ts)) < 1e-6
    ok(same, "flowshop: 20 random windows of 2..6 tasks are optimal against brute force")
    r = tool("1 2\n")
    ok(r.returncode == 2 and "line 1" in r.stderr, "flowshop: a bad line exits 2 naming it")
    r = tool("1 1 1\n" * 33)
    ok(r.returncode == 2 and "at most 32" in r.stderr, "flowshop: 33 tasks exit 2")
    r = tool("# nothing\n")
    ok(r.returncode == 2, "flowshop: no task exits 2")

# the pieces -----------------------------------------------------------------------
ok(sorted(["10.b.out", "2.compute.out", "1.h2d.out", "x.out"], key=ce.proc_order) ==
   ["1.h2d.out", "2.compute.out", "10.b.out", "x.out"],
   "processes in their cell's order, by number, not by name")
ok(len(ce.multiset_perms([1, 1, 2, 2, 3, 3, 4, 4])) == 2520,
   "8 processes of 4 classes: 2520 distinct orders")
# [4,1,1] and [1,4,1]: B then A, 6 ms per round after the first (chain 6)
ok(abs(ce.cyclic([(4, 1, 1), (1, 4, 1)], 1) - 7) < 1e-9 and
   abs(ce.cyclic([(4, 1, 1), (1, 4, 1)], 3) - 19) < 1e-9,
   "cyclic: one round is the flow shop (7); 3 rounds overlap (19, not 21)")
ok(ce.union([(0, 2), (1, 3), (5, 6), (10, 12)], 0, 11) == [[0, 3], [5, 6], [10, 11]],
   "union merges and clips")
ok(abs(ce.overlap2([[[0, 4]], [[2, 6]], [[3, 5]]]) - 3) < 1e-9,
   "overlap2: time with two or more busy")
x = {"cfg": {"h2d_bytes": 1, "kwork": 1, "d2h_bytes": 0},
     "its": [(0.0, 6000.0, 10000.0, 10000.0)]}
iv = ce.intervals(x, [1000.0, 1000.0, 0.0])
ok(iv == ([(5000.0, 6000.0)], [(9000.0, 10000.0)], []),
   "a stage that waited is its solo length before its end; no copy-out, no interval")
ok(ce.intervals(x, None)[0] == [(0.0, 6000.0)], "without a solo run, the raw span")

# the whole log -------------------------------------------------------------------------
with tempfile.TemporaryDirectory() as d:
    logs, out = os.path.join(d, "logs"), os.path.join(d, "out")
    r = subprocess.run([sys.executable, EVAL, "--logs", d, "--out", out],
                       capture_output=True, text=True)
    ok(r.returncode == 2 and "cells.txt" in r.stderr, "logs without cells.txt exit 2")
    make_logs(logs)
    r = subprocess.run([sys.executable, EVAL, "--logs", logs, "--out", out,
                        "--flowshop", TOOL], capture_output=True, text=True)
    ok(r.returncode == 0, "the synthetic log is evaluated")
    ok("m.lost: 1 of 2 processes finished" in r.stderr, "a process without its proc line is named")
    rows = open(os.path.join(out, "cumas.csv")).read().splitlines()
    ok(rows[0] == "mix,procs,policy,reorder,window,makespan_ms,optimum_ms,"
       "fifo_makespan_ms,h2d_busy,kernel_busy,d2h_busy,gpu",
       "cumas.csv has exactly the asked columns")
    ok(rows[1] == "mixed,3,fifo,0,0,14.000,8.000,14.000,0.429,0.429,0.429,Test GPU",
       "makespan 14, optimum 8, FCFS 14, each engine busy 6 of 14 ms")
    ok(rows[2] == "mixed,2,fifo,1,8,6.000,7.000,10.000,0.667,0.167,0.167,Test GPU"
       and len(rows) == 4,
       "a cell with a lost process keeps its row; the model is the plan's")
    ok(rows[3] == "xfer,2,plain,0,0,10.000,10.000,10.000,0.800,0.100,0.100,Test GPU",
       "plain: copies that share the link count from the event before them")
    cells = open(os.path.join(out, "cumas-cells.csv")).read().splitlines()
    ok(cells[1].endswith(",0.214,0.000,6.000,8.000,14.000,8.000,8.000,2 1 0,1,3"),
       "cumas-cells.csv: overlap 3 of 14 ms, load bound 6, order C,B,A")
    procs = open(os.path.join(out, "cumas-procs.csv")).read().splitlines()
    ok(len(procs) == 7 and procs[3].startswith("mixed,3,fifo,0,0,2,C,12,1,0.000,14.000,14.000,6.000,4.000,4.000,14.000,6.000"),
       "cumas-procs.csv: one row per finished process, C's spans and solo")
    subprocess.run(["tar", "czf", os.path.join(d, "logs.tgz"), "-C", d, "logs"], check=True)
    out2 = os.path.join(d, "out2")
    r = subprocess.run([sys.executable, EVAL, "--logs", os.path.join(d, "logs.tgz"),
                        "--out", out2, "--flowshop", TOOL], capture_output=True, text=True)
    ok(r.returncode == 0 and open(os.path.join(out2, "cumas.csv")).read() ==
       open(os.path.join(out, "cumas.csv")).read(), "logs.tgz gives the same CSV")
# xfer's arguments and the runner's plan, without a GPU --------------------------------
XFER = os.path.join(BUILD, "gpu", "xfer")
RUNNER = os.path.join(HERE, "..", "run-cumas.sh")
if os.access(XFER, os.X_OK):
    for args, opt in ((["--iters", "0"], "--iters"), (["--kernel", "foo"], "--kernel"),
                      (["--h2d-us", "-1"], "--h2d-us"), (["--name", "a,b"], "--name"),
                      (["--calib", "/nonexistent/calib.txt"], "--calib"),
                      (["--bogus", "1"], "--bogus"), (["--iters"], "--iters")):
        r = subprocess.run([XFER] + args, capture_output=True, text=True)
        ok(r.returncode == 2 and opt in r.stderr,
           "xfer %s exits 2 naming %s" % (" ".join(args), opt))
else:
    print("ok %d - cumas_eval: xfer's argument checks # SKIP %s is not built (no nvcc)"
          % (n + 1, XFER))
    n += 1
r = subprocess.run(["bash", RUNNER, "--dry-run"], capture_output=True, text=True)
ok(r.returncode == 0 and "# 72 cells;" in r.stdout and "mixed.n8.mps" in r.stdout,
   "run-cumas.sh --dry-run plans 72 cells")
r = subprocess.run(["bash", RUNNER, "--quick", "--dry-run"], capture_output=True, text=True)
ok(r.returncode == 0 and "# 15 cells;" in r.stdout and "--iters 40" in r.stdout,
   "run-cumas.sh --quick --dry-run plans 15 cells of 40 iterations")
for args, what in ((["--mixes", "foo", "--dry-run"], "unknown mix"),
                   (["--configs", "^nothing$", "--dry-run"], "no cell left"),
                   (["--iters", "0", "--dry-run"], "--iters"),
                   (["--bogus", "x", "--dry-run"], "unknown option")):
    r = subprocess.run(["bash", RUNNER] + args, capture_output=True, text=True)
    ok(r.returncode == 2 and what in r.stderr, "run-cumas.sh %s exits 2: %s" % (args[0], what))
print(f"1..{n}")
sys.exit(1 if bad else 0)
