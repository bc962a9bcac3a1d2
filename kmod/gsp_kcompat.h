/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shims for kernel API differences across the supported range (6.1 on).
 * Each names the upstream change it covers; Kbuild probes the headers.
 */
#ifndef _GSP_KCOMPAT_H
#define _GSP_KCOMPAT_H

#include <linux/fs.h>
#include <linux/hrtimer.h>
#include <linux/mm.h>

/*
 * v6.13 "hrtimers: Introduce hrtimer_setup() to replace hrtimer_init()".
 * Kbuild defines GSP_HAVE_HRTIMER_SETUP when the headers declare it.
 */
#ifndef GSP_HAVE_HRTIMER_SETUP
static inline void hrtimer_setup(struct hrtimer *timer,
				 enum hrtimer_restart (*fn)(struct hrtimer *),
				 clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = fn;
}
#endif

/*
 * v6.3 "mm: introduce vma->vm_flags wrapper functions". Kbuild defines
 * GSP_HAVE_VM_FLAGS_SET when the headers declare them; before, the flags
 * were written directly under the mmap lock, as here.
 */
#ifndef GSP_HAVE_VM_FLAGS_SET
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma,
				  vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * v6.12 "fs: add FOP_UNSIGNED_OFFSET" (struct file_operations.fop_flags):
 * drm_open() then refuses, with a warning, a DRM file whose fops lack it.
 * GSP_FOPS_UNSIGNED_OFFSET, comma included, ends a DRM driver's
 * file_operations initializer (the TEST DEVICE's); before 6.12 there is
 * no such field, and it is empty.
 */
#ifdef FOP_UNSIGNED_OFFSET
#define GSP_FOPS_UNSIGNED_OFFSET	.fop_flags = FOP_UNSIGNED_OFFSET,
#else
#define GSP_FOPS_UNSIGNED_OFFSET
#endif

#endif /* _GSP_KCOMPAT_H */
