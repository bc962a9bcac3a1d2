// SPDX-License-Identifier: GPL-2.0
/*
 * The fault sweep (issue 31): a small CUDA program run under the
 * interposer and the fake libgsp once per injection point, with the
 * fake libcuda failing that one driver call (FAKE_CUDA_FAIL_NTH=n,
 * fake_cuda.c's top). run.sh runs:
 *
 *   test_faults sweep   counts the driver calls of a clean run (N), then
 *                       runs "test_faults run" once for each n in 1..N
 *                       (every k-th if N > $FAULTS_POINTS, default 400:
 *                       n = 1, 1 + k, ..., said), in a child with a
 *                       timeout, $FAULTS_JOBS (default 2) at a time.
 *                       Each child must exit 0: no signal, no hang, no
 *                       sanitizer report (the ASan runtime, when run.sh
 *                       preloads it, exits 86), and the checks below.
 *                       One TAP line per failed point, the totals, and
 *                       "# faults: N injection points, C crashes, H hangs".
 *   test_faults run     the program once (below); exit status 0, or 3
 *                       with a line on stderr if the injected error did
 *                       not surface as the interposer's rules say.
 *
 * The program: module load, allocations (device and pinned host),
 * two streams and two events, launches on both streams and the legacy
 * one, asynchronous copies and a memset, an event record and a stream
 * wait, synchronous copies, the sync points, and the teardown (streams,
 * events, memory, module, primary context). Like a careful program it
 * stops at its first error and tears down what it made. Each of its
 * calls is tagged (fake_fault_tag()), so the fake's record of the fault
 * says whether it was that call's own driver call, issued by the
 * program's thread (then that call must return the error) or by the
 * dispatcher (a deferred call: the next sync point must return it,
 * "reported at the next sync point"), or one of the interposer's own
 * calls (its events, contexts, parameter and pointer look-ups): those
 * must degrade without an error the program did not cause.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>

#include "fake_cuda.h"
#include "tap.h"

#define STR(x) #x
#define XSTR(x) STR(x)

/* What a call of the program is to the interposer (BE). */
enum { K_CALL, K_ASYNC, K_SYNC };	/* direct, deferred, a sync point */

/* One call of the program. */
struct step {
	const char *what;	/* the fake's entry point it reaches */
	uint64_t key;		/* fake_fault's key of that call */
	int kind;		/* K_* */
	const char *fn;		/* a launch's kernel */
	CUresult r;
};

#define STEPS 64
static struct step steps[STEPS];
static int nsteps;

static void step_begin(const char *what, uint64_t key, int kind)
{
	if (nsteps == STEPS)
		abort();
	steps[nsteps] = (struct step){ what, key, kind, NULL, CUDA_SUCCESS };
	fake_fault_tag(nsteps + 1);
}

static const char *kernel;	/* the next step's, if a launch */

static CUresult step_end(CUresult r)
{
	fake_fault_tag(0);
	steps[nsteps].fn = kernel;
	kernel = NULL;
	steps[nsteps++].r = r;
	return r;
}

/*
 * Whether the fake's @name is what the program's call @what reaches: an
 * LC tenant's cuStreamCreate is made with the greatest priority
 * (lcprio.c).
 */
static bool reaches(const char *what, const char *name)
{
	return !strcmp(what, name) ||
	       (!strcmp(what, "cuStreamCreate") &&
		!strcmp(name, "cuStreamCreateWithPriority"));
}

/* DO(kind, fn, key, (args)): one tagged call; its result. */
#define DO(kind, fn, key, args)						\
	(step_begin(XSTR(fn), (uint64_t)(uintptr_t)(key), (kind)),	\
	 step_end(fn args))
#define WORK(fn, key, args) DO(K_CALL, fn, key, args)
#define ASYNC(fn, key, args) DO(K_ASYNC, fn, key, args)
#define SYNC(fn, key, args) DO(K_SYNC, fn, key, args)

static const char ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n\n"
	".visible .entry k(.param .u32 k_p0)\n{\n\tret;\n}\n"
	".visible .entry k2(.param .u32 k2_p0, .param .u64 k2_p1)\n"
	"{\n\tret;\n}\n";

static CUresult launch(CUfunction f, CUstream s, int arg)
{
	void *p[] = { &arg };

	kernel = "k";
	return ASYNC(cuLaunchKernel, arg, (f, 1, 1, 1, 32, 1, 1, 0, s, p, NULL));
}

