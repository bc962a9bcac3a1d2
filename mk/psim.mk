# SPDX-License-Identifier: GPL-2.0
#
# gsp-psim: the partition plane on a SIMULATED GPU (libgsp/sim/psim.c),
# driving the real board rule (gsp_board.h) and the LC's forecast
# (libgsp/preload/predict.c). No GPU, no CUDA.
#
#   $(BUILD)/gsp-psim   one scenario under every mode, as a table
#                       (make run shows it from inside the VM, against
#                       gspace.ko's board: mk/vm.mk)
#   make check-psim     tests/psim/run.sh: test_psim under ASan and UBSan,
#                       and gsp-psim's table and argument checks; TAP only

PSIM_SRCS := libgsp/sim/psim.c libgsp/sim/psim_board.c \
	libgsp/preload/predict.c
PSIM_INC := -Ilibgsp/include -Ilibgsp/preload -Ilibgsp/sim
CFLAGS_tests/psim := $(PSIM_INC) -Itests
PSIM_TEST_DIR := $(BUILD)/tests/psim

USER_TARGETS += $(BUILD)/gsp-psim
INSTALL_BINS += $(BUILD)/gsp-psim
CHECK_SUITES += psim

.PHONY: check-psim

CFLAGS_libgsp/sim += $(VERSION_CFLAGS)

$(BUILD)/gsp-psim: $(call objs,plain,libgsp/sim/gsp-psim.c $(PSIM_SRCS))
	$(CC) -o $@ $^ -lm

$(PSIM_TEST_DIR)/test_psim: $(call objs,san,tests/psim/test_psim.c $(PSIM_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^ -lm

check-psim: $(PSIM_TEST_DIR)/test_psim $(BUILD)/gsp-psim
	@BUILD=$(BUILD) tests/psim/run.sh
