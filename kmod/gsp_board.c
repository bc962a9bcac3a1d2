// SPDX-License-Identifier: GPL-2.0
/*
 * gspace board: one page, mapped by every tenant, through which LC tenants
 * hold BE work back without a request (uapi/gspace.h, DOC: Board), and
 * through which BE kernels see the partition plane's request.
 */

#include <linux/bitops.h>
#include <linux/mm.h>

#include "gsp_kcompat.h"
#include "gsp_drv.h"

int gsp_board_init(struct gspace *gsp)
{
	struct gspace_board *b;

	gsp->board_page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!gsp->board_page)
		return -ENOMEM;
	spin_lock_init(&gsp->board_lock);
	b = page_address(gsp->board_page);
	gsp->board = b;
	b->magic = GSPACE_BOARD_MAGIC;
	b->version = GSPACE_BOARD_VERSION;
	b->num_devices = gsp->nr_sim + gsp->nr_lease;
	b->lc_hold_ns = gsp_knob_default_scaled(GSP_KNOB_lc_hold_us);
	b->lc_max_ns = gsp_knob_default_scaled(GSP_KNOB_lc_max_ms);
	b->predict_lead_ns = gsp_knob_default_scaled(GSP_KNOB_predict_lead_us);
	b->watchdog_ns = gsp->watchdog_ns;
	gsp->search = GSPACE_SEARCH_NS;
	return 0;
}

/* Every mapping holds the file, and so the module: none is left. */
void gsp_board_fini(struct gspace *gsp)
{
	__free_page(gsp->board_page);
}

/* Caller holds &gspace.cfg_rwsem for writing. */
void gsp_board_set_devices(struct gspace *gsp)
{
	lockdep_assert_held_write(&gsp->cfg_rwsem);
	WRITE_ONCE(gsp->board->num_devices, gsp->nr_sim + gsp->nr_lease);
}

static void gsp_board_clear_slot(struct gspace_board_lc *s)
{
	WRITE_ONCE(s->owner, 0);
	WRITE_ONCE(s->inflight, 0);
	WRITE_ONCE(s->stamp_ns, 0);
	WRITE_ONCE(s->reserve, 0);
	WRITE_ONCE(s->cell, 0);
	WRITE_ONCE(s->search, 0);
}

/*
 * Whether LC slot @s claims @dev's partition under protection mode @mode:
 * in flight (every mode), held at all (GSPACE_PROTECT_RESERVED), or
 * reserving (GSPACE_PROTECT_PREDICTIVE). GSPACE_PROTECT_PREEMPTIVE claims
 * as reactive does, but the whole device.
 */
static bool gsp_board_slot_claims(const struct gspace_board_lc *s, u32 dev,
				  u32 mode)
{
	if (!READ_ONCE(s->owner) || READ_ONCE(s->device) != dev)
		return false;
	return mode == GSPACE_PROTECT_RESERVED || READ_ONCE(s->inflight) ||
	       (mode == GSPACE_PROTECT_PREDICTIVE && READ_ONCE(s->reserve));
}

/*
 * What @dev's claiming slots ask for: with the partition auto, the
 * greatest n and k of their cells (a slot without a cell: the whole
 * device); else the partition. (0, 0) if none claims.
 */
static void gsp_board_claimed(struct gspace *gsp, u32 dev, u32 mode,
			      u32 *n, u32 *k)
{
	bool part_auto = READ_ONCE(gsp->part_auto), any = false;
	u64 c;
	int i;

	*n = 0;
	*k = 0;
	for (i = 0; i < GSPACE_BOARD_LC_SLOTS; i++) {
		const struct gspace_board_lc *s = &gsp->board->lc[i];

		if (!gsp_board_slot_claims(s, dev, mode))
			continue;
		any = true;
		if (!part_auto)
			break;
		c = READ_ONCE(s->cell);
		if (!GSPACE_BOARD_REQ_N(c) || !GSPACE_BOARD_REQ_K(c))
			c = GSPACE_BOARD_REQ(GSPACE_PART_MAX_N,
					     GSPACE_PART_EIGHTHS, 0);
		*n = max(*n, GSPACE_BOARD_REQ_N(c));
		*k = max(*k, GSPACE_BOARD_REQ_K(c));
	}
	if (any && !part_auto) {
		*n = READ_ONCE(gsp->part_n);
		*k = READ_ONCE(gsp->part_k);
	} else if (*k) {
		/* a share of each kernel's slots (uapi: eighths) */
		*k = min_t(u32, *k, GSPACE_PART_EIGHTHS) |
		     GSPACE_BOARD_REQ_K_EIGHTHS;
	}
}

