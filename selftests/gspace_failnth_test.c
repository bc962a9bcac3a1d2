// SPDX-License-Identifier: GPL-2.0
/*
 * Every allocation of every request fails once (fail-nth,
 * Documentation/fault-injection/fault-injection.rst): for each request a
 * tenant makes (open, CTX_SET, SUBMIT with fences and chains, WAIT,
 * CANCEL, STATS, a lease's grant and COMPLETE, the board's mmap), the
 * test sets up a fresh tenant up to that request, arms
 * /proc/thread-self/fail-nth with N, makes the request, and goes on with
 * N + 1 until the request no longer reaches an N-th fault site. Each
 * injected failure must give a clear errno (ENOMEM and its kin, never
 * EFAULT, EINVAL or a success that lost the object), leave the tenant
 * answering, and once the tenant is closed the debugfs object counters
 * are back to the baseline. The kernel log check and the kmemleak scan
 * of the VM's suite catch what the counters cannot.
 *
 * Needs a kernel with CONFIG_FAULT_INJECTION_DEBUG_FS and FAILSLAB
 * (FAIL_PAGE_ALLOC too, if it has it; the debug kernel of
 * tools/vm/debug.config), root, and gspace.ko: SKIPs elsewhere. Prints
 * "# fail_nth: N allocation points, L leaks (R requests; F failed
 * cleanly, S succeeded anyway)": a leak is a failure after which the
 * object counters did not come back.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/mman.h>

#include "gsp_util.h"

#define FN_MAX_NTH	4000
#define FN_SIM_COST_NS	1000000ULL	/* a job that ends within a WAIT */
#define FN_LONG_NS	500000000ULL	/* one still queued at CANCEL */

/*
 * failslab's, and fail_page_alloc's where the kernel has it: what the
 * test changes and restores.
 */
static const char *const fn_knobs[] = {
	"failslab/ignore-gfp-wait", "failslab/verbose",
	"fail_page_alloc/ignore-gfp-wait", "fail_page_alloc/verbose",
};
#define FN_REQUIRED	2	/* the first ones: failslab's */
#define FN_NKNOBS (sizeof(fn_knobs) / sizeof(fn_knobs[0]))

struct fn_tenant {
	int fd, fence;
	uint64_t handle;
	void *board;
};

enum fn_req {
	FN_OPEN, FN_CTX, FN_SUBMIT_OUT, FN_SUBMIT_IN, FN_SUBMIT_CHAIN,
	FN_SUBMIT_LONG, FN_WAIT, FN_CANCEL, FN_STATS, FN_LEASE, FN_COMPLETE,
	FN_MAP, FN_N
};

static const char *const fn_name[FN_N] = {
	[FN_OPEN] = "open", [FN_CTX] = "CTX_SET",
	[FN_SUBMIT_OUT] = "SUBMIT (out-fence)",
	[FN_SUBMIT_IN] = "SUBMIT (in- and out-fence)",
	[FN_SUBMIT_CHAIN] = "SUBMIT (chain)",
	[FN_SUBMIT_LONG] = "SUBMIT (a long job)", [FN_WAIT] = "WAIT",
	[FN_CANCEL] = "CANCEL", [FN_STATS] = "STATS",
	[FN_LEASE] = "SUBMIT and WAIT for a lease",
	[FN_COMPLETE] = "COMPLETE", [FN_MAP] = "mmap of the board",
};

static int fn_submit(struct fn_tenant *t, uint32_t flags, uint64_t cost)
{
	struct gspace_submit s;

	submit_init(&s, GSPACE_ENGINE_COMPUTE, cost);
	s.flags = flags;
	if (flags & GSPACE_SUBMIT_FENCE_IN)
		s.in_fence_fd = t->fence;
	if (gsp_ioctl(t->fd, GSPACE_IOCTL_SUBMIT, &s))
		return -errno;
	t->handle = s.handle;
	if (flags & GSPACE_SUBMIT_FENCE_OUT) {
		if (t->fence >= 0)
			close(t->fence);
		t->fence = s.out_fence_fd;
	}
	return 0;
}

