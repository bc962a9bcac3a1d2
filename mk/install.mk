# SPDX-License-Identifier: GPL-2.0
#
# make install and make uninstall, through tools/install.sh; the man
# pages; the module's sources for DKMS. Included after every fragment
# that adds to INSTALL_BINS, INSTALL_LIBS and INSTALL_HEADERS.
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
#     $(UDEVRULESDIR)  60-gspace.rules: /dev/gspace root:gspace 0660
#     $(SYSUSERSDIR)   gspace.conf, the group gspace (sysusers.d); when
#                      DESTDIR is empty the group is created
#                      (systemd-sysusers, else groupadd --system) and
#                      udev reloads its rules and applies them to a
#                      loaded gspace.ko's /dev/gspace
#     $(SYSCONFDIR)/gspace/gspaced.conf.example; never gspaced.conf, which
#                      gspaced reads from /etc/gspace (defaults if absent)
#     $(MANDIR)        man1/gsp-run.1, gsp-xform.1, gsp-select.1;
#                      man5/gspaced.conf.5; man8/gspaced.8, gspctl.8
#                      (from man/*.in: VERSION and the paths put in)
#     $(DOCDIR)        README.md, gspaced.rst, interposer.rst, libgsp.rst
#     $(MODULEDIR)/RELEASE/extra/gspace.ko, if $(MODULE_KO) was built
#                      (make module), RELEASE its vermagic's; depmod runs
#                      when DESTDIR is empty
#     $(MANIFEST)      everything above that install wrote
#   make uninstall   removes what the manifest lists, and the folders
#                    install created once they are empty; nothing else
#                    (the group gspace stays: files may carry its gid)
#   make man         the man pages, as install writes them, in
#                    $(BUILD)/man
#   make dkms-src    $(BUILD)/dkms/gspace-VERSION: what Kbuild needs to
#                    build gspace.ko (Kbuild, kmod/, uapi/gspace.h) and
#                    packaging/dkms.conf.in as dkms.conf, VERSION put in
#   make dkms-install  that folder to $(DESTDIR)$(DKMS_SRCDIR)
#                    (/usr/src/gspace-VERSION), listed in
#                    $(DKMS_MANIFEST); when DESTDIR is empty and dkms is
#                    here, dkms add, then dkms install for every kernel
#                    whose headers are installed
#   make dkms-uninstall  dkms remove --all (DESTDIR empty), then what
#                    dkms-install wrote
#
# PREFIX (default /usr/local), DESTDIR and each *DIR below may be set.

PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
DATADIR ?= $(PREFIX)/share
DOCDIR ?= $(DATADIR)/doc/gspace
# systemd reads /usr/local/lib/systemd/system and /usr/lib/systemd/system;
# systemd's udev (udev(7); Debian 12's systemd 252) reads
# /usr/local/lib/udev/rules.d and /usr/lib/udev/rules.d, and
# systemd-sysusers /usr/local/lib/sysusers.d and /usr/lib/sysusers.d. For
# a PREFIX none of them reads (/opt/...), set UDEVRULESDIR=/etc/udev/rules.d
# and SYSUSERSDIR=/etc/sysusers.d.
UNITDIR ?= $(PREFIX)/lib/systemd/system
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
MANDIR ?= $(DATADIR)/man
SYSCONFDIR ?= /etc
MODULEDIR ?= /lib/modules
MODULE_KO ?= gspace.ko
MANIFEST ?= $(DATADIR)/gspace/install-manifest
# dkms looks for a module's sources in /usr/src/NAME-VERSION, whatever
# the PREFIX.
DKMS_SRCDIR ?= /usr/src/gspace-$(VERSION)
DKMS_MANIFEST ?= $(DATADIR)/gspace/dkms-manifest
INSTALL_STAGE := $(BUILD)/install
INSTALL_DOCS := README.md Documentation/gspaced.rst \
	Documentation/interposer.rst Documentation/libgsp.rst
