// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl fuzzer: GSP_FUZZ_PROCS processes (default 4) send random and
 * structure-aware requests to the arbiter until GSP_FUZZ_IOCTLS of them
 * (default 1,000,000; 100,000 on gspaced) have gone through:
 *
 * - every ioctl of uapi/gspace.h, mostly a valid-looking structure built
 *   from what the process holds (devices, handles, fences) with one field
 *   mutated: size, flags, padding, a word of the structure, the tail past
 *   the structure; sometimes a request number that is not one;
 * - arguments at unmapped, kernel-range, non-canonical, read-only,
 *   misaligned and page-straddling addresses;
 * - random handles and random descriptors as in-fences;
 * - mmap (board_map, and on the device raw mmap with random length,
 *   protection and offset), writes of an LC tenant's own slot, munmap;
 *   open, dup and close of tenants;
 * - an interval timer without SA_RESTART, so WAITs see EINTR;
 * - half the processes without privilege (uid 1000) when run as root.
 *
 * The test process SIGKILLs a random worker every few tens of
 * milliseconds and starts another, and, as root, writes random values
 * (valid and not) to the knobs, which it restores at the end. Then every
 * object is gone (debugfs "objects" all 0 on the device, the daemon's back
 * to their baseline), and the kernel log has no oops, BUG or WARNING since
 * the start. It prints one line, "# fuzz: N ioctls, K oops".
 *
 * GSP_FUZZ_SEED replays a run's streams (the seed is printed); the order
 * in which the processes interleave, and so the kernel's answers, is not
 * replayed.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/time.h>

#include "gsp_util.h"
#include "gsp_chaos.h"

#define FUZZ_IOCTLS_DEV		1000000ULL
#define FUZZ_IOCTLS_DAEMON	100000ULL
#define FUZZ_MAX_PROCS		16
#define FUZZ_TENANTS		6
#define FUZZ_HANDLES		32
#define FUZZ_FENCES		8
#define FUZZ_MAPS		4
#define FUZZ_UID		1000
/* No progress this long is a hang. */
#define FUZZ_STALL_NS		(60 * NSEC_PER_SEC)

#ifndef offsetofend
#define offsetofend(t, m) (offsetof(t, m) + sizeof(((t *)0)->m))
#endif

static const struct fuzz_op {
	const char *name;
	unsigned long req;
	uint32_t size;
	uint32_t min;	/* the end of ABI 1.0's structure */
} fuzz_ops[] = {
	{ "VERSION", GSPACE_IOCTL_VERSION, sizeof(struct gspace_version),
	  offsetofend(struct gspace_version, lc_allowed) },
	{ "CTX_SET", GSPACE_IOCTL_CTX_SET, sizeof(struct gspace_ctx_set),
	  offsetofend(struct gspace_ctx_set, lc_target_ns) },
	{ "SUBMIT", GSPACE_IOCTL_SUBMIT, sizeof(struct gspace_submit),
	  offsetofend(struct gspace_submit, pad) },
	{ "WAIT", GSPACE_IOCTL_WAIT, sizeof(struct gspace_wait),
	  offsetofend(struct gspace_wait, latency_ns) },
	{ "COMPLETE", GSPACE_IOCTL_COMPLETE, sizeof(struct gspace_complete),
	  offsetofend(struct gspace_complete, pad) },
	{ "CANCEL", GSPACE_IOCTL_CANCEL, sizeof(struct gspace_cancel),
	  offsetofend(struct gspace_cancel, handle) },
	{ "STATS", GSPACE_IOCTL_STATS, sizeof(struct gspace_stats),
	  offsetofend(struct gspace_stats, credit_ns) },
};

#define FUZZ_NR_OPS	(sizeof(fuzz_ops) / sizeof(fuzz_ops[0]))
enum { OP_VERSION, OP_CTX_SET, OP_SUBMIT, OP_WAIT, OP_COMPLETE, OP_CANCEL,
       OP_STATS };

/* Counters of one worker slot, kept across the processes that fill it. */
struct fuzz_slot {
	uint64_t ioctls, ok, eintr, efault, submits, maps, dups;
};

struct fuzz_shared {
	uint64_t target;
	struct fuzz_slot slot[FUZZ_MAX_PROCS];
};

static uint64_t fuzz_total(const struct fuzz_shared *sh, int nprocs)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < nprocs; i++)
		n += __atomic_load_n(&sh->slot[i].ioctls, __ATOMIC_RELAXED);
	return n;
}

struct fuzz_tenant {
	int fd;		/* -1: none */
	int is_dup;	/* a dup(2) of another: close(2), not gsp_close() */
	uint64_t h[FUZZ_HANDLES];
	int nh;
};

struct fuzz_map {
	void *p;
	size_t len;
};

struct fuzz {
	struct gsp_rng rng;
	struct fuzz_slot *slot;
	struct fuzz_shared *sh;
	int num_devices, sim_devices, lease_dev;
	int on_daemon;
	struct fuzz_tenant t[FUZZ_TENANTS];
	int fence[FUZZ_FENCES];
	struct fuzz_map map[FUZZ_MAPS];
	uint8_t *arena;		/* two pages read-write, then a guard page */
	uint8_t *ro;		/* a read-only page */
	uintptr_t hole;		/* a page that was mapped and is not */
	long pg;
};

