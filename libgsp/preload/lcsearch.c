// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Partition auto in an LC tenant (lcsearch.h): the episodes of its GPU
 * work, from the first issue that takes the board slot's in-flight count
 * from 0 to the reporter seeing it back at 0, go to the agent; the cell
 * the agent asks for goes into the slot (uapi ABI 1.5, lc[].cell), and
 * what it is doing into lc[].search for gspctl status. Off unless the
 * board's dev[].search names a method when the first episode ends.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "dispatch_internal.h"
#include "lcsearch.h"

/*
 * The process's search (one LC tenant): configuration set once by
 * read_config() and read-only after; @pending is the app threads' (an
 * atomic); everything else is the reporter thread's alone.
 */
static struct {
	const char *model_path, *log_path;
	uint64_t solo_ns;
	double q;
	unsigned int grid_samples, tail, guard, bound, learn_hold;
	atomic_ullong pending;		/* start of the open episode, or 0 */
	int tried;			/* set-up done, or given up */
	unsigned int hold_said;		/* 1 + the hold's changes logged */
	struct gsp_agent *agent;	/* NULL: no search */
	struct gsp_search_pred *model;
	FILE *log;
	unsigned int restarts_seen;
} lcs = { .q = 2.0, .guard = 1, .bound = 1, .learn_hold = 1 };

/* A 0-or-1 setting @name, left at *@v when unset; -1 if it is neither. */
static int env_bool(const char *name, const char *what0, const char *what1,
		    unsigned int *v)
{
	const char *s = getenv(name);

	if (!s)
		return 0;
	if (strcmp(s, "0") && strcmp(s, "1")) {
		fprintf(stderr, "gsp: %s=%s is not 0 (%s) or 1 (%s)\n",
			name, s, what0, what1);
		return -1;
	}
	*v = s[0] == '1';
	return 0;
}

int gsp_lcsearch_config(void)
{
	const char *q = getenv("GSP_LC_Q"), *solo = getenv("GSP_LC_SOLO_US");
	char *end;

	const char *gs = getenv("GSP_SEARCH_GRID_SAMPLES");

	lcs.model_path = getenv("GSP_SEARCH_MODEL");
	if (env_bool("GSP_SEARCH_TAIL", "a cell's median",
		     "its greatest sample", &lcs.tail) ||
	    env_bool("GSP_SEARCH_GUARD", "hold the chosen cell",
		     "step it toward the LC while requests break q",
		     &lcs.guard) ||
	    env_bool("GSP_SEARCH_BOUND", "measure every cell the search asks",
		     "judge cells hopeless next to one far over q unmeasured",
		     &lcs.bound) ||
	    env_bool("GSP_SEARCH_LEARN_HOLD", "end requests at lc_hold_us",
		     "learn where requests end from the gaps between episodes",
		     &lcs.learn_hold))
		return -1;
	if (gs) {
		unsigned long v;

		errno = 0;
		v = strtoul(gs, &end, 10);
		if (!*gs || *end || errno || gs[0] == '-' || !v ||
		    v > GSP_AGENT_GRID_MAX) {
			fprintf(stderr, "gsp: GSP_SEARCH_GRID_SAMPLES=%s is not a count in 1..%d\n",
				gs, GSP_AGENT_GRID_MAX);
			return -1;
		}
		lcs.grid_samples = (unsigned int)v;
	}
	lcs.log_path = getenv("GSP_SEARCH_LOG");
	if (q) {
		errno = 0;
		lcs.q = strtod(q, &end);
		if (!*q || *end || errno || !(lcs.q >= 1.0 && lcs.q <= 1000)) {
			fprintf(stderr, "gsp: GSP_LC_Q=%s is not a ratio in 1..1000 (such as 2.0)\n",
				q);
			return -1;
		}
	}
	if (solo) {
		unsigned long long v;

		errno = 0;
		v = strtoull(solo, &end, 10);
		if (!*solo || *end || errno || solo[0] == '-' || !v ||
		    v > 3600000000ULL) {
			fprintf(stderr, "gsp: GSP_LC_SOLO_US=%s is not a time in 1..3600000000 us\n",
				solo);
			return -1;
		}
		lcs.solo_ns = v * 1000;
	}
	return 0;
}

/*
 * The model over the agent's grid from @path, a CSV "n,k,lc_ratio,
 * be_rate" with one row per cell; NULL (said) if it does not cover the
 * grid exactly.
 */
static struct gsp_search_pred *model_load(const char *path, unsigned int nsm)
{
	unsigned int step = nsm / GSP_AGENT_COLS, cells, got = 0;
	struct gsp_search_pred *m;
	char line[256];
	FILE *f;

