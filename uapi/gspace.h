/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * gspace: GPU time sharing between latency-critical and best-effort tenants.
 *
 * This is the one ABI shared by gspace.ko (/dev/gspace), gspaced and libgsp.
 */
#ifndef _UAPI_GSPACE_H
#define _UAPI_GSPACE_H

#include <linux/types.h>
#include <linux/ioctl.h>

#if defined(__cplusplus)
extern "C" {
#endif

/**
 * DOC: General ioctl format
 *
 * Every ioctl argument is a structure whose first __u32 is @size, the
 * number of bytes userspace passes: sizeof() of the structure as userspace
 * was compiled. The structures only ever grow at the end, and a new field
 * keeps the old behaviour when it is zero. The kernel copies
 * min(@size, its own size) bytes in both directions.
 *
 * Errors common to every ioctl:
 *
 * - ENOTTY: the ioctl number is unknown.
 * - EINVAL: @size is smaller than the first version of the structure, a
 *   flag is unknown, a padding field is not zero, or a field is out of range.
 * - E2BIG: @size is larger than the kernel's structure and the bytes the
 *   kernel does not understand are not all zero.
 * - EFAULT: the argument or a pointer in it cannot be accessed.
 *
 * All structures are 8-byte aligned, padding is explicit and must be zero,
 * and pointers travel as __u64. Ioctl numbers are append-only.
 */

#define GSPACE_ABI_MAJOR	1
#define GSPACE_ABI_MINOR	6

/* Not in Documentation/userspace-api/ioctl/ioctl-number.rst: out of tree. */
#define GSPACE_IOCTL_TYPE	0xB9

/* Append only: never reorder, reuse or remove an entry. */
enum gspace_ioctl_id {
	GSPACE_CMD_VERSION = 0x00,
	GSPACE_CMD_CTX_SET,
	GSPACE_CMD_SUBMIT,
	GSPACE_CMD_WAIT,
	GSPACE_CMD_COMPLETE,
	GSPACE_CMD_CANCEL,
	GSPACE_CMD_STATS,
	GSPACE_CMD_DRM_BIND,		/* ABI 1.6 */
	GSPACE_CMD_DRM_SUBMIT,		/* ABI 1.6 */
};

/* Feature bits reported by VERSION. */
#define GSPACE_FEAT_SIM_ENGINE		(1ULL << 0)
#define GSPACE_FEAT_LEASE_ENGINE	(1ULL << 1)
#define GSPACE_FEAT_SYNC_FILE		(1ULL << 2)
#define GSPACE_FEAT_POLICY_FIFO		(1ULL << 3)
#define GSPACE_FEAT_POLICY_CREDIT	(1ULL << 4)
#define GSPACE_FEAT_POLICY_BAND		(1ULL << 5)
#define GSPACE_FEAT_LC_PRIORITY		(1ULL << 6)
#define GSPACE_FEAT_REORDER		(1ULL << 7)
#define GSPACE_FEAT_BOARD		(1ULL << 8)	/* ABI 1.1: mmap board */
#define GSPACE_FEAT_PARTITION		(1ULL << 9)	/* ABI 1.2: part_req */
#define GSPACE_FEAT_PROTECT		(1ULL << 11)	/* ABI 1.3: protect */
#define GSPACE_FEAT_LEASE_PROGRESS	(1ULL << 10)	/* ABI 1.3: renewals */
#define GSPACE_FEAT_PREEMPT		(1ULL << 12)	/* ABI 1.4: waiting */
#define GSPACE_FEAT_PART_AUTO		(1ULL << 13)	/* ABI 1.5: search, cell */
#define GSPACE_FEAT_DRM			(1ULL << 14)	/* ABI 1.6: drm engine */

/**
 * struct gspace_version - ABI version and features (GSPACE_IOCTL_VERSION)
 * @size: sizeof(struct gspace_version)
 * @flags: MBZ
 * @abi_major: out: GSPACE_ABI_MAJOR of the running arbiter
 * @abi_minor: out: GSPACE_ABI_MINOR of the running arbiter
 * @features: out: GSPACE_FEAT_* bits
 * @num_devices: out: number of devices (GPUs) served, numbered from 0
 * @lc_allowed: out: 1 if this caller may set GSPACE_CLASS_LC, else 0
 */
struct gspace_version {
	__u32 size;
	__u32 flags;
	__u32 abi_major;
	__u32 abi_minor;
	__aligned_u64 features;
	__u32 num_devices;
	__u32 lc_allowed;
};

/* Tenant classes. */
#define GSPACE_CLASS_BE		0	/* best effort, the default */
#define GSPACE_CLASS_LC		1	/* latency critical, privileged */

#define GSPACE_WEIGHT_MIN	1
#define GSPACE_WEIGHT_MAX	10000
#define GSPACE_WEIGHT_DEFAULT	100

/**
 * struct gspace_ctx_set - configure this file's tenant (GSPACE_IOCTL_CTX_SET)
 * @size: sizeof(struct gspace_ctx_set)
 * @flags: MBZ
 * @device: device the tenant's jobs run on; only changeable while the
 *	tenant has no live job (else EBUSY); ENODEV if out of range
 * @class: GSPACE_CLASS_BE or GSPACE_CLASS_LC. LC needs CAP_SYS_NICE or
 *	membership of the group the operator named in sysfs, else EPERM
 * @weight: GSPACE_WEIGHT_MIN..GSPACE_WEIGHT_MAX
 * @pad: MBZ
 * @lc_target_ns: LC only (MBZ for BE): submit-to-completion latency
 *	target; a job over it counts as a QoS violation. 0 means none.
 *
 * Every open file of /dev/gspace is one tenant: BE, weight
 * GSPACE_WEIGHT_DEFAULT, device 0 until it says otherwise.
 */
struct gspace_ctx_set {
	__u32 size;
	__u32 flags;
	__u32 device;
	__u32 class;
	__u32 weight;
	__u32 pad;
	__aligned_u64 lc_target_ns;
};

/* Engines of a device; each has its own queues and ledger. */
#define GSPACE_ENGINE_COMPUTE	0
#define GSPACE_ENGINE_COPY_H2D	1
#define GSPACE_ENGINE_COPY_D2H	2
#define GSPACE_ENGINE_COUNT	3

/* struct gspace_submit.flags */
#define GSPACE_SUBMIT_FENCE_IN	(1U << 0) /* wait for @in_fence_fd first */
#define GSPACE_SUBMIT_FENCE_OUT	(1U << 1) /* return @out_fence_fd */
#define GSPACE_SUBMIT_CHAIN	(1U << 2) /* after this tenant's previous job */
#define GSPACE_SUBMIT_TASK_HEAD	(1U << 3) /* H2D job heading a copy-in,
					   * compute, copy-out task: see
					   * @task_compute_ns
					   */
#define GSPACE_SUBMIT_FLAGS	(GSPACE_SUBMIT_FENCE_IN | \
				 GSPACE_SUBMIT_FENCE_OUT | \
				 GSPACE_SUBMIT_CHAIN | \
				 GSPACE_SUBMIT_TASK_HEAD)

