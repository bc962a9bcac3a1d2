// SPDX-License-Identifier: GPL-2.0
/*
 * stm: Liang et al.'s spatial-temporal multitasking (libgsp/plan/stm.c)
 * on the GPU, against running the jobs one after another and against
 * plain stream concurrency (Documentation/plan.rst).
 *
 *   stm --out DIR [--sets default|pairs|saturating|LIST] [--wls LIST]
 *       [--reps R] [--prof-reps P] [--target-ms T] [--group-sms G]
 *       [--est drr|pinned] [--compensate] [--model-blocks B] [--bytes FILE]
 *       [--pb-gbs X]
 *   stm --list-sets [--sets ...] [--wls LIST]   the sets, one a line, and
 *                        on stderr a bound on the run's GPU time; no GPU
 *   stm --list-wls [--sets ...] [--wls LIST]    the workloads those sets
 *                        use, one a line (run-stm.sh's ncu pass); no GPU
 *
 * A job is one gsp-wl workload (mm nn cfd md bp lbm hotspot pathfinder
 * streamcluster spmv lud, and stream and fma) run for U units back to
 * back, U chosen so that the job takes about T ms (default 30) alone on
 * the whole GPU. The device is cut into green-context groups of G SMs
 * (default the device's minimum, 8 on an H100: 16 groups and 4 SMs left
 * over; 15 groups on an H200), the planner's unit. Each job is profiled
 * alone on m groups for every m (R[m], the median of P runs); its DRAM
 * bytes per unit come from FILE
 * ("wl,bytes_per_unit" lines, an ncu pass: bench/run-stm.sh), else are
 * taken as its device footprint (a rough stand-in, marked in the
 * profile), and B[m] = bytes / R[m]. Then each set runs, R times after
 * one warm-up, three ways, timed on the host from the first launch to
 * the last stream's end:
 *
 *   seq    the jobs one after another on one stream, whole GPU
 *   conc   each job on its own stream, whole GPU, units launched round
 *          robin so that all start together
 *   stm    the plan's phases one after another; in a phase each job runs
 *          in a green context of its planned groups (disjoint), round
 *          robin; a phase of one job runs on the whole GPU
 *
 * Writes DIR/stm.csv (set,jobs,seq_ms,conc_ms,stm_ms,model_stm_ms,
 * model_opt_ms,plan; medians) and DIR/profile.csv (wl,units,unit_ms,
 * groups,sms,r_ms,b_gbs,g_bytes,bytes_per_unit,bytes_from). Progress
 * and the device's facts go to stdout.
 *
 * The sets (--sets):
 *
 *   default     every pair of the --wls list (default: the 11 application
 *               workloads, not stream and fma), then triples, quads and
 *               quints at fixed strides: 76 sets
 *   pairs       only the pairs
 *   saturating  the paper's premise, where it holds: a job that stops
 *               scaling well before the whole GPU because a shared
 *               resource saturates (stream: DRAM bandwidth, with about
 *               half the SMs; cfd: measured to stop at about 64 SMs on
 *               an H200) beside jobs that scale with SMs (fma: pure
 *               FMAs; mm: compute-bound; md), each pair of the two kinds
 *               and each triple of one saturating and two scaling: 6
 *               pairs and 6 triples; --wls keeps only the sets all of
 *               whose workloads it names
 *   LIST        "mm+lbm,cfd+md+nn": sets of 2 to 5 distinct workloads
 *
 * GPU time of the default run (76 sets of 11 jobs of 30 ms, R = 5,
 * P = 3) on an H100, estimated: profiling about 55 s (a job that scales
 * with SMs costs 16 * H(16) = 54 times its full-GPU time per pass over
 * m), the sets about 100 s (187 jobs, three ways, six passes), setup,
 * calibration and contexts about 20 s: 3 minutes, under 6. The
 * saturating sets (12 sets, 30 jobs, R = 5): profiling 5 workloads at
 * most 25 s, the sets at most 16 s, setup and contexts about 20 s: about
 * a minute.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpu_cli.h"
#include "green.h"
#include "stm.h"
#include "wl_common.cuh"

static const struct wl_ops *const stm_wls[] = {
	&wl_mm, &wl_nn, &wl_cfd, &wl_md, &wl_bp, &wl_lbm, &wl_hotspot,
	&wl_pathfinder, &wl_streamcluster, &wl_spmv, &wl_lud,
	&wl_stream, &wl_fma,
};
#define NWLS	(int)(sizeof(stm_wls) / sizeof(stm_wls[0]))
#define NDEF_WLS	11	/* --wls's default: stm_wls up to lud */
#define SET_MAX	5	/* jobs in a set: the optimum's limit is 6 */
#define SETS_MAX	512

