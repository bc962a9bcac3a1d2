// SPDX-License-Identifier: GPL-2.0
/*
 * flowshop [FILE]: the scheduling core's CuMAS flow-shop numbers for one
 * window of copy-in, compute, copy-out tasks, for bench/gpu/cumas_eval.py.
 *
 * Input (FILE or stdin): one task per line, "S P R", the three stages'
 * lengths in microseconds (decimals allowed); '#' starts a comment.
 * At most GSP_CUMAS_MAX_WINDOW (32) tasks; all machines free at 0.
 * Output, one line:
 *
 *   flowshop n=N fifo_us=F opt_us=O lb_us=L exact=0|1 order=I,J,...
 *
 * fifo_us: the makespan in input order (gsp_cumas_makespan()); opt_us
 * and order: gsp_cumas_solve()'s, exact up to GSP_CUMAS_EXACT_MAX (10)
 * tasks, above it the pick's heuristic, NEH and insertion local search
 * (exact=0); lb_us: gsp_cumas_lower_bound(). A bad
 * line or too many tasks: a message naming the line, exit 2.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsp_core.h"

static struct gsp_cumas c;

static int parse_us(const char *s, u64 *ns)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || errno || !(v >= 0) || v > 3.6e9)
		return -1;
	*ns = (u64)llround(v * 1000.0);
	return 0;
}

int main(int argc, char **argv)
{
	u64 free[3] = { 0, 0, 0 }, fifo_ns, opt, lb;
	u8 fifo[GSP_CUMAS_MAX_WINDOW];
	const char *name = argc > 1 ? argv[1] : "stdin";
	char line[512];
	FILE *f = stdin;
	u32 n = 0, ln = 0, i;

	if (argc > 2 || (argc == 2 && argv[1][0] == '-' && argv[1][1])) {
		fprintf(stderr, "usage: flowshop [FILE]  (lines \"S P R\" in us)\n");
		return 2;
	}
	if (argc == 2 && strcmp(argv[1], "-")) {
		f = fopen(argv[1], "r");
		if (!f) {
			fprintf(stderr, "flowshop: cannot open %s: %s\n", argv[1],
				strerror(errno));
			return 2;
		}
	}
	while (fgets(line, sizeof(line), f)) {
		char *tok[4], *save = NULL, *h = strchr(line, '#');
		int k = 0;

		ln++;
		if (h)
			*h = 0;
		for (char *t = strtok_r(line, " \t\r\n,", &save); t;
		     t = strtok_r(NULL, " \t\r\n,", &save))
			if (k < 4)
				tok[k++] = t;
			else
				k = 5;
		if (!k)
			continue;
		if (k != 3 || parse_us(tok[0], &c.t[n < GSP_CUMAS_MAX_WINDOW ? n : 0].s) ||
		    parse_us(tok[1], &c.t[n < GSP_CUMAS_MAX_WINDOW ? n : 0].p) ||
		    parse_us(tok[2], &c.t[n < GSP_CUMAS_MAX_WINDOW ? n : 0].r)) {
			fprintf(stderr, "flowshop: %s line %u: write three lengths in us, \"S P R\" (copy-in, compute, copy-out), each 0..3.6e9\n",
				name, ln);
			return 2;
		}
		if (++n > GSP_CUMAS_MAX_WINDOW) {
			fprintf(stderr, "flowshop: %s line %u: at most %u tasks (the core's largest window)\n",
				name, ln, GSP_CUMAS_MAX_WINDOW);
			return 2;
		}
	}
	if (f != stdin)
		fclose(f);
	if (!n) {
		fprintf(stderr, "flowshop: %s holds no task\n", name);
		return 2;
	}
	for (i = 0; i < n; i++)
		fifo[i] = (u8)i;
	fifo_ns = gsp_cumas_makespan(c.t, fifo, n, free);
	lb = gsp_cumas_lower_bound(c.t, n, free);
	opt = gsp_cumas_solve(&c, n, free);
	printf("flowshop n=%u fifo_us=%.3f opt_us=%.3f lb_us=%.3f exact=%d order=",
	       n, fifo_ns / 1e3, opt / 1e3, lb / 1e3, n <= GSP_CUMAS_EXACT_MAX);
	for (i = 0; i < n; i++)
		printf("%s%u", i ? "," : "", c.order[i]);
	printf("\n");
	return 0;
}
