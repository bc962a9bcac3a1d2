#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The real pairs' tables for gsp-select, from search-eval.py's cells.csv.

    search-real.py CELLS.csv OUT.csv

Keeps the pairs whose grid run measured every one of the 88 cells and
writes lc,be,n,k,lc_ratio,be_rate with be_rate the cell's be_per_s over
the pair's greatest. That is the BE's rate over all the time a cell was
held, not corun's rate while the LC runs: gsp-select's BE errors on it
compare two different quantities (Documentation/search.rst).
"""
import csv
import sys

CELLS = 88


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: search-real.py CELLS.csv OUT.csv')
    by = {}
    with open(sys.argv[1], newline='') as f:
        for r in csv.DictReader(f):
            by.setdefault(r['pair'], []).append(r)
    with open(sys.argv[2], 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['lc', 'be', 'n', 'k', 'lc_ratio', 'be_rate'])
        for pair, rows in sorted(by.items()):
            if len(rows) != CELLS:
                print(f'search-real: {pair}: {len(rows)} cells, left out',
                      file=sys.stderr)
                continue
            top = max(float(r['be_per_s']) for r in rows)
            lc, be = pair.split('_', 1)
            for r in rows:
                w.writerow([lc, be, r['n'], r['k'], r['lc_ratio'],
                            f"{float(r['be_per_s']) / top:.4f}"])


if __name__ == '__main__':
    main()
