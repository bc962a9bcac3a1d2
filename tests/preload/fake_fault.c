// SPDX-License-Identifier: GPL-2.0
/*
 * The fake libcuda's fault injection (fake_cuda.c, "FAKE_CUDA_FAIL_*" at
 * its top): which call fails, counted over every driver entry point, and
 * the record of each fault for the test (fake_fault_get()). Linked into
 * the same libcuda.so.1; apart so that the fake driver reads on its own.
 * Set once from the environment; the records under their own lock.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>

#include "fake_cuda.h"

#define EXPORT __attribute__((visibility("default")))
#define FAULTS_MAX 16

static pthread_once_t fault_once = PTHREAD_ONCE_INIT;
/* The settings: written once, under fault_once; read-only after. */
static struct {
	unsigned long nth;		/* FAKE_CUDA_FAIL_NTH, or 0 */
	uint64_t seed;			/* FAKE_CUDA_FAIL_SEED ... */
	double rate;			/* ... and _RATE, or 0 */
	unsigned int max;		/* FAKE_CUDA_FAIL_MAX, default 1 */
	const char *only;		/* FAKE_CUDA_FAIL_CALL, or NULL */
	int on, report;
} fcfg;
static unsigned long ncalls;		/* counted calls, atomic */
static pthread_mutex_t fault_mu = PTHREAD_MUTEX_INITIALIZER;
static struct fake_fault faults[FAULTS_MAX];	/* under fault_mu */
static unsigned int nfaults;			/* under fault_mu */
static __thread int fault_tag;		/* fake_fault_tag() */

static void fault_init(void)
{
	const char *nth = getenv("FAKE_CUDA_FAIL_NTH");
	const char *seed = getenv("FAKE_CUDA_FAIL_SEED");
	const char *rate = getenv("FAKE_CUDA_FAIL_RATE");
	const char *max = getenv("FAKE_CUDA_FAIL_MAX");
	const char *rep = getenv("FAKE_CUDA_FAIL_REPORT");

	fcfg.nth = nth ? strtoul(nth, NULL, 10) : 0;
	fcfg.seed = seed ? strtoull(seed, NULL, 10) : 0;
	fcfg.rate = seed && rate ? strtod(rate, NULL) : 0;
	fcfg.max = max ? (unsigned int)atoi(max) : 1;
	if (fcfg.max > FAULTS_MAX)
		fcfg.max = FAULTS_MAX;
	fcfg.only = getenv("FAKE_CUDA_FAIL_CALL");
	fcfg.report = rep && !strcmp(rep, "1");
	fcfg.on = fcfg.nth || fcfg.rate > 0;
}

/* splitmix64: the random mode's choice depends on the seed and n alone. */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static const char *err_name(CUresult e)
{
	switch (e) {
#define E(x) case x: return #x
	E(CUDA_ERROR_NO_DEVICE); E(CUDA_ERROR_INVALID_VALUE);
	E(CUDA_ERROR_INVALID_DEVICE); E(CUDA_ERROR_INVALID_CONTEXT);
	E(CUDA_ERROR_LAUNCH_FAILED); E(CUDA_ERROR_INVALID_HANDLE);
	E(CUDA_ERROR_OUT_OF_MEMORY); E(CUDA_ERROR_NOT_FOUND);
	E(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES); E(CUDA_ERROR_ILLEGAL_STATE);
	E(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION);
#undef E
	default: return "CUDA_ERROR_?";
	}
}

int fake_fault_hit(const char *name, CUresult err, uint64_t key, int tid,
		   const char *fn)
{
	unsigned long n;
	int hit;

	pthread_once(&fault_once, fault_init);
	if (fcfg.only && strcmp(fcfg.only, name))
		return 0;
	n = __atomic_add_fetch(&ncalls, 1, __ATOMIC_RELAXED);
	if (!fcfg.on)
		return 0;
	hit = fcfg.nth ? n == fcfg.nth :
	      (double)(mix(fcfg.seed ^ mix(n)) >> 11) * 0x1p-53 < fcfg.rate;
	if (!hit)
		return 0;
	pthread_mutex_lock(&fault_mu);
	hit = nfaults < fcfg.max;
	if (hit) {
		struct fake_fault *f = &faults[nfaults++];

		f->nth = n;
		snprintf(f->name, sizeof(f->name), "%s", name);
		f->err = (int)err;
		f->tid = tid;
		f->tag = fault_tag;
		f->key = key;
		snprintf(f->fn, sizeof(f->fn), "%s", fn);
	}
	pthread_mutex_unlock(&fault_mu);
	if (hit)
		fprintf(stderr, "fake_cuda: injected %s into call %lu, %s\n",
			err_name(err), n, name);
	return hit;
}

EXPORT unsigned long fake_fault_calls(void)
{
	return __atomic_load_n(&ncalls, __ATOMIC_RELAXED);
}

EXPORT unsigned int fake_fault_count(void)
{
	unsigned int n;

	pthread_mutex_lock(&fault_mu);
	n = nfaults;
	pthread_mutex_unlock(&fault_mu);
	return n;
}

EXPORT void fake_fault_get(unsigned int i, struct fake_fault *out)
{
	pthread_mutex_lock(&fault_mu);
	*out = faults[i];
	pthread_mutex_unlock(&fault_mu);
}

EXPORT void fake_fault_tag(int tag) { fault_tag = tag; }

/* Runs after the interposer's exit handlers: every call is counted. */
__attribute__((destructor)) static void fault_exit_report(void)
{
	pthread_once(&fault_once, fault_init);
	if (fcfg.on || fcfg.report)
		fprintf(stderr, "fake_cuda: at exit: %lu driver calls, %u faults injected\n",
			fake_fault_calls(), fake_fault_count());
}
