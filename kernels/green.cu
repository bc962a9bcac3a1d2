// SPDX-License-Identifier: GPL-2.0
/* Green contexts for the benchmark programs (green.h says why this way). */
#include <stdio.h>
#include <string.h>
#include "green.h"

/* The driver calls green contexts need, as found through the runtime. */
struct green_api {
	decltype(&cuDeviceGet) device_get;
	decltype(&cuDeviceGetDevResource) get_resource;
	decltype(&cuDevSmResourceSplitByCount) split;
	decltype(&cuDevResourceGenerateDesc) desc;
	decltype(&cuGreenCtxCreate) create;
	decltype(&cuCtxFromGreenCtx) from_green;
	decltype(&cuGreenCtxStreamCreate) stream;
	decltype(&cuGreenCtxDestroy) destroy;
};

/*
 * Ask for the calls as this toolkit's cuda.h declares them (the
 * decltypes above): green contexts came with CUDA 12.4, their streams
 * with 12.5, so an older version misses some.
 */
#define GREEN_API_VERSION	CUDA_VERSION

static int lookup(const char *sym, void **fn)
{
	cudaDriverEntryPointQueryResult q;

	if (cudaGetDriverEntryPointByVersion(sym, fn, GREEN_API_VERSION,
					     cudaEnableDefault, &q) != cudaSuccess ||
	    q != cudaDriverEntryPointSuccess || !*fn) {
		fprintf(stderr, "green: the driver has no %s of CUDA %d\n",
			sym, GREEN_API_VERSION);
		return -1;
	}
	return 0;
}

/*
 * Looked up on each call rather than cached, so that nothing here is
 * global; a program makes a handful of contexts, the lookups are cheap.
 */
static int green_api_get(struct green_api *a)
{
	return lookup("cuDeviceGet", (void **)&a->device_get) ||
	       lookup("cuDeviceGetDevResource", (void **)&a->get_resource) ||
	       lookup("cuDevSmResourceSplitByCount", (void **)&a->split) ||
	       lookup("cuDevResourceGenerateDesc", (void **)&a->desc) ||
	       lookup("cuGreenCtxCreate", (void **)&a->create) ||
	       lookup("cuCtxFromGreenCtx", (void **)&a->from_green) ||
	       lookup("cuGreenCtxStreamCreate", (void **)&a->stream) ||
	       lookup("cuGreenCtxDestroy", (void **)&a->destroy) ? -1 : 0;
}

#define GCU(x) do {							\
	CUresult r_ = (x);						\
	if (r_ != CUDA_SUCCESS) {					\
		fprintf(stderr, "%s:%d: %s: CUresult %d\n", __FILE__,	\
			__LINE__, #x, (int)r_);				\
		return -1;						\
	}								\
} while (0)

/* A context and its stream of the resources @res[0..n) of one split. */
static int make_from(const struct green_api *a, struct green *gr,
		     CUdevResource *res, unsigned int n, int prio)
{
	CUdevice dev;
	CUdevResourceDesc desc;
	CUstream cs;

	memset(gr, 0, sizeof(*gr));
	GCU(a->device_get(&dev, 0));
	GCU(a->desc(&desc, res, n));
	GCU(a->create(&gr->g, desc, dev, CU_GREEN_CTX_DEFAULT_STREAM));
	GCU(a->from_green(&gr->ctx, gr->g));
	GCU(a->stream(&cs, gr->g, CU_STREAM_NON_BLOCKING, prio));
	gr->s = (cudaStream_t)cs;
	for (unsigned int i = 0; i < n; i++)
		gr->sms += (int)res[i].sm.smCount;
	return 0;
}

int green_make(struct green *gr, int nsm, int prio)
{
	struct green_api a;
	CUdevice dev;
	CUdevResource all, part, rest;
	unsigned int n = 1;

	if (green_api_get(&a))
		return -1;
	GCU(a.device_get(&dev, 0));
	GCU(a.get_resource(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
	GCU(a.split(&part, &n, &all, &rest, 0, (unsigned int)nsm));
	return make_from(&a, gr, &part, 1, prio);
}

int green_split(struct green_groups *gg, int group_sms)
{
	struct green_api a;
	CUdevice dev;
	CUdevResource all, rest;
	unsigned int n = GREEN_MAX_GROUPS;

	memset(gg, 0, sizeof(*gg));
	if (green_api_get(&a))
		return -1;
	GCU(a.device_get(&dev, 0));
	GCU(a.get_resource(dev, &all, CU_DEV_RESOURCE_TYPE_SM));
	gg->dev_sms = (int)all.sm.smCount;
	gg->min_sms = (int)all.sm.minSmPartitionSize;
	gg->align = (int)all.sm.smCoscheduledAlignment;
	if (group_sms <= 0)
		group_sms = gg->min_sms;
	GCU(a.split(gg->grp, &n, &all, &rest, 0, (unsigned int)group_sms));
	if (!n)
		return -1;
	gg->n = n;
	gg->group_sms = (int)gg->grp[0].sm.smCount;
	gg->rest_sms = gg->dev_sms - (int)n * gg->group_sms;
	return 0;
}

int green_make_groups(struct green *gr, const struct green_groups *gg,
		      unsigned int first, unsigned int count, int prio)
{
	struct green_api a;
	CUdevResource res[GREEN_MAX_GROUPS];

	if (!count || first + count > gg->n) {
		fprintf(stderr, "green: groups [%u, %u) are not in the cut of %u\n",
			first, first + count, gg->n);
		return -1;
	}
	if (green_api_get(&a))
		return -1;
	/* the descriptor wants one array; the groups stay those of the cut */
	memcpy(res, &gg->grp[first], count * sizeof(res[0]));
	return make_from(&a, gr, res, count, prio);
}

void green_free(struct green *gr)
{
	struct green_api a;

	if (gr->s)
		cudaStreamDestroy(gr->s);
	if (gr->g && !green_api_get(&a))
		a.destroy(gr->g);
	memset(gr, 0, sizeof(*gr));
}
