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
#                     five programs; then tests/ship/test_man.sh (the man
#                     pages render without warnings, and name every
#                     option, knob and variable of their programs),
#                     test_udev.sh (the udev rule and the module agree on
#                     0660, the group, install's udev, group and dkms
#                     hooks) and test_dkms.sh (make dkms-src's folder
#                     says VERSION and builds gspace.ko, with dkms build
#                     where dkms is; dkms-install and dkms-uninstall)

SHIP_DIR := $(BUILD)/tests/ship

CHECK_SUITES += ship

.PHONY: check-ship
SHIP_TESTS := test_ship test_man test_udev test_dkms

check-ship:
	@mkdir -p $(SHIP_DIR)
	@for t in $(SHIP_TESTS); do \
		$(CUDA_ENV) CC='$(CC)' tests/ship/$$t.sh $(SHIP_DIR); rc=$$?; \
		[ $$rc -le 1 ] || echo "not ok - $$t.sh exited with status $$rc"; \
	done
