# SPDX-License-Identifier: GPL-2.0
#
# Liang et al.'s spatial-temporal multitasking planner (libgsp/plan, STM:
# Documentation/plan.rst), pure C, tested alone on synthetic profiles.
# No GPU, no CUDA; bench/gpu/stm.cu links the same source.
#
#   make check-plan   test_stm under ASan and UBSan, TAP only (120 s,
#                     then not ok)

PLAN_SRCS := libgsp/plan/stm.c
CFLAGS_tests/plan := -Ilibgsp/plan -Itests
PLAN_TEST_DIR := $(BUILD)/tests/plan

CHECK_SUITES += plan

.PHONY: check-plan

$(PLAN_TEST_DIR)/test_stm: $(call objs,san,tests/plan/test_stm.c $(PLAN_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm

check-plan: $(PLAN_TEST_DIR)/test_stm
	@timeout 120 $(PLAN_TEST_DIR)/test_stm || \
		echo "not ok - test_stm exited with status $$?"
