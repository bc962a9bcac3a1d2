// SPDX-License-Identifier: GPL-2.0
/*
 * gspace board: one page, mapped by every tenant, through which LC tenants
 * hold BE work back without a request (uapi/gspace.h, DOC: Board).
 */

#include <linux/bitops.h>
#include <linux/mm.h>

#include "gsp_kcompat.h"
#include "gsp_drv.h"

#define GSP_LC_HOLD_DEFAULT_NS	(200 * NSEC_PER_USEC)
#define GSP_LC_MAX_DEFAULT_NS	(100 * NSEC_PER_MSEC)

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
	b->lc_hold_ns = GSP_LC_HOLD_DEFAULT_NS;
	b->lc_max_ns = GSP_LC_MAX_DEFAULT_NS;
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
}

/**
 * gsp_board_update_slot - give an LC tenant a slot, take a BE one's back
 * @ctx: the tenant, after a change of class or device
 *
 * An LC tenant with no slot gets a free one if there is any; it keeps -1
 * otherwise, and BE tenants then only see its LC jobs (dev[].lc_jobs).
 */
void gsp_board_update_slot(struct gsp_ctx *ctx)
{
	struct gspace *gsp = gsp_drv;
	struct gspace_board_lc *s;
	int slot;

	lockdep_assert_held(&ctx->lock);

	spin_lock(&gsp->board_lock);
	if (ctx->class != GSPACE_CLASS_LC) {
		if (ctx->lc_slot >= 0) {
			gsp_board_clear_slot(&gsp->board->lc[ctx->lc_slot]);
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
	}
	s = &gsp->board->lc[ctx->lc_slot];
	WRITE_ONCE(s->device, ctx->gdev->index);
	/* Readers check the owner first: publish it last. */
	smp_store_release(&s->owner, ctx->pid ? ctx->pid : 1);
out_unlock:
	spin_unlock(&gsp->board_lock);
}

/* Caller holds &gsp_device.lock; @delta is +1 or -1. */
void gsp_board_lc_jobs_locked(struct gsp_device *gdev, int delta)
{
	lockdep_assert_held(&gdev->lock);
	gdev->lc_live += delta;
	WRITE_ONCE(gsp_drv->board->dev[gdev->index].lc_jobs, gdev->lc_live);
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
