/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The ABI of kernels that gsp-xform turned into persistent, SM-aware,
 * yieldable form (Documentation/xform.rst), version 7. Shared by the
 * transformer (libgsp/xform), which bakes the offsets below into the PTX
 * it writes, and by whoever launches a transformed kernel (the interposer,
 * the GPU harness). Plain C, also valid CUDA C++.
 *
 * A transformed entry NAME__gsp takes NAME's parameters followed by one
 * struct gsp_persist_job, by value. Launch it with NAME's block dims and
 * dynamic shared memory and a one-wave grid of N x K blocks, N = the SM
 * count, K = the occupancy of NAME__gsp itself (it can differ from NAME's:
 * cuOccupancyMaxActiveBlocksPerMultiprocessor on NAME__gsp, at most
 * GSP_PERSIST_MAX_K). Each block:
 *
 *   1. claims the lowest free slot of its SM (bit in sm[%smid].slot_mask);
 *      slot >= K, or %smid >= GSP_PERSIST_MAX_SM: it leaves at once;
 *   2. at every batch boundary looks at the control word (n, k, epoch):
 *      if sm[%smid].sm_rank < n and slot >= K - k it yields (k > K:
 *      every slot of those SMs; k with GSP_PERSIST_CTRL_EIGHTHS set is
 *      a share, ceil((k & ~GSP_PERSIST_CTRL_EIGHTHS) K / 8) slots). The
 *      word comes from a copy that carries the time the word was read
 *      over the bus and is used while younger than copy_ns: the block's
 *      own copy, else its SM's copy (sm[%smid].word, .stamp), else
 *      ctrl_mirror (.refresh_at), copied into the SM's copy by the one
 *      block of the SM that wins an atom.cas on sm[%smid].stamp (odd
 *      while it refreshes). When the mirror is older than refresh_ns,
 *      that block first reads ctrl_ptr (mapped host memory, over the
 *      bus) itself if it wins an atom.cas on refresh_claim and nobody
 *      claimed a read within refresh_ns. A block that finds no copy
 *      younger than copy_ns uses the old word once and looks again at
 *      its next boundary. So a boundary acts on a word at most copy_ns
 *      old, but for those; the copies are caches kept across jobs. The
 *      first boundary of a primary block is one of those: it acts on
 *      job.word, the word the launcher read when it launched, and looks
 *      for a fresh one at its next boundary, so no bus read delays a
 *      job's first tasks. A top-up's block, which may have been queued
 *      for a free slot since its launch, takes its SM's copy instead
 *      where that is younger than copy_ns. Every read through ctrl_ptr
 *      also reads the launcher's override word, *ovr_ptr (same layout),
 *      where ovr_ptr is not 0; if its (n, k) is not (0, 0) it replaces
 *      the board's word, epoch included, in every copy (mirror, SM's,
 *      block's): one process can make its own blocks yield while the
 *      board asks nothing of it. A launcher that sets the override must
 *      expect its blocks to act on it within copy_ns (after the batch
 *      they run), as on any change of the word; job.word is the word it
 *      read, the override where that is set;
 *   3. else claims a batch of B consecutive tasks with one atom.add on
 *      next_task (B adapts per block so that a batch lasts about batch_ns;
 *      batch_ns = 0: B = 1) and runs them; it does not yield inside a
 *      batch, so a claimed task is always run;
 *   4. runs NAME's body once per task t with %ctaid = (t % nx, t / nx % ny,
 *      t / (nx ny)) and %nctaid = (nx, ny, nz); a return ends the task,
 *      not the block;
 *   5. when no task is left, or on a yield, adds the tasks it ran to
 *      done_tasks, clears its slot bit and leaves; with GSP_PERSIST_LINGER,
 *      a block with no task left first waits until done_tasks reaches
 *      ntasks (it holds its slot until the job's last task has run, so
 *      that no other kernel's block lands beside that task).
 *
 * Stream order. A launch with GSP_PERSIST_PRIMARY is the job's own (the
 * one in the application's stream); top-ups are not. Nothing after the
 * job on that stream may start while a task of the job may still run in
 * a top-up. Two ways, chosen per launch:
 *
 *   - kept (GSP_PERSIST_PRIMARY alone): the primary's blocks count
 *     themselves in primary_live and the last one out waits until
 *     done_tasks == ntasks. The last primary block also never yields
 *     while tasks remain: it pauses (holding its slot, taking no task)
 *     until the word no longer asks it to leave. So a job always
 *     completes, even if no top-up is ever launched, and (N, K) leaves
 *     one slot to it;
 *   - waited (GSP_PERSIST_PRIMARY | GSP_PERSIST_WAITED): the launcher
 *     puts a waiter right behind the launch on its stream, one warp of a
 *     kernel that waits (acquire loads) until done_tasks >= ntasks. The
 *     primary's blocks then act as a top-up's do: none keeps a slot or
 *     waits, so (N, K) leaves the SMs empty; the job completes only
 *     through top-ups once slots are given back, which the launcher must
 *     then launch. Not a stream memory wait (cuStreamWaitValue64): that
 *     stalls the hardware queue it is in, and a top-up queued behind it
 *     in the same queue would never start.
 *
 * Starting a job: zero the first GSP_PERSIST_RESET_BYTES of its ctl (one
 * cuMemsetD32Async on the launch's stream, before the launch). When the
 * ctl is made, zero all of it and fill sm[].sm_rank and ovr_ptr; the rest
 * of it needs nothing per job: slot_mask is all zero whenever no launch of
 * the ctl runs, and the word's copies are only ever as old as their stamps
 * say.
 * Top-up: launch NAME__gsp again with the same parameters and ctl, flags
 * without GSP_PERSIST_PRIMARY, no reset, on another stream, while the
 * primary runs: its blocks fill the slots that yields freed and continue
 * the same task sequence; blocks that find their SM full or no task left
 * leave at once. A launcher that changes the word and tops up at once
 * writes the new word into ctrl_mirror and zeroes every sm[].stamp (one
 * cuMemsetD2D32Async from sm[0].stamp: pitch 32 bytes, 2 words wide,
 * GSP_PERSIST_MAX_SM rows) before the top-up; else a newcomer may act on
 * its SM's copy up to copy_ns old (it then holds a slot the word frees
 * and leaves at its first boundary: a stale word costs a slot, never a
 * task). All launches of a ctl use one ctrl_ptr: the copies do not know
 * where their word came from. A ctl may be reused only after its primary
 * and every top-up of it have completed.
 *
 * Module variables. The module reaches each module-scope .global variable
 * V that its instructions name through ".const .u64 V" GSP_PERSIST_REF_SUFFIX,
 * initialized to its own V; a launcher that runs the transformed kernels
 * beside another module's (the program's) binds it to that module's V
 * before the JIT (gsp_xform_bind()), so that both use one V.
 */
