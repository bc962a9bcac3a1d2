// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * How programs find the driver, and how we find it behind them: the dlsym
 * override, lazy lookup of the real functions, the cudaVersion/flags
 * variant selection that the cuGetProcAddress wrappers use, and the
 * filling of real.h's table (cudrv). The hooks' table itself (gsp_hooks[])
 * is defined next to the wrappers, in ops.c.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include "real.h"

typedef void *(*dlsym_fn)(void *, const char *);

/* Set once by pthread_once; read-only afterwards. */
static dlsym_fn real_dlsym;
static pthread_once_t real_dlsym_once = PTHREAD_ONCE_INIT;

static void find_real_dlsym(void)
{
	/* glibc 2.34 moved dlsym into libc; older ones only have 2.2.5. */
	real_dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!real_dlsym)
		real_dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
}

static dlsym_fn get_real_dlsym(void)
{
	pthread_once(&real_dlsym_once, find_real_dlsym);
	return real_dlsym;
}

int gsp_hook_by_sym(const char *sym)
{
	int i;

	for (i = 0; i < GSP_NHOOKS; i++)
		if (!strcmp(gsp_hooks[i].sym, sym))
			return i;
	return -1;
}

int gsp_hook_by_api(const char *api)
{
	int i;

	for (i = 0; i < GSP_NHOOKS; i++)
		if (!strcmp(gsp_hooks[i].api, api))
			return i;
	return -1;
}

int gsp_hook_select(const char *api, int ver, uint64_t flags, int *known_api)
{
	int ptds = !!(flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM);
	int i;

	*known_api = 0;
	for (i = 0; i < GSP_NHOOKS; i++) {
		const struct gsp_hook *h = &gsp_hooks[i];

		if (strcmp(h->api, api))
			continue;
		*known_api = 1;
		if (h->pt != PT_ANY && h->pt != ptds)
			continue;
		if (ver >= h->vmin && ver <= h->vmax)
			return i;
	}
	return -1;
}

/*
 * The driver library. The program loaded it (linked, or dlopen'd by
 * cudart) before any wrapper could run, so RTLD_NOLOAD finds it; we only
 * load it ourselves if it somehow is not there yet.
 */
static void *libcuda(void)
{
	static _Atomic(void *) handle;	/* cached dlopen handle, never closed */
	void *h = atomic_load_explicit(&handle, memory_order_acquire);

	if (h)
		return h;
	h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (!h)
		h = dlopen("libcuda.so.1", RTLD_NOW);
	if (h)
		atomic_store_explicit(&handle, h, memory_order_release);
	return h;
}

void *gsp_real_sym(const char *sym)
{
	void *h = libcuda();

	return h ? get_real_dlsym()(h, sym) : NULL;
}

void *gsp_real(enum gsp_hook_id id)
{
	struct gsp_hook *hk = &gsp_hooks[id];
	void *p = atomic_load_explicit(&hk->real, memory_order_acquire);
	void *expect = NULL;

	if (p)
		return p;
	p = gsp_real_sym(hk->sym);
	if (!p || p == hk->wrapper)
		return NULL;
	/* Several threads may race here; they all found the same answer. */
	if (!atomic_compare_exchange_strong(&hk->real, &expect, p))
		return expect;
	return p;
}

/*
 * Our dlsym: hooked driver names resolve to our wrappers, everything else
 * to the real dlsym. The fall-through is a sibling call (no frame of ours
 * in between), so glibc still sees the caller's return address and
 * RTLD_NEXT keeps meaning "after the caller"; tests/preload checks this.
 */
__attribute__((visibility("default"))) void *dlsym(void *handle,
						   const char *name);
void *dlsym(void *handle, const char *name)
{
	dlsym_fn rd = get_real_dlsym();

	if (name[0] == 'c' && name[1] == 'u') {
		int i = gsp_hook_by_sym(name);

		if (i >= 0) {
			struct gsp_hook *hk = &gsp_hooks[i];
			void *p = rd(handle, name);
			void *expect = NULL;

			if (!p)
				return NULL;
			if (p != hk->wrapper)
				atomic_compare_exchange_strong(&hk->real,
							       &expect, p);
			return hk->wrapper;
		}
	}
	return rd(handle, name);
}

/* The real driver functions of real.h ------------------------------------- */

struct gsp_cudrv cudrv;
static pthread_once_t cudrv_once = PTHREAD_ONCE_INIT;

static void *real_or(enum gsp_hook_id id, enum gsp_hook_id old)
{
	void *p = gsp_real(id);

	return p ? p : gsp_real(old);
}

#define BY_HOOK(sym)		gsp_real(H_##sym)
#define BY_HOOK_OR(sym, old)	real_or(H_##sym, H_##old)
#define BY_SYM(name)		gsp_real_sym(name)
#define LOAD_ONE(field, proto, how, need) *(void **)&cudrv.field = how;
#define LOAD_TWO(field, proto, how0, need0, how1, need1)		\
	*(void **)&cudrv.field[0] = how0;				\
	*(void **)&cudrv.field[1] = how1;

static void cudrv_fill(void)
{
	GSP_CUDRV_FNS(LOAD_ONE, LOAD_TWO)
}

void gsp_cudrv_load(void)
{
	pthread_once(&cudrv_once, cudrv_fill);
}

#define HAS_ONE(field, proto, how, need)				\
	if (((need) & want) && !cudrv.field)				\
		return 0;
#define HAS_TWO(field, proto, how0, need0, how1, need1)		\
	if (((need0) & want) && !cudrv.field[0])			\
		return 0;						\
	if (((need1) & want) && !cudrv.field[1])			\
		return 0;

int gsp_cudrv_has(unsigned int want)
{
	GSP_CUDRV_FNS(HAS_ONE, HAS_TWO)
	return 1;
}