static void fuzz_count(struct fuzz *f, int r)
{
	__atomic_fetch_add(&f->slot->ioctls, 1, __ATOMIC_RELAXED);
	if (r >= 0)
		f->slot->ok++;
	else if (errno == EINTR)
		f->slot->eintr++;
	else if (errno == EFAULT)
		f->slot->efault++;
}

static uint64_t fuzz_interesting64(struct fuzz *f)
{
	static const uint64_t v[] = {
		0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0xffff,
		0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL,
		0x7fffffffffffffffULL, 0x8000000000000000ULL, ~0ULL, ~1ULL,
		GSPACE_COST_MAX_NS, GSPACE_COST_MAX_NS + 1, GSPACE_WEIGHT_MAX,
		GSPACE_WEIGHT_MAX + 1, 4095, 4096, (uint64_t)-4095,
		(uint64_t)-4096, 16, 17,
	};

	if (rng_chance(&f->rng, 1, 4))
		return rng_next(&f->rng);
	return v[rng_below(&f->rng, sizeof(v) / sizeof(v[0]))];
}

static struct fuzz_tenant *fuzz_any_tenant(struct fuzz *f)
{
	int i, start = (int)rng_below(&f->rng, FUZZ_TENANTS);

	for (i = 0; i < FUZZ_TENANTS; i++) {
		struct fuzz_tenant *t = &f->t[(start + i) % FUZZ_TENANTS];

		if (t->fd >= 0)
			return t;
	}
	return NULL;
}

static void fuzz_forget(struct fuzz_tenant *t, uint64_t h)
{
	int i;

	for (i = 0; i < t->nh; i++)
		if (t->h[i] == h) {
			t->h[i] = t->h[--t->nh];
			return;
		}
}

static void fuzz_remember(struct fuzz *f, struct fuzz_tenant *t, uint64_t h)
{
	if (t->nh < FUZZ_HANDLES)
		t->h[t->nh++] = h;
	else
		t->h[rng_below(&f->rng, FUZZ_HANDLES)] = h;
}

static uint64_t fuzz_handle(struct fuzz *f, struct fuzz_tenant *t)
{
	struct fuzz_tenant *o;

	if (t->nh && rng_chance(&f->rng, 8, 10))
		return t->h[rng_below(&f->rng, t->nh)];
	/* Another tenant's: ENOENT. */
	o = fuzz_any_tenant(f);
	if (o && o->nh && rng_chance(&f->rng, 1, 2))
		return o->h[rng_below(&f->rng, o->nh)];
	return rng_chance(&f->rng, 1, 2) ? rng_below(&f->rng, 64) :
					   fuzz_interesting64(f);
}

static int fuzz_fd(struct fuzz *f)
{
	static const int v[] = { -1, 0, 1, 2, 1023, 1 << 20, 0x7fffffff,
				 -2147483647 - 1 };
	struct fuzz_tenant *t;

	switch (rng_below(&f->rng, 4)) {
	case 0:
		t = fuzz_any_tenant(f);
		if (t)
			return t->fd;
		/* fall through */
	case 1:
		return v[rng_below(&f->rng, sizeof(v) / sizeof(v[0]))];
	default:
		return (int)rng_below(&f->rng, 64);
	}
}

static int fuzz_fence(struct fuzz *f)
{
	int i = (int)rng_below(&f->rng, FUZZ_FENCES);

	return f->fence[i] >= 0 ? f->fence[i] : fuzz_fd(f);
}

static void fuzz_keep_fence(struct fuzz *f, int fd)
{
	int i = (int)rng_below(&f->rng, FUZZ_FENCES);

	if (f->fence[i] >= 0)
		close(f->fence[i]);
	f->fence[i] = fd;
}

