// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgsp: one struct gsp per tenant, on one of two transports.
 *
 *   kernel  an open file of /dev/gspace; each request is an ioctl(2)
 *   daemon  a connection to gspaced; each request goes through
 *           gspd_ioctl() (libgsp/proto/gspd_client.c, linked in hidden)
 *
 * Both speak uapi/gspace.h with the same semantics, so the wrappers below
 * only pick the transport. See Documentation/libgsp.rst.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gsp_board.h>
#include "libgsp_internal.h"
#include "gspd_proto.h"

/*
 * One mapping of the board. A struct gsp keeps every mapping it ever got
 * until gsp_close(): a pointer gsp_board() returned stays valid even after
 * a class change made the library ask the daemon for a fresh one, and
 * gsp_reopen() maps the new tenant's board over each in place.
 */
struct gsp_map {
	struct gsp_map *next;
	void *addr;
	int lc_slot;
	int writable;
};

/* Where the board page comes from: gspaced's memfd, told apart by inode. */
struct gsp_board_id {
	bool known;
	dev_t dev;
	ino_t ino;
};

struct gsp {
	enum gsp_arbiter kind;		/* KERNEL or DAEMON, never AUTO */
	int fd;				/* kernel: the open /dev/gspace */
	struct gspd_conn *conn;		/* daemon: the connection */
	uint64_t features;		/* VERSION's GSPACE_FEAT_* */
	char *path;			/* the device or socket, for reopen */

	/* Board state and what it depends on, under @lock. */
	pthread_mutex_t lock;
	bool board_asked;		/* gspd_board() tried for this class */
	int board_err;			/* its error, if it failed */
	struct gsp_map *board;		/* current mapping, or NULL */
	struct gsp_map *retired;	/* older mappings, unmapped at close */
	struct gsp_board_id board_id;	/* of the pages mapped */
	uint32_t cls, device;		/* as last set through CTX_SET */
	bool ctx_valid;			/* @ctx holds a CTX_SET that worked */
	struct gspace_ctx_set ctx;	/* the last one, replayed by reopen */

	/*
	 * The drm engine's binding (gsp_drm.c), under @lock. A function
	 * pointer rather than a call, so that programs built without
	 * gsp_drm.c (gspctl, gsp-run) need no libdrm.
	 */
	struct gsp_drm *drm;
	void (*drm_release)(struct gsp_drm *drm);
};

static const char *const gsp_arbiter_names[] = {
	[GSP_ARBITER_AUTO] = "auto",
	[GSP_ARBITER_KERNEL] = "kernel",
	[GSP_ARBITER_DAEMON] = "daemon",
};

GSP_API int gsp_arbiter_parse(const char *s, enum gsp_arbiter *out)
{
	size_t i;

	if (!s || !out)
		return -EINVAL;
	for (i = 0; i < sizeof(gsp_arbiter_names) / sizeof(*gsp_arbiter_names);
	     i++) {
		if (!strcmp(s, gsp_arbiter_names[i])) {
			*out = (enum gsp_arbiter)i;
			return 0;
		}
	}
	return -EINVAL;
}

GSP_API int gsp_class_parse(const char *s, uint32_t *out)
{
	if (!s || !out)
		return -EINVAL;
	if (!strcmp(s, "be"))
		*out = GSPACE_CLASS_BE;
	else if (!strcmp(s, "lc"))
		*out = GSPACE_CLASS_LC;
	else
		return -EINVAL;
	return 0;
}

GSP_API const char *gsp_arbiter_name(const struct gsp *g)
{
	if (!g)
		return NULL;
	return gsp_arbiter_names[g->kind];
}

GSP_API uint64_t gsp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * An environment value, or NULL if unset or empty: "VAR= prog" is the
 * shell's way to unset for one command. secure_getenv(), so a setuid
 * program linking libgsp cannot be pointed at another device or socket.
 */
static const char *gsp_env(const char *name)
{
	const char *v = secure_getenv(name);

	return v && *v ? v : NULL;
}

/* The request on the tenant's transport: 0 or a result, or -errno. */
int gspi_request(struct gsp *g, unsigned long request, void *arg)
{
	int saved = errno;
	int ret;

	if (!g)
		return -EINVAL;
	if (!arg)
		return -EFAULT;	/* what the kernel says for a NULL argument */
	if (g->kind == GSP_ARBITER_KERNEL) {
		ret = ioctl(g->fd, request, arg);
		if (ret < 0)
			ret = -errno;
	} else {
		ret = gspd_ioctl(g->conn, request, arg);
	}
	errno = saved;
	return ret;
}

