// SPDX-License-Identifier: GPL-2.0
/*
 * xform-check: runs kernels as nvcc compiled them and as gsp-xform
 * transformed them (NAME and NAME__gsp of the same module, loaded with
 * cuModuleLoadData) on a GPU, against libgsp/include/gsp_persist.h ABI 6.
 *
 * Over 800 lines: one program on purpose: every check shares the module
 * loading, the control blocks and the clock calibration of one GPU
 * session, and CI builds it as one unit. Its checks (correctness, cost,
 * placement, yield, keeper) could become files of their own around a
 * shared harness.
 *
 *   xform-check [--trials N] [--refresh-ns NS] [--copy-ns NS] [--batch-ns NS]
 *               OUTDIR MODULE.xform.ptx...
 *
 * The jobs' refresh_ns, copy_ns and batch_ns default to
 * libgsp/include/gsp_persist.h's.
 *
 * Writes into OUTDIR (Documentation/xform.rst describes every column):
 *   cost.csv           per corpus kernel: original vs transformed median
 *                      time (the per-job ctl reset included), also with
 *                      batch_ns = 0 and with refresh_ns = 0; bitwise
 *                      equal outputs, task counts;
 *   placement.csv      per (n, k) and SM rank: BE blocks held and LC
 *                      blocks started, against what (n, k) asks;
 *   yield.csv          per BE task length and trial: from the host's
 *                      store of the word to the LC's first (and last)
 *                      block start; yield-summary.csv: p50/p99/max;
 *   keeper.csv         (n, k) = (N, K): a kept job completes with no
 *                      top-up; a waited one keeps no block, its waiter
 *                      holds the stream, and a top-up completes it (row
 *                      waited-mid-run); a job of one and a half rounds
 *                      of tasks keeps every slot in its second round with
 *                      GSP_PERSIST_LINGER, half of them without (rows
 *                      linger-on, linger-off); a ctl's override word
 *                      asking every slot stops a waited job with tasks
 *                      left while the board's word asks nothing, and a
 *                      top-up after it is cleared completes it (rows
 *                      override, override-refresh0; override-off: no
 *                      override word, no yield).
 * Exit status: 0 when every test ran (failed checks are reported in the
 * CSV and as "CHECK FAILED" lines), 2 on harness errors (CUDA errors,
 * missing kernels, bad arguments), 3 when the GPU did not finish in time.
 */
#include <cuda.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <string>
#include <vector>
#include "gpu_cli.h"
#include "gsp_persist.h"

#define CU(x) do {							\
	CUresult r_ = (x);						\
	if (r_ != CUDA_SUCCESS) {					\
		const char *s_ = "?";					\
		cuGetErrorString(r_, &s_);				\
		fprintf(stderr, "xform-check: %s:%d: %s: %s\n",		\
			__FILE__, __LINE__, #x, s_);			\
		exit(2);						\
	}								\
} while (0)

static int failed;	/* checks that failed (reported, not fatal) */

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	failed++;
	printf("CHECK FAILED: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* Waits for a stream with a deadline: a hung kernel ends the run (3). */
static void wait_stream(CUstream st, double seconds, const char *what)
{
	uint64_t t0 = mono_ns();
	CUresult r;

	while ((r = cuStreamQuery(st)) == CUDA_ERROR_NOT_READY)
		if (mono_ns() - t0 > (uint64_t)(seconds * 1e9)) {
			fprintf(stderr, "xform-check: %s: the GPU did not finish "
				"within %.0f s\n", what, seconds);
			printf("xform-check: TIMEOUT in %s\n", what);
			fflush(stdout);
			exit(3);
		}
	CU(r);
}

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
		uint32_t w = how == 'o' ? (r >> 31) & 1 : 0;

		if (how == 'f')
			memcpy(&w, &f, 4);
		memcpy(&h[i], &w, 4);
		i += 4;
	}
}

struct dev {
	CUdevice d;
	CUcontext ctx;
	unsigned nsm;
	std::vector<uint32_t> rank;	/* by %smid */
	std::vector<int> smid_of;	/* by rank */
	uint64_t *ctrl_host;		/* pinned, mapped: the control word */
	CUdeviceptr ctrl_dev;
	CUstream run, top, lcs, poll;
	int64_t clk_off, clk_err;	/* %globaltimer - CLOCK_MONOTONIC */
	uint64_t clk_at;		/* ... measured at this host time */
	uint32_t refresh_ns, copy_ns, batch_ns;	/* the jobs' (options) */
};

static void rank_table(struct dev *g)
{
	CUmodule m;
	CUfunction f;
	CUdeviceptr flags;
	uint32_t h[GSP_PERSIST_MAX_SM];
	void *p[] = { &flags };
	unsigned n = 0;

	CU(cuModuleLoadData(&m, probe_ptx));
	CU(cuModuleGetFunction(&f, m, "probe"));
	CU(cuMemAlloc(&flags, sizeof(h)));
	CU(cuMemsetD8(flags, 0, sizeof(h)));
	CU(cuLaunchKernel(f, 64 * g->nsm, 1, 1, 128, 1, 1, 0, 0, p, NULL));
	CU(cuMemcpyDtoH(h, flags, sizeof(h)));
	g->rank.assign(GSP_PERSIST_MAX_SM, GSP_PERSIST_NO_RANK);
	g->smid_of.clear();
	for (int s = 0; s < GSP_PERSIST_MAX_SM; s++)
		if (h[s]) {
			g->rank[s] = n++;
			g->smid_of.push_back(s);
		}
	if (n != g->nsm) {
		fprintf(stderr, "xform-check: the probe saw %u SMs, the device has %u\n",
			n, g->nsm);
		exit(2);
	}
	cuMemFree(flags);
	cuModuleUnload(m);
}

static CUfunction find(const std::vector<CUmodule> &mods, const char *name)
{
	CUfunction f;

	for (CUmodule m : mods)
		if (cuModuleGetFunction(&f, m, name) == CUDA_SUCCESS)
			return f;
	return NULL;
}

static CUfunction need(const std::vector<CUmodule> &mods, const char *name)
{
	CUfunction f = find(mods, name);

	if (!f) {
		fprintf(stderr, "xform-check: no kernel %s in the modules "
			"(does gsp-xform's report say why?)\n", name);
		exit(2);
	}
	return f;
}

/* A job's control block: device memory, slot masks zero, ranks filled,
 * the override word's address (0: none). */
static CUdeviceptr ctl_create(struct dev *g, uint64_t ovr_ptr = 0)
{
	struct gsp_persist_ctl init;
	CUdeviceptr ctl;

	memset(&init, 0, sizeof(init));
	for (int s = 0; s < GSP_PERSIST_MAX_SM; s++)
		init.sm[s].sm_rank = g->rank[s];
	init.ovr_ptr = ovr_ptr;
	CU(cuMemAlloc(&ctl, GSP_PERSIST_CTL_SIZE));
	CU(cuMemcpyHtoD(ctl, &init, sizeof(init)));
	CU(cuCtxSynchronize());	/* its DMA may still run (bufs_reset) */
	return ctl;
}

/* K: blocks of NAME__gsp per SM, capped by the slot mask's width. */
static unsigned k_of(CUfunction fx, const unsigned block[3], unsigned smem)
{
	int k = 0;

	CU(cuOccupancyMaxActiveBlocksPerMultiprocessor(&k, fx,
		block[0] * block[1] * block[2], smem));
	if (k < 1) {
		fprintf(stderr, "xform-check: occupancy 0 for a transformed kernel\n");
		exit(2);
	}
	return std::min((unsigned)k, (unsigned)GSP_PERSIST_MAX_K);
}

