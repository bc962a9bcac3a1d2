// SPDX-License-Identifier: LGPL-2.1-or-later
/* PTX lexer and parser (see ptx.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptx.h"

struct parser {
	struct ptx_module *m;
	uint32_t pos;		/* next token */
	uint32_t cap_toks, cap_stmts, cap_funcs, cap_vars;
	char *err;
	size_t errlen;
};

static int fail(struct parser *p, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct parser *p, uint32_t line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!p->errlen)
		return -1;
	n = snprintf(p->err, p->errlen, "line %u: ", line);
	if (n < 0 || (size_t)n >= p->errlen)
		return -1;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
	return -1;
}

/* Grows *arr (of *cap elements of size sz) to hold at least n + 1. */
static int grow(void **arr, uint32_t *cap, uint32_t n, size_t sz)
{
	uint32_t nc;
	void *a;

	if (n < *cap)
		return 0;
	if (*cap > UINT32_MAX / 2)
		return -1;
	nc = *cap ? *cap * 2 : 256;
	a = realloc(*arr, (size_t)nc * sz);
	if (!a)
		return -1;
	*arr = a;
	*cap = nc;
	return 0;
}

static int is_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '$' || c == '%' ||
	       c == '.';
}

static int lex(struct parser *p)
{
	struct ptx_module *m = p->m;
	const char *s = m->src;
	size_t i = 0, n = m->len;
	uint32_t line = 1;
	int nl = 1;

	while (i < n) {
		struct ptx_tok t = { 0 };
		char c = s[i];

		if (c == '\n') {
			line++;
			nl = 1;
			i++;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '/') {
			while (i < n && s[i] != '\n')
				i++;
			continue;
		}
		if (c == '/' && i + 1 < n && s[i + 1] == '*') {
			uint32_t l0 = line;

			for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
				if (s[i] == '\n') {
					line++;
					nl = 1;
				}
			if (i + 1 >= n)
				return fail(p, l0, "unterminated /* comment");
			i += 2;
			continue;
		}
		if (i >= UINT32_MAX)
			return fail(p, line, "input too large");
		t.off = (uint32_t)i;
		t.line = line;
		t.nl_before = nl;
		if (c == '"') {
			for (i++; i < n && s[i] != '"' && s[i] != '\n'; i++)
				if (s[i] == '\\' && i + 1 < n)
					i++;
			if (i >= n || s[i] != '"')
				return fail(p, line, "unterminated string");
			i++;
			t.kind = PTX_STRING;
		} else if (is_word_char(c)) {
			/* "::" belongs to words: ld.shared::cta, mbarrier::... */
			while (i < n && (is_word_char(s[i]) ||
					 (s[i] == ':' && i + 1 < n && s[i + 1] == ':' &&
					  i + 2 < n && is_word_char(s[i + 2])))) {
				if (s[i] == ':')
					i++;
				i++;
			}
			t.kind = PTX_WORD;
		} else if (strchr(",;:{}()[]<>+-!@|=*/~&^?", c) && c) {
			i++;
			t.kind = PTX_PUNCT;
		} else {
			return fail(p, line, "unexpected character 0x%02x",
				    (unsigned char)c);
		}
		t.len = (uint32_t)(i - t.off);
		nl = 0;
		if (grow((void **)&m->toks, &p->cap_toks, m->ntoks, sizeof(t)))
			return fail(p, line, "out of memory");
		m->toks[m->ntoks++] = t;
	}
	return 0;
}

int ptx_tok_is(const struct ptx_module *m, uint32_t t, const char *s)
{
	size_t l = strlen(s);

	return t < m->ntoks && m->toks[t].len == l &&
	       !memcmp(m->src + m->toks[t].off, s, l);
}

int ptx_tok_prefix(const struct ptx_module *m, uint32_t t, const char *s)
{
	size_t l = strlen(s);

	return t < m->ntoks && m->toks[t].len >= l &&
	       !memcmp(m->src + m->toks[t].off, s, l);
}

uint32_t ptx_stmt_start(const struct ptx_module *m, const struct ptx_stmt *s)
{
	return m->toks[s->tok].off;
}

