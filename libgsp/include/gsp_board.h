/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The board: one shared page, mapped by every tenant of an arbiter that
 * has one (gspaced, and gspace.ko from ABI 1.1: mmap of /dev/gspace).
 * Plain fields, read and written with __atomic builtins
 * (gsp_board_load/store below), so C and C++ see the same layout.
 *
 * Who writes what:
 * - the header, dev[].lc_jobs, dev[].part_n/part_k/part_epoch,
 *   dev[].protect, dev[].search and dev[].waiting: the arbiter;
 * - dev[].part_req: whoever changes what it depends on (an LC tenant's
 *   inflight leaving or reaching 0 or its reserve changing, the arbiter
 *   giving out or clearing a slot or changing the partition or the
 *   protection mode), through gsp_board_part_update();
 * - lc[i].inflight, lc[i].stamp_ns, lc[i].reserve, lc[i].cell and
 *   lc[i].search: the LC tenant that
 *   owns slot i (lc[i].owner != 0: its pid); the arbiter zeroes a slot
 *   when its owner ends, so a dead LC tenant never holds BE work back.
 *
 * How a BE tenant reads it (gsp_board_lc_active()): LC work is active on
 * a device while some slot of that device has inflight > 0 and was
 * stamped less than lc_max_ns ago, or was stamped less than lc_hold_ns
 * ago, or (protect predictive) has a reserve raised less than lc_max_ns
 * ago. The lc_max_ns bound means a hung LC tenant stalls BE work for at
 * most that long.
 */
#ifndef GSP_BOARD_H
#define GSP_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include <gspace.h>

/* The same layout as struct gspace_board in uapi/gspace.h (checked below). */
#define GSP_BOARD_MAGIC		0x62707367u	/* "gspb" */
#define GSP_BOARD_VERSION	1
#define GSP_BOARD_MAX_DEVICES	16
#define GSP_BOARD_LC_SLOTS	32
#define GSP_BOARD_SIZE		4096

/* Per device, written by the arbiter. 64 bytes. */
struct gsp_board_dev {
	uint64_t lc_jobs;	/* LC jobs queued or running on the arbiter */
	uint32_t part_n;	/* partition plane: SMs that BE gives up */
	uint32_t part_k;	/* ... block slots per such SM */
	uint64_t part_epoch;	/* bumped on every change of (n, k) */
	uint64_t part_req;	/* the live request (gsp_board_part_update) */
	uint32_t protect;	/* GSP_PROTECT_*: which slots claim part_req */
	uint32_t search;	/* GSPACE_SEARCH_*: 0 unless partition auto */
	uint64_t waiting;	/* compute jobs queued, not yet granted */
	uint64_t reserved[2];
};

/* One LC tenant's slot. 64 bytes. */
struct gsp_board_lc {
	uint32_t owner;		/* arbiter: 0 free, else a tenant id */
	uint32_t device;	/* arbiter: the owner's device */
	uint64_t inflight;	/* owner: its GPU operations not yet seen done */
	uint64_t stamp_ns;	/* owner: CLOCK_MONOTONIC of its last issue */
	uint64_t reserve;	/* owner: 0, or when it raised a reservation */
	uint64_t cell;		/* owner: its search's (n, k), REQ layout */
	uint64_t search;	/* owner: GSPACE_BOARD_SEARCH(), for status */
	uint64_t reserved[2];
};

struct gsp_board {
	uint32_t magic;		/* GSP_BOARD_MAGIC */
	uint32_t version;	/* GSP_BOARD_VERSION */
	uint32_t num_devices;
	uint32_t pad;
	uint64_t lc_hold_ns;	/* knob lc_hold_us */
	uint64_t lc_max_ns;	/* knob lc_max_ms */
	uint64_t predict_lead_ns;	/* knob predict_lead_us */
	uint64_t watchdog_ns;	/* knob watchdog_ms; 0: not published */
	uint64_t reserved[3];
	struct gsp_board_dev dev[GSP_BOARD_MAX_DEVICES];
	struct gsp_board_lc lc[GSP_BOARD_LC_SLOTS];
};

