# SPDX-License-Identifier: GPL-2.0
#
# libgsp.so (the client library), gspctl and their tests.
#
#   $(LIBGSP_SO)        libgsp.so.1.2, soname libgsp.so.1, exports exactly
#                       the gsp_* functions of gsp.h (libgsp/lib/libgsp.map);
#                       its drm engine path links libdrm, and without
#                       libdrm-dev its gsp_drm_* calls answer -EOPNOTSUPP
#   $(GSPCTL)           status, top and knobs of the arbiter
#   make check-libgsp   tests/libgsp/run.sh, TAP only
#
# Fragments add their files to `make install` (mk/install.mk) through
# INSTALL_BINS (to $(BINDIR)), INSTALL_LIBS (to $(LIBDIR)) and
# INSTALL_HEADERS (to $(INCLUDEDIR)). See Documentation/libgsp.rst.

LIBGSP_OUT := $(BUILD)/lib
LIBGSP_VERSION := 1.2
LIBGSP_SONAME := libgsp.so.1
LIBGSP_SO := $(LIBGSP_OUT)/libgsp.so.$(LIBGSP_VERSION)
LIBGSP_MAP := libgsp/lib/libgsp.map
# The wire protocol (libgsp/proto): gspd_proto.c holds what both ends
# use, gspaced included; GSPD_CLIENT is a client's side of it.
GSPD_PROTO := libgsp/proto/gspd_proto.c
GSPD_CLIENT := libgsp/proto/gspd_client.c $(GSPD_PROTO)
LIBGSP_SRCS := libgsp/lib/gsp.c $(GSPD_CLIENT)
# The drm engine's path, apart: gspctl and gsp-run, built from
# LIBGSP_SRCS, need no libdrm. Debian's libdrm-dev has the headers in
# /usr/include/libdrm, and libdrm.a for the static selftests.
LIBGSP_DRM_SRCS := libgsp/lib/gsp_drm.c
LIBDRM_CFLAGS := $(or $(shell pkg-config --cflags libdrm 2>/dev/null),-I/usr/include/libdrm)
LIBDRM_LIBS := -ldrm
HAVE_LIBDRM := $(shell pkg-config --exists libdrm 2>/dev/null && echo 1)
# libgsp.so itself builds anywhere: a host without libdrm-dev (a GPU host
# that cannot install packages) gets the same ABI with the drm calls
# answering -EOPNOTSUPP (gsp_drm_off.c). What tests the drm path needs
# libdrm (need-libdrm, below).
LIBGSP_SO_DRM := $(if $(HAVE_LIBDRM),$(LIBGSP_DRM_SRCS),libgsp/lib/gsp_drm_off.c)
CFLAGS_libgsp/lib := -Ilibgsp/include -Ilibgsp/proto -pthread $(LIBDRM_CFLAGS)
CFLAGS_libgsp/proto := -Ilibgsp/include
CFLAGS_tests/libgsp := -Ilibgsp/include -Ilibgsp/proto -Ilibgsp/lib -Itests \
	-pthread $(LIBDRM_CFLAGS)
# libgsp/tools: each fragment adds what its tool includes.
CFLAGS_libgsp/tools += -Ilibgsp/include -Ilibgsp/proto -Ilibgsp/lib -pthread
GSPCTL := $(BUILD)/gspctl
# gspctl's knob list is the core's table (kmod/core/gsp_knobs.h); its
# predict and admit commands are the predictor's (mk/admit.mk).
GSPCTL_CORE := kmod/core/gsp_knobs.c
GSPCTL_ADMIT := libgsp/tools/gspctl_admit.c libgsp/admit/trace.c libgsp/csv/csv.c \
	libgsp/admit/prophet.c
LIBGSP_TEST_DIR := $(BUILD)/tests/libgsp
# The daemon the end-to-end test starts (mk/daemon.mk).
GSPACED := $(BUILD)/gspaced

USER_TARGETS += $(LIBGSP_SO) $(GSPCTL)
CHECK_SUITES += libgsp

.PHONY: check-libgsp install libgsp

# The library by a name that does not change with its version (the
# bench scripts build it so).
libgsp: $(LIBGSP_SO)

$(LIBGSP_SO): $(call objs,pic,$(LIBGSP_SRCS) $(LIBGSP_SO_DRM)) $(LIBGSP_MAP)
	@mkdir -p $(@D)
	@$(if $(HAVE_LIBDRM),:,echo "libgsp: built without libdrm (no pkg-config libdrm): its gsp_drm_* calls answer EOPNOTSUPP; tools/install-deps.sh installs libdrm-dev")
	$(CC) -pthread -shared -Wl,-soname,$(LIBGSP_SONAME) \
		-Wl,--version-script=$(LIBGSP_MAP) -Wl,-z,defs -o $@ \
		$(filter %.o,$^) $(if $(HAVE_LIBDRM),$(LIBDRM_LIBS))
	ln -sf $(notdir $@) $(@D)/$(LIBGSP_SONAME)
	ln -sf $(LIBGSP_SONAME) $(@D)/libgsp.so

# gspctl is built from libgsp's objects, not against libgsp.so: it needs
# the daemon's control requests (gspd_ctl_*), which the library hides.
GSPCTL_SRCS := libgsp/tools/gspctl.c libgsp/tools/gspctl_status.c \
	libgsp/tools/gspctl_json.c libgsp/tools/gspctl_metrics.c \
	libgsp/tools/gspctl_mps.c
$(GSPCTL): $(call objs,plain,$(GSPCTL_SRCS) $(LIBGSP_SRCS) $(GSPCTL_CORE) \
		$(GSPCTL_ADMIT))
	$(CC) -pthread -o $@ $^ -lm

# The tests: sanitized builds of the same sources.
$(LIBGSP_TEST_DIR)/%: $(call objs,san,tests/libgsp/%.c $(LIBGSP_SRCS) \
		$(LIBGSP_DRM_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -pthread -o $@ $^ $(LIBDRM_LIBS)

$(LIBGSP_TEST_DIR)/gspctl: $(call objs,san,$(GSPCTL_SRCS) $(LIBGSP_SRCS) \
		$(GSPCTL_CORE) $(GSPCTL_ADMIT))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -pthread -o $@ $^ -lm

LIBGSP_TESTS := $(LIBGSP_TEST_DIR)/test_api $(LIBGSP_TEST_DIR)/test_e2e \
	$(LIBGSP_TEST_DIR)/test_board $(LIBGSP_TEST_DIR)/test_drm \
	$(LIBGSP_TEST_DIR)/gspctl

check-libgsp: $(LIBGSP_TESTS) $(LIBGSP_SO) $(GSPCTL) $(GSPACED)
	@BUILD=$(BUILD) CC="$(CC)" SAN_FLAGS="$(SAN_FLAGS)" GSPACED=$(GSPACED) \
		tests/libgsp/run.sh

# make install (mk/install.mk) installs these, with what other fragments
# add to the lists.
INSTALL_BINS += $(GSPCTL)
INSTALL_LIBS += $(LIBGSP_SO)
INSTALL_HEADERS += libgsp/include/gsp.h libgsp/include/gsp_board.h \
	uapi/gspace.h

# What includes libdrm's headers fails, without them, with one line
# saying what to install.
.PHONY: need-libdrm
need-libdrm:
	@$(if $(HAVE_LIBDRM),:,echo "libdrm not found (pkg-config libdrm): install Debian's libdrm-dev (tools/install-deps.sh)" >&2; exit 1)
$(foreach f,plain san pic,$(call objs,$(f),$(LIBGSP_DRM_SRCS))): | need-libdrm
