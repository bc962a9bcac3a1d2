# SPDX-License-Identifier: GPL-2.0
#
# The GPU experiment for libgsp, gspaced and the interposer (bench/gpu/,
# Documentation/gpu-experiment.rst). The programs build with nvcc against
# the toolkit's link-time libcuda, so CI builds them; they run only on a GPU host
# (bench/gpu/run-experiment.sh).
#
#   make $(BUILD)/gpu/gsp-check $(BUILD)/gpu/gsp-load $(BUILD)/gpu/launch-overhead
#   make $(BUILD)/gpu/corun    the micro-benchmark co-run tables
#                              (bench/gpu/profile.sh profiles with it)
#   make $(BUILD)/gpu/hwprobe  hw.csv for the Prophet traces
#   make $(BUILD)/gpu/stm      Liang et al.'s STM against sequential and
#                              stream concurrency (bench/run-stm.sh)
#   make $(BUILD)/gpu/xfer     transfer-heavy workloads: pinned copy-in,
#                              kernel, copy-out per iteration
#                              (bench/run-cumas.sh)
#   make $(BUILD)/gpu/flowshop the core's CuMAS flow-shop optimum for given
#                              job lengths (C only, no nvcc)
#   make check-gpu-progs   TAP: the programs build, the PTX assembles, the
#                          scripts parse, the unit tests of analyze.py,
#                          ncu_features.py, prophet-ncu.py,
#                          prophet-eval.py and stm-eval.py, argument
#                          checks, profile.sh with a stand-in ncu (no GPU
#                          is used)

GPU_OUT := $(BUILD)/gpu
GPU_NVCCFLAGS := $(CUDA_ARCH) -O2 -std=c++17 -I$(GPU_OUT) $(NVCC_WERROR)
GPU_PROGS := $(GPU_OUT)/gsp-check $(GPU_OUT)/gsp-load $(GPU_OUT)/launch-overhead \
	$(GPU_OUT)/lcprotect $(GPU_OUT)/corun $(GPU_OUT)/hwprobe $(GPU_OUT)/stm \
	$(GPU_OUT)/xfer
GPU_SCRIPTS := bench/gpu/run-experiment.sh bench/gpu/test_cli.sh \
	bench/run-lcprotect.sh bench/gpu/profile.sh bench/gpu/test_corun.sh \
	bench/run-prophet.sh bench/run-stm.sh bench/run-torch-pair.sh \
	bench/run-cumas.sh bench/run-timeplane.sh
GPU_PY := $(wildcard bench/gpu/*.py)

# spin.ptx as a C string: the file has no quotes or backslashes, but
# escape them anyway so an edit cannot break the build silently.
$(GPU_OUT)/spin_ptx.h: bench/gpu/spin.ptx
	@mkdir -p $(@D)
	{ echo '/* Generated from bench/gpu/spin.ptx by mk/gpu.mk. */'; \
	  echo 'static const char spin_ptx[] ='; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/"&\\n"/' $<; echo ';'; } > $@

# gsp-check calls cuLaunchKernel and needs the driver library at link
# time; gsp-load uses only the (static) runtime.
$(GPU_OUT)/gsp-check: bench/gpu/gsp-check.cu
	@mkdir -p $(@D)
	$(NVCC) $(GPU_NVCCFLAGS) -o $@ $< $(CUDA_LINK_LIBCUDA) -lpthread

$(GPU_OUT)/gsp-load: bench/gpu/gsp-load.cu bench/gpu/gpu_cli.h
	@mkdir -p $(@D)
	$(NVCC) $(GPU_NVCCFLAGS) -o $@ $<

$(GPU_OUT)/lcprotect: bench/gpu/lcprotect.cu bench/gpu/gpu_cli.h
	@mkdir -p $(@D)
	$(NVCC) $(GPU_NVCCFLAGS) -o $@ $< -lpthread

# corun runs the micro-benchmark's body (kernels/micro.cuh) and takes
# the instance lists from the CPU reference's object, as gsp-wl does.
$(GPU_OUT)/corun: bench/gpu/corun.cu bench/gpu/gpu_cli.h kernels/micro.cuh \
		kernels/ref/ref.h $(call objs,plain,kernels/ref/ref.c)
	@mkdir -p $(@D)
	$(NVCC) $(GPU_NVCCFLAGS) -Ikernels -o $@ $< $(call objs,plain,kernels/ref/ref.c)

# hwprobe: the machine's constants for the Prophet traces (hw.csv,
# Documentation/tracing.rst); the static runtime only.
$(GPU_OUT)/hwprobe: bench/gpu/hwprobe.cu bench/gpu/gpu_cli.h
	@mkdir -p $(@D)
	$(NVCC) $(GPU_NVCCFLAGS) -o $@ $<

