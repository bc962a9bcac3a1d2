/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ioctl fuzzer's requests (gspace_fuzz_test.c): one worker's state
 * and what it holds (tenants, handles, fences, maps), how a request is
 * built from it, mutated and placed at a good or bad address, and the
 * other actions a worker takes (open, dup and close of tenants, mmap of
 * the board, writes of its slot). Apart from the test so that its
 * processes, knobs and checks read on their own.
 */
#ifndef GSP_FUZZ_REQ_H
#define GSP_FUZZ_REQ_H

#include <stddef.h>

#include "gsp_util.h"
#include "gsp_chaos.h"
#include "gsp_drm_util.h"

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
	{ "DRM_BIND", GSPACE_IOCTL_DRM_BIND, sizeof(struct gspace_drm_bind),
	  sizeof(struct gspace_drm_bind) },
	{ "DRM_SUBMIT", GSPACE_IOCTL_DRM_SUBMIT,
	  sizeof(struct gspace_drm_submit), sizeof(struct gspace_drm_submit) },
};

#define FUZZ_NR_OPS	(sizeof(fuzz_ops) / sizeof(fuzz_ops[0]))
enum { OP_VERSION, OP_CTX_SET, OP_SUBMIT, OP_WAIT, OP_COMPLETE, OP_CANCEL,
       OP_STATS, OP_DRM_BIND, OP_DRM_SUBMIT };

/* Counters of one worker slot, kept across the processes that fill it. */
struct fuzz_slot {
	uint64_t ioctls, ok, eintr, efault, submits, drm_submits, maps, dups;
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
	/*
	 * gsp-testdrm's render node (-1 where there is none: the DRM ops
	 * then name other fds), a syncobj of it, and the payload DRM_SUBMIT
	 * points at, with room for the sizes the fuzzer passes past it.
	 */
	int drm;
	uint32_t drm_syncobj;
	uint8_t drm_payload[GSPACE_DRM_PAYLOAD_MAX + 16]
		__attribute__((aligned(8)));
};

/* The worker's render node and syncobj, when gsp-testdrm is loaded. */
static void fuzz_drm_open(struct fuzz *f)
{
	struct t_drm_syncobj_create c = { 0 };

	f->drm = open_render();
	if (f->drm >= 0 && !ioctl(f->drm, T_DRM_IOCTL_SYNCOBJ_CREATE, &c))
		f->drm_syncobj = c.handle;
}

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
	case OP_DRM_BIND: {
		struct gspace_drm_bind *b = buf;

		if (rng_chance(r, 1, 8)) {
			b->flags = GSPACE_DRM_BIND_UNBIND;
			break;
		}
		b->drm_fd = f->drm >= 0 && rng_chance(r, 3, 4) ? f->drm :
							       fuzz_fd(f);
		b->adapter = rng_chance(r, 7, 8) ? GSPACE_DRM_ADAPTER_TESTDRM :
						   (uint32_t)rng_below(r, 4);
		/* Mostly 0 or 1, so that payloads often name it. */
		b->channel = rng_chance(r, 7, 8) ? (uint32_t)rng_below(r, 2) :
			     (uint32_t)rng_below(r, GSP_TESTDRM_CONTEXTS + 2);
		break;
	}
	case OP_DRM_SUBMIT: {
		struct gspace_drm_submit *s = buf;
		struct drm_gsp_testdrm_submit *p = (void *)f->drm_payload;

		memset(f->drm_payload, 0, sizeof(f->drm_payload));
		payload_init(p, (uint32_t)rng_below(r, 2),
			     rng_chance(r, 7, 8) ? f->drm_syncobj :
			     (uint32_t)rng_below(r, 8), rng_below(r, 500),
			     rng_next(r));
		if (rng_chance(r, 1, 10))
			p->flags = GSP_TESTDRM_SUBMIT_FAIL;
		if (rng_chance(r, 1, 8))
			f->drm_payload[rng_below(r, sizeof(*p))] ^=
				(uint8_t)(1U << rng_below(r, 8));
		s->payload_ptr = (uintptr_t)p;
		s->payload_size = rng_chance(r, 9, 10) ? sizeof(*p) :
			(uint32_t)rng_below(r, sizeof(f->drm_payload) + 1);
		s->cost_ns = rng_below(r, NSEC_PER_MSEC);
		s->user_tag = rng_next(r);
		if (rng_chance(r, 1, 4)) {
			s->flags |= GSPACE_SUBMIT_FENCE_OUT;
			s->out_fence_fd = -1;
		}
		if (rng_chance(r, 1, 6)) {
			s->flags |= GSPACE_SUBMIT_FENCE_IN;
			s->in_fence_fd = fuzz_fence(f);
		}
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
	case OP_DRM_SUBMIT: {
		struct gspace_drm_submit s;

		memcpy(&s, arg, sizeof(s));
		f->slot->submits++;
		f->slot->drm_submits++;
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

#endif /* GSP_FUZZ_REQ_H */
