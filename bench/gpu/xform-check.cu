// SPDX-License-Identifier: GPL-2.0
/*
 * xform-check: runs kernels as nvcc compiled them and as gsp-xform
 * transformed them (NAME and NAME__gsp of the same module, loaded with
 * cuModuleLoadData), on a GPU.
 *
 *   xform-check OUTDIR MODULE.xform.ptx...
 *
 * Writes OUTDIR/xform-check.csv, one row per kernel: outputs bitwise
 * equal?, every task done exactly once?, median time of the original and
 * of the transformed launch (the ctl reset included), overhead; and
 * OUTDIR/xform-yield.csv: for a long transformed mm run, per (n, k): the
 * slots held on every SM after the yield request, the time until the
 * request was seen fully obeyed, and whether the result of the run (with
 * the yield and a top-up relaunch) is still bitwise equal; and
 * OUTDIR/xform-latency.csv: per BE task length and trial, how long after
 * the host's request an LC kernel (launched right after it, needing the
 * freed slots) started its first and its last block, and when the BE's
 * last yielding block left, all on the host clock (%globaltimer mapped
 * to it by a ping-pong calibration), with a p50/p99/max summary in
 * OUTDIR/xform-latency-summary.csv.
 * Exit status 0 only if every correctness check passed (latency targets
 * are reported, not enforced).
 */
#include <cuda.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <algorithm>
#include <string>
#include <vector>
#include "gsp_persist.h"

#define CU(x) do {							\
	CUresult r_ = (x);						\
	if (r_ != CUDA_SUCCESS) {					\
		const char *s_ = "?";					\
		cuGetErrorString(r_, &s_);				\
		fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__,	\
			#x, s_);					\
		exit(1);						\
	}								\
} while (0)

/* Records %smid of every block: the SM rank table comes from it. */
static const char probe_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry probe(.param .u64 out)\n{\n"
	"\t.reg .b32 %r<3>;\n\t.reg .b64 %rd<4>;\n"
	"\tld.param.u64 %rd1, [out];\n\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tmov.u32 %r1, %smid;\n\tmul.wide.u32 %rd2, %r1, 4;\n"
	"\tadd.s64 %rd3, %rd1, %rd2;\n\tmov.u32 %r2, 1;\n"
	"\tst.global.u32 [%rd3], %r2;\n\tret;\n}\n";

/* One argument: a scalar, or a buffer (input: filled; output: the same
 * fill before each run, so in-out buffers start equal). */
struct arg {
	char kind;	/* 'i' int, 'f' float, 'b' buffer */
	double v;	/* scalar value */
	size_t bytes;	/* buffer size */
	char fill;	/* 'f' floats in [-1, 1), 'u' bytes, 'o' 0/1 ints, 'z' zero */
};

struct spec {
	const char *label;
	const char *name;	/* mangled kernel name */
	unsigned grid[3], block[3];
	unsigned dyn_smem;
	std::vector<arg> args;
};

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s;
}

static void fill(std::vector<unsigned char> &h, char how, uint32_t seed)
{
	size_t i;

	for (i = 0; i + 4 <= h.size() || (how == 'u' && i < h.size()); ) {
		uint32_t r = lcg(&seed);

		if (how == 'u') {
			h[i++] = (unsigned char)(r >> 24);
			continue;
		}
		float f = (float)(r >> 8) / 8388608.0f - 1.0f;
		int o = (r >> 31) & 1;
		uint32_t w = how == 'f' ? 0 : how == 'o' ? (uint32_t)o : 0;

		if (how == 'f')
			memcpy(&w, &f, 4);
		memcpy(&h[i], &w, 4);
		i += 4;
	}
}