#define GSPACE_COST_MAX_NS	(3600ULL * 1000000000ULL)

/**
 * struct gspace_submit - queue one job (GSPACE_IOCTL_SUBMIT)
 * @size: sizeof(struct gspace_submit)
 * @flags: GSPACE_SUBMIT_*
 * @engine: GSPACE_ENGINE_*
 * @in_fence_fd: with GSPACE_SUBMIT_FENCE_IN, a sync_file fd (else EINVAL);
 *	the job is not scheduled before it signals. If it signals with an
 *	error, the job fails with that error without running. Else MBZ.
 * @cost_ns: the job's expected GPU time, 0..GSPACE_COST_MAX_NS. The sim
 *	engine runs the job for exactly this long; policies use it as a hint.
 * @user_tag: opaque, reported back in debugfs
 * @task_compute_ns: with GSPACE_SUBMIT_TASK_HEAD (engine COPY_H2D only):
 *	expected cost of the compute job that follows; else MBZ
 * @task_d2h_ns: with GSPACE_SUBMIT_TASK_HEAD: expected cost of the
 *	copy-out job that follows; else MBZ
 * @handle: out: the job, for WAIT, COMPLETE and CANCEL; never 0
 * @out_fence_fd: out: with GSPACE_SUBMIT_FENCE_OUT, a new sync_file fd
 *	(O_CLOEXEC) that signals when the job ends; else -1
 * @pad: MBZ
 *
 * A job is queued, then running (granted), then done. GSPACE_SUBMIT_CHAIN
 * makes it wait for the end of the job this tenant submitted just before,
 * and fail with that job's error if it failed.
 * ENOSPC: the tenant has too many live jobs; EBUSY: it was marked by the
 * watchdog (see GSPACE_CTX_F_HUNG) and must be reopened.
 */
struct gspace_submit {
	__u32 size;
	__u32 flags;
	__u32 engine;
	__s32 in_fence_fd;
	__aligned_u64 cost_ns;
	__aligned_u64 user_tag;
	__aligned_u64 task_compute_ns;
	__aligned_u64 task_d2h_ns;
	__aligned_u64 handle;
	__s32 out_fence_fd;
	__u32 pad;
};

/* struct gspace_wait.flags */
#define GSPACE_WAIT_GRANTED	(1U << 0) /* return once the job runs */
#define GSPACE_WAIT_FLAGS	(GSPACE_WAIT_GRANTED)

