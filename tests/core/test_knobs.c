// SPDX-License-Identifier: GPL-2.0
/*
 * The knob table (kmod/core/gsp_knob_table.h) that both arbiters serve:
 * how values parse and read, that the core's defaults are the table's,
 * and that the table in Documentation/uapi.rst ("Knobs") is the one the
 * table makes.
 *
 *   test_knobs           TAP (run from the top of the tree)
 *   test_knobs --rst     prints the documentation's table
 */
#include <string.h>

#include "gsp_knobs.h"
#include "tap.h"

#define KNOB_DOC	"Documentation/uapi.rst"
#define DOC_START	".. knob-table-start (made by: build/tests/core/test_knobs --rst)\n"
#define DOC_END		".. knob-table-end\n"

/* The rst table of the knobs: a simple table, the last column unbounded. */
static size_t knob_rst(char *out, size_t size)
{
	static const char *const head[4] = { "knob", "default", "takes",
					     "meaning" };
	char cell[GSP_KNOB_COUNT][3][128];
	size_t w[3], n = 0, i, c;

	for (c = 0; c < 3; c++)
		w[c] = strlen(head[c]);
	for (i = 0; i < GSP_KNOB_COUNT; i++) {
		snprintf(cell[i][0], sizeof(cell[i][0]), "``%s``",
			 gsp_knobs[i].name);
		gsp_knob_default(i, cell[i][1], sizeof(cell[i][1]));
		gsp_knob_range(i, cell[i][2], sizeof(cell[i][2]));
		for (c = 0; c < 3; c++)
			if (strlen(cell[i][c]) > w[c])
				w[c] = strlen(cell[i][c]);
	}
#define RULE() n += (size_t)snprintf(out + n, size - n,			\
				     "%.*s %.*s %.*s %s\n",		\
				     (int)w[0], EQ, (int)w[1], EQ,	\
				     (int)w[2], EQ, "=======")
	static const char EQ[] = "========================================"
				 "========================================";
	RULE();
	n += (size_t)snprintf(out + n, size - n, "%-*s %-*s %-*s %s\n",
			      (int)w[0], head[0], (int)w[1], head[1],
			      (int)w[2], head[2], head[3]);
	RULE();
	for (i = 0; i < GSP_KNOB_COUNT; i++)
		n += (size_t)snprintf(out + n, size - n, "%-*s %-*s %-*s %s\n",
				      (int)w[0], cell[i][0], (int)w[1],
				      cell[i][1], (int)w[2], cell[i][2],
				      gsp_knobs[i].help);
	RULE();
#undef RULE
	return n;
}

static int parses(enum gsp_knob_id id, const char *s, struct gsp_knob_val *v)
{
	struct gsp_knob_val tmp;

	return !gsp_knob_parse(id, s, v ? v : &tmp);
}

static const char *reads(enum gsp_knob_id id, const struct gsp_knob_val *v)
{
	static char buf[64];

	gsp_knob_format(id, v, buf, sizeof(buf));
	return buf;
}

static void test_partition(void)
{
	static const char *const bad[] = {
		"8", "0 1", "1 0", "257 1", "1 33", "-1 1", "8 -2", "8 2 3",
		"8  2", " 8 2", "x y", "8 2x", "99999999999 1", "0,1", "257,1",
		"1,33", "8,2,3", "8,,2", "8, 2", ",8,2", "8;2", "", ",",
		"8,2\n\n",
	};
	struct gsp_knob_val v;
	size_t i;
	int all = 1;

	tap_ok(parses(GSP_KNOB_partition, "8,2", &v) && v.n == 8 && v.k == 2 &&
	       !strcmp(reads(GSP_KNOB_partition, &v), "8,2"),
	       "partition \"8,2\" reads back as 8,2");
	tap_ok(parses(GSP_KNOB_partition, "8 2\n", &v) && v.n == 8 &&
	       v.k == 2 && !strcmp(reads(GSP_KNOB_partition, &v), "8,2"),
	       "partition \"8 2\\n\", the older form, is taken and reads as 8,2");
	tap_ok(parses(GSP_KNOB_partition, "0,0", &v) && !v.n && !v.k &&
	       parses(GSP_KNOB_partition, "256,32", &v) &&
	       parses(GSP_KNOB_partition, "1,1\n", &v),
	       "partition: 0,0 (off) and the limits 1..%u, 1..%u are taken",
	       GSPACE_PART_MAX_N, GSPACE_PART_MAX_K);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (parses(GSP_KNOB_partition, bad[i], NULL)) {
			tap_diag("partition '%s' taken", bad[i]);
			all = 0;
		}
	tap_ok(all, "partition: %zu malformed or out-of-range values refused",
	       sizeof(bad) / sizeof(bad[0]));
}