/* Request @r of tenant @t, on @dev (a sim device) or @lease; -errno. */
static int fn_do(struct fn_tenant *t, enum fn_req r, int dev, int lease)
{
	struct gspace_stats st;

	switch (r) {
	case FN_OPEN:
		t->fd = gsp_open();
		return t->fd < 0 ? -errno : 0;
	case FN_CTX:
		return ctx_set_raw(t->fd, (uint32_t)dev, GSPACE_CLASS_BE,
				   GSPACE_WEIGHT_DEFAULT, 0) ? -errno : 0;
	case FN_SUBMIT_OUT:
		return fn_submit(t, GSPACE_SUBMIT_FENCE_OUT, FN_SIM_COST_NS);
	case FN_SUBMIT_IN:
		return fn_submit(t, GSPACE_SUBMIT_FENCE_IN |
				 GSPACE_SUBMIT_FENCE_OUT, FN_SIM_COST_NS);
	case FN_SUBMIT_CHAIN:
		return fn_submit(t, GSPACE_SUBMIT_CHAIN, FN_SIM_COST_NS);
	case FN_SUBMIT_LONG:
		return fn_submit(t, 0, FN_LONG_NS);
	case FN_WAIT:
		return wait_raw(t->fd, t->handle, 0, now_ns() + 2000000000ULL,
				NULL) ? -errno : 0;
	case FN_CANCEL:
		return cancel_raw(t->fd, t->handle) ? -errno : 0;
	case FN_STATS:
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		return gsp_ioctl(t->fd, GSPACE_IOCTL_STATS, &st) ? -errno : 0;
	case FN_LEASE:
		if (ctx_set_raw(t->fd, (uint32_t)lease, GSPACE_CLASS_BE,
				GSPACE_WEIGHT_DEFAULT, 0) ||
		    fn_submit(t, 0, 0))
			return -errno;
		return wait_raw(t->fd, t->handle, GSPACE_WAIT_GRANTED,
				now_ns() + 2000000000ULL, NULL) ? -errno : 0;
	case FN_COMPLETE:
		return complete_raw(t->fd, t->handle, 1000, 0) ? -errno : 0;
	case FN_MAP:
		t->board = gsp_board_map(t->fd, 0);
		return t->board ? 0 : -errno;
	default:
		return -EINVAL;
	}
}

/* What must run, unarmed, before request @r. */
static const enum fn_req *fn_setup(enum fn_req r, int *n)
{
	static const enum fn_req open_only[] = { FN_OPEN };
	static const enum fn_req ctx[] = { FN_OPEN, FN_CTX };
	static const enum fn_req job[] = { FN_OPEN, FN_CTX, FN_SUBMIT_OUT };
	static const enum fn_req lease[] = { FN_OPEN, FN_LEASE };
	/* A running job cannot be cancelled: the second one waits. */
	static const enum fn_req queued[] = { FN_OPEN, FN_CTX, FN_SUBMIT_LONG,
					      FN_SUBMIT_LONG };

	switch (r) {
	case FN_OPEN:
		*n = 0;
		return NULL;
	case FN_CTX:
	case FN_LEASE:
	case FN_MAP:
		*n = 1;
		return open_only;
	case FN_SUBMIT_OUT:
	case FN_SUBMIT_LONG:
	case FN_STATS:
		*n = 2;
		return ctx;
	case FN_CANCEL:
		*n = 4;
		return queued;
	case FN_COMPLETE:
		*n = 2;
		return lease;
	default:
		*n = 3;
		return job;
	}
}

static void fn_close(struct fn_tenant *t)
{
	if (t->board)
		munmap(t->board, GSPACE_BOARD_SIZE);
	if (t->fence >= 0)
		close(t->fence);
	if (t->fd >= 0)
		gsp_close(t->fd);
	t->board = NULL;
	t->fence = t->fd = -1;
}

/* A failed allocation's errno: never one that blames the caller. */
static int fn_clean_errno(int e)
{
	return e == ENOMEM || e == EAGAIN || e == ENFILE || e == EMFILE ||
	       e == EINTR || e == ENOSPC;
}

/* /proc/thread-self/fail-nth, kept open: pread and pwrite at 0. */
static int fn_rw(int fd, const char *val, char *out, size_t len)
{
	ssize_t n;

	if (val)
		return pwrite(fd, val, strlen(val), 0) == (ssize_t)strlen(val) ?
		       0 : -errno;
	n = pread(fd, out, len - 1, 0);
	if (n < 0)
		return -errno;
	out[n] = 0;
	return 0;
}

/*
 * A failslab or fail_page_alloc knob: debugfs attributes cannot seek, so
 * each access opens the file. -ENOENT when the kernel has no such knob.
 */