_Static_assert(sizeof(struct gsp_board) <= GSP_BOARD_SIZE, "board size");
_Static_assert(sizeof(struct gsp_board) == sizeof(struct gspace_board) &&
	       GSP_BOARD_SIZE == GSPACE_BOARD_SIZE &&
	       GSP_BOARD_MAGIC == GSPACE_BOARD_MAGIC &&
	       GSP_BOARD_LC_SLOTS == GSPACE_BOARD_LC_SLOTS &&
	       GSP_BOARD_MAX_DEVICES == GSPACE_BOARD_MAX_DEVICES &&
	       offsetof(struct gsp_board, lc_max_ns) ==
	       offsetof(struct gspace_board, lc_max_ns) &&
	       offsetof(struct gsp_board, watchdog_ns) ==
	       offsetof(struct gspace_board, watchdog_ns) &&
	       offsetof(struct gsp_board, dev[1].part_epoch) ==
	       offsetof(struct gspace_board, dev[1].part_epoch) &&
	       offsetof(struct gsp_board, dev[1].part_req) ==
	       offsetof(struct gspace_board, dev[1].part_req) &&
	       offsetof(struct gsp_board, lc[1].stamp_ns) ==
	       offsetof(struct gspace_board, lc[1].stamp_ns) &&
	       offsetof(struct gsp_board, predict_lead_ns) ==
	       offsetof(struct gspace_board, predict_lead_ns) &&
	       offsetof(struct gsp_board, dev[1].protect) ==
	       offsetof(struct gspace_board, dev[1].protect) &&
	       offsetof(struct gsp_board, dev[1].waiting) ==
	       offsetof(struct gspace_board, dev[1].waiting) &&
	       offsetof(struct gsp_board, dev[1].reserved) ==
	       offsetof(struct gspace_board, dev[1].reserved) &&
	       offsetof(struct gsp_board, lc[1].reserve) ==
	       offsetof(struct gspace_board, lc[1].reserve) &&
	       offsetof(struct gsp_board, lc[1].reserved) ==
	       offsetof(struct gspace_board, lc[1].reserved) &&
	       offsetof(struct gsp_board, lc[1].cell) ==
	       offsetof(struct gspace_board, lc[1].cell) &&
	       offsetof(struct gsp_board, lc[1].search) ==
	       offsetof(struct gspace_board, lc[1].search) &&
	       offsetof(struct gsp_board, dev[1].search) ==
	       offsetof(struct gspace_board, dev[1].search) &&
	       sizeof(struct gsp_board_dev) == 64 &&
	       sizeof(struct gsp_board_lc) == 64,
	       "struct gsp_board matches uapi struct gspace_board");

/* dev[].protect (uapi GSPACE_PROTECT_*; Documentation/spatial.rst). */
#define GSP_PROTECT_REACTIVE	0	/* part_req while an LC slot is in flight */
#define GSP_PROTECT_RESERVED	1	/* ... while an LC slot is held */
#define GSP_PROTECT_PREDICTIVE	2	/* ... in flight or reserving */
#define GSP_PROTECT_PREEMPTIVE	3	/* the whole GPU while in flight */
#define GSP_PROTECT_COUNT	4
_Static_assert(GSP_PROTECT_REACTIVE == GSPACE_PROTECT_REACTIVE &&
	       GSP_PROTECT_RESERVED == GSPACE_PROTECT_RESERVED &&
	       GSP_PROTECT_PREDICTIVE == GSPACE_PROTECT_PREDICTIVE &&
	       GSP_PROTECT_PREEMPTIVE == GSPACE_PROTECT_PREEMPTIVE &&
	       GSP_PROTECT_COUNT == GSPACE_PROTECT_COUNT,
	       "GSP_PROTECT_* match uapi GSPACE_PROTECT_*");

/* The knob's names, as sysfs and gspaced spell them; NULL if out of range. */
static inline const char *gsp_protect_name(uint32_t mode)
{
	switch (mode) {
	case GSP_PROTECT_REACTIVE:
		return "reactive";
	case GSP_PROTECT_RESERVED:
		return "reserved";
	case GSP_PROTECT_PREDICTIVE:
		return "predictive";
	case GSP_PROTECT_PREEMPTIVE:
		return "preemptive";
	}
	return NULL;
}

#define gsp_board_load(p)	__atomic_load_n((p), __ATOMIC_ACQUIRE)
#define gsp_board_store(p, v)	__atomic_store_n((p), (v), __ATOMIC_RELEASE)

/* The protection mode of @device (reactive for a device the board lacks). */
static inline uint32_t gsp_board_protect(const struct gsp_board *b,
					 uint32_t device)
{
	return device < GSP_BOARD_MAX_DEVICES ?
	       gsp_board_load(&b->dev[device].protect) : GSP_PROTECT_REACTIVE;
}