/*
 * gsp_board_part_update - recompute @dev's partition request word
 *
 * The rule every writer follows (uapi DOC: Board, "Partition plane"; the
 * userspace twin is gsp_board_part_update() in libgsp/include/gsp_board.h):
 * scan the slots after reading the word, then install the result with a
 * new epoch by compare-and-swap on the word read, rescanning if another
 * writer got there first. n, k, auto and the protection mode come from
 * our own copies, not the board's, and are read after the word: a writer
 * that changes one stores it before its own swap. Under partition auto a
 * claim asks for the slots' cells; under GSPACE_PROTECT_PREEMPTIVE for
 * the whole device, if a partition is set at all.
 */
static void gsp_board_part_update(struct gspace *gsp, u32 dev)
{
	struct gspace_board_dev *d = &gsp->board->dev[dev];
	u64 old, want;
	u32 mode, n, k;

	/* Pairs with the writers' CAS: their slot changes are seen below. */
	old = smp_load_acquire(&d->part_req);
	for (;;) {
		mode = READ_ONCE(gsp->protect);
		gsp_board_claimed(gsp, dev, mode, &n, &k);
		if (mode == GSPACE_PROTECT_PREEMPTIVE && n && k) {
			n = GSPACE_PART_MAX_N;
			k = GSPACE_PART_MAX_K;
		}
		want = GSPACE_BOARD_REQ(n, k, GSPACE_BOARD_REQ_EPOCH(old) + 1);
		if (cmpxchg64(&d->part_req, old, want) == old)
			return;
		/* A failed cmpxchg orders nothing: acquire the winner's word. */
		old = smp_load_acquire(&d->part_req);
	}
}

/* The board's dev[].search: the method while the partition is auto. */
static u32 gsp_board_search_word(struct gspace *gsp)
{
	return gsp->part_auto ? gsp->search : GSPACE_SEARCH_OFF;
}

/**
 * gsp_board_set_partition - publish a new partition for every device
 * @gsp: the driver
 * @n: SMs that BE kernels give up, 0..GSPACE_PART_MAX_N (0 with @k 0: off)
 * @k: block slots per such SM
 * @part_auto: the LC tenants' searches choose it (@n and @k are 0)
 *
 * Stores (@n, @k) and @part_auto, bumps each device's part_epoch and
 * recomputes its request, so an LC tenant already in flight gets the new
 * partition.
 */
void gsp_board_set_partition(struct gspace *gsp, u32 n, u32 k, bool part_auto)
{
	struct gspace_board_dev *d;
	int i;

	lockdep_assert_held_write(&gsp->cfg_rwsem);
	if (n == gsp->part_n && k == gsp->part_k && part_auto == gsp->part_auto)
		return;
	WRITE_ONCE(gsp->part_n, n);
	WRITE_ONCE(gsp->part_k, k);
	WRITE_ONCE(gsp->part_auto, part_auto);
	for (i = 0; i < GSPACE_BOARD_MAX_DEVICES; i++) {
		d = &gsp->board->dev[i];
		WRITE_ONCE(d->part_n, n);
		WRITE_ONCE(d->part_k, k);
		WRITE_ONCE(d->search, gsp_board_search_word(gsp));
		/* A reader that sees the new epoch sees the new n and k. */
		smp_store_release(&d->part_epoch, READ_ONCE(d->part_epoch) + 1);
		gsp_board_part_update(gsp, i);
	}
}

/**
 * gsp_board_set_search - publish a new search method
 * @gsp: the driver
 * @method: GSPACE_SEARCH_NS.._GRID
 *
 * An LC tenant reads dev[].search once, at its first invocation under
 * partition auto; the request does not depend on the method.
 */
void gsp_board_set_search(struct gspace *gsp, u32 method)
{
	int i;

	lockdep_assert_held_write(&gsp->cfg_rwsem);
	WRITE_ONCE(gsp->search, method);
	for (i = 0; i < GSPACE_BOARD_MAX_DEVICES; i++)
		WRITE_ONCE(gsp->board->dev[i].search,
			   gsp_board_search_word(gsp));
}

/**
 * gsp_board_set_protect - publish a new protection mode for every device
 * @gsp: the driver
 * @mode: GSPACE_PROTECT_*
 *
 * Stores @mode in our copy and in each device's dev[].protect, then
 * recomputes each device's request, so LC tenants already registered,
 * reserving or in flight get the new rule at once.
 */
void gsp_board_set_protect(struct gspace *gsp, u32 mode)
{
	int i;

	lockdep_assert_held_write(&gsp->cfg_rwsem);
	if (mode == gsp->protect)
		return;
	WRITE_ONCE(gsp->protect, mode);
	for (i = 0; i < GSPACE_BOARD_MAX_DEVICES; i++) {
		WRITE_ONCE(gsp->board->dev[i].protect, mode);
		gsp_board_part_update(gsp, i);
	}
}