struct dev {
	CUdevice d;
	CUcontext ctx;
	int nsm;
	std::vector<uint32_t> rank;	/* by %smid */
	uint64_t *ctrl_host;		/* pinned, mapped: the control word */
	CUdeviceptr ctrl_dev;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void rank_table(struct dev *g)
{
	CUmodule m;
	CUfunction f;
	CUdeviceptr flags;
	uint32_t h[GSP_PERSIST_MAX_SM];
	void *p[] = { &flags };
	int n = 0;

	CU(cuModuleLoadData(&m, probe_ptx));
	CU(cuModuleGetFunction(&f, m, "probe"));
	CU(cuMemAlloc(&flags, sizeof(h)));
	CU(cuMemsetD8(flags, 0, sizeof(h)));
	CU(cuLaunchKernel(f, 64 * g->nsm, 1, 1, 128, 1, 1, 0, 0, p, NULL));
	CU(cuMemcpyDtoH(h, flags, sizeof(h)));
	g->rank.assign(GSP_PERSIST_MAX_SM, GSP_PERSIST_NO_RANK);
	for (int s = 0; s < GSP_PERSIST_MAX_SM; s++)
		if (h[s])
			g->rank[s] = n++;
	if (n != g->nsm)
		fprintf(stderr, "xform-check: probe saw %d SMs, the device has %d\n",
			n, g->nsm);
	cuMemFree(flags);
	cuModuleUnload(m);
}

/* A fresh control block for one job of f with grid g; returns K. */
static unsigned ctl_init(struct dev *gd, CUdeviceptr ctl, CUfunction f,
			 const struct spec *s, CUstream st,
			 uint32_t refresh_ns = GSP_PERSIST_REFRESH_NS)
{
	struct gsp_persist_ctl c;
	int k = 0;

	memset(&c, 0, sizeof(c));
	CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&k, f,
		s->block[0] * s->block[1] * s->block[2], s->dyn_smem));
	if (k > GSP_PERSIST_MAX_K)
		k = GSP_PERSIST_MAX_K;
	c.ctrl_ptr = gd->ctrl_dev;
	c.nctaid[0] = s->grid[0];
	c.nctaid[1] = s->grid[1];
	c.nctaid[2] = s->grid[2];
	c.ntasks = (uint64_t)s->grid[0] * s->grid[1] * s->grid[2];
	c.k_slots = (uint32_t)k;
	c.n_sms = (uint32_t)gd->nsm;
	c.refresh_ns = refresh_ns;
	c.ctrl_mirror = __atomic_load_n(gd->ctrl_host, __ATOMIC_ACQUIRE);
	memcpy(c.sm_rank, gd->rank.data(), sizeof(c.sm_rank));
	CU(cuMemcpyHtoDAsync(ctl, &c, sizeof(c), st));
	return (unsigned)k;
}

struct bufs {
	std::vector<CUdeviceptr> d;
	std::vector<std::vector<unsigned char>> init;
	std::vector<void *> params;
	std::vector<double> scal;	/* storage for scalars */
	std::vector<int> ival;
	std::vector<float> fval;
};

static void bufs_make(struct bufs *b, const struct spec *s)
{
	size_t n = s->args.size();

	b->d.assign(n, 0);
	b->init.resize(n);
	b->ival.assign(n, 0);
	b->fval.assign(n, 0);
	b->params.assign(n + 1, NULL);
	for (size_t i = 0; i < n; i++) {
		const struct arg &a = s->args[i];

		if (a.kind == 'i') {
			b->ival[i] = (int)a.v;
			b->params[i] = &b->ival[i];
		} else if (a.kind == 'f') {
			b->fval[i] = (float)a.v;
			b->params[i] = &b->fval[i];
		} else {
			b->init[i].assign(a.bytes, 0);
			fill(b->init[i], a.fill, 12345u + (uint32_t)i);
			CU(cuMemAlloc(&b->d[i], a.bytes));
			b->params[i] = &b->d[i];
		}
	}
}

static void bufs_reset(struct bufs *b, CUstream st)
{
	for (size_t i = 0; i < b->d.size(); i++)
		if (b->d[i])
			CU(cuMemcpyHtoDAsync(b->d[i], b->init[i].data(),
					     b->init[i].size(), st));
}

static std::vector<std::vector<unsigned char>> bufs_read(struct bufs *b)
{
	std::vector<std::vector<unsigned char>> out(b->d.size());

	for (size_t i = 0; i < b->d.size(); i++)
		if (b->d[i]) {
			out[i].resize(b->init[i].size());
			CU(cuMemcpyDtoH(out[i].data(), b->d[i], out[i].size()));
		}
	return out;
}

static void bufs_free(struct bufs *b)
{
	for (CUdeviceptr p : b->d)
		if (p)
			cuMemFree(p);
}

static CUfunction find(const std::vector<CUmodule> &mods, const char *name)
{
	CUfunction f;

	for (CUmodule m : mods)
		if (cuModuleGetFunction(&f, m, name) == CUDA_SUCCESS)
			return f;
	return NULL;
}

static double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? 0 : v[v.size() / 2];
}

/* Median time of reps launches of fx (the ctl's counter reset included). */
static double time_xform(struct dev *gd, CUfunction fx, const struct spec *s,
			 CUdeviceptr ctl, unsigned k, std::vector<void *> &px, int reps)
{
	CUevent e0, e1;
	std::vector<double> tx;

	CU(cuEventCreate(&e0, 0));
	CU(cuEventCreate(&e1, 0));
	for (int r = 0; r < reps; r++) {
		float ms;

		CU(cuEventRecord(e0, 0));
		CU(cuMemsetD8Async(ctl + GSP_PERSIST_OFF_NEXT_TASK, 0, 16, 0));
		CU(cuLaunchKernel(fx, gd->nsm * k, 1, 1, s->block[0], s->block[1],
				  s->block[2], s->dyn_smem, 0, px.data(), NULL));
		CU(cuEventRecord(e1, 0));
		CU(cuEventSynchronize(e1));
		CU(cuEventElapsedTime(&ms, e0, e1));
		tx.push_back(ms * 1e3);
	}
	cuEventDestroy(e0);
	cuEventDestroy(e1);
	return median(tx);
}

