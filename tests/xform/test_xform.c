// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the PTX parser and of gsp-xform's rewriting and reasons.
 * Device functions are test_funcs.c's, module variables and parts
 * test_vars.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ptx.h"
#include "tap.h"
#include "xform.h"
#include "xform_test.h"

static const char kernel[] = HEAD
	"/* a block comment */\n"
	".extern .shared .align 16 .b8 dyn[];\n"
	".global .align 4 .b8 tab[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
	".visible .func (.param .b32 r) twice(.param .b32 a)\n"
	"{\n\t.reg .b32 %r<3>;\n\tld.param.b32 %r1, [a];\n"
	"\tadd.s32 %r2, %r1, %r1;\n\tst.param.b32 [r], %r2;\n\tret;\n}\n"
	".visible .entry k(\n\t.param .u64 k_param_0,\n\t.param .u32 k_param_1\n)\n"
	".maxntid 128, 1, 1\n"
	"{\n"
	"\t.reg .pred %p<3>;\n\t.reg .b32 %r<9>;\n\t.reg .b64 %rd<4>;\n"
	"\t.shared .align 4 .b8 s[512];\n"
	"\t.loc 1 10 3\n"
	"\tld.param.u64 %rd1, [k_param_0]; // a line comment\n"
	"\tmov.u32 %r1, %ctaid.x;\n"
	"\tmov.u32 %r2, %nctaid.y;\n"
	"\tmov.u32 %r3, %tid.x;\n"
	"\tsetp.ge.u32 %p1, %r3, 100;\n"
	"\t@%p1 ret;\n"
	"\tbar.sync 0;\n"
	"\tadd.s32 %r4, %ctaid.z, %nctaid.x;\n"
	"$L__BB0_1:\n"
	"\t{ // callseq 0\n\t.reg .b32 t;\n\t.param .b32 param0;\n"
	"\tst.param.b32 [param0+0], %r4;\n\t.param .b32 retval0;\n"
	"\tcall.uni (retval0), \n\ttwice, \n\t(\n\tparam0\n\t);\n"
	"\tld.param.b32 %r5, [retval0+0];\n\t}\n"
	"\tld.shared::cta.u32 %r6, [s];\n"
	"\tbarrier.sync 0;\n"
	"\t@!%p1 bra $L__BB0_1;\n"
	"\tret;\n"
	"}\n";

static void test_parse(void)
{
	struct ptx_module m;
	char err[128];
	uint32_t i, insns = 0, labels = 0, opens = 0, lines = 0;
	int rc = ptx_parse(&m, kernel, strlen(kernel), err, sizeof(err));

	tap_ok(rc == 0, "parse: a module with a .func, an .entry, globals: %s",
	       rc ? err : "ok");
	if (rc)
		return;
	tap_ok(m.nfuncs == 2 && !m.funcs[0].is_entry && m.funcs[1].is_entry,
	       "parse: one .func then one .entry");
	tap_ok(ptx_tok_is(&m, m.funcs[0].name_tok, "twice") &&
	       ptx_tok_is(&m, m.funcs[1].name_tok, "k"),
	       "parse: function names (past a .func return list)");
	tap_ok(m.target_sm == 90, "parse: .target sm_90 gives 90 (%d)", m.target_sm);
	tap_ok(m.funcs[1].ndir_tok == 6 && ptx_tok_is(&m, m.funcs[1].dir_tok, ".maxntid"),
	       "parse: the directives between parameters and body");
	for (i = m.funcs[1].stmt; i < m.funcs[1].stmt + m.funcs[1].nstmt; i++) {
		const struct ptx_stmt *s = &m.stmts[i];

		insns += s->kind == PTX_S_INSN;
		labels += s->kind == PTX_S_LABEL;
		opens += s->kind == PTX_S_OPEN;
		lines += s->kind == PTX_S_LINEDIR;
		if (s->kind == PTX_S_INSN && ptx_tok_prefix(&m, s->op, "ld.shared::"))
			tap_ok(ptx_tok_is(&m, s->op, "ld.shared::cta.u32"),
			       "parse: '::' stays inside an opcode");
		if (s->kind == PTX_S_INSN && ptx_tok_prefix(&m, s->op, "call"))
			tap_ok(s->depth == 1 && ptx_tok_is(&m, s->tok + s->ntok - 1, ";"),
			       "parse: a call over six lines is one statement, in a block");
	}
	tap_ok(insns == 15 && labels == 1 && opens == 1 && lines == 1,
	       "parse: 15 instructions, 1 label, 1 block, 1 .loc (%u %u %u %u)",
	       insns, labels, opens, lines);
	ptx_free(&m);
}

/* Truncated, broken and hostile inputs: an error or a result, never a crash. */
static void test_parse_errors(void)
{
	static const char *const bad[] = {
		HEAD "/* open",
		HEAD ".entry k() { ret; ",
		HEAD ".entry k() { ret }",
		HEAD ".entry k() { mov.u32 %r1, \"x; }",
		HEAD ".entry k() { # }",
		HEAD "garbage",
		HEAD ".entry",
		HEAD ".entry k() { @ ; }",
	};
	struct ptx_module m;
	char err[128];
	size_t i, n, fails = 0, crashes_would_show = 0;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = ptx_parse(&m, bad[i], strlen(bad[i]), err, sizeof(err));

		if (rc == 0) {
			ptx_free(&m);
			tap_diag("accepted: %s", bad[i] + strlen(HEAD));
			fails++;
		} else if (strncmp(err, "line ", 5)) {
			fails++;
		}
	}
	tap_ok(fails == 0, "parse: %zu broken modules rejected with 'line N: ...'",
	       sizeof(bad) / sizeof(bad[0]));
	/* every prefix of a valid module */
	for (n = 0; n <= strlen(kernel); n++) {
		struct gsp_xform_result r;
		char *cut = strndup(kernel, n);
		int rc;

		if (!cut)
			break;
		rc = gsp_xform(cut, n, NULL, &r, err, sizeof(err));
		if (rc == 0)
			gsp_xform_result_free(&r);
		crashes_would_show++;
		free(cut);
	}
	tap_ok(crashes_would_show == strlen(kernel) + 1,
	       "xform: all %zu prefixes of a module end in a result or an error",
	       strlen(kernel) + 1);
}

