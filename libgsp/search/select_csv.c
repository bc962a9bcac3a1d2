// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The CSV readers of the initial selection's data (select_csv.h says the
 * format and what each refuses).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"
#include "select_csv.h"

#define NF		GSP_SELECT_FEATURES
#define MAX_FIELDS	(NF + 1)

static const char features_head[] =
	"mb,l1_hit,l2_hit,dram_bw,l2_bw,l1_bw,arith,insts";
static const char real_head[] =
	"name,l1_hit,l2_hit,dram_bw,l2_bw,l1_bw,arith,insts";
static const char tables_head[] = "lc_mb,be_mb,n,k,lc_ratio,be_rate";
static const char pairs_head[] = "lc,be,n,k,lc_ratio,be_rate";
static const char names_head[] = "mb,name";

/* One file being read: the CSV reader, its line and its fields. */
struct rd {
	struct gsp_csv c;
	char buf[GSP_CSV_LINE_MAX + 1];
	char *field[MAX_FIELDS + 1];
};

static int read_header(struct rd *r, const char *want)
{
	int rc = gsp_csv_next(&r->c, 1);

	if (rc < 0)
		return rc;
	if (!rc)
		return gsp_csv_fail(&r->c, -EINVAL,
				    "the file is empty; its header is %s", want);
	if (strcmp(r->buf, want))
		return gsp_csv_fail(&r->c, -EINVAL, "the header is not %s",
				    want);
	return 0;
}

static int get_uint(struct rd *r, unsigned int i, unsigned long max,
		    unsigned long *v)
{
	uint64_t x;
	int rc = gsp_csv_uint(&r->c, i, max, &x);

	if (!rc)
		*v = (unsigned long)x;
	return rc;
}

int gsp_csv_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n >= GSP_CSV_NAME_MAX)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || strchr("_.:+-", *s)))
			return 0;
	return 1;
}

static int get_name(struct rd *r, unsigned int i)
{
	if (!gsp_csv_name_ok(r->field[i]))
		return gsp_csv_fail(&r->c, -EINVAL,
			    "field %u ('%s') is not a name: 1..%d of [A-Za-z0-9_.:+-]",
			    i + 1, r->field[i], GSP_CSV_NAME_MAX - 1);
	return 0;
}

/* A cell (n, k) of fields @i, @i + 1: its index in @g. */
static int get_cell(struct rd *r, unsigned int i, const struct gsp_select_grid *g,
		unsigned int *idx)
{
	unsigned long n, k;
	int rc, c;

	rc = get_uint(r, i, UINT16_MAX, &n);
	if (!rc)
		rc = get_uint(r, i + 1, UINT16_MAX, &k);
	if (rc)
		return rc;
	c = gsp_select_cell_index(g, (struct gsp_cell){ (uint16_t)n,
							(uint16_t)k });
	if (c < 0)
		return gsp_csv_fail(&r->c, -EINVAL,
			    "cell (%lu, %lu) is not in the grid: n = %u - i * %u >= 1, k = %u - j * %u >= 1",
			    n, k, g->n_max, g->n_step, g->k_max, g->k_step);
	*idx = (unsigned int)c;
	return 0;
}

/* The LC ratio and the BE rate of fields @i, @i + 1. */
static int get_pred(struct rd *r, unsigned int i, struct gsp_search_pred *p)
{
	int rc = gsp_csv_number(&r->c, i, 0, &p->lc_ratio);

	if (!rc)
		rc = gsp_csv_number(&r->c, i + 1, 0, &p->be_rate);
	if (rc)
		return rc;
	if (!(p->lc_ratio > 0))
		return gsp_csv_fail(&r->c, -EINVAL, "lc_ratio %g is not above 0",
			    p->lc_ratio);
	if (p->be_rate < 0)
		return gsp_csv_fail(&r->c, -EINVAL, "be_rate %g is below 0", p->be_rate);
	return 0;
}

static void fill_nan(struct gsp_search_pred *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		p[i].lc_ratio = NAN;
		p[i].be_rate = NAN;
	}
}

static void rd_init(struct rd *r, const char *what, FILE *f, char *err,
		    size_t errlen)
{
	gsp_csv_init(&r->c, what, f, r->buf, GSP_CSV_LINE_MAX, r->field,
		     MAX_FIELDS, err, errlen);
}

