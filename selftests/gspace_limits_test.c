// SPDX-License-Identifier: GPL-2.0
/*
 * The tenants' limits (Documentation/kmod.rst and gspaced.rst, "Limits"),
 * on both arbiters: the knobs tenant_max_jobs, tenant_max_fences,
 * tenant_max_waits and uid_max_tenants take their range and nothing else,
 * and only root (an admin of gspaced) sets them; past each, the request
 * fails with its errno (ENOSPC, EMFILE, EAGAIN, EUSERS) and nothing
 * leaks; a uid's tenants are freed by close and by SIGKILL at any point;
 * root is exempt from uid_max_tenants.
 *
 * A tenant refused by gspaced is refused at its first request (its
 * connect() succeeds), so tenant_open() makes one (VERSION) before it
 * says the tenant exists.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <linux/capability.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "gsp_util.h"

/* Uids of nobody on the test machines: tenants of the tests' own. */
#define LIM_UID		4242
#define LIM_UID2	4243

static const char *const limit_knobs[] = {
	"tenant_max_jobs", "tenant_max_fences", "tenant_max_waits",
	"uid_max_tenants",
};
#define NLIMITS (sizeof(limit_knobs) / sizeof(limit_knobs[0]))

/* A tenant, refused or not: its descriptor, or -errno. */
static int tenant_open(void)
{
	struct gspace_version v;
	int fd = gsp_open(), e;

	if (fd < 0)
		return -errno;
	memset(&v, 0, sizeof(v));
	v.size = sizeof(v);
	if (gsp_ioctl(fd, GSPACE_IOCTL_VERSION, &v)) {
		e = errno;
		gsp_close(fd);
		return -e;
	}
	return fd;
}

/*
 * Becomes @uid for good: in a child only. 0 or -1. Its gid is the
 * device node's (its group may open it, 0660 as udev makes it), on
 * gspaced @uid.
 */
static int become(uid_t uid)
{
	struct stat st;
	gid_t gid = uid;

	if (!gsp_on_daemon() && !stat(gsp_where(), &st))
		gid = st.st_gid;

	return setgroups(0, NULL) || setresgid(gid, gid, gid) ||
	       setresuid(uid, uid, uid) ? -1 : 0;
}

