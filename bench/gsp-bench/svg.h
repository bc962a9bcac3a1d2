/* SPDX-License-Identifier: GPL-2.0 */
/* A small SVG chart writer for gsp-bench: grouped bars and lines. */
#ifndef GSP_BENCH_SVG_H
#define GSP_BENCH_SVG_H

/* v[g * ns + s]; NaN values are left out; logy: log10 axis */
int svg_bars(const char *path, const char *title, const char *ylabel,
	     int ng, const char *const *groups, int ns,
	     const char *const *series, const double *v, int logy, double ref);

/* series s has n[s] points x[s][i], y[s][i] */
int svg_lines(const char *path, const char *title, const char *xlabel,
	      const char *ylabel, int ns, const char *const *series,
	      const int *n, const double *const *x, const double *const *y);

struct svg_pt {
	double x, y;		/* NaN or y <= 0: left out */
	int series;		/* colour; legend entry */
	int big;		/* a summary point: large, labelled */
	const char *tip;	/* tooltip, or NULL */
};

/*
 * Small multiples: one scatter panel per name in panels, all with the
 * same axes (x linear from 0, y log10, dashed lines at x = 1 and y = 1);
 * panel p has npts[p] points pts[p][i]. Series 'marked' (or -1) is drawn
 * in black, crosses for its small points.
 */
int svg_scatter(const char *path, const char *title, const char *xlabel,
		const char *ylabel, int np, const char *const *panels,
		const int *npts, const struct svg_pt *const *pts, int ns,
		const char *const *series, int marked);

#endif