uint32_t ptx_stmt_end(const struct ptx_module *m, const struct ptx_stmt *s)
{
	const struct ptx_tok *t = &m->toks[s->tok + s->ntok - 1];

	return t->off + t->len;
}

static uint32_t cur_line(struct parser *p)
{
	struct ptx_module *m = p->m;

	if (p->pos < m->ntoks)
		return m->toks[p->pos].line;
	return m->ntoks ? m->toks[m->ntoks - 1].line : 1;
}

static int at_punct(struct parser *p, char c)
{
	struct ptx_module *m = p->m;
	const struct ptx_tok *t;

	if (p->pos >= m->ntoks)
		return 0;
	t = &m->toks[p->pos];
	return t->kind == PTX_PUNCT && m->src[t->off] == c;
}

/* Skips to the end of the current line (line-terminated directives). */
static void skip_line(struct parser *p)
{
	p->pos++;
	while (p->pos < p->m->ntoks && !p->m->toks[p->pos].nl_before)
		p->pos++;
}

/* Skips past the next ';' outside braces and parentheses. */
static int skip_stmt(struct parser *p)
{
	uint32_t l0 = cur_line(p);
	int depth = 0;

	for (; p->pos < p->m->ntoks; p->pos++) {
		if (at_punct(p, '{') || at_punct(p, '('))
			depth++;
		else if (at_punct(p, '}') || at_punct(p, ')'))
			depth--;
		else if (at_punct(p, ';') && depth <= 0) {
			p->pos++;
			return 0;
		}
		if (depth < 0)
			return fail(p, cur_line(p), "unbalanced '}' or ')'");
	}
	return fail(p, l0, "statement without ';'");
}

/* At an opening c, skips past its matching close. */
static int skip_balanced(struct parser *p, char open, char close)
{
	uint32_t l0 = cur_line(p);
	int depth = 0;

	for (; p->pos < p->m->ntoks; p->pos++) {
		if (at_punct(p, open))
			depth++;
		else if (at_punct(p, close) && --depth == 0) {
			p->pos++;
			return 0;
		}
	}
	return fail(p, l0, "no matching '%c'", close);
}

static int add_stmt(struct parser *p, enum ptx_stmt_kind k, uint32_t tok,
		    uint32_t op, int depth)
{
	struct ptx_module *m = p->m;
	struct ptx_stmt s = { k, tok, p->pos - tok, op, depth };

	if (grow((void **)&m->stmts, &p->cap_stmts, m->nstmts, sizeof(s)))
		return fail(p, cur_line(p), "out of memory");
	m->stmts[m->nstmts++] = s;
	return 0;
}

static int is_line_directive(struct parser *p)
{
	return ptx_tok_is(p->m, p->pos, ".loc") ||
	       ptx_tok_is(p->m, p->pos, ".file");
}

/* The statements of a body, the current token being its '{'. */
static int parse_body(struct parser *p, struct ptx_func *f)
{
	struct ptx_module *m = p->m;
	int depth = 0;

	f->body_open = p->pos++;
	f->stmt = m->nstmts;
	for (;;) {
		uint32_t t = p->pos, op;

		if (t >= m->ntoks)
			return fail(p, m->toks[f->body_open].line,
				    "function body without '}'");
		if (at_punct(p, '{')) {
			p->pos++;
			if (add_stmt(p, PTX_S_OPEN, t, t, depth++))
				return -1;
			continue;
		}
		if (at_punct(p, '}')) {
			if (depth == 0)
				break;
			p->pos++;
			if (add_stmt(p, PTX_S_CLOSE, t, t, --depth))
				return -1;
			continue;
		}
		if (is_line_directive(p)) {
			skip_line(p);
			if (add_stmt(p, PTX_S_LINEDIR, t, t, depth))
				return -1;
			continue;
		}
		if (m->toks[t].kind == PTX_WORD && t + 1 < m->ntoks &&
		    m->toks[t + 1].kind == PTX_PUNCT && m->src[m->toks[t + 1].off] == ':') {
			p->pos += 2;
			if (add_stmt(p, PTX_S_LABEL, t, t, depth))
				return -1;
			continue;
		}
		if (m->toks[t].kind == PTX_WORD && m->src[m->toks[t].off] == '.') {
			if (skip_stmt(p) || add_stmt(p, PTX_S_DECL, t, t, depth))
				return -1;
			continue;
		}
		op = t;
		if (at_punct(p, '@')) {
			op++;
			if (op < m->ntoks && m->toks[op].kind == PTX_PUNCT &&
			    m->src[m->toks[op].off] == '!')
				op++;
			op++;	/* the predicate */
		}
		if (op >= m->ntoks || m->toks[op].kind != PTX_WORD)
			return fail(p, m->toks[t].line, "expected an instruction");
		p->pos = op;
		if (skip_stmt(p) || add_stmt(p, PTX_S_INSN, t, op, depth))
			return -1;
	}
	f->body_close = p->pos++;
	f->nstmt = m->nstmts - f->stmt;
	return 0;
}

