// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The wrappers (Documentation/interposer.rst): what every hooked driver
 * entry point does in the three modes (pass-through, BE deferral or
 * gating, LC fast path). This file has what the others share (the
 * current context, a launch's argument copy), the wrappers of module
 * loads, stream creation and cuGetProcAddress, and the hook table with
 * the check that every entry is exported. The other wrappers:
 * ops_launch.c (launches), ops_copy.c (copies and memsets), ops_sync.c
 * (event records and waits, sync points, stream capture); the
 * dispatcher's issue of deferred calls is ops_issue.c. What they share is
 * in ops_internal.h.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <gspace.h>

#include "ops_internal.h"

#define MAX_PARAMS	4096

CUcontext cur_ctx(void)
{
	static _Atomic(void *) fn;	/* cached real cuCtxGetCurrent */
	CUresult (*get)(CUcontext *);
	CUcontext c = NULL;

	*(void **)&get = atomic_load_explicit(&fn, memory_order_relaxed);
	if (!get) {
		*(void **)&get = gsp_real_sym("cuCtxGetCurrent");
		atomic_store(&fn, *(void **)&get);
	}
	if (!get || get(&c) != CUDA_SUCCESS)
		return NULL;
	return c;
}

CUstream gsp_event_stream(CUstream s, int ptsz)
{
	return ptsz && !s ? CU_STREAM_PER_THREAD : s;
}

/* The calling thread's own default stream: only it can issue there. */
int thread_stream(CUstream s, int ptsz)
{
	return s == CU_STREAM_PER_THREAD || (ptsz && !s);
}

/* Kernel parameter sizes ---------------------------------------------------- */

struct pinfo {
	int n;			/* -1: the driver cannot tell us */
	size_t size[];
};

static struct pinfo no_pinfo = { .n = -1 };

/*
 * Sizes of @f's parameters: cuFuncGetParamInfo, or cuKernelGetParamInfo
 * for the CUkernel handles cudart passes as functions. Past the last
 * parameter the driver says CUDA_ERROR_INVALID_VALUE; any other error at
 * index 0 means it cannot tell, and the launch is gated instead.
 */
static const struct pinfo *param_info(CUfunction f)
{
	typedef CUresult (*info_fn)(void *, size_t, size_t *, size_t *);
	struct gsp_key *k = gsp_key(f);
	info_fn get;
	struct pinfo *pi;
	void *expect = NULL;
	size_t off, sz, i;
	CUresult r;

	if (!k)
		return &no_pinfo;
	pi = atomic_load_explicit(&k->pinfo, memory_order_acquire);
	if (pi)
		return pi;
	*(void **)&get = gsp_real_sym("cuFuncGetParamInfo");
	r = get ? get(f, 0, &off, &sz) : CUDA_ERROR_NOT_FOUND;
	if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE) {
		*(void **)&get = gsp_real_sym("cuKernelGetParamInfo");
		r = get ? get(f, 0, &off, &sz) : CUDA_ERROR_NOT_FOUND;
	}
	if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE) {
		/* Remember the answer: the driver will not know better later. */
		atomic_compare_exchange_strong(&k->pinfo, &expect, &no_pinfo);
		return &no_pinfo;
	}
	for (i = 0; r == CUDA_SUCCESS && i < MAX_PARAMS; i++)
		r = get(f, i + 1, &off, &sz);
	/*
	 * Only INVALID_VALUE ends the list; any other error would cut it
	 * short, and the copy would miss parameters the kernel reads. Not
	 * cached: the driver may answer next time.
	 */
	if (r != CUDA_SUCCESS && r != CUDA_ERROR_INVALID_VALUE)
		return &no_pinfo;
	pi = malloc(sizeof(*pi) + i * sizeof(size_t));
	if (!pi)
		return &no_pinfo;
	pi->n = (int)i;
	for (i = 0; i < (size_t)pi->n; i++)
		if (get(f, i, &off, &pi->size[i]) != CUDA_SUCCESS) {
			/* a size we do not know cannot be copied */
			free(pi);
			return &no_pinfo;
		}
	/* Cached for the life of the process, like the function itself. */
	if (!atomic_compare_exchange_strong(&k->pinfo, &expect, pi)) {
		free(pi);
		return expect;
	}
	return pi;
}

/*
 * Copies a launch's arguments into @op->buf; returns the params and extra
 * arrays the dispatcher passes, or -1 if they cannot be copied safely.
 */
