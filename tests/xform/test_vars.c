// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of gsp-xform's module variables (libgsp/xform/vars.c: the
 * .global variables a kernel reaches through references, bound at load)
 * and of its parts (a module cut into its symbols, a kernel taken with
 * what it names).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "xform.h"
#include "xform_test.h"

/* Module-scope .global variables go through references (vars.c). */
static const char varmod[] = HEAD
	".global .align 4 .u32 cnt;\n"
	".global .align 4 .b8 tab[64];\n"
	".global .align 4 .u32 idle;\n"
	".const .align 4 .b8 coef[16];\n"
	".func bump()\n{\n\t.reg .b64 %rd<2>;\n\t.reg .b32 %r<2>;\n"
	"\tmov.u64 %rd1, cnt;\n\tatom.global.add.u32 %r1, [%rd1], 1;\n\tret;\n}\n"
	".visible .entry kv(.param .u64 kv_param_0)\n{\n"
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<6>;\n\t.reg .b64 %rd<6>;\n"
	"\tmov.u32 %r1, %ctaid.x;\n"
	"\tsetp.eq.u32 %p1, %r1, 0;\n"
	"\t@%p1 ld.global.u32 %r2, [cnt];\n"
	"\tst.global.u32 [tab+8], %r2;\n"
	"\tld.const.u32 %r3, [coef+4];\n"
	"\tmov.u64 %rd1, tab+12;\n"
	"\tcvta.global.u64 %rd2, tab;\n"
	"\tmov.u64 %rd3, generic(cnt);\n"
	"\t{ // callseq 0\n\tcall.uni bump, ();\n\t}\n"
	"\tret;\n}\n";

static void test_vars(void)
{
	struct gsp_xform_result r, r2;
	const char *names[] = { "cnt", "tab" };
	const unsigned long long addrs[] = { 0x7f0000001000ull, 0x7f0000002040ull };
	char err[256], *bound = NULL, *clone;
	size_t blen;
	int rc;

	r = run(varmod, NULL, &rc);
	if (rc || r.nk != 1 || r.k[0].reason != GSP_XFORM_OK) {
		tap_ok(0, "vars: the module transforms: %s",
		       rc ? "error" : r.k[0].detail);
		if (!rc)
			gsp_xform_result_free(&r);
		return;
	}
	tap_ok(r.nvars == 2 && !strcmp(r.vars[0], "cnt") &&
	       !strcmp(r.vars[1], "tab"),
	       "vars: the .global variables that instructions name are listed (not idle, not the .const coef)");
	tap_ok(strstr(r.out, ".global .align 4 .u32 cnt;\n.const .align 8 .u64 cnt__gsp_ref = cnt;") &&
	       strstr(r.out, ".b8 tab[64];\n.const .align 8 .u64 tab__gsp_ref = tab;") &&
	       !strstr(r.out, "idle__gsp_ref") && !strstr(r.out, "coef__gsp_ref"),
	       "vars: each reference follows its variable, initialized to it");
	clone = strstr(r.out, ".entry kv__gsp(");
	tap_ok(clone && strstr(clone, "ld.const.u64 %__gsp_vr0, [cnt__gsp_ref];\n\t@%p1 ld.global.u32 %r2, [%__gsp_vr0];") &&
	       strstr(clone, "ld.const.u64 %__gsp_vr0, [tab__gsp_ref];\n\tst.global.u32 [%__gsp_vr0+8], %r2;") &&
	       strstr(clone, "ld.const.u32 %r3, [coef+4];"),
	       "vars: a memory operand goes through the reference, a guard stays on its instruction, .const is read in place");
	tap_ok(clone && strstr(clone, "add.s64 %__gsp_vr0, %__gsp_vr0, 12;\n\tmov.u64 %rd1, %__gsp_vr0;") &&
	       strstr(clone, "cvta.global.u64 %rd2, %__gsp_vr0;") &&
	       strstr(clone, "mov.u64 %rd3, %__gsp_vr0;"),
	       "vars: an address with an offset, a cvta and generic() take the reference's address");
	tap_ok(count(r.out, ".reg .b64 %__gsp_vr<4>;") == 3 &&
	       strstr(r.out, "mov.u64 %rd1, %__gsp_vr0;\n\tatom.global.add.u32"),
	       "vars: the original, its clone and the called .func each declare the scratch registers and use the references");
	r2 = run(r.out, NULL, &rc);
	tap_ok(!rc && r2.nvars == 0 && !strcmp(r2.out, r.out),
	       "vars: a second pass changes nothing");
	if (!rc)
		gsp_xform_result_free(&r2);
	rc = gsp_xform_bind(r.out, r.out_len, names, addrs, 2, &bound, &blen,
			    err, sizeof(err));
	tap_ok(!rc && strlen(bound) == blen &&
	       strstr(bound, "cnt__gsp_ref = 0x7f0000001000;") &&
	       strstr(bound, "tab__gsp_ref = 0x7f0000002040;") &&
	       blen == r.out_len + 2 * (strlen("0x7f0000001000") - 3),
	       "vars: bind sets each reference to the program's address, the rest kept: %s",
	       rc ? err : "ok");
	free(bound);
	bound = NULL;
	names[1] = "idle";
	rc = gsp_xform_bind(r.out, r.out_len, names, addrs, 2, &bound, &blen,
			    err, sizeof(err));
	tap_ok(rc == -1 && !bound && strstr(err, "1 of 2"),
	       "vars: bind refuses a name without a reference: %s", err);
	gsp_xform_result_free(&r);
}

