// SPDX-License-Identifier: GPL-2.0
/*
 * libgsp's drm engine path (gsp_drm.c) on this host, where no DRM driver
 * gspace has an adapter for runs: the argument checks of every gsp_drm_*
 * call, gsp_drm_adapter_of() on fds that are not DRM nodes, and, with
 * $GSP_SOCKET naming a running gspaced (tests/libgsp/run.sh), that a
 * daemon tenant gets -EOPNOTSUPP once its arguments pass. The path
 * through gspace.ko is selftests/gspace_drm_lib_test.c, in the VM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsp.h>
#include "tap.h"

static void test_null(void)
{
	struct gspace_drm_submit s = { .size = sizeof(s) };
	uint32_t h = 0;
	int fd = 0;

	tap_ok(gsp_drm_bind(NULL, 0, 0, 0) == -EINVAL &&
	       gsp_drm_unbind(NULL) == -EINVAL &&
	       gsp_drm_submit(NULL, &s) == -EINVAL &&
	       gsp_drm_syncobj_create(NULL, &h) == -EINVAL &&
	       gsp_drm_syncobj_destroy(NULL, 1) == -EINVAL &&
	       gsp_drm_syncobj_reset(NULL, 1) == -EINVAL &&
	       gsp_drm_syncobj_wait(NULL, 1, 0) == -EINVAL &&
	       gsp_drm_syncobj_export(NULL, 1, &fd) == -EINVAL,
	       "gsp_drm_* on a NULL struct gsp: -EINVAL");
}

static void test_adapter_of(void)
{
	uint32_t a = 77;
	int p[2], fd, ret;

	ret = gsp_drm_adapter_of(-1, &a);
	tap_ok(ret == -EBADF && a == 77, "adapter_of(-1): -EBADF (got %d)",
	       ret);
	ret = gsp_drm_adapter_of(0, NULL);
	tap_ok(ret == -EFAULT, "adapter_of(fd, NULL): -EFAULT (got %d)", ret);
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	ret = gsp_drm_adapter_of(fd, &a);
	tap_ok(ret == -ENOTTY && a == 77,
	       "adapter_of(/dev/null), a character device but no DRM node: -ENOTTY (got %d)",
	       ret);
	close(fd);
	ret = gsp_drm_adapter_of(fd, &a);
	tap_ok(ret == -EBADF, "adapter_of(a closed fd): -EBADF (got %d)", ret);
	if (pipe2(p, O_CLOEXEC)) {
		tap_ok(0, "pipe2: %s", strerror(errno));
		return;
	}
	errno = 4242;
	ret = gsp_drm_adapter_of(p[0], &a);
	tap_ok(ret == -ENOTTY && errno == 4242,
	       "adapter_of(a pipe): -ENOTTY, errno left alone (got %d)", ret);
	close(p[0]);
	close(p[1]);
}

/* A tenant of the gspaced that run.sh started, or NULL (skipped). */
static struct gsp *open_daemon(void)
{
	struct gsp_open_opts o = {
		.size = sizeof(o),
		.arbiter = GSP_ARBITER_DAEMON,
	};
	const char *sock = getenv("GSP_SOCKET");
	struct gsp *g = NULL;

	if (!sock || !*sock || gsp_open(&g, &o))
		return NULL;
	return g;
}

static void test_daemon(void)
{
	uint8_t payload[GSPACE_DRM_PAYLOAD_MAX + 1] = { 0 };
	struct gspace_drm_submit s;
	struct gsp *g = open_daemon();
	uint32_t h = 0;
	int fd = -1, ret;

	if (!g) {
		tap_ok(1, "gsp_drm_* on gspaced # SKIP no gspaced on $GSP_SOCKET");
		return;
	}
	/* Arguments first: the same answer as on the kernel. */
	ret = gsp_drm_bind(g, -1, GSP_DRM_ADAPTER_AUTO, 0);
	tap_ok(ret == -EBADF, "bind(fd -1): -EBADF (got %d)", ret);
	ret = gsp_drm_bind(g, 0, GSPACE_DRM_ADAPTER_NOUVEAU + 1, 0);
	tap_ok(ret == -EINVAL, "bind(unknown adapter): -EINVAL (got %d)", ret);

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s) - 1;
	s.payload_ptr = (uintptr_t)payload;
	s.payload_size = 40;
	ret = gsp_drm_submit(g, &s);
	tap_ok(ret == -EINVAL, "submit(size short): -EINVAL (got %d)", ret);
	s.size = sizeof(s);
	s.payload_size = 0;
	ret = gsp_drm_submit(g, &s);
	tap_ok(ret == -EINVAL, "submit(payload_size 0): -EINVAL (got %d)", ret);
	s.payload_size = GSPACE_DRM_PAYLOAD_MAX + 1;
	ret = gsp_drm_submit(g, &s);
	tap_ok(ret == -E2BIG, "submit(payload_size %u): -E2BIG (got %d)",
	       GSPACE_DRM_PAYLOAD_MAX + 1, ret);
	s.payload_size = 40;
	s.payload_ptr = 0;
	ret = gsp_drm_submit(g, &s);
	tap_ok(ret == -EFAULT, "submit(payload_ptr 0): -EFAULT (got %d)", ret);
	ret = gsp_drm_submit(g, NULL);
	tap_ok(ret == -EFAULT, "submit(NULL): -EFAULT (got %d)", ret);
	ret = gsp_drm_syncobj_create(g, NULL);
	tap_ok(ret == -EFAULT, "syncobj_create(NULL): -EFAULT (got %d)", ret);
	ret = gsp_drm_syncobj_export(g, 1, NULL);
	tap_ok(ret == -EFAULT, "syncobj_export(NULL): -EFAULT (got %d)", ret);

	/* Then the daemon's answer, for every call. */
	s.payload_ptr = (uintptr_t)payload;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	tap_ok(gsp_drm_bind(g, fd, GSP_DRM_ADAPTER_AUTO, 0) == -EOPNOTSUPP &&
	       gsp_drm_bind(g, fd, GSPACE_DRM_ADAPTER_TESTDRM, 0) ==
	       -EOPNOTSUPP &&
	       gsp_drm_unbind(g) == -EOPNOTSUPP &&
	       gsp_drm_submit(g, &s) == -EOPNOTSUPP &&
	       gsp_drm_syncobj_create(g, &h) == -EOPNOTSUPP &&
	       gsp_drm_syncobj_destroy(g, 1) == -EOPNOTSUPP &&
	       gsp_drm_syncobj_reset(g, 1) == -EOPNOTSUPP &&
	       gsp_drm_syncobj_wait(g, 1, gsp_now_ns()) == -EOPNOTSUPP &&
	       gsp_drm_syncobj_export(g, 1, &fd) == -EOPNOTSUPP,
	       "gspaced: every gsp_drm_* call with good arguments gives -EOPNOTSUPP");
	close(fd);
	/* The tenant still works: the refusals sent nothing. */
	{
		struct gspace_version v = { .size = sizeof(v) };

		ret = gsp_version(g, &v);
		tap_ok(!ret && !(v.features & GSPACE_FEAT_DRM),
		       "gspaced: VERSION still answers, without GSPACE_FEAT_DRM (got %d)",
		       ret);
	}
	gsp_close(g);
}

int main(void)
{
	test_null();
	test_adapter_of();
	test_daemon();
	return tap_done();
}