int copy_args(struct gsp_op *op, CUfunction f, void **params, void **extra,
	      void ***oparams, void ***oextra)
{
	*oparams = NULL;
	*oextra = NULL;
	op->nparams = extra ? -1 : 0;
	if (params && extra)
		return -1;
	if (params) {
		const struct pinfo *pi = param_info(f);
		size_t total = 0, at;
		char *data;
		int i;

		if (pi->n < 0)
			return -1;
		if (!pi->n)
			return 0;	/* no parameters: nothing to copy */
		for (i = 0; i < pi->n; i++)
			total += (pi->size[i] + 15) & ~(size_t)15;
		op->buflen = pi->n * sizeof(void *) + total;
		op->buf = malloc(op->buflen);
		if (!op->buf)
			return -1;
		op->nparams = pi->n;
		*oparams = op->buf;
		data = (char *)op->buf + pi->n * sizeof(void *);
		for (i = 0, at = 0; i < pi->n; i++) {
			memcpy(data + at, params[i], pi->size[i]);
			(*oparams)[i] = data + at;
			at += (pi->size[i] + 15) & ~(size_t)15;
		}
		return 0;
	}
	if (extra) {
		void *ptr = NULL;
		size_t *psize = NULL;
		void **x;
		char *data;
		int i;

		for (i = 0; extra[i] && extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
			if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER)
				ptr = extra[i + 1];
			else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE)
				psize = extra[i + 1];
			else
				return -1;
		}
		if (!ptr || !psize)
			return -1;
		op->buf = malloc(5 * sizeof(void *) + sizeof(size_t) + *psize);
		if (!op->buf)
			return -1;
		x = op->buf;
		data = (char *)(x + 5) + sizeof(size_t);
		memcpy(data, ptr, *psize);
		memcpy(x + 5, psize, sizeof(size_t));
		x[0] = CU_LAUNCH_PARAM_BUFFER_POINTER;
		x[1] = data;
		x[2] = CU_LAUNCH_PARAM_BUFFER_SIZE;
		x[3] = x + 5;
		x[4] = CU_LAUNCH_PARAM_END;
		*oextra = x;
	}
	return 0;
}

/* Module loads: passed through unchanged, recorded for spatial sharing. --- */

/*
 * gsp_mode() first: the first intercepted call opens the tenant, which
 * decides whether spatial sharing is on.
 */
CUresult w_cuModuleLoad(CUmodule *m, const char *fname)
{
	CUresult r;

	gsp_mode();
	r = CALL_REAL(cuModuleLoad, (m, fname));
	if (r == CUDA_SUCCESS && m)
		gsp_sp_image_file(*m, fname);
	return r;
}
GSP_EXPORT(cuModuleLoad)

CUresult w_cuModuleLoadData(CUmodule *m, const void *image)
{
	CUresult r;

	gsp_mode();
	r = CALL_REAL(cuModuleLoadData, (m, image));
	if (r == CUDA_SUCCESS && m)
		gsp_sp_image(*m, image, SIZE_MAX);
	return r;
}
GSP_EXPORT(cuModuleLoadData)

CUresult w_cuModuleLoadDataEx(CUmodule *m, const void *image,
			      unsigned int n, CUjit_option *o, void **v)
{
	CUresult r;

	gsp_mode();
	r = CALL_REAL(cuModuleLoadDataEx, (m, image, n, o, v));
	if (r == CUDA_SUCCESS && m)
		gsp_sp_image(*m, image, SIZE_MAX);
	return r;
}
GSP_EXPORT(cuModuleLoadDataEx)

CUresult w_cuModuleLoadFatBinary(CUmodule *m, const void *fat)
{
	CUresult r;

	gsp_mode();
	r = CALL_REAL(cuModuleLoadFatBinary, (m, fat));
	if (r == CUDA_SUCCESS && m)
		gsp_sp_image(*m, fat, SIZE_MAX);
	return r;
}
GSP_EXPORT(cuModuleLoadFatBinary)

CUresult w_cuLibraryLoadData(CUlibrary *l, const void *code,
			     CUjit_option *jo, void **jv, unsigned int jn,
			     CUlibraryOption *lo, void **lv,
			     unsigned int ln)
{
	CUresult r;

	gsp_mode();
	r = CALL_REAL(cuLibraryLoadData, (l, code, jo, jv, jn, lo, lv, ln));
	if (r == CUDA_SUCCESS && l)
		gsp_sp_lib_image(*l, code, SIZE_MAX);
	return r;
}
GSP_EXPORT(cuLibraryLoadData)

CUresult w_cuLibraryLoadFromFile(CUlibrary *l, const char *fname,
				 CUjit_option *jo, void **jv,
				 unsigned int jn, CUlibraryOption *lo,
				 void **lv, unsigned int ln)
{
	CUresult r;

	gsp_mode();
	r = CALL_REAL(cuLibraryLoadFromFile, (l, fname, jo, jv, jn, lo, lv, ln));
	if (r == CUDA_SUCCESS && l)
		gsp_sp_lib_image_file(*l, fname);
	return r;
}
GSP_EXPORT(cuLibraryLoadFromFile)

CUresult w_cuModuleGetFunction(CUfunction *f, CUmodule m,
			       const char *name)
{
	CUresult r = CALL_REAL(cuModuleGetFunction, (f, m, name));

	if (r == CUDA_SUCCESS && f && name)
		gsp_sp_child(*f, m, name);
	return r;
}
GSP_EXPORT(cuModuleGetFunction)