/**
 * struct gspace_wait - wait for a job (GSPACE_IOCTL_WAIT)
 * @size: sizeof(struct gspace_wait)
 * @flags: GSPACE_WAIT_*
 * @handle: from SUBMIT
 * @deadline_ns: absolute CLOCK_MONOTONIC time to give up at; 0 polls.
 *	Absolute, so a wait interrupted by a signal restarts correctly.
 * @status: out: 0 if the job ran to completion, else the negative errno
 *	it ended with: ECANCELED (cancelled or its tenant died), ETIMEDOUT
 *	(the lease watchdog fired), or the error of its in-fence
 * @pad: MBZ
 * @gpu_ns: out: GPU time charged for the job
 * @latency_ns: out: time from SUBMIT to the end of the job
 *
 * Returns 0 once the job has ended and then forgets @handle (a second WAIT
 * gives ENOENT). With GSPACE_WAIT_GRANTED it returns 0 as soon as the job
 * runs or has ended, and keeps the handle. ETIME: @deadline_ns passed.
 * ENOENT: no such live job.
 */
struct gspace_wait {
	__u32 size;
	__u32 flags;
	__aligned_u64 handle;
	__aligned_u64 deadline_ns;
	__s32 status;
	__u32 pad;
	__aligned_u64 gpu_ns;
	__aligned_u64 latency_ns;
};

/* struct gspace_complete.flags */
#define GSPACE_COMPLETE_PROGRESS (1U << 0) /* ABI 1.3: still running, renew */
#define GSPACE_COMPLETE_FLAGS	(GSPACE_COMPLETE_PROGRESS)

/**
 * struct gspace_complete - end a leased job (GSPACE_IOCTL_COMPLETE)
 * @size: sizeof(struct gspace_complete)
 * @flags: GSPACE_COMPLETE_*
 * @handle: a running job on a lease device
 * @gpu_ns: GPU time the job used, as measured by userspace; it is charged
 *	to the tenant, less what GSPACE_COMPLETE_PROGRESS already charged
 *	for the job. At most GSPACE_COST_MAX_NS.
 * @error: 0, or a negative errno (-4095..-1) to end the job failed; MBZ
 *	with GSPACE_COMPLETE_PROGRESS
 * @pad: MBZ
 *
 * Forgets @handle, as a completing WAIT does. EINVAL: the job is not on a
 * lease device; EBUSY: it is not running yet; EALREADY: it has already
 * ended (cancelled, or the watchdog fired); ENOENT: no such live job.
 *
 * With GSPACE_COMPLETE_PROGRESS (ABI 1.3, GSPACE_FEAT_LEASE_PROGRESS) the
 * job does not end: its holder, alive and waiting for the GPU, renews the
 * lease. @gpu_ns is the GPU time the job has used so far; what it adds to
 * the most that earlier renewals reported is charged at once, so the
 * policies see a long job as it runs. The watchdog starts a new period
 * from now, and @handle stays valid. The errors are those above. A holder
 * that stops renewing is caught by the watchdog as before.
 */
struct gspace_complete {
	__u32 size;
	__u32 flags;
	__aligned_u64 handle;
	__aligned_u64 gpu_ns;
	__s32 error;
	__u32 pad;
};

/**
 * struct gspace_cancel - cancel a job (GSPACE_IOCTL_CANCEL)
 * @size: sizeof(struct gspace_cancel)
 * @flags: MBZ
 * @handle: a live job of this tenant
 *
 * A queued job (or one waiting for its in-fence) ends with ECANCELED and
 * is never run. A running job cannot be preempted: EBUSY. A job that has
 * already ended: EALREADY. The handle stays valid for WAIT.
 */
struct gspace_cancel {
	__u32 size;
	__u32 flags;
	__aligned_u64 handle;
};

/* struct gspace_stats.ctx_flags */
#define GSPACE_CTX_F_HUNG	(1U << 0) /* a leased job hit the watchdog */

/**
 * struct gspace_stats - this tenant's counters (GSPACE_IOCTL_STATS)
 * @size: sizeof(struct gspace_stats)
 * @flags: MBZ
 * @device: out: the tenant's device
 * @class: out: GSPACE_CLASS_*
 * @weight: out
 * @ctx_flags: out: GSPACE_CTX_F_*
 * @queued: out: jobs waiting (for a fence, a predecessor or the GPU)
 * @running: out: jobs running
 * @completed: out: jobs that ended, successfully or not
 * @failed: out: jobs that ended with an error
 * @qos_violations: out: LC jobs whose latency exceeded lc_target_ns
 * @gpu_ns: out: GPU time charged, per engine
 * @credit_ns: out: current credit per engine (CREDIT and BAND policies;
 *	0 under FIFO)
 * @lc_slot: out (ABI 1.1): this tenant's slot in &gspace_board.lc while
 *	its class is LC, or -1 (BE, or every slot taken)
 * @pad: out: 0
 */