/* Waits for @pid: its exit status, or 128 + the signal. */
static int reap(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int knob_u(const char *knob, unsigned long long *v)
{
	char buf[64];
	int r = knob_read(knob, buf, sizeof(buf));

	if (!r)
		*v = strtoull(buf, NULL, 0);
	return r;
}

FIXTURE(limits) {
	char saved[NLIMITS][64];
	struct gsp_objects base;
	int have_base;
};

FIXTURE_SETUP(limits)
{
	int fd = t_open(_metadata);

	gsp_close(fd);
}

FIXTURE_TEARDOWN(limits)
{
	struct gsp_objects now;
	unsigned int i;

	for (i = 0; i < NLIMITS; i++)
		if (self->saved[i][0])
			EXPECT_EQ(0, knob_write(limit_knobs[i], self->saved[i]));
	if (self->have_base && !objects_settle(&self->base, &now, 3000)) {
		TH_LOG("objects: contexts %lld jobs %lld fences %lld, base %lld %lld %lld",
		       now.contexts, now.jobs, now.fences, self->base.contexts,
		       self->base.jobs, self->base.fences);
		_metadata->failed = 1;
	}
}

/*
 * Root on the device, an admin of gspaced: the knob must exist (an
 * arbiter without it fails), and is saved for the teardown.
 */
static void save(struct __test_meta *_metadata, FIXTURE_DATA(limits) *self,
		 const char *knob)
{
	char raw[64];
	unsigned int i;
	int r;

	if (!gsp_on_daemon())
		REQUIRE_ROOT();
	for (i = 0; i < NLIMITS; i++)
		if (!strcmp(limit_knobs[i], knob))
			break;
	ASSERT_LT(i, NLIMITS);
	r = knob_read(knob, raw, sizeof(raw));
	if (r)
		TH_LOG("%s/%s: %d (%s)", knob_dir(), knob, r, gsp_errname(-r));
	ASSERT_EQ(0, r);
	if (gsp_on_daemon()) {
		r = knob_write(knob, raw);
		if (r == -EPERM)
			SKIP("not an admin of gspaced (uid %u)",
			     (unsigned int)geteuid());
		ASSERT_EQ(0, r);
	}
	snprintf(self->saved[i], sizeof(self->saved[i]), "%s", raw);
}

static void set(struct __test_meta *_metadata, FIXTURE_DATA(limits) *self,
		const char *knob, const char *val)
{
	save(_metadata, self, knob);
	ASSERT_EQ(0, knob_write(knob, val));
}

/* Root, and the object counters now, to be met again at the teardown. */
static void baseline(struct __test_meta *_metadata, FIXTURE_DATA(limits) *self)
{
	t_objects_baseline(_metadata, &self->base);
	self->have_base = 1;
}

/* Bad values give EINVAL and change nothing; good ones read back. */
TEST_F(limits, knobs_bounds)
{
	static const char *const bad[] = {
		"-1", "abc", "\n", "12x", "1 2", "1048577", "4294967296",
		"99999999999999999999",
	};
	static const char *const good[] = { "7", "1048576", "300" };
	char before[32], after[32];
	unsigned int i, j;

	for (i = 0; i < NLIMITS; i++) {
		const char *k = limit_knobs[i];
		int zero_ok = !strcmp(k, "tenant_max_fences") ||
			      !strcmp(k, "tenant_max_waits");
		int jobs = !strcmp(k, "tenant_max_jobs");

		save(_metadata, self, k);
		ASSERT_EQ(0, knob_read(k, before, sizeof(before)));
		for (j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
			int r = knob_write(k, bad[j]);

			if (r != -EINVAL)
				TH_LOG("%s = '%s': %d", k, bad[j], r);
			EXPECT_EQ(-EINVAL, r);
			ASSERT_EQ(0, knob_read(k, after, sizeof(after)));
			EXPECT_EQ(0, strcmp(before, after));
		}
		EXPECT_EQ(zero_ok ? 0 : -EINVAL, knob_write(k, "0"));
		EXPECT_EQ(jobs ? -EINVAL : 0, knob_write(k, "16385"));
		for (j = 0; j < sizeof(good) / sizeof(good[0]); j++) {
			const char *v = jobs && j == 1 ? "16384" : good[j];

			ASSERT_EQ(0, knob_write(k, v));
			ASSERT_EQ(0, knob_read(k, after, sizeof(after)));
			EXPECT_EQ(0, strcmp(v, after));
		}
	}
}

/* A uid other than root (an admin) cannot raise a limit. */
TEST_F(limits, knobs_unprivileged_cannot_raise)
{
	unsigned long long before, after;
	unsigned int i;
	pid_t pid;

	if (geteuid() != 0)
		SKIP("needs root to become uid %d", LIM_UID);
	for (i = 0; i < NLIMITS; i++) {
		ASSERT_EQ(0, knob_u(limit_knobs[i], &before));
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			int r;

			if (become(LIM_UID))
				_exit(2);
			r = knob_write(limit_knobs[i], "1048576");
			/* sysfs: the file is root's 0644; gspaced: EPERM. */
			_exit(r == -EACCES || r == -EPERM ? 0 : 3);
		}
		EXPECT_EQ(0, reap(pid));
		ASSERT_EQ(0, knob_u(limit_knobs[i], &after));
		EXPECT_EQ(before, after);
	}
}

/*
 * As @uid, opens @n tenants, which must succeed, then one more, which
 * must fail with EUSERS; closes one, opens one again, and is refused once
 * more. 0, or the step that went wrong (3: a tenant of the @n, said if
 * @verbose).
 */
static int uid_cap_child(uid_t uid, int n, int verbose)
{
	int fds[64], i, r;

	if (become(uid))
		return 2;
	for (i = 0; i < n; i++) {
		fds[i] = tenant_open();
		if (fds[i] < 0) {
			if (verbose)
				gsp_diag("uid %u: tenant %d of %d: %s",
					 (unsigned int)uid, i + 1, n,
					 gsp_errname(-fds[i]));
			return 3;
		}
	}
	r = tenant_open();
	if (r != -EUSERS) {
		gsp_diag("uid %u: tenant %d: %d, not EUSERS", (unsigned int)uid,
			 n + 1, r);
		return 4;
	}
	gsp_close(fds[0]);
	fds[0] = -1;
	/* gspaced learns of the close in its loop: give it a moment. */
	for (i = 0; i < 200; i++) {
		fds[0] = tenant_open();
		if (fds[0] != -EUSERS)
			break;
		sleep_ms(10);
	}
	if (fds[0] < 0)
		return 5;
	if (tenant_open() != -EUSERS)
		return 6;
	return 0;
}

