#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""README's measured figures against the committed CSVs they come from.

  tests/docs/readme_numbers.py [README]     TAP (run from the top of the tree)

Every figure README quotes -- a ratio such as 1.12x, a fraction such as
0.70, or a range of either, 0.96-1.12x -- is listed below, in README's
order, with the folder under bench/results/ it comes from, the rows and
the column (or ratio of columns) it is made of. The test reads the
figures out of README, pairs them with FIGURES in order, and fails when
their count differs, when README does not name the figure's folder, or
when the CSV does not give the figure at the precision README writes it
(a range: the least and the greatest of the rows). So a README number
edited without the data, or added without an entry here, fails.

Standard library only (CI runs it on a bare Debian).
"""
import csv
import math
import os
import re
import sys
from decimal import Decimal, ROUND_HALF_UP

RES = "bench/results"
SWEEP = "2026-11-26-h200-lcprotect-sweep"
KEY = ("shape", "lc", "arrival", "mechanism", "setting")

# A figure: a number with an optional range end, then an optional "x".
# Integers count only with the "x" (12x); bare integers are settings.
FIG = re.compile(r"(?<![\w.,-])(\d+(?:\.\d+)?(?:-\d+(?:\.\d+)?)?x"
                 r"|\d*\.\d+(?:-\d*\.\d+)?)(?![\w.]|,\d)")

_cache = {}


def rows(path):
    if path not in _cache:
        with open(os.path.join(RES, path), newline="") as f:
            _cache[path] = list(csv.DictReader(f))
    return _cache[path]


def lcprotect():
    """The LC-protection cells README's "Which protection to pick" quotes."""
    return rows(SWEEP + "/pareto.csv")


METRIC = {
    "p99": lambda r: float(r["lc_p99_us"]) / float(r["lc_solo_p99_us"]),
    "p50": lambda r: float(r["lc_p50_us"]) / float(r["lc_solo_p99_us"]),
    "be": lambda r: float(r["be_per_s"]) / float(r["be_solo_per_s"]),
}

SHORT = ("2us-compute-many-sync|22us-compute-many-sync|"
         "220us-compute-many-sync|22us-memory-many-sync|"
         "220us-compute-many-nosync")
PAIR = "22us-compute-many-sync|220us-compute-many-sync"


def sel(metric, **match):
    """Values of metric over the current LC-protection cells whose columns
    fully match the given regular expressions."""
    def get():
        out = []
        for r in lcprotect():
            if all(re.fullmatch(v, r[k]) for k, v in match.items()):
                out.append(METRIC[metric](r))
        return out
    return get


def against(metric, mech, setting, other, other_setting, **match):
    """Per cell, metric under mech over metric under other."""
    def get():
        by = {}
        for r in lcprotect():
            if all(re.fullmatch(v, r[k]) for k, v in match.items()):
                by.setdefault(r["mechanism"] + "/" + r["setting"], {})[
                    (r["shape"], r["lc"], r["arrival"])] = METRIC[metric](r)
        a, b = by[mech + "/" + setting], by[other + "/" + other_setting]
        return [a[c] / b[c] for c in sorted(a) if c in b]
    return get


# A lone BE's cost: geomean rows of be-cost-summary.csv, the columns of
# the current kernels (Documentation/spatial.rst, "Current numbers").
BE_COST = [
    ("2026-11-21-h200-even-join/run1/be-cost", ["spatial"]),
    ("2026-11-21-h200-even-join/run2/be-cost", ["spatial"]),
    ("2026-11-21-h200-even-join/run3/be-cost", ["spatial"]),
    ("2026-11-21-h200-even-join/run4/be-cost", ["spatial"]),
    ("2026-11-21-h200-even-join/run6/be-cost", ["spatial"]),
    ("2026-11-21-h200-boundary/grow-mul/be-cost", ["spatial@base/build"]),
    ("2026-11-21-h200-elect/be-cost", ["spatial@base/build"]),
    ("2026-11-21-h200-l1word/be-cost", ["spatial@base/build"]),
    ("2026-11-21-h200-jit/be-cost", ["spatial@base/build", "spatial"]),
    ("2026-11-21-h200-jit-parts/be-cost", ["spatial@base/build", "spatial"]),
    ("2026-11-21-h200-jit-parts/be-cost-unsqueezed",
     ["spatial@base/build", "spatial"]),
]