int gsp_csv_read_instances(FILE *f, struct gsp_csv_names *out, char *err,
			   size_t errlen)
{
	struct rd r;
	struct gsp_csv_names n = { 0 };
	unsigned long mb;
	unsigned int i;
	void *p;
	int rc;

	rd_init(&r, "instances.csv", f, err, errlen);
	if (!f || !out)
		return gsp_csv_fail(&r.c, -EINVAL, "no file");
	rc = read_header(&r, names_head);
	while (!rc && (rc = gsp_csv_next(&r.c, 1)) > 0) {
		rc = gsp_csv_split(&r.c, 2);
		if (!rc)
			rc = get_uint(&r, 0, GSP_SELECT_MAX_MB, &mb);
		if (!rc)
			rc = get_name(&r, 1);
		if (rc)
			break;
		if (mb != n.nr) {
			rc = gsp_csv_fail(&r.c, -EINVAL,
				  "mb %lu where %u is wanted: mb counts 0, 1, ... in order",
				  mb, n.nr);
			break;
		}
		if (n.nr == GSP_SELECT_MAX_MB) {
			rc = gsp_csv_fail(&r.c, -EINVAL, "more than %d micro-benchmarks",
				  GSP_SELECT_MAX_MB);
			break;
		}
		for (i = 0; i < n.nr; i++)
			if (!strcmp(n.name[i], r.field[1]))
				break;
		if (i < n.nr) {
			rc = gsp_csv_fail(&r.c, -EINVAL, "%s is named twice (mb %u and %lu)",
				  r.field[1], i, mb);
			break;
		}
		p = realloc(n.name, (n.nr + 1) * sizeof(*n.name));
		if (!p) {
			rc = gsp_csv_fail(&r.c, -ENOMEM, "out of memory");
			break;
		}
		n.name = p;
		strcpy(n.name[n.nr++], r.field[1]);
	}
	if (!rc && !n.nr)
		rc = gsp_csv_fail(&r.c, -EINVAL, "no micro-benchmark after the header");
	if (rc) {
		free(n.name);
		return rc;
	}
	*out = n;
	return 0;
}

void gsp_csv_free_names(struct gsp_csv_names *n)
{
	if (!n)
		return;
	free(n->name);
	memset(n, 0, sizeof(*n));
}

static int read_features(struct rd *r, unsigned int nr_mb,
			 double (*feat)[NF])
{
	unsigned long mb;
	unsigned int i;
	double v[NF];
	int rc, f;

	rc = read_header(r, features_head);
	while (!rc && (rc = gsp_csv_next(&r->c, 1)) > 0) {
		rc = gsp_csv_split(&r->c, NF + 1);
		if (!rc)
			rc = get_uint(r, 0, GSP_SELECT_MAX_MB, &mb);
		for (f = 0; !rc && f < NF; f++)
			rc = gsp_csv_number(&r->c, f + 1, 0, &v[f]);
		if (rc)
			return rc;
		if (mb >= nr_mb)
			return gsp_csv_fail(&r->c, -EINVAL,
				    "mb %lu is out of range: the set has %u micro-benchmarks",
				    mb, nr_mb);
		if (!isnan(feat[mb][0]))
			return gsp_csv_fail(&r->c, -EINVAL, "mb %lu's second row", mb);
		memcpy(feat[mb], v, sizeof(v));
	}
	if (rc)
		return rc;
	r->c.line = 0;
	for (i = 0; i < nr_mb; i++)
		if (isnan(feat[i][0]))
			return gsp_csv_fail(&r->c, -EINVAL, "no row for mb %u", i);
	return 0;
}

static int read_tables(struct rd *r, unsigned int nr_mb,
		       const struct gsp_select_grid *g, unsigned int cells,
		       struct gsp_search_pred *t)
{
	struct gsp_search_pred p;
	unsigned long lc, be;
	unsigned int c;
	size_t i, at, total = (size_t)nr_mb * nr_mb * cells, missing = 0;
	struct gsp_cell gc;
	int rc;

	rc = read_header(r, tables_head);
	while (!rc && (rc = gsp_csv_next(&r->c, 1)) > 0) {
		rc = gsp_csv_split(&r->c, 6);
		if (!rc)
			rc = get_uint(r, 0, GSP_SELECT_MAX_MB, &lc);
		if (!rc)
			rc = get_uint(r, 1, GSP_SELECT_MAX_MB, &be);
		if (!rc && (lc >= nr_mb || be >= nr_mb))
			rc = gsp_csv_fail(&r->c, -EINVAL,
				  "pair (%lu, %lu) is out of range: the set has %u micro-benchmarks",
				  lc, be, nr_mb);
		if (!rc)
			rc = get_cell(r, 2, g, &c);
		if (!rc)
			rc = get_pred(r, 4, &p);
		if (rc)
			return rc;
		at = ((size_t)lc * nr_mb + be) * cells + c;
		if (!isnan(t[at].lc_ratio))
			return gsp_csv_fail(&r->c, -EINVAL,
				    "pair (%lu, %lu) cell (%s, %s) again",
				    lc, be, r->field[2], r->field[3]);
		t[at] = p;
	}
	if (rc)
		return rc;
	r->c.line = 0;
	for (i = 0, at = total; i < total; i++)
		if (isnan(t[i].lc_ratio) && !missing++)
			at = i;
	if (!missing)
		return 0;
	gc = gsp_grid_cell(g->n_max, g->k_max, g->n_step, g->k_step,
			   (uint32_t)(at % cells));
	return gsp_csv_fail(&r->c, -EINVAL,
		    "%zu of %zu cells are missing, the first pair (%zu, %zu) cell (%u, %u)",
		    missing, total, at / cells / nr_mb, at / cells % nr_mb,
		    gc.n, gc.k);
}