static void test_rewrite(void)
{
	int rc;
	struct gsp_xform_result r = run(kernel, NULL, &rc);
	const char *clone;

	tap_ok(rc == 0 && r.nk == 1 && r.k[0].reason == GSP_XFORM_OK,
	       "xform: the kernel is transformed");
	if (rc || !r.nk)
		return;
	clone = strstr(r.out, ".entry k__gsp(");
	tap_ok(!strncmp(r.out, kernel, strlen(kernel) - 2) && clone,
	       "xform: the original module is kept verbatim, k__gsp follows");
	if (!clone) {
		gsp_xform_result_free(&r);
		return;
	}
	tap_ok(strstr(clone, "k_param_1,\n\t.param .align 8 .b8 k__gsp_param_job[64]\n)") &&
	       r.k[0].nparams == 2,
	       "xform: k__gsp takes k's 2 parameters (nparams %u), then the job by value",
	       r.k[0].nparams);
	tap_ok(strstr(clone, ".maxntid 128, 1, 1") != NULL,
	       "xform: the directives are kept");
	tap_ok(!strstr(clone, "%ctaid") && count(clone, "%nctaid") == 1 &&
	       strstr(clone, "mov.u32 %__gsp_w12, %nctaid.x;"),
	       "xform: no %%ctaid/%%nctaid of the body left in the clone (only "
	       "the persistent grid's size)");
	tap_ok(strstr(clone, "ld.shared.u32 %__gsp_v0, [%__gsp_cur+8];\n\t"
			     "ld.param.u32 %__gsp_v1, [k__gsp_param_job+24];\n\t"
			     "add.s32 %r4, %__gsp_v0, %__gsp_v1;") != NULL,
	       "xform: %%ctaid.z reads the thread's task entry, %%nctaid.x the job parameter");
	tap_ok(strstr(clone, "\tld.param.u32 %__gsp_w10, [k__gsp_param_job+48];\n"
			     "\tand.b32 %__gsp_w10, %__gsp_w10, 3;\n"
			     "\tsetp.eq.u32 %__gsp_p1, %__gsp_w10, 1;\n"
			     "\tselp.u32 %__gsp_w10, 1, 0, %__gsp_p1;\n") &&
	       strstr(clone, "\tmov.u64 %__gsp_x4, %globaltimer;\n"
			     "\tld.param.u64 %__gsp_x6, [k__gsp_param_job+56];\n"
			     "\tsetp.ne.u32 %__gsp_p1, %__gsp_w10, 0;\n"
			     "\t@%__gsp_p1 bra $__gsp_check;\n") &&
	       strstr(clone, "\tld.volatile.global.v2.u64 {%__gsp_x7, %__gsp_x8}, [%__gsp_x1+656];\n"
			     "\tsub.u64 %__gsp_x10, %__gsp_x4, %__gsp_x8;\n") &&
	       strstr(clone, "\t@%__gsp_p1 mov.b64 %__gsp_x6, %__gsp_x7;\n"
			     "\tbra.uni $__gsp_check;\n"),
	       "xform: a kept primary block (flags primary, not waited) takes the "
	       "launch's word at its first decision; a top-up's or a waited "
	       "primary's block its SM's copy where that is fresh, else the launch's");
	tap_ok(count(clone, "ret;") == 1 && strstr(clone, "@%p1 bra $__gsp_next;"),
	       "xform: ret becomes a branch to the join (predicate kept); one ret left");
	tap_ok(!strstr(clone, "bar.sync") && !strstr(clone, "barrier.sync 0") &&
	       count(clone, "barrier.red.and.pred %__gsp_bp, 0, %__gsp_bp; "
			    "barrier.sync 1; }") == 2 &&
	       count(clone, "barrier.red.and.pred") == 3 &&
	       count(clone, "barrier.sync 1;") == 3 &&
	       strstr(clone, "\tbarrier.red.and.pred %__gsp_p5, 0, %__gsp_p5;\n"
			     "\tbarrier.sync 1;\n"
			     "\t@!%__gsp_p5 bra $__gsp_join;\n"),
	       "xform: both body barriers arrive as 'not done'; the join is the "
	       "loop's only other barrier; every reduction is followed by "
	       "barrier 1, before anyone reduces again");
	tap_ok(count(clone, "atom.global.add.u64") == 1 &&
	       strstr(clone, "atom.global.add.u64 %__gsp_x2, [%__gsp_x0], %__gsp_x12;") &&
	       strstr(clone, "min.u32 %__gsp_w7, %__gsp_w7, 32;") &&
	       strstr(clone, "mul.wide.u32 %__gsp_x1, %__gsp_w2, 32;") &&
	       strstr(clone, "\tld.global.u32 %__gsp_w9, [%__gsp_x1+644];\n"
			     "\tld.volatile.global.u32 %__gsp_w6, [%__gsp_x1+640];\n"
			     "$__gsp_claim:\n") &&
	       count(clone, "[%__gsp_x1+640]") == 3 &&
	       strstr(clone, "\tatom.global.or.b32 %__gsp_w6, [%__gsp_x1+640], %__gsp_w8;\n"
			     "\tand.b32 %__gsp_w13, %__gsp_w6, %__gsp_w8;\n"
			     "\tsetp.ne.u32 %__gsp_p1, %__gsp_w13, 0;\n"
			     "\t@%__gsp_p1 bra $__gsp_claim;\n") &&
	       strstr(clone, "red.global.and.b32 [%__gsp_x1+640]"),
	       "xform: one claim of B tasks (B <= 32), slot claim and release; "
	       "a lost slot retries from the mask its atom.or returned");
	{
		const char *c = strstr(clone, "\tld.shared.u64 %__gsp_x3, [__gsp_sh+32];\n"
					    "\tsetp.ge.u64 %__gsp_p1, %__gsp_x3, %__gsp_x10;\n"
					    "\t@%__gsp_p1 bra $__gsp_end;\n");
		const char *a = strstr(clone, "atom.global.add.u64 %__gsp_x2, [%__gsp_x0]");

		tap_ok(c && a && c < a,
		       "xform: a block whose batch ended at ntasks ends without "
		       "another claim");
	}
	tap_ok(count(clone, "[%__gsp_x0+128]") == 2 &&
	       strstr(clone, "\tld.shared.u32 %__gsp_w1, [__gsp_sh+64];\n"
			     "\tsetp.eq.u32 %__gsp_p1, %__gsp_w1, 0;\n"
			     "\t@%__gsp_p1 fence.acq_rel.gpu;\n"
			     "\tred.global.add.u64 [%__gsp_x0+128], %__gsp_x13;") &&
	       count(clone, "fence.") == 1 &&
	       strstr(clone, "$__gsp_leave:"),
	       "xform: done_tasks gets one add per block on leaving, a top-up's "
	       "after a fence (the other access is the leaving blocks' wait)");
	tap_ok(strstr(clone, "\tld.param.u32 %__gsp_w14, [k__gsp_param_job+36];\n"
			     "\tsetp.ge.u32 %__gsp_p1, %__gsp_w10, 32768;\n"
			     "\t@%__gsp_p1 sub.u32 %__gsp_w10, %__gsp_w10, 32768;\n"
			     "\t@%__gsp_p1 mad.lo.u32 %__gsp_w10, %__gsp_w10, %__gsp_w14, 7;\n"
			     "\t@%__gsp_p1 shr.u32 %__gsp_w10, %__gsp_w10, 3;\n"
			     "\tsub.s32 %__gsp_w14, %__gsp_w14, %__gsp_w10;\n") != NULL,
	       "xform: a boundary takes a k with GSP_PERSIST_CTRL_EIGHTHS as "
	       "ceil(k K / 8) of the job's K slots (partition auto)");
	tap_ok(strstr(clone, "$__gsp_end:\n"
			     "\tld.param.u32 %__gsp_w9, [k__gsp_param_job+48];\n"
			     "\tand.b32 %__gsp_w9, %__gsp_w9, 4;\n"
			     "\tor.b32 %__gsp_w9, %__gsp_w9, 1;\n") &&
	       strstr(clone, "$__gsp_wait:\n"
			     "\tld.volatile.global.u64 %__gsp_x8, [%__gsp_x0+128];\n"
			     "\tsetp.ge.u64 %__gsp_p1, %__gsp_x8, %__gsp_x10;\n"
			     "\t@%__gsp_p1 bra $__gsp_release;\n"
			     "\tshl.b32 %__gsp_w1, %__gsp_w1, 1;\n"
			     "\tmin.u32 %__gsp_w1, %__gsp_w1, 16384;\n"
			     "\tnanosleep.u32 %__gsp_w1;\n"),
	       "xform: a block with no task left adds its tasks and, with "
	       "GSP_PERSIST_LINGER, holds its slot until the job's last task "
	       "has run, polling with back-off");
	{
		const char *next = strstr(clone, "$__gsp_next:\n"
						 "\tadd.u32 %__gsp_cur, %__gsp_cur, 12;\n"
						 "\tld.shared.u32 %__gsp_w0, [%__gsp_cur];\n"
						 "\tsetp.eq.s32 %__gsp_p3, %__gsp_w0, -1;\n"
						 "\t@!%__gsp_p3 bra $__gsp_join;\n"
						 "\t@%__gsp_p0 bra $__gsp_join;\n"
						 "$__gsp_boundary:\n");
		const char *fill = strstr(clone, "$__gsp_fill:\n"
						 "\tst.shared.u32 [%__gsp_w0+8], %__gsp_w4;\n"
						 "\tst.shared.u32 [%__gsp_w0+12], %__gsp_w5;\n"
						 "\tst.shared.u32 [%__gsp_w0+16], %__gsp_w6;\n"
						 "\tadd.u32 %__gsp_w0, %__gsp_w0, 12;\n");
		const char *end = strstr(clone, "\tmov.b32 %__gsp_w3, -1;\n"
						"\tst.shared.u32 [%__gsp_w0+8], %__gsp_w3;\n");
		const char *join = strstr(clone, "\t@!%__gsp_p5 bra $__gsp_join;\n"
						 "\t@!%__gsp_p3 bra $__gsp_body;\n"
						 "\tbra.uni $__gsp_start;\n");
		const char *start = strstr(clone, "$__gsp_start:\n");
		const char *body = start ? strstr(start, "$__gsp_body:\n") : NULL;

		tap_ok(next && fill && end && fill < end && join && start && body &&
		       count(clone, "div.u32") == 2 && count(clone, "%globaltimer") == 5 &&
		       strstr(start, "\tadd.u32 %__gsp_cur, %__gsp_cur, 8;\n$__gsp_body:\n") &&
		       count(clone, "$__gsp_start;") == 1 && count(clone, "$__gsp_body;") == 1,
		       "xform: the leader writes a batch's tasks into the other buffer at "
		       "its claim (dividing once); at a task's end a thread steps to the "
		       "next entry and, in a body with barriers, joins the block and runs "
		       "it; only the batch's end takes the leader to the boundary and the "
		       "block to the other buffer");
	}
	tap_ok(count(clone, "ld.volatile.global.v2.u64 {%__gsp_x6, %__gsp_x7}, [%__gsp_x1+656];") == 1 &&
	       strstr(clone, "ld.param.u32 %__gsp_w10, [k__gsp_param_job+52];\n"
			     "\tmax.u32 %__gsp_w10, %__gsp_w10, %__gsp_w9;\n"
			     "\tcvt.u64.u32 %__gsp_x9, %__gsp_w10;\n"
			     "\tld.shared.v2.u64 {%__gsp_x6, %__gsp_x7}, [__gsp_sh];\n"
			     "\tsub.u64 %__gsp_x8, %__gsp_x4, %__gsp_x7;\n"
			     "\tsetp.lt.u64 %__gsp_p1, %__gsp_x8, %__gsp_x9;\n"
			     "\t@%__gsp_p1 bra $__gsp_check;") &&
	       strstr(clone, "[%__gsp_x1+656];\n"
			     "\tsub.u64 %__gsp_x8, %__gsp_x4, %__gsp_x7;\n"
			     "\tsetp.lt.u64 %__gsp_p1, %__gsp_x8, %__gsp_x9;\n"
			     "\tcvt.u32.u64 %__gsp_w11, %__gsp_x7;\n"
			     "\tand.b32 %__gsp_w11, %__gsp_w11, 1;\n"
			     "\tsetp.eq.and.u32 %__gsp_p2, %__gsp_w11, 0, %__gsp_p1;\n"
			     "\t@%__gsp_p2 bra $__gsp_cache;\n"
			     "\t@%__gsp_p1 bra $__gsp_own;\n"
			     "\tmov.u64 %__gsp_x5, %globaltimer;\n"
			     "\tor.b64 %__gsp_x5, %__gsp_x5, 1;\n"
			     "\tatom.global.cas.b64 %__gsp_x8, [%__gsp_x1+664], %__gsp_x7, %__gsp_x5;") &&
	       strstr(clone, "ld.volatile.global.v2.u64 {%__gsp_x8, %__gsp_x7}, [%__gsp_x0+512];\n"
			     "\tld.volatile.global.u64 %__gsp_x11, [%__gsp_x0+528];\n") &&
	       strstr(clone, "\tsetp.lt.u32 %__gsp_p1, %__gsp_w13, %__gsp_w9;\n"
			     "\t@%__gsp_p1 bra $__gsp_take;\n") &&
	       strstr(clone, "\t@%__gsp_p1 bra $__gsp_other;\n"
			     "\tatom.global.cas.b64 %__gsp_x10, [%__gsp_x0+528], %__gsp_x11, %__gsp_x5;") &&
	       count(clone, "ld.volatile.global.u64 %__gsp_x6, [%__gsp_x6];") == 2 &&
	       strstr(clone, "ld.volatile.global.u64 %__gsp_x6, [%__gsp_x6];\n"
			     "\tand.b64 %__gsp_x7, %__gsp_x5, -2;\n") &&
	       strstr(clone, "$__gsp_mirror:\n"
			     "\tst.volatile.global.v2.u64 [%__gsp_x0+512], {%__gsp_x6, %__gsp_x7};\n"
			     "\tred.global.add.u32 [%__gsp_x0+400], 1;\n") &&
	       count(clone, "[%__gsp_x1+656]") == 3 &&
	       strstr(clone, "\tsetp.ne.u64 %__gsp_p1, %__gsp_x8, %__gsp_x7;\n"
			     "\t@%__gsp_p1 bra $__gsp_own;\n") &&
	       strstr(clone, "\tmov.u64 %__gsp_x11, %__gsp_x10;\n"
			     "\t@%__gsp_p1 bra $__gsp_other;\n") &&
	       strstr(clone, "$__gsp_other:\n"
			     "\t@%__gsp_p2 bra $__gsp_take;\n"
			     "\tand.b64 %__gsp_x11, %__gsp_x11, -2;\n"
			     "$__gsp_await:\n"
			     "\tsetp.ge.u64 %__gsp_p1, %__gsp_x7, %__gsp_x11;\n"
			     "\t@%__gsp_p1 bra $__gsp_take;\n") &&
	       strstr(clone, "\tsub.u64 %__gsp_x10, %__gsp_x10, %__gsp_x5;\n"
			     "\tsetp.lt.u64 %__gsp_p1, %__gsp_x10, %__gsp_x9;\n"
			     "\t@!%__gsp_p1 bra $__gsp_giveup;\n"
			     "\tnanosleep.u32 100;\n"
			     "\tld.volatile.global.v2.u64 {%__gsp_x8, %__gsp_x7}, [%__gsp_x0+512];\n"
			     "\tbra.uni $__gsp_await;\n"
			     "$__gsp_giveup:\n"
			     "\tmov.u64 %__gsp_x7, 0;\n"
			     "\tst.volatile.global.u64 [%__gsp_x1+664], %__gsp_x7;\n"
			     "$__gsp_own:\n"
			     "\tld.shared.u64 %__gsp_x6, [__gsp_sh];\n"
			     "$__gsp_stale:\n"
			     "\tmov.u64 %__gsp_x7, 0;\n"
			     "\tst.shared.v2.u64 [__gsp_sh], {%__gsp_x6, %__gsp_x7};") &&
	       strstr(clone, "$__gsp_copy:\n"
			     "\tst.volatile.global.v2.u64 [%__gsp_x1+656], {%__gsp_x6, %__gsp_x7};\n"
			     "$__gsp_cache:\n"),
	       "xform: a boundary uses the block's copy of the word while younger "
	       "than copy_ns (at least refresh_ns), else the SM's copy; the SM's CAS "
	       "winner reads the bus if the mirror is older than refresh_ns and it "
	       "wins the claim, else copies the mirror while younger than copy_ns "
	       "or waits up to copy_ns for the claimed read; copies carry the bus "
	       "read's time; a loser keeps no copy, and acts once more on its own "
	       "word, never on an SM's copy older than copy_ns (another job's)");
	tap_ok(count(clone, "[%__gsp_x0+260]") == 3 &&
	       strstr(clone, "shl.b64 %__gsp_x2, %__gsp_x2, 32;\n"
			     "\tor.b64 %__gsp_x2, %__gsp_x2, 1;\n"
			     "\tred.global.add.u64 [%__gsp_x0+256], %__gsp_x2;") &&
	       strstr(clone, "atom.global.cas.b32 %__gsp_w12, [%__gsp_x0+260], %__gsp_w11, %__gsp_w12;") &&
	       strstr(clone, "atom.global.add.s32 %__gsp_w11, [%__gsp_x0+260], -1;") &&
	       strstr(clone, "red.global.add.s32 [%__gsp_x0+256], -1;") &&
	       strstr(clone, "red.global.add.u32 [%__gsp_x0+404], 1;\n"),
	       "xform: primary_live: +1 at the slot claim, down by CAS from >= 2 on "
	       "a yield, -1 only when no task is left; the last one pauses (live "
	       "and primary_live go up in one add)");
	tap_ok(count(clone, "%tid.z") == 1 && count(clone, "@%__gsp_p0 bra") == 3 &&
	       count(clone, "setp.ne.u32 %__gsp_p0,") == 1,
	       "xform: who leads is worked out once, in the prologue, and kept in "
	       "%%__gsp_p0 (the prologue, a batch's end and the exit branch on it)");
	{
		const char *first = strstr(clone, "\tmov.u64 %__gsp_x4, %globaltimer;\n"
						  "\tld.param.u64 %__gsp_x6, [k__gsp_param_job+56];\n");
		const char *start = strstr(clone, "$__gsp_start:\n");

		tap_ok(first && start && first < start &&
		       strstr(clone, "\tst.shared.v2.u64 [__gsp_sh], {%__gsp_x2, %__gsp_x2};\n") &&
		       strstr(clone, "\tmov.u64 %__gsp_x2, 0;\n") &&
		       count(clone, "bra.uni $__gsp_boundary;") == 1 &&
		       count(clone, "[k__gsp_param_job+56]") == 1,
		       "xform: a primary block's first decision acts on the job's word (read "
		       "at the launch) with an empty copy of its own, so its next "
		       "boundary looks for a fresh word; only a pause goes back to a "
		       "boundary");
	}
	tap_ok(strstr(clone, "\t.loc 1 10 3\n\t// gsp-xform: persistent") &&
	       strstr(clone, "$__gsp_body:\n"
			     "\t// gsp-xform: the original body, one task per pass\n"
			     "\tld.param.u64 %rd1, [k_param_0];"),
	       "xform: the prologue follows the leading declarations");
	gsp_xform_result_free(&r);
}

