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
