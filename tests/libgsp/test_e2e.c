// SPDX-License-Identifier: GPL-2.0
/*
 * libgsp against a running gspaced, started by tests/libgsp/run.sh on
 * $GSP_SOCKET with sim_devices = 1, lease_devices = 1 (device 0 is
 * simulated, device 1 is a lease device) and lc_uids = our uid.
 *
 * The sim device has no GPU behind it: a job holds its engine for its
 * cost, and that cost is what is charged. The lease job's GPU time is the
 * figure this test reports with COMPLETE.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsp.h>
#include <gsp_board.h>
#include "gspd_proto.h"
#include "libgsp_internal.h"
#include "tap.h"

#define MS	1000000ull

static struct gsp *open_daemon(void)
{
	struct gsp_open_opts o = {
		.size = sizeof(o),
		.arbiter = GSP_ARBITER_DAEMON,
	};
	struct gsp *g = NULL;
	int ret = gsp_open(&g, &o);

	if (ret)
		tap_diag("gsp_open(daemon, %s): %s", getenv("GSP_SOCKET"),
			 strerror(-ret));
	return g;
}

static int submit(struct gsp *g, uint32_t engine, uint64_t cost,
		  uint64_t *handle)
{
	struct gspace_submit s = {
		.size = sizeof(s), .engine = engine, .cost_ns = cost,
		.user_tag = 7,
	};
	int ret = gsp_submit(g, &s);

	*handle = s.handle;
	return ret;
}

static int wait_job(struct gsp *g, uint64_t handle, uint32_t flags,
		    struct gspace_wait *w)
{
	*w = (struct gspace_wait){
		.size = sizeof(*w), .flags = flags, .handle = handle,
		.deadline_ns = gsp_now_ns() + 5000 * MS,
	};
	return gsp_wait(g, w);
}

static uint64_t stats_compute_ns(struct gsp *g)
{
	struct gspace_stats st = { .size = sizeof(st) };

	return gsp_stats(g, &st) ? UINT64_MAX : st.gpu_ns[0];
}

struct waiter {
	struct gsp *g;
	uint64_t handle;
	int ret, status;
};

static void *waiter_main(void *arg)
{
	struct waiter *w = arg;
	struct gspace_wait wt;

	w->ret = wait_job(w->g, w->handle, 0, &wt);
	w->status = wt.status;
	return NULL;
}

static void sigsegv_exit(int sig)
{
	(void)sig;
	_exit(42);
}

/* 1 if a store to @p kills a child with SIGSEGV. */
static int write_faults(const volatile uint64_t *p)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return 0;
	if (!pid) {
		struct sigaction sa = { .sa_handler = sigsegv_exit };

		sigaction(SIGSEGV, &sa, NULL);
		sigaction(SIGBUS, &sa, NULL);
		*(volatile uint64_t *)p = 1;
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 42;
}