/*
 * Does every read of the word through ctrl_ptr (job+8) in the clone read
 * the override word right after it: ovr_ptr (ctl+536) loaded, the rest
 * skipped where it is 0, the word taken where its (n, k) is not (0, 0),
 * and the skip landing on the label that follows the take? Returns the
 * number of reads, or -1 at the first one that does not.
 */
static int override_reads(const char *clone)
{
	static const char ld[] = "\tld.global.u64 %__gsp_x10, [%__gsp_x0+536];\n"
				 "\tsetp.eq.u64 %__gsp_p1, %__gsp_x10, 0;\n"
				 "\t@%__gsp_p1 bra ";
	static const char take[] = "\tcvta.to.global.u64 %__gsp_x10, %__gsp_x10;\n"
				   "\tld.volatile.global.u64 %__gsp_x10, [%__gsp_x10];\n"
				   "\tcvt.u32.u64 %__gsp_w13, %__gsp_x10;\n"
				   "\tsetp.ne.u32 %__gsp_p1, %__gsp_w13, 0;\n"
				   "\t@%__gsp_p1 mov.b64 %__gsp_x6, %__gsp_x10;\n";
	const char *at = clone, *o, *label, *colon;
	int n = 0;

	while ((at = strstr(at, "[k__gsp_param_job+8];"))) {
		label = strstr(at, "\n$");
		o = strstr(at, ld);
		if (!label || !o || o > label)
			return -1;
		label++;
		colon = strchr(label, ':');
		o += strlen(ld);
		if (!colon || strncmp(o, label, colon - label) || o[colon - label] != ';' ||
		    strncmp(o + (colon - label) + 2, take, strlen(take)) ||
		    o + (colon - label) + 2 + strlen(take) != label)
			return -1;
		at = label;
		n++;
	}
	return n;
}

