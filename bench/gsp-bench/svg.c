// SPDX-License-Identifier: GPL-2.0
/* A small SVG chart writer: grouped bars, line charts, scatter panels. */
#include "svg.h"

#include <math.h>
#include <stdio.h>

static const char *const colors[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948",
	"#b07aa1", "#ff9da7", "#9c755f", "#bab0ac", "#1f77b4", "#d62728",
};
#define NCOL (int)(sizeof(colors) / sizeof(colors[0]))

static double nice_step(double range)
{
	double e = pow(10, floor(log10(range / 5))), m = range / 5 / e;

	return e * (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10);
}

static void text_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
	}
}

/* A new SVG file with its background and title; NULL if it cannot be made. */
static FILE *svg_begin(const char *path, const char *title, int W, int H,
		       int L)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return NULL;
	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
		"font-family='sans-serif' font-size='11'>\n"
		"<rect width='100%%' height='100%%' fill='white'/>\n"
		"<text x='%d' y='20' font-size='14'>", W, H, L);
	text_esc(f, title);
	fprintf(f, "</text>\n");
	return f;
}

int svg_bars(const char *path, const char *title, const char *ylabel,
	     int ng, const char *const *groups, int ns,
	     const char *const *series, const double *v, int logy, double ref)
{
	double lo = logy ? INFINITY : 0, hi = -INFINITY;
	int W = 120 + ng * (ns * 7 + 10), H = 460, L = 70, T = 40, B = 120;
	double ph = H - T - B;
	FILE *f;

	if (W < 640)
		W = 640;
	for (int i = 0; i < ng * ns; i++) {
		if (isnan(v[i]) || (logy && v[i] <= 0))
			continue;
		if (v[i] > hi)
			hi = v[i];
		if (logy && v[i] < lo)
			lo = v[i];
	}
	if (!isfinite(hi))
		hi = 1;
	if (logy) {
		if (!isfinite(lo))
			lo = 1;
		lo = pow(10, floor(log10(lo < 1 ? lo : 1)));
		hi = pow(10, ceil(log10(hi > 1 ? hi : 1) + 1e-9));
		if (hi <= lo)
			hi = lo * 10;
	} else {
		hi *= 1.08;
	}
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
		"font-family='sans-serif' font-size='11'>\n"
		"<rect width='100%%' height='100%%' fill='white'/>\n", W, H + 20 * ((ns + 5) / 6));
	fprintf(f, "<text x='%d' y='20' font-size='14'>", L);
	text_esc(f, title);
	fprintf(f, "</text>\n");
#define Y(val) (T + ph - (logy ? (log10(val) - log10(lo)) / (log10(hi) - log10(lo)) : \
			 (val) / hi) * ph)
	/* grid and ticks */
	if (logy) {
		for (double t = lo; t <= hi * 1.0001; t *= 10)
			fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#ddd'/>"
				"<text x='%d' y='%.1f' text-anchor='end'>%g</text>\n",
				L, W - 20, Y(t), Y(t), L - 4, Y(t) + 4, t);
	} else {
		double st = nice_step(hi);

		for (double t = 0; t <= hi; t += st)
			fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='#ddd'/>"
				"<text x='%d' y='%.1f' text-anchor='end'>%g</text>\n",
				L, W - 20, Y(t), Y(t), L - 4, Y(t) + 4, t);
	}
	if (ref > 0 && (!logy || (ref >= lo && ref <= hi)) && ref <= hi)
		fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='black' "
			"stroke-dasharray='4,3'/>\n", L, W - 20, Y(ref), Y(ref));
	fprintf(f, "<text transform='translate(16,%d) rotate(-90)' text-anchor='middle'>",
		T + (int)ph / 2);
	text_esc(f, ylabel);
	fprintf(f, "</text>\n");
	for (int g = 0; g < ng; g++) {
		double x0 = L + 10 + g * (ns * 7 + 10);

		for (int s = 0; s < ns; s++) {
			double val = v[g * ns + s], y;

			if (isnan(val) || (logy && val <= 0))
				continue;
			y = Y(val);
			if (y < T)
				y = T;
			fprintf(f, "<rect x='%.1f' y='%.1f' width='6' height='%.1f' "
				"fill='%s'><title>", x0 + s * 7, y, T + ph - y,
				colors[s % NCOL]);
			text_esc(f, groups[g]);
			fprintf(f, " ");
			text_esc(f, series[s]);
			fprintf(f, ": %.3g</title></rect>\n", val);
		}
		fprintf(f, "<text transform='translate(%.1f,%.1f) rotate(-60)' "
			"text-anchor='end'>", x0 + ns * 3.5, T + ph + 12);
		text_esc(f, groups[g]);
		fprintf(f, "</text>\n");
	}
	fprintf(f, "<line x1='%d' x2='%d' y1='%.1f' y2='%.1f' stroke='black'/>\n",
		L, W - 20, T + ph, T + ph);
	for (int s = 0; s < ns; s++) {
		int lx = L + (s % 6) * 110, ly = H - 10 + 20 * (s / 6);

		fprintf(f, "<rect x='%d' y='%d' width='10' height='10' fill='%s'/>"
			"<text x='%d' y='%d'>", lx, ly - 9, colors[s % NCOL], lx + 14, ly);
		text_esc(f, series[s]);
		fprintf(f, "</text>\n");
	}
