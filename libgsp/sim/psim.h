/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gsp-psim: the partition plane on a SIMULATED GPU. A discrete-event model
 * (simulated ns, no GPU) of a BE program's kernels and an LC service's
 * kernels sharing the SMs of one GPU under MPS, with and without gspace,
 * so that the protection modes can be shown and tested on any machine.
 *
 * The GPU's rules come from measurements on an H200 under MPS
 * (Documentation/spatial.rst, "Simulated partition plane"):
 *
 * 1. A plain BE kernel is a grid of blocks (tasks), K per SM on N SMs. A
 *    slot freed by a block's end goes to the oldest queued grid of the
 *    highest stream priority: at equal priority an LC kernel waits until
 *    the BE grid has no queued block left.
 * 2. An LC kernel runs at its solo speed on S SMs free of BE blocks; on
 *    fewer it takes solo * S / SMs. An SM where it holds slots beside BE
 *    blocks counts as 1/share_slowdown of an SM (older warps issue first).
 * 3. A transformed BE kernel is one wave of N x K persistent blocks that
 *    run tasks one after another and read the request word (n, k) at each
 *    task boundary: a block on one of the first n SMs holding one of the
 *    top k slots leaves. When the word shrinks, a top-up refills the
 *    freed slots topup_ns later.
 *
 * The request word is not computed here: it is the board's part_req,
 * written by gsp_board_part_update() (libgsp/include/gsp_board.h) and, on
 * a board of gspace.ko, by the module's own update; the LC tenant's side
 * of protect predictive is gsp_reserver_*() (libgsp/preload/predict.c).
 */
#ifndef GSP_PSIM_H
#define GSP_PSIM_H

#include <stddef.h>
#include <stdint.h>

#include <gsp_board.h>

/* The rows of gsp-psim's table: how BE and LC work share the GPU. */
enum psim_mode {
	PSIM_NONE,		/* plain MPS, equal stream priority */
	PSIM_MPS_PRIORITY,	/* plain MPS, the LC's stream higher */
	PSIM_TIME,		/* gspace's time plane: BE issue waits */
	PSIM_REACTIVE,		/* partition plane, protect reactive */
	PSIM_RESERVED,		/* ... protect reserved */
	PSIM_PREDICTIVE,	/* ... protect predictive */
	PSIM_PREEMPTIVE,	/* protect preemptive: the whole GPU while in flight */
	PSIM_MODE_COUNT
};

#define PSIM_MAX_SMS	256	/* GSP_PERSIST_MAX_SM */
#define PSIM_MAX_SLOTS	32	/* GSP_PERSIST_MAX_K */
#define PSIM_MAX_COUNT	1000000	/* LC arrivals in one run */

struct psim_cfg {
	/* the GPU */
	uint32_t sms;		/* N */
	uint32_t slots;		/* K: BE blocks per SM */
	uint32_t share_slowdown;	/* rule 2: a shared SM counts 1/this */
	/* the BE program; be = 0: the LC alone */
	int be;
	uint64_t task_ns;	/* a block's (task's) length */
	uint32_t task_jitter_pct;	/* uniform in task_ns +- this % */
	uint64_t tasks;		/* per kernel */
	uint64_t gap_ns;	/* host gap between two kernels */
	uint64_t topup_ns;	/* word shrunk to top-up's blocks running */
	/* the LC service; lc = 0: the BE alone */
	int lc;
	uint32_t lc_sms;	/* S: SMs it needs for its solo speed */
	uint64_t lc_ns;		/* its solo time on S free SMs */
	uint64_t period_ns;	/* arrivals every period, or its mean */
	int poisson;		/* exponential intervals instead */
	uint64_t seed;
	uint32_t count;		/* arrivals */
	uint32_t warmup;	/* first arrivals not counted */
	/* gspace */
	enum psim_mode mode;
	uint32_t part_n, part_k;	/* the partition (preemptive: N, K) */
	uint64_t lead_ns;	/* predict_lead_ns */
};

