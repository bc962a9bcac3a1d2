#!/usr/bin/env python3
"""A diagnosis, not part of gspace: instr.py IN.ptx OUT.ptx stamps the
phases of gsp-xform's template (the leader only) into __gsp_prof.
Per persistent block b, __gsp_prof[b*32 + i] (u64):
 0 entry  1 slot  2 slot-claim rounds  3 boundaries  4 boundary ns (from
 its start, or the block's entry, to the join)  5 join wait ns  6 join
 passes  7 first batch start  8 end (nothing left)  9 leave  10 wait-loop
 iterations  11 exit  12 smid  13 tasks  14 word ns  15 claim ns
 16 SM copies fresh  17 SM copy busy  18 mirror taken  19 await loops
 20 bus reads  21 give-ups  22 batch size ns  23 fill ns"""
import sys
src, dst = sys.argv[1], sys.argv[2]
t = open(src).read()
T = "\tmov.u64 %__gsp_q4, %globaltimer;\n"
def st(i): return f"\tst.global.u64 [%__gsp_q0+{i*8}], %__gsp_q4;\n"
def red(i, v="1"): return f"\tred.global.add.u64 [%__gsp_q0+{i*8}], {v};\n"
def rep(old, new, count=None):
    global t
    n = t.count(old)
    assert n > 0, old
    if count is not None:
        assert n == count, (old, n)
    t = t.replace(old, new)
t = t.replace(".address_size 64\n", ".address_size 64\n\n.global .align 8 .u64 __gsp_prof[262144];\n", 1)
nk = t.count("\t.shared .align 16 .b8 __gsp_sh[880];\n")
rep("\t.shared .align 16 .b8 __gsp_sh[880];\n",
    "\t.shared .align 16 .b8 __gsp_sh[880];\n\t.reg .b64 %__gsp_q<8>;\n\t.reg .pred %__gsp_qp;\n\t.reg .b32 %__gsp_qw<2>;\n")
rep("\tmov.u32 %__gsp_w0, %tid.x;\n",
    "\tmov.u32 %__gsp_qw0, %ctaid.x;\n\tmul.wide.u32 %__gsp_q0, %__gsp_qw0, 256;\n"
    "\tmov.u64 %__gsp_q1, __gsp_prof;\n\tadd.s64 %__gsp_q0, %__gsp_q0, %__gsp_q1;\n"
    "\tmov.u64 %__gsp_q2, 0;\n\tmov.u64 %__gsp_q3, 0;\n\tmov.u64 %__gsp_q5, 0;\n\tmov.u64 %__gsp_q7, 0;\n\tmov.u32 %__gsp_qw1, 0;\n"
    "\tmov.u32 %__gsp_w0, %tid.x;\n", nk)
# entry: first leader-only line after the prologue's branch
rep("\tmov.pred %__gsp_p3, 1;\n\t@%__gsp_p0 bra $__gsp_join;\n",
    "\tmov.pred %__gsp_p3, 1;\n\t@%__gsp_p0 bra $__gsp_join;\n" + T + st(0) +
    "\tmov.u64 %__gsp_q2, %__gsp_q4;\n", nk)
rep("$__gsp_claim:\n", "$__gsp_claim:\n" + red(2), nk)
rep("\tbfind.u32 %__gsp_w3, %__gsp_w8;\n", T + st(1) + "\tbfind.u32 %__gsp_w3, %__gsp_w8;\n", nk)
rep("$__gsp_boundary:\n", "$__gsp_boundary:\n" + red(3) + "\tmov.u64 %__gsp_q2, %globaltimer;\n\tmov.u64 %__gsp_q5, %__gsp_q2;\n", nk)
rep("$__gsp_join:\n",
    "$__gsp_join:\n\t@!%__gsp_p0 mov.u64 %__gsp_q3, %globaltimer;\n"
    "\tsetp.ne.u64 %__gsp_qp, %__gsp_q7, 0;\n\t@%__gsp_p0 setp.ne.u64 %__gsp_qp, %__gsp_q7, %__gsp_q7;\n"
    "\t@%__gsp_qp sub.u64 %__gsp_q4, %__gsp_q3, %__gsp_q7;\n\t@%__gsp_qp red.global.add.u64 [%__gsp_q0+184], %__gsp_q4;\n\t@%__gsp_qp mov.u64 %__gsp_q7, 0;\n"
    "\tsetp.ne.u64 %__gsp_qp, %__gsp_q2, 0;\n\t@%__gsp_p0 setp.ne.u64 %__gsp_qp, %__gsp_q2, %__gsp_q2;\n"
    "\t@%__gsp_qp sub.u64 %__gsp_q4, %__gsp_q3, %__gsp_q2;\n"
    "\t@%__gsp_qp red.global.add.u64 [%__gsp_q0+32], %__gsp_q4;\n"
    "\t@%__gsp_qp mov.u64 %__gsp_q2, 0;\n", nk)
