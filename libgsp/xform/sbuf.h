/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A growing output buffer for the PTX rewriters (xform.c, vars.c): appends
 * never fail on the spot; an allocation failure sets oom and makes every
 * later append a no-op, so a rewriter checks once, at its end.
 */
#ifndef GSP_SBUF_H
#define GSP_SBUF_H

#include <stdlib.h>
#include <string.h>
#include "ptx.h"

struct sbuf {
	char *p;		/* NUL-terminated once anything was put */
	size_t len, cap;
	int oom;
};

static inline void sb_put(struct sbuf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 4096;
		char *p;

		while (nc < b->len + n + 1)
			nc *= 2;
		p = realloc(b->p, nc);
		if (!p) {
			b->oom = 1;
			return;
		}
		b->p = p;
		b->cap = nc;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = 0;
}

static inline void sb_str(struct sbuf *b, const char *s)
{
	sb_put(b, s, strlen(s));
}

/* The source bytes [from, to) of @m, verbatim. */
static inline void put_src(struct sbuf *b, const struct ptx_module *m,
			   uint32_t from, uint32_t to)
{
	if (to > from)
		sb_put(b, m->src + from, to - from);
}

static inline void put_tok(struct sbuf *b, const struct ptx_module *m,
			   uint32_t t)
{
	sb_put(b, m->src + m->toks[t].off, m->toks[t].len);
}

/* The rest of @m from @from, then done: 0, or -1 when out of memory. */
static inline int sb_finish(struct sbuf *b, const struct ptx_module *m,
			    uint32_t from)
{
	put_src(b, m, from, (uint32_t)m->len);
	if (!b->p)
		sb_put(b, "", 0);	/* an empty module is still a string */
	return b->oom ? -1 : 0;
}

#endif /* GSP_SBUF_H */
