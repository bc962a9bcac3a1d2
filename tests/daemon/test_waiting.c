// SPDX-License-Identifier: GPL-2.0
/*
 * gspaced's dev[].waiting (ABI 1.4): the compute jobs queued and not yet
 * granted, against a daemon on $GSP_SOCKET that tests/daemon/run.sh
 * starts with two sim devices and one lease device (2). Tenants are raw
 * connections of the wire protocol: the count follows a job queued behind
 * another tenant's lease, granted, cancelled, and dropped with a tenant
 * that closes its socket or is killed; then a random mix of those, with
 * a model of the queue, checks it after every step. The selftest
 * gspace_waiting_test covers the same on both arbiters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gspace.h"
#include "gsp_board.h"
#include "gspd_proto.h"
#include "tap.h"

#define LEASE_DEV	2
#define SIM_DEV		0
#define MS		1000000ULL

static const char *sock_path;
static const struct gsp_board *board;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

static uint64_t waiting(uint32_t dev)
{
	return gsp_board_load(&board->dev[dev].waiting);
}

/* Polls up to 5 s: a closed socket is seen by the daemon a little later. */
static uint64_t settles(uint32_t dev, uint64_t want)
{
	uint64_t end = now_ns() + 5000 * MS, n;

	while ((n = waiting(dev)) != want && now_ns() < end)
		sleep_ms(5);
	return n;
}

/* A BE tenant on @dev, or NULL. */
static struct gspd_conn *tenant(uint32_t dev)
{
	struct gspace_ctx_set cs = { .size = sizeof(cs), .device = dev,
				     .class = GSPACE_CLASS_BE, .weight = 100 };
	struct gspd_conn *c;

	if (gspd_connect(sock_path, &c))
		return NULL;
	if (gspd_ioctl(c, GSPACE_IOCTL_CTX_SET, &cs)) {
		gspd_disconnect(c);
		return NULL;
	}
	return c;
}

/*
 * A compute job; its handle, or 0. gspaced answers SUBMIT before it
 * queues the job (in the same loop iteration), so one more request on
 * the connection, answered in order, waits for the board to show it.
 */
static uint64_t submit(struct gspd_conn *c, uint64_t cost_ns)
{
	struct gspace_submit s = { .size = sizeof(s),
				   .engine = GSPACE_ENGINE_COMPUTE,
				   .cost_ns = cost_ns };
	struct gspace_stats st = { .size = sizeof(st) };

	if (gspd_ioctl(c, GSPACE_IOCTL_SUBMIT, &s) ||
	    gspd_ioctl(c, GSPACE_IOCTL_STATS, &st))
		return 0;
	return s.handle;
}

/* 0 once granted (or ended) before @timeout_ns from now, else -errno. */
static int granted(struct gspd_conn *c, uint64_t h, uint64_t timeout_ns)
{
	struct gspace_wait w = { .size = sizeof(w), .handle = h,
				 .flags = GSPACE_WAIT_GRANTED,
				 .deadline_ns = timeout_ns ?
						now_ns() + timeout_ns : 0 };

	return gspd_ioctl(c, GSPACE_IOCTL_WAIT, &w);
}

static int complete(struct gspd_conn *c, uint64_t h, uint32_t flags)
{
	struct gspace_complete cm = { .size = sizeof(cm), .handle = h,
				      .gpu_ns = 1000, .flags = flags };

	return gspd_ioctl(c, GSPACE_IOCTL_COMPLETE, &cm);
}

static int cancel(struct gspd_conn *c, uint64_t h)
{
	struct gspace_cancel cn = { .size = sizeof(cn), .handle = h };

	return gspd_ioctl(c, GSPACE_IOCTL_CANCEL, &cn);
}

/* "what: waiting N": the check, with the count the board holds. */
static void expect(uint32_t dev, int ok, uint64_t want, const char *what)
{
	uint64_t n = waiting(dev);

	tap_ok(ok && n == want, "%s: waiting %llu (board %llu)", what,
	       (unsigned long long)want, (unsigned long long)n);
}