#ifndef GSP_PERSIST_H
#define GSP_PERSIST_H

#include <stdint.h>

#define GSP_PERSIST_VERSION	7
#define GSP_PERSIST_SUFFIX	"__gsp"	/* NAME -> NAME__gsp */
#define GSP_PERSIST_REF_SUFFIX	"__gsp_ref"	/* .global V -> .const .u64 V__gsp_ref */
#define GSP_PERSIST_MAX_SM	256	/* slot_mask/sm_rank entries, by %smid */
#define GSP_PERSIST_MAX_K	32	/* slot_mask is 32 bits wide */
#define GSP_PERSIST_NO_RANK	0xffffffffu	/* sm_rank of an unused %smid */

/*
 * The control word: (n, k, epoch) in one 64-bit word, so that one aligned
 * load sees a consistent triple; written with one 64-bit store or CAS.
 * n: SMs (by rank) that give up slots; k: slots each of them gives up;
 * epoch: bumped by the writer on every change (the kernel ignores it).
 * The board's partition request word (uapi/gspace.h) has this layout, so
 * a kernel may read it in place.
 */
#define GSP_PERSIST_CTRL(n, k, epoch)				\
	(((uint64_t)(uint32_t)(epoch) << 32) |			\
	 ((uint64_t)((k) & 0xffffu) << 16) | ((uint64_t)(n) & 0xffffu))