/* A valid-looking argument of @op for tenant @t, in @buf. */
static void fuzz_build(struct fuzz *f, struct fuzz_tenant *t, int op,
		       void *buf)
{
	struct gsp_rng *r = &f->rng;

	memset(buf, 0, fuzz_ops[op].size);
	*(uint32_t *)buf = fuzz_ops[op].size;
	switch (op) {
	case OP_CTX_SET: {
		struct gspace_ctx_set *c = buf;

		c->device = (uint32_t)rng_below(r, f->num_devices);
		c->class = rng_chance(r, 1, 8) ? GSPACE_CLASS_LC :
						 GSPACE_CLASS_BE;
		c->weight = 1 + (uint32_t)rng_below(r, GSPACE_WEIGHT_MAX);
		if (c->class == GSPACE_CLASS_LC && rng_chance(r, 1, 2))
			c->lc_target_ns = rng_below(r, 10 * NSEC_PER_MSEC);
		break;
	}
	case OP_SUBMIT: {
		struct gspace_submit *s = buf;

		s->engine = rng_chance(r, 3, 4) ? GSPACE_ENGINE_COMPUTE :
			    (uint32_t)rng_below(r, GSPACE_ENGINE_COUNT);
		s->cost_ns = rng_chance(r, 1, 50) ? fuzz_interesting64(f) %
			     (GSPACE_COST_MAX_NS + 1) :
			     rng_below(r, 2 * NSEC_PER_MSEC);
		s->user_tag = rng_next(r);
		if (rng_chance(r, 1, 4)) {
			s->flags |= GSPACE_SUBMIT_FENCE_OUT;
			s->out_fence_fd = -1;
		}
		if (rng_chance(r, 1, 5))
			s->flags |= GSPACE_SUBMIT_CHAIN;
		if (rng_chance(r, 1, 6)) {
			s->flags |= GSPACE_SUBMIT_FENCE_IN;
			s->in_fence_fd = fuzz_fence(f);
		}
		if (s->engine == GSPACE_ENGINE_COPY_H2D && rng_chance(r, 1, 2)) {
			s->flags |= GSPACE_SUBMIT_TASK_HEAD;
			s->task_compute_ns = rng_below(r, NSEC_PER_MSEC);
			s->task_d2h_ns = rng_below(r, NSEC_PER_MSEC);
		}
		break;
	}
	case OP_WAIT: {
		struct gspace_wait *w = buf;
		uint64_t roll = rng_below(r, 20);

		w->handle = fuzz_handle(f, t);
		if (rng_chance(r, 1, 4))
			w->flags = GSPACE_WAIT_GRANTED;
		/* Mostly a poll; a short sleep the timer may interrupt. */
		if (roll < 12)
			w->deadline_ns = 0;
		else if (roll < 19)
			w->deadline_ns = now_ns() + rng_below(r, 5 * NSEC_PER_MSEC);
		else
			w->deadline_ns = rng_below(r, now_ns());
		break;
	}
	case OP_COMPLETE: {
		struct gspace_complete *c = buf;

		c->handle = fuzz_handle(f, t);
		c->gpu_ns = rng_below(r, 4 * NSEC_PER_MSEC);
		if (rng_chance(r, 1, 3))
			c->flags = GSPACE_COMPLETE_PROGRESS;
		else if (rng_chance(r, 1, 5))
			c->error = -(int32_t)(1 + rng_below(r, 4095));
		break;
	}
	case OP_CANCEL: {
		struct gspace_cancel *c = buf;

		c->handle = fuzz_handle(f, t);
		break;
	}
	default:
		break;
	}
}

/*
 * Mutates one thing of the argument: returns the size to pass (the
 * argument's own @size word says what the arbiter reads).
 */
static void fuzz_mutate(struct fuzz *f, int op, uint8_t *buf, size_t room)
{
	const struct fuzz_op *o = &fuzz_ops[op];
	struct gsp_rng *r = &f->rng;
	uint32_t *size = (uint32_t *)buf;
	size_t off;

	switch (rng_below(r, 6)) {
	case 0: {	/* the size */
		static const uint32_t v[] = { 0, 1, 4, 7, 8, 16, 4096, 65536,
					      0x7fffffff, 0xffffffff };
		switch (rng_below(r, 5)) {
		case 0:
			*size = v[rng_below(r, sizeof(v) / sizeof(v[0]))];
			break;
		case 1:
			*size = o->min - 1 - (uint32_t)rng_below(r, 4);
			break;
		case 2:
			*size = o->min;
			break;
		case 3:
			*size = o->size + (uint32_t)rng_below(r, 64);
			break;
		default:
			*size = (uint32_t)rng_below(r, 2 * o->size + 16);
			break;
		}
		break;
	}
	case 1: {	/* a tail past the structure, zero or not */
		size_t extra = 1 + rng_below(r, 256);

		if (o->size + extra > room)
			extra = room - o->size;
		*size = o->size + (uint32_t)extra;
		if (rng_chance(r, 1, 2))
			buf[o->size + rng_below(r, extra)] =
				(uint8_t)(1 + rng_below(r, 255));
		break;
	}
	case 2:		/* flags: one bit, or anything */
		*(uint32_t *)(buf + 4) ^= rng_chance(r, 3, 4) ?
			1U << rng_below(r, 32) : (uint32_t)rng_next(r);
		break;
	case 3:		/* a 32-bit word of the structure */
		off = 4 + 4 * rng_below(r, o->size / 4 - 1);
		*(uint32_t *)(buf + off) = (uint32_t)fuzz_interesting64(f);
		break;
	case 4:		/* a 64-bit word of the structure */
		off = 8 * rng_below(r, o->size / 8);
		if (!off)
			off = 8;
		if (off + 8 <= o->size)
			*(uint64_t *)(buf + off) = fuzz_interesting64(f);
		break;
	default:	/* a random byte anywhere in it */
		buf[4 + rng_below(r, o->size - 4)] = (uint8_t)rng_next(r);
		break;
	}
}

