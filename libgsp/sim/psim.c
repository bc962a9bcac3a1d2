// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-psim's engine: the SIMULATED GPU of psim.h, one event at a time.
 * Deterministic for a configuration; everything lives in one struct sim
 * per run, so runs share nothing.
 *
 * Slots: N x K, slot i on SM i / K with index i % K, each empty, a BE
 * block's or held by the LC kernel. Per SM the model keeps how many BE
 * blocks and LC-held slots it has, and from those the LC kernel's SMs:
 * whole (LC slots, no BE block) and shared (both). The LC kernel's work
 * is solo_ns x S SM-ns, done at min(S, whole + shared / share_slowdown)
 * SMs' worth per ns (rule 2).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "psim.h"
#include "predict.h"

enum { SLOT_EMPTY, SLOT_BE, SLOT_LC };

enum ev_kind {
	EV_TASK,	/* a BE block's task ends; arg: its slot */
	EV_LAUNCH,	/* the BE program issues its next kernel */
	EV_ARRIVE,	/* an LC release; arg: its index */
	EV_LC_END,	/* the LC kernel ends; arg: its generation */
	EV_WAKE,	/* the LC's reporter looks at its forecast; arg: gen */
	EV_TOPUP,	/* a top-up's blocks start */
};

struct ev {
	uint64_t t, seq;
	uint32_t kind, arg;
};

/* The time plane's BE dispatcher polls the board this often while LC
 * work is active (BOARD_POLL_NS in libgsp/preload/dispatch_internal.h).
 */
#define TIME_POLL_NS		50000ULL
/* An LC kernel still running this long after the end is given up on. */
#define END_SLACK_NS		10000000000ULL

struct sim {
	const struct psim_cfg *c;
	struct psim_board *pb;
	struct psim_res *r;
	uint32_t nslots;
	int spatial, tenant;
	uint64_t now, seq, base;
	uint64_t rng_task, rng_lc;
	struct ev *h;
	size_t nh, caph;
	uint8_t *slot, *yielded;
	uint16_t *be, *lch;	/* per SM: BE blocks, LC-held slots */
	uint64_t *arr;		/* arrival times, [count] = the end */
	/* the BE kernel in the GPU */
	int be_on;
	uint64_t be_start, next_task;
	uint32_t running;	/* BE blocks in slots */
	uint32_t queued;	/* transformed: blocks waiting for LC slots */
	/* the LC kernel in the GPU */
	int lc_on;
	uint32_t lc_gen, lc_idx, whole, shared, held;
	uint64_t lc_arrival, lc_last;
	double lc_work, lc_rate;
	/* the LC tenant on the board (gspace's modes) */
	struct gsp_reserver rs;
	uint64_t arrivals, arrival_ns;
	uint32_t wake_gen;
	/* measurement */
	uint64_t t_w, t_end, acct_t, free_ns;
	double occ;
	uint64_t *lat;
	size_t nlat;
};

static const char *const mode_names[PSIM_MODE_COUNT] = {
	[PSIM_NONE] = "none",
	[PSIM_MPS_PRIORITY] = "mps-priority",
	[PSIM_TIME] = "time",
	[PSIM_REACTIVE] = "reactive",
	[PSIM_RESERVED] = "reserved",
	[PSIM_PREDICTIVE] = "predictive",
	[PSIM_PREEMPTIVE] = "preemptive",
};

const char *psim_mode_name(enum psim_mode m)
{
	return (unsigned int)m < PSIM_MODE_COUNT ? mode_names[m] : "?";
}

int psim_mode_parse(const char *s)
{
	int i;

	for (i = 0; i < PSIM_MODE_COUNT; i++)
		if (!strcmp(s, mode_names[i]))
			return i;
	return -1;
}

int psim_mode_spatial(enum psim_mode m)
{
	return m >= PSIM_REACTIVE && m < PSIM_MODE_COUNT;
}

void psim_mode_board(const struct psim_cfg *c, uint32_t *protect,
		     uint32_t *n, uint32_t *k)
{
	*protect = GSP_PROTECT_REACTIVE;
	*n = c->part_n;
	*k = c->part_k;
	switch (c->mode) {
	case PSIM_RESERVED:
		*protect = GSP_PROTECT_RESERVED;
		break;
	case PSIM_PREDICTIVE:
		*protect = GSP_PROTECT_PREDICTIVE;
		break;
	case PSIM_PREEMPTIVE:
		*protect = GSP_PROTECT_PREEMPTIVE;
		break;
	case PSIM_REACTIVE:
		break;
	default:	/* no partition plane: spatial sharing off */
		*n = 0;
		*k = 0;
	}
}

