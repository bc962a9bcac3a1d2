# SPDX-License-Identifier: GPL-2.0
#
# libgsp_preload.so (the CUDA interposer), gsp-run, and their tests
# against a fake libcuda. Built against cuda.h only: libcuda is resolved
# at run time, so nothing here needs a GPU or links the driver.
#
#   $(PRELOAD_SO)        the interposer, next to libgsp.so.1 in $(BUILD)/lib
#   $(GSP_RUN)           runs a program with it
#   make check-preload   tests/preload/run.sh, TAP only (with nvcc, it also
#                        parses fatbins nvcc makes); test_predict: the
#                        arrival forecast of protect predictive, alone
#   make bench-preload   tests/preload/bench.sh: per-launch host time and
#                        BE throughput against the fake libcuda (no GPU)

PRELOAD_SO := $(BUILD)/lib/libgsp_preload.so
GSP_RUN := $(BUILD)/gsp-run
# The PTX transformer is linked in, hidden like everything but the hooks.
PRELOAD_SRCS := $(wildcard libgsp/preload/*.c) libgsp/xform/ptx.c libgsp/xform/flow.c \
	libgsp/xform/xform.c libgsp/xform/vars.c libgsp/xform/names.c \
	libgsp/xform/parts.c libgsp/xform/funcs.c libgsp/search/search.c \
	libgsp/search/agent.c libgsp/search/boundary.c
CFLAGS_libgsp/preload := -Ilibgsp/include $(CUDA_INC) -Ilibgsp/xform \
	-Ilibgsp/search -pthread
# test_fatbin and test_predict, built from objects (the others below are
# one source each).
CFLAGS_tests/preload := -Ilibgsp/include -Ilibgsp/preload -Itests
PRELOAD_CFLAGS := $(USER_CFLAGS) $(CFLAGS_libgsp/preload) $(DEPFLAGS)
PRELOAD_TEST_DIR := $(BUILD)/tests/preload
# The fakes implement exported driver and libgsp symbols that have no
# prototype in any header (the _ptsz variants), hence no
# -Wmissing-prototypes for them.
PRELOAD_FAKE_CFLAGS := $(PRELOAD_CFLAGS) -Wno-missing-prototypes \
	-Itests/preload -fPIC -shared -fvisibility=hidden

USER_TARGETS += $(GSP_RUN)
CUDA_H_TARGETS += $(PRELOAD_SO)
INSTALL_BINS += $(GSP_RUN)
INSTALL_LIBS += $(if $(HAVE_CUDA_H),$(PRELOAD_SO))
CHECK_SUITES += preload

.PHONY: check-preload bench-preload

# Not sanitized: an LD_PRELOAD'ed library cannot bring ASan into a
# program that was not built with it. The tests run it under a
# UBSan-built program instead (see Documentation/interposer.rst).
$(PRELOAD_SO): $(call objs,pic,$(PRELOAD_SRCS))
	@mkdir -p $(@D)
	$(CC) -pthread -shared -Wl,-z,defs -o $@ $^ -ldl -lm

# Its objects include cuda.h: without it, one clear line (mk/cuda.mk).
$(call objs,pic,$(filter libgsp/preload/%,$(PRELOAD_SRCS))): | need-cuda-h

# libgsp, to find the arbiter before the program starts (and Prophet's
# predictor, for --admit: mk/admit.mk adds its objects)
$(GSP_RUN): libgsp/tools/gsp-run.c $(call objs,plain,$(LIBGSP_SRCS)) \
		$(VERSION_H)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(DEPFLAGS) -Ilibgsp/include -Ilibgsp/admit \
		-Ilibgsp/proto -Ilibgsp/lib \
		$(VERSION_CFLAGS) -pthread -o $@ $< \
		$(filter %.o,$^) -lm

$(PRELOAD_TEST_DIR)/cuda/libcuda.so.1: tests/preload/fake_cuda.c \
		tests/preload/fake_fault.c tests/preload/fake_cuda.h
	@mkdir -p $(@D)
	$(CC) $(PRELOAD_FAKE_CFLAGS) -Wl,-soname,libcuda.so.1 -o $@ \
		$(filter %.c,$^)

$(PRELOAD_TEST_DIR)/fake_gsp/libgsp.so.1: tests/preload/fake_gsp.c
	@mkdir -p $(@D)
	$(CC) $(PRELOAD_FAKE_CFLAGS) -Wl,-soname,libgsp.so.1 -o $@ $<

# The programs run against the fakes, linked with -lcuda (the fake) like
# a program that calls the driver directly; UBSan only (see above).
PRELOAD_FAKE_TESTS := $(addprefix $(PRELOAD_TEST_DIR)/,test_preload \
	test_protect test_modes test_lcprio test_faults test_arbiter \
	test_task_heads)
$(PRELOAD_FAKE_TESTS): $(PRELOAD_TEST_DIR)/%: tests/preload/%.c \
		$(PRELOAD_TEST_DIR)/cuda/libcuda.so.1
	@mkdir -p $(@D)
	$(CC) $(PRELOAD_CFLAGS) -fsanitize=undefined -fno-sanitize-recover=all \
		-Itests -Itests/preload -o $@ $< \
		-L$(PRELOAD_TEST_DIR)/cuda -l:libcuda.so.1 -ldl

# fatbin.c alone, under ASan and UBSan (the interposer itself cannot be).
$(PRELOAD_TEST_DIR)/test_fatbin: $(call objs,san,tests/preload/test_fatbin.c \
		libgsp/preload/fatbin.c)
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -ldl -pthread

# predict.c alone (pure C, no CUDA), under ASan and UBSan.
$(PRELOAD_TEST_DIR)/test_predict: $(call objs,san,tests/preload/test_predict.c \
		libgsp/preload/predict.c)
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm

check-preload: $(PRELOAD_SO) $(GSP_RUN) $(PRELOAD_FAKE_TESTS) \
		$(PRELOAD_TEST_DIR)/fake_gsp/libgsp.so.1 \
		$(PRELOAD_TEST_DIR)/test_fatbin $(PRELOAD_TEST_DIR)/test_predict \
		$(GSPACED) $(LIBGSP_SO)
	@BUILD=$(BUILD) $(CUDA_ENV) tests/preload/run.sh

bench-preload: $(PRELOAD_SO) $(PRELOAD_TEST_DIR)/test_preload $(BUILD)/gspaced \
		$(LIBGSP_SO)
	@BUILD=$(BUILD) tests/preload/bench.sh
