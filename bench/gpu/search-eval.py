#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Evaluates bench/run-search.sh's runs (standard library only).

    search-eval.py [--q Q] [--gpu NAME] [--oracle CELLS] LOGS OUT

LOGS holds, per run PAIR.METHOD, the LC's search log (GSP_SEARCH_LOG,
PAIR.METHOD.search.csv) and gsp-wl's traces (PAIR.METHOD.lc.trace: "lc
START_NS LAT_NS" per request; PAIR.METHOD.be.trace: "be END_NS" per BE
unit), and solo.txt ("solo LC P50 us"; a search run uses the solo time
its log says it was given). What the user feels is taken
from gsp-wl's traces, never from the search's own log:

- the oracle's table (the grid run's first pass over the grid): for each
  cell, the LC ratio is the median latency of the gsp-wl requests that
  its invocations were (matched by start time) over solo, the BE rate
  the units that ended while the cell was held (from each of its
  invocations' start to the next one's) per second of that time;
- the oracle: the greatest BE rate among the cells of LC ratio <= Q;
- for each run: the cell it holds once done (its first invocation in
  state done), the LC's invocations before it: all of them, the cold
  first one and those begun before a cell change included, the solo
  timing not,
  the BE rate of that cell in the oracle's table over the oracle's, and
  the requests begun after that whose latency exceeds Q times solo.

--oracle CELLS takes the oracle's table of a pair with no grid run in
LOGS from an earlier run's cells.csv (its BE rates are that run's: say
so beside the numbers).

Writes OUT/search.csv, OUT/cells.csv, OUT/detail.csv and
OUT/sidebyside.csv (every run, mps and mps50 included, as beside() says).
"""
import argparse
import bisect
import csv
import os
import statistics
import sys

STATE_SOLO, STATE_RUN, STATE_DONE = 1, 2, 3
METHODS = ('oracle', 'nn', 'lr', 'ns', 'gns', 'srs', 'nn_ns', 'nn_gns',
           'nn_srs')


def read_log(path):
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            rows.append({'start': int(r['start_ns']), 'end': int(r['end_ns']),
                         'n': int(r['n']), 'k': int(r['k']),
                         'state': int(r['state']),
                         'reported': int(r['reported']),
                         'solo_ns': float(r['solo_us']) * 1e3})
    return rows


def run_solo(base, solo_ns):
    """The solo time a search run was given (its log says), else
    solo.txt's: runs of several batches each keep their own."""
    path = base + '.search.csv'
    if os.path.exists(path):
        log = read_log(path)
        if log:
            return log[0]['solo_ns']
    return solo_ns


def read_trace(path, kind):
    out = []
    if not os.path.exists(path):
        return out
    with open(path) as f:
        for line in f:
            p = line.split()
            if p and p[0] == kind:
                out.append(tuple(float(x) for x in p[1:]))
    return out


def match(log, lc):
    """Each measured invocation's gsp-wl request: the last one begun at
    most 1 ms before the invocation's first issue; None if there is
    none."""
    starts = [t0 for t0, _ in lc]
    out = []
    for r in log:
        i = bisect.bisect_right(starts, r['start'] + 50e3) - 1
        ok = i >= 0 and r['start'] - starts[i] <= 1e6
        out.append(lc[i][1] if ok else None)
    return out


def table(log, lc, be, solo_ns):
    """The grid run's first pass: (n, k) -> (lc_ratio, be_per_s), each
    cell's requests (matched to its invocations) and the BE units that
    ended while it was held: from each invocation's start to the next's."""
    lats, held = {}, {}
    ends = [t for (t,) in be]
    m = match(log, lc)
    for i, r in enumerate(log):
        if r['state'] == STATE_DONE:
            break
        if r['state'] != STATE_RUN or not r['reported']:
            continue
        c = (r['n'], r['k'])
        if m[i] is not None:
            lats.setdefault(c, []).append(m[i])
        if i + 1 < len(log):
            s, e = r['start'], log[i + 1]['start']
            n = bisect.bisect_right(ends, e) - bisect.bisect_left(ends, s)
            u, t = held.get(c, (0, 0))
            held[c] = (u + n, t + (e - s))
    cells = {}
    for c, v in lats.items():
        u, t = held.get(c, (0, 0))
        if t > 0:
            cells[c] = (statistics.median(v) / solo_ns, u / (t / 1e9))
    return cells


def outcome(log, lc, solo_ns, q):
    """(cell held once done or None, done_ns, invocations, after, viol)."""
    measured = 0
    for r in log:
        if r['state'] == STATE_DONE:
            after = [lat for t0, lat in lc if t0 >= r['start']]
            viol = sum(1 for lat in after if lat > q * solo_ns)
            return (r['n'], r['k']), r['start'], measured, len(after), viol
        if r['state'] != STATE_SOLO:
            measured += 1
    return None, None, measured, 0, 0


