// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the gsp-bench scenario parser, good and bad files. TAP. */
#include "scn.h"

#include <stdio.h>
#include <string.h>

#include "tap.h"

static struct scn s;

static void ok(int cond, const char *name)
{
	tap_ok(cond, "%s", name);
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

	ok(!scn_parse_string(
		"mechanisms solo mps gspace\n"
		"gspace_nk 132:8 66:8   # inter-SM\n"
		"gspace_nk 132:4\n"
		"gspace_solo 1\n"
		"pair mm bp\n", &s, err, sizeof(err)), "gspace scenario parses");
	ok(s.mechs == (1u << M_SOLO | 1u << M_MPS | 1u << M_GSPACE) &&
	   !strcmp(mech_names[M_GSPACE], "gspace"), "mechanism gspace");
	ok(s.nnk == 3 && s.nk_n[0] == 132 && s.nk_k[0] == 8 && s.nk_n[1] == 66 &&
	   s.nk_k[1] == 8 && s.nk_n[2] == 132 && s.nk_k[2] == 4,
	   "gspace_nk lines append in order");
	ok(s.gspace_solo == 1, "gspace_solo 1");
	ok(!scn_parse_string("gspace_nk 1:1 256:32\ngspace_solo 1\npair mm bp\n",
			     &s, err, sizeof(err)) && s.nnk == 2 && !(s.mechs >> M_GSPACE & 1),
	   "gspace_nk limits, gspace_solo without the mechanism");
	ok(!scn_parse_string("pair mm bp\n", &s, err, sizeof(err)) && !s.nnk &&
	   !s.gspace_solo, "no gspace by default");

	bad("gspace_nk 66\n", "<string>:1: 'gspace_nk': '66' is not N:K",
	    "gspace_nk without a colon");
	bad("gspace_nk 66:x\n", "<string>:1: 'gspace_nk': '66:x' is not N:K",
	    "gspace_nk with a bad K");
	bad("gspace_nk 66:4:1\n", "<string>:1: 'gspace_nk': '66:4:1' is not N:K",
	    "gspace_nk with a third field");
	bad("gspace_nk -1:4\n", "<string>:1: 'gspace_nk': '-1:4' is not N:K",
	    "gspace_nk with a sign");
	bad("gspace_nk 66:4 0:4\n", "<string>:1: 'gspace_nk': '0:4' is out of range",
	    "gspace_nk N of 0");
	bad("gspace_nk 257:4\n", "<string>:1: 'gspace_nk': '257:4' is out of range",
	    "gspace_nk N above 256");
	bad("gspace_nk 66:33\n", "<string>:1: 'gspace_nk': '66:33' is out of range",
	    "gspace_nk K above 32");
	bad("gspace_nk 66:4\ngspace_nk 8:1 66:4\n",
	    "<string>:2: 'gspace_nk': 66:4 is given twice", "gspace_nk duplicate");
	bad("gspace_nk\n", "<string>:1: 'gspace_nk' needs at least one N:K pair",
	    "gspace_nk without pairs");
	bad("gspace_solo 2\n", "<string>:1: 'gspace_solo' takes 0 or 1",
	    "gspace_solo 2");
	bad("gspace_solo\n", "<string>:1: 'gspace_solo' takes 0 or 1",
	    "gspace_solo without a value");
	bad("mechanisms solo gspace\npair mm bp\n",
	    "<string>:2: gspace cells need a 'gspace_nk' line",
	    "mechanism gspace without gspace_nk");
	bad("gspace_solo 1\npair mm bp\n",
	    "<string>:2: gspace cells need a 'gspace_nk' line",
	    "gspace_solo without gspace_nk");
	bad("gspace_nk 66:4\npair mm bp\n",
	    "<string>:2: 'gspace_nk' given, but neither mechanism gspace",
	    "gspace_nk that nothing uses");
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
	return tap_done();
}
