/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gspaced: the userspace arbiter. One thread, one epoll loop; the
 * scheduling core (kmod/core) is linked in unchanged and, with one thread,
 * needs no lock. What a request means (validation, features, a job's
 * accounting, the knobs) is the core's (gsp_arbiter.h, gsp_knobs.h), as in
 * gspace.ko; what is here is the daemon's glue: handles, eventfd fences,
 * the socket, the event loop. Documentation/gspaced.rst.
 */
#ifndef GSPACED_H
#define GSPACED_H

#include <stdbool.h>
#include <stddef.h>
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "gspace.h"
#include "gsp_arbiter.h"
#include "gsp_board.h"
#include "gspd_proto.h"

#define GD_MAX_DEVICES		GSP_BOARD_MAX_DEVICES
#define GD_JOB_BUCKETS		256
#define GD_UID_BUCKETS		256
#define GD_MAX_GROUPS		64	/* lc_groups, admin_groups, ... */

/* Log levels: -v raises it. */
enum { GD_LOG_ERR, GD_LOG_INFO, GD_LOG_DEBUG };
void gd_log(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* A list of ids (uids or gids). */
struct gd_idlist {
	uint32_t n;
	uint32_t id[GD_MAX_GROUPS];
};

/**
 * struct gd_config - everything the config file and CTL_SET can change
 * @params: the core's tunables (policy, period, band_wait, ...)
 * @watchdog_ns: lease watchdog
 * @nr_sim: sim devices, numbered first
 * @nr_lease: lease devices, numbered after them
 * @lc_hold_ns: board: how long an LC issue holds BE work back
 * @lc_max_ns: board: the longest an LC slot in flight holds BE work back
 * @part_n, @part_k: board: the partition plane, for every device (0, 0:
 *	off)
 * @protect: board: the protection mode, GSP_PROTECT_*, for every device
 * @part_auto: board: the partition is "auto" (dev[].search)
 * @search: board: the searches' method, GSPACE_SEARCH_NS.._GRID
 * @predict_lead_ns: board: how long before expected work a predictive LC
 *	tenant reserves
 * @lc_uids, @lc_groups: who may become LC (besides uid 0)
 * @admin_uids, @admin_groups: who may CTL_SET (besides uid 0 and us)
 * @max_jobs, @max_fences, @max_waits: each tenant's limits (jobs held,
 *	fence descriptors held, WAITs parked): the knobs tenant_max_*
 * @max_uid_tenants: tenants one uid may hold, admins exempt: the knob
 *	uid_max_tenants
 * @admit_hw, @admit_lc: admission's hw.csv and the LC's solo trace
 *	(config only; "" if unset); @admit_q: its target over the LC's solo
 *	mean
 */
struct gd_config {
	struct gsp_params params;
	uint64_t watchdog_ns;
	uint32_t nr_sim;
	uint32_t nr_lease;
	uint64_t lc_hold_ns;
	uint64_t lc_max_ns;
	uint32_t part_n;
	uint32_t part_k;
	uint32_t protect;
	int part_auto;
	uint32_t search;
	uint64_t predict_lead_ns;
	struct gd_idlist lc_uids, lc_groups, admin_uids, admin_groups;
	uint32_t max_jobs, max_fences, max_waits;
	uint32_t max_uid_tenants;
	char admit_hw[PATH_MAX], admit_lc[PATH_MAX];
	double admit_q;
};

void gd_config_default(struct gd_config *c);
/*
 * Parses @path into gd_state.cfg; a missing file means the defaults unless
 * @must_exist. 0 or -1, with the line and the fix logged.
 */
int gd_config_load(const char *path, bool must_exist);
/* From now on knobs act on the running schedulers. */
void gd_config_set_live(void);
/*
 * Sets one knob by name: 0, -ENOENT (no such knob), -EINVAL, -EBUSY. The
 * limits' knobs (tenant_max_*, uid_max_tenants) among them.
 */
int gd_knob_set(const char *name, const char *value);
/* The knob's value as text: 0 or -ENOENT. */
int gd_knob_get(const char *name, char *out, size_t outsz);

/*
 * Admission (gspaced/admit.c): the config's traces loaded at start, 0 or
 * -1 (logged); the answer to one ADMIT request, which owns @fd.
 */
int gd_admit_load(void);
struct gd_tenant;
struct gd_dev;
struct gd_wait;

/**
 * struct gd_job - a job, as struct gsp_kjob in the module
 * @base: the core's view
 * @t: owner
 * @dev: device, fixed at submit
 * @handle: in @t's table
 * @hnext: next in its hash bucket
 * @state: GSP_AJOB_*
 * @acct: what the core keeps of the job (gsp_ajob_*())
 * @out_fence: the out-fence eventfd we signal, or -1
 * @in_fence: the in-fence eventfd we watch, or -1
 * @chain_prev: the job this one is chained after, while it has not ended
 * @chain_next: the job chained after this one, while this one runs
 * @pending: dependencies not yet signalled
 * @dep_error: first error a dependency ended with
 * @waits: WAITs parked on this job
 */
struct gd_job {
	struct gsp_job base;
	struct gd_tenant *t;
	struct gd_dev *dev;
	uint32_t handle;
	struct gd_job *hnext;
	enum gsp_ajob_state state;
	struct gsp_job_acct acct;
	int out_fence;
	int in_fence;
	struct gd_job *chain_prev;
	struct gd_job *chain_next;
	int pending;
	int dep_error;
	struct gd_wait *waits;
};

/* A WAIT the daemon answers later (at the job's change or the deadline). */
struct gd_wait {
	struct gd_job *job;
	struct gd_wait *prev, *next;	/* on the job */
	size_t heap_idx;	/* in wait.c's deadline heap */
	uint32_t seq;
	uint32_t user_size;
	struct gspace_wait arg;
};

struct gd_engine {
	struct gd_dev *dev;
	uint32_t id;
	struct gd_job *running;
	uint64_t deadline_ns;	/* sim end or lease watchdog; with @running */
	uint64_t retry_ns;	/* BAND hold: pick again then; 0 none */
};

/*
 * One device. @lc_jobs: live LC jobs, mirrored on the board. @waiting:
 * jobs queued for the compute engine, not yet granted, as last mirrored
 * on the board; @sched holds the count itself (gd_board_waiting()). The
 * loop's one thread owns both.
 */
struct gd_dev {
	uint32_t index;
	struct gsp_sched sched;
	struct gd_engine eng[GSP_ENGINE_COUNT];
	uint64_t lc_jobs;
	uint64_t waiting;
};

/**
 * struct gd_tenant - one connection: one tenant, as struct gsp_ctx
 * @id: nonzero, unique while the daemon runs (for the log)
 * @last: the last job submitted, for CHAIN, while it lives
 * @last_status: the status of the last job once @last is gone
 * @lc_slot: board slot while LC (when one was free), or -1
 * @lc_dev: the device @lc_slot was published on, while it is held
 * @dead: dropped; torn down at the end of the loop iteration
 */
struct gd_tenant {
	int fd;
	uint32_t id;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	bool lc_allowed;
	bool admin;
	struct gd_dev *dev;
	uint32_t class;
	uint32_t weight;
	uint64_t lc_target_ns;
	struct gsp_entity ent;
	struct gd_job *jobs[GD_JOB_BUCKETS];
	uint32_t next_handle;
	struct gd_job *last;
	bool last_valid;
	int last_status;
	bool hung;
	struct gsp_tenant_acct acct;	/* job counters, kept by the core */
	/* Against the limits: jobs held, fence fds held, WAITs parked. */
	uint32_t nr_jobs, nr_fences, nr_waits;
	int lc_slot;
	uint32_t lc_dev;
	bool dead;
	struct gd_tenant *prev, *next;
};

/* The tenants of one uid, for uid_max_tenants; freed at 0. */
struct gd_uid {
	uid_t uid;
	uint32_t n;
	struct gd_uid *next;
};

/**
 * struct gd - the daemon's state. One instance, gd_state: a single-threaded
 * event loop has one of everything, and every callback reaches it.
 */
struct gd {
	struct gd_config cfg;
	int epfd;
	int listen_fd;
	int reserve_fd;		/* /dev/null, given up at the fd limit */
	uint64_t listen_resume_ns;	/* listener out of epoll until then; 0 no */
	uint64_t nr_refused;	/* clients refused at the fd limit, unlogged */
	uint64_t refused_log_ns;	/* when that was last logged */
	int timer_fd;
	int signal_fd;
	uint64_t timer_armed_ns;	/* what timer_fd is set to; 0 none */
	uid_t self_uid;
	uint32_t next_tenant_id;
	struct gd_tenant *tenants;
	uint32_t nr_tenants;
	/* Tenants per uid, every tenant counted (admins too). */
	struct gd_uid *uids[GD_UID_BUCKETS];
	uint64_t nr_uid_refused;	/* refused at uid_max_tenants, unlogged */
	uint64_t uid_refused_log_ns;	/* when that was last logged */
	uint64_t nr_jobs;	/* live job objects, all tenants */
	uint64_t nr_fences;	/* out-fence eventfds not yet signalled */
	struct gd_dev dev[GD_MAX_DEVICES];
	int board_fd;
	struct gsp_board *board;
	/* The board's slot owners: the authority; the page is a copy. */
	struct gd_tenant *lc_owner[GSP_BOARD_LC_SLOTS];
	int log_level;
};

extern struct gd gd_state;

static inline uint32_t gd_nr_devices(void)
{
	return gd_state.cfg.nr_sim + gd_state.cfg.nr_lease;
}

static inline bool gd_dev_is_lease(const struct gd_dev *d)
{
	return d->index >= gd_state.cfg.nr_sim;
}

uint64_t gd_now(void);

/* epoll tags: the low bits of epoll_event.data.u64 say what it is. */
enum gd_tag { GD_TAG_LISTEN, GD_TAG_TIMER, GD_TAG_SIGNAL, GD_TAG_CLIENT,
	      GD_TAG_FENCE };
#define GD_TAG_BITS	3
int gd_epoll_add(int fd, enum gd_tag tag, void *ptr);
void gd_epoll_del(int fd);

/* client.c: connections and the wire protocol. */
void gd_client_accept(void);
/*
 * Puts the listener back in epoll once a pause at the fd limit is over;
 * the time it is due, or 0 if it is not paused.
 */
uint64_t gd_client_listen_resume(uint64_t now);
void gd_client_readable(struct gd_tenant *t);
void gd_client_reap_dead(void);
void gd_tenant_teardown(struct gd_tenant *t);
/* Sends a reply; a client whose buffer is full is dropped. */
void gd_admit_handle(struct gd_tenant *t, const struct gspd_msg *h,
		     const unsigned char *p, int fd);
void gd_reply(struct gd_tenant *t, uint32_t seq, uint16_t op, int status,
	      const void *payload, size_t len, int fd);
/* The debugfs "tenants" text with a leading uid column. */
size_t gd_tenants_text(char *out, size_t cap);

/* job.c: the uapi requests, jobs, engines and fences. */
int gd_ioctl(struct gd_tenant *t, uint32_t seq, uint64_t request,
	     const void *arg, size_t arglen, int in_fd);
void gd_devices_init(void);
void gd_params_apply(void);
void gd_fence_ready(struct gd_job *job);
void gd_run_timers(uint64_t now);
uint64_t gd_next_deadline(void);
void gd_tenant_cancel_all(struct gd_tenant *t);
void gd_tenant_init_sched(struct gd_tenant *t);
/* Frees the jobs freed in this loop iteration. */
void gd_graveyard_empty(void);
/* Frees what job.c keeps, at exit. */
void gd_jobs_fini(void);

/* wait.c: parked WAITs. */
/* Answers a WAIT whose job is in a state that satisfies it. */
void gd_wait_reply(struct gd_tenant *t, uint32_t seq, uint32_t user_size,
		   struct gspace_wait *arg, const struct gd_job *job);
/* Parks a WAIT on @job: 0, -EAGAIN (@t's limit), -ENOMEM. */
int gd_wait_park(struct gd_tenant *t, struct gd_job *job, uint32_t seq,
		 uint32_t user_size, const struct gspace_wait *a);
/*
 * Answers the WAITs that @job's new state satisfies; true if one waited
 * for its end (the job is then to be reaped).
 */
bool gd_wait_answer(struct gd_job *job);
/* Frees @job's WAITs unanswered: its tenant is gone. */
void gd_wait_drop(struct gd_job *job);
/* Answers -ETIME to each WAIT due by @now; whether there was one. */
bool gd_wait_expire(uint64_t now);
/* The earliest WAIT deadline; 0 for none. */
uint64_t gd_wait_next_deadline(void);
void gd_wait_fini(void);

/* board.c */
int gd_board_init(void);
void gd_board_fini(void);
void gd_board_update_knobs(void);
void gd_board_lc_jobs(struct gd_dev *d);
/* After a change to @d's compute queue: its count on the board. */
void gd_board_waiting(struct gd_dev *d);
/* Publishes the configured partition on every device (a new epoch each). */
void gd_board_partition(void);
/* Publishes the configured protection mode on every device. */
void gd_board_protect(void);
/* The fd to hand @t (read-write with an LC slot); -errno. */
int gd_board_fd_for(struct gd_tenant *t, struct gspd_board_reply *r);
/* After a class or device change, or (class BE) at the end: @t's slot. */
void gd_board_update_slot(struct gd_tenant *t);

#endif /* GSPACED_H */