struct gspace_stats {
	__u32 size;
	__u32 flags;
	__u32 device;
	__u32 class;
	__u32 weight;
	__u32 ctx_flags;
	__aligned_u64 queued;
	__aligned_u64 running;
	__aligned_u64 completed;
	__aligned_u64 failed;
	__aligned_u64 qos_violations;
	__aligned_u64 gpu_ns[GSPACE_ENGINE_COUNT];
	__s64 credit_ns[GSPACE_ENGINE_COUNT];	/* 8-aligned: follows __u64s */
	/* ABI 1.1 */
	__s32 lc_slot;
	__u32 pad;
};

/**
 * DOC: Board (ABI 1.1, GSPACE_FEAT_BOARD)
 *
 * mmap(NULL, GSPACE_BOARD_SIZE, PROT_READ, MAP_SHARED, fd, 0) maps the
 * board, one page shared by every tenant, through which LC work is seen
 * without a request:
 *
 * - The arbiter fills the header and, per device, @lc_jobs: the LC jobs
 *   submitted and not yet ended, and @waiting (ABI 1.4, below).
 * - An LC tenant owns one slot of @lc (STATS reports which). It writes
 *   @inflight (its GPU operations not yet seen done) and @stamp_ns
 *   (CLOCK_MONOTONIC of its last issue) there with plain atomic stores,
 *   without entering the kernel. The arbiter zeroes the slot when the
 *   tenant goes back to BE or its file is released, so a dead LC tenant
 *   never holds BE work back.
 * - A BE tenant reads: LC work is active on a device while a slot of that
 *   device has @inflight > 0 and is younger than @lc_max_ns, or is younger
 *   than @lc_hold_ns.
 * - @watchdog_ns (ABI 1.3, GSPACE_FEAT_LEASE_PROGRESS): the lease
 *   watchdog as the operator set it, so that a lease holder knows how
 *   often to renew (GSPACE_COMPLETE_PROGRESS). 0 from older arbiters.
 *
 * - Partition plane (ABI 1.2, GSPACE_FEAT_PARTITION): the arbiter
 *   publishes in @part_n and @part_k the partition that BE kernels give
 *   up on this device when LC work arrives (the operator's setting; 0 and
 *   0: spatial sharing off) and bumps @part_epoch when it changes.
 *   @part_req is the live request, one 64-bit word laid out as the
 *   transformed kernels' control word (GSPACE_BOARD_REQ()): bits 0-15
 *   n, 16-31 k, 32-63 an epoch bumped on every change. It holds
 *   (@part_n, @part_k) while an LC slot of the device claims it (see
 *   Protection modes; by default, while one has @inflight > 0; the whole
 *   device under PREEMPTIVE), else (0, 0). Every writer (an LC tenant when its @inflight leaves or
 *   reaches 0 or its @reserve changes; the arbiter when it gives out,
 *   clears or moves a slot, or changes the partition or @protect)
 *   recomputes it from the slots and stores it, with a new epoch even
 *   when n and k are unchanged, by a 64-bit compare-and-swap
 *   on the word it read, retrying if the word changed. So the last writer
 *   has seen every slot change that preceded it, and a dead LC tenant's
 *   request is withdrawn with its slot. BE kernels may read the word in
 *   place through a read-only device mapping of the board.
 *
 * - Protection modes (ABI 1.3, GSPACE_FEAT_PROTECT): @protect (the
 *   operator's setting, the same on every device) says which LC slots of
 *   the device claim the partition: GSPACE_PROTECT_REACTIVE (0), those
 *   with @inflight > 0; GSPACE_PROTECT_RESERVED, every slot with an
 *   @owner, in flight or not; GSPACE_PROTECT_PREDICTIVE, those with
 *   @inflight > 0 or a nonzero @reserve. An LC tenant writes @reserve:
 *   the CLOCK_MONOTONIC time (never 0) at which it raised a reservation,
 *   @predict_lead_ns before the work it expects, or 0 once that work has
 *   started or did not come. Under PREDICTIVE a BE tenant also treats LC
 *   work as active on the device while a slot of it has a @reserve
 *   younger than @lc_max_ns. The arbiter zeroes @reserve with the slot.
 *   GSPACE_PROTECT_PREEMPTIVE (ABI 1.4, GSPACE_FEAT_PREEMPT): the slots
 *   in flight claim, as under REACTIVE, but what they claim is the whole
 *   device, GSPACE_BOARD_REQ(GSPACE_PART_MAX_N, GSPACE_PART_MAX_K,
 *   epoch), not (@part_n, @part_k): every transformed BE block leaves at
 *   its next task boundary while LC work is in flight (the time plane
 *   made preemptive). A partition must still be set: with @part_n and
 *   @part_k 0 the request is (0, 0), as in every mode.
 *
 * - Waiting jobs (ABI 1.4, GSPACE_FEAT_PREEMPT): @waiting counts the jobs
 *   of the device that wait for its GSPACE_ENGINE_COMPUTE: queued in the
 *   arbiter with their dependencies met, not yet granted. A job still
 *   waiting for its in-fence or its chained predecessor is not counted
 *   until it is queued. The arbiter stores it whenever it changes (a
 *   job queued, granted, cancelled, or ended with its tenant), so a BE
 *   lease holder whose quantum is over reads, without a request, whether
 *   anyone waits for the engine: if so it makes its transformed kernels
 *   yield at their next task boundary, COMPLETEs the lease and submits
 *   again. Jobs of every tenant count, the reader's own included.
 *
 * - Partition search (ABI 1.5, GSPACE_FEAT_PART_AUTO): with the partition
 *   knob set to "auto", the arbiter publishes @part_n and @part_k 0 and in
 *   @search the method (GSPACE_SEARCH_*, the knob search) that each LC
 *   tenant's own search runs; 0 means the operator's (@part_n, @part_k).
 *   An LC tenant writes in its slot's @cell the (n, k) its search asks
 *   for, GSPACE_BOARD_REQ(n, k, 0) with k in eighths of each kernel's
 *   slots, and in @search what it is doing (GSPACE_BOARD_SEARCH()).
 *   While @search is nonzero, a claim asks for the greatest n and the
 *   greatest k of the claiming slots' cells, as a share
 *   (GSPACE_BOARD_REQ_K_EIGHTHS, below), and a claiming slot whose @cell
 *   is 0 (no search yet, or a tenant that does not search) for every
 *   slot of every SM; PREEMPTIVE still claims the whole device. The
 *   arbiter zeroes @cell and @search with the slot.
 *
 * Only an LC tenant may map it writable (PROT_WRITE, or mprotect() later);
 * anyone else gets EACCES. The mapping must be MAP_SHARED, @pgoff 0 and
 * the length at most GSPACE_BOARD_SIZE, else EINVAL. Fields are
 * naturally aligned; read and write them with single atomic loads and
 * stores.
 */
