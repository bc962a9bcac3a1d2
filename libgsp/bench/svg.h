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

#endif