	cells = ((nsm - 1) / step + 1) * GSP_AGENT_K;
	m = calloc(cells, sizeof(*m));
	f = fopen(path, "r");
	if (!m || !f)
		goto fail;
	if (!fgets(line, sizeof(line), f) ||
	    strncmp(line, "n,k,lc_ratio,be_rate", 20))
		goto fail;
	while (fgets(line, sizeof(line), f)) {
		struct gsp_cell c;
		unsigned int n, k;
		double lc, be;
		int32_t i;

		if (sscanf(line, "%u,%u,%lf,%lf", &n, &k, &lc, &be) != 4 ||
		    n > GSP_SEARCH_MAX_N || k > GSP_SEARCH_MAX_K ||
		    !isfinite(lc) || !isfinite(be) || !(lc > 0) || be < 0)
			goto fail;
		c.n = (uint16_t)n;
		c.k = (uint16_t)k;
		i = gsp_grid_index(nsm, GSP_AGENT_K, step, 1, c);
		if (i < 0 || m[i].lc_ratio)
			goto fail;
		m[i].lc_ratio = lc;
		m[i].be_rate = be;
		got++;
	}
	if (got != cells)
		goto fail;
	fclose(f);
	return m;
fail:
	fprintf(stderr, "gsp: search: GSP_SEARCH_MODEL=%s is not a model of this GPU's %u cells (a CSV n,k,lc_ratio,be_rate, one row per cell); searching without one\n",
		path, cells);
	if (f)
		fclose(f);
	free(m);
	return NULL;
}

/* The device's SMs, from the reporter's current context; 0 if unknown. */
static unsigned int device_sms(void)
{
	CUdevice d;
	int v = 0;

	if (!cudrv.ctx_dev || !cudrv.dev_attr || cudrv.ctx_dev(&d) ||
	    cudrv.dev_attr(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, d))
		return 0;
	return v > 0 ? (unsigned int)v : 0;
}

/* Set-up at the first episode's end, once: 1 if the search runs. */
static int setup(const struct lc_view *v)
{
	uint32_t method = gsp_board_load(&v->rw->dev[tenant.device].search);
	struct gsp_agent_cfg cfg = {
		.method = (enum gsp_agent_method)method,
		.target_ns = tenant.lc_target_ns, .q = lcs.q,
		.solo_ns = lcs.solo_ns, .grid_samples = lcs.grid_samples,
		.tail = lcs.tail, .guard = lcs.guard, .bound = lcs.bound,
		.hold_ns = gsp_board_load(&v->rw->lc_hold_ns),
		.learn_hold = lcs.learn_hold,
	};
	unsigned int nsm;

	if (lcs.tried)
		return lcs.agent != NULL;
	if (!method)
		return 0;	/* looked again at the next episode */
	lcs.tried = 1;
	nsm = device_sms();
	cfg.n_max = nsm;
	if (nsm && lcs.model_path)
		lcs.model = model_load(lcs.model_path, nsm);
	cfg.model = lcs.model;
	lcs.agent = malloc(sizeof(*lcs.agent));
	if (!nsm || !lcs.agent || gsp_agent_init(lcs.agent, &cfg)) {
		fprintf(stderr, "gsp: search: cannot start (%s); this LC tenant's slot asks for the whole GPU\n",
			!nsm ? "the device's SM count is unknown" :
			!lcs.agent ? "out of memory" : "no target");
		free(lcs.agent);
		lcs.agent = NULL;
		return 0;
	}
	if (lcs.agent->running != cfg.method)
		fprintf(stderr, "gsp: search: method %u needs a model (GSP_SEARCH_MODEL); running ns\n",
			method);
	if (lcs.log_path) {
		lcs.log = fopen(lcs.log_path, "w");
		if (lcs.log) {
			setvbuf(lcs.log, NULL, _IOLBF, 0);
			fprintf(lcs.log, "start_ns,end_ns,n,k,lc_us,lc_ratio,state,reported,method,q,solo_us\n");
		} else {
			fprintf(stderr, "gsp: search: cannot write GSP_SEARCH_LOG=%s: %s\n",
				lcs.log_path, strerror(errno));
		}
	}
	return 1;
}

