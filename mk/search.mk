# SPDX-License-Identifier: GPL-2.0
#
# The online partition search (libgsp/search: NS, GNS, SRS and their NN_
# hybrids), pure C, tested alone against simulated response surfaces.
# No GPU, no CUDA.
#
#   make check-search   test_search, test_rules, test_select,
#                       test_select_csv, test_agent, test_boundary (where
#                       an LC request ends) and test_replay (the
#                       agent on the H200's measured surfaces) under
#                       ASan and UBSan, and
#                       gsp-select on a fixture with a known answer,
#                       TAP only (a search that cycles hangs: 120 s, then
#                       not ok)
#   make $(BUILD)/gsp-select   the initial selection on measured tables
#                       (libgsp/tools/gsp-select.c)

SEARCH_SRCS := libgsp/search/search.c libgsp/search/select.c libgsp/search/agent.c \
	libgsp/search/boundary.c
SELECT_SRCS := libgsp/tools/gsp-select.c libgsp/search/select_csv.c libgsp/csv/csv.c \
	$(SEARCH_SRCS)
CFLAGS_tests/search := -Ilibgsp/search -Ilibgsp/csv -Itests
CFLAGS_libgsp/search := -Ilibgsp/csv
CFLAGS_libgsp/tools += -Ilibgsp/search
SEARCH_TEST_DIR := $(BUILD)/tests/search
# A set of 8 micro-benchmarks on a grid of 4 cells and 3 real pairs,
# whose truth is linear (so LR is exact), and the answer
# (tests/search/fixtures/select/gen.py wrote both)
SELECT_FIX := tests/search/fixtures/select
# test_replay's surfaces and models: the H200's grid run and its profiles
REPLAY_DATA := bench/results/2026-11-26-h200-search/cells.csv \
	bench/results/2026-11-26-h200-profiles/models.csv

USER_TARGETS += $(BUILD)/gsp-select
INSTALL_BINS += $(BUILD)/gsp-select
CHECK_SUITES += search

.PHONY: check-search

$(SEARCH_TEST_DIR)/test_search: $(call objs,san,tests/search/test_search.c \
		$(SEARCH_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm

$(SEARCH_TEST_DIR)/test_select: $(call objs,san,tests/search/test_select.c \
		$(SEARCH_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm

$(SEARCH_TEST_DIR)/test_rules: $(call objs,san,tests/search/test_rules.c \
		$(SEARCH_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm

$(SEARCH_TEST_DIR)/test_select_csv: $(call objs,san,tests/search/test_select_csv.c \
		libgsp/search/select_csv.c libgsp/csv/csv.c $(SEARCH_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm

$(BUILD)/gsp-select: $(call objs,plain,$(SELECT_SRCS))
	$(CC) -o $@ $^ -lm

$(SEARCH_TEST_DIR)/gsp-select: $(call objs,san,$(SELECT_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm

$(SEARCH_TEST_DIR)/test_agent: $(call objs,san,tests/search/test_agent.c \
		$(SEARCH_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm

$(SEARCH_TEST_DIR)/test_boundary: $(call objs,san,tests/search/test_boundary.c \
		$(SEARCH_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm

$(SEARCH_TEST_DIR)/test_replay: $(call objs,san,tests/search/test_replay.c \
		libgsp/csv/csv.c $(SEARCH_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm

check-search: $(SEARCH_TEST_DIR)/test_search $(SEARCH_TEST_DIR)/test_select \
		$(SEARCH_TEST_DIR)/test_rules $(SEARCH_TEST_DIR)/test_select_csv \
		$(SEARCH_TEST_DIR)/gsp-select $(SEARCH_TEST_DIR)/test_agent \
		$(SEARCH_TEST_DIR)/test_replay $(SEARCH_TEST_DIR)/test_boundary
	@timeout 120 $(SEARCH_TEST_DIR)/test_search || \
		echo "not ok - test_search exited with status $$?"
	@timeout 120 $(SEARCH_TEST_DIR)/test_rules || \
		echo "not ok - test_rules exited with status $$?"
	@timeout 120 $(SEARCH_TEST_DIR)/test_select || \
		echo "not ok - test_select exited with status $$?"
	@timeout 120 $(SEARCH_TEST_DIR)/test_select_csv || \
		echo "not ok - test_select_csv exited with status $$?"
	@bash tests/search/test_gsp_select.sh $(SEARCH_TEST_DIR)/gsp-select \
		$(SEARCH_TEST_DIR)/select || \
		echo "not ok - test_gsp_select.sh exited with status $$?"
	@timeout 120 $(SEARCH_TEST_DIR)/test_agent || \
		echo "not ok - test_agent exited with status $$?"
	@timeout 120 $(SEARCH_TEST_DIR)/test_boundary || \
		echo "not ok - test_boundary exited with status $$?"
	@timeout 120 $(SEARCH_TEST_DIR)/test_replay $(REPLAY_DATA) || \
		echo "not ok - test_replay exited with status $$?"
