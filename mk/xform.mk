# SPDX-License-Identifier: GPL-2.0
#
# gsp-xform, the PTX transformer (libgsp/xform, Documentation/xform.rst),
# its unit tests and its ptxas corpus; the GPU harness that checks its
# output on a GPU (bench/gpu/xform-check.cu) is built here too.
#
#   make $(BUILD)/gsp-xform
#   make check-xform   TAP: parser/transformer unit tests (ASan/UBSan;
#                      test_xform, test_funcs for device functions,
#                      test_vars for module variables and parts);
#                      every .cu of kernels/ and tests/xform/ through
#                      nvcc -ptx, gsp-xform and ptxas (CUDA_SM), one line
#                      per kernel; the GPU harness builds

XFORM_SRCS := libgsp/xform/ptx.c libgsp/xform/flow.c libgsp/xform/xform.c \
	libgsp/xform/vars.c libgsp/xform/names.c libgsp/xform/parts.c \
	libgsp/xform/funcs.c
XFORM_OUT := $(BUILD)/xform
CFLAGS_libgsp/xform := -Ilibgsp/include -I$(XFORM_OUT)/gen
CFLAGS_libgsp/tools += -Ilibgsp/xform
CFLAGS_tests/xform := -Ilibgsp/xform -Ilibgsp/include -Itests
# (kernels/green.cu is host code only: green contexts for the programs)
XFORM_CORPUS := $(filter-out kernels/green.cu,$(wildcard kernels/*.cu)) \
	$(wildcard tests/xform/*.cu)

# xform.c's PTX templates (libgsp/xform/templates/) as C string macros.
# Every flavour of xform.o (the preload library's too) waits for the
# header: -MMD records it only once it has been built.
XFORM_TPL := $(addprefix libgsp/xform/templates/,prologue.ptx task.ptx \
	boundary.ptx join.ptx barrier.ptx)
XFORM_TPL_H := $(XFORM_OUT)/gen/xform_tpl.h

$(XFORM_TPL_H): $(XFORM_TPL) tools/ptx2c.sh
	@mkdir -p $(@D)
	tools/ptx2c.sh $(XFORM_TPL) > $@.tmp
	mv $@.tmp $@

$(foreach f,plain san pic,$(call objs,$(f),libgsp/xform/xform.c)): $(XFORM_TPL_H)

USER_TARGETS += $(BUILD)/gsp-xform
INSTALL_BINS += $(BUILD)/gsp-xform
CHECK_SUITES += xform

$(BUILD)/gsp-xform: $(call objs,plain,libgsp/tools/gsp-xform.c $(XFORM_SRCS))
	$(CC) -o $@ $^

$(XFORM_OUT)/gsp-xform-san: $(call objs,san,libgsp/tools/gsp-xform.c $(XFORM_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^

$(XFORM_OUT)/test_xform $(XFORM_OUT)/test_funcs $(XFORM_OUT)/test_vars: $(XFORM_OUT)/%: \
		$(call objs,san,tests/xform/%.c $(XFORM_SRCS))
	@mkdir -p $(@D)
	$(CC) $(SAN_FLAGS) -o $@ $^

$(XFORM_OUT)/xform-check: bench/gpu/xform-check.cu bench/gpu/gpu_cli.h \
		libgsp/include/gsp_persist.h
	@mkdir -p $(@D)
	$(NVCC) $(CUDA_ARCH) -O2 -std=c++17 -Ilibgsp/include -Ibench/gpu \
		$(NVCC_WERROR) -o $@ $< $(CUDA_LINK_LIBCUDA)

$(XFORM_OUT)/modvar-check: bench/gpu/modvar-check.cu
	@mkdir -p $(@D)
	$(NVCC) $(CUDA_ARCH) -O2 $(NVCC_WERROR) -o $@ $<

$(XFORM_OUT)/xform-check $(XFORM_OUT)/modvar-check: | need-nvcc

# The corpus runs the sanitized gsp-xform, so every real PTX file is also
# a test of the parser under ASan/UBSan.
.PHONY: check-xform
check-xform:
	@mkdir -p $(XFORM_OUT)
	@{ if $(MAKE) --no-print-directory -s $(XFORM_OUT)/test_xform \
		$(XFORM_OUT)/test_funcs $(XFORM_OUT)/test_vars \
		$(XFORM_OUT)/gsp-xform-san >$(XFORM_OUT)/build.log 2>&1; then \
		for t in test_xform test_funcs test_vars; do \
		$(XFORM_OUT)/$$t 2>&1 | sed -n 's/^\(not ok\|ok\) [0-9]* - /\1 - unit: /p'; \
		$(XFORM_OUT)/$$t >/dev/null 2>&1 || \
			echo "not ok - unit: $$t exited with an error"; \
		done; \
		$(CUDA_ENV) tests/xform/corpus.sh $(XFORM_OUT)/corpus \
			$(XFORM_OUT)/gsp-xform-san $(XFORM_CORPUS); \
	   else echo "not ok - gsp-xform and its tests build with ASan/UBSan"; \
		sed 's/^/# /' $(XFORM_OUT)/build.log; fi; \
	   if $(MAKE) --no-print-directory -s $(XFORM_OUT)/xform-check \
		>$(XFORM_OUT)/harness.log 2>&1; \
	   then echo "ok - nvcc builds bench/gpu/xform-check.cu (link-time libcuda)"; \
	   else echo "not ok - nvcc builds bench/gpu/xform-check.cu"; \
		sed 's/^/# /' $(XFORM_OUT)/harness.log; fi; \
	   if $(MAKE) --no-print-directory -s $(XFORM_OUT)/modvar-check \
		>$(XFORM_OUT)/modvar.log 2>&1; \
	   then echo "ok - nvcc builds bench/gpu/modvar-check.cu"; \
	   else echo "not ok - nvcc builds bench/gpu/modvar-check.cu"; \
		sed 's/^/# /' $(XFORM_OUT)/modvar.log; fi; \
	}
