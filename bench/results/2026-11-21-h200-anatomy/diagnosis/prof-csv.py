#!/usr/bin/env python3
"""The "prof"/"prof2" lines of xform-check logs built with
xform-check-prof.diff, as one CSV on stdout: prof-csv.py LOG..."""
import csv
import os
import re
import sys

NUM = r"(-?[0-9.]+)"
PROF = [("blocks", r"blocks (\d+)"), ("K", r" K (\d+)"),
        ("kernel_us", r"kernel " + NUM), ("orig_us", r"\(orig " + NUM),
        ("span_us", r"span " + NUM), ("entry_spread_us", r"entry spread " + NUM),
        ("slot_mean_us", r"slot mean " + NUM), ("slot_max_us", r"slot mean [0-9.]+ max " + NUM),
        ("first_task_us", r"first task \+" + NUM),
        ("boundaries", r"boundaries " + NUM),
        ("boundary_us_per_block", r"boundaries [0-9.]+, " + NUM),
        ("join_passes", r"join passes " + NUM), ("join_wait_us", r"join passes [0-9.]+ wait " + NUM),
        ("end_spread_us", r"end spread " + NUM), ("finish_us", r"finish mean " + NUM),
        ("tasks_per_block", r"tasks/blk " + NUM)]
PROF2 = [("adapt_us", r"adapt " + NUM), ("fill_us", r"fill " + NUM),
         ("word_us", r"word " + NUM), ("claim_us", r"claim " + NUM),
         ("sm_copy_fresh", r"sm-fresh " + NUM), ("sm_copy_busy", r"stale " + NUM),
         ("mirror_taken", r"take " + NUM), ("await_iters", r"await-iters " + NUM)]
rows = {}
for path in sys.argv[1:]:
    for line in open(path):
        m = re.match(r"(prof2?) (.+) rep (\d+): (.*)", line)
        if not m:
            continue
        key = (os.path.basename(path), m.group(2), m.group(3))
        row = rows.setdefault(key, {"log": key[0], "kernel": key[1], "rep": key[2]})
        for name, rx in (PROF if m.group(1) == "prof" else PROF2):
            f = re.search(rx, m.group(4))
            if f:
                row[name] = f.group(1)
cols = ["log", "kernel", "rep"] + [n for n, _ in PROF] + [n for n, _ in PROF2]
w = csv.DictWriter(sys.stdout, cols, restval="")
w.writeheader()
for r in rows.values():
    w.writerow(r)
