#!/usr/bin/env python3
"""A model of a transformed launch: G persistent blocks claim batches of
tasks (duration t, normal with coefficient of variation cv) from one
counter; each batch boundary idles its block for c us. Batch size rules
as in libgsp/xform/xform.c at 82e509c ("now": B doubles while a batch
takes < batch_ns/2, halves above batch_ns, claim capped by the tasks left
after the block's own last batch >> ceil(log2 G)); "grow" adds the
grow-by-half step of diagnosis/grow-mul.diff; "div" caps by
(left / G) instead of the shift. Prints ideal (N / G * t) over the
modelled time, and boundaries per block. Three seeds, averaged."""
import heapq
import random


def launch(N, G, t, c, cv, batch_ns=16.0, cap="shift", grow=False, seed=1):
    random.seed(seed)
    shift = (G - 1).bit_length()
    nxt, end, bounds = 0, 0.0, 0
    ev = [(random.uniform(0, 1.0), b, 1, 0) for b in range(G)]
    heapq.heapify(ev)
    while ev:
        tm, b, B, last = heapq.heappop(ev)
        tm += c
        bounds += 1
        if nxt >= N or last >= N:
            end = max(end, tm)
            continue
        left = N - last
        cp = left >> shift if cap == "shift" else int(left / G)
        k = max(1, min(B, cp))
        s = nxt
        nxt += k
        if s >= N:
            end = max(end, tm)
            continue
        k = min(k, N - s)
        dur = sum(max(0.0, random.gauss(t, t * cv)) for _ in range(k))
        if dur > batch_ns:
            B = max(1, B // 2)
        elif 2 * dur < batch_ns:
            B = min(32, 2 * B)
        elif grow and 3 * dur < 2 * batch_ns:
            B = min(32, B + B // 2)
        heapq.heappush(ev, (tm + dur, b, B, min(s + k, N)))
    return end, bounds / G


# name, tasks, persistent grid, task time (us) from the ncu durations
WLS = [("hotspot", 65536, 1056, 1.9), ("nn", 131072, 1056, 2.3),
       ("pathfinder", 8739, 1056, 6.5), ("bp_adjust", 65536, 1056, 1.0),
       ("lbm", 16384, 660, 4.7)]
RULES = [("now", {}), ("grow", {"grow": True}), ("div", {"cap": "div"}),
         ("c=0", {"c": 0.0})]
for cv in (0.3, 1.0):
    for name, N, G, t in WLS:
        out = []
        for lab, kw in RULES:
            a = {"c": 0.9, "cv": cv}
            a.update(kw)
            r = [launch(N, G, t, seed=s, **a) for s in (1, 2, 3)]
            e = sum(x[0] for x in r) / 3
            nb = sum(x[1] for x in r) / 3
            out.append("%s %.3f (%.1f)" % (lab, N / G * t / e, nb))
        print("cv %.1f %-10s %7.1f us ideal | %s" % (cv, name, N / G * t, " | ".join(out)))
