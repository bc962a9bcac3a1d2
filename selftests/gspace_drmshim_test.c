// SPDX-License-Identifier: GPL-2.0
/*
 * The LD_PRELOAD shim libgsp_drmshim.so (libgsp/drmshim/; Documentation/
 * drm.rst, "The LD_PRELOAD shim") on gsp-testdrm, the TEST DEVICE:
 * drmshim_client, a dynamically linked program that calls the driver's
 * submit ioctl itself, runs while this test's own gspace tenant holds the
 * driver with a long job. Without the shim its jobs reach the driver at
 * once, beside that job (the control); under it they wait in gspace and
 * reach the driver one at a time, after it. With no arbiter the shim
 * fails closed, and runs the jobs on the driver only with
 * GSP_DRM_FALLBACK=1.
 *
 * The shim and the client are packed by tools/vm/mkinitramfs.sh -d, with
 * the dynamic loader and their libraries; GSP_DRMSHIM and
 * GSP_DRMSHIM_CLIENT name them elsewhere. Skips where there is no drm
 * engine or no gsp-testdrm node, and on gspaced.
 */
#include <sys/wait.h>

#include "gsp_drm.h"

#define SHIM_DEFAULT	"/lib/gspace-vm/libgsp_drmshim.so"
#define CLIENT_DEFAULT	"/bin/drmshim_client"

static const char *path_env(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

struct client_run {
	int status;		/* exit status, or -1 if it did not exit */
	char out[512];
	char err[1024];
};

/* Reads @fd to its end into @buf, one line for TAP ("\n" to ";"). */
static void drain(int fd, char *buf, size_t len)
{
	size_t n = 0, i;
	ssize_t r;

	while (n + 1 < len && (r = read(fd, buf + n, len - 1 - n)) > 0)
		n += (size_t)r;
	while (n && buf[n - 1] == '\n')
		n--;
	buf[n] = 0;
	for (i = 0; i < n; i++)
		if (buf[i] == '\n')
			buf[i] = ';';
}

/*
 * Runs the client with @argv's numbers and the environment additions
 * @env (NULL-terminated "NAME=value"), its output in @run.
 */
static void run_client(struct __test_meta *_metadata, const char *const *env,
		       const char *count, const char *us, const char *ctx,
		       const char *tag, struct client_run *run)
{
	const char *client = path_env("GSP_DRMSHIM_CLIENT", CLIENT_DEFAULT);
	int out[2], err[2], status;
	pid_t pid;

	ASSERT_OK(pipe(out));
	ASSERT_OK(pipe(err));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		int i;

		dup2(out[1], 1);
		dup2(err[1], 2);
		close(out[0]);
		close(err[0]);
		for (i = 0; env && env[i]; i++)
			putenv((char *)env[i]);
		execl(client, client, count, us, ctx, tag, (char *)NULL);
		fprintf(stderr, "exec %s: %s\n", client, strerror(errno));
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	drain(out[0], run->out, sizeof(run->out));
	drain(err[0], run->err, sizeof(run->err));
	close(out[0]);
	close(err[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	run->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	if (run->status)
		gsp_diag("client exit %d; stdout: %s; stderr: %s", run->status,
			 run->out, run->err);
}

/*
 * The shim's GSP_DRM_STATS line for the last run into @path, checked
 * against the counts expected, and the file removed.
 */
static void stats_expect(struct __test_meta *_metadata, const char *path,
			 unsigned long taken, unsigned long failed,
			 unsigned long fallback)
{
	unsigned long t, f, b;
	char line[256];
	FILE *fp = fopen(path, "r");
	int n;

	ASSERT_NE(NULL, fp);
	n = fgets(line, sizeof(line), fp) ? sscanf(line,
		"gsp-drmshim pid=%*d taken=%lu failed=%lu fallback=%lu",
		&t, &f, &b) : 0;
	fclose(fp);
	unlink(path);
	if (n != 3 || t != taken || f != failed || b != fallback)
		gsp_diag("GSP_DRM_STATS: '%s', expected taken=%lu failed=%lu fallback=%lu",
			 n > 0 ? line : "", taken, failed, fallback);
	ASSERT_EQ(3, n);
	ASSERT_EQ(taken, t);
	ASSERT_EQ(failed, f);
	ASSERT_EQ(fallback, b);
}

/* The shim and the client are here, and the arbiter is gspace.ko. */
static void need_files(struct __test_meta *_metadata)
{
	const char *shim = path_env("GSP_DRMSHIM", SHIM_DEFAULT);
	const char *client = path_env("GSP_DRMSHIM_CLIENT", CLIENT_DEFAULT);

	if (access(shim, R_OK) || access(client, X_OK))
		gsp_diag("%s or %s is missing: mkinitramfs.sh -d packs them (mk/vm.mk)",
			 shim, client);
	ASSERT_OK(access(shim, R_OK));
	ASSERT_OK(access(client, X_OK));
}

/*
 * Tenant 0 binds context 12 and starts a @ms job in the driver, granted
 * and forwarded when this returns; its handle.
 */
static uint64_t hold_driver(struct __test_meta *_metadata,
			    FIXTURE_DATA(drm) *self, uint64_t ms,
			    uint64_t tag)
{
	struct drm_gsp_testdrm_info i;
	uint64_t h, end = now_ns() + GSP_SLOW_NS;

	ASSERT_OK(bind_raw(self->fd[0], self->drm[0],
			   GSPACE_DRM_ADAPTER_TESTDRM, 12));
	h = t_dsubmit(_metadata, self->fd[0], 12,
		      syncobj_new(_metadata, self->drm[0]), ms * 1000, tag);
	t_wait_granted(_metadata, self->fd[0], h, GSP_SLOW_NS);
	/* The forward follows the grant on a worker. */
	do {
		testdrm_info(_metadata, self->drm[0], &i, 0);
		if (i.inflight)
			return h;
		sleep_ms(5);
	} while (now_ns() < end);
	ASSERT_TRUE(0);
	return h;
}

/*
 * The control: run directly, the client's jobs reach the driver while
 * gspace's job is still in it.
 */
TEST_F_TIMEOUT(drm, client_direct_reaches_driver_at_once, 60)
{
	struct drm_gsp_testdrm_info i0, i1;
	struct client_run run;
	uint64_t h;

	need_files(_metadata);
	need_fifo(_metadata, self);
	testdrm_info(_metadata, self->drm[0], &i0, GSP_TESTDRM_INFO_RESET);
	h = hold_driver(_metadata, self, 1500, 0xd000);
	run_client(_metadata, NULL, "2", "5000", "13", "0xd100", &run);
	ASSERT_EQ(0, run.status);
	testdrm_info(_metadata, self->drm[0], &i1, 0);
	ASSERT_LE(2, i1.max_inflight);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd[0], h, 10 * NSEC_PER_SEC,
				NULL));
	ASSERT_EQ(i0.submitted + 3, i1.submitted);
}

/*
 * Under the shim: the client's three jobs wait in gspace behind the
 * held one and reach the driver one at a time after it, in order; the
 * client's other DRM calls (the version, syncobjs) pass through.
 */
TEST_F_TIMEOUT(drm, client_under_shim_goes_through_gspace, 60)
{
	const char *shim = path_env("GSP_DRMSHIM", SHIM_DEFAULT);
	char preload[256], stats[64], stats_env[80];
	const char *const envs[] = { preload, stats_env, NULL };
	struct drm_gsp_testdrm_info i0, i1;
	struct client_run run;
	uint64_t h;
	int j;

	need_files(_metadata);
	need_fifo(_metadata, self);
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", shim);
	snprintf(stats, sizeof(stats), "/tmp/gsp-drmshim-stats.%d", getpid());
	snprintf(stats_env, sizeof(stats_env), "GSP_DRM_STATS=%s", stats);
	unlink(stats);
	testdrm_info(_metadata, self->drm[0], &i0, GSP_TESTDRM_INFO_RESET);
	h = hold_driver(_metadata, self, 1500, 0xe000);
	run_client(_metadata, envs, "3", "5000", "13", "0xe100", &run);
	ASSERT_EQ(0, run.status);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd[0], h, 10 * NSEC_PER_SEC,
				NULL));
	testdrm_info(_metadata, self->drm[0], &i1, 0);
	ASSERT_EQ(i0.submitted + 4, i1.submitted);
	ASSERT_EQ(1, i1.max_inflight);
	ASSERT_EQ(0xe000, i1.log[i0.submitted % GSP_TESTDRM_LOG]);
	for (j = 0; j < 3; j++)
		ASSERT_EQ(0xe100 + j,
			  i1.log[(i0.submitted + 1 + j) % GSP_TESTDRM_LOG]);
	ASSERT_EQ(NULL, strstr(run.err, "gsp-drmshim"));
	stats_expect(_metadata, stats, 3, 0, 0);
}

