#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit test of analyze.py on synthetic gsp-load records whose shares are
known exactly. Prints TAP lines ("ok - ..." / "not ok - ...") only."""
import csv
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import analyze  # noqa: E402

MS = 1_000_000
results = []


def check(cond, what, detail=""):
    results.append(bool(cond))
    print(f"{'ok' if cond else 'not ok'} - analyze: {what}")
    if not cond and detail:
        for line in str(detail).splitlines():
            print(f"# {line}")


def timeslice_records(active, kernel_ns, t_end):
    """Cuts a process's active spans (sorted (a, b) list) into kernels of
    kernel_ns running time each, like gsp-load's spin kernel records them:
    start/end of the kernel and the inactive spans inside it as gaps."""
    recs, cur, need = [], None, kernel_ns
    for a, b in active:
        t = a
        while t < b:
            if cur is None:
                cur = {"start": t, "end": t, "gaps": [], "ngaps": 0,
                       "launch_ns": 1000, "lat_ns": 0}
                need = kernel_ns
            elif t > cur["end"]:
                cur["gaps"].append((cur["end"], t))
                cur["ngaps"] += 1
            run = min(need, b - t)
            t += run
            need -= run
            cur["end"] = t
            if need == 0:
                recs.append(cur)
                cur = None
        if t >= t_end:
            break
    return recs


def write_load_csv(path, tag, recs):
    with open(path, "w") as f:
        f.write(f"# tag={tag} synthetic\n")
        f.write("tag,seq,start_ns,end_ns,active_ns,ngaps,gaps,launch_ns,lat_ns\n")
        for i, r in enumerate(recs):
            gaps = ";".join(f"{a}:{b}" for a, b in r["gaps"])
            act = r["end"] - r["start"] - sum(b - a for a, b in r["gaps"])
            f.write(f"{tag},{i},{r['start']},{r['end']},{act},{r['ngaps']},{gaps},"
                    f"{r['launch_ns']},{r['lat_ns']}\n")


def cycle_spans(offset, length, cycle, t_end):
    return [(c + offset, c + offset + length) for c in range(0, t_end, cycle)]


def main():
    # Percentiles, nearest rank.
    v = list(range(1, 101))
    check(analyze.percentile(v, 50) == 50 and analyze.percentile(v, 99) == 99
          and analyze.percentile([7], 99) == 7 and analyze.percentile([], 50) is None,
          "nearest-rank percentiles")

    # Gaps are cut out of a kernel's interval.
    r = {"start": 0, "end": 100, "gaps": [(50, 60), (20, 30)], "ngaps": 2}
    got = analyze.busy_intervals(r)
    check(got == [(0, 20), (30, 50), (60, 100)], "busy intervals exclude gaps", got)

    # Two processes time-sliced in a 5 ms cycle: A runs 3.2 ms (100 us
    # kernels), B 1.8 ms (1000 us kernels, so most of them straddle A's
    # slice with a gap). Every 1 s window holds exactly 200 cycles, so
    # A's share is exactly 0.64 in each.
    t_end = 3200 * MS
    a = timeslice_records(cycle_spans(0, 3200 * 1000, 5 * MS, t_end), 100_000, t_end)
    b = timeslice_records(cycle_spans(3200 * 1000, 1800 * 1000, 5 * MS, t_end),
                          1_000_000, t_end)
    procs = {"A": a, "B": b}
    wins, untracked = analyze.window_shares(procs, {"A": 2, "B": 1})
    check(len(wins) == 3, "full 1 s windows of the common span only", len(wins))
    check(all(abs(w["share"]["A"] - 0.64) < 1e-12 and abs(w["share"]["B"] - 0.36) < 1e-12
              for w in wins), "time-sliced shares are exact (0.64 / 0.36)",
          [w["share"] for w in wins])
    check(all(abs(w["util"] - 1.0) < 1e-12 for w in wins), "utilisation of a full GPU is 1",
          [w["util"] for w in wins])
    check(untracked == 0 and any(r["gaps"] for r in b), "B's kernels carry gaps, all tracked")
    naive = {t: [dict(r, gaps=[]) for r in rs] for t, rs in procs.items()}
    nw, _ = analyze.window_shares(naive, {"A": 2, "B": 1})
    check(abs(nw[0]["share"]["A"] - 0.64) > 0.01,
          "ignoring the gaps would give other shares (the test can tell)",
          nw[0]["share"])
    pp, rel = analyze.share_errors(wins, analyze.targets({"A": 2, "B": 1}))
    check(abs(pp - (2 / 3 - 0.64) * 100) < 1e-9 and abs(rel - 8.0) < 1e-9,
          "max error: 2.67 pp, 8 % of B's target", (pp, rel))

    # A window edge that cuts a kernel counts only the part inside.
    check(analyze.clipped([(0, 10), (15, 30)], 5, 20) == 10, "intervals clipped to a window")

    # The whole pipeline on a synthetic OUT directory.
    out = tempfile.mkdtemp(prefix="gsp-analyze-")
    try:
        d = os.path.join(out, "fairness", "be2-w12")
        os.makedirs(os.path.join(d, "gspace"))
        with open(os.path.join(d, "procs.csv"), "w") as f:
            f.write("tag,kernel_us,weight\nA,100,2\nB,1000,1\n")
        write_load_csv(os.path.join(d, "gspace", "A.csv"), "A", a)
        write_load_csv(os.path.join(d, "gspace", "B.csv"), "B", b)

        for mode, scale in (("solo", 1), ("gspace", 2)):
            os.makedirs(os.path.join(out, "lc", mode))
            recs = [{"start": i * 5 * MS, "end": i * 5 * MS + 200_000, "gaps": [], "ngaps": 0,
                     "launch_ns": 1000, "lat_ns": (100 + i) * 1000 * scale} for i in range(100)]
            write_load_csv(os.path.join(out, "lc", mode, "lc.csv"), "lc", recs)

        os.makedirs(os.path.join(out, "overhead"))
        for mode, add, tput in (("plain", 0, 1000.0), ("lc", 500, 999.0), ("be", 2000, 960.0)):
            with open(os.path.join(out, "overhead", mode + ".csv"), "w") as f:
                f.write("tag,phase,ns\n")
                for i in range(1000):
                    f.write(f"{mode},empty,{3000 + i + add}\n{mode},spin,{4000 + i + add}\n")
            with open(os.path.join(out, "overhead", mode + ".txt"), "w") as f:
                f.write(f"RESULT tag={mode} tput_per_s={tput}\n")

        c = os.path.join(out, "correctness")
        os.makedirs(c)
        for name, text in (("check-plain", "x 1\n"), ("check-be", "x 1\n"),
                           ("check-lc", "x 2\n"), ("train-plain", "s\n"), ("train-be", "s\n")):
            with open(os.path.join(c, name + ".out"), "w") as f:
                f.write(text)
            with open(os.path.join(c, name + ".rc"), "w") as f:
                f.write("1\n" if name == "train-be" else "0\n")

        with open(os.path.join(c, "check-be.stats"), "w") as f:
            f.write("launches 12\ncopies 9\njobs 21\n")

        rc = analyze.main(["analyze.py", out])
        check(rc == 0, "analyze.py runs on a synthetic result directory", rc)
        with open(os.path.join(out, "summary.csv")) as f:
            s = {(r["section"], r["name"], r["metric"]): r["value"] for r in csv.DictReader(f)}
        check(s.get(("fairness", "be2-w12/gspace", "mean_share_A")) == "0.6400"
              and s.get(("fairness", "be2-w12/gspace", "max_err_rel_pct")) == "8.00"
              and s.get(("fairness", "be2-w12/gspace", "within_5pct")) == "0",
              "summary: shares, error and the 5 % verdict", s)
        check(s.get(("fairness", "be2-w12/plain", "status")) == "missing",
              "summary: a missing run is reported as missing")
        check(s.get(("lc", "gspace", "p50_ratio_solo")) == "2.000"
              and s.get(("lc", "gspace", "p99_ratio_solo")) == "2.000"
              and s.get(("lc", "solo", "p99_us")) == "198.00",
              "summary: LC p50/p99 and their ratios to solo")
        check(s.get(("overhead", "lc", "empty_added_p50_ns")) == "500"
              and s.get(("overhead", "be", "tput_lost")) == "0.0400",
              "summary: added launch time and BE throughput lost")
        check(s.get(("correctness", "check:plain-vs-be", "identical")) == "1"
              and s.get(("correctness", "check:plain-vs-lc", "identical")) == "0"
              and s.get(("correctness", "train:plain-vs-be", "identical")) == "0"
              and s.get(("correctness", "resnet:plain-vs-be", "identical")) == "missing",
              "summary: identical only with equal output and both exits 0")
        check(s.get(("correctness", "check:plain-vs-be", "interposed_launches")) == "12"
              and s.get(("correctness", "check:plain-vs-lc", "interposed_launches")) == "",
              "summary: the interposer's launch count, empty without a stats file")
        plots = sorted(os.listdir(os.path.join(out, "plots")))
        check(plots == ["lc-latency-cdf.svg", "overhead-launch.svg", "overhead-tput.svg",
                        "shares-be2-w12-gspace.svg"], "plots written", plots)
        with open(os.path.join(out, "plots", "shares-be2-w12-gspace.svg")) as f:
            svg = f.read()
        check(svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
              and svg.count("<polyline") == 4, "share plot: 2 processes + 2 target lines")
    finally:
        shutil.rmtree(out)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