/* A kernel of two parameters: a copy that misses one is read past. */
static CUresult launch2(CUfunction f, CUstream s, int arg, CUdeviceptr p1)
{
	void *p[] = { &arg, &p1 };

	kernel = "k2";
	return ASYNC(cuLaunchKernel, arg, (f, 2, 1, 1, 64, 1, 1, 0, s, p, NULL));
}

/* The program; 0 if it ran to its end without an error. */
static int program(void)
{
	CUdevice dev = 0;
	CUcontext ctx = NULL;
	CUdeviceptr da = 0, db = 0;
	CUmodule mod = NULL;
	CUfunction fn = NULL, fn2 = NULL;
	CUstream s1 = NULL, s2 = NULL;
	CUevent e1 = NULL, e2 = NULL;
	unsigned char page[512] = { 1 };
	void *host = NULL;
	float ms;
	int ok = 0;

	if (WORK(cuInit, 0, (0)) ||
	    WORK(cuDeviceGet, 0, (&dev, 0)) ||
	    WORK(cuDevicePrimaryCtxRetain, 0, (&ctx, dev)))
		return -1;
	if (SYNC(cuCtxSetCurrent, ctx, (ctx)) ||
	    WORK(cuMemAlloc, 4096, (&da, 4096)) ||
	    WORK(cuMemAlloc, 4100, (&db, 4100)) ||
	    WORK(cuMemHostAlloc, 4104, (&host, 4104, 0)))
		goto out;
	/* pinned: the fake's cuPointerGetAttribute knows it */
	fake_register(host, 4104, CU_MEMORYTYPE_HOST);
	if (WORK(cuModuleLoadData, ptx, (&mod, ptx)) ||
	    WORK(cuModuleGetFunction, mod, (&fn, mod, "k")) ||
	    WORK(cuModuleGetFunction, mod, (&fn2, mod, "k2")) ||
	    WORK(cuStreamCreate, 0, (&s1, 0)) ||
	    WORK(cuStreamCreate, 1, (&s2, CU_STREAM_NON_BLOCKING)) ||
	    WORK(cuEventCreate, 0, (&e1, 0)) ||
	    WORK(cuEventCreate, 0, (&e2, 0)))
		goto out;
	/* Deferred work on both streams and the legacy one. */
	if (ASYNC(cuMemcpyHtoDAsync, 1024, (da, host, 1024, s1)) ||
	    launch(fn, s1, 1) ||
	    ASYNC(cuMemsetD32Async, 0x55, (db, 0x55, 16, s2)) ||
	    ASYNC(cuEventRecord, e1, (e1, s1)) ||
	    ASYNC(cuStreamWaitEvent, e1, (s2, e1, 0)) ||
	    launch(fn, s2, 2) ||
	    launch2(fn2, s2, 7, db) ||
	    launch(fn, NULL, 3) ||
	    ASYNC(cuMemcpyDtoDAsync, 512, (db, da, 512, s2)) ||
	    ASYNC(cuMemcpyDtoHAsync, 256, (host, db, 256, s2)) ||
	    SYNC(cuStreamSynchronize, s2, (s2)))
		goto out;
	/* A synchronous copy from pageable memory (a gate), more work. */
	if (SYNC(cuMemcpyHtoD, 128, (da, page, 128)) ||
	    launch(fn, s1, 4) ||
	    ASYNC(cuEventRecord, e2, (e2, s1)) ||
	    SYNC(cuEventSynchronize, e2, (e2)) ||
	    SYNC(cuEventQuery, e2, (e2)) ||
	    SYNC(cuEventElapsedTime, 0, (&ms, e1, e2)) ||
	    launch(fn, s2, 5) ||
	    SYNC(cuCtxSynchronize, 0, ()) ||
	    SYNC(cuMemcpyDtoH, 64, (page, da, 64)) ||
	    launch(fn, s1, 6))		/* left for the teardown */
		goto out;
	ok = 1;
out:
	/* Teardown: every sync point drains what is left. */
	if (s1)
		SYNC(cuStreamDestroy, s1, (s1));
	if (s2)
		SYNC(cuStreamDestroy, s2, (s2));
	if (e1)
		SYNC(cuEventDestroy, e1, (e1));
	if (e2)
		SYNC(cuEventDestroy, e2, (e2));
	if (da)
		SYNC(cuMemFree, da, (da));
	if (db)
		SYNC(cuMemFree, db, (db));
	if (host)
		SYNC(cuMemFreeHost, 0, (host));
	if (mod)
		SYNC(cuModuleUnload, mod, (mod));
	SYNC(cuDevicePrimaryCtxRelease, 0, (dev));
	return ok ? 0 : -1;
}

