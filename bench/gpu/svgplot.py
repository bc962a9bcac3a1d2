# SPDX-License-Identifier: GPL-2.0
"""Line and grouped-bar charts as SVG, with the Python standard library
only (the GPU machine has no matplotlib)."""
import math
from xml.sax.saxutils import escape

COLORS = ("#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
          "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac")
W, H, L, R, T, B = 760, 440, 80, 190, 40, 60


def _nice_ticks(lo, hi, n=5):
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / n
    e = 10 ** math.floor(math.log10(raw))
    step = e * min((m for m in (1, 2, 5, 10) if m * e >= raw), default=10)
    t = math.floor(lo / step) * step
    ticks = []
    while t <= hi + step * 1e-9:
        ticks.append(round(t, 12))
        t += step
    return ticks


def _fmt(v):
    return f"{v:g}"


class _Canvas:
    def __init__(self, title, xlabel, ylabel):
        self.parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
            f'font-family="sans-serif" font-size="12">',
            f'<rect width="{W}" height="{H}" fill="white"/>',
            f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="14">{escape(title)}</text>',
            f'<text x="{L + (W - L - R) / 2}" y="{H - 15}" text-anchor="middle">{escape(xlabel)}</text>',
            f'<text transform="translate(18,{T + (H - T - B) / 2}) rotate(-90)" '
            f'text-anchor="middle">{escape(ylabel)}</text>']

    def add(self, s):
        self.parts.append(s)

    def legend(self, names, dashed=()):
        for i, n in enumerate(names):
            y = T + 10 + 18 * i
            c = COLORS[i % len(COLORS)]
            dash = ' stroke-dasharray="5,3"' if n in dashed else ""
            self.add(f'<line x1="{W - R + 15}" y1="{y}" x2="{W - R + 40}" y2="{y}" '
                     f'stroke="{c}" stroke-width="3"{dash}/>')
            self.add(f'<text x="{W - R + 45}" y="{y + 4}">{escape(n)}</text>')

    def write(self, path):
        self.add("</svg>")
        with open(path, "w") as f:
            f.write("\n".join(self.parts) + "\n")