/* A request number that is not one of ours, for the dispatcher. */
static unsigned long fuzz_bad_request(struct fuzz *f)
{
	struct gsp_rng *r = &f->rng;
	unsigned int type;

	switch (rng_below(r, 3)) {
	case 0:	/* ours with a size or a direction encoded */
		return fuzz_ops[rng_below(r, FUZZ_NR_OPS)].req |
		       _IOC((uint32_t)rng_below(r, 4), 0, 0,
			    (uint32_t)rng_below(r, 1 << 14));
	case 1:	/* our type, a number past the last */
		return _IOC((uint32_t)rng_below(r, 4), GSPACE_IOCTL_TYPE,
			    (uint32_t)(FUZZ_NR_OPS + rng_below(r, 250)),
			    (uint32_t)rng_below(r, 512));
	default:
		/*
		 * Anything, but never the VFS's own ioctls (FIFREEZE on
		 * devtmpfs, terminal and btrfs numbers): not ours to test.
		 */
		type = (uint32_t)rng_below(r, 256);
		if (type == 'X' || type == 'f' || type == 'T' ||
		    type == 0x94 || type == 0x12 || type == 'v')
			type = GSPACE_IOCTL_TYPE;
		return _IOC((uint32_t)rng_below(r, 4), type,
			    (uint32_t)rng_below(r, 256),
			    (uint32_t)rng_below(r, 1 << 14));
	}
}

/* Where the argument goes: mostly the arena, sometimes nowhere good. */
static void *fuzz_place(struct fuzz *f, uint8_t *built, size_t len,
			int *readback)
{
	static const uintptr_t wild[] = {
		0, 1, 8, 4095, 0xffff888000000000ULL, 0xffffffff81000000ULL,
		0xfffffffffffff000ULL, ~(uintptr_t)0 - 3, 0x8000000000000000ULL,
		0x00007ffffffff000ULL, 0x0000800000000000ULL,
	};
	struct gsp_rng *r = &f->rng;
	uint64_t roll = rng_below(r, 100);
	uint8_t *p;

	*readback = 0;
	if (roll < 82) {
		p = f->arena + 8 * rng_below(r, 8);
		memcpy(p, built, len);
		*readback = 1;
		return p;
	}
	if (roll < 88) {	/* straddles the guard page */
		size_t keep = 1 + rng_below(r, len);

		p = f->arena + 2 * f->pg - keep;
		memcpy(p, built, keep);
		return p;
	}
	if (roll < 91)		/* read-only: the answer cannot go back */
		return f->ro + 8 * rng_below(r, 4);
	if (roll < 93) {	/* misaligned, but valid */
		p = f->arena + 1 + rng_below(r, 7);
		memcpy(p, built, len);
		*readback = 1;
		return p;
	}
	if (roll < 95)
		return (void *)(f->hole + rng_below(r, f->pg));
	if (roll < 96)
		return f->arena + 2 * f->pg + rng_below(r, f->pg);
	return (void *)wild[rng_below(r, sizeof(wild) / sizeof(wild[0]))];
}

static void fuzz_ioctl(struct fuzz *f)
{
	uint8_t built[512] __attribute__((aligned(8)));
	struct gsp_rng *r = &f->rng;
	struct fuzz_tenant *t = fuzz_any_tenant(f);
	int op = (int)rng_below(r, FUZZ_NR_OPS);
	unsigned long req = fuzz_ops[op].req;
	int mutated = 0, readback, ret;
	void *arg;

	if (!t)
		return;
	/* More of the requests that do something. */
	if (rng_chance(r, 1, 3))
		op = rng_chance(r, 1, 2) ? OP_SUBMIT : OP_WAIT;
	req = fuzz_ops[op].req;
	memset(built, 0, sizeof(built));
	fuzz_build(f, t, op, built);
	if (rng_chance(r, 3, 10)) {
		fuzz_mutate(f, op, built, sizeof(built));
		mutated = 1;
	}
	if (rng_chance(r, 1, 25)) {
		req = fuzz_bad_request(f);
		mutated = 1;
	}
	arg = fuzz_place(f, built,
			 *(uint32_t *)built > fuzz_ops[op].size &&
			 *(uint32_t *)built <= sizeof(built) ?
			 *(uint32_t *)built : fuzz_ops[op].size, &readback);
	errno = 0;
	ret = gsp_ioctl(t->fd, req, arg);
	fuzz_count(f, ret);
	if (ret < 0 || !readback || req != fuzz_ops[op].req)
		return;

	switch (op) {
	case OP_SUBMIT: {
		struct gspace_submit s;

		memcpy(&s, arg, sizeof(s));
		f->slot->submits++;
		fuzz_remember(f, t, s.handle);
		if ((s.flags & GSPACE_SUBMIT_FENCE_OUT) && s.out_fence_fd >= 0)
			fuzz_keep_fence(f, s.out_fence_fd);
		break;
	}
	case OP_WAIT: {
		struct gspace_wait w;

		memcpy(&w, arg, sizeof(w));
		if (!(w.flags & GSPACE_WAIT_GRANTED))
			fuzz_forget(t, w.handle);
		break;
	}
	case OP_COMPLETE: {
		struct gspace_complete c;

		memcpy(&c, arg, sizeof(c));
		if (!(c.flags & GSPACE_COMPLETE_PROGRESS))
			fuzz_forget(t, c.handle);
		break;
	}
	default:
		break;
	}
	(void)mutated;
}