/* The step whose own driver call @f is, or -1. */
static int own_step(const struct fake_fault *f, bool on_main)
{
	int i;

	for (i = 0; i < nsteps; i++) {
		if (!reaches(steps[i].what, f->name) || steps[i].key != f->key)
			continue;
		/* a launch of our kernel, not of one of the interposer's */
		if (steps[i].fn && strcmp(steps[i].fn, f->fn))
			continue;
		if (on_main ? f->tag == i + 1 : steps[i].kind == K_ASYNC)
			return i;
	}
	return -1;
}

/* The first step that did not succeed, or -1. */
static int first_error(void)
{
	int i;

	for (i = 0; i < nsteps; i++)
		if (steps[i].r != CUDA_SUCCESS)
			return i;
	return -1;
}

/* Checks one run against the fault the fake injected; 0 if it held. */
static int check(void)
{
	struct fake_fault f;
	bool on_main;
	int j, e = first_error(), want;

	if (!fake_fault_count()) {
		/* Not reached while the program ran (at exit, or never). */
		if (e < 0)
			return 0;
		fprintf(stderr, "faults: no fault yet, but %s returned %d\n",
			steps[e].what, (int)steps[e].r);
		return 3;
	}
	fake_fault_get(0, &f);
	on_main = f.tid == gettid();
	j = own_step(&f, on_main);
	if (j < 0) {
		/* The interposer's own call: it must absorb the error. */
		if (e < 0)
			return 0;
		fprintf(stderr, "faults: the interposer's own %s (%s thread, during call %d) failed, and the program's %s returned %d\n",
			f.name, on_main ? "the program's" : "another",
			f.tag, steps[e].what, (int)steps[e].r);
		return 3;
	}
	want = j;
	if (!on_main) {
		/* Deferred: reported at the next sync point after it. */
		for (want = j + 1; want < nsteps && steps[want].kind != K_SYNC;
		     want++)
			;
	}
	if (want < nsteps && e == want && (int)steps[e].r == f.err)
		return 0;
	fprintf(stderr, "faults: %s (call %d, %s) failed with %d; expected at call %d (%s), first error at call %d (%s: %d)\n",
		f.name, j + 1, on_main ? "issued by the program's thread" :
					 "deferred",
		f.err, want + 1, want < nsteps ? steps[want].what : "none",
		e + 1, e >= 0 ? steps[e].what : "none",
		e >= 0 ? (int)steps[e].r : 0);
	return 3;
}

/* The sweep ------------------------------------------------------------------- */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

struct child {
	pid_t pid;
	unsigned long n;	/* the injection point; 0: a clean run */
	uint64_t t0;
	char out[256];		/* its stdout and stderr */
};

static unsigned long env_ul(const char *name, unsigned long def)
{
	const char *v = getenv(name);

	return v && *v ? strtoul(v, NULL, 10) : def;
}