/**
 * gsp_board_update_slot - give an LC tenant a slot, take a BE one's back
 * @ctx: the tenant, after a change of class or device
 *
 * An LC tenant with no slot gets a free one if there is any; it keeps -1
 * otherwise, and BE tenants then only see its LC jobs (dev[].lc_jobs).
 * The request of each device the slot leaves or joins is recomputed: a
 * slot given out claims the partition at once under
 * GSPACE_PROTECT_RESERVED.
 */
void gsp_board_update_slot(struct gsp_ctx *ctx)
{
	struct gspace *gsp = gsp_drv;
	u32 old_dev = U32_MAX, new_dev = U32_MAX;
	struct gspace_board_lc *s;
	int slot;

	lockdep_assert_held(&ctx->lock);

	spin_lock(&gsp->board_lock);
	if (ctx->class != GSPACE_CLASS_LC) {
		if (ctx->lc_slot >= 0) {
			s = &gsp->board->lc[ctx->lc_slot];
			old_dev = READ_ONCE(s->device);
			gsp_board_clear_slot(s);
			clear_bit(ctx->lc_slot, gsp->board_slots);
			ctx->lc_slot = -1;
		}
		goto out_unlock;
	}
	if (ctx->lc_slot < 0) {
		slot = find_first_zero_bit(gsp->board_slots,
					   GSPACE_BOARD_LC_SLOTS);
		if (slot >= GSPACE_BOARD_LC_SLOTS)
			goto out_unlock;
		set_bit(slot, gsp->board_slots);
		gsp_board_clear_slot(&gsp->board->lc[slot]);
		ctx->lc_slot = slot;
		new_dev = ctx->gdev->index;
	} else if (READ_ONCE(gsp->board->lc[ctx->lc_slot].device) !=
		   ctx->gdev->index) {
		/* Its in-flight count moves with it. */
		old_dev = READ_ONCE(gsp->board->lc[ctx->lc_slot].device);
		new_dev = ctx->gdev->index;
	}
	s = &gsp->board->lc[ctx->lc_slot];
	WRITE_ONCE(s->device, ctx->gdev->index);
	/* Readers check the owner first: publish it last. */
	smp_store_release(&s->owner, ctx->pid ? ctx->pid : 1);
out_unlock:
	spin_unlock(&gsp->board_lock);
	/* The slot's device comes from a page its owner may write. */
	if (old_dev < GSPACE_BOARD_MAX_DEVICES)
		gsp_board_part_update(gsp, old_dev);
	if (new_dev < GSPACE_BOARD_MAX_DEVICES)
		gsp_board_part_update(gsp, new_dev);
}

/* Caller holds &gsp_device.lock; @delta is +1 or -1. */
void gsp_board_lc_jobs_locked(struct gsp_device *gdev, int delta)
{
	lockdep_assert_held(&gdev->lock);
	gdev->lc_live += delta;
	WRITE_ONCE(gsp_drv->board->dev[gdev->index].lc_jobs, gdev->lc_live);
}

/**
 * gsp_board_waiting_locked - publish the jobs waiting for the compute engine
 * @gdev: the device, after a change to its compute queue
 *
 * The count is the scheduler's own (gsp_engine_nr_queued()), so it cannot
 * drift from the queue; @gdev->waiting keeps what the board holds, so that
 * an unchanged count dirties no cache line that every tenant reads. Called
 * after a job enters the scheduler, is granted, or leaves it without
 * running (cancel, a dying tenant).
 */
void gsp_board_waiting_locked(struct gsp_device *gdev)
{
	u64 n;

	lockdep_assert_held(&gdev->lock);
	n = gsp_engine_nr_queued(&gdev->sched, GSP_ENGINE_COMPUTE);
	if (n == gdev->waiting)
		return;
	gdev->waiting = n;
	WRITE_ONCE(gsp_drv->board->dev[gdev->index].waiting, n);
}

/*
 * mmap of /dev/gspace: the board, read-only for BE tenants. The class is
 * read without ctx->lock, which would nest inside mmap_lock while ioctls
 * fault user memory with it held; a mapping made just before a change of
 * class keeps the access it was made with (uapi: DOC: Board).
 */
int gsp_board_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct gsp_ctx *ctx = file->private_data;

	/* A private copy would hide LC stores from everyone else. */
	if (vma->vm_pgoff || vma->vm_end - vma->vm_start > GSPACE_BOARD_SIZE ||
	    !(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	if (READ_ONCE(ctx->class) != GSPACE_CLASS_LC) {
		if (vma->vm_flags & VM_WRITE)
			return -EACCES;
		vm_flags_clear(vma, VM_MAYWRITE);
	}
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	return vm_insert_page(vma, vma->vm_start, gsp_drv->board_page);
}
