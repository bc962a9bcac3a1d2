// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The arrival forecast and the slot reservation of protect predictive
 * (predict.h says what they do and why).
 */
#include "predict.h"

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t absdiff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* How far off the forecast an arrival still counts as on time. */
static uint64_t tolerance(const struct gsp_predict *p)
{
	return max64(3 * p->dev, p->period / 32);
}

void gsp_predict_reset(struct gsp_predict *p)
{
	*p = (struct gsp_predict){ 0 };
}

/* A new history whose first interval is @iv (0: none yet). */
static void restart(struct gsp_predict *p, uint64_t iv)
{
	p->period = iv;
	p->dev = 0;
	p->n = iv ? 1 : 0;
	p->odd = 0;
}

/* Adds one interval of @iv to the averages. */
static void update(struct gsp_predict *p, uint64_t iv)
{
	uint64_t err;
	uint32_t w;

	if (!p->n) {
		restart(p, iv);
		return;
	}
	err = absdiff(iv, p->period);
	/* A plain mean over the first intervals, then the EWMA. */
	w = p->n < GSP_PREDICT_MIN ? p->n + 1 : GSP_PREDICT_WEIGHT;
	if (iv >= p->period)
		p->period += (iv - p->period) / w;
	else
		p->period -= (p->period - iv) / w;
	/* The deviation has one sample fewer: the first interval had none. */
	w = p->n < GSP_PREDICT_MIN ? p->n : GSP_PREDICT_WEIGHT;
	if (err >= p->dev)
		p->dev += (err - p->dev) / w;
	else
		p->dev -= (p->dev - err) / w;
	if (p->n < GSP_PREDICT_MIN)
		p->n++;
}

void gsp_predict_arrival(struct gsp_predict *p, uint64_t t)
{
	uint64_t iv, tol, m, off;

	if (!p->have) {
		p->have = 1;
		p->last = t;
		return;
	}
	if (t <= p->last)
		return;		/* a duplicate, or out of order */
	iv = t - p->last;
	p->last = t;
	if (iv > GSP_PREDICT_MAX_NS) {
		restart(p, 0);	/* a pause says nothing of the period */
		return;
	}
	if (p->n < GSP_PREDICT_MIN || !p->period) {
		update(p, iv);
		return;
	}
	tol = tolerance(p);
	m = (iv + p->period / 2) / p->period;
	off = absdiff(iv, m * p->period);
	if (m == 1 && off <= tol) {
		p->odd = 0;
		update(p, iv);
		return;
	}
	/*
	 * Odd: long or short. Odd ones in a row that differ (one arrival
	 * late, the next on time again) are noise; alike, a new period.
	 */
	if (iv > p->period)
		p->odd = p->odd > 0 ? p->odd + 1 : 1;
	else
		p->odd = p->odd < 0 ? p->odd - 1 : -1;
	if (p->odd >= GSP_PREDICT_ODD || -p->odd >= GSP_PREDICT_ODD) {
		restart(p, iv);	/* the period changed */
		return;
	}
	if (m >= 2 && m <= GSP_PREDICT_MAX_SKIP && off <= tol)
		iv /= m;	/* m - 1 arrivals missed */
	update(p, iv);
}

int gsp_predict_regular(const struct gsp_predict *p)
{
	return p->have && p->n >= GSP_PREDICT_MIN && p->period &&
	       p->dev <= p->period / GSP_PREDICT_REGULAR;
}

/*
 * The window [*start, *end) of the reservation for the next arrival: the
 * arrivals on time, within the tolerance of the forecast f, with the
 * window opening @lead before the earliest of them and closing at the
 * latest, or @lead after f if that is later.
 */
static void window(const struct gsp_predict *p, uint64_t lead,
		   uint64_t *start, uint64_t *end)
{
	uint64_t f = sat_add(p->last, p->period);
	uint64_t tol = tolerance(p);
	uint64_t early = sat_add(lead, tol);

	*start = f > early ? f - early : 0;
	*end = sat_add(f, max64(tol, lead));
}

int gsp_predict_reserve(const struct gsp_predict *p, uint64_t now,
			uint64_t lead)
{
	uint64_t start, end;

	if (!gsp_predict_regular(p) || now < p->last)
		return 0;
	window(p, lead, &start, &end);
	return now >= start && now < end;
}

uint64_t gsp_predict_wake(const struct gsp_predict *p, uint64_t now,
			  uint64_t lead)
{
	uint64_t start, end;

	if (!gsp_predict_regular(p))
		return UINT64_MAX;
	window(p, lead, &start, &end);
	if (now < start)
		return start;
	return now < end ? end : UINT64_MAX;
}

void gsp_reserver_init(struct gsp_reserver *r, struct gsp_board *b,
		       int slot, uint32_t device)
{
	*r = (struct gsp_reserver){ .b = b, .slot = slot, .device = device };
	gsp_predict_reset(&r->p);
}

static void set_up(struct gsp_reserver *r, int up, uint64_t now)
{
	if (up == r->up)
		return;
	/* The time it was raised, which BE tenants age against lc_max_ns. */
	gsp_board_store(&r->b->lc[r->slot].reserve, up ? (now ? now : 1) : 0);
	r->up = up;
	gsp_board_part_update(r->b, r->device);
}

uint64_t gsp_reserver_poll(struct gsp_reserver *r, uint64_t now,
			   uint64_t arrivals, uint64_t last_ns)
{
	uint64_t lead = gsp_board_load(&r->b->predict_lead_ns);
	int on = gsp_board_protect(r->b, r->device) == GSP_PROTECT_PREDICTIVE &&
		 lead;

	if (arrivals != r->seen) {
		if (arrivals - r->seen > 1)
			gsp_predict_reset(&r->p);
		gsp_predict_arrival(&r->p, last_ns);
		r->seen = arrivals;
	}
	set_up(r, on && gsp_predict_reserve(&r->p, now, lead), now);
	return on ? gsp_predict_wake(&r->p, now, lead) : UINT64_MAX;
}

void gsp_reserver_drop(struct gsp_reserver *r)
{
	set_up(r, 0, 0);
}