#define GSPACE_BOARD_SIZE		4096
#define GSPACE_BOARD_MAGIC		0x62707367	/* "gspb" */
#define GSPACE_BOARD_VERSION		1
#define GSPACE_BOARD_MAX_DEVICES	16
#define GSPACE_BOARD_LC_SLOTS		32

/*
 * The partition plane's limits: @part_n is 1..GSPACE_PART_MAX_N SMs and
 * @part_k 1..GSPACE_PART_MAX_K block slots per SM, or both 0 (off). They
 * are the sizes of the transformed kernels' control block
 * (GSP_PERSIST_MAX_SM and GSP_PERSIST_MAX_K in
 * libgsp/include/gsp_persist.h).
 */
#define GSPACE_PART_MAX_N		256
#define GSPACE_PART_MAX_K		32

/*
 * &gspace_board_dev.part_req: bits 0-15 n, 16-31 k, 32-63 the epoch, the
 * layout of the transformed kernels' control word. Every writer encodes
 * and decodes it with these.
 */
#define GSPACE_BOARD_REQ(n, k, epoch)					\
	(((__u64)(__u32)(epoch) << 32) |				\
	 ((__u64)((k) & 0xffffU) << 16) | ((__u64)(n) & 0xffffU))
/*
 * Under partition auto (ABI 1.5) the claim's k is a share, not a count:
 * the word's k is GSPACE_BOARD_REQ_K_EIGHTHS | k with k in
 * 1..GSPACE_PART_EIGHTHS, and a kernel of K slots an SM gives up
 * ceil(k K / 8) of them on each of the n SMs, whatever its K. An LC
 * slot's @cell holds k in eighths (1..GSPACE_PART_EIGHTHS; more counts
 * as all). The whole device (GSPACE_PART_MAX_K) stays a count.
 */
#define GSPACE_PART_EIGHTHS		8
#define GSPACE_BOARD_REQ_K_EIGHTHS	0x8000U
#define GSPACE_BOARD_REQ_N(w)		((__u32)(w) & 0xffffU)
#define GSPACE_BOARD_REQ_K(w)		((__u32)((w) >> 16) & 0xffffU)
#define GSPACE_BOARD_REQ_NK(w)		((__u32)(w))
#define GSPACE_BOARD_REQ_EPOCH(w)	((__u32)((w) >> 32))