static void test_override(void)
{
	int rc;
	struct gsp_xform_result r = run(kernel, NULL, &rc);
	const char *clone = rc ? NULL : strstr(r.out, ".entry k__gsp(");
	char *cut, *o;

	if (!clone) {
		tap_ok(0, "xform: every read of the word over the bus reads the override");
		return;
	}
	tap_ok(override_reads(clone) == 2 && count(clone, "[%__gsp_x0+536]") == 2,
	       "xform: both reads of the word over the bus (the SM's refresher's, "
	       "refresh_ns = 0's) read the override word, if any, and take it "
	       "unless its (n, k) is (0, 0)");
	/* the check itself: one site without its read fails it */
	cut = strdup(clone);
	o = cut ? strstr(cut, "\tld.global.u64 %__gsp_x10, [%__gsp_x0+536];\n") : NULL;
	if (o)
		memmove(o, strchr(o, '\n') + 1, strlen(strchr(o, '\n') + 1) + 1);
	tap_ok(o && override_reads(cut) == -1,
	       "xform: the override check fails a clone that does not load ovr_ptr "
	       "at one of those reads");
	free(cut);
	gsp_xform_result_free(&r);
}

static void test_idempotent(void)
{
	int rc, rc2;
	struct gsp_xform_result r = run(kernel, NULL, &rc), r2;

	if (rc) {
		tap_ok(0, "xform: a second pass changes nothing");
		return;
	}
	r2 = run(r.out, NULL, &rc2);
	if (!rc2)
		for (size_t i = 0; i < r2.nk; i++)
			tap_diag("second pass: %s %s %s", r2.k[i].name,
				 gsp_xform_reason_name(r2.k[i].reason), r2.k[i].detail);
	tap_ok(rc2 == 0 && r2.nk == 2 && r2.k[0].reason == GSP_XFORM_NAME &&
	       r2.k[1].reason == GSP_XFORM_NAME && !strcmp(r2.out, r.out),
	       "xform: a second pass changes nothing (k__gsp exists; k__gsp is reserved)");
	gsp_xform_result_free(&r);
	gsp_xform_result_free(&r2);
}