void psim_cfg_default(struct psim_cfg *c)
{
	*c = (struct psim_cfg){
		.sms = 132, .slots = 8, .share_slowdown = 11,
		.be = 1, .task_ns = 220000, .task_jitter_pct = 10,
		.tasks = 64 * 132 * 8, .gap_ns = 20000, .topup_ns = 50000,
		.lc = 1, .lc_sms = 132, .lc_ns = 110000, .period_ns = 2000000,
		.seed = 1, .count = 500, .warmup = 10,
		.mode = PSIM_NONE, .part_n = 132, .part_k = 8,
		.lead_ns = 500000,
	};
}

int psim_cfg_check(const struct psim_cfg *c, char *err, size_t len)
{
	const char *why = NULL;

	if (!c->sms || c->sms > PSIM_MAX_SMS)
		why = "SMs must be 1..256";
	else if (!c->slots || c->slots > PSIM_MAX_SLOTS)
		why = "slots per SM must be 1..32";
	else if (!c->share_slowdown)
		why = "the shared-SM slowdown must be at least 1";
	else if (!c->task_ns || c->task_jitter_pct >= 100)
		why = "a task needs a length, its jitter below 100 %";
	else if (!c->tasks)
		why = "a kernel needs at least one task";
	else if (!c->lc_sms || c->lc_sms > c->sms)
		why = "the LC's SMs must be 1..N";
	else if (!c->lc_ns || !c->period_ns)
		why = "the LC needs a solo time and a period";
	else if (!c->count || c->count > PSIM_MAX_COUNT ||
		 c->warmup >= c->count)
		why = "arrivals must be 1..1000000, more than the warm-up";
	else if ((unsigned int)c->mode >= PSIM_MODE_COUNT)
		why = "no such mode";
	else if (psim_mode_spatial(c->mode) && c->mode != PSIM_PREEMPTIVE &&
		 (!c->part_n || c->part_n > c->sms || !c->part_k ||
		  c->part_k > c->slots))
		why = "the partition must be n in 1..N, k in 1..K";
	else if (!c->lead_ns || c->lead_ns > 100000000ULL ||
		 c->lead_ns % 1000)
		why = "the lead must be whole us, 1 us..100 ms";
	if (why)
		snprintf(err, len, "%s", why);
	return why ? -1 : 0;
}

/* Events ------------------------------------------------------------------ */

static int ev_less(const struct ev *a, const struct ev *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static int push(struct sim *s, uint64_t t, uint32_t kind, uint32_t arg)
{
	size_t i;

	if (s->nh == s->caph) {
		size_t cap = s->caph ? 2 * s->caph : 4096;
		struct ev *h = realloc(s->h, cap * sizeof(*h));

		if (!h)
			return -1;
		s->h = h;
		s->caph = cap;
	}
	i = s->nh++;
	s->h[i] = (struct ev){ .t = t, .seq = s->seq++, .kind = kind,
			       .arg = arg };
	while (i && ev_less(&s->h[i], &s->h[(i - 1) / 2])) {
		struct ev tmp = s->h[i];

		s->h[i] = s->h[(i - 1) / 2];
		s->h[(i - 1) / 2] = tmp;
		i = (i - 1) / 2;
	}
	return 0;
}

static int pop(struct sim *s, struct ev *out)
{
	size_t i = 0;

	if (!s->nh)
		return 0;
	*out = s->h[0];
	s->h[0] = s->h[--s->nh];
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		struct ev tmp;

		if (l < s->nh && ev_less(&s->h[l], &s->h[m]))
			m = l;
		if (l + 1 < s->nh && ev_less(&s->h[l + 1], &s->h[m]))
			m = l + 1;
		if (m == i)
			return 1;
		tmp = s->h[i];
		s->h[i] = s->h[m];
		s->h[m] = tmp;
		i = m;
	}
}

static uint64_t rnd(uint64_t *x)
{
	/* xorshift64*, as gsp-sim */
	*x ^= *x >> 12;
	*x ^= *x << 25;
	*x ^= *x >> 27;
	return *x * 2685821657736338717ULL;
}

static uint64_t task_len(struct sim *s)
{
	uint64_t spread = s->c->task_ns * s->c->task_jitter_pct / 100;

	if (!spread)
		return s->c->task_ns;
	return s->c->task_ns - spread + rnd(&s->rng_task) % (2 * spread + 1);
}