/*
 * &gspace_board_dev.protect: when @part_req holds the partition (ABI 1.3),
 * or the whole device (PREEMPTIVE, ABI 1.4).
 */
#define GSPACE_PROTECT_REACTIVE		0	/* an LC slot in flight */
#define GSPACE_PROTECT_RESERVED		1	/* an LC slot held */
#define GSPACE_PROTECT_PREDICTIVE	2	/* in flight or reserving */
#define GSPACE_PROTECT_PREEMPTIVE	3	/* in flight; the whole GPU */
#define GSPACE_PROTECT_COUNT		4

/*
 * &gspace_board_dev.search and the knob search (ABI 1.5): the method of
 * the LC tenants' partition searches (Documentation/search.rst), 0 while
 * the partition is the operator's. NN and LR hold the model's pick; GRID
 * measures every cell of the grid, then holds the best.
 */
#define GSPACE_SEARCH_OFF		0
#define GSPACE_SEARCH_NS		1
#define GSPACE_SEARCH_GNS		2
#define GSPACE_SEARCH_SRS		3
#define GSPACE_SEARCH_NN_NS		4
#define GSPACE_SEARCH_NN_GNS		5
#define GSPACE_SEARCH_NN_SRS		6
#define GSPACE_SEARCH_NN		7
#define GSPACE_SEARCH_LR		8
#define GSPACE_SEARCH_GRID		9
#define GSPACE_SEARCH_COUNT		10

/*
 * &gspace_board_lc.search (ABI 1.5), by the tenant: bits 0-7 the method it
 * runs (GSPACE_SEARCH_*; not the board's when it lacks a model), 8-15
 * its state (GSPACE_SEARCH_STATE_*), 16-31 the cells it has measured
 * since its last restart, 32-63 the invocations it has measured in all.
 */
#define GSPACE_SEARCH_STATE_IDLE	0	/* no invocation yet */
#define GSPACE_SEARCH_STATE_SOLO	1	/* timing its solo reference */
#define GSPACE_SEARCH_STATE_RUN		2	/* measuring cells */
#define GSPACE_SEARCH_STATE_DONE	3	/* holding the chosen cell */
#define GSPACE_BOARD_SEARCH(method, state, cells, invoc)		\
	(((__u64)(__u32)(invoc) << 32) |				\
	 ((__u64)((cells) & 0xffffU) << 16) |				\
	 ((__u64)((state) & 0xffU) << 8) | ((__u64)(method) & 0xffU))
#define GSPACE_BOARD_SEARCH_METHOD(w)	((__u32)(w) & 0xffU)
#define GSPACE_BOARD_SEARCH_STATE(w)	((__u32)((w) >> 8) & 0xffU)
#define GSPACE_BOARD_SEARCH_CELLS(w)	((__u32)((w) >> 16) & 0xffffU)
#define GSPACE_BOARD_SEARCH_INVOC(w)	((__u32)((w) >> 32))

/**
 * struct gspace_board_dev - one device's part of the board
 * @lc_jobs: LC jobs submitted on the device and not yet ended
 * @part_n: partition plane: the SMs BE kernels give up
 * @part_k: block slots per such SM
 * @part_epoch: goes up by one each time @part_n or @part_k changes
 * @part_req: ABI 1.2: the live request (GSPACE_BOARD_REQ()), see above
 * @protect: ABI 1.3: GSPACE_PROTECT_*
 * @search: ABI 1.5: GSPACE_SEARCH_*, 0 unless the partition is "auto"
 * @waiting: ABI 1.4: jobs queued for the device's GSPACE_ENGINE_COMPUTE
 *	and not yet granted, see above; 0 from older arbiters
 * @reserved: 0
 *
 * Written by the arbiter; @part_req also by LC tenants, by the rule above.
 */
struct gspace_board_dev {
	__aligned_u64 lc_jobs;
	__u32 part_n;
	__u32 part_k;
	__aligned_u64 part_epoch;
	__aligned_u64 part_req;
	__u32 protect;
	__u32 search;
	__aligned_u64 waiting;
	__aligned_u64 reserved[2];
};

/**
 * struct gspace_board_lc - one LC tenant's slot of the board
 * @owner: by the arbiter: 0 while the slot is free, else the tenant's pid
 * @device: by the arbiter: the tenant's device
 * @inflight: by the tenant: its GPU operations not yet seen done
 * @stamp_ns: by the tenant: CLOCK_MONOTONIC of its last issue
 * @reserve: by the tenant (ABI 1.3): 0, or the CLOCK_MONOTONIC time at
 *	which it raised a reservation
 * @cell: by the tenant (ABI 1.5): the (n, k) its partition search asks
 *	for, GSPACE_BOARD_REQ(n, k, 0); 0: none
 * @search: by the tenant (ABI 1.5): GSPACE_BOARD_SEARCH(); 0: none
 * @reserved: 0
 */
