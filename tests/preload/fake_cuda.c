// SPDX-License-Identifier: GPL-2.0
/*
 * A fake libcuda.so.1 for the interposer's tests: the driver entry points
 * the interposer and the tests use, each appending (name, stream, payload,
 * thread) to an in-memory trace that the test reads through fake_*().
 * Every GPU operation advances one virtual GPU clock by fake_set_op_ns();
 * events read that clock, so elapsed times are the sum of the fake
 * durations between them. Nothing here runs on a GPU.
 *
 * Over 800 lines: one fake driver, loaded as libcuda.so.1 by every preload
 * test, with one trace and one clock; splitting it would share them
 * through globals across files. Fault injection, which shares neither,
 * is in fake_fault.c; what it added here is one INJECT line per entry
 * point.
 *
 * Modules (simulated): a module or library keeps a copy of its image if
 * that is PTX text, and its functions take the parameters its .entry
 * lists; functions of any other image take one int. Device memory is host
 * memory (cuMemAlloc is calloc), so copies and memsets into it really
 * happen and the tests can read it; a launch of gsp_sm_probe, the
 * interposer's SM probe, marks SMs 0..FAKE_SMS-1 as a GPU would. The
 * device has FAKE_SMS SMs, compute capability 9.0, an occupancy of
 * FAKE_OCC blocks per SM for every kernel (fewer where an H100's shared
 * memory, FAKE_SMEM_SM per SM, holds fewer), and MPS on unless
 * FAKE_CUDA_MPS=0. A kernel whose body has a comment "// fake-regs R C"
 * uses R registers per thread, C in its clone NAME__gsp, at most its
 * .maxnreg; its occupancy is what 65536 registers per SM allow. FAKE_CUDA_NO_REGISTER=1 makes cuMemHostRegister fail.
 * Mapped host memory's device address is its host address. A launch
 * whose last parameter is a struct gsp_persist_job records whether the
 * job's ctl was reset (its first GSP_PERSIST_RESET_BYTES zero), then
 * dirties the ctl as the kernel would (next_task, and done_tasks set to
 * ntasks: every task ran). A launch of a function named
 * FAKE_CUDA_FAIL_FN fails; one of gsp_wait_done records its two u64
 * arguments in addr and count. A module's
 * variables (cuModuleGetGlobal, cuLibraryGetGlobal) are those its PTX
 * declares as "NAME[N];" or "NAME;" after a type .bW/.uW/.sW/.fW: N x W/8
 * bytes of fake device memory each, allocated at the first look-up; a
 * 64-bit "NAME = 0xHEX;" (a bound reference, gsp_xform_bind()) holds HEX.
 *
 * Green contexts (simulated): the device's SM resource has FAKE_CUDA_SMS
 * SMs (default FAKE_SMS, also the SM count the attributes give), split
 * by count in steps of 8 (at least 8) like a Hopper GPU;
 * cuGreenCtxCreate fails with FAKE_CUDA_GREEN_FAIL=1; each launch's
 * trace entry has the SM count of the green context its stream belongs
 * to (0: an ordinary stream). The primary context is FAKE_PRIMARY_CTX.
 * FAKE_CUDA_VERSION=N sets the driver version (default 13000). With
 * FAKE_CUDA_GREEN_REPORT=1 the fake says at exit on stderr how many green
 * contexts, green streams and events used with them are still alive.
 *
 * Streams (simulated): priorities run from 0 (least, the default) to
 * FAKE_PRIO_GREATEST (-5, as on Hopper), out-of-range ones clamped; each
 * trace entry of a stream-ordered call names the previous one on its
 * stream and, for a wait, the event record it waits for, so the tests can
 * follow dependencies (the legacy stream's implicit synchronisation with
 * blocking streams is not modelled). Stream capture: cuStreamIsCapturing
 * says ACTIVE for a stream between cuStreamBeginCapture and EndCapture,
 * and for the legacy stream while any capture runs it fails as the driver
 * does in the global capture mode. An event recorded into a stream in
 * capture joins it: querying or synchronising it fails and invalidates
 * the capture, whose EndCapture then fails, as the driver does.
 *
 * FAKE_CUDA_REALTIME=1 makes the fake GPU keep wall-clock time instead,
 * for the flood test and the micro-benchmark: one queue whose ops each
 * take fake_set_op_ns() of real time after the previous one; events
 * complete (cuEventQuery, cuEventSynchronize) when the queue reaches
 * them; synchronize calls sleep until the queue is empty; and a launch
 * blocks while FAKE_QUEUE ops are outstanding, as the real driver does
 * when its push buffer is full. FAKE_CUDA_CALL_NS=N spins N ns inside
 * the driver lock on every traced call, a stand-in for the real
 * driver's per-call cost and lock contention.
 *
 * Fault injection, opt-in: every driver entry point is counted (1, 2, ...
 * across threads, in the order they enter) and can fail instead of
 * doing anything, returning an error its kind plausibly gives: creations,
 * allocations and loads CUDA_ERROR_OUT_OF_MEMORY, launches
 * CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, sync points and queries
 * CUDA_ERROR_LAUNCH_FAILED (an earlier kernel's fault), copies, memsets
 * and frees CUDA_ERROR_INVALID_VALUE, event operations and destroys
 * CUDA_ERROR_INVALID_HANDLE, context calls CUDA_ERROR_INVALID_CONTEXT,
 * look-ups CUDA_ERROR_NOT_FOUND. FAKE_CUDA_FAIL_NTH=n fails the n-th
 * call; FAKE_CUDA_FAIL_SEED=S with FAKE_CUDA_FAIL_RATE=p fails each call
 * with probability p, decided by S and n alone; at most
 * FAKE_CUDA_FAIL_MAX (default 1) calls fail; FAKE_CUDA_FAIL_CALL=name
 * counts only that entry point's calls. Each fault is said on stderr
 * ("fake_cuda: injected ...") and recorded for fake_fault_get(); at exit
 * the fake says how many calls it counted (also with
 * FAKE_CUDA_FAIL_REPORT=1, for a clean run).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>
#undef cuGetProcAddress
#undef cuEventElapsedTime
#undef cuMemcpyHtoD
#undef cuStreamBeginCapture
#undef cuDevicePrimaryCtxRelease
#undef cuDevicePrimaryCtxReset

#include <gsp_persist.h>

#include "fake_cuda.h"

#define EXPORT __attribute__((visibility("default")))
#define TRACE_MAX 65536
#define FAKE_QUEUE 1024
#define FAKE_SMS 4
#define FAKE_OCC 3
/* an H100's shared memory: per SM, and reserved per block */
#define FAKE_SMEM_SM	233472u
#define FAKE_SMEM_RSV	1024u
#define MAX_FPARAMS 16

/* The fake's whole state, one driver per process like the real one. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct fake_call trace[TRACE_MAX];
static unsigned int ntrace;
static uint64_t gpu_clock, op_ns = 1000;
static int driver_version = 13000;
static struct { uintptr_t lo, hi; unsigned int type; } ranges[64];
static unsigned int nranges;
static __thread CUcontext cur;
static __thread pid_t tid;	/* cached: gettid() is a system call */
/* Real-time mode (see the top): set once from the environment. */
static pthread_once_t rt_once = PTHREAD_ONCE_INIT;
static int realtime;
static uint64_t call_ns;
static uint64_t done_at;		/* when the queue is empty, under mu */
static uint64_t qdone[FAKE_QUEUE];	/* completion of recent ops, under mu */
static uint64_t nops;
static int hold;		/* see fake_hold() */
static int hold_copies;		/* see fake_hold_copies() */
static uintptr_t held_streams[32];	/* launched on while held, under mu */
static unsigned int nheld;
static struct { uintptr_t lo, hi; } allocs[256];	/* device memory */
static unsigned int nallocs;

struct fake_event {
	uint64_t t;
	int id, held, green;
	int rec_at;			/* trace index of its last record */
	unsigned int rec_gen;		/* ... in this trace generation */
	uintptr_t captured;		/* order key of the capture it joined */
};
struct fake_func {
	int nparams;
	size_t size[MAX_FPARAMS];
	char name[48];
	int regs;		/* see ptx_regs(); 0: FAKE_OCC blocks per SM */
	int carveout;		/* its preferred carveout, as last set */
};
#define MOD_VARS 8
struct fake_mod {		/* PTX text, or NULL; its variables */
	char *text;
	struct { char name[48]; CUdeviceptr p; size_t n; } var[MOD_VARS];
	unsigned int nvar;
};
static char hidden[48];		/* see fake_hide_global() */
#define GREEN_STEP 8
#define GREEN_STREAMS 64
struct fake_green { unsigned int sms; };
/* Green streams (handles from 0x6000) and live counts, under mu. */
static struct { uintptr_t s; unsigned int sms; int live; } gstreams[GREEN_STREAMS];
static unsigned int ngstreams;
static int green_live, gstream_live, gevent_live;
static int hidden_in_gsp;
#define FAKE_PRIO_GREATEST (-5)
#define STREAMS 1024
/* Streams cuStreamCreate* made, from 0x5000; under mu. */
static struct { uintptr_t s; int prio; unsigned int flags; } streams[STREAMS];
static unsigned int nstreams;
/* Stream order: the last entry of each stream this generation; under mu. */
static struct { uintptr_t key; int at; } lastop[256];
static unsigned int nlastop, trace_gen;
static uintptr_t capturing[8];		/* order keys of streams in capture */
static int invalidated[8];		/* ... whose capture an event query broke */
static unsigned int ncapturing;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ULL),
			       .tv_nsec = (long)(t % 1000000000ULL) };

	/* Even a past deadline costs a system call: check first. */
	if (t <= now_ns())
		return;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
		;
}