UDEV_RULES := packaging/60-gspace.rules
SYSUSERS_CONF := packaging/gspace.sysusers
MAN_SRCS := $(wildcard man/*.[1-8].in)
MAN_NAMES := $(notdir $(MAN_SRCS:.in=))
# What Kbuild builds gspace.ko from: the module, its core, the uapi.
DKMS_FILES := Kbuild $(sort $(wildcard kmod/*.[ch] kmod/core/*.[ch])) \
	uapi/gspace.h
DKMS_STAGE := $(BUILD)/dkms/gspace-$(VERSION)

.PHONY: install uninstall man dkms-src dkms-install dkms-uninstall

# man_gen OUTDIR: the pages of man/*.in in OUTDIR, with VERSION, the
# install paths and each page's date (its last commit's, else its
# file's) put in.
define man_gen
	@mkdir -p $(1)
	@here=$$(pwd -P); for f in $(MAN_SRCS); do \
		d=$$(GIT_OPTIONAL_LOCKS=0 git -c safe.directory="$$here" \
			log -1 --format=%cs -- "$$f" 2>/dev/null); \
		[ -n "$$d" ] || d=$$(date -u -r "$$f" +%Y-%m-%d); \
		sed -e "s|@DATE@|$$d|g" -e 's|@VERSION@|$(VERSION)|g' \
			-e 's|@BINDIR@|$(BINDIR)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
			-e 's|@DOCDIR@|$(DOCDIR)|g' -e 's|@UNITDIR@|$(UNITDIR)|g' \
			-e 's|@UDEVRULESDIR@|$(UDEVRULESDIR)|g' \
			-e 's|@SYSUSERSDIR@|$(SYSUSERSDIR)|g' \
			-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
			"$$f" >$(1)/$$(basename "$$f" .in) || exit 1; \
		if grep -n '@[A-Z]*@' $(1)/$$(basename "$$f" .in); then \
			echo "man: $$f: a @NAME@ above is not one mk/install.mk puts in" >&2; \
			exit 1; \
		fi; \
	done
endef

man: $(MAN_SRCS)
	@rm -rf $(BUILD)/man
	$(call man_gen,$(BUILD)/man)

# The unit names its binary and its doc by their /usr/local paths;
# install puts the real ones in, and checks that it did.
install: $(INSTALL_BINS) $(INSTALL_LIBS) $(INSTALL_HEADERS) $(INSTALL_DOCS) \
		libgsp/lib/libgsp.pc.in gspaced/gspaced.service \
		gspaced/gspaced.conf.example $(UDEV_RULES) $(SYSUSERS_CONF) \
		$(MAN_SRCS) tools/install.sh
	@rm -rf $(INSTALL_STAGE)
	@mkdir -p $(INSTALL_STAGE)
	$(call man_gen,$(INSTALL_STAGE)/man)
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
	   echo "file 644 $(SYSUSERS_CONF) $(SYSUSERSDIR)/gspace.conf"; \
	   echo "file 644 $(UDEV_RULES) $(UDEVRULESDIR)/$(notdir $(UDEV_RULES))"; \
	   for f in $(MAN_NAMES); do \
		echo "file 644 $(INSTALL_STAGE)/man/$$f $(MANDIR)/man$${f##*.}/$$f"; done; \
	   for f in $(INSTALL_DOCS); do \
		echo "file 644 $$f $(DOCDIR)/$${f##*/}"; done; \
	   echo "group gspace $(SYSUSERSDIR)/gspace.conf"; \
	   echo "udev gspace"; \
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

# dkms-src: a fresh folder each time, so that it holds what DKMS_FILES
# names now and nothing else.
dkms-src: $(DKMS_FILES) packaging/dkms.conf.in
	@rm -rf $(DKMS_STAGE)
	@for f in $(DKMS_FILES); do \
		mkdir -p $(DKMS_STAGE)/$$(dirname $$f) && \
		cp $$f $(DKMS_STAGE)/$$f || exit 1; \
	done
	@sed 's|@VERSION@|$(VERSION)|g' packaging/dkms.conf.in \
		>$(DKMS_STAGE)/dkms.conf
	@echo "dkms-src: $(DKMS_STAGE)"

dkms-install: dkms-src tools/install.sh
	@{ for f in $(DKMS_FILES) dkms.conf; do \
		echo "file 644 $(DKMS_STAGE)/$$f $(DKMS_SRCDIR)/$$f"; done; \
	   echo "dkms gspace $(VERSION)"; \
	 } >$(BUILD)/dkms/spec
	@DESTDIR='$(DESTDIR)' tools/install.sh install '$(DKMS_MANIFEST)' \
		<$(BUILD)/dkms/spec

dkms-uninstall:
	@DESTDIR='$(DESTDIR)' tools/install.sh uninstall '$(DKMS_MANIFEST)'
