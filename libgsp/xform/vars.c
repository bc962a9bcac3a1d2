// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Module-scope .global variables through references.
 *
 * The interposer runs NAME__gsp from a module of its own, so a __device__
 * variable V there is a second copy of the program's V. Copying it in
 * before each launch and back after it raced with the program's kernels
 * on other streams. Instead every instruction operand that names V first
 * loads V's address from ".const .u64 V__gsp_ref", whose initializer is
 * our module's own V (a launcher of gsp-xform's output needs to do
 * nothing), and which gsp_xform_bind() sets to the address of the
 * program's V before the JIT: both modules' kernels then use one V.
 *
 * Only .global variables are redirected: kernels cannot write .const
 * ones, so a copy made before the launch stays exact.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gsp_persist.h"
#include "names.h"
#include "ptx.h"
#include "sbuf.h"
#include "vars.h"
#include "xform.h"

#define MAX_USES	4	/* operands naming a variable, per instruction */
#define REF		GSP_PERSIST_REF_SUFFIX

static int is_punct(const struct ptx_module *m, uint32_t t, char c)
{
	return t < m->ntoks && m->toks[t].kind == PTX_PUNCT &&
	       m->src[m->toks[t].off] == c;
}

/* The module's .global variables by name (the first of a name wins). */
static int globals_init(struct names *h, const struct ptx_module *m)
{
	uint32_t i;

	if (names_init(h, m->nvars))
		return -1;
	for (i = 0; i < m->nvars; i++) {
		const struct ptx_tok *k = &m->toks[m->vars[i].name_tok];

		if (m->vars[i].space == PTX_V_GLOBAL)
			names_put(h, m->src + k->off, k->len, i);
	}
	return 0;
}

/* The .global variable that token @t names: its index in m->vars, or -1. */
static int var_of(const struct ptx_module *m, const struct names *g,
		  uint32_t t)
{
	if (m->toks[t].kind != PTX_WORD)
		return -1;
	return names_get(g, m->src + m->toks[t].off, m->toks[t].len);
}

/* Marks in @taken each variable V for which a word V REF exists. */
static void refs_taken(const struct ptx_module *m, const struct names *g,
		       char *taken)
{
	size_t rl = strlen(REF);
	uint32_t t;

	for (t = 0; t < m->ntoks; t++) {
		const struct ptx_tok *k = &m->toks[t];
		int v;

		if (k->kind != PTX_WORD || k->len <= rl ||
		    memcmp(m->src + k->off + k->len - rl, REF, rl))
			continue;
		v = names_get(g, m->src + k->off, (uint32_t)(k->len - rl));
		if (v >= 0)
			taken[v] = 1;
	}
}

/* One operand to rewrite: tokens [first, last] become %__gsp_vrN. */
struct use {
	int var;
	uint32_t first, last;
	uint32_t off_tok;	/* V+imm / V-imm outside []: the imm, else 0 */
};

/*
 * The operands of instruction @s that name a redirected variable, into
 * @u: their count, or -1 with err.
 */
static int stmt_uses(const struct ptx_module *m, const struct names *g,
		     const struct ptx_stmt *s, struct use *u, char *err,
		     size_t errlen)
{
	uint32_t t, end = s->tok + s->ntok;
	int n = 0, depth = 0;

	for (t = s->op + 1; t < end; t++) {
		int v;

		depth += is_punct(m, t, '[');
		depth -= is_punct(m, t, ']');
		v = var_of(m, g, t);
		if (v < 0)
			continue;
		if (n == MAX_USES) {
			snprintf(err, errlen,
				 "line %u: more than %d operands name module variables",
				 m->toks[t].line, MAX_USES);
			return -1;
		}
		u[n] = (struct use){ .var = v, .first = t, .last = t };
		if (t >= 2 && ptx_tok_is(m, t - 2, "generic") &&
		    is_punct(m, t - 1, '(') && is_punct(m, t + 1, ')')) {
			u[n].first = t - 2;	/* one address space here */
			u[n].last = t + 1;
		} else if (!depth && (is_punct(m, t + 1, '+') ||
				      is_punct(m, t + 1, '-'))) {
			if (t + 2 >= end || m->toks[t + 2].kind != PTX_WORD) {
				snprintf(err, errlen,
					 "line %u: an address expression it cannot follow",
					 m->toks[t].line);
				return -1;
			}
			u[n].last = t + 2;
			u[n].off_tok = t + 2;
		}
		t = u[n++].last;
	}
	return n;
}

static int hides(const struct ptx_module *m, const struct names *g,
		 uint32_t t, char *err, size_t errlen)
{
	if (var_of(m, g, t) < 0)
		return 0;
	snprintf(err, errlen,
		 "line %u: a declaration of its own hides the module variable %.*s",
		 m->toks[t].line, (int)m->toks[t].len, m->src + m->toks[t].off);
	return 1;
}