/*
 * Checks that the other end is a gspace arbiter of our major ABI version.
 * An fd or socket that does not understand VERSION at all (ENOTTY, e.g.
 * GSPACE_DEV=/dev/null) is not one either.
 */
static int gsp_check_version(struct gsp *g)
{
	struct gspace_version v = { .size = sizeof(v) };
	int ret;

	ret = gspi_request(g, GSPACE_IOCTL_VERSION, &v);
	if (ret == -ENOTTY)
		return -EPROTO;
	if (ret < 0)
		return ret;
	g->features = v.features;
	return v.abi_major == GSPACE_ABI_MAJOR ? 0 : -EPROTO;
}

/*
 * Opens the device. -ENOENT when there is no gspace device: no node, or a
 * node whose driver is not loaded (ENXIO, ENODEV).
 */
static int gsp_open_kernel(struct gsp *g, const char *path)
{
	int fd = open(path, O_RDWR | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
			return -ENOENT;
		return -errno;
	}
	g->fd = fd;
	g->kind = GSP_ARBITER_KERNEL;
	return 0;
}

/* Connects to gspaced. -ENOENT when no daemon listens at @path. */
static int gsp_open_daemon(struct gsp *g, const char *path)
{
	int ret = gspd_connect(path, &g->conn);

	if (ret == -ENOENT || ret == -ECONNREFUSED)
		return -ENOENT;
	if (ret < 0)
		return ret;
	g->kind = GSP_ARBITER_DAEMON;
	return 0;
}

static void gsp_disconnect(struct gsp *g)
{
	if (g->kind == GSP_ARBITER_KERNEL) {
		close(g->fd);
		g->fd = -1;
	} else if (g->conn) {
		gspd_disconnect(g->conn);
		g->conn = NULL;
	}
}

/*
 * Resolves @opts (or the environment) into an arbiter and two paths.
 * Bytes of @opts past the structure we know must be zero, as in the uapi.
 */
static int gsp_resolve(const struct gsp_open_opts *opts,
		       enum gsp_arbiter *arbiter, const char **dev,
		       const char **sock)
{
	const char *dev_path = NULL, *socket_path = NULL;
	int ret;

	if (opts) {
		const unsigned char *extra = (const unsigned char *)opts +
					     sizeof(*opts);
		size_t i;

		if (opts->size < sizeof(*opts))
			return -EINVAL;
		for (i = 0; i < opts->size - sizeof(*opts); i++)
			if (extra[i])
				return -EINVAL;
		if (opts->arbiter > GSP_ARBITER_DAEMON)
			return -EINVAL;
		*arbiter = (enum gsp_arbiter)opts->arbiter;
		dev_path = opts->dev_path;
		socket_path = opts->socket_path;
	} else {
		const char *a = gsp_env("GSP_ARBITER");

		*arbiter = GSP_ARBITER_AUTO;
		if (a) {
			ret = gsp_arbiter_parse(a, arbiter);
			if (ret)
				return ret;
		}
	}
	if (!dev_path)
		dev_path = gsp_env("GSPACE_DEV");
	if (!socket_path)
		socket_path = gsp_env("GSP_SOCKET");
	*dev = dev_path ? dev_path : GSP_DEFAULT_DEV;
	*sock = socket_path ? socket_path : GSP_DEFAULT_SOCKET;
	if (!**dev || !**sock)
		return -EINVAL;
	return 0;
}

GSP_API int gsp_open(struct gsp **out, const struct gsp_open_opts *opts)
{
	enum gsp_arbiter arbiter;
	const char *dev, *sock;
	int saved = errno;
	struct gsp *g;
	int ret;

	if (!out)
		return -EINVAL;
	*out = NULL;
	ret = gsp_resolve(opts, &arbiter, &dev, &sock);
	if (ret)
		return ret;

	g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	g->fd = -1;
	g->cls = GSPACE_CLASS_BE;
	g->device = 0;
	ret = pthread_mutex_init(&g->lock, NULL);
	if (ret) {
		free(g);
		return -ret;
	}

	switch (arbiter) {
	case GSP_ARBITER_KERNEL:
		ret = gsp_open_kernel(g, dev);
		break;
	case GSP_ARBITER_DAEMON:
		ret = gsp_open_daemon(g, sock);
		break;
	case GSP_ARBITER_AUTO:
		/*
		 * A device that exists but cannot be opened (EACCES) is a
		 * better answer than -ENOENT if no daemon runs either.
		 */
		ret = gsp_open_kernel(g, dev);
		if (ret) {
			int dret = gsp_open_daemon(g, sock);

			if (dret != -ENOENT || ret == -ENOENT)
				ret = dret;
		}
		break;
	}
	if (!ret) {
		ret = gsp_check_version(g);
		if (ret)
			gsp_disconnect(g);
	}
	if (!ret) {
		g->path = strdup(g->kind == GSP_ARBITER_KERNEL ? dev : sock);
		if (!g->path) {
			gsp_disconnect(g);
			ret = -ENOMEM;
		}
	}
	if (ret) {
		pthread_mutex_destroy(&g->lock);
		free(g);
		errno = saved;
		return ret;
	}
	errno = saved;
	*out = g;
	return 0;
}