/*
 * One kernel: bitwise check, task count, timing of the original, of the
 * transformed kernel as designed (mirror refreshed every
 * GSP_PERSIST_REFRESH_NS) and with refresh_ns = 0 (the host word read at
 * every task boundary, the first design), to show what the mirror buys.
 * *ratio: xform/orig, for the geomean.
 */
static int check_one(struct dev *gd, const std::vector<CUmodule> &mods,
		     const struct spec *s, FILE *csv, double *ratio)
{
	std::string xname = std::string(s->name) + GSP_PERSIST_SUFFIX;
	CUfunction fo = find(mods, s->name), fx = find(mods, xname.c_str());
	CUdeviceptr ctl;
	CUevent e0, e1;
	struct bufs b;
	struct gsp_persist_ctl c;
	unsigned k;
	int reps = 21, same, tasks_ok;
	std::vector<double> to;

	*ratio = 0;
	if (!fo || !fx) {
		fprintf(stderr, "xform-check: %s: %s not in the modules\n", s->label,
			fo ? xname.c_str() : s->name);
		fprintf(csv, "%s,%s,missing,,,,,,,,\n", s->label, s->name);
		return 1;
	}
	bufs_make(&b, s);
	CU(cuMemAlloc(&ctl, sizeof(struct gsp_persist_ctl)));
	CU(cuEventCreate(&e0, 0));
	CU(cuEventCreate(&e1, 0));
	*gd->ctrl_host = GSP_PERSIST_CTRL(0, 0, 0);

	bufs_reset(&b, 0);
	CU(cuLaunchKernel(fo, s->grid[0], s->grid[1], s->grid[2], s->block[0],
			  s->block[1], s->block[2], s->dyn_smem, 0, b.params.data(), NULL));
	CU(cuCtxSynchronize());
	auto want = bufs_read(&b);

	bufs_reset(&b, 0);
	k = ctl_init(gd, ctl, fx, s, 0);
	b.params[s->args.size()] = &ctl;
	std::vector<void *> px(b.params);
	CU(cuLaunchKernel(fx, gd->nsm * k, 1, 1, s->block[0], s->block[1],
			  s->block[2], s->dyn_smem, 0, px.data(), NULL));
	CU(cuCtxSynchronize());
	auto got = bufs_read(&b);
	CU(cuMemcpyDtoH(&c, ctl, sizeof(c)));
	same = got == want;
	tasks_ok = c.done_tasks == c.ntasks && c.live == 0;

	for (int r = 0; r < reps; r++) {
		float ms;

		CU(cuEventRecord(e0, 0));
		CU(cuLaunchKernel(fo, s->grid[0], s->grid[1], s->grid[2], s->block[0],
				  s->block[1], s->block[2], s->dyn_smem, 0,
				  b.params.data(), NULL));
		CU(cuEventRecord(e1, 0));
		CU(cuEventSynchronize(e1));
		CU(cuEventElapsedTime(&ms, e0, e1));
		to.push_back(ms * 1e3);
	}
	double mo = median(to), mx = time_xform(gd, fx, s, ctl, k, px, reps);

	ctl_init(gd, ctl, fx, s, 0, 0);
	double me = time_xform(gd, fx, s, ctl, k, px, reps);

	*ratio = mx / mo;
	fprintf(csv, "%s,%s,%u,%d,%d,%llu,%u,%.2f,%.2f,%.4f,%.2f\n", s->label, s->name,
		k, same, tasks_ok, (unsigned long long)c.ntasks, c.refreshes, mo, mx,
		mx / mo, me);
	printf("%-22s K=%-2u bitwise=%s tasks=%s host_reads=%u orig=%.1fus "
	       "xform=%.1fus (%.3fx) read-every-task=%.1fus\n",
	       s->label, k, same ? "equal" : "DIFFERENT", tasks_ok ? "ok" : "WRONG",
	       c.refreshes, mo, mx, mx / mo, me);
	cuEventDestroy(e0);
	cuEventDestroy(e1);
	cuMemFree(ctl);
	bufs_free(&b);
	return !(same && tasks_ok);
}

/*
 * Yield and top-up on a long mm: publish (n, k) while it runs, poll the
 * slot masks (a copy on a second stream) until the first n ranked SMs
 * hold at most K - k slots, record them, lift the request, relaunch the
 * same kernel to take the freed slots back, and compare the result.
 */
