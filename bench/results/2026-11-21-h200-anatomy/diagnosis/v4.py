#!/usr/bin/env python3
"""Dev-only variant V4 (on top of V1): a batch that does not wrap ctaid.x is
filled by a loop without the carry logic."""
import sys
t = open(sys.argv[1]).read()
old = ("\tcvt.u32.u64 %__gsp_w1, %__gsp_x12;\n"
"$__gsp_fill:\n")
new = ("\tcvt.u32.u64 %__gsp_w1, %__gsp_x12;\n"
"\tadd.u32 %__gsp_w2, %__gsp_w4, %__gsp_w1;\n"
"\tsetp.gt.u32 %__gsp_p1, %__gsp_w2, %__gsp_w8;\n"
"\t@%__gsp_p1 bra $__gsp_fill;\n"
"$__gsp_fastfill:\n"
"\tst.shared.u32 [%__gsp_w0+8], %__gsp_w4;\n"
"\tst.shared.u32 [%__gsp_w0+12], %__gsp_w5;\n"
"\tst.shared.u32 [%__gsp_w0+16], %__gsp_w6;\n"
"\tadd.u32 %__gsp_w0, %__gsp_w0, 12;\n"
"\tadd.u32 %__gsp_w4, %__gsp_w4, 1;\n"
"\tsetp.ne.u32 %__gsp_p1, %__gsp_w4, %__gsp_w2;\n"
"\t@%__gsp_p1 bra $__gsp_fastfill;\n"
"\tbra.uni $__gsp_filled;\n"
"$__gsp_fill:\n")
n = t.count(old); assert n
t = t.replace(old, new)
open(sys.argv[2], "w").write(t)