/* .entry/.func, with p->pos at that word; start is the first linkage word. */
static int parse_func(struct parser *p, uint32_t start)
{
	struct ptx_module *m = p->m;
	struct ptx_func f = { 0 };

	f.is_entry = ptx_tok_is(m, p->pos, ".entry");
	f.start_tok = start;
	p->pos++;
	if (!f.is_entry && at_punct(p, '(') && skip_balanced(p, '(', ')'))
		return -1;	/* .func return parameters */
	if (p->pos >= m->ntoks || m->toks[p->pos].kind != PTX_WORD)
		return fail(p, cur_line(p), "expected a function name");
	f.name_tok = p->pos++;
	if (at_punct(p, '(')) {
		f.param_open = p->pos;
		if (skip_balanced(p, '(', ')'))
			return -1;
		f.param_close = p->pos - 1;
	}
	f.dir_tok = p->pos;
	while (p->pos < m->ntoks && !at_punct(p, '{') && !at_punct(p, ';')) {
		if (at_punct(p, '(')) {	/* .attribute(...) */
			if (skip_balanced(p, '(', ')'))
				return -1;
			continue;
		}
		p->pos++;
	}
	f.ndir_tok = p->pos - f.dir_tok;
	if (p->pos >= m->ntoks)
		return fail(p, m->toks[f.name_tok].line,
			    "function without a body or ';'");
	if (at_punct(p, ';')) {
		p->pos++;
	} else {
		f.has_body = 1;
		if (parse_body(p, &f))
			return -1;
	}
	f.end_tok = p->pos;
	if (grow((void **)&m->funcs, &p->cap_funcs, m->nfuncs, sizeof(f)))
		return fail(p, cur_line(p), "out of memory");
	m->funcs[m->nfuncs++] = f;
	return 0;
}

/*
 * The declarators of a module-level declaration toks[first..end), its
 * linkage from @start on.
 */
static int add_vars(struct parser *p, uint32_t start, uint32_t first,
		    uint32_t end, int is_extern)
{
	struct ptx_module *m = p->m;
	enum ptx_var_space sp;
	int depth = 0, init = 0;
	uint32_t t;

	if (ptx_tok_is(m, first, ".global"))
		sp = PTX_V_GLOBAL;
	else if (ptx_tok_is(m, first, ".const"))
		sp = PTX_V_CONST;
	else if (ptx_tok_is(m, first, ".tex") || ptx_tok_is(m, first, ".surf"))
		sp = PTX_V_TEXTURE;
	else
		return 0;	/* .shared, .local, directives */
	if (is_extern)
		return 0;
	for (t = first; t < end; t++)
		if (ptx_tok_is(m, t, ".texref") || ptx_tok_is(m, t, ".samplerref") ||
		    ptx_tok_is(m, t, ".surfref"))
			sp = PTX_V_TEXTURE;
	for (t = first; t + 1 < end; t++) {
		const struct ptx_tok *k = &m->toks[t], *nx = &m->toks[t + 1];
		char c = m->src[nx->off];

		if (k->kind == PTX_PUNCT) {
			char o = m->src[k->off];

			depth += o == '(' || o == '[' || o == '{';
			depth -= o == ')' || o == ']' || o == '}';
			if (!depth && o == '=')
				init = 1;
			else if (!depth && o == ',')
				init = 0;
			continue;
		}
		/* A name is a word right before '[', '=', ',' or ';'. */
		if (depth || init || k->kind != PTX_WORD ||
		    m->src[k->off] == '.' || nx->kind != PTX_PUNCT ||
		    (c != '[' && c != '=' && c != ',' && c != ';'))
			continue;
		if (grow((void **)&m->vars, &p->cap_vars, m->nvars,
			 sizeof(*m->vars)))
			return fail(p, k->line, "out of memory");
		m->vars[m->nvars++] = (struct ptx_var){
			.space = sp, .name_tok = t,
			.decl_tok = start, .decl_end = end,
		};
	}
	return 0;
}

