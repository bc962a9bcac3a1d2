// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The readers of solo traces and hw.csv (trace.h says what they accept),
 * and the occupancy calculator the predictor's waves come from.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
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

/* One file being read: the CSV reader, its line and its fields. */
struct rd {
	struct gsp_csv c;
	char *buf;			/* GSP_TRACE_LINE_MAX + 1 bytes */
	char *field[TRACE_FIELDS + 1];
};

static int rd_open(struct rd *r, const char *what, FILE *f,
		   const char *const *names, char *err, size_t errlen)
{
	r->buf = malloc(GSP_TRACE_LINE_MAX + 1);
	gsp_csv_init(&r->c, what, f, r->buf, GSP_TRACE_LINE_MAX, r->field,
		     TRACE_FIELDS, err, errlen);
	r->c.names = names;
	return r->buf ? 0 : gsp_csv_fail(&r->c, -ENOMEM, "out of memory");
}

static int get_u32(struct rd *r, unsigned int i, uint32_t *v)
{
	uint64_t x;
	int rc = gsp_csv_uint(&r->c, i, UINT32_MAX, &x);

	if (!rc)
		*v = (uint32_t)x;
	return rc;
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
	uint32_t *ints[5];
	struct gsp_hw h = { 0 };
	unsigned int i;
	struct rd r;
	int rc;

	ints[0] = &h.sms;
	ints[1] = &h.max_warps_per_sm;
	ints[2] = &h.max_blocks_per_sm;
	ints[3] = &h.regs_per_sm;
	ints[4] = &h.smem_per_sm;
	rc = rd_open(&r, what, f, hw_names, err, errlen);
	if (!rc)
		rc = gsp_csv_expect(&r.c, hw_head, "header");
	if (!rc)
		rc = gsp_csv_next(&r.c, 1);
	if (rc == 0)
		rc = gsp_csv_fail(&r.c, -EINVAL, "no line of values after the header");
	if (rc < 0)
		goto out;
	rc = gsp_csv_split(&r.c, HW_FIELDS);
	for (i = 0; !rc && i < 5; i++) {
		rc = get_u32(&r, i, ints[i]);
		if (!rc && !*ints[i])
			rc = gsp_csv_fail(&r.c, -EINVAL, "%s is 0", hw_names[i]);
	}
	if (!rc)
		rc = gsp_csv_number(&r.c, 5, 1, &h.dram_Bps);
	if (!rc && h.dram_Bps <= 0)
		rc = gsp_csv_fail(&r.c, -EINVAL, "dram_Bps is 0");
	if (!rc)
		rc = gsp_csv_number(&r.c, 6, 1, &h.h2d_Bps);
	if (!rc)
		rc = gsp_csv_number(&r.c, 7, 1, &h.d2h_Bps);
	if (!rc) {
		rc = gsp_csv_next(&r.c, 1);
		if (rc > 0)
			rc = gsp_csv_fail(&r.c, -EINVAL,
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

	rc = gsp_csv_split(&r->c, TRACE_FIELDS);
	if (!rc)
		rc = gsp_csv_uint(&r->c, 0, UINT64_MAX, &v);
	if (rc)
		return rc;
	if (v != seq)
		return gsp_csv_fail(&r->c, -EINVAL, "seq is %llu where %llu is expected",
			    (unsigned long long)v, (unsigned long long)seq);
	rc = get_u32(r, 1, &k->query);
	if (rc)
		return rc;
	if (prev && k->query < prev->query)
		return gsp_csv_fail(&r->c, -EINVAL, "query goes back from %u to %u",
			    prev->query, k->query);
	for (i = 0; i < 3; i++)
		if (!strcmp(r->field[2], type_names[i]))
			break;
	if (i == 3)
		return gsp_csv_fail(&r->c, -EINVAL,
			    "unknown type '%s' (kernel, h2d or d2h)",
			    r->field[2]);
	k->type = (enum gsp_task_type)i;
	rc = gsp_csv_uint(&r->c, 3, UINT64_MAX, &k->submit_ns);
	if (!rc)
		rc = gsp_csv_uint(&r->c, 4, UINT64_MAX, &k->gap_ns);
	if (!rc)
		rc = gsp_csv_uint(&r->c, 5, UINT64_MAX, &k->dur_ns);
	if (!rc)
		rc = get_u32(r, 6, &k->grid);
	if (!rc)
		rc = get_u32(r, 7, &k->threads);
	if (!rc)
		rc = get_u32(r, 8, &k->regs);
	if (!rc)
		rc = get_u32(r, 9, &k->smem);
	if (!rc)
		rc = gsp_csv_number(&r->c, 10, 1, &k->dram_Bps);
	if (!rc)
		rc = gsp_csv_uint(&r->c, 11, UINT64_MAX, &k->bytes);
	if (!rc)
		rc = gsp_csv_uint(&r->c, 12, 1, &pinned);
	if (rc)
		return rc;
	k->pinned = (int)pinned;
	if (!prev && (k->submit_ns || k->gap_ns))
		return gsp_csv_fail(&r->c, -EINVAL, "the first row's submit_ns and gap_ns must be 0");
	if (!*r->field[13])
		return gsp_csv_fail(&r->c, -EINVAL, "name is empty");
	if (k->type != GSP_TASK_KERNEL) {
		if (k->grid || k->threads || k->regs || k->smem ||
		    k->dram_Bps != 0)
			return gsp_csv_fail(&r->c, -EINVAL,
				    "a copy with grid, threads, regs, smem or dram_Bps not 0");
		if (strcmp(r->field[13], type_names[k->type]))
			return gsp_csv_fail(&r->c, -EINVAL, "a %s copy named '%s'",
				    type_names[k->type], r->field[13]);
		return 0;
	}
	if (k->bytes || k->pinned)
		return gsp_csv_fail(&r->c, -EINVAL, "a kernel with bytes or pinned not 0");
	if (!k->grid || !k->threads)
		return gsp_csv_fail(&r->c, -EINVAL, "a kernel of %u blocks of %u threads",
			    k->grid, k->threads);
	k->blocks_per_sm = gsp_occupancy(hw, k->threads, k->regs, k->smem);
	if (!k->blocks_per_sm)
		return gsp_csv_fail(&r->c, -EINVAL,
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
	r->c.line = 0;
	return gsp_csv_fail(&r->c, -EINVAL, "the solo timeline overflows 64 bits of ns");
}

int gsp_trace_read(FILE *f, const char *what, const struct gsp_hw *hw,
		   struct gsp_trace *t, char *err, size_t errlen)
{
	struct gsp_trace tr = { 0 };
	size_t cap = 0;
	struct rd r;
	int rc;

	memset(t, 0, sizeof(*t));
	rc = rd_open(&r, what, f, trace_names, err, errlen);
	if (!rc)
		rc = gsp_csv_expect(&r.c, trace_magic, "first");
	if (!rc)
		rc = gsp_csv_expect(&r.c, trace_head, "header");
	while (!rc) {
		rc = gsp_csv_next(&r.c, 1);
		if (rc <= 0)
			break;
		if (tr.ntasks == GSP_TRACE_TASKS_MAX) {
			rc = gsp_csv_fail(&r.c, -EINVAL, "more than %u tasks",
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
		rc = gsp_csv_fail(&r.c, -EINVAL, "no task after the header");
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