/*
 * Hundreds of variables whose names prefix each other (v1, v10, v100):
 * each instruction's operand finds its own, and bind gives each its own
 * address, whatever order the names come in.
 */
#define NMANY 600
static void test_vars_many(void)
{
	struct gsp_xform_result r;
	const char *names[NMANY / 2];
	unsigned long long addrs[NMANY / 2];
	char *src, *bound = NULL, *p, err[256], want[96];
	size_t cap = 64 * NMANY + 512, blen, n = 0;
	int i, rc, ok = 1;

	src = malloc(cap);
	if (!src) {
		tap_ok(0, "vars, many: out of memory");
		return;
	}
	p = src + snprintf(src, cap, "%s", HEAD);
	for (i = 0; i < NMANY; i++)
		p += sprintf(p, ".global .align 4 .u32 v%d;\n", i);
	p += sprintf(p, ".visible .entry km()\n{\n\t.reg .b32 %%r<2>;\n");
	for (i = 0; i < NMANY; i += 2)		/* the even ones, last first */
		p += sprintf(p, "\tst.global.u32 [v%d], %d;\n", NMANY - 2 - i, i);
	sprintf(p, "\tret;\n}\n");
	r = run(src, NULL, &rc);
	if (rc || r.nk != 1 || r.k[0].reason != GSP_XFORM_OK) {
		tap_ok(0, "vars, many: the module transforms: %s",
		       rc ? "error" : r.k[0].detail);
		if (!rc)
			gsp_xform_result_free(&r);
		free(src);
		return;
	}
	for (i = 0; i < NMANY && ok; i++) {
		snprintf(want, sizeof(want), ".u32 v%d;\n.const .align 8 .u64 v%d__gsp_ref = v%d;",
			 i, i, i);
		ok = (strstr(r.out, want) == NULL) == (i % 2);
		if (!(i % 2)) {
			snprintf(want, sizeof(want), "[v%d__gsp_ref];\n\tst.global.u32 [%%__gsp_vr0], %d;",
				 i, NMANY - 2 - i);
			ok = ok && strstr(r.out, want);
			snprintf(want, sizeof(want), "v%d", i);
			ok = ok && (size_t)i / 2 < r.nvars &&
			     !strcmp(r.vars[i / 2], want);
		}
	}
	tap_ok(ok && r.nvars == NMANY / 2,
	       "vars, many: %d of %d variables named, each through its own reference, listed in module order",
	       NMANY / 2, NMANY);
	for (i = 0; i < NMANY / 2; i++) {	/* bind in reverse order */
		names[n] = r.vars[NMANY / 2 - 1 - i];
		addrs[n++] = 0x10000ull + (unsigned long long)(NMANY / 2 - 1 - i);
	}
	rc = gsp_xform_bind(r.out, r.out_len, names, addrs, n, &bound, &blen,
			    err, sizeof(err));
	for (i = 0, ok = !rc; i < NMANY / 2 && ok; i++) {
		snprintf(want, sizeof(want), "v%d__gsp_ref = 0x%llx;", 2 * i,
			 0x10000ull + (unsigned long long)i);
		ok = strstr(bound, want) != NULL;
	}
	tap_ok(ok, "vars, many: bind gives each of %d references its own address: %s",
	       NMANY / 2, rc ? err : "ok");
	free(bound);
	gsp_xform_result_free(&r);
	free(src);
}