/* The slot's cell and status words, after the agent moved. */
static void publish(const struct lc_view *v)
{
	const struct gsp_agent *a = lcs.agent;
	struct gsp_board_lc *s = &v->rw->lc[v->slot];

	if (a->cfg.learn_hold && a->bnd.done &&
	    lcs.hold_said != 1 + a->bnd.changes) {
		lcs.hold_said = 1 + a->bnd.changes;
		if (a->bnd.changes)
			gsp_log(1, "search: the gaps changed: a request now ends after a gap over %.0f us; searching again",
				a->bnd.hold_ns / 1e3);
		else if (a->bnd.above_ns)
			gsp_log(1, "search: a request ends after a gap over %.0f us (gaps %.0f us and under, %.0f us and over)",
				a->bnd.hold_ns / 1e3, a->bnd.below_ns / 1e3,
				a->bnd.above_ns / 1e3);
		else
			gsp_log(1, "search: no split in the first %d gaps; a request ends after a gap over lc_hold_us (%.0f us)",
				GSP_BOUNDARY_FIRST, a->bnd.hold_ns / 1e3);
	}

	gsp_board_store(&s->cell, a->cell.n && a->cell.k ?
			GSP_BOARD_REQ(a->cell.n, a->cell.k, 0) : 0);
	gsp_board_store(&s->search,
			GSPACE_BOARD_SEARCH(a->running, a->state,
					    a->s.ntried, a->invocations));
	/* In flight now: the request follows at once, else at the next. */
	if (gsp_board_load(&s->inflight))
		gsp_board_part_update(v->rw, tenant.device);
}

static void log_rec(const struct gsp_agent_rec *r)
{
	const struct gsp_agent *a = lcs.agent;

	if (!lcs.log)
		return;
	fprintf(lcs.log, "%llu,%llu,%u,%u,%.1f,%.4f,%d,%d,%u,%.4f,%.1f\n",
		(unsigned long long)r->start_ns, (unsigned long long)r->end_ns,
		r->cell.n, r->cell.k, (r->end_ns - r->start_ns) / 1e3,
		r->lc_ratio, r->state, r->reported, a->running, a->q,
		a->solo_ns / 1e3);
}

void gsp_lcsearch_begin(uint64_t now_ns)
{
	atomic_store_explicit(&lcs.pending, now_ns, memory_order_relaxed);
}

static const struct lc_view *view(void)
{
	const struct lc_view *v = atomic_load_explicit(&tenant.lcv,
						       memory_order_acquire);

	return v && v->rw && v->slot >= 0 ? v : NULL;
}

void gsp_lcsearch_end(uint64_t now_ns)
{
	uint64_t start = atomic_exchange(&lcs.pending, 0);
	const struct lc_view *v = view();
	struct gsp_agent_rec rec;

	if (!start || !v)
		return;
	if (start > now_ns) {
		/* the next episode's start, raced in: keep it for its end */
		atomic_store(&lcs.pending, start);
		return;
	}
	if (!setup(v))
		return;
	if (gsp_agent_episode(lcs.agent, start, now_ns, &rec))
		log_rec(&rec);
	publish(v);
}

uint64_t gsp_lcsearch_poll(uint64_t now_ns)
{
	const struct lc_view *v = view();
	struct gsp_agent_rec rec;
	uint64_t next;

	if (!lcs.agent || !v)
		return UINT64_MAX;
	if (gsp_agent_poll(lcs.agent, now_ns, atomic_load(&lcs.pending), &rec,
			   &next)) {
		log_rec(&rec);
		publish(v);
		if (lcs.agent->restarts != lcs.restarts_seen) {
			lcs.restarts_seen = lcs.agent->restarts;
			gsp_log(1, "search: a phase change; searching again");
		}
	}
	return next;
}

void gsp_lcsearch_stats(FILE *f)
{
	const struct gsp_agent *a = lcs.agent;

	if (!a)
		return;
	fprintf(f, "search_method %u\nsearch_state %d\nsearch_cell %u,%u\n"
		"search_invocations %u\nsearch_cells %u\nsearch_restarts %u\n"
		"search_violations_done %u\nsearch_solo_us %.1f\nsearch_q %.3f\n"
		"search_chosen %u,%u\nsearch_guard_steps %d\n"
		"search_guard_moves %u\nsearch_pruned %u\nsearch_far_jumps %u\n"
		"search_hold_us %.1f\nsearch_hold_learned %d\n"
		"search_hold_changes %u\n",
		a->running, a->state, a->cell.n, a->cell.k, a->invocations,
		a->s.ntried, a->restarts, a->violations_done, a->solo_ns / 1e3,
		a->q, a->chosen.n, a->chosen.k, a->guard_steps,
		a->guard_moves, a->s.npruned, a->far_jumps,
		a->bnd.hold_ns / 1e3, a->bnd.above_ns != 0, a->bnd.changes);
}