static int yield_test(struct dev *gd, const std::vector<CUmodule> &mods,
		      const struct spec *s, FILE *csv)
{
	std::string xname = std::string(s->name) + GSP_PERSIST_SUFFIX;
	CUfunction fo = find(mods, s->name), fx = find(mods, xname.c_str());
	static const unsigned cfg[][2] = { { 16, 0 }, { 33, 2 }, { 66, 4 }, { 132, 8 } };
	CUstream run, poll;
	CUdeviceptr ctl;
	struct bufs b;
	struct gsp_persist_ctl *c;
	int bad = 0;

	if (!fo || !fx)
		return 1;
	CU(cuMemAllocHost((void **)&c, sizeof(*c)));
	CU(cuStreamCreate(&run, CU_STREAM_NON_BLOCKING));
	CU(cuStreamCreate(&poll, CU_STREAM_NON_BLOCKING));
	CU(cuMemAlloc(&ctl, sizeof(*c)));
	bufs_make(&b, s);
	bufs_reset(&b, 0);
	*gd->ctrl_host = GSP_PERSIST_CTRL(0, 0, 0);
	CU(cuLaunchKernel(fo, s->grid[0], s->grid[1], s->grid[2], s->block[0],
			  s->block[1], s->block[2], s->dyn_smem, 0, b.params.data(), NULL));
	CU(cuCtxSynchronize());
	auto want = bufs_read(&b);

	for (auto &nk : cfg) {
		unsigned n = nk[0] > (unsigned)gd->nsm ? gd->nsm : nk[0], kk;
		unsigned k;
		double t0, t1 = -1;
		uint64_t epoch = 1 + (&nk - cfg);

		bufs_reset(&b, 0);
		*gd->ctrl_host = GSP_PERSIST_CTRL(0, 0, 0);
		k = ctl_init(gd, ctl, fx, s, 0);
		CU(cuCtxSynchronize());
		kk = nk[1] ? nk[1] : k;	/* 0: whole SMs */
		if (kk > k) {
			/* the kernel would read K - k < 0 as "every slot" */
			printf("yield n=%u k=%u: k > K=%u, clamped to k=%u\n", n, kk, k, k);
			kk = k;
		}
		b.params[s->args.size()] = &ctl;
		std::vector<void *> px(b.params);
		CU(cuLaunchKernel(fx, gd->nsm * k, 1, 1, s->block[0], s->block[1],
				  s->block[2], s->dyn_smem, run, px.data(), NULL));
		/* wait until the one wave is in place */
		do {
			CU(cuMemcpyDtoHAsync(c, ctl, sizeof(*c), poll));
			CU(cuStreamSynchronize(poll));
		} while (c->live < (unsigned)gd->nsm * k && c->next_task < c->ntasks);
		t0 = now_us();
		__atomic_store_n(gd->ctrl_host, GSP_PERSIST_CTRL(n, kk, epoch),
				 __ATOMIC_RELEASE);
		while (now_us() - t0 < 2e6) {
			int ok = 1;

			CU(cuMemcpyDtoHAsync(c, ctl, sizeof(*c), poll));
			CU(cuStreamSynchronize(poll));
			for (int sm = 0; sm < GSP_PERSIST_MAX_SM; sm++)
				if (c->sm_rank[sm] < n &&
				    __builtin_popcount(c->slot_mask[sm]) > (int)(k - kk))
					ok = 0;
			if (ok) {
				t1 = now_us();
				break;
			}
		}
		uint64_t left = c->ntasks - (c->next_task < c->ntasks ? c->next_task : c->ntasks);
		for (int sm = 0; sm < GSP_PERSIST_MAX_SM; sm++)
			if (c->sm_rank[sm] != GSP_PERSIST_NO_RANK)
				fprintf(csv, "%u,%u,%u,%u,%d,%u,%.1f,%llu\n", n, kk, k,
					c->sm_rank[sm], sm,
					__builtin_popcount(c->slot_mask[sm]),
					t1 < 0 ? -1.0 : t1 - t0, (unsigned long long)left);
		/* lift the request; top up the freed slots (the mirror first,
		 * so that newcomers do not act on the old word) */
		uint64_t lift = GSP_PERSIST_CTRL(0, 0, epoch + 100);

		__atomic_store_n(gd->ctrl_host, lift, __ATOMIC_RELEASE);
		CU(cuMemcpyHtoDAsync(ctl + GSP_PERSIST_OFF_CTRL_MIRROR, &lift,
				     sizeof(lift), poll));
		CU(cuLaunchKernel(fx, gd->nsm * k, 1, 1, s->block[0], s->block[1],
				  s->block[2], s->dyn_smem, poll, px.data(), NULL));
		CU(cuCtxSynchronize());
		CU(cuMemcpyDtoH(c, ctl, sizeof(*c)));
		auto got = bufs_read(&b);
		int same = got == want, tasks_ok = c->done_tasks == c->ntasks && !c->live;

		printf("yield n=%-3u k=%-2u of K=%-2u: obeyed after %.1f us (poll included), "
		       "%u blocks yielded, result %s, tasks %s\n", n, kk, k,
		       t1 < 0 ? -1.0 : t1 - t0, c->yields, same ? "equal" : "DIFFERENT",
		       tasks_ok ? "ok" : "WRONG");
		bad |= !(same && tasks_ok) || t1 < 0;
	}
	bufs_free(&b);
	cuMemFree(ctl);
	cuMemFreeHost(c);
	return bad;
}