/* The board ---------------------------------------------------------------- */

static uint32_t word_nk(const struct sim *s)
{
	return GSP_BOARD_REQ_NK(gsp_board_load(
		&s->pb->b->dev[s->pb->device].part_req));
}

/* Whether word @nk asks the block in slot @i to leave (gsp_persist.h). */
static int asked(const struct sim *s, uint32_t nk, uint32_t i)
{
	uint32_t n = GSP_BOARD_REQ_N(nk), k = GSP_BOARD_REQ_K(nk);
	uint32_t K = s->c->slots;

	return i / K < n && (k >= K || i % K >= K - k);
}

/* After a write that may have shrunk the word: the watcher's top-up. */
static int word_after(struct sim *s, uint32_t old)
{
	uint32_t nk = word_nk(s);

	if (s->spatial && (GSP_BOARD_REQ_N(nk) < GSP_BOARD_REQ_N(old) ||
			   GSP_BOARD_REQ_K(nk) < GSP_BOARD_REQ_K(old)))
		return push(s, s->now + s->c->topup_ns, EV_TOPUP, 0);
	return 0;
}

/* The LC's reporter thread: its reservation follows the forecast. */
static int reporter_poll(struct sim *s)
{
	struct gsp_board_lc *sl = &s->pb->b->lc[s->pb->slot];
	uint32_t old = word_nk(s);
	uint64_t up = gsp_board_load(&sl->reserve), w;

	w = gsp_reserver_poll(&s->rs, s->base + s->now, s->arrivals,
			      s->arrival_ns);
	if (!up && gsp_board_load(&sl->reserve))
		s->r->reserves++;
	if (word_after(s, old))
		return -1;
	s->wake_gen++;
	if (w == UINT64_MAX)
		return 0;
	w = w > s->base + s->now ? w - s->base : s->now + 1;
	return push(s, w, EV_WAKE, s->wake_gen);
}

/* What the interposer's gsp_lc_begin() does at an LC issue. */
static int tenant_begin(struct sim *s)
{
	struct gsp_board *b = s->pb->b;
	struct gsp_board_lc *sl = &b->lc[s->pb->slot];
	uint64_t t = s->base + s->now, prev = gsp_board_load(&sl->stamp_ns);
	uint64_t hold = gsp_board_load(&b->lc_hold_ns);
	uint32_t old = word_nk(s);

	if (!__atomic_fetch_add(&sl->inflight, 1, __ATOMIC_RELAXED)) {
		/* an arrival: in flight after a pause of lc_hold_ns */
		if (!(prev && t > prev && t - prev < hold)) {
			s->arrivals++;
			s->arrival_ns = t;
		}
		gsp_board_part_update(b, s->pb->device);
	}
	gsp_board_store(&sl->stamp_ns, t);
	if (word_after(s, old))
		return -1;
	return reporter_poll(s);
}

/* ... and its reporter when the work is seen done (lc_uncount()). */
static int tenant_end(struct sim *s)
{
	struct gsp_board_lc *sl = &s->pb->b->lc[s->pb->slot];
	uint32_t old = word_nk(s);

	if (__atomic_fetch_sub(&sl->inflight, 1, __ATOMIC_RELAXED) != 1)
		return 0;
	if (reporter_poll(s))
		return -1;
	gsp_board_part_update(s->pb->b, s->pb->device);
	return word_after(s, old);
}

/* The GPU ------------------------------------------------------------------ */

/* Integrates the BE's occupancy and the word up to @t, in the window. */
static void acct(struct sim *s, uint64_t t)
{
	uint64_t a = s->acct_t > s->t_w ? s->acct_t : s->t_w;
	uint64_t b = t < s->t_end ? t : s->t_end;

	if (b > a) {
		if (word_nk(s)) {
			s->r->req_ns += b - a;
		} else {
			s->free_ns += b - a;
			s->occ += (double)s->running * (double)(b - a);
		}
	}
	s->acct_t = t;
}

static void lc_progress(struct sim *s)
{
	if (s->lc_on) {
		s->lc_work -= s->lc_rate * (double)(s->now - s->lc_last);
		s->lc_last = s->now;
	}
}

