/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gspace.ko private definitions.
 */
#ifndef _GSP_DRV_H
#define _GSP_DRV_H

#include <linux/atomic.h>
#include <linux/dma-fence.h>
#include <linux/hrtimer.h>
#include <linux/kref.h>
#include <linux/llist.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/uidgid.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "gspace.h"
#include "core/gsp_arbiter.h"
#include "core/gsp_knobs.h"

#define DRIVER_NAME		"gspace"

/* Devices are preallocated; sim_devices + lease_devices says how many exist. */
#define GSP_MAX_DEVICES		16

enum gsp_backend {
	GSP_BACKEND_SIM,	/* hrtimer runs each job for its cost hint */
	GSP_BACKEND_LEASE,	/* userspace runs it, then COMPLETE */
};

/*
 * A DRM_SUBMIT job runs on the drm engine whatever its device's backend:
 * gsp_kjob.drm says so (Documentation/drm.rst).
 */

/**
 * DOC: Locking
 *
 * Lock order, outermost first:
 *
 * 1. &gspace.cfg_rwsem: knobs and device counts. SUBMIT and CTX_SET take it
 *    for reading; sysfs writes take it for writing.
 * 2. &gsp_ctx.lock (mutex): a tenant's configuration and device binding.
 * 3. &gsp_device.lock (spinlock, BH): the scheduler core, the engines and
 *    the state of every job on that device. Taken from process context,
 *    from hrtimer soft callbacks and from the dependency worker.
 * 4. &gsp_device.fence_lock: the lock of every fence the device signals.
 *
 * Fence callbacks never take a gspace lock: they push the job onto the
 * device's lock-free ready list and let the worker enqueue it, because a
 * callback can run inside dma_fence_signal() with another device's lock,
 * or our own, already held.
 */

struct gsp_device;
struct gsp_drm_bind;
struct gsp_drm_job;
struct gsp_drm_provider;
struct gsp_kjob;

/**
 * struct gsp_dev_engine - one engine of one device
 * @gdev: owning device
 * @id: GSP_ENGINE_*
 * @running: the job on the engine, or NULL. Protected by &gsp_device.lock.
 * @deadline_ns: when @timer's job is due (sim end, or lease watchdog).
 *	Protected by &gsp_device.lock; a stale timer callback compares it.
 * @held: a drm job that ended (its tenant died) while the driver still
 *	runs its forwarded payload, with a reference: the engine grants
 *	nothing until the driver's fence signals or @deadline_ns passes.
 *	Protected by &gsp_device.lock.
 * @timer: ends the sim job, or fires the lease or drm watchdog
 * @retry: calls the scheduler again when BAND held the engine idle
 */
struct gsp_dev_engine {
	struct gsp_device *gdev;
	u32 id;
	struct gsp_kjob *running;
	struct gsp_kjob *held;
	u64 deadline_ns;
	struct hrtimer timer;
	struct hrtimer retry;
};

/**
 * struct gsp_device - one GPU, simulated or leased
 * @index: device number, as in struct gspace_ctx_set.device
 * @backend: GSP_BACKEND_*. Written under &gspace.cfg_rwsem (write) while no
 *	job exists; read under &gspace.cfg_rwsem or @lock.
 * @lock: see DOC: Locking
 * @sched: the policy. Protected by @lock.
 * @eng: the engines
 * @fence_lock: lock of the fences of this device's jobs
 * @ready: jobs whose last dependency signalled, for @ready_work
 * @ready_work: moves @ready jobs into the scheduler
 * @lc_live: LC jobs submitted and not ended, published on the board.
 *	Protected by @lock.
 * @waiting: jobs queued for the compute engine and not yet granted, as
 *	last published on the board (dev[].waiting); @sched holds the
 *	count itself. Protected by @lock.
 */
struct gsp_device {
	u32 index;
	enum gsp_backend backend;
	spinlock_t lock;
	struct gsp_sched sched;
	struct gsp_dev_engine eng[GSP_ENGINE_COUNT];
	spinlock_t fence_lock;
	struct llist_head ready;
	struct work_struct ready_work;
	u64 lc_live;
	u64 waiting;
};

