// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of gsp-xform's device functions (libgsp/xform/funcs.c): the
 * clones NAME__gsp_f that take the task's %ctaid/%nctaid as parameters,
 * and the calls that reach them. tests/xform/func_ids.cu has ptxas
 * assemble the same on nvcc's PTX.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tap.h"
#include "xform.h"
#include "xform_test.h"

/* Valid PTX (ptxas accepts it and its output). g only passes the ids on;
 * f and g call each other; poly reads none; wr has no parameter list. */
#define FN_G_PROTO ".func (.param .b32 r) g(.param .b32 a);\n"
#define FN_BX								\
	".visible .func (.param .b32 r) bx()\n{\n\t.reg .b32 %r<2>;\n"	\
	"\tmov.u32 %r1, %ctaid.x;\n\tst.param.b32 [r], %r1;\n\tret;\n}\n"
#define FN_F								\
	".func (.param .b32 r) f(.param .b32 a)\n{\n"			\
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n"			\
	"\tld.param.b32 %r1, [a];\n\tsetp.eq.u32 %p1, %r1, 0;\n"	\
	"\t@%p1 bra $L_z;\n\tsub.u32 %r2, %r1, 1;\n"			\
	"\t{ .param .b32 p; st.param.b32 [p], %r2; .param .b32 q; "	\
	"call (q), g, (p); ld.param.b32 %r3, [q]; }\n"			\
	"\tst.param.b32 [r], %r3;\n\tret;\n$L_z:\n"			\
	"\tmov.u32 %r3, %nctaid.y;\n\tmov.u32 %r2, %ctaid.z;\n"	\
	"\tadd.u32 %r3, %r3, %r2;\n\tst.param.b32 [r], %r3;\n\tret;\n}\n"
#define FN_G								\
	".func (.param .b32 r) g(.param .b32 a)\n{\n\t.reg .b32 %r<3>;\n" \
	"\tld.param.b32 %r1, [a];\n"					\
	"\t{ .param .b32 p; st.param.b32 [p], %r1; .param .b32 q; "	\
	"call (q), f, (p); ld.param.b32 %r2, [q]; }\n"			\
	"\tst.param.b32 [r], %r2;\n\tret;\n}\n"
#define FN_POLY ".func poly(.param .b32 a)\n{\n\tret;\n}\n"
#define FN_WR								\
	".func wr\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, %nctaid.x;\n\tret;\n}\n"
#define FN_ST								\
	".func st(.param .b64 p)\n{\n\t.reg .b32 %r<2>;\n\t.reg .b64 %rd<2>;\n" \
	"\tld.param.u64 %rd1, [p];\n\tmov.u32 %r1, %ctaid.y;\n"	\
	"\tst.global.u32 [%rd1], %r1;\n\tret;\n}\n"
#define KERN_K								\
	".visible .entry k(.param .u32 n)\n{\n"				\
	"\t.reg .pred %p<2>;\n\t.reg .b32 %r<4>;\n"			\
	"\t{ .param .b32 r0; call.uni (r0), bx, (); ld.param.b32 %r1, [r0]; }\n" \
	"\t{ .param .b32 a0; .param .b32 r1; st.param.b32 [a0], %r1; "	\
	"call (r1), f, (a0); ld.param.b32 %r2, [r1]; }\n"		\
	"\t{ .param .b32 a1; st.param.b32 [a1], %r2; call.uni poly, (a1); }\n" \
	"\tsetp.eq.u32 %p1, %r2, 0;\n\t@%p1 call.uni wr;\n\tret;\n}\n"
#define KERN_K2								\
	".visible .entry k2()\n{\n\t.reg .b32 %r<3>;\n"		\
	"\t{ .param .b32 r0; call.uni (r0), bx, (); ld.param.b32 %r1, [r0]; }\n" \
	"\t{ .param .b32 r0; call.uni (r0), bx, (); ld.param.b32 %r2, [r0]; }\n" \
	"\t{ .param .b64 pp; st.param.b64 [pp], 0; call st, (pp); }\n"	\
	"\tret;\n}\n"
#define KERN_KS								\
	".visible .entry ks()\n{\n\t.reg .b32 %r<2>;\n"		\
	"\tmov.u32 %r1, %smid;\n\tcall.uni wr;\n\tret;\n}\n"

static const char fnmod[] = HEAD FN_G_PROTO FN_BX FN_F FN_G FN_POLY FN_WR
	FN_ST KERN_K KERN_K2 KERN_KS;

/* @a comes before @b in @s, both there. */
static int before(const char *s, const char *a, const char *b)
{
	const char *pa = strstr(s, a), *pb = strstr(s, b);

	return pa && pb && pa < pb;
}