/* Modules whose variables cannot be followed: nothing is transformed. */
static void test_vars_refused(void)
{
	static const struct {
		const char *what, *decl, *insn, *why;
	} cases[] = {
		{ "a reference name taken", ".global .u64 cnt__gsp_ref;\n",
		  "ld.global.u32 %r2, [cnt];", "cnt__gsp_ref is taken" },
		{ "a register named like the variable", "",
		  "ld.global.u32 %r2, [cnt];\n\t.reg .b32 cnt;", "hides the module variable cnt" },
		{ "five operands", "",
		  "mad.lo.u64 %rd1, cnt, cnt, cnt;\n\tmad.lo.u64 %rd1, cnt, cnt, cnt;\n\tmov.b64 {%r1, %r2}, {cnt, cnt, cnt, cnt, cnt};",
		  "more than 4 operands" },
	};
	char src[1024];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gsp_xform_result r;
		int rc;

		snprintf(src, sizeof(src), HEAD ".global .align 4 .u32 cnt;\n%s"
			 ".visible .entry kv()\n{\n\t.reg .b32 %%r<4>;\n\t.reg .b64 %%rd<2>;\n"
			 "\t%s\n\tret;\n}\n", cases[i].decl, cases[i].insn);
		r = run(src, NULL, &rc);
		tap_ok(!rc && r.nk == 1 && r.k[0].reason == GSP_XFORM_UNSUPPORTED &&
		       strstr(r.k[0].detail, cases[i].why) &&
		       !strcmp(r.out, src) && !r.nvars,
		       "vars refused: %s: unsupported, the module left byte for byte (%s)",
		       cases[i].what, rc ? "error" : r.k[0].detail);
		if (!rc)
			gsp_xform_result_free(&r);
	}
}

/* The 1-based line of the first @what in @s, 0 if none. */
static int line_of(const char *s, const char *what)
{
	const char *at = strstr(s, what);
	int n = 1;

	if (!at)
		return 0;
	for (; s < at; s++)
		n += *s == '\n';
	return n;
}

/* A module cut into its symbols: a kernel taken with what it names. */
static const char partmod[] = HEAD
	"// top\n"
	".func (.param .b32 r) f(.param .b32 x);\n"
	".global .align 4 .u32 a;\n"
	".global .align 4 .u32 b;\n"
	".global .align 4 .u32 c, d;\n"
	".global .align 8 .u64 fp[1] = {g};\n"
	".func (.param .b32 r) g(.param .b32 x)\n{\n\tret;\n}\n"
	".func (.param .b32 r) f(.param .b32 x)\n{\n\tst.global.u32 [d], 1;\n\tret;\n}\n"
	"// k1\n"
	".visible .entry k1()\n{\n\t.reg .b32 %r<2>;\n\tld.global.u32 %r1, [a];\n"
	"\t{ .param .b32 p; .param .b32 q; call.uni (q), f, (p); }\n\tret;\n}\n"
	".visible .entry k2()\n{\n\t.reg .b32 %r<2>;\n\tld.global.u32 %r1, [b];\n"
	"\t{ .param .b32 p; .param .b32 q; call.uni (q), g, (p); }\n\tret;\n}\n";

