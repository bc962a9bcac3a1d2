# SPDX-License-Identifier: GPL-2.0
#
# gspace top-level Makefile. The kernel module is built by kbuild (see
# Kbuild); everything else is userspace, built into $(BUILD).
#
#   make            userspace tools, then the module; what needs a tool
#                   that is missing (nvcc, cuda.h, the running kernel's
#                   headers) is skipped with one line saying what to
#                   install
#   make user       the userspace tools only (the same skips)
#   make module     gspace.ko for the running kernel, or KVER=, or KDIR=
#   make install    PREFIX, DESTDIR and the *DIR variables (mk/install.mk)
#   make uninstall  removes what install wrote, from its manifest
#   make check      unit tests, then selftests of the module in a QEMU VM
#   make run        the demo scenario in a QEMU VM, sim engine
#
# Suites plug in through the *.mk fragments included below; each one adds
# its name to CHECK_SUITES, and make check-<name> prints its TAP lines
# (numbered or not). tools/check.sh runs them all through
# tests/tap-renumber.sh, which numbers each suite's lines as one stream.

BUILD ?= build

# The kernel gspace.ko is built for: KVER (default: the running kernel)
# and its build tree KDIR (default: /lib/modules/$(KVER)/build, found by
# tools/find-kdir.sh). Never another kernel's headers in their place:
# with none for KVER, make module fails saying what to install, and make
# skips the module. KDIR is looked up once, and only by the targets that
# use it.
KVER ?=
KDIR ?= $(eval KDIR := $(shell tools/find-kdir.sh $(KVER) 2>/dev/null))$(KDIR)

