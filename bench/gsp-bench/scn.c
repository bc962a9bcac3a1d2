// SPDX-License-Identifier: GPL-2.0
/*
 * Scenario parser of gsp-bench. One directive per line, '#' starts a
 * comment; every error names the file and the line.
 */
#include "scn.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *const mech_names[M_NMECH] = {
	"solo", "timeslice", "mps", "mps-pct", "prio", "green", "flep", "streams",
	"gspace",
};

static const char *const workloads[] = {
	"mm", "nn", "cfd", "md", "bp", "lbm", "hotspot", "pathfinder",
	"streamcluster", "spmv", "lud",
};

int scn_valid_workload(const char *w)
{
	int st, it;
	float ov;
	char tail;

	for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++)
		if (!strcmp(w, workloads[i]))
			return 1;
	if (!strcmp(w, "micro"))
		return 1;
	if (!strncmp(w, "micro:", 6) &&
	    sscanf(w + 6, "%d:%f:%d%c", &st, &ov, &it, &tail) == 3 &&
	    st >= 1 && st <= 1024 && ov >= 0 && ov < 1 && it >= 1 && it <= 64)
		return 1;
	return 0;
}

struct ctx {
	const char *name;
	int line;
	char *err;
	size_t len;
};

static int fail(struct ctx *c, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(c->err, c->len, "%s:%d: ", c->name, c->line);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < c->len)
		vsnprintf(c->err + n, c->len - n, fmt, ap);
	va_end(ap);
	return -1;
}

static int num(struct ctx *c, const char *key, const char *v, double lo,
	       double hi, double *out)
{
	char *end;
	double d;

	if (!v)
		return fail(c, "'%s' needs a value", key);
	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end)
		return fail(c, "'%s': '%s' is not a number", key, v);
	if (!(d >= lo && d <= hi))
		return fail(c, "'%s': %s is out of range [%g, %g]", key, v, lo, hi);
	*out = d;
	return 0;
}

static int intlist(struct ctx *c, const char *key, char **tok, int ntok,
		   int *out, int *n)
{
	*n = 0;
	for (int i = 0; i < ntok; i++) {
		char *p = tok[i], *q;

		while (*p) {
			long v;

			errno = 0;
			v = strtol(p, &q, 10);
			if (q == p || errno || v < 1 || v > 100000)
				return fail(c, "'%s': bad number in '%s'", key, tok[i]);
			if (*n == SCN_MAXLIST)
				return fail(c, "'%s': more than %d values", key,
					    SCN_MAXLIST);
			out[(*n)++] = (int)v;
			if (*q == ',')
				q++;
			else if (*q)
				return fail(c, "'%s': bad number in '%s'", key, tok[i]);
			p = q;
		}
	}
	if (!*n)
		return fail(c, "'%s' needs at least one value", key);
	return 0;
}

/* "N:K" pairs, appended; each partition once */
static int nklist(struct ctx *c, struct scn *s, char **tok, int ntok)
{
	if (!ntok)
		return fail(c, "'gspace_nk' needs at least one N:K pair, e.g. 66:4");
	for (int i = 0; i < ntok; i++) {
		char *colon = strchr(tok[i], ':'), *q;
		long n, k;

		if (!colon || !isdigit((unsigned char)tok[i][0]) ||
		    !isdigit((unsigned char)colon[1]))
			return fail(c, "'gspace_nk': '%s' is not N:K (SMs:slots, e.g. 66:4)",
				    tok[i]);
		errno = 0;
		n = strtol(tok[i], &q, 10);
		if (q != colon)
			return fail(c, "'gspace_nk': '%s' is not N:K (SMs:slots, e.g. 66:4)",
				    tok[i]);
		k = strtol(colon + 1, &q, 10);
		if (errno || *q)
			return fail(c, "'gspace_nk': '%s' is not N:K (SMs:slots, e.g. 66:4)",
				    tok[i]);
		if (n < 1 || n > SCN_NK_MAXN || k < 1 || k > SCN_NK_MAXK)
			return fail(c, "'gspace_nk': '%s' is out of range (N 1..%d, K 1..%d)",
				    tok[i], SCN_NK_MAXN, SCN_NK_MAXK);
		for (int j = 0; j < s->nnk; j++)
			if (s->nk_n[j] == n && s->nk_k[j] == k)
				return fail(c, "'gspace_nk': %ld:%ld is given twice", n, k);
		if (s->nnk == SCN_MAXNK)
			return fail(c, "'gspace_nk': more than %d pairs", SCN_MAXNK);
		s->nk_n[s->nnk] = (int)n;
		s->nk_k[s->nnk++] = (int)k;
	}
	return 0;
}

