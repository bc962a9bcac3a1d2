/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An LC tenant's side of the board for the selftests that drive the
 * partition request (gspace_protect_test, gspace_search_test): a tenant
 * that maps the board writable and changes its slot the way the
 * interposer does, and the knob check they share.
 */
#ifndef GSP_SELFTEST_LC_H
#define GSP_SELFTEST_LC_H

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "gsp_util.h"
/* The LC side's update rule, exactly as libgsp and the interposer use it. */
#include "../libgsp/include/gsp_board.h"

#define REQ_NK(n, k)	GSP_BOARD_REQ_NK(GSP_BOARD_REQ((n), (k), 0))
/* What preemptive asks for: the whole device. */
#define REQ_ALL		REQ_NK(GSPACE_PART_MAX_N, GSPACE_PART_MAX_K)
/* partition auto: k in eighths of each kernel's slots */
#define REQ_8TH(n, k)	REQ_NK((n), (k) | GSPACE_BOARD_REQ_K_EIGHTHS)
#define REQ_AUTO_ALL	REQ_8TH(GSPACE_PART_MAX_N, GSPACE_PART_EIGHTHS)

static inline uint64_t part_req(const struct gspace_board *b, uint32_t dev)
{
	return __atomic_load_n(&b->dev[dev].part_req, __ATOMIC_ACQUIRE);
}

static inline uint32_t req_nk(const struct gspace_board *b, uint32_t dev)
{
	return GSP_BOARD_REQ_NK(part_req(b, dev));
}

struct lc_tenant {
	int fd;
	int slot;
	struct gspace_board *rw;
};

static inline void lc_open(struct __test_meta *_metadata, struct lc_tenant *t,
		    uint32_t dev)
{
	struct gspace_stats st = { .size = sizeof(st) };

	t->fd = t_open(_metadata);
	ASSERT_OK(ctx_set_raw(t->fd, dev, GSPACE_CLASS_LC, 100, 0));
	ASSERT_OK(gsp_ioctl(t->fd, GSPACE_IOCTL_STATS, &st));
	t->slot = st.lc_slot;
	ASSERT_LE(0, t->slot);
	t->rw = gsp_board_map(t->fd, 1);
	ASSERT_NE(NULL, t->rw);
}

static inline void lc_close(struct lc_tenant *t)
{
	if (t->rw)
		munmap(t->rw, GSPACE_BOARD_SIZE);
	t->rw = NULL;
	t_close(&t->fd);
}

/* What the interposer does: a slot field changes, then the request. */
static inline uint64_t lc_write(struct lc_tenant *t, __u64 *field, uint64_t v)
{
	__atomic_store_n(field, v, __ATOMIC_RELEASE);
	return gsp_board_part_update((struct gsp_board *)t->rw,
				     t->rw->lc[t->slot].device);
}

static inline uint64_t lc_inflight(struct lc_tenant *t, uint64_t v)
{
	__atomic_store_n(&t->rw->lc[t->slot].stamp_ns, now_ns(),
			 __ATOMIC_RELAXED);
	return lc_write(t, &t->rw->lc[t->slot].inflight, v);
}

static inline uint64_t lc_reserve(struct lc_tenant *t, int on)
{
	return lc_write(t, &t->rw->lc[t->slot].reserve, on ? now_ns() : 0);
}

/* Waits (up to 5 s) for the arbiter to have freed @slot. */
static inline void slot_freed(struct __test_meta *_metadata,
		       const struct gspace_board *b, int slot)
{
	int i;

	for (i = 0; i < 500 && __atomic_load_n(&b->lc[slot].owner,
					       __ATOMIC_ACQUIRE); i++)
		sleep_ms(10);
	ASSERT_EQ(0, __atomic_load_n(&b->lc[slot].owner, __ATOMIC_ACQUIRE));
}

/* Knob @knob reads @want. */
static inline void expect_knob(struct __test_meta *_metadata, const char *knob,
			const char *want)
{
	char buf[64];

	ASSERT_EQ(0, knob_read(knob, buf, sizeof(buf)));
	if (strcmp(want, buf))
		TH_LOG("%s reads '%s', not '%s'", knob, buf, want);
	ASSERT_EQ(0, strcmp(want, buf));
}

#define LC_FIXTURE_KNOBS	4

/*
 * What gspace_protect_test's and gspace_search_test's fixtures hold: the
 * caller's descriptor and its read-only board, two LC tenants, and the
 * knobs a test changes, saved and put back in reverse (the first comes
 * back last).
 */
struct lc_fixture {
	int fd;
	struct gsp_info info;
	struct gspace_board *b;	/* a BE tenant's read-only mapping */
	const char *const *knobs;
	unsigned int nknobs;
	char saved[LC_FIXTURE_KNOBS][64];
	int restore;
	struct lc_tenant lc[2];
};

/* Needs @feature (named @what) from ABI 1.@minor on; saves @knobs. */
static inline void lc_fixture_setup(struct __test_meta *_metadata,
				    struct lc_fixture *f,
				    const char *const *knobs,
				    unsigned int nknobs, uint64_t feature,
				    const char *what, unsigned int minor)
{
	unsigned int i;

	f->fd = -1;
	f->b = NULL;
	f->restore = 0;
	f->knobs = knobs;
	f->nknobs = nknobs;
	for (i = 0; i < 2; i++) {
		f->lc[i].fd = -1;
		f->lc[i].rw = NULL;
	}
	ASSERT_GE(LC_FIXTURE_KNOBS, nknobs);
	f->fd = t_open(_metadata);
	t_info(_metadata, f->fd, &f->info);
	if (!(f->info.v.features & feature))
		TH_LOG("the arbiter (ABI %u.%u) lacks %s",
		       f->info.v.abi_major, f->info.v.abi_minor, what);
	ASSERT_TRUE(f->info.v.features & feature);
	ASSERT_LE(minor, f->info.v.abi_minor);
	f->b = gsp_board_map(f->fd, 0);
	ASSERT_NE(NULL, f->b);
	/* Every test sets knobs: root on the device, an admin of gspaced. */
	for (i = 0; i < nknobs; i++)
		t_knob_save(_metadata, knobs[i], f->saved[i],
			    sizeof(f->saved[i]));
	f->restore = 1;
}

static inline void lc_fixture_teardown(struct __test_meta *_metadata,
				       struct lc_fixture *f)
{
	unsigned int i;

	for (i = 0; i < 2; i++)
		lc_close(&f->lc[i]);
	for (i = f->nknobs; f->restore && i-- > 0;)
		EXPECT_EQ(0, knob_write(f->knobs[i], f->saved[i]));
	if (f->b)
		munmap(f->b, GSPACE_BOARD_SIZE);
	t_close(&f->fd);
}

#endif /* GSP_SELFTEST_LC_H */
