/* SPDX-License-Identifier: GPL-2.0 */
/* The test controls of the fake libcuda (fake_cuda.c). */
#ifndef FAKE_CUDA_H
#define FAKE_CUDA_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <sys/types.h>

struct fake_call {
	char name[40];
	uintptr_t stream;
	uint64_t payload;	/* first kernel arg, byte count, event id */
	pid_t tid;
	/* launches */
	char fn[48];		/* the function's name, if it has one */
	unsigned int grid[3], block[3], shmem;
	int carveout;		/* the function's preferred carveout; 0: never set */
	int has_job;		/* last parameter of 64 bytes, copied: */
	unsigned char job[64];	/* struct gsp_persist_job */
	int ctl_zero;		/* its ctl was reset when it was launched */
	/* memsets, copies (addr: destination), module variable look-ups */
	uint64_t addr, count, src;
	unsigned int sms;	/* launches: the green context's SMs, or 0 */
	/* stream creation, and calls on a stream: its priority and flags */
	int prio;
	unsigned int sflags;
	/*
	 * Stream order: for launches, copies, memsets, event records and
	 * waits, the index of the previous one on the same stream (the
	 * legacy and each thread's per-thread default stream resolved), and
	 * for a wait the index of the event record it waits for; -1: none.
	 */
	int prev, waits;
};

/* The context cuDevicePrimaryCtxRetain gives. */
#define FAKE_PRIMARY_CTX	((void *)0xc0)

unsigned int fake_trace_len(void);
void fake_trace_get(unsigned int i, struct fake_call *out);
void fake_trace_reset(void);
void fake_set_op_ns(uint64_t ns);
void fake_set_version(int v);
void fake_register(const void *p, size_t n, unsigned int type);
struct CUfunc_st *fake_function(int nparams, const size_t *sizes);
/*
 * 1: kernels launched from now on keep running: events recorded behind
 * one on its stream stay incomplete; 0: all complete.
 */
void fake_hold(int on);
/*
 * 1: under fake_hold(1), cuMemcpyHtoDAsync_v2 and cuMemcpyDtoHAsync_v2
 * hold their stream too, as a launch does; 0 (the default): they do not.
 */
void fake_hold_copies(int on);
/*
 * Module variable @name is not found from now on in modules whose PTX has
 * (@in_gsp 1) or lacks (0) a transformed kernel (a "__gsp" name).
 */
void fake_hide_global(const char *name, int in_gsp);
/* The priority and flags of a stream the fake made; -1 if it did not. */
int fake_stream_prio(CUstream s, unsigned int *flags);
/* The module that the last module or library load made. */
CUmodule fake_last_module(void);
/* The PTX text @m was loaded from, or NULL (not PTX). */
const char *fake_module_text(CUmodule m);

/*
 * Fault injection (fake_cuda.c's top): one injected error. @key tells
 * the program's calls apart: a launch's first argument, a copy's byte
 * count, a memset's value, an event's, stream's or module's handle, a
 * module load's image, else 0.
 */
struct fake_fault {
	unsigned long nth;	/* the counted call it was */
	char name[40];		/* the entry point */
	int err;		/* the CUresult returned */
	pid_t tid;		/* the calling thread */
	int tag;		/* its fake_fault_tag() then */
	uint64_t key;
	char fn[48];		/* a launch's function's name */
};

/* Driver calls counted so far (every entry point, every thread). */
unsigned long fake_fault_calls(void);
/* Faults injected so far, and the @i-th of them. */
unsigned int fake_fault_count(void);
void fake_fault_get(unsigned int i, struct fake_fault *out);
/* Tags the calling thread's calls from now on (0: none). */
void fake_fault_tag(int tag);

/*
 * Inside the fake only (fake_fault.c): 1 if this call of @name, from
 * thread @tid (@fn: a launch's function's name, or ""), is to fail with
 * @err; the fault is then recorded and said on stderr.
 */
__attribute__((visibility("hidden")))
int fake_fault_hit(const char *name, CUresult err, uint64_t key, int tid,
		   const char *fn);

#endif /* FAKE_CUDA_H */
