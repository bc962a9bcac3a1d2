#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Unit test of prophet-eval.py on small measured.csv and predicted.csv
fixtures whose degradations, errors and admission answers are worked
out by hand below. Prints TAP lines ("ok - ..." / "not ok - ...") only."""
import contextlib
import importlib.util
import io
import os
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("prophet_eval",
                                              os.path.join(HERE, "prophet-eval.py"))
pe = importlib.util.module_from_spec(spec)
spec.loader.exec_module(pe)

results = []
# bp_cfd: solo 100 us, k 1: 150, k 2: 250 (over 2x: the oracle is k 1).
# bp_cfd_xfer: k 1 failed (empty), k 2: 180.
# lbm_md: k 1: 101 (Deg 0.01, left out of Eq. 10).
MEASURED = """lc,be,variant,k,lc_mean_us,lc_p95_us,be_units_per_s
bp,cfd,plain,0,100,120,
bp,cfd,plain,1,150,200,10
bp,cfd,plain,2,250,300,8
bp,cfd,xfer,0,100,120,
bp,cfd,xfer,1,,,
bp,cfd,xfer,2,180,200,5
lbm,md,plain,0,100,110,
lbm,md,plain,1,101,111,9
"""
# fluid: solo 90, k 1 135 (1.5x), k 2 171 (1.9x: k_pred 2, a violation);
# sequential: k 1 270 (3x), k 2 360 (4x): k_pred 0.
PREDICTED = """lc,be,variant,k,model,lc_solo_us,lc_mean_us,lc_p95_us,be_tasks_per_s,be_iters_per_s
bp,cfd,plain,0,fluid,90,90,100,0,0
bp,cfd,plain,1,fluid,90,135,150,1,1
bp,cfd,plain,2,fluid,90,171,200,1,1
bp,cfd,plain,0,sequential,90,90,100,0,0
bp,cfd,plain,1,sequential,90,270,300,1,1
bp,cfd,plain,2,sequential,90,360,400,1,1
bp,cfd,xfer,0,fluid,90,90,100,0,0
bp,cfd,xfer,1,fluid,90,135,150,1,1
bp,cfd,xfer,2,fluid,90,162,200,1,1
lbm,md,plain,0,fluid,100,100,100,0,0
lbm,md,plain,1,fluid,100,110,100,1,1
"""


def check(cond, what, detail=""):
    results.append(bool(cond))
    print(f"{'ok' if cond else 'not ok'} - prophet-eval: {what}")
    if not cond and detail:
        for line in str(detail).splitlines():
            print(f"# {line}")


def call(argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = pe.main(argv)
    return rc, out.getvalue(), err.getvalue()


def table(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    return lines[0], {tuple(l.split(",")[:2]): l.split(",")[2:] for l in lines[1:]}


def fixtures(d, predicted):
    for name, text in (("measured.csv", MEASURED), ("predicted.csv", predicted)):
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(text)


def run(d):
    fixtures(d, PREDICTED)
    rc, out, err = call(["--gpu", "H100, SXM", "--kmax", "2", d])
    check(rc == 0, "exit 0 on the fixtures", err)
    head, p = table(os.path.join(d, "predict.csv"))
    check(head == "pair,model,predicted,measured,gpu", "predict.csv's header")
    check(p.get(("bp_cfd_1", "prophet")) == ["1.5000", "1.5000", "H100  SXM"],
          "bp_cfd_1 prophet: 1.5x predicted and measured, the GPU's comma dropped", p)
    check(p.get(("bp_cfd_2", "sequential")) == ["4.0000", "2.5000", "H100  SXM"],
          "bp_cfd_2 sequential: 4x predicted, 2.5x measured", p)
    check(("bp_cfd_xfer_1", "prophet") not in p and ("bp_cfd_xfer_2", "prophet") in p,
          "a failed measurement has no row; the copy variant is named _xfer", p)
    check(len(p) == 6, "6 rows: 2 + 2 + 1 + 1", p)
    # prophet: deg errors 0 (k1), |0.9-1.5|/1.5 = 0.4 (k2), xfer k2
    # |0.8-0.8|/0.8 = 0, lbm k1 left out -> mean 0.133; latency errors
    # 0.1, 0.316, 0.1, 0.089 -> 0.151
    check("deg_err=0.133 (left out 1) lat_err=0.151" in out,
          "Eq. 10 and latency error, the near-zero Deg left out", out)
    check("variant xfer" in out and "lc lbm" in out and "k 2" in out,
          "the errors per variant, LC and k", out)
    head, a = table(os.path.join(d, "admission.csv"))
    check(head == "pair,model,k_pred,k_oracle,util_pred,util_oracle,violation,gpu",
          "admission.csv's header")
    check(a.get(("bp_cfd", "prophet"), [])[:5] == ["2", "1", "1.000", "0.500", "1"],
          "bp_cfd prophet: k* 2 over the oracle's 1, a violation", a)
    check(a.get(("bp_cfd", "sequential"), [])[:5] == ["0", "1", "0.000", "0.500", "0"],
          "bp_cfd sequential: k* 0, no violation", a)
    check(a.get(("bp_cfd_xfer", "prophet"), [])[:2] == ["2", "2"],
          "bp_cfd_xfer: k 2 admitted by both, past the failed k 1", a)
    check(call([d, "--kmax", "0"])[0] == 2, "exit 2 for --kmax 0")
    check(call([])[0] == 2, "exit 2 without OUT")
    check(call([os.path.join(d, "none")])[0] == 1, "exit 1 without the CSVs")
    with open(os.path.join(d, "predicted.csv"), "w", encoding="utf-8") as f:
        f.write(PREDICTED.replace("sequential", "greedy"))
    check(call([d])[0] == 1, "exit 1 for an unknown model")


# fluid2 with a 10 us query time: bp's replay is 95 - 10 = 85 us solo
# against 100 measured (15 us missing), lbm's 100 - 10 = 90 (10 us): 12.5
# fitted on both; held out, bp gets lbm's 10 (its rows unchanged) and lbm
# bp's 15 (its rows 5 us later: 115 / 105 = 1.0952 at k 1).
PREDICTED2 = """lc,be,variant,k,model,lc_solo_us,lc_mean_us,lc_p95_us,be_tasks_per_s,be_iters_per_s
bp,cfd,plain,0,fluid2,95,95,100,0,0
bp,cfd,plain,1,fluid2,95,140,150,1,1
lbm,md,plain,0,fluid2,100,100,100,0,0
lbm,md,plain,1,fluid2,100,110,100,1,1
"""


def run_loo(d):
    fixtures(d, PREDICTED2)
    rc, out, err = call(["--kmax", "2", "--loo-query-ns", "10000", d])
    check(rc == 0, "--loo-query-ns: exit 0", err)
    check("fitted on all plain LCs: 12.500 us; held out, per LC: bp 10.000 lbm 15.000"
          in out, "--loo-query-ns: the fit and the leave-one-LC-out folds", out)
    _, p = table(os.path.join(d, "predict.csv"))
    check(p.get(("lbm_md_1", "fluid2-loo"), [])[:2] == ["1.0952", "1.0100"] and
          p.get(("lbm_md_1", "fluid2"), [])[:1] == ["1.1000"],
          "lbm held out: 5 us later on both sides, 115 / 105", p)
    check(p.get(("bp_cfd_1", "fluid2-loo"), [])[:1] == ["1.4737"],
          "bp held out: its fold's time is the one it was predicted with", p)
    check(call(["--loo-query-ns", "-1", d])[0] == 2, "exit 2 for a negative --loo-query-ns")
    with open(os.path.join(d, "predicted.csv"), "w", encoding="utf-8") as f:
        f.write(PREDICTED2.replace("fluid2", "fluid2-loo"))
    check(call([d])[0] == 1, "exit 1 for fluid2-loo rows in predicted.csv")


def main():
    with tempfile.TemporaryDirectory() as d:
        run(d)
    with tempfile.TemporaryDirectory() as d:
        run_loo(d)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
