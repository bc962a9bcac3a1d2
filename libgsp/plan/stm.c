// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Liang et al.'s spatial-temporal multitasking planner (stm.h says what
 * each call does, Documentation/plan.rst why each rule is what it is).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stm.h"

int gsp_stm_init(struct gsp_stm *s, const struct gsp_stm_dev *dev,
		 const struct gsp_stm_job *jobs, unsigned int njobs)
{
	unsigned long tb = 0;
	unsigned int i, m, M = dev ? dev->units : 0;

	memset(s, 0, sizeof(*s));
	if (!dev || !jobs || M < 1 || M > GSP_STM_MAX_UNITS || njobs < 1 ||
	    njobs > GSP_STM_MAX_JOBS || !(dev->pb > 0) || !(dev->gb > 0) ||
	    !isfinite(dev->pb) || !isfinite(dev->gb) ||
	    (dev->est != GSP_STM_EST_DRR && dev->est != GSP_STM_EST_PINNED))
		return -EINVAL;
	for (i = 0; i < njobs; i++) {
		const struct gsp_stm_job *j = &jobs[i];

		if (j->tb < 1 || j->tb > GSP_STM_MAX_TB || !(j->g >= 0) ||
		    j->g > dev->gb)
			return -EINVAL;
		for (m = 1; m <= M; m++)
			if (!(j->r[m] > 0) || !isfinite(j->r[m]) ||
			    !(j->b[m] >= 0) || !isfinite(j->b[m]))
				return -EINVAL;
		tb += j->tb;
	}
	s->kid = malloc(tb * sizeof(*s->kid));
	s->heap = malloc((M + 1) * sizeof(*s->heap));
	s->improve = malloc((size_t)njobs * (M + 1) * sizeof(*s->improve));
	s->choice = malloc((size_t)njobs * (M + 1) * sizeof(*s->choice));
	if (!s->kid || !s->heap || !s->improve || !s->choice) {
		gsp_stm_fini(s);
		return -ENOMEM;
	}
	s->jobs = jobs;
	s->njobs = njobs;
	s->dev = *dev;
	return 0;
}

void gsp_stm_fini(struct gsp_stm *s)
{
	free(s->kid);
	free(s->heap);
	free(s->improve);
	free(s->choice);
	memset(s, 0, sizeof(*s));
}

long gsp_stm_leaky_order(unsigned int n, const unsigned int *units,
			 const double *w, const unsigned int *tb,
			 unsigned int *kid, double *when)
{
	double wt[GSP_STM_MAX_JOBS];
	unsigned int issued[GSP_STM_MAX_JOBS], i;
	long pos = 0, total = 0;

	if (n < 1 || n > GSP_STM_MAX_JOBS || !tb || !kid || (!units && !w))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		wt[i] = w ? w[i] : units[i];
		if (!(wt[i] > 0) || !isfinite(wt[i]))
			return -EINVAL;
		issued[i] = 0;
		total += tb[i];
	}
	/*
	 * Job i's k-th bucket fills at time k / w_i; the next block is the
	 * job whose bucket fills first, the lower index on a tie. Compared
	 * as k_a * w_b < k_b * w_a, which is exact for integer weights, so
	 * ties are the lcm bucket's ties.
	 */
	while (pos < total) {
		unsigned int best = n;

		for (i = 0; i < n; i++) {
			if (issued[i] >= tb[i])
				continue;
			if (best == n || (issued[i] + 1.0) * wt[best] <
					 (issued[best] + 1.0) * wt[i])
				best = i;
		}
		if (when)
			when[pos] = (issued[best] + 1.0) / wt[best];
		kid[pos++] = best;
		issued[best]++;
	}
	return pos;
}

static int phase_ok(const struct gsp_stm *s, const struct gsp_stm_phase *c)
{
	unsigned int i, k, sum = 0;

	if (c->n < 1 || c->n > s->njobs)
		return 0;
	for (i = 0; i < c->n; i++) {
		if (c->a[i].job >= s->njobs || c->a[i].units < 1)
			return 0;
		for (k = 0; k < i; k++)
			if (c->a[k].job == c->a[i].job)
				return 0;
		sum += c->a[i].units;
	}
	return sum <= s->dev.units;
}