int gsp_csv_read_set(FILE *features, FILE *tables, unsigned int nr_mb,
		     const struct gsp_select_grid *grid,
		     struct gsp_select_set *out, char *err, size_t errlen)
{
	struct rd r;
	struct gsp_select_set s = { .nr_mb = nr_mb };
	double (*feat)[NF] = NULL;
	struct gsp_search_pred *t = NULL;
	unsigned int cells = grid ? gsp_select_cells(grid) : 0;
	unsigned int i;
	int rc;

	rd_init(&r, "features.csv", features, err, errlen);
	if (!features || !tables || !out)
		return gsp_csv_fail(&r.c, -EINVAL, "no file");
	if (!cells)
		return gsp_csv_fail(&r.c, -EINVAL, "the grid is not valid");
	if (nr_mb < 1 || nr_mb > GSP_SELECT_MAX_MB)
		return gsp_csv_fail(&r.c, -EINVAL, "%u micro-benchmarks: 1..%d", nr_mb,
			    GSP_SELECT_MAX_MB);
	feat = malloc(nr_mb * sizeof(*feat));
	t = malloc((size_t)nr_mb * nr_mb * cells * sizeof(*t));
	if (!feat || !t) {
		rc = gsp_csv_fail(&r.c, -ENOMEM, "out of memory");
		goto out_free;
	}
	for (i = 0; i < nr_mb; i++)
		feat[i][0] = NAN;
	fill_nan(t, (size_t)nr_mb * nr_mb * cells);
	rc = read_features(&r, nr_mb, feat);
	if (rc)
		goto out_free;
	rd_init(&r, "tables.csv", tables, err, errlen);
	rc = read_tables(&r, nr_mb, grid, cells, t);
	if (rc)
		goto out_free;
	s.features = (const double (*)[NF])feat;
	s.grid = *grid;
	s.tables = t;
	if (gsp_select_check(&s)) {
		rc = gsp_csv_fail(&r.c, -EINVAL, "the set is not valid");
		goto out_free;
	}
	*out = s;
	return 0;
out_free:
	free(feat);
	free(t);
	return rc;
}

void gsp_csv_free_set(struct gsp_select_set *set)
{
	if (!set)
		return;
	free((void *)set->features);
	free((void *)set->tables);
	memset(set, 0, sizeof(*set));
}

/* The index of name @s among @n names, or @n. */
static unsigned int find(char (*names)[GSP_CSV_NAME_MAX], unsigned int n,
			 const char *s)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], s))
			break;
	return i;
}

int gsp_csv_read_profiles(FILE *f, struct gsp_csv_profiles *out, char *err,
			  size_t errlen)
{
	struct rd r;
	struct gsp_csv_profiles p = { .features = NULL };
	double v[NF];
	void *a, *b;
	int rc, i;

	rd_init(&r, "features-real.csv", f, err, errlen);
	if (!f || !out)
		return gsp_csv_fail(&r.c, -EINVAL, "no file");
	rc = read_header(&r, real_head);
	while (!rc && (rc = gsp_csv_next(&r.c, 1)) > 0) {
		rc = gsp_csv_split(&r.c, NF + 1);
		if (!rc)
			rc = get_name(&r, 0);
		for (i = 0; !rc && i < NF; i++)
			rc = gsp_csv_number(&r.c, i + 1, 0, &v[i]);
		if (!rc && find(p.names.name, p.names.nr, r.field[0]) <
			   p.names.nr)
			rc = gsp_csv_fail(&r.c, -EINVAL, "%s's second row", r.field[0]);
		if (!rc && p.names.nr == GSP_CSV_MAX_ITEMS)
			rc = gsp_csv_fail(&r.c, -EINVAL, "more than %d profiles",
				  GSP_CSV_MAX_ITEMS);
		if (rc)
			break;
		a = realloc(p.names.name, (p.names.nr + 1) * sizeof(*p.names.name));
		if (a)
			p.names.name = a;
		b = realloc(p.features, (p.names.nr + 1) * sizeof(*p.features));
		if (b)
			p.features = b;
		if (!a || !b) {
			rc = gsp_csv_fail(&r.c, -ENOMEM, "out of memory");
			break;
		}
		strcpy(p.names.name[p.names.nr], r.field[0]);
		memcpy(p.features[p.names.nr++], v, sizeof(v));
	}
	if (!rc && !p.names.nr)
		rc = gsp_csv_fail(&r.c, -EINVAL, "no profile after the header");
	if (rc) {
		gsp_csv_free_profiles(&p);
		return rc;
	}
	*out = p;
	return 0;
}