/* The SM count, FAKE_CUDA_SMS or FAKE_SMS; read once. */
static unsigned int sms(void)
{
	static unsigned int n;
	const char *e;

	if (!__atomic_load_n(&n, __ATOMIC_RELAXED)) {
		e = getenv("FAKE_CUDA_SMS");
		__atomic_store_n(&n, e && atoi(e) > 0 && atoi(e) <= 256 ?
				 (unsigned int)atoi(e) : FAKE_SMS,
				 __ATOMIC_RELAXED);
	}
	return __atomic_load_n(&n, __ATOMIC_RELAXED);
}

/* The SM count of the green context @s belongs to; 0 if none. mu held. */
static unsigned int green_sms(uintptr_t s)
{
	unsigned int i;

	for (i = 0; i < ngstreams; i++)
		if (gstreams[i].s == s)
			return gstreams[i].sms;
	return 0;
}

/* Marks @e as used with a green stream (counted until destroyed). */
static void green_event(struct fake_event *e)
{
	if (!e->green) {
		e->green = 1;
		gevent_live++;
	}
}

static void rt_init(void)
{
	const char *c = getenv("FAKE_CUDA_CALL_NS");

	realtime = getenv("FAKE_CUDA_REALTIME") &&
		   !strcmp(getenv("FAKE_CUDA_REALTIME"), "1");
	call_ns = c ? strtoull(c, NULL, 10) : 0;
}

static pid_t my_tid(void)
{
	if (!tid)
		tid = gettid();
	return tid;
}

/*
 * The stream a call named @name on @s is ordered on: the legacy stream is
 * 1, a thread's per-thread default stream its tid << 8 | 2.
 */
static uintptr_t order_key(const char *name, CUstream s)
{
	size_t l = strlen(name);
	int pt = l > 5 && (!strcmp(name + l - 5, "_ptsz") ||
			   !strcmp(name + l - 5, "_ptds"));

	if (s == CU_STREAM_PER_THREAD || (pt && !s))
		return (uintptr_t)my_tid() << 8 | 2;
	return s ? (uintptr_t)s : 1;
}

/* @c (a stream-ordered call) follows the last one on its stream; mu held. */
static void order(struct fake_call *c, uintptr_t key)
{
	unsigned int i;

	for (i = 0; i < nlastop && lastop[i].key != key; i++)
		;
	c->prev = i < nlastop ? lastop[i].at : -1;
	if (i == nlastop && nlastop < sizeof(lastop) / sizeof(*lastop))
		lastop[nlastop++].key = key;
	if (i < nlastop)
		lastop[i].at = (int)(c - trace);
}

/* Priority and flags of @s; mu held. 0 for streams the fake did not make. */
static int stream_prio(uintptr_t s, unsigned int *flags)
{
	unsigned int i;

	for (i = 0; i < nstreams; i++)
		if (streams[i].s == s) {
			*flags = streams[i].flags;
			return streams[i].prio;
		}
	*flags = 0;
	return 0;
}

static struct fake_call *rec(const char *name, CUstream s, uint64_t payload,
			     int gpu_op)
{
	struct fake_call *c = NULL;

	pthread_once(&rt_once, rt_init);
	if (realtime && gpu_op) {
		uint64_t oldest;

		/* A full queue blocks the launch until its oldest op ends. */
		pthread_mutex_lock(&mu);
		oldest = qdone[nops % FAKE_QUEUE];
		pthread_mutex_unlock(&mu);
		sleep_until(oldest);
	}
	pthread_mutex_lock(&mu);
	if (call_ns) {
		uint64_t until = now_ns() + call_ns;

		while (now_ns() < until)
			;
	}
	if (realtime && gpu_op) {
		uint64_t t = now_ns();

		done_at = (done_at > t ? done_at : t) + op_ns;
		qdone[nops++ % FAKE_QUEUE] = done_at;
	}
	if (ntrace < TRACE_MAX) {
		c = &trace[ntrace++];
		memset(c, 0, sizeof(*c));
		strncpy(c->name, name, sizeof(c->name) - 1);
		c->stream = (uintptr_t)s;
		c->payload = payload;
		c->tid = my_tid();
		c->prio = stream_prio((uintptr_t)s, &c->sflags);
		c->prev = c->waits = -1;
		if (gpu_op || !strncmp(name, "cuEventRecord", 13) ||
		    !strncmp(name, "cuStreamWaitEvent", 17))
			order(c, order_key(name, s));
	}
	if (gpu_op)
		gpu_clock += op_ns;
	pthread_mutex_unlock(&mu);
	/* The caller fills in more; the trace is read after the calls. */
	return c;
}

/* Real-time mode: the time the queue empties (now if it is idle). */
static uint64_t queue_end(void)
{
	uint64_t t = now_ns(), d;

	pthread_mutex_lock(&mu);
	d = done_at;
	pthread_mutex_unlock(&mu);
	return d > t ? d : t;
}

static void rt_sync(void)
{
	pthread_once(&rt_once, rt_init);
	if (realtime)
		sleep_until(queue_end());
}

/*
 * Fault injection (see the top; fake_fault.c): every driver entry point
 * starts with INJECT(error, key); when the call is chosen it does nothing
 * and returns the error its kind plausibly gives.
 */
#define INJECT_FN(N_, E_, K_, F_)					\
	do {								\
		const struct fake_func *f_ = (const void *)(F_);	\
									\
		if (fake_fault_hit((N_), (E_), (uint64_t)(K_), my_tid(), \
				   f_ ? f_->name : ""))			\
			return (E_);					\
	} while (0)
#define INJECT_AS(name, err, key) INJECT_FN(name, err, key, NULL)
#define INJECT(err, key) INJECT_AS(__func__, err, key)

/* Test controls ------------------------------------------------------------ */

EXPORT unsigned int fake_trace_len(void)
{
	unsigned int n;

	pthread_mutex_lock(&mu);
	n = ntrace;
	pthread_mutex_unlock(&mu);
	return n;
}

EXPORT void fake_trace_get(unsigned int i, struct fake_call *out)
{
	pthread_mutex_lock(&mu);
	*out = trace[i];
	pthread_mutex_unlock(&mu);
}

EXPORT void fake_trace_reset(void)
{
	pthread_mutex_lock(&mu);
	ntrace = 0;
	nlastop = 0;
	trace_gen++;
	pthread_mutex_unlock(&mu);
}

EXPORT void fake_set_op_ns(uint64_t ns) { op_ns = ns; }
EXPORT void fake_hold(int on)
{
	pthread_mutex_lock(&mu);
	nheld = 0;
	pthread_mutex_unlock(&mu);
	__atomic_store_n(&hold, on, __ATOMIC_SEQ_CST);
}

EXPORT void fake_hold_copies(int on)
{
	__atomic_store_n(&hold_copies, on, __ATOMIC_SEQ_CST);
}

/* Under mu: whether @s had a launch since fake_hold(1). */
static int stream_held(uintptr_t s)
{
	unsigned int i;

	for (i = 0; i < nheld; i++)
		if (held_streams[i] == s)
			return 1;
	return 0;
}

/* An async copy in or out on @s: held too under fake_hold_copies(1). */
static void copy_held(CUstream s)
{
	pthread_mutex_lock(&mu);
	if (__atomic_load_n(&hold, __ATOMIC_SEQ_CST) &&
	    __atomic_load_n(&hold_copies, __ATOMIC_SEQ_CST) &&
	    !stream_held((uintptr_t)s) &&
	    nheld < sizeof(held_streams) / sizeof(held_streams[0]))
		held_streams[nheld++] = (uintptr_t)s;
	pthread_mutex_unlock(&mu);
}
EXPORT void fake_set_version(int v) { driver_version = v; }

EXPORT void fake_hide_global(const char *name, int in_gsp)
{
	pthread_mutex_lock(&mu);
	snprintf(hidden, sizeof(hidden), "%s", name);
	hidden_in_gsp = in_gsp;
	pthread_mutex_unlock(&mu);
}

