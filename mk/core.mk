# SPDX-License-Identifier: GPL-2.0
#
# The scheduling core (kmod/core) in userspace: unit, property and
# simulation tests, a libFuzzer harness, the gsp-sim simulator and the
# decision-cost benchmark.
#
#   make check-core     sanitized tests + a bounded fuzz run, TAP only
#   make bench-core     decision cost vs tenant count, CSV in
#                       bench/results/core-decision/
#   make $(BUILD)/gsp-sim

CORE_TEST_DIR := $(BUILD)/tests/core
SIM_SRCS := libgsp/sim/sim.c libgsp/sim/scenario.c
SIM_HDRS := libgsp/sim/sim.h
CORE_TESTS := $(basename $(notdir $(wildcard tests/core/test_*.c)))
CORE_TEST_BINS := $(addprefix $(CORE_TEST_DIR)/,$(CORE_TESTS))
CORE_FUZZ_BIN := $(CORE_TEST_DIR)/fuzz_core
CORE_FUZZ_SECONDS ?= 30
FUZZ_CC ?= clang

USER_TARGETS += $(BUILD)/gsp-sim
CHECK_SUITES += core

.PHONY: check-core bench-core

$(BUILD)/gsp-sim: libgsp/sim/gsp-sim.c $(SIM_SRCS) $(SIM_HDRS) \
		$(CORE_SRCS) $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Ilibgsp/sim -o $@ $< $(SIM_SRCS) $(CORE_SRCS) -lm

$(CORE_TEST_DIR)/%: tests/core/%.c tests/tap.h $(SIM_SRCS) $(SIM_HDRS) \
		$(CORE_SRCS) $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(SAN_FLAGS) -Ilibgsp/sim -Itests -o $@ $< \
		$(SIM_SRCS) $(CORE_SRCS) -lm

$(CORE_FUZZ_BIN): tests/core/fuzz_core.c tests/core/core_ops.h $(CORE_SRCS) $(CORE_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(filter-out -O2,$(USER_CFLAGS)) -O1 -Itests \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-o $@ $< $(CORE_SRCS)

$(CORE_TEST_DIR)/test_prop: tests/core/core_ops.h

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

$(BUILD)/bench-core: tests/core/bench_core.c $(CORE_SRCS) $(CORE_HDRS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< $(CORE_SRCS)

bench-core: $(BUILD)/bench-core
	@mkdir -p bench/results/core-decision
	$(BUILD)/bench-core > bench/results/core-decision/decision.csv
	@{ echo "command: make bench-core"; \
	   echo "cpu: $$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1)"; \
	   echo "cpus: $$(nproc)"; \
	   echo "kernel: $$(uname -sr)"; \
	   echo "compiler: $$($(CC) --version | head -n 1)"; \
	   echo "cflags: $(USER_CFLAGS)"; \
	   echo "date: $$(date -u +%Y-%m-%d)"; \
	 } > bench/results/core-decision/env.txt