# stm runs gsp-wl's workloads (every kernels/ object but gsp-wl's own)
# in green contexts (kernels/green.cu, driver calls through the runtime,
# so no libcuda: it starts without a driver) and plans with the C
# planner (libgsp/plan, mk/plan.mk).
STM_OBJS := $(filter-out $(BUILD)/kernels/gsp-wl.o,$(KERN_OBJS)) \
	$(call objs,plain,kernels/ref/ref.c $(PLAN_SRCS))
$(GPU_OUT)/stm: bench/gpu/stm.cu bench/gpu/gpu_cli.h kernels/green.h \
		kernels/wl.h kernels/wl_common.cuh libgsp/plan/stm.h $(STM_OBJS)
	@mkdir -p $(@D)
	$(NVCC) $(GPU_NVCCFLAGS) -Ikernels -Ilibgsp/plan -o $@ $< $(STM_OBJS)

# xfer: the CuMAS experiment's workloads (bench/run-cumas.sh); the
# static runtime only.
$(GPU_OUT)/xfer: bench/gpu/xfer.cu bench/gpu/gpu_cli.h
	@mkdir -p $(@D)
	$(NVCC) $(GPU_NVCCFLAGS) -o $@ $<

# flowshop: gsp_cumas_solve() on job lengths from a file, for
# cumas_eval.py; plain C, built without CUDA.
$(GPU_OUT)/flowshop: $(call objs,plain,bench/gpu/flowshop.c $(CORE_SRCS))
	@mkdir -p $(@D)
	$(CC) -o $@ $^ -lm
USER_TARGETS += $(GPU_OUT)/flowshop

$(GPU_OUT)/launch-overhead: bench/gpu/launch-overhead.cu bench/gpu/gpu_cli.h \
		$(GPU_OUT)/spin_ptx.h
	@mkdir -p $(@D)
	$(NVCC) $(GPU_NVCCFLAGS) -o $@ $< $(CUDA_LINK_LIBCUDA)

NVCC_TARGETS += $(GPU_PROGS)
CHECK_SUITES += gpu-progs

# One TAP line per check (tools/check.sh numbers them).
.PHONY: check-gpu-progs
check-gpu-progs:
	@mkdir -p $(GPU_OUT)/ci
	@{ for p in $(GPU_PROGS); do \
		if $(MAKE) --no-print-directory -s $$p >$(GPU_OUT)/ci/build.log 2>&1; \
		then echo "ok - nvcc builds and links $$p (link-time libcuda)"; \
		else echo "not ok - nvcc builds and links $$p"; sed 's/^/# /' $(GPU_OUT)/ci/build.log; fi; \
	   done; \
	   if $(PTXAS) -arch=$(CUDA_SM) bench/gpu/spin.ptx -o $(GPU_OUT)/ci/spin.cubin \
		>$(GPU_OUT)/ci/ptxas.log 2>&1; \
	   then echo "ok - ptxas assembles bench/gpu/spin.ptx for $(CUDA_SM)"; \
	   else echo "not ok - ptxas assembles bench/gpu/spin.ptx"; sed 's/^/# /' $(GPU_OUT)/ci/ptxas.log; fi; \
	   for s in $(GPU_SCRIPTS); do \
		if bash -n $$s 2>$(GPU_OUT)/ci/sh.log; then echo "ok - bash -n $$s"; \
		else echo "not ok - bash -n $$s"; sed 's/^/# /' $(GPU_OUT)/ci/sh.log; fi; \
	   done; \
	   for s in $(GPU_PY); do \
		if python3 -c 'import sys, py_compile; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)' \
			$$s $(GPU_OUT)/ci/$$(basename $$s)c 2>$(GPU_OUT)/ci/py.log; \
		then echo "ok - python3 compiles $$s"; \
		else echo "not ok - python3 compiles $$s"; sed 's/^/# /' $(GPU_OUT)/ci/py.log; fi; \
	   done; \
	   if $(MAKE) --no-print-directory -s $(GPU_OUT)/flowshop >$(GPU_OUT)/ci/build.log 2>&1; \
	   then echo "ok - cc builds $(GPU_OUT)/flowshop"; \
	   else echo "not ok - cc builds $(GPU_OUT)/flowshop"; sed 's/^/# /' $(GPU_OUT)/ci/build.log; fi; \
	   for t in analyze lcprotect ncu_features prophet_ncu prophet_eval \
		    stm_eval cumas_eval timeplane_eval; do \
		BUILD=$(BUILD) PYTHONDONTWRITEBYTECODE=1 python3 bench/gpu/test_$$t.py 2>&1 || \
			echo "not ok - test_$$t.py exited with an error"; \
	   done; \
	   for t in cli corun; do \
		BUILD=$(BUILD) bash bench/gpu/test_$$t.sh 2>&1 || \
			echo "not ok - test_$$t.sh exited with an error"; \
	   done; \
	}