static void test_basic(struct gsp *g)
{
	struct gspace_version v = { .size = sizeof(v) };
	struct gspace_stats st = { .size = sizeof(st) };
	struct gspace_wait w;
	struct waiter th;
	pthread_t tid;
	uint64_t h, before, t0, dt;
	int ret;

	tap_ok(!strcmp(gsp_arbiter_name(g), "daemon"), "arbiter name: daemon");
	ret = gsp_version(g, &v);
	tap_ok(!ret && v.abi_major == GSPACE_ABI_MAJOR && v.num_devices == 2 &&
	       v.lc_allowed == 1,
	       "VERSION: ABI %u.%u, %u devices, lc_allowed %u", v.abi_major,
	       v.abi_minor, v.num_devices, v.lc_allowed);

	ret = gsp_set_class(g, GSPACE_CLASS_BE, 250, 0);
	tap_ok(!ret, "set_class BE weight 250: %d", ret);
	ret = gsp_stats(g, &st);
	tap_ok(!ret && st.class == GSPACE_CLASS_BE && st.weight == 250 &&
	       st.device == 0, "STATS: class %u weight %u device %u", st.class,
	       st.weight, st.device);
	ret = gsp_set_class(g, GSPACE_CLASS_BE, 0, 0);
	tap_ok(ret == -EINVAL, "set_class weight 0: -EINVAL (got %d)", ret);

	/* Sim device 0: the job holds compute for 2 ms and is charged that. */
	before = stats_compute_ns(g);
	ret = submit(g, GSPACE_ENGINE_COMPUTE, 2 * MS, &h);
	tap_ok(!ret && h, "SUBMIT on the sim device: handle %llu",
	       (unsigned long long)h);
	ret = wait_job(g, h, 0, &w);
	tap_ok(!ret && w.status == 0 && w.gpu_ns == 2 * MS,
	       "WAIT: status %d, gpu_ns %llu (the 2 ms cost), latency %llu ns",
	       w.status, (unsigned long long)w.gpu_ns,
	       (unsigned long long)w.latency_ns);
	tap_ok(stats_compute_ns(g) == before + 2 * MS,
	       "STATS charges the sim job's 2 ms");
	ret = wait_job(g, h, 0, &w);
	tap_ok(ret == -ENOENT, "second WAIT of a finished job: -ENOENT (got %d)",
	       ret);

	/* A WAIT in one thread blocks only that thread. */
	ret = submit(g, GSPACE_ENGINE_COMPUTE, 300 * MS, &th.handle);
	th.g = g;
	if (ret || pthread_create(&tid, NULL, waiter_main, &th)) {
		tap_ok(0, "WAIT in a thread: could not start (%d)", ret);
		return;
	}
	usleep(20000);
	t0 = gsp_now_ns();
	ret = gsp_stats(g, &st);
	dt = gsp_now_ns() - t0;
	tap_ok(!ret && dt < 100 * MS && st.running + st.queued == 1,
	       "STATS answers in %llu us while another thread WAITs",
	       (unsigned long long)(dt / 1000));
	pthread_join(tid, NULL);
	tap_ok(!th.ret && !th.status, "the thread's WAIT ends: %d, status %d",
	       th.ret, th.status);
}

static void test_lease(struct gsp *g)
{
	struct gspace_ctx_set cs = {
		.size = sizeof(cs), .device = 1, .class = GSPACE_CLASS_BE,
		.weight = 100,
	};
	struct gspace_complete c = { .size = sizeof(c) };
	struct gspace_wait w;
	uint64_t h, before;
	int ret;

	ret = gsp_ctx_set(g, &cs);
	tap_ok(!ret, "CTX_SET device 1 (lease): %d", ret);
	before = stats_compute_ns(g);
	ret = submit(g, GSPACE_ENGINE_COMPUTE, 5 * MS, &h);
	tap_ok(!ret, "SUBMIT on the lease device: %d", ret);
	ret = wait_job(g, h, GSPACE_WAIT_GRANTED, &w);
	tap_ok(!ret, "WAIT GRANTED: %d", ret);
	c.handle = h;
	c.gpu_ns = 3 * MS;
	ret = gsp_complete(g, &c);
	tap_ok(!ret, "COMPLETE with gpu_ns 3 ms: %d", ret);
	tap_ok(stats_compute_ns(g) == before + 3 * MS,
	       "STATS charges the reported 3 ms");
	ret = gsp_complete(g, &c);
	tap_ok(ret == -ENOENT, "second COMPLETE: -ENOENT (got %d)", ret);
	cs.device = 0;
	gsp_ctx_set(g, &cs);
}

