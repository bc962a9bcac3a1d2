// SPDX-License-Identifier: GPL-2.0
/*
 * Exact placement (libgsp/preload/lcgreen.c, lcprio.c, spatial.c's
 * ranks) against the fake libcuda: 64 SMs, a green context of n SMs has
 * %smid 64-n..63 (fake_cuda.c), and the board's partition is 20,1 (run.sh
 * sets FAKE_CUDA_SMS=64 FAKE_GSP_PART=20,1). Scenarios:
 *
 *   lc  an LC tenant. LCGREEN_WANT=1 (GSP_LC_GREEN auto): a green context
 *       of 16 SMs (20 rounded down to the step of 8), its SMs on the
 *       board's slot before the first launch, and every cuLaunchKernel
 *       and cuLaunchKernelEx (and _ptsz) on any stream on a green stream
 *       of priority -5, one per program stream, tied both ways;
 *       cooperative launches and graphs as before; captures untouched.
 *       LCGREEN_WANT=0 (GSP_LC_GREEN=0): none of that.
 *   be  a BE tenant: its ctls rank the LC slots' SMs first; a change
 *       re-ranks idle ctls, never one whose kernel runs.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <unistd.h>

#include <cuda.h>
#include <gsp_board.h>
#include <gsp_persist.h>

#include "fake_cuda.h"
#include "tap.h"

#define CTX ((CUcontext)0xc0)
#define DST ((CUdeviceptr)0x7000)
#define GREATEST (-5)

CUresult cuLaunchKernel_ptsz(CUfunction, unsigned int, unsigned int,
			     unsigned int, unsigned int, unsigned int,
			     unsigned int, unsigned int, CUstream, void **,
			     void **);

static CUfunction fn1;
static int want;
static char pinned[1 << 12];
static struct gsp_board *(*board)(void);

static struct fake_call get(int i)
{
	struct fake_call c;

	fake_trace_get((unsigned int)i, &c);
	return c;
}

static int find(const char *name, uint64_t payload)
{
	int i, n = (int)fake_trace_len();

	for (i = 0; i < n; i++) {
		struct fake_call c = get(i);

		if (!strncmp(c.name, name, strlen(name)) && c.payload == payload)
			return i;
	}
	return -1;
}

static unsigned int count(const char *name)
{
	unsigned int i, k = 0;

	for (i = 0; i < fake_trace_len(); i++)
		k += !strcmp(get((int)i).name, name);
	return k;
}

/* A path back from @later to @earlier through stream order and waits. */
static int after(int later, int earlier)
{
	static int stack[1 << 14];
	static unsigned char seen[1 << 13];
	int n = (int)fake_trace_len(), sp = 0;

	if (later < 0 || earlier < 0 || n > (int)sizeof(seen))
		return 0;
	memset(seen, 0, (size_t)n);
	stack[sp++] = later;
	while (sp) {
		int i = stack[--sp];
		struct fake_call c;

		if (i == earlier)
			return 1;
		if (i < 0 || seen[i])
			continue;
		seen[i] = 1;
		c = get(i);
		stack[sp++] = c.prev;
		if (c.waits >= 0)
			stack[sp++] = c.waits;
	}
	return 0;
}

/*
 * The launch at @k ran on another stream of priority -5, non-blocking,
 * in a green context of @sms SMs (0: none), after a wait for an event
 * recorded on @prog, and @prog waits for an event recorded after it.
 */
static int moved(int k, uintptr_t prog, unsigned int sms, uintptr_t *ps)
{
	struct fake_call c, w;
	int i, j, n = (int)fake_trace_len(), in = 0;

	if (k < 0)
		return 0;
	c = get(k);
	*ps = c.stream;
	if (c.stream == prog || c.prio != GREATEST || c.sms != sms ||
	    !(c.sflags & CU_STREAM_NON_BLOCKING))
		return 0;
	for (i = c.prev; i >= 0 && !in; i = w.prev) {
		w = get(i);
		in = !strcmp(w.name, "cuStreamWaitEvent") && w.waits >= 0 &&
		     get(w.waits).stream == prog;
	}
	for (i = k + 1; in && i < n; i++) {
		w = get(i);
		if (w.stream != c.stream || strcmp(w.name, "cuEventRecord"))
			continue;
		for (j = i + 1; j < n; j++) {
			struct fake_call b = get(j);

			if (b.waits == i && b.stream == prog &&
			    !strcmp(b.name, "cuStreamWaitEvent"))
				return 1;
		}
	}
	return 0;
}

