#!/usr/bin/env python3
# Experiment: double-buffer an even kernel's static shared memory by task
# parity and skip the per-task join when the task passed a body barrier.
import re, sys
src = open(sys.argv[1]).read()
out = []
ext = re.findall(r'\.extern \.shared [^\n]*?(\w+)\[\]', src)
funcs = re.split(r'(?=\n\t// gsp-xform: \S+ in persistent form\n)', src)
for f in funcs:
    if 'in persistent form' not in f.split('\n')[1] if '\n' in f else True:
        out.append(f); continue
    if any(re.search(r'\b' + e + r'\b', f) for e in ext) or 'barrier.red.and.pred %__gsp_p5' not in f or 'barrier.sync 1;' in f:
        out.append(f); continue
    if 'bra $__gsp_join;\n$__gsp_' not in f and '@!%__gsp_p3 bra $__gsp_join;' not in f:
        out.append(f); continue
    decl = re.findall(r'\t\.shared \.align (\d+) \.b8 (\w+)\[(\d+)\];', f)
    decl = [(int(a), n, int(s)) for a, n, s in decl if n != '__gsp_sh']
    if not decl or 'barrier.sync 0;' not in f:
        out.append(f); continue
    sizes = {}
    for a, n, s in decl:
        sa = (s + 15) // 16 * 16
        sizes[n] = sa
        f = f.replace('\t.shared .align %d .b8 %s[%d];' % (a, n, s),
                      '\t.shared .align %d .b8 %s[%d];' % (max(a, 16), n, 2 * sa))
    f = f.replace('\t.shared .align 16 .b8 __gsp_sh[880];\n',
                  '\t.shared .align 16 .b8 __gsp_sh[880];\n\t.reg .b32 %__gsp_par;\n\t.reg .b32 %__gsp_tb;\n\t.reg .pred %__gsp_pb;\n\tmov.u32 %__gsp_par, 0;\n', 1)
    head, body = f.split('$__gsp_body:\n', 1)
    body, tail = body.split('$__gsp_next:\n', 1)
    lines = body.split('\n')
    nl = ['\txor.b32 %__gsp_par, %__gsp_par, 1;', '\tmov.pred %__gsp_pb, 0;']
    for l in lines:
        m = re.match(r'^(\s*)mov\.u32\s+(%\w+),\s*(\w+);\s*$', l)
        if m and m.group(3) in sizes:
            nl.append(l)
            nl.append('\tmad.lo.u32 %s, %%__gsp_par, %d, %s;' % (m.group(2), sizes[m.group(3)], m.group(2)))
            continue
        used = [n for n in sizes if re.search(r'\[' + n + r'\b', l)]
        if used:
            assert len(used) == 1, l
            n = used[0]
            nl.append('\tmov.u32 %%__gsp_tb, %s;' % n)
            nl.append('\tmad.lo.u32 %%__gsp_tb, %%__gsp_par, %d, %%__gsp_tb;' % sizes[n])
            l = re.sub(r'\[' + n + r'\b', '[%__gsp_tb', l)
        for n in sizes:
            assert not re.search(r'\b' + n + r'\b', l), l
        nl.append(l)
        if l.strip().endswith('barrier.sync 0;'):
            nl.append('\tmov.pred %__gsp_pb, 1;')
    body = '\n'.join(nl)
    old = '@!%__gsp_p3 bra $__gsp_join;\n'
    assert old in tail
    tail = tail.replace(old, 'not.pred %__gsp_p4, %__gsp_p3;\n\tand.pred %__gsp_p4, %__gsp_p4, %__gsp_pb;\n\t@%__gsp_p4 bra $__gsp_body;\n\t' + old, 1)
    sys.stderr.write('dbuf: %s\n' % f.split('\n')[1])
    out.append(head + '$__gsp_body:\n' + body + '$__gsp_next:\n' + tail)
open(sys.argv[2], 'w').write(''.join(out))
