// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gsp-xform: analysis and rewriting of entry kernels (see xform.h and
 * Documentation/xform.rst). The rewritten body is the original body with
 * four kinds of edits, everything else copied byte for byte:
 *   - %ctaid.{x,y,z} operands read the task's values that the block's
 *     leader published in shared memory; %nctaid.{x,y,z} read the job
 *     parameter (struct gsp_persist_job, the clone's last parameter);
 *     calls of device functions that read them pass them to clones of
 *     those functions (funcs.c);
 *   - ret/exit become a branch to the task's join point;
 *   - the block barrier (bar.sync 0, barrier.sync 0) becomes a non-aligned
 *     barrier.sync 0 when every thread passes the same barriers in a task
 *     (flow.c); where a thread may leave a task early, a non-aligned
 *     barrier.red.and that says "not done", so that threads already at the
 *     join point (which arrive saying "done") keep joining the body's
 *     barriers until every thread of the block is done with the task;
 *   - the persistent prologue and task loop are inserted around it.
 *
 * The persistent prologue, task loop and join are PTX templates, in
 * libgsp/xform/templates/ (made C strings at build time, mk/xform.mk).
 *
 * Over 800 lines: the analysis (what a kernel may do to be transformed,
 * and the report of why not) and the rewriting share one parsed kernel
 * and one report, and each of the four edits above is checked in the
 * analysis that allows it; they could part around a shared kernel-state
 * header, as funcs.c and vars.c already have.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "flow.h"
#include "funcs.h"
#include "gsp_persist.h"
#include "ptx.h"
#include "sbuf.h"
#include "vars.h"
#include "xform.h"

/* The templates (the .ptx files of templates/) hard-code these offsets. */
_Static_assert(GSP_PERSIST_VERSION == 7, "template ABI");
_Static_assert(GSP_PERSIST_JOB_SIZE == 64, "template offsets");
_Static_assert(GSP_PERSIST_JOB_CTL == 0, "template offsets");
_Static_assert(GSP_PERSIST_JOB_CTRL_PTR == 8, "template offsets");
_Static_assert(GSP_PERSIST_JOB_NTASKS == 16, "template offsets");
_Static_assert(GSP_PERSIST_JOB_NCTAID == 24, "template offsets");
_Static_assert(GSP_PERSIST_JOB_K_SLOTS == 36, "template offsets");
_Static_assert(GSP_PERSIST_JOB_REFRESH_NS == 40, "template offsets");
_Static_assert(GSP_PERSIST_JOB_BATCH_NS == 44, "template offsets");
_Static_assert(GSP_PERSIST_JOB_FLAGS == 48, "template offsets");
_Static_assert(GSP_PERSIST_LINGER == 4, "boundary.ptx: the decision's wait bit");
_Static_assert(GSP_PERSIST_JOB_COPY_NS == 52, "template offsets");
_Static_assert(GSP_PERSIST_JOB_WORD == 56, "template offsets");
_Static_assert(GSP_PERSIST_PRIMARY == 1, "template offsets");
_Static_assert(GSP_PERSIST_WAITED == 2, "template offsets");
_Static_assert(GSP_PERSIST_OFF_NEXT_TASK == 0, "template offsets");
_Static_assert(GSP_PERSIST_OFF_DONE_TASKS == 128, "template offsets");
_Static_assert(GSP_PERSIST_OFF_LIVE == 256, "template offsets");
_Static_assert(GSP_PERSIST_OFF_PRIMARY_LIVE == 260, "template offsets");
_Static_assert(GSP_PERSIST_OFF_LAST_YIELD_NS == 384, "template offsets");
_Static_assert(GSP_PERSIST_OFF_YIELDS == 392, "template offsets");
_Static_assert(GSP_PERSIST_OFF_NO_SLOT == 396, "template offsets");
_Static_assert(GSP_PERSIST_OFF_REFRESHES == 400, "template offsets");
_Static_assert(GSP_PERSIST_OFF_PAUSES == 404, "template offsets");
_Static_assert(GSP_PERSIST_OFF_CTRL_MIRROR == 512, "template offsets");
_Static_assert(GSP_PERSIST_OFF_REFRESH_AT == 520, "template offsets");
_Static_assert(GSP_PERSIST_OFF_REFRESH_CLAIM == 528, "template offsets");
_Static_assert(GSP_PERSIST_OFF_OVR_PTR == 536, "template offsets");
_Static_assert(GSP_PERSIST_OFF_SM == 640 && GSP_PERSIST_SM_SIZE == 32,
	       "template offsets");
_Static_assert(GSP_PERSIST_OFF_SM + GSP_PERSIST_SM_SLOT_MASK == 640 &&
	       GSP_PERSIST_OFF_SM + GSP_PERSIST_SM_RANK == 644 &&
	       GSP_PERSIST_OFF_SM + GSP_PERSIST_SM_WORD == 656 &&
	       GSP_PERSIST_OFF_SM + GSP_PERSIST_SM_STAMP == 664,
	       "template offsets");
_Static_assert(GSP_PERSIST_MAX_SM == 256, "template offsets");
_Static_assert(GSP_PERSIST_MAX_BATCH == 32, "template offsets");

/*
 * __gsp_sh, 880 bytes of shared memory, 16-byte aligned. First the
 * leader's state across tasks (in shared memory, not registers: a
 * register live across the body costs every thread):
 *   0  u64 the block's copy of the control word, u64 the stamp of the
 *      SM's copy it came from
 *  16  u64 %globaltimer at the batch's claim (0: none to measure),
 *      u64 tasks claimed (all run by the time the block leaves)
 *  32  u64 end of the last batch, u32 B, u32 division mode (0: 1-D,
 *      none; 1: 32-bit; 2: 64-bit)
 *  48  u32 SM rank, slot, %smid, slot bit
 *  64  u32 primary, log2 of the grid rounded up (the batch cap's shift)
 * then two batch buffers, at 80 and 480, of 400 bytes each:
 *   0  u32 go, u32 how: go = 0: leave, and how says how: bit 0 release
 *      the slot, bit 1 count a yield, bit 2 (the last primary block)
 *      wait until every task is done
 *   8  the batch's tasks, at most GSP_PERSIST_MAX_BATCH: u32 ctaid.x,
 *      ctaid.y, ctaid.z (12 bytes: u16 y and z made ptxas's code for
 *      lbm take 10 registers more); a ctaid.x of 0xffffffff ends them.
 * The leader fills one buffer while the block runs the other's tasks.
 * Each thread's %__gsp_cur points at the task it runs, so a task costs
 * a thread one add and one load, and the body's %ctaid reads never race
 * with the leader's next decision.
 */
#define SH_CTAID	0	/* from %__gsp_cur: u32 ctaid.x, y, z */

/* struct gsp_persist_job by value: .param .align 8 .b8 NAME__gsp_param_job[64] */
#define TPL_JOB_PARAM	".param .align 8 .b8 "
#define TPL_JOB_DIM	"[64]"

/*
 * The templates, with what they do and why, are PTX files in templates/;
 * tools/ptx2c.sh makes them the TPL_ string macros of xform_tpl.h
 * (mk/xform.mk). "@P" in them stands for the job parameter's name
 * (sb_tpl).
 */
#include "xform_tpl.h"

static const char tpl_decls[] = TPL_DECLS;
static const char tpl_prologue[] = TPL_PROLOGUE;	/* prologue.ptx */
static const char tpl_again[] = TPL_AGAIN;		/* task.ptx */
static const char tpl_body[] = TPL_BODY;
static const char tpl_next[] = TPL_NEXT;
static const char tpl_next_alone[] = TPL_NEXT_ALONE;
static const char tpl_next_met[] = TPL_NEXT_MET;
static const char tpl_next_even[] = TPL_NEXT_EVEN;
static const char tpl_epilogue[] = TPL_EPILOGUE;	/* boundary.ptx */
static const char tpl_join_rest[] = TPL_JOIN_REST;	/* join.ptx */
static const char tpl_join_batch[] = TPL_JOIN_BATCH;
static const char tpl_join_end[] = TPL_JOIN_END;
static const char tpl_join_sep[] = TPL_JOIN_SEP;
static const char tpl_barrier_pre[] = TPL_BARRIER_PRE;	/* barrier.ptx */
static const char tpl_barrier_post[] = TPL_BARRIER_POST;
static const char tpl_barrier_end[] = TPL_BARRIER_END;
static const char tpl_barrier_even[] = TPL_BARRIER_EVEN;

/* A template with "@P" replaced by the control parameter's name. */
static void sb_tpl(struct sbuf *b, const char *tpl, const char *param)
{
	const char *at;

	while ((at = strstr(tpl, "@P"))) {
		sb_put(b, tpl, at - tpl);
		sb_str(b, param);
		tpl = at + 2;
	}
	sb_str(b, tpl);
}

/* ---- analysis ---- */

struct finding {
	enum gsp_xform_reason reason;
	unsigned line;
	char detail[160];
};

/* What one function does, as far as its callers care. */
struct fscan {
	struct finding hard;	/* grid sync, DP, clusters, %smid: first one */
	struct finding func;	/* for a .func: %ctaid, exit or a barrier */
	struct finding barrier;	/* for an entry: a barrier it cannot join */
	struct finding other;	/* reserved names, unsupported operands */
	uint32_t *callees;	/* function indices */
	uint32_t ncallees;
	int indirect;		/* calls through a pointer */
	int meets;		/* is_meeting_op() somewhere */
};

static void note(struct finding *f, enum gsp_xform_reason r, unsigned line,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void note(struct finding *f, enum gsp_xform_reason r, unsigned line,
		 const char *fmt, ...)
{
	va_list ap;

	if (f->reason)
		return;	/* keep the first */
	f->reason = r;
	f->line = line;
	va_start(ap, fmt);
	vsnprintf(f->detail, sizeof(f->detail), fmt, ap);
	va_end(ap);
}

static int tok_eq(const struct ptx_module *m, uint32_t t, const char *s, size_t l)
{
	return m->toks[t].len == l && !memcmp(m->src + m->toks[t].off, s, l);
}

/* The function of that name: its definition, where a prototype comes
 * first (a call must be followed into the body), else any; -1: none. */
static int find_func(const struct ptx_module *m, const char *name, size_t l)
{
	uint32_t i;
	int any = -1;

	for (i = 0; i < m->nfuncs; i++)
		if (tok_eq(m, m->funcs[i].name_tok, name, l)) {
			if (m->funcs[i].has_body)
				return (int)i;
			if (any < 0)
				any = (int)i;
		}
	return any;
}

static int contains(const char *s, size_t l, const char *needle)
{
	size_t n = strlen(needle), i;

	for (i = 0; i + n <= l; i++)
		if (!memcmp(s + i, needle, n))
			return 1;
	return 0;
}

/* bar.sync 0 / barrier.sync[.aligned] 0 and their .cta spellings. */
static int is_block_barrier_op(const struct ptx_module *m, uint32_t op)
{
	return ptx_tok_is(m, op, "bar.sync") || ptx_tok_is(m, op, "barrier.sync") ||
	       ptx_tok_is(m, op, "barrier.sync.aligned") ||
	       ptx_tok_is(m, op, "bar.cta.sync") ||
	       ptx_tok_is(m, op, "barrier.cta.sync") ||
	       ptx_tok_is(m, op, "barrier.cta.sync.aligned");
}

static int is_barrier_op(const struct ptx_module *m, uint32_t op)
{
	return (ptx_tok_prefix(m, op, "bar.") || ptx_tok_prefix(m, op, "barrier.")) &&
	       !ptx_tok_prefix(m, op, "bar.warp.") &&
	       !ptx_tok_prefix(m, op, "barrier.cluster");
}

/* A whole-block barrier 0 that we can rewrite: "OP 0 ;". */
static int is_plain_barrier(const struct ptx_module *m, const struct ptx_stmt *s)
{
	uint32_t op = s->op;

	return is_block_barrier_op(m, op) && s->tok + s->ntok == op + 3 &&
	       ptx_tok_is(m, op + 1, "0");
}

/*
 * Can threads of a block meet or talk within a task through this
 * instruction? Barriers, warp-collective operations, and the shared or
 * generic atomics, ordered accesses and fences by which threads of a block
 * order their accesses to shared memory. Without any, a thread's work in
 * a task depends on no other thread's, so it may start its next task at
 * once (Documentation/xform.rst, "Batches").
 */
static int is_meeting_op(const struct ptx_module *m, uint32_t op)
{
	static const char *const bases[] = {
		"bar", "barrier", "shfl", "vote", "match", "redux", "activemask",
		"elect", "wmma", "mma", "wgmma", "ldmatrix", "stmatrix",
		"movmatrix", "mbarrier", "tcgen05", "setmaxnreg",
	};
	const char *w = m->src + m->toks[op].off;
	size_t i, l = m->toks[op].len, b = 0;

#define BASE_IS(s) (b == sizeof(s) - 1 && !memcmp(w, s, b))
	while (b < l && w[b] != '.')
		b++;
	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++)
		if (strlen(bases[i]) == b && !memcmp(w, bases[i], b))
			return 1;
	if (contains(w, l, "bulk") ||
	    ((BASE_IS("membar") || BASE_IS("fence")) && contains(w, l, ".cta")))
		return 1;
	if (contains(w, l, ".global"))
		return 0;
	if (BASE_IS("atom") || BASE_IS("red"))
		return 1;
	return (BASE_IS("ld") || BASE_IS("st")) &&
	       (contains(w, l, ".volatile") || contains(w, l, ".relaxed") ||
		contains(w, l, ".acquire") || contains(w, l, ".release"));
#undef BASE_IS
}

static int is_exit_op(const struct ptx_module *m, uint32_t op)
{
	return ptx_tok_is(m, op, "ret") || ptx_tok_is(m, op, "ret.uni") ||
	       ptx_tok_is(m, op, "exit");
}

static void scan_call(const struct ptx_module *m, const struct ptx_stmt *s,
		      struct fscan *fs)
{
	uint32_t t, end = s->tok + s->ntok;
	int depth = 0;

	for (t = s->op + 1; t < end; t++) {
		const struct ptx_tok *k = &m->toks[t];
		const char *w = m->src + k->off;
		int fi;

		if (k->kind == PTX_PUNCT) {
			depth += *w == '(' ? 1 : *w == ')' ? -1 : 0;
			continue;
		}
		if (depth || k->kind != PTX_WORD)
			continue;
		/* the first word outside the return list is the callee */
		if (*w == '%') {
			fs->indirect = 1;
			return;
		}
		if (contains(w, k->len, "cudaCG"))
			note(&fs->hard, GSP_XFORM_GRID_SYNC, k->line,
			     "calls %.*s", (int)k->len, w);
		else if (contains(w, k->len, "cudaLaunchDevice") ||
			 contains(w, k->len, "cudaGetParameterBuffer") ||
			 contains(w, k->len, "cudaCDP") ||
			 contains(w, k->len, "cudaDeviceSynchronize"))
			note(&fs->hard, GSP_XFORM_DYN_PAR, k->line,
			     "calls %.*s", (int)k->len, w);
		fi = find_func(m, w, k->len);
		if (fi >= 0) {
			uint32_t *c = realloc(fs->callees,
					      (fs->ncallees + 1) * sizeof(*c));

			if (c) {
				fs->callees = c;
				fs->callees[fs->ncallees++] = (uint32_t)fi;
			} else {
				fs->indirect = 1;	/* be conservative */
			}
		}
		return;
	}
}

static void scan_func(const struct ptx_module *m, const struct ptx_func *f,
		      struct fscan *fs)
{
	uint32_t i, t;

	for (t = f->dir_tok; t < f->dir_tok + f->ndir_tok; t++)
		if (ptx_tok_is(m, t, ".explicitcluster") ||
		    ptx_tok_is(m, t, ".reqnctapercluster") ||
		    ptx_tok_is(m, t, ".maxclusterrank"))
			note(&fs->hard, GSP_XFORM_CLUSTER, m->toks[t].line,
			     "directive %.*s", (int)m->toks[t].len,
			     m->src + m->toks[t].off);
	for (i = f->stmt; i < f->stmt + f->nstmt; i++) {
		const struct ptx_stmt *s = &m->stmts[i];
		unsigned line = m->toks[s->tok].line;

		for (t = s->tok; t < s->tok + s->ntok; t++) {
			const struct ptx_tok *k = &m->toks[t];
			const char *w = m->src + k->off;
			int len = (int)k->len;

			if (k->kind != PTX_WORD)
				continue;
			if (ptx_tok_prefix(m, t, "%__gsp") ||
			    ptx_tok_prefix(m, t, "$__gsp") ||
			    ptx_tok_prefix(m, t, "__gsp"))
				note(&fs->other, GSP_XFORM_NAME, k->line,
				     "uses the reserved name %.*s", len, w);
			if (s->kind != PTX_S_INSN)
				continue;
			if (ptx_tok_is(m, t, "%smid") || ptx_tok_is(m, t, "%nsmid") ||
			    ptx_tok_is(m, t, "%gridid"))
				note(&fs->hard, GSP_XFORM_SM_ID, k->line,
				     "reads %.*s", len, w);
			else if (ptx_tok_prefix(m, t, "%cluster") ||
				 ptx_tok_prefix(m, t, "%nclusterid") ||
				 ptx_tok_prefix(m, t, "%is_explicit_cluster"))
				note(&fs->hard, GSP_XFORM_CLUSTER, k->line,
				     "reads %.*s", len, w);
			else if (ptx_tok_prefix(m, t, "%envreg"))
				note(&fs->hard, GSP_XFORM_GRID_SYNC, k->line,
				     "reads %.*s (cooperative launch's grid workspace)",
				     len, w);
			else if ((ptx_tok_is(m, t, "%ctaid") ||
				  ptx_tok_is(m, t, "%nctaid")) && f->is_entry)
				note(&fs->other, GSP_XFORM_UNSUPPORTED, k->line,
				     "reads %.*s as a vector", len, w);
			else if (ptx_tok_is(m, t, "%ctaid") || ptx_tok_is(m, t, "%nctaid"))
				note(&fs->func, GSP_XFORM_FUNC, k->line,
				     "reads %.*s as a vector", len, w);
		}
		if (s->kind != PTX_S_INSN)
			continue;
		t = s->op;
		if (ptx_tok_prefix(m, t, "barrier.cluster") || ptx_tok_is(m, t, "mapa") ||
		    ptx_tok_prefix(m, t, "mapa.") || ptx_tok_prefix(m, t, "getctarank") ||
		    contains(m->src + m->toks[t].off, m->toks[t].len, "multicast::cluster"))
			note(&fs->hard, GSP_XFORM_CLUSTER, line, "%.*s",
			     (int)m->toks[t].len, m->src + m->toks[t].off);
		if (ptx_tok_prefix(m, t, "call"))
			scan_call(m, s, fs);
		fs->meets |= is_meeting_op(m, t);
		if (is_barrier_op(m, t)) {
			if (!f->is_entry)
				note(&fs->func, GSP_XFORM_FUNC, line, "%.*s",
				     (int)m->toks[t].len, m->src + m->toks[t].off);
			else if (!is_plain_barrier(m, s))
				note(&fs->barrier, GSP_XFORM_BARRIER, line,
				     "%.*s (only 'bar.sync 0' and 'barrier.sync 0' are joined)",
				     (int)m->toks[t].len, m->src + m->toks[t].off);
		}
		if (!f->is_entry && ptx_tok_is(m, t, "exit"))
			note(&fs->func, GSP_XFORM_FUNC, line, "exit");
	}
}

/* The reason entry e cannot be transformed, or GSP_XFORM_OK; *meets: an
 * is_meeting_op() is reachable from it. */
static void judge(const struct xfuncs *x, uint32_t e, struct fscan *fs,
		  struct finding *out, int *meets)
{
	const struct ptx_module *m = x->m;
	uint8_t *seen = calloc(m->nfuncs ? m->nfuncs : 1, 1);
	uint32_t *stack = calloc(m->nfuncs ? m->nfuncs : 1, sizeof(*stack));
	uint32_t sp = 0, i;
	struct finding hard = { 0 }, func = { 0 }, name = { 0 };
	const struct ptx_func *ef = &m->funcs[e];
	int all = fs[e].indirect;

	memset(out, 0, sizeof(*out));
	*meets = 1;
	if (!seen || !stack) {
		note(out, GSP_XFORM_UNSUPPORTED, 0, "out of memory");
		goto done;
	}
	seen[e] = 1;
	stack[sp++] = e;
	*meets = 0;
	while (sp) {
		uint32_t fi = stack[--sp];
		const struct fscan *c = &fs[fi];
		const struct ptx_tok *fn = &m->toks[m->funcs[fi].name_tok];

		if (c->hard.reason)
			note(&hard, c->hard.reason, c->hard.line, "%s", c->hard.detail);
		if (c->func.reason)
			note(&func, GSP_XFORM_FUNC, c->func.line, "%s in %.*s",
			     c->func.detail, (int)fn->len, m->src + fn->off);
		/* its clone (funcs.c) would use reserved names */
		if (fi != e && x->need[fi] && x->taken[fi])
			note(&name, GSP_XFORM_NAME, fn->line,
			     "%.*s" GSP_XFUNC_SUFFIX " exists already",
			     (int)fn->len, m->src + fn->off);
		else if (fi != e && x->need[fi] && c->other.reason == GSP_XFORM_NAME)
			note(&name, GSP_XFORM_NAME, c->other.line, "%s in %.*s",
			     c->other.detail, (int)fn->len, m->src + fn->off);
		all |= c->indirect;
		*meets |= c->meets;
		for (i = 0; i < c->ncallees; i++)
			if (!seen[c->callees[i]]) {
				seen[c->callees[i]] = 1;
				stack[sp++] = c->callees[i];
			}
	}
	if (all)	/* an indirect call may reach any function */
		for (i = 0; i < m->nfuncs; i++) {
			const struct ptx_tok *fn = &m->toks[m->funcs[i].name_tok];
			const struct ptx_tok *id = &m->toks[x->first[i]];

			if (m->funcs[i].is_entry)
				continue;
			if (x->own[i])
				note(&func, GSP_XFORM_FUNC, id->line,
				     "reads %.*s in %.*s, which an indirect call "
				     "may reach (the task's ids go to direct "
				     "calls only)", (int)id->len, m->src + id->off,
				     (int)fn->len, m->src + fn->off);
			if (seen[i])
				continue;
			*meets |= fs[i].meets;
			if (fs[i].hard.reason)
				note(&hard, fs[i].hard.reason, fs[i].hard.line,
				     "%s (through an indirect call)", fs[i].hard.detail);
			if (fs[i].func.reason)
				note(&func, GSP_XFORM_FUNC, fs[i].func.line,
				     "%s in a function reached by an indirect call",
				     fs[i].func.detail);
		}
	if (!ef->has_body)
		note(out, GSP_XFORM_NO_BODY, m->toks[ef->name_tok].line,
		     "declaration only");
	else if (m->target_sm < 70)
		note(out, GSP_XFORM_TARGET, 0,
		     "target sm_%d: needs sm_70 or later (non-aligned barriers)",
		     m->target_sm);
	else if (fs[e].other.reason == GSP_XFORM_NAME)
		*out = fs[e].other;	/* e.g. already transformed */
	else if (hard.reason)
		*out = hard;
	else if (func.reason)
		*out = func;
	else if (name.reason)
		*out = name;
	else if (fs[e].barrier.reason)
		*out = fs[e].barrier;
	else if (fs[e].other.reason)
		*out = fs[e].other;
done:
	free(seen);
	free(stack);
}

/* ---- rewriting ---- */

/* Emits one body statement, rewritten where it must be. */
static void emit_stmt(struct sbuf *b, const struct xfuncs *x,
		      const struct ptx_stmt *s, const char *job, int uneven)
{
	const struct ptx_module *m = x->m;
	uint32_t start = ptx_stmt_start(m, s), end = ptx_stmt_end(m, s);

	if (s->kind != PTX_S_INSN) {
		put_src(b, m, start, end);
		return;
	}
	if (is_exit_op(m, s->op)) {
		put_src(b, m, start, m->toks[s->op].off);	/* predicate */
		sb_str(b, "bra $__gsp_next;");
		return;
	}
	if (is_plain_barrier(m, s) && !uneven) {
		put_src(b, m, start, m->toks[s->op].off);
		sb_str(b, tpl_barrier_even);
		return;
	}
	if (is_plain_barrier(m, s)) {
		sb_str(b, tpl_barrier_pre);
		put_src(b, m, start, m->toks[s->op].off);
		sb_str(b, tpl_barrier_post);
		put_src(b, m, start, m->toks[s->op].off);	/* predicate */
		sb_str(b, tpl_barrier_end);
		return;
	}
	/* virtual %ctaid (the task entry) and %nctaid (the job), also for
	 * the functions it calls (funcs.c) */
	xfuncs_insn(b, x, s, job);
}

/* the end of the prologue: the batch's join for even bodies, the body's label */
static void emit_body_start(struct sbuf *b, int even)
{
	if (even)
		sb_str(b, tpl_again);
	sb_str(b, tpl_body);
}

static void emit_clone(struct sbuf *b, const struct xfuncs *x,
		       const struct ptx_func *f, int uneven, int alone)
{
	const struct ptx_module *m = x->m;
	const struct ptx_tok *name = &m->toks[f->name_tok];
	int even = !uneven && !alone;
	uint32_t i, ins, cur;
	char *param;
	size_t pl = name->len + sizeof(GSP_PERSIST_SUFFIX "_param_job");

	param = malloc(pl);
	if (!param) {
		b->oom = 1;
		return;
	}
	snprintf(param, pl, "%.*s" GSP_PERSIST_SUFFIX "_param_job",
		 (int)name->len, m->src + name->off);

	sb_str(b, "\n\t// gsp-xform: ");
	put_tok(b, m, f->name_tok);
	sb_str(b, " in persistent form\n");
	put_src(b, m, m->toks[f->start_tok].off, name->off);
	put_tok(b, m, f->name_tok);
	sb_str(b, GSP_PERSIST_SUFFIX);
	if (f->param_close) {
		const struct ptx_tok *last = &m->toks[f->param_close - 1];

		put_src(b, m, m->toks[f->param_open].off, last->off + last->len);
		if (f->param_close > f->param_open + 1)
			sb_str(b, ",");
		sb_str(b, "\n\t" TPL_JOB_PARAM);
		sb_str(b, param);
		sb_str(b, TPL_JOB_DIM "\n)");
		cur = m->toks[f->param_close].off + 1;
	} else {
		sb_str(b, "(\n\t" TPL_JOB_PARAM);
		sb_str(b, param);
		sb_str(b, TPL_JOB_DIM "\n)");
		cur = name->off + name->len;
	}
	put_src(b, m, cur, m->toks[f->body_open].off + 1);

	/* the prologue goes after the leading declarations */
	for (ins = f->stmt; ins < f->stmt + f->nstmt; ins++) {
		const struct ptx_stmt *s = &m->stmts[ins];

		if (s->kind != PTX_S_DECL && s->kind != PTX_S_LINEDIR)
			break;
	}
	cur = m->toks[f->body_open].off + 1;
	for (i = f->stmt; i < f->stmt + f->nstmt; i++) {
		const struct ptx_stmt *s = &m->stmts[i];

		if (i == ins) {
			/* at the start of the statement's line */
			uint32_t at = ptx_stmt_start(m, s);

			while (at > cur && m->src[at - 1] != '\n')
				at--;
			put_src(b, m, cur, at);
			if (at == cur || m->src[at - 1] != '\n')
				sb_str(b, "\n");
			sb_str(b, tpl_decls);
			sb_tpl(b, tpl_prologue, param);
			emit_body_start(b, even);
			cur = at;
		}
		put_src(b, m, cur, ptx_stmt_start(m, s));
		emit_stmt(b, x, s, param, uneven);
		cur = ptx_stmt_end(m, s);
	}
	if (ins == f->stmt + f->nstmt) {
		put_src(b, m, cur, m->toks[f->body_close].off);
		sb_str(b, "\n");
		sb_str(b, tpl_decls);
		sb_tpl(b, tpl_prologue, param);
		emit_body_start(b, even);
	} else {
		put_src(b, m, cur, m->toks[f->body_close].off);
	}
	sb_str(b, tpl_next);
	sb_str(b, alone ? tpl_next_alone : even ? tpl_next_even : tpl_next_met);
	sb_tpl(b, tpl_epilogue, param);
	if (uneven)
		sb_str(b, tpl_join_sep);
	sb_str(b, tpl_join_rest);
	/* never taken where tasks run alone either, but dropping it there made
	 * ptxas's lbm 1-2 % slower on an H200 (bench/EXPERIMENTS.md,
	 * 2026-11-21-h200-even-join, run5) */
	if (!even)
		sb_str(b, tpl_join_batch);
	sb_tpl(b, tpl_join_end, param);
	sb_str(b, "}\n");
	free(param);
}

const char *gsp_xform_reason_name(enum gsp_xform_reason r)
{
	switch (r) {
	case GSP_XFORM_OK:		return "ok";
	case GSP_XFORM_GRID_SYNC:	return "grid-sync";
	case GSP_XFORM_DYN_PAR:		return "dynamic-parallelism";
	case GSP_XFORM_CLUSTER:		return "cluster";
	case GSP_XFORM_SM_ID:		return "sm-id";
	case GSP_XFORM_BARRIER:		return "barrier";
	case GSP_XFORM_FUNC:		return "function";
	case GSP_XFORM_TARGET:		return "target";
	case GSP_XFORM_NAME:		return "name";
	case GSP_XFORM_UNSUPPORTED:	return "unsupported";
	case GSP_XFORM_NO_BODY:		return "no-body";
	case GSP_XFORM_NOT_SELECTED:	return "not-selected";
	case GSP_XFORM_NO_PTX:		return "no-ptx";
	}
	return "?";
}

/* NAME's own .param entries: where the interposer appends the job. */
static unsigned count_params(const struct ptx_module *m, const struct ptx_func *f)
{
	unsigned n = 0;
	uint32_t t;

	for (t = f->param_open; f->param_close && t < f->param_close; t++)
		n += ptx_tok_is(m, t, ".param");
	return n;
}

static int selected(const struct ptx_module *m, uint32_t name_tok,
		    const char *const *only)
{
	if (!only)
		return 1;
	for (; *only; only++)
		if (ptx_tok_is(m, name_tok, *only))
			return 1;
	return 0;
}

/*
 * Module variables through references (vars.c), once there are clones:
 * if the output cannot be rewritten, no kernel is transformed (the input
 * is the output). 0, or -1 when out of memory.
 */
static int redirect_vars(struct gsp_xform_result *r, const char *src,
			 size_t len)
{
	char why[128], *out;
	size_t i, out_len, any = 0;
	int rc;

	for (i = 0; i < r->nk; i++)
		any += r->k[i].reason == GSP_XFORM_OK;
	if (!any)
		return 0;
	rc = gsp_xvars_redirect(r->out, r->out_len, &out, &out_len, &r->vars,
				&r->nvars, why, sizeof(why));
	if (rc == -2)
		return -1;
	if (!rc && out) {
		free(r->out);
		r->out = out;
		r->out_len = out_len;
	}
	if (!rc)
		return 0;
	for (i = 0; i < r->nk; i++) {
		struct gsp_xform_kernel *k = &r->k[i];

		if (k->reason != GSP_XFORM_OK)
			continue;
		k->reason = GSP_XFORM_UNSUPPORTED;
		k->line = 0;
		snprintf(k->detail, sizeof(k->detail), "module variables: %s", why);
	}
	out = strndup(src, len);
	if (!out)
		return -1;
	free(r->out);
	r->out = out;
	r->out_len = len;
	return 0;
}

int gsp_xform(const char *src, size_t len, const char *const *only,
	      struct gsp_xform_result *r, char *err, size_t errlen)
{
	struct ptx_module m;
	struct fscan *fs = NULL;
	struct xfuncs x = { 0 };
	struct sbuf b = { 0 };
	uint32_t i, cur = 0, nentries = 0;
	size_t ki = 0;
	int rc = -1;

	memset(r, 0, sizeof(*r));
	if (memchr(src, 0, len)) {
		snprintf(err, errlen, "not PTX text (a NUL byte: a cubin or fatbin?)");
		return GSP_XFORM_NO_PTX_INPUT;
	}
	if (ptx_parse(&m, src, len, err, errlen))
		return -1;
	for (i = 0; i < m.nfuncs; i++)
		nentries += m.funcs[i].is_entry;
	fs = calloc(m.nfuncs ? m.nfuncs : 1, sizeof(*fs));
	r->k = calloc(nentries ? nentries : 1, sizeof(*r->k));
	if (!fs || !r->k || xfuncs_init(&x, &m))
		goto oom;
	for (i = 0; i < m.nfuncs; i++)
		if (m.funcs[i].has_body)
			scan_func(&m, &m.funcs[i], &fs[i]);
	/* every kernel judged first: a function's clone may come before it */
	for (i = 0; i < m.nfuncs; i++) {
		const struct ptx_func *f = &m.funcs[i];
		const struct ptx_tok *nt = &m.toks[f->name_tok];
		struct gsp_xform_kernel *k;
		struct finding why;
		char clone[512];
		int meets;

		if (!f->is_entry)
			continue;
		k = &r->k[r->nk++];
		k->name = strndup(m.src + nt->off, nt->len);
		if (!k->name)
			goto oom;
		k->nparams = count_params(&m, f);
		snprintf(clone, sizeof(clone), "%s" GSP_PERSIST_SUFFIX, k->name);
		if (!selected(&m, f->name_tok, only)) {
			k->reason = GSP_XFORM_NOT_SELECTED;
			continue;
		}
		judge(&x, i, fs, &why, &meets);
		if (!why.reason && find_func(&m, clone, strlen(clone)) >= 0)
			note(&why, GSP_XFORM_NAME, nt->line, "%s exists already", clone);
		k->reason = why.reason;
		k->line = why.line;
		memcpy(k->detail, why.detail, sizeof(k->detail));
		if (why.reason)
			continue;
		k->uneven = ptx_uneven_barriers(&m, f);
		k->alone = !meets;
		if (xfuncs_mark(&x, i))
			goto oom;
	}
	/* the originals stay; each clone follows its original */
	for (i = 0; i < m.nfuncs; i++) {
		const struct ptx_func *f = &m.funcs[i];
		const struct gsp_xform_kernel *k = f->is_entry ? &r->k[ki++] : NULL;

		if (k ? k->reason != GSP_XFORM_OK : !xfuncs_cloned(&x, i))
			continue;
		put_src(&b, &m, cur, m.toks[f->end_tok - 1].off + 1);
		cur = m.toks[f->end_tok - 1].off + 1;
		if (k)
			emit_clone(&b, &x, f, k->uneven, k->alone);
		else
			xfuncs_emit(&b, &x, i);
	}
	if (sb_finish(&b, &m, cur))
		goto oom;
	r->out = b.p;
	r->out_len = b.len;
	b.p = NULL;
	if (redirect_vars(r, src, len))
		goto oom;
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
	gsp_xform_result_free(r);
out:
	for (i = 0; fs && i < m.nfuncs; i++)
		free(fs[i].callees);
	free(fs);
	xfuncs_free(&x);
	free(b.p);
	ptx_free(&m);
	return rc;
}

int gsp_xform_maxnreg(const char *src, size_t len, const char *name,
		      unsigned int regs, char **out, size_t *out_len,
		      char *err, size_t errlen)
{
	struct sbuf b = { 0 };
	const struct ptx_func *f;
	struct ptx_module m;
	uint32_t t, at = 0, skip = 0;
	char num[24];
	int i, rc;

	*out = NULL;
	if (regs < 1 || regs > 255) {
		snprintf(err, errlen, ".maxnreg %u: must be 1..255", regs);
		return -1;
	}
	if (ptx_parse(&m, src, len, err, errlen))
		return -1;
	i = find_func(&m, name, strlen(name));
	f = i < 0 ? NULL : &m.funcs[i];
	if (!f || !f->is_entry || !f->has_body) {
		snprintf(err, errlen, "no kernel %s with a body in the module", name);
		ptx_free(&m);
		return -1;
	}
	/* a .maxnreg already there: lowered, never raised */
	for (t = f->dir_tok; t < f->dir_tok + f->ndir_tok; t++) {
		unsigned long old;
		char *end;

		if (!ptx_tok_is(&m, t, ".maxnreg"))
			continue;
		if (t + 1 >= f->dir_tok + f->ndir_tok ||
		    m.toks[t + 1].len >= sizeof(num)) {
			snprintf(err, errlen, "line %u: .maxnreg without a count",
				 m.toks[t].line);
			ptx_free(&m);
			return -1;
		}
		memcpy(num, m.src + m.toks[t + 1].off, m.toks[t + 1].len);
		num[m.toks[t + 1].len] = 0;
		old = strtoul(num, &end, 0);
		if (*end || !old) {
			snprintf(err, errlen, "line %u: .maxnreg %s is not a count",
				 m.toks[t].line, num);
			ptx_free(&m);
			return -1;
		}
		if (old <= regs)
			regs = 0;	/* already as low: the module as it is */
		at = m.toks[t].off;
		skip = m.toks[t + 1].off + m.toks[t + 1].len - at;
		break;
	}
	if (!at)
		at = m.toks[f->body_open].off;
	put_src(&b, &m, 0, at);
	if (regs) {
		snprintf(num, sizeof(num), ".maxnreg %u%s", regs, skip ? "" : "\n");
		sb_str(&b, num);
	} else {
		skip = 0;
	}
	rc = sb_finish(&b, &m, at + skip);
	ptx_free(&m);
	if (rc) {
		free(b.p);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	*out = b.p;
	*out_len = b.len;
	return 0;
}

void gsp_xform_result_free(struct gsp_xform_result *r)
{
	size_t i;

	for (i = 0; r->k && i < r->nk; i++)
		free(r->k[i].name);
	free(r->k);
	for (i = 0; i < r->nvars; i++)
		free(r->vars[i]);
	free(r->vars);
	free(r->out);
	memset(r, 0, sizeof(*r));
}