struct opts {
	const char *out, *sets, *bytes;
	int wl[NWLS], nwl;		/* --wls, in order */
	int wls_given;			/* --wls was given */
	int reps, prof_reps, group_sms, model_blocks, compensate;
	int list_only;			/* 1: --list-sets, 2: --list-wls */
	double target_ms, pb_gbs;
	enum gsp_stm_est est;
};

struct set {
	int n;
	int wl[SET_MAX];	/* indices into stm_wls */
};

struct job {
	int used;
	struct wl_state st;
	long units;
	double unit_ms, g, bytes_unit, r_full;
	int bytes_ncu;
	struct gsp_stm_job prof;	/* r in ms, b in GB/s, g in bytes */
};

static void usage(const char *why)
{
	fprintf(stderr, "stm: %s\n"
		"usage: stm --out DIR [--sets default|pairs|saturating|LIST] [--wls LIST]\n"
		"           [--reps R] [--prof-reps P] [--target-ms T] [--group-sms G]\n"
		"           [--est drr|pinned] [--compensate] [--model-blocks B]\n"
		"           [--bytes FILE] [--pb-gbs X]\n"
		"       stm --list-sets|--list-wls [--sets ...] [--wls LIST]\n"
		"(the comment at the top of bench/gpu/stm.cu says more)\n", why);
	exit(2);
}

static int wl_index(const char *name, size_t len)
{
	for (int i = 0; i < NWLS; i++)
		if (strlen(stm_wls[i]->name) == len &&
		    !strncmp(stm_wls[i]->name, name, len))
			return i;
	return -1;
}

static double pos_num(const char *opt, const char *s, double hi)
{
	char *end;
	double v = s ? strtod(s, &end) : 0;

	if (!s || !*s || *end || !(v > 0) || v > hi) {
		fprintf(stderr, "stm: %s needs a number in (0, %g], got '%s'\n",
			opt, hi, s ? s : "");
		exit(2);
	}
	return v;
}

/* "mm+lbm,cfd+md+nn": sets of distinct workloads, 2 to SET_MAX each. */
static int parse_sets(const char *s, struct set *sets)
{
	int n = 0;

	while (*s) {
		struct set *t = &sets[n];
		const char *e = s + strcspn(s, ",");

		if (n == SETS_MAX)
			usage("--sets: too many sets");
		t->n = 0;
		while (s < e) {
			size_t len = strcspn(s, "+,");
			int w = wl_index(s, len);

			if (w < 0 || t->n == SET_MAX)
				usage("--sets: a set is 2 to 5 of the workloads, joined by +");
			for (int k = 0; k < t->n; k++)
				if (t->wl[k] == w)
					usage("--sets: a workload twice in one set");
			t->wl[t->n++] = w;
			s += len + (s[len] == '+');
		}
		if (t->n < 2)
			usage("--sets: a set is 2 to 5 of the workloads, joined by +");
		n++;
		s = *e ? e + 1 : e;
	}
	return n;
}