static void test_clones(void)
{
	static const char *const parts[] = {
		FN_G_PROTO, FN_BX, FN_F, FN_G, FN_POLY, FN_WR, FN_ST, KERN_K,
		KERN_K2, KERN_KS,
	};
	static const char bx_clone[] =
		FN_BX "\t// gsp-xform: bx with the task's ids as its last parameters\n"
		".func (.param .b32 r) bx__gsp_f(\n\t.param .b32 __gsp_ctaid_x\n)\n"
		"{\n\t.reg .b32 %__gsp_v<8>;\n\t.reg .b32 %r<2>;\n"
		"\tld.param.u32 %__gsp_v0, [__gsp_ctaid_x];\n"
		"\tmov.u32 %r1, %__gsp_v0;\n\tst.param.b32 [r], %r1;\n\tret;\n}\n";
	int rc, ok = 1;
	size_t i;
	struct gsp_xform_result r = run(fnmod, NULL, &rc);
	const char *k, *k2;

	tap_ok(!rc && r.nk == 3 && r.k[0].reason == GSP_XFORM_OK &&
	       r.k[1].reason == GSP_XFORM_OK && r.k[2].reason == GSP_XFORM_SM_ID,
	       "funcs: kernels whose functions read %%ctaid/%%nctaid are "
	       "transformed (k %s, k2 %s)",
	       rc || r.nk < 2 ? "?" : gsp_xform_reason_name(r.k[0].reason),
	       rc || r.nk < 2 ? "?" : gsp_xform_reason_name(r.k[1].reason));
	if (rc || r.nk != 3) {
		if (!rc)
			gsp_xform_result_free(&r);
		return;
	}
	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		ok &= count(r.out, parts[i]) == 1;
	tap_ok(ok && !strncmp(r.out, HEAD FN_G_PROTO, strlen(HEAD FN_G_PROTO)),
	       "funcs: every original function and kernel is kept verbatim");
	tap_ok(strstr(r.out, bx_clone) != NULL,
	       "funcs: bx__gsp_f follows bx byte for byte: no linkage, its "
	       "%%ctaid.x a trailing parameter loaded just before its use");
	tap_ok(strstr(r.out, FN_G_PROTO ".func (.param .b32 r) g__gsp_f(.param .b32 a,\n"
			     "\t.param .b32 __gsp_nctaid_y,\n\t.param .b32 __gsp_ctaid_z\n);\n") &&
	       count(r.out, "g__gsp_f(.param .b32 a,\n") == 2,
	       "funcs: a prototype gets its clone's prototype right after it "
	       "(f calls g before g's body)");
	tap_ok(strstr(r.out, "\t.reg .b32 %__gsp_v<8>;\n\t.reg .pred %p<2>;\n") &&
	       strstr(r.out, "$L_z:\n\tld.param.u32 %__gsp_v0, [__gsp_nctaid_y];\n"
			     "\tmov.u32 %r3, %__gsp_v0;\n"
			     "\tld.param.u32 %__gsp_v0, [__gsp_ctaid_z];\n"
			     "\tmov.u32 %r2, %__gsp_v0;\n") &&
	       strstr(r.out, ".param .b32 q; {\n\t.param .b32 __gsp_a0;\n"
			     "\tld.param.u32 %__gsp_v0, [__gsp_nctaid_y];\n"
			     "\tst.param.b32 [__gsp_a0], %__gsp_v0;\n"
			     "\t.param .b32 __gsp_a1;\n"
			     "\tld.param.u32 %__gsp_v1, [__gsp_ctaid_z];\n"
			     "\tst.param.b32 [__gsp_a1], %__gsp_v1;\n"
			     "\tcall (q), g__gsp_f, (p, __gsp_a0, __gsp_a1);\n"
			     "\t} ld.param.b32 %r3, [q]; }") &&
	       strstr(r.out, "call (q), f__gsp_f, (p, __gsp_a0, __gsp_a1);"),
	       "funcs: f and g (which only passes them on) take the ids f reads, "
	       "%%nctaid.y and %%ctaid.z, and call each other's clones with theirs");
	k = strstr(r.out, ".entry k__gsp(");
	k2 = strstr(r.out, ".entry k2__gsp(");
	tap_ok(k && strstr(k, "\t{ .param .b32 r0; {\n\t.param .b32 __gsp_a0;\n"
			     "\tld.shared.u32 %__gsp_v0, [%__gsp_cur+0];\n"
			     "\tst.param.b32 [__gsp_a0], %__gsp_v0;\n"
			     "\tcall.uni (r0), bx__gsp_f, (__gsp_a0);\n"
			     "\t} ld.param.b32 %r1, [r0]; }\n") &&
	       strstr(k, "\tld.param.u32 %__gsp_v0, [k__gsp_param_job+28];\n"
			 "\tst.param.b32 [__gsp_a0], %__gsp_v0;\n"
			 "\t.param .b32 __gsp_a1;\n"
			 "\tld.shared.u32 %__gsp_v1, [%__gsp_cur+8];\n"
			 "\tst.param.b32 [__gsp_a1], %__gsp_v1;\n"
			 "\tcall (r1), f__gsp_f, (a0, __gsp_a0, __gsp_a1);\n"),
	       "funcs: the kernel's clone passes the task's %%ctaid (its entry) "
	       "and %%nctaid (the job) to call.uni with a return value and "
	       "an empty argument list, and to call with arguments");
	tap_ok(k && strstr(k, "\tsetp.eq.u32 %p1, %r2, 0;\n\t{\n\t.param .b32 __gsp_a0;\n"
			     "\tld.param.u32 %__gsp_v0, [k__gsp_param_job+24];\n"
			     "\tst.param.b32 [__gsp_a0], %__gsp_v0;\n"
			     "\t@%p1 call.uni wr__gsp_f, (__gsp_a0);\n\t}\n") &&
	       strstr(r.out, ".func wr__gsp_f(\n\t.param .b32 __gsp_nctaid_x\n)\n{"),
	       "funcs: a guarded call without a parameter list gets one; a "
	       "function without one gets its ids as its parameters");
	tap_ok(k2 && strstr(k2, "call st__gsp_f, (pp, __gsp_a0);") &&
	       strstr(r.out, ".func st__gsp_f(.param .b64 p,\n\t.param .b32 __gsp_ctaid_y\n)") &&
	       count(k2, "call.uni (r0), bx__gsp_f, (__gsp_a0);") == 2 &&
	       count(r.out, "bx__gsp_f(") == 1,
	       "funcs: a call without a return value; two kernels and two call "
	       "sites share one clone");
	tap_ok(!strstr(r.out, "poly__gsp_f") &&
	       k && strstr(k, "call.uni poly, (a1);") &&
	       count(r.out, " wr;\n") == 2 && !strstr(r.out, "ks__gsp"),
	       "funcs: a function that reads no id is called as it was; the "
	       "kernel left unchanged (sm-id) and the originals call wr itself");
	tap_ok(before(r.out, ".func (.param .b32 r) g__gsp_f(", "call (q), g__gsp_f,") &&
	       before(r.out, ".func wr__gsp_f(", ".entry k__gsp(") &&
	       before(r.out, FN_F, ".func (.param .b32 r) f__gsp_f(") &&
	       before(r.out, ".func (.param .b32 r) f__gsp_f(", FN_G),
	       "funcs: each clone is declared before its first call and follows "
	       "its original");
	gsp_xform_result_free(&r);
}

