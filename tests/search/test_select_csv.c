// SPDX-License-Identifier: GPL-2.0
/*
 * The CSV readers of the initial selection (libgsp/search/select_csv.c),
 * under ASan and UBSan: a small synthetic set written out and read back
 * exactly, with CRLF line ends and blank lines, then each thing a reader
 * must refuse, with its message.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "select_csv.h"
#include "tap.h"

#define MB	3
#define NF	GSP_SELECT_FEATURES

/* 4 x 2 slots, n_step 2: n in {4, 2}, k in {2, 1}, 4 cells */
static const struct gsp_select_grid grid = { 4, 2, 2, 1 };
#define CELLS	4

static char err[256];

/* A file holding @text, at its start. */
static FILE *mem(const char *text)
{
	FILE *f = tmpfile();

	if (!f) {
		perror("tmpfile");
		exit(1);
	}
	fputs(text, f);
	rewind(f);
	return f;
}

/* A growing text. */
struct text {
	char *s;
	size_t len;
};

static void add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	t->s = realloc(t->s, t->len + n + 1);
	if (!t->s)
		exit(1);
	va_start(ap, fmt);
	vsnprintf(t->s + t->len, n + 1, fmt, ap);
	va_end(ap);
	t->len += n;
}

/* The synthetic set's values: exact in binary, so they print exactly. */
static double feat(unsigned int mb, int f)
{
	return f == GSP_FEAT_INSTS ? 1e6 * (mb + 1) : 10.5 * mb + f + 0.25;
}

static struct gsp_search_pred cell_val(unsigned int lc, unsigned int be,
				       unsigned int c)
{
	struct gsp_search_pred p = { 1 + 0.125 * (lc + c), 0.0625 * (be + c) };

	return p;
}

/* features.csv and tables.csv of the synthetic set, with line end @eol. */
static void set_text(struct text *ft, struct text *tt, const char *eol)
{
	unsigned int i, j, c;
	struct gsp_search_pred p;
	struct gsp_cell gc;
	int f;

	add(ft, "mb,l1_hit,l2_hit,dram_bw,l2_bw,l1_bw,arith,insts%s", eol);
	for (i = MB; i-- > 0;) {		/* any order */
		add(ft, "%u", i);
		for (f = 0; f < NF; f++)
			add(ft, ",%.17g", feat(i, f));
		add(ft, "%s", eol);
	}
	add(tt, "lc_mb,be_mb,n,k,lc_ratio,be_rate%s", eol);
	for (c = CELLS; c-- > 0;)
		for (j = 0; j < MB; j++)
			for (i = 0; i < MB; i++) {
				gc = gsp_grid_cell(4, 2, 2, 1, c);
				p = cell_val(i, j, c);
				add(tt, "%u,%u,%u,%u,%.17g,%.17g%s", i, j, gc.n,
				    gc.k, p.lc_ratio, p.be_rate, eol);
				if (!i && !j)
					add(tt, "%s", eol);	/* blank */
			}
}

static int read_set(const char *ftext, const char *ttext,
		    struct gsp_select_set *s)
{
	FILE *ff = mem(ftext), *tf = mem(ttext);
	int rc = gsp_csv_read_set(ff, tf, MB, &grid, s, err, sizeof(err));

	fclose(ff);
	fclose(tf);
	return rc;
}

static void round_trip(const char *eol, const char *what)
{
	struct text ft = { 0 }, tt = { 0 };
	struct gsp_select_set s;
	const struct gsp_search_pred *t;
	struct gsp_search_pred p;
	unsigned int i, j, c, bad = 0;
	int rc, f;

	set_text(&ft, &tt, eol);
	rc = read_set(ft.s, tt.s, &s);
	tap_ok(rc == 0, "%s: the set reads back (%s)", what, err);
	if (rc)
		goto out;
	tap_ok(s.nr_mb == MB && !memcmp(&s.grid, &grid, sizeof(grid)) &&
	       !gsp_select_check(&s), "%s: its size and grid, and it checks",
	       what);
	for (i = 0; i < MB; i++)
		for (f = 0; f < NF; f++)
			bad += s.features[i][f] != feat(i, f);
	for (i = 0; i < MB; i++)
		for (j = 0; j < MB; j++) {
			gsp_select_table(&s, i, j, &t);
			for (c = 0; c < CELLS; c++) {
				p = cell_val(i, j, c);
				bad += t[c].lc_ratio != p.lc_ratio ||
				       t[c].be_rate != p.be_rate;
			}
		}
	tap_ok(!bad, "%s: every profile and cell exactly (%u differ)", what,
	       bad);
	gsp_csv_free_set(&s);
	tap_ok(!s.features && !s.tables && !s.nr_mb, "%s: freed and zeroed",
	       what);
out:
	free(ft.s);
	free(tt.s);
}