static unsigned int phase_units(const struct gsp_stm_phase *c)
{
	unsigned int i, sum = 0;

	for (i = 0; i < c->n; i++)
		sum += c->a[i].units;
	return sum;
}

/* One unit's time per block of c's i-th job at its allocation. */
static double t_blk(const struct gsp_stm *s, const struct gsp_stm_phase *c,
		    unsigned int i)
{
	const struct gsp_stm_job *j = &s->jobs[c->a[i].job];
	unsigned int m = c->a[i].units;

	return j->r[m] * m / j->tb;
}

static void heap_down(double *h, unsigned int n, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, min = i;
		double t;

		if (l < n && h[l] < h[min])
			min = l;
		if (r < n && h[r] < h[min])
			min = r;
		if (min == i)
			return;
		t = h[i];
		h[i] = h[min];
		h[min] = t;
		i = min;
	}
}

double gsp_stm_drr(struct gsp_stm *s, const struct gsp_stm_phase *c)
{
	unsigned int units[GSP_STM_MAX_JOBS], tb[GSP_STM_MAX_JOBS], i, S;
	double w[GSP_STM_MAX_JOBS], t[GSP_STM_MAX_JOBS], last = 0;
	long nb, b;

	if (!phase_ok(s, c))
		return NAN;
	S = phase_units(c);
	for (i = 0; i < c->n; i++) {
		units[i] = c->a[i].units;
		tb[i] = s->jobs[c->a[i].job].tb;
		t[i] = t_blk(s, c, i);
		w[i] = units[i] / t[i];
	}
	nb = gsp_stm_leaky_order(c->n, units, s->dev.compensate ? w : NULL,
				 tb, s->kid, NULL);
	if (nb < 0)
		return NAN;
	/* A min-heap of the units' free times: the root is the first free. */
	for (i = 0; i < S; i++)
		s->heap[i] = 0;
	for (b = 0; b < nb; b++) {
		s->heap[0] += t[s->kid[b]];
		last = fmax(last, s->heap[0]);
		heap_down(s->heap, S, 0);
	}
	return last;
}

double gsp_stm_penalty(const struct gsp_stm *s, const struct gsp_stm_phase *c)
{
	double bw = 0;
	unsigned int i;

	if (!phase_ok(s, c))
		return NAN;
	for (i = 0; i < c->n; i++)
		bw += s->jobs[c->a[i].job].b[c->a[i].units];
	return bw > s->dev.pb ? bw / s->dev.pb : 1.0;
}

double gsp_stm_con_lat(struct gsp_stm *s, const struct gsp_stm_phase *c)
{
	double g = 0, lat = 0;
	unsigned int i;

	if (!phase_ok(s, c))
		return NAN;
	s->evals++;
	for (i = 0; i < c->n; i++)
		g += s->jobs[c->a[i].job].g;
	if (g > s->dev.gb)
		return INFINITY;
	if (s->dev.est == GSP_STM_EST_PINNED)
		for (i = 0; i < c->n; i++)
			lat = fmax(lat, s->jobs[c->a[i].job].r[c->a[i].units]);
	else
		lat = gsp_stm_drr(s, c);
	return lat * gsp_stm_penalty(s, c);
}

double gsp_stm_seq_lat(const struct gsp_stm *s, const struct gsp_stm_phase *c)
{
	unsigned int i, S;
	double sum = 0;

	if (!phase_ok(s, c))
		return NAN;
	S = phase_units(c);
	for (i = 0; i < c->n; i++)
		sum += s->jobs[c->a[i].job].r[S];
	return sum;
}

double gsp_stm_imp(struct gsp_stm *s, const struct gsp_stm_phase *c)
{
	return gsp_stm_seq_lat(s, c) - gsp_stm_con_lat(s, c);
}

