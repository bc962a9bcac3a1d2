// SPDX-License-Identifier: GPL-2.0
/*
 * Parked WAITs: a WAIT whose job is not there yet is answered later, at
 * the job's change or at its deadline. Each is on its job's list (what a
 * change of that job can wake) and in one min-heap by deadline (what the
 * clock can wake), so a request, a timer or a job's change costs the
 * waits it answers and a log of the rest, never a scan of them all. A
 * tenant parks at most tenant_max_waits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>

#include "gspaced.h"

/*
 * The deadline heap, earliest first; w->heap_idx is each one's place.
 * Single event-loop thread: no lock.
 */
static struct gd_wait **heap;
static size_t heap_n, heap_cap;

static bool earlier(size_t a, size_t b)
{
	return heap[a]->arg.deadline_ns < heap[b]->arg.deadline_ns;
}

static void heap_swap(size_t a, size_t b)
{
	struct gd_wait *w = heap[a];

	heap[a] = heap[b];
	heap[b] = w;
	heap[a]->heap_idx = a;
	heap[b]->heap_idx = b;
}

static void heap_up(size_t i)
{
	while (i && earlier(i, (i - 1) / 2)) {
		heap_swap(i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
}

static void heap_down(size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < heap_n && earlier(l, m))
			m = l;
		if (r < heap_n && earlier(r, m))
			m = r;
		if (m == i)
			return;
		heap_swap(i, m);
		i = m;
	}
}

static void heap_remove(struct gd_wait *w)
{
	size_t i = w->heap_idx;

	heap_n--;
	if (i == heap_n)
		return;
	heap[i] = heap[heap_n];
	heap[i]->heap_idx = i;
	heap_up(i);
	heap_down(heap[i]->heap_idx);
}

/* Off its job, off the heap, freed; the tenant's count follows. */
static void wait_free(struct gd_wait *w)
{
	if (w->prev)
		w->prev->next = w->next;
	else
		w->job->waits = w->next;
	if (w->next)
		w->next->prev = w->prev;
	heap_remove(w);
	w->job->t->nr_waits--;
	free(w);
}

void gd_wait_reply(struct gd_tenant *t, uint32_t seq, uint32_t user_size,
		   struct gspace_wait *arg, const struct gd_job *job)
{
	gsp_wait_answer(&job->acct, job->state, arg);
	gd_reply(t, seq, GSPD_OP_IOCTL, 0, arg,
		 user_size < sizeof(*arg) ? user_size : sizeof(*arg), -1);
}

int gd_wait_park(struct gd_tenant *t, struct gd_job *job, uint32_t seq,
		 uint32_t user_size, const struct gspace_wait *a)
{
	struct gd_wait *w;

	if (t->nr_waits >= gd_state.cfg.max_waits)
		return -EAGAIN;
	if (heap_n == heap_cap) {
		size_t cap = heap_cap ? heap_cap * 2 : 64;
		struct gd_wait **n = realloc(heap, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		heap = n;
		heap_cap = cap;
	}
	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->job = job;
	w->seq = seq;
	w->user_size = user_size;
	w->arg = *a;
	w->next = job->waits;
	if (w->next)
		w->next->prev = w;
	job->waits = w;
	w->heap_idx = heap_n;
	heap[heap_n++] = w;
	heap_up(w->heap_idx);
	t->nr_waits++;
	return 0;
}

bool gd_wait_answer(struct gd_job *job)
{
	struct gd_wait *w, *n;
	bool reap = false;

	for (w = job->waits; w; w = n) {
		bool granted = w->arg.flags & GSPACE_WAIT_GRANTED;

		n = w->next;
		if (!granted && job->state != GSP_AJOB_DONE)
			continue;
		gd_wait_reply(job->t, w->seq, w->user_size, &w->arg, job);
		if (!granted)
			reap = true;
		wait_free(w);
	}
	return reap;
}

void gd_wait_drop(struct gd_job *job)
{
	while (job->waits)
		wait_free(job->waits);
}

bool gd_wait_expire(uint64_t now)
{
	bool any = false;

	while (heap_n && heap[0]->arg.deadline_ns <= now) {
		struct gd_wait *w = heap[0];

		gd_reply(w->job->t, w->seq, GSPD_OP_IOCTL, -ETIME, NULL, 0, -1);
		wait_free(w);
		any = true;
	}
	return any;
}

uint64_t gd_wait_next_deadline(void)
{
	return heap_n ? heap[0]->arg.deadline_ns : 0;
}

void gd_wait_fini(void)
{
	free(heap);
	heap = NULL;
	heap_n = heap_cap = 0;
}