/* SM @m gains @dbe BE blocks and @dlc LC slots (either may be negative). */
static void sm_change(struct sim *s, uint32_t m, int dbe, int dlc)
{
	int was_w = s->lch[m] && !s->be[m], was_s = s->lch[m] && s->be[m];

	lc_progress(s);
	s->be[m] += dbe;
	s->lch[m] += dlc;
	s->whole += (s->lch[m] && !s->be[m]) - was_w;
	s->shared += (s->lch[m] && s->be[m]) - was_s;
	s->held += dlc;
	if (s->held > s->r->max_held)
		s->r->max_held = s->held;
}

/* Rule 2: the LC kernel's rate; a new end if it changed. */
static int lc_resched(struct sim *s)
{
	double rate = s->whole + (double)s->shared / s->c->share_slowdown;
	uint64_t t;

	if (rate > s->c->lc_sms)
		rate = s->c->lc_sms;
	if (rate == s->lc_rate)
		return 0;
	lc_progress(s);
	s->lc_rate = rate;
	s->lc_gen++;
	if (rate <= 0)
		return 0;
	t = s->lc_work > 0 ? (uint64_t)ceil(s->lc_work / rate) : 0;
	return push(s, s->now + t, EV_LC_END, s->lc_gen);
}

/* Rule 1: the LC takes freed slots before the BE grid. */
static int lc_first(const struct sim *s)
{
	if (!s->lc_on || s->whole >= s->c->lc_sms)
		return 0;
	/*
	 * No BE block queued (spatial), or the LC at a higher priority:
	 * mps-priority, and gspace's time plane, whose LC tenants run at
	 * the greatest stream priority (libgsp/preload/lcprio.c).
	 */
	if (s->spatial || s->c->mode == PSIM_MPS_PRIORITY ||
	    s->c->mode == PSIM_TIME)
		return 1;
	/* equal priority: once the BE grid has none queued, or is newer */
	return !s->be_on || s->next_task >= s->c->tasks ||
	       s->be_start > s->lc_arrival;
}

static void hold(struct sim *s, uint32_t i)
{
	s->slot[i] = SLOT_LC;
	sm_change(s, i / s->c->slots, 0, 1);
}

static int start_task(struct sim *s, uint32_t i)
{
	s->slot[i] = SLOT_BE;
	sm_change(s, i / s->c->slots, 1, 0);
	s->running++;
	s->next_task++;
	return push(s, s->now + task_len(s), EV_TASK, i);
}

/* The LC kernel takes empty SMs, then empty slots, while it needs SMs. */
static void lc_claim(struct sim *s)
{
	uint32_t K = s->c->slots, m, i;

	if (!lc_first(s))
		return;
	for (m = 0; m < s->c->sms && s->whole < s->c->lc_sms; m++)
		if (!s->be[m] && !s->lch[m])
			for (i = m * K; i < (m + 1) * K; i++)
				hold(s, i);
	for (i = 0; i < s->nslots && s->whole < s->c->lc_sms; i++)
		if (s->slot[i] == SLOT_EMPTY)
			hold(s, i);
}

static int be_check_end(struct sim *s)
{
	if (!s->be_on || s->next_task < s->c->tasks || s->running)
		return 0;
	s->be_on = 0;
	s->queued = 0;
	s->r->kernels++;
	return push(s, s->now + s->c->gap_ns, EV_LAUNCH, 0);
}

/* A BE block leaves slot @i: the slot goes by rule 1. */
static int leave(struct sim *s, uint32_t i)
{
	/* asked first: this block's end may make the LC's last SM whole */
	int to_lc = lc_first(s);

	s->slot[i] = SLOT_EMPTY;
	sm_change(s, i / s->c->slots, -1, 0);
	s->running--;
	if (to_lc)
		hold(s, i);
	else if (!s->spatial && s->next_task < s->c->tasks)
		return start_task(s, i);
	return be_check_end(s);
}

static int on_task(struct sim *s, uint32_t i)
{
	if (s->now >= s->t_w && s->now < s->t_end)
		s->r->be_tasks++;
	if (s->spatial) {
		/* rule 3: the word, at the task boundary */
		if (asked(s, word_nk(s), i)) {
			s->r->yields++;
			if (!s->yielded[i]) {
				s->yielded[i] = 1;
				s->r->yield_slots++;
			}
			return leave(s, i);
		}
		if (s->next_task < s->c->tasks) {
			s->next_task++;
			return push(s, s->now + task_len(s), EV_TASK, i);
		}
	}
	return leave(s, i);
}