rep("\tbarrier.red.and.pred %__gsp_p5, 0, %__gsp_p5;\n",
    "\tbarrier.red.and.pred %__gsp_p5, 0, %__gsp_p5;\n"
    "\t@!%__gsp_p0 mov.u64 %__gsp_q4, %globaltimer;\n\t@!%__gsp_p0 sub.u64 %__gsp_q4, %__gsp_q4, %__gsp_q3;\n"
    "\t@!%__gsp_p0 red.global.add.u64 [%__gsp_q0+40], %__gsp_q4;\n"
    "\t@!%__gsp_p0 red.global.add.u64 [%__gsp_q0+48], 1;\n", nk)
rep("$__gsp_start:\n",
    "$__gsp_start:\n\tsetp.eq.u32 %__gsp_qp, %__gsp_qw1, 0;\n\t@%__gsp_p0 setp.ne.u32 %__gsp_qp, %__gsp_qw1, %__gsp_qw1;\n"
    "\t@%__gsp_qp mov.u64 %__gsp_q4, %globaltimer;\n\t@%__gsp_qp st.global.u64 [%__gsp_q0+56], %__gsp_q4;\n"
    "\tmov.u32 %__gsp_qw1, 1;\n", nk)
rep("$__gsp_end:\n", "$__gsp_end:\n" + T + st(8), nk)
rep("$__gsp_leave:\n\t@%__gsp_p0 bra $__gsp_exit;\n",
    "$__gsp_leave:\n\t@%__gsp_p0 bra $__gsp_exit;\n" + T + st(9), nk)
rep("$__gsp_wait:\n", "$__gsp_wait:\n" + red(10), nk)
rep("\tred.global.add.s32 [%__gsp_x0+256], -1;\n$__gsp_exit:\n",
    "\tred.global.add.s32 [%__gsp_x0+256], -1;\n" + T + st(11) +
    "\tmov.u32 %__gsp_qw0, %smid;\n\tcvt.u64.u32 %__gsp_q4, %__gsp_qw0;\n" + st(12) +
    "\tld.shared.u64 %__gsp_q4, [__gsp_sh+24];\n" + st(13) + "$__gsp_exit:\n", nk)

# word path time: boundary start -> check (q5 != 0 only after a boundary)
rep("$__gsp_check:\n", "$__gsp_check:\n\tsetp.ne.u64 %__gsp_qp, %__gsp_q5, 0;\n"
    "\t@%__gsp_qp mov.u64 %__gsp_q6, %globaltimer;\n\t@%__gsp_qp sub.u64 %__gsp_q4, %__gsp_q6, %__gsp_q5;\n"
    "\t@%__gsp_qp red.global.add.u64 [%__gsp_q0+112], %__gsp_q4;\n\t@%__gsp_qp mov.u64 %__gsp_q5, %__gsp_q6;\n", nk)
# claim time: check -> atom result (branch on it forces the wait)
a = "\tatom.global.add.u64 %__gsp_x2, [%__gsp_x0], %__gsp_x12;\n"
rep(a, a + "\tsetp.eq.u64 %__gsp_qp, %__gsp_x2, -1;\n\t@%__gsp_qp trap;\n"
    "\tsetp.ne.u64 %__gsp_qp, %__gsp_q5, 0;\n\t@%__gsp_qp mov.u64 %__gsp_q6, %globaltimer;\n"
    "\t@%__gsp_qp sub.u64 %__gsp_q4, %__gsp_q6, %__gsp_q5;\n\t@%__gsp_qp red.global.add.u64 [%__gsp_q0+120], %__gsp_q4;\n"
    "\tmov.u64 %__gsp_q5, 0;\n\tmov.u64 %__gsp_q7, %globaltimer;\n", nk)
rep("$__gsp_word:\n", "$__gsp_word:\n\tsetp.ne.u64 %__gsp_qp, %__gsp_q5, 0;\n"
    "\t@%__gsp_qp mov.u64 %__gsp_q6, %globaltimer;\n\t@%__gsp_qp sub.u64 %__gsp_q4, %__gsp_q6, %__gsp_q5;\n"
    "\t@%__gsp_qp red.global.add.u64 [%__gsp_q0+176], %__gsp_q4;\n\t@%__gsp_qp mov.u64 %__gsp_q5, %__gsp_q6;\n", nk)

rep("$__gsp_cache:\n", "$__gsp_cache:\n" + red(16), nk)
rep("$__gsp_stale:\n", "$__gsp_stale:\n" + red(17), nk)
rep("$__gsp_take:\n", "$__gsp_take:\n" + red(18), nk)
rep("$__gsp_await:\n", "$__gsp_await:\n" + red(19), nk)
b = "\tred.global.add.u32 [%__gsp_x0+400], 1;\n\tbra.uni $__gsp_copy;\n"
rep(b, red(20) + b, nk)
rep("$__gsp_giveup:\n", "$__gsp_giveup:\n" + red(21), nk)
open(dst, "w").write(t)
print(f"{src}: {nk} kernels instrumented", file=sys.stderr)
