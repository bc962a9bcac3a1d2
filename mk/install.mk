# SPDX-License-Identifier: GPL-2.0
#
# make install and make uninstall, through tools/install.sh. Included
# after every fragment that adds to INSTALL_BINS, INSTALL_LIBS and
# INSTALL_HEADERS.
#
#   make install     builds what it installs (not the module), then
#                    installs, under $(DESTDIR):
#     $(BINDIR)        gspaced, gspctl, gsp-run, gsp-xform, gsp-select,
#                      gsp-psim (INSTALL_BINS)
#     $(LIBDIR)        libgsp.so.1.1 and its links, libgsp_preload.so
#                      (where cuda.h is found), libgsp_trace.so (where
#                      CUPTI is) (INSTALL_LIBS)
#     $(INCLUDEDIR)    gsp.h, gsp_board.h, gspace.h (INSTALL_HEADERS)
#     $(PKGCONFIGDIR)  libgsp.pc
#     $(UNITDIR)       gspaced.service, its ExecStart the installed gspaced
#     $(SYSCONFDIR)/gspace/gspaced.conf.example; never gspaced.conf, which
#                      gspaced reads from /etc/gspace (defaults if absent)
#     $(DOCDIR)        README.md, gspaced.rst, interposer.rst, libgsp.rst
#     $(MODULEDIR)/RELEASE/extra/gspace.ko, if $(MODULE_KO) was built
#                      (make module), RELEASE its vermagic's; depmod runs
#                      when DESTDIR is empty
#     $(MANIFEST)      everything above that install wrote
#   make uninstall   removes what the manifest lists, and the folders
#                    install created once they are empty; nothing else
#
# PREFIX (default /usr/local), DESTDIR and each *DIR below may be set.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DATADIR ?= $(PREFIX)/share
DOCDIR ?= $(DATADIR)/doc/gspace
# systemd reads /usr/local/lib/systemd/system and /usr/lib/systemd/system
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= /etc
MODULEDIR ?= /lib/modules
MODULE_KO ?= gspace.ko
MANIFEST ?= $(DATADIR)/gspace/install-manifest
INSTALL_STAGE := $(BUILD)/install
INSTALL_DOCS := README.md Documentation/gspaced.rst \
	Documentation/interposer.rst Documentation/libgsp.rst

.PHONY: install uninstall

# The unit names its binary and its doc by their /usr/local paths;
# install puts the real ones in, and checks that it did.
install: $(INSTALL_BINS) $(INSTALL_LIBS) $(INSTALL_HEADERS) $(INSTALL_DOCS) \
		libgsp/lib/libgsp.pc.in gspaced/gspaced.service \
		gspaced/gspaced.conf.example tools/install.sh
	@rm -rf $(INSTALL_STAGE)
	@mkdir -p $(INSTALL_STAGE)
	@sed -e 's|/usr/local/bin/gspaced|$(BINDIR)/gspaced|' \
		-e 's|file:///usr/local/share/doc/gspace/|file://$(DOCDIR)/|' \
		gspaced/gspaced.service >$(INSTALL_STAGE)/gspaced.service
	@grep -qx 'ExecStart=$(BINDIR)/gspaced --foreground' \
		$(INSTALL_STAGE)/gspaced.service || { \
		echo "install: gspaced/gspaced.service: its ExecStart is not /usr/local/bin/gspaced --foreground" >&2; \
		exit 1; }
	@sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
		-e 's|@VERSION@|$(LIBGSP_VERSION)|' libgsp/lib/libgsp.pc.in \
		>$(INSTALL_STAGE)/libgsp.pc
	@{ for f in $(INSTALL_BINS); do \
		echo "file 755 $$f $(BINDIR)/$${f##*/}"; done; \
	   for f in $(INSTALL_LIBS); do \
		echo "file 755 $$f $(LIBDIR)/$${f##*/}"; done; \
	   echo "link $(notdir $(LIBGSP_SO)) $(LIBDIR)/$(LIBGSP_SONAME)"; \
	   echo "link $(LIBGSP_SONAME) $(LIBDIR)/libgsp.so"; \
	   for f in $(INSTALL_HEADERS); do \
		echo "file 644 $$f $(INCLUDEDIR)/$${f##*/}"; done; \
	   echo "file 644 $(INSTALL_STAGE)/libgsp.pc $(PKGCONFIGDIR)/libgsp.pc"; \
	   echo "file 644 $(INSTALL_STAGE)/gspaced.service $(UNITDIR)/gspaced.service"; \
	   echo "file 644 gspaced/gspaced.conf.example $(SYSCONFDIR)/gspace/gspaced.conf.example"; \
	   for f in $(INSTALL_DOCS); do \
		echo "file 644 $$f $(DOCDIR)/$${f##*/}"; done; \
	 } >$(INSTALL_STAGE)/spec
	@if [ -f '$(MODULE_KO)' ]; then \
		rel=$$(tr '\0' '\n' <'$(MODULE_KO)' | \
			sed -n 's/^vermagic=\([^ ]*\).*/\1/p' | head -n 1); \
		[ -n "$$rel" ] || { \
			echo "install: $(MODULE_KO) has no vermagic: not a kernel module" >&2; \
			exit 1; }; \
		echo "file 644 $(MODULE_KO) $(MODULEDIR)/$$rel/extra/gspace.ko"; \
		echo "depmod $$rel"; \
	 else \
		echo "not installed: gspace.ko: not built (make module, then make install)" >&2; \
	 fi >>$(INSTALL_STAGE)/spec
	@$(if $(HAVE_CUDA_H),,echo "not installed: libgsp_preload.so: $(CUDA_H_WHY)" >&2)
	@DESTDIR='$(DESTDIR)' tools/install.sh install '$(MANIFEST)' \
		<$(INSTALL_STAGE)/spec

uninstall:
	@DESTDIR='$(DESTDIR)' tools/install.sh uninstall '$(MANIFEST)'