/*
 * uid_max_tenants 4: the 5th tenant of a uid is refused with EUSERS, a
 * close frees a slot, and root is not held to it.
 */
TEST_F(limits, uid_cap)
{
	int fds[6], i;
	pid_t pid;

	if (geteuid() != 0)
		SKIP("needs root to become uid %d", LIM_UID);
	baseline(_metadata, self);
	set(_metadata, self, "uid_max_tenants", "4");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(uid_cap_child(LIM_UID, 4, 1));
	EXPECT_EQ(0, reap(pid));
	/* Root: exempt. */
	for (i = 0; i < 6; i++) {
		fds[i] = tenant_open();
		if (fds[i] < 0)
			TH_LOG("root's tenant %d: %s", i + 1,
			       gsp_errname(-fds[i]));
		EXPECT_LE(0, fds[i]);
	}
	for (i = 0; i < 6; i++)
		if (fds[i] >= 0)
			gsp_close(fds[i]);
}

/* As @uid, holds @n tenants, says so on @wfd, and waits to be killed. */
static void holder(uid_t uid, int n, int wfd)
{
	int i;

	if (become(uid))
		_exit(2);
	for (i = 0; i < n; i++)
		if (tenant_open() < 0)
			_exit(3);
	if (write(wfd, "r", 1) != 1)
		_exit(4);
	for (;;)
		pause();
}

/*
 * As @uid, opens tenants (and closes some) as fast as it can, until it
 * is killed: its death can come at any point of an open or a close.
 */
static void churner(uid_t uid)
{
	int fds[8] = { -1, -1, -1, -1, -1, -1, -1, -1 };
	unsigned int i = 0;

	if (become(uid))
		_exit(2);
	for (;; i++) {
		int *fd = &fds[i % 8];

		if (*fd >= 0)
			gsp_close(*fd);
		*fd = tenant_open();
		if (*fd == -EUSERS)
			*fd = -1;
	}
}

/*
 * The slots of a uid's killed processes come back: a holder's, and those
 * of 20 processes killed at random points of their opens and closes.
 */
TEST_F_TIMEOUT(limits, uid_cap_killed, 120)
{
	int p[2], round, r = -1;
	pid_t a, b;
	char c;

	if (geteuid() != 0)
		SKIP("needs root to become uid %d", LIM_UID);
	baseline(_metadata, self);
	set(_metadata, self, "uid_max_tenants", "3");
	ASSERT_OK(pipe(p));
	a = fork();
	ASSERT_LE(0, a);
	if (!a) {
		close(p[0]);
		holder(LIM_UID, 3, p[1]);
	}
	close(p[1]);
	ASSERT_EQ(1, read(p[0], &c, 1));
	close(p[0]);
	/* Full: the uid is refused, another uid is not. */
	b = fork();
	ASSERT_LE(0, b);
	if (!b)
		_exit(become(LIM_UID) ? 2 : tenant_open() == -EUSERS ? 0 : 3);
	EXPECT_EQ(0, reap(b));
	b = fork();
	ASSERT_LE(0, b);
	if (!b)
		_exit(become(LIM_UID2) ? 2 : tenant_open() >= 0 ? 0 : 3);
	EXPECT_EQ(0, reap(b));
	kill(a, SIGKILL);
	EXPECT_EQ(128 + SIGKILL, reap(a));

	srand((unsigned int)now_ns());
	for (round = 0; round < 20; round++) {
		b = fork();
		ASSERT_LE(0, b);
		if (!b)
			churner(LIM_UID);
		sleep_ms(1 + rand() % 30);
		kill(b, SIGKILL);
		EXPECT_EQ(128 + SIGKILL, reap(b));
	}
	/*
	 * Every slot is back: the full share opens, then the cap holds.
	 * gspaced drops the dead in its loop: up to 3 s, a process a try.
	 */
	for (round = 0; round < 300; round++) {
		b = fork();
		ASSERT_LE(0, b);
		if (!b)
			_exit(uid_cap_child(LIM_UID, 3, round == 299));
		r = reap(b);
		if (r != 3)
			break;
		sleep_ms(10);
	}
	EXPECT_EQ(0, r);
}

/*
 * Without root (or an admin's rights), the default limit holds the
 * caller itself: its tenants up to uid_max_tenants open, the next does
 * not.
 */