static void gsp_unmap_all(struct gsp_map *m)
{
	while (m) {
		struct gsp_map *next = m->next;

		munmap(m->addr, GSP_BOARD_SIZE);
		free(m);
		m = next;
	}
}

GSP_API void gsp_close(struct gsp *g)
{
	int saved = errno;

	if (!g)
		return;
	/* Ends the tenant first: the daemon frees its LC slot on that. */
	gsp_disconnect(g);
	if (g->drm)
		g->drm_release(g->drm);
	gsp_unmap_all(g->board);
	gsp_unmap_all(g->retired);
	pthread_mutex_destroy(&g->lock);
	free(g->path);
	free(g);
	errno = saved;
}

GSP_API int gsp_version(struct gsp *g, struct gspace_version *arg)
{
	return gspi_request(g, GSPACE_IOCTL_VERSION, arg);
}

/*
 * A change of class or device changes what the daemon grants on the
 * board (an LC slot, on that device), so the next gsp_board*() call asks
 * again; the old mapping is kept until close for pointers already handed
 * out.
 */
static void gsp_note_ctx(struct gsp *g, uint32_t cls, uint32_t device)
{
	pthread_mutex_lock(&g->lock);
	if (cls != g->cls || device != g->device) {
		g->cls = cls;
		g->device = device;
		if (g->board) {
			g->board->next = g->retired;
			g->retired = g->board;
			g->board = NULL;
		}
		g->board_asked = false;
	}
	pthread_mutex_unlock(&g->lock);
}

GSP_API int gsp_ctx_set(struct gsp *g, struct gspace_ctx_set *arg)
{
	int ret = gspi_request(g, GSPACE_IOCTL_CTX_SET, arg);

	if (!ret) {
		gsp_note_ctx(g, arg->class, arg->device);
		pthread_mutex_lock(&g->lock);
		/* What the arbiter took: the size we know, padded with 0. */
		memset(&g->ctx, 0, sizeof(g->ctx));
		memcpy(&g->ctx, arg, arg->size < sizeof(g->ctx) ?
				     arg->size : sizeof(g->ctx));
		g->ctx.size = sizeof(g->ctx);
		g->ctx_valid = true;
		pthread_mutex_unlock(&g->lock);
	}
	return ret;
}

GSP_API int gsp_submit(struct gsp *g, struct gspace_submit *arg)
{
	return gspi_request(g, GSPACE_IOCTL_SUBMIT, arg);
}

GSP_API int gsp_wait(struct gsp *g, struct gspace_wait *arg)
{
	return gspi_request(g, GSPACE_IOCTL_WAIT, arg);
}

GSP_API int gsp_complete(struct gsp *g, struct gspace_complete *arg)
{
	return gspi_request(g, GSPACE_IOCTL_COMPLETE, arg);
}

GSP_API int gsp_cancel(struct gsp *g, struct gspace_cancel *arg)
{
	return gspi_request(g, GSPACE_IOCTL_CANCEL, arg);
}

GSP_API int gsp_stats(struct gsp *g, struct gspace_stats *arg)
{
	return gspi_request(g, GSPACE_IOCTL_STATS, arg);
}

GSP_API int gsp_set_class(struct gsp *g, uint32_t cls, uint32_t weight,
			  uint64_t lc_target_ns)
{
	struct gspace_ctx_set cs = {
		.size = sizeof(cs),
		.device = 0,
		.class = cls,
		.weight = weight,
		.lc_target_ns = lc_target_ns,
	};

	return gsp_ctx_set(g, &cs);
}

/*
 * gspace.ko from ABI 1.1 (GSPACE_FEAT_BOARD): the board is an mmap of the
 * tenant's file, writable only while STATS reports an LC slot.
 */
