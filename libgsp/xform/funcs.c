// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The virtual %ctaid/%nctaid of a task, passed to device functions.
 *
 * A transformed block runs other blocks' tasks, so a .func that reads
 * %ctaid or %nctaid would see the persistent block's ids. Its clone
 * NAME__gsp_f takes the ids it needs (its own reads and those of the
 * functions it calls directly) as trailing .param .b32 parameters and
 * reads them there; the kernels' clones and the functions' clones call
 * the clone instead, passing their own ids. The originals stay for the
 * original kernels. Kept apart from xform.c, which rewrites the entries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "funcs.h"
#include "gsp_persist.h"

_Static_assert(GSP_PERSIST_JOB_NCTAID == 24, "the job's nctaid");

static const char *const id_sreg[XF_NIDS] = {
	"%nctaid.x", "%nctaid.y", "%nctaid.z",
	"%ctaid.x", "%ctaid.y", "%ctaid.z",
};
/* a clone's parameter for each id: __gsp_<name> */
static const char *const id_param[XF_NIDS] = {
	"nctaid_x", "nctaid_y", "nctaid_z", "ctaid_x", "ctaid_y", "ctaid_z",
};

int xf_grid_sreg(const struct ptx_module *m, uint32_t t)
{
	int i;

	for (i = 0; i < XF_NIDS; i++)
		if (ptx_tok_is(m, t, id_sreg[i]))
			return i;
	return -1;
}

/* The callee token of a call: the first word outside parentheses. */
static uint32_t callee_tok(const struct ptx_module *m, const struct ptx_stmt *s)
{
	uint32_t t, end = s->tok + s->ntok;
	int depth = 0;

	for (t = s->op + 1; t < end; t++) {
		const struct ptx_tok *k = &m->toks[t];
		char c = m->src[k->off];

		if (k->kind == PTX_PUNCT)
			depth += c == '(' ? 1 : c == ')' ? -1 : 0;
		else if (!depth && k->kind == PTX_WORD)
			return t;
	}
	return 0;
}

int xfuncs_callee(const struct xfuncs *x, const struct ptx_stmt *s)
{
	const struct ptx_module *m = x->m;
	uint32_t t;

	if (s->kind != PTX_S_INSN || !ptx_tok_prefix(m, s->op, "call"))
		return -1;
	t = callee_tok(m, s);
	if (!t || m->src[m->toks[t].off] == '%')
		return -1;	/* through a register */
	return names_get(&x->defs, m->src + m->toks[t].off, m->toks[t].len);
}

/* One pass over the bodies: the ids each reads; @fill: the call edges. */
static uint32_t scan(struct xfuncs *x, int fill)
{
	const struct ptx_module *m = x->m;
	uint32_t i, st, t, n = 0;

	for (i = 0; i < m->nfuncs; i++) {
		const struct ptx_func *f = &m->funcs[i];

		if (fill)
			x->edge0[i] = n;
		for (st = f->stmt; f->has_body && st < f->stmt + f->nstmt; st++) {
			const struct ptx_stmt *s = &m->stmts[st];
			int d = xfuncs_callee(x, s), r;

			if (d >= 0) {
				if (fill)
					x->to[n] = (uint32_t)d;
				n++;
			}
			if (!fill || f->is_entry || s->kind != PTX_S_INSN)
				continue;
			for (t = s->op + 1; t < s->tok + s->ntok; t++) {
				r = xf_grid_sreg(m, t);
				if (r < 0)
					continue;
				x->own[i] |= 1u << r;
				if (!x->first[i])
					x->first[i] = t;
			}
		}
	}
	if (fill)
		x->edge0[m->nfuncs] = n;
	return n;
}