static void fuzz_tenant_close(struct fuzz_tenant *t)
{
	if (t->fd < 0)
		return;
	if (t->is_dup)
		close(t->fd);
	else
		gsp_close(t->fd);
	t->fd = -1;
	t->is_dup = 0;
	t->nh = 0;
}

static void fuzz_tenant_open(struct fuzz *f, struct fuzz_tenant *t)
{
	fuzz_tenant_close(t);
	t->fd = gsp_open();
	if (t->fd < 0)
		return;
	/* Most start somewhere other than device 0. */
	if (rng_chance(&f->rng, 2, 3)) {
		uint32_t dev = (uint32_t)rng_below(&f->rng, f->num_devices);

		if (f->lease_dev >= 0 && rng_chance(&f->rng, 1, 3))
			dev = (uint32_t)f->lease_dev;
		fuzz_count(f, ctx_set_raw(t->fd, dev, GSPACE_CLASS_BE,
					  GSPACE_WEIGHT_DEFAULT, 0));
	}
}

/* dup(2) of a tenant: the same tenant behind another descriptor. */
static void fuzz_dup(struct fuzz *f)
{
	struct fuzz_tenant *src = fuzz_any_tenant(f);
	struct fuzz_tenant *dst = &f->t[rng_below(&f->rng, FUZZ_TENANTS)];
	int fd;

	if (!src || src == dst)
		return;
	fd = dup(src->fd);
	if (fd < 0)
		return;
	f->slot->dups++;
	fuzz_tenant_close(dst);
	dst->fd = fd;
	dst->is_dup = 1;
}

static void fuzz_mmap(struct fuzz *f)
{
	struct gsp_rng *r = &f->rng;
	struct fuzz_map *m = &f->map[rng_below(r, FUZZ_MAPS)];
	struct fuzz_tenant *t = fuzz_any_tenant(f);
	size_t len = GSPACE_BOARD_SIZE;
	void *p;

	if (m->p) {
		munmap(m->p, m->len);
		m->p = NULL;
		return;
	}
	if (!t)
		return;
	if (f->on_daemon || rng_chance(r, 1, 2)) {
		p = gsp_board_map(t->fd, rng_chance(r, 1, 4));
	} else {
		static const size_t lens[] = { 0, 1, 4096, 8192, 1 << 20 };
		static const int prots[] = { PROT_READ, PROT_WRITE,
			PROT_READ | PROT_WRITE, PROT_NONE,
			PROT_READ | PROT_EXEC };
		off_t off = rng_chance(r, 3, 4) ? 0 :
			    (off_t)(rng_below(r, 4) * f->pg);

		len = lens[rng_below(r, sizeof(lens) / sizeof(lens[0]))];
		p = mmap(NULL, len, prots[rng_below(r, 5)],
			 rng_chance(r, 4, 5) ? MAP_SHARED : MAP_PRIVATE,
			 t->fd, off);
		if (p == MAP_FAILED)
			p = NULL;
	}
	if (!p)
		return;
	f->slot->maps++;
	m->p = p;
	m->len = len;
}

/* An LC tenant writes its own slot of the board with anything. */
static void fuzz_board_write(struct fuzz *f)
{
	struct fuzz_tenant *t = fuzz_any_tenant(f);
	struct gspace_board_lc *s;
	struct gspace_stats st;
	struct gspace_board *b;
	int ret;

	if (!t)
		return;
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	ret = gsp_ioctl(t->fd, GSPACE_IOCTL_STATS, &st);
	fuzz_count(f, ret);
	if (ret < 0 || st.lc_slot < 0 || st.lc_slot >= GSPACE_BOARD_LC_SLOTS)
		return;
	b = gsp_board_map(t->fd, 1);
	if (!b)
		return;
	s = &b->lc[st.lc_slot];
	switch (rng_below(&f->rng, 6)) {
	case 0:
		__atomic_store_n(&s->inflight, fuzz_interesting64(f),
				 __ATOMIC_RELAXED);
		break;
	case 1:
		__atomic_store_n(&s->stamp_ns, rng_chance(&f->rng, 1, 2) ?
				 now_ns() : fuzz_interesting64(f),
				 __ATOMIC_RELAXED);
		break;
	case 2:
		__atomic_store_n(&s->reserve, fuzz_interesting64(f),
				 __ATOMIC_RELAXED);
		break;
	case 3:
		__atomic_store_n(&s->cell, fuzz_interesting64(f),
				 __ATOMIC_RELAXED);
		break;
	case 4:
		__atomic_store_n(&s->search, fuzz_interesting64(f),
				 __ATOMIC_RELAXED);
		break;
	default:	/* the arbiter's field: it must not trust it */
		__atomic_store_n(&s->device, (uint32_t)fuzz_interesting64(f),
				 __ATOMIC_RELAXED);
		break;
	}
	munmap(b, GSPACE_BOARD_SIZE);
}

