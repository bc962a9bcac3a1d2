# SPDX-License-Identifier: GPL-2.0
#
# Admission by prediction (libgsp/admit: Prophet, ASPLOS '17): solo
# traces in, the LC's predicted latency beside k batch instances out.
# Pure C, no GPU, no CUDA. gspctl's predict and admit commands use it
# (mk/libgsp.mk links it in).
#
#   make check-admit    test_prophet under ASan and UBSan (the digest's
#                       worked examples, the solo replay, admission on
#                       synthetic pairs, the reader's refusals) and
#                       gspctl predict/admit on tests/admit/fixtures,
#                       TAP only

ADMIT_SRCS := libgsp/admit/trace.c libgsp/admit/prophet.c libgsp/csv/csv.c
CFLAGS_tests/admit := -Ilibgsp/admit -Ilibgsp/csv -Itests
CFLAGS_libgsp/admit := -Ilibgsp/csv
CFLAGS_libgsp/tools += -Ilibgsp/admit
ADMIT_TEST_DIR := $(BUILD)/tests/admit

CHECK_SUITES += admit

# gsp-run --admit asks the predictor before the program starts
$(GSP_RUN): $(call objs,plain,$(ADMIT_SRCS))

.PHONY: check-admit

$(ADMIT_TEST_DIR)/test_prophet: $(call objs,san,tests/admit/test_prophet.c \
		$(ADMIT_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm

check-admit: $(ADMIT_TEST_DIR)/test_prophet $(LIBGSP_TEST_DIR)/gspctl
	@timeout 120 $(ADMIT_TEST_DIR)/test_prophet || \
		echo "not ok - test_prophet exited with status $$?"
	@timeout 120 bash tests/admit/test_gspctl_admit.sh \
		$(LIBGSP_TEST_DIR)/gspctl $(ADMIT_TEST_DIR)/scratch || \
		echo "not ok - test_gspctl_admit.sh exited with status $$?"