struct psim_res {
	/* LC, after warm-up */
	uint64_t lc_n;		/* requests that ran */
	uint64_t lc_missed;	/* releases dropped: the last one still ran */
	uint64_t lc_unfinished;	/* still running 10 s after the end */
	uint64_t p50, p99, p999, max;	/* arrival to end, ns */
	/* BE, over [t_w, t_end): from arrival @warmup to the last's period */
	uint64_t window_ns;
	uint64_t be_tasks;	/* tasks ended in the window */
	double be_tput;		/* tasks per second */
	uint64_t kernels;	/* BE kernels ended, whole run */
	uint64_t launch_in_lc;	/* BE kernels started while the LC ran */
	uint64_t gated;		/* time plane: launches held back */
	/* the partition plane */
	uint64_t yields;	/* blocks that left on the request */
	uint32_t yield_slots;	/* distinct slots that ever yielded */
	uint32_t max_held;	/* most slots the LC held at once */
	uint64_t topups;	/* top-ups that started blocks */
	uint64_t reserves;	/* times the LC raised its reserve */
	uint64_t req_ns;	/* window time the word asked for slots */
	double free_occupancy;	/* BE slots busy while nothing was asked */
	uint64_t events;
};

/*
 * The board a run uses. @b is a writable mapping; the LC tenant of the
 * run owns lc[@slot] on @device. @setup is the arbiter's side: it
 * publishes the protection mode, the partition and predict_lead_ns, as
 * the sysfs knobs do, and lets the arbiter recompute part_req. 0 or
 * -errno, with a message in @err.
 */
struct psim_board {
	struct gsp_board *b;
	uint32_t device;
	int slot;
	uint64_t clock_ns;	/* the board's clock at simulated time 0 */
	const char *what;	/* for the table's title */
	int (*setup)(struct psim_board *pb, uint32_t protect, uint32_t n,
		     uint32_t k, uint64_t lead_ns);
	void *priv;
	char err[160];
};

/*
 * Boards (psim_board.c). psim_board_mem(): a board in @mem with one LC
 * slot given out; this process plays the arbiter, with gspace.ko's
 * defaults (lc_hold_us 200, lc_max_ms 100).
 */
void psim_board_mem(struct psim_board *pb, struct gsp_board *mem);

/*
 * An arbiter's board: @pb's b, device, slot and clock_ns set by the
 * caller (an LC tenant of the arbiter with its board mapped writable).
 * psim_board_arb() saves the knobs partition, protect and
 * predict_lead_us through @knob_read (0 or -errno) and makes @pb's setup
 * write them through @knob_write, then check that the arbiter published
 * them and that the word its own update left is the rule's.
 * psim_arb_restore() writes the saved values back.
 */
#define PSIM_ARB_KNOBS	3
#define PSIM_ARB_VAL	32
struct psim_arb {
	int (*knob_read)(const char *knob, char *buf, size_t len);
	int (*knob_write)(const char *knob, const char *val);
	char saved[PSIM_ARB_KNOBS][PSIM_ARB_VAL];
	int nsaved;
	uint64_t setups;	/* setups checked */
};
int psim_board_arb(struct psim_board *pb, struct psim_arb *a, char *err,
		   size_t len);
int psim_arb_restore(struct psim_arb *a);

/* gspace.ko's board: /dev/gspace as an LC tenant, knobs through sysfs. */
struct psim_dev {
	int fd;
	struct psim_arb arb;
	struct psim_board pb;
};
int psim_board_dev(struct psim_dev *d, uint32_t device, char *err,
		   size_t len);
/* Knobs restored, board unmapped, tenant closed: 0, or -1 if a knob was not. */
int psim_board_dev_close(struct psim_dev *d);

void psim_cfg_default(struct psim_cfg *c);
/* 0, or -1 with a message in @err. */
int psim_cfg_check(const struct psim_cfg *c, char *err, size_t len);
/* One run of @c on @pb: 0, or -1 with a message in @err. */
int psim_run(const struct psim_cfg *c, struct psim_board *pb,
	     struct psim_res *r, char *err, size_t len);

const char *psim_mode_name(enum psim_mode m);
/* The mode named @s, or -1. */
int psim_mode_parse(const char *s);
/* Whether BE kernels run in their transformed form under @m. */
int psim_mode_spatial(enum psim_mode m);
/* The board's mode and partition of @c's mode, for psim_board.setup. */
void psim_mode_board(const struct psim_cfg *c, uint32_t *protect,
		     uint32_t *n, uint32_t *k);

#endif /* GSP_PSIM_H */