static void test_numbers(void)
{
	struct gsp_knob_val v = { 0 };
	int i, all = 1;

	tap_ok(parses(GSP_KNOB_period_us, "1000", &v) && v.u == 1000 &&
	       parses(GSP_KNOB_period_us, "10000000\n", &v) &&
	       !parses(GSP_KNOB_period_us, "999", NULL) &&
	       !parses(GSP_KNOB_period_us, "10000001", NULL),
	       "period_us: 1000..10000000, one trailing newline allowed");
	tap_ok(parses(GSP_KNOB_window, "0x10", &v) && v.u == 16 &&
	       parses(GSP_KNOB_window, "010", &v) && v.u == 8 &&
	       !parses(GSP_KNOB_window, "08", NULL) &&
	       !parses(GSP_KNOB_window, "0x", NULL),
	       "numbers are kstrtou64(s, 0): hex, octal and decimal");
	tap_ok(!parses(GSP_KNOB_watchdog_ms, "0", NULL) &&
	       !parses(GSP_KNOB_watchdog_ms, "", NULL) &&
	       !parses(GSP_KNOB_watchdog_ms, " 5", NULL) &&
	       !parses(GSP_KNOB_watchdog_ms, "5 ", NULL) &&
	       !parses(GSP_KNOB_watchdog_ms, "-5", NULL) &&
	       !parses(GSP_KNOB_watchdog_ms, "99999999999999999999999", NULL),
	       "watchdog_ms: 0, blanks, a sign and overflow refused");
	tap_ok(parses(GSP_KNOB_lc_group, "-1", &v) && v.u == U64_MAX &&
	       !strcmp(reads(GSP_KNOB_lc_group, &v), "-1") &&
	       parses(GSP_KNOB_lc_group, "4294967295", &v) &&
	       !parses(GSP_KNOB_lc_group, "4294967296", NULL) &&
	       !parses(GSP_KNOB_lc_group, "-2", NULL),
	       "lc_group: a gid, or -1 for none");
	for (i = 0; i < GSP_KNOB_COUNT; i++) {
		const struct gsp_knob *k = &gsp_knobs[i];
		char s[32];

		if (k->type != GSP_KNOB_UINT && k->type != GSP_KNOB_DEVICES)
			continue;
		snprintf(s, sizeof(s), "%llu", (unsigned long long)k->min);
		all &= parses(i, s, NULL);
		snprintf(s, sizeof(s), "%llu", (unsigned long long)k->max);
		all &= parses(i, s, NULL);
		snprintf(s, sizeof(s), "%llu", (unsigned long long)k->max + 1);
		all &= !parses(i, s, NULL);
		if (k->min) {
			snprintf(s, sizeof(s), "%llu",
				 (unsigned long long)k->min - 1);
			all &= !parses(i, s, NULL);
		}
		v.u = k->def;
		if (k->type == GSP_KNOB_UINT)
			all &= k->def >= k->min && k->def <= k->max;
	}
	tap_ok(all, "every number knob takes min and max, refuses beyond, and defaults within");
}