#define GSP_PERSIST_CTRL_N(w)		((uint32_t)(w) & 0xffffu)
#define GSP_PERSIST_CTRL_K(w)		((uint32_t)((w) >> 16) & 0xffffu)
#define GSP_PERSIST_CTRL_EPOCH(w)	((uint32_t)((w) >> 32))
/* In k: a share of the kernel's K in eighths (uapi's partition auto). */
#define GSP_PERSIST_CTRL_EIGHTHS	0x8000u

/* The slots of @kslots an SM gives up under the word's k field @k. */
static inline uint32_t gsp_persist_ctrl_slots(uint32_t k, uint32_t kslots)
{
	if (k & GSP_PERSIST_CTRL_EIGHTHS)
		k = ((k & ~GSP_PERSIST_CTRL_EIGHTHS) * kslots + 7) / 8;
	return k < kslots ? k : kslots;
}

/* Defaults that keep the bus quiet and boundaries fresh. */
#define GSP_PERSIST_REFRESH_NS	5000u
#define GSP_PERSIST_COPY_NS	20000u
#define GSP_PERSIST_BATCH_NS	16000u
#define GSP_PERSIST_MAX_BATCH	32u

/* struct gsp_persist_job.flags */
#define GSP_PERSIST_PRIMARY	(1u << 0)	/* the job's own launch */
#define GSP_PERSIST_WAITED	(1u << 1)	/* its stream waits (above) */
#define GSP_PERSIST_LINGER	(1u << 2)	/* 5.: hold the slot to the end */

/*
 * The last parameter of NAME__gsp, by value (.param .align 8 .b8
 * NAME__gsp_param_job[64] in PTX). Set by the launcher for every launch;
 * the kernel only reads it.
 */
struct gsp_persist_job {
	uint64_t ctl;		/* device address of the job's gsp_persist_ctl */
	uint64_t ctrl_ptr;	/* device address of the control word */
	uint64_t ntasks;	/* nctaid.x * nctaid.y * nctaid.z */
	uint32_t nctaid[3];	/* the original grid */
	uint32_t k_slots;	/* K, blocks per SM of the one-wave grid */
	uint32_t refresh_ns;	/* see 2. above; 0: read ctrl_ptr every time */
	uint32_t batch_ns;	/* see 3. above; 0: one task per claim */
	uint32_t flags;		/* GSP_PERSIST_* */
	uint32_t copy_ns;	/* see 2.; below refresh_ns: refresh_ns */
	uint64_t word;		/* the control word at the launch (2.) */
};

/*
 * One SM's record, by %smid: its slot bits, its rank, and its copy of the
 * control word with the %globaltimer (ns) of the copy (0: never). 32
 * bytes, so that four SMs share an L2 line, not thirty-two.
 */
struct gsp_persist_sm {
	uint32_t slot_mask;	/* kernel: bit s = slot s held; 0 between jobs */
	uint32_t sm_rank;	/* launcher: %smid -> 0..N-1 */
	uint64_t pad;
	uint64_t word;		/* kernel: the copy of the word */
	uint64_t stamp;		/* kernel: its refresh_at; 0: never; odd: being refreshed */
};

/*
 * Per job, in device memory (cuMemAlloc, 128-byte aligned, zeroed when it
 * is made). Each hot field has a 128-byte line of its own, so that claims,
 * counter updates and word reads of a thousand blocks do not queue behind
 * each other in one L2 slice. The first GSP_PERSIST_RESET_BYTES are the
 * job's; the rest outlives jobs (caches of the word, and the launcher's
 * override pointer and ranks).
 */
