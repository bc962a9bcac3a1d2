#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The LC-protection benchmark's tables and plots (bench/run-lcprotect.sh).

  lcprotect-pareto.py RAW.csv GPU > pareto.csv
      joins the solo rows of RAW.csv (a BE shape alone, an LC alone) into
      every other row: the columns issue 27 fixes
  lcprotect-pareto.py --plot pareto.csv OUTDIR
      one SVG per (shape, lc, arrival): LC p99 / solo against BE / solo,
      a point per mechanism and setting
  lcprotect-pareto.py --blocks BLOCKS.csv
      where the slow requests' blocks ran (lcprotect --block-trace): for
      requests over 3x the median latency, the SMs of their blocks that
      took over 3x the median block, against those of all blocks, and
      when the first 20 of them started; then,
      at the p50 and p99 of the requests, each of: the latency; "outside",
      the latency less the span from the first block's start to the last
      block's end (launch, queueing, the synchronise); "starts", the
      spread of the blocks' starts; "pile", the most of the request's
      blocks on one SM at once; and the request's median block
"""
import csv
import os
import re
import sys

COLS = ["shape", "lc", "arrival", "mechanism", "setting", "lc_solo_p99_us",
        "lc_p50_us", "lc_p99_us", "lc_p999_us", "be_solo_per_s", "be_per_s",
        "gpu"]


def pareto(raw, gpu, out):
    rows = list(csv.DictReader(open(raw)))
    be_solo = {r["shape"]: r["be_per_s"] for r in rows
               if r["mechanism"] == "solo" and r["shape"]}
    lc_solo = {(r["lc"], r["arrival"]): r["lc_p99_us"] for r in rows
               if r["mechanism"] == "solo" and r["lc"]}
    w = csv.writer(out, lineterminator="\n")
    w.writerow(COLS)
    for r in rows:
        if r["mechanism"] == "solo":
            continue
        w.writerow([r["shape"], r["lc"], r["arrival"], r["mechanism"],
                    r["setting"], lc_solo.get((r["lc"], r["arrival"]), ""),
                    r["lc_p50_us"], r["lc_p99_us"], r["lc_p999_us"],
                    be_solo.get(r["shape"], ""), r["be_per_s"], gpu])


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return None


def plot(path, outdir):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import svgplot

    cells = {}
    for r in csv.DictReader(open(path)):
        cells.setdefault((r["shape"], r["lc"], r["arrival"]), []).append(r)
    os.makedirs(outdir, exist_ok=True)
    for (shape, lc, arr), rs in sorted(cells.items()):
        groups = {}
        for r in rs:
            p99, solo = num(r["lc_p99_us"]), num(r["lc_solo_p99_us"])
            be, be_solo = num(r["be_per_s"]), num(r["be_solo_per_s"])
            if None in (p99, solo, be, be_solo) or not solo or not be_solo:
                continue
            lab = "" if r["setting"] == "default" else r["setting"]
            groups.setdefault(r["mechanism"], []).append(
                (be / be_solo, p99 / solo, lab))
        name = re.sub(r"[^A-Za-z0-9._-]", "_", f"{shape}.{lc}.{arr}")
        svgplot.scatter(os.path.join(outdir, name + ".svg"),
                        f"BE {shape}, LC {lc} {arr}",
                        "BE throughput / BE alone", "LC p99 / LC alone",
                        sorted(groups.items()), logy=True)


def blocks(path, out):
    rows = list(csv.DictReader(open(path)))
    if not rows:
        out.write("no blocks\n")
        return
    lat = {}
    for r in rows:
        lat[int(r["req"])] = int(r["lat_ns"])
    dur = sorted(int(r["end_gt_ns"]) - int(r["start_gt_ns"]) for r in rows)
    lats = sorted(lat.values())
    med_lat, med_dur = lats[len(lats) // 2], dur[len(dur) // 2]
    slow = {q for q, v in lat.items() if v > 3 * med_lat}
    long_sms = {}
    for r in rows:
        d = int(r["end_gt_ns"]) - int(r["start_gt_ns"])
        if int(r["req"]) in slow and d > 3 * med_dur:
            long_sms[int(r["smid"])] = long_sms.get(int(r["smid"]), 0) + 1
    all_sms = sorted({int(r["smid"]) for r in rows})
    out.write(f"{len(lat)} requests, median {med_lat / 1e3:.1f} us; "
              f"{len(slow)} over 3x; median block {med_dur / 1e3:.1f} us; "
              f"blocks ran on SMs {all_sms[0]}-{all_sms[-1]} "
              f"({len(all_sms)} SMs)\n")
    if long_sms:
        out.write("slow requests' long blocks by SM: " +
                  " ".join(f"{k}:{v}" for k, v in sorted(long_sms.items())) +
                  "\n")
    if slow:
        # when they came: a period in them names what they collide with
        t0 = min(int(r["start_gt_ns"]) for r in rows)
        first = {}
        for r in rows:
            q = int(r["req"])
            if q in slow:
                first[q] = min(first.get(q, 1 << 63), int(r["start_gt_ns"]))
        out.write("slow requests start at, ms after the first block: " +
                  " ".join(f"{(first[q] - t0) / 1e6:.2f}"
                           for q in sorted(first)[:20]) +
                  (" ..." if len(first) > 20 else "") + "\n")
    anatomy(rows, lat, out)


def pile(spans):
    """The most of @spans ((start, end) pairs) that overlap at once."""
    ev = sorted([(a, 1) for a, _ in spans] + [(b, -1) for _, b in spans])
    most = cur = 0
    for _, d in ev:
        cur += d
        most = max(most, cur)
    return most


def anatomy(rows, lat, out):
    """Per request: outside its blocks, start spread, pile-up, block."""
    per = {}
    for r in rows:
        per.setdefault(int(r["req"]), []).append(
            (int(r["smid"]), int(r["start_gt_ns"]), int(r["end_gt_ns"])))
    fig = {k: [] for k in ("latency", "outside", "starts", "pile", "block")}
    for q, bl in per.items():
        first = min(b[1] for b in bl)
        last = max(b[2] for b in bl)
        by_sm = {}
        for sm, a, b in bl:
            by_sm.setdefault(sm, []).append((a, b))
        durs = sorted(b - a for _, a, b in bl)
        fig["latency"].append(lat[q])
        fig["outside"].append(lat[q] - (last - first))
        fig["starts"].append(max(b[1] for b in bl) - first)
        fig["pile"].append(max(pile(v) for v in by_sm.values()) * 1000)
        fig["block"].append(durs[len(durs) // 2])
    for k, v in fig.items():
        v.sort()
        p50, p99 = v[len(v) // 2], v[min(len(v) - 1, len(v) * 99 // 100)]
        unit = "" if k == "pile" else " us"
        out.write(f"  {k:8s} p50 {p50 / 1e3:9.1f}{unit}  "
                  f"p99 {p99 / 1e3:9.1f}{unit}\n")


def main(argv):
    if len(argv) == 4 and argv[1] == "--plot":
        plot(argv[2], argv[3])
    elif len(argv) == 3 and argv[1] == "--blocks":
        blocks(argv[2], sys.stdout)
    elif len(argv) == 3 and not argv[1].startswith("-"):
        pareto(argv[1], argv[2], sys.stdout)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