def beside(pair, m, base, lc, solo_ns, best, a):
    """One run as the user feels it, from convergence on (a search: its
    first invocation done; MPS: 0.5 s after its first request) to the
    last request: the BE's units a second over the oracle's best cell,
    the LC's p50 and p99 over solo, the requests and those over Q."""
    nan = float('nan')
    if m.startswith('mps'):
        t0 = lc[0][0] + 0.5e9 if lc else None
    else:
        t0 = outcome(read_log(base + '.search.csv'), lc, solo_ns, a.q)[1]
    after = sorted(lat for s, lat in lc if t0 is not None and s >= t0)
    if not after:
        return [pair, m, 'NaN', 'NaN', 'NaN', 0, 0, a.gpu]
    t1 = max(s + lat for s, lat in lc)
    units = sum(1 for (t,) in read_trace(base + '.be.trace', 'be')
                if t0 <= t <= t1)
    rate = units / ((t1 - t0) / 1e9)
    frac = rate / best if best == best and best > 0 else nan
    p99 = after[min(len(after) - 1, int(0.99 * len(after)))]
    return [pair, m, f'{frac:.3f}',
            f'{statistics.median(after) / solo_ns:.3f}',
            f'{p99 / solo_ns:.3f}', len(after),
            sum(1 for lat in after if lat > a.q * solo_ns), a.gpu]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--q', type=float, default=2.0)
    ap.add_argument('--gpu', default='unknown')
    ap.add_argument('--oracle', help="an earlier run's cells.csv")
    ap.add_argument('logs')
    ap.add_argument('out')
    a = ap.parse_args()
    solo = {}
    try:
        with open(os.path.join(a.logs, 'solo.txt')) as f:
            for line in f:
                p = line.split()
                if len(p) >= 3 and p[2] not in ('', 'us'):
                    solo[p[1]] = float(p[2]) * 1e3
    except OSError as e:
        sys.exit(f'search-eval: {e}')
    earlier = {}
    if a.oracle:
        try:
            with open(a.oracle) as f:
                for r in csv.DictReader(f):
                    earlier.setdefault(r['pair'], {})[
                        (int(r['n']), int(r['k']))] = (
                        float(r['lc_ratio']), float(r['be_per_s']))
        except (OSError, KeyError, ValueError) as e:
            sys.exit(f'search-eval: --oracle {a.oracle}: {e}')
    runs = sorted(f[:-len('.lc.trace')] for f in os.listdir(a.logs)
                  if f.endswith('.lc.trace'))
    pairs = sorted({r.rsplit('.', 1)[0] for r in runs})
    res, det, cells_out, side = [], [], [], []
    for p in pairs:
        lcname = p.split('_')[0]
        if lcname not in solo:
            continue
        s_ns = solo[lcname]
        tab = dict(earlier.get(p, {}))
        if f'{p}.grid' in runs:
            base = os.path.join(a.logs, f'{p}.grid')
            tab = table(read_log(base + '.search.csv'),
                        read_trace(base + '.lc.trace', 'lc'),
                        read_trace(base + '.be.trace', 'be'), s_ns)
            for c, (r, b) in sorted(tab.items()):
                cells_out.append([p, c[0], c[1], f'{r:.4f}', f'{b:.1f}'])
        ok = [b for (r, b) in tab.values() if r <= a.q]
        best = max(ok) if ok else float('nan')
        for run in [r for r in runs if r.startswith(p + '.')]:
            m = run.rsplit('.', 1)[1]
            base = os.path.join(a.logs, run)
            lc = read_trace(base + '.lc.trace', 'lc')
            r_ns = run_solo(base, s_ns)
            side.append(beside(p, m, base, lc, r_ns, best, a))
            if m.startswith('mps'):
                continue
            cell, done, inv, after, viol = outcome(
                read_log(base + '.search.csv'), lc, r_ns, a.q)
            frac = float('nan')
            if cell in tab and best == best and best > 0:
                frac = tab[cell][1] / best
            name = 'oracle' if m == 'grid' else m
            if name not in METHODS:
                # search.csv takes the methods only
                det.append([p, m, cell[0] if cell else '',
                            cell[1] if cell else '', '', inv, after, viol,
                            f'{r_ns / 1e3:.1f}'])
                continue
            if name == 'oracle' and ok:
                frac = 1.0
            res.append([p, name, a.q, f'{frac:.3f}',
                        inv if cell else 'NaN', viol if cell else 'NaN',
                        a.gpu])
            det.append([p, m, cell[0] if cell else '', cell[1] if cell else '',
                        f'{(done - lc[0][0]) / 1e9:.3f}' if cell and lc else '',
                        inv, after, viol, f'{r_ns / 1e3:.1f}'])
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, 'search.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['pair', 'method', 'target_q', 'be_frac_of_oracle',
                    'invocations_to_converge', 'violations_after', 'gpu'])
        w.writerows(res)
    with open(os.path.join(a.out, 'cells.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['pair', 'n', 'k', 'lc_ratio', 'be_per_s'])
        w.writerows(cells_out)
    with open(os.path.join(a.out, 'detail.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['pair', 'method', 'n', 'k', 'done_s', 'invocations',
                    'requests_after', 'violations_after', 'lc_solo_us'])
        w.writerows(det)
    with open(os.path.join(a.out, 'sidebyside.csv'), 'w', newline='') as f:
        w = csv.writer(f)
        w.writerow(['pair', 'mechanism', 'be_frac_of_oracle', 'lc_p50_x',
                    'lc_p99_x', 'requests', 'over_q', 'gpu'])
        w.writerows(side)
    print(f'search-eval: {len(res)} runs of {len(pairs)} pairs')


if __name__ == '__main__':
    main()