int xfuncs_init(struct xfuncs *x, const struct ptx_module *m)
{
	size_t n = m->nfuncs ? m->nfuncs : 1;
	uint32_t i, j;
	int changed = 1;

	memset(x, 0, sizeof(*x));
	x->m = m;
	if (names_init(&x->defs, m->nfuncs))
		return -1;
	for (i = 0; i < m->nfuncs; i++)
		if (m->funcs[i].has_body)
			names_put(&x->defs, m->src + m->toks[m->funcs[i].name_tok].off,
				  m->toks[m->funcs[i].name_tok].len, i);
	x->own = calloc(n, 1);
	x->need = calloc(n, 1);
	x->clone = calloc(n, 1);
	x->taken = calloc(n, 1);
	x->first = calloc(n, sizeof(*x->first));
	x->edge0 = calloc(n + 1, sizeof(*x->edge0));
	x->to = calloc(scan(x, 0) + 1, sizeof(*x->to));
	if (!x->own || !x->need || !x->clone || !x->taken || !x->first ||
	    !x->edge0 || !x->to)
		return -1;
	scan(x, 1);
	memcpy(x->need, x->own, m->nfuncs);
	/* callers need what their callees need, recursion included */
	while (changed) {
		changed = 0;
		for (i = 0; i < m->nfuncs; i++) {
			uint8_t was = x->need[i];

			if (m->funcs[i].is_entry)
				continue;
			for (j = x->edge0[i]; j < x->edge0[i + 1]; j++)
				x->need[i] |= x->need[x->to[j]];
			changed |= x->need[i] != was;
		}
	}
	/* a clone's name already in use (a second pass, or a user's name) */
	for (i = 0; i < m->nfuncs; i++) {
		const struct ptx_tok *k = &m->toks[m->funcs[i].name_tok];
		size_t l = strlen(GSP_XFUNC_SUFFIX);
		int d;

		if (k->len <= l || memcmp(m->src + k->off + k->len - l,
					  GSP_XFUNC_SUFFIX, l))
			continue;
		d = names_get(&x->defs, m->src + k->off, k->len - (uint32_t)l);
		if (d >= 0)
			x->taken[d] = 1;
	}
	return 0;
}

void xfuncs_free(struct xfuncs *x)
{
	names_free(&x->defs);
	free(x->own);
	free(x->need);
	free(x->clone);
	free(x->taken);
	free(x->first);
	free(x->edge0);
	free(x->to);
	memset(x, 0, sizeof(*x));
}

int xfuncs_mark(struct xfuncs *x, uint32_t e)
{
	uint32_t *stack = malloc((x->m->nfuncs + 1) * sizeof(*stack));
	uint32_t sp = 0, j, fi;

	if (!stack)
		return -1;
	stack[sp++] = e;
	while (sp) {
		fi = stack[--sp];
		for (j = x->edge0[fi]; j < x->edge0[fi + 1]; j++) {
			uint32_t c = x->to[j];

			if (x->need[c] && !x->clone[c]) {
				x->clone[c] = 1;
				stack[sp++] = c;
			}
		}
	}
	free(stack);
	return 0;
}

/* The definition of function @fi's name, or -1. */
static int def_of(const struct xfuncs *x, uint32_t fi)
{
	const struct ptx_tok *k = &x->m->toks[x->m->funcs[fi].name_tok];

	return names_get(&x->defs, x->m->src + k->off, k->len);
}

int xfuncs_cloned(const struct xfuncs *x, uint32_t fi)
{
	int d = x->m->funcs[fi].is_entry ? -1 : def_of(x, fi);

	return d >= 0 && x->clone[d];
}

/* %__gsp_v@v = id @r: the task's (an entry's clone) or the parameter's */
static void put_load(struct sbuf *b, int r, int v, const char *job)
{
	char buf[64];

	if (job && r < 3) {
		snprintf(buf, sizeof(buf), "ld.param.u32 %%__gsp_v%d, [", v);
		sb_str(b, buf);
		sb_str(b, job);
		snprintf(buf, sizeof(buf), "+%d];", GSP_PERSIST_JOB_NCTAID + 4 * r);
	} else if (job) {	/* the task entry: u32 ctaid.x, y, z */
		snprintf(buf, sizeof(buf),
			 "ld.shared.u32 %%__gsp_v%d, [%%__gsp_cur+%d];",
			 v, 4 * (r - 3));
	} else {
		snprintf(buf, sizeof(buf), "ld.param.u32 %%__gsp_v%d, [__gsp_%s];",
			 v, id_param[r]);
	}
	sb_str(b, buf);
}

/*
 * A call of a clone: the ids it needs go into .param variables of a
 * block around the call, appended to its arguments.
 */
static void emit_call(struct sbuf *b, const struct xfuncs *x,
		      const struct ptx_stmt *s, int d, const char *job)
{
	const struct ptx_module *m = x->m;
	uint32_t c = callee_tok(m, s), end = s->tok + s->ntok, at, t;
	int r, n = 0, args = 0;
	char buf[64];

	sb_str(b, "{\n");
	for (r = 0; r < XF_NIDS; r++) {
		if (!(x->need[d] & (1u << r)))
			continue;
		snprintf(buf, sizeof(buf), "\t.param .b32 __gsp_a%d;\n\t", n);
		sb_str(b, buf);
		put_load(b, r, n, job);
		snprintf(buf, sizeof(buf), "\n\tst.param.b32 [__gsp_a%d], %%__gsp_v%d;\n",
			 n, n);
		sb_str(b, buf);
		n++;
	}
	sb_str(b, "\t");
	put_src(b, m, ptx_stmt_start(m, s), m->toks[c].off);
	put_tok(b, m, c);
	sb_str(b, GSP_XFUNC_SUFFIX);
	at = m->toks[c].off + m->toks[c].len;
	if (c + 2 < end && ptx_tok_is(m, c + 1, ",") && ptx_tok_is(m, c + 2, "(")) {
		/* after the last argument, or right after '(' */
		for (t = c + 3; t < end && !ptx_tok_is(m, t, ")"); t++)
			args = 1;
		at = m->toks[t - 1].off + m->toks[t - 1].len;
		put_src(b, m, m->toks[c].off + m->toks[c].len, at);
	} else {
		sb_str(b, ", (");
	}
	for (r = 0; r < n; r++) {
		snprintf(buf, sizeof(buf), "%s__gsp_a%d", args || r ? ", " : "", r);
		sb_str(b, buf);
	}
	if (at == m->toks[c].off + m->toks[c].len)
		sb_str(b, ")");
	put_src(b, m, at, ptx_stmt_end(m, s));
	sb_str(b, "\n\t}");
}