struct gspace_board_lc {
	__u32 owner;
	__u32 device;
	__aligned_u64 inflight;
	__aligned_u64 stamp_ns;
	__aligned_u64 reserve;
	__aligned_u64 cell;
	__aligned_u64 search;
	__aligned_u64 reserved[2];
};

/**
 * struct gspace_board - the board, the page that mmap() maps
 * @magic: GSPACE_BOARD_MAGIC
 * @version: GSPACE_BOARD_VERSION
 * @num_devices: the devices served; @dev has GSPACE_BOARD_MAX_DEVICES
 * @pad: 0
 * @lc_hold_ns: a slot younger than this counts as LC work (knob lc_hold_us)
 * @lc_max_ns: a slot in flight or reserving counts as LC work only while
 *	younger than this (knob lc_max_ms)
 * @predict_lead_ns: ABI 1.3: how long before its forecast work an LC
 *	tenant reserves (knob predict_lead_us); see Protection modes
 * @watchdog_ns: ABI 1.3: the lease watchdog (knob watchdog_ms)
 * @reserved: 0
 * @dev: per device, &struct gspace_board_dev
 * @lc: the LC tenants' slots, &struct gspace_board_lc
 *
 * The header, @dev and the arbiter's fields of @lc are written by the
 * arbiter; see "Board" above for who writes what else.
 */
struct gspace_board {
	__u32 magic;
	__u32 version;
	__u32 num_devices;
	__u32 pad;
	__aligned_u64 lc_hold_ns;
	__aligned_u64 lc_max_ns;
	__aligned_u64 predict_lead_ns;
	__aligned_u64 watchdog_ns;
	__aligned_u64 reserved[3];
	struct gspace_board_dev dev[GSPACE_BOARD_MAX_DEVICES];
	struct gspace_board_lc lc[GSPACE_BOARD_LC_SLOTS];
};

/**
 * DOC: DRM engine (ABI 1.6, GSPACE_FEAT_DRM)
 *
 * A tenant binds a DRM render node, and a channel (context) of that
 * node's driver, with DRM_BIND; from then on DRM_SUBMIT takes that
 * driver's own submission (the payload: the argument of the driver's
 * submit ioctl) as a COMPUTE job of the tenant's device. gspace
 * validates the payload, queues the job under the device's policy, and
 * when the job is granted forwards the payload to the driver from a
 * kernel worker, then charges the time from the forward to the signal
 * of the driver's out-fence. The job ends, and its gspace fence
 * signals, when the driver's fence does (with its error, if any).
 *
 * VERSION reports GSPACE_FEAT_DRM while the drm engine is loaded
 * (gspace_drm.ko on gspace.ko); without it DRM_BIND and DRM_SUBMIT fail
 * with EOPNOTSUPP. Documentation/drm.rst describes the adapters and what
 * each can see.
 */

/* struct gspace_drm_bind.adapter: the driver the payloads are for. */
#define GSPACE_DRM_ADAPTER_TESTDRM	1	/* gsp-testdrm: TEST DEVICE */
#define GSPACE_DRM_ADAPTER_NOUVEAU	2	/* nouveau: EXEC, else PUSHBUF */

/* struct gspace_drm_bind.flags */
#define GSPACE_DRM_BIND_UNBIND	(1U << 0) /* drop the binding; rest MBZ */
#define GSPACE_DRM_BIND_FLAGS	(GSPACE_DRM_BIND_UNBIND)

/**
 * struct gspace_drm_bind - bind a DRM render node (GSPACE_IOCTL_DRM_BIND)
 * @size: sizeof(struct gspace_drm_bind)
 * @flags: GSPACE_DRM_BIND_*
 * @drm_fd: an open DRM render node (/dev/dri/renderD*); MBZ with
 *	GSPACE_DRM_BIND_UNBIND
 * @adapter: GSPACE_DRM_ADAPTER_*; MBZ with GSPACE_DRM_BIND_UNBIND
 * @channel: the driver's channel or context id that every payload must
 *	name (gsp-testdrm: its context, 0..15; nouveau: the channel of
 *	CHANNEL_ALLOC); MBZ with GSPACE_DRM_BIND_UNBIND
 * @pad: MBZ
 *
 * gspace keeps a reference to the DRM file while bound, so closing
 * @drm_fd does not end the binding; a new DRM_BIND replaces it, and
 * GSPACE_DRM_BIND_UNBIND or the release of the gspace file ends it.
 * A binding can change only while the tenant has no live DRM job:
 * EBUSY. Errors: EBADF, @drm_fd is not open; ENOTTY, it is not a DRM
 * device; EACCES, it is a DRM node but not a render node; ENXIO, its
 * driver is not the one @adapter serves; EINVAL, @adapter unknown or
 * @channel out of the adapter's range; EOPNOTSUPP, no drm engine loaded.
 */