static int wlname(struct ctx *c, const char *w, char *dst)
{
	if (!scn_valid_workload(w))
		return fail(c, "unknown workload '%s'", w);
	if (strlen(w) >= SCN_NAME)
		return fail(c, "workload name '%s' is too long", w);
	strcpy(dst, w);
	return 0;
}

static int wllist(struct ctx *c, const char *key, char **tok, int ntok,
		  char (*dst)[SCN_NAME], int *n)
{
	if (!ntok)
		return fail(c, "'%s' needs at least one workload", key);
	for (int i = 0; i < ntok; i++) {
		if (*n == SCN_MAXWL)
			return fail(c, "'%s': more than %d workloads", key, SCN_MAXWL);
		if (wlname(c, tok[i], dst[*n]))
			return -1;
		(*n)++;
	}
	return 0;
}

static int add_pair(struct ctx *c, struct scn *s, const char *be,
		    const char *lc, double xl, double xb)
{
	struct scn_pair *p;

	if (s->npairs == SCN_MAXPAIR)
		return fail(c, "more than %d pairs", SCN_MAXPAIR);
	p = &s->pairs[s->npairs++];
	if (wlname(c, be, p->be) || wlname(c, lc, p->lc))
		return -1;
	p->xfer_lc = xl;
	p->xfer_be = xb;
	return 0;
}

static int line(struct ctx *c, struct scn *s, char *buf)
{
	char *tok[80], *h = strchr(buf, '#'), *key;
	int n = 0;
	double d;

	if (h)
		*h = 0;
	for (char *p = strtok(buf, " \t\r\n"); p; p = strtok(NULL, " \t\r\n")) {
		if (n == 80)
			return fail(c, "too many words");
		tok[n++] = p;
	}
	if (!n)
		return 0;
	key = tok[0];
	if (!strcmp(key, "duration"))
		return n != 2 ? fail(c, "'duration' takes one value") :
		       num(c, key, tok[1], 0.05, 600, &s->duration);
	if (!strcmp(key, "warmup"))
		return n != 2 ? fail(c, "'warmup' takes one value") :
		       num(c, key, tok[1], 0, 60, &s->warmup);
	if (!strcmp(key, "period_ms"))
		return n != 2 ? fail(c, "'period_ms' takes one value") :
		       num(c, key, tok[1], 0, 10000, &s->period_ms);
	if (!strcmp(key, "q"))
		return n != 2 ? fail(c, "'q' takes one value") :
		       num(c, key, tok[1], 1, 1000, &s->q);
	if (!strcmp(key, "xfer_lc"))
		return n != 2 ? fail(c, "'xfer_lc' takes one value") :
		       num(c, key, tok[1], 0, 1, &s->xfer_lc);
	if (!strcmp(key, "xfer_be"))
		return n != 2 ? fail(c, "'xfer_be' takes one value") :
		       num(c, key, tok[1], 0, 1, &s->xfer_be);
	if (!strcmp(key, "scale_time"))
		return n != 2 ? fail(c, "'scale_time' takes one value") :
		       num(c, key, tok[1], 0.01, 60, &s->scale_time);
	if (!strcmp(key, "depth") || !strcmp(key, "mps_be_pct") ||
	    !strcmp(key, "green_be_sms")) {
		double hi = !strcmp(key, "depth") ? 16 :
			    !strcmp(key, "mps_be_pct") ? 100 : 100000;

		if (n != 2)
			return fail(c, "'%s' takes one value", key);
		if (num(c, key, tok[1], 1, hi, &d))
			return -1;
		if (d != (int)d)
			return fail(c, "'%s': %s is not a whole number", key, tok[1]);
		if (!strcmp(key, "depth"))
			s->depth = (int)d;
		else if (!strcmp(key, "mps_be_pct"))
			s->mps_be_pct = (int)d;
		else
			s->green_be_sms = (int)d;
		return 0;
	}
	if (!strcmp(key, "mechanisms")) {
		if (n < 2)
			return fail(c, "'mechanisms' needs at least one mechanism");
		s->mechs = 0;
		for (int i = 1; i < n; i++) {
			int m;

			for (m = 0; m < M_NMECH; m++)
				if (!strcmp(tok[i], mech_names[m]))
					break;
			if (m == M_NMECH)
				return fail(c, "unknown mechanism '%s' (solo, timeslice, "
					    "mps, mps-pct, prio, green, flep, streams, "
					    "gspace)", tok[i]);
			s->mechs |= 1u << m;
		}
		return 0;
	}
	if (!strcmp(key, "gspace_nk"))
		return nklist(c, s, tok + 1, n - 1);
	if (!strcmp(key, "gspace_solo")) {
		if (n != 2 || (strcmp(tok[1], "0") && strcmp(tok[1], "1")))
			return fail(c, "'gspace_solo' takes 0 or 1");
		s->gspace_solo = tok[1][0] == '1';
		return 0;
	}
	if (!strcmp(key, "be"))
		return wllist(c, key, tok + 1, n - 1, s->be, &s->nbe);
	if (!strcmp(key, "lc"))
		return wllist(c, key, tok + 1, n - 1, s->lc, &s->nlc);
	if (!strcmp(key, "scale"))
		return wllist(c, key, tok + 1, n - 1, s->scale, &s->nscale);
	if (!strcmp(key, "scale_sms"))
		return intlist(c, key, tok + 1, n - 1, s->sms, &s->nsms);
	if (!strcmp(key, "scale_bps"))
		return intlist(c, key, tok + 1, n - 1, s->bps, &s->nbps);
	if (!strcmp(key, "pair")) {
		double xl = -1, xb = -1;

		if (n < 3)
			return fail(c, "'pair' takes a BE and an LC workload");
		for (int i = 3; i < n; i++) {
			char *eq = strchr(tok[i], '=');

			if (!eq)
				return fail(c, "'pair': expected key=value, got '%s'",
					    tok[i]);
			*eq = 0;
			if (!strcmp(tok[i], "xfer_lc")) {
				if (num(c, "xfer_lc", eq + 1, 0, 1, &xl))
					return -1;
			} else if (!strcmp(tok[i], "xfer_be")) {
				if (num(c, "xfer_be", eq + 1, 0, 1, &xb))
					return -1;
			} else {
				return fail(c, "'pair': unknown option '%s'", tok[i]);
			}
		}
		return add_pair(c, s, tok[1], tok[2], xl, xb);
	}
	return fail(c, "unknown directive '%s'", key);
}