double gsp_stm_phase_lat(struct gsp_stm *s, const struct gsp_stm_phase *c)
{
	if (!phase_ok(s, c))
		return NAN;
	if (c->n == 1 && c->a[0].units == s->dev.units)
		return s->jobs[c->a[0].job].r[s->dev.units];
	return gsp_stm_con_lat(s, c);
}

double gsp_stm_sequential(const struct gsp_stm *s)
{
	double sum = 0;
	unsigned int i;

	for (i = 0; i < s->njobs; i++)
		sum += s->jobs[i].r[s->dev.units];
	return sum;
}

#define IMP(i, j)	s->improve[(i) * (M + 1) + (j)]
#define CHOICE(i, j)	s->choice[(i) * (M + 1) + (j)]

/*
 * Config[i][j] of the table, rows over @rem: walk the back-pointers from
 * row @i with @j units; row 0's job takes what is left.
 */
static void config(const struct gsp_stm *s, const unsigned int *rem,
		   unsigned int i, unsigned int j, struct gsp_stm_phase *c)
{
	unsigned int M = s->dev.units, m;

	c->n = 0;
	for (; i > 0; i--) {
		m = CHOICE(i, j);
		if (!m)
			continue;
		c->a[c->n].job = rem[i];
		c->a[c->n++].units = m;
		j -= m;
	}
	c->a[c->n].job = rem[0];
	c->a[c->n++].units = j;
}

/*
 * dp_select of Algorithm 1 over the @n jobs @rem, in that order: the
 * configuration of exactly M units with the greatest imp(). Row i, column
 * j keeps the best configuration of rem[0..i] on j units; it defaults to
 * row i - 1's (m = 0: rem[i] left out) and takes rem[i] with m in
 * [1, j - 1] units beside row i - 1's configuration of j - m units only
 * if that improves strictly on the default. Each candidate's imp() is
 * computed whole, since imp is not additive.
 */
static void dp_select(struct gsp_stm *s, const unsigned int *rem,
		      unsigned int n, struct gsp_stm_phase *out)
{
	unsigned int M = s->dev.units, i, j, m;
	struct gsp_stm_phase cand;

	for (j = 1; j <= M; j++) {
		IMP(0, j) = 0;
		CHOICE(0, j) = 0;
	}
	for (i = 1; i < n; i++)
		for (j = 1; j <= M; j++) {
			IMP(i, j) = IMP(i - 1, j);
			CHOICE(i, j) = 0;
			for (m = 1; m < j; m++) {
				double v;

				config(s, rem, i - 1, j - m, &cand);
				cand.a[cand.n].job = rem[i];
				cand.a[cand.n++].units = m;
				v = gsp_stm_imp(s, &cand);
				if (v > IMP(i, j)) {
					IMP(i, j) = v;
					CHOICE(i, j) = m;
				}
			}
		}
	config(s, rem, n - 1, M, out);
}

/* Sort a phase's jobs by index, so that plans print alike. */
static void phase_sort(struct gsp_stm_phase *c)
{
	unsigned int i, k;

	for (i = 1; i < c->n; i++)
		for (k = i; k > 0 && c->a[k - 1].job > c->a[k].job; k--) {
			struct gsp_stm_alloc t = c->a[k];

			c->a[k] = c->a[k - 1];
			c->a[k - 1] = t;
		}
}

int gsp_stm_plan(struct gsp_stm *s, struct gsp_stm_plan *p)
{
	unsigned int rem[GSP_STM_MAX_JOBS], n = s->njobs, i, k;

	if (!s->jobs || !p)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	for (i = 0; i < n; i++)
		rem[i] = i;
	while (n) {
		struct gsp_stm_phase *ph = &p->ph[p->nphases++];

		dp_select(s, rem, n, ph);
		phase_sort(ph);
		ph->est = gsp_stm_phase_lat(s, ph);
		p->total += ph->est;
		/* the rest, in queue order */
		for (i = 0, k = 0; i < n; i++) {
			unsigned int a, in = 0;

			for (a = 0; a < ph->n; a++)
				in |= ph->a[a].job == rem[i];
			if (!in)
				rem[k++] = rem[i];
		}
		n = k;
	}
	return 0;
}