struct reject_case {
	const char *what;
	const char *decls;	/* module level, before the entry */
	const char *dirs;	/* entry directives */
	const char *body;
	enum gsp_xform_reason want;
	const char *target;
};

static void test_reasons(void)
{
	static const struct reject_case cases[] = {
		{ "envreg (cooperative groups grid workspace)", "", "",
		  "mov.u32 %r1, %envreg1;", GSP_XFORM_GRID_SYNC, NULL },
		{ "call of cudaCGSynchronizeGrid",
		  ".extern .func cudaCGSynchronizeGrid(.param .b64 a);\n", "",
		  "{ .param .b64 p; st.param.b64 [p], 0; call.uni cudaCGSynchronizeGrid, (p); }",
		  GSP_XFORM_GRID_SYNC, NULL },
		{ "call of cudaLaunchDeviceV2",
		  ".extern .func (.param .b32 r) cudaLaunchDeviceV2(.param .b64 a, .param .b64 b);\n",
		  "", "{ .param .b64 p; .param .b64 q; .param .b32 r; "
		  "call.uni (r), cudaLaunchDeviceV2, (p, q); }",
		  GSP_XFORM_DYN_PAR, NULL },
		{ ".reqnctapercluster", "", ".reqnctapercluster 2, 1, 1\n", "ret;",
		  GSP_XFORM_CLUSTER, NULL },
		{ "%cluster_ctarank", "", "", "mov.u32 %r1, %cluster_ctarank;",
		  GSP_XFORM_CLUSTER, NULL },
		{ "barrier.cluster", "", "", "barrier.cluster.arrive;", GSP_XFORM_CLUSTER, NULL },
		{ "%smid", "", "", "mov.u32 %r1, %smid;", GSP_XFORM_SM_ID, NULL },
		{ "%gridid", "", "", "mov.u64 %rd1, %gridid;", GSP_XFORM_SM_ID, NULL },
		{ "bar.red.or", "", "", "setp.eq.u32 %p1, %r1, 0; bar.red.or.pred %p2, 0, %p1;",
		  GSP_XFORM_BARRIER, NULL },
		{ "a named barrier with a count", "", "", "bar.sync 1, 64;",
		  GSP_XFORM_BARRIER, NULL },
		{ "bar.arrive", "", "", "bar.arrive 0, 64;", GSP_XFORM_BARRIER, NULL },
		{ "a called function reads %ctaid.x (test_funcs.c: its clone)",
		  ".func f() { .reg .b32 %r<2>; mov.u32 %r1, %ctaid.x; ret; }\n", "",
		  "call.uni f, ();", GSP_XFORM_OK, NULL },
		{ "a function two calls away exits",
		  ".func g() { exit; }\n.func f() { call g, (); ret; }\n", "",
		  "call.uni f, ();", GSP_XFORM_FUNC, NULL },
		{ "a function declared before its body exits",
		  ".func g();\n.func g() { exit; }\n", "",
		  "call.uni g, ();", GSP_XFORM_FUNC, NULL },
		{ "an indirect call may reach a function with a barrier",
		  ".func f() { bar.sync 0; ret; }\n", "",
		  "{ .reg .b64 %fp; mov.u64 %fp, f; call %fp, (), p; }", GSP_XFORM_FUNC, NULL },
		{ "%ctaid read as a vector", "", "", "mov.v4.u32 {%r1, %r2, %r3, %r4}, %ctaid;",
		  GSP_XFORM_UNSUPPORTED, NULL },
		{ "a reserved name", "", "", "{ .reg .b32 %__gsp_w0; }", GSP_XFORM_NAME, NULL },
		{ "sm_60 target", "", "", "ret;", GSP_XFORM_TARGET, "sm_60" },
		{ "a function without %ctaid, barriers or exit",
		  ".func f() { .reg .b32 %r<2>; mov.u32 %r1, %tid.x; ret; }\n", "",
		  "call.uni f, (); ret;", GSP_XFORM_OK, NULL },
		{ "bar.warp.sync is a warp operation, not a block barrier", "", "",
		  "bar.warp.sync -1; ret;", GSP_XFORM_OK, NULL },
		{ "barrier.sync.aligned 0", "", "", "barrier.sync.aligned 0; ret;",
		  GSP_XFORM_OK, NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct reject_case *c = &cases[i];
		char src[2048];
		struct gsp_xform_result r;
		int rc;

		snprintf(src, sizeof(src),
			 ".version 8.0\n.target %s\n.address_size 64\n%s"
			 ".visible .entry k()\n%s{\n\t.reg .pred %%p<3>;\n"
			 "\t.reg .b32 %%r<5>;\n\t.reg .b64 %%rd<3>;\n\t%s\n\tret;\n}\n",
			 c->target ? c->target : "sm_90", c->decls, c->dirs, c->body);
		r = run(src, NULL, &rc);
		tap_ok(rc == 0 && r.nk == 1 && r.k[0].reason == c->want,
		       "reason: %s -> %s (got %s: %s)", c->what,
		       gsp_xform_reason_name(c->want),
		       rc || !r.nk ? "error" : gsp_xform_reason_name(r.k[0].reason),
		       rc || !r.nk ? "" : r.k[0].detail);
		if (!rc && r.nk && c->want != GSP_XFORM_OK)
			tap_ok(!strcmp(r.out, src),
			       "reason: %s: the module is left byte for byte", c->what);
		if (!rc)
			gsp_xform_result_free(&r);
	}
}

static void test_select_and_no_ptx(void)
{
	static const char two[] = HEAD ".entry a() { ret; }\n.entry b() { ret; }\n";
	static const char *const only_b[] = { "b", NULL };
	static const char funcs_only[] = HEAD ".func f() { ret; }\n";
	static const char cubin[] = "\x7f" "ELF\x02\x01\x01\0\0";
	struct gsp_xform_result r;
	char err[128];
	int rc;

	r = run(two, only_b, &rc);
	tap_ok(rc == 0 && r.nk == 2 && r.k[0].reason == GSP_XFORM_NOT_SELECTED &&
	       r.k[1].reason == GSP_XFORM_OK && !strstr(r.out, "a__gsp") &&
	       strstr(r.out, "b__gsp"), "select: only the kernel asked for");
	tap_ok(rc == 0 && r.nk == 2 && r.k[1].nparams == 0 &&
	       strstr(r.out, ".entry b__gsp(\n\t.param .align 8 .b8 b__gsp_param_job[64]\n)"),
	       "select: a kernel without parameters: nparams 0, the job alone");
	if (!rc)
		gsp_xform_result_free(&r);
	r = run(funcs_only, NULL, &rc);
	tap_ok(rc == 0 && r.nk == 0 && !strcmp(r.out, funcs_only),
	       "no-ptx: a module without .entry: no kernels, copied unchanged");
	if (!rc)
		gsp_xform_result_free(&r);
	rc = gsp_xform(cubin, sizeof(cubin) - 1, NULL, &r, err, sizeof(err));
	tap_ok(rc == GSP_XFORM_NO_PTX_INPUT && !r.out,
	       "no-ptx: binary input (an ELF cubin) is reported as no PTX");
}

/*
 * Bodies that do (joined) or do not (even) need the "done" barriers, and
 * those whose threads never meet within a task (none: alone).
 */
static void test_barrier_choice(void)
{
	static const struct {
		const char *what, *body;
		int uneven, alone;
	} cases[] = {
		{ "no barrier, early return on %tid",
		  "mov.u32 %r1, %tid.x; setp.gt.u32 %p1, %r1, 5; @%p1 ret; "
		  "st.global.u32 [%rd1], %r1;", 0, 1 },
		{ "global atomics and a fence",
		  "atom.global.add.u32 %r1, [%rd1], 1; membar.gl; "
		  "ld.volatile.global.u32 %r2, [%rd1];", 0, 1 },
		{ "a shuffle meets the warp",
		  "shfl.sync.down.b32 %r1, %r2, 1, 31, -1;", 0, 0 },
		{ "a vote meets the warp", "vote.sync.any.pred %p1, %p2, -1;", 0, 0 },
		{ "a shared atomic", "atom.shared.add.u32 %r1, [%r2], 1;", 0, 0 },
		{ "a generic atomic may be a shared one",
		  "atom.add.u32 %r1, [%rd1], 1;", 0, 0 },
		{ "a volatile shared load", "ld.volatile.shared.u32 %r1, [%r2];", 0, 0 },
		{ "a block-scope fence", "fence.acq_rel.cta;", 0, 0 },
		{ "a called function shuffles",
		  "{ .param .b32 r; call.uni (r), g, (); ld.param.b32 %r1, [r]; }", 0, 0 },
		{ "return on %tid before a barrier",
		  "mov.u32 %r1, %tid.x; setp.gt.u32 %p1, %r1, 5; @%p1 ret; "
		  "bar.sync 0;", 1, 0 },
		{ "return on %tid after the last barrier",
		  "bar.sync 0; mov.u32 %r1, %tid.x; setp.gt.u32 %p1, %r1, 5; "
		  "@%p1 ret; st.global.u32 [%rd1], %r1;", 0, 0 },
		{ "return on a loaded value before a barrier",
		  "ld.global.u32 %r1, [%rd1]; setp.eq.u32 %p1, %r1, 0; "
		  "@%p1 bra $L_end; bar.sync 0; $L_end: ret;", 1, 0 },
		{ "return on %ctaid and a parameter before a barrier (whole block)",
		  "ld.param.u32 %r2, [k_n]; mov.u32 %r1, %ctaid.x; "
		  "setp.ge.u32 %p1, %r1, %r2; @%p1 bra $L_end; bar.sync 0; "
		  "$L_end: ret;", 0, 0 },
		{ "guarded store between barriers (divergent, no exit)",
		  "mov.u32 %r1, %tid.x; bar.sync 0; setp.eq.u32 %p1, %r1, 0; "
		  "@%p1 bra $L_skip; st.global.u32 [%rd1], %r1; $L_skip: "
		  "bar.sync 0;", 0, 0 },
		{ "uniform loop (trip count from a parameter) around a barrier",
		  "ld.param.u32 %r2, [k_n]; mov.u32 %r1, 0; $L_loop: bar.sync 0; "
		  "add.u32 %r1, %r1, 1; setp.lt.u32 %p1, %r1, %r2; "
		  "@%p1 bra $L_loop; ret;", 0, 0 },
		{ "loop whose trip count is %tid, around a barrier",
		  "mov.u32 %r2, %tid.x; mov.u32 %r1, 0; $L_loop: bar.sync 0; "
		  "add.u32 %r1, %r1, 1; setp.lt.u32 %p1, %r1, %r2; "
		  "@%p1 bra $L_loop; ret;", 1, 0 },
		{ "a value set under a %tid branch decides a return before a barrier",
		  "mov.u32 %r2, 0; mov.u32 %r1, %tid.x; setp.eq.u32 %p1, %r1, 0; "
		  "@%p1 bra $L_join; mov.u32 %r2, 1; $L_join: "
		  "setp.eq.u32 %p2, %r2, 1; @%p2 ret; bar.sync 0;", 1, 0 },
		{ "a loop counter left by a %tid break decides a return",
		  "mov.u32 %r2, 0; mov.u32 %r1, %tid.x; $L_loop: "
		  "add.u32 %r2, %r2, 1; setp.eq.u32 %p1, %r2, %r1; "
		  "@%p1 bra $L_out; setp.lt.u32 %p3, %r2, 8; @%p3 bra $L_loop; "
		  "$L_out: setp.lt.u32 %p2, %r2, 4; @%p2 ret; bar.sync 0;", 1, 0 },
		{ "a call's result decides a return before a barrier",
		  "{ .param .b32 r; call.uni (r), f, (); ld.param.b32 %r1, [r]; } "
		  "setp.eq.u32 %p1, %r1, 0; @%p1 ret; bar.sync 0;", 1, 0 },
		{ "a guarded barrier",
		  "setp.eq.u32 %p1, %r1, 0; @%p1 bar.sync 0;", 1, 0 },
		{ "an indirect branch",
		  "$L_t: .branchtargets $L_a; $L_a: brx.idx %r1, $L_t; bar.sync 0;", 1, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char src[2048];
		int rc, even = !cases[i].uneven && !cases[i].alone;
		struct gsp_xform_result r;
		const char *clone;

		snprintf(src, sizeof(src), HEAD
			 ".func (.param .b32 r) f()\n{\n\tst.param.b32 [r], 1;\n\tret;\n}\n"
			 ".func (.param .b32 r) g()\n{\n\t.reg .b32 %%r<2>;\n"
			 "\tshfl.sync.idx.b32 %%r1, 1, 0, 31, -1;\n"
			 "\tst.param.b32 [r], %%r1;\n\tret;\n}\n"
			 ".visible .entry k(.param .u32 k_n)\n{\n"
			 "\t.reg .pred %%p<4>;\n\t.reg .b32 %%r<4>;\n\t.reg .b64 %%rd<2>;\n"
			 "\t%s\n\tret;\n}\n", cases[i].body);
		r = run(src, NULL, &rc);
		clone = rc || r.nk != 1 ? NULL : strstr(r.out, ".entry k__gsp(");
		/* even: the batch's tasks join on their own path, before the body */
		tap_ok(clone && r.k[0].reason == GSP_XFORM_OK &&
		       r.k[0].uneven == cases[i].uneven &&
		       r.k[0].alone == cases[i].alone &&
		       count(clone, "\t@!%__gsp_p3 bra $__gsp_body;\n") ==
		       (even ? 0 : 1 + (size_t)cases[i].alone) &&
		       count(clone, "\t@!%__gsp_p3 bra $__gsp_again;\n") == (size_t)even &&
		       count(clone, "$__gsp_again:\n") == (size_t)even &&
		       (!even || strstr(clone, "\tbra.uni $__gsp_body;\n$__gsp_again:\n"
					"\tbarrier.sync 0;\n$__gsp_body:\n")) &&
		       count(clone, "barrier.red.and.pred %__gsp_p5") == 1 &&
		       (cases[i].uneven ?
			count(clone, "barrier.red.and.pred %__gsp_bp") ==
			count(cases[i].body, "bar.sync 0;") &&
			count(clone, "barrier.sync 1;") ==
			count(cases[i].body, "bar.sync 0;") + 1 &&
			!strstr(clone, "barrier.sync 0;") :
			!strstr(clone, "barrier.red.and.pred %__gsp_bp") &&
			!strstr(clone, "barrier.sync 1;") &&
			count(clone, "barrier.sync 0;") ==
			count(cases[i].body, "bar.sync 0;") + (size_t)even),
		       "barriers: %s: %s", cases[i].what,
		       cases[i].alone ? "none (alone)" :
		       cases[i].uneven ? "joined" : "even");
		if (!rc)
			gsp_xform_result_free(&r);
	}
}

/* .maxnreg goes on the named kernel only, lowered but never raised. */
static void test_maxnreg(void)
{
	struct gsp_xform_result r;
	char err[256], *out = NULL, *again = NULL, *k;
	size_t len, len2;
	int rc;

	r = run(kernel, NULL, &rc);
	if (rc) {
		tap_ok(0, "maxnreg: the module transforms");
		return;
	}
	rc = gsp_xform_maxnreg(r.out, r.out_len, "k__gsp", 96, &out, &len,
			       err, sizeof(err));
	k = rc ? NULL : strstr(out, ".entry k__gsp(");
	tap_ok(k && len == r.out_len + strlen(".maxnreg 96\n") &&
	       strlen(out) == len && count(out, ".maxnreg") == 1 &&
	       strstr(k, ".maxntid 128, 1, 1\n.maxnreg 96\n{\n") &&
	       !memcmp(out, r.out, (size_t)(k - out)),
	       "maxnreg: inserted after the clone's own directives, the rest kept: %s",
	       rc ? err : "ok");
	rc = out ? gsp_xform_maxnreg(out, len, "k__gsp", 64, &again, &len2,
				     err, sizeof(err)) : -1;
	tap_ok(!rc && count(again, ".maxnreg") == 1 &&
	       strstr(again, ".maxnreg 64\n{") && len2 == len,
	       "maxnreg: a higher cap already there is lowered in place");
	free(again);
	again = NULL;
	rc = out ? gsp_xform_maxnreg(out, len, "k__gsp", 128, &again, &len2,
				     err, sizeof(err)) : -1;
	tap_ok(!rc && len2 == len && !strcmp(again, out),
	       "maxnreg: a lower cap already there is kept");
	free(again);
	again = NULL;
	rc = gsp_xform_maxnreg(r.out, r.out_len, "twice", 64, &again, &len2,
			       err, sizeof(err));
	tap_ok(rc == -1 && !again && strstr(err, "no kernel twice"),
	       "maxnreg: a .func is not a kernel: %s", err);
	rc = gsp_xform_maxnreg(r.out, r.out_len, "k__gsp", 256, &again, &len2,
			       err, sizeof(err));
	tap_ok(rc == -1 && !again && strstr(err, "1..255"),
	       "maxnreg: 256 registers refused: %s", err);
	rc = gsp_xform_maxnreg(r.out, r.out_len, "nope", 64, &again, &len2,
			       err, sizeof(err));
	tap_ok(rc == -1 && !again, "maxnreg: an unknown kernel refused: %s", err);
	free(out);
	gsp_xform_result_free(&r);
}

int main(void)
{
	test_parse();
	test_parse_errors();
	test_rewrite();
	test_override();
	test_idempotent();
	test_reasons();
	test_select_and_no_ptx();
	test_barrier_choice();
	test_maxnreg();
	return tap_done();
}