/* A parameter or declaration of @f named like a module variable. */
static int shadows(const struct ptx_module *m, const struct names *g,
		   const struct ptx_func *f, char *err, size_t errlen)
{
	uint32_t i, t;

	for (t = f->param_open; f->param_close && t < f->param_close; t++)
		if (hides(m, g, t, err, errlen))
			return -1;
	for (i = f->stmt; i < f->stmt + f->nstmt; i++) {
		const struct ptx_stmt *s = &m->stmts[i];

		if (s->kind != PTX_S_DECL)
			continue;
		for (t = s->tok; t < s->tok + s->ntok; t++)
			if (hides(m, g, t, err, errlen))
				return -1;
	}
	return 0;
}

/* The end of the module-level declaration that declares variable @v. */
static uint32_t decl_end(const struct ptx_module *m, int v)
{
	return m->toks[m->vars[v].decl_end - 1].off + 1;
}

static void put_ref(struct sbuf *b, const struct ptx_module *m, int v)
{
	put_tok(b, m, m->vars[v].name_tok);
	sb_str(b, REF);
}

/* Instruction @s with its uses @u (@n of them) rewritten. */
static void emit_insn(struct sbuf *b, const struct ptx_module *m,
		      const struct ptx_stmt *s, const struct use *u, int n)
{
	uint32_t cur = ptx_stmt_start(m, s);
	char reg[24];
	int i;

	for (i = 0; i < n; i++) {
		snprintf(reg, sizeof(reg), "%%__gsp_vr%d", i);
		sb_str(b, "ld.const.u64 ");
		sb_str(b, reg);
		sb_str(b, ", [");
		put_ref(b, m, u[i].var);
		sb_str(b, "];\n\t");
		if (u[i].off_tok) {
			sb_str(b, "add.s64 ");
			sb_str(b, reg);
			sb_str(b, ", ");
			sb_str(b, reg);
			sb_str(b, is_punct(m, u[i].off_tok - 1, '-') ? ", -" : ", ");
			put_tok(b, m, u[i].off_tok);
			sb_str(b, ";\n\t");
		}
	}
	for (i = 0; i < n; i++) {
		snprintf(reg, sizeof(reg), "%%__gsp_vr%d", i);
		put_src(b, m, cur, m->toks[u[i].first].off);
		sb_str(b, reg);
		cur = m->toks[u[i].last].off + m->toks[u[i].last].len;
	}
	put_src(b, m, cur, ptx_stmt_end(m, s));
}

static void free_names(char **names, size_t n)
{
	while (n)
		free(names[--n]);
	free(names);
}