/* 1 if LC work is active on @device at @now_ns (see above). */
static inline int gsp_board_lc_active(const struct gsp_board *b,
				      uint32_t device, uint64_t now_ns)
{
	uint64_t hold = gsp_board_load(&b->lc_hold_ns);
	uint64_t max = gsp_board_load(&b->lc_max_ns);
	int predictive = gsp_board_protect(b, device) == GSP_PROTECT_PREDICTIVE;
	int i;

	for (i = 0; i < GSP_BOARD_LC_SLOTS; i++) {
		const struct gsp_board_lc *s = &b->lc[i];
		uint64_t stamp, age, r;

		if (!gsp_board_load(&s->owner) ||
		    gsp_board_load(&s->device) != device)
			continue;
		stamp = gsp_board_load(&s->stamp_ns);
		age = now_ns > stamp ? now_ns - stamp : 0;
		if (age < hold)
			return 1;
		if (gsp_board_load(&s->inflight) && age < max)
			return 1;
		r = predictive ? gsp_board_load(&s->reserve) : 0;
		if (r && (now_ns > r ? now_ns - r : 0) < max)
			return 1;
	}
	return 0;
}

/*
 * The partition request word of a device: uapi's GSPACE_BOARD_REQ*()
 * (bits 0-15 n, 16-31 k, 32-63 an epoch), the one encoding.
 */
#define GSP_BOARD_REQ(n, k, epoch)	GSPACE_BOARD_REQ(n, k, epoch)
#define GSP_BOARD_REQ_NK(w)	GSPACE_BOARD_REQ_NK(w)
#define GSP_BOARD_REQ_N(w)	GSPACE_BOARD_REQ_N(w)
#define GSP_BOARD_REQ_K(w)	GSPACE_BOARD_REQ_K(w)
#define GSP_BOARD_REQ_EPOCH(w)	GSPACE_BOARD_REQ_EPOCH(w)

/*
 * 1 if LC slot @s claims @device's partition under protection mode @mode:
 * it is @device's and in flight (every mode), held at all
 * (GSP_PROTECT_RESERVED), or reserving (GSP_PROTECT_PREDICTIVE).
 * GSP_PROTECT_PREEMPTIVE claims as reactive does; gsp_board_part_update()
 * says what is claimed.
 */
static inline int gsp_board_slot_claims(const struct gsp_board_lc *s,
					uint32_t device, uint32_t mode)
{
	if (!gsp_board_load(&s->owner) || gsp_board_load(&s->device) != device)
		return 0;
	return mode == GSP_PROTECT_RESERVED || gsp_board_load(&s->inflight) ||
	       (mode == GSP_PROTECT_PREDICTIVE && gsp_board_load(&s->reserve));
}

/* 1 if some LC slot claims @device's partition under @mode. */
static inline int gsp_board_lc_claims(const struct gsp_board *b,
				      uint32_t device, uint32_t mode)
{
	int i;

	for (i = 0; i < GSP_BOARD_LC_SLOTS; i++)
		if (gsp_board_slot_claims(&b->lc[i], device, mode))
			return 1;
	return 0;
}

/*
 * The (n, k) a claimed request asks for under protection mode @mode, given
 * the published partition (*@n, *@k): the partition, or under
 * GSP_PROTECT_PREEMPTIVE the whole device; (0, 0) stays (0, 0).
 */
static inline void gsp_board_claim_nk(uint32_t mode, uint32_t *n, uint32_t *k)
{
	if (mode == GSP_PROTECT_PREEMPTIVE && *n && *k) {
		*n = GSPACE_PART_MAX_N;
		*k = GSPACE_PART_MAX_K;
	}
}

/*
 * Partition auto (dev[].search != 0, ABI 1.5): the greatest n and the
 * greatest k of the cells of @device's slots that claim under @mode; a
 * claiming slot without a cell asks for the whole device. (0, 0) if none
 * claims. The module's twin is in gsp_board_part_update().
 */
