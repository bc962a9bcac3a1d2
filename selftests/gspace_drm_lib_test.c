// SPDX-License-Identifier: GPL-2.0
/*
 * libgsp's drm engine path (gsp_drm_*, libgsp 1.2; Documentation/drm.rst
 * and libgsp.rst) against gsp-testdrm, the TEST DEVICE (kmod/testdrm/:
 * a DRM driver whose "engine" is an hrtimer; no hardware runs anything):
 * the adapter picked from the driver's name, forwarding in scheduler
 * order, the out-fences through libdrm's syncobjs, and clean errors for
 * fds that are not DRM nodes, the wrong driver and bad sizes, all through
 * the library. Linked static with libgsp's objects and libdrm.a.
 *
 * Against gspaced (GSPACE_TRANSPORT=daemon, make check-daemon) it checks
 * that every call refuses with -EOPNOTSUPP: the daemon cannot forward
 * into a kernel driver. Skips, saying why, where gspace.ko has no drm
 * engine or no gsp-testdrm node exists (the debug kernel has no DRM).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include <xf86drm.h>

#include <gsp.h>

#include "harness.h"
#include "../kmod/gsp_testdrm.h"

#define MS		1000000ULL
#define SEC		1000000000ULL
#define NODES		3
#define POLICY_KNOB	"/sys/class/misc/gspace/policy"

FIXTURE(lib) {
	struct gsp *g[NODES];	/* tenants */
	int drm[NODES];		/* their gsp-testdrm render node files */
	char policy[32];	/* the policy to restore, if root changed it */
};

static int on_daemon(void)
{
	const char *t = getenv("GSPACE_TRANSPORT");

	return t && !strcmp(t, "daemon");
}

/* A tenant on the arbiter the selftests' transport names. */
static int lib_open(struct gsp **g)
{
	struct gsp_open_opts o = {
		.size = sizeof(o),
		.arbiter = on_daemon() ? GSP_ARBITER_DAEMON : GSP_ARBITER_KERNEL,
	};

	return gsp_open(g, &o);
}

/* The first render node whose driver is gsp-testdrm, or -1. */
static int open_testdrm(void)
{
	char path[64];
	uint32_t a;
	int i, fd;

	for (i = 128; i < 192; i++) {
		snprintf(path, sizeof(path), "/dev/dri/renderD%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!gsp_drm_adapter_of(fd, &a) &&
		    a == GSPACE_DRM_ADAPTER_TESTDRM)
			return fd;
		close(fd);
	}
	return -1;
}

static void info(struct __test_meta *_metadata, int drm,
		 struct drm_gsp_testdrm_info *i, uint32_t flags)
{
	memset(i, 0, sizeof(*i));
	i->size = sizeof(*i);
	i->flags = flags;
	ASSERT_OK(ioctl(drm, DRM_IOCTL_GSP_TESTDRM_INFO, i));
}

/* Until the driver is idle and took nothing for 100 ms (a test before). */
static void quiesce(struct __test_meta *_metadata, int drm)
{
	struct drm_gsp_testdrm_info a, b;
	int n;

	for (n = 0; n < 100; n++) {
		info(_metadata, drm, &a, 0);
		usleep(100000);
		info(_metadata, drm, &b, 0);
		if (!b.inflight && a.submitted == b.submitted)
			return;
	}
	ASSERT_TRUE(0);
}

static void payload(struct drm_gsp_testdrm_submit *p, uint32_t ctx,
		    uint32_t syncobj, uint64_t us, uint64_t tag)
{
	memset(p, 0, sizeof(*p));
	p->size = sizeof(*p);
	p->context = ctx;
	p->out_syncobj = syncobj;
	p->duration_us = us;
	p->tag = tag;
}

/* DRM_SUBMIT of @p through the library: 0 or -errno; the handle. */
static int lib_submit(struct gsp *g, const struct drm_gsp_testdrm_submit *p,
		      uint32_t size, uint32_t flags,
		      struct gspace_drm_submit *s)
{
	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	s->flags = flags;
	s->payload_ptr = (uintptr_t)p;
	s->payload_size = size;
	s->cost_ns = p->duration_us * 1000;
	return gsp_drm_submit(g, s);
}