EXPORT void fake_register(const void *p, size_t n, unsigned int type)
{
	pthread_mutex_lock(&mu);
	ranges[nranges].lo = (uintptr_t)p;
	ranges[nranges].hi = (uintptr_t)p + n;
	ranges[nranges++].type = type;
	pthread_mutex_unlock(&mu);
}

EXPORT CUfunction fake_function(int nparams, const size_t *sizes)
{
	struct fake_func *f = calloc(1, sizeof(*f));	/* lives forever */
	int i;

	if (!f)
		abort();
	f->nparams = nparams;
	for (i = 0; i < nparams; i++)
		f->size[i] = sizes[i];
	return (CUfunction)f;
}

/* Driver entry points -------------------------------------------------------- */

EXPORT CUresult cuInit(unsigned int flags)
{
	INJECT(CUDA_ERROR_NO_DEVICE, 0);
	(void)flags;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDriverGetVersion(int *v)
{
	INJECT(CUDA_ERROR_INVALID_VALUE, 0);
	const char *e = getenv("FAKE_CUDA_VERSION");

	*v = e ? atoi(e) : driver_version;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetCount(int *n)
{
	INJECT(CUDA_ERROR_INVALID_DEVICE, 0);
	rec("cuDeviceGetCount", NULL, 0, 0);
	*n = 1;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetCurrent(CUcontext *c)
{
	INJECT(CUDA_ERROR_INVALID_CONTEXT, 0);
	*c = cur;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext c)
{
	INJECT(CUDA_ERROR_INVALID_CONTEXT, c);
	cur = c;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSynchronize(void)
{
	INJECT(CUDA_ERROR_LAUNCH_FAILED, 0);
	rec("cuCtxSynchronize", NULL, 0, 0);
	rt_sync();
	return CUDA_SUCCESS;
}

EXPORT CUresult cuFuncGetParamInfo(CUfunction fn, size_t i, size_t *off,
				   size_t *size)
{
	INJECT(CUDA_ERROR_INVALID_HANDLE, i);
	struct fake_func *f = (struct fake_func *)fn;
	size_t o = 0, k;

	if (f->nparams < 0)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (i >= (size_t)f->nparams)
		return CUDA_ERROR_INVALID_VALUE;
	for (k = 0; k < i; k++)
		o += f->size[k];
	*off = o;
	*size = f->size[i];
	return CUDA_SUCCESS;
}

EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute a,
				      CUdeviceptr p)
{
	INJECT(CUDA_ERROR_INVALID_VALUE, p);
	unsigned int i;

	if (a != CU_POINTER_ATTRIBUTE_MEMORY_TYPE)
		return CUDA_ERROR_NOT_SUPPORTED;
	pthread_mutex_lock(&mu);
	for (i = 0; i < nranges; i++)
		if (p >= ranges[i].lo && p < ranges[i].hi) {
			*(unsigned int *)data = ranges[i].type;
			pthread_mutex_unlock(&mu);
			return CUDA_SUCCESS;
		}
	pthread_mutex_unlock(&mu);
	return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuEventCreate(CUevent *e, unsigned int flags)
{
	INJECT(CUDA_ERROR_OUT_OF_MEMORY, 0);
	static int ids;		/* event ids, under mu */
	struct fake_event *fe = calloc(1, sizeof(*fe));

	(void)flags;
	if (!fe)
		return CUDA_ERROR_OUT_OF_MEMORY;
	fe->rec_at = -1;
	pthread_mutex_lock(&mu);
	fe->id = ++ids;
	pthread_mutex_unlock(&mu);
	*e = (CUevent)fe;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuEventDestroy_v2(CUevent e)
{
	INJECT(CUDA_ERROR_INVALID_HANDLE, (uintptr_t)e);
	pthread_mutex_lock(&mu);
	if (((struct fake_event *)e)->green)
		gevent_live--;
	pthread_mutex_unlock(&mu);
	free(e);
	return CUDA_SUCCESS;
}

static CUresult ev_record(const char *name, CUevent e, CUstream s)
{
	INJECT_AS(name, CUDA_ERROR_INVALID_HANDLE, (uintptr_t)e);
	struct fake_event *fe = (struct fake_event *)e;
	struct fake_call *c = rec(name, s, (uint64_t)fe->id, 0);
	uintptr_t key = order_key(name, s);
	unsigned int i;

	pthread_mutex_lock(&mu);
	fe->captured = 0;
	for (i = 0; i < ncapturing; i++)
		if (capturing[i] == key)
			fe->captured = key;
	if (c) {
		fe->rec_at = (int)(c - trace);
		fe->rec_gen = trace_gen;
	}
	if (green_sms((uintptr_t)s))
		green_event(fe);
	fe->held = __atomic_load_n(&hold, __ATOMIC_SEQ_CST) &&
		   stream_held((uintptr_t)s);
	pthread_mutex_unlock(&mu);
	if (realtime) {
		fe->t = queue_end();
		return CUDA_SUCCESS;
	}
	pthread_mutex_lock(&mu);
	fe->t = gpu_clock;
	pthread_mutex_unlock(&mu);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuEventRecord(CUevent e, CUstream s)
{
	return ev_record("cuEventRecord", e, s);
}

EXPORT CUresult cuEventRecord_ptsz(CUevent e, CUstream s)
{
	return ev_record("cuEventRecord_ptsz", e, s);
}

EXPORT CUresult cuEventRecordWithFlags(CUevent e, CUstream s, unsigned int f)
{
	(void)f;
	return ev_record("cuEventRecordWithFlags", e, s);
}

/* A captured event waited for: its capture is invalidated. */
static int capture_broken(const struct fake_event *fe)
{
	unsigned int i;

	if (!fe->captured)
		return 0;
	pthread_mutex_lock(&mu);
	for (i = 0; i < ncapturing; i++)
		if (capturing[i] == fe->captured)
			invalidated[i] = 1;
	pthread_mutex_unlock(&mu);
	return 1;
}

EXPORT CUresult cuEventQuery(CUevent e)
{
	INJECT(CUDA_ERROR_LAUNCH_FAILED, (uintptr_t)e);
	const struct fake_event *fe = (void *)e;

	if (capture_broken(fe))
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	if (fe->held && __atomic_load_n(&hold, __ATOMIC_SEQ_CST))
		return CUDA_ERROR_NOT_READY;
	return realtime && now_ns() < fe->t ? CUDA_ERROR_NOT_READY
					     : CUDA_SUCCESS;
}

EXPORT CUresult cuEventSynchronize(CUevent e)
{
	INJECT(CUDA_ERROR_LAUNCH_FAILED, (uintptr_t)e);
	const struct fake_event *fe = (void *)e;

	rec("cuEventSynchronize", NULL, (uint64_t)fe->id, 0);
	if (capture_broken(fe))
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	if (realtime)
		sleep_until(fe->t);
	return CUDA_SUCCESS;
}

static CUresult elapsed(float *ms, CUevent a, CUevent b)
{
	const struct fake_event *x = (void *)a, *y = (void *)b;

	*ms = (float)((double)(y->t - x->t) / 1e6);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b)
{
	INJECT(CUDA_ERROR_INVALID_HANDLE, 0);
	return elapsed(ms, a, b);
}

EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b)
{
	INJECT(CUDA_ERROR_INVALID_HANDLE, 0);
	return elapsed(ms, a, b);
}

EXPORT CUresult cuStreamSynchronize(CUstream s)
{
	INJECT(CUDA_ERROR_LAUNCH_FAILED, (uintptr_t)s);
	rec("cuStreamSynchronize", s, 0, 0);
	rt_sync();
	return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamSynchronize_ptsz(CUstream s)
{
	INJECT(CUDA_ERROR_LAUNCH_FAILED, (uintptr_t)s);
	rec("cuStreamSynchronize_ptsz", s, 0, 0);
	rt_sync();
	return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamQuery(CUstream s)
{
	INJECT(CUDA_ERROR_LAUNCH_FAILED, (uintptr_t)s);
	rec("cuStreamQuery", s, 0, 0);
	pthread_once(&rt_once, rt_init);
	return realtime && queue_end() > now_ns() ? CUDA_ERROR_NOT_READY
						  : CUDA_SUCCESS;
}

static CUresult wait_event(const char *name, CUstream s, CUevent e)
{
	INJECT_AS(name, CUDA_ERROR_INVALID_HANDLE, (uintptr_t)e);
	struct fake_event *fe = (struct fake_event *)e;
	struct fake_call *c = rec(name, s, (uint64_t)fe->id, 0);

	pthread_mutex_lock(&mu);
	/* It waits for the event's last record, as the driver's does. */
	if (c && fe->rec_gen == trace_gen && fe->rec_at >= 0)
		c->waits = fe->rec_at;
	if (green_sms((uintptr_t)s))
		green_event((struct fake_event *)e);
	pthread_mutex_unlock(&mu);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int f)
{
	(void)f;
	return wait_event("cuStreamWaitEvent", s, e);
}

EXPORT CUresult cuStreamWaitEvent_ptsz(CUstream s, CUevent e, unsigned int f)
{
	(void)f;
	return wait_event("cuStreamWaitEvent_ptsz", s, e);
}

EXPORT CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *st)
{
	INJECT(CUDA_ERROR_INVALID_HANDLE, (uintptr_t)s);
	uintptr_t key = order_key("cuStreamIsCapturing", s);
	CUresult r = CUDA_SUCCESS;
	unsigned int i;

	*st = CU_STREAM_CAPTURE_STATUS_NONE;
	pthread_mutex_lock(&mu);
	for (i = 0; i < ncapturing; i++)
		if (capturing[i] == key)
			*st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
	/* The legacy stream may not be used during a global capture. */
	if (key == 1 && ncapturing)
		r = CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
	pthread_mutex_unlock(&mu);
	return r;
}

static CUresult begin_capture(const char *name, CUstream s)
{
	INJECT_AS(name, CUDA_ERROR_ILLEGAL_STATE, (uintptr_t)s);
	rec(name, s, 0, 0);
	pthread_mutex_lock(&mu);
	if (ncapturing < sizeof(capturing) / sizeof(*capturing)) {
		invalidated[ncapturing] = 0;
		capturing[ncapturing++] = order_key(name, s);
	}
	pthread_mutex_unlock(&mu);
	return CUDA_SUCCESS;
}

static CUresult end_capture(const char *name, CUstream s, CUgraph *g)
{
	INJECT_AS(name, CUDA_ERROR_ILLEGAL_STATE, (uintptr_t)s);
	uintptr_t key = order_key(name, s);
	unsigned int i;
	int bad = 0;

	rec(name, s, 0, 0);
	pthread_mutex_lock(&mu);
	for (i = 0; i < ncapturing; i++)
		if (capturing[i] == key) {
			bad = invalidated[i];
			--ncapturing;
			capturing[i] = capturing[ncapturing];
			invalidated[i] = invalidated[ncapturing];
			break;
		}
	pthread_mutex_unlock(&mu);
	*g = bad ? NULL : (CUgraph)0x9000;
	return bad ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED : CUDA_SUCCESS;
}

/* The first variants: cuda.h declares them only to the driver itself. */
EXPORT CUresult cuStreamBeginCapture(CUstream s);
EXPORT CUresult cuStreamBeginCapture_ptsz(CUstream s);
EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice d);
EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice d);

EXPORT CUresult cuStreamBeginCapture(CUstream s)
{
	return begin_capture("cuStreamBeginCapture", s);
}

EXPORT CUresult cuStreamBeginCapture_ptsz(CUstream s)
{
	return begin_capture("cuStreamBeginCapture_ptsz", s);
}

EXPORT CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode m)
{
	(void)m;
	return begin_capture("cuStreamBeginCapture_v2", s);
}

EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream s, CUstreamCaptureMode m)
{
	(void)m;
	return begin_capture("cuStreamBeginCapture_v2_ptsz", s);
}

EXPORT CUresult cuStreamEndCapture(CUstream s, CUgraph *g)
{
	return end_capture("cuStreamEndCapture", s, g);
}

EXPORT CUresult cuStreamEndCapture_ptsz(CUstream s, CUgraph *g)
{
	return end_capture("cuStreamEndCapture_ptsz", s, g);
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr p)
{
	INJECT(CUDA_ERROR_INVALID_VALUE, p);
	rec("cuMemFree_v2", NULL, p, 0);
	return CUDA_SUCCESS;
}

/* A launch's payload: its first argument read as an int. */
static uint64_t first_arg(void **params, void **extra)
{
	int v = 0;

	if (params)
		memcpy(&v, params[0], sizeof(v));
	else if (extra && extra[0] == CU_LAUNCH_PARAM_BUFFER_POINTER)
		memcpy(&v, extra[1], sizeof(v));
	return (uint64_t)(unsigned int)v;
}

static int is_alloc(uintptr_t p, size_t n)
{
	unsigned int i;
	int ok = 0;

	pthread_mutex_lock(&mu);
	for (i = 0; i < nallocs && !ok; i++)
		ok = p >= allocs[i].lo && p + n <= allocs[i].hi;
	pthread_mutex_unlock(&mu);
	return ok;
}

/* The launch's details into its trace entry; runs the SM probe. */
static void launch_rec(struct fake_call *c, CUfunction fn, unsigned int gx,
		       unsigned int gy, unsigned int gz, unsigned int bx,
		       unsigned int by, unsigned int bz, unsigned int sh,
		       void **params)
{
	const struct fake_func *f = (const void *)fn;
	int k;

	if (!c || !f)
		return;
	pthread_mutex_lock(&mu);
	c->sms = green_sms(c->stream);
	if (__atomic_load_n(&hold, __ATOMIC_SEQ_CST) && !stream_held(c->stream) &&
	    nheld < sizeof(held_streams) / sizeof(held_streams[0]))
		held_streams[nheld++] = c->stream;
	pthread_mutex_unlock(&mu);
	snprintf(c->fn, sizeof(c->fn), "%s", f->name);
	/* Reads every parameter, as the driver does: a short copy shows. */
	for (k = 0; params && k < f->nparams; k++) {
		unsigned char scratch[256];
		size_t n = f->size[k];

		memcpy(scratch, params[k], n < sizeof(scratch) ? n : sizeof(scratch));
	}
	if (params && !strcmp(f->name, "gsp_wait_done")) {
		memcpy(&c->addr, params[0], sizeof(c->addr));
		memcpy(&c->count, params[1], sizeof(c->count));
	}
	c->grid[0] = gx;
	c->grid[1] = gy;
	c->grid[2] = gz;
	c->block[0] = bx;
	c->block[1] = by;
	c->block[2] = bz;
	c->shmem = sh;
	c->carveout = f->carveout;
	if (params && f->nparams > 0 &&
	    f->size[f->nparams - 1] == sizeof(c->job)) {
		uint64_t ctl;

		c->has_job = 1;
		memcpy(c->job, params[f->nparams - 1], sizeof(c->job));
		/* what a transformed kernel finds, then leaves behind */
		memcpy(&ctl, c->job, sizeof(ctl));
		if (is_alloc((uintptr_t)ctl, GSP_PERSIST_RESET_BYTES)) {
			unsigned char *b = (unsigned char *)(uintptr_t)ctl;
			int i;

			c->ctl_zero = 1;
			for (i = 0; i < GSP_PERSIST_RESET_BYTES; i++)
				c->ctl_zero &= !b[i];
			memset(b, 0xa5, 8);	/* next_task */
			/* every task ran: done_tasks = ntasks */
			memcpy(b + GSP_PERSIST_OFF_DONE_TASKS,
			       c->job + offsetof(struct gsp_persist_job, ntasks), 8);
		}
	}
	if (params && !strcmp(f->name, "gsp_sm_probe")) {
		uint32_t *out;
		int i;

		memcpy(&out, params[0], sizeof(out));
		if (is_alloc((uintptr_t)out, sms() * sizeof(*out)))
			for (i = 0; i < (int)sms(); i++)
				out[i] = 1;
	}
}

/* FAKE_CUDA_FAIL_FN names @f: its launches fail. */
static int fails(CUfunction f)
{
	const char *name = getenv("FAKE_CUDA_FAIL_FN");
	const struct fake_func *ff = (const void *)f;

	return name && ff && !strcmp(name, ff->name);
}

#define LAUNCH(sym)							\
EXPORT CUresult sym(CUfunction f, unsigned int gx, unsigned int gy,	\
		    unsigned int gz, unsigned int bx, unsigned int by,	\
		    unsigned int bz, unsigned int sh, CUstream s,	\
		    void **params, void **extra)			\
{									\
	INJECT_FN(__func__, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,		\
		  first_arg(params, extra), f);				\
	if (fails(f))							\
		return CUDA_ERROR_LAUNCH_FAILED;			\
	launch_rec(rec(#sym, s, first_arg(params, extra), 1), f, gx, gy, \
		   gz, bx, by, bz, sh, params);				\
	return CUDA_SUCCESS;						\
}
LAUNCH(cuLaunchKernel)
LAUNCH(cuLaunchKernel_ptsz)

#define COOP(sym)							\
EXPORT CUresult sym(CUfunction f, unsigned int gx, unsigned int gy,	\
		    unsigned int gz, unsigned int bx, unsigned int by,	\
		    unsigned int bz, unsigned int sh, CUstream s,	\
		    void **params)					\
{									\
	INJECT_FN(__func__, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,		\
		  first_arg(params, NULL), f);				\
	launch_rec(rec(#sym, s, first_arg(params, NULL), 1), f, gx, gy,	\
		   gz, bx, by, bz, sh, params);				\
	return CUDA_SUCCESS;						\
}
COOP(cuLaunchCooperativeKernel)
COOP(cuLaunchCooperativeKernel_ptsz)

#define LAUNCHEX(sym)							\
EXPORT CUresult sym(const CUlaunchConfig *c, CUfunction f, void **params, \
		    void **extra)					\
{									\
	INJECT_FN(__func__, CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,		\
		  first_arg(params, extra), f);				\
	/* payload: first arg, plus 1000 x the first attribute's id	\
	 * and 100000 x the number of attributes */			\
	launch_rec(rec(#sym, c->hStream, first_arg(params, extra) +	\
		       (c->numAttrs ? 1000u * c->attrs[0].id : 0) +	\
		       100000u * c->numAttrs, 1), f,			\
		   c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX,	\
		   c->blockDimY, c->blockDimZ, c->sharedMemBytes, params); \
	return CUDA_SUCCESS;						\
}
LAUNCHEX(cuLaunchKernelEx)
LAUNCHEX(cuLaunchKernelEx_ptsz)

#define GRAPH(sym)							\
EXPORT CUresult sym(CUgraphExec g, CUstream s)				\
{									\
	INJECT(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, (uintptr_t)g);	\
	rec(#sym, s, (uint64_t)(uintptr_t)g, 1);			\
	return CUDA_SUCCESS;						\
}
GRAPH(cuGraphLaunch)
GRAPH(cuGraphLaunch_ptsz)

#define COPY(sym, dt, st)						\
EXPORT CUresult sym(dt d, st s_, size_t n)				\
{									\
	INJECT(CUDA_ERROR_INVALID_VALUE, n);				\
	(void)d; (void)s_;						\
	rec(#sym, NULL, n, 1);						\
	return CUDA_SUCCESS;						\
}
COPY(cuMemcpyHtoD_v2, CUdeviceptr, const void *)
COPY(cuMemcpyHtoD_v2_ptds, CUdeviceptr, const void *)
COPY(cuMemcpyHtoD, CUdeviceptr, const void *)
COPY(cuMemcpyDtoH_v2, void *, CUdeviceptr)
COPY(cuMemcpyDtoD_v2, CUdeviceptr, CUdeviceptr)

#define ACOPY(sym, dt, st)						\
EXPORT CUresult sym(dt d, st s_, size_t n, CUstream s)			\
{									\
	INJECT(CUDA_ERROR_INVALID_VALUE, n);				\
	(void)d; (void)s_;						\
	rec(#sym, s, n, 1);						\
	return CUDA_SUCCESS;						\
}
ACOPY(cuMemcpyHtoDAsync_v2_ptsz, CUdeviceptr, const void *)

/* Copies for real between fake device memory; the trace has both ends. */
static CUresult dtod(const char *name, CUdeviceptr d, CUdeviceptr src,
		     size_t n, CUstream s)
{
	INJECT_AS(name, CUDA_ERROR_INVALID_VALUE, n);
	struct fake_call *c = rec(name, s, n, 1);

	if (c) {
		c->addr = d;
		c->src = src;
		c->count = n;
	}
	if (is_alloc(d, n) && is_alloc(src, n))
		memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr src, size_t n,
				     CUstream s)
{
	return dtod("cuMemcpyDtoDAsync_v2", d, src, n, s);
}

EXPORT CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr d, CUdeviceptr src,
					  size_t n, CUstream s)
{
	return dtod("cuMemcpyDtoDAsync_v2_ptsz", d, src, n, s);
}

/* These two copy for real when the device side is fake device memory. */
EXPORT CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *h, size_t n,
				     CUstream s)
{
	INJECT(CUDA_ERROR_INVALID_VALUE, n);
	rec("cuMemcpyHtoDAsync_v2", s, n, 1);
	copy_held(s);
	if (is_alloc(d, n))
		memcpy((void *)(uintptr_t)d, h, n);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyDtoHAsync_v2(void *h, CUdeviceptr d, size_t n,
				     CUstream s)
{
	INJECT(CUDA_ERROR_INVALID_VALUE, n);
	struct fake_call *c = rec("cuMemcpyDtoHAsync_v2", s, n, 1);

	copy_held(s);
	if (c) {
		c->src = d;
		c->count = n;
	}
	if (is_alloc(d, n))
		memcpy(h, (void *)(uintptr_t)d, n);
	return CUDA_SUCCESS;
}

static CUresult memset32(const char *name, CUdeviceptr d, unsigned int v,
			 size_t n, CUstream s)
{
	INJECT_AS(name, CUDA_ERROR_INVALID_VALUE, v);
	struct fake_call *c = rec(name, s, v, 1);
	size_t i;

	if (c) {
		c->addr = d;
		c->count = n;
	}
	if (is_alloc(d, n * 4))
		for (i = 0; i < n; i++)
			memcpy((char *)(uintptr_t)d + 4 * i, &v, 4);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n,
				 CUstream s)
{
	return memset32("cuMemsetD32Async", d, v, n, s);
}

EXPORT CUresult cuMemsetD32Async_ptsz(CUdeviceptr d, unsigned int v, size_t n,
				      CUstream s)
{
	return memset32("cuMemsetD32Async_ptsz", d, v, n, s);
}

/* Device memory, streams, device attributes (simulated) -------------------- */

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n)
{
	INJECT(CUDA_ERROR_OUT_OF_MEMORY, n);
	void *m = calloc(1, n);

	if (!m)
		return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&mu);
	if (nallocs < sizeof(allocs) / sizeof(*allocs)) {
		allocs[nallocs].lo = (uintptr_t)m;
		allocs[nallocs++].hi = (uintptr_t)m + n;
	}
	pthread_mutex_unlock(&mu);
	*p = (CUdeviceptr)(uintptr_t)m;
	rec("cuMemAlloc_v2", NULL, n, 0);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned int fl)
{
	INJECT(CUDA_ERROR_OUT_OF_MEMORY, n);
	const char *no = getenv("FAKE_CUDA_NO_REGISTER");
	struct fake_call *c = rec("cuMemHostRegister_v2", NULL, fl, 0);

	if (c)
		c->addr = (uintptr_t)p, c->count = n;
	return no && !strcmp(no, "1") ? CUDA_ERROR_NOT_SUPPORTED
				      : CUDA_SUCCESS;
}

EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *d, void *p,
					     unsigned int fl)
{
	INJECT(CUDA_ERROR_INVALID_VALUE, 0);
	(void)fl;
	*d = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuMemHostAlloc(void **p, size_t n, unsigned int fl)
{
	INJECT(CUDA_ERROR_OUT_OF_MEMORY, n);
	*p = calloc(1, n);
	rec("cuMemHostAlloc", NULL, fl, 0);
	return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

EXPORT CUresult cuMemFreeHost(void *p)
{
	INJECT(CUDA_ERROR_INVALID_VALUE, 0);
	rec("cuMemFreeHost", NULL, 0, 0);
	free(p);
	return CUDA_SUCCESS;
}

static CUresult stream_new(const char *name, CUstream *s, unsigned int fl,
			   int prio)
{
	static uintptr_t next = 0x5000;	/* under mu */

	INJECT_AS(name, CUDA_ERROR_OUT_OF_MEMORY, fl);
	if (prio < FAKE_PRIO_GREATEST)
		prio = FAKE_PRIO_GREATEST;
	if (prio > 0)
		prio = 0;
	pthread_mutex_lock(&mu);
	*s = (CUstream)(next++);
	if (nstreams < STREAMS) {
		streams[nstreams].s = (uintptr_t)*s;
		streams[nstreams].prio = prio;
		streams[nstreams++].flags = fl;
	}
	pthread_mutex_unlock(&mu);
	rec(name, *s, fl, 0);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamCreate(CUstream *s, unsigned int fl)
{
	return stream_new("cuStreamCreate", s, fl, 0);
}

EXPORT CUresult cuStreamCreateWithPriority(CUstream *s, unsigned int fl,
					   int prio)
{
	return stream_new("cuStreamCreateWithPriority", s, fl, prio);
}

EXPORT CUresult cuCtxGetStreamPriorityRange(int *least, int *greatest)
{
	INJECT(CUDA_ERROR_INVALID_CONTEXT, 0);
	if (!cur)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (least)
		*least = 0;
	if (greatest)
		*greatest = FAKE_PRIO_GREATEST;
	return CUDA_SUCCESS;
}

EXPORT int fake_stream_prio(CUstream s, unsigned int *flags)
{
	unsigned int i;
	int p = -1;

	pthread_mutex_lock(&mu);
	for (i = 0; i < nstreams; i++)
		if (streams[i].s == (uintptr_t)s) {
			p = streams[i].prio;
			if (flags)
				*flags = streams[i].flags;
		}
	pthread_mutex_unlock(&mu);
	return p;
}

EXPORT CUresult cuCtxGetDevice(CUdevice *d)
{
	INJECT(CUDA_ERROR_INVALID_CONTEXT, 0);
	if (!cur)
		return CUDA_ERROR_INVALID_CONTEXT;
	*d = 0;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
	INJECT(CUDA_ERROR_INVALID_DEVICE, 0);
	*d = ordinal;
	return ordinal ? CUDA_ERROR_INVALID_DEVICE : CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
	INJECT(CUDA_ERROR_INVALID_DEVICE, a);
	const char *mps = getenv("FAKE_CUDA_MPS");

	(void)d;
	switch (a) {
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
		*v = (int)sms();
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
		*v = 9;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
		*v = 0;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
		*v = 65536;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
		*v = FAKE_SMEM_SM;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK:
		*v = FAKE_SMEM_RSV;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
		*v = FAKE_SMEM_SM - FAKE_SMEM_RSV;
		return CUDA_SUCCESS;
	case CU_DEVICE_ATTRIBUTE_MPS_ENABLED:
		*v = !(mps && !strcmp(mps, "0"));
		return CUDA_SUCCESS;
	default:
		return CUDA_ERROR_INVALID_VALUE;
	}
}

EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n,
							     CUfunction f,
							     int threads,
							     size_t shmem)
{
	INJECT(CUDA_ERROR_INVALID_HANDLE, 0);
	const struct fake_func *ff = (const struct fake_func *)f;

	*n = FAKE_OCC;
	if (ff && ff->regs)
		*n = 65536 / (ff->regs * 32 * ((threads + 31) / 32));
	if (*n > (int)(FAKE_SMEM_SM / (shmem + FAKE_SMEM_RSV)))
		*n = (int)(FAKE_SMEM_SM / (shmem + FAKE_SMEM_RSV));
	return CUDA_SUCCESS;
}

EXPORT CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a,
				   CUfunction f)
{
	INJECT(CUDA_ERROR_INVALID_HANDLE, 0);
	const struct fake_func *ff = (const struct fake_func *)f;

	if (ff && a == CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) {
		*v = 0;		/* no static shared memory */
		return CUDA_SUCCESS;
	}
	if (!ff || a != CU_FUNC_ATTRIBUTE_NUM_REGS)
		return CUDA_ERROR_INVALID_VALUE;
	*v = ff->regs ? ff->regs : 32;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute a, int v)
{
	INJECT(CUDA_ERROR_INVALID_HANDLE, 0);
	struct fake_func *ff = (struct fake_func *)f;

	if (ff && a == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT)
		ff->carveout = v;
	return CUDA_SUCCESS;
}



EXPORT CUresult cuStreamDestroy_v2(CUstream s)
{
	INJECT(CUDA_ERROR_INVALID_HANDLE, (uintptr_t)s);
	unsigned int i;

	rec("cuStreamDestroy_v2", s, 0, 0);
	pthread_mutex_lock(&mu);
	for (i = 0; i < ngstreams; i++)
		if (gstreams[i].s == (uintptr_t)s && gstreams[i].live) {
			gstreams[i].live = 0;
			gstream_live--;
		}
	pthread_mutex_unlock(&mu);
	return CUDA_SUCCESS;
}

/* Primary context and green contexts (simulated, see the top) -------------- */

EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice d, unsigned int *fl,
					  int *active)
{
	INJECT(CUDA_ERROR_INVALID_DEVICE, 0);
	(void)d;
	*fl = 0;
	*active = 1;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	INJECT(CUDA_ERROR_OUT_OF_MEMORY, 0);
	(void)d;
	*c = (CUcontext)FAKE_PRIMARY_CTX;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxDestroy_v2(CUcontext c)
{
	INJECT(CUDA_ERROR_INVALID_CONTEXT, (uintptr_t)c);
	rec("cuCtxDestroy_v2", NULL, (uint64_t)(uintptr_t)c, 0);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
	INJECT(CUDA_ERROR_INVALID_DEVICE, 0);
	(void)d;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice d)
{
	INJECT(CUDA_ERROR_INVALID_DEVICE, 0);
	rec("cuDevicePrimaryCtxRelease", NULL, (uint64_t)d, 0);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice d)
{
	INJECT(CUDA_ERROR_INVALID_DEVICE, 0);
	rec("cuDevicePrimaryCtxReset", NULL, (uint64_t)d, 0);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice d)
{
	INJECT(CUDA_ERROR_INVALID_DEVICE, 0);
	(void)d;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetDevResource(CUdevice d, CUdevResource *r,
				       CUdevResourceType t)
{
	INJECT(CUDA_ERROR_INVALID_DEVICE, 0);
	(void)d;
	rec("cuDeviceGetDevResource", NULL, t, 0);
	if (t != CU_DEV_RESOURCE_TYPE_SM)
		return CUDA_ERROR_INVALID_RESOURCE_TYPE;
	memset(r, 0, sizeof(*r));
	r->type = CU_DEV_RESOURCE_TYPE_SM;
	r->sm.smCount = sms();
	r->sm.minSmPartitionSize = GREEN_STEP;
	r->sm.smCoscheduledAlignment = GREEN_STEP;
	return CUDA_SUCCESS;
}

/* Rounds @min up to the step, as an H200's driver does; count: the size. */
EXPORT CUresult cuDevSmResourceSplitByCount(CUdevResource *out,
					    unsigned int *nb,
					    const CUdevResource *in,
					    CUdevResource *rest,
					    unsigned int flags,
					    unsigned int min)
{
	INJECT(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, 0);
	struct fake_call *c = rec("cuDevSmResourceSplitByCount", NULL, min, 0);
	unsigned int want = (min + GREEN_STEP - 1) / GREEN_STEP * GREEN_STEP;
	unsigned int groups, i;

	(void)flags;
	if (!nb || !in || in->type != CU_DEV_RESOURCE_TYPE_SM)
		return CUDA_ERROR_INVALID_VALUE;
	if (want < GREEN_STEP)
		want = GREEN_STEP;
	if (want > in->sm.smCount)
		return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
	groups = in->sm.smCount / want;
	if (!out) {
		*nb = groups;
		return CUDA_SUCCESS;
	}
	if (*nb < groups)
		groups = *nb;
	for (i = 0; i < groups; i++) {
		out[i] = *in;
		out[i].sm.smCount = want;
	}
	if (rest) {
		*rest = *in;
		rest->sm.smCount = in->sm.smCount - groups * want;
	}
	*nb = groups;
	if (c)
		c->count = want;
	return CUDA_SUCCESS;
}

/* A descriptor is its SM count, never dereferenced. */
EXPORT CUresult cuDevResourceGenerateDesc(CUdevResourceDesc *d,
					  CUdevResource *r, unsigned int n)
{
	INJECT(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, 0);
	unsigned int i, total = 0;

	for (i = 0; i < n; i++)
		total += r[i].sm.smCount;
	rec("cuDevResourceGenerateDesc", NULL, total, 0);
	*d = (CUdevResourceDesc)(uintptr_t)(0xd0000000u + total);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuGreenCtxCreate(CUgreenCtx *g, CUdevResourceDesc d,
				 CUdevice dev, unsigned int flags)
{
	INJECT(CUDA_ERROR_OUT_OF_MEMORY, 0);
	const char *fail = getenv("FAKE_CUDA_GREEN_FAIL");
	unsigned int n = (unsigned int)((uintptr_t)d - 0xd0000000u);
	struct fake_green *fg;

	(void)dev;
	rec("cuGreenCtxCreate", NULL, n, 0);
	if (!(flags & CU_GREEN_CTX_DEFAULT_STREAM))
		return CUDA_ERROR_INVALID_VALUE;
	if (fail && !strcmp(fail, "1"))
		return CUDA_ERROR_NOT_SUPPORTED;
	fg = calloc(1, sizeof(*fg));
	if (!fg)
		return CUDA_ERROR_OUT_OF_MEMORY;
	fg->sms = n;
	pthread_mutex_lock(&mu);
	green_live++;
	pthread_mutex_unlock(&mu);
	*g = (CUgreenCtx)fg;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuGreenCtxDestroy(CUgreenCtx g)
{
	INJECT(CUDA_ERROR_INVALID_HANDLE, 0);
	rec("cuGreenCtxDestroy", NULL, ((struct fake_green *)g)->sms, 0);
	pthread_mutex_lock(&mu);
	green_live--;
	pthread_mutex_unlock(&mu);
	free(g);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuGreenCtxStreamCreate(CUstream *s, CUgreenCtx g,
				       unsigned int flags, int prio)
{
	INJECT(CUDA_ERROR_OUT_OF_MEMORY, 0);
	struct fake_call *c;

	(void)prio;
	pthread_mutex_lock(&mu);
	if (ngstreams == GREEN_STREAMS) {
		pthread_mutex_unlock(&mu);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	gstreams[ngstreams].s = 0x6000 + ngstreams;
	gstreams[ngstreams].sms = ((struct fake_green *)g)->sms;
	gstreams[ngstreams].live = 1;
	*s = (CUstream)gstreams[ngstreams++].s;
	gstream_live++;
	pthread_mutex_unlock(&mu);
	c = rec("cuGreenCtxStreamCreate", *s, flags, 0);
	if (c)
		c->count = ((struct fake_green *)g)->sms;
	return CUDA_SUCCESS;
}

__attribute__((destructor)) static void green_exit_report(void)
{
	const char *e = getenv("FAKE_CUDA_GREEN_REPORT");

	if (e && !strcmp(e, "1"))
		fprintf(stderr, "fake_cuda: at exit: %d green contexts, %d green streams, %d events used with them alive\n",
			green_live, gstream_live, gevent_live);
}

/* Modules and libraries (simulated, see the top) ---------------------------- */

static struct fake_mod *last_mod;	/* fake_last_module(), under mu */

static struct fake_mod *mod_new(const void *image)
{
	struct fake_mod *m = calloc(1, sizeof(*m));
	const char *t = image;

	if (!m)
		abort();
	/* PTX text starts with text; fatbins, wrappers and ELF do not. */
	if (t && (t[0] == '.' || t[0] == '\n' || t[0] == '/' || t[0] == '\t') &&
	    strstr(t, ".entry"))
		m->text = strdup(t);
	pthread_mutex_lock(&mu);
	last_mod = m;
	pthread_mutex_unlock(&mu);
	return m;
}

EXPORT CUmodule fake_last_module(void)
{
	struct fake_mod *m;

	pthread_mutex_lock(&mu);
	m = last_mod;
	pthread_mutex_unlock(&mu);
	return (CUmodule)m;
}

EXPORT const char *fake_module_text(CUmodule m)
{
	return m ? ((const struct fake_mod *)m)->text : NULL;
}

/* Sizes of .entry @name's parameters in @text; count, or -1 if absent. */
static int ptx_params(const char *text, const char *name, size_t *size)
{
	char pat[128];
	const char *p, *end;
	int n = 0;

	snprintf(pat, sizeof(pat), ".entry %s(", name);
	p = strstr(text, pat);
	if (!p)
		return -1;
	p += strlen(pat);
	end = strchr(p, ')');
	while (end && (p = strstr(p, ".param")) && p < end && n < MAX_FPARAMS) {
		const char *stop = strpbrk(p, ",)"), *br = strchr(p, '[');
		const char *t64 = strstr(p, "64");

		if (br && br < stop)
			size[n] = strtoul(br + 1, NULL, 10);
		else if (t64 && t64 < stop)
			size[n] = 8;
		else
			size[n] = 4;
		n++;
		p = stop;
	}
	return n;
}

/* Registers of .entry @name in @text (see the top); 0 if not given. */
static int ptx_regs(const char *text, const char *name)
{
	char pat[128];
	const char *p, *body, *end, *cap, *fr;
	int r, c, regs;

	snprintf(pat, sizeof(pat), ".entry %s(", name);
	p = strstr(text, pat);
	body = p ? strchr(p, '{') : NULL;
	end = body ? strstr(body, "\n}") : NULL;
	fr = body ? strstr(body, "// fake-regs ") : NULL;
	if (!end || !fr || fr > end ||
	    sscanf(fr, "// fake-regs %d %d", &r, &c) != 2)
		return 0;
	regs = strstr(name, "__gsp") ? c : r;
	cap = strstr(p, ".maxnreg ");
	if (cap && cap < body && atoi(cap + 9) < regs)
		regs = atoi(cap + 9);
	return regs;
}

static CUresult get_fn(CUfunction *out, const struct fake_mod *m,
		       const char *name)
{
	static const size_t one_int[] = { 4 };
	size_t size[MAX_FPARAMS];
	struct fake_func *f;
	int n = 1;

	if (m->text) {
		n = ptx_params(m->text, name, size);
		if (n < 0)
			return CUDA_ERROR_NOT_FOUND;
	}
	f = (struct fake_func *)fake_function(n, m->text ? size : one_int);
	snprintf(f->name, sizeof(f->name), "%s", name);
	f->regs = m->text ? ptx_regs(m->text, name) : 0;
	*out = (CUfunction)f;
	return CUDA_SUCCESS;
}

#define MODLOAD(sym, params, image)					\
EXPORT CUresult sym params						\
{									\
	INJECT(CUDA_ERROR_OUT_OF_MEMORY, (uintptr_t)(image));		\
	rec(#sym, NULL, 0, 0);						\
	*m = (CUmodule)mod_new(image);					\
	return CUDA_SUCCESS;						\
}
MODLOAD(cuModuleLoadData, (CUmodule *m, const void *img), img)
MODLOAD(cuModuleLoadDataEx, (CUmodule *m, const void *img, unsigned int n,
			     CUjit_option *o, void **v), ((void)n, (void)o,
							  (void)v, img))
MODLOAD(cuModuleLoadFatBinary, (CUmodule *m, const void *img), img)
MODLOAD(cuModuleLoad, (CUmodule *m, const char *path), ((void)path, NULL))

EXPORT CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *n)
{
	INJECT(CUDA_ERROR_NOT_FOUND, (uintptr_t)m);
	rec("cuModuleGetFunction", NULL, 0, 0);
	return get_fn(f, (const struct fake_mod *)m, n);
}

/* Bytes of variable @name as @text declares it; 0 if it does not. */
static size_t var_size(const char *text, const char *name, uint64_t *init)
{
	size_t l = strlen(name), n = 1, w;
	const char *p, *t;

	*init = 0;
	for (p = strstr(text, name); p; p = strstr(p + 1, name)) {
		if (p == text || p[-1] != ' ')
			continue;
		if (!strncmp(p + l, " = 0x", 5))	/* a bound reference */
			*init = strtoull(p + l + 3, NULL, 16);
		else if (p[l] != '[' && p[l] != ';')
			continue;
		if (p[l] == '[')
			n = strtoul(p + l + 1, NULL, 10);
		/* the type: the word before, ".b8", ".u32", ... */
		for (t = p - 1; t > text && t[-1] != '.'; t--)
			;
		w = strtoul(t + 1, NULL, 10);
		return w ? n * (w / 8) : 0;
	}
	return 0;
}

static CUresult get_global(const char *sym, CUdeviceptr *d, size_t *bytes,
			   struct fake_mod *m, const char *name)
{
	INJECT_AS(sym, CUDA_ERROR_NOT_FOUND, 0);
	struct fake_call *c = rec(sym, NULL, 0, 0);
	unsigned int i;
	uint64_t init;
	size_t n;
	int gone;

	pthread_mutex_lock(&mu);
	gone = !strcmp(hidden, name) &&
	       (m->text && strstr(m->text, "__gsp")) == hidden_in_gsp;
	pthread_mutex_unlock(&mu);
	n = m->text && !gone ? var_size(m->text, name, &init) : 0;
	if (!n)
		return CUDA_ERROR_NOT_FOUND;
	for (i = 0; i < m->nvar && strcmp(m->var[i].name, name); i++)
		;
	if (i == m->nvar) {
		if (i == MOD_VARS || cuMemAlloc_v2(&m->var[i].p, n))
			return CUDA_ERROR_OUT_OF_MEMORY;
		if (init && n == sizeof(init))
			memcpy((void *)(uintptr_t)m->var[i].p, &init, n);
		snprintf(m->var[i].name, sizeof(m->var[i].name), "%s", name);
		m->var[i].n = n;
		m->nvar++;
	}
	if (d)
		*d = m->var[i].p;
	if (bytes)
		*bytes = m->var[i].n;
	if (c) {
		snprintf(c->fn, sizeof(c->fn), "%s", name);
		c->addr = m->var[i].p;
		c->count = n;
	}
	return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleGetGlobal_v2(CUdeviceptr *d, size_t *bytes,
				     CUmodule m, const char *name)
{
	return get_global("cuModuleGetGlobal_v2", d, bytes,
			  (struct fake_mod *)m, name);
}

EXPORT CUresult cuLibraryGetGlobal(CUdeviceptr *d, size_t *bytes,
				   CUlibrary l, const char *name)
{
	return get_global("cuLibraryGetGlobal", d, bytes,
			  (struct fake_mod *)l, name);
}

EXPORT CUresult cuModuleUnload(CUmodule m)
{
	INJECT(CUDA_ERROR_INVALID_HANDLE, (uintptr_t)m);
	rec("cuModuleUnload", NULL, 0, 0);
	(void)m;	/* handles stay valid: the tests compare them */
	return CUDA_SUCCESS;
}

EXPORT CUresult cuLibraryLoadData(CUlibrary *l, const void *code,
				  CUjit_option *jo, void **jv, unsigned int jn,
				  CUlibraryOption *lo, void **lv,
				  unsigned int ln)
{
	INJECT(CUDA_ERROR_OUT_OF_MEMORY, 0);
	(void)jo; (void)jv; (void)jn; (void)lo; (void)lv; (void)ln;
	rec("cuLibraryLoadData", NULL, 0, 0);
	*l = (CUlibrary)mod_new(code);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuLibraryLoadFromFile(CUlibrary *l, const char *path,
				      CUjit_option *jo, void **jv,
				      unsigned int jn, CUlibraryOption *lo,
				      void **lv, unsigned int ln)
{
	INJECT(CUDA_ERROR_OUT_OF_MEMORY, 0);
	(void)path; (void)jo; (void)jv; (void)jn; (void)lo; (void)lv; (void)ln;
	rec("cuLibraryLoadFromFile", NULL, 0, 0);
	*l = (CUlibrary)mod_new(NULL);
	return CUDA_SUCCESS;
}

EXPORT CUresult cuLibraryGetKernel(CUkernel *k, CUlibrary l, const char *n)
{
	INJECT(CUDA_ERROR_NOT_FOUND, 0);
	rec("cuLibraryGetKernel", NULL, 0, 0);
	return get_fn((CUfunction *)k, (const struct fake_mod *)l, n);
}

EXPORT CUresult cuLibraryGetModule(CUmodule *m, CUlibrary l)
{
	INJECT(CUDA_ERROR_NOT_FOUND, 0);
	struct fake_mod *c = mod_new(NULL);

	rec("cuLibraryGetModule", NULL, 0, 0);
	c->text = ((struct fake_mod *)l)->text;
	*m = (CUmodule)c;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuKernelGetFunction(CUfunction *f, CUkernel k)
{
	INJECT(CUDA_ERROR_NOT_FOUND, 0);
	struct fake_func *c = calloc(1, sizeof(*c));

	if (!c)
		abort();
	rec("cuKernelGetFunction", NULL, 0, 0);
	*c = *(struct fake_func *)k;
	*f = (CUfunction)c;
	return CUDA_SUCCESS;
}

EXPORT CUresult cuLibraryUnload(CUlibrary l)
{
	INJECT(CUDA_ERROR_INVALID_HANDLE, 0);
	rec("cuLibraryUnload", NULL, 0, 0);
	(void)l;
	return CUDA_SUCCESS;
}

/* cuGetProcAddress: the driver's variant rules, for what the fake has. */

static const struct { const char *name; void *fn; } syms[] = {
#define S(x) { #x, (void *)x }
	S(cuInit), S(cuDriverGetVersion), S(cuDeviceGetCount),
	S(cuCtxGetCurrent), S(cuCtxSetCurrent), S(cuCtxSynchronize),
	S(cuFuncGetParamInfo), S(cuPointerGetAttribute), S(cuEventCreate),
	S(cuEventDestroy_v2), S(cuEventRecord), S(cuEventRecord_ptsz),
	S(cuEventRecordWithFlags), S(cuEventQuery), S(cuEventSynchronize),
	S(cuEventElapsedTime), S(cuEventElapsedTime_v2),
	S(cuStreamSynchronize), S(cuStreamSynchronize_ptsz), S(cuStreamQuery),
	S(cuStreamWaitEvent), S(cuStreamIsCapturing), S(cuMemFree_v2),
	S(cuLaunchKernel), S(cuLaunchKernel_ptsz), S(cuLaunchKernelEx),
	S(cuLaunchKernelEx_ptsz), S(cuLaunchCooperativeKernel),
	S(cuLaunchCooperativeKernel_ptsz), S(cuGraphLaunch),
	S(cuGraphLaunch_ptsz), S(cuMemcpyHtoD_v2), S(cuMemcpyHtoD_v2_ptds),
	S(cuMemcpyHtoD), S(cuMemcpyDtoH_v2), S(cuMemcpyDtoD_v2),
	S(cuMemcpyHtoDAsync_v2), S(cuMemcpyHtoDAsync_v2_ptsz),
	S(cuMemcpyDtoHAsync_v2), S(cuMemcpyDtoDAsync_v2),
	S(cuMemcpyDtoDAsync_v2_ptsz), S(cuMemsetD32Async), S(cuMemFreeHost),
	S(cuModuleLoadData), S(cuModuleLoadDataEx), S(cuModuleLoadFatBinary),
	S(cuModuleLoad), S(cuModuleGetFunction), S(cuModuleGetGlobal_v2),
	S(cuModuleUnload), S(cuLibraryGetGlobal),
	S(cuLibraryLoadData), S(cuLibraryLoadFromFile), S(cuLibraryGetKernel),
	S(cuLibraryGetModule), S(cuKernelGetFunction), S(cuLibraryUnload),
	S(cuStreamCreate), S(cuStreamCreateWithPriority),
	S(cuCtxGetStreamPriorityRange), S(cuStreamBeginCapture),
	S(cuStreamBeginCapture_ptsz), S(cuStreamBeginCapture_v2),
	S(cuStreamBeginCapture_v2_ptsz), S(cuStreamEndCapture),
	S(cuDevicePrimaryCtxRelease), S(cuDevicePrimaryCtxRelease_v2),
	S(cuDevicePrimaryCtxReset), S(cuDevicePrimaryCtxReset_v2),
	{ "cuGetProcAddress", NULL }, { "cuGetProcAddress_v2", NULL },
#undef S
};

/* Names that became _v2 at a cudaVersion (cuda.h's #defines). */
static const struct { const char *api; int since; } v2[] = {
	{ "cuMemcpyHtoD", 3020 }, { "cuMemcpyDtoH", 3020 },
	{ "cuMemcpyDtoD", 3020 }, { "cuMemcpyHtoDAsync", 3020 },
	{ "cuMemcpyDtoHAsync", 3020 }, { "cuMemcpyDtoDAsync", 3020 },
	{ "cuMemFree", 3020 }, { "cuEventDestroy", 4000 },
	{ "cuEventElapsedTime", 13000 }, { "cuGetProcAddress", 12000 },
	{ "cuStreamBeginCapture", 10010 },
	{ "cuDevicePrimaryCtxRelease", 11000 },
	{ "cuDevicePrimaryCtxReset", 11000 },
};

/* Synchronous functions get _ptds, stream functions _ptsz. */
static const char *const ptds_names[] = { "cuMemcpyHtoD", NULL };
static const char *const ptsz_names[] = {
	"cuLaunchKernel", "cuLaunchKernelEx", "cuLaunchCooperativeKernel",
	"cuGraphLaunch", "cuEventRecord", "cuStreamSynchronize",
	"cuMemcpyHtoDAsync", "cuMemcpyDtoDAsync", "cuStreamBeginCapture", NULL,
};

static int in(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (!strcmp(*l, s))
			return 1;
	return 0;
}

EXPORT CUresult cuGetProcAddress(const char *api, void **pfn, int ver,
				 cuuint64_t flags);

static CUresult getproc(const char *api, void **pfn, int ver, uint64_t flags,
			CUdriverProcAddressQueryResult *st)
{
	char name[96];
	size_t i;

	snprintf(name, sizeof(name), "%s", api);
	for (i = 0; i < sizeof(v2) / sizeof(*v2); i++)
		if (!strcmp(v2[i].api, api) && ver >= v2[i].since)
			snprintf(name, sizeof(name), "%s_v2", api);
	if (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) {
		if (in(ptds_names, api))
			strncat(name, "_ptds", sizeof(name) - strlen(name) - 1);
		else if (in(ptsz_names, api))
			strncat(name, "_ptsz", sizeof(name) - strlen(name) - 1);
	}
	*pfn = NULL;
	for (i = 0; i < sizeof(syms) / sizeof(*syms); i++)
		if (!strcmp(syms[i].name, name)) {
			*pfn = syms[i].fn;
			break;
		}
	if (!strcmp(name, "cuGetProcAddress"))
		*pfn = (void *)cuGetProcAddress;
	if (!strcmp(name, "cuGetProcAddress_v2"))
		*pfn = (void *)cuGetProcAddress_v2;
	if (st)
		*st = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS
			   : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
	return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

EXPORT CUresult cuGetProcAddress(const char *api, void **pfn, int ver,
				 cuuint64_t flags)
{
	INJECT(CUDA_ERROR_NOT_FOUND, 0);
	return getproc(api, pfn, ver, flags, NULL);
}

EXPORT CUresult cuGetProcAddress_v2(const char *api, void **pfn, int ver,
				    cuuint64_t flags,
				    CUdriverProcAddressQueryResult *st)
{
	INJECT(CUDA_ERROR_NOT_FOUND, 0);
	return getproc(api, pfn, ver, flags, st);
}