static void defaults(struct scn *s)
{
	memset(s, 0, sizeof(*s));
	s->duration = 2;
	s->warmup = 0.3;
	s->period_ms = 2;
	s->q = 2;
	s->depth = 2;
	s->mps_be_pct = 30;
	s->scale_time = 0.3;
	s->mechs = 1u << M_SOLO;
}

static int finish(struct ctx *c, struct scn *s)
{
	for (int i = 0; i < s->nbe; i++)
		for (int j = 0; j < s->nlc; j++)
			if (add_pair(c, s, s->be[i], s->lc[j], -1, -1))
				return -1;
	if (s->nbe != 0 && s->nlc == 0)
		return fail(c, "'be' workloads given but no 'lc' workloads");
	if (s->nlc != 0 && s->nbe == 0)
		return fail(c, "'lc' workloads given but no 'be' workloads");
	for (int i = 0; i < s->npairs; i++) {
		if (s->pairs[i].xfer_lc < 0)
			s->pairs[i].xfer_lc = s->xfer_lc;
		if (s->pairs[i].xfer_be < 0)
			s->pairs[i].xfer_be = s->xfer_be;
	}
	if (!s->npairs && !s->nscale)
		return fail(c, "nothing to run: no 'pair', 'be'/'lc' or 'scale' lines");
	if (((s->mechs >> M_GSPACE) & 1 || s->gspace_solo) && !s->nnk)
		return fail(c, "gspace cells need a 'gspace_nk' line, e.g. 'gspace_nk 66:4'");
	if (s->nnk && !((s->mechs >> M_GSPACE) & 1) && !s->gspace_solo)
		return fail(c, "'gspace_nk' given, but neither mechanism gspace nor "
			    "'gspace_solo 1' uses it");
	if (s->nscale && !s->nsms) {
		static const int d[] = { 8, 16, 32, 48, 64, 96, 128 };

		s->nsms = 7;
		memcpy(s->sms, d, sizeof(d));
	}
	if (s->nscale && !s->nbps) {
		static const int d[] = { 1, 2, 4, 8 };

		s->nbps = 4;
		memcpy(s->bps, d, sizeof(d));
	}
	return 0;
}

int scn_parse(FILE *f, const char *name, struct scn *s, char *err, size_t len)
{
	struct ctx c = { name, 0, err, len };
	char buf[4096];

	defaults(s);
	while (fgets(buf, sizeof(buf), f)) {
		c.line++;
		if (!strchr(buf, '\n') && !feof(f))
			return fail(&c, "line too long");
		if (line(&c, s, buf))
			return -1;
	}
	return finish(&c, s);
}

int scn_parse_string(const char *text, struct scn *s, char *err, size_t len)
{
	struct ctx c = { "<string>", 0, err, len };
	const char *p = text;

	defaults(s);
	while (*p) {
		char buf[4096];
		size_t n = strcspn(p, "\n");

		c.line++;
		if (n >= sizeof(buf))
			return fail(&c, "line too long");
		memcpy(buf, p, n);
		buf[n] = 0;
		if (line(&c, s, buf))
			return -1;
		p += n;
		if (*p)
			p++;
	}
	return finish(&c, s);
}
