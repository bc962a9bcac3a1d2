# SPDX-License-Identifier: GPL-2.0
#
# libgsp_trace.so, the CUPTI tracer that writes gsp-trace CSVs for the
# Prophet predictor (Documentation/tracing.rst), and the pure part of it
# (libgsp/trace/trace_rows.c), tested alone. Built against the toolkit's
# cupti.h and libcupti.so: no GPU is needed to build or test.
#
#   $(TRACE_SO)        CUDA_INJECTION64_PATH=$(TRACE_SO) GSP_TRACE_OUT=F prog;
#                      only where $(CUDA_HOME)/include/cupti.h exists
#   make check-trace   test_trace_rows under ASan and UBSan, and the .so
#                      builds and exports InitializeInjection (nm -D);
#                      TAP only

TRACE_SO := $(BUILD)/lib/libgsp_trace.so
TRACE_TEST_DIR := $(BUILD)/tests/trace
CFLAGS_tests/trace := -Ilibgsp/trace -Itests
# -isystem: CUPTI's headers are not ours to keep -Wextra clean.
CFLAGS_libgsp/trace := -isystem $(CUDA_HOME)/include -pthread
# libcupti.so is in lib64 (a link to lib on some installs) or, on older
# toolkits, extras/CUPTI/lib64: the first that has it.
CUPTI_LIBDIR := $(firstword $(foreach d,lib64 lib extras/CUPTI/lib64, \
	$(if $(wildcard $(CUDA_HOME)/$(d)/libcupti.so),$(CUDA_HOME)/$(d))))
HAVE_CUPTI := $(and $(wildcard $(CUDA_HOME)/include/cupti.h),$(CUPTI_LIBDIR))

ifneq ($(HAVE_CUPTI),)
USER_TARGETS += $(TRACE_SO)
INSTALL_LIBS += $(TRACE_SO)
endif
CHECK_SUITES += trace

.PHONY: check-trace

# Not sanitized, like the interposer: it is loaded into programs built
# without ASan. The rpath finds libcupti where it was built against.
$(TRACE_SO): $(call objs,pic,libgsp/trace/gsp_trace.c libgsp/trace/trace_rows.c)
	@mkdir -p $(@D)
	$(CC) -pthread -shared -Wl,-z,defs -o $@ $^ -L$(CUPTI_LIBDIR) \
		-Wl,-rpath,$(CUPTI_LIBDIR) -lcupti

$(TRACE_TEST_DIR)/test_trace_rows: $(call objs,san,tests/trace/test_trace_rows.c \
		libgsp/trace/trace_rows.c)
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^

check-trace: $(TRACE_TEST_DIR)/test_trace_rows
	@timeout 60 $(TRACE_TEST_DIR)/test_trace_rows || \
		echo "not ok - test_trace_rows exited with status $$?"
ifneq ($(HAVE_CUPTI),)
	@mkdir -p $(TRACE_TEST_DIR)
	@if $(MAKE) --no-print-directory -s $(TRACE_SO) >$(TRACE_TEST_DIR)/build.log 2>&1; \
	then echo "ok - $(TRACE_SO) builds against $(CUPTI_LIBDIR)/libcupti.so"; \
	else echo "not ok - $(TRACE_SO) builds"; sed 's/^/# /' $(TRACE_TEST_DIR)/build.log; fi
	@if nm -D --defined-only $(TRACE_SO) 2>/dev/null | \
		grep -qw 'T InitializeInjection'; \
	then echo "ok - $(TRACE_SO) exports InitializeInjection"; \
	else echo "not ok - $(TRACE_SO) exports InitializeInjection"; fi
	@if nm -D --defined-only $(TRACE_SO) 2>/dev/null | \
		grep -v -w InitializeInjection | grep -q ' T '; \
	then echo "not ok - $(TRACE_SO) exports only InitializeInjection"; \
		nm -D --defined-only $(TRACE_SO) | sed 's/^/# /'; \
	else echo "ok - $(TRACE_SO) exports only InitializeInjection"; fi
else
	@echo "ok - libgsp_trace.so # SKIP no cupti.h and libcupti.so under $(CUDA_HOME)"
endif