static int add_set(struct set *sets, int n, const int *wl, int k)
{
	struct set t;

	t.n = k;
	for (int i = 0; i < k; i++) {
		t.wl[i] = wl[i];
		for (int j = 0; j < i; j++)
			if (wl[j] == wl[i])
				return n;	/* too few workloads for this shape */
	}
	for (int s = 0; s < n; s++) {
		int same = sets[s].n == k;

		for (int i = 0; same && i < k; i++) {
			int in = 0;

			for (int j = 0; j < k; j++)
				in |= sets[s].wl[j] == wl[i];
			same = in;
		}
		if (same)
			return n;
	}
	sets[n] = t;
	return n + 1;
}

/*
 * default: every pair of the --wls list (W workloads), then W triples
 * (i, i+4, i+8), 6 quads (i, i+3, i+6, i+9) and 4 quints (i, i+2, ...,
 * i+8), indices mod W: fixed strides rather than hand-picked mixes.
 */
static int default_sets(const struct opts *o, struct set *sets, int pairs_only)
{
	int W = o->nwl, n = 0, w[SET_MAX];

	for (int i = 0; i < W; i++)
		for (int j = i + 1; j < W; j++) {
			w[0] = o->wl[i];
			w[1] = o->wl[j];
			n = add_set(sets, n, w, 2);
		}
	if (pairs_only)
		return n;
	for (int i = 0; i < W; i++) {
		for (int k = 0; k < 3; k++)
			w[k] = o->wl[(i + 4 * k) % W];
		n = add_set(sets, n, w, 3);
	}
	for (int i = 0; i < 6 && i < W; i++) {
		for (int k = 0; k < 4; k++)
			w[k] = o->wl[(i + 3 * k) % W];
		n = add_set(sets, n, w, 4);
	}
	for (int i = 0; i < 4 && i < W; i++) {
		for (int k = 0; k < 5; k++)
			w[k] = o->wl[(i + 2 * k) % W];
		n = add_set(sets, n, w, 5);
	}
	return n;
}

/* Whether workload @w is in the --wls list. */
static int in_wls(const struct opts *o, int w)
{
	for (int k = 0; k < o->nwl; k++)
		if (o->wl[k] == w)
			return 1;
	return 0;
}

/* add_set() for workloads named @names, if --wls (when given) has them all */
static int add_named(const struct opts *o, struct set *sets, int n,
		     const char *const *names, int k)
{
	int w[SET_MAX];

	for (int i = 0; i < k; i++) {
		w[i] = wl_index(names[i], strlen(names[i]));
		if (o->wls_given && !in_wls(o, w[i]))
			return n;
	}
	return add_set(sets, n, w, k);
}

/*
 * saturating: each workload that stops scaling on part of the GPU for a
 * shared resource with each that scales with SMs (pairs), then with each
 * two of them (triples); the saturating job first.
 */
static int saturating_sets(const struct opts *o, struct set *sets)
{
	static const char *const sat[] = { "stream", "cfd" };
	static const char *const scal[] = { "fma", "mm", "md" };
	const int ns = (int)(sizeof(sat) / sizeof(sat[0]));
	const int nc = (int)(sizeof(scal) / sizeof(scal[0]));
	int n = 0;

	for (int a = 0; a < ns; a++)
		for (int i = 0; i < nc; i++) {
			const char *t[] = { sat[a], scal[i] };

			n = add_named(o, sets, n, t, 2);
		}
	for (int a = 0; a < ns; a++)
		for (int i = 0; i < nc; i++)
			for (int j = i + 1; j < nc; j++) {
				const char *t[] = { sat[a], scal[i], scal[j] };

				n = add_named(o, sets, n, t, 3);
			}
	return n;
}

