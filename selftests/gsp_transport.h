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
 *   GSPACE_TRANSPORT=daemon  gspaced, the userspace arbiter, through
 *                          libgsp/proto/gspd_client.c; GSP_SOCKET
 *                          overrides its socket (default
 *                          /run/gspace/gspaced.sock).
 *
 * Both have the same semantics: a tenant is a descriptor (the daemon's is
 * its connection's socket), a request returns 0 or -1 with errno. Fences
 * differ: sync_files on the device, eventfds on the daemon; tests read a
 * fence through gsp_fence_status(), and knobs through gsp_knob_read() and
 * gsp_knob_write() (sysfs, or the daemon's CTL requests). The board is an
 * mmap of the device file, or the memfd of the daemon's BOARD request
 * (gsp_board_map()). Tests must not call open(2) or ioctl(2) on the
 * arbiter themselves.
 */
#ifndef GSP_TRANSPORT_H
#define GSP_TRANSPORT_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/sync_file.h>

#include <gspace.h>

#include "gspd_proto.h"

#define GSP_DEFAULT_DEV "/dev/gspace"
#define GSP_DEFAULT_SOCKET "/run/gspace/gspaced.sock"

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
	/*
	 * Whether fence @fd has signalled, and its error (0 or -errno):
	 * 0, or -1 with errno. *@ts_ns gets the signal time where the fence
	 * carries one (sync_file), else 0.
	 */
	int (*fence_status)(int fd, int *signalled, int *error,
			    uint64_t *ts_ns);
	/* Knobs by their sysfs names: 0 or -errno. */
	int (*knob_read)(const char *knob, char *buf, size_t len);
	int (*knob_write)(const char *knob, const char *val);
	/*
	 * Tenant @fd's board, GSPACE_BOARD_SIZE bytes to munmap(), writable
	 * if @writable (an LC tenant's right): the mapping, or NULL with
	 * errno (EACCES: not writable for this tenant).
	 */
	void *(*board_map)(int fd, int writable);
	/* Fences are sync_files, with timestamps and SYNC_IOC_MERGE. */
	int sync_file;
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

static inline int gsp_dev_fence_status(int fd, int *signalled, int *error,
				       uint64_t *ts_ns)
{
	struct sync_fence_info fi[4];
	struct sync_file_info info;

	memset(&info, 0, sizeof(info));
	memset(fi, 0, sizeof(fi));
	info.num_fences = 4;
	info.sync_fence_info = (uint64_t)(uintptr_t)fi;
	if (ioctl(fd, SYNC_IOC_FILE_INFO, &info))
		return -1;
	if (info.num_fences != 1) {
		errno = EPROTO;	/* ours carry exactly one fence */
		return -1;
	}
	/* The file's status is the fence's; the fence's carries the error. */
	*signalled = fi[0].status != 0;
	*error = fi[0].status < 0 ? fi[0].status : 0;
	if (info.status == 1 && fi[0].status != 1) {
		errno = EPROTO;
		return -1;
	}
	*ts_ns = fi[0].timestamp_ns;
	return 0;
}

static inline const char *gsp_sysfs_dir(void)
{
	const char *p = getenv("GSPACE_SYSFS");

	return p && *p ? p : "/sys/class/misc/gspace";
}

/* Reads a sysfs knob, trailing newline stripped; 0 or -errno. */
static inline int gsp_dev_knob_read(const char *knob, char *buf, size_t len)
{
	char path[256];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", gsp_sysfs_dir(), knob);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	close(fd);
	buf[n] = 0;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = 0;
	return 0;
}

/* Writes a sysfs knob in one write(2); 0 or -errno. */
static inline int gsp_dev_knob_write(const char *knob, const char *val)
{
	char path[256];
	ssize_t n;
	int fd, e = 0;

	snprintf(path, sizeof(path), "%s/%s", gsp_sysfs_dir(), knob);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		e = -errno;
	else if ((size_t)n != strlen(val))
		e = -EIO;
	close(fd);
	return e;
}

static inline void *gsp_dev_board_map(int fd, int writable)
{
	void *p = mmap(NULL, GSPACE_BOARD_SIZE,
		       writable ? PROT_READ | PROT_WRITE : PROT_READ,
		       MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static const struct gsp_transport gsp_transport_dev = {
	.name = "dev",
	.open = gsp_dev_open,
	.ioctl = gsp_dev_ioctl,
	.close = gsp_dev_close,
	.where = gsp_dev_path,
	.fence_status = gsp_dev_fence_status,
	.knob_read = gsp_dev_knob_read,
	.knob_write = gsp_dev_knob_write,
	.board_map = gsp_dev_board_map,
	.sync_file = 1,
};

/* The daemon: a tenant is a struct gspd_conn, found by its socket. */

#define GSP_DAEMON_MAX_FD	4096

/*
 * Socket -> connection, so that tests keep passing plain descriptors.
 * Global because the tests' tenants are; slots are published with atomics
 * since tests open and use tenants from several threads.
 */
static struct gspd_conn *gsp_daemon_conns[GSP_DAEMON_MAX_FD];

static inline const char *gsp_daemon_path(void)
{
	const char *p = getenv("GSP_SOCKET");

	return p && *p ? p : GSP_DEFAULT_SOCKET;
}

static inline int gsp_daemon_open(void)
{
	struct gspd_conn *c;
	int r, fd;

	r = gspd_connect(gsp_daemon_path(), &c);
	if (r) {
		errno = -r;
		return -1;
	}
	fd = gspd_conn_fd(c);
	if (fd >= GSP_DAEMON_MAX_FD) {
		gspd_disconnect(c);
		errno = EMFILE;
		return -1;
	}
	__atomic_store_n(&gsp_daemon_conns[fd], c, __ATOMIC_RELEASE);
	return fd;
}

static inline struct gspd_conn *gsp_daemon_conn(int fd)
{
	if (fd < 0 || fd >= GSP_DAEMON_MAX_FD)
		return NULL;
	return __atomic_load_n(&gsp_daemon_conns[fd], __ATOMIC_ACQUIRE);
}

static inline int gsp_daemon_ioctl(int fd, unsigned long request, void *arg)
{
	struct gspd_conn *c = gsp_daemon_conn(fd);
	int r;

	if (!c) {
		errno = EBADF;
		return -1;
	}
	r = gspd_ioctl(c, request, arg);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	return r;
}

static inline int gsp_daemon_close(int fd)
{
	struct gspd_conn *c = gsp_daemon_conn(fd);

	if (!c) {
		errno = EBADF;
		return -1;
	}
	__atomic_store_n(&gsp_daemon_conns[fd], NULL, __ATOMIC_RELEASE);
	gspd_disconnect(c);
	return 0;
}

static inline int gsp_daemon_fence_status(int fd, int *signalled, int *error,
					  uint64_t *ts_ns)
{
	int r = gspd_fence_status(fd, signalled, error);

	if (r) {
		errno = -r;
		return -1;
	}
	*ts_ns = 0;	/* an eventfd records no time */
	return 0;
}

/* Knobs travel on a connection of their own, a tenant that lives briefly. */
static inline int gsp_daemon_knob_read(const char *knob, char *buf, size_t len)
{
	struct gspd_conn *c;
	int r = gspd_connect(gsp_daemon_path(), &c);

	if (r)
		return r;
	r = gspd_ctl_get(c, knob, buf, len);
	gspd_disconnect(c);
	return r;
}

static inline int gsp_daemon_knob_write(const char *knob, const char *val)
{
	struct gspd_conn *c;
	int r = gspd_connect(gsp_daemon_path(), &c);

	if (r)
		return r;
	r = gspd_ctl_set(c, knob, val);
	gspd_disconnect(c);
	return r;
}

/* BOARD maps read-write exactly when the tenant holds an LC slot. */
static inline void *gsp_daemon_board_map(int fd, int writable)
{
	struct gspd_conn *c = gsp_daemon_conn(fd);
	int r, w = 0;
	void *p;

	if (!c) {
		errno = EBADF;
		return NULL;
	}
	r = gspd_board(c, &p, NULL, &w);
	if (r) {
		errno = -r;
		return NULL;
	}
	if (writable && !w) {
		munmap(p, GSPACE_BOARD_SIZE);
		errno = EACCES;
		return NULL;
	}
	return p;
}

static const struct gsp_transport gsp_transport_daemon = {
	.name = "daemon",
	.open = gsp_daemon_open,
	.ioctl = gsp_daemon_ioctl,
	.close = gsp_daemon_close,
	.where = gsp_daemon_path,
	.fence_status = gsp_daemon_fence_status,
	.knob_read = gsp_daemon_knob_read,
	.knob_write = gsp_daemon_knob_write,
	.board_map = gsp_daemon_board_map,
	.sync_file = 0,
};

/* The transport in use, or NULL if GSPACE_TRANSPORT names none we have. */
static inline const struct gsp_transport *gsp_transport(void)
{
	const char *t = getenv("GSPACE_TRANSPORT");

	if (!t || !*t || !strcmp(t, "dev"))
		return &gsp_transport_dev;
	if (!strcmp(t, "daemon"))
		return &gsp_transport_daemon;
	return NULL;
}

/* 1 on the daemon transport. */
static inline int gsp_on_daemon(void)
{
	const struct gsp_transport *t = gsp_transport();

	return t && !strcmp(t->name, "daemon");
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

static inline void *gsp_board_map(int fd, int writable)
{
	const struct gsp_transport *t = gsp_transport();

	if (!t) {
		errno = EPROTONOSUPPORT;
		return NULL;
	}
	return t->board_map(fd, writable);
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
