#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The contention features of G-Space's initial selection, from ncu's CSV
(bench/gpu/profile.sh runs ncu; Documentation/search.rst, "Profiles and
the micro-benchmark tables", says what each feature is and why).

  ncu_features.py check CSV METRICS
      exit 0 if every metric of the comma-separated METRICS has a number
      for every kernel of CSV (profile.sh picks its memory-instruction
      metrics with it), 1 if not, with the reason on stderr
  ncu_features.py features --out DIR --instances CSV --micro CSV
          --mem-metrics LIST [--real NAME=CSV ...] [--sass FILE ...]
      DIR/features.csv (mb,l1_hit,l2_hit,dram_bw,l2_bw,l1_bw,arith,insts),
      one row per micro-benchmark launch, in the order of instances.csv;
      DIR/features-real.csv (name,...), one row per --real workload: the
      time-weighted mean of its kernels' features (weights
      gpu__time_duration.sum), insts summed over them (one unit);
      DIR/profiles.csv, one row per profiled kernel launch.

ncu is run with --csv --print-units base --print-kernel-base mangled;
both of its CSV layouts are read: the details page (one row per metric,
"Metric Name"/"Metric Value") and the raw page (one column per metric, a
row of units first). Stdlib only.
"""
import csv
import hashlib
import math
import os
import re
import sys

TIME = "gpu__time_duration.sum"
INSTS = "smsp__inst_executed.sum"
# feature -> metric, in select.h's order (insts and arith are derived)
RATES = [
    ("l1_hit", "l1tex__t_sector_hit_rate.pct"),
    ("l2_hit", "lts__t_sector_hit_rate.pct"),
    ("dram_bw", "dram__throughput.avg.pct_of_peak_sustained_elapsed"),
    ("l2_bw", "lts__t_sectors.avg.pct_of_peak_sustained_elapsed"),
    ("l1_bw", "l1tex__throughput.avg.pct_of_peak_sustained_active"),
]
FEATURES = [f for f, _ in RATES] + ["arith", "insts"]
SCALE = {"": 1, "nsecond": 1, "ns": 1, "usecond": 1e3, "us": 1e3,
         "msecond": 1e6, "ms": 1e6, "second": 1e9, "s": 1e9,
         "inst": 1, "Kinst": 1e3, "Minst": 1e6, "Ginst": 1e9, "%": 1}


class Error(Exception):
    pass


class Usage(Error):
    pass


def number(text, unit=""):
    """ncu's value: thousands separators dropped, scaled to the base
    unit; None for n/a or an empty cell."""
    t = (text or "").strip().replace(",", "")
    if t in ("", "n/a", "N/A"):
        return None
    try:
        v = float(t)
    except ValueError as e:
        raise Error(f"'{text}' is not a number") from e
    if not math.isfinite(v):
        raise Error(f"'{text}' is not a finite number")
    return v * SCALE.get((unit or "").strip(), 1)


def dims(text):
    """"(640, 1, 1)" -> "640x1x1"."""
    nums = re.findall(r"\d+", text or "")
    return "x".join(nums) if nums else "?"


def read_ncu(path):
    """The kernels of one ncu CSV, in launch order: dicts of id, kernel,
    grid, block and metrics (name -> float or None)."""
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')),
                 None)
    if start is None:
        raise Error(f"{path}: no ncu CSV header (\"ID\",...): did ncu profile any kernel?")
    rows = list(csv.reader(lines[start:]))
    head = rows[0]
    col = {h: i for i, h in enumerate(head)}
    for need in ("ID", "Kernel Name"):
        if need not in col:
            raise Error(f"{path}: the header has no \"{need}\" column")
    kernels = {}

    def kernel(r):
        k = r[col["ID"]]
        if k not in kernels:
            kernels[k] = {
                "id": int(k), "kernel": r[col["Kernel Name"]],
                "grid": dims(r[col["Grid Size"]]) if "Grid Size" in col else "?",
                "block": dims(r[col["Block Size"]]) if "Block Size" in col else "?",
                "metrics": {}}
        return kernels[k]

    if "Metric Name" in col:
        for r in rows[1:]:
            if len(r) < len(head) or not r[col["ID"]].strip().isdigit():
                continue
            unit = r[col["Metric Unit"]] if "Metric Unit" in col else ""
            kernel(r)["metrics"][r[col["Metric Name"]]] = number(
                r[col["Metric Value"]], unit)
    else:
        units = {}
        for r in rows[1:]:
            if len(r) < len(head):
                continue
            if not r[col["ID"]].strip().isdigit():
                units = {h: r[i] for i, h in enumerate(head)}
                continue
            k = kernel(r)
            for i, h in enumerate(head):
                if "__" in h:
                    k["metrics"][h] = number(r[i], units.get(h, ""))
    if not kernels:
        raise Error(f"{path}: no kernel rows")
    return sorted(kernels.values(), key=lambda k: k["id"])


def check(path, metrics):
    for k in read_ncu(path):
        for m in metrics:
            if k["metrics"].get(m) is None:
                raise Error(f"{path}: kernel {k['id']} ({k['kernel']}) has no value for {m}")


def features(k, mem_metrics, path):
    """One kernel launch's 7 features and its time (ns)."""
    m = k["metrics"]
    for need in (TIME, INSTS):
        if m.get(need) is None:
            raise Error(f"{path}: kernel {k['id']} ({k['kernel']}) has no value for {need}")
    f = {name: m.get(metric) or 0.0 for name, metric in RATES}
    insts = m[INSTS]
    mem = sum(m.get(x) or 0.0 for x in mem_metrics)
    f["arith"] = 100.0 * (1.0 - mem / insts) if insts > 0 else 0.0
    f["insts"] = insts
    return f, m[TIME]