static void parse(int argc, char **argv, struct opts *o)
{
	memset(o, 0, sizeof(*o));
	o->sets = "default";
	o->reps = 5;
	o->prof_reps = 3;
	o->target_ms = 30;
	o->est = GSP_STM_EST_DRR;
	for (int i = 0; i < NDEF_WLS; i++)
		o->wl[o->nwl++] = i;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--list-sets") || !strcmp(a, "--list-wls")) {
			o->list_only = !strcmp(a, "--list-sets") ? 1 : 2;
			continue;
		}
		if (!strcmp(a, "--compensate")) {
			o->compensate = 1;
			continue;
		}
		if (!v)
			usage("an option without its value, or an unknown option");
		i++;
		if (!strcmp(a, "--out"))
			o->out = v;
		else if (!strcmp(a, "--sets"))
			o->sets = v;
		else if (!strcmp(a, "--bytes"))
			o->bytes = v;
		else if (!strcmp(a, "--reps"))
			o->reps = (int)cli_num("stm", a, v, 1, 100);
		else if (!strcmp(a, "--prof-reps"))
			o->prof_reps = (int)cli_num("stm", a, v, 1, 100);
		else if (!strcmp(a, "--group-sms"))
			o->group_sms = (int)cli_num("stm", a, v, 1, 256);
		else if (!strcmp(a, "--model-blocks"))
			o->model_blocks = (int)cli_num("stm", a, v, 1, GSP_STM_MAX_TB);
		else if (!strcmp(a, "--target-ms"))
			o->target_ms = pos_num(a, v, 10000);
		else if (!strcmp(a, "--pb-gbs"))
			o->pb_gbs = pos_num(a, v, 1e6);
		else if (!strcmp(a, "--est")) {
			if (!strcmp(v, "drr"))
				o->est = GSP_STM_EST_DRR;
			else if (!strcmp(v, "pinned"))
				o->est = GSP_STM_EST_PINNED;
			else
				usage("--est is drr or pinned");
		} else if (!strcmp(a, "--wls")) {
			o->nwl = 0;
			o->wls_given = 1;
			for (const char *s = v; *s;) {
				size_t len = strcspn(s, ",");
				int w = wl_index(s, len);

				if (w < 0)
					usage("--wls: an unknown workload");
				for (int k = 0; k < o->nwl; k++)
					if (o->wl[k] == w)
						usage("--wls: a workload twice");
				o->wl[o->nwl++] = w;
				s += len + (s[len] == ',');
			}
			if (o->nwl < 2)
				usage("--wls needs at least 2 workloads");
		} else
			usage("unknown option");
	}
	if (!o->out && !o->list_only)
		usage("--out DIR is needed");
}

static double median(double *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int k = i; k > 0 && v[k - 1] > v[k]; k--) {
			double t = v[k];

			v[k] = v[k - 1];
			v[k - 1] = t;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double ms_since(uint64_t t0)
{
	return (mono_ns() - t0) / 1e6;
}

/*
 * Runs jobs @wl[0..n) at once, job k on stream @s[k], their units
 * launched round robin; all on @s[0] if @one (one after another).
 * Returns the ms from the first launch to the end of the last, or -1.
 */
static double run_jobs(struct job *jobs, const int *wl, int n, cudaStream_t *s,
		       int one)
{
	uint64_t t0 = mono_ns();
	long most = 0;

	for (int k = 0; k < n; k++)
		most = jobs[wl[k]].units > most ? jobs[wl[k]].units : most;
	if (one) {
		for (int k = 0; k < n; k++)
			for (long u = 0; u < jobs[wl[k]].units; u++)
				if (stm_wls[wl[k]]->unit(&jobs[wl[k]].st, s[0]))
					return -1;
	} else {
		for (long u = 0; u < most; u++)
			for (int k = 0; k < n; k++)
				if (u < jobs[wl[k]].units &&
				    stm_wls[wl[k]]->unit(&jobs[wl[k]].st, s[k]))
					return -1;
	}
	for (int k = 0; k < (one ? 1 : n); k++)
		if (cudaStreamSynchronize(s[k]) != cudaSuccess)
			return -1;
	return ms_since(t0);
}

/* Achievable DRAM bandwidth: a 1 GiB device-to-device copy, GB/s. */
static double measure_pb(void)
{
	const size_t bytes = (size_t)1 << 30;
	double t[5];
	void *a, *b;

	CK(cudaMalloc(&a, bytes));
	CK(cudaMalloc(&b, bytes));
	CK(cudaMemset(a, 1, bytes));
	CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
	for (int i = 0; i < 5; i++) {
		uint64_t t0 = mono_ns();

		CK(cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice));
		CK(cudaDeviceSynchronize());
		t[i] = ms_since(t0);
	}
	cudaFree(a);
	cudaFree(b);
	return 2.0 * bytes / (median(t, 5) * 1e6);	/* read + write */
}