/* The set with line @n (1-based) of @which's text replaced by @line. */
static int set_with(int which, int n, const char *line,
		    struct gsp_select_set *s)
{
	struct text ft = { 0 }, tt = { 0 }, out = { 0 };
	char *src, *p, *e;
	int k, rc;

	set_text(&ft, &tt, "\n");
	src = which ? tt.s : ft.s;
	for (p = src, k = 1; *p; p = e + 1, k++) {
		e = strchr(p, '\n');
		if (k == n) {
			if (line)
				add(&out, "%s\n", line);
		} else {
			add(&out, "%.*s\n", (int)(e - p), p);
		}
	}
	if (which)
		rc = read_set(ft.s, out.s, s);
	else
		rc = read_set(out.s, tt.s, s);
	free(ft.s);
	free(tt.s);
	free(out.s);
	return rc;
}

/* -EINVAL, @s untouched, and a message that names @file and has @word. */
static void refused(int rc, const struct gsp_select_set *s, const char *file,
		    const char *word, const char *what)
{
	tap_ok(rc == -EINVAL && s->nr_mb == 12345 && strstr(err, file) &&
	       strstr(err, word), "refused: %s (%s)", what, err);
}

static void set_rejections(void)
{
	struct gsp_select_set s = { .nr_mb = 12345 };
	char longline[GSP_CSV_LINE_MAX + 8];
	struct gsp_select_grid bad_grid = { 4, 2, 0, 1 };
	FILE *a, *b;

	refused(set_with(0, 1, "mb,l1,l2,dram,l2bw,l1bw,arith,insts", &s), &s,
		"features.csv line 1", "header", "a wrong features header");
	refused(set_with(1, 1, "lc,be,n,k,lc_ratio,be_rate", &s), &s,
		"tables.csv line 1", "header", "a wrong tables header");
	refused(read_set("", "", &s), &s, "features.csv", "empty",
		"an empty file");
	refused(set_with(1, 2, "0,0,3,2,1.5,0.5", &s), &s, "line 2",
		"not in the grid", "a cell off the grid's steps");
	refused(set_with(1, 2, "0,0,4,3,1.5,0.5", &s), &s, "line 2",
		"not in the grid", "k above K");
	refused(set_with(1, 2, "0,0,0,2,1.5,0.5", &s), &s, "line 2",
		"not in the grid", "n = 0");
	refused(set_with(1, 4, "0,0,2,1,1.5,0.5", &s), &s, "tables.csv line",
		"again", "a cell twice");
	refused(set_with(0, 3, "2,1,2,3,4,5,6,7", &s), &s, "features.csv line 3",
		"second row", "a profile twice");
	refused(set_with(1, 5, NULL, &s), &s, "tables.csv", "missing",
		"a missing cell (NaN left)");
	refused(set_with(0, 2, NULL, &s), &s, "features.csv", "no row for mb 2",
		"a missing profile");
	refused(set_with(1, 2, "0,0,4,2,nan,0.5", &s), &s, "line 2",
		"not a number", "a NaN");
	refused(set_with(1, 2, "0,0,4,2,1.5,inf", &s), &s, "line 2",
		"not a number", "an infinity");
	refused(set_with(1, 2, "0,0,4,2,1e999,0.5", &s), &s, "line 2",
		"out of range", "a number that overflows");
	refused(set_with(0, 2, "2,1,2,3,4,5,6,abc", &s), &s, "line 2",
		"not a number", "a word for a number");
	refused(set_with(0, 2, "2, 1,2,3,4,5,6,7", &s), &s, "line 2",
		"not a number", "a leading blank");
	refused(set_with(0, 2, "2,1,2,3,4,5,6,7 ", &s), &s, "line 2",
		"not a number", "a trailing blank");
	refused(set_with(0, 2, "3,1,2,3,4,5,6,7", &s), &s, "line 2",
		"out of range", "an mb past the set");
	refused(set_with(1, 2, "0,3,4,2,1.5,0.5", &s), &s, "line 2",
		"out of range", "a be_mb past the set");
	refused(set_with(1, 2, "-1,0,4,2,1.5,0.5", &s), &s, "line 2",
		"is negative", "a negative mb");
	refused(set_with(1, 2, "0,0,4,2,0,0.5", &s), &s, "line 2",
		"not above 0", "an LC ratio of 0");
	refused(set_with(1, 2, "0,0,4,2,1.5,-0.5", &s), &s, "line 2",
		"below 0", "a negative BE rate");
	refused(set_with(1, 2, "0,0,4,2,1.5", &s), &s, "line 2", "fewer",
		"a field short");
	refused(set_with(1, 2, "0,0,4,2,1.5,0.5,1", &s), &s, "line 2", "more",
		"a field too many");
	memset(longline, '1', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = 0;
	refused(set_with(1, 2, longline, &s), &s, "line 2", "longer",
		"a line too long");
	refused(read_set("mb,l1_hit\0,x\n", "", &s), &s, "features.csv line 1",
		"header", "a header cut by a NUL");
	a = mem("x");
	fputc(0, a);
	rewind(a);
	b = mem("");
	tap_ok(gsp_csv_read_set(a, b, MB, &grid, &s, err, sizeof(err)) ==
	       -EINVAL && strstr(err, "NUL") && s.nr_mb == 12345,
	       "refused: a NUL byte (%s)", err);
	rewind(a);
	tap_ok(gsp_csv_read_set(a, b, MB, &bad_grid, &s, err, sizeof(err)) ==
	       -EINVAL && strstr(err, "grid"), "refused: a bad grid (%s)",
	       err);
	rewind(a);
	tap_ok(gsp_csv_read_set(a, b, 0, &grid, &s, err, sizeof(err)) ==
	       -EINVAL, "refused: no micro-benchmark (%s)", err);
	tap_ok(gsp_csv_read_set(a, b, MB, &grid, &s, NULL, 0) == -EINVAL,
	       "refused without a message buffer");
	fclose(a);
	fclose(b);
}

static void instances(void)
{
	struct gsp_csv_names n = { .nr = 7 };
	FILE *f = mem("mb,name\r\n0,1:0.00:1\r\n1,micro:32:0.20:4\r\n");
	int rc = gsp_csv_read_instances(f, &n, err, sizeof(err));

	fclose(f);
	tap_ok(!rc && n.nr == 2 && !strcmp(n.name[0], "1:0.00:1") &&
	       !strcmp(n.name[1], "micro:32:0.20:4"),
	       "instances.csv reads, CRLF and all (%s)", err);
	gsp_csv_free_names(&n);
	n.nr = 7;
	f = mem("mb,name\n1,a\n");
	rc = gsp_csv_read_instances(f, &n, err, sizeof(err));
	fclose(f);
	tap_ok(rc == -EINVAL && n.nr == 7 && strstr(err, "line 2") &&
	       strstr(err, "in order"), "refused: mb out of order (%s)", err);
	f = mem("mb,name\n0,a\n1,a\n");
	rc = gsp_csv_read_instances(f, &n, err, sizeof(err));
	fclose(f);
	tap_ok(rc == -EINVAL && strstr(err, "twice"),
	       "refused: a name twice (%s)", err);
	f = mem("mb,name\n0,a b\n");
	rc = gsp_csv_read_instances(f, &n, err, sizeof(err));
	fclose(f);
	tap_ok(rc == -EINVAL && strstr(err, "not a name"),
	       "refused: a name with a blank (%s)", err);
	f = mem("mb,name\n");
	rc = gsp_csv_read_instances(f, &n, err, sizeof(err));
	fclose(f);
	tap_ok(rc == -EINVAL && strstr(err, "no micro-benchmark"),
	       "refused: a header alone (%s)", err);
}

static void profiles(void)
{
	struct gsp_csv_profiles p = { .features = NULL };
	FILE *f = mem("name,l1_hit,l2_hit,dram_bw,l2_bw,l1_bw,arith,insts\n"
		      "bp,1,2,3,4,5,90.5,1e6\ncfd,7,6,5,4,3,60,2500");
	int rc = gsp_csv_read_profiles(f, &p, err, sizeof(err));

	fclose(f);
	tap_ok(!rc && p.names.nr == 2 && !strcmp(p.names.name[1], "cfd") &&
	       p.features[0][GSP_FEAT_ARITH] == 90.5 &&
	       p.features[1][GSP_FEAT_INSTS] == 2500,
	       "features-real.csv reads, its last line without an end (%s)",
	       err);
	gsp_csv_free_profiles(&p);
	f = mem("name,l1_hit,l2_hit,dram_bw,l2_bw,l1_bw,arith,insts\n"
		"bp,1,2,3,4,5,6,7\nbp,1,2,3,4,5,6,7\n");
	rc = gsp_csv_read_profiles(f, &p, err, sizeof(err));
	fclose(f);
	tap_ok(rc == -EINVAL && !p.names.nr && strstr(err, "line 3") &&
	       strstr(err, "second row"), "refused: a workload twice (%s)",
	       err);
	f = mem("name,l1_hit,l2_hit,dram_bw,l2_bw,l1_bw,arith,insts\n"
		"bp,1,2,3,4,5,6,-inf\n");
	rc = gsp_csv_read_profiles(f, &p, err, sizeof(err));
	fclose(f);
	tap_ok(rc == -EINVAL && strstr(err, "field 8"),
	       "refused: -inf in a profile (%s)", err);
}

static const char pairs_ok[] =
	"lc,be,n,k,lc_ratio,be_rate\n"
	"bp,cfd,4,2,1.25,0.5\nbp,cfd,4,1,1.5,0.25\nhotspot,md,2,1,3,0.75\n"
	"bp,cfd,2,2,2,0.5\nbp,cfd,2,1,2.5,0.125\nhotspot,md,2,2,2,0.5\n"
	"hotspot,md,4,1,1.75,0.25\nhotspot,md,4,2,1,0\n";

static void pairs(void)
{
	struct gsp_csv_pairs p = { .nr = 9 };
	FILE *f = mem(pairs_ok);
	int rc = gsp_csv_read_pairs(f, &grid, &p, err, sizeof(err));
	char text[sizeof(pairs_ok)];

	fclose(f);
	tap_ok(!rc && p.nr == 2 && !strcmp(p.lc[1], "hotspot") &&
	       !strcmp(p.be[0], "cfd") && p.measured[1].lc_ratio == 1.5 &&
	       p.measured[CELLS + 3].be_rate == 0.75 &&
	       p.measured[CELLS].be_rate == 0,
	       "the real pairs' tables read, in the order of their first row (%s)",
	       err);
	gsp_csv_free_pairs(&p);
	p.nr = 9;
	memcpy(text, pairs_ok, sizeof(text));
	*strstr(text, "hotspot,md,4,2") = 0;
	f = mem(text);
	rc = gsp_csv_read_pairs(f, &grid, &p, err, sizeof(err));
	fclose(f);
	tap_ok(rc == -EINVAL && p.nr == 9 &&
	       strstr(err, "hotspot,md has no row for cell (4, 2)"),
	       "refused: a real pair's missing cell (%s)", err);
	f = mem("lc,be,n,k,lc_ratio,be_rate\nbp,cfd,4,2,1,1\nbp,cfd,4,2,1,1\n");
	rc = gsp_csv_read_pairs(f, &grid, &p, err, sizeof(err));
	fclose(f);
	tap_ok(rc == -EINVAL && strstr(err, "line 3") && strstr(err, "again"),
	       "refused: a real pair's cell twice (%s)", err);
	f = mem("lc,be,n,k,lc_ratio,be_rate\nbp;x,cfd,4,2,1,1\n");
	rc = gsp_csv_read_pairs(f, &grid, &p, err, sizeof(err));
	fclose(f);
	tap_ok(rc == -EINVAL && strstr(err, "not a name"),
	       "refused: a workload name with a ';' (%s)", err);
	f = mem("lc,be,n,k,lc_ratio,be_rate\nbp,cfd,3,2,1,1\n");
	rc = gsp_csv_read_pairs(f, &grid, &p, err, sizeof(err));
	fclose(f);
	tap_ok(rc == -EINVAL && strstr(err, "not in the grid"),
	       "refused: a real pair's cell off the grid (%s)", err);
}

int main(void)
{
	round_trip("\n", "LF");
	round_trip("\r\n", "CRLF");
	set_rejections();
	instances();
	profiles();
	pairs();
	return tap_done();
}
