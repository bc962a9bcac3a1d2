#!/usr/bin/env python3
"""Dev-only variant V1: a lost slot claim retries from the mask its atom.or
returned instead of loading slot_mask again (one L2 round trip per round)."""
import sys
t = open(sys.argv[1]).read()
old = ("$__gsp_claim:\n"
"\tld.volatile.global.u32 %__gsp_w6, [%__gsp_x1+640];\n"
"\tnot.b32 %__gsp_w7, %__gsp_w6;\n")
new = ("$__gsp_claim:\n"
"\tld.volatile.global.u32 %__gsp_w6, [%__gsp_x1+640];\n"
"$__gsp_claim2:\n"
"\tnot.b32 %__gsp_w7, %__gsp_w6;\n")
n = t.count(old); assert n
t = t.replace(old, new)
old = ("\tatom.global.or.b32 %__gsp_w6, [%__gsp_x1+640], %__gsp_w8;\n"
"\tand.b32 %__gsp_w6, %__gsp_w6, %__gsp_w8;\n"
"\tsetp.ne.u32 %__gsp_p1, %__gsp_w6, 0;\n"
"\t@%__gsp_p1 bra $__gsp_claim;\n")
new = ("\tatom.global.or.b32 %__gsp_w6, [%__gsp_x1+640], %__gsp_w8;\n"
"\tand.b32 %__gsp_w13, %__gsp_w6, %__gsp_w8;\n"
"\tsetp.ne.u32 %__gsp_p1, %__gsp_w13, 0;\n"
"\t@%__gsp_p1 bra $__gsp_claim2;\n")
assert t.count(old) == n
t = t.replace(old, new)
open(sys.argv[2], "w").write(t)