static int on_launch(struct sim *s)
{
	uint32_t nk = word_nk(s), i;

	if (s->c->mode == PSIM_TIME &&
	    gsp_board_lc_active(s->pb->b, s->pb->device, s->base + s->now)) {
		s->r->gated++;
		return push(s, s->now + TIME_POLL_NS, EV_LAUNCH, 0);
	}
	s->be_on = 1;
	s->be_start = s->now;
	s->next_task = 0;
	if (s->lc_on)
		s->r->launch_in_lc++;
	lc_claim(s);	/* an LC kernel waiting for slots is older */
	for (i = 0; i < s->nslots && s->next_task < s->c->tasks; i++) {
		if (s->slot[i] == SLOT_LC)
			s->queued++;	/* one wave: waits for the LC's slots */
		else if (s->slot[i] == SLOT_EMPTY &&
			 !(s->spatial && asked(s, nk, i)) && start_task(s, i))
			return -1;
	}
	if (!s->spatial)
		s->queued = 0;
	return be_check_end(s);
}

static int on_topup(struct sim *s)
{
	uint32_t nk = word_nk(s), i, placed = 0;

	if (!s->be_on)
		return 0;
	for (i = 0; i < s->nslots && s->next_task < s->c->tasks; i++) {
		if (s->slot[i] != SLOT_EMPTY || asked(s, nk, i))
			continue;
		if (start_task(s, i))
			return -1;
		placed++;
	}
	if (placed)
		s->r->topups++;
	return 0;
}

static int on_arrive(struct sim *s, uint32_t idx)
{
	if (idx + 1 < s->c->count &&
	    push(s, s->arr[idx + 1], EV_ARRIVE, idx + 1))
		return -1;
	if (s->lc_on) {
		if (idx >= s->c->warmup)
			s->r->lc_missed++;
		return 0;
	}
	if (s->tenant && tenant_begin(s))
		return -1;
	s->lc_on = 1;
	s->lc_idx = idx;
	s->lc_arrival = s->now;
	s->lc_last = s->now;
	s->lc_work = (double)s->c->lc_ns * s->c->lc_sms;
	s->lc_rate = 0;
	lc_claim(s);
	return 0;
}

static int on_lc_end(struct sim *s)
{
	uint32_t nk, i;

	if (s->lc_idx >= s->c->warmup)
		s->lat[s->nlat++] = s->now - s->lc_arrival;
	for (i = 0; i < s->nslots; i++) {
		if (s->slot[i] == SLOT_LC) {
			s->slot[i] = SLOT_EMPTY;
			sm_change(s, i / s->c->slots, 0, -1);
		}
	}
	s->lc_on = 0;
	s->lc_rate = 0;
	s->lc_gen++;
	if (s->tenant && tenant_end(s))
		return -1;
	if (!s->be_on)
		return 0;
	/* Freed slots: the plain grid's queued blocks, or the one wave's. */
	nk = word_nk(s);
	for (i = 0; i < s->nslots && s->next_task < s->c->tasks; i++) {
		if (s->slot[i] != SLOT_EMPTY)
			continue;
		if (s->spatial && (!s->queued || asked(s, nk, i)))
			continue;
		if (s->spatial)
			s->queued--;
		if (start_task(s, i))
			return -1;
	}
	s->queued = 0;
	return 0;
}

