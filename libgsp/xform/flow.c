// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Do all threads of a block pass the same body barriers? (flow.h)
 *
 * Threads part only at a branch whose predicate may differ between them
 * (a "varying" branch). Its region is the smallest run of instructions
 * that holds the branch and its target and is closed under the targets
 * of every branch inside: a thread in it leaves only by falling through
 * its end, where all of them meet again, or by an exit. So the barriers
 * stay even unless a varying branch's region holds a barrier, or holds an
 * exit while a barrier is still reachable from the branch.
 *
 * A register is varying if one of its definitions reads a varying
 * register or special register, is anything but plain arithmetic or a
 * kernel parameter's load, is guarded by a varying predicate, or lies in
 * a varying branch's region; found by iterating to a fixpoint. Anything
 * this cannot follow (indirect branches, unknown labels, guarded
 * barriers) answers "uneven", which is always safe.
 */
#include <stdlib.h>
#include <string.h>
#include "flow.h"

#define MAX_PASSES	64	/* Bq fixpoint; beyond it, answer "uneven" */

enum { F_BRA = 1, F_EXIT = 2, F_BAR = 4, F_GUARD = 8, F_DONE = 16 };

/* Interned names (registers or labels) of one body: text -> id. */
struct names {
	const struct ptx_module *m;
	uint32_t *slot;		/* id + 1, 0 = empty */
	uint32_t *tok;		/* id -> a token with that text */
	uint32_t cap, n;
};

struct flow {
	const struct ptx_module *m;
	const struct ptx_func *f;
	uint32_t n;		/* instructions */
	uint32_t *stmt;		/* instruction -> statement */
	uint8_t *fl;		/* F_* */
	int32_t *tgt;		/* F_BRA: target instruction */
	int32_t *guard;		/* register id of the guard, -1 */
	uint8_t *div;		/* in a varying branch's region */
	uint8_t *bq;		/* a barrier is reachable from here */
	uint8_t *var;		/* per register: varying */
	struct names regs;
};