static void launch(CUstream s, int arg)
{
	void *p[] = { &arg };

	cuLaunchKernel(fn1, 1, 1, 1, 1, 1, 1, 0, s, p, NULL);
}

static void copy(CUstream s, size_t n)
{
	cuMemcpyHtoDAsync(DST, pinned, n, s);
}

static void *gsp_sym(const char *name)
{
	void *h = dlopen("libgsp.so.1", RTLD_NOW | RTLD_NOLOAD);
	Dl_info di;
	char path[4096];

	if (!h && dladdr(dlsym(RTLD_DEFAULT, "cuLaunchKernel"), &di)) {
		snprintf(path, sizeof(path), "%s", di.dli_fname);
		*strrchr(path, '/') = 0;
		strncat(path, "/libgsp.so.1", sizeof(path) - strlen(path) - 1);
		h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	}
	return h ? dlsym(h, name) : NULL;
}

/* The SMs lo..hi-1 as a board mask. */
static void mask_of(uint64_t m[4], unsigned int lo, unsigned int hi)
{
	memset(m, 0, 4 * sizeof(*m));
	for (; lo < hi; lo++)
		m[lo / 64] |= 1ULL << (lo % 64);
}

/* The LC side ------------------------------------------------------------ */

static void t_lc(void)
{
	CUlaunchAttribute coop = { .id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE };
	CUlaunchConfig cfg = {
		.gridDimX = 2, .gridDimY = 1, .gridDimZ = 1,
		.blockDimX = 32, .blockDimY = 1, .blockDimZ = 1,
	};
	struct gsp_board_lc *slot = &board()->lc[3];
	uint64_t m[4], before[4], seen[4];
	uintptr_t ps1 = 0, ps2 = 0, ps = 0, psl = 0;
	CUstream s1, s2;
	int a, k, b, probe, g;
	void *p[] = { &a };

	memcpy(before, (const void *)slot->sm_mask, sizeof(before));
	cuStreamCreate(&s1, 0);
	cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING);
	fake_trace_reset();
	copy(s1, 100);
	launch(s1, 11);
	copy(s1, 101);
	cuCtxSynchronize();
	memcpy(seen, (const void *)slot->sm_mask, sizeof(seen));
	k = find("cuLaunchKernel", 11);
	b = find("cuMemcpyHtoDAsync", 100);
	a = find("cuMemcpyHtoDAsync", 101);
	g = find("cuGreenCtxCreate", 16);
	probe = -1;
	for (int i = 0; i < (int)fake_trace_len() && probe < 0; i++)
		if (!strcmp(get(i).fn, "gsp_sm_probe"))
			probe = i;
	mask_of(m, 48, 64);
	if (want) {
		tap_ok(g >= 0 && g < k && probe > g && probe < k &&
		       get(probe).sms == 16,
		       "lc: a green context of 16 SMs (n=20 rounded down to 8s) is made and probed on its own stream before the first launch");
		tap_ok(!before[0] && !memcmp(seen, m, sizeof(m)),
		       "lc: the slot's sm_mask is the green context's %%smids 48..63 (%#llx), 0 before",
		       (unsigned long long)seen[0]);
		tap_ok(moved(k, (uintptr_t)s1, 16, &ps1),
		       "lc: a launch on a program stream runs on a green stream of priority -5, tied both ways");
	} else {
		tap_ok(g < 0 && !count("cuGreenCtxCreate") && !seen[0],
		       "lc: GSP_LC_GREEN=0: no green context, no SM mask");
		tap_ok(get(k).stream == (uintptr_t)s1 && !count("cuStreamWaitEvent"),
		       "lc: GSP_LC_GREEN=0: a launch on a program stream stays there, nothing tied");
	}
	tap_ok(after(k, b) && after(a, k) && get(a).stream == (uintptr_t)s1,
	       "lc: it runs after the copy before it and before the copy after it, which stay");

	/* Legacy, _ptsz, Ex, a second stream; cooperative and graphs. */
	fake_trace_reset();
	launch(NULL, 21);
	a = 22;
	cuLaunchKernel_ptsz(fn1, 1, 1, 1, 1, 1, 1, 0, s1, p, NULL);
	a = 23;
	cfg.hStream = s2;
	cuLaunchKernelEx(&cfg, fn1, p, NULL);
	cfg.attrs = &coop;
	cfg.numAttrs = 1;
	coop.value.cooperative = 1;
	a = 24;
	cfg.hStream = NULL;
	cuLaunchKernelEx(&cfg, fn1, p, NULL);
	a = 25;
	cfg.hStream = s2;
	cuLaunchKernelEx(&cfg, fn1, p, NULL);
	a = 26;
	cuLaunchCooperativeKernel(fn1, 1, 1, 1, 1, 1, 1, 0, s1, p);
	cuGraphLaunch((CUgraphExec)0x777, s1);
	cuCtxSynchronize();
	if (want) {
		tap_ok(moved(find("cuLaunchKernel", 21), 0, 16, &psl) &&
		       psl != ps1,
		       "lc: a launch on the legacy stream runs on a green stream of its own");
		tap_ok(moved(find("cuLaunchKernel_ptsz", 22), (uintptr_t)s1, 16,
			     &ps) && ps == ps1,
		       "lc: cuLaunchKernel_ptsz on the same program stream reuses its green stream");
		tap_ok(moved(find("cuLaunchKernelEx", 23), (uintptr_t)s2, 16,
			     &ps2) && ps2 != ps1 && get(find("cuLaunchKernelEx", 23)).grid[0] == 2,
		       "lc: cuLaunchKernelEx on a second program stream runs on another green stream, its grid kept");
		k = find("cuLaunchKernelEx", 24 + 1000 * CU_LAUNCH_ATTRIBUTE_COOPERATIVE + 100000);
		tap_ok(moved(k, 0, 0, &ps),
		       "lc: a cooperative cuLaunchKernelEx on the legacy stream runs on a plain priority stream, not a green one");
	}
	k = find("cuLaunchKernelEx", 25 + 1000 * CU_LAUNCH_ATTRIBUTE_COOPERATIVE + 100000);
	tap_ok(k >= 0 && get(k).stream == (uintptr_t)s2,
	       "lc: a cooperative cuLaunchKernelEx on a program stream stays there");
	k = find("cuLaunchCooperativeKernel", 26);
	b = find("cuGraphLaunch", 0x777);
	tap_ok(k >= 0 && get(k).stream == (uintptr_t)s1 && b >= 0 &&
	       get(b).stream == (uintptr_t)s1,
	       "lc: cooperative and graph launches on a program stream stay there");

	/* A capture is left alone. */
	fake_trace_reset();
	cuStreamBeginCapture(s2, CU_STREAM_CAPTURE_MODE_RELAXED);
	launch(s2, 31);
	{
		CUgraph gr;

		cuStreamEndCapture(s2, &gr);
	}
	k = find("cuLaunchKernel", 31);
	tap_ok(k >= 0 && get(k).stream == (uintptr_t)s2 &&
	       !count("cuStreamWaitEvent"),
	       "lc: a launch into a capturing stream stays there, nothing tied");

	/* Events are reused; a destroyed stream's green stream goes. */
	fake_trace_reset();
	for (int i = 0; i < 50; i++)
		launch(s1, 1000 + i);
	cuCtxSynchronize();
	tap_ok(!count("cuEventCreate") && !count("cuGreenCtxStreamCreate"),
	       "lc: 50 more launches make no event and no stream");
	fake_trace_reset();
	cuStreamDestroy(s1);
	k = 0;
	for (int i = 0; i < (int)fake_trace_len(); i++)
		k += !strcmp(get(i).name, "cuStreamDestroy_v2") &&
		     get(i).stream == ps1;
	tap_ok(want ? k == 1 && ps1 != (uintptr_t)s1 : !k,
	       "lc: cuStreamDestroy of a program stream %s", want ?
	       "destroys its green stream" : "destroys nothing of ours");
}

