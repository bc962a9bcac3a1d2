// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A module cut into its symbols, so that one kernel can be transformed and
 * JIT-ed alone.
 *
 * gsp_xform() keeps every kernel of an image and adds a clone of each, so
 * JIT-ing its output compiles the whole image (on an H200, seconds for a
 * few hundred kernels) at the first launch of any of them.
 * A part is a function (a prototype or a definition) or a module-scope
 * variable declaration, with the symbols its tokens name; taking a kernel
 * keeps the parts of every symbol reachable from it, and of every symbol
 * named outside the parts (directives, .section blocks), and drops the
 * rest, byte ranges and all. Cutting costs one parse; each take costs
 * what it keeps.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "names.h"
#include "ptx.h"
#include "sbuf.h"
#include "xform.h"

struct part {
	uint32_t from, to;	/* bytes of the source */
	uint32_t dep, ndep;	/* the symbols it names: deps[dep..+ndep) */
	int kernel;		/* an .entry with a body */
};

struct gsp_xform_parts {
	const char *src;
	size_t len;
	struct names names;	/* symbol name -> number, keys in src */
	struct part *parts;	/* in module order, disjoint */
	uint32_t nparts;
	uint32_t *deps;
	uint32_t *first;	/* symbol s's parts: of[first[s]..first[s+1]) */
	uint32_t *of;
	uint32_t nsyms;
	uint32_t *roots;	/* symbols named outside every part */
	uint32_t nroots;
};

/* A part under construction: its tokens and the symbols it declares. */
struct cut {
	uint32_t tok, end;	/* tokens [tok, end) */
	uint32_t sym0, nsym;	/* declared: decl[sym0..+nsym) */
	int kernel;
};

void gsp_xform_parts_free(struct gsp_xform_parts *pp)
{
	if (!pp)
		return;
	names_free(&pp->names);
	free(pp->parts);
	free(pp->deps);
	free(pp->first);
	free(pp->of);
	free(pp->roots);
	free(pp);
}

static int sym_of(const struct ptx_module *m, const struct names *h,
		  uint32_t t)
{
	const struct ptx_tok *k = &m->toks[t];

	return k->kind == PTX_WORD ? names_get(h, m->src + k->off, k->len) : -1;
}

/* The number of the symbol token @t declares, new or not. */
static uint32_t sym_put(const struct ptx_module *m, struct names *h,
			uint32_t t, uint32_t *nsyms)
{
	uint32_t s = (uint32_t)names_put(h, m->src + m->toks[t].off,
					 m->toks[t].len, *nsyms);

	*nsyms += s == *nsyms;
	return s;
}

/* Each function and declaration in module order, with its symbols. */
static uint32_t cut_module(const struct ptx_module *m, struct names *h,
			   struct cut *c, uint32_t *decl, uint32_t *nsyms)
{
	uint32_t f = 0, v = 0, n = 0, nd = 0;

	while (f < m->nfuncs || v < m->nvars) {
		int fn = v == m->nvars ||
			 (f < m->nfuncs &&
			  m->funcs[f].start_tok < m->vars[v].decl_tok);
		struct cut *p = &c[n++];

		if (fn) {
			const struct ptx_func *fu = &m->funcs[f++];

			*p = (struct cut){ .tok = fu->start_tok, .end = fu->end_tok,
					   .sym0 = nd,
					   .kernel = fu->is_entry && fu->has_body };
			decl[nd++] = sym_put(m, h, fu->name_tok, nsyms);
		} else {
			uint32_t d = m->vars[v].decl_tok;

			*p = (struct cut){ .tok = d, .end = m->vars[v].decl_end,
					   .sym0 = nd };
			for (; v < m->nvars && m->vars[v].decl_tok == d; v++)
				decl[nd++] = sym_put(m, h, m->vars[v].name_tok, nsyms);
		}
		p->nsym = nd - p->sym0;
	}
	return n;
}

int gsp_xform_parts_new(const char *src, size_t len,
			struct gsp_xform_parts **out, char *err, size_t errlen)
{
	struct gsp_xform_parts *pp;
	struct ptx_module m;
	struct cut *c = NULL;
	uint32_t *decl = NULL, *seen = NULL, ndeps = 0, cap = 0, i, t, k;
	size_t nmax;