def lines(path, title, xlabel, ylabel, series, logx=False, ylim=None):
    """series: list of (name, xs, ys, dashed). Empty series are skipped."""
    series = [s for s in series if s[1]]
    xs_all = [x for s in series for x in s[1] if not logx or x > 0]
    ys_all = [y for s in series for y in s[2]]
    c = _Canvas(title, xlabel, ylabel)
    if not xs_all:
        c.add(f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle">no data</text>')
        c.write(path)
        return
    fx = (lambda v: math.log10(v)) if logx else (lambda v: v)
    x0, x1 = fx(min(xs_all)), fx(max(xs_all))
    if x1 <= x0:
        x1 = x0 + 1
    y0, y1 = ylim if ylim else (min(0.0, min(ys_all)), max(ys_all) * 1.05 or 1.0)
    yt = _nice_ticks(y0, y1)
    y0, y1 = min(y0, yt[0]), max(y1, yt[-1])

    def px(v):
        return L + (fx(v) - x0) / (x1 - x0) * (W - L - R)

    def py(v):
        return H - B - (v - y0) / (y1 - y0) * (H - T - B)

    for t in yt:
        c.add(f'<line x1="{L}" y1="{py(t):.1f}" x2="{W - R}" y2="{py(t):.1f}" stroke="#ddd"/>')
        c.add(f'<text x="{L - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{_fmt(t)}</text>')
    if logx:
        xt = [10 ** e for e in range(math.floor(x0), math.ceil(x1) + 1)]
    else:
        xt = _nice_ticks(x0, x1)
    for t in xt:
        if x0 - 1e-9 <= fx(t) <= x1 + 1e-9:
            c.add(f'<line x1="{px(t):.1f}" y1="{T}" x2="{px(t):.1f}" y2="{H - B}" stroke="#eee"/>')
            c.add(f'<text x="{px(t):.1f}" y="{H - B + 16}" text-anchor="middle">{_fmt(t)}</text>')
    c.add(f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" stroke="#888"/>')
    for i, (name, xs, ys, dashed) in enumerate(series):
        pts = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in zip(xs, ys)
                       if not logx or x > 0)
        dash = ' stroke-dasharray="5,3"' if dashed else ""
        c.add(f'<polyline points="{pts}" fill="none" stroke="{COLORS[i % len(COLORS)]}" '
              f'stroke-width="2"{dash}/>')
    c.legend([s[0] for s in series], dashed={s[0] for s in series if s[3]})
    c.write(path)


def bars(path, title, ylabel, groups, names, values, ref=None):
    """values[g][s] for group g and series s; None is left out."""
    c = _Canvas(title, "", ylabel)
    vals = [v for row in values for v in row if v is not None]
    y1 = max(vals + [ref or 0, 0]) * 1.1 or 1.0
    y0 = min(vals + [0])
    yt = _nice_ticks(y0, y1)
    y0, y1 = yt[0], max(y1, yt[-1])

    def py(v):
        return H - B - (v - y0) / (y1 - y0) * (H - T - B)

    for t in yt:
        c.add(f'<line x1="{L}" y1="{py(t):.1f}" x2="{W - R}" y2="{py(t):.1f}" stroke="#ddd"/>')
        c.add(f'<text x="{L - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{_fmt(t)}</text>')
    gw = (W - L - R) / max(1, len(groups))
    bw = gw * 0.8 / max(1, len(names))
    for g, gname in enumerate(groups):
        gx = L + g * gw + gw * 0.1
        c.add(f'<text x="{gx + gw * 0.4:.1f}" y="{H - B + 16}" text-anchor="middle">{escape(gname)}</text>')
        for s in range(len(names)):
            v = values[g][s]
            if v is None:
                continue
            top, base = py(max(v, 0)), py(min(v, 0))
            c.add(f'<rect x="{gx + s * bw:.1f}" y="{top:.1f}" width="{bw * 0.9:.1f}" '
                  f'height="{max(base - top, 0.5):.1f}" fill="{COLORS[s % len(COLORS)]}">'
                  f'<title>{escape(names[s])}: {v:.4g}</title></rect>')
    if ref is not None:
        c.add(f'<line x1="{L}" y1="{py(ref):.1f}" x2="{W - R}" y2="{py(ref):.1f}" '
              f'stroke="black" stroke-dasharray="4,3"/>')
    c.add(f'<line x1="{L}" y1="{py(0):.1f}" x2="{W - R}" y2="{py(0):.1f}" stroke="#888"/>')
    c.legend(names)
    c.write(path)


def scatter(path, title, xlabel, ylabel, groups, logy=False):
    """groups: list of (name, [(x, y, label)]); one colour per group, each
    point labelled. A log y axis for ratios that span decades."""
    pts_all = [p for g in groups for p in g[1] if not logy or p[1] > 0]
    c = _Canvas(title, xlabel, ylabel)
    if not pts_all:
        c.add(f'<text x="{W / 2}" y="{H / 2}" text-anchor="middle">no data</text>')
        c.write(path)
        return
    fy = (lambda v: math.log10(v)) if logy else (lambda v: v)
    x0, x1 = 0.0, max(1.0, max(p[0] for p in pts_all) * 1.05)
    y0 = fy(min(p[1] for p in pts_all)) if logy else 0.0
    y1 = fy(max(p[1] for p in pts_all))
    if logy:
        y0, y1 = math.floor(y0), math.ceil(y1) if y1 > math.floor(y0) else math.floor(y0) + 1
    else:
        y1 = y1 * 1.05 or 1.0

    def px(v):
        return L + (v - x0) / (x1 - x0) * (W - L - R)

    def py(v):
        return H - B - (fy(v) - y0) / (y1 - y0) * (H - T - B)

    yt = [10 ** e for e in range(int(y0), int(y1) + 1)] if logy else _nice_ticks(y0, y1)
    for t in yt:
        c.add(f'<line x1="{L}" y1="{py(t):.1f}" x2="{W - R}" y2="{py(t):.1f}" stroke="#ddd"/>')
        c.add(f'<text x="{L - 6}" y="{py(t) + 4:.1f}" text-anchor="end">{_fmt(t)}</text>')
    for t in _nice_ticks(x0, x1):
        if x0 <= t <= x1:
            c.add(f'<line x1="{px(t):.1f}" y1="{T}" x2="{px(t):.1f}" y2="{H - B}" stroke="#eee"/>')
            c.add(f'<text x="{px(t):.1f}" y="{H - B + 16}" text-anchor="middle">{_fmt(t)}</text>')
    c.add(f'<rect x="{L}" y="{T}" width="{W - L - R}" height="{H - T - B}" fill="none" stroke="#888"/>')
    for i, (_, pts) in enumerate(groups):
        col = COLORS[i % len(COLORS)]
        for x, y, lab in pts:
            if logy and y <= 0:
                continue
            c.add(f'<circle cx="{px(x):.1f}" cy="{py(y):.1f}" r="4" fill="{col}"/>')
            if lab:
                c.add(f'<text x="{px(x) + 6:.1f}" y="{py(y) - 4:.1f}" font-size="10">{escape(lab)}</text>')
    c.legend([g[0] for g in groups])
    c.write(path)