/* Granted, cancelled, closed: each takes the queued job off the count. */
static void test_lease(void)
{
	struct gspd_conn *a = tenant(LEASE_DEV), *b = tenant(LEASE_DEV);
	uint64_t ha, hb, ha2;
	int ok;

	if (!a || !b) {
		tap_ok(0, "two tenants on lease device %d", LEASE_DEV);
		goto out;
	}
	expect(LEASE_DEV, settles(LEASE_DEV, 0) == 0, 0,
	       "lease device: nothing queued at the start");
	ha = submit(a, MS);
	ok = ha && !granted(a, ha, 5000 * MS);
	expect(LEASE_DEV, ok, 0, "a's job granted at once: never counted");
	hb = submit(b, MS);
	expect(LEASE_DEV, hb != 0, 1, "b's job queued behind a's lease");
	expect(SIM_DEV, 1, 0, "another device's count is its own");
	ok = !complete(a, ha, 0) && !granted(b, hb, 5000 * MS);
	expect(LEASE_DEV, ok, 0, "a completes, b is granted");

	ha = submit(a, MS);
	expect(LEASE_DEV, ha != 0, 1, "a's job queued behind b's lease");
	ok = !cancel(a, ha);
	expect(LEASE_DEV, ok, 0, "a cancels it");

	ha = submit(a, MS);
	ha2 = submit(a, MS);
	expect(LEASE_DEV, ha && ha2, 2, "a queues two");
	gspd_disconnect(a);
	a = NULL;
	expect(LEASE_DEV, settles(LEASE_DEV, 0) == 0, 0,
	       "a closes its socket with both queued");
	ok = !complete(b, hb, 0);
	expect(LEASE_DEV, ok, 0, "b completes: nothing was left to grant");
out:
	if (a)
		gspd_disconnect(a);
	if (b)
		gspd_disconnect(b);
}