/* The BE side ------------------------------------------------------------ */

static const char be_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n\n"
	".visible .entry k1(\n\t.param .u32 k1_param_0\n)\n{\n"
	"\t.reg .b32 %r<4>;\n\tld.param.u32 %r1, [k1_param_0];\n"
	"\tmov.u32 %r2, %ctaid.x;\n\tadd.s32 %r3, %r1, %r2;\n\tret;\n}\n";

/* The ctl of the latest k1__gsp primary launch. */
static const struct gsp_persist_ctl *last_ctl(void)
{
	struct gsp_persist_job j;
	int i;

	for (i = (int)fake_trace_len() - 1; i >= 0; i--) {
		struct fake_call c = get(i);

		if (!strcmp(c.fn, "k1__gsp") && c.has_job) {
			memcpy(&j, c.job, sizeof(j));
			return (const void *)(uintptr_t)j.ctl;
		}
	}
	return NULL;
}

/* @t ranks SMs lo..hi-1 first (0..), then the others from 0 in order. */
static int ranks_first(const struct gsp_persist_ctl *t, unsigned int lo,
		       unsigned int hi)
{
	unsigned int i, r = hi - lo;

	if (!t)
		return 0;
	for (i = lo; i < hi; i++)
		if (t->sm[i].sm_rank != i - lo)
			return 0;
	for (i = 0; i < 64; i++)
		if ((i < lo || i >= hi) && t->sm[i].sm_rank != r++)
			return 0;
	return t->sm[64].sm_rank == GSP_PERSIST_NO_RANK;
}