/*
 * No arbiter: the submission fails with the open's errno and nothing
 * reaches the driver; with GSP_DRM_FALLBACK=1 it runs there, said once.
 */
TEST_F_TIMEOUT(drm, shim_fails_closed, 60)
{
	const char *shim = path_env("GSP_DRMSHIM", SHIM_DEFAULT);
	char preload[256], stats[64], stats_env[80];
	const char *const closed[] = { preload, stats_env, "GSP_ARBITER=kernel",
				       "GSPACE_DEV=/nonexistent/gspace", NULL };
	const char *const fallback[] = { preload, stats_env,
					 "GSP_ARBITER=kernel",
					 "GSPACE_DEV=/nonexistent/gspace",
					 "GSP_DRM_FALLBACK=1", NULL };
	struct drm_gsp_testdrm_info i0, i1;
	struct client_run run;
	char want[64];

	need_files(_metadata);
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", shim);
	snprintf(stats, sizeof(stats), "/tmp/gsp-drmshim-stats.%d", getpid());
	snprintf(stats_env, sizeof(stats_env), "GSP_DRM_STATS=%s", stats);
	unlink(stats);
	testdrm_info(_metadata, self->drm[0], &i0, 0);
	run_client(_metadata, closed, "2", "1000", "14", "0xf100", &run);
	ASSERT_EQ(4, run.status);
	snprintf(want, sizeof(want), "submit_errno %d", ENOENT);
	ASSERT_NE(NULL, strstr(run.out, want));
	ASSERT_NE(NULL, strstr(run.err, "GSP_DRM_FALLBACK=1"));
	testdrm_info(_metadata, self->drm[0], &i1, 0);
	ASSERT_EQ(i0.submitted, i1.submitted);
	stats_expect(_metadata, stats, 0, 1, 0);

	run_client(_metadata, fallback, "2", "1000", "14", "0xf200", &run);
	ASSERT_EQ(0, run.status);
	ASSERT_NE(NULL, strstr(run.err, "unscheduled"));
	testdrm_info(_metadata, self->drm[0], &i1, 0);
	ASSERT_EQ(i0.submitted + 2, i1.submitted);
	stats_expect(_metadata, stats, 0, 0, 2);
}

TEST_HARNESS_MAIN