static void test_board(struct gsp *be)
{
	const struct gsp_board *b = gsp_board(be), *lb;
	struct gsp_board *rw;
	struct gsp *lc;
	int slot, ret;

	tap_ok(b && b->magic == GSP_BOARD_MAGIC && b->num_devices == 2,
	       "BE: board mapped, magic %#x, %u devices", b ? b->magic : 0,
	       b ? b->num_devices : 0);
	if (!b)
		return;
	tap_ok(gsp_board(be) == b, "BE: the board is mapped once and cached");
	tap_ok(!gsp_board_rw(be) && gsp_board_lc_slot(be) == -ENOENT,
	       "BE: no writable board, lc_slot -ENOENT");
	tap_ok(mprotect((void *)b, GSP_BOARD_SIZE, PROT_READ | PROT_WRITE) &&
	       errno == EACCES, "BE: mprotect to writable: EACCES");
	tap_ok(write_faults(&b->lc[0].inflight),
	       "BE: a store to the board faults (in a child)");

	lc = open_daemon();
	if (!lc) {
		tap_ok(0, "LC: second tenant opens");
		return;
	}
	/* Set the class first, then ask for the board (Documentation/libgsp.rst). */
	ret = gsp_set_class(lc, GSPACE_CLASS_LC, 100, 1 * MS);
	tap_ok(!ret, "LC: set_class LC (lc_uids has us): %d", ret);
	rw = gsp_board_rw(lc);
	slot = gsp_board_lc_slot(lc);
	tap_ok(rw && slot >= 0 && slot < GSP_BOARD_LC_SLOTS &&
	       gsp_board_load(&rw->lc[slot].owner) != 0,
	       "LC: writable board, slot %d owned", slot);
	if (!rw || slot < 0 || slot >= GSP_BOARD_LC_SLOTS) {
		gsp_close(lc);
		return;
	}
	lb = gsp_board(lc);
	tap_ok(lb == rw, "LC: gsp_board and gsp_board_rw agree");
	tap_ok(!gsp_board_lc_active(b, 0, gsp_now_ns() + 1000 * MS),
	       "BE sees no LC work before the LC tenant issues");
	gsp_board_store(&rw->lc[slot].stamp_ns, gsp_now_ns());
	gsp_board_store(&rw->lc[slot].inflight, 1);
	tap_ok(gsp_board_lc_active(b, 0, gsp_now_ns()),
	       "BE sees the LC tenant's in-flight work through its own mapping");

	ret = gsp_set_class(lc, GSPACE_CLASS_BE, 100, 0);
	tap_ok(!ret && gsp_board_lc_slot(lc) == -ENOENT && !gsp_board_rw(lc),
	       "LC back to BE: slot gone (%d)", gsp_board_lc_slot(lc));
	tap_ok(!gsp_board_lc_active(b, 0, gsp_now_ns()),
	       "BE sees no LC work once the slot is released");

	ret = gsp_set_class(lc, GSPACE_CLASS_LC, 100, 1 * MS);
	slot = gsp_board_lc_slot(lc);
	rw = gsp_board_rw(lc);
	if (!ret && rw && slot >= 0 && slot < GSP_BOARD_LC_SLOTS) {
		gsp_board_store(&rw->lc[slot].stamp_ns, gsp_now_ns());
		gsp_board_store(&rw->lc[slot].inflight, 1);
	}
	tap_ok(rw && gsp_board_lc_active(b, 0, gsp_now_ns()),
	       "LC again: slot %d, in flight", slot);
	gsp_close(lc);
	usleep(100000);	/* the daemon sees the hang-up */
	tap_ok(!gsp_board_lc_active(b, 0, gsp_now_ns()),
	       "a closed LC tenant's slot is cleared: BE not held back");
}

/*
 * A tenant the watchdog marked hung is reopened: same CTX_SET, a clean
 * tenant that takes leases again, and the board where it was.
 */