/**
 * struct gspace - the driver: one /dev/gspace serving several devices
 * @misc: /dev/gspace
 * @cfg_rwsem: see DOC: Locking
 * @params: scheduler tunables shared by all devices. Protected by @cfg_rwsem.
 * @watchdog_ns: lease watchdog. Protected by @cfg_rwsem; READ_ONCE() in
 *	atomic context, where a stale value only shifts one deadline.
 * @nr_sim: sim devices, numbered first. Protected by @cfg_rwsem.
 * @nr_lease: lease devices, numbered after them. Protected by @cfg_rwsem.
 * @lc_gid: group allowed to become LC, or INVALID_GID. Protected by @cfg_rwsem.
 * @max_jobs: knob tenant_max_jobs. Written under @cfg_rwsem (write) with
 *	WRITE_ONCE(); read with READ_ONCE(), as every limit below.
 * @max_fences: knob tenant_max_fences
 * @max_waits: knob tenant_max_waits
 * @max_uid_tenants: knob uid_max_tenants
 * @ctx_lock: protects @contexts and @uid_tenants
 * @contexts: every open tenant, for debugfs
 * @uid_tenants: __kuid_val() -> xa_mk_value(open tenants of that uid), an
 *	entry only while the count is not 0. Protected by @ctx_lock.
 * @nr_ctx: live tenant objects, for leak checks
 * @nr_jobs: live job objects
 * @nr_fences: live fence objects, which may outlive their job and file
 * @debugfs: gspace's debugfs folder
 * @board_page: the board (uapi DOC: Board), mapped by tenants
 * @board: its kernel address; fields written with WRITE_ONCE()
 * @board_lock: protects @board_slots and the slots' ownership. Innermost:
 *	nests inside &gsp_ctx.lock, taken from process context only.
 * @board_slots: LC slots in use
 * @part_n: the partition plane's n, for every device (0: off). Written
 *	under @cfg_rwsem, read with READ_ONCE(): the board's copy is
 *	writable by LC tenants, this one is not.
 * @part_k: its k, likewise
 * @protect: the protection mode, GSPACE_PROTECT_*, for every device.
 *	Likewise.
 * @part_auto: the partition is "auto": each LC tenant's search asks for
 *	its cell (uapi DOC: Board, "Partition search"). Likewise.
 * @search: the searches' method, GSPACE_SEARCH_NS.._GRID (knob search).
 *	Likewise; the board's dev[].search is it while @part_auto, else 0.
 * @dev: the devices
 */
struct gspace {
	struct miscdevice misc;
	struct rw_semaphore cfg_rwsem;
	struct gsp_params params;
	u64 watchdog_ns;
	u32 nr_sim;
	u32 nr_lease;
	kgid_t lc_gid;
	u32 max_jobs;
	u32 max_fences;
	u32 max_waits;
	u32 max_uid_tenants;
	struct mutex ctx_lock;
	struct list_head contexts;
	struct xarray uid_tenants;
	atomic_t nr_ctx;
	atomic_t nr_jobs;
	atomic_t nr_fences;
	struct dentry *debugfs;
	struct page *board_page;
	struct gspace_board *board;
	spinlock_t board_lock;
	DECLARE_BITMAP(board_slots, GSPACE_BOARD_LC_SLOTS);
	u32 part_n;
	u32 part_k;
	u32 protect;
	bool part_auto;
	u32 search;
	struct gsp_device dev[GSP_MAX_DEVICES];
};

/*
 * The one driver instance. Global because a misc device is a singleton and
 * fences, which can outlive every file, count themselves in it.
 */
extern struct gspace *gsp_drv;

/**
 * struct gsp_ctx - a tenant: one open file of /dev/gspace
 * @ref: held by the file and by each job
 * @lock: see DOC: Locking
 * @gdev: bound device. Written under @lock and &gsp_device.lock while the
 *	tenant has no live job; read under either.
 * @class: GSPACE_CLASS_*. Written under @lock with WRITE_ONCE(); mmap
 *	reads it locklessly.
 * @lc_slot: its board slot while LC, or -1. Protected by @lock.
 * @weight: Protected by @lock.
 * @lc_target_ns: Protected by @lock.
 * @ent: the tenant in @gdev's scheduler. Protected by &gsp_device.lock.
 * @jobs: handle -> struct gsp_kjob, holding one reference each
 * @next_handle: cursor of the cyclic handle allocator; under @jobs' lock
 * @nr_held: jobs published in @jobs and not yet reaped, against
 *	tenant_max_jobs. Atomic: SUBMIT adds under @lock, reaping takes
 *	under @jobs' lock.
 * @nr_fences: fences held for the tenant, against tenant_max_fences: an
 *	out-fence until its job ends, an in-fence until it signals or its
 *	callback is removed. Atomic: fence callbacks drop theirs under a
 *	foreign fence's lock, where no gspace lock may be taken.
 * @nr_waits: WAITs of the tenant asleep, against tenant_max_waits. Atomic.
 * @last: the last job submitted, for GSPACE_SUBMIT_CHAIN, with a reference
 *	on its fence. Protected by @lock.
 * @wq: woken whenever one of this tenant's jobs changes state
 * @hung: a leased job hit the watchdog. Protected by &gsp_device.lock.
 * @acct: job counters, kept by the core (gsp_ajob_*()). Protected by
 *	&gsp_device.lock.
 * @node: in &gspace.contexts
 * @pid: opener, for debugfs
 * @uid: opener's effective uid, counted in &gspace.uid_tenants from open
 *	to release. Fixed.
 * @drm_bind: the DRM render node DRM_BIND bound, with a reference, or
 *	NULL. Protected by @lock.
 */