struct gsp_persist_ctl {
	uint64_t next_task;	/* line 0: the next task to hand out */
	uint64_t pad0[15];
	uint64_t done_tasks;	/* line 1: tasks finished, added per block */
	uint64_t pad1[15];
	uint32_t live;		/* line 2: blocks holding a slot */
	uint32_t primary_live;	/* of them, from the primary launch */
	uint64_t pad2[15];
	uint64_t last_yield_ns;	/* line 3: %globaltimer of the latest yield */
	uint32_t yields;	/* blocks that left on (n, k) */
	uint32_t no_slot;	/* blocks that found their SM full */
	uint32_t refreshes;	/* reads through ctrl_ptr */
	uint32_t pauses;	/* pause loops of the last primary block */
	uint64_t pad3[13];
	uint64_t ctrl_mirror;	/* line 4: the word last read via ctrl_ptr (2.) */
	uint64_t refresh_at;	/* %globaltimer (ns, even) before that read */
	uint64_t refresh_claim;	/* %globaltimer of the last claim to read */
	uint64_t ovr_ptr;	/* launcher: the override word (2.); 0: none */
	uint64_t pad4[12];
	struct gsp_persist_sm sm[GSP_PERSIST_MAX_SM];
};

/* Zeroed at the start of every job: lines 0 to 3. */
#define GSP_PERSIST_RESET_BYTES		512

/* The offsets gsp-xform writes into PTX. */
#define GSP_PERSIST_JOB_SIZE		64
#define GSP_PERSIST_JOB_CTL		0
#define GSP_PERSIST_JOB_CTRL_PTR	8
#define GSP_PERSIST_JOB_NTASKS		16
#define GSP_PERSIST_JOB_NCTAID		24
#define GSP_PERSIST_JOB_K_SLOTS		36
#define GSP_PERSIST_JOB_REFRESH_NS	40
#define GSP_PERSIST_JOB_BATCH_NS	44
#define GSP_PERSIST_JOB_FLAGS		48
#define GSP_PERSIST_JOB_COPY_NS		52
#define GSP_PERSIST_JOB_WORD		56
#define GSP_PERSIST_OFF_NEXT_TASK	0
#define GSP_PERSIST_OFF_DONE_TASKS	128
#define GSP_PERSIST_OFF_LIVE		256
#define GSP_PERSIST_OFF_PRIMARY_LIVE	260
#define GSP_PERSIST_OFF_LAST_YIELD_NS	384
#define GSP_PERSIST_OFF_YIELDS		392
#define GSP_PERSIST_OFF_NO_SLOT		396
#define GSP_PERSIST_OFF_REFRESHES	400
#define GSP_PERSIST_OFF_PAUSES		404
#define GSP_PERSIST_OFF_CTRL_MIRROR	512
#define GSP_PERSIST_OFF_REFRESH_AT	520
#define GSP_PERSIST_OFF_REFRESH_CLAIM	528
#define GSP_PERSIST_OFF_OVR_PTR		536
#define GSP_PERSIST_OFF_SM		640	/* sm[0] */
#define GSP_PERSIST_SM_SIZE		32
#define GSP_PERSIST_SM_SLOT_MASK	0	/* within a record */
#define GSP_PERSIST_SM_RANK		4
#define GSP_PERSIST_SM_WORD		16
#define GSP_PERSIST_SM_STAMP		24
#define GSP_PERSIST_CTL_SIZE		(640 + 32 * GSP_PERSIST_MAX_SM)

