// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The rows of a gsp-trace CSV from a tracer's records (trace_rows.h says
 * what each step does and why). No CUPTI and no global state.
 */
#include <errno.h>
#include <stdlib.h>

#include "trace_rows.h"

int trace_copy_task(struct trace_task *t, enum trace_mem src,
		    enum trace_mem dst, uint64_t bytes, uint64_t start,
		    uint64_t end, uint32_t corr)
{
	int host_src = src == TRACE_MEM_PAGEABLE || src == TRACE_MEM_PINNED;
	int host_dst = dst == TRACE_MEM_PAGEABLE || dst == TRACE_MEM_PINNED;
	enum trace_mem host;

	if (host_src && dst == TRACE_MEM_DEVICE) {
		t->type = TRACE_H2D;
		host = src;
	} else if (src == TRACE_MEM_DEVICE && host_dst) {
		t->type = TRACE_D2H;
		host = dst;
	} else {
		return -1;
	}
	t->start = start;
	t->end = end;
	t->bytes = bytes;
	t->name = NULL;
	t->corr = corr;
	t->grid = t->threads = t->regs = t->smem = 0;
	t->pinned = host == TRACE_MEM_PINNED;
	return 0;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* By correlation id, the earliest call first. */
static int cmp_api_corr(const void *pa, const void *pb)
{
	const struct trace_api *a = pa, *b = pb;

	return a->corr != b->corr ? cmp_u64(a->corr, b->corr) :
		cmp_u64(a->start, b->start);
}

/* By thread, then start; at one start the longer (outer) call first. */
static int cmp_sync(const void *pa, const void *pb)
{
	const struct trace_api *a = pa, *b = pb;

	if (a->tid != b->tid)
		return cmp_u64(a->tid, b->tid);
	if (a->start != b->start)
		return cmp_u64(a->start, b->start);
	return cmp_u64(b->end, a->end);
}

static int cmp_end(const void *pa, const void *pb)
{
	return cmp_u64(*(const uint64_t *)pa, *(const uint64_t *)pb);
}

/* Rows by device start, then submit, then correlation id. */
static int cmp_row(const void *pa, const void *pb)
{
	const struct trace_row *a = pa, *b = pb;

	if (a->t->start != b->t->start)
		return cmp_u64(a->t->start, b->t->start);
	if (a->submit != b->submit)
		return cmp_u64(a->submit, b->submit);
	return cmp_u64(a->t->corr, b->t->corr);
}

/* Index of the first of @n sorted @v greater than @x: how many are <= x. */
static size_t count_le(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The sync boundaries' return times, ascending, nested calls dropped. */
static uint64_t *sync_ends(const struct trace_api *apis, size_t na, size_t *n)
{
	struct trace_api *s;
	uint64_t *ends, reach = 0;
	size_t ns = 0, ne = 0;
	uint32_t tid = 0;

	for (size_t i = 0; i < na; i++)
		ns += apis[i].sync != 0;
	s = malloc((ns ? ns : 1) * sizeof(*s));
	ends = malloc((ns ? ns : 1) * sizeof(*ends));
	if (!s || !ends) {
		free(s);
		free(ends);
		return NULL;
	}
	ns = 0;
	for (size_t i = 0; i < na; i++)
		if (apis[i].sync)
			s[ns++] = apis[i];
	qsort(s, ns, sizeof(*s), cmp_sync);
	for (size_t i = 0; i < ns; i++) {
		/* inside a call of the same thread that started earlier */
		if (i && s[i].tid == tid && s[i].end <= reach)
			continue;
		tid = s[i].tid;
		reach = s[i].end;
		ends[ne++] = s[i].end;
	}
	free(s);
	qsort(ends, ne, sizeof(*ends), cmp_end);
	*n = ne;
	return ends;
}

/* The submit time of @corr among @na APIs sorted by corr, or -1. */
static int find_submit(const struct trace_api *apis, size_t na, uint32_t corr,
		       uint64_t *submit)
{
	size_t lo = 0, hi = na;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (apis[mid].corr < corr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == na || apis[lo].corr != corr)
		return -1;
	*submit = apis[lo].start;	/* the earliest of that id */
	return 0;
}

int trace_build(struct trace_task *tasks, size_t nt, struct trace_api *apis,
		size_t na, struct trace_row *rows, struct trace_stats *st)
{
	uint64_t *ends, first, prev_end = 0;
	size_t nends = 0;
	uint8_t *used;

	*st = (struct trace_stats){ 0 };
	ends = sync_ends(apis, na, &nends);
	used = calloc(nends + 1, 1);
	if (!ends || !used) {
		free(ends);
		free(used);
		errno = ENOMEM;
		return -1;
	}
	st->syncs = nends;
	if (na)
		qsort(apis, na, sizeof(*apis), cmp_api_corr);

	for (size_t i = 0; i < nt; i++) {
		rows[i] = (struct trace_row){ .t = &tasks[i] };
		if (find_submit(apis, na, tasks[i].corr, &rows[i].submit)) {
			/* placeholder, replaced in device order below */
			rows[i].submit = UINT64_MAX;
			st->unmatched++;
		}
	}
	/*
	 * Unmatched rows sort after matched ones of the same start, which
	 * is as good as any order: they have no host time to go by.
	 */
	if (nt)
		qsort(rows, nt, sizeof(*rows), cmp_row);
	for (size_t i = 0; i < nt; i++) {
		if (rows[i].submit == UINT64_MAX)
			rows[i].submit = i ? rows[i - 1].submit : rows[i].t->start;
		rows[i].query = count_le(ends, nends, rows[i].submit);
		used[rows[i].query] = 1;
	}
	/*
	 * The intervals that hold a task, renumbered densely: ends[] is done
	 * with, so it becomes the dense index of each interval (a prefix
	 * count of the used ones; nends + 1 intervals need one more slot).
	 */
	{
		uint64_t *dense = realloc(ends, (nends + 1) * sizeof(*dense));

		if (!dense) {
			free(ends);
			free(used);
			errno = ENOMEM;
			return -1;
		}
		ends = dense;
		for (size_t q = 0; q <= nends; q++) {
			dense[q] = st->queries;
			st->queries += used[q];
		}
		for (size_t i = 0; i < nt; i++)
			rows[i].query = dense[rows[i].query];
	}
	free(ends);
	free(used);

	first = nt ? rows[0].submit : 0;
	for (size_t i = 0; i < nt; i++) {
		const struct trace_task *t = rows[i].t;

		if (rows[i].submit < first) {
			st->early++;
			rows[i].submit = 0;
		} else {
			rows[i].submit -= first;
		}
		rows[i].dur = t->end > t->start ? t->end - t->start : 0;
		rows[i].gap = i && t->start > prev_end ? t->start - prev_end : 0;
		prev_end = t->end;
	}
	return 0;
}

/* A kernel's name with ',' and line ends made '_', so the CSV stays one
 * field a name and one line a row. */
static int put_name(FILE *f, const char *s)
{
	if (!s || !*s)
		return fputs("unknown", f) < 0 ? -1 : 0;
	for (; *s; s++) {
		char c = *s == ',' || *s == '\n' || *s == '\r' ? '_' : *s;

		if (putc(c, f) == EOF)
			return -1;
	}
	return 0;
}

int trace_write_csv(FILE *f, const struct trace_row *rows, size_t n)
{
	static const char *const type_name[] = { "kernel", "h2d", "d2h" };

	fputs("# gsp-trace 1\n"
	      "seq,query,type,submit_ns,gap_ns,dur_ns,grid,threads,regs,"
	      "smem,dram_Bps,bytes,pinned,name\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct trace_task *t = rows[i].t;
		int kernel = t->type == TRACE_KERNEL;

		fprintf(f, "%zu,%llu,%s,%llu,%llu,%llu,%u,%u,%u,%u,0,%llu,%u,",
			i, (unsigned long long)rows[i].query, type_name[t->type],
			(unsigned long long)rows[i].submit,
			(unsigned long long)rows[i].gap,
			(unsigned long long)rows[i].dur,
			kernel ? t->grid : 0, kernel ? t->threads : 0,
			kernel ? t->regs : 0, kernel ? t->smem : 0,
			(unsigned long long)(kernel ? 0 : t->bytes),
			kernel ? 0 : t->pinned);
		if (kernel ? put_name(f, t->name) : fputs(type_name[t->type], f) < 0)
			return -1;
		if (putc('\n', f) == EOF)
			return -1;
	}
	return ferror(f) ? -1 : 0;
}
