// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The readers of solo traces and hw.csv (trace.h says what they accept),
 * and the occupancy calculator the predictor's waves come from.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

#define TRACE_FIELDS	14
#define HW_FIELDS	8

static const char trace_magic[] = "# gsp-trace 1";
static const char trace_head[] =
	"seq,query,type,submit_ns,gap_ns,dur_ns,grid,threads,regs,smem,dram_Bps,bytes,pinned,name";
static const char hw_head[] =
	"sms,max_warps_per_sm,max_blocks_per_sm,regs_per_sm,smem_per_sm,dram_Bps,h2d_Bps,d2h_Bps";
static const char *const trace_names[TRACE_FIELDS] = {
	"seq", "query", "type", "submit_ns", "gap_ns", "dur_ns", "grid",
	"threads", "regs", "smem", "dram_Bps", "bytes", "pinned", "name",
};
static const char *const hw_names[HW_FIELDS] = {
	"sms", "max_warps_per_sm", "max_blocks_per_sm", "regs_per_sm",
	"smem_per_sm", "dram_Bps", "h2d_Bps", "d2h_Bps",
};

/* Register file: allocated per warp in units of this many registers. */
#define REG_UNIT	256
/* Shared memory the hardware reserves per resident block. */
#define SMEM_RESERVED	1024

/* One file being read: its current line, split into fields. */
struct rd {
	const char *what;
	FILE *f;
	unsigned long line;
	char *buf;
	size_t cap;
	char *field[TRACE_FIELDS + 1];
	unsigned int nfields;
	const char *const *names;
	char *err;
	size_t errlen;
};

static int
fail(struct rd *r, int rc, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!r->err || !r->errlen)
		return rc;
	if (r->line)
		n = snprintf(r->err, r->errlen, "%s line %lu: ", r->what,
			     r->line);
	else
		n = snprintf(r->err, r->errlen, "%s: ", r->what);
	if (n < 0 || (size_t)n >= r->errlen)
		return rc;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - n, fmt, ap);
	va_end(ap);
	return rc;
}

/*
 * The next line, without its CR LF or LF: 1, or 0 at the end of the
 * file, or a negative errno. With @skip_blank, blank lines are skipped.
 */
static int next_line(struct rd *r, int skip_blank)
{
	ssize_t n;

	for (;;) {
		errno = 0;
		n = getline(&r->buf, &r->cap, r->f);
		if (n < 0) {
			if (ferror(r->f))
				return fail(r, -EIO, "read error");
			if (errno == ENOMEM)
				return -ENOMEM;
			return 0;
		}
		r->line++;
		if ((size_t)n > GSP_TRACE_LINE_MAX)
			return fail(r, -EINVAL, "longer than %u characters",
				    GSP_TRACE_LINE_MAX);
		if (memchr(r->buf, 0, (size_t)n))
			return fail(r, -EINVAL, "a NUL byte");
		if (n && r->buf[n - 1] == '\n')
			n--;
		if (n && r->buf[n - 1] == '\r')
			n--;
		r->buf[n] = 0;
		if (n || !skip_blank)
			return 1;
	}
}