/* Only what a transformed kernel reaches is cloned; nothing changes twice. */
static void test_select_and_again(void)
{
	static const char *const only_k2[] = { "k2", NULL };
	struct gsp_xform_result r, r2;
	struct gsp_xform_parts *pp = NULL;
	const char *k[] = { "k__gsp", NULL };
	char err[256], *out = NULL;
	size_t len;
	int rc, rc2;

	r = run(fnmod, only_k2, &rc);
	tap_ok(!rc && r.nk == 3 && r.k[1].reason == GSP_XFORM_OK &&
	       strstr(r.out, "bx__gsp_f(") && strstr(r.out, "st__gsp_f(") &&
	       !strstr(r.out, "f__gsp_f(") && !strstr(r.out, "wr__gsp_f"),
	       "funcs: --kernel k2 clones bx and st, not k's f, g or wr");
	if (!rc)
		gsp_xform_result_free(&r);
	r = run(fnmod, NULL, &rc);
	if (rc) {
		tap_ok(0, "funcs: the module transforms");
		return;
	}
	r2 = run(r.out, NULL, &rc2);
	tap_ok(!rc2 && r2.nk == 5 && r2.k[0].reason == GSP_XFORM_NAME &&
	       r2.k[3].reason == GSP_XFORM_NAME && !strcmp(r2.out, r.out),
	       "funcs: a second pass changes nothing");
	if (!rc2)
		gsp_xform_result_free(&r2);
	rc = gsp_xform_parts_new(r.out, r.out_len, &pp, err, sizeof(err));
	rc = rc ? rc : gsp_xform_parts_take(pp, k, 0, &out, &len, err, sizeof(err));
	tap_ok(!rc && strstr(out, ".func (.param .b32 r) bx__gsp_f(") &&
	       count(out, "g__gsp_f(.param .b32 a,\n") == 2 &&
	       strstr(out, ".func poly(") && !strstr(out, FN_F) &&
	       !strstr(out, FN_BX) && !strstr(out, ".func wr\n"),
	       "funcs: k__gsp alone keeps the clones it calls and their "
	       "prototypes, not the originals: %s", rc ? err : "ok");
	free(out);
	gsp_xform_parts_free(pp);
	gsp_xform_result_free(&r);
}