static void test_parts(void)
{
	static const char want_k1[] = HEAD
		"// top\n"
		".func (.param .b32 r) f(.param .b32 x);\n"
		".global .align 4 .u32 a;\n"
		".global .align 4 .u32 c, d;\n"
		".func (.param .b32 r) f(.param .b32 x)\n{\n\tst.global.u32 [d], 1;\n\tret;\n}\n"
		"// k1\n"
		".visible .entry k1()\n{\n\t.reg .b32 %r<2>;\n\tld.global.u32 %r1, [a];\n"
		"\t{ .param .b32 p; .param .b32 q; call.uni (q), f, (p); }\n\tret;\n}\n";
	const char *k1[] = { "k1", NULL }, *k2[] = { "k2", NULL };
	const char *both[] = { "k2", "k1", NULL }, *fn[] = { "f", NULL };
	const char *none[] = { "k3", NULL };
	struct gsp_xform_parts *pp = NULL, *pp2 = NULL;
	char err[256], *out = NULL, *again = NULL, *sec = NULL;
	size_t len, len2;
	int rc;

	rc = gsp_xform_parts_new(partmod, strlen(partmod), &pp, err, sizeof(err));
	tap_ok(!rc && pp, "parts: the module is cut: %s", rc ? err : "ok");
	if (rc)
		return;
	rc = gsp_xform_parts_take(pp, k1, 0, &out, &len, err, sizeof(err));
	tap_ok(!rc && len == strlen(out) && !strcmp(out, want_k1),
	       "parts: k1 keeps f's prototype and body, a, the declaration of c and d (f names d); not k2, g, b, fp");
	rc = rc ? rc : gsp_xform_parts_new(out, len, &pp2, err, sizeof(err));
	rc = rc ? rc : gsp_xform_parts_take(pp2, k1, 0, &again, &len2, err, sizeof(err));
	tap_ok(!rc && !strcmp(again, out), "parts: taking k1 again changes nothing");
	gsp_xform_parts_free(pp2);
	free(again);
	free(out);
	out = NULL;
	rc = gsp_xform_parts_take(pp, k2, 0, &out, &len, err, sizeof(err));
	tap_ok(!rc && strstr(out, ".entry k2()") && strstr(out, "g(.param .b32 x)\n{") &&
	       strstr(out, ".u32 b;") && !strstr(out, "entry k1") &&
	       !strstr(out, " f(") && !strstr(out, ".u32 a;") && !strstr(out, "fp["),
	       "parts: k2 keeps g and b only");
	free(out);
	out = NULL;
	rc = gsp_xform_parts_take(pp, both, 0, &out, &len, err, sizeof(err));
	tap_ok(!rc && strstr(out, ".entry k1()") && strstr(out, ".entry k2()") &&
	       strstr(out, ".u32 a;") && strstr(out, ".u32 b;") && !strstr(out, "fp[") &&
	       strstr(out, "// k1\n.visible .entry k1") < strstr(out, ".entry k2"),
	       "parts: two kernels keep both, in module order");
	free(out);
	out = NULL;
	rc = gsp_xform_parts_take(pp, k2, GSP_XFORM_PARTS_LINES, &out, &len,
				  err, sizeof(err));
	tap_ok(!rc && count(out, "\n") == count(partmod, "\n") &&
	       strstr(out, ".visible .entry k2") &&
	       line_of(out, ".visible .entry k2") == line_of(partmod, ".visible .entry k2") &&
	       line_of(out, ".u32 b;") == line_of(partmod, ".u32 b;") && !strstr(out, " f("),
	       "parts: with GSP_XFORM_PARTS_LINES k2 and b keep their line numbers");
	free(out);
	out = NULL;
	rc = gsp_xform_parts_take(pp, k2, 2, &out, &len, err, sizeof(err));
	tap_ok(rc == -1 && !out && strstr(err, "unknown flags"),
	       "parts: unknown flags are refused: %s", err);
	rc = gsp_xform_parts_take(pp, fn, 0, &out, &len, err, sizeof(err));
	tap_ok(rc == -1 && !out && strstr(err, "no kernel f with a body"),
	       "parts: a .func is not a kernel to take: %s", err);
	rc = gsp_xform_parts_take(pp, none, 0, &out, &len, err, sizeof(err));
	tap_ok(rc == -1 && !out && strstr(err, "no kernel k3"),
	       "parts: an unknown name is refused: %s", err);
	gsp_xform_parts_free(pp);
	pp = NULL;
	/* whatever a .section names is kept for any kernel */
	sec = malloc(sizeof(partmod) + 64);
	if (sec) {
		sprintf(sec, "%s.section .debug_x\n{\n\t.b64 g\n}\n", partmod);
		rc = gsp_xform_parts_new(sec, strlen(sec), &pp, err, sizeof(err));
		rc = rc ? rc : gsp_xform_parts_take(pp, k1, 0, &out, &len, err, sizeof(err));
		tap_ok(!rc && strstr(out, "g(.param .b32 x)\n{") && !strstr(out, "entry k2"),
		       "parts: a function a .section names is kept: %s", rc ? err : "ok");
		free(out);
		gsp_xform_parts_free(pp);
		free(sec);
	}
	rc = gsp_xform_parts_new("not ptx {", 9, &pp, err, sizeof(err));
	tap_ok(rc == -1 && !pp, "parts: bad PTX is refused: %s", err);
}

int main(void)
{
	test_vars();
	test_vars_many();
	test_parts();
	test_vars_refused();
	return tap_done();
}
