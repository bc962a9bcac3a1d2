/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ABI of kernels that gsp-xform turned into persistent, SM-aware,
 * yieldable form (Documentation/xform.rst). Shared by the transformer
 * (libgsp/xform), which bakes the field offsets below into the PTX it
 * writes, and by whoever launches a transformed kernel (the interposer, the
 * GPU harness). Plain C, also valid CUDA C++.
 *
 * A transformed entry NAME__gsp takes NAME's parameters followed by one
 * .u64: the device address of a struct gsp_persist_ctl. Launch it with
 * NAME's block dims and dynamic shared memory, and a one-wave grid of
 * N x K blocks, K = the occupancy of NAME__gsp itself (it can differ from
 * NAME's). Each block:
 *
 *   1. claims the lowest free slot of its SM (bit in slot_mask[%smid]);
 *      slot >= K, or %smid >= GSP_PERSIST_MAX_SM: it leaves at once;
 *   2. at every task boundary reads the control word's device mirror,
 *      ctrl_mirror (an L2 hit); if sm_rank[%smid] < n and slot >= K - k
 *      it leaves (a yield). The mirror is refreshed from ctrl_ptr at most
 *      once per refresh_ns, grid-wide: a block that finds refresh_at
 *      older than that swaps in its %globaltimer (atom.cas) and, if it
 *      won, alone reads the word through ctrl_ptr (system scope, over
 *      PCIe when the word is in host memory) and stores it in the mirror.
 *      So a boundary sees a word at most refresh_ns plus one read old, and
 *      the bus sees about one read per refresh_ns, not one per task;
 *   3. else takes task t = next_task++ ; t >= ntasks: it leaves;
 *   4. runs NAME's body with %ctaid = (t % nx, t / nx % ny, t / (nx ny))
 *      and %nctaid = (nx, ny, nz); a return ends the task, not the block;
 *   5. on leaving, clears its slot bit so a later launch can take it.
 *
 * Start a job with ctrl_mirror = the current control word (else blocks
 * see "no request" until the first refresh). Top-up: launching NAME__gsp
 * again with the same ctl (no reset) fills the slots that yielded blocks
 * freed and continues the same task sequence; write the new control word
 * into ctrl_mirror too, on the launch's stream just before it, or a
 * newcomer may act on the old word for up to refresh_ns and leave again.
 * (A stale word never loses a task: a block that yields has taken none.)
 */
#ifndef GSP_PERSIST_H
#define GSP_PERSIST_H

#include <stdint.h>

#define GSP_PERSIST_SUFFIX	"__gsp"	/* NAME -> NAME__gsp */
#define GSP_PERSIST_MAX_SM	256	/* slot_mask/sm_rank entries, by %smid */
#define GSP_PERSIST_MAX_K	32	/* slot_mask is 32 bits wide */
#define GSP_PERSIST_NO_RANK	0xffffffffu	/* sm_rank of an unused %smid */

/*
 * The control word: (n, k, epoch) in one 64-bit word, so that one aligned
 * load sees a consistent triple. The host writes it with one 64-bit store.
 * n: SMs (by rank) that give up slots; k: slots each of them gives up;
 * epoch: bumped by the writer on every change (the kernel does not use it;
 * it tells a reader of the word which request it sees).
 */
#define GSP_PERSIST_CTRL(n, k, epoch)				\
	(((uint64_t)(uint32_t)(epoch) << 32) |			\
	 ((uint64_t)((k) & 0xffffu) << 16) | ((uint64_t)(n) & 0xffffu))
#define GSP_PERSIST_CTRL_N(w)		((uint32_t)(w) & 0xffffu)
#define GSP_PERSIST_CTRL_K(w)		((uint32_t)((w) >> 16) & 0xffffu)
#define GSP_PERSIST_CTRL_EPOCH(w)	((uint32_t)((w) >> 32))

/* A refresh interval that keeps the bus quiet and boundaries fresh. */
#define GSP_PERSIST_REFRESH_NS	2000u

/*
 * Device memory (cuMemAlloc), 8-byte aligned. Not pinned host memory:
 * every task touches next_task and ctrl_mirror, and every slot claim
 * slot_mask, so a host-resident ctl turns each of those into a PCIe round
 * trip. Only the control word that ctrl_ptr points at belongs in mapped
 * host memory. "host" fields are set before the first
 * launch of a job and not changed while one runs; "kernel" fields are
 * updated by the transformed kernel with device atomics; zero them all to
 * start a new job.
 */
struct gsp_persist_ctl {
	uint64_t ctrl_ptr;	/* host: device address of the control word */
	uint64_t ntasks;	/* host: nctaid.x * nctaid.y * nctaid.z */
	uint64_t next_task;	/* kernel: next task to hand out */
	uint64_t done_tasks;	/* kernel: tasks finished (progress) */
	uint32_t nctaid[3];	/* host: the original grid */
	uint32_t k_slots;	/* host: K, blocks per SM of the one-wave grid */
	uint32_t n_sms;		/* host: N, SMs with a rank */
	uint32_t live;		/* kernel: blocks holding a slot */
	uint32_t yields;	/* kernel: blocks that left on (n, k) */
	uint32_t no_slot;	/* kernel: blocks that found their SM full */
	uint64_t ctrl;		/* host: a place for the control word */
	uint64_t ctrl_mirror;	/* host at start, then kernel: the word as
				 * last read via ctrl_ptr */
	uint64_t refresh_at;	/* kernel: %globaltimer (ns) of that read */
	uint32_t refresh_ns;	/* host: mirror refresh interval; 0: read
				 * ctrl_ptr at every task boundary */
	uint32_t refreshes;	/* kernel: reads through ctrl_ptr */
	uint64_t last_yield_ns;	/* kernel: %globaltimer of the latest yield */
	uint64_t reserved[3];	/* zero */
	uint32_t slot_mask[GSP_PERSIST_MAX_SM];	/* kernel: by %smid */
	uint32_t sm_rank[GSP_PERSIST_MAX_SM];	/* host: %smid -> 0..N-1 */
};

/* The offsets gsp-xform writes into PTX. */
#define GSP_PERSIST_OFF_CTRL_PTR	0
#define GSP_PERSIST_OFF_NTASKS		8
#define GSP_PERSIST_OFF_NEXT_TASK	16
#define GSP_PERSIST_OFF_DONE_TASKS	24
#define GSP_PERSIST_OFF_NCTAID		32
#define GSP_PERSIST_OFF_K_SLOTS		44
#define GSP_PERSIST_OFF_N_SMS		48
#define GSP_PERSIST_OFF_LIVE		52
#define GSP_PERSIST_OFF_YIELDS		56
#define GSP_PERSIST_OFF_NO_SLOT		60
#define GSP_PERSIST_OFF_CTRL		64
#define GSP_PERSIST_OFF_CTRL_MIRROR	72
#define GSP_PERSIST_OFF_REFRESH_AT	80
#define GSP_PERSIST_OFF_REFRESH_NS	88
#define GSP_PERSIST_OFF_REFRESHES	92
#define GSP_PERSIST_OFF_LAST_YIELD_NS	96
#define GSP_PERSIST_OFF_SLOT_MASK	128
#define GSP_PERSIST_OFF_SM_RANK		(128 + 4 * GSP_PERSIST_MAX_SM)

#ifdef __cplusplus
#define GSP_PERSIST_ASSERT static_assert
#else
#define GSP_PERSIST_ASSERT _Static_assert
#endif
#define GSP_PERSIST_OFF(f) __builtin_offsetof(struct gsp_persist_ctl, f)
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(ctrl_ptr) == GSP_PERSIST_OFF_CTRL_PTR, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(ntasks) == GSP_PERSIST_OFF_NTASKS, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(next_task) == GSP_PERSIST_OFF_NEXT_TASK, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(done_tasks) == GSP_PERSIST_OFF_DONE_TASKS, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(nctaid) == GSP_PERSIST_OFF_NCTAID, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(k_slots) == GSP_PERSIST_OFF_K_SLOTS, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(n_sms) == GSP_PERSIST_OFF_N_SMS, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(live) == GSP_PERSIST_OFF_LIVE, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(yields) == GSP_PERSIST_OFF_YIELDS, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(no_slot) == GSP_PERSIST_OFF_NO_SLOT, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(ctrl) == GSP_PERSIST_OFF_CTRL, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(ctrl_mirror) == GSP_PERSIST_OFF_CTRL_MIRROR, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(refresh_at) == GSP_PERSIST_OFF_REFRESH_AT, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(refresh_ns) == GSP_PERSIST_OFF_REFRESH_NS, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(refreshes) == GSP_PERSIST_OFF_REFRESHES, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(last_yield_ns) == GSP_PERSIST_OFF_LAST_YIELD_NS, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(slot_mask) == GSP_PERSIST_OFF_SLOT_MASK, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(sm_rank) == GSP_PERSIST_OFF_SM_RANK, "ctl");
#undef GSP_PERSIST_OFF
#undef GSP_PERSIST_ASSERT

#endif /* GSP_PERSIST_H */