static void test_reopen(void)
{
	struct gspace_ctx_set cs = {
		.size = sizeof(cs), .device = 1, .class = GSPACE_CLASS_BE,
		.weight = 7,
	};
	struct gspace_stats st = { .size = sizeof(st) };
	struct gspace_complete c = { .size = sizeof(c) };
	const struct gsp_board *b;
	struct gsp_board *rw;
	struct gspace_wait w;
	char old_wd[32] = "";
	struct gsp *g = open_daemon(), *lc;
	uint64_t h;
	int ret, slot;

	if (!g) {
		tap_ok(0, "reopen: tenant opens");
		return;
	}
	ret = gsp_ctx_set(g, &cs);
	b = gsp_board(g);
	tap_ok(!ret && b, "reopen: BE tenant on the lease device, board mapped");
	if (gspd_ctl_get(gspi_conn(g), "watchdog_ms", old_wd, sizeof(old_wd)) ||
	    gspd_ctl_set(gspi_conn(g), "watchdog_ms", "50")) {
		tap_ok(0, "reopen: watchdog_ms set to 50");
		gsp_close(g);
		return;
	}
	submit(g, GSPACE_ENGINE_COMPUTE, MS, &h);
	wait_job(g, h, GSPACE_WAIT_GRANTED, &w);
	usleep(200000);		/* never completed: the watchdog fires */
	c.handle = h;
	ret = gsp_complete(g, &c);
	gsp_stats(g, &st);
	tap_ok(ret == -EALREADY && (st.ctx_flags & GSPACE_CTX_F_HUNG) &&
	       submit(g, GSPACE_ENGINE_COMPUTE, MS, &h) == -EBUSY,
	       "reopen: the watchdog marked the tenant hung (COMPLETE %d)", ret);
	gspd_ctl_set(gspi_conn(g), "watchdog_ms", old_wd);
	ret = gsp_reopen(g);
	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	gsp_stats(g, &st);
	tap_ok(ret == 0 && !st.ctx_flags && st.device == 1 && st.weight == 7 &&
	       st.class == GSPACE_CLASS_BE && st.completed == 0,
	       "reopen: a clean tenant with the same device, class and weight (%d)",
	       ret);
	tap_ok(gsp_board(g) == b && b->magic == GSP_BOARD_MAGIC &&
	       b->num_devices == 2 && !gsp_board_rw(g),
	       "reopen: the board stays where it was, read-only");
	ret = submit(g, GSPACE_ENGINE_COMPUTE, MS, &h);
	if (!ret)
		ret = wait_job(g, h, GSPACE_WAIT_GRANTED, &w);
	c.handle = h;
	c.gpu_ns = 2 * MS;
	if (!ret)
		ret = gsp_complete(g, &c);
	tap_ok(!ret && stats_compute_ns(g) == 2 * MS,
	       "reopen: the new tenant takes a lease and is charged (%d)", ret);
	gsp_close(g);

	/* An LC tenant: a slot again, through the same writable pointer. */
	lc = open_daemon();
	if (!lc || gsp_set_class(lc, GSPACE_CLASS_LC, 100, MS)) {
		tap_ok(0, "reopen: LC tenant opens");
		if (lc)
			gsp_close(lc);
		return;
	}
	rw = gsp_board_rw(lc);
	slot = gsp_board_lc_slot(lc);
	ret = gsp_reopen(lc);
	tap_ok(!ret && rw && gsp_board_rw(lc) == rw && gsp_board_lc_slot(lc) >= 0 &&
	       gsp_board_load(&rw->lc[gsp_board_lc_slot(lc)].owner) ==
		       (uint32_t)getpid(),
	       "reopen: LC keeps its writable pointer, owns slot %d (was %d)",
	       gsp_board_lc_slot(lc), slot);
	if (rw && gsp_board_lc_slot(lc) >= 0) {
		slot = gsp_board_lc_slot(lc);
		gsp_board_store(&rw->lc[slot].stamp_ns, gsp_now_ns());
		tap_ok(gsp_board_lc_active(gsp_board(lc), 0, gsp_now_ns()),
		       "reopen: a store through the old pointer reaches the live board");
	}
	gsp_close(lc);
}

int main(void)
{
	struct gsp *g = open_daemon();

	tap_ok(g != NULL, "gsp_open: daemon on $GSP_SOCKET");
	if (!g)
		return tap_done();
	test_basic(g);
	test_lease(g);
	test_board(g);
	gsp_close(g);
	test_reopen();
	return tap_done();
}