static void t_be(void)
{
	struct gsp_board_lc *lc = &board()->lc[5];
	const struct gsp_persist_ctl *t1, *t2, *t3;
	CUfunction k1;
	CUmodule mod;
	CUstream s;
	uint64_t m[4];
	int a = 7, i;
	void *p[] = { &a };

	cuModuleLoadData(&mod, be_ptx);
	cuModuleGetFunction(&k1, mod, "k1");
	cuStreamCreate(&s, CU_STREAM_NON_BLOCKING);
	/* An LC tenant on SMs 48..63 of device 0; one of device 1 on 0..7. */
	mask_of(m, 48, 64);
	memcpy(lc->sm_mask, m, sizeof(m));
	lc->device = 0;
	lc->owner = 9;
	mask_of(m, 0, 8);
	memcpy(board()->lc[6].sm_mask, m, sizeof(m));
	board()->lc[6].device = 1;
	board()->lc[6].owner = 10;
	fake_hold(1);		/* launches stay "running" */
	fake_trace_reset();
	cuLaunchKernel(k1, 400, 1, 1, 64, 1, 1, 0, s, p, NULL);
	cuCtxSynchronize();
	t1 = last_ctl();
	tap_ok(ranks_first(t1, 48, 64),
	       "be: a new ctl ranks the LC's SMs (48..63) first, then the rest by %%smid; another device's LC does not count");

	/* The LC's SMs change while t1 runs: a new ctl, t1 untouched. */
	mask_of(m, 8, 16);
	memcpy(lc->sm_mask, m, sizeof(m));
	cuLaunchKernel(k1, 400, 1, 1, 64, 1, 1, 0, s, p, NULL);
	cuCtxSynchronize();
	t2 = last_ctl();
	tap_ok(t2 && t2 != t1 && ranks_first(t2, 8, 16),
	       "be: after a change, a new ctl ranks the new SMs (8..15) first");
	tap_ok(ranks_first(t1, 48, 64),
	       "be: the ranks of a ctl whose kernel runs are not rewritten");

	/* Both end; a third change re-ranks the idle ctl reused. */
	fake_hold(0);
	for (i = 0; i < 100; i++)
		usleep(2000);
	mask_of(m, 16, 24);
	memcpy(lc->sm_mask, m, sizeof(m));
	fake_trace_reset();
	cuLaunchKernel(k1, 400, 1, 1, 64, 1, 1, 0, s, p, NULL);
	cuCtxSynchronize();
	t3 = last_ctl();
	tap_ok((t3 == t1 || t3 == t2) && ranks_first(t3, 16, 24),
	       "be: an idle ctl reused after a change is re-ranked (16..23 first)");
	/* The LC slot is cleared: plain %smid order again. */
	lc->owner = 0;
	memset(lc->sm_mask, 0, sizeof(lc->sm_mask));
	for (i = 0; i < 50; i++)
		usleep(2000);
	cuLaunchKernel(k1, 400, 1, 1, 64, 1, 1, 0, s, p, NULL);
	cuCtxSynchronize();
	tap_ok(ranks_first(last_ctl(), 0, 0),
	       "be: with no LC mask, ranks follow %%smid order");
}

int main(int argc, char **argv)
{
	static const size_t one_int[] = { 4 };

	if (argc != 2) {
		fprintf(stderr, "usage: test_lcgreen lc|be|none\n");
		return 2;
	}
	want = getenv("LCGREEN_WANT") && !strcmp(getenv("LCGREEN_WANT"), "1");
	cuInit(0);
	fn1 = fake_function(1, one_int);
	fake_register(pinned, sizeof(pinned), CU_MEMORYTYPE_HOST);
	cuCtxSetCurrent(CTX);
	if (!strcmp(argv[1], "none"))	/* a bad knob: the setup alone */
		return tap_done();
	*(void **)&board = gsp_sym("fake_gsp_board");
	if (!board) {
		tap_ok(0, "the fake libgsp is loaded");
		return tap_done();
	}
	if (!strcmp(argv[1], "lc"))
		t_lc();
	else if (!strcmp(argv[1], "be"))
		t_be();
	else
		return 2;
	return tap_done();
}