static int gsp_board_map_kernel(struct gsp *g, struct gsp_map *m)
{
	struct gspace_stats st = { .size = sizeof(st) };
	void *addr;
	int ret;

	if (!(g->features & GSPACE_FEAT_BOARD))
		return -ENOENT;
	ret = gspi_request(g, GSPACE_IOCTL_STATS, &st);
	if (ret)
		return ret;
	m->lc_slot = st.lc_slot;
	m->writable = st.lc_slot >= 0;
	addr = mmap(NULL, GSP_BOARD_SIZE,
		    m->writable ? PROT_READ | PROT_WRITE : PROT_READ,
		    MAP_SHARED, g->fd, 0);
	if (addr == MAP_FAILED)
		return -errno;
	m->addr = addr;
	return 0;
}

/* The identity of gspaced's board memfd @fd, to tell a restart. */
static void gsp_board_id_of(int fd, struct gsp_board_id *id)
{
	struct stat st;

	id->known = !fstat(fd, &st);
	id->dev = id->known ? st.st_dev : 0;
	id->ino = id->known ? st.st_ino : 0;
}

/* gspaced: the board comes as a memfd over the socket. */
static int gsp_board_map_daemon(struct gsp *g, struct gsp_map *m)
{
	void *addr;
	int fd, ret;

	ret = gspd_board_fd(g->conn, &fd, &m->lc_slot, &m->writable);
	if (ret)
		return ret;
	addr = mmap(NULL, GSP_BOARD_SIZE,
		    m->writable ? PROT_READ | PROT_WRITE : PROT_READ,
		    MAP_SHARED, fd, 0);
	ret = addr == MAP_FAILED ? -errno : 0;
	if (!ret) {
		m->addr = addr;
		gsp_board_id_of(fd, &g->board_id);
	}
	close(fd);
	return ret;
}

/*
 * The current board mapping, mapped once per class and device. Returns
 * it, or NULL with *err set. Called with @g->lock held.
 */
static struct gsp_map *gsp_board_get(struct gsp *g, int *err)
{
	struct gsp_map *m;
	int saved = errno;
	int ret;

	if (g->board_asked) {
		*err = g->board_err;
		return g->board;
	}
	/* Allocated first, so that retiring it later cannot fail. */
	m = calloc(1, sizeof(*m));
	if (!m) {
		*err = -ENOMEM;
		return NULL;
	}
	if (g->kind == GSP_ARBITER_KERNEL)
		ret = gsp_board_map_kernel(g, m);
	else
		ret = gsp_board_map_daemon(g, m);
	errno = saved;
	g->board_asked = true;
	g->board_err = ret;
	if (ret) {
		free(m);
		*err = ret;
		return NULL;
	}
	g->board = m;
	*err = 0;
	return m;
}

GSP_API const struct gsp_board *gsp_board(struct gsp *g)
{
	struct gsp_map *m;
	int err;

	if (!g)
		return NULL;
	pthread_mutex_lock(&g->lock);
	m = gsp_board_get(g, &err);
	pthread_mutex_unlock(&g->lock);
	return m ? m->addr : NULL;
}

GSP_API struct gsp_board *gsp_board_rw(struct gsp *g)
{
	struct gsp_map *m;
	int err;

	if (!g)
		return NULL;
	pthread_mutex_lock(&g->lock);
	m = gsp_board_get(g, &err);
	pthread_mutex_unlock(&g->lock);
	return m && m->writable ? m->addr : NULL;
}

GSP_API int gsp_board_lc_slot(struct gsp *g)
{
	struct gsp_map *m;
	int ret;

	if (!g)
		return -EINVAL;
	pthread_mutex_lock(&g->lock);
	m = gsp_board_get(g, &ret);
	if (m)
		ret = m->lc_slot >= 0 && m->writable ? m->lc_slot : -ENOENT;
	pthread_mutex_unlock(&g->lock);
	return ret;
}

/*
 * Maps @fd's board over @m in place: first beside it, so that a failure
 * leaves @m as it was, then moved over it in one step. 0 or -errno.
 */
static int gsp_remap(struct gsp_map *m, int fd)
{
	int prot = m->writable ? PROT_READ | PROT_WRITE : PROT_READ;
	void *n;

	n = mmap(NULL, GSP_BOARD_SIZE, prot, MAP_SHARED, fd, 0);
	if (n == MAP_FAILED)
		return -errno;
	if (mremap(n, GSP_BOARD_SIZE, GSP_BOARD_SIZE,
		   MREMAP_MAYMOVE | MREMAP_FIXED, m->addr) == MAP_FAILED) {
		int ret = -errno;

		munmap(n, GSP_BOARD_SIZE);
		return ret;
	}
	return 0;
}

