# SPDX-License-Identifier: GPL-2.0
#
# The scheduling core (kmod/core) in userspace: unit, property and
# simulation tests, a libFuzzer harness, the gsp-sim simulator and the
# decision-cost benchmark.
#
#   make check-core     sanitized tests + a bounded fuzz run, TAP only
#   make bench-core     decision cost vs tenant count and CuMAS solve
#                       cost, CSV in CORE_BENCH_DIR
#   make $(BUILD)/gsp-sim

CORE_TEST_DIR := $(BUILD)/tests/core
SIM_SRCS := libgsp/sim/sim.c libgsp/sim/scenario.c
CORE_TESTS := $(basename $(notdir $(wildcard tests/core/test_*.c)))
CORE_TEST_BINS := $(addprefix $(CORE_TEST_DIR)/,$(CORE_TESTS))
CORE_FUZZ_BIN := $(CORE_TEST_DIR)/fuzz_core
CORE_FUZZ_SECONDS ?= 30
CORE_BENCH_DIR ?= bench/results/core-decision
FUZZ_CC ?= clang
# libgsp/sim also holds gsp-psim (mk/psim.mk), which includes these.
CFLAGS_libgsp/sim := -Ilibgsp/include -Ilibgsp/preload
CFLAGS_tests/core := -Ilibgsp/sim -Itests

USER_TARGETS += $(BUILD)/gsp-sim
CHECK_SUITES += core

.PHONY: check-core bench-core

$(BUILD)/gsp-sim: $(call objs,plain,libgsp/sim/gsp-sim.c $(SIM_SRCS) $(CORE_SRCS))
	$(CC) -o $@ $^ -lm

$(CORE_TEST_DIR)/%: $(call objs,san,tests/core/%.c $(SIM_SRCS) $(CORE_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm

# libFuzzer's build is its own (clang, -O1, -fsanitize=fuzzer), in one
# command, so its headers are listed here rather than recorded.
$(CORE_FUZZ_BIN): tests/core/fuzz_core.c tests/core/core_ops.h $(CORE_SRCS) \
		$(wildcard kmod/core/*.h)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(filter-out -O2,$(USER_CFLAGS)) -O1 -Itests \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ $< $(CORE_SRCS)

check-core: $(CORE_TEST_BINS) $(if $(wildcard tests/core/fuzz_core.c),$(CORE_FUZZ_BIN))
	@for t in $(CORE_TEST_BINS); do \
		$$t || echo "not ok - $$(basename $$t) exited with status $$?"; \
	done
	@test -x $(CORE_FUZZ_BIN) || exit 0; \
	mkdir -p $(CORE_TEST_DIR)/fuzz-corpus; \
	if $(CORE_FUZZ_BIN) -max_total_time=$(CORE_FUZZ_SECONDS) -seed=1 \
		$(CORE_TEST_DIR)/fuzz-corpus \
		>$(CORE_TEST_DIR)/fuzz.log 2>&1; then \
		echo "ok 1 - libFuzzer over the core API for $(CORE_FUZZ_SECONDS) s: $$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' $(CORE_TEST_DIR)/fuzz.log) inputs, no invariant broken"; \
	else \
		echo "not ok 1 - libFuzzer over the core API: see $(CORE_TEST_DIR)/fuzz.log"; \
	fi; \
	echo "1..1"

$(BUILD)/bench-core: $(call objs,plain,tests/core/bench_core.c $(CORE_SRCS))
	$(CC) -o $@ $^

bench-core: $(BUILD)/bench-core
	@mkdir -p $(CORE_BENCH_DIR)
	$(BUILD)/bench-core > $(CORE_BENCH_DIR)/decision.csv
	$(BUILD)/bench-core --solver > $(CORE_BENCH_DIR)/cumas-solve.csv
	@{ echo "command: make bench-core CORE_BENCH_DIR=$(CORE_BENCH_DIR)"; \
	   echo "cpu: $$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"; \
	   echo "cpus: $$(nproc)"; \
	   echo "kernel: $$(uname -sr)"; \
	   echo "compiler: $$($(CC) --version | head -n 1)"; \
	   echo "cflags: $(USER_CFLAGS)"; \
	   echo "date: $$(date -u +%Y-%m-%d)"; \
	 } > $(CORE_BENCH_DIR)/env.txt