/* "wl,bytes_per_unit" lines (a header line is skipped). */
static int read_bytes(const char *path, struct job *jobs)
{
	FILE *f = fopen(path, "r");
	char line[256];

	if (!f) {
		fprintf(stderr, "stm: cannot read --bytes %s\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ',');
		double v;
		int w;

		if (!c)
			continue;
		w = wl_index(line, (size_t)(c - line));
		v = strtod(c + 1, NULL);
		if (w >= 0 && v > 0) {
			jobs[w].bytes_unit = v;
			jobs[w].bytes_ncu = 1;
		}
	}
	fclose(f);
	return 0;
}

/* Set up job @w, measure its footprint and size its units to @target_ms. */
static int job_setup(struct job *j, int w, double target_ms, cudaStream_t s)
{
	struct wl_cfg cfg = { 0, 0, "" };
	size_t free0, free1, total;
	uint64_t t0;

	memset(&j->st, 0, sizeof(j->st));
	CK(cudaMemGetInfo(&free0, &total));
	if (stm_wls[w]->setup(&j->st, &cfg))
		return -1;
	CK(cudaDeviceSynchronize());
	CK(cudaMemGetInfo(&free1, &total));
	j->g = free0 > free1 ? (double)(free0 - free1) : 0;
	for (int i = 0; i < 3; i++)
		if (stm_wls[w]->unit(&j->st, s))
			return -1;
	CK(cudaStreamSynchronize(s));
	t0 = mono_ns();
	for (int i = 0; i < 8; i++)
		if (stm_wls[w]->unit(&j->st, s))
			return -1;
	CK(cudaStreamSynchronize(s));
	j->unit_ms = ms_since(t0) / 8;
	j->units = lround(target_ms / j->unit_ms);
	if (j->units < 1)
		j->units = 1;
	if (!j->bytes_unit)
		j->bytes_unit = j->g;	/* the stand-in: its footprint */
	j->used = 1;
	return 0;
}

/* The median of @reps runs of job @w alone on @s, after two units. */
static double job_alone(struct job *jobs, int w, cudaStream_t s, int reps)
{
	double t[100];

	for (int i = 0; i < 2; i++)
		if (stm_wls[w]->unit(&jobs[w].st, s))
			return -1;
	for (int r = 0; r < reps; r++)
		if ((t[r] = run_jobs(jobs, &w, 1, &s, 1)) < 0)
			return -1;
	return median(t, reps);
}

/* The contexts of the groups [first, first + count), made when first asked. */
struct ctx_cache {
	const struct green_groups *gg;
	struct green gr[GREEN_MAX_GROUPS][GREEN_MAX_GROUPS + 1];
};

static struct green *ctx_get(struct ctx_cache *c, unsigned int first,
			     unsigned int count)
{
	struct green *g = &c->gr[first][count];

	if (!g->g && green_make_groups(g, c->gg, first, count, 0))
		return NULL;
	return g;
}

static int profile(const struct opts *o, struct job *jobs, struct ctx_cache *cc,
		   cudaStream_t main_s, FILE *csv)
{
	unsigned int M = cc->gg->n;

	fprintf(csv, "wl,units,unit_ms,groups,sms,r_ms,b_gbs,g_bytes,"
		"bytes_per_unit,bytes_from\n");
	for (int w = 0; w < NWLS; w++) {
		struct job *j = &jobs[w];
		double job_bytes;

		if (!j->used)
			continue;
		job_bytes = j->bytes_unit * j->units;
		if ((j->r_full = job_alone(jobs, w, main_s, o->prof_reps)) < 0)
			return -1;
		fprintf(csv, "%s,%ld,%.4f,all,%d,%.4f,%.3f,%.0f,%.0f,%s\n",
			stm_wls[w]->name, j->units, j->unit_ms, cc->gg->dev_sms,
			j->r_full, job_bytes / (j->r_full * 1e6), j->g,
			j->bytes_unit, j->bytes_ncu ? "ncu" : "footprint");
		memset(&j->prof, 0, sizeof(j->prof));
		for (unsigned int m = 1; m <= M; m++) {
			struct green *g = ctx_get(cc, 0, m);
			double r;

			if (!g || (r = job_alone(jobs, w, g->s, o->prof_reps)) < 0)
				return -1;
			j->prof.r[m] = r;
			j->prof.b[m] = job_bytes / (r * 1e6);
			fprintf(csv, "%s,%ld,%.4f,%u,%d,%.4f,%.3f,%.0f,%.0f,%s\n",
				stm_wls[w]->name, j->units, j->unit_ms, m, g->sms,
				r, j->prof.b[m], j->g, j->bytes_unit,
				j->bytes_ncu ? "ncu" : "footprint");
		}
		j->prof.g = j->g;
		j->prof.tb = (unsigned int)o->model_blocks;
		fflush(csv);
		printf("profile %s: %ld units of %.3f ms, alone %.2f ms (all), "
		       "%.2f ms (%u groups), %.2f ms (1 group)\n", stm_wls[w]->name,
		       j->units, j->unit_ms, j->r_full, j->prof.r[M], M,
		       j->prof.r[1]);
		fflush(stdout);
	}
	return 0;
}

/* Runs @p's phases once; the ms from the first launch to the end. */
static double run_plan(struct job *jobs, const struct set *t,
		       const struct gsp_stm_plan *p, struct ctx_cache *cc,
		       cudaStream_t main_s)
{
	double total = 0;

	for (unsigned int i = 0; i < p->nphases; i++) {
		const struct gsp_stm_phase *ph = &p->ph[i];
		cudaStream_t s[SET_MAX];
		int wl[SET_MAX];
		unsigned int first = 0;
		double ms;

		for (unsigned int k = 0; k < ph->n; k++) {
			struct green *g;

			wl[k] = t->wl[ph->a[k].job];
			if (ph->n == 1) {
				s[k] = main_s;	/* alone: the whole GPU */
				break;
			}
			g = ctx_get(cc, first, ph->a[k].units);
			if (!g)
				return -1;
			s[k] = g->s;
			first += ph->a[k].units;
		}
		if ((ms = run_jobs(jobs, wl, (int)ph->n, s, 0)) < 0)
			return -1;
		total += ms;
	}
	return total;
}

static int run_set(const struct opts *o, int idx, const struct set *t,
		   struct job *jobs, struct ctx_cache *cc, cudaStream_t *conc_s,
		   double pb, double gb, FILE *csv)
{
	struct gsp_stm_job prof[SET_MAX];
	struct gsp_stm_dev dev = { cc->gg->n, pb, gb, o->est, o->compensate };
	const char *names[SET_MAX];
	struct gsp_stm_plan p, opt;
	struct gsp_stm s;
	double seq[100], conc[100], stm[100];
	char plan[512], set_jobs[128] = "";
	uint64_t t0 = mono_ns();
	double plan_ms;

	for (int k = 0; k < t->n; k++) {
		prof[k] = jobs[t->wl[k]].prof;
		names[k] = stm_wls[t->wl[k]]->name;
		snprintf(set_jobs + strlen(set_jobs), sizeof(set_jobs) - strlen(set_jobs),
			 "%s%s", k ? "+" : "", names[k]);
	}
	if (gsp_stm_init(&s, &dev, prof, (unsigned int)t->n)) {
		fprintf(stderr, "stm: set %s: the planner refused its profiles\n",
			set_jobs);
		return -1;
	}
	gsp_stm_plan(&s, &p);
	plan_ms = ms_since(t0);
	gsp_stm_optimum(&s, &opt);
	gsp_stm_fini(&s);
	gsp_stm_plan_str(&p, names, plan, sizeof(plan));
	for (int r = -1; r < o->reps; r++) {
		double a = run_jobs(jobs, t->wl, t->n, conc_s, 1);
		double b = run_jobs(jobs, t->wl, t->n, conc_s, 0);
		double c = run_plan(jobs, t, &p, cc, conc_s[0]);

		if (a < 0 || b < 0 || c < 0) {
			fprintf(stderr, "stm: set %s: a run failed\n", set_jobs);
			return -1;
		}
		if (r >= 0) {	/* -1 is the warm-up */
			seq[r] = a;
			conc[r] = b;
			stm[r] = c;
		}
	}
	fprintf(csv, "%d,%s,%.4f,%.4f,%.4f,%.4f,%.4f,%s\n", idx, set_jobs,
		median(seq, o->reps), median(conc, o->reps), median(stm, o->reps),
		p.total, opt.total, plan);
	fflush(csv);
	printf("set %d %s: plan %s (planned in %.2f ms)\n", idx, set_jobs, plan,
	       plan_ms);
	fflush(stdout);
	return 0;
}

/*
 * For --list-sets, on stderr: a bound on the run's GPU time before any
 * GPU is seen, on an H200's split (132 SMs, 15 groups of 8; with
 * --group-sms G, 120 / G groups), every job taking its T ms on all SMs
 * and scaling linearly with SMs (one that stops scaling profiles
 * faster), STM and concurrency no slower than sequential. Profiling: per
 * workload, P runs alone on all SMs and on m groups for each m, R[m] =
 * T * 132 / (G * m); the sets: R + 1 passes (one warm-up) of three ways,
 * each the sum of the set's jobs. Setup, calibration and contexts (about
 * 20 s on the default run) are not in it.
 */
static void estimate(const struct opts *o, const struct set *sets, int nsets,
		     const struct job *jobs)
{
	int g = o->group_sms ? o->group_sms : 8;
	int M = 120 / g > 1 ? 120 / g : 1, nw = 0, njobs = 0;
	double T = o->target_ms / 1e3, per_wl = 1, prof, run = 0;

	for (int m = 1; m <= M; m++)
		per_wl += 132.0 / (g * m);
	for (int w = 0; w < NWLS; w++)
		nw += jobs[w].used;
	prof = nw * o->prof_reps * T * per_wl;
	for (int i = 0; i < nsets; i++) {
		njobs += sets[i].n;
		run += (o->reps + 1) * 3 * sets[i].n * T;
	}
	fprintf(stderr, "stm: %d set%s, %d jobs of %g ms over %d workloads; GPU "
		"time at most about %.0f s (profiling %.0f s, sets %.0f s; jobs "
		"scaling linearly on 132 SMs in %d groups of %d; plus setup)\n",
		nsets, nsets == 1 ? "" : "s", njobs, o->target_ms, nw,
		prof + run, prof, run, M, g);
}

int main(int argc, char **argv)
{
	static struct set sets[SETS_MAX];
	static struct job jobs[NWLS];
	static struct ctx_cache cc;
	struct green_groups gg;
	struct opts o;
	cudaStream_t conc_s[SET_MAX];
	size_t free0, total;
	double pb;
	char path[4096];
	FILE *prof_csv, *set_csv;
	int nsets, rc = 0;

	parse(argc, argv, &o);
	if (!strcmp(o.sets, "default") || !strcmp(o.sets, "pairs"))
		nsets = default_sets(&o, sets, !strcmp(o.sets, "pairs"));
	else if (!strcmp(o.sets, "saturating"))
		nsets = saturating_sets(&o, sets);
	else
		nsets = parse_sets(o.sets, sets);
	if (!nsets)
		usage("--sets: no set (--wls leaves none of the family?)");
	for (int i = 0; i < nsets; i++)
		for (int k = 0; k < sets[i].n; k++)
			jobs[sets[i].wl[k]].used = 1;
	if (o.list_only == 1) {
		for (int i = 0; i < nsets; i++)
			for (int k = 0; k < sets[i].n; k++)
				printf("%s%s", stm_wls[sets[i].wl[k]]->name,
				       k + 1 < sets[i].n ? "+" : "\n");
		estimate(&o, sets, nsets, jobs);
		return 0;
	}
	if (o.list_only == 2) {
		for (int w = 0; w < NWLS; w++)
			if (jobs[w].used)
				printf("%s\n", stm_wls[w]->name);
		return 0;
	}
	if (o.bytes && read_bytes(o.bytes, jobs))
		return 2;

	CK(cudaSetDevice(0));
	CK(cudaFree(0));
	for (int k = 0; k < SET_MAX; k++)
		CK(cudaStreamCreateWithFlags(&conc_s[k], cudaStreamNonBlocking));
	if (green_split(&gg, o.group_sms))
		return 1;
	if (gg.n > GSP_STM_MAX_UNITS)
		gg.n = GSP_STM_MAX_UNITS;
	cc.gg = &gg;
	if (!o.model_blocks)
		o.model_blocks = 64 * (int)gg.n;
	CK(cudaMemGetInfo(&free0, &total));
	pb = o.pb_gbs ? o.pb_gbs : measure_pb();
	if (!(pb > 0)) {
		fprintf(stderr, "stm: measuring the bandwidth failed\n");
		return 1;
	}
	printf("device: %d SMs, green groups of %d SMs (minimum %d, alignment %d): "
	       "%u groups, %d SMs in none; Pb %.1f GB/s (%s); Gb %zu bytes free; "
	       "est %s%s; %d sets\n", gg.dev_sms, gg.group_sms, gg.min_sms,
	       gg.align, gg.n, gg.rest_sms, pb, o.pb_gbs ? "given" : "measured",
	       free0, o.est == GSP_STM_EST_DRR ? "drr" : "pinned",
	       o.compensate ? " compensated" : "", nsets);
	fflush(stdout);
	for (int w = 0; w < NWLS; w++)
		if (jobs[w].used && job_setup(&jobs[w], w, o.target_ms, conc_s[0])) {
			fprintf(stderr, "stm: %s: setup failed\n", stm_wls[w]->name);
			return 1;
		}

	snprintf(path, sizeof(path), "%s/profile.csv", o.out);
	prof_csv = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/stm.csv", o.out);
	set_csv = fopen(path, "w");
	if (!prof_csv || !set_csv) {
		fprintf(stderr, "stm: cannot write into %s\n", o.out);
		return 1;
	}
	if (profile(&o, jobs, &cc, conc_s[0], prof_csv)) {
		fprintf(stderr, "stm: profiling failed\n");
		return 1;
	}
	fprintf(set_csv, "set,jobs,seq_ms,conc_ms,stm_ms,model_stm_ms,"
		"model_opt_ms,plan\n");
	for (int i = 0; i < nsets && !rc; i++)
		rc = run_set(&o, i, &sets[i], jobs, &cc, conc_s, pb,
			     (double)free0, set_csv);
	fclose(prof_csv);
	fclose(set_csv);
	for (unsigned int f = 0; f < GREEN_MAX_GROUPS; f++)
		for (unsigned int c = 0; c <= GREEN_MAX_GROUPS; c++)
			if (cc.gr[f][c].g)
				green_free(&cc.gr[f][c]);
	for (int w = 0; w < NWLS; w++)
		if (jobs[w].used)
			stm_wls[w]->teardown(&jobs[w].st);
	return rc ? 1 : 0;
}