static struct gsp_persist_job job_of(struct dev *g, CUdeviceptr ctl,
				     const unsigned grid[3], unsigned k,
				     uint32_t refresh_ns, uint32_t batch_ns,
				     uint32_t flags)
{
	struct gsp_persist_job j;

	memset(&j, 0, sizeof(j));
	j.ctl = ctl;
	j.ctrl_ptr = g->ctrl_dev;
	j.ntasks = (uint64_t)grid[0] * grid[1] * grid[2];
	j.nctaid[0] = grid[0];
	j.nctaid[1] = grid[1];
	j.nctaid[2] = grid[2];
	j.k_slots = k;
	j.refresh_ns = refresh_ns;
	j.copy_ns = g->copy_ns;
	j.batch_ns = batch_ns;
	j.flags = flags;
	j.word = __atomic_load_n(g->ctrl_host, __ATOMIC_ACQUIRE);
	return j;
}

/*
 * Launches NAME__gsp: params are NAME's, then the job (by value: the
 * driver copies it at the launch). A primary launch resets the ctl on
 * the same stream first; a top-up does not.
 */
enum reset { RESET_MEMSET, RESET_WRITES, RESET_NONE };

/* The reset as stream memory operations: the words a job counts in. */
static void reset_writes(CUdeviceptr ctl, CUstream st)
{
	static const unsigned off[] = { 0, 128, 256, 384, 392, 400 };
	CUstreamBatchMemOpParams op[6];

	memset(op, 0, sizeof(op));
	for (int i = 0; i < 6; i++) {
		op[i].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
		op[i].writeValue.address = ctl + off[i];
		op[i].writeValue.value64 = 0;
	}
	CU(cuStreamBatchMemOp(st, 6, op, 0));
}

static void launch_x(struct dev *g, CUfunction fx, const unsigned block[3],
		     unsigned smem, const std::vector<void *> &params,
		     struct gsp_persist_job *job, CUstream st,
		     enum reset reset = RESET_MEMSET)
{
	std::vector<void *> p(params);
	uint64_t grid = (uint64_t)g->nsm * job->k_slots;

	/* as the interposer: one wave, but no more blocks than tasks */
	if (job->ntasks < grid)
		grid = job->ntasks;
	p.push_back(job);
	if ((job->flags & GSP_PERSIST_PRIMARY) && reset == RESET_MEMSET)
		CU(cuMemsetD32Async(job->ctl, 0, GSP_PERSIST_RESET_BYTES / 4, st));
	if ((job->flags & GSP_PERSIST_PRIMARY) && reset == RESET_WRITES)
		reset_writes(job->ctl, st);
	CU(cuLaunchKernel(fx, (unsigned)grid, 1, 1, block[0], block[1],
			  block[2], smem, st, p.data(), NULL));
}

/* The ctl as the host sees it now (a copy on the poll stream). */
static void ctl_read(struct dev *g, CUdeviceptr ctl, struct gsp_persist_ctl *c,
		     size_t bytes = sizeof(struct gsp_persist_ctl))
{
	CU(cuMemcpyDtoHAsync(c, ctl, bytes, g->poll));
	wait_stream(g->poll, 10, "reading the ctl");
}

/* After a job: every task counted once, no slot or block left behind. */
static int ctl_clean(const struct gsp_persist_ctl *c, uint64_t ntasks)
{
	int ok = c->done_tasks == ntasks && c->next_task >= ntasks && !c->live &&
		 !c->primary_live;

	for (int s = 0; s < GSP_PERSIST_MAX_SM; s++)
		ok &= !c->sm[s].slot_mask;
	return ok;
}

static void set_word(struct dev *g, uint64_t w)
{
	__atomic_store_n(g->ctrl_host, w, __ATOMIC_RELEASE);
}

/* ---- a: cost ---- */