static inline void gsp_board_cells_nk(const struct gsp_board *b,
				      uint32_t device, uint32_t mode,
				      uint32_t *n, uint32_t *k)
{
	int i;

	*n = 0;
	*k = 0;
	for (i = 0; i < GSP_BOARD_LC_SLOTS; i++) {
		uint64_t c;

		if (!gsp_board_slot_claims(&b->lc[i], device, mode))
			continue;
		c = gsp_board_load(&b->lc[i].cell);
		if (!GSP_BOARD_REQ_N(c) || !GSP_BOARD_REQ_K(c))
			c = GSP_BOARD_REQ(GSPACE_PART_MAX_N, GSPACE_PART_EIGHTHS,
					  0);
		if (GSP_BOARD_REQ_N(c) > *n)
			*n = GSP_BOARD_REQ_N(c);
		if (GSP_BOARD_REQ_K(c) > *k)
			*k = GSP_BOARD_REQ_K(c);
	}
	if (*k > GSPACE_PART_EIGHTHS)
		*k = GSPACE_PART_EIGHTHS;
	if (*k)
		*k |= GSPACE_BOARD_REQ_K_EIGHTHS;	/* a share of each K */
}

/*
 * Recomputes dev[device].part_req from the slots, the published partition
 * and the protection mode, and stores it with a compare-and-swap on the
 * word it read, retrying when the word changed meanwhile (uapi/gspace.h,
 * "Partition plane"; the module's twin is gsp_board_part_update() in
 * kmod/gsp_board.c, with the same GSPACE_BOARD_REQ()). Call it after
 * every change of what the word depends on. Returns the word now in
 * place.
 *
 * A claimed request is (part_n, part_k), or under partition auto the
 * claiming slots' cells (gsp_board_cells_nk()), or under
 * GSP_PROTECT_PREEMPTIVE the whole device, (GSPACE_PART_MAX_N,
 * GSPACE_PART_MAX_K), so that every transformed BE block leaves; with no
 * partition set (0, 0) it is (0, 0) in every mode.
 *
 * It stores even when (n, k) is unchanged: the epoch it bumps is what
 * makes a concurrent writer's CAS, based on a scan that missed this
 * caller's slot change, fail and rescan. Skipping the store would let
 * that writer install a stale (n, k) over this caller's change.
 */
static inline uint64_t gsp_board_part_update(struct gsp_board *b,
					     uint32_t device)
{
	struct gsp_board_dev *d = &b->dev[device];
	uint64_t old = gsp_board_load(&d->part_req), want;

	for (;;) {
		uint32_t mode = gsp_board_load(&d->protect), n = 0, k = 0;

		if (gsp_board_load(&d->search)) {
			gsp_board_cells_nk(b, device, mode, &n, &k);
			gsp_board_claim_nk(mode, &n, &k);
		} else if (gsp_board_lc_claims(b, device, mode)) {
			n = gsp_board_load(&d->part_n);
			k = gsp_board_load(&d->part_k);
			gsp_board_claim_nk(mode, &n, &k);
		}
		want = GSP_BOARD_REQ(n, k, GSP_BOARD_REQ_EPOCH(old) + 1);
		if (__atomic_compare_exchange_n(&d->part_req, &old, want, 0,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return want;
	}
}

/*
 * 1 if a BE kernel that cannot give up its SMs should keep off the LC's
 * (run on a green context of the others, Documentation/spatial.rst) on
 * @device at @now_ns: while LC work is active, and under protect reserved
 * or predictive also while the request word asks for SMs. Under reactive
 * and preemptive the word asks only while LC work is in flight, which
 * gsp_board_lc_active() already sees, bounded by lc_max_ns.
 */
static inline int gsp_board_lc_confine(const struct gsp_board *b,
				       uint32_t device, uint64_t now_ns)
{
	uint32_t mode;

	if (gsp_board_lc_active(b, device, now_ns))
		return 1;
	if (device >= GSP_BOARD_MAX_DEVICES)
		return 0;
	mode = gsp_board_protect(b, device);
	return (mode == GSP_PROTECT_RESERVED ||
		mode == GSP_PROTECT_PREDICTIVE) &&
	       GSP_BOARD_REQ_N(gsp_board_load(&b->dev[device].part_req));
}

/*
 * Jobs queued for @device's compute engine and not yet granted (uapi
 * dev[].waiting, ABI 1.4): a BE lease holder past its quantum yields
 * when it is nonzero. 0 for a device the board lacks.
 */
static inline uint64_t gsp_board_waiting(const struct gsp_board *b,
					 uint32_t device)
{
	return device < GSP_BOARD_MAX_DEVICES ?
	       gsp_board_load(&b->dev[device].waiting) : 0;
}

#endif /* GSP_BOARD_H */
