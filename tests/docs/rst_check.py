#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Every Documentation/*.rst parses without a docutils warning: TAP.

The kernel's Sphinx directive kernel-doc (Documentation/uapi.rst and
others pull comments with it; kernel_doc.sh checks those) is taken as
known here and its content left alone. Without docutils (Debian's
python3-docutils, tools/install-deps.sh) each file is skipped.
"""
import glob
import io
import os
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")

try:
    import docutils.core
    from docutils.parsers.rst import Directive, directives
except ImportError:
    docutils = None


def main():
    files = sorted(glob.glob(os.path.join(ROOT, "Documentation", "*.rst")))
    n = 0
    if docutils:
        class KernelDoc(Directive):
            required_arguments = 1
            optional_arguments = 0
            has_content = True
            option_spec = {k: directives.unchanged for k in
                           ("doc", "identifiers", "functions", "internal",
                            "export", "no-identifiers")}

            def run(self):
                return []

        directives.register_directive("kernel-doc", KernelDoc)
    for f in files:
        n += 1
        name = os.path.relpath(f, ROOT)
        if not docutils:
            print(f"ok {n} - docs: {name} parses as reStructuredText # SKIP no docutils")
            continue
        err = io.StringIO()
        with open(f) as fh:
            src = fh.read()
        docutils.core.publish_doctree(src, source_path=name, settings_overrides={
            "warning_stream": err, "report_level": 2, "halt_level": 5})
        msgs = [m for m in err.getvalue().splitlines() if m.strip()]
        print(f"{'not ok' if msgs else 'ok'} {n} - docs: {name} parses as reStructuredText"
              " without a warning")
        for m in msgs[:10]:
            print(f"# {m}")
    print(f"1..{n}")


if __name__ == "__main__":
    sys.exit(main())