def be_cost():
    out = []
    for d, cols in BE_COST:
        g = [r for r in rows(d + "/be-cost-summary.csv") if r["wl"] == "geomean"]
        out += [float(g[0][c]) for c in cols]
    return out


def mean(get):
    return lambda: [sum(get()) / len(get())]


RP = "gspace-predictive"
LONG = "(2|20|100)000us-compute-many-sync"


def long_blocks(what, mech, setting):
    """The LC's p99 beside 2, 20 and 100 ms blocks, one figure each."""
    return [(f"{what}, {ms} ms", SWEEP,
             sel("p99", shape=f"{ms}000us-compute-many-sync", mechanism=mech,
                 setting=setting))
            for ms in (2, 20, 100)]


def one_wave(what, mech, setting):
    """The LC's p99, then the BE's share, beside one wave of 94 ms blocks."""
    m = dict(shape="94000us-compute-one-sync", mechanism=mech, setting=setting)
    return [(f"one wave, {what}: LC", SWEEP, sel("p99", **m)),
            (f"one wave, {what}: BE", SWEEP, sel("be", **m))]


PREEMPT = "2026-11-26-h200-preempt"


def preempt(metric, mech, weights):
    """Two BE programs without an LC (preempt-nolc.csv): B's part of the
    work ("share") or both programs' throughput over alone ("sum")."""
    def get():
        out = []
        for r in rows(PREEMPT + "/preempt-nolc.csv"):
            if r["mechanism"] != mech or not re.fullmatch(weights, r["weights"]):
                continue
            if metric == "share":
                out.append(float(r["b_share"]))
            else:
                out.append(float(r["a_per_s"]) / float(r["a_solo_per_s"]) +
                           float(r["b_per_s"]) / float(r["b_solo_per_s"]))
        return out
    return get


TORCH = "2026-11-27-h200-torch-pair"
TORCH_COL = {"be": "be_steps_per_s", "p99": "lc_p99_us"}


def torch_pair(metric, run, names):
    """be-rate.csv of run: metric of each row named in names over the
    MPS 50 % row before it (each pass of the script starts with one)."""
    def get():
        out, mps = [], None
        for r in rows(TORCH + "/be-rate.csv"):
            if r["run"] != run:
                continue
            if r["row"] == "mps50":
                mps = r
            elif r["row"] in names and mps:
                c = TORCH_COL[metric]
                out.append(float(r[c]) / float(mps[c]))
        return out
    return get


AUTO = ("predictive", "reserved-auto")