#undef Y
	fprintf(f, "</svg>\n");
	return fclose(f) ? -1 : 0;
}

int svg_lines(const char *path, const char *title, const char *xlabel,
	      const char *ylabel, int ns, const char *const *series,
	      const int *n, const double *const *x, const double *const *y)
{
	double xhi = 0, yhi = 0;
	int W = 720, H = 440, L = 60, T = 40, B = 50, R = 150;
	double pw = W - L - R, ph = H - T - B, st;
	FILE *f;

	for (int s = 0; s < ns; s++)
		for (int i = 0; i < n[s]; i++) {
			if (isfinite(x[s][i]) && x[s][i] > xhi)
				xhi = x[s][i];
			if (isfinite(y[s][i]) && y[s][i] > yhi)
				yhi = y[s][i];
		}
	if (xhi <= 0)
		xhi = 1;
	if (yhi <= 0)
		yhi = 1;
	yhi *= 1.08;
	f = svg_begin(path, title, W, H, L);
	if (!f)
		return -1;
#define PX(v) (L + (v) / xhi * pw)
#define PY(v) (T + ph - (v) / yhi * ph)
	st = nice_step(yhi);
	for (double t = 0; t <= yhi; t += st)
		fprintf(f, "<line x1='%d' x2='%.0f' y1='%.1f' y2='%.1f' stroke='#ddd'/>"
			"<text x='%d' y='%.1f' text-anchor='end'>%g</text>\n",
			L, L + pw, PY(t), PY(t), L - 4, PY(t) + 4, t);
	st = nice_step(xhi);
	for (double t = 0; t <= xhi; t += st)
		fprintf(f, "<text x='%.1f' y='%.0f' text-anchor='middle'>%g</text>\n",
			PX(t), T + ph + 15, t);
	fprintf(f, "<line x1='%d' x2='%.0f' y1='%.0f' y2='%.0f' stroke='black'/>\n",
		L, L + pw, T + ph, T + ph);
	fprintf(f, "<text x='%.0f' y='%d' text-anchor='middle'>", L + pw / 2, H - 10);
	text_esc(f, xlabel);
	fprintf(f, "</text>\n<text transform='translate(16,%.0f) rotate(-90)' "
		"text-anchor='middle'>", T + ph / 2);
	text_esc(f, ylabel);
	fprintf(f, "</text>\n");
	for (int s = 0; s < ns; s++) {
		const char *c = colors[s % NCOL];

		fprintf(f, "<polyline fill='none' stroke='%s' stroke-width='2' points='", c);
		for (int i = 0; i < n[s]; i++)
			if (isfinite(y[s][i]))
				fprintf(f, "%.1f,%.1f ", PX(x[s][i]), PY(y[s][i]));
		fprintf(f, "'/>\n");
		for (int i = 0; i < n[s]; i++)
			if (isfinite(y[s][i]))
				fprintf(f, "<circle cx='%.1f' cy='%.1f' r='2.5' fill='%s'/>\n",
					PX(x[s][i]), PY(y[s][i]), c);
		fprintf(f, "<rect x='%.0f' y='%d' width='10' height='10' fill='%s'/>"
			"<text x='%.0f' y='%d'>", L + pw + 15, T + 16 * s, c,
			L + pw + 29, T + 16 * s + 9);
		text_esc(f, series[s]);
		fprintf(f, "</text>\n");
	}
#undef PX
#undef PY
	fprintf(f, "</svg>\n");
	return fclose(f) ? -1 : 0;
}

/* 1, 2, 5, 10, 20, ...: the largest not above v (up) or smallest not below */
static double nice125(double v, int up)
{
	double e = pow(10, floor(log10(v))), m = v / e;

	if (up)
		return e * (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10);
	return e * (m >= 5 ? 5 : m >= 2 ? 2 : 1);
}

