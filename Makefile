# SPDX-License-Identifier: GPL-2.0
#
# gspace top-level Makefile. The kernel module is built by kbuild (see
# Kbuild); everything else is userspace, built into $(BUILD).
#
#   make            module and userspace tools
#   make check      unit tests, then selftests of the module in a QEMU VM
#   make run        the demo scenario in a QEMU VM, sim engine
#
# Suites plug in through the *.mk fragments included below; each one adds
# its name to CHECK_SUITES, and make check-<name> prints its TAP lines
# (numbered or not). tools/check.sh runs them all through
# tests/tap-renumber.sh, which numbers each suite's lines as one stream.

BUILD ?= build
KDIR ?= $(shell tools/find-kdir.sh)

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

.PHONY: all module user check run deps clean style
all: module user

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

deps:
	@tools/install-deps.sh

# The fragments, in the order of what they use: a fragment names only
# variables of those above it, and this is also the order in which make
# check runs their suites (the VM last).
include mk/version.mk		# VERSION, what --version prints
include mk/cuda.mk		# CUDA_HOME, nvcc, the GPU architecture
include mk/core.mk		# kmod/core in userspace: tests, gsp-sim
include mk/libgsp.mk		# libgsp.so, gspctl, make install
include mk/daemon.mk		# gspaced
include mk/preload.mk		# libgsp_preload.so, gsp-run
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
include mk/vm.mk		# make check's VM, make run

user: $(USER_TARGETS)

check: deps
	@tools/check.sh $(CHECK_SUITES)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean 2>/dev/null
	rm -rf $(BUILD)

style: check-style

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
