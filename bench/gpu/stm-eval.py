#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summary of a bench/run-stm.sh folder (Documentation/plan.rst).

  bench/gpu/stm-eval.py OUT

Reads OUT/stm.csv (set,jobs,seq_ms,conc_ms,stm_ms,model_stm_ms,
model_opt_ms,plan) and writes

  OUT/summary.csv  per set: jobs, n, STM's latency reduction over
                   sequential and over concurrent, the same as speedups,
                   concurrent's reduction over sequential, the model's
                   gap to its optimum and its error against the run
  OUT/summary.txt  the means and bests beside the paper's (GTX480: 26 %
                   mean / 46 % best over sequential, 18 % / 37 % over
                   concurrent), and the sets where STM loses

The paper does not say whether "improvement" is a latency reduction
(1 - t/t_base) or a speedup (t_base/t - 1): both are given, and the
reduction is the one set beside the paper's figures. Standard library
only. Exit 2 if OUT has no stm.csv, 1 if it has no rows.
"""
import csv
import os
import statistics
import sys

PAPER = "paper (GTX480): over sequential 26 % mean, 46 % best; over concurrent 18 % mean, 37 % best"


def per_set(r):
    seq, conc, stm = float(r["seq_ms"]), float(r["conc_ms"]), float(r["stm_ms"])
    mstm, mopt = float(r["model_stm_ms"]), float(r["model_opt_ms"])
    return {
        "set": r["set"], "jobs": r["jobs"], "n": len(r["jobs"].split("+")),
        "red_vs_seq": 1 - stm / seq, "red_vs_conc": 1 - stm / conc,
        "speedup_vs_seq": seq / stm - 1, "speedup_vs_conc": conc / stm - 1,
        "conc_red_vs_seq": 1 - conc / seq,
        "model_gap": mstm / mopt - 1, "model_err": mstm / stm - 1,
        "plan": r["plan"],
    }


def pct(v):
    return f"{100 * v:.1f} %"


def summarise(rows):
    lines = [f"{len(rows)} sets; STM's latency reduction (speedup in brackets)"]
    for base in ("seq", "conc"):
        red = [r[f"red_vs_{base}"] for r in rows]
        spd = [r[f"speedup_vs_{base}"] for r in rows]
        best = max(rows, key=lambda r: r[f"red_vs_{base}"])
        name = "sequential" if base == "seq" else "concurrent"
        lines.append(f"over {name}: mean {pct(statistics.mean(red))} "
                     f"({pct(statistics.mean(spd))}), best {pct(max(red))} "
                     f"({pct(max(spd))}, {best['jobs']})")
    lines.append("concurrent over sequential: mean "
                 f"{pct(statistics.mean(r['conc_red_vs_seq'] for r in rows))}")
    for n in sorted({r["n"] for r in rows}):
        sub = [r for r in rows if r["n"] == n]
        lines.append(f"  {n} jobs ({len(sub)} sets): over sequential "
                     f"{pct(statistics.mean(r['red_vs_seq'] for r in sub))}, "
                     f"over concurrent {pct(statistics.mean(r['red_vs_conc'] for r in sub))}")
    lines.append("model: STM's gap to the model's optimum, mean "
                 f"{pct(statistics.mean(r['model_gap'] for r in rows))}; "
                 "model STM against the measured, mean absolute error "
                 f"{pct(statistics.mean(abs(r['model_err']) for r in rows))}")
    lines.append(PAPER)
    for base, name in (("seq", "sequential"), ("conc", "concurrent")):
        lose = [r for r in rows if r[f"red_vs_{base}"] < 0]
        lines.append(f"STM slower than {name} in {len(lose)} sets" +
                     (":" if lose else ""))
        for r in sorted(lose, key=lambda r: r[f"red_vs_{base}"]):
            lines.append(f"  {r['jobs']}: {pct(r[f'red_vs_{base}'])} ({r['plan']})")
    return "\n".join(lines) + "\n"


def main(argv):
    if len(argv) != 2:
        print("usage: bench/gpu/stm-eval.py OUT", file=sys.stderr)
        return 2
    path = os.path.join(argv[1], "stm.csv")
    if not os.path.isfile(path):
        print(f"stm-eval: no {path}", file=sys.stderr)
        return 2
    with open(path, newline="") as f:
        rows = [per_set(r) for r in csv.DictReader(f)]
    if not rows:
        print(f"stm-eval: {path} has no sets", file=sys.stderr)
        return 1
    cols = ["set", "jobs", "n", "red_vs_seq", "red_vs_conc", "speedup_vs_seq",
            "speedup_vs_conc", "conc_red_vs_seq", "model_gap", "model_err"]
    with open(os.path.join(argv[1], "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for r in rows:
            w.writerow([r[c] if c in ("set", "jobs", "n") else f"{r[c]:.4f}"
                        for c in cols])
    text = summarise(rows)
    with open(os.path.join(argv[1], "summary.txt"), "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