CUresult w_cuLibraryGetKernel(CUkernel *k, CUlibrary l,
			      const char *name)
{
	CUresult r = CALL_REAL(cuLibraryGetKernel, (k, l, name));

	if (r == CUDA_SUCCESS && k && name)
		gsp_sp_child(*k, l, name);
	return r;
}
GSP_EXPORT(cuLibraryGetKernel)

CUresult w_cuLibraryGetModule(CUmodule *m, CUlibrary l)
{
	CUresult r = CALL_REAL(cuLibraryGetModule, (m, l));

	if (r == CUDA_SUCCESS && m)
		gsp_sp_child(*m, l, NULL);
	return r;
}
GSP_EXPORT(cuLibraryGetModule)

CUresult w_cuKernelGetFunction(CUfunction *f, CUkernel k)
{
	CUresult r = CALL_REAL(cuKernelGetFunction, (f, k));

	/* The function keeps its kernel's name (a NULL name says so). */
	if (r == CUDA_SUCCESS && f)
		gsp_sp_child(*f, k, NULL);
	return r;
}
GSP_EXPORT(cuKernelGetFunction)

/* Stream creation: an LC tenant's streams get the greatest priority. ------ */

CUresult w_cuStreamCreate(CUstream *s, unsigned int flags)
{
	return gsp_lcprio_create(s, flags, 0, 0);
}
GSP_EXPORT(cuStreamCreate)

CUresult w_cuStreamCreateWithPriority(CUstream *s, unsigned int flags,
				      int prio)
{
	return gsp_lcprio_create(s, flags, prio, 1);
}
GSP_EXPORT(cuStreamCreateWithPriority)

/* cuGetProcAddress ---------------------------------------------------------- */

/* Swaps in our wrapper when the driver resolved a variant we implement. */
static void proc_fixup(const char *api, void **pfn, int ver, uint64_t flags)
{
	int known, i;

	if (!api || !pfn || !*pfn)
		return;
	i = gsp_hook_select(api, ver, flags, &known);
	if (i >= 0) {
		struct gsp_hook *h = &gsp_hooks[i];
		void *expect = NULL;

		if (*pfn != h->wrapper) {
			atomic_compare_exchange_strong(&h->real, &expect, *pfn);
			*pfn = h->wrapper;
		}
		return;
	}
	if (known) {
		i = gsp_hook_by_api(api);
		gsp_warn_once(&gsp_hooks[i].warned,
			      "passing through %s (no wrapper for its variant at cudaVersion %d, flags %#llx)",
			      api, ver, (unsigned long long)flags);
	}
}

CUresult w_cuGetProcAddress(const char *sym, void **pfn, int ver,
			    cuuint64_t flags)
{
	CUresult r = CALL_REAL(cuGetProcAddress, (sym, pfn, ver, flags));

	if (r == CUDA_SUCCESS)
		proc_fixup(sym, pfn, ver, flags);
	return r;
}
GSP_EXPORT(cuGetProcAddress)

CUresult w_cuGetProcAddress_v2(const char *sym, void **pfn, int ver,
			       cuuint64_t flags,
			       CUdriverProcAddressQueryResult *st)
{
	CUresult r = CALL_REAL(cuGetProcAddress_v2, (sym, pfn, ver, flags, st));

	if (r == CUDA_SUCCESS && (!st || *st == CU_GET_PROC_ADDRESS_SUCCESS))
		proc_fixup(sym, pfn, ver, flags);
	return r;
}
GSP_EXPORT(cuGetProcAddress_v2)

/* The table, and the check of our exported symbols --------------------------- */

#define GSP_HOOK_ENTRY(sym_, proto_, api_, pt_, vmin_, vmax_)		\
	[H_##sym_] = { .sym = #sym_, .api = api_, .pt = pt_,		\
		       .vmin = vmin_, .vmax = vmax_,			\
		       .wrapper = (void *)w_##sym_ },
struct gsp_hook gsp_hooks[GSP_NHOOKS] = { GSP_HOOKS(GSP_HOOK_ENTRY) };

/*
 * Programs linked with -lcuda bind to the symbols each wrapper's file
 * exports (GSP_EXPORT). This table names every one of them, so that a
 * hook left unexported fails the link (-z defs); nothing reads it.
 */
#define GSP_HOOK_EXPORTED(sym_, proto_, api_, pt_, vmin_, vmax_)	\
	extern __typeof__(w_##sym_) sym_ __attribute__((visibility("default")));
GSP_HOOKS(GSP_HOOK_EXPORTED)
#undef GSP_HOOK_EXPORTED
#define GSP_HOOK_EXPORTED(sym_, proto_, api_, pt_, vmin_, vmax_) (void *)sym_,
static void *const gsp_exported[] __attribute__((used)) = {
	GSP_HOOKS(GSP_HOOK_EXPORTED)
};
