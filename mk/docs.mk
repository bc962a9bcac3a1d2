# SPDX-License-Identifier: GPL-2.0
#
# The documentation's checks, no build needed:
#
#   make check-docs   tests/docs/run.sh: README's figures against the
#                     committed CSVs they come from, the kernel-doc
#                     that Documentation/uapi.rst pulls from uapi/gspace.h,
#                     and every Documentation/*.rst through docutils;
#                     TAP only

CHECK_SUITES += docs
.PHONY: check-docs
check-docs:
	@BUILD=$(BUILD) tests/docs/run.sh