def weighted(parts, path):
    """A workload's profile: its kernels' features weighted by their time,
    the instructions summed (one unit)."""
    total = sum(t for _, t in parts)
    if not total > 0:
        raise Error(f"{path}: the kernels' total time is 0")
    out = {name: sum(f[name] * t for f, t in parts) / total
           for name in FEATURES if name != "insts"}
    out["insts"] = sum(f["insts"] for f, _ in parts)
    return out


def sass_hashes(paths):
    """cuobjdump -sass output -> {mangled name: sha1 of its SASS}."""
    out = {}
    for path in paths:
        name, body = None, []
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in list(f) + ["\tFunction : \n"]:
                m = re.match(r"\s*Function : (\S*)", line)
                if m or line.strip().startswith("....."):
                    if name and body and name not in out:
                        out[name] = hashlib.sha1("\n".join(body).encode()).hexdigest()
                    name, body = (m.group(1) if m else None), []
                elif name and re.match(r"\s*/\*[0-9a-f]{4,}\*/", line):
                    body.append(" ".join(line.split()))
    return out


def fmt(v):
    return f"{v:.0f}" if abs(v) >= 1e6 else f"{v:.6g}"


def read_instances(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] != ["mb", "name"]:
        raise Error(f"{path}: the header is not mb,name")
    names = []
    for i, r in enumerate(rows[1:]):
        if len(r) != 2 or r[0] != str(i):
            raise Error(f"{path}: line {i + 2} is not \"{i},NAME\"")
        names.append(r[1])
    return names


def cmd_features(args):
    opts = {"--out": None, "--instances": None, "--micro": None,
            "--mem-metrics": None}
    real, sass = [], []
    it = iter(args)
    for a in it:
        v = next(it, None)
        if v is None:
            raise Usage(f"{a} needs a value")
        if a in opts:
            opts[a] = v
        elif a == "--real":
            if "=" not in v:
                raise Usage(f"--real wants NAME=CSV, got '{v}'")
            real.append(tuple(v.split("=", 1)))
        elif a == "--sass":
            sass.append(v)
        else:
            raise Usage(f"unknown option '{a}'")
    for o, v in opts.items():
        if v is None:
            raise Usage(f"features needs {o}")
    mem = [x for x in opts["--mem-metrics"].split(",") if x]
    hashes = sass_hashes(sass)
    names = read_instances(opts["--instances"])
    micro = read_ncu(opts["--micro"])
    if len(micro) != len(names):
        raise Error(f"{opts['--micro']}: {len(micro)} kernels profiled for {len(names)} instances")
    prof = []

    def row(k, f, t, source):
        prof.append([k["kernel"], k["grid"], k["block"],
                     hashes.get(k["kernel"], "-"), source, fmt(t)] +
                    [fmt(f[x]) for x in FEATURES])

    out = opts["--out"]
    with open(os.path.join(out, "features.csv"), "w", encoding="utf-8") as fo:
        fo.write("mb," + ",".join(FEATURES) + "\n")
        for i, (name, k) in enumerate(zip(names, micro)):
            if "corun_lc" not in k["kernel"]:
                raise Error(f"{opts['--micro']}: kernel {k['id']} is {k['kernel']}, not corun_lc")
            f, t = features(k, mem, opts["--micro"])
            row(k, f, t, "micro:" + name)
            fo.write(f"{i}," + ",".join(fmt(f[x]) for x in FEATURES) + "\n")
    with open(os.path.join(out, "features-real.csv"), "w", encoding="utf-8") as fo:
        fo.write("name," + ",".join(FEATURES) + "\n")
        for name, path in real:
            parts = []
            for k in read_ncu(path):
                f, t = features(k, mem, path)
                row(k, f, t, name)
                parts.append((f, t))
            w = weighted(parts, path)
            fo.write(name + "," + ",".join(fmt(w[x]) for x in FEATURES) + "\n")
    with open(os.path.join(out, "profiles.csv"), "w", encoding="utf-8") as fo:
        fo.write("kernel,grid,block,sass_sha1,source,time_ns," +
                 ",".join(FEATURES) + "\n")
        for r in prof:
            fo.write(",".join(r) + "\n")


def main(argv):
    try:
        if len(argv) == 3 and argv[0] == "check":
            check(argv[1], [m for m in argv[2].split(",") if m])
        elif argv and argv[0] == "features":
            cmd_features(argv[1:])
        else:
            print(__doc__.split("\n\n")[1], file=sys.stderr)
            return 2
    except (Error, OSError) as e:
        print(f"ncu_features.py: {e}", file=sys.stderr)
        return 2 if isinstance(e, Usage) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
