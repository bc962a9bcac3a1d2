#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""stm-eval.py on a fixture of three sets whose summary is known: TAP."""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
EVAL = os.path.join(HERE, "stm-eval.py")

# a: STM 25 % under seq, 20 % under conc; b: STM loses to both;
# c: 50 % under seq, 0 % against conc.
FIXTURE = """set,jobs,seq_ms,conc_ms,stm_ms,model_stm_ms,model_opt_ms,plan
0,mm+lbm,80,75,60,55,50,mm:6+lbm:10
1,nn+cfd,50,45,55,50,50,nn:16|cfd:16
2,md+bp+lud,120,60,60,66,60,md:4+bp:4+lud:8
"""

n = 0
bad = 0


def ok(cond, what):
    global n, bad
    n += 1
    print(f"{'ok' if cond else 'not ok'} {n} - stm-eval: {what}")
    bad += not cond


with tempfile.TemporaryDirectory() as d:
    r = subprocess.run([sys.executable, EVAL, d], capture_output=True)
    ok(r.returncode == 2 and r.stderr, "a folder without stm.csv exits 2")
    with open(os.path.join(d, "stm.csv"), "w") as f:
        f.write(FIXTURE)
    r = subprocess.run([sys.executable, EVAL, d], capture_output=True, text=True)
    ok(r.returncode == 0, "the fixture is summarised")
    text = open(os.path.join(d, "summary.txt")).read()
    # over seq: 25, -10, 50 -> mean 21.7, best 50 (md+bp+lud)
    ok("over sequential: mean 21.7 %" in text and "best 50.0 %" in text and
       "md+bp+lud" in text, "mean and best over sequential")
    # over conc: 20, -22.2, 0 -> mean -0.7, best 20
    ok("over concurrent: mean -0.7 %" in text and "best 20.0 %" in text,
       "mean and best over concurrent")
    ok("STM slower than sequential in 1 sets:" in text and
       "nn+cfd: -10.0 %" in text, "the set that loses to sequential is named")
    ok("STM slower than concurrent in 1 sets:" in text, "and to concurrent")
    # model gap 10, 0, 10 -> 6.7 %
    ok("mean 6.7 %" in text, "the model's mean gap to its optimum")
    rows = open(os.path.join(d, "summary.csv")).read().splitlines()
    ok(len(rows) == 4 and rows[1].startswith("0,mm+lbm,2,0.2500,0.2000"),
       "summary.csv's first set")
print(f"1..{n}")
sys.exit(1 if bad else 0)