void gsp_csv_free_profiles(struct gsp_csv_profiles *p)
{
	if (!p)
		return;
	gsp_csv_free_names(&p->names);
	free(p->features);
	p->features = NULL;
}

/* Pair (@lc, @be)'s index in @p, a new one if it has none: -errno. */
static int pair_of(struct rd *r, struct gsp_csv_pairs *p, unsigned int cells)
{
	const char *lc = r->field[0], *be = r->field[1];
	unsigned int i;
	void *a, *b, *m;

	for (i = 0; i < p->nr; i++)
		if (!strcmp(p->lc[i], lc) && !strcmp(p->be[i], be))
			return (int)i;
	if (p->nr == GSP_CSV_MAX_ITEMS)
		return gsp_csv_fail(&r->c, -EINVAL, "more than %d pairs", GSP_CSV_MAX_ITEMS);
	a = realloc(p->lc, (p->nr + 1) * sizeof(*p->lc));
	if (a)
		p->lc = a;
	b = realloc(p->be, (p->nr + 1) * sizeof(*p->be));
	if (b)
		p->be = b;
	m = realloc(p->measured, (size_t)(p->nr + 1) * cells *
			       sizeof(*p->measured));
	if (m)
		p->measured = m;
	if (!a || !b || !m)
		return gsp_csv_fail(&r->c, -ENOMEM, "out of memory");
	strcpy(p->lc[p->nr], lc);
	strcpy(p->be[p->nr], be);
	fill_nan(p->measured + (size_t)p->nr * cells, cells);
	return (int)p->nr++;
}

int gsp_csv_read_pairs(FILE *f, const struct gsp_select_grid *grid,
		       struct gsp_csv_pairs *out, char *err, size_t errlen)
{
	struct rd r;
	struct gsp_csv_pairs p = { 0 };
	unsigned int cells = grid ? gsp_select_cells(grid) : 0, c, i;
	struct gsp_search_pred v;
	struct gsp_cell gc;
	size_t at;
	int rc, k;

	rd_init(&r, "the real pairs' tables", f, err, errlen);
	if (!f || !out)
		return gsp_csv_fail(&r.c, -EINVAL, "no file");
	if (!cells)
		return gsp_csv_fail(&r.c, -EINVAL, "the grid is not valid");
	rc = read_header(&r, pairs_head);
	while (!rc && (rc = gsp_csv_next(&r.c, 1)) > 0) {
		rc = gsp_csv_split(&r.c, 6);
		if (!rc)
			rc = get_name(&r, 0);
		if (!rc)
			rc = get_name(&r, 1);
		if (!rc)
			rc = get_cell(&r, 2, grid, &c);
		if (!rc)
			rc = get_pred(&r, 4, &v);
		if (rc)
			break;
		k = pair_of(&r, &p, cells);
		if (k < 0) {
			rc = k;
			break;
		}
		at = (size_t)k * cells + c;
		if (!isnan(p.measured[at].lc_ratio)) {
			rc = gsp_csv_fail(&r.c, -EINVAL, "pair %s,%s cell (%s, %s) again",
				  r.field[0], r.field[1], r.field[2], r.field[3]);
			break;
		}
		p.measured[at] = v;
	}
	if (!rc && !p.nr)
		rc = gsp_csv_fail(&r.c, -EINVAL, "no pair after the header");
	r.c.line = 0;
	for (i = 0; !rc && i < p.nr; i++)
		for (c = 0; c < cells; c++)
			if (isnan(p.measured[(size_t)i * cells + c].lc_ratio)) {
				gc = gsp_grid_cell(grid->n_max, grid->k_max,
						   grid->n_step, grid->k_step, c);
				rc = gsp_csv_fail(&r.c, -EINVAL,
					  "pair %s,%s has no row for cell (%u, %u)",
					  p.lc[i], p.be[i], gc.n, gc.k);
				break;
			}
	if (rc) {
		gsp_csv_free_pairs(&p);
		return rc;
	}
	p.grid = *grid;
	*out = p;
	return 0;
}

void gsp_csv_free_pairs(struct gsp_csv_pairs *p)
{
	if (!p)
		return;
	free(p->lc);
	free(p->be);
	free(p->measured);
	memset(p, 0, sizeof(*p));
}
