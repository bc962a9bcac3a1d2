/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The partition agent of one LC tenant (partition auto, uapi ABI 1.5):
 * it turns the tenant's episodes of GPU work into LC invocations, times
 * them, feeds the search (search.h) and says which cell the tenant's
 * board slot asks for. Pure C like the search: the caller (the
 * interposer's reporter thread, libgsp/preload/lcsearch.c) brings the
 * clock, the episodes and the board; Documentation/partition-auto.rst,
 * "How it works", says every rule.
 *
 * An invocation is a run of episodes (first issue to seen done) with
 * gaps under the hold between them: hold_ns, or with learn_hold the one
 * learned from the first gaps (boundary.h). It is measured when it is
 * over: the hold has passed since its last episode ended with no new one
 * begun closer than that. The cell changes only then, between invocations; an
 * invocation that began before the last change is not reported.
 */
#ifndef GSP_AGENT_H
#define GSP_AGENT_H

#include <stdint.h>

#include "boundary.h"
#include "search.h"

/* The product's grid (partition-auto.rst): 11 columns of n, K = 8. */
#define GSP_AGENT_COLS		11
#define GSP_AGENT_K		8
#define GSP_AGENT_SOLO_N	3	/* invocations timed for solo */
/*
 * The tenant's first invocations are no samples: on the H200 gsp-bench's
 * LC ran its first request 40-130x solo (module loading) and its second
 * 3-8x, beside a BE starting up too; its third was itself.
 */
#define GSP_AGENT_WARM		2
#define GSP_AGENT_WATCH		8	/* after done: the last results kept */
#define GSP_AGENT_GRID_SAMPLES	5	/* grid: invocations per cell, default */
#define GSP_AGENT_GRID_MAX	64	/* ... at most */
/* The guard (partition-auto.rst): results a window, over q allowed. */
#define GSP_AGENT_GUARD_WIN	32
#define GSP_AGENT_GUARD_OVER	1
#define GSP_AGENT_GUARD_CLEAN	4	/* clean windows before a step back, */
#define GSP_AGENT_GUARD_WAIT	64	/* ... doubled by each failed one, to */

/* What the agent runs: uapi's GSPACE_SEARCH_* values. */
enum gsp_agent_method {
	GSP_AGENT_NS = 1,
	GSP_AGENT_GNS,
	GSP_AGENT_SRS,
	GSP_AGENT_NN_NS,
	GSP_AGENT_NN_GNS,
	GSP_AGENT_NN_SRS,
	GSP_AGENT_NN,		/* hold the model's pick */
	GSP_AGENT_LR,		/* likewise: the model is LR's */
	GSP_AGENT_GRID,		/* measure every cell, hold the best */
	GSP_AGENT_NR_METHODS
};

enum gsp_agent_state {
	GSP_AGENT_IDLE,		/* no invocation measured yet */
	GSP_AGENT_SOLO,		/* timing the solo reference */
	GSP_AGENT_RUN,		/* measuring cells */
	GSP_AGENT_DONE,		/* holding the chosen cell */
};

struct gsp_agent_cfg {
	unsigned int n_max;		/* the device's SMs, 1..GSP_SEARCH_MAX_N */
	enum gsp_agent_method method;
	/*
	 * The target: an LC time (target_ns) or a ratio q to solo (used
	 * when target_ns is 0). solo_ns 0: the median of the first
	 * GSP_AGENT_SOLO_N invocations under the whole device.
	 */
	uint64_t target_ns;
	double q;
	uint64_t solo_ns;
	uint64_t hold_ns;		/* episodes closer than this: one */
	/*
	 * 1: learn a longer hold from the gaps between episodes first
	 * (boundary.h); no invocation is reported until it is known.
	 */
	unsigned int learn_hold;
	unsigned int grid_samples;	/* grid: 1..GSP_AGENT_GRID_MAX, 0: default */
	unsigned int tail;		/* the search's cfg.tail, 0 or 1 */
	unsigned int guard;		/* 1: the guard steps the held cell */
	unsigned int bound;		/* the search's cfg.bound, 0 or 1 */
	/* The model over the grid (NULL: none), in its numbering. */
	const struct gsp_search_pred *model;
};

/* One measured invocation, for the log. */
struct gsp_agent_rec {
	uint64_t start_ns, end_ns;
	struct gsp_cell cell;		/* {0, 0}: the whole device */
	double lc_ratio;		/* its time over solo; 0 in SOLO */
	enum gsp_agent_state state;	/* when it was measured */
	/* 0: began before the cell changed, or one of GSP_AGENT_WARM */
	int reported;
};

struct gsp_agent {
	struct gsp_agent_cfg cfg;
	enum gsp_agent_method running;	/* cfg.method, or ns without a model */
	enum gsp_agent_state state;
	double q;			/* the target over solo, once known */
	uint64_t solo_ns;
	uint64_t solo_s[GSP_AGENT_SOLO_N];
	unsigned int nsolo;
	struct gsp_cell cell;		/* what the slot asks for */
	uint64_t cell_since;		/* when it last changed */
	int open;			/* an invocation is open */
	unsigned int warm;		/* invocations behind, to GSP_AGENT_WARM */
	uint64_t open_start, open_end;
	uint64_t last_end;		/* the latest episode's end, 0: none */
	struct gsp_boundary bnd;	/* the hold in use: bnd.hold_ns */
	/* grid: the cell measured and its samples */
	unsigned int grid_idx, grid_n;
	double grid_s[GSP_AGENT_GRID_MAX];
	double grid_lc[GSP_SEARCH_MAX_CELLS];
	/* done: the last results, for a phase change */
	double watch[GSP_AGENT_WATCH];
	unsigned int nwatch;
	double chosen_lc;		/* the held cell's LC ratio when chosen */
	unsigned int invocations, restarts, violations_done;
	int retried;			/* restarted once: no cell met q, yet it did */
	int resolo;			/* its own solo timed again: the top broke q */
	/* done, the guard: the chosen cell, the window, the steps taken */
	struct gsp_cell chosen;
	unsigned int guard_n, guard_over, guard_clean, guard_wait;
	int guard_steps;		/* > 0: toward the LC */
	int guard_back;			/* the last move was a step back */
	unsigned int guard_moves;	/* steps either way, all told */
	/*
	 * A result at the held cell over GSP_SEARCH_BOUND_FAR x q: the BE
	 * has phases the search did not see. Set for good; the held cell
	 * went to the top of the grid (partition-auto.rst, "The guard").
	 */
	int far;
	unsigned int far_jumps;		/* to the top, from below it */
	struct gsp_search s;
};

/* -EINVAL if @cfg is out of range. */
int gsp_agent_init(struct gsp_agent *a, const struct gsp_agent_cfg *cfg);
/* The BE's throughput the agent credits a cell with (partition-auto.rst). */
double gsp_agent_be_rate(const struct gsp_agent *a, struct gsp_cell c);
/*
 * An episode of LC work ended at @end_ns, begun at @start_ns. Returns 1
 * and fills @rec when this closed the invocation before it.
 */
int gsp_agent_episode(struct gsp_agent *a, uint64_t start_ns,
		      uint64_t end_ns, struct gsp_agent_rec *rec);
/*
 * At @now_ns, with @pending_ns the start of an episode not yet ended (0:
 * none): 1 and @rec when the open invocation was over and got measured.
 * The earliest time worth a call again in *@next_ns (UINT64_MAX: none).
 */
int gsp_agent_poll(struct gsp_agent *a, uint64_t now_ns, uint64_t pending_ns,
		   struct gsp_agent_rec *rec, uint64_t *next_ns);

#endif /* GSP_AGENT_H */