#ifdef __cplusplus
#define GSP_PERSIST_ASSERT static_assert
#else
#define GSP_PERSIST_ASSERT _Static_assert
#endif
#define GSP_PERSIST_JOFF(f) __builtin_offsetof(struct gsp_persist_job, f)
#define GSP_PERSIST_OFF(f) __builtin_offsetof(struct gsp_persist_ctl, f)
GSP_PERSIST_ASSERT(sizeof(struct gsp_persist_job) == GSP_PERSIST_JOB_SIZE, "job");
GSP_PERSIST_ASSERT(GSP_PERSIST_JOFF(ctl) == GSP_PERSIST_JOB_CTL, "job");
GSP_PERSIST_ASSERT(GSP_PERSIST_JOFF(ctrl_ptr) == GSP_PERSIST_JOB_CTRL_PTR, "job");
GSP_PERSIST_ASSERT(GSP_PERSIST_JOFF(ntasks) == GSP_PERSIST_JOB_NTASKS, "job");
GSP_PERSIST_ASSERT(GSP_PERSIST_JOFF(nctaid) == GSP_PERSIST_JOB_NCTAID, "job");
GSP_PERSIST_ASSERT(GSP_PERSIST_JOFF(k_slots) == GSP_PERSIST_JOB_K_SLOTS, "job");
GSP_PERSIST_ASSERT(GSP_PERSIST_JOFF(refresh_ns) == GSP_PERSIST_JOB_REFRESH_NS, "job");
GSP_PERSIST_ASSERT(GSP_PERSIST_JOFF(batch_ns) == GSP_PERSIST_JOB_BATCH_NS, "job");
GSP_PERSIST_ASSERT(GSP_PERSIST_JOFF(flags) == GSP_PERSIST_JOB_FLAGS, "job");
GSP_PERSIST_ASSERT(GSP_PERSIST_JOFF(copy_ns) == GSP_PERSIST_JOB_COPY_NS, "job");
GSP_PERSIST_ASSERT(GSP_PERSIST_JOFF(word) == GSP_PERSIST_JOB_WORD, "job");
GSP_PERSIST_ASSERT(sizeof(struct gsp_persist_ctl) == GSP_PERSIST_CTL_SIZE, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(next_task) == GSP_PERSIST_OFF_NEXT_TASK, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(ctrl_mirror) == GSP_PERSIST_OFF_CTRL_MIRROR, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(refresh_at) == GSP_PERSIST_OFF_REFRESH_AT, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(refresh_claim) == GSP_PERSIST_OFF_REFRESH_CLAIM, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(ovr_ptr) == GSP_PERSIST_OFF_OVR_PTR, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(done_tasks) == GSP_PERSIST_OFF_DONE_TASKS, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(last_yield_ns) == GSP_PERSIST_OFF_LAST_YIELD_NS, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(live) == GSP_PERSIST_OFF_LIVE, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(primary_live) == GSP_PERSIST_OFF_PRIMARY_LIVE, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(yields) == GSP_PERSIST_OFF_YIELDS, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(no_slot) == GSP_PERSIST_OFF_NO_SLOT, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(refreshes) == GSP_PERSIST_OFF_REFRESHES, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(pauses) == GSP_PERSIST_OFF_PAUSES, "ctl");
GSP_PERSIST_ASSERT(GSP_PERSIST_OFF(sm) == GSP_PERSIST_OFF_SM, "ctl");
GSP_PERSIST_ASSERT(sizeof(struct gsp_persist_sm) == GSP_PERSIST_SM_SIZE, "sm");
GSP_PERSIST_ASSERT(__builtin_offsetof(struct gsp_persist_sm, slot_mask) ==
		   GSP_PERSIST_SM_SLOT_MASK, "sm");
GSP_PERSIST_ASSERT(__builtin_offsetof(struct gsp_persist_sm, sm_rank) ==
		   GSP_PERSIST_SM_RANK, "sm");
GSP_PERSIST_ASSERT(__builtin_offsetof(struct gsp_persist_sm, word) ==
		   GSP_PERSIST_SM_WORD, "sm");
GSP_PERSIST_ASSERT(__builtin_offsetof(struct gsp_persist_sm, stamp) ==
		   GSP_PERSIST_SM_STAMP, "sm");
#undef GSP_PERSIST_OFF
#undef GSP_PERSIST_JOFF
#undef GSP_PERSIST_ASSERT

#endif /* GSP_PERSIST_H */
