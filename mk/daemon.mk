# SPDX-License-Identifier: GPL-2.0
#
# gspaced, the userspace arbiter (gspaced/), and its suite.
#
#   $(BUILD)/gspaced    the daemon (kmod/core linked in unchanged)
#   make check-daemon   tests/daemon/run.sh: every selftest against a
#                       sanitized gspaced on a temp socket, then the
#                       daemon's own tests (protocol abuse, config, LC
#                       permission); TAP only
#   make bench-daemon   SUBMIT+WAIT round trips through gspaced, recorded
#                       under bench/results/<date>-gspaced-rtt/
#
# See Documentation/gspaced.rst.

# admit.c predicts with libgsp/admit (Prophet) on the operator's traces.
GSPACED_SRCS := $(sort $(wildcard gspaced/*.c)) $(GSPD_PROTO) \
	libgsp/admit/trace.c libgsp/admit/prophet.c libgsp/csv/csv.c
CFLAGS_gspaced := -Ilibgsp/proto -Ilibgsp/include -Ilibgsp/admit \
	$(VERSION_CFLAGS)
CFLAGS_tests/daemon := -Igspaced -Ilibgsp/proto -Ilibgsp/include -Itests \
	-Ilibgsp/admit
DAEMON_TEST_DIR := $(BUILD)/tests/daemon
GSPACED_SAN := $(DAEMON_TEST_DIR)/gspaced
# The selftests, built against the daemon transport (dynamic, sanitized).
# (gspace_fairness_test compares shares with gsp-sim through sysfs and
# the module's timing; its scenarios are written for the VM.)
DAEMON_SELFTEST_BINS := $(patsubst selftests/%.c,$(DAEMON_TEST_DIR)/selftests/%,\
	$(filter-out selftests/gspace_fairness_test.c,\
		$(sort $(wildcard selftests/*_test.c))))
DAEMON_TESTS := $(patsubst tests/daemon/%.c,$(DAEMON_TEST_DIR)/%,\
	$(wildcard tests/daemon/test_*.c))
DAEMON_BENCH := $(DAEMON_TEST_DIR)/bench_rtt
BENCH_DAEMON_OUT ?= bench/results/$(shell date +%Y-%m-%d)-gspaced-rtt

USER_TARGETS += $(BUILD)/gspaced
INSTALL_BINS += $(BUILD)/gspaced
CHECK_SUITES += daemon

.PHONY: check-daemon bench-daemon

$(BUILD)/gspaced: $(call objs,plain,$(GSPACED_SRCS) $(CORE_SRCS))
	$(CC) -o $@ $^ -lm

$(GSPACED_SAN): $(call objs,san,$(GSPACED_SRCS) $(CORE_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm

$(DAEMON_TEST_DIR)/selftests/%: selftests/%.c \
		$(call objs,san,$(GSPD_CLIENT))
	@mkdir -p $(@D)
	$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -Iuapi -Iselftests \
		-Ilibgsp/proto $(SAN_FLAGS) $(DEPFLAGS) -o $@ $^ -lpthread

$(DAEMON_TEST_DIR)/%: $(call objs,san,tests/daemon/%.c $(GSPD_CLIENT))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lpthread

# test_admit checks gspaced's answers against Prophet's own.
$(DAEMON_TEST_DIR)/test_admit: $(call objs,san,tests/daemon/test_admit.c \
		$(GSPD_CLIENT) libgsp/admit/trace.c libgsp/admit/prophet.c \
		libgsp/csv/csv.c)
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lpthread -lm

# Not sanitized: it measures.
$(DAEMON_BENCH): $(call objs,plain,tests/daemon/bench_rtt.c $(GSPD_CLIENT))
	@mkdir -p $(@D)
	$(CC) -o $@ $^ -lpthread

check-daemon: $(GSPACED_SAN) $(DAEMON_SELFTEST_BINS) $(DAEMON_TESTS)
	@BUILD=$(BUILD) GSPACED=$(GSPACED_SAN) tests/daemon/run.sh \
		$(DAEMON_SELFTEST_BINS) -- $(DAEMON_TESTS)

# gspaced (not sanitized) with sim device 0 and lease device 1.
bench-daemon: $(BUILD)/gspaced $(DAEMON_BENCH)
	@BUILD=$(BUILD) tests/daemon/bench.sh $(BUILD)/gspaced $(DAEMON_BENCH) \
		$(BENCH_DAEMON_OUT)