/*
 * Algorithm 2 for the jobs in @mask: every split of M units among them,
 * each at least 1. Recursion over the jobs; @c holds the split so far.
 */
static void splits(struct gsp_stm *s, struct gsp_stm_phase *c,
		   const unsigned int *jobs, unsigned int k, unsigned int left,
		   struct gsp_stm_phase *best)
{
	unsigned int u;

	if (c->n == k - 1) {
		c->a[c->n].job = jobs[c->n];
		c->a[c->n].units = left;
		c->n++;
		c->est = gsp_stm_phase_lat(s, c);
		if (c->est < best->est)
			*best = *c;
		c->n--;
		return;
	}
	for (u = 1; u + (k - 1 - c->n) <= left; u++) {
		c->a[c->n].job = jobs[c->n];
		c->a[c->n].units = u;
		c->n++;
		splits(s, c, jobs, k, left - u, best);
		c->n--;
	}
}

int gsp_stm_optimum(struct gsp_stm *s, struct gsp_stm_plan *p)
{
	enum { SUBSETS = 1 << GSP_STM_OPT_MAX };
	struct gsp_stm_phase best[SUBSETS], c;
	double opt[SUBSETS];
	unsigned int cut[SUBSETS], n = s->njobs, all, mask, sub;

	if (!s->jobs || !p)
		return -EINVAL;
	if (n > GSP_STM_OPT_MAX)
		return -E2BIG;
	all = (1u << n) - 1;
	for (mask = 1; mask <= all; mask++) {
		unsigned int jobs[GSP_STM_OPT_MAX], k = 0, i;

		for (i = 0; i < n; i++)
			if (mask & (1u << i))
				jobs[k++] = i;
		best[mask].n = 0;
		best[mask].est = INFINITY;
		if (k > s->dev.units)
			continue;
		c.n = 0;
		splits(s, &c, jobs, k, s->dev.units, &best[mask]);
	}
	/*
	 * Algorithm 3: the least sum over the set partitions, enumerated as
	 * the phase holding the lowest job left, then a partition of the
	 * rest; the same minimum as listing the Bell(n) partitions.
	 */
	opt[0] = 0;
	for (mask = 1; mask <= all; mask++) {
		unsigned int low = mask & -mask;

		opt[mask] = INFINITY;
		cut[mask] = 0;
		for (sub = mask; sub; sub = (sub - 1) & mask) {
			double v;

			if (!(sub & low) || !best[sub].n)
				continue;
			v = best[sub].est + opt[mask & ~sub];
			if (v < opt[mask]) {
				opt[mask] = v;
				cut[mask] = sub;
			}
		}
	}
	memset(p, 0, sizeof(*p));
	if (!isfinite(opt[all]))
		return -ENOSPC;
	for (mask = all; mask; mask &= ~cut[mask]) {
		p->ph[p->nphases] = best[cut[mask]];
		phase_sort(&p->ph[p->nphases++]);
	}
	p->total = opt[all];
	return 0;
}

int gsp_stm_plan_str(const struct gsp_stm_plan *p, const char *const *names,
		     char *buf, size_t len)
{
	size_t at = 0;
	unsigned int i, k;
	int w;

#define PUT(...) do {							\
	w = snprintf(buf && at < len ? buf + at : NULL,			\
		     buf && at < len ? len - at : 0, __VA_ARGS__);	\
	if (w < 0)							\
		return w;						\
	at += (size_t)w;						\
} while (0)
	if (buf && len)
		buf[0] = '\0';
	for (i = 0; i < p->nphases; i++)
		for (k = 0; k < p->ph[i].n; k++) {
			const struct gsp_stm_alloc *a = &p->ph[i].a[k];

			if (k)
				PUT("+");
			else if (i)
				PUT("|");
			if (names)
				PUT("%s:%u", names[a->job], a->units);
			else
				PUT("%u:%u", a->job, a->units);
		}
#undef PUT
	return (int)at;
}