static void test_killed(void)
{
	struct gspd_conn *a = tenant(LEASE_DEV);
	uint64_t ha = a ? submit(a, MS) : 0;
	int p[2], st, ok;
	char c = 0;
	pid_t pid;

	if (!ha || granted(a, ha, 5000 * MS) || pipe(p)) {
		tap_ok(0, "a tenant holds the lease");
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		struct gspd_conn *t = tenant(LEASE_DEV);

		if (!t || !submit(t, MS) || write(p[1], "y", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (pid < 0 || read(p[0], &c, 1) != 1 || c != 'y') {
		tap_ok(0, "a child queues a job");
		close(p[0]);
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
		}
		goto out;
	}
	close(p[0]);
	expect(LEASE_DEV, 1, 1, "a child's job queued");
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	expect(LEASE_DEV, settles(LEASE_DEV, 0) == 0, 0,
	       "kill -9 of the child");
	ok = !complete(a, ha, 0);
	expect(LEASE_DEV, ok, 0, "the lease was a's all along");
out:
	if (a)
		gspd_disconnect(a);
}

/* A sim device counts the same; a dying holder hands the engine on. */
static void test_sim(void)
{
	struct gspd_conn *a = tenant(SIM_DEV), *b = tenant(SIM_DEV);
	uint64_t ha, hb = 0;
	int ok;

	if (!a || !b) {
		tap_ok(0, "two tenants on sim device %d", SIM_DEV);
		goto out;
	}
	ha = submit(a, GSPACE_COST_MAX_NS);
	if (ha && !granted(a, ha, 5000 * MS))
		hb = submit(b, 1000);
	expect(SIM_DEV, hb != 0, 1, "sim: queued behind an hour-long job");
	gspd_disconnect(a);
	a = NULL;
	ok = !granted(b, hb, 5000 * MS);
	expect(SIM_DEV, ok, 0,
	       "sim: the holder disconnects, b's job is granted");
out:
	if (a)
		gspd_disconnect(a);
	if (b)
		gspd_disconnect(b);
}

#define NT	4
#define NJ	8

/*
 * One lease holder renews while four tenants submit, cancel, reconnect
 * and get granted at random; the model is the set of handles not yet
 * granted, and the board must equal its size after every step.
 */
static void test_random(void)
{
	struct gspd_conn *first = tenant(LEASE_DEV), *holder = first;
	struct gspd_conn *t[NT] = { 0 };
	uint64_t q[NT][NJ], hh, model = 0;
	int n[NT] = { 0 }, i, j, step, bad = 0;

	srand(12345);
	hh = holder ? submit(holder, MS) : 0;
	if (!hh || granted(holder, hh, 5000 * MS)) {
		tap_ok(0, "random: a holder with the lease");
		goto out;
	}
	for (i = 0; i < NT; i++)
		t[i] = tenant(LEASE_DEV);
	for (step = 0; step < 300 && !bad; step++) {
		int who = rand() % NT, op = rand() % 10;

		if (!t[who])
			break;
		if (op < 5 && n[who] < NJ) {
			q[who][n[who]] = submit(t[who], MS);
			if (!q[who][n[who]])
				bad = 1;
			n[who]++;
			model++;
		} else if (op < 7 && n[who]) {
			j = rand() % n[who];
			if (cancel(t[who], q[who][j]))
				bad = 1;
			q[who][j] = q[who][--n[who]];
			model--;
		} else if (op < 8 && t[who] != holder) {
			/* The tenant goes, its queued jobs with it. */
			gspd_disconnect(t[who]);
			t[who] = tenant(LEASE_DEV);
			model -= (uint64_t)n[who];
			n[who] = 0;
			if (settles(LEASE_DEV, model) != model)
				bad = 1;
		} else if (model) {
			/* The holder hands over: one queued job is granted. */
			int found = 0;

			if (complete(holder, hh, 0))
				bad = 1;
			for (i = 0; i < NT && !found; i++)
				for (j = 0; j < n[i] && !found; j++)
					if (!granted(t[i], q[i][j], 0)) {
						/* Its lease, under its tenant. */
						found = 1;
						holder = t[i];
						hh = q[i][j];
						q[i][j] = q[i][--n[i]];
						model--;
					}
			if (!found)
				bad = 1;
		} else {
			/* Keep the lease alive: the watchdog is 2 s. */
			if (complete(holder, hh, GSPACE_COMPLETE_PROGRESS))
				bad = 1;
		}
		if (waiting(LEASE_DEV) != model) {
			tap_diag("step %d op %d: board %llu, model %llu", step,
				 op, (unsigned long long)waiting(LEASE_DEV),
				 (unsigned long long)model);
			bad = 1;
		}
	}
	tap_ok(!bad && step == 300,
	       "random submit/cancel/close/grant, 4 tenants: the board equals the queue after each of %d steps",
	       step);
out:
	for (i = 0; i < NT; i++)
		if (t[i])
			gspd_disconnect(t[i]);
	if (first)
		gspd_disconnect(first);
	tap_ok(settles(LEASE_DEV, 0) == 0, "random: all gone, waiting 0");
}

int main(void)
{
	struct gspace_version v = { .size = sizeof(v) };
	struct gspd_conn *c;
	void *map;
	int wr = 1, ok;

	sock_path = getenv("GSP_SOCKET");
	if (!sock_path || !*sock_path) {
		tap_ok(0, "GSP_SOCKET names the daemon's socket");
		return tap_done();
	}
	if (gspd_connect(sock_path, &c)) {
		tap_ok(0, "connect to %s", sock_path);
		return tap_done();
	}
	ok = !gspd_ioctl(c, GSPACE_IOCTL_VERSION, &v);
	tap_ok(ok && v.abi_minor >= 4 && (v.features & GSPACE_FEAT_PREEMPT) &&
	       v.num_devices > LEASE_DEV,
	       "VERSION: ABI 1.%u, GSPACE_FEAT_PREEMPT, %u devices",
	       v.abi_minor, v.num_devices);
	if (gspd_board(c, &map, NULL, &wr) || wr) {
		tap_ok(0, "a BE client maps the board read-only");
		gspd_disconnect(c);
		return tap_done();
	}
	board = map;
	test_lease();
	test_killed();
	test_sim();
	test_random();
	munmap(map, GSP_BOARD_SIZE);
	gspd_disconnect(c);
	return tap_done();
}
