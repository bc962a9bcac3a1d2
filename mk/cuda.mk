# SPDX-License-Identifier: GPL-2.0
#
# The CUDA settings, in one place, for every fragment that runs nvcc or
# ptxas or includes cuda.h (preload.mk, xform.mk, kernels.mk, gpu.mk) and
# for the test scripts they start (CUDA_ENV). Nothing here needs a GPU.
#
#   CUDA_HOME    the toolkit (default /usr/local/cuda)
#   NVCC, PTXAS  its compiler and assembler
#   CUDA_SM      the architecture everything is built and checked for:
#                sm_90 (H100, H200)
#   CUDA_ARCH    nvcc's architecture flags, -arch=$(CUDA_SM); gsp-wl has
#                KERN_ARCH (mk/kernels.mk), which defaults to it
#   CUDA_INC     where cuda.h is, for the C compiler
#   CUDA_LINK_LIBCUDA  the toolkit's link-time libcuda: links with no
#                driver installed
#   NVCC_WERROR  every host and device warning is an error

CUDA_HOME ?= /usr/local/cuda
NVCC ?= $(CUDA_HOME)/bin/nvcc
PTXAS ?= $(CUDA_HOME)/bin/ptxas
CUDA_SM ?= sm_90
CUDA_ARCH ?= -arch=$(CUDA_SM)
CUDA_INC := -I$(CUDA_HOME)/include
CUDA_LINK_LIBCUDA := -L$(CUDA_HOME)/lib64/stubs -lcuda
NVCC_WERROR := -Xcompiler -Wall,-Wextra,-Werror --Werror all-warnings
CUDA_ENV = CUDA_HOME='$(CUDA_HOME)' NVCC='$(NVCC)' PTXAS='$(PTXAS)' \
	CUDA_SM='$(CUDA_SM)'

# What make and make user can build here. The programs nvcc compiles are
# in NVCC_TARGETS, those that include cuda.h (the interposer) in
# CUDA_H_TARGETS; without the tool, make skips them with one line each
# (NVCC_SKIP, CUDA_H_SKIP), and naming one of them, or a target that
# needs it, fails with that line (need-nvcc, need-cuda-h). cuda.h also
# counts where the C compiler finds it alone (Debian's nvidia-cuda-dev).
NVCC_TARGETS :=
CUDA_H_TARGETS :=
HAVE_NVCC := $(shell command -v '$(NVCC)' 2>/dev/null)
HAVE_CUDA_H := $(or $(wildcard $(CUDA_HOME)/include/cuda.h),$(shell \
	printf '\043include <cuda.h>\n' | $(CC) -E -x c - >/dev/null 2>&1 && \
	echo y))
NVCC_WHY = no nvcc at $(NVCC): install the CUDA toolkit, or set \
	CUDA_HOME=/path/to/it (NVCC= for the compiler alone)
CUDA_H_WHY = no cuda.h in $(CUDA_HOME)/include or the C compiler's path: \
	install the CUDA toolkit (or Debian's nvidia-cuda-dev), or set \
	CUDA_HOME=/path/to/it

.PHONY: need-nvcc need-cuda-h
need-nvcc:
	@$(if $(HAVE_NVCC),:,echo "make: $(NVCC_WHY)" >&2; exit 1)
need-cuda-h:
	@$(if $(HAVE_CUDA_H),:,echo "make: $(CUDA_H_WHY)" >&2; exit 1)