TEST(uid_cap_default_unprivileged)
{
	unsigned long long max;
	struct rlimit rl;
	int *fds, n = 0, r;
	char cur[32];

	gsp_close(t_open(_metadata));
	r = knob_read("uid_max_tenants", cur, sizeof(cur));
	if (r)
		TH_LOG("uid_max_tenants: %s", gsp_errname(-r));
	ASSERT_EQ(0, r);
	/* An admin of gspaced may write it (the same value): exempt. */
	if (gsp_on_daemon() ? knob_write("uid_max_tenants", cur) != -EPERM :
			      has_cap(CAP_SYS_ADMIN))
		SKIP("exempt from uid_max_tenants (uid %u)",
		     (unsigned int)geteuid());
	ASSERT_EQ(0, knob_u("uid_max_tenants", &max));
	ASSERT_LE(1, max);
	ASSERT_GE(4096, max);
	ASSERT_OK(getrlimit(RLIMIT_NOFILE, &rl));
	if (rl.rlim_max < max + 32)
		SKIP("needs %llu fds", max + 32);
	rl.rlim_cur = rl.rlim_max;
	ASSERT_OK(setrlimit(RLIMIT_NOFILE, &rl));
	fds = calloc(max + 1, sizeof(*fds));
	ASSERT_NE(NULL, fds);
	while ((unsigned long long)n <= max) {
		r = tenant_open();
		if (r < 0)
			break;
		fds[n++] = r;
	}
	TH_LOG("uid %u: %d tenants opened, the next: %s",
	       (unsigned int)geteuid(), n, r < 0 ? strerror(-r) : "opened");
	EXPECT_EQ(max, (unsigned long long)n);
	EXPECT_EQ(-EUSERS, r);
	while (n > 0)
		gsp_close(fds[--n]);
	free(fds);
}

/* Polls STATS until @n jobs of @fd have ended: 1, or 0 after 10 s. */
static int ended(struct __test_meta *_metadata, int fd, uint64_t n)
{
	struct gspace_stats st;
	int i;

	for (i = 0; i < 1000; i++) {
		t_stats(_metadata, fd, &st);
		if (st.completed + st.failed >= n)
			return 1;
		sleep_ms(10);
	}
	return 0;
}

static int submit_raw(int fd, uint64_t cost_ns, uint32_t flags, int in_fence,
		      uint64_t *handle, int *out_fence)
{
	struct gspace_submit s;
	int r;

	submit_init(&s, GSPACE_ENGINE_COMPUTE, cost_ns);
	s.flags = flags;
	if (flags & GSPACE_SUBMIT_FENCE_IN)
		s.in_fence_fd = in_fence;
	r = gsp_ioctl(fd, GSPACE_IOCTL_SUBMIT, &s);
	if (!r && handle)
		*handle = s.handle;
	if (!r && out_fence)
		*out_fence = s.out_fence_fd;
	else if (!r && s.out_fence_fd >= 0)
		close(s.out_fence_fd);
	return r;
}

/*
 * The default tenant_max_jobs, for every user: jobs that ended and were
 * not waited for count until reaped, so a tenant cannot grow the
 * arbiter's memory with them; the next SUBMIT fails with ENOSPC.
 */
TEST_TIMEOUT(jobs_default_cap_counts_ended, 120)
{
	unsigned long long max;
	uint64_t h = 0;
	int fd, i;

	fd = t_open(_metadata);
	ASSERT_EQ(0, knob_u("tenant_max_jobs", &max));
	if (max != 16384)
		SKIP("tenant_max_jobs is %llu, not its default", max);
	for (i = 0; i < (int)max; i++) {
		if (submit_raw(fd, 0, 0, -1, i ? NULL : &h, NULL)) {
			TH_LOG("job %d: %s", i + 1, gsp_errname(errno));
			ASSERT_TRUE(0);
		}
	}
	ASSERT_TRUE(ended(_metadata, fd, max));
	ASSERT_ERRNO(ENOSPC, submit_raw(fd, 0, 0, -1, NULL, NULL));
	/* A reap frees one. */
	ASSERT_EQ(0, t_wait_end(_metadata, fd, h, GSP_SLOW_NS, NULL));
	ASSERT_OK(submit_raw(fd, 0, 0, -1, NULL, NULL));
	ASSERT_ERRNO(ENOSPC, submit_raw(fd, 0, 0, -1, NULL, NULL));
	gsp_close(fd);
}

/*
 * tenant_max_jobs 16: the 17th job, with every one ended and none
 * reaped, fails with ENOSPC; another tenant is not held to it; a reap
 * frees one; nothing leaks.
 */
