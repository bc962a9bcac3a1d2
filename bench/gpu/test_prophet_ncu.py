#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit test of prophet-ncu.py on a fixture ncu CSV (the details layout,
with the ==PROF== lines before it) and a small gsp-trace: the medians,
the kernel ncu missed, copies left alone, and the refusals. Prints TAP
lines ("ok - ..." / "not ok - ...") only."""
import contextlib
import importlib.util
import io
import os
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("prophet_ncu",
                                              os.path.join(HERE, "prophet-ncu.py"))
pn = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pn)

results = []
HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name",'
        '"Context","Stream","Block Size","Grid Size","Device","CC",'
        '"Section Name","Metric Name","Metric Unit","Metric Value"')
# kernel a: 3 launches of 1e6 bytes in 1000, 2000, 4000 ns: median 5e11 B/s;
# kernel "b,c" (a comma in its name): 1 launch, 2e6 bytes in 1000 ns, with
# thousands separators as ncu prints them; kernel z: no time, ignored.
LAUNCHES = [("a", 1e6, 1000), ("a", 1e6, 2000), ("b,c", 2e6, 1000),
            ("a", 1e6, 4000), ("z", 5e6, None)]
TRACE = """# gsp-trace 1
seq,query,type,submit_ns,gap_ns,dur_ns,grid,threads,regs,smem,dram_Bps,bytes,pinned,name
0,0,h2d,0,0,100,0,0,0,0,0,4096,1,h2d
1,0,kernel,20,0,900,8,256,32,0,0,0,0,a
2,0,kernel,40,5,900,8,256,32,0,0,0,0,b_c
3,1,kernel,60,5,900,8,256,32,0,0,0,0,missed
4,1,kernel,80,5,900,8,256,32,0,0,0,0,a
"""


def check(cond, what, detail=""):
    results.append(bool(cond))
    print(f"{'ok' if cond else 'not ok'} - prophet-ncu: {what}")
    if not cond and detail:
        for line in str(detail).splitlines():
            print(f"# {line}")


def ncu_csv(path):
    with open(path, "w", encoding="utf-8") as f:
        f.write("==PROF== Connected to process 1 (gsp-wl)\n" + HEAD + "\n")
        for i, (name, b, t) in enumerate(LAUNCHES):
            for metric, unit, v in (("dram__bytes.sum", "byte", b),
                                    ("gpu__time_duration.sum", "nsecond", t)):
                val = "n/a" if v is None else f"{v:,.0f}"
                f.write(f'"{i}","1","gsp-wl","h","{name}","1","7","(256, 1, 1)",'
                        f'"(8, 1, 1)","0","9.0","Command line profiler metrics",'
                        f'"{metric}","{unit}","{val}"\n')


def call(argv):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc = pn.main(argv)
    return rc, err.getvalue()


def run(d):
    ncu, trace, out = (os.path.join(d, n) for n in ("ncu.csv", "t.csv", "o.csv"))
    ncu_csv(ncu)
    with open(trace, "w", encoding="utf-8") as f:
        f.write(TRACE)
    rc, err = call([trace, ncu, "--out", out])
    check(rc == 0, "exit 0 on a good trace and CSV", err)
    rows = [l.split(",") for l in open(out, encoding="utf-8").read().splitlines()[2:]]
    check(len(rows) == 5 and all(len(r) == 14 for r in rows), "5 rows of 14 fields")
    check(float(rows[1][10]) == 5e11 and float(rows[4][10]) == 5e11,
          "kernel a: the median of its three launches (5e11 B/s)", rows)
    check(float(rows[2][10]) == 2e12, "kernel 'b,c' matched as b_c, thousands separators read", rows)
    check(rows[0][10] == "0" and rows[3][10] == "0",
          "the copy and the kernel ncu missed keep 0", rows)
    check("1 kernels (1 rows)" in err and "missed" in err,
          "a warning counts the kernels ncu missed", err)
    check(open(trace, encoding="utf-8").read() == TRACE, "--out leaves the trace alone")
    rc, _ = call([trace, ncu])
    check(rc == 0 and open(trace, encoding="utf-8").read() == open(out, encoding="utf-8").read(),
          "without --out, the trace is filled in place")
    with open(trace, "w", encoding="utf-8") as f:
        f.write(TRACE.replace("# gsp-trace 1", "# gsp-trace 2"))
    check(call([trace, ncu])[0] == 1, "exit 1 for a trace of another version")
    with open(trace, "w", encoding="utf-8") as f:
        f.write(TRACE + "5,1,kernel,1\n")
    check(call([trace, ncu])[0] == 1, "exit 1 for a short row")
    check(call([trace])[0] == 2, "exit 2 without the ncu CSV")
    check(call([trace, ncu, "--bogus"])[0] == 2, "exit 2 for an unknown option")
    check(call([trace, os.path.join(d, "none.csv")])[0] == 1, "exit 1 for a missing ncu CSV")


def main():
    with tempfile.TemporaryDirectory() as d:
        run(d)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