struct gspace_drm_bind {
	__u32 size;
	__u32 flags;
	__s32 drm_fd;
	__u32 adapter;
	__u32 channel;
	__u32 pad;
};

/* struct gspace_drm_submit.flags: as GSPACE_SUBMIT_*, for the gspace job. */
#define GSPACE_DRM_SUBMIT_FLAGS	(GSPACE_SUBMIT_FENCE_IN | \
				 GSPACE_SUBMIT_FENCE_OUT | \
				 GSPACE_SUBMIT_CHAIN)

/* The largest payload: a driver's submit structure, not its arrays. */
#define GSPACE_DRM_PAYLOAD_MAX	256

/**
 * struct gspace_drm_submit - queue a driver submission (GSPACE_IOCTL_DRM_SUBMIT)
 * @size: sizeof(struct gspace_drm_submit)
 * @flags: GSPACE_SUBMIT_FENCE_IN, GSPACE_SUBMIT_FENCE_OUT,
 *	GSPACE_SUBMIT_CHAIN, as for SUBMIT
 * @in_fence_fd: with GSPACE_SUBMIT_FENCE_IN, a sync_file fd, as for SUBMIT;
 *	else MBZ
 * @payload_size: bytes at @payload_ptr: the size of the driver's submit
 *	structure as the adapter knows it (Documentation/drm.rst), at most
 *	GSPACE_DRM_PAYLOAD_MAX (else E2BIG)
 * @payload_ptr: the driver's submit structure, copied at DRM_SUBMIT. It
 *	must name the bound channel and an out syncobj of the bound file.
 *	Pointers inside it are read by the driver when the job is forwarded,
 *	in the address space of the process that made the binding
 * @cost_ns: the expected GPU time, 0..GSPACE_COST_MAX_NS: a hint for the
 *	policies, as for SUBMIT; what is charged is measured
 * @user_tag: opaque, reported back in debugfs
 * @handle: out: the job, for WAIT and CANCEL; never 0
 * @out_fence_fd: out: with GSPACE_SUBMIT_FENCE_OUT, a new sync_file fd
 *	that signals when the job ends; else -1
 * @pad: MBZ
 *
 * The job is a COMPUTE job of the tenant's device, scheduled as any
 * other. COMPLETE does not apply to it (EINVAL); CANCEL works until it is
 * granted (then EBUSY). WAIT's gpu_ns is the time from the forward to the signal of
 * the driver's out-fence. If the driver refuses the forwarded payload,
 * the job ends with the driver's error. Errors at DRM_SUBMIT: ENOLINK,
 * the tenant has no binding; EINVAL, the payload's layout is wrong (its
 * own size field, unknown flags, nonzero padding, another channel);
 * ENOENT, a handle in it does not exist in the bound file; E2BIG and
 * EFAULT as above; then those of SUBMIT.
 */
struct gspace_drm_submit {
	__u32 size;
	__u32 flags;
	__s32 in_fence_fd;
	__u32 payload_size;
	__aligned_u64 payload_ptr;
	__aligned_u64 cost_ns;
	__aligned_u64 user_tag;
	__aligned_u64 handle;
	__s32 out_fence_fd;
	__u32 pad;
};

#define GSPACE_IOCTL_VERSION	_IO(GSPACE_IOCTL_TYPE, GSPACE_CMD_VERSION)
#define GSPACE_IOCTL_CTX_SET	_IO(GSPACE_IOCTL_TYPE, GSPACE_CMD_CTX_SET)
#define GSPACE_IOCTL_SUBMIT	_IO(GSPACE_IOCTL_TYPE, GSPACE_CMD_SUBMIT)
#define GSPACE_IOCTL_WAIT	_IO(GSPACE_IOCTL_TYPE, GSPACE_CMD_WAIT)
#define GSPACE_IOCTL_COMPLETE	_IO(GSPACE_IOCTL_TYPE, GSPACE_CMD_COMPLETE)
#define GSPACE_IOCTL_CANCEL	_IO(GSPACE_IOCTL_TYPE, GSPACE_CMD_CANCEL)
#define GSPACE_IOCTL_STATS	_IO(GSPACE_IOCTL_TYPE, GSPACE_CMD_STATS)
#define GSPACE_IOCTL_DRM_BIND	_IO(GSPACE_IOCTL_TYPE, GSPACE_CMD_DRM_BIND)
#define GSPACE_IOCTL_DRM_SUBMIT	_IO(GSPACE_IOCTL_TYPE, GSPACE_CMD_DRM_SUBMIT)

#if defined(__cplusplus)
}
#endif

#endif /* _UAPI_GSPACE_H */
