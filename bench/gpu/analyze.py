#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turns the CSVs that run-experiment.sh leaves in OUT into summary.csv,
summary.md and SVG plots (OUT/plots/). Standard library only.

  analyze.py OUT

Layout read (written by run-experiment.sh; see
Documentation/gpu-experiment.rst):
  correctness/<prog>-<mode>.out, .rc   stdout and exit status of each run
  fairness/<config>/procs.csv          tag,kernel_us,weight
  fairness/<config>/<mode>/<tag>.csv   gsp-load records (mode: gspace, plain)
  lc/<mode>/lc.csv, be.csv             gsp-load records (mode: solo,
                                       solo-gspace, plain, gspace)
  overhead/<mode>.csv, <mode>.txt      launch-overhead samples and RESULT line

Definitions (nearest-rank percentiles throughout):
  busy intervals   a kernel's [start, end] minus the gaps it recorded
  share            a process's busy time in a 1 s window / all processes'
                   busy time in that window; windows tile the span in which
                   every process of the run was recording
  target           weight / sum of weights (all processes are backlogged)
  error            share - target, in percentage points and in % of target
"""
import csv
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import svgplot  # noqa: E402

WINDOW_NS = 1_000_000_000
SHARE_TOL_REL = 0.05        # the target: within +-5 % of target
LC_FAST_PATH_NS = 1000      # the LC fast path adds <= 1 us at the median
BE_LOSS_MAX = 0.05          # BE throughput lost to gating <= 5 %
CORRECTNESS_PAIRS = (("check", "plain", "be"), ("check", "plain", "lc"),
                     ("resnet", "plain", "be"), ("train", "plain", "be"))
LC_MODES = ("solo", "solo-gspace", "plain", "gspace")
OVERHEAD_MODES = ("plain", "disabled", "lc", "be")


def percentile(values, p):
    """Nearest rank: the smallest value with at least p % at or below it."""
    if not values:
        return None
    v = sorted(values)
    r = max(1, -(-len(v) * p // 100))
    return v[min(len(v), int(r)) - 1]


def read_load_csv(path):
    """gsp-load records: list of dicts with busy intervals and latency."""
    recs = []
    with open(path, newline="") as f:
        rows = csv.DictReader(line for line in f if not line.startswith("#"))
        for row in rows:
            s, e = int(row["start_ns"]), int(row["end_ns"])
            gaps = []
            if row["gaps"]:
                for g in row["gaps"].split(";"):
                    a, b = g.split(":")
                    gaps.append((int(a), int(b)))
            recs.append({"start": s, "end": e, "gaps": gaps,
                         "ngaps": int(row["ngaps"]),
                         "launch_ns": int(row["launch_ns"]),
                         "lat_ns": int(row["lat_ns"])})
    return recs


def busy_intervals(rec):
    """[start, end] minus the recorded gaps, as a list of (a, b)."""
    out, cur = [], rec["start"]
    for a, b in sorted(rec["gaps"]):
        if a > cur:
            out.append((cur, a))
        cur = max(cur, b)
    if rec["end"] > cur:
        out.append((cur, rec["end"]))
    return out


def clipped(intervals, lo, hi):
    return sum(max(0, min(b, hi) - max(a, lo)) for a, b in intervals)


def window_shares(procs, weights, window_ns=WINDOW_NS):
    """procs: {tag: records}. Returns (windows, untracked) where windows
    is a list of {t, busy: {tag: ns}, share: {tag: frac}} over full
    windows of the span common to all processes, and untracked counts
    kernels with more gaps than they could record."""
    ivs = {t: [iv for r in rs for iv in busy_intervals(r)] for t, rs in procs.items()}
    untracked = sum(1 for rs in procs.values() for r in rs if r["ngaps"] > len(r["gaps"]))
    if not ivs or any(not v for v in ivs.values()):
        return [], untracked
    lo = max(min(a for a, _ in v) for v in ivs.values())
    hi = min(max(b for _, b in v) for v in ivs.values())
    wins = []
    k = 0
    while lo + (k + 1) * window_ns <= hi:
        a, b = lo + k * window_ns, lo + (k + 1) * window_ns
        busy = {t: clipped(v, a, b) for t, v in ivs.items()}
        tot = sum(busy.values())
        share = {t: (busy[t] / tot if tot else 0.0) for t in busy}
        wins.append({"t": k * window_ns / 1e9, "busy": busy, "share": share,
                     "util": tot / window_ns})
        k += 1
    return wins, untracked


def targets(weights):
    tot = sum(weights.values())
    return {t: w / tot for t, w in weights.items()}


def share_errors(wins, tgt):
    """Max |share - target| over windows and processes: (pp, % of target)."""
    pp = rel = 0.0
    for w in wins:
        for t, s in w["share"].items():
            pp = max(pp, abs(s - tgt[t]) * 100)
            rel = max(rel, abs(s - tgt[t]) / tgt[t] * 100)
    return pp, rel


def read_procs(path):
    with open(path, newline="") as f:
        return [(r["tag"], int(r["kernel_us"]), float(r["weight"])) for r in csv.DictReader(f)]


def analyze_fairness(out, rows, md, plots):
    base = os.path.join(out, "fairness")
    if not os.path.isdir(base):
        md.append("No fairness results.\n")
        return
    md.append("## Fairness (GPU-time shares per 1 s window)\n")
    md.append("| config | mode | windows | util | mean shares | targets | "
              "max err pp | max err % of target | within 5 % | kernels with untracked gaps |")
    md.append("|---|---|---|---|---|---|---|---|---|---|")
    for cfg in sorted(os.listdir(base)):
        pfile = os.path.join(base, cfg, "procs.csv")
        if not os.path.isfile(pfile):
            continue
        procs = read_procs(pfile)
        weights = {t: w for t, _, w in procs}
        tgt = targets(weights)
        for mode in ("gspace", "plain"):
            d = os.path.join(base, cfg, mode)
            recs = {}
            for t, _, _ in procs:
                p = os.path.join(d, t + ".csv")
                if os.path.isfile(p):
                    recs[t] = read_load_csv(p)
            if len(recs) != len(procs):
                md.append(f"| {cfg} | {mode} | missing CSVs ({len(recs)} of {len(procs)}) "
                          "| | | | | | | |")
                rows.append({"section": "fairness", "name": f"{cfg}/{mode}", "metric": "status",
                             "value": "missing"})
                continue
            wins, untracked = window_shares(recs, weights)
            if not wins:
                md.append(f"| {cfg} | {mode} | 0 (no common 1 s window) | | | | | | | |")
                rows.append({"section": "fairness", "name": f"{cfg}/{mode}", "metric": "status",
                             "value": "no-window"})
                continue
            pp, rel = share_errors(wins, tgt)
            util = sum(w["util"] for w in wins) / len(wins)
            mean = {t: sum(w["share"][t] for w in wins) / len(wins) for t in tgt}
            ok = rel <= SHARE_TOL_REL * 100
            md.append(f"| {cfg} | {mode} | {len(wins)} | {util:.3f} | "
                      + " ".join(f"{mean[t] * 100:.1f}" for t in tgt) + " | "
                      + " ".join(f"{tgt[t] * 100:.1f}" for t in tgt)
                      + f" | {pp:.2f} | {rel:.1f} | {'yes' if ok else 'no'} | {untracked} |")
            name = f"{cfg}/{mode}"
            for metric, v in (("windows", len(wins)), ("util", f"{util:.4f}"),
                              ("max_err_pp", f"{pp:.3f}"), ("max_err_rel_pct", f"{rel:.2f}"),
                              ("within_5pct", int(ok)), ("untracked_gap_kernels", untracked)):
                rows.append({"section": "fairness", "name": name, "metric": metric, "value": v})
            for t in tgt:
                rows.append({"section": "fairness", "name": name, "metric": f"mean_share_{t}",
                             "value": f"{mean[t]:.4f}"})
            series = []
            for t in tgt:
                series.append((f"{t} (w {weights[t]:g})", [w["t"] for w in wins],
                               [w["share"][t] * 100 for w in wins], False))
            for t in sorted(set(tgt.values())):
                series.append((f"target {t * 100:.1f}%", [wins[0]["t"], wins[-1]["t"]],
                               [t * 100, t * 100], True))
            svgplot.lines(os.path.join(plots, f"shares-{cfg}-{mode}.svg"),
                          f"GPU-time shares, {cfg}, {mode}", "window start (s)",
                          "share of GPU time (%)", series, ylim=(0, 100))
    md.append("")


def analyze_lc(out, rows, md, plots):
    base = os.path.join(out, "lc")
    if not os.path.isdir(base):
        md.append("No LC protection results.\n")
        return
    lat, be_util = {}, {}
    for mode in LC_MODES:
        p = os.path.join(base, mode, "lc.csv")
        if not os.path.isfile(p):
            continue
        recs = read_load_csv(p)
        lat[mode] = [r["lat_ns"] / 1000 for r in recs]
        bp = os.path.join(base, mode, "be.csv")
        if os.path.isfile(bp) and recs:
            be = read_load_csv(bp)
            lo, hi = recs[0]["start"], recs[-1]["end"]
            if hi > lo:
                be_util[mode] = clipped([iv for r in be for iv in busy_intervals(r)],
                                        lo, hi) / (hi - lo)
    md.append("## LC protection (launch to completion, host)\n")
    solo = lat.get("solo")
    s50, s99 = (percentile(solo, 50), percentile(solo, 99)) if solo else (None, None)
    md.append("| mode | kernels | p50 us | p99 us | p50 / solo | p99 / solo | BE GPU share |")
    md.append("|---|---|---|---|---|---|---|")
    for mode in LC_MODES:
        if mode not in lat or not lat[mode]:
            md.append(f"| {mode} | missing | | | | | |")
            continue
        p50, p99 = percentile(lat[mode], 50), percentile(lat[mode], 99)
        r50 = p50 / s50 if s50 else None
        r99 = p99 / s99 if s99 else None
        bu = be_util.get(mode)
        md.append(f"| {mode} | {len(lat[mode])} | {p50:.1f} | {p99:.1f} | "
                  f"{'' if r50 is None else f'{r50:.2f}'} | {'' if r99 is None else f'{r99:.2f}'} | "
                  f"{'' if bu is None else f'{bu * 100:.1f}%'} |")
        for metric, v in (("p50_us", f"{p50:.2f}"), ("p99_us", f"{p99:.2f}"),
                          ("p50_ratio_solo", "" if r50 is None else f"{r50:.3f}"),
                          ("p99_ratio_solo", "" if r99 is None else f"{r99:.3f}"),
                          ("be_gpu_share", "" if bu is None else f"{bu:.4f}")):
            rows.append({"section": "lc", "name": mode, "metric": metric, "value": v})
    md.append("")
    series = []
    for mode in LC_MODES:
        v = sorted(lat.get(mode, []))
        if v:
            series.append((mode, v, [(i + 1) / len(v) * 100 for i in range(len(v))], False))
    svgplot.lines(os.path.join(plots, "lc-latency-cdf.svg"), "LC latency, launch to completion",
                  "latency (us, log)", "kernels at or below (%)", series, logx=True,
                  ylim=(0, 100))


def read_result_line(path):
    with open(path) as f:
        for line in f:
            if line.startswith("RESULT "):
                return dict(kv.split("=", 1) for kv in line.split()[1:])
    return None


def analyze_overhead(out, rows, md, plots):
    base = os.path.join(out, "overhead")
    if not os.path.isdir(base):
        md.append("No overhead results.\n")
        return
    stats, tput = {}, {}
    for mode in OVERHEAD_MODES:
        p = os.path.join(base, mode + ".csv")
        if os.path.isfile(p):
            samples = {"empty": [], "spin": []}
            with open(p, newline="") as f:
                for r in csv.DictReader(f):
                    samples[r["phase"]].append(int(r["ns"]))
            stats[mode] = {ph: (percentile(v, 50), percentile(v, 99))
                           for ph, v in samples.items() if v}
        res = os.path.join(base, mode + ".txt")
        if os.path.isfile(res):
            r = read_result_line(res)
            if r and "tput_per_s" in r:
                tput[mode] = float(r["tput_per_s"])
    md.append("## Overhead (host time per cuLaunchKernel; added = mode - plain)\n")
    md.append("| mode | empty p50 ns | empty p99 ns | added p50 | added p99 | "
              "100us p50 ns | 100us p99 ns | added p50 | added p99 | 100us kernels/s | lost |")
    md.append("|---|---|---|---|---|---|---|---|---|---|---|")
    plain = stats.get("plain", {})
    for mode in OVERHEAD_MODES:
        if mode not in stats:
            md.append(f"| {mode} | missing | | | | | | | | | |")
            continue
        cells = []
        for ph in ("empty", "spin"):
            p50, p99 = stats[mode].get(ph, (None, None))
            b50, b99 = plain.get(ph, (None, None))
            a50 = p50 - b50 if p50 is not None and b50 is not None else None
            a99 = p99 - b99 if p99 is not None and b99 is not None else None
            cells += [p50, p99, a50, a99]
            for metric, v in (("p50_ns", p50), ("p99_ns", p99),
                              ("added_p50_ns", a50), ("added_p99_ns", a99)):
                rows.append({"section": "overhead", "name": mode, "metric": f"{ph}_{metric}",
                             "value": "" if v is None else v})
        t = tput.get(mode)
        lost = 1 - t / tput["plain"] if t and tput.get("plain") else None
        rows.append({"section": "overhead", "name": mode, "metric": "tput_per_s",
                     "value": "" if t is None else f"{t:.1f}"})
        rows.append({"section": "overhead", "name": mode, "metric": "tput_lost",
                     "value": "" if lost is None else f"{lost:.4f}"})
        md.append(f"| {mode} | " + " | ".join("" if c is None else str(c) for c in cells)
                  + f" | {'' if t is None else f'{t:.0f}'} | "
                  + f"{'' if lost is None else f'{lost * 100:.2f}%'} |")
    md.append("")
    lc_add = rows_value(rows, "overhead", "lc", "empty_added_p50_ns")
    be_lost = rows_value(rows, "overhead", "be", "tput_lost")
    if lc_add not in (None, ""):
        md.append(f"- LC fast path, added median: {lc_add} ns (target <= {LC_FAST_PATH_NS} ns): "
                  f"{'met' if int(lc_add) <= LC_FAST_PATH_NS else 'NOT met'}")
    if be_lost not in (None, ""):
        md.append(f"- BE throughput lost to gating, back-to-back 100 us kernels: "
                  f"{float(be_lost) * 100:.2f}% (target <= {BE_LOSS_MAX * 100:.0f}%): "
                  f"{'met' if float(be_lost) <= BE_LOSS_MAX else 'NOT met'}")
    md.append("")
    modes = [m for m in OVERHEAD_MODES if m in stats]
    groups = ["empty p50", "empty p99", "100us p50", "100us p99"]
    vals = [[stats[m].get(ph, (None, None))[i] / 1000 if stats[m].get(ph) else None
             for m in modes] for ph in ("empty", "spin") for i in (0, 1)]
    svgplot.bars(os.path.join(plots, "overhead-launch.svg"), "Host time per cuLaunchKernel",
                 "us", groups, modes, vals)
    if tput:
        tm = [m for m in OVERHEAD_MODES if m in tput]
        svgplot.bars(os.path.join(plots, "overhead-tput.svg"),
                     "Back-to-back 100 us kernels", "kernels/s", ["throughput"], tm,
                     [[tput[m] for m in tm]])


def rows_value(rows, section, name, metric):
    for r in rows:
        if (r["section"], r["name"], r["metric"]) == (section, name, metric):
            return r["value"]
    return None


def read_stats(path):
    """The interposer's GSP_STATS_FILE: "name value" lines; None if absent."""
    if not os.path.isfile(path):
        return None
    st = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.strip().partition(" ")
            if v.strip().isdigit():
                st[k] = int(v)
    return st


