// SPDX-License-Identifier: GPL-2.0
/*
 * The sysfs knobs under /sys/class/misc/gspace: invalid writes fail with
 * EINVAL and change nothing, valid writes read back, only root writes, and
 * the operator's LC group grants GSPACE_CLASS_LC.
 */
#include <grp.h>
#include <stdint.h>
#include <sys/prctl.h>

#include "gsp_util.h"

static const char *const knobs[] = { "policy", "period_us", "watchdog_ms" };
#define NKNOBS (sizeof(knobs) / sizeof(knobs[0]))

FIXTURE(sysfs) {
	char saved[NKNOBS][64];
	char lc_group[32];
	int fd;
};

FIXTURE_SETUP(sysfs)
{
	self->fd = -1;
	self->fd = t_open(_metadata);
}

FIXTURE_TEARDOWN(sysfs)
{
	unsigned int i;

	for (i = 0; i < NKNOBS; i++)
		if (self->saved[i][0])
			EXPECT_EQ(0, knob_write(knobs[i], self->saved[i]));
	if (self->lc_group[0])
		EXPECT_EQ(0, knob_write("lc_group", self->lc_group));
	if (self->fd >= 0)
		gsp_close(self->fd);
}

static int knob_index(const char *knob)
{
	unsigned int i;

	for (i = 0; i < NKNOBS; i++)
		if (!strcmp(knobs[i], knob))
			return i;
	return 0;
}

static void save(struct __test_meta *_metadata, FIXTURE_DATA(sysfs) *self,
		 const char *knob)
{
	int i = knob_index(knob);

	t_knob_save(_metadata, knob, self->saved[i], sizeof(self->saved[i]));
}

static void read_sel(struct __test_meta *_metadata, const char *knob,
		     char *out, size_t len)
{
	char raw[256];

	ASSERT_EQ(0, knob_read(knob, raw, sizeof(raw)));
	knob_selected(raw, out, len);
}

/* Every bad value gives EINVAL and leaves the knob as it was. */
static void reject_all(struct __test_meta *_metadata, const char *knob,
		       const char *const *bad, int n)
{
	char before[64], after[64];
	int i;

	read_sel(_metadata, knob, before, sizeof(before));
	for (i = 0; i < n; i++) {
		int r = knob_write(knob, bad[i]);

		if (r != -EINVAL)
			gsp_diag("writing '%s' to %s gave %d", bad[i], knob, r);
		ASSERT_EQ(-EINVAL, r);
		read_sel(_metadata, knob, after, sizeof(after));
		ASSERT_EQ(0, strcmp(before, after));
	}
}

static void accept_all(struct __test_meta *_metadata, const char *knob,
		       const char *const *good, int n)
{
	char after[64];
	int i;

	for (i = 0; i < n; i++) {
		ASSERT_EQ(0, knob_write(knob, good[i]));
		read_sel(_metadata, knob, after, sizeof(after));
		if (strcmp(good[i], after))
			gsp_diag("%s: wrote '%s', read back '%s'", knob,
				 good[i], after);
		ASSERT_EQ(0, strcmp(good[i], after));
	}
}

TEST_F(sysfs, knobs_readable_by_all)
{
	char buf[256];
	unsigned int i;

	for (i = 0; i < NKNOBS; i++) {
		int r = knob_read(knobs[i], buf, sizeof(buf));

		if (r == -ENOENT)
			SKIP("no %s/%s", knob_dir(), knobs[i]);
		ASSERT_EQ(0, r);
		ASSERT_LT(0, strlen(buf));
	}
}

TEST_F(sysfs, policy_invalid_einval)
{
	static const char *const bad[] = { "nope", "fifo2", "cred", "\n",
					   "fifo credit", "0" };

	save(_metadata, self, "policy");
	reject_all(_metadata, "policy", bad, sizeof(bad) / sizeof(bad[0]));
}

TEST_F(sysfs, policy_valid_reads_back)
{
	static const char *const good[] = { "credit", "band", "fifo",
					    "credit" };

	save(_metadata, self, "policy");
	accept_all(_metadata, "policy", good, sizeof(good) / sizeof(good[0]));
	/* A trailing newline, as echo writes, is accepted. */
	ASSERT_EQ(0, knob_write("policy", "band\n"));
	{
		char cur[64];

		read_sel(_metadata, "policy", cur, sizeof(cur));
		ASSERT_EQ(0, strcmp("band", cur));
	}
}

TEST_F(sysfs, period_us_invalid_einval)
{
	static const char *const bad[] = { "0", "garbage", "-5", "12abc",
					   "99999999999999999999999", "1.5" };

	save(_metadata, self, "period_us");
	reject_all(_metadata, "period_us", bad, sizeof(bad) / sizeof(bad[0]));
}

