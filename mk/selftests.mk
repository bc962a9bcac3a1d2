# SPDX-License-Identifier: GPL-2.0
#
# Selftests of gspace.ko (and, through selftests/gsp_transport.h, of any
# arbiter speaking uapi/gspace.h). Static binaries, so they run in the
# busybox VM as they are:
#
#   SELFTEST_BINS       one TAP-printing binary per selftests/*_test.c
#   SELFTEST_BENCH_BIN  the ioctl benchmark (comment lines and a CSV)
#
#   make selftests      builds them all
#
# See Documentation/selftests.rst.

SELFTEST_DIR := $(BUILD)/selftests
SELFTEST_SRCS := $(sort $(wildcard selftests/*_test.c))
SELFTEST_HDRS := $(wildcard selftests/*.h) uapi/gspace.h
SELFTEST_BINS := $(patsubst selftests/%.c,$(SELFTEST_DIR)/%,$(SELFTEST_SRCS))
SELFTEST_BENCH_BIN := $(SELFTEST_DIR)/gspace_bench
SELFTEST_CFLAGS := -static -std=gnu11 -O2 -Wall -Wextra -Werror \
	-Iuapi -Iselftests
SELFTEST_LDLIBS := -lpthread

USER_TARGETS += $(SELFTEST_BINS) $(SELFTEST_BENCH_BIN)

.PHONY: selftests
selftests: $(SELFTEST_BINS) $(SELFTEST_BENCH_BIN)

$(SELFTEST_DIR)/%: selftests/%.c $(SELFTEST_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(SELFTEST_CFLAGS) -o $@ $< $(SELFTEST_LDLIBS)
