# SPDX-License-Identifier: GPL-2.0
#
# Benchmark kernels (kernels/), their runner gsp-wl, and gsp-bench
# (bench/gsp-bench/). Needs nvcc (mk/cuda.mk); no GPU is needed to build:
# gsp-wl links against the toolkit's link-time libcuda.
#
#   make $(BUILD)/gsp-wl $(BUILD)/gsp-bench
#   make check-kernels   TAP: every .cu compiles for CUDA_SM, the CPU
#                        references (ASan/UBSan), each workload's
#                        registration (tests/kernels/test_wl_registry.sh:
#                        wl.h, gsp-wl's lists, stm's), the scenario parser,
#                        gsp-bench's dry run and a run against simulated
#                        tools (tests/bench/test_bench.sh, ASan/UBSan)

# KERN_ARCH: gsp-wl's nvcc architecture flags; bench/gpu/green-check.sh
# builds a SASS-only gsp-wl with it.
KERN_ARCH ?= $(CUDA_ARCH)
KERN_NVCCFLAGS := $(KERN_ARCH) -O2 -std=c++17 -Ikernels $(NVCC_WERROR)
KERN_CU := $(wildcard kernels/*.cu)
KERN_OBJS := $(patsubst kernels/%.cu,$(BUILD)/kernels/%.o,$(KERN_CU))
BENCH_SRCS := $(addprefix bench/gsp-bench/,gsp-bench.c scn.c svg.c)
CFLAGS_kernels/ref := -Ikernels
CFLAGS_tests/kernels := -Ikernels/ref -Itests
CFLAGS_tests/bench := -Ibench/gsp-bench -Itests

$(BUILD)/kernels/%.o: kernels/%.cu
	@mkdir -p $(@D)
	$(NVCC) $(KERN_NVCCFLAGS) $(DEPFLAGS) -c $< -o $@

$(BUILD)/gsp-wl: $(KERN_OBJS) $(call objs,plain,kernels/ref/ref.c)
	$(NVCC) $(KERN_ARCH) -o $@ $^ $(CUDA_LINK_LIBCUDA) -lpthread

$(BUILD)/gsp-bench: $(call objs,plain,$(BENCH_SRCS))
	$(CC) -o $@ $^ -lm -ldl

$(BUILD)/kernels/test_ref: $(call objs,san,tests/kernels/test_ref.c kernels/ref/ref.c)
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm

$(BUILD)/kernels/test_scn: $(call objs,san,tests/bench/test_scn.c bench/gsp-bench/scn.c)
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^

$(BUILD)/kernels/gsp-bench-san: $(call objs,san,$(BENCH_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm -ldl

USER_TARGETS += $(BUILD)/gsp-bench
NVCC_TARGETS += $(BUILD)/gsp-wl
$(KERN_OBJS): | need-nvcc
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
	   bash tests/kernels/test_wl_registry.sh 2>&1 || \
		echo "not ok - registry: test_wl_registry.sh exited with an error"; \
	   tests/bench/test_bench.sh $(BUILD)/kernels/gsp-bench-san >$(BUILD)/kernels/ci/bench.tap 2>&1; \
	   rc=$$?; sed -n 's/^\(not ok\|ok\) [0-9]* - /\1 - gsp-bench: /p' $(BUILD)/kernels/ci/bench.tap; \
	   grep '^#' $(BUILD)/kernels/ci/bench.tap >&2; \
	   [ $$rc = 0 ] || echo "not ok - gsp-bench: test_bench.sh exited with an error"; \
	}