static int start(struct child *c, unsigned long n)
{
	char nth[32];
	int fd;

	/* mkstemp's template: six of X at the end */
	if (snprintf(c->out, sizeof(c->out), "%s/gsp-faults.%6s",
		     getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", "") >=
	    (int)sizeof(c->out))
		return -1;
	memset(c->out + strlen(c->out) - 6, 'X', 6);
	fd = mkstemp(c->out);
	if (fd < 0)
		return -1;
	c->n = n;
	c->t0 = now_ms();
	c->pid = fork();
	if (c->pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		snprintf(nth, sizeof(nth), "%lu", n);
		if (n)
			setenv("FAKE_CUDA_FAIL_NTH", nth, 1);
		else
			setenv("FAKE_CUDA_FAIL_REPORT", "1", 1);
		execl("/proc/self/exe", "test_faults", "run", (char *)NULL);
		_exit(127);
	}
	close(fd);
	return c->pid < 0 ? -1 : 0;
}

/* Waits for @c for up to @limit_ms; its wait status, or -1 if killed. */
static int finish(struct child *c, uint64_t limit_ms)
{
	int st;

	while (waitpid(c->pid, &st, WNOHANG) == 0) {
		if (now_ms() - c->t0 > limit_ms) {
			kill(c->pid, SIGKILL);
			waitpid(c->pid, &st, 0);
			return -1;
		}
		usleep(1000);
	}
	return st;
}

/* @c's output, "# "-prefixed, at most @max lines. */
static void show(const struct child *c, int max)
{
	char line[512];
	FILE *f = fopen(c->out, "r");

	while (f && max-- > 0 && fgets(line, sizeof(line), f))
		printf("# %s", line);
	if (f)
		fclose(f);
}

/* Whether @c's output has @s. */
static bool said(const struct child *c, const char *s)
{
	char line[512];
	FILE *f = fopen(c->out, "r");
	bool yes = false;

	while (f && !yes && fgets(line, sizeof(line), f))
		yes = strstr(line, s) != NULL;
	if (f)
		fclose(f);
	return yes;
}

/* The driver calls of a clean run, or 0. */
static unsigned long clean_calls(void)
{
	struct child c;
	unsigned long n = 0;
	char line[512];
	FILE *f;
	int st;

	if (start(&c, 0))
		return 0;
	st = finish(&c, 30000);
	f = fopen(c.out, "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "fake_cuda: at exit: %lu driver calls", &n);
	if (f)
		fclose(f);
	if (st != 0 || !n) {
		printf("# the clean run failed (status %d):\n", st);
		show(&c, 30);
		n = 0;
	}
	unlink(c.out);
	return n;
}

static int sweep(void)
{
	const char *name = getenv("FAULTS_CASE");
	char label[64] = "";
	unsigned long max = env_ul("FAULTS_POINTS", 400);
	unsigned long jobs = env_ul("FAULTS_JOBS", 2), limit_ms = 20000;
	unsigned long n, every, points = 0, next = 1, N = clean_calls();
	unsigned long crashes = 0, hangs = 0, sanitizer = 0, wrong = 0;
	unsigned long at_exit = 0, never = 0, slowest = 0;
	struct child run[16];
	unsigned int nrun = 0, i;
	uint64_t t0 = now_ms();

	if (name && *name)
		snprintf(label, sizeof(label), " (%s)", name);
	tap_ok(N > 0, "faults%s: a clean run of the program counts %lu driver calls",
	       label, N);
	if (!N)
		return tap_done();
	if (jobs < 1 || jobs > 16)
		jobs = 2;
	every = (N + max - 1) / max;
	if (every > 1)
		printf("# faults%s: %lu calls, more than %lu: one point in %lu is injected (n = 1, %lu, ...)\n",
		       label, N, max, every, 1 + every);
	while (next <= N || nrun) {
		while (nrun < jobs && next <= N) {
			if (start(&run[nrun], next))
				break;
			nrun++;
			points++;
			next += every;
		}
		/* Waits for the oldest; the others run meanwhile. */
		{
			struct child c = run[0];
			int st = finish(&c, limit_ms);
			uint64_t took = now_ms() - c.t0;
			bool san = said(&c, "Sanitizer") ||
				   said(&c, "runtime error:");

			for (i = 1; i < nrun; i++)
				run[i - 1] = run[i];
			nrun--;
			n = c.n;
			if (took > slowest)
				slowest = took;
			if (!said(&c, "fake_cuda: injected"))
				never++;
			else if (!said(&c, "faults: fired"))
				at_exit++;
			if (st == 0 && !san) {
				unlink(c.out);
				continue;
			}
			if (st < 0) {
				hangs++;
				tap_ok(0, "faults%s: point %lu: no hang (killed after %lu ms)",
				       label, n, limit_ms);
			} else if (WIFSIGNALED(st)) {
				crashes++;
				tap_ok(0, "faults%s: point %lu: no crash (signal %d)",
				       label, n, WTERMSIG(st));
			} else if (san || WEXITSTATUS(st) == 86) {
				sanitizer++;
				tap_ok(0, "faults%s: point %lu: no sanitizer report (status %d)",
				       label, n, WEXITSTATUS(st));
			} else {
				wrong++;
				tap_ok(0, "faults%s: point %lu: the error surfaces as documented (status %d)",
				       label, n, WEXITSTATUS(st));
			}
			show(&c, 40);
			unlink(c.out);
		}
	}
	tap_ok(!crashes && !hangs && !sanitizer && !wrong,
	       "faults%s: %lu injection points: no crash, hang or sanitizer report, and every error surfaced as documented",
	       label, points);
	printf("# faults: %lu injection points, %lu crashes, %lu hangs (%s: %lu sanitizer reports, %lu misreported; %lu failed at exit, %lu never reached; slowest run %lu ms; %.1f s in all)\n",
	       points, crashes, hangs, name && *name ? name : "all", sanitizer,
	       wrong, at_exit, never, slowest,
	       (double)(now_ms() - t0) / 1000);
	return tap_done();
}

int main(int argc, char **argv)
{
	int rc;

	if (argc > 1 && !strcmp(argv[1], "sweep"))
		return sweep();
	if (argc < 2 || strcmp(argv[1], "run")) {
		fprintf(stderr, "usage: test_faults sweep|run\n");
		return 2;
	}
	program();
	rc = check();
	if (fake_fault_count())
		fprintf(stderr, "faults: fired while the program ran\n");
	return rc;
}
