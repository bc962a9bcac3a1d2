// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the gsp-bench scenario parser, good and bad files. TAP. */
#include "scn.h"

#include <stdio.h>
#include <string.h>

static int tapn, failed;
static struct scn s;

static void ok(int cond, const char *name)
{
	printf("%s %d - %s\n", cond ? "ok" : "not ok", ++tapn, name);
	failed += !cond;
}

/* a bad scenario must fail with exactly this "file:line: message" prefix */
static void bad(const char *text, const char *want, const char *name)
{
	char err[512] = "";
	int rc = scn_parse_string(text, &s, err, sizeof(err));

	if (rc != -1 || strncmp(err, want, strlen(want)))
		printf("# got rc %d, error '%s'; want '%s'\n", rc, err, want);
	ok(rc == -1 && !strncmp(err, want, strlen(want)), name);
}

int main(void)
{
	char err[512];
	FILE *f;

	ok(!scn_parse_string(
		"# baseline\n"
		"duration 1.5   # seconds\n"
		"q 1.5\n"
		"mechanisms solo timeslice mps mps-pct prio green flep\n"
		"be mm nn cfd md\n"
		"lc bp lbm hotspot pathfinder streamcluster spmv\n"
		"pair micro:32:0.2:4 bp xfer_lc=0.5\n"
		"scale mm lud\n"
		"scale_sms 8,16 32\n", &s, err, sizeof(err)), "good scenario parses");
	ok(s.npairs == 25 && s.duration == 1.5 && s.q == 1.5,
	   "4 x 6 cross product plus one explicit pair");
	ok(!strcmp(s.pairs[0].be, "micro:32:0.2:4") && s.pairs[0].xfer_lc == 0.5 &&
	   !strcmp(s.pairs[1].be, "mm") && !strcmp(s.pairs[1].lc, "bp") &&
	   !strcmp(s.pairs[24].be, "md") && !strcmp(s.pairs[24].lc, "spmv"),
	   "pair order: explicit pairs, then be-major cross product");
	ok(s.mechs == 0x7f, "seven mechanisms");
	ok(s.nsms == 3 && s.sms[2] == 32 && s.nbps == 4 && s.nscale == 2,
	   "scale lists, default blocks-per-SM list");
	ok(s.depth == 2 && s.period_ms == 2 && s.mps_be_pct == 30,
	   "defaults");

	bad("duration 1\nfoo 3\n", "<string>:2: unknown directive 'foo'",
	    "unknown directive names its line");
	bad("duration abc\npair mm bp\n", "<string>:1: 'duration': 'abc' is not a number",
	    "non-numeric value");
	bad("pair mm bp\nq 0.5\n", "<string>:2: 'q': 0.5 is out of range",
	    "q below 1");
	bad("pair mm bp\n\n\npair mm bogus\n", "<string>:4: unknown workload 'bogus'",
	    "unknown workload, blank lines counted");
	bad("mechanisms solo warp\npair mm bp\n", "<string>:1: unknown mechanism 'warp'",
	    "unknown mechanism");
	bad("pair mm\n", "<string>:1: 'pair' takes a BE and an LC workload",
	    "pair with one workload");
	bad("pair mm bp xfer_lc=2\n", "<string>:1: 'xfer_lc': 2 is out of range",
	    "transfer ratio above 1");
	bad("pair mm bp speed=3\n", "<string>:1: 'pair': unknown option 'speed'",
	    "unknown pair option");
	bad("be mm\n", "<string>:1: 'be' workloads given but no 'lc' workloads",
	    "be without lc");
	bad("# nothing\n", "<string>:1: nothing to run", "empty scenario");
	bad("pair mm bp\ndepth 2.5\n", "<string>:2: 'depth': 2.5 is not a whole number",
	    "fractional depth");
	bad("scale mm\nscale_sms 8,x\n", "<string>:2: 'scale_sms': bad number in '8,x'",
	    "bad SM list");
	bad("pair micro:0:0.1:1 bp\n", "<string>:1: unknown workload 'micro:0:0.1:1'",
	    "micro stride 0 rejected");
	bad("duration\npair mm bp\n", "<string>:1: 'duration' takes one value",
	    "missing value");

	f = tmpfile();
	if (f) {
		char e2[512];

		fputs("pair mm bp\n# c\nwarmup -1\n", f);
		rewind(f);
		ok(scn_parse(f, "x.scn", &s, e2, sizeof(e2)) == -1 &&
		   !strncmp(e2, "x.scn:3: 'warmup': -1 is out of range", 36),
		   "file errors carry the file name and line");
		fclose(f);
	}
	printf("1..%d\n", tapn);
	return failed ? 1 : 0;
}