# (what, folder README names, values); README's order.
FIGURES = [
    ("lone BE over the time plane, range", "2026-11-21-h200-even-join", be_cost),
    ("lone BE over the time plane, mean", "2026-11-21-h200-even-join", mean(be_cost)),
    # Which protection to pick: a periodic LC
    ("predictive, lead 300 us: LC", SWEEP, sel("p99", shape=PAIR, arrival="periodic", mechanism=RP, setting="132x32-lead300us")),
    ("predictive, lead 300 us: BE", SWEEP, sel("be", shape=PAIR, arrival="periodic", mechanism=RP, setting="132x32-lead300us")),
    ("predictive, lead 500 us: LC", SWEEP, sel("p99", shape=PAIR, arrival="periodic", mechanism=RP, setting="132x32")),
    ("predictive, lead 500 us: BE", SWEEP, sel("be", shape=PAIR, arrival="periodic", mechanism=RP, setting="132x32")),
    ("MPS 25 %: LC", SWEEP, sel("p99", shape=PAIR, arrival="periodic", mechanism="mps-cap", setting="25")),
    ("MPS 25 %: BE", SWEEP, sel("be", shape=PAIR, arrival="periodic", mechanism="mps-cap", setting="25")),
    # irregular LC, short blocks
    ("time plane: LC", SWEEP, sel("p99", shape=SHORT, mechanism="gspace-time")),
    ("time plane: BE", SWEEP, sel("be", shape=SHORT, mechanism="gspace-time")),
    ("time plane over priority", SWEEP, against("p99", "gspace-time", "default", "priority", "mps", shape=SHORT)),
    ("reactive, Poisson: LC", SWEEP, sel("p99", shape=PAIR, arrival="poisson", mechanism="gspace-reactive", setting="132x32")),
    # blocks of milliseconds in many waves
    *long_blocks("reserved 33x32", "gspace-reserved", "33x32"),
    ("reserved 33x32: BE", SWEEP, sel("be", shape=LONG, mechanism="gspace-reserved", setting="33x32")),
    *long_blocks("MPS 25 %", "mps-cap", "25"),
    ("MPS 25 %: BE", SWEEP, sel("be", shape=LONG, mechanism="mps-cap", setting="25")),
    *long_blocks("time plane", "gspace-time", "default"),
    # one wave of 94 ms blocks
    *one_wave("reserved 33x32", "gspace-reserved", "33x32"),
    *one_wave("reserved 66x32", "gspace-reserved", "66x32"),
    *one_wave("MPS 25 %", "mps-cap", "25"),
    *one_wave("MPS 75 %", "mps-cap", "75"),
    # several BE programs by weight
    ("preemptive 1:1: B's part", PREEMPT, preempt("share", "gspace-preemptive", "100:100")),
    ("preemptive 1:3: B's part", PREEMPT, preempt("share", "gspace-preemptive", "100:300")),
    ("time plane 1:1: B's part", PREEMPT, preempt("share", "gspace-time", "100:100")),
    ("time plane 1:3: B's part", PREEMPT, preempt("share", "gspace-time", "100:300")),
    ("preemptive: both BEs", PREEMPT, preempt("sum", "gspace-preemptive", ".*")),
    ("time plane: both BEs", PREEMPT, preempt("sum", "gspace-time", ".*")),
    # a framework BE without PTX beside a serving LC
    ("PyTorch pair, auto: BE over MPS 50 %", TORCH, torch_pair("be", "d", AUTO)),
    ("PyTorch pair, auto: LC p99 over MPS 50 %", TORCH, torch_pair("p99", "d", AUTO)),
    ("PyTorch pair, BE by the GPU: BE", TORCH, torch_pair("be", "e", AUTO)),
    ("PyTorch pair, BE by the GPU: LC p99", TORCH, torch_pair("p99", "e", AUTO)),
    # 33 SMs for the LC
    ("reserved 33x32 beside short blocks: p99", SWEEP, sel("p99", shape=SHORT, mechanism="gspace-reserved", setting="33x32")),
]


def rnd(v, places):
    q = Decimal(1).scaleb(-places)
    return Decimal(repr(v)).quantize(q, rounding=ROUND_HALF_UP)


def places(s):
    return len(s.split(".")[1]) if "." in s else 0


def check(token, values):
    """None if the values give token at its precision, else what they give."""
    body = token.rstrip("x")
    ends = body.split("-")
    lo, hi = min(values), max(values)
    if len(ends) == 2:
        want = (Decimal(ends[0]), Decimal(ends[1]))
        got = (rnd(lo, places(ends[0])), rnd(hi, places(ends[1])))
    else:
        want = (Decimal(body),) * 2
        got = (rnd(lo, places(body)), rnd(hi, places(body)))
    if got == want:
        return None
    if got[0] == got[1]:
        return f"{got[0]}"
    return f"{got[0]}-{got[1]}"


def figures(text):
    """README's figures, outside code blocks, with their line numbers."""
    out, code = [], False
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            code = not code
            continue
        if code:
            continue
        out += [(n, m.group(1)) for m in FIG.finditer(line)]
    return out


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "README.md"
    text = open(path).read()
    found = figures(text)
    n, failed = 0, 0
    for i, (what, folder, get) in enumerate(FIGURES):
        n += 1
        if i >= len(found):
            print(f"not ok {n} - README: no figure for \"{what}\"")
            failed += 1
            continue
        line, token = found[i]
        try:
            values = get()
            bad = None if values else "no rows"
            bad = bad or check(token, values)
        except (OSError, KeyError, ValueError, ZeroDivisionError) as e:
            bad = f"{type(e).__name__}: {e}"
        if folder not in text:
            bad = f"README does not name {folder}"
        if bad is None:
            print(f"ok {n} - README:{line} {token}: {what} ({folder})")
        else:
            print(f"not ok {n} - README:{line} {token}: {what} ({folder})")
            print(f"# the data give {bad}")
            failed += 1
    for line, token in found[len(FIGURES):]:
        n += 1
        print(f"not ok {n} - README:{line} {token}: a figure with no source "
              "in tests/docs/readme_numbers.py")
        failed += 1
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
