#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit test of lcprotect-pareto.py on a small raw.csv whose joins are
known. Prints TAP lines ("ok - ..." / "not ok - ...") only."""
import csv
import importlib.util
import io
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location(
    "lcprotect_pareto", os.path.join(HERE, "lcprotect-pareto.py"))
pareto = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pareto)

RAW = """shape,lc,arrival,mechanism,setting,lc_p50_us,lc_p99_us,lc_p999_us,lc_n,be_per_s
220us-compute-many-sync,,,solo,default,,,,,5000000.0
,100us-1k,periodic,solo,default,110.0,120.0,130.0,1000,
,100us-1k,poisson,solo,default,111.0,125.0,140.0,1000,
220us-compute-many-sync,100us-1k,periodic,mps,default,13000.0,13100.0,13200.0,150,5000000.0
220us-compute-many-sync,100us-1k,poisson,gspace-reserved,66x32,220.0,250.0,400.0,1000,2500000.0
220us-compute-many-sync,100us-1k,periodic,gspace-time,default,,,,,
"""


def check(cond, what):
    print(f"{'ok' if cond else 'not ok'} - lcprotect-pareto: {what}")
    return bool(cond)


def main():
    tmp = tempfile.mkdtemp()
    ok = True
    try:
        raw = os.path.join(tmp, "raw.csv")
        with open(raw, "w") as f:
            f.write(RAW)
        out = io.StringIO()
        pareto.pareto(raw, "NVIDIA H200", out)
        rows = list(csv.DictReader(io.StringIO(out.getvalue())))
        ok &= check(out.getvalue().splitlines()[0] == ",".join(pareto.COLS),
                    "the header is issue 27's columns, in order")
        ok &= check(len(rows) == 3 and not any(r["mechanism"] == "solo"
                                               for r in rows),
                    "one row per cell, none for the solo runs")
        mps = rows[0]
        ok &= check(mps["lc_solo_p99_us"] == "120.0" and
                    mps["be_solo_per_s"] == "5000000.0" and
                    mps["gpu"] == "NVIDIA H200",
                    "the LC's and the BE's solo figures are joined in")
        ok &= check(rows[1]["lc_solo_p99_us"] == "125.0" and
                    rows[1]["setting"] == "66x32",
                    "the LC's solo run is matched by its arrival too")
        ok &= check(rows[2]["lc_p99_us"] == "" and rows[2]["be_per_s"] == "",
                    "a cell that failed keeps its row, with empty figures")
        plots = os.path.join(tmp, "plots")
        pareto_csv = os.path.join(tmp, "pareto.csv")
        with open(pareto_csv, "w") as f:
            f.write(out.getvalue())
        pareto.plot(pareto_csv, plots)
        names = sorted(os.listdir(plots))
        ok &= check(names == ["220us-compute-many-sync.100us-1k.periodic.svg",
                              "220us-compute-many-sync.100us-1k.poisson.svg"],
                    "one plot per (shape, LC, arrival)")
        with open(os.path.join(plots, names[1])) as f:
            svg = f.read()
        ok &= check("gspace-reserved" in svg and "66x32" in svg,
                    "a plot names each mechanism and labels its setting")
        bt = os.path.join(tmp, "blocks.csv")
        with open(bt, "w") as f:
            f.write("req,lat_ns,kernel,block,smid,start_gt_ns,end_gt_ns\n")
            for q in range(5):
                lat = 13000000 if q == 4 else 200000
                for b in range(4):
                    end = 13000000 if (q == 4 and b == 3) else 110000
                    sm = 10 if (q == 0 and b == 1) else 10 + b
                    f.write(f"{q},{lat},0,{b},{sm},0,{end}\n")
        out = io.StringIO()
        pareto.blocks(bt, out)
        text = out.getvalue()
        ok &= check("5 requests" in text and "1 over 3x" in text and
                    "SMs 10-13 (4 SMs)" in text and
                    "long blocks by SM: 13:1" in text,
                    "--blocks names the SM of a slow request's long block")
        ok &= check("slow requests start at, ms after the first block: 0.00\n"
                    in text,
                    "--blocks says when each slow request started")
        fig = {ln.split()[0]: ln.split()[1:] for ln in text.splitlines()
               if ln.startswith("  ")}
        ok &= check(fig.get("pile") == ["p50", "1.0", "p99", "2.0"] and
                    fig.get("outside", [])[:2] == ["p50", "90.0"] and
                    fig.get("block", [])[3:5] == ["p99", "110.0"],
                    "--blocks gives each request's pile-up, start spread "
                    "and median block")
        ww = os.path.join(HERE, "wl_window.py")
        fake = ("echo READY; read go s e; "
                "[ \"$go\" = GO ] && [ \"$e\" -gt \"$s\" ] || exit 3; "
                "echo 'RESULT role=lc wl=bp units=1 units_per_s=1'; "
                "echo 'RESULT role=be wl=mm units=42 window_s=2.000 "
                "units_per_s=21.000 work_per_s=1 work=flop yields=0'")
        r = subprocess.run([sys.executable, ww, "--start-ms", "1",
                            "--warmup-s", "0", "--measure-s", "2", "--",
                            "sh", "-c", fake], capture_output=True, text=True)
        ok &= check(r.returncode == 0 and
                    r.stdout == "be units_per_s 21.000 units 42\n",
                    "wl_window.py sends GO with a window and prints the BE's result")
        r = subprocess.run([sys.executable, ww, "--start-ms", "1", "--",
                            "true"], capture_output=True, text=True)
        ok &= check(r.returncode == 2 and "usage" in r.stderr,
                    "wl_window.py refuses a missing --warmup-s/--measure-s")
    finally:
        shutil.rmtree(tmp)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