/*
 * After the switch to a new tenant (@n, not yet installed), each mapping
 * of @g shows @n's board at its old address. A writable one (the old LC
 * slot's) stays writable or, if @n may not write, is retired as it is.
 * Returns 1 if the board is another page than before (gspaced was
 * restarted), else 0. Called with @g->lock held.
 */
static int gsp_board_move(struct gsp *g, struct gsp *n)
{
	struct gsp_board_id id = { 0 };
	struct gsp_map *m, **pp, *cur = g->board;
	int fd = -1, slot = -1, writable = 0, changed = 0;
	int saved = errno;

	if (!g->board && !g->retired)
		goto out;
	if (n->kind == GSP_ARBITER_KERNEL) {
		struct gspace_stats st = { .size = sizeof(st) };

		if (!(n->features & GSPACE_FEAT_BOARD) ||
		    gspi_request(n, GSPACE_IOCTL_STATS, &st))
			goto out;
		fd = n->fd;
		slot = st.lc_slot;
		/* The module lets an LC tenant map it writable. */
		writable = st.class == GSPACE_CLASS_LC;
	} else {
		if (gspd_board_fd(n->conn, &fd, &slot, &writable))
			goto out;
		gsp_board_id_of(fd, &id);
		changed = id.known && g->board_id.known &&
			  (id.dev != g->board_id.dev ||
			   id.ino != g->board_id.ino);
		if (id.known)
			g->board_id = id;
	}
	for (m = g->retired; m; m = m->next)
		if (!m->writable || writable)
			gsp_remap(m, fd);
	if (cur && (!cur->writable || writable) && !gsp_remap(cur, fd)) {
		cur->lc_slot = slot;
		cur->writable = cur->writable && slot >= 0;
	} else if (cur) {
		/* Left showing the old page: the next gsp_board*() maps. */
		for (pp = &g->retired; *pp; pp = &(*pp)->next)
			;
		*pp = cur;
		g->board = NULL;
	}
	if (n->kind == GSP_ARBITER_DAEMON)
		close(fd);
out:
	if (!g->board)
		g->board_asked = false;
	errno = saved;
	return changed;
}

GSP_API int gsp_reopen(struct gsp *g)
{
	struct gsp n = { .fd = -1 };
	int saved = errno;
	int ret;

	if (!g)
		return -EINVAL;
	ret = g->kind == GSP_ARBITER_KERNEL ? gsp_open_kernel(&n, g->path) :
					       gsp_open_daemon(&n, g->path);
	if (!ret)
		ret = gsp_check_version(&n);
	pthread_mutex_lock(&g->lock);
	if (!ret && g->ctx_valid) {
		struct gspace_ctx_set cs = g->ctx;

		ret = gspi_request(&n, GSPACE_IOCTL_CTX_SET, &cs);
	}
	if (ret) {
		pthread_mutex_unlock(&g->lock);
		if (n.fd >= 0 || n.conn)
			gsp_disconnect(&n);
		errno = saved;
		return ret;
	}
	ret = gsp_board_move(g, &n);
	/* The old tenant ends here: its mappings now hold the new one. */
	gsp_disconnect(g);
	g->fd = n.fd;
	g->conn = n.conn;
	g->features = n.features;
	/* The new tenant has no binding: the old one ended with its file. */
	if (g->drm)
		g->drm_release(g->drm);
	g->drm = NULL;
	pthread_mutex_unlock(&g->lock);
	errno = saved;
	return ret;
}

struct gspd_conn *gspi_conn(struct gsp *g)
{
	return g && g->kind == GSP_ARBITER_DAEMON ? g->conn : NULL;
}

bool gspi_is_daemon(const struct gsp *g)
{
	return g && g->kind == GSP_ARBITER_DAEMON;
}

struct gsp_drm *gspi_drm_swap(struct gsp *g, struct gsp_drm *drm,
			      void (*release)(struct gsp_drm *drm))
{
	struct gsp_drm *old;

	pthread_mutex_lock(&g->lock);
	old = g->drm;
	g->drm = drm;
	if (release)
		g->drm_release = release;
	pthread_mutex_unlock(&g->lock);
	return old;
}

struct gsp_drm *gspi_drm(struct gsp *g)
{
	struct gsp_drm *drm;

	pthread_mutex_lock(&g->lock);
	drm = g->drm;
	pthread_mutex_unlock(&g->lock);
	return drm;
}