struct gsp_ctx {
	struct kref ref;
	struct mutex lock;
	struct gsp_device *gdev;
	u32 class;
	int lc_slot;
	u32 weight;
	u64 lc_target_ns;
	struct gsp_entity ent;
	struct xarray jobs;
	u32 next_handle;
	atomic_t nr_held;
	atomic_t nr_fences;
	atomic_t nr_waits;
	struct dma_fence *last;
	wait_queue_head_t wq;
	bool hung;
	struct gsp_tenant_acct acct;
	struct list_head node;
	pid_t pid;
	kuid_t uid;
	struct gsp_drm_bind *drm_bind;
};

/* Dependencies: one per in-fence, one for the chained predecessor. */
#define GSP_JOB_MAX_DEPS	2

/**
 * struct gsp_dep - a dependency of a job
 * @job: the job that waits
 * @fence: what it waits for; the dependency holds a reference
 * @cb: on @fence until it signals or the tenant goes
 * @charged: an in-fence, counted in &gsp_ctx.nr_fences until @cb runs or
 *	is removed. Fixed before @cb is added.
 */
struct gsp_dep {
	struct gsp_kjob *job;
	struct dma_fence *fence;
	struct dma_fence_cb cb;
	bool charged;
};

/**
 * struct gsp_kjob - a job: the core's view plus its life in the kernel
 * @base: the core's view. Protected by &gsp_device.lock.
 * @ref: held by the handle table, by waiters and by pending dependencies
 * @ctx: owner, referenced
 * @gdev: device, fixed at submit
 * @fence: ends when the job ends; the job holds a reference
 * @handle: index in &gsp_ctx.jobs
 * @out_fence: SUBMIT made a sync_file of @fence: counted in
 *	&gsp_ctx.nr_fences until the job ends. Written before the job is
 *	published, read under &gsp_device.lock.
 * @state: GSP_AJOB_*. Written under &gsp_device.lock; waiters read it with
 *	smp_load_acquire(), which makes @acct's results visible once DONE.
 * @acct: what the core keeps of the job (LC target, times, status, GPU
 *	time). Written under &gsp_device.lock; read by WAIT once @state is
 *	DONE.
 * @pending: dependencies not yet signalled, plus one while submitting
 * @dep_error: first error a dependency signalled
 * @deps: dependency callbacks
 * @ready_node: in &gsp_device.ready
 * @drm: a DRM_SUBMIT job's payload and forwarding state, or NULL. Fixed
 *	at submit; freed with the job.
 */
struct gsp_kjob {
	struct gsp_job base;
	struct kref ref;
	struct gsp_ctx *ctx;
	struct gsp_device *gdev;
	struct dma_fence *fence;
	u32 handle;
	bool out_fence;
	enum gsp_ajob_state state;
	struct gsp_job_acct acct;
	atomic_t pending;
	int dep_error;
	struct gsp_dep deps[GSP_JOB_MAX_DEPS];
	struct llist_node ready_node;
	struct gsp_drm_job *drm;
};

/**
 * struct gsp_drm_bind - a tenant's DRM binding
 * @ref: held by the tenant while bound and by each of its drm jobs
 * @prov: the provider that made it, its module pinned until release
 * @priv: the provider's binding
 * @dead: unbound or replaced: jobs not yet forwarded end with ENOLINK.
 *	Written under &gsp_ctx.lock, read with READ_ONCE().
 * @release_work: the last put may come in atomic context; the provider
 *	drops its file and mm references from here
 */
struct gsp_drm_bind {
	struct kref ref;
	const struct gsp_drm_provider *prov;
	void *priv;
	bool dead;
	struct work_struct release_work;
};

/**
 * struct gsp_drm_job - a DRM_SUBMIT job's part
 * @job: the job, not referenced: this lives and dies with it
 * @bind: the binding it was submitted under, referenced
 * @fence: the driver's out-fence, referenced, once forwarded
 * @cb: on @fence until it signals
 * @forward_work: forwards the payload once the job is granted
 * @done_work: ends the job once @fence has signalled
 * @forward_ns: CLOCK_MONOTONIC just before the forward
 * @signal_ns: when @fence signalled
 * @forwarding: the forward has begun: the driver may be running the
 *	payload. Protected by &gsp_device.lock.
 * @done: the driver is done with it (fence signalled, or the forward
 *	failed). Protected by &gsp_device.lock.
 * @timed_out: the drm watchdog gave up on it. Protected by
 *	&gsp_device.lock.
 * @size: bytes of @payload
 * @payload: the driver's submit structure, as validated
 */