static void test_names(void)
{
	struct gsp_knob_val v;
	char range[96];

	tap_ok(parses(GSP_KNOB_policy, "band\n", &v) && v.u == GSP_POLICY_BAND &&
	       !strcmp(reads(GSP_KNOB_policy, &v), "band") &&
	       !parses(GSP_KNOB_policy, "FIFO", NULL) &&
	       !parses(GSP_KNOB_policy, "lifo", NULL) &&
	       !parses(GSP_KNOB_policy, "band\n\n", NULL),
	       "policy: a name of gsp_policy_names, with or without a newline");
	tap_ok(parses(GSP_KNOB_protect, "predictive", &v) &&
	       v.u == GSPACE_PROTECT_PREDICTIVE &&
	       !strcmp(reads(GSP_KNOB_protect, &v), "predictive") &&
	       !parses(GSP_KNOB_protect, "Reserved", NULL),
	       "protect: GSPACE_PROTECT_* by name");
	tap_ok(parses(GSP_KNOB_protect, "preemptive\n", &v) &&
	       v.u == GSPACE_PROTECT_PREEMPTIVE &&
	       !strcmp(reads(GSP_KNOB_protect, &v), "preemptive") &&
	       !parses(GSP_KNOB_protect, "preempt", NULL) &&
	       !parses(GSP_KNOB_protect, "preemptive ", NULL),
	       "protect: preemptive (ABI 1.4) by name, with or without a newline");
	v.u = GSPACE_PROTECT_COUNT;
	tap_ok(!strcmp(reads(GSP_KNOB_protect, &v), "?") &&
	       gsp_knobs[GSP_KNOB_protect].max == GSPACE_PROTECT_COUNT - 1,
	       "protect: every GSPACE_PROTECT_* has a name, none beyond");
	tap_ok(gsp_knob_range(GSP_KNOB_protect, range, sizeof(range)) ==
	       (int)strlen(range) &&
	       !strcmp(range, "reactive, reserved, predictive or preemptive") &&
	       gsp_knob_range(GSP_KNOB_policy, range, sizeof(range)) > 0 &&
	       !strcmp(range, "fifo, credit or band") &&
	       gsp_knob_range(GSP_KNOB_protect, range, 12) ==
	       (int)strlen("reactive, reserved, predictive or preemptive") &&
	       !strcmp(range, "reactive, r"),
	       "the names a choice takes: every one, truncated safely ('%s')",
	       range);
	tap_ok(gsp_knob_find("partition\n") == GSP_KNOB_partition &&
	       gsp_knob_find("nosuch") == -ENOENT,
	       "knobs are found by name");
}

static void test_defaults(void)
{
	struct gsp_params p;
	int i, all = 1;

	gsp_params_default(&p);
	for (i = 0; i < GSP_KNOB_COUNT; i++)
		if (gsp_knob_is_param(i))
			all &= gsp_knob_param_get(&p, i) == gsp_knobs[i].def;
	tap_ok(all && !gsp_params_validate(&p) && p.period_ns == 100000000ULL,
	       "the core's default tunables are the table's, and valid");
	tap_ok(gsp_knob_default_scaled(GSP_KNOB_watchdog_ms) ==
	       2000000000ULL &&
	       gsp_knob_default_scaled(GSP_KNOB_lc_hold_us) == 200000ULL,
	       "defaults scale to ns");
}

static char *slurp(const char *path)
{
	static char buf[1 << 20];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

static void test_doc(void)
{
	static char want[16384];
	char *doc = slurp(KNOB_DOC), *a, *b;
	size_t n = knob_rst(want, sizeof(want));

	a = doc ? strstr(doc, DOC_START) : NULL;
	b = a ? strstr(a, DOC_END) : NULL;
	if (!b) {
		tap_ok(0, "%s has the knob table between '%.*s' and '%.*s'",
		       KNOB_DOC, (int)strlen(DOC_START) - 1, DOC_START,
		       (int)strlen(DOC_END) - 1, DOC_END);
		return;
	}
	a += strlen(DOC_START);
	/* One blank line either side of the table. */
	if (*a == '\n')
		a++;
	if (b > a && b[-1] == '\n' && b - 1 > a && b[-2] == '\n')
		b--;
	tap_ok((size_t)(b - a) == n && !memcmp(a, want, n),
	       "%s's knob table is the one the table makes (else: build/tests/core/test_knobs --rst)",
	       KNOB_DOC);
}

int main(int argc, char **argv)
{
	static char rst[16384];

	if (argc > 1 && !strcmp(argv[1], "--rst")) {
		knob_rst(rst, sizeof(rst));
		fputs(rst, stdout);
		return 0;
	}
	test_partition();
	test_numbers();
	test_names();
	test_defaults();
	test_doc();
	return tap_done();
}