TEST_F(limits, jobs_cap)
{
	uint64_t h[16];
	int a, b, i;

	baseline(_metadata, self);
	set(_metadata, self, "tenant_max_jobs", "16");
	a = t_open(_metadata);
	b = t_open(_metadata);
	for (i = 0; i < 16; i++)
		ASSERT_OK(submit_raw(a, 0, 0, -1, &h[i], NULL));
	ASSERT_TRUE(ended(_metadata, a, 16));
	EXPECT_ERRNO(ENOSPC, submit_raw(a, 0, 0, -1, NULL, NULL));
	EXPECT_OK(submit_raw(b, 0, 0, -1, NULL, NULL));
	ASSERT_EQ(0, t_wait_end(_metadata, a, h[3], GSP_SLOW_NS, NULL));
	EXPECT_OK(submit_raw(a, 0, 0, -1, NULL, NULL));
	EXPECT_ERRNO(ENOSPC, submit_raw(a, 0, 0, -1, NULL, NULL));
	/* A lower limit takes nothing back, and refuses what comes next. */
	ASSERT_EQ(0, knob_write("tenant_max_jobs", "2"));
	EXPECT_ERRNO(ENOSPC, submit_raw(a, 0, 0, -1, NULL, NULL));
	gsp_close(a);
	gsp_close(b);
}

/*
 * tenant_max_fences 3: out-fences count until their job ends, in-fences
 * until they signal (one already signalled costs nothing); the 4th
 * fails with EMFILE, jobs without fences do not, another tenant is not
 * held to it; nothing leaks once the descriptors are closed.
 */
TEST_F(limits, fences_cap)
{
	int a, b, f[5] = { -1, -1, -1, -1, -1 }, done = -1, i;
	uint64_t h[3], hb;

	baseline(_metadata, self);
	set(_metadata, self, "tenant_max_fences", "3");
	a = t_open(_metadata);
	b = t_open(_metadata);
	/* b: a fence that has signalled already. */
	ASSERT_OK(submit_raw(b, 0, GSPACE_SUBMIT_FENCE_OUT, -1, &hb, &done));
	ASSERT_EQ(0, t_wait_end(_metadata, b, hb, GSP_SLOW_NS, NULL));
	ASSERT_TRUE(fence_readable(done, 5000));
	/* a: one running a long time, two queued behind it. */
	ASSERT_OK(submit_raw(a, 30 * NSEC_PER_SEC, GSPACE_SUBMIT_FENCE_OUT, -1,
			     &h[0], &f[0]));
	ASSERT_OK(submit_raw(a, 0, GSPACE_SUBMIT_FENCE_OUT, -1, &h[1], &f[1]));
	ASSERT_OK(submit_raw(a, 0, GSPACE_SUBMIT_FENCE_OUT, -1, &h[2], &f[2]));
	EXPECT_ERRNO(EMFILE, submit_raw(a, 0, GSPACE_SUBMIT_FENCE_OUT, -1,
					NULL, NULL));
	EXPECT_ERRNO(EMFILE, submit_raw(a, 0, GSPACE_SUBMIT_FENCE_IN, f[0],
					NULL, NULL));
	EXPECT_OK(submit_raw(a, 0, 0, -1, NULL, NULL));
	EXPECT_OK(submit_raw(a, 0, GSPACE_SUBMIT_FENCE_IN, done, NULL, NULL));
	EXPECT_OK(submit_raw(b, 0, GSPACE_SUBMIT_FENCE_OUT, -1, NULL, &f[4]));
	/* A cancel signals one: the tenant may take one again. */
	ASSERT_OK(cancel_raw(a, h[1]));
	EXPECT_OK(submit_raw(a, 0, GSPACE_SUBMIT_FENCE_IN, f[0], NULL, NULL));
	EXPECT_ERRNO(EMFILE, submit_raw(a, 0, GSPACE_SUBMIT_FENCE_OUT, -1,
					NULL, &f[3]));
	gsp_close(a);
	gsp_close(b);
	for (i = 0; i < 5; i++)
		if (f[i] >= 0)
			close(f[i]);
	close(done);
}

struct waiter {
	int fd;
	uint64_t handle, deadline;
	int ret, err;
};

/* Parks a WAIT until its deadline, trying again while refused. */
static void *waiter_run(void *arg)
{
	struct waiter *w = arg;

	do {
		w->ret = wait_raw(w->fd, w->handle, 0, w->deadline, NULL);
		w->err = errno;
		if (w->ret == -1 && w->err == EAGAIN)
			sleep_ms(5);
	} while (w->ret == -1 && w->err == EAGAIN && now_ns() < w->deadline);
	return NULL;
}

