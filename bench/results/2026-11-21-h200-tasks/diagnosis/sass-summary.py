#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
# Per kernel of ncu's source page (ncu-full/f-WL-MODE.sass.csv.gz):
# executed warp instructions, the share of each warp stall reason in the
# samples, and executed instructions by opcode family (U*: uniform
# datapath). Writes CSV on stdout.
import csv, glob, gzip, os, sys
from collections import Counter


def num(x):
    try:
        return float(x.replace(',', ''))
    except ValueError:
        return 0.0


def kernels(path):
    lines = gzip.open(path, 'rt').read().splitlines()
    heads = [i for i, l in enumerate(lines) if l.startswith('"Kernel Name"')]
    for k, i in enumerate(heads):
        end = heads[k + 1] if k + 1 < len(heads) else len(lines)
        rows = list(csv.DictReader(lines[i + 1:end]))
        if sum(num(r['Instructions Executed']) for r in rows) > 0:
            yield lines[i].split(',', 1)[1].strip('",'), rows


here = os.path.dirname(os.path.abspath(__file__))
w = csv.writer(sys.stdout)
w.writerow(['wl', 'mode', 'kernel', 'warp_instructions', 'uniform_instructions',
            'samples', 'barrier_pct', 'long_sb_pct', 'wait_pct', 'short_sb_pct',
            'top_opcodes'])
for path in sorted(glob.glob(os.path.join(here, 'ncu-full', 'f-*.sass.csv.gz'))):
    wl, mode = os.path.basename(path)[2:-len('.sass.csv.gz')].rsplit('-', 1)
    for name, rows in kernels(path):
        ops, stalls = Counter(), Counter()
        for r in rows:
            toks = [t for t in r['Source'].split() if not t.startswith('@')]
            if toks:
                ops[toks[0].split('.')[0]] += num(r['Instructions Executed'])
            for c in r:
                if c.startswith('stall_') and 'Not Issued' not in c:
                    stalls[c[6:]] += num(r[c])
        total = sum(num(r['Warp Stall Sampling (All Samples)']) for r in rows)
        uni = sum(v for k, v in ops.items() if k.startswith('U'))
        pct = lambda s: '%.1f' % (100 * stalls[s] / total) if total else ''
        w.writerow([wl, mode, name, int(sum(ops.values())), int(uni), int(total),
                    pct('barrier'), pct('long_sb'), pct('wait'), pct('short_sb'),
                    ' '.join('%s=%d' % kv for kv in ops.most_common(8))])