int gsp_xvars_redirect(const char *src, size_t len, char **out,
		       size_t *out_len, char ***names, size_t *nnames,
		       char *err, size_t errlen)
{
	struct ptx_module m;
	struct sbuf b = { 0 };
	struct use u[MAX_USES];
	struct names g = { 0 };
	char *used = NULL, *taken = NULL;
	uint32_t f, i, cur = 0;
	size_t nn = 0;
	int rc = -1, any = 0, n;

	*out = NULL;
	*out_len = 0;
	*names = NULL;
	*nnames = 0;
	if (ptx_parse(&m, src, len, err, errlen))
		return -1;
	used = calloc(m.nvars ? m.nvars : 1, 1);
	taken = calloc(m.nvars ? m.nvars : 1, 1);
	if (!used || !taken || globals_init(&g, &m))
		goto oom;
	/* which variables instructions name, and whether all can be followed */
	for (f = 0; f < m.nfuncs; f++) {
		const struct ptx_func *fn = &m.funcs[f];
		int mine = 0;

		if (!fn->has_body)
			continue;
		for (i = fn->stmt; i < fn->stmt + fn->nstmt; i++) {
			const struct ptx_stmt *s = &m.stmts[i];

			if (s->kind != PTX_S_INSN)
				continue;
			n = stmt_uses(&m, &g, s, u, err, errlen);
			if (n < 0)
				goto out;
			while (n--)
				used[u[n].var] = mine = 1;
		}
		if (mine && shadows(&m, &g, fn, err, errlen))
			goto out;
	}
	refs_taken(&m, &g, taken);
	for (i = 0; i < m.nvars; i++) {
		if (!used[i])
			continue;
		if (taken[i]) {
			snprintf(err, errlen, "line %u: the name %.*s" REF " is taken",
				 m.toks[m.vars[i].name_tok].line,
				 (int)m.toks[m.vars[i].name_tok].len,
				 m.src + m.toks[m.vars[i].name_tok].off);
			goto out;
		}
		any = 1;
	}
	if (!any) {
		rc = 0;
		goto out;
	}
	*names = calloc(m.nvars, sizeof(**names));
	if (!*names)
		goto oom;
	for (i = 0; i < m.nvars; i++) {
		const struct ptx_tok *k = &m.toks[m.vars[i].name_tok];

		if (!used[i])
			continue;
		(*names)[nn] = strndup(m.src + k->off, k->len);
		if (!(*names)[nn++])
			goto oom;
	}
	/* module order: each reference right after its variable, and the
	 * scratch registers at the top of each function that needs them */
	for (f = 0, i = 0; f <= m.nfuncs; f++) {
		const struct ptx_func *fn = f < m.nfuncs ? &m.funcs[f] : NULL;
		uint32_t at = fn ? m.toks[fn->start_tok].off : (uint32_t)m.len;
		uint32_t st;
		int regs = 0;

		for (; i < m.nvars && m.toks[m.vars[i].name_tok].off < at; i++) {
			uint32_t e = decl_end(&m, (int)i);

			if (!used[i])
				continue;
			put_src(&b, &m, cur, e);
			cur = e;
			sb_str(&b, "\n.const .align 8 .u64 ");
			put_ref(&b, &m, (int)i);
			sb_str(&b, " = ");
			put_tok(&b, &m, m.vars[i].name_tok);
			sb_str(&b, ";");
		}
		if (!fn || !fn->has_body)
			continue;
		for (st = fn->stmt; st < fn->stmt + fn->nstmt; st++) {
			const struct ptx_stmt *s = &m.stmts[st];

			if (s->kind != PTX_S_INSN)
				continue;
			n = stmt_uses(&m, &g, s, u, err, errlen);
			if (!n)
				continue;
			if (!regs) {
				uint32_t o = m.toks[fn->body_open].off + 1;

				put_src(&b, &m, cur, o);
				cur = o;
				sb_str(&b, "\n\t.reg .b64 %__gsp_vr<4>;");
				regs = 1;
			}
			put_src(&b, &m, cur, ptx_stmt_start(&m, s));
			emit_insn(&b, &m, s, u, n);
			cur = ptx_stmt_end(&m, s);
		}
	}
	if (sb_finish(&b, &m, cur))
		goto oom;
	*out = b.p;
	*out_len = b.len;
	*nnames = nn;
	b.p = NULL;
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
	rc = -2;
out:
	if (rc || !*out) {
		free_names(*names, nn);
		*names = NULL;
	}
	free(b.p);
	free(used);
	free(taken);
	names_free(&g);
	ptx_free(&m);
	return rc;
}

int gsp_xform_bind(const char *src, size_t len, const char *const *names,
		   const unsigned long long *addrs, size_t n, char **out,
		   size_t *out_len, char *err, size_t errlen)
{
	struct ptx_module m;
	struct sbuf b = { 0 };
	struct names h = { 0 };
	uint32_t cur = 0, i;
	size_t j, rl = strlen(REF), done = 0;
	char num[24];
	int at;

	*out = NULL;
	if (ptx_parse(&m, src, len, err, errlen))
		return -1;
	if (n > UINT32_MAX || names_init(&h, n)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	for (j = 0; j < n; j++)
		names_put(&h, names[j], (uint32_t)strlen(names[j]), (uint32_t)j);
	for (i = 0; i < m.nvars; i++) {
		uint32_t t = m.vars[i].name_tok;
		const struct ptx_tok *k = &m.toks[t];

		if (m.vars[i].space != PTX_V_CONST || k->len <= rl ||
		    memcmp(m.src + k->off + k->len - rl, REF, rl))
			continue;
		at = names_get(&h, m.src + k->off, (uint32_t)(k->len - rl));
		if (at < 0)
			continue;
		j = (size_t)at;
		if (!is_punct(&m, t + 1, '=') || t + 3 >= m.ntoks ||
		    !is_punct(&m, t + 3, ';')) {
			snprintf(err, errlen, "line %u: %.*s is not a reference gsp-xform wrote",
				 k->line, (int)k->len, m.src + k->off);
			goto fail;
		}
		put_src(&b, &m, cur, m.toks[t + 2].off);
		snprintf(num, sizeof(num), "0x%llx", addrs[j]);
		sb_str(&b, num);
		cur = m.toks[t + 2].off + m.toks[t + 2].len;
		done++;
	}
	if (done != n) {
		snprintf(err, errlen, "%zu of %zu references are not in the module",
			 n - done, n);
		goto fail;
	}
	if (sb_finish(&b, &m, cur)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	names_free(&h);
	ptx_free(&m);
	*out = b.p;
	*out_len = b.len;
	return 0;
fail:
	names_free(&h);
	free(b.p);
	ptx_free(&m);
	return -1;
}
