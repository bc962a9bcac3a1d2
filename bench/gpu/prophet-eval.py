#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Prophet's predictions against the measured co-runs of
bench/run-prophet.sh (Documentation/tracing.rst):

  prophet-eval.py [--gpu NAME] [--kmax K] [--loo-query-ns NS] OUT

reads OUT/measured.csv (lc,be,variant,k,lc_mean_us,lc_p95_us,
be_units_per_s; k 0 is the LC alone) and OUT/predicted.csv (lc,be,
variant,k,model,lc_solo_us,lc_mean_us,lc_p95_us,be_tasks_per_s,
be_iters_per_s; model fluid, fluid2 or sequential) and writes

  OUT/predict.csv    pair,model,predicted,measured,gpu: one row per pair,
                     k >= 1 and model; pair LC_BE_k (LC_BE_xfer_k for the
                     copy variant), model prophet (the fluid model),
                     fluid2, fluid2-loo (below) or sequential, values the
                     LC's mean latency over its
                     solo one, L / L_solo (each side its own solo: the
                     prediction's lc_solo_us, the measured k 0 row)
  OUT/admission.csv  pair,model,k_pred,k_oracle,util_pred,util_oracle,
                     violation,gpu: per pair (LC_BE[_xfer]) and model,
                     k_pred the largest k in 0..K whose predicted L/L_solo
                     is <= 2 (and L <= 100 ms), k_oracle the same on the
                     measured means; util = k / K; violation 1 when the
                     measured mean at k_pred is over the target

and prints a summary: the mean Eq. 10 error |Deg_pred - Deg_meas| /
Deg_meas (Deg = |L - L_solo| / L_solo; rows whose Deg_meas is under
DEG_MIN are left out of it and counted, as it explodes there), the mean
latency error |L_pred - L_meas| / L_meas, overall and per variant, LC, BE
and k; then the admission totals. Exit 0, 1 for missing or malformed
files, 2 for bad arguments. Stdlib only.

fluid2 adds a fitted host time per LC query, NS (gspctl's
GSP_PROPHET_FLUID2_QUERY_NS: the mean, over the plain LCs, of the
measured solo mean minus the trace's solo replay). With --loo-query-ns NS
(the value the fluid2 rows were predicted with) the fluid2 rows are also
scored held out, as model fluid2-loo: for each LC, NS is replaced by the
same mean over the other plain LCs only (leave one LC out), shifting its
predicted solo and co-run means by the difference. The shift is exact
while the LC's queries do not queue behind each other and close to it
when they do (Documentation/admission.rst).
"""
import csv
import os
import statistics
import sys

DEG_MIN = 0.05
TARGET_RATIO = 2.0
TARGET_MAX_US = 100e3
MODELS = {"fluid": "prophet", "fluid2": "fluid2", "fluid2-loo": "fluid2-loo",
          "sequential": "sequential"}


class Error(Exception):
    pass


def read(path, need):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        raise Error(str(e)) from e
    if not rows:
        raise Error(f"{path}: no rows")
    miss = [c for c in need if c not in rows[0]]
    if miss:
        raise Error(f"{path}: no column {', '.join(miss)}")
    return rows


def num(row, col):
    try:
        v = float(row[col])
    except (TypeError, ValueError):
        return None
    return v if v > 0 else None


def pair_name(lc, be, variant, k=None):
    s = f"{lc}_{be}" + ("" if variant == "plain" else f"_{variant}")
    return s if k is None else f"{s}_{k}"


def mean(v):
    return statistics.fmean(v) if v else float("nan")


def query_ns_folds(meas, pred, query_ns):
    """Per plain LC, the fitted query time (us) without that LC: the mean
    over the other plain LCs of measured solo - (fluid2 solo - NS)."""
    gap = {}
    for (lc, be, v, k, model), (ps, _) in pred.items():
        solo = meas.get((lc, be, v, 0))
        if model == "fluid2" and v == "plain" and k == 0 and ps and solo:
            gap[lc] = solo - (ps - query_ns)
    if len(gap) < 2:
        raise Error("--loo-query-ns needs fluid2 solo rows of 2 plain LCs or more")
    fold = {lc: mean([g for o, g in gap.items() if o != lc]) for lc in gap}
    return mean(list(gap.values())), fold


def add_loo(meas, pred, query_ns):
    """The fluid2 rows again as fluid2-loo, each LC with its own fold."""
    fitted, fold = query_ns_folds(meas, pred, query_ns)
    for (lc, be, v, k, model), (ps, pl) in list(pred.items()):
        if model == "fluid2" and lc in fold and ps and pl:
            d = fold[lc] - query_ns
            pred[(lc, be, v, k, "fluid2-loo")] = (ps + d, pl + d)
    return fitted, fold


def evaluate(out, gpu, kmax, query_ns=None):
    mpath, ppath = os.path.join(out, "measured.csv"), os.path.join(out, "predicted.csv")
    meas = {}
    for r in read(mpath, ["lc", "be", "variant", "k", "lc_mean_us"]):
        meas[(r["lc"], r["be"], r["variant"], int(r["k"]))] = num(r, "lc_mean_us")
    pred = {}
    for r in read(ppath, ["lc", "be", "variant", "k", "model", "lc_solo_us", "lc_mean_us"]):
        if r["model"] not in MODELS or r["model"] == "fluid2-loo":
            raise Error(f"{ppath}: model '{r['model']}' is not fluid, fluid2 or sequential")
        pred[(r["lc"], r["be"], r["variant"], int(r["k"]), r["model"])] = (
            num(r, "lc_solo_us"), num(r, "lc_mean_us"))
    if kmax is None:
        kmax = max(k for (_, _, _, k) in meas)
    loo = add_loo(meas, pred, query_ns / 1e3) if query_ns is not None else None

    rows, stats, admit = [], [], []
    pairs = sorted({(lc, be, v) for (lc, be, v, _) in meas})
    for lc, be, v in pairs:
        solo = meas.get((lc, be, v, 0))
        for model, label in MODELS.items():
            k_pred, k_orc = 0, 0
            for k in range(0, kmax + 1):
                lm = meas.get((lc, be, v, k))
                ps, pl = pred.get((lc, be, v, k, model), (None, None))
                if k and solo and lm and ps and pl:
                    rp, rm = pl / ps, lm / solo
                    rows.append((pair_name(lc, be, v, k), label, rp, rm))
                    dp, dm = abs(rp - 1), abs(rm - 1)
                    stats.append({"model": label, "variant": v, "lc": lc, "be": be,
                                  "k": k, "lat": abs(pl - lm) / lm,
                                  "deg": abs(dp - dm) / dm if dm >= DEG_MIN else None})
                if ps and pl and pl / ps <= TARGET_RATIO and pl <= TARGET_MAX_US:
                    k_pred = k
                if solo and lm and lm <= min(TARGET_RATIO * solo, TARGET_MAX_US):
                    k_orc = k
            if not solo:
                continue
            lm = meas.get((lc, be, v, k_pred))
            viol = int(lm is None or lm > min(TARGET_RATIO * solo, TARGET_MAX_US))
            admit.append((pair_name(lc, be, v), label, k_pred, k_orc,
                          k_pred / kmax, k_orc / kmax, viol))

    with open(os.path.join(out, "predict.csv"), "w", encoding="utf-8") as f:
        f.write("pair,model,predicted,measured,gpu\n")
        for p, m, a, b in rows:
            f.write(f"{p},{m},{a:.4f},{b:.4f},{gpu}\n")
    with open(os.path.join(out, "admission.csv"), "w", encoding="utf-8") as f:
        f.write("pair,model,k_pred,k_oracle,util_pred,util_oracle,violation,gpu\n")
        for p, m, kp, ko, up, uo, vi in admit:
            f.write(f"{p},{m},{kp},{ko},{up:.3f},{uo:.3f},{vi},{gpu}\n")
    return stats, admit, loo


def summary(stats, admit, loo=None):
    lines = [f"rows: {len(stats)} (pair, k >= 1, model); Eq. 10 error leaves out "
             f"Deg_meas < {DEG_MIN}"]
    if loo:
        lines.append(f"fluid2 query time fitted on all plain LCs: {loo[0]:.3f} us; "
                     "held out, per LC: " +
                     " ".join(f"{lc} {v:.3f}" for lc, v in sorted(loo[1].items())))
    for label in MODELS.values():
        s = [x for x in stats if x["model"] == label]
        if not s:
            continue
        lines.append(f"{label}:")
        groups = [("all", lambda x: "all")] + [(c, lambda x, c=c: x[c])
                                              for c in ("variant", "lc", "be", "k")]
        for name, key in groups:
            for g in sorted({key(x) for x in s}, key=str):
                part = [x for x in s if key(x) == g]
                deg = [x["deg"] for x in part if x["deg"] is not None]
                lines.append(
                    f"  {name + ' ' + str(g) if name != 'all' else 'all':<22} n={len(part):<4}"
                    f" deg_err={mean(deg):.3f} (left out {len(part) - len(deg)})"
                    f" lat_err={mean([x['lat'] for x in part]):.3f}")
        a = [x for x in admit if x[1] == label]
        if a:
            lines.append(
                f"  admission: {len(a)} pairs, k_pred = k_oracle in "
                f"{sum(x[2] == x[3] for x in a)}, mean util {mean([x[4] for x in a]):.3f}"
                f" (oracle {mean([x[5] for x in a]):.3f}), violations {sum(x[6] for x in a)}")
    return "\n".join(lines)


def main(argv):
    gpu, kmax, query_ns, args = "", None, None, []
    it = iter(argv)
    for a in it:
        if a in ("--gpu", "--kmax", "--loo-query-ns"):
            v = next(it, None)
            if v is None:
                print(f"prophet-eval: {a} needs a value", file=sys.stderr)
                return 2
            if a == "--gpu":
                gpu = v.replace(",", " ")
            elif a == "--loo-query-ns":
                try:
                    query_ns = float(v)
                except ValueError:
                    query_ns = -1.0
                if not 0 <= query_ns < 1e9:
                    print("prophet-eval: --loo-query-ns takes ns, 0 or more",
                          file=sys.stderr)
                    return 2
            elif not v.isdigit() or not 1 <= int(v) <= 64:
                print("prophet-eval: --kmax takes 1 to 64", file=sys.stderr)
                return 2
            else:
                kmax = int(v)
        elif a.startswith("-"):
            print(f"prophet-eval: unknown option {a}", file=sys.stderr)
            return 2
        else:
            args.append(a)
    if len(args) != 1:
        print("usage: prophet-eval.py [--gpu NAME] [--kmax K] [--loo-query-ns NS] OUT",
              file=sys.stderr)
        return 2
    try:
        stats, admit, loo = evaluate(args[0], gpu, kmax, query_ns)
    except (Error, ValueError, KeyError) as e:
        print(f"prophet-eval: {e}", file=sys.stderr)
        return 1
    print(summary(stats, admit, loo))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