static void fuzz_alarm(int sig)
{
	(void)sig;
}

static void __attribute__((noreturn))
fuzz_worker(struct fuzz_shared *sh, int idx, uint64_t seed,
	    const struct gsp_info *info, int drop)
{
	struct fuzz f;
	struct sigaction sa;
	struct itimerval it;
	uint8_t *hole;
	int i;

	memset(&f, 0, sizeof(f));
	f.rng.s = seed;
	f.sh = sh;
	f.slot = &sh->slot[idx];
	f.num_devices = info->num_devices ? info->num_devices : 1;
	f.sim_devices = info->sim_devices;
	f.lease_dev = info->lease_dev;
	f.on_daemon = gsp_on_daemon();
	f.pg = sysconf(_SC_PAGESIZE);
	for (i = 0; i < FUZZ_TENANTS; i++)
		f.t[i].fd = -1;
	for (i = 0; i < FUZZ_FENCES; i++)
		f.fence[i] = -1;

	if (drop && (setgroups(0, NULL) || setresgid(FUZZ_UID, FUZZ_UID, FUZZ_UID) ||
		     setresuid(FUZZ_UID, FUZZ_UID, FUZZ_UID)))
		_exit(3);

	f.arena = mmap(NULL, 3 * f.pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	f.ro = mmap(NULL, f.pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	hole = mmap(NULL, f.pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f.arena == MAP_FAILED || f.ro == MAP_FAILED || hole == MAP_FAILED)
		_exit(3);
	mprotect(f.arena + 2 * f.pg, f.pg, PROT_NONE);
	/* A plausible header in the read-only page: the answer faults. */
	for (i = 0; i < 4; i++)
		fuzz_build(&f, &f.t[0], (int)rng_below(&f.rng, FUZZ_NR_OPS),
			   f.ro + 8 * i);
	mprotect(f.ro, f.pg, PROT_READ);
	munmap(hole, f.pg);
	f.hole = (uintptr_t)hole;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fuzz_alarm;	/* no SA_RESTART: EINTR */
	sigaction(SIGALRM, &sa, NULL);
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = 1000 + (long)rng_below(&f.rng, 9000);
	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);

	fuzz_tenant_open(&f, &f.t[0]);
	fuzz_tenant_open(&f, &f.t[1]);
	while (fuzz_total(sh, FUZZ_MAX_PROCS) < sh->target) {
		uint64_t roll = rng_below(&f.rng, 1000);

		if (roll < 960)
			fuzz_ioctl(&f);
		else if (roll < 970)
			fuzz_tenant_open(&f, &f.t[rng_below(&f.rng, FUZZ_TENANTS)]);
		else if (roll < 978)
			fuzz_tenant_close(&f.t[rng_below(&f.rng, FUZZ_TENANTS)]);
		else if (roll < 983)
			fuzz_dup(&f);
		else if (roll < 993)
			fuzz_mmap(&f);
		else if (roll < 996)
			fuzz_board_write(&f);
		else {
			i = (int)rng_below(&f.rng, FUZZ_FENCES);
			if (f.fence[i] >= 0) {
				fence_readable(f.fence[i], 0);
				close(f.fence[i]);
				f.fence[i] = -1;
			}
		}
		if (!fuzz_any_tenant(&f))
			fuzz_tenant_open(&f, &f.t[0]);
	}
	_exit(0);
}

/* The knobs the test process writes, and values to write: good and bad. */
static const struct fuzz_knob {
	const char *name;
	const char *vals[10];
} fuzz_knobs[] = {
	{ "policy", { "fifo", "credit", "band", "lottery", "0", "" } },
	{ "period_us", { "1000", "5000", "100000", "999", "10000001", "-5" } },
	{ "band_wait_us", { "0", "500", "100000", "100001", "x" } },
	{ "min_be_permille", { "0", "100", "1000", "1001" } },
	{ "reorder", { "0", "1", "2" } },
	{ "window", { "1", "8", "0", "100000" } },
	{ "watchdog_ms", { "1", "20", "200", "2000", "0", "3600001" } },
	{ "sim_devices", { "0", "1", "2", "3", "16", "17" } },
	{ "lease_devices", { "0", "1", "2", "15", "16" } },
	{ "lc_group", { "-1", "0", "1000", "4294967295", "4294967296", "-2" } },
	{ "lc_hold_us", { "0", "200", "100000", "100001" } },
	{ "lc_max_ms", { "1", "100", "60000", "0" } },
	{ "partition", { "0,0", "8,2", "256,32", "257,1", "auto", "8",
			 "0,2", "8, 2" } },
	{ "search", { "ns", "gns", "srs", "nn", "grid", "lr", "off" } },
	{ "protect", { "reactive", "reserved", "predictive", "preemptive",
		       "always" } },
	{ "predict_lead_us", { "1", "700", "100000", "0", "100001" } },
};

#define FUZZ_NR_KNOBS	(sizeof(fuzz_knobs) / sizeof(fuzz_knobs[0]))

struct fuzz_saved {
	char val[FUZZ_NR_KNOBS][64];
	int have[FUZZ_NR_KNOBS];
};

static void fuzz_knob_poke(struct gsp_rng *r)
{
	const struct fuzz_knob *k = &fuzz_knobs[rng_below(r, FUZZ_NR_KNOBS)];
	char junk[4200];
	int n = 0;

	while (n < 10 && k->vals[n])
		n++;
	if (rng_chance(r, 1, 10)) {
		size_t len = rng_chance(r, 1, 2) ? rng_below(r, 16) :
			     sizeof(junk) - 1 - rng_below(r, 200);
		size_t i;

		for (i = 0; i < len; i++)
			junk[i] = (char)(1 + rng_below(r, 255));
		junk[len] = 0;
		knob_write(k->name, junk);
		return;
	}
	knob_write(k->name, k->vals[rng_below(r, n)]);
}

static void fuzz_knobs_save(struct fuzz_saved *s)
{
	char raw[256];
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < FUZZ_NR_KNOBS; i++) {
		if (knob_read(fuzz_knobs[i].name, raw, sizeof(raw)))
			continue;
		knob_selected(raw, s->val[i], sizeof(s->val[i]));
		s->have[i] = 1;
	}
}