struct gsp_drm_job {
	struct gsp_kjob *job;
	struct gsp_drm_bind *bind;
	struct dma_fence *fence;
	struct dma_fence_cb cb;
	struct work_struct forward_work;
	struct work_struct done_work;
	u64 forward_ns;
	u64 signal_ns;
	bool forwarding;
	bool done;
	bool timed_out;
	u32 size;
	u8 payload[GSPACE_DRM_PAYLOAD_MAX];
};

static inline struct gsp_kjob *to_gsp_kjob(struct gsp_job *j)
{
	return container_of(j, struct gsp_kjob, base);
}

/* gsp_board.c */
int gsp_board_init(struct gspace *gsp);
void gsp_board_fini(struct gspace *gsp);
void gsp_board_set_devices(struct gspace *gsp);
void gsp_board_update_slot(struct gsp_ctx *ctx);
void gsp_board_lc_jobs_locked(struct gsp_device *gdev, int delta);
void gsp_board_waiting_locked(struct gsp_device *gdev);
void gsp_board_set_partition(struct gspace *gsp, u32 n, u32 k, bool part_auto);
void gsp_board_set_search(struct gspace *gsp, u32 method);
void gsp_board_set_protect(struct gspace *gsp, u32 mode);
int gsp_board_mmap(struct file *file, struct vm_area_struct *vma);

/* gsp_drv.c */
void gsp_ctx_put(struct gsp_ctx *ctx);
bool gsp_lc_allowed(struct gspace *gsp);
u32 gsp_nr_devices(struct gspace *gsp);

/* gsp_ioctl.c */
long gsp_ioctl(struct file *file, unsigned int cmd, unsigned long arg);

/* gsp_job.c */
/**
 * struct gsp_submit_answer - where SUBMIT's answer goes back
 * @args: the structure copied in (SUBMIT's or DRM_SUBMIT's), answered in
 *	place and copied back whole before the job is published
 * @args_size: sizeof its type
 * @handle: the answer's handle, within @args
 * @out_fence_fd: the answer's out-fence fd, within @args
 * @ubuf: userspace argument
 * @user_size: its size
 */
struct gsp_submit_answer {
	void *args;
	u32 args_size;
	u64 *handle;
	s32 *out_fence_fd;
	void __user *ubuf;
	u32 user_size;
};

int gsp_job_submit(struct gsp_ctx *ctx, struct gspace_submit *args,
		   void __user *ubuf, u32 user_size);
int gsp_job_submit_common(struct gsp_ctx *ctx, struct gspace_submit *args,
			  struct gsp_drm_job *dj,
			  const struct gsp_submit_answer *ans);
struct gsp_kjob *gsp_job_lookup(struct gsp_ctx *ctx, u64 handle);
void gsp_job_put(struct gsp_kjob *job);
bool gsp_job_reap(struct gsp_ctx *ctx, struct gsp_kjob *job);
void gsp_job_end_locked(struct gsp_kjob *job, int status, u64 gpu_ns,
			u64 now);
void gsp_job_progress_locked(struct gsp_kjob *job, u64 gpu_ns, u64 now);
void gsp_ctx_cancel_all(struct gsp_ctx *ctx);
void gsp_device_ready_work(struct work_struct *work);

/* gsp_drm_core.c */
int gsp_drm_core_init(void);
void gsp_drm_core_fini(void);
bool gsp_drm_available(void);
int gsp_drm_ioctl_bind(struct gsp_ctx *ctx, struct gspace_drm_bind *args);
int gsp_drm_ioctl_submit(struct gsp_ctx *ctx, struct gspace_drm_submit *args,
			 void __user *ubuf, u32 user_size);
void gsp_drm_ctx_release(struct gsp_ctx *ctx);
void gsp_drm_job_free(struct gsp_drm_job *dj);
void gsp_drm_job_granted_locked(struct gsp_kjob *job);
bool gsp_drm_job_holds_locked(struct gsp_kjob *job);

/* gsp_engine.c */
void gsp_engine_init(struct gsp_device *gdev, struct gsp_dev_engine *eng, u32 id);
void gsp_engine_fini(struct gsp_dev_engine *eng);
void gsp_engine_kick_locked(struct gsp_dev_engine *eng, u64 now);
void gsp_engine_renew_locked(struct gsp_dev_engine *eng, u64 now);
void gsp_device_kick_locked(struct gsp_device *gdev, u64 now);

/* gsp_sysfs.c */
extern const struct attribute_group *gsp_attr_groups[];

/* gsp_debugfs.c */
void gsp_debugfs_init(struct gspace *gsp);
void gsp_debugfs_fini(struct gspace *gsp);

#endif /* _GSP_DRV_H */
