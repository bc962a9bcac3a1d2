# SPDX-License-Identifier: GPL-2.0
#
# Benchmark kernels (kernels/), their runner gsp-wl, and gsp-bench
# (libgsp/bench/). Needs nvcc (mk/cuda.mk); no GPU is needed to build:
# gsp-wl links against the libcuda stub.
#
#   make $(BUILD)/gsp-wl $(BUILD)/gsp-bench
#   make check-kernels   TAP: every .cu compiles for CUDA_SM, the CPU
#                        references (ASan/UBSan), the scenario parser,
#                        gsp-bench's dry run and a run against simulated
#                        tools (tests/bench/test_bench.sh, ASan/UBSan)

# KERN_ARCH: gsp-wl's nvcc architecture flags; bench/gpu/green-check.sh
# builds a SASS-only gsp-wl with it.
KERN_ARCH ?= $(CUDA_ARCH)
KERN_NVCCFLAGS := $(KERN_ARCH) -O2 -std=c++17 -Ikernels $(NVCC_WERROR)
KERN_CU := $(wildcard kernels/*.cu)
KERN_HDRS := $(wildcard kernels/*.h kernels/*.cuh kernels/ref/*.h)
KERN_OBJS := $(patsubst kernels/%.cu,$(BUILD)/kernels/%.o,$(KERN_CU))
BENCH_SRCS := libgsp/bench/gsp-bench.c libgsp/bench/scn.c libgsp/bench/svg.c
BENCH_HDRS := $(wildcard libgsp/bench/*.h)

$(BUILD)/kernels/%.o: kernels/%.cu $(KERN_HDRS)
	@mkdir -p $(@D)
	$(NVCC) $(KERN_NVCCFLAGS) -c $< -o $@

$(BUILD)/kernels/ref.o: kernels/ref/ref.c kernels/ref/ref.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Ikernels -c $< -o $@

$(BUILD)/gsp-wl: $(KERN_OBJS) $(BUILD)/kernels/ref.o
	$(NVCC) $(KERN_ARCH) -o $@ $^ $(CUDA_STUBS) -lpthread

$(BUILD)/gsp-bench: $(BENCH_SRCS) $(BENCH_HDRS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $(BENCH_SRCS) -lm -ldl

$(BUILD)/kernels/test_ref: tests/kernels/test_ref.c tests/tap.h kernels/ref/ref.c \
		kernels/ref/ref.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -Ikernels/ref -Itests -o $@ \
		tests/kernels/test_ref.c kernels/ref/ref.c -lm

$(BUILD)/kernels/test_scn: tests/bench/test_scn.c tests/tap.h libgsp/bench/scn.c \
		$(BENCH_HDRS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -Ilibgsp/bench -Itests -o $@ \
		tests/bench/test_scn.c libgsp/bench/scn.c

$(BUILD)/kernels/gsp-bench-san: $(BENCH_SRCS) $(BENCH_HDRS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -o $@ $(BENCH_SRCS) -lm -ldl

USER_TARGETS += $(BUILD)/gsp-wl $(BUILD)/gsp-bench
CHECK_SUITES += kernels

# Each .cu file is compiled (in parallel, -j) and reported as one TAP line;
# then the two unit-test programs and test_bench.sh print their own TAP
# lines (tools/check.sh numbers them all).
.PHONY: check-kernels
check-kernels:
	@mkdir -p $(BUILD)/kernels/ci
	@printf '%s\n' $(KERN_CU) | xargs -P $$(nproc) -I{} sh -c \
		'f={}; b=$$(basename $$f .cu); \
		 if $(NVCC) $(KERN_NVCCFLAGS) -c $$f -o $(BUILD)/kernels/ci/$$b.o \
			>$(BUILD)/kernels/ci/$$b.log 2>&1; \
		 then echo "ok - nvcc $(CUDA_SM) compiles $$f"; \
		 else echo "not ok - nvcc $(CUDA_SM) compiles $$f"; \
		      sed "s/^/# /" $(BUILD)/kernels/ci/$$b.log; fi' \
		> $(BUILD)/kernels/ci/compile.tap
	@sort -k2 $(BUILD)/kernels/ci/compile.tap | grep -v '^#' > $(BUILD)/kernels/ci/c.tap || true
	@grep '^#' $(BUILD)/kernels/ci/compile.tap || true
	@{ $(MAKE) --no-print-directory -s $(BUILD)/kernels/test_ref \
		$(BUILD)/kernels/test_scn $(BUILD)/kernels/gsp-bench-san >/dev/null 2>$(BUILD)/kernels/ci/build.log \
		&& echo "ok - unit tests build with ASan/UBSan" \
		|| { echo "not ok - unit tests build with ASan/UBSan"; \
		     sed 's/^/# /' $(BUILD)/kernels/ci/build.log; }; } > $(BUILD)/kernels/ci/b.tap
	@{ cat $(BUILD)/kernels/ci/c.tap $(BUILD)/kernels/ci/b.tap; \
	   $(BUILD)/kernels/test_ref 2>&1 | sed -n 's/^\(not ok\|ok\) [0-9]* - /\1 - ref: /p'; \
	   $(BUILD)/kernels/test_ref >/dev/null 2>&1 || echo "not ok - ref: test program exited with an error"; \
	   $(BUILD)/kernels/test_scn 2>&1 | sed -n 's/^\(not ok\|ok\) [0-9]* - /\1 - scenario: /p'; \
	   $(BUILD)/kernels/test_scn >/dev/null 2>&1 || echo "not ok - scenario: test program exited with an error"; \
	   tests/bench/test_bench.sh $(BUILD)/kernels/gsp-bench-san >$(BUILD)/kernels/ci/bench.tap 2>&1; \
	   rc=$$?; sed -n 's/^\(not ok\|ok\) [0-9]* - /\1 - gsp-bench: /p' $(BUILD)/kernels/ci/bench.tap; \
	   grep '^#' $(BUILD)/kernels/ci/bench.tap >&2; \
	   [ $$rc = 0 ] || echo "not ok - gsp-bench: test_bench.sh exited with an error"; \
	}