CC ?= cc
USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -Wshadow \
	-Wstrict-prototypes -Wmissing-prototypes -Iuapi -Ikmod/core
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
CORE_SRCS := $(wildcard kmod/core/*.c)

# Objects. Each C source is compiled once per flavour, and the object is
# linked into every program that uses it:
#   $(call objs,plain,SRCS)  USER_CFLAGS
#   $(call objs,san,SRCS)    and ASan/UBSan, for the tests
#   $(call objs,pic,SRCS)    for the shared libraries: -fPIC, and every
#                            symbol hidden but those marked otherwise
# Include paths beyond USER_CFLAGS are per source folder: CFLAGS_<folder>,
# set by the fragment that builds the folder. -MMD -MP (DEPFLAGS) records
# the headers of each object and program; the .d files under $(BUILD) are
# read at the end of this file.
OBJ := $(BUILD)/obj
DEPFLAGS := -MMD -MP
objs = $(patsubst %.c,$(OBJ)/$(1)/%.o,$(2))

$(OBJ)/plain/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(CFLAGS_$(<D)) $(DEPFLAGS) -c -o $@ $<

$(OBJ)/san/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) $(CFLAGS_$(<D)) $(DEPFLAGS) -c -o $@ $<

$(OBJ)/pic/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fPIC -fvisibility=hidden $(CFLAGS_$(<D)) \
		$(DEPFLAGS) -c -o $@ $<

# Objects that only pattern rules name are kept, not deleted as
# intermediate files.
.SECONDARY:

CHECK_SUITES :=

.PHONY: all module module-or-skip user check run deps clean style
all: user module-or-skip

# An explicit KDIR is used as given, with a note when it is not for the
# running kernel (the VM's build, mk/vm.mk, is one).
module:
	@if [ -z '$(KDIR)' ]; then \
		echo "make module: $$(tools/find-kdir.sh $(KVER) 2>&1 >/dev/null)" >&2; \
		exit 1; \
	fi
	@if [ ! -f '$(KDIR)/Makefile' ]; then \
		echo "make module: KDIR=$(KDIR) is not a kernel build tree (it has no Makefile)" >&2; \
		exit 1; \
	fi
	@rel=$$(tools/find-kdir.sh --release '$(KDIR)') || rel=; \
	run=$$(uname -r); \
	if [ "$$rel" != "$$run" ]; then \
		echo "make module: building gspace.ko for $${rel:-the kernel of $(KDIR)}, not for the running kernel $$run" >&2; \
	fi
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

# make's module: built where the headers are, else skipped in one line;
# after the userspace, so that the line comes last.
module-or-skip: | user
	@if [ -n '$(KDIR)' ]; then \
		$(MAKE) --no-print-directory module; \
	else \
		echo "skipped: gspace.ko: $$(tools/find-kdir.sh $(KVER) 2>&1 >/dev/null)"; \
	fi

deps:
	@tools/install-deps.sh

# The fragments, in the order of what they use: a fragment names only
# variables of those above it, and this is also the order in which make
# check runs their suites (the VM last).
include mk/version.mk		# VERSION, what --version prints
include mk/cuda.mk		# CUDA_HOME, nvcc, the GPU architecture
include mk/core.mk		# kmod/core in userspace: tests, gsp-sim
include mk/libgsp.mk		# libgsp.so, gspctl
include mk/daemon.mk		# gspaced
include mk/preload.mk		# libgsp_preload.so, gsp-run
include mk/drmshim.mk		# libgsp_drmshim.so, the DRM submit shim
include mk/xform.mk		# gsp-xform
include mk/psim.mk		# gsp-psim
include mk/search.mk		# the partition search, simulated
include mk/admit.mk		# admission by prediction (Prophet)
include mk/trace.mk		# libgsp_trace.so, the CUPTI task tracer
include mk/plan.mk		# the STM planner (Liang et al.), pure C
include mk/selftests.mk		# the module's selftests
include mk/kernels.mk		# gsp-wl, gsp-bench
include mk/gpu.mk		# the GPU experiment's programs
include mk/docs.mk		# README figures, kernel-doc
include mk/style.mk		# checkpatch
include mk/install.mk		# make install, make uninstall
include mk/ship.mk		# make, install and --version as operators use them
include mk/deb.mk		# the Debian packages (debian/), built and installed
include mk/deploy.mk		# the Kubernetes manifests, checked without a cluster
include mk/vm.mk		# make check's VM, make run

# What needs nvcc or cuda.h is built when they are here (mk/cuda.mk),
# else skipped with one line each; named alone, it fails with that line.
$(NVCC_TARGETS): | need-nvcc
$(CUDA_H_TARGETS): | need-cuda-h
user: $(USER_TARGETS) $(if $(HAVE_NVCC),$(NVCC_TARGETS)) \
		$(if $(HAVE_CUDA_H),$(CUDA_H_TARGETS))
	@$(if $(HAVE_NVCC),:,echo "skipped: $(notdir $(NVCC_TARGETS)): $(NVCC_WHY)")
	@$(if $(HAVE_CUDA_H),:,echo "skipped: $(notdir $(CUDA_H_TARGETS)): $(CUDA_H_WHY)")
	@$(if $(HAVE_LIBDRM),:,echo "skipped: $(notdir $(DRMSHIM_SO)): no libdrm (pkg-config libdrm); tools/install-deps.sh installs libdrm-dev")

check: deps
	@tools/check.sh $(CHECK_SUITES)

# Without a kernel build tree, kbuild's outputs are removed by name (on
# a line of its own: make -n runs every line that names $(MAKE)).
clean:
	$(if $(KDIR),-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null)
	$(if $(KDIR),,rm -f gspace.ko gspace.mod gspace.mod.c gspace.mod.o \
		gspace.o Module.symvers modules.order .*.cmd kmod/*.o \
		kmod/.*.cmd kmod/core/*.o kmod/core/.*.cmd)
	rm -rf $(BUILD)

style: check-style

# Files only: a DESTDIR under $(BUILD) (make check-ship's) has folders
# such as udev's rules.d; and none of the Debian chroot of make check-deb
# (its invoke-rc.d is no make file).
-include $(shell find $(BUILD) -path '$(BUILD)/tests/deb' -prune -o \
	-type f -name '*.d' -print 2>/dev/null)