/* Arrival times, [count] the window's end. */
static int arrivals_make(struct sim *s)
{
	const struct psim_cfg *c = s->c;
	uint64_t t = c->period_ns;
	uint32_t i;

	s->arr = malloc((c->count + 1) * sizeof(*s->arr));
	if (!s->arr)
		return -1;
	for (i = 0; i <= c->count; i++) {
		s->arr[i] = t;
		if (c->poisson) {
			double u = (double)(rnd(&s->rng_lc) >> 11) * 0x1p-53;
			uint64_t iv = (uint64_t)(-log1p(-u) *
						 (double)c->period_ns);

			t += iv ? iv : 1;
		} else {
			t += c->period_ns;
		}
	}
	s->t_w = s->arr[c->warmup];
	s->t_end = s->arr[c->count];
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest rank: the smallest value with at least @per_mille below it. */
static uint64_t pct(const uint64_t *v, size_t n, unsigned int per_mille)
{
	size_t rank = (n * per_mille + 999) / 1000;

	return n ? v[rank ? rank - 1 : 0] : 0;
}

/* Our slot's fields back to nothing, then the arbiter's setup. */
static int board_reset(struct sim *s, int setup)
{
	struct psim_board *pb = s->pb;
	struct gsp_board_lc *sl = &pb->b->lc[pb->slot];
	uint32_t protect, n, k;
	int e;

	gsp_board_store(&sl->inflight, 0);
	gsp_board_store(&sl->reserve, 0);
	gsp_board_store(&sl->stamp_ns, 0);
	gsp_board_part_update(pb->b, pb->device);
	if (!setup)
		return 0;
	psim_mode_board(s->c, &protect, &n, &k);
	pb->err[0] = 0;
	e = pb->setup(pb, protect, n, k, s->c->lead_ns);
	return e;
}

static int run(struct sim *s)
{
	const struct psim_cfg *c = s->c;
	struct ev e;
	int rc = 0;

	if (arrivals_make(s))
		return -ENOMEM;
	if (c->be && push(s, 0, EV_LAUNCH, 0))
		return -ENOMEM;
	if (c->lc && push(s, s->arr[0], EV_ARRIVE, 0))
		return -ENOMEM;
	while (!rc && pop(s, &e)) {
		if (e.t >= s->t_end && !s->lc_on)
			break;
		if (e.t > s->t_end + END_SLACK_NS)
			break;
		acct(s, e.t);
		s->now = e.t;
		s->r->events++;
		switch (e.kind) {
		case EV_TASK:
			rc = on_task(s, e.arg);
			break;
		case EV_LAUNCH:
			rc = on_launch(s);
			break;
		case EV_ARRIVE:
			rc = on_arrive(s, e.arg);
			break;
		case EV_LC_END:
			if (s->lc_on && e.arg == s->lc_gen)
				rc = on_lc_end(s);
			break;
		case EV_WAKE:
			if (e.arg == s->wake_gen)
				rc = reporter_poll(s);
			break;
		case EV_TOPUP:
			rc = on_topup(s);
			break;
		}
		if (!rc && s->lc_on)
			rc = lc_resched(s);
	}
	if (rc)
		return -ENOMEM;
	acct(s, s->t_end);
	if (s->lc_on && s->lc_idx >= c->warmup)
		s->r->lc_unfinished++;
	return 0;
}

int psim_run(const struct psim_cfg *c, struct psim_board *pb,
	     struct psim_res *r, char *err, size_t len)
{
	struct sim s = {
		.c = c, .pb = pb, .r = r, .nslots = c->sms * c->slots,
		.spatial = psim_mode_spatial(c->mode) && c->be,
		.base = pb->clock_ns,
		/* odd, so never 0: xorshift's one stuck state */
		.rng_task = c->seed * 2 + 1,
		.rng_lc = (c->seed * 2 + 1) * 0x9e3779b97f4a7c15ULL,
	};
	int e;

	memset(r, 0, sizeof(*r));
	if (psim_cfg_check(c, err, len))
		return -1;
	/* The board is written only in gspace's modes (time and spatial). */
	s.tenant = c->lc && c->mode >= PSIM_TIME;
	e = board_reset(&s, 1);
	if (e) {
		snprintf(err, len, "board setup for %s: %s",
			 psim_mode_name(c->mode),
			 pb->err[0] ? pb->err : strerror(-e));
		return -1;
	}
	gsp_reserver_init(&s.rs, pb->b, pb->slot, pb->device);
	s.slot = calloc(s.nslots, 1);
	s.yielded = calloc(s.nslots, 1);
	s.be = calloc(c->sms, sizeof(*s.be));
	s.lch = calloc(c->sms, sizeof(*s.lch));
	s.lat = calloc(c->count, sizeof(*s.lat));
	e = s.slot && s.yielded && s.be && s.lch && s.lat ? run(&s) : -ENOMEM;
	gsp_reserver_drop(&s.rs);
	board_reset(&s, 0);
	if (!e) {
		qsort(s.lat, s.nlat, sizeof(*s.lat), cmp_u64);
		r->lc_n = s.nlat;
		r->p50 = pct(s.lat, s.nlat, 500);
		r->p99 = pct(s.lat, s.nlat, 990);
		r->p999 = pct(s.lat, s.nlat, 999);
		r->max = s.nlat ? s.lat[s.nlat - 1] : 0;
		r->window_ns = s.t_end - s.t_w;
		r->be_tput = r->window_ns ?
			(double)r->be_tasks * 1e9 / (double)r->window_ns : 0;
		r->free_occupancy = s.free_ns ?
			s.occ / ((double)s.free_ns * s.nslots) : 0;
	} else {
		snprintf(err, len, "out of memory");
	}
	free(s.h);
	free(s.slot);
	free(s.yielded);
	free(s.be);
	free(s.lch);
	free(s.lat);
	free(s.arr);
	return e ? -1 : 0;
}
