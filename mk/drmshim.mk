# SPDX-License-Identifier: GPL-2.0
#
# libgsp_drmshim.so: the LD_PRELOAD shim that sends a program's DRM
# submit ioctls through /dev/gspace (libgsp/drmshim/; Documentation/
# drm.rst, "The LD_PRELOAD shim"). It carries its own hidden copy of
# libgsp, exports ioctl() alone, and links libdrm.
#
#   $(DRMSHIM_SO)   next to libgsp.so.1 in $(BUILD)/lib; gsp-run --drm
#                   preloads it
#   make check-drm  tests/drm/run.sh, TAP only: gsp-run --drm, the shim's
#                   exports, tools/drm/nouveau-check.sh's command line and
#                   preconditions (no DRM driver needed)
#
# The shim's own test runs in the VM (selftests/gspace_drmshim_test.c).

DRMSHIM_SO := $(BUILD)/lib/libgsp_drmshim.so
DRMSHIM_SRCS := $(wildcard libgsp/drmshim/*.c)
DRMSHIM_MAP := libgsp/drmshim/drmshim.map
CFLAGS_libgsp/drmshim := -Ilibgsp/include -pthread $(LIBDRM_CFLAGS)

# Without libdrm-dev `make user` skips it, saying so, as it skips the
# CUDA programs without nvcc.
USER_TARGETS += $(if $(HAVE_LIBDRM),$(DRMSHIM_SO))
INSTALL_LIBS += $(if $(HAVE_LIBDRM),$(DRMSHIM_SO))
CHECK_SUITES += drm

.PHONY: check-drm
check-drm: $(DRMSHIM_SO) $(GSP_RUN)
	@BUILD=$(BUILD) tests/drm/run.sh

$(DRMSHIM_SO): $(call objs,pic,$(DRMSHIM_SRCS) $(LIBGSP_SRCS) \
		$(LIBGSP_DRM_SRCS)) $(DRMSHIM_MAP)
	@mkdir -p $(@D)
	$(CC) -pthread -shared -Wl,--version-script=$(DRMSHIM_MAP) \
		-Wl,-z,defs -o $@ $(filter %.o,$^) $(LIBDRM_LIBS) -ldl
