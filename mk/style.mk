# SPDX-License-Identifier: GPL-2.0
# Kernel style: checkpatch over the module, its TEST DEVICE driver, the
# core, the uapi header, the partition search and the admission predictor.

STYLE_FILES = $(wildcard kmod/*.[ch] kmod/core/*.[ch] kmod/testdrm/*.[ch] \
	libgsp/search/*.[ch] libgsp/csv/*.[ch] \
	libgsp/admit/*.[ch]) uapi/gspace.h

CHECK_SUITES += style
.PHONY: check-style
check-style:
	@BUILD=$(BUILD) tools/checkpatch.sh $(STYLE_FILES)