/*
 * tenant_max_waits 2: with two WAITs parked, a third fails with EAGAIN
 * at once (a WAIT answered at once does not count), another tenant's is
 * not refused, and once they are answered WAITs park again.
 */
TEST_F_TIMEOUT(limits, waits_cap, 60)
{
	struct waiter w[2];
	pthread_t th[2];
	uint64_t h, hb, end;
	int a, b, i, r = 0, e = 0;

	baseline(_metadata, self);
	set(_metadata, self, "tenant_max_waits", "2");
	a = t_open(_metadata);
	b = t_open(_metadata);
	ASSERT_OK(submit_raw(a, 30 * NSEC_PER_SEC, 0, -1, &h, NULL));
	ASSERT_OK(submit_raw(b, 0, 0, -1, &hb, NULL));	/* behind a's */
	for (i = 0; i < 2; i++) {
		w[i] = (struct waiter){ .fd = a, .handle = h,
					.deadline = now_ns() + 4 * NSEC_PER_SEC };
		ASSERT_EQ(0, pthread_create(&th[i], NULL, waiter_run, &w[i]));
	}
	/*
	 * ETIME until both are parked; then EAGAIN. A probe parked takes a
	 * waiter's place a while: the waiters try again, the probe waits.
	 */
	for (end = now_ns() + 3 * NSEC_PER_SEC; now_ns() < end;) {
		r = wait_raw(a, h, 0, now_ns() + 20 * NSEC_PER_MSEC, NULL);
		e = errno;
		if (r != -1 || e != ETIME)
			break;
		sleep_ms(50);
	}
	if (r != -1 || e != EAGAIN)
		TH_LOG("the third WAIT: %d, %s", r, gsp_errname(e));
	EXPECT_EQ(-1, r);
	EXPECT_EQ(EAGAIN, e);
	EXPECT_ERRNO(ETIME, wait_raw(b, hb, 0, now_ns() + 20 * NSEC_PER_MSEC,
				     NULL));
	for (i = 0; i < 2; i++) {
		pthread_join(th[i], NULL);
		EXPECT_EQ(-1, w[i].ret);
		EXPECT_EQ(ETIME, w[i].err);
	}
	EXPECT_ERRNO(ETIME, wait_raw(a, h, 0, now_ns() + 20 * NSEC_PER_MSEC,
				     NULL));
	gsp_close(a);
	gsp_close(b);
}

/*
 * The memory bound: debugfs "limits" (gspaced: CTL_GET limits) gives the
 * limits and the bytes they bound one tenant to, which add up.
 */
TEST_F(limits, memory_bound)
{
	unsigned long long v[8] = { 0 }, k;
	static const char *const keys[8] = {
		"tenant_max_jobs", "tenant_max_fences", "tenant_max_waits",
		"uid_max_tenants", "tenant_bytes", "job_bytes", "wait_bytes",
		"tenant_max_bytes",
	};
	char text[512], path[256], line[128];
	const char *d = getenv("GSPACE_DEBUGFS");
	FILE *f;
	int i, seen = 0;

	baseline(_metadata, self);
	if (gsp_on_daemon()) {
		ASSERT_EQ(0, knob_read("limits", text, sizeof(text)));
		f = fmemopen(text, strlen(text), "r");
	} else {
		snprintf(path, sizeof(path), "%s/limits",
			 d && *d ? d : GSP_DEBUGFS_DEFAULT);
		f = fopen(path, "r");
	}
	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f))
		for (i = 0; i < 8; i++) {
			size_t n = strlen(keys[i]);

			if (!strncmp(line, keys[i], n) && line[n] == ' ') {
				v[i] = strtoull(line + n + 1, NULL, 10);
				seen++;
			}
		}
	fclose(f);
	ASSERT_EQ(8, seen);
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, knob_u(keys[i], &k));
		EXPECT_EQ(k, v[i]);
	}
	EXPECT_EQ(v[4] + v[0] * v[5] + v[2] * v[6], v[7]);
	EXPECT_LT(0, v[5]);
	TH_LOG("one tenant: %llu bytes at most (%llu + %llu jobs x %llu + %llu waits x %llu)",
	       v[7], v[4], v[0], v[5], v[2], v[6]);
}

TEST_HARNESS_MAIN
