# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages of debian/ (tests/deb/test_deb.sh): no GPU; root
# only for what the packages' scripts do (systemd-sysusers --root works
# without it).
#
#   make check-deb   TAP only: debian/changelog's version is VERSION;
#                    dpkg-buildpackage -b in a copy of the tree under
#                    $(DEB_DIR) (all packages where cuda.h of CUDA 12.4+
#                    is in CUDA_HOME, else the profile pkg.gspace.nocuda,
#                    without gspace-preload); lintian with no error or
#                    warning; dpkg -x into a scratch root, the files of
#                    each package, man pages, dkms.conf, maintainer
#                    scripts; the installed gspaced on a scratch socket,
#                    gspctl status, a libgsp-dev client, gsp-run with the
#                    installed interposer. About 2 minutes on 2 CPUs.

DEB_DIR := $(BUILD)/tests/deb

CHECK_SUITES += deb

.PHONY: check-deb

check-deb:
	@mkdir -p $(DEB_DIR)
	@CUDA_HOME='$(CUDA_HOME)' CC='$(CC)' tests/deb/test_deb.sh $(DEB_DIR); \
	rc=$$?; [ $$rc -le 1 ] || echo "not ok - test_deb.sh exited with status $$rc"
