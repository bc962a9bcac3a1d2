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
#                    installed interposer. Then (tests/deb/test_chroot.sh)
#                    the same .debs in a minimal Debian 12 chroot
#                    (debootstrap, cached as $(DEB_DIR)/chroot-bookworm.tar):
#                    apt-get install ./*.deb with the dependencies from
#                    the archive and the maintainer scripts run (DKMS
#                    builds gspace.ko for the chroot's linux-headers,
#                    systemd-sysusers makes the group), the smoke test
#                    again there, gspctl metrics too, a reinstall (the
#                    scripts as an upgrade runs them), and apt-get purge
#                    leaving nothing of ours; root and, the first time,
#                    the archive, else "# SKIP". About 3 minutes on 2
#                    CPUs; of that the chroot takes 40 s to make the
#                    first time, 2 to 15 s from the cache.
#   make check-deb-chroot  the chroot's part alone, on the .debs that
#                    check-deb left in $(DEB_DIR)

DEB_DIR := $(BUILD)/tests/deb

CHECK_SUITES += deb

.PHONY: check-deb check-deb-chroot

check-deb:
	@mkdir -p $(DEB_DIR)
	@CUDA_HOME='$(CUDA_HOME)' CC='$(CC)' tests/deb/test_deb.sh $(DEB_DIR); \
	rc=$$?; [ $$rc -le 1 ] || echo "not ok - test_deb.sh exited with status $$rc"
	@$(MAKE) --no-print-directory -s check-deb-chroot

check-deb-chroot:
	@mkdir -p $(DEB_DIR)
	@tests/deb/test_chroot.sh $(DEB_DIR); \
	rc=$$?; [ $$rc -le 1 ] || echo "not ok - test_chroot.sh exited with status $$rc"