/* Restores every knob; the device counts need no job and a valid sum. */
static int fuzz_knobs_restore(const struct fuzz_saved *s)
{
	char raw[256], now[64];
	int round, bad = 0;
	size_t i;

	for (round = 0; round < 4; round++) {
		bad = 0;
		for (i = 0; i < FUZZ_NR_KNOBS; i++) {
			if (!s->have[i])
				continue;
			if (!knob_read(fuzz_knobs[i].name, raw, sizeof(raw))) {
				knob_selected(raw, now, sizeof(now));
				if (!strcmp(now, s->val[i]))
					continue;
			}
			if (knob_write(fuzz_knobs[i].name, s->val[i]))
				bad++;
		}
		if (!bad)
			break;
		sleep_ms(100);
	}
	for (i = 0; i < FUZZ_NR_KNOBS; i++) {
		if (!s->have[i])
			continue;
		if (knob_read(fuzz_knobs[i].name, raw, sizeof(raw)))
			return -1;
		knob_selected(raw, now, sizeof(now));
		if (strcmp(now, s->val[i])) {
			gsp_diag("knob %s is '%s', was '%s'",
				 fuzz_knobs[i].name, now, s->val[i]);
			return -1;
		}
	}
	return 0;
}

static pid_t fuzz_spawn(struct fuzz_shared *sh, int idx, uint64_t seed,
			uint64_t gen, const struct gsp_info *info, int drop)
{
	pid_t pid = fork();

	if (pid == 0)
		fuzz_worker(sh, idx, rng_derive(seed, gen), info, drop);
	return pid;
}