static int lib_wait(struct gsp *g, uint64_t handle, struct gspace_wait *w)
{
	memset(w, 0, sizeof(*w));
	w->size = sizeof(*w);
	w->handle = handle;
	w->deadline_ns = gsp_now_ns() + 30 * SEC;
	return gsp_wait(g, w);
}

static int read_policy(char *buf, size_t len)
{
	int fd = open(POLICY_KNOB, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

static int write_policy(const char *v)
{
	int fd = open(POLICY_KNOB, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, v, strlen(v));
	close(fd);
	return n < 0 ? -errno : 0;
}

FIXTURE_SETUP(lib)
{
	struct gspace_version v = { .size = sizeof(v) };
	int i, ret;

	for (i = 0; i < NODES; i++)
		self->drm[i] = -1;
	ret = lib_open(&self->g[0]);
	if (ret == -ENOENT)
		SKIP("no gspace arbiter for libgsp (%s)", strerror(-ret));
	ASSERT_EQ(0, ret);
	if (on_daemon())
		return;
	ASSERT_EQ(0, gsp_version(self->g[0], &v));
	if (!(v.features & GSPACE_FEAT_DRM))
		SKIP("no drm engine (GSPACE_FEAT_DRM): gspace_drm.ko is not loaded, and the test VM has it only on kernels with DRM (the debug kernel has none)");
	self->drm[0] = open_testdrm();
	if (self->drm[0] < 0)
		SKIP("no gsp-testdrm render node in /dev/dri: the TEST DEVICE gsp_testdrm.ko is not loaded");
	for (i = 1; i < NODES; i++) {
		ASSERT_EQ(0, lib_open(&self->g[i]));
		self->drm[i] = open_testdrm();
		ASSERT_LE(0, self->drm[i]);
	}
	quiesce(_metadata, self->drm[0]);
}

FIXTURE_TEARDOWN(lib)
{
	int i;

	for (i = 0; i < NODES; i++) {
		gsp_close(self->g[i]);
		if (self->drm[i] >= 0)
			close(self->drm[i]);
	}
	if (self->policy[0])
		EXPECT_EQ(0, write_policy(self->policy));
}

/* gspaced: each call refuses once its arguments pass, and sends nothing. */
TEST_F(lib, daemon_refuses)
{
	struct drm_gsp_testdrm_submit p;
	struct gspace_drm_submit s;
	uint32_t h;
	int fd = -1;

	if (!on_daemon())
		SKIP("gspace.ko: the daemon's refusal is checked under check-daemon");
	payload(&p, 0, 1, 1000, 1);
	ASSERT_EQ(-EOPNOTSUPP, gsp_drm_bind(self->g[0], 0,
					    GSPACE_DRM_ADAPTER_TESTDRM, 0));
	ASSERT_EQ(-EOPNOTSUPP, gsp_drm_unbind(self->g[0]));
	ASSERT_EQ(-EOPNOTSUPP, lib_submit(self->g[0], &p, sizeof(p), 0, &s));
	ASSERT_EQ(-EOPNOTSUPP, gsp_drm_syncobj_create(self->g[0], &h));
	ASSERT_EQ(-EOPNOTSUPP, gsp_drm_syncobj_wait(self->g[0], 1, 0));
	ASSERT_EQ(-EOPNOTSUPP, gsp_drm_syncobj_export(self->g[0], 1, &fd));
	ASSERT_EQ(-1, fd);
}

/*
 * The adapter comes from the driver's name; a fd that is no DRM node,
 * the wrong driver's adapter, a bad channel and no binding each give
 * their errno, and a failed bind leaves the tenant unbound.
 */
TEST_F(lib, bind_errors)
{
	struct drm_gsp_testdrm_submit p;
	struct gspace_drm_submit s;
	uint32_t a = 0, h;
	int null, pfd[2];

	if (on_daemon())
		SKIP("gspaced has no drm engine (daemon_refuses)");
	ASSERT_EQ(0, gsp_drm_adapter_of(self->drm[0], &a));
	ASSERT_EQ(GSPACE_DRM_ADAPTER_TESTDRM, a);

	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, null);
	ASSERT_EQ(-ENOTTY, gsp_drm_bind(self->g[0], null,
					GSP_DRM_ADAPTER_AUTO, 0));
	/* Named adapter: the kernel's check, the same answer. */
	ASSERT_EQ(-ENOTTY, gsp_drm_bind(self->g[0], null,
					GSPACE_DRM_ADAPTER_TESTDRM, 0));
	close(null);
	ASSERT_EQ(0, pipe2(pfd, O_CLOEXEC));
	ASSERT_EQ(-ENOTTY, gsp_drm_bind(self->g[0], pfd[0],
					GSP_DRM_ADAPTER_AUTO, 0));
	ASSERT_EQ(-ENOTTY, gsp_drm_bind(self->g[0], pfd[0],
					GSPACE_DRM_ADAPTER_TESTDRM, 0));
	close(pfd[0]);
	close(pfd[1]);
	ASSERT_EQ(-EBADF, gsp_drm_bind(self->g[0], -1, GSP_DRM_ADAPTER_AUTO,
				       0));
	/* gsp-testdrm's node for the nouveau adapter: the wrong driver. */
	ASSERT_EQ(-ENXIO, gsp_drm_bind(self->g[0], self->drm[0],
				       GSPACE_DRM_ADAPTER_NOUVEAU, 0));
	ASSERT_EQ(-EINVAL, gsp_drm_bind(self->g[0], self->drm[0], 9, 0));
	ASSERT_EQ(-EINVAL, gsp_drm_bind(self->g[0], self->drm[0],
					GSP_DRM_ADAPTER_AUTO,
					GSP_TESTDRM_CONTEXTS));
	/* None of those bound. */
	payload(&p, 0, 1, 1000, 1);
	ASSERT_EQ(-ENOLINK, lib_submit(self->g[0], &p, sizeof(p), 0, &s));
	ASSERT_EQ(-ENOLINK, gsp_drm_syncobj_create(self->g[0], &h));

	ASSERT_EQ(0, gsp_drm_bind(self->g[0], self->drm[0],
				  GSP_DRM_ADAPTER_AUTO, 2));
	ASSERT_EQ(0, gsp_drm_unbind(self->g[0]));
	ASSERT_EQ(-ENOLINK, lib_submit(self->g[0], &p, sizeof(p), 0, &s));
	ASSERT_EQ(-ENOLINK, gsp_drm_syncobj_create(self->g[0], &h));
}

/*
 * Bad sizes and layouts: the library's checks (0, past the maximum), the
 * adapter's (the driver's structure size, its own size field, another
 * channel, a syncobj that does not exist); nothing reaches the driver.
 */
TEST_F(lib, bad_payloads)
{
	uint8_t big[GSPACE_DRM_PAYLOAD_MAX + 8] = { 0 };
	struct drm_gsp_testdrm_info i0, i1;
	struct drm_gsp_testdrm_submit p;
	struct gspace_drm_submit s;
	struct gspace_stats st = { .size = sizeof(st) };
	uint32_t so;

	if (on_daemon())
		SKIP("gspaced has no drm engine (daemon_refuses)");
	ASSERT_EQ(0, gsp_drm_bind(self->g[0], self->drm[0],
				  GSP_DRM_ADAPTER_AUTO, 4));
	ASSERT_EQ(0, gsp_drm_syncobj_create(self->g[0], &so));
	info(_metadata, self->drm[0], &i0, 0);

	payload(&p, 4, so, 1000, 1);
	ASSERT_EQ(-EINVAL, lib_submit(self->g[0], &p, 0, 0, &s));
	memcpy(big, &p, sizeof(p));
	ASSERT_EQ(-E2BIG, lib_submit(self->g[0], (void *)big,
				     GSPACE_DRM_PAYLOAD_MAX + 1, 0, &s));
	ASSERT_EQ(-EINVAL, lib_submit(self->g[0], &p, sizeof(p) - 8, 0, &s));
	ASSERT_EQ(-EINVAL, lib_submit(self->g[0], (void *)big, sizeof(p) + 8,
				      0, &s));
	p.size = sizeof(p) - 8;
	ASSERT_EQ(-EINVAL, lib_submit(self->g[0], &p, sizeof(p), 0, &s));
	payload(&p, 5, so, 1000, 1);
	ASSERT_EQ(-EINVAL, lib_submit(self->g[0], &p, sizeof(p), 0, &s));
	payload(&p, 4, so + 1000, 1000, 1);
	ASSERT_EQ(-ENOENT, lib_submit(self->g[0], &p, sizeof(p), 0, &s));
	payload(&p, 4, so, 1000, 1);
	p.flags = 0x80;
	ASSERT_EQ(-EINVAL, lib_submit(self->g[0], &p, sizeof(p), 0, &s));

	ASSERT_EQ(0, gsp_stats(self->g[0], &st));
	ASSERT_EQ(0, st.queued + st.running + st.completed + st.failed);
	info(_metadata, self->drm[0], &i1, 0);
	ASSERT_EQ(i0.submitted, i1.submitted);
	/* And a good one still goes. */
	payload(&p, 4, so, 1000, 2);
	ASSERT_EQ(0, lib_submit(self->g[0], &p, sizeof(p), 0, &s));
	ASSERT_EQ(0, gsp_drm_syncobj_wait(self->g[0], so,
					  gsp_now_ns() + 10 * SEC));
}

/* FIFO, as it is or set by root; 0 if the test may not have it. */
static int need_fifo(struct __test_meta *_metadata, FIXTURE_DATA(lib) *self)
{
	char raw[128], *b, *e;

	ASSERT_EQ(0, read_policy(raw, sizeof(raw)));
	b = strchr(raw, '[');
	b = b ? b + 1 : raw;
	e = b + strcspn(b, "] \n");
	*e = 0;
	if (!strcmp(b, "fifo"))
		return 1;
	if (geteuid())
		return 0;
	if (strlen(b) >= sizeof(self->policy))
		return 0;
	memcpy(self->policy, b, strlen(b) + 1);
	ASSERT_EQ(0, write_policy("fifo"));
	return 1;
}

/*
 * Three tenants' jobs queued behind a long one reach the driver one at a
 * time in submission order (FIFO). Each job's out syncobj, reset before
 * the submission, has no fence while the job waits in gspace, and
 * signals through gsp_drm_syncobj_wait() once the driver ran it; its
 * sync_file export is signalled, as is gspace's own out-fence.
 */
TEST_F_TIMEOUT(lib, order_and_syncobj_fences, 90)
{
	struct drm_gsp_testdrm_info i0, i1;
	struct drm_gsp_testdrm_submit p;
	struct gspace_drm_submit s;
	struct gspace_wait w;
	uint64_t h[10], tags[10];
	uint32_t so[10];
	int t, j, n = 0, out, sf;
	struct pollfd pfd;

	if (on_daemon())
		SKIP("gspaced has no drm engine (daemon_refuses)");
	if (!need_fifo(_metadata, self))
		SKIP("the policy is not fifo and only root may set it");
	for (t = 0; t < NODES; t++)
		ASSERT_EQ(0, gsp_drm_bind(self->g[t], self->drm[t],
					  GSP_DRM_ADAPTER_AUTO, 8 + t));
	/* The library keeps its own fd: the caller's may go. */
	close(self->drm[2]);
	self->drm[2] = -1;
	info(_metadata, self->drm[0], &i0, GSP_TESTDRM_INFO_RESET);

	ASSERT_EQ(0, gsp_drm_syncobj_create(self->g[0], &so[0]));
	payload(&p, 8, so[0], 300000, 0xc000);
	tags[n] = p.tag;
	ASSERT_EQ(0, lib_submit(self->g[0], &p, sizeof(p),
				GSPACE_SUBMIT_FENCE_OUT, &s));
	h[n++] = s.handle;
	out = s.out_fence_fd;
	ASSERT_LE(0, out);
	for (j = 0; j < 3; j++)
		for (t = 0; t < NODES; t++) {
			ASSERT_EQ(0, gsp_drm_syncobj_create(self->g[t], &so[n]));
			ASSERT_EQ(0, gsp_drm_syncobj_reset(self->g[t], so[n]));
			payload(&p, 8 + t, so[n], 5000, 0xc100 + n);
			tags[n] = p.tag;
			ASSERT_EQ(0, lib_submit(self->g[t], &p, sizeof(p), 0,
						&s));
			h[n++] = s.handle;
		}
	ASSERT_EQ(10, n);
	/* Queued behind the 300 ms job: no fence in its syncobj yet. */
	ASSERT_EQ(-ETIME, gsp_drm_syncobj_wait(self->g[1], so[2],
					       gsp_now_ns() + 20 * MS));
	ASSERT_EQ(-EINVAL, gsp_drm_syncobj_export(self->g[1], so[2], &sf));

	for (j = 1; j < n; j++) {
		t = (j - 1) % NODES;
		ASSERT_EQ(0, gsp_drm_syncobj_wait(self->g[t], so[j],
						  gsp_now_ns() + 30 * SEC));
		ASSERT_EQ(0, lib_wait(self->g[t], h[j], &w));
		ASSERT_EQ(0, w.status);
		ASSERT_LE(5 * MS, w.gpu_ns);
		ASSERT_EQ(0, gsp_drm_syncobj_export(self->g[t], so[j], &sf));
		pfd.fd = sf;
		pfd.events = POLLIN;
		ASSERT_EQ(1, poll(&pfd, 1, 0));
		close(sf);
		ASSERT_EQ(0, gsp_drm_syncobj_destroy(self->g[t], so[j]));
	}
	ASSERT_EQ(0, lib_wait(self->g[0], h[0], &w));
	ASSERT_EQ(0, w.status);
	ASSERT_LE(300 * MS, w.gpu_ns);
	pfd.fd = out;
	pfd.events = POLLIN;
	ASSERT_EQ(1, poll(&pfd, 1, 0));
	close(out);

	info(_metadata, self->drm[0], &i1, 0);
	ASSERT_EQ(i0.submitted + n, i1.submitted);
	ASSERT_EQ(1, i1.max_inflight);
	for (j = 0; j < n; j++) {
		uint64_t got = i1.log[(i0.submitted + j) % GSP_TESTDRM_LOG];

		if (got != tags[j])
			gsp_diag("driver's job %d: tag 0x%llx, expected 0x%llx",
				 j, (unsigned long long)got,
				 (unsigned long long)tags[j]);
		ASSERT_EQ(tags[j], got);
	}
}

/* The driver's error reaches WAIT; the syncobj still signals. */
TEST_F(lib, driver_error)
{
	struct drm_gsp_testdrm_submit p;
	struct gspace_drm_submit s;
	struct gspace_wait w;
	uint32_t so;

	if (on_daemon())
		SKIP("gspaced has no drm engine (daemon_refuses)");
	ASSERT_EQ(0, gsp_drm_bind(self->g[0], self->drm[0],
				  GSP_DRM_ADAPTER_AUTO, 11));
	ASSERT_EQ(0, gsp_drm_syncobj_create(self->g[0], &so));
	payload(&p, 11, so, 2000, 3);
	p.flags = GSP_TESTDRM_SUBMIT_FAIL;
	ASSERT_EQ(0, lib_submit(self->g[0], &p, sizeof(p), 0, &s));
	ASSERT_EQ(0, gsp_drm_syncobj_wait(self->g[0], so,
					  gsp_now_ns() + 10 * SEC));
	ASSERT_EQ(0, lib_wait(self->g[0], s.handle, &w));
	ASSERT_EQ(-EIO, w.status);
}

TEST_HARNESS_MAIN