struct bufs {
	std::vector<CUdeviceptr> d;
	std::vector<std::vector<unsigned char>> init;
	std::vector<void *> params;
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
	b->params.assign(n, NULL);
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

/*
 * A pageable cuMemcpyHtoD may return before its DMA lands, and the run
 * stream is non-blocking, so a kernel could overtake it: wait for it.
 */
static void bufs_reset(struct bufs *b)
{
	for (size_t i = 0; i < b->d.size(); i++)
		if (b->d[i])
			CU(cuMemcpyHtoD(b->d[i], b->init[i].data(), b->init[i].size()));
	CU(cuCtxSynchronize());
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

static double median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	return v.empty() ? NAN : v[v.size() / 2];
}

static void orig_launch(CUfunction fo, const struct spec *s, struct bufs *b,
			CUstream st)
{
	CU(cuLaunchKernel(fo, s->grid[0], s->grid[1], s->grid[2], s->block[0],
			  s->block[1], s->block[2], s->dyn_smem, st,
			  b->params.data(), NULL));
}

/* Median of reps (events around the launch; a job's reset included). */
template <typename F>
static double time_us(struct dev *g, int reps, F launch)
{
	CUevent e0, e1;
	std::vector<double> t;

	CU(cuEventCreate(&e0, 0));
	CU(cuEventCreate(&e1, 0));
	for (int r = 0; r < reps; r++) {
		float ms;

		CU(cuEventRecord(e0, g->run));
		launch();
		CU(cuEventRecord(e1, g->run));
		wait_stream(g->run, 30, "timing");
		CU(cuEventElapsedTime(&ms, e0, e1));
		t.push_back(ms * 1e3);
	}
	cuEventDestroy(e0);
	cuEventDestroy(e1);
	return median(t);
}

/*
 * One kernel, three ways of the transformed form: as designed
 * (the run's refresh_ns, copy_ns and batch_ns), one task per claim
 * (batch_ns = 0) and the word read through ctrl_ptr at every boundary
 * (refresh_ns = 0). Each is checked bitwise against the original first.
 * *ratio: designed/original, for the geomean.
 */
static void cost_one(struct dev *g, const std::vector<CUmodule> &mods,
		     const struct spec *s, FILE *csv, double *ratio)
{
	std::string xname = std::string(s->name) + GSP_PERSIST_SUFFIX;
	CUfunction fo = need(mods, s->name), fx = need(mods, xname.c_str());
	const uint32_t var[3][2] = {
		{ g->refresh_ns, g->batch_ns },
		{ g->refresh_ns, 0 },
		{ 0, g->batch_ns },
	};
	const int reps = 21;
	unsigned k = k_of(fx, s->block, s->dyn_smem);
	CUdeviceptr ctl = ctl_create(g);
	struct gsp_persist_ctl c;
	struct bufs b;
	uint64_t ntasks = (uint64_t)s->grid[0] * s->grid[1] * s->grid[2];
	unsigned same = 1, tasks = 1, reads[3] = { 0 };
	double tx[3];

	set_word(g, GSP_PERSIST_CTRL(0, 0, 0));
	bufs_make(&b, s);
	bufs_reset(&b);
	orig_launch(fo, s, &b, g->run);
	wait_stream(g->run, 30, s->label);
	auto want = bufs_read(&b);
	double to = time_us(g, reps, [&] { orig_launch(fo, s, &b, g->run); });

	for (int v = 0; v < 3; v++) {
		struct gsp_persist_job j = job_of(g, ctl, s->grid, k, var[v][0],
						  var[v][1], GSP_PERSIST_PRIMARY);

		bufs_reset(&b);
		launch_x(g, fx, s->block, s->dyn_smem, b.params, &j, g->run);
		wait_stream(g->run, 30, s->label);
		ctl_read(g, ctl, &c);
		int eq = bufs_read(&b) == want, ok = ctl_clean(&c, ntasks);

		check(eq, "cost %s (refresh_ns %u, batch_ns %u): outputs differ",
		      s->label, var[v][0], var[v][1]);
		check(ok, "cost %s (refresh_ns %u, batch_ns %u): done %llu of %llu "
		      "tasks, live %u, primary_live %u", s->label, var[v][0],
		      var[v][1], (unsigned long long)c.done_tasks,
		      (unsigned long long)ntasks, c.live, c.primary_live);
		same &= eq;
		tasks &= ok;
		reads[v] = c.refreshes;
		tx[v] = time_us(g, reps, [&] {
			launch_x(g, fx, s->block, s->dyn_smem, b.params, &j, g->run);
		});
	}
	/*
	 * Where the fixed cost of a job goes: the reset alone before the
	 * original, the reset as stream writes, and no reset on the stream
	 * at all (a fresh ctl per launch, zeroed beforehand).
	 */
	struct gsp_persist_job jd = job_of(g, ctl, s->grid, k, var[0][0],
					   var[0][1], GSP_PERSIST_PRIMARY);
	double tr = time_us(g, reps, [&] {
		CU(cuMemsetD32Async(ctl, 0, GSP_PERSIST_RESET_BYTES / 4, g->run));
		orig_launch(fo, s, &b, g->run);
	});
	double tw = time_us(g, reps, [&] {
		launch_x(g, fx, s->block, s->dyn_smem, b.params, &jd, g->run,
			 RESET_WRITES);
	});
	ctl_read(g, ctl, &c);
	tasks &= ctl_clean(&c, ntasks);
	std::vector<CUdeviceptr> pool(reps);
	std::vector<struct gsp_persist_job> pj(reps);
	size_t next = 0;

	for (int i = 0; i < reps; i++) {
		pool[i] = ctl_create(g);
		pj[i] = job_of(g, pool[i], s->grid, k, var[0][0], var[0][1],
			       GSP_PERSIST_PRIMARY);
	}
	double tz = time_us(g, reps, [&] {
		launch_x(g, fx, s->block, s->dyn_smem, b.params, &pj[next],
			 g->run, RESET_NONE);
		next++;
	});
	for (int i = 0; i < reps; i++) {
		ctl_read(g, pool[i], &c);
		tasks &= ctl_clean(&c, ntasks);
		cuMemFree(pool[i]);
	}
	check(tasks, "cost %s: a job with its reset as stream writes or on a "
	      "fresh ctl left its ctl unclean", s->label);
	*ratio = tx[0] / to;
	fprintf(csv, "%s,%s,%u,%llu,%u,%u,%.2f,%.2f,%.4f,%u,%.2f,%.4f,%.2f,%.4f,%u,"
		"%.2f,%.2f,%.4f,%.2f,%.4f\n",
		s->label, s->name, k, (unsigned long long)ntasks, same, tasks, to,
		tx[0], tx[0] / to, reads[0], tx[1], tx[1] / to, tx[2], tx[2] / to,
		reads[2], tr, tw, tw / to, tz, tz / to);
	printf("cost %-20s K=%-2u tasks=%-6llu %s %s orig %7.1f us  xform %7.1f us "
	       "(%.3fx)  batch_ns=0 %.3fx  refresh_ns=0 %.3fx  host reads %u\n",
	       s->label, k, (unsigned long long)ntasks, same ? "bitwise-equal" : "DIFFERENT",
	       tasks ? "tasks-ok" : "TASKS-WRONG", to, tx[0], tx[0] / to, tx[1] / to,
	       tx[2] / to, reads[0]);
	printf("cost %-20s reset+orig %.1f us  xform, reset by writes %.3fx  "
	       "xform, no reset %.3fx\n", s->label, tr, tw / to, tz / to);
	cuMemFree(ctl);
	bufs_free(&b);
}

/* ---- the spin job of b, c and d ---- */

struct spin {
	CUfunction fx, lc;
	unsigned block[3];
	unsigned k;
	CUdeviceptr ctl, count, end, lc_smid, lc_start;
	size_t max_tasks;
	std::vector<unsigned> hcount;
	unsigned long long ns;
	unsigned grid[3];
	std::vector<void *> params;
};

static void spin_make(struct dev *g, const std::vector<CUmodule> &mods,
		      struct spin *sp)
{
	sp->fx = need(mods, "xf_spin__gsp");
	sp->lc = need(mods, "xf_lc_place");
	sp->block[0] = 256;	/* K = 8 fill an SM's 2048 threads */
	sp->block[1] = sp->block[2] = 1;
	sp->k = k_of(sp->fx, sp->block, 0);
	sp->ctl = ctl_create(g);
	sp->max_tasks = (size_t)g->nsm * sp->k * 1200;
	CU(cuMemAlloc(&sp->count, sp->max_tasks * 4));
	CU(cuMemAlloc(&sp->end, 8));
	CU(cuMemAlloc(&sp->lc_smid, 4 * GSP_PERSIST_MAX_SM * GSP_PERSIST_MAX_K));
	CU(cuMemAlloc(&sp->lc_start, 8 * GSP_PERSIST_MAX_SM * GSP_PERSIST_MAX_K));
	sp->hcount.resize(sp->max_tasks);
	sp->params = { &sp->ns, &sp->count, &sp->end };
}

/* Starts a primary spin job of per tasks per slot, each task_ns long
 * (flags: GSP_PERSIST_PRIMARY, with GSP_PERSIST_WAITED or not). */
static struct gsp_persist_job spin_start(struct dev *g, struct spin *sp,
					 unsigned long long task_ns, size_t per,
					 uint32_t flags = GSP_PERSIST_PRIMARY)
{
	size_t n = std::min((size_t)g->nsm * sp->k * per, sp->max_tasks);

	sp->ns = task_ns;
	sp->grid[0] = (unsigned)n;
	sp->grid[1] = sp->grid[2] = 1;
	CU(cuMemsetD32Async(sp->count, 0, n, g->run));
	CU(cuMemsetD32Async(sp->end, 0, 2, g->run));
	struct gsp_persist_job j = job_of(g, sp->ctl, sp->grid, sp->k,
					  g->refresh_ns, g->batch_ns, flags);
	launch_x(g, sp->fx, sp->block, 0, sp->params, &j, g->run);
	return j;
}

/* Polls live until it equals want (or stops changing for stable_us, when
 * stable_us > 0); returns the last value. */
static unsigned wait_live(struct dev *g, struct spin *sp, unsigned want,
			  double stable_us, double timeout_ms)
{
	struct gsp_persist_ctl c;
	uint64_t t0 = mono_ns(), since = t0;
	unsigned last = ~0u;

	for (;;) {
		ctl_read(g, sp->ctl, &c, GSP_PERSIST_RESET_BYTES);
		if (c.live == want)
			return c.live;
		if (c.live != last) {
			last = c.live;
			since = mono_ns();
		} else if (stable_us > 0 && mono_ns() - since > stable_us * 1e3) {
			return last;
		}
		if (mono_ns() - t0 > timeout_ms * 1e6)
			return last;
	}
}

/* After a spin job: each task once, the ctl clean; *end: its last task. */
static int spin_finish(struct dev *g, struct spin *sp, const char *what,
		       struct gsp_persist_ctl *c, unsigned long long *end)
{
	uint64_t ntasks = sp->grid[0];
	size_t bad = 0;

	wait_stream(g->run, 30, what);
	wait_stream(g->top, 30, what);
	ctl_read(g, sp->ctl, c);
	CU(cuMemcpyDtoH(sp->hcount.data(), sp->count, ntasks * 4));
	CU(cuMemcpyDtoH(end, sp->end, 8));
	for (size_t i = 0; i < ntasks; i++)
		bad += sp->hcount[i] != 1;
	int ok = !bad && ctl_clean(c, ntasks);

	check(ok, "%s: %zu of %llu tasks not run exactly once; done %llu, live %u, "
	      "primary_live %u", what, bad, (unsigned long long)ntasks,
	      (unsigned long long)c->done_tasks, c->live, c->primary_live);
	return ok;
}

/*
 * Clears the word, also in the mirror, and tops the job up. The SMs'
 * copies are marked stale (stamp 0), so that newcomers take the word from
 * the mirror, not a copy up to refresh_ns old.
 */
static void lift_and_top_up(struct dev *g, struct spin *sp,
			    struct gsp_persist_job *j, uint32_t epoch)
{
	static uint64_t lift;
	struct gsp_persist_job top = *j;