int svg_scatter(const char *path, const char *title, const char *xlabel,
		const char *ylabel, int np, const char *const *panels,
		const int *npts, const struct svg_pt *const *pts, int ns,
		const char *const *series, int marked)
{
	int cols = np < 2 ? 1 : 2, rows = (np + cols - 1) / cols;
	int PW = 340, PH = 260, L = 60, T = 50, GX = 40, GY = 60;
	int W = L + cols * (PW + GX), H = T + rows * (PH + GY) + 20 * ((ns + 3) / 4);
	double xhi = 1, ylo = 1, yhi = 1, st;
	FILE *f;

	for (int p = 0; p < np; p++)
		for (int i = 0; i < npts[p]; i++) {
			const struct svg_pt *q = &pts[p][i];

			if (!isfinite(q->x) || !isfinite(q->y) || q->y <= 0)
				continue;
			if (q->x > xhi)
				xhi = q->x;
			if (q->y > yhi)
				yhi = q->y;
			if (q->y < ylo)
				ylo = q->y;
		}
	xhi = ceil(xhi * 1.05 * 5) / 5;
	ylo = nice125(ylo, 0);
	yhi = nice125(yhi * 1.05, 1);
	f = svg_begin(path, title, W, H, L);
	if (!f)
		return -1;
	for (int p = 0; p < np; p++) {
		double x0 = L + (p % cols) * (PW + GX), y0 = T + (p / cols) * (PH + GY);

#define SX(v) (x0 + (v) / xhi * PW)
#define SY(v) (y0 + PH - (log10(v) - log10(ylo)) / (log10(yhi) - log10(ylo)) * PH)
		fprintf(f, "<text x='%.0f' y='%.0f' font-size='13'>", x0, y0 - 6);
		text_esc(f, panels[p]);
		fprintf(f, "</text>\n<rect x='%.0f' y='%.0f' width='%d' height='%d' "
			"fill='none' stroke='#999'/>\n", x0, y0, PW, PH);
		for (double t = ylo; t <= yhi * 1.0001; t = nice125(t * 1.01, 1))
			fprintf(f, "<line x1='%.0f' x2='%.0f' y1='%.1f' y2='%.1f' stroke='#ddd'/>"
				"<text x='%.0f' y='%.1f' text-anchor='end'>%g</text>\n",
				x0, x0 + PW, SY(t), SY(t), x0 - 4, SY(t) + 4, t);
		st = nice_step(xhi);
		for (double t = 0; t <= xhi + 1e-9; t += st)
			fprintf(f, "<text x='%.1f' y='%.0f' text-anchor='middle'>%g</text>\n",
				SX(t), y0 + PH + 14, t);
		fprintf(f, "<line x1='%.1f' x2='%.1f' y1='%.0f' y2='%.0f' stroke='black' "
			"stroke-dasharray='4,3'/>\n", SX(1.0), SX(1.0), y0, y0 + PH);
		fprintf(f, "<line x1='%.0f' x2='%.0f' y1='%.1f' y2='%.1f' stroke='black' "
			"stroke-dasharray='4,3'/>\n", x0, x0 + PW, SY(1.0), SY(1.0));
		fprintf(f, "<text x='%.0f' y='%.0f' text-anchor='middle'>", x0 + PW / 2.0,
			y0 + PH + 30);
		text_esc(f, xlabel);
		fprintf(f, "</text>\n<text transform='translate(%.0f,%.0f) rotate(-90)' "
			"text-anchor='middle'>", x0 - 40, y0 + PH / 2.0);
		text_esc(f, ylabel);
		fprintf(f, "</text>\n");
		/* small points first, so that the summaries stay on top */
		for (int big = 0; big < 2; big++)
			for (int i = 0; i < npts[p]; i++) {
				const struct svg_pt *q = &pts[p][i];
				const char *c = q->series == marked ? "black" :
						colors[q->series % NCOL];
				double x, y;

				if (q->big != big || !isfinite(q->x) || !isfinite(q->y) ||
				    q->y <= 0)
					continue;
				x = SX(q->x);
				y = SY(q->y);
				if (big)
					fprintf(f, "<g><circle cx='%.1f' cy='%.1f' r='6' fill='%s' "
						"stroke='white' stroke-width='1.5'/>",
						x, y, c);
				else if (q->series == marked)
					fprintf(f, "<g><path d='M%.1f %.1fl6 6m0 -6l-6 6' "
						"stroke='black' stroke-width='1.5'/>",
						x - 3, y - 3);
				else
					fprintf(f, "<g><circle cx='%.1f' cy='%.1f' r='3' fill='%s' "
						"fill-opacity='0.6'/>", x, y, c);
				fprintf(f, "<title>");
				text_esc(f, series[q->series]);
				if (q->tip) {
					fprintf(f, " ");
					text_esc(f, q->tip);
				}
				fprintf(f, ": x %.3g, y %.3g</title></g>\n", q->x, q->y);
				if (big) {
					fprintf(f, "<text x='%.1f' y='%.1f' font-size='10'>",
						x + 8, y - 6);
					text_esc(f, series[q->series]);
					fprintf(f, "</text>\n");
				}
			}
#undef SX
#undef SY
	}
	for (int s = 0; s < ns; s++) {
		int lx = L + (s % 4) * 150, ly = T + rows * (PH + GY) + 20 * (s / 4);

		fprintf(f, "<rect x='%d' y='%d' width='10' height='10' fill='%s'/>"
			"<text x='%d' y='%d'>", lx, ly - 9,
			s == marked ? "black" : colors[s % NCOL], lx + 14, ly);
		text_esc(f, series[s]);
		fprintf(f, "</text>\n");
	}
	fprintf(f, "</svg>\n");
	return fclose(f) ? -1 : 0;
}