TEST_F(sysfs, period_us_valid_reads_back)
{
	static const char *const good[] = { "50000", "1000", "250000" };

	save(_metadata, self, "period_us");
	accept_all(_metadata, "period_us", good, sizeof(good) / sizeof(good[0]));
}

TEST_F(sysfs, watchdog_ms_invalid_einval)
{
	static const char *const bad[] = { "0", "xyz", "-1", "1e3", "0x" };

	save(_metadata, self, "watchdog_ms");
	reject_all(_metadata, "watchdog_ms", bad, sizeof(bad) / sizeof(bad[0]));
}

TEST_F(sysfs, watchdog_ms_valid_reads_back)
{
	static const char *const good[] = { "1234", "200", "60000" };

	save(_metadata, self, "watchdog_ms");
	accept_all(_metadata, "watchdog_ms", good,
		   sizeof(good) / sizeof(good[0]));
}

TEST_F(sysfs, unprivileged_write_denied)
{
	char before[64], after[64];
	unsigned int i;

	if (gsp_on_daemon())
		SKIP("kernel only: gspaced's knob rights are admin_uids/admin_groups (tests/daemon)");
	if (geteuid() == 0)
		SKIP("runs as an unprivileged user only");
	for (i = 0; i < NKNOBS; i++) {
		int r;

		if (knob_read(knobs[i], before, sizeof(before)) == -ENOENT)
			SKIP("no %s/%s", knob_dir(), knobs[i]);
		r = knob_write(knobs[i], i ? "4321" : "credit");
		ASSERT_TRUE(r == -EACCES || r == -EPERM);
		ASSERT_EQ(0, knob_read(knobs[i], after, sizeof(after)));
		ASSERT_EQ(0, strcmp(before, after));
	}
}

TEST_F(sysfs, policy_change_with_live_jobs)
{
	static const char *const order[] = { "credit", "band", "fifo" };
	uint64_t h[6];
	int i;

	save(_metadata, self, "policy");
	for (i = 0; i < 6; i++)
		h[i] = t_submit(_metadata, self->fd, 30 * NSEC_PER_MSEC);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, knob_write("policy", order[i]));
		sleep_ms(10);
	}
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h[i], GSP_SLOW_NS,
					NULL));
}

/* lc_group: members of the named group may use GSPACE_CLASS_LC. */
TEST_F(sysfs, lc_group_grants_lc)
{
	const gid_t gid = 4242;
	char raw[64], buf[32];
	int pipefd[2], st;
	pid_t pid;

	REQUIRE_ROOT();
	if (knob_read("lc_group", raw, sizeof(raw)) == -ENOENT)
		SKIP("no %s/lc_group", knob_dir());
	knob_selected(raw, self->lc_group, sizeof(self->lc_group));
	ASSERT_OK(pipe(pipefd));
	snprintf(buf, sizeof(buf), "%u", (unsigned int)gid);
	ASSERT_EQ(0, knob_write("lc_group", buf));

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* Unprivileged, with and then without the LC group. */
		struct gspace_version v = { .size = sizeof(v) };
		char res[4] = { 'x', 'x', 'x', 'x' };
		gid_t groups[1] = { gid };
		int fd;

		if (setgroups(1, groups) || setgid(1000) || setuid(1000))
			_exit(2);
		fd = gsp_open();
		if (fd < 0)
			_exit(3);
		if (!gsp_ioctl(fd, GSPACE_IOCTL_VERSION, &v))
			res[0] = '0' + v.lc_allowed;
		res[1] = ctx_set_raw(fd, 0, GSPACE_CLASS_LC, 100, 0) ? 'E' : 'K';
		if (write(pipefd[1], res, 2) != 2)
			_exit(4);
		gsp_close(fd);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(0, WEXITSTATUS(st));
	ASSERT_EQ(2, read(pipefd[0], buf, 2));
	ASSERT_EQ('1', buf[0]);		/* lc_allowed */
	ASSERT_EQ('K', buf[1]);		/* CTX_SET LC succeeded */

	/* With no group named, the same user gets EPERM. */
	ASSERT_EQ(0, knob_write("lc_group", "-1"));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		gid_t groups[1] = { gid };
		int fd;

		if (setgroups(1, groups) || setgid(1000) || setuid(1000))
			_exit(2);
		fd = gsp_open();
		if (fd < 0)
			_exit(3);
		if (ctx_set_raw(fd, 0, GSPACE_CLASS_LC, 100, 0) == 0)
			_exit(5);
		_exit(errno == EPERM ? 0 : 6);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	ASSERT_TRUE(WIFEXITED(st));
	ASSERT_EQ(0, WEXITSTATUS(st));
	close(pipefd[0]);
	close(pipefd[1]);
}

TEST_HARNESS_MAIN