def stats_cell(st):
    if st is None:
        return "no stats file"
    return f"{st.get('launches', 0)} launches, {st.get('copies', 0)} copies"


def analyze_stats(out, md):
    """Every stats file of the run, so a run that was not really
    interposed (no file, or no launch seen) shows up."""
    found = []
    for d, _, files in os.walk(out):
        for f in sorted(files):
            if f.endswith(".stats"):
                p = os.path.join(d, f)
                found.append((os.path.relpath(p, out), read_stats(p)))
    if not found:
        return
    keys = sorted({k for _, st in found for k in st})
    md.append("## Interposer counters (GSP_STATS_FILE of each interposed process)\n")
    md.append("| process | " + " | ".join(keys) + " |")
    md.append("|---|" + "---|" * len(keys))
    for name, st in sorted(found):
        md.append(f"| {name} | " + " | ".join(str(st.get(k, "")) for k in keys) + " |")
    md.append("")


def analyze_correctness(out, rows, md):
    base = os.path.join(out, "correctness")
    if not os.path.isdir(base):
        md.append("No correctness results.\n")
        return
    md.append("## Correctness (stdout with vs without gsp-run)\n")
    md.append("| program | runs compared | exit status | identical | interposer saw |")
    md.append("|---|---|---|---|---|")
    for prog, a, b in CORRECTNESS_PAIRS:
        fa, fb = (os.path.join(base, f"{prog}-{m}.out") for m in (a, b))
        if not (os.path.isfile(fa) and os.path.isfile(fb)):
            md.append(f"| {prog} | {a} vs {b} | | missing | |")
            rows.append({"section": "correctness", "name": f"{prog}:{a}-vs-{b}",
                         "metric": "identical", "value": "missing"})
            continue
        rcs = []
        for m in (a, b):
            p = os.path.join(base, f"{prog}-{m}.rc")
            rcs.append(open(p).read().strip() if os.path.isfile(p) else "?")
        with open(fa, "rb") as x, open(fb, "rb") as y:
            da, db = x.read(), y.read()
        same = bool(da) and da == db and rcs == ["0", "0"]
        st = read_stats(os.path.join(base, f"{prog}-{b}.stats"))
        md.append(f"| {prog} | {a} vs {b} | {rcs[0]}, {rcs[1]} | {'yes' if same else 'NO'} "
                  f"| {stats_cell(st)} |")
        rows.append({"section": "correctness", "name": f"{prog}:{a}-vs-{b}",
                     "metric": "identical", "value": int(same)})
        rows.append({"section": "correctness", "name": f"{prog}:{a}-vs-{b}",
                     "metric": "interposed_launches",
                     "value": "" if st is None else st.get("launches", 0)})
    md.append("")


def main(argv):
    if len(argv) != 2 or not os.path.isdir(argv[1]):
        print("usage: analyze.py OUT   (OUT: a directory written by run-experiment.sh)",
              file=sys.stderr)
        return 2
    out = argv[1]
    plots = os.path.join(out, "plots")
    os.makedirs(plots, exist_ok=True)
    rows, md = [], ["# gspace GPU experiment: summary", ""]
    env = os.path.join(out, "env.txt")
    if os.path.isfile(env):
        md += ["```", open(env).read().rstrip(), "```", ""]
    analyze_correctness(out, rows, md)
    analyze_fairness(out, rows, md, plots)
    analyze_lc(out, rows, md, plots)
    analyze_overhead(out, rows, md, plots)
    analyze_stats(out, md)
    with open(os.path.join(out, "summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["section", "name", "metric", "value"])
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