TEST_TIMEOUT(fuzz, 1800)
{
	uint64_t seed = gsp_seed("GSP_FUZZ_SEED");
	int nprocs = (int)gsp_env_count("GSP_FUZZ_PROCS", 4);
	int on_daemon = gsp_on_daemon();
	uint64_t target = gsp_env_count("GSP_FUZZ_IOCTLS", on_daemon ?
					FUZZ_IOCTLS_DAEMON : FUZZ_IOCTLS_DEV);
	struct gsp_objects base, end;
	struct fuzz_shared *sh;
	struct fuzz_saved saved;
	struct gsp_info info;
	pid_t pid[FUZZ_MAX_PROCS];
	uint64_t gen = 0, kills = 0, pokes = 0, t0, t1, last, last_t;
	uint64_t eintr = 0, efault = 0, ok = 0, submits = 0, maps = 0;
	uint64_t dups = 0, total;
	struct gsp_rng r = { rng_derive(seed, ~0ULL) };
	int kfd = -1, knobs = 0, oops = 0, root = geteuid() == 0;
	int i, fd, settled, restored = 0;

	ASSERT_LE(1, nprocs);
	ASSERT_GE(FUZZ_MAX_PROCS, nprocs);
	fd = t_open(_metadata);
	t_info(_metadata, fd, &info);
	gsp_close(fd);
	/*
	 * The checks read debugfs and the kernel log: root. The root run
	 * fuzzes unprivileged too, from half its processes.
	 */
	t_objects_baseline(_metadata, &base);
	gsp_diag("seed %llu (GSP_FUZZ_SEED=%llu replays it), %d processes, "
		 "%llu ioctls", (unsigned long long)seed,
		 (unsigned long long)seed, nprocs,
		 (unsigned long long)target);
	if (!on_daemon) {
		kfd = kmsg_open();
		ASSERT_LE(0, kfd);
		EXPECT_EQ(0, base.contexts);
		EXPECT_EQ(0, base.jobs);
		EXPECT_EQ(0, base.fences);
	}
	fuzz_knobs_save(&saved);
	if (!on_daemon)
		knobs = root;
	else
		knobs = knob_write("policy", saved.val[0]) == 0;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	memset(sh, 0, sizeof(*sh));
	sh->target = target;

	t0 = now_ns();
	for (i = 0; i < nprocs; i++) {
		pid[i] = fuzz_spawn(sh, i, seed, gen++, &info,
				    root && !on_daemon && (i & 1));
		ASSERT_LT(0, pid[i]);
	}
	last = 0;
	last_t = t0;
	for (;;) {
		int st;
		pid_t w;

		sleep_ms(5 + (unsigned int)rng_below(&r, 40));
		total = fuzz_total(sh, nprocs);
		if (total >= target)
			break;
		if (total != last) {
			last = total;
			last_t = now_ns();
		} else if (now_ns() - last_t > FUZZ_STALL_NS) {
			gsp_diag("no ioctl went through for %llu s: a hang "
				 "(seed %llu)",
				 FUZZ_STALL_NS / NSEC_PER_SEC,
				 (unsigned long long)seed);
			break;
		}
		/* A worker that ended on its own crashed: fail. */
		while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
			for (i = 0; i < nprocs; i++)
				if (pid[i] == w)
					break;
			if (i == nprocs)
				continue;
			if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
				gsp_diag("worker %d (pid %d) ended: %s %d",
					 i, (int)w, WIFSIGNALED(st) ?
					 "signal" : "exit",
					 WIFSIGNALED(st) ? WTERMSIG(st) :
					 WEXITSTATUS(st));
				_metadata->failed = 1;
			}
			pid[i] = fuzz_spawn(sh, i, seed, gen++, &info,
					    root && !on_daemon && (i & 1));
		}
		if (rng_chance(&r, 1, 8)) {
			i = (int)rng_below(&r, nprocs);
			if (pid[i] > 0) {
				kill(pid[i], SIGKILL);
				waitpid(pid[i], NULL, 0);
				kills++;
			}
			pid[i] = fuzz_spawn(sh, i, seed, gen++, &info,
					    root && !on_daemon && (i & 1));
		}
		if (knobs && rng_chance(&r, 1, 3)) {
			fuzz_knob_poke(&r);
			pokes++;
		}
	}
	for (i = 0; i < nprocs; i++)
		if (pid[i] > 0)
			kill(pid[i], SIGKILL);
	for (i = 0; i < nprocs; i++)
		if (pid[i] > 0)
			waitpid(pid[i], NULL, 0);
	t1 = now_ns();
	total = fuzz_total(sh, nprocs);
	for (i = 0; i < nprocs; i++) {
		eintr += sh->slot[i].eintr;
		efault += sh->slot[i].efault;
		ok += sh->slot[i].ok;
		submits += sh->slot[i].submits;
		maps += sh->slot[i].maps;
		dups += sh->slot[i].dups;
	}

	/*
	 * Every tenant is closed: every job ends and every fence goes. On
	 * the device nothing else is open: all 0.
	 */
	if (!on_daemon)
		memset(&base, 0, sizeof(base));
	settled = objects_settle(&base, &end, 10000);
	if (knobs)
		restored = fuzz_knobs_restore(&saved) == 0;
	if (kfd >= 0)
		oops = kmsg_count_oops(kfd);

	gsp_diag("%llu ioctls in %.1f s (%.0f/s), %d processes: %llu ok, "
		 "%llu EINTR, %llu EFAULT, %llu jobs, %llu maps, %llu dups, "
		 "%llu SIGKILLs, %llu knob writes, seed %llu",
		 (unsigned long long)total, (t1 - t0) / 1e9,
		 total / ((t1 - t0) / 1e9), nprocs, (unsigned long long)ok,
		 (unsigned long long)eintr, (unsigned long long)efault,
		 (unsigned long long)submits, (unsigned long long)maps,
		 (unsigned long long)dups, (unsigned long long)kills,
		 (unsigned long long)pokes, (unsigned long long)seed);
	if (!settled)
		gsp_diag("objects left: contexts %lld jobs %lld fences %lld "
			 "(baseline %lld %lld %lld)", end.contexts, end.jobs,
			 end.fences, base.contexts, base.jobs, base.fences);
	if (on_daemon)
		gsp_diag("daemon fuzz: %llu requests, objects %s baseline",
			 (unsigned long long)total,
			 settled ? "back to" : "NOT back to");
	else
		gsp_diag("fuzz: %llu ioctls, %d oops",
			 (unsigned long long)total, oops);
	EXPECT_LE(target, total);
	EXPECT_TRUE(settled);
	EXPECT_EQ(0, oops);
	if (knobs)
		EXPECT_TRUE(restored);
	/* The daemon's client retries its socket calls. */
	if (!on_daemon)
		EXPECT_LT(0, eintr);
	/* gspaced must still answer. */
	fd = gsp_open();
	ASSERT_LE(0, fd);
	t_info(_metadata, fd, &info);
	gsp_close(fd);
}

TEST_HARNESS_MAIN