static void parse_target(struct parser *p)
{
	struct ptx_module *m = p->m;
	uint32_t t;

	for (t = p->pos + 1; t < m->ntoks && !m->toks[t].nl_before; t++) {
		const char *s = m->src + m->toks[t].off;

		if (ptx_tok_prefix(m, t, "sm_") && m->toks[t].len > 3)
			m->target_sm = atoi(s + 3);
	}
}

int ptx_parse(struct ptx_module *m, const char *src, size_t len,
	      char *err, size_t errlen)
{
	struct parser p = { .m = m, .err = err, .errlen = errlen };

	memset(m, 0, sizeof(*m));
	m->src = src;
	m->len = len;
	if (errlen)
		err[0] = 0;
	if (len >= UINT32_MAX)
		return fail(&p, 1, "input larger than 4 GiB");
	if (memchr(src, 0, len))
		return fail(&p, 1, "NUL byte: not PTX text");
	if (lex(&p))
		goto bad;
	while (p.pos < m->ntoks) {
		uint32_t start = p.pos;
		int is_extern = 0;

		if (ptx_tok_is(m, p.pos, ".version") ||
		    ptx_tok_is(m, p.pos, ".address_size") ||
		    is_line_directive(&p)) {
			skip_line(&p);
			continue;
		}
		if (ptx_tok_is(m, p.pos, ".target")) {
			parse_target(&p);
			skip_line(&p);
			continue;
		}
		if (ptx_tok_is(m, p.pos, ".section")) {
			p.pos += 2;
			if (!at_punct(&p, '{')) {
				fail(&p, cur_line(&p), "expected '{' after .section");
				goto bad;
			}
			if (skip_balanced(&p, '{', '}'))
				goto bad;
			continue;
		}
		while (ptx_tok_is(m, p.pos, ".visible") ||
		       ptx_tok_is(m, p.pos, ".extern") ||
		       ptx_tok_is(m, p.pos, ".weak") ||
		       ptx_tok_is(m, p.pos, ".common")) {
			is_extern |= ptx_tok_is(m, p.pos, ".extern");
			p.pos++;
		}
		if (ptx_tok_is(m, p.pos, ".entry") || ptx_tok_is(m, p.pos, ".func")) {
			if (parse_func(&p, start))
				goto bad;
			continue;
		}
		if (p.pos < m->ntoks && m->toks[p.pos].kind == PTX_WORD &&
		    m->src[m->toks[p.pos].off] == '.') {
			uint32_t first = p.pos;

			if (skip_stmt(&p) ||
			    add_vars(&p, start, first, p.pos, is_extern))
				goto bad;
			continue;
		}
		fail(&p, cur_line(&p), "unexpected '%.*s' at module level",
		     p.pos < m->ntoks ? (int)m->toks[p.pos].len : 0,
		     p.pos < m->ntoks ? m->src + m->toks[p.pos].off : "");
		goto bad;
	}
	return 0;
bad:
	ptx_free(m);
	return -1;
}

void ptx_free(struct ptx_module *m)
{
	free(m->toks);
	free(m->stmts);
	free(m->funcs);
	free(m->vars);
	m->toks = NULL;
	m->stmts = NULL;
	m->funcs = NULL;
	m->vars = NULL;
	m->ntoks = m->nstmts = m->nfuncs = m->nvars = 0;
}
