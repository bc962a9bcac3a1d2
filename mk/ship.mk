# SPDX-License-Identifier: GPL-2.0
#
# The build, install and --version as an operator meets them
# (tests/ship/test_ship.sh): no GPU, no root.
#
#   make check-ship   TAP only: make and make user with nvcc, cuda.h and
#                     the running kernel's headers missing, into a
#                     scratch BUILD (what they build and the one line per
#                     thing they skip); make module and an nvcc program
#                     failing, saying why; make install into a scratch
#                     DESTDIR with its own PREFIX (the file list, the
#                     unit's ExecStart, systemd-analyze verify, an
#                     existing config left alone), make uninstall leaving
#                     nothing of its own; --version and --help of the
#                     five programs

SHIP_DIR := $(BUILD)/tests/ship

CHECK_SUITES += ship

.PHONY: check-ship
check-ship:
	@mkdir -p $(SHIP_DIR)
	@$(CUDA_ENV) CC='$(CC)' tests/ship/test_ship.sh $(SHIP_DIR); rc=$$?; \
	[ $$rc -le 1 ] || echo "not ok - test_ship.sh exited with status $$rc"
