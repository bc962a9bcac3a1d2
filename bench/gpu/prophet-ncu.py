#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fill the dram_Bps column of a gsp-trace CSV (Documentation/tracing.rst)
from Nsight Compute's CSV of the same program:

  ncu --csv --print-units base --print-kernel-base mangled \\
      --metrics dram__bytes.sum,gpu__time_duration.sum \\
      --launch-skip 10 --launch-count 30 --log-file NCU.csv PROG...

  prophet-ncu.py TRACE NCU.csv [--out FILE]

Per kernel name, the median over its profiled launches of
dram__bytes.sum / gpu__time_duration.sum (bytes per second, the whole
kernel) goes into every row of that kernel; copies keep 0, and so do
kernels ncu did not profile, counted in a warning on stderr. Names are
matched after the trace's sanitising (',' and line ends made '_').
Writes FILE, else TRACE in place. Exit 0, 1 for a file that is not what
it should be, 2 for bad arguments. Stdlib only; reads ncu's CSV with
ncu_features.py's reader (both of its layouts).
"""
import os
import statistics
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ncu_features  # noqa: E402

BYTES = "dram__bytes.sum"
TIME = "gpu__time_duration.sum"
MAGIC = "# gsp-trace 1"
HEADER = ("seq,query,type,submit_ns,gap_ns,dur_ns,grid,threads,regs,smem,"
          "dram_Bps,bytes,pinned,name")
COL_TYPE, COL_DRAM, COL_NAME = 2, 10, 13


class Error(Exception):
    pass


def sanitise(name):
    return name.replace(",", "_").replace("\n", "_").replace("\r", "_")


def rates(path):
    """kernel name -> median bytes/s over its profiled launches."""
    try:
        kernels = ncu_features.read_ncu(path)
    except (OSError, ncu_features.Error) as e:
        raise Error(str(e)) from e
    per = {}
    for k in kernels:
        b, t = k["metrics"].get(BYTES), k["metrics"].get(TIME)
        if b is None or not t:
            continue
        per.setdefault(sanitise(k["kernel"]), []).append(b / (t * 1e-9))
    if not per:
        raise Error(f"{path}: no kernel has both {BYTES} and {TIME}")
    return {name: statistics.median(v) for name, v in per.items()}


def fill(trace, bps):
    """The trace's lines with dram_Bps filled, and the kernels (name ->
    rows) that ncu did not profile."""
    try:
        with open(trace, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise Error(str(e)) from e
    if len(lines) < 2 or lines[0] != MAGIC or lines[1] != HEADER:
        raise Error(f"{trace}: not a gsp-trace 1 CSV (its first two lines)")
    out, missing = lines[:2], {}
    for n, line in enumerate(lines[2:], 3):
        f = line.split(",")
        if len(f) != 14:
            raise Error(f"{trace}: line {n}: {len(f)} fields, not 14")
        if f[COL_TYPE] == "kernel":
            if f[COL_NAME] in bps:
                f[COL_DRAM] = f"{bps[f[COL_NAME]]:.1f}"
            else:
                missing[f[COL_NAME]] = missing.get(f[COL_NAME], 0) + 1
        out.append(",".join(f))
    return out, missing


def main(argv):
    args, dest = [], None
    it = iter(argv)
    for a in it:
        if a == "--out":
            dest = next(it, None)
            if not dest:
                print("prophet-ncu: --out needs a file", file=sys.stderr)
                return 2
        elif a.startswith("-"):
            print(f"prophet-ncu: unknown option {a}", file=sys.stderr)
            return 2
        else:
            args.append(a)
    if len(args) != 2:
        print("usage: prophet-ncu.py TRACE NCU.csv [--out FILE]", file=sys.stderr)
        return 2
    trace, ncu = args
    try:
        lines, missing = fill(trace, rates(ncu))
    except Error as e:
        print(f"prophet-ncu: {e}", file=sys.stderr)
        return 1
    if missing:
        print(f"prophet-ncu: {trace}: {len(missing)} kernels "
              f"({sum(missing.values())} rows) not profiled by ncu keep "
              f"dram_Bps 0: {', '.join(sorted(missing)[:5])}"
              f"{' ...' if len(missing) > 5 else ''}", file=sys.stderr)
    dest = dest or trace
    tmp = dest + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, dest)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