	*out = NULL;
	if (ptx_parse(&m, src, len, err, errlen))
		return -1;
	nmax = (size_t)m.nfuncs + m.nvars;
	pp = calloc(1, sizeof(*pp));
	c = calloc(nmax + 1, sizeof(*c));
	decl = calloc(nmax + 1, sizeof(*decl));
	if (!pp || !c || !decl || names_init(&pp->names, nmax))
		goto oom;
	pp->src = src;
	pp->len = len;
	pp->nparts = cut_module(&m, &pp->names, c, decl, &pp->nsyms);
	pp->parts = calloc(pp->nparts + 1, sizeof(*pp->parts));
	pp->first = calloc(pp->nsyms + 2, sizeof(*pp->first));
	pp->of = calloc(nmax + 1, sizeof(*pp->of));
	seen = calloc(pp->nsyms + 1, sizeof(*seen));	/* part + 1 that named it */
	if (!pp->parts || !pp->first || !pp->of || !seen)
		goto oom;
	/* the symbols each part names, once each */
	for (i = 0; i < pp->nparts; i++) {
		struct part *p = &pp->parts[i];
		const struct ptx_tok *e = &m.toks[c[i].end - 1];

		*p = (struct part){ .from = m.toks[c[i].tok].off,
				    .to = e->off + e->len, .dep = ndeps,
				    .kernel = c[i].kernel };
		for (t = c[i].tok; t < c[i].end; t++) {
			int s = sym_of(&m, &pp->names, t);

			if (s < 0 || seen[s] == i + 1)
				continue;
			seen[s] = i + 1;
			if (ndeps == cap) {
				uint32_t *d;

				cap = cap ? 2 * cap : 256;
				d = realloc(pp->deps, cap * sizeof(*d));
				if (!d)
					goto oom;
				pp->deps = d;
			}
			pp->deps[ndeps++] = (uint32_t)s;
		}
		p->ndep = ndeps - p->dep;
	}
	/* symbol -> its parts (a prototype and a definition share one) */
	for (i = 0; i < pp->nparts; i++)
		for (k = c[i].sym0; k < c[i].sym0 + c[i].nsym; k++)
			pp->first[decl[k] + 1]++;
	for (i = 0; i < pp->nsyms; i++)
		pp->first[i + 1] += pp->first[i];
	memset(seen, 0, (pp->nsyms + 1) * sizeof(*seen));
	for (i = 0; i < pp->nparts; i++)
		for (k = c[i].sym0; k < c[i].sym0 + c[i].nsym; k++)
			pp->of[pp->first[decl[k]] + seen[decl[k]]++] = i;
	/* the roots: symbols named between the parts */
	pp->roots = calloc(pp->nsyms + 1, sizeof(*pp->roots));
	if (!pp->roots)
		goto oom;
	memset(seen, 0, (pp->nsyms + 1) * sizeof(*seen));
	for (t = 0, i = 0; t < m.ntoks; t++) {
		int s;

		if (i < pp->nparts && t >= c[i].tok) {
			t = c[i++].end - 1;
			continue;
		}
		s = sym_of(&m, &pp->names, t);
		if (s >= 0 && !seen[s]) {
			seen[s] = 1;
			pp->roots[pp->nroots++] = (uint32_t)s;
		}
	}
	free(seen);
	free(decl);
	free(c);
	ptx_free(&m);
	*out = pp;
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	free(seen);
	free(decl);
	free(c);
	ptx_free(&m);
	gsp_xform_parts_free(pp);
	return -1;
}

/* Pushes symbol @s on @stack unless it is kept already. */
static void keep_sym(uint32_t s, char *kept, uint32_t *stack, uint32_t *n)
{
	if (!kept[s]) {
		kept[s] = 1;
		stack[(*n)++] = s;
	}
}

int gsp_xform_parts_take(const struct gsp_xform_parts *pp,
			 const char *const *keep, unsigned int flags,
			 char **out, size_t *out_len, char *err, size_t errlen)
{
	char *kept = calloc(pp->nsyms + 1, 1), *part = calloc(pp->nparts + 1, 1);
	uint32_t *stack = calloc(pp->nsyms + 1, sizeof(*stack));
	struct sbuf b = { 0 };
	uint32_t n = 0, i, j, cur = 0;
	int rc = -1;

	*out = NULL;
	if (flags & ~GSP_XFORM_PARTS_LINES) {
		snprintf(err, errlen, "unknown flags 0x%x", flags);
		goto out;
	}
	if (!kept || !part || !stack)
		goto oom;
	for (; *keep; keep++) {
		int s = names_get(&pp->names, *keep, (uint32_t)strlen(*keep));
		int found = 0;

		for (i = s < 0 ? 0 : pp->first[s]; s >= 0 && i < pp->first[s + 1]; i++)
			found |= pp->parts[pp->of[i]].kernel;
		if (!found) {
			snprintf(err, errlen, "no kernel %s with a body in the module",
				 *keep);
			goto out;
		}
		keep_sym((uint32_t)s, kept, stack, &n);
	}
	for (i = 0; i < pp->nroots; i++)
		keep_sym(pp->roots[i], kept, stack, &n);
	while (n) {
		uint32_t s = stack[--n];

		for (i = pp->first[s]; i < pp->first[s + 1]; i++) {
			const struct part *p = &pp->parts[pp->of[i]];

			if (part[pp->of[i]])
				continue;
			part[pp->of[i]] = 1;
			for (j = p->dep; j < p->dep + p->ndep; j++)
				keep_sym(pp->deps[j], kept, stack, &n);
		}
	}
	for (i = 0; i < pp->nparts; i++) {
		if (part[i])
			continue;
		sb_put(&b, pp->src + cur, pp->parts[i].from - cur);
		cur = pp->parts[i].to;
		if (flags & GSP_XFORM_PARTS_LINES) {
			/* its newlines stay: every line keeps its number */
			for (j = pp->parts[i].from; j < cur; j++)
				if (pp->src[j] == '\n')
					sb_put(&b, "\n", 1);
			continue;
		}
		/* and the rest of its last line, if blank */
		for (j = cur; j < pp->len && (pp->src[j] == ' ' || pp->src[j] == '\t'); j++)
			;
		if (j < pp->len && pp->src[j] == '\n')
			cur = j + 1;
	}
	sb_put(&b, pp->src + cur, pp->len - cur);
	if (b.oom || !b.p)
		goto oom;
	*out = b.p;
	*out_len = b.len;
	b.p = NULL;
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	free(b.p);
	free(stack);
	free(part);
	free(kept);
	return rc;
}