void xfuncs_insn(struct sbuf *b, const struct xfuncs *x,
		 const struct ptx_stmt *s, const char *job)
{
	const struct ptx_module *m = x->m;
	uint32_t start = ptx_stmt_start(m, s), end = ptx_stmt_end(m, s);
	uint32_t t, cur = start;
	int d = xfuncs_callee(x, s), nv = 0, r;
	char buf[32];

	if (d >= 0 && x->clone[d]) {
		emit_call(b, x, s, d, job);
		return;
	}
	/* load each id just before its use: no register held across the body */
	for (t = s->op + 1; t < s->tok + s->ntok; t++) {
		r = xf_grid_sreg(m, t);
		if (r < 0)
			continue;
		put_load(b, r, nv++, job);
		sb_str(b, "\n\t");
	}
	nv = 0;
	for (t = s->op + 1; t < s->tok + s->ntok; t++) {
		if (xf_grid_sreg(m, t) < 0)
			continue;
		put_src(b, m, cur, m->toks[t].off);
		snprintf(buf, sizeof(buf), "%%__gsp_v%d", nv++);
		sb_str(b, buf);
		cur = m->toks[t].off + m->toks[t].len;
	}
	put_src(b, m, cur, end);
}

void xfuncs_emit(struct sbuf *b, const struct xfuncs *x, uint32_t fi)
{
	const struct ptx_module *m = x->m;
	const struct ptx_func *f = &m->funcs[fi];
	const struct ptx_tok *name = &m->toks[f->name_tok];
	uint32_t t = f->start_tok, cur, i;
	int d = def_of(x, fi), r, n = 0;

	if (f->has_body) {
		sb_str(b, "\n\t// gsp-xform: ");
		put_tok(b, m, f->name_tok);
		sb_str(b, " with the task's ids as its last parameters\n");
	} else {
		sb_str(b, "\n");
	}
	/* no linkage: the clone is the module's own */
	while (t < f->name_tok && !ptx_tok_is(m, t, ".func"))
		t++;
	put_src(b, m, m->toks[t].off, name->off);
	put_tok(b, m, f->name_tok);
	sb_str(b, GSP_XFUNC_SUFFIX);
	if (f->param_close) {
		const struct ptx_tok *last = &m->toks[f->param_close - 1];

		put_src(b, m, m->toks[f->param_open].off, last->off + last->len);
		n = f->param_close > f->param_open + 1;
		cur = m->toks[f->param_close].off + 1;
	} else {
		sb_str(b, "(");
		cur = name->off + name->len;
	}
	for (r = 0; r < XF_NIDS; r++) {
		if (!(x->need[d] & (1u << r)))
			continue;
		sb_str(b, n++ ? ",\n\t.param .b32 __gsp_" : "\n\t.param .b32 __gsp_");
		sb_str(b, id_param[r]);
	}
	sb_str(b, "\n)");
	if (!f->has_body) {
		put_src(b, m, cur, m->toks[f->end_tok - 1].off + 1);
		return;
	}
	put_src(b, m, cur, m->toks[f->body_open].off + 1);
	sb_str(b, "\n\t.reg .b32 %__gsp_v<8>;");
	cur = m->toks[f->body_open].off + 1;
	for (i = f->stmt; i < f->stmt + f->nstmt; i++) {
		const struct ptx_stmt *s = &m->stmts[i];

		put_src(b, m, cur, ptx_stmt_start(m, s));
		if (s->kind == PTX_S_INSN)
			xfuncs_insn(b, x, s, NULL);
		else
			put_src(b, m, ptx_stmt_start(m, s), ptx_stmt_end(m, s));
		cur = ptx_stmt_end(m, s);
	}
	put_src(b, m, cur, m->toks[f->body_close].off + 1);
}