/* The job parameter's name is as long as the kernel's. */
static void test_long_name(void)
{
	char name[301], *src;
	size_t cap = 4096;
	struct gsp_xform_result r;
	int rc;

	memset(name, 'n', sizeof(name) - 1);
	name[sizeof(name) - 1] = 0;
	src = malloc(cap);
	if (!src) {
		tap_ok(0, "funcs: out of memory");
		return;
	}
	snprintf(src, cap, "%s.visible .entry %s()\n{\n\tcall.uni wr;\n"
		 "\tret;\n}\n", HEAD FN_WR, name);
	r = run(src, NULL, &rc);
	snprintf(src, cap, "ld.param.u32 %%__gsp_v0, [%s__gsp_param_job+24];\n"
		 "\tst.param.b32 [__gsp_a0], %%__gsp_v0;\n"
		 "\tcall.uni wr__gsp_f, (__gsp_a0);", name);
	tap_ok(!rc && r.nk == 1 && r.k[0].reason == GSP_XFORM_OK &&
	       strstr(r.out, src),
	       "funcs: a 300-character kernel passes its job's %%nctaid.x");
	if (!rc)
		gsp_xform_result_free(&r);
	free(src);
}

static void test_refused(void)
{
	static const struct {
		const char *what, *decls, *body, *detail;
		enum gsp_xform_reason want;
	} cases[] = {
		{ "an indirect call may reach a function that reads %ctaid.x",
		  FN_BX, "{ .reg .b64 %fp; .param .b32 q; mov.u64 %fp, bx; "
		  "call (q), %fp, (), p; }",
		  "reads %ctaid.x in bx, which an indirect call may reach",
		  GSP_XFORM_FUNC },
		{ "an indirect call and a direct one",
		  FN_BX FN_POLY, "{ .reg .b64 %fp; .param .b32 q; mov.u64 %fp, poly; "
		  "call.uni (q), bx, (); call %fp, (q), p; }",
		  "which an indirect call may reach", GSP_XFORM_FUNC },
		{ "an indirect call where no function reads an id",
		  FN_POLY, "{ .reg .b64 %fp; .param .b32 q; mov.u64 %fp, poly; "
		  "call %fp, (q), p; }", "", GSP_XFORM_OK },
		{ "the clone's name is taken",
		  FN_BX ".func bx__gsp_f()\n{\n\tret;\n}\n",
		  "{ .param .b32 q; call.uni (q), bx, (); }",
		  "bx__gsp_f exists already", GSP_XFORM_NAME },
		{ "a function to clone uses a reserved name",
		  ".func h()\n{\n\t.reg .b32 %__gsp_v0;\n"
		  "\tmov.u32 %__gsp_v0, %ctaid.y;\n\tret;\n}\n",
		  "call.uni h, ();", "uses the reserved name %__gsp_v0 in h",
		  GSP_XFORM_NAME },
		{ "a function that reads %ctaid.x and exits",
		  ".func h()\n{\n\t.reg .b32 %r<2>;\n\tmov.u32 %r1, %ctaid.x;\n"
		  "\texit;\n}\n", "call.uni h, ();", "exit in h", GSP_XFORM_FUNC },
		{ "a function that reads %ctaid as a vector",
		  ".func h()\n{\n\t.reg .b32 %r<5>;\n"
		  "\tmov.v4.u32 {%r1, %r2, %r3, %r4}, %ctaid;\n\tret;\n}\n",
		  "call.uni h, ();", "reads %ctaid as a vector in h", GSP_XFORM_FUNC },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char src[2048];
		struct gsp_xform_result r;
		int rc;

		snprintf(src, sizeof(src), HEAD "%s.visible .entry k()\n{\n"
			 "\t.reg .b32 %%r<2>;\n\t%s\n\tret;\n}\n",
			 cases[i].decls, cases[i].body);
		r = run(src, NULL, &rc);
		tap_ok(!rc && r.nk == 1 && r.k[0].reason == cases[i].want &&
		       strstr(r.k[0].detail, cases[i].detail) &&
		       (cases[i].want == GSP_XFORM_OK) == (strcmp(r.out, src) != 0),
		       "funcs: %s -> %s (%s: %s)", cases[i].what,
		       gsp_xform_reason_name(cases[i].want),
		       rc || !r.nk ? "error" : gsp_xform_reason_name(r.k[0].reason),
		       rc || !r.nk ? "" : r.k[0].detail);
		if (!rc)
			gsp_xform_result_free(&r);
	}
}

int main(void)
{
	test_clones();
	test_select_and_again();
	test_long_name();
	test_refused();
	return tap_done();
}