	lift = GSP_PERSIST_CTRL(0, 0, epoch);
	set_word(g, lift);
	CU(cuMemcpyHtoDAsync(sp->ctl + GSP_PERSIST_OFF_CTRL_MIRROR, &lift, 8, g->top));
	CU(cuMemsetD2D32Async(sp->ctl + GSP_PERSIST_OFF_SM + GSP_PERSIST_SM_STAMP,
			      GSP_PERSIST_SM_SIZE, 0, 2, GSP_PERSIST_MAX_SM, g->top));
	top.flags &= ~GSP_PERSIST_PRIMARY;
	top.word = lift;
	launch_x(g, sp->fx, sp->block, 0, sp->params, &top, g->top);
}

/* ---- b: placement ---- */

static void placement(struct dev *g, struct spin *sp, FILE *csv)
{
	static const unsigned ns_[] = { 0, 16, 33, 66, 132 };
	const unsigned K = sp->k;
	unsigned ks[] = { 1, 2, 4, K };
	std::vector<std::pair<unsigned, unsigned>> cfg;
	uint32_t epoch = 100;
	struct gsp_persist_ctl c;

	for (unsigned n : ns_)
		for (unsigned k : ks) {
			std::pair<unsigned, unsigned> p(std::min(n, g->nsm), n ? std::min(k, K) : 0);

			if (std::find(cfg.begin(), cfg.end(), p) == cfg.end())
				cfg.push_back(p);
		}
	fprintf(csv, "n,k,K,rank,smid,be_blocks,be_expected,lc_blocks,lc_expected,ok,"
		"settled_us,tasks_once\n");
	for (auto &nk : cfg) {
		unsigned n = nk.first, k = nk.second, full = g->nsm * K;
		int keeper = n * k == full;	/* every slot asked: one stays */
		unsigned want = keeper ? 1 : full - n * k, nlc = 0;
		std::vector<unsigned> be(g->nsm), be_exp(g->nsm), lc(g->nsm, 0),
			lc_exp(g->nsm, 0);
		unsigned long long end;

		set_word(g, GSP_PERSIST_CTRL(0, 0, ++epoch));
		struct gsp_persist_job j = spin_start(g, sp, 20000, 600);
		unsigned live = wait_live(g, sp, full, 0, 2000);

		check(live == full, "placement n=%u k=%u: only %u of %u blocks in place",
		      n, k, live, full);
		uint64_t t0 = mono_ns();

		set_word(g, GSP_PERSIST_CTRL(n, k, ++epoch));
		live = wait_live(g, sp, want, 500, 500);
		double settled = (mono_ns() - t0) / 1e3;

		/* what BE should hold; with every slot asked, the keeper's SM
		 * (the one still holding a slot) keeps one */
		ctl_read(g, sp->ctl, &c);
		unsigned kept = g->nsm;

		for (unsigned r = 0; keeper && r < g->nsm && kept == g->nsm; r++)
			if (c.sm[g->smid_of[r]].slot_mask)
				kept = r;
		for (unsigned r = 0; r < g->nsm; r++) {
			be_exp[r] = r == kept ? 1 : r < n ? K - k : K;
			lc_exp[r] = r < n ? K - be_exp[r] : 0;
			nlc += lc_exp[r];
		}
		if (nlc) {
			static unsigned long long lc_ns = 50000;
			void *p[] = { &lc_ns, &sp->lc_smid, &sp->lc_start };

			CU(cuMemsetD32Async(sp->lc_smid, ~0u, nlc, g->lcs));
			CU(cuLaunchKernel(sp->lc, nlc, 1, 1, sp->block[0], 1, 1, 0,
					  g->lcs, p, NULL));
			/* BE as it stands while the LC runs */
			for (uint64_t t = mono_ns(); mono_ns() - t < 25000; )
				;
			ctl_read(g, sp->ctl, &c);
			wait_stream(g->lcs, 10, "placement LC");
			std::vector<unsigned> smid(nlc);
			std::vector<unsigned long long> st(nlc);

			CU(cuMemcpyDtoH(smid.data(), sp->lc_smid, 4 * nlc));
			CU(cuMemcpyDtoH(st.data(), sp->lc_start, 8 * nlc));
			for (unsigned i = 0; i < nlc; i++)
				if (smid[i] < GSP_PERSIST_MAX_SM &&
				    g->rank[smid[i]] != GSP_PERSIST_NO_RANK)
					lc[g->rank[smid[i]]]++;
		}
		for (unsigned r = 0; r < g->nsm; r++)
			be[r] = __builtin_popcount(c.sm[g->smid_of[r]].slot_mask);
		lift_and_top_up(g, sp, &j, ++epoch);
		int once = spin_finish(g, sp, "placement", &c, &end);
		unsigned bad = 0;

		for (unsigned r = 0; r < g->nsm; r++) {
			int ok = be[r] == be_exp[r] && lc[r] == lc_exp[r];

			bad += !ok;
			fprintf(csv, "%u,%u,%u,%u,%d,%u,%u,%u,%u,%d,%.1f,%d\n", n, k, K, r,
				g->smid_of[r], be[r], be_exp[r], lc[r], lc_exp[r], ok,
				settled, once);
		}
		check(!bad, "placement n=%u k=%u: %u SMs differ from (n, k)", n, k, bad);
		printf("placement n=%-3u k=%u of K=%u: live %u (want %u) after %.0f us, "
		       "%u LC blocks, %u SMs wrong, tasks %s\n", n, k, K, live, want,
		       settled, nlc, bad, once ? "once" : "WRONG");
	}
}

/* ---- c: yield latency ---- */

/*
 * %globaltimer minus the host's CLOCK_MONOTONIC, in ns: the host writes
 * ping = i (mapped host memory) and waits for xf_clock_pong to answer
 * with its %globaltimer; the GPU read lies between the host's two clock
 * reads, so the round with the shortest round trip gives the offset with
 * an error of at most half of it.
 */
static void clock_offset(struct dev *g, const std::vector<CUmodule> &mods)
{
	CUfunction f = need(mods, "xf_clock_pong");
	uint32_t *ping;
	uint64_t *pong;
	CUdeviceptr dping, dpong;
	unsigned n = 200;
	void *p[] = { &dping, &dpong, &n };
	int64_t best = INT64_MAX;

	CU(cuMemHostAlloc((void **)&ping, 64, CU_MEMHOSTALLOC_DEVICEMAP));
	CU(cuMemHostAlloc((void **)&pong, 64, CU_MEMHOSTALLOC_DEVICEMAP));
	CU(cuMemHostGetDevicePointer(&dping, ping, 0));
	CU(cuMemHostGetDevicePointer(&dpong, pong, 0));
	*ping = 0;
	pong[0] = pong[1] = 0;
	CU(cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, g->lcs, p, NULL));
	for (unsigned i = 1; i <= n; i++) {
		uint64_t ta = mono_ns(), tb;

		__atomic_store_n(ping, i, __ATOMIC_SEQ_CST);
		while (__atomic_load_n(&pong[1], __ATOMIC_ACQUIRE) != i)
			if (mono_ns() - ta > 2000000000ull) {
				fprintf(stderr, "xform-check: clock ping-pong: no answer\n");
				exit(3);
			}
		tb = mono_ns();
		if ((int64_t)(tb - ta) < best) {
			best = tb - ta;
			g->clk_at = (ta + tb) / 2;
			g->clk_off = (int64_t)__atomic_load_n(&pong[0], __ATOMIC_ACQUIRE) -
				     (int64_t)g->clk_at;
		}
	}
	wait_stream(g->lcs, 10, "clock ping-pong");
	cuMemFreeHost(ping);
	cuMemFreeHost(pong);
	g->clk_err = best / 2;
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

/* GPU time (ns) to us after the host time treq (ns), given the offset. */
static double after_us(int64_t off, unsigned long long gpu, uint64_t treq)
{
	return ((int64_t)gpu - off - (int64_t)treq) / 1e3;
}

/* One yield trial's raw times, converted once the clocks are known. */
struct trial {
	int t, valid;
	unsigned long long phase, lo, hi, last_yield;
	uint64_t treq;
	unsigned yields, pauses, refreshes;
};

/*
 * Per trial: a fresh BE spin job of about 1 ms per slot holds every slot;
 * once in place and after a phase that varies with the trial, the host
 * stores (n, k), notes the time and launches n x k LC blocks that fit only
 * in slots that BE blocks gave up. A trial is valid when a BE task ended
 * after the LC's first block started (the job had not ended). task_us 0:
 * the LC alone on an idle GPU, the floor of the launch itself.
 *
 * %globaltimer and CLOCK_MONOTONIC drift apart by microseconds per second
 * (5.5 ppm between two runs on an H200), so the offset is measured before
 * and after each task size's trials and interpolated at each request.
 */
static void yield_test(struct dev *g, struct spin *sp, int trials,
		       const std::vector<CUmodule> &mods, FILE *csv, FILE *sum)
{
	static const unsigned task_us[] = { 0, 1, 2, 5, 10, 20, 50 };
	const unsigned n = std::min(66u, g->nsm), k = std::min(4u, sp->k);
	const unsigned nlc = n * k;
	uint32_t epoch = 10000;
	struct gsp_persist_ctl c;

	fprintf(csv, "task_us,n,k,K,trial,valid,phase_ns,lc_first_us,lc_last_us,"
		"be_last_yield_us,yields,pauses,host_reads\n");
	fprintf(sum, "task_us,n,k,K,valid,invalid,lc_first_p50_us,lc_first_p99_us,"
		"lc_first_max_us,lc_last_p50_us,lc_last_p99_us,be_last_yield_p99_us,"
		"clock_drift_ppm,clock_err_ns\n");
	for (unsigned tu : task_us) {
		std::vector<double> first, last, byield;
		std::vector<struct trial> tr;
		int invalid = 0, nvalid = 0;

		clock_offset(g, mods);
		const int64_t off0 = g->clk_off, err0 = g->clk_err;
		const uint64_t at0 = g->clk_at;

		for (int t = 0; nvalid < trials && t < trials * 3 / 2; t++) {
			static unsigned long long lc_ns = 20000;
			void *p[] = { &lc_ns, &sp->lc_smid, &sp->lc_start };
			struct trial x = {};

			x.t = t;
			x.valid = 1;
			x.phase = tu ? (t * 7919ull) % (tu * 1000ull) : 0;
			set_word(g, GSP_PERSIST_CTRL(0, 0, ++epoch));
			if (tu) {
				spin_start(g, sp, tu * 1000ull,
					   std::max<size_t>(4, 1000 / tu));
				wait_live(g, sp, g->nsm * sp->k, 0, 2000);
				for (uint64_t t0 = mono_ns(); mono_ns() - t0 < x.phase; )
					;
			}
			x.treq = mono_ns();
			set_word(g, GSP_PERSIST_CTRL(n, k, ++epoch));
			CU(cuLaunchKernel(sp->lc, nlc, 1, 1, sp->block[0], 1, 1, 0,
					  g->lcs, p, NULL));
			wait_stream(g->lcs, 10, "yield LC");
			set_word(g, GSP_PERSIST_CTRL(0, 0, ++epoch));
			std::vector<unsigned long long> st(nlc);

			CU(cuMemcpyDtoH(st.data(), sp->lc_start, 8 * nlc));
			x.lo = *std::min_element(st.begin(), st.end());
			x.hi = *std::max_element(st.begin(), st.end());
			memset(&c, 0, sizeof(c));
			if (tu) {
				unsigned long long end = 0;

				spin_finish(g, sp, "yield", &c, &end);
				x.valid = end > x.lo && c.yields > 0;
				x.last_yield = c.last_yield_ns;
			}
			x.yields = c.yields;
			x.pauses = c.pauses;
			x.refreshes = c.refreshes;
			nvalid += x.valid;
			tr.push_back(x);
		}
		clock_offset(g, mods);
		const double span = (double)(g->clk_at - at0);
		const double drift = span > 0 ? (double)(g->clk_off - off0) / span : 0;

		for (const struct trial &x : tr) {
			const int64_t off = off0 + (int64_t)(drift * (double)(x.treq - at0));
			double f = after_us(off, x.lo, x.treq);
			double l = after_us(off, x.hi, x.treq);
			double y = x.last_yield ? after_us(off, x.last_yield, x.treq) : NAN;

			fprintf(csv, "%u,%u,%u,%u,%d,%d,%llu,%.2f,%.2f,%.2f,%u,%u,%u\n", tu,
				n, k, sp->k, x.t, x.valid, x.phase, f, l, y, x.yields,
				x.pauses, x.refreshes);
			if (!x.valid) {
				invalid++;
				continue;
			}
			first.push_back(f);
			last.push_back(l);
			if (tu)
				byield.push_back(y);
		}
		check((int)first.size() >= trials, "yield task_us=%u: %zu valid trials "
		      "of %d wanted", tu, first.size(), trials);
		fprintf(sum, "%u,%u,%u,%u,%zu,%d,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.2f,%.0f\n",
			tu, n, k, sp->k, first.size(), invalid, pct(first, .5),
			pct(first, .99), pct(first, 1), pct(last, .5), pct(last, .99),
			pct(byield, .99), drift * 1e6,
			(double)std::max(err0, g->clk_err));
		printf("yield task=%2uus n=%u k=%u/%u: %zu valid (%d invalid); LC first "
		       "block p50 %.1f p99 %.1f max %.1f us; all started p99 %.1f us "
		       "(clocks drift %.2f ppm, +- %lld ns)\n",
		       tu, n, k, sp->k, first.size(), invalid, pct(first, .5),
		       pct(first, .99), pct(first, 1), pct(last, .99), drift * 1e6,
		       (long long)std::max(err0, g->clk_err));
	}
}

/* ---- d: the keeper ---- */

/*
 * (n, k) = (N, K) asks for every slot: the last primary block must stay
 * (pausing), and once the word is cleared it alone must finish the job:
 * no top-up. Once with the word set before the launch, on a corpus kernel
 * (bitwise against the original), once mid-run on the spin job (each
 * task once).
 */
static void keeper(struct dev *g, const std::vector<CUmodule> &mods,
		   const struct spec *s, struct spin *sp, FILE *csv)
{
	std::string xname = std::string(s->name) + GSP_PERSIST_SUFFIX;
	CUfunction fo = need(mods, s->name), fx = need(mods, xname.c_str());
	unsigned k = k_of(fx, s->block, s->dyn_smem);
	CUdeviceptr ctl = ctl_create(g);
	struct gsp_persist_ctl c;
	struct bufs b;
	uint64_t ntasks = (uint64_t)s->grid[0] * s->grid[1] * s->grid[2];
	uint32_t epoch = 50000;

	fprintf(csv, "kernel,when,n,k,K,tasks,live_held,pauses,yields,held_ms,"
		"bitwise_equal,tasks_ok\n");
	bufs_make(&b, s);
	bufs_reset(&b);
	set_word(g, GSP_PERSIST_CTRL(0, 0, ++epoch));
	orig_launch(fo, s, &b, g->run);
	wait_stream(g->run, 30, "keeper");
	auto want = bufs_read(&b);

	bufs_reset(&b);
	set_word(g, GSP_PERSIST_CTRL(g->nsm, k, ++epoch));
	struct gsp_persist_job j = job_of(g, ctl, s->grid, k, g->refresh_ns,
					  g->batch_ns, GSP_PERSIST_PRIMARY);
	launch_x(g, fx, s->block, s->dyn_smem, b.params, &j, g->run);
	uint64_t t0 = mono_ns();

	while (mono_ns() - t0 < 2000000)
		;
	ctl_read(g, ctl, &c, GSP_PERSIST_RESET_BYTES);
	unsigned held = c.live;
	double held_ms = (mono_ns() - t0) / 1e6;

	set_word(g, GSP_PERSIST_CTRL(0, 0, ++epoch));
	wait_stream(g->run, 30, "keeper");
	ctl_read(g, ctl, &c);
	int eq = bufs_read(&b) == want, ok = ctl_clean(&c, ntasks);

	check(held == 1 && c.pauses > 0 && eq && ok, "keeper %s: %u blocks held "
	      "the word (want 1), %u pauses, outputs %s, tasks %s", s->label, held,
	      c.pauses, eq ? "equal" : "differ", ok ? "ok" : "wrong");
	fprintf(csv, "%s,before-launch,%u,%u,%u,%llu,%u,%u,%u,%.2f,%d,%d\n", s->label,
		g->nsm, k, k, (unsigned long long)ntasks, held, c.pauses, c.yields,
		held_ms, eq, ok);
	printf("keeper %s: (N, K) before the launch: %u block(s) stayed, %u pauses; "
	       "cleared, no top-up: outputs %s, tasks %s\n", s->label, held, c.pauses,
	       eq ? "bitwise-equal" : "DIFFERENT", ok ? "ok" : "WRONG");
	cuMemFree(ctl);
	bufs_free(&b);

	/* mid-run, on the spin job */
	unsigned long long end;

	/* 1 ms of tasks: the word must land before the job ends, however
	 * slowly the host sees every block live */
	set_word(g, GSP_PERSIST_CTRL(0, 0, ++epoch));
	spin_start(g, sp, 1000, 1000);
	wait_live(g, sp, g->nsm * sp->k, 0, 2000);
	set_word(g, GSP_PERSIST_CTRL(g->nsm, sp->k, ++epoch));
	t0 = mono_ns();
	held = wait_live(g, sp, 1, 0, 200);
	while (mono_ns() - t0 < 1000000)
		;
	ctl_read(g, sp->ctl, &c, GSP_PERSIST_RESET_BYTES);
	held = c.live;
	held_ms = (mono_ns() - t0) / 1e6;
	set_word(g, GSP_PERSIST_CTRL(0, 0, ++epoch));
	ok = spin_finish(g, sp, "keeper spin", &c, &end);
	check(held == 1 && c.pauses > 0, "keeper spin: %u blocks held the word "
	      "(want 1), %u pauses", held, c.pauses);
	fprintf(csv, "xf_spin(1us),mid-run,%u,%u,%u,%u,%u,%u,%u,%.2f,,%d\n", g->nsm,
		sp->k, sp->k, sp->grid[0], held, c.pauses, c.yields, held_ms, ok);
	printf("keeper xf_spin: (N, K) mid-run: %u block(s) stayed, %u pauses; "
	       "cleared, no top-up: tasks %s\n", held, c.pauses, ok ? "once" : "WRONG");
}

/* The interposer's waiter (libgsp/preload/spatial.c), in CUDA C++. */
__global__ void xf_wait_done(const unsigned long long *done,
			     unsigned long long n)
{
	if (threadIdx.x)
		return;
	for (;;) {
		unsigned long long v;

		asm volatile("ld.acquire.gpu.global.u64 %0, [%1];"
			     : "=l"(v) : "l"(done) : "memory");
		if (v >= n)
			return;
		__nanosleep(2000);
	}
}

/* A copy of the task counts, as a kernel: behind the waiter, a copy
 * engine's copy would hold up the host's reads of the ctl (the polls)
 * in the engine's queue until the job ended. */
__global__ void xf_snap(unsigned *out, const unsigned *in, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		out[i] = in[i];
}

/*
 * A waited job (GSP_PERSIST_WAITED, a waiter for done_tasks behind it):
 * under (N, K) mid-run no block stays, the stream stays blocked, and a
 * top-up after the word clears runs every task once; a copy of the task
 * counts queued behind the wait sees them all. A row of keeper.csv.
 */
static void waited(struct dev *g, struct spin *sp, FILE *csv)
{
	uint32_t epoch = 60000, full = g->nsm * sp->k;
	struct gsp_persist_ctl c;
	unsigned long long end;
	CUdeviceptr snap;

	/* before the job: an allocation, or the runtime's first launch
	 * (it loads the module), may wait for the device */
	CU(cuMemAlloc(&snap, sp->max_tasks * 4));
	xf_wait_done<<<1, 32, 0, g->run>>>((const unsigned long long *)snap, 0);
	xf_snap<<<1, 32, 0, g->run>>>((unsigned *)snap, (const unsigned *)snap, 0);
	CU(cuStreamSynchronize(g->run));
	/* 20 ms of tasks per slot: most are left when the word lands */
	set_word(g, GSP_PERSIST_CTRL(0, 0, ++epoch));
	struct gsp_persist_job j = spin_start(g, sp, 20000, 1000,
					      GSP_PERSIST_PRIMARY | GSP_PERSIST_WAITED);
	size_t n = (size_t)j.ntasks;
	uint64_t tw = mono_ns();

	xf_wait_done<<<1, 32, 0, g->run>>>(
		(const unsigned long long *)(sp->ctl + GSP_PERSIST_OFF_DONE_TASKS),
		j.ntasks);
	if (cudaGetLastError() != cudaSuccess) {
		fprintf(stderr, "xform-check: the waiter did not launch\n");
		exit(2);
	}
	xf_snap<<<256, 256, 0, g->run>>>((unsigned *)snap,
					 (const unsigned *)sp->count, n);
	uint64_t tl = mono_ns();

	unsigned up = wait_live(g, sp, full, 0, 2000);

	ctl_read(g, sp->ctl, &c, GSP_PERSIST_RESET_BYTES);
	printf("waited xf_spin: the waiter and the copy launched in %.3f ms; "
	       "%u of %u blocks live %.2f ms later, %llu of %llu tasks handed "
	       "out\n", (tl - tw) / 1e6, up, full, (mono_ns() - tl) / 1e6,
	       (unsigned long long)c.next_task, (unsigned long long)j.ntasks);
	set_word(g, GSP_PERSIST_CTRL(g->nsm, sp->k, ++epoch));
	uint64_t t0 = mono_ns();

	wait_live(g, sp, 0, 0, 200);
	while (mono_ns() - t0 < 1000000)
		;
	ctl_read(g, sp->ctl, &c, GSP_PERSIST_RESET_BYTES);
	unsigned held = c.live, pauses = c.pauses;
	double held_ms = (mono_ns() - t0) / 1e6;
	int blocked = cuStreamQuery(g->run) == CUDA_ERROR_NOT_READY;
	uint64_t left = c.next_task < j.ntasks ? j.ntasks - c.next_task : 0;

	lift_and_top_up(g, sp, &j, ++epoch);
	int ok = spin_finish(g, sp, "waited spin", &c, &end);
	std::vector<uint32_t> h(n);
	size_t bad = 0;

	CU(cuMemcpyDtoH(h.data(), snap, n * 4));
	for (size_t i = 0; i < n; i++)
		bad += h[i] != 1;
	cuMemFree(snap);
	check(held == 0 && pauses == 0 && left && blocked && ok && !bad,
	      "waited spin: %u blocks held the word (want 0), %u pauses, %llu tasks "
	      "left, stream %s, tasks %s, %zu tasks not done when the stream went on",
	      held, pauses, (unsigned long long)left, blocked ? "held" : "NOT HELD",
	      ok ? "once" : "wrong", bad);
	fprintf(csv, "xf_spin(20us),waited-mid-run,%u,%u,%u,%u,%u,%u,%u,%.2f,%d,%d\n",
		g->nsm, sp->k, sp->k, sp->grid[0], held, pauses, c.yields, held_ms,
		!bad, ok);
	printf("waited xf_spin: (N, K) mid-run: %u block(s) stayed, %llu tasks left, "
	       "stream %s; top-up: tasks %s, the work behind the wait saw %s\n", held,
	       (unsigned long long)left, blocked ? "held" : "NOT HELD",
	       ok ? "once" : "WRONG",
	       bad ? "MISSING TASKS" : "every task");
}

/*
 * GSP_PERSIST_LINGER: a job of 1.5 x N x K tasks of 20 ms, waited. In its
 * second round only half the slots have a task; 30 ms after the launch,
 * with the flag every block still holds its slot (they leave when the
 * last task has run), without it about half of them have left. Every task
 * runs once either way. Rows of keeper.csv.
 */
static void linger(struct dev *g, struct spin *sp, FILE *csv)
{
	uint32_t epoch = 70000, full = g->nsm * sp->k;
	unsigned n = (unsigned)std::min((size_t)full * 3 / 2, sp->max_tasks);
	unsigned live[2];
	int ok[2];

	for (int on = 0; on < 2; on++) {
		struct gsp_persist_ctl c;
		unsigned long long end;

		set_word(g, GSP_PERSIST_CTRL(0, 0, ++epoch));
		sp->ns = 20000000ULL;
		sp->grid[0] = n;
		sp->grid[1] = sp->grid[2] = 1;
		CU(cuMemsetD32Async(sp->count, 0, n, g->run));
		CU(cuMemsetD32Async(sp->end, 0, 2, g->run));
		struct gsp_persist_job j = job_of(g, sp->ctl, sp->grid, sp->k,
						  g->refresh_ns, g->batch_ns,
						  GSP_PERSIST_PRIMARY |
						  (on ? GSP_PERSIST_LINGER : 0));
		launch_x(g, sp->fx, sp->block, 0, sp->params, &j, g->run);
		uint64_t t0 = mono_ns();

		while (mono_ns() - t0 < 30000000)
			;
		ctl_read(g, sp->ctl, &c, GSP_PERSIST_RESET_BYTES);
		live[on] = c.live;
		ok[on] = spin_finish(g, sp, on ? "linger on" : "linger off", &c, &end);
		fprintf(csv, "xf_spin(20ms),linger-%s,%u,%u,%u,%u,%u,%u,%u,%.2f,%d,%d\n",
			on ? "on" : "off", g->nsm, sp->k, sp->k, n, live[on],
			c.pauses, c.yields, 30.0, 1, ok[on]);
	}
	/* without it: the second round's blocks and at most a few more */
	check(live[1] == full && live[0] < full * 3 / 4 && ok[0] && ok[1],
	      "linger: mid second round %u of %u blocks live with "
	      "GSP_PERSIST_LINGER (want all), %u without (want about half)",
	      live[1], full, live[0]);
	printf("linger xf_spin: %u tasks on %u slots, mid second round: %u blocks "
	       "live with GSP_PERSIST_LINGER, %u without; tasks %s\n", n, full,
	       live[1], live[0], ok[0] && ok[1] ? "once" : "WRONG");
}

/*
 * The override word (gsp_persist.h, 2.): a waited spin job of 100 tasks
 * of 20 us per slot on a ctl whose override word, in mapped host memory,
 * asks every slot of every SM while the board's word asks nothing. With
 * ovr_ptr 0 (the word set all the same) the job runs to its end without
 * a yield (row override-off).
 * With it, every block leaves with tasks left (job.word is the board's:
 * only the kernel's reads of the override stop it), and once the word is
 * cleared a top-up runs the rest without a yield, each task once; through
 * the SMs' copies and the mirror (row override) and read at every
 * boundary (refresh_ns = 0, row override-refresh0). Rows of keeper.csv.
 */
static void override_word(struct dev *g, struct spin *sp, FILE *csv)
{
	static const char *const when[] = { "override-off", "override",
					    "override-refresh0" };
	uint32_t epoch = 80000, full = g->nsm * sp->k;
	unsigned n = (unsigned)std::min((size_t)full * 100, sp->max_tasks);
	CUdeviceptr keep = sp->ctl, ovr_dev;
	uint64_t *ovr;

	CU(cuMemHostAlloc((void **)&ovr, 64, CU_MEMHOSTALLOC_DEVICEMAP));
	CU(cuMemHostGetDevicePointer(&ovr_dev, ovr, 0));
	for (int v = 0; v < 3; v++) {
		struct gsp_persist_ctl c;
		unsigned long long end;

		/* a ctl of its own: ovr_ptr is set when a ctl is made */
		sp->ctl = ctl_create(g, v ? ovr_dev : 0);
		__atomic_store_n(ovr, GSP_PERSIST_CTRL(GSP_PERSIST_MAX_SM,
						       GSP_PERSIST_MAX_K, 1),
				 __ATOMIC_RELEASE);
		set_word(g, GSP_PERSIST_CTRL(0, 0, ++epoch));
		sp->ns = 20000;
		sp->grid[0] = n;
		sp->grid[1] = sp->grid[2] = 1;
		CU(cuMemsetD32Async(sp->count, 0, n, g->run));
		CU(cuMemsetD32Async(sp->end, 0, 2, g->run));
		struct gsp_persist_job j = job_of(g, sp->ctl, sp->grid, sp->k,
						  v == 2 ? 0 : g->refresh_ns,
						  g->batch_ns, GSP_PERSIST_PRIMARY |
						  GSP_PERSIST_WAITED);
		uint64_t t0 = mono_ns();

		launch_x(g, sp->fx, sp->block, 0, sp->params, &j, g->run);
		/* no waiter behind it: the kernel ends with its last block */
		wait_stream(g->run, 30, when[v]);
		double held_ms = (mono_ns() - t0) / 1e6;

		ctl_read(g, sp->ctl, &c, GSP_PERSIST_RESET_BYTES);
		uint64_t done = c.done_tasks;
		unsigned live = c.live, yields = c.yields;

		/* the mirror and the SMs' copies still hold the override:
		 * lift_and_top_up refreshes them */
		__atomic_store_n(ovr, 0, __ATOMIC_RELEASE);
		if (v)
			lift_and_top_up(g, sp, &j, ++epoch);
		int ok = spin_finish(g, sp, when[v], &c, &end);

		if (v)
			check(done < n && !live && yields && c.yields == yields && ok,
			      "%s: %llu of %u tasks done, %u blocks live and %u "
			      "yields when the override stopped the job (want some "
			      "left, 0, some); %u yields in the top-up (want 0), "
			      "tasks %s", when[v], (unsigned long long)done, n, live,
			      yields, c.yields - yields, ok ? "once" : "wrong");
		else
			check(done == n && !yields && ok, "%s: %llu of %u tasks "
			      "done, %u yields with ovr_ptr 0 (want all, 0)",
			      when[v], (unsigned long long)done, n, yields);
		fprintf(csv, "xf_spin(20us),%s,%u,%u,%u,%u,%u,%u,%u,%.2f,,%d\n",
			when[v], v ? GSP_PERSIST_MAX_SM : 0, v ? GSP_PERSIST_MAX_K : 0,
			sp->k, n, live, c.pauses, c.yields, held_ms, ok);
		printf("override xf_spin (%s): the job alone ran %llu of %u tasks "
		       "in %.2f ms, %u yields%s; tasks %s\n", when[v],
		       (unsigned long long)done, n, held_ms, yields,
		       v ? ", then a top-up with the override cleared" : "",
		       ok ? "once" : "WRONG");
		cuMemFree(sp->ctl);
	}
	sp->ctl = keep;
	cuMemFreeHost(ovr);
}

static FILE *out_csv(const char *dir, const char *name)
{
	std::string p = std::string(dir) + "/" + name;
	FILE *f = fopen(p.c_str(), "w");

	if (!f) {
		perror(p.c_str());
		exit(2);
	}
	return f;
}

int main(int argc, char **argv)
{
	struct dev g;
	std::vector<CUmodule> mods;
	int a = 1, trials = 100;

	g.refresh_ns = GSP_PERSIST_REFRESH_NS;
	g.copy_ns = GSP_PERSIST_COPY_NS;
	g.batch_ns = GSP_PERSIST_BATCH_NS;
	for (; a + 1 < argc && !strncmp(argv[a], "--", 2); a += 2) {
		const char *o = argv[a], *v = argv[a + 1];

		if (!strcmp(o, "--trials"))
			trials = (int)cli_num("xform-check", o, v, 1, 10000);
		else if (!strcmp(o, "--refresh-ns"))
			g.refresh_ns = (uint32_t)cli_num("xform-check", o, v, 0, UINT32_MAX);
		else if (!strcmp(o, "--copy-ns"))
			g.copy_ns = (uint32_t)cli_num("xform-check", o, v, 0, UINT32_MAX);
		else if (!strcmp(o, "--batch-ns"))
			g.batch_ns = (uint32_t)cli_num("xform-check", o, v, 0, UINT32_MAX);
		else
			break;
	}
	if (argc - a < 2 || !strncmp(argv[a], "--", 2)) {
		fprintf(stderr, "usage: xform-check [--trials N] [--refresh-ns NS] "
			"[--copy-ns NS] [--batch-ns NS] OUTDIR MODULE.xform.ptx...\n"
			"  (bench/gpu/xform-check.sh builds the modules)\n");
		return 2;
	}
	const char *out = argv[a++];

	CU(cuInit(0));
	CU(cuDeviceGet(&g.d, 0));
	CU(cuDevicePrimaryCtxRetain(&g.ctx, g.d));
	CU(cuCtxSetCurrent(g.ctx));
	int nsm;
	CU(cuDeviceGetAttribute(&nsm, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, g.d));
	g.nsm = (unsigned)nsm;
	if (g.nsm > GSP_PERSIST_MAX_SM) {
		fprintf(stderr, "xform-check: %u SMs, the ABI has %d\n", g.nsm,
			GSP_PERSIST_MAX_SM);
		return 2;
	}
	CU(cuMemHostAlloc((void **)&g.ctrl_host, 64, CU_MEMHOSTALLOC_DEVICEMAP));
	CU(cuMemHostGetDevicePointer(&g.ctrl_dev, g.ctrl_host, 0));
	CU(cuStreamCreate(&g.run, CU_STREAM_NON_BLOCKING));
	CU(cuStreamCreate(&g.top, CU_STREAM_NON_BLOCKING));
	CU(cuStreamCreate(&g.lcs, CU_STREAM_NON_BLOCKING));
	CU(cuStreamCreate(&g.poll, CU_STREAM_NON_BLOCKING));
	rank_table(&g);
	for (; a < argc; a++) {
		FILE *f = fopen(argv[a], "rb");
		std::vector<char> src;
		CUmodule m;
		size_t n;
		char buf[65536];

		if (!f) {
			perror(argv[a]);
			return 2;
		}
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			src.insert(src.end(), buf, buf + n);
		fclose(f);
		src.push_back(0);
		CU(cuModuleLoadData(&m, src.data()));
		mods.push_back(m);
	}
	clock_offset(&g, mods);
	printf("device: %u SMs; %%globaltimer - host clock = %lld ns (+- %lld ns)\n",
	       g.nsm, (long long)g.clk_off, (long long)g.clk_err);

	const unsigned n1 = 1 << 22, w = 2048, h = 2048;
	std::vector<spec> specs = {
		{ "saxpy", "_Z5saxpyifPKfPf", { (n1 + 255) / 256 - 7, 1, 1 }, { 256, 1, 1 }, 0,
		  { { 'i', n1 - 1000.0, 0, 0 }, { 'f', 1.5, 0, 0 },
		    { 'b', 0, n1 * 4, 'f' }, { 'b', 0, n1 * 4, 'f' } } },
		{ "reduce_sum", "_Z10reduce_sumPKfPfi", { n1 / 256, 1, 1 }, { 256, 1, 1 }, 0,
		  { { 'b', 0, n1 * 4, 'f' }, { 'b', 0, n1 / 256 * 4, 'z' }, { 'i', n1 - 77.0, 0, 0 } } },
		{ "skip_blocks", "_Z11skip_blocksPKiPfi", { 8192, 1, 1 }, { 128, 1, 1 }, 0,
		  { { 'b', 0, 8192 * 4, 'o' }, { 'b', 0, 8192 * 128 * 4, 'f' }, { 'i', 1, 0, 0 } } },
		/* joined, with batches of up to 16 tasks */
		{ "skip_blocks(64K)", "_Z11skip_blocksPKiPfi", { 65536, 1, 1 }, { 128, 1, 1 }, 0,
		  { { 'b', 0, 65536 * 4, 'o' }, { 'b', 0, 65536 * 128 * 4, 'f' }, { 'i', 1, 0, 0 } } },
		{ "partial_tile", "_Z12partial_tilePKfPfi", { n1 / 128, 1, 1 }, { 128, 1, 1 }, 0,
		  { { 'b', 0, n1 * 4, 'f' }, { 'b', 0, n1 * 4, 'z' }, { 'i', n1 - 100.0, 0, 0 } } },
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
		{ "transpose<float 32>", "_Z9transposeIfLi32EEvPKT_PS0_ii", { w / 32, h / 32, 1 },
		  { 32, 32, 1 }, 0,
		  { { 'b', 0, w * h * 4, 'f' }, { 'b', 0, w * h * 4, 'z' }, { 'i', w, 0, 0 },
		    { 'i', h, 0, 0 } } },
		{ "warp_sum", "_Z8warp_sumPKiPii", { 4096, 1, 1 }, { 256, 1, 1 }, 0,
		  { { 'b', 0, 4096 * 256 * 4, 'o' }, { 'b', 0, 4, 'z' }, { 'i', 4096 * 256 - 100.0, 0, 0 } } },
		{ "mm(2048)", "_Z9mm_kerneliPKfS0_Pf", { 64, 64, 1 }, { 32, 8, 1 }, 0,
		  { { 'i', 2048, 0, 0 }, { 'b', 0, 2048 * 2048 * 4, 'f' },
		    { 'b', 0, 2048 * 2048 * 4, 'f' }, { 'b', 0, 2048 * 2048 * 4, 'z' } } },
		/* blockIdx/gridDim read in device functions (their clones take
		 * the task's ids); fn_coords3d counts each block in place */
		{ "fn_coords3d", "_Z11fn_coords3dPjS_S_", { 37, 11, 5 }, { 8, 4, 2 }, 0,
		  { { 'b', 0, 37 * 11 * 5 * 64 * 16, 'z' }, { 'b', 0, 37 * 11 * 5 * 4, 'z' },
		    { 'b', 0, 37 * 11 * 5 * 64 * 4, 'z' } } },
		{ "fn_tile2d", "_Z9fn_tile2diiPKfPf", { 125, 63, 1 }, { 16, 16, 1 }, 0,
		  { { 'i', 2000, 0, 0 }, { 'i', 1000, 0, 0 }, { 'b', 0, 2000 * 1000 * 4, 'f' },
		    { 'b', 0, 2000 * 1000 * 4, 'z' } } },
		{ "fn_stride1d", "_Z11fn_stride1diPKfPf", { 300, 1, 1 }, { 256, 1, 1 }, 0,
		  { { 'i', n1 - 3.0, 0, 0 }, { 'b', 0, n1 * 4, 'f' }, { 'b', 0, n1 * 4, 'z' } } },
	};
	FILE *cost = out_csv(out, "cost.csv");
	double lsum = 0;

	fprintf(cost, "kernel,name,K,tasks,bitwise_equal,tasks_ok,orig_us,xform_us,ratio,"
		"host_reads,batch0_us,batch0_ratio,refresh0_us,refresh0_ratio,"
		"refresh0_host_reads,reset_orig_us,writes_us,writes_ratio,"
		"fresh_us,fresh_ratio\n");
	for (auto &s : specs) {
		double r;

		cost_one(&g, mods, &s, cost, &r);
		lsum += log(r);
	}
	fclose(cost);
	printf("cost: geomean xform/orig over %zu kernels = %.4f\n", specs.size(),
	       exp(lsum / specs.size()));

	struct spin sp;

	spin_make(&g, mods, &sp);
	FILE *pl = out_csv(out, "placement.csv");
	placement(&g, &sp, pl);
	fclose(pl);

	FILE *kc = out_csv(out, "keeper.csv");
	keeper(&g, mods, &specs[0], &sp, kc);
	waited(&g, &sp, kc);
	linger(&g, &sp, kc);
	override_word(&g, &sp, kc);
	fclose(kc);

	FILE *yc = out_csv(out, "yield.csv"), *ys = out_csv(out, "yield-summary.csv");
	yield_test(&g, &sp, trials, mods, yc, ys);
	fclose(yc);
	fclose(ys);
	printf("xform-check: %s (%d failed checks)\n",
	       failed ? "CHECKS FAILED" : "all checks passed", failed);
	return 0;
}