static int fn_knob(const char *knob, const char *val, char *out, size_t len)
{
	char path[128];
	ssize_t n;
	int fd, e = 0;

	snprintf(path, sizeof(path), "/sys/kernel/debug/%s", knob);
	fd = open(path, (val ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (val) {
		if (write(fd, val, strlen(val)) != (ssize_t)strlen(val))
			e = -errno;
	} else {
		n = read(fd, out, len - 1);
		if (n < 0)
			e = -errno;
		else
			out[n] = 0;
	}
	close(fd);
	return e;
}

TEST_TIMEOUT(fail_nth, 3600)
{
	char saved[FN_NKNOBS][32], buf[32];
	int have[FN_NKNOBS] = { 0 };
	struct gsp_objects base, now;
	struct gsp_info info;
	unsigned int requests = 0, injected = 0, clean = 0, anyway = 0;
	unsigned int leaks = 0, k;
	int fd, nth_fd, r;

	if (gsp_on_daemon())
		SKIP("fail-nth injects into the kernel: gspace.ko only");
	REQUIRE_ROOT();
	nth_fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	if (nth_fd < 0)
		SKIP("no /proc/thread-self/fail-nth (a kernel without CONFIG_FAULT_INJECTION_DEBUG_FS)");
	t_objects_baseline(_metadata, &base);
	fd = t_open(_metadata);
	t_info(_metadata, fd, &info);
	gsp_close(fd);
	t_need_lease(_metadata, &info);
	if (info.sim_devices < 1)
		SKIP("no sim device");
	/* GFP_KERNEL allocations fail too; no stack dump per injection. */
	for (k = 0; k < FN_NKNOBS; k++) {
		int e = fn_knob(fn_knobs[k], NULL, saved[k], sizeof(saved[k]));

		if (e == -ENOENT && k < FN_REQUIRED)
			SKIP("no /sys/kernel/debug/%s (a kernel without FAILSLAB)",
			     fn_knobs[k]);
		if (e == -ENOENT)
			continue;
		ASSERT_OK(e);
		have[k] = 1;
		ASSERT_OK(fn_knob(fn_knobs[k],
				  strstr(fn_knobs[k], "verbose") ? "0" : "N",
				  NULL, 0));
	}

	for (r = 0; r < FN_N && !leaks; r++) {
		unsigned int nth, done = 0;

		for (nth = 1; nth <= FN_MAX_NTH && !done && !leaks; nth++) {
			struct fn_tenant t = { .fd = -1, .fence = -1 };
			const enum fn_req *pre;
			int npre, i, err, hit;
			char num[16];

			pre = fn_setup((enum fn_req)r, &npre);
			for (i = 0; i < npre; i++)
				ASSERT_OK(fn_do(&t, pre[i], 0, info.lease_dev));
			snprintf(num, sizeof(num), "%u", nth);
			ASSERT_OK(fn_rw(nth_fd, num, NULL, 0));
			err = fn_do(&t, (enum fn_req)r, 0, info.lease_dev);
			/* Reads 0 once the fault was injected; else disarm. */
			ASSERT_OK(fn_rw(nth_fd, NULL, buf, sizeof(buf)));
			hit = atoi(buf) == 0;
			if (!hit)
				ASSERT_OK(fn_rw(nth_fd, "0", NULL, 0));
			requests++;
			if (hit) {
				injected++;
				if (err) {
					clean++;
					if (!fn_clean_errno(-err))
						TH_LOG("%s, fault %u: %s", fn_name[r],
						       nth, strerror(-err));
					EXPECT_TRUE(fn_clean_errno(-err));
				} else {
					anyway++;
				}
				/* Still answering after the failure. */
				if (t.fd >= 0)
					EXPECT_EQ(0, fn_do(&t, FN_STATS, 0, 0));
			} else {
				done = 1;
				if (err)
					TH_LOG("%s failed with no fault injected: %s",
					       fn_name[r], strerror(-err));
				EXPECT_EQ(0, err);
			}
			fn_close(&t);
			/* One leak ends the sweep: the baseline is gone. */
			if (!objects_settle(&base, &now, 3000)) {
				TH_LOG("%s, fault %u: objects contexts %lld jobs %lld fences %lld, baseline %lld %lld %lld",
				       fn_name[r], nth, now.contexts, now.jobs,
				       now.fences, base.contexts, base.jobs,
				       base.fences);
				leaks++;
			}
		}
		EXPECT_TRUE(done || leaks);
	}
	close(nth_fd);
	for (k = 0; k < FN_NKNOBS; k++)
		if (have[k])
			EXPECT_EQ(0, fn_knob(fn_knobs[k], saved[k], NULL, 0));
	gsp_diag("fail_nth: %u allocation points, %u leaks (%u requests; %u failed cleanly, %u succeeded anyway)",
		 injected, leaks, requests, clean, anyway);
	EXPECT_LT(0, injected);
	EXPECT_EQ(0, leaks);
}

TEST_HARNESS_MAIN
