#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The docs suite (make check-docs), TAP on stdout:
#  1. readme_numbers.py: every figure README quotes, against the CSV under
#     bench/results/ it comes from
#  2. kernel_doc.sh: each kernel-doc directive of Documentation/uapi.rst
#     finds its comment in uapi/gspace.h, without warnings
#  3. rst_check.py: every Documentation/*.rst parses without a docutils
#     warning
set -u
cd "$(dirname "$0")/../.." || exit 1
python3 tests/docs/readme_numbers.py | grep -v '^1\.\.'
rc=${PIPESTATUS[0]}
[ "$rc" -le 1 ] || echo "not ok - docs: readme_numbers.py exited with status $rc"
tests/docs/kernel_doc.sh | grep -v '^1\.\.'
rc=${PIPESTATUS[0]}
[ "$rc" -le 1 ] || echo "not ok - docs: kernel_doc.sh exited with status $rc"
python3 tests/docs/rst_check.py | grep -v '^1\.\.'
rc=${PIPESTATUS[0]}
[ "$rc" -le 1 ] || echo "not ok - docs: rst_check.py exited with status $rc"
exit 0