static uint32_t hash(const char *s, uint32_t len)
{
	uint32_t h = 2166136261u;

	while (len--)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

/* The id of token @t's text, added if @add; -1 if absent or no memory. */
static int32_t intern(struct names *nm, uint32_t t, int add)
{
	const struct ptx_tok *k = &nm->m->toks[t];
	const char *s = nm->m->src + k->off;
	uint32_t i;

	if (add && nm->n * 2 >= nm->cap) {
		uint32_t cap = nm->cap ? nm->cap * 2 : 256, j;
		uint32_t *slot = calloc(cap, sizeof(*slot));
		uint32_t *tok = realloc(nm->tok, cap * sizeof(*tok));

		if (!slot || !tok) {
			free(slot);
			if (tok)
				nm->tok = tok;
			return -1;
		}
		nm->tok = tok;
		for (j = 0; j < nm->cap; j++) {
			uint32_t id = nm->slot[j], p;
			const struct ptx_tok *o;

			if (!id)
				continue;
			o = &nm->m->toks[tok[id - 1]];
			for (p = hash(nm->m->src + o->off, o->len) & (cap - 1);
			     slot[p]; p = (p + 1) & (cap - 1))
				;
			slot[p] = id;
		}
		free(nm->slot);
		nm->slot = slot;
		nm->cap = cap;
	}
	if (!nm->cap)
		return -1;
	for (i = hash(s, k->len) & (nm->cap - 1); nm->slot[i];
	     i = (i + 1) & (nm->cap - 1)) {
		const struct ptx_tok *o = &nm->m->toks[nm->tok[nm->slot[i] - 1]];

		if (o->len == k->len && !memcmp(nm->m->src + o->off, s, k->len))
			return (int32_t)nm->slot[i] - 1;
	}
	if (!add)
		return -1;
	nm->tok[nm->n] = t;
	nm->slot[i] = ++nm->n;
	return (int32_t)nm->n - 1;
}

static void names_free(struct names *nm)
{
	free(nm->slot);
	free(nm->tok);
}

static int is_word(const struct ptx_module *m, uint32_t t)
{
	return m->toks[t].kind == PTX_WORD;
}

static int is_punct(const struct ptx_module *m, uint32_t t, char c)
{
	return m->toks[t].kind == PTX_PUNCT && m->src[m->toks[t].off] == c;
}

/*
 * Special registers: 0 not one, 1 the same for the whole block during a
 * task (%ctaid is the task's), 2 per thread or per moment.
 */
static int sreg(const struct ptx_module *m, uint32_t t)
{
	static const char *const uniform[] = {
		"%ctaid.x", "%ctaid.y", "%ctaid.z", "%nctaid.x", "%nctaid.y",
		"%nctaid.z", "%ntid.x", "%ntid.y", "%ntid.z",
		"%dynamic_smem_size", "%total_smem_size", "%nsmid",
	};
	static const char *const varying[] = {
		"%tid", "%laneid", "%warpid", "%nwarpid", "%smid", "%gridid",
		"%lanemask", "%clock", "%globaltimer", "%pm", "%envreg",
		"%cluster", "%ncluster", "%is_explicit_cluster",
		"%reserved_smem", "%aggr_smem", "%current_graph_exec",
		"%ctaid", "%nctaid", "%ntid",	/* vector forms */
	};
	size_t i;

	for (i = 0; i < sizeof(uniform) / sizeof(uniform[0]); i++)
		if (ptx_tok_is(m, t, uniform[i]))
			return 1;
	for (i = 0; i < sizeof(varying) / sizeof(varying[0]); i++)
		if (ptx_tok_prefix(m, t, varying[i]))
			return 2;
	return 0;
}

/* A user register: a %word that is no special register. */
static int is_reg(const struct ptx_module *m, uint32_t t)
{
	return is_word(m, t) && m->src[m->toks[t].off] == '%' && !sreg(m, t);
}

static int base_is(const struct ptx_module *m, uint32_t op, const char *b)
{
	size_t l = strlen(b);

	return ptx_tok_prefix(m, op, b) &&
	       (m->toks[op].len == l || m->src[m->toks[op].off + l] == '.');
}

/* Instructions that write no register (their first operand is read). */
static int no_dest(const struct ptx_module *m, uint32_t op)
{
	static const char *const ops[] = {
		"st", "red", "bar", "barrier", "bra", "ret", "exit", "membar",
		"fence", "prefetch", "prefetchu", "trap", "brkpt", "nanosleep",
		"pmevent", "call",
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (base_is(m, op, ops[i]))
			return 1;
	return 0;
}

/* Plain arithmetic: its result varies only if an operand does. */
static int pure(const struct ptx_module *m, uint32_t op)
{
	static const char *const ops[] = {
		"mov", "cvt", "cvta", "add", "sub", "mul", "mad", "mul24",
		"mad24", "sad", "div", "rem", "abs", "neg", "min", "max", "and",
		"or", "xor", "not", "cnot", "lop3", "shl", "shr", "shf", "setp",
		"set", "selp", "slct", "bfe", "bfi", "brev", "bfind", "clz",
		"popc", "prmt", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos",
		"lg2", "ex2", "tanh", "copysign", "testp", "dp4a", "dp2a",
	};
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (base_is(m, op, ops[i]))
			return 1;
	return 0;
}

/* Is word token @t one of @f's parameter names? */
static int kernel_param(const struct ptx_module *m, const struct ptx_func *f,
			uint32_t t)
{
	const struct ptx_tok *k = &m->toks[t];
	uint32_t p;

	for (p = f->param_open; f->param_close && p < f->param_close; p++)
		if (is_word(m, p) && m->toks[p].len == k->len &&
		    !memcmp(m->src + m->toks[p].off, m->src + k->off, k->len))
			return 1;
	return 0;
}

/* ld.param of a kernel parameter ("[NAME]" or "[NAME+off]"). */
static int param_load(const struct flow *w, const struct ptx_stmt *s)
{
	const struct ptx_module *m = w->m;
	uint32_t t, end = s->tok + s->ntok;

	if (!base_is(m, s->op, "ld") || !ptx_tok_prefix(m, s->op, "ld.param"))
		return 0;
	for (t = s->op + 1; t + 1 < end; t++)
		if (is_punct(m, t, '['))
			return is_word(m, t + 1) && kernel_param(m, w->f, t + 1);
	return 0;
}

/* Is @i guarded by a predicate that may differ between threads? */
static int guard_varies(const struct flow *w, uint32_t i)
{
	return (w->fl[i] & F_GUARD) &&
	       (w->guard[i] < 0 || w->var[w->guard[i]]);
}

/* One pass over the definitions; 1 if a register became varying. */
static int defs_pass(struct flow *w)
{
	const struct ptx_module *m = w->m;
	int changed = 0;
	uint32_t i, t;

	for (i = 0; i < w->n; i++) {
		const struct ptx_stmt *s = &m->stmts[w->stmt[i]];
		uint32_t end = s->tok + s->ntok, src = s->op + 1;
		int depth = 0, v;

		if (no_dest(m, s->op))
			continue;
		/* the destination operand: up to the first top-level ',' */
		for (; src < end; src++) {
			if (is_punct(m, src, '{'))
				depth++;
			else if (is_punct(m, src, '}'))
				depth--;
			else if (!depth && is_punct(m, src, ','))
				break;
		}
		v = w->div[i] || guard_varies(w, i) ||
		    !(pure(m, s->op) || param_load(w, s));
		for (t = src; !v && t < end; t++) {
			int32_t r;

			if (sreg(m, t) == 2)
				v = 1;
			else if (is_reg(m, t) && (r = intern(&w->regs, t, 0)) >= 0)
				v = w->var[r];
		}
		if (!v)
			continue;
		for (t = s->op + 1; t < src; t++) {
			int32_t r;

			if (is_reg(m, t) && (r = intern(&w->regs, t, 0)) >= 0 &&
			    !w->var[r]) {
				w->var[r] = 1;
				changed = 1;
			}
		}
	}
	return changed;
}

/* The region [*lo, *hi) of the branch at @i (see the file comment). */
static void region(const struct flow *w, uint32_t i, uint32_t *lo, uint32_t *hi)
{
	uint32_t t = (uint32_t)w->tgt[i], j;
	int grew = 1;

	*lo = t < i ? t : i;
	*hi = t < i ? i + 1 : t;
	while (grew) {
		grew = 0;
		for (j = *lo; j < *hi; j++) {
			if (!(w->fl[j] & F_BRA))
				continue;
			t = (uint32_t)w->tgt[j];
			if (t < *lo) {
				*lo = t;
				grew = 1;
			} else if (t > *hi) {
				*hi = t;
				grew = 1;
			}
		}
	}
}

/* Reads the body into @w; 0, or -1 if it cannot be followed. */
static int build(struct flow *w)
{
	const struct ptx_module *m = w->m;
	const struct ptx_func *f = w->f;
	struct names labels = { .m = m };
	int32_t *at = NULL;	/* label id -> instruction */
	uint32_t i, t, n = 0, nl = 0;
	int rc = -1;

	for (i = f->stmt; i < f->stmt + f->nstmt; i++)
		n += m->stmts[i].kind == PTX_S_INSN;
	w->n = n;
	w->stmt = calloc(n + 1, sizeof(*w->stmt));
	w->fl = calloc(n + 1, 1);
	w->tgt = calloc(n + 1, sizeof(*w->tgt));
	w->guard = calloc(n + 1, sizeof(*w->guard));
	w->div = calloc(n + 1, 1);
	w->bq = calloc(n + 1, 1);
	at = calloc(f->nstmt + 1, sizeof(*at));
	if (!w->stmt || !w->fl || !w->tgt || !w->guard || !w->div || !w->bq || !at)
		goto out;
	/* labels, then instructions with their registers */
	for (i = f->stmt, n = 0; i < f->stmt + f->nstmt; i++) {
		const struct ptx_stmt *s = &m->stmts[i];
		int32_t id;

		if (s->kind == PTX_S_LABEL) {
			id = intern(&labels, s->tok, 1);
			if (id < 0 || (uint32_t)id != nl)
				goto out;	/* no memory, or a label twice */
			at[nl++] = (int32_t)n;
		} else if (s->kind == PTX_S_INSN) {
			w->stmt[n++] = i;
			for (t = s->tok; t < s->tok + s->ntok; t++)
				if (is_reg(m, t) && intern(&w->regs, t, 1) < 0)
					goto out;
		}
	}
	w->var = calloc(w->regs.n + 1, 1);
	if (!w->var)
		goto out;
	for (i = 0; i < w->n; i++) {
		const struct ptx_stmt *s = &m->stmts[w->stmt[i]];
		uint32_t op = s->op;

		w->guard[i] = -1;
		if (op > s->tok) {
			w->fl[i] |= F_GUARD;
			if (is_reg(m, op - 1))
				w->guard[i] = intern(&w->regs, op - 1, 0);
		}
		if (base_is(m, op, "brx"))
			goto out;
		if (base_is(m, op, "bra")) {
			int32_t id = intern(&labels, op + 1, 0);

			if (id < 0)
				goto out;
			w->fl[i] |= F_BRA;
			w->tgt[i] = at[id];
		} else if (base_is(m, op, "ret") || base_is(m, op, "exit")) {
			w->fl[i] |= F_EXIT;
		} else if (base_is(m, op, "bar") || base_is(m, op, "barrier")) {
			if (w->fl[i] & F_GUARD)
				goto out;	/* a guarded barrier: not followed */
			w->fl[i] |= F_BAR;
		}
	}
	rc = 0;
out:
	free(at);
	names_free(&labels);
	return rc;
}

/* bq: a barrier is reachable from each instruction; -1 if too slow. */
static int reach_barriers(struct flow *w)
{
	int changed = 1, passes = 0;
	uint32_t i;

	while (changed) {
		if (++passes > MAX_PASSES)
			return -1;
		changed = 0;
		for (i = w->n; i-- > 0;) {
			uint8_t b = w->fl[i] & F_BAR ? 1 : 0;
			int through = !(w->fl[i] & (F_BRA | F_EXIT)) ||
				      (w->fl[i] & F_GUARD);

			if (through && i + 1 < w->n)
				b |= w->bq[i + 1];
			if (w->fl[i] & F_BRA)
				b |= w->bq[w->tgt[i]];
			if (b && !w->bq[i]) {
				w->bq[i] = 1;
				changed = 1;
			}
		}
	}
	return 0;
}

int ptx_uneven_barriers(const struct ptx_module *m, const struct ptx_func *f)
{
	struct flow w = { .m = m, .f = f, .regs = { .m = m } };
	int uneven = 1, bars = 0, changed = 1;
	uint32_t i, j, lo, hi;

	if (build(&w) || reach_barriers(&w))
		goto out;
	for (i = 0; i < w.n; i++)
		bars |= w.fl[i] & F_BAR;
	if (!bars) {
		uneven = 0;
		goto out;
	}
	/* varying registers and the regions of varying branches */
	while (changed) {
		changed = defs_pass(&w);
		for (i = 0; i < w.n; i++) {
			if (!(w.fl[i] & F_BRA) || (w.fl[i] & F_DONE) ||
			    !guard_varies(&w, i))
				continue;
			w.fl[i] |= F_DONE;
			region(&w, i, &lo, &hi);
			for (j = lo; j < hi; j++)
				w.div[j] = 1;
			changed = 1;
		}
	}
	for (i = 0; i < w.n; i++) {
		if (!guard_varies(&w, i))
			continue;
		if (w.fl[i] & F_EXIT) {
			if (w.bq[i])
				goto out;
			continue;
		}
		if (!(w.fl[i] & F_BRA))
			continue;
		region(&w, i, &lo, &hi);
		for (j = lo; j < hi; j++)
			if ((w.fl[j] & F_BAR) || ((w.fl[j] & F_EXIT) && w.bq[i]))
				goto out;
	}
	uneven = 0;
out:
	free(w.stmt);
	free(w.fl);
	free(w.tgt);
	free(w.guard);
	free(w.div);
	free(w.bq);
	free(w.var);
	names_free(&w.regs);
	return uneven;
}
