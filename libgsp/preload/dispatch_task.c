// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * BE task shapes, for CuMAS (Documentation/scheduler.rst, "CuMAS
 * ordering"): what each of the process's streams does between two
 * copy-ins, learned from the ops the dispatcher issues, so that a
 * copy-in can be submitted as a task head (GSPACE_SUBMIT_TASK_HEAD) with
 * the kernel and copy-out costs that follow it, and every lease with the
 * GPU time its stage is expected to take instead of the quantum.
 *
 * A task on a stream starts with a host-to-device copy that follows
 * anything else on that stream; it holds the copies in before its first
 * kernel or copy out, then every compute op and device-to-host copy up to
 * the next such copy in. Its stage costs are the sums of the ops'
 * estimates when they were issued: a kernel's (or graph's, memset's)
 * EWMA of measured GPU time (cost_get()), a copy's bytes at the
 * direction's measured rate (learned from the same end events, copies of
 * 64 KiB and more), else the copy's EWMA. A copy-in is submitted as a
 * head once its stream has finished one task with a kernel or copy out:
 * the prediction is the last whole task's shape on that stream.
 * Dispatcher thread only, no locks.
 */
#define _GNU_SOURCE
#include <string.h>

#include "dispatch_internal.h"

#define SHAPES		16		/* streams followed, least recently used out */
#define BW_MIN_BYTES	65536		/* shorter copies are latency, not rate */

struct shape {
	CUcontext ctx;
	CUstream stream;
	uint64_t used;		/* shape_tick at the last op; 0: free */
	int phase;		/* 0 none yet, 1 copying in, 2 after the copy-in */
	uint64_t s, p, r;	/* the task being built: copy-in, compute, copy-out */
	uint64_t ks, kp, kr;	/* the last whole task's, once known */
	int known;
};

static struct shape shapes[SHAPES];
static uint64_t shape_tick;
/* ns per MiB of each copy direction, EWMA; 0: not measured yet */
static uint64_t bw_ns_mib[GSPACE_ENGINE_COUNT];

static int is_copy_engine(uint32_t engine)
{
	return engine == GSPACE_ENGINE_COPY_H2D ||
	       engine == GSPACE_ENGINE_COPY_D2H;
}

uint64_t op_bytes(const struct gsp_op *op)
{
	switch (op->kind) {
	case OP_COPY:
	case OP_COPY_PEER:
		return op->u.cp.n;
	case OP_COPY_2D:
		return (uint64_t)op->u.c2.WidthInBytes * op->u.c2.Height;
	case OP_COPY_3D:
		return (uint64_t)op->u.c3.WidthInBytes * op->u.c3.Height *
		       op->u.c3.Depth;
	case OP_COPY_3D_PEER:
		return (uint64_t)op->u.c3p.WidthInBytes * op->u.c3p.Height *
		       op->u.c3p.Depth;
	default:
		return 0;
	}
}

void bw_put(uint32_t engine, uint64_t bytes, uint64_t ns)
{
	uint64_t old, x;

	if (!is_copy_engine(engine) || bytes < BW_MIN_BYTES || !ns)
		return;
	x = (uint64_t)((double)ns * 1048576.0 / (double)bytes);
	if (!x)
		x = 1;
	old = bw_ns_mib[engine];
	bw_ns_mib[engine] = old ? old - old / 8 + x / 8 : x;
}

uint64_t op_est(const struct gsp_op *op)
{
	uint64_t b;

	if (op->engine < GSPACE_ENGINE_COUNT && is_copy_engine(op->engine) &&
	    bw_ns_mib[op->engine] && (b = op_bytes(op)) >= BW_MIN_BYTES)
		return (uint64_t)((double)b * (double)bw_ns_mib[op->engine] /
				  1048576.0);
	return op->key ? cost_get(op->key) : 0;
}

static struct shape *shape_of(CUcontext ctx, CUstream stream, int make)
{
	struct shape *old = &shapes[0];
	unsigned int i;

	for (i = 0; i < SHAPES; i++) {
		struct shape *sh = &shapes[i];

		if (sh->used && sh->ctx == ctx && sh->stream == stream)
			return sh;
		if (sh->used < old->used)
			old = sh;
	}
	if (!make)
		return NULL;
	memset(old, 0, sizeof(*old));
	old->ctx = ctx;
	old->stream = stream;
	return old;
}

void task_note(const struct gsp_op *op)
{
	struct shape *sh;
	uint64_t c;

	if (op->kind == OP_GATE || op->engine >= GSPACE_ENGINE_COUNT)
		return;
	sh = shape_of(op->ctx, op->stream, op->engine == GSPACE_ENGINE_COPY_H2D);
	if (!sh)
		return;
	sh->used = ++shape_tick;
	c = op_est(op);
	switch (op->engine) {
	case GSPACE_ENGINE_COPY_H2D:
		if (sh->phase == 2) {
			sh->ks = sh->s;
			sh->kp = sh->p;
			sh->kr = sh->r;
			sh->known = 1;
		}
		if (sh->phase != 1)
			sh->s = sh->p = sh->r = 0;
		sh->phase = 1;
		sh->s += c;
		break;
	case GSPACE_ENGINE_COMPUTE:
		if (sh->phase) {
			sh->phase = 2;
			sh->p += c;
		}
		break;
	default:
		if (sh->phase) {
			sh->phase = 2;
			sh->r += c;
		}
		break;
	}
}

static uint64_t cap(uint64_t ns)
{
	return ns > GSPACE_COST_MAX_NS ? GSPACE_COST_MAX_NS : ns;
}

void task_submit(const struct gsp_op *op, struct gspace_submit *sub)
{
	const struct shape *sh;
	uint64_t c = 0;

	sub->engine = op->engine;
	sub->cost_ns = tenant.quantum_ns;
	if (!tenant.task_heads || op->kind == OP_GATE)
		return;
	sh = shape_of(op->ctx, op->stream, 0);
	if (sh && sh->known) {
		switch (op->engine) {
		case GSPACE_ENGINE_COPY_H2D:
			c = sh->ks;
			break;
		case GSPACE_ENGINE_COMPUTE:
			c = sh->kp;
			break;
		default:
			c = sh->kr;
			break;
		}
	}
	if (!c)
		c = op_est(op);
	if (c)
		sub->cost_ns = cap(c);
	if (op->engine == GSPACE_ENGINE_COPY_H2D && sh && sh->known &&
	    sh->phase == 1 && (sh->kp || sh->kr)) {
		sub->flags |= GSPACE_SUBMIT_TASK_HEAD;
		sub->task_compute_ns = cap(sh->kp);
		sub->task_d2h_ns = cap(sh->kr);
	}
}