/*
 * %globaltimer minus the host's CLOCK_MONOTONIC, in ns: the host writes
 * ping = i (mapped host memory) and waits for xf_clock_pong to answer
 * with its %globaltimer; the GPU read lies between the host's two clock
 * reads, so the round with the shortest round trip gives the offset with
 * an error of at most half of it (*err_ns). Returns 0 on success.
 */
static int clock_offset(const std::vector<CUmodule> &mods, int64_t *off,
			int64_t *err_ns)
{
	CUfunction f = find(mods, "xf_clock_pong");
	uint32_t *ping;
	uint64_t *pong;
	CUdeviceptr dping, dpong;
	CUstream st;
	unsigned n = 200;
	void *p[] = { &dping, &dpong, &n };
	int64_t best = INT64_MAX;

	if (!f)
		return -1;
	CU(cuMemHostAlloc((void **)&ping, 64, CU_MEMHOSTALLOC_DEVICEMAP));
	CU(cuMemHostAlloc((void **)&pong, 64, CU_MEMHOSTALLOC_DEVICEMAP));
	CU(cuMemHostGetDevicePointer(&dping, ping, 0));
	CU(cuMemHostGetDevicePointer(&dpong, pong, 0));
	*ping = 0;
	pong[0] = pong[1] = 0;
	CU(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
	CU(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, st, p, NULL));
	for (unsigned i = 1; i <= n; i++) {
		int64_t ta = now_ns(), tb;

		__atomic_store_n(ping, i, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&pong[1], __ATOMIC_ACQUIRE) != i)
			if (now_ns() - ta > 2000000000) {
				fprintf(stderr, "xform-check: clock ping-pong: no answer\n");
				exit(1);	/* the kernel still waits on ping */
			}
		tb = now_ns();
		if (tb - ta < best) {
			best = tb - ta;
			*off = (int64_t)__atomic_load_n(&pong[0], __ATOMIC_ACQUIRE) -
			       (ta + tb) / 2;
		}
	}
	CU(cuStreamSynchronize(st));
	cuStreamDestroy(st);
	cuMemFreeHost(ping);
	cuMemFreeHost(pong);
	*err_ns = best / 2;
	return 0;
}

static double pct(std::vector<double> v, double q)
{
	size_t i;

	if (v.empty())
		return NAN;
	std::sort(v.begin(), v.end());
	i = (size_t)ceil(q * v.size());
	return v[i ? i - 1 : 0];
}

/*
 * Yield latency as the LC sees it. A BE xf_spin__gsp whose tasks spin
 * task_us holds every slot (dynamic shared memory sized so that K = 4
 * blocks fill an SM, and an LC block of the same size fits only in a slot
 * that a BE block gave up). Once its wave is in place, at a varying phase,
 * the host writes (n, k) into the control word, notes the time, and at
 * once launches xf_lc_start with n x k such blocks on another stream.
 * Reported per trial, from the request, on the host clock: the LC's
 * first and last block start, and the BE's last yield. task_us = 0 rows
 * launch the LC on an idle GPU: the launch's own latency.
 */
