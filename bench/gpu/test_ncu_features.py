#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit test of ncu_features.py on hand-written ncu CSVs (both layouts)
whose features are known. Prints TAP lines ("ok - ..." / "not ok - ...")
only."""
import contextlib
import csv
import io
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncu_features as nf  # noqa: E402

results = []
MEM = ["smsp__sass_inst_executed_op_global_ld.sum",
       "smsp__sass_inst_executed_op_shared_st.sum"]
HEAD = ('"ID","Process ID","Process Name","Host Name","Kernel Name",'
        '"Context","Stream","Block Size","Grid Size","Device","CC",'
        '"Section Name","Metric Name","Metric Unit","Metric Value"')


def check(cond, what, detail=""):
    results.append(bool(cond))
    print(f"{'ok' if cond else 'not ok'} - ncu_features: {what}")
    if not cond and detail:
        for line in str(detail).splitlines():
            print(f"# {line}")


def call(argv):
    """ncu_features.main(argv), its messages kept from the TAP stream."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        return nf.main(argv)


def kernel_metrics(t_ns, insts, mem, rates):
    m = {"gpu__time_duration.sum": ("nsecond", t_ns),
         "smsp__inst_executed.sum": ("inst", insts),
         MEM[0]: ("inst", mem[0]), MEM[1]: ("inst", mem[1])}
    for (_, metric), v in zip(nf.RATES, rates):
        m[metric] = ("%", v)
    return m


def long_csv(path, kernels):
    """kernels: list of (name, grid, metrics) in the details layout, with
    the ==PROF== lines ncu prints before it."""
    with open(path, "w", encoding="utf-8") as f:
        f.write("==PROF== Connected to process 1 (x)\n" + HEAD + "\n")
        for i, (name, grid, m) in enumerate(kernels):
            for metric, (unit, v) in m.items():
                val = f"{v:,.2f}" if unit != "%" else f"{v}"
                f.write(f'"{i}","1","x","h","{name}","1","7","(256, 1, 1)",'
                        f'"({grid}, 1, 1)","0","9.0","Command line profiler metrics",'
                        f'"{metric}","{unit}","{val}"\n')


def wide_csv(path, kernels):
    names = list(kernels[0][2])
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, quoting=csv.QUOTE_ALL)
        w.writerow(["ID", "Kernel Name", "Grid Size", "Block Size"] + names)
        w.writerow(["", "", "", ""] + [kernels[0][2][n][0] for n in names])
        for i, (name, grid, m) in enumerate(kernels):
            w.writerow([i, name, f"({grid}, 1, 1)", "(128, 1, 1)"] +
                       [m[n][1] for n in names])


def read(path):
    with open(path, newline="", encoding="utf-8") as f:
        return list(csv.reader(f))


def main():
    d = tempfile.mkdtemp()
    try:
        run(d)
    finally:
        shutil.rmtree(d)
    return 0 if all(results) else 1


def run(d):
    lc = "_Z8corun_lcmPKfifiPf"
    micro = [(lc, 640, kernel_metrics(1000, 1000, (100, 100), (10, 20, 30, 40, 50))),
             (lc, 640, kernel_metrics(2000, 4000, (100, 0), (1, 2, 3, 4, 5)))]
    long_csv(os.path.join(d, "micro.csv"), micro)
    with open(os.path.join(d, "instances.csv"), "w", encoding="utf-8") as f:
        f.write("mb,name\n0,1:0.00:1\n1,2:0.20:4\n")
    # a workload of two kernels, 1 and 3 us: weights 1/4 and 3/4
    real = [("_Z4fwdv", 10, kernel_metrics(1000, 2000, (500, 500), (0, 0, 0, 0, 0))),
            ("_Z4adjv", 20, kernel_metrics(3000, 8000, (0, 2000), (40, 80, 40, 80, 40)))]
    wide_csv(os.path.join(d, "wl.csv"), real)
    with open(os.path.join(d, "x.sass"), "w", encoding="utf-8") as f:
        f.write("\tcode for sm_90\n\t\tFunction : _Z4fwdv\n"
                "        /*0000*/   LDC R1, c[0x0][0x28] ;   /* 0x00000a00ff017b82 */\n"
                "                                              /* 0x000fc40000000800 */\n"
                "        /*0010*/   EXIT ;                  /* 0x000000000000794d */\n"
                "\t\t..........\n")
    rc = call(["features", "--out", d, "--instances", os.path.join(d, "instances.csv"),
                  "--micro", os.path.join(d, "micro.csv"), "--mem-metrics", ",".join(MEM),
                  "--real", "wl=" + os.path.join(d, "wl.csv"),
                  "--sass", os.path.join(d, "x.sass")])
    check(rc == 0, "features runs on both CSV layouts")
    f = read(os.path.join(d, "features.csv"))
    check(f[0] == ["mb"] + nf.FEATURES, "features.csv has select.h's header", f[0])
    check(f[1] == ["0", "10", "20", "30", "40", "50", "80", "1000"],
          "micro 0: rates as given, arith 100 (1 - 200 / 1000), thousands separators read", f[1])
    check(f[2] == ["1", "1", "2", "3", "4", "5", "97.5", "4000"],
          "micro 1: arith from the memory instructions given", f[2])
    r = read(os.path.join(d, "features-real.csv"))
    check(r[0] == ["name"] + nf.FEATURES, "features-real.csv's header", r[0])
    # rates: 3/4 of the second kernel's; arith: (1/4) 50 + (3/4) 75
    check(r[1] == ["wl", "30", "60", "30", "60", "30", "68.75", "10000"],
          "a workload is its kernels' time-weighted mean, insts summed", r[1])
    p = read(os.path.join(d, "profiles.csv"))
    check(len(p) == 5 and p[0][:6] == ["kernel", "grid", "block", "sass_sha1", "source", "time_ns"],
          "profiles.csv: a header and a row per kernel launch", p)
    check(p[1][:5] == [lc, "640x1x1", "256x1x1", "-", "micro:1:0.00:1"] and
          p[3][1:3] == ["10x1x1", "128x1x1"] and len(p[3][3]) == 40 and p[4][3] == "-",
          "profiles.csv keys by mangled name, grid, block and the SASS's sha1 when known", p)
    check(call(["check", os.path.join(d, "micro.csv"), ",".join(MEM)]) == 0,
          "check: every metric has a value")
    check(call(["check", os.path.join(d, "micro.csv"), "smsp__x.sum"]) == 1,
          "check: a metric ncu did not report fails")
    with open(os.path.join(d, "short.csv"), "w", encoding="utf-8") as fo:
        fo.write("mb,name\n0,1:0.00:1\n")
    check(call(["features", "--out", d, "--instances", os.path.join(d, "short.csv"),
                   "--micro", os.path.join(d, "micro.csv"), "--mem-metrics", MEM[0]]) == 1,
          "features refuses more kernels than instances")
    with open(os.path.join(d, "none.csv"), "w", encoding="utf-8") as fo:
        fo.write("==PROF== No kernels were profiled.\n")
    check(call(["check", os.path.join(d, "none.csv"), MEM[0]]) == 1,
          "a log with no kernel is refused")
    check(call(["features", "--out", d, "--bogus", "x"]) == 2,
          "an unknown option exits 2")
    check(call(["features", "--out", d]) == 2, "a missing option exits 2")


if __name__ == "__main__":
    sys.exit(main())
