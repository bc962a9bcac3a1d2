/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one place where the selftests reach the arbiter.
 *
 * Every test opens a tenant with gsp_open() and issues requests with
 * gsp_ioctl(), with the uapi/gspace.h request numbers and structures. The
 * transport is chosen once, from the environment:
 *
 *   GSPACE_TRANSPORT=dev   (default) the character device; GSPACE_DEV
 *                          overrides its path (default /dev/gspace).
 *
 * A transport for gspaced (the userspace arbiter) plugs in here as another
 * struct gsp_transport with the same semantics: a tenant is a descriptor,
 * a request returns 0 or -1 with errno, sync_file fences are real file
 * descriptors. Tests must not call open(2) or ioctl(2) on the arbiter
 * themselves.
 */
#ifndef GSP_TRANSPORT_H
#define GSP_TRANSPORT_H

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <gspace.h>

#define GSP_DEFAULT_DEV "/dev/gspace"

struct gsp_transport {
	const char *name;
	/* A new tenant: a descriptor, or -1 with errno. */
	int (*open)(void);
	/* One request: 0 (or a non-negative result), or -1 with errno. */
	int (*ioctl)(int fd, unsigned long request, void *arg);
	/* Ends the tenant. */
	int (*close)(int fd);
	/* Where it talks to, for messages. */
	const char *(*where)(void);
};

static inline const char *gsp_dev_path(void)
{
	const char *p = getenv("GSPACE_DEV");

	return p && *p ? p : GSP_DEFAULT_DEV;
}

static inline int gsp_dev_open(void)
{
	return open(gsp_dev_path(), O_RDWR | O_CLOEXEC);
}

static inline int gsp_dev_ioctl(int fd, unsigned long request, void *arg)
{
	return ioctl(fd, request, arg);
}

static inline int gsp_dev_close(int fd)
{
	return close(fd);
}

static const struct gsp_transport gsp_transport_dev = {
	.name = "dev",
	.open = gsp_dev_open,
	.ioctl = gsp_dev_ioctl,
	.close = gsp_dev_close,
	.where = gsp_dev_path,
};

/* The transport in use, or NULL if GSPACE_TRANSPORT names none we have. */
static inline const struct gsp_transport *gsp_transport(void)
{
	const char *t = getenv("GSPACE_TRANSPORT");

	if (!t || !*t || !strcmp(t, "dev"))
		return &gsp_transport_dev;
	return NULL;
}

static inline int gsp_open(void)
{
	const struct gsp_transport *t = gsp_transport();

	if (!t) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	return t->open();
}

static inline int gsp_ioctl(int fd, unsigned long request, void *arg)
{
	const struct gsp_transport *t = gsp_transport();

	if (!t) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	return t->ioctl(fd, request, arg);
}

static inline int gsp_close(int fd)
{
	const struct gsp_transport *t = gsp_transport();

	if (!t) {
		errno = EPROTONOSUPPORT;
		return -1;
	}
	return t->close(fd);
}

static inline const char *gsp_where(void)
{
	const struct gsp_transport *t = gsp_transport();

	return t ? t->where() : "(unknown transport)";
}

/*
 * 1 if the arbiter is simply not there (no module loaded, no daemon), so
 * tests should skip rather than fail.
 */
static inline int gsp_absent_errno(int e)
{
	return e == ENOENT || e == ENODEV || e == ENXIO ||
	       e == EPROTONOSUPPORT || e == ECONNREFUSED;
}

#endif /* GSP_TRANSPORT_H */