static int latency_test(struct dev *gd, const std::vector<CUmodule> &mods,
			FILE *csv, FILE *sum)
{
	static const unsigned task_us[] = { 0, 5, 10, 20, 50 };
	static const unsigned cfg[][2] = { { 33, 0 }, { 66, 2 } };	/* 0: K */
	const int trials = 40;
	CUfunction fx = find(mods, "xf_spin__gsp"), lc = find(mods, "xf_lc_start");
	CUstream run, lcs, poll;
	CUdeviceptr ctl, count, starts;
	struct gsp_persist_ctl *c;
	int smem_sm, bad = 0;
	int64_t off = 0, err = 0;
	uint64_t epoch = 1000;

	if (!fx || !lc || clock_offset(mods, &off, &err)) {
		fprintf(stderr, "xform-check: latency: the spin module is missing\n");
		return 1;
	}
	printf("latency: %%globaltimer - host clock = %lld ns (+- %lld ns)\n",
	       (long long)off, (long long)err);
	CU(cuDeviceGetAttribute(&smem_sm,
		CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, gd->d));
	unsigned smem = (unsigned)smem_sm / 4 - 2048;
	CU(cuFuncSetAttribute(fx, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
	CU(cuFuncSetAttribute(lc, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
	CU(cuMemAllocHost((void **)&c, sizeof(*c)));
	CU(cuStreamCreate(&run, CU_STREAM_NON_BLOCKING));
	CU(cuStreamCreate(&lcs, CU_STREAM_NON_BLOCKING));
	CU(cuStreamCreate(&poll, CU_STREAM_NON_BLOCKING));
	CU(cuMemAlloc(&ctl, sizeof(*c)));
	CU(cuMemAlloc(&starts, (size_t)GSP_PERSIST_MAX_SM * GSP_PERSIST_MAX_K * 8));
	size_t maxtasks = (size_t)gd->nsm * GSP_PERSIST_MAX_K * 600;
	CU(cuMemAlloc(&count, maxtasks * 4));
	std::vector<unsigned> hc(maxtasks);
	std::vector<unsigned long long> hs(GSP_PERSIST_MAX_SM * GSP_PERSIST_MAX_K);

	fprintf(csv, "task_us,n,k,K,trial,valid,lc_first_us,lc_last_us,be_last_yield_us,"
		"yields,host_reads\n");
	fprintf(sum, "task_us,n,k,K,valid,lc_first_p50_us,lc_last_p50_us,lc_last_p99_us,"
		"lc_last_max_us,be_last_yield_p50_us,be_last_yield_p99_us\n");
	for (unsigned tu : task_us)
		for (auto &nk : cfg) {
			std::vector<double> first, last, byield;
			unsigned n = nk[0] > (unsigned)gd->nsm ? gd->nsm : nk[0], k = 0, kk = 0;

			for (int t = 0; t < trials; t++) {
				/* about 3 ms of BE work per slot */
				unsigned per = tu ? std::max(4u, 3000 / tu) : 1;
				spec sp = { "spin", "xf_spin", { gd->nsm * 4 * per, 1, 1 },
					    { 128, 1, 1 }, smem, {} };
				unsigned long long ns = tu * 1000ull;
				void *px[] = { &ns, &count, &ctl };
				int64_t treq;

				*gd->ctrl_host = GSP_PERSIST_CTRL(0, 0, 0);
				k = ctl_init(gd, ctl, fx, &sp, 0);
				kk = nk[1] && nk[1] <= k ? nk[1] : k;
				sp.grid[0] = gd->nsm * k * per;
				uint64_t ntasks = sp.grid[0];

				CU(cuMemcpyHtoD(ctl + GSP_PERSIST_OFF_NTASKS, &ntasks, 8));
				CU(cuMemcpyHtoD(ctl + GSP_PERSIST_OFF_NCTAID, &sp.grid[0], 4));
				CU(cuMemsetD8(count, 0, (size_t)sp.grid[0] * 4));
				CU(cuMemsetD8(starts, 0, hs.size() * 8));
				CU(cuCtxSynchronize());
				if (tu) {
					CU(cuLaunchKernel(fx, gd->nsm * k, 1, 1, 128, 1, 1, smem,
							  run, px, NULL));
					int64_t t0 = now_ns();
					do {
						CU(cuMemcpyDtoHAsync(c, ctl, 128, poll));
						CU(cuStreamSynchronize(poll));
					} while (c->live < (unsigned)gd->nsm * k &&
						 now_ns() - t0 < 1000000000);
					/* a phase that varies over the task */
					int64_t d = (int64_t)(t * 7919u % (tu * 1000));
					for (t0 = now_ns(); now_ns() - t0 < d; )
						;
				}
				treq = now_ns();
				__atomic_store_n(gd->ctrl_host, GSP_PERSIST_CTRL(n, kk, ++epoch),
						 __ATOMIC_RELEASE);
				void *pl[] = { &starts };
				CU(cuLaunchKernel(lc, n * kk, 1, 1, 128, 1, 1, smem, lcs, pl, NULL));
				CU(cuStreamSynchronize(lcs));
				__atomic_store_n(gd->ctrl_host, GSP_PERSIST_CTRL(0, 0, ++epoch),
						 __ATOMIC_RELEASE);
				CU(cuCtxSynchronize());
				CU(cuMemcpyDtoH(c, ctl, sizeof(*c)));
				CU(cuMemcpyDtoH(hs.data(), starts, (size_t)n * kk * 8));
				CU(cuMemcpyDtoH(hc.data(), count, (size_t)sp.grid[0] * 4));

				unsigned long long lo = ~0ull, hi = 0;
				for (unsigned i = 0; i < n * kk; i++) {
					lo = std::min(lo, hs[i]);
					hi = std::max(hi, hs[i]);
				}
				double f = ((int64_t)lo - off - treq) / 1e3;
				double l = ((int64_t)hi - off - treq) / 1e3;
				double y = c->last_yield_ns ?
					((int64_t)c->last_yield_ns - off - treq) / 1e3 : NAN;
				/* valid: the BE was still running and gave up every slot asked */
				int valid = !tu || (c->yields == n * kk && c->done_tasks == c->ntasks);
				if (tu) {
					int once = c->done_tasks == c->ntasks && !c->live;

					for (unsigned i = 0; i < sp.grid[0]; i++)
						once &= hc[i] == 1;
					if (!once) {
						printf("latency: task_us=%u trial %d: tasks WRONG\n", tu, t);
						bad = 1;
					}
				}
				fprintf(csv, "%u,%u,%u,%u,%d,%d,%.2f,%.2f,%.2f,%u,%u\n", tu, n, kk,
					k, t, valid, f, l, y, c->yields, c->refreshes);
				if (valid) {
					first.push_back(f);
					last.push_back(l);
					if (tu)
						byield.push_back(y);
				}
			}
			fprintf(sum, "%u,%u,%u,%u,%zu,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f\n", tu, n, kk, k,
				last.size(), pct(first, .5), pct(last, .5), pct(last, .99),
				pct(last, 1), pct(byield, .5), pct(byield, .99));
			printf("latency task=%2uus n=%-3u k=%u/%u: %zu/%d valid, LC all started "
			       "p50 %.1f p99 %.1f max %.1f us, BE last yield p99 %.1f us%s\n",
			       tu, n, kk, k, last.size(), trials, pct(last, .5), pct(last, .99),
			       pct(last, 1), pct(byield, .99),
			       tu && tu <= 20 ? (pct(last, .99) <= 50 ? " (target <= 50: met)"
							       : " (target <= 50: MISSED)") : "");
		}
	cuMemFree(count);
	cuMemFree(starts);
	cuMemFree(ctl);
	cuMemFreeHost(c);
	return bad;
}

int main(int argc, char **argv)
{
	struct dev gd;
	std::vector<CUmodule> mods;
	char path[4096];
	int bad = 0;
	const unsigned mmn = 4096;

	if (argc < 3) {
		fprintf(stderr, "usage: xform-check OUTDIR MODULE.xform.ptx...\n"
			"  (bench/gpu/xform-check.sh builds the modules)\n");
		return 2;
	}
	CU(cuInit(0));
	CU(cuDeviceGet(&gd.d, 0));
	CU(cuDevicePrimaryCtxRetain(&gd.ctx, gd.d));
	CU(cuCtxSetCurrent(gd.ctx));
	CU(cuDeviceGetAttribute(&gd.nsm, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, gd.d));
	CU(cuMemHostAlloc((void **)&gd.ctrl_host, 64, CU_MEMHOSTALLOC_DEVICEMAP));
	CU(cuMemHostGetDevicePointer(&gd.ctrl_dev, gd.ctrl_host, 0));
	rank_table(&gd);
	for (int i = 2; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		std::vector<char> src;
		CUmodule m;
		size_t n;
		char buf[65536];

		if (!f) {
			perror(argv[i]);
			return 2;
		}
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			src.insert(src.end(), buf, buf + n);
		fclose(f);
		src.push_back(0);
		CU(cuModuleLoadData(&m, src.data()));
		mods.push_back(m);
	}

	const unsigned n1 = 1 << 22, w = 2048, h = 2048;
	std::vector<spec> specs = {
		{ "saxpy", "_Z5saxpyifPKfPf", { (n1 + 255) / 256 - 7, 1, 1 }, { 256, 1, 1 }, 0,
		  { { 'i', n1 - 1000.0, 0, 0 }, { 'f', 1.5, 0, 0 },
		    { 'b', 0, n1 * 4, 'f' }, { 'b', 0, n1 * 4, 'f' } } },
		{ "reduce_sum", "_Z10reduce_sumPKfPfi", { n1 / 256, 1, 1 }, { 256, 1, 1 }, 0,
		  { { 'b', 0, n1 * 4, 'f' }, { 'b', 0, n1 / 256 * 4, 'z' }, { 'i', n1 - 77.0, 0, 0 } } },
		{ "skip_blocks", "_Z11skip_blocksPKiPfi", { 8192, 1, 1 }, { 128, 1, 1 }, 0,
		  { { 'b', 0, 8192 * 4, 'o' }, { 'b', 0, 8192 * 128 * 4, 'f' }, { 'i', 1, 0, 0 } } },
		{ "late_return", "_Z11late_returnPKfPfi", { 16384, 1, 1 }, { 64, 1, 1 }, 0,
		  { { 'b', 0, 16384 * 64 * 4, 'f' }, { 'b', 0, 16384 * 64 * 4, 'z' },
		    { 'i', 16384 * 64 - 5.0, 0, 0 } } },
		{ "grid_stride", "_Z11grid_strideiPKdPd", { 300, 1, 1 }, { 256, 1, 1 }, 0,
		  { { 'i', n1, 0, 0 }, { 'b', 0, n1 * 8, 'f' }, { 'b', 0, n1 * 8, 'z' } } },
		{ "stencil2d", "_Z9stencil2diiPKfPf", { w / 16, h / 16, 1 }, { 16, 16, 1 }, 0,
		  { { 'i', w, 0, 0 }, { 'i', h, 0, 0 }, { 'b', 0, w * h * 4, 'f' },
		    { 'b', 0, w * h * 4, 'z' } } },
		{ "coords3d", "_Z8coords3dPj", { 37, 11, 5 }, { 8, 4, 2 }, 0,
		  { { 'b', 0, 37 * 11 * 5 * 64 * 16, 'z' } } },
		{ "reverse_dyn", "_Z11reverse_dynPfi", { n1 / 512, 1, 1 }, { 512, 1, 1 }, 512 * 4,
		  { { 'b', 0, n1 * 4, 'f' }, { 'i', n1 - 300.0, 0, 0 } } },
		{ "histogram", "_Z9histogramPKhPji", { 264, 1, 1 }, { 256, 1, 1 }, 256 * 4,
		  { { 'b', 0, n1, 'u' }, { 'b', 0, 256 * 4, 'z' }, { 'i', n1, 0, 0 } } },
		{ "transpose<float,32>", "_Z9transposeIfLi32EEvPKT_PS0_ii", { w / 32, h / 32, 1 },
		  { 32, 32, 1 }, 0,
		  { { 'b', 0, w * h * 4, 'f' }, { 'b', 0, w * h * 4, 'z' }, { 'i', w, 0, 0 },
		    { 'i', h, 0, 0 } } },
		{ "warp_sum", "_Z8warp_sumPKiPii", { 4096, 1, 1 }, { 256, 1, 1 }, 0,
		  { { 'b', 0, 4096 * 256 * 4, 'o' }, { 'b', 0, 4, 'z' }, { 'i', 4096 * 256 - 100.0, 0, 0 } } },
		{ "mm(2048)", "_Z9mm_kerneliPKfS0_Pf", { 64, 64, 1 }, { 32, 8, 1 }, 0,
		  { { 'i', 2048, 0, 0 }, { 'b', 0, 2048 * 2048 * 4, 'f' },
		    { 'b', 0, 2048 * 2048 * 4, 'f' }, { 'b', 0, 2048 * 2048 * 4, 'z' } } },
	};
	spec big = { "mm(4096)", "_Z9mm_kerneliPKfS0_Pf", { mmn / 32, mmn / 32, 1 },
		     { 32, 8, 1 }, 0,
		     { { 'i', (double)mmn, 0, 0 }, { 'b', 0, (size_t)mmn * mmn * 4, 'f' },
		       { 'b', 0, (size_t)mmn * mmn * 4, 'f' },
		       { 'b', 0, (size_t)mmn * mmn * 4, 'z' } } };

	snprintf(path, sizeof(path), "%s/xform-check.csv", argv[1]);
	FILE *csv = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/xform-yield.csv", argv[1]);
	FILE *ycsv = fopen(path, "w");

	if (!csv || !ycsv) {
		perror(argv[1]);
		return 2;
	}
	fprintf(csv, "kernel,name,K,bitwise_equal,tasks_ok,tasks,host_reads,orig_us,"
		"xform_us,ratio,xform_read_every_task_us\n");
	double lsum = 0;
	int nr = 0;
	for (auto &s : specs) {
		double r;

		bad |= check_one(&gd, mods, &s, csv, &r);
		if (r > 0) {
			lsum += log(r);
			nr++;
		}
	}
	if (nr)
		printf("overhead: geomean xform/orig over %d kernels = %.4f "
		       "(target <= 1.03)\n", nr, exp(lsum / nr));
	fprintf(ycsv, "n,k,K,rank,smid,slots_held,obeyed_us,tasks_left\n");
	bad |= yield_test(&gd, mods, &big, ycsv);
	fclose(csv);
	fclose(ycsv);
	snprintf(path, sizeof(path), "%s/xform-latency.csv", argv[1]);
	FILE *lcsv = fopen(path, "w");
	snprintf(path, sizeof(path), "%s/xform-latency-summary.csv", argv[1]);
	FILE *scsv = fopen(path, "w");
	if (!lcsv || !scsv) {
		perror(argv[1]);
		return 2;
	}
	bad |= latency_test(&gd, mods, lcsv, scsv);
	fclose(lcsv);
	fclose(scsv);
	printf("xform-check: %s\n", bad ? "FAILED" : "all checks passed");
	return bad;
}
