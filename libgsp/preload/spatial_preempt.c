// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The preemptive time plane, BE side (Documentation/spatial.rst,
 * "Protection modes"): the process's override word, which makes every
 * block of its transformed kernels leave at its next task boundary, and
 * the watcher's look at whether they all have. The dispatcher raises it
 * when it gives its lease back before its kernels end
 * (dispatch_lease.c, lease_preempt()) and drops it once the arbiter
 * grants it a lease again; the watcher then tops the jobs up as after
 * any request that fell.
 *
 * The word is one 64-bit word of mapped host memory per process. Every
 * ctl carries its device address (gsp_persist_ctl.ovr_ptr, set when the
 * ctl is made), and a kernel that reads the board's word over the bus
 * reads it too: a nonzero (n, k) there replaces the board's.
 */
#define _GNU_SOURCE
#include <string.h>

#include "spatial_internal.h"

/* Maps the override word into @c (dispatcher thread); c->ovr 0 if not. */
void ovr_map(struct sp_ctx *c)
{
	uint64_t *w = __atomic_load_n(&spatial.ovr, __ATOMIC_ACQUIRE);
	void *p = NULL;

	c->ovr = 0;
	if (!w) {
		if (cudrv.host_alloc(&p, 64, CU_MEMHOSTALLOC_PORTABLE |
				     CU_MEMHOSTALLOC_DEVICEMAP)) {
			gsp_log(1, "spatial: no mapped host memory for the override word: this process's kernels cannot be preempted");
			return;
		}
		memset(p, 0, 64);
		w = p;
		/* Only the dispatcher thread sets it, once. */
		__atomic_store_n(&spatial.ovr, w, __ATOMIC_RELEASE);
	}
	if (cudrv.host_dptr(&c->ovr, w, 0))
		c->ovr = 0;
}

uint64_t ovr_word(void)
{
	uint64_t *w = __atomic_load_n(&spatial.ovr, __ATOMIC_ACQUIRE);

	return w ? __atomic_load_n(w, __ATOMIC_ACQUIRE) : 0;
}

int gsp_sp_preemptible(void)
{
	unsigned int i;
	int any = 0;

	pthread_mutex_lock(&spatial.mu);
	for (i = 0; i < spatial.nlive && !any; i++)
		any = spatial.live[i]->c->ovr != 0;
	pthread_mutex_unlock(&spatial.mu);
	return any;
}

void gsp_sp_preempt(int on)
{
	uint64_t *w = __atomic_load_n(&spatial.ovr, __ATOMIC_ACQUIRE);
	uint32_t seq;

	if (!w)
		return;
	if (!on) {
		__atomic_store_n(w, 0, __ATOMIC_RELEASE);
		return;
	}
	seq = atomic_fetch_add(&spatial.ovr_seq, 1) + 1;
	atomic_store(&spatial.look, seq);
	/* Every SM by rank, every slot: k > K empties an SM. */
	__atomic_store_n(w, GSP_PERSIST_CTRL(GSP_PERSIST_MAX_SM,
					     GSP_PERSIST_MAX_K, seq),
			 __ATOMIC_RELEASE);
}

int gsp_sp_drained(void)
{
	return atomic_load(&spatial.drained) == atomic_load(&spatial.ovr_seq);
}

/*
 * The dispatcher stopped waiting for the drain: the watcher looks no
 * more. A look is a kernel that needs a slot, and while another tenant's
 * kernels fill the GPU it would only queue.
 */
void gsp_sp_drain_end(void)
{
	atomic_store(&spatial.look, 0);
}

/*
 * The watcher, after it looked at @n of the @all live jobs under the
 * word @w (done[i]: batch[i] has ended): if @w is the override and none
 * of those jobs has a block holding a slot, the override has done its
 * work, and gsp_sp_drained() says so. A kept job's last primary block
 * stays, paused, and takes no task; a context that cannot look at its
 * counters (ctl_peek()) counts as left, since nothing could say
 * more. A look that fails or sees a block is tried again at the next
 * poll, while the dispatcher still waits (spatial.look).
 */
void preempt_look(struct sp_ctl *const *batch, const int *done,
		  unsigned int n, unsigned int all, uint64_t w)
{
	unsigned int i;

	if (!GSP_PERSIST_CTRL_N(w) || w != ovr_word() || n < all ||
	    atomic_load(&spatial.look) != GSP_PERSIST_CTRL_EPOCH(w))
		return;
	for (i = 0; i < n; i++) {
		struct sp_ctl *t = batch[i];
		uint64_t next;
		uint32_t live;

		if (done[i] || !t->c->peek_buf)
			continue;
		if (cudrv.ctx_set(t->c->ctx) || ctl_peek(t, &next, &live) ||
		    live > (t->waited ? 0u : 1u))
			return;
	}
	atomic_store(&spatial.drained, GSP_PERSIST_CTRL_EPOCH(w));
}