/* Splits the line at every comma: -EINVAL unless it has @want fields. */
static int split(struct rd *r, unsigned int want)
{
	char *p = r->buf;

	r->nfields = 0;
	for (;;) {
		if (r->nfields == want + 1)
			break;
		r->field[r->nfields++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = 0;
	}
	if (r->nfields != want)
		return fail(r, -EINVAL, "%s fields where %u are wanted",
			    r->nfields > want ? "more" : "fewer", want);
	return 0;
}

static int expect_line(struct rd *r, const char *want, const char *what)
{
	int rc = next_line(r, 0);

	if (rc < 0)
		return rc;
	if (!rc) {
		r->line++;
		return fail(r, -EINVAL, "the file ends before its %s line '%s'",
			    what, want);
	}
	if (strcmp(r->buf, want))
		return fail(r, -EINVAL, "the %s line is not '%s'", what, want);
	return 0;
}

/* Field @i as an integer in 0..@max. */
static int get_u64(struct rd *r, unsigned int i, uint64_t max, uint64_t *v)
{
	const char *s = r->field[i], *name = r->names[i];
	uint64_t x = 0;

	if (!*s)
		return fail(r, -EINVAL, "%s is empty", name);
	if (*s == '-')
		return fail(r, -EINVAL, "%s ('%s') is negative", name, s);
	for (; *s; s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (*s < '0' || *s > '9')
			return fail(r, -EINVAL, "%s ('%s') is not an integer",
				    name, r->field[i]);
		if (d > max || x > (max - d) / 10)
			return fail(r, -EINVAL,
				    "%s ('%s') is over %llu", name,
				    r->field[i], (unsigned long long)max);
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

static int get_u32(struct rd *r, unsigned int i, uint32_t *v)
{
	uint64_t x;
	int rc = get_u64(r, i, UINT32_MAX, &x);

	if (!rc)
		*v = (uint32_t)x;
	return rc;
}

/* Field @i as a finite decimal number >= 0 (an exponent is allowed). */
static int get_rate(struct rd *r, unsigned int i, double *v)
{
	const char *s = r->field[i], *name = r->names[i];
	char *end;

	if (!*s)
		return fail(r, -EINVAL, "%s is empty", name);
	if (*s == '-')
		return fail(r, -EINVAL, "%s ('%s') is negative", name, s);
	/* strtod would skip blanks and take hex, "nan" and "inf" */
	if (!strchr("0123456789.", *s) || strpbrk(s, "xXnNiI"))
		return fail(r, -EINVAL, "%s ('%s') is not a number", name, s);
	errno = 0;
	*v = strtod(s, &end);
	if (*end)
		return fail(r, -EINVAL, "%s ('%s') is not a number", name, s);
	if (errno == ERANGE || !isfinite(*v))
		return fail(r, -EINVAL, "%s ('%s') is out of range", name, s);
	return 0;
}

uint32_t gsp_occupancy(const struct gsp_hw *hw, uint32_t threads,
		       uint32_t regs, uint32_t smem)
{
	uint64_t warps = ((uint64_t)threads + 31) / 32;
	uint64_t n, lim;

	if (!warps || warps > hw->max_warps_per_sm)
		return 0;
	n = hw->max_warps_per_sm / warps;
	if (n > hw->max_blocks_per_sm)
		n = hw->max_blocks_per_sm;
	if (regs) {
		uint64_t per_warp = ((uint64_t)regs * 32 + REG_UNIT - 1) /
				    REG_UNIT * REG_UNIT;

		lim = hw->regs_per_sm / (per_warp * warps);
		if (n > lim)
			n = lim;
	}
	lim = hw->smem_per_sm / ((uint64_t)smem + SMEM_RESERVED);
	if (n > lim)
		n = lim;
	return (uint32_t)n;
}

int gsp_hw_read(FILE *f, const char *what, struct gsp_hw *hw, char *err,
		size_t errlen)
{
	struct rd r = { .what = what, .f = f, .names = hw_names,
			.err = err, .errlen = errlen };
	uint32_t *ints[5];
	struct gsp_hw h = { 0 };
	unsigned int i;
	int rc;

	ints[0] = &h.sms;
	ints[1] = &h.max_warps_per_sm;
	ints[2] = &h.max_blocks_per_sm;
	ints[3] = &h.regs_per_sm;
	ints[4] = &h.smem_per_sm;
	rc = expect_line(&r, hw_head, "header");
	if (!rc)
		rc = next_line(&r, 1);
	if (rc == 0)
		rc = fail(&r, -EINVAL, "no line of values after the header");
	if (rc < 0)
		goto out;
	rc = split(&r, HW_FIELDS);
	for (i = 0; !rc && i < 5; i++) {
		rc = get_u32(&r, i, ints[i]);
		if (!rc && !*ints[i])
			rc = fail(&r, -EINVAL, "%s is 0", hw_names[i]);
	}
	if (!rc)
		rc = get_rate(&r, 5, &h.dram_Bps);
	if (!rc && h.dram_Bps <= 0)
		rc = fail(&r, -EINVAL, "dram_Bps is 0");
	if (!rc)
		rc = get_rate(&r, 6, &h.h2d_Bps);
	if (!rc)
		rc = get_rate(&r, 7, &h.d2h_Bps);
	if (!rc) {
		rc = next_line(&r, 1);
		if (rc > 0)
			rc = fail(&r, -EINVAL,
				  "a second line of values; one machine a file");
	}
	if (!rc)
		*hw = h;
out:
	free(r.buf);
	return rc;
}

int gsp_hw_load(const char *path, struct gsp_hw *hw, char *err,
		size_t errlen)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		rc = -errno;
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	rc = gsp_hw_read(f, path, hw, err, errlen);
	fclose(f);
	return rc;
}

static const char *const type_names[] = {
	[GSP_TASK_KERNEL] = "kernel",
	[GSP_TASK_H2D] = "h2d",
	[GSP_TASK_D2H] = "d2h",
};

/* One row into @k: @seq is the row's expected seq, @prev the last row. */
static int parse_task(struct rd *r, const struct gsp_hw *hw, uint64_t seq,
		      const struct gsp_task *prev, struct gsp_task *k)
{
	uint64_t v, pinned;
	unsigned int i;
	int rc;

	rc = split(r, TRACE_FIELDS);
	if (!rc)
		rc = get_u64(r, 0, UINT64_MAX, &v);
	if (rc)
		return rc;
	if (v != seq)
		return fail(r, -EINVAL, "seq is %llu where %llu is expected",
			    (unsigned long long)v, (unsigned long long)seq);
	rc = get_u32(r, 1, &k->query);
	if (rc)
		return rc;
	if (prev && k->query < prev->query)
		return fail(r, -EINVAL, "query goes back from %u to %u",
			    prev->query, k->query);
	for (i = 0; i < 3; i++)
		if (!strcmp(r->field[2], type_names[i]))
			break;
	if (i == 3)
		return fail(r, -EINVAL,
			    "unknown type '%s' (kernel, h2d or d2h)",
			    r->field[2]);
	k->type = (enum gsp_task_type)i;
	rc = get_u64(r, 3, UINT64_MAX, &k->submit_ns);
	if (!rc)
		rc = get_u64(r, 4, UINT64_MAX, &k->gap_ns);
	if (!rc)
		rc = get_u64(r, 5, UINT64_MAX, &k->dur_ns);
	if (!rc)
		rc = get_u32(r, 6, &k->grid);
	if (!rc)
		rc = get_u32(r, 7, &k->threads);
	if (!rc)
		rc = get_u32(r, 8, &k->regs);
	if (!rc)
		rc = get_u32(r, 9, &k->smem);
	if (!rc)
		rc = get_rate(r, 10, &k->dram_Bps);
	if (!rc)
		rc = get_u64(r, 11, UINT64_MAX, &k->bytes);
	if (!rc)
		rc = get_u64(r, 12, 1, &pinned);
	if (rc)
		return rc;
	k->pinned = (int)pinned;
	if (!prev && (k->submit_ns || k->gap_ns))
		return fail(r, -EINVAL, "the first row's submit_ns and gap_ns must be 0");
	if (!*r->field[13])
		return fail(r, -EINVAL, "name is empty");
	if (k->type != GSP_TASK_KERNEL) {
		if (k->grid || k->threads || k->regs || k->smem ||
		    k->dram_Bps != 0)
			return fail(r, -EINVAL,
				    "a copy with grid, threads, regs, smem or dram_Bps not 0");
		if (strcmp(r->field[13], type_names[k->type]))
			return fail(r, -EINVAL, "a %s copy named '%s'",
				    type_names[k->type], r->field[13]);
		return 0;
	}
	if (k->bytes || k->pinned)
		return fail(r, -EINVAL, "a kernel with bytes or pinned not 0");
	if (!k->grid || !k->threads)
		return fail(r, -EINVAL, "a kernel of %u blocks of %u threads",
			    k->grid, k->threads);
	k->blocks_per_sm = gsp_occupancy(hw, k->threads, k->regs, k->smem);
	if (!k->blocks_per_sm)
		return fail(r, -EINVAL,
			    "a block of %u threads, %u registers each, %u bytes of shared memory does not fit on an SM",
			    k->threads, k->regs, k->smem);
	v = ((uint64_t)k->grid + k->blocks_per_sm - 1) / k->blocks_per_sm;
	k->pes = v < hw->sms ? (uint32_t)v : hw->sms;
	return 0;
}

/* The queries and the solo timeline of a trace read whole. */
static int build_queries(struct rd *r, struct gsp_trace *t)
{
	uint64_t start = 0, end = 0, ready = 0, arrive;
	struct gsp_query *q = NULL;
	size_t i, nq = 1;

	for (i = 1; i < t->ntasks; i++)
		nq += t->task[i].query != t->task[i - 1].query;
	t->query = calloc(nq, sizeof(*t->query));
	if (!t->query)
		return -ENOMEM;
	for (i = 0; i < t->ntasks; i++) {
		const struct gsp_task *k = &t->task[i];

		if (i) {
			start = end + k->gap_ns;
			if (start < end)
				goto overflow;
		}
		if (!i || k->query != t->task[i - 1].query) {
			q = q ? q + 1 : t->query;
			q->first = i;
			arrive = k->submit_ns < start ? k->submit_ns : start;
			ready = arrive > end ? arrive : end;
			q->arrive_ns = arrive;
			q->host_ns = (double)(start - ready);
		}
		q->ntasks++;
		end = start + k->dur_ns;
		if (end < start)
			goto overflow;
		q->solo_ns = (double)(end - ready);
	}
	t->nqueries = nq;
	t->solo_end_ns = (double)end;
	return 0;
overflow:
	r->line = 0;
	return fail(r, -EINVAL, "the solo timeline overflows 64 bits of ns");
}

int gsp_trace_read(FILE *f, const char *what, const struct gsp_hw *hw,
		   struct gsp_trace *t, char *err, size_t errlen)
{
	struct rd r = { .what = what, .f = f, .names = trace_names,
			.err = err, .errlen = errlen };
	struct gsp_trace tr = { 0 };
	size_t cap = 0;
	int rc;

	memset(t, 0, sizeof(*t));
	rc = expect_line(&r, trace_magic, "first");
	if (!rc)
		rc = expect_line(&r, trace_head, "header");
	while (!rc) {
		rc = next_line(&r, 1);
		if (rc <= 0)
			break;
		if (tr.ntasks == GSP_TRACE_TASKS_MAX) {
			rc = fail(&r, -EINVAL, "more than %u tasks",
				  GSP_TRACE_TASKS_MAX);
			break;
		}
		if (tr.ntasks == cap) {
			size_t ncap = cap ? 2 * cap : 64;
			void *p = realloc(tr.task, ncap * sizeof(*tr.task));

			if (!p) {
				rc = -ENOMEM;
				break;
			}
			tr.task = p;
			cap = ncap;
		}
		memset(&tr.task[tr.ntasks], 0, sizeof(*tr.task));
		rc = parse_task(&r, hw, tr.ntasks,
				tr.ntasks ? &tr.task[tr.ntasks - 1] : NULL,
				&tr.task[tr.ntasks]);
		if (!rc)
			tr.ntasks++;
	}
	if (!rc && !tr.ntasks)
		rc = fail(&r, -EINVAL, "no task after the header");
	if (!rc)
		rc = build_queries(&r, &tr);
	free(r.buf);
	if (rc) {
		gsp_trace_free(&tr);
		return rc;
	}
	*t = tr;
	return 0;
}

int gsp_trace_load(const char *path, const struct gsp_hw *hw,
		   struct gsp_trace *t, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	int rc;

	if (!f) {
		rc = -errno;
		memset(t, 0, sizeof(*t));
		if (err && errlen)
			snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	rc = gsp_trace_read(f, path, hw, t, err, errlen);
	fclose(f);
	return rc;
}

void gsp_trace_free(struct gsp_trace *t)
{
	free(t->task);
	free(t->query);
	memset(t, 0, sizeof(*t));
}

double gsp_trace_solo_mean_ns(const struct gsp_trace *t)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < t->nqueries; i++)
		sum += t->query[i].solo_ns;
	return t->nqueries ? sum / (double)t->nqueries : 0;
}
