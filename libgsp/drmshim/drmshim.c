// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgsp_drmshim.so: an LD_PRELOAD shim that sends a program's DRM
 * submit ioctls through /dev/gspace (DRM_SUBMIT) instead of straight to
 * the driver, so that gspace.ko schedules and charges them. Opt-in:
 * `gsp-run --drm`, or LD_PRELOAD by hand. See Documentation/drm.rst,
 * "The LD_PRELOAD shim".
 *
 * It wraps ioctl(), which libdrm's drmIoctl() and Mesa call, and takes
 * only the submit ioctls of the adapters' drivers: nouveau's EXEC and
 * GEM_PUSHBUF, gsp-testdrm's SUBMIT. Each (DRM file, channel) gets its
 * own gspace tenant, bound on first use. The ioctl returns once the
 * gspace job has ended, with the driver's error: the program then sees
 * the state it would after the driver's own ioctl and its fence, since
 * the driver runs the submission only when gspace grants it.
 *
 * Fails closed: when gspace cannot take a submission (no /dev/gspace,
 * no drm engine, a refused bind or payload) the program gets that errno,
 * unless GSP_DRM_FALLBACK=1 asks to run it on the driver directly.
 *
 * GSP_DRM_STATS=FILE appends one line per process at its exit: how many
 * submissions gspace took, how many failed there, how many went to the
 * driver unscheduled (tools/drm/nouveau-check.sh reads it).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/kcmp.h>

#include <gsp.h>
#include "../../kmod/gsp_testdrm.h"

#define SHIM_API __attribute__((visibility("default")))

/*
 * nouveau's submit structures as its uapi (include/uapi/drm/nouveau_drm.h)
 * lays them out; the shim reads only the channel, their first field, and
 * needs their sizes for the ioctl numbers. EXEC is Linux 6.6 and later.
 */
struct shim_nouveau_exec {
	uint32_t channel, push_count, wait_count, sig_count;
	uint64_t wait_ptr, sig_ptr, push_ptr;
};

struct shim_nouveau_pushbuf {
	uint32_t channel, nr_buffers;
	uint64_t buffers;
	uint32_t nr_relocs, nr_push;
	uint64_t relocs, push;
	uint32_t suffix0, suffix1;
	uint64_t vram_available, gart_available;
};

_Static_assert(sizeof(struct shim_nouveau_exec) == 40, "EXEC's size");
_Static_assert(sizeof(struct shim_nouveau_pushbuf) == 64, "PUSHBUF's size");

#define SHIM_DRM_CMD(nr, type)	_IOWR('d', 0x40 + (nr), type)

/* What the shim takes: the request, its driver and where its channel is. */
static const struct shim_submit {
	unsigned long request;
	uint32_t adapter;
	size_t channel_off;
	const char *name;
} shim_submits[] = {
	{ DRM_IOCTL_GSP_TESTDRM_SUBMIT, GSPACE_DRM_ADAPTER_TESTDRM,
	  offsetof(struct drm_gsp_testdrm_submit, context),
	  "gsp-testdrm SUBMIT" },
	{ SHIM_DRM_CMD(0x12, struct shim_nouveau_exec),
	  GSPACE_DRM_ADAPTER_NOUVEAU,
	  offsetof(struct shim_nouveau_exec, channel), "nouveau EXEC" },
	{ SHIM_DRM_CMD(0x41, struct shim_nouveau_pushbuf),
	  GSPACE_DRM_ADAPTER_NOUVEAU,
	  offsetof(struct shim_nouveau_pushbuf, channel),
	  "nouveau GEM_PUSHBUF" },
};

#define SHIM_BINDINGS	32

/*
 * One tenant: a DRM file and channel. Every open of a render node has
 * the node's inode, so the file is told apart by kcmp(2) against a
 * duplicate of the fd it was bound with; rdev and inode where the kernel
 * has no kcmp.
 */
struct shim_binding {
	dev_t rdev;
	ino_t ino;
	int fd;			/* the program's fd at the bind */
	int dup;		/* the shim's own, for kcmp */
	uint32_t channel;
	struct gsp *g;
};

/*
 * The shim's state is process-wide because ioctl() is: there is no
 * object of the program's to keep it in. Guarded by shim_lock.
 */
static pthread_mutex_t shim_lock = PTHREAD_MUTEX_INITIALIZER;
/* Counts for GSP_DRM_STATS, process-wide for the same reason. */
static atomic_ulong shim_taken, shim_failed, shim_fallback;
static struct shim_binding shim_bindings[SHIM_BINDINGS];
static int shim_nr_bindings;
static bool shim_warned;

typedef int (*shim_ioctl_fn)(int fd, unsigned long request, ...);
static shim_ioctl_fn shim_real_ioctl;
static pthread_once_t shim_once = PTHREAD_ONCE_INIT;

/*
 * A child of fork() shares the parent's gspace files, so it would submit
 * as the parent's tenants (and, for nouveau, in the parent's mm): it
 * forgets them and binds its own on first use.
 */
static void shim_atfork_prepare(void)
{
	pthread_mutex_lock(&shim_lock);
}

static void shim_atfork_parent(void)
{
	pthread_mutex_unlock(&shim_lock);
}

static void shim_atfork_child(void)
{
	int i;

	for (i = 0; i < shim_nr_bindings; i++) {
		gsp_close(shim_bindings[i].g);
		close(shim_bindings[i].dup);
	}
	shim_nr_bindings = 0;
	pthread_mutex_unlock(&shim_lock);
}

static void shim_resolve(void)
{
	shim_real_ioctl = (shim_ioctl_fn)dlsym(RTLD_NEXT, "ioctl");
	pthread_atfork(shim_atfork_prepare, shim_atfork_parent,
		       shim_atfork_child);
}

static int shim_env_one(const char *name)
{
	const char *v = getenv(name);

	return v && !strcmp(v, "1");
}

/* One line on stderr, the first time only: the program's own output. */
static void shim_warn(const char *what, int err, bool fallback)
{
	bool first;

	pthread_mutex_lock(&shim_lock);
	first = !shim_warned;
	shim_warned = true;
	pthread_mutex_unlock(&shim_lock);
	if (!first)
		return;
	if (fallback)
		fprintf(stderr, "gsp-drmshim: %s: %s; GSP_DRM_FALLBACK=1: the submissions go to the driver unscheduled\n",
			what, strerror(err));
	else
		fprintf(stderr, "gsp-drmshim: %s: %s; the submission fails (load gspace.ko and gspace_drm.ko, or set GSP_DRM_FALLBACK=1 to run unscheduled)\n",
			what, strerror(err));
}

/* A decimal environment value in [0, max], else @dflt. */
static unsigned long long shim_env_num(const char *name,
				       unsigned long long max,
				       unsigned long long dflt)
{
	const char *v = getenv(name);
	unsigned long long n;
	char *end;

	if (!v || !*v)
		return dflt;
	errno = 0;
	n = strtoull(v, &end, 10);
	return *end || errno || n > max ? dflt : n;
}

/* The class gsp-run asked for (GSP_CLASS, GSP_WEIGHT, ...), if any. */
static int shim_set_class(struct gsp *g)
{
	struct gspace_ctx_set cs = { .size = sizeof(cs) };
	const char *cls = getenv("GSP_CLASS");

	if (!cls && !getenv("GSP_WEIGHT") && !getenv("GSP_DEVICE"))
		return 0;
	cs.class = GSPACE_CLASS_BE;
	if (cls && gsp_class_parse(cls, &cs.class))
		return -EINVAL;
	cs.weight = (uint32_t)shim_env_num("GSP_WEIGHT", 10000, 100);
	cs.device = (uint32_t)shim_env_num("GSP_DEVICE", 15, 0);
	if (cs.class == GSPACE_CLASS_LC)
		cs.lc_target_ns = shim_env_num("GSP_LC_TARGET_US",
					       3600000000ULL, 0) * 1000;
	return gsp_ctx_set(g, &cs);
}

/* 1 if @b was bound from the file @fd now refers to, 0 if not. */
static int shim_same_file(const struct shim_binding *b, int fd,
			  const struct stat *st)
{
	pid_t pid = getpid();
	long r;

	if (b->fd != fd || b->rdev != st->st_rdev || b->ino != st->st_ino)
		return 0;
	r = syscall(SYS_kcmp, pid, pid, KCMP_FILE, fd, b->dup);
	return r == 0 || r < 0;
}

/*
 * Ends binding @i, whose fd went to another file, and frees its slot. A
 * thread still submitting on the old file, which the program closed
 * under it, would then use a closed tenant: the program's own race.
 */
static void shim_binding_drop(int i)
{
	struct shim_binding *b = &shim_bindings[i];

	gsp_close(b->g);
	close(b->dup);
	*b = shim_bindings[--shim_nr_bindings];
}

/*
 * The tenant for @fd's file and @channel, opened and bound on first use:
 * 0 and *@out, or -errno with *@what saying which step failed. -ENODEV:
 * the file is not of @sub's driver, so the ioctl is not ours.
 */
static int shim_binding_get(int fd, const struct stat *st,
			    const struct shim_submit *sub, uint32_t channel,
			    struct gsp **out, const char **what)
{
	struct shim_binding *b = NULL;
	struct gsp *g = NULL;
	uint32_t adapter;
	int i, ret;

	pthread_mutex_lock(&shim_lock);
	for (i = 0; i < shim_nr_bindings; i++) {
		b = &shim_bindings[i];
		if (b->fd != fd)
			continue;
		if (!shim_same_file(b, fd, st)) {
			/* The program closed it and opened another. */
			shim_binding_drop(i--);
			continue;
		}
		if (b->channel == channel) {
			*out = b->g;
			pthread_mutex_unlock(&shim_lock);
			return 0;
		}
	}
	*what = "the DRM node's driver";
	ret = gsp_drm_adapter_of(fd, &adapter);
	if (ret == -ENXIO || ret == -ENOTTY || (!ret && adapter != sub->adapter)) {
		ret = -ENODEV;
		goto out;
	}
	if (ret)
		goto out;
	*what = "no room for another DRM tenant";
	ret = -ENOSPC;
	if (shim_nr_bindings == SHIM_BINDINGS)
		goto out;
	b = &shim_bindings[shim_nr_bindings];
	b->dup = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	ret = b->dup < 0 ? -errno : 0;
	if (ret)
		goto out;
	*what = "opening /dev/gspace";
	ret = gsp_open(&g, NULL);
	if (ret) {
		close(b->dup);
		goto out;
	}
	*what = "setting the tenant's class";
	ret = shim_set_class(g);
	if (!ret) {
		*what = "binding the DRM node to gspace (DRM_BIND)";
		ret = gsp_drm_bind(g, fd, sub->adapter, channel);
	}
	if (ret) {
		gsp_close(g);
		close(b->dup);
		goto out;
	}
	shim_nr_bindings++;
	b->rdev = st->st_rdev;
	b->ino = st->st_ino;
	b->fd = fd;
	b->channel = channel;
	b->g = g;
	*out = g;
out:
	pthread_mutex_unlock(&shim_lock);
	return ret;
}

/*
 * @arg through gspace: DRM_SUBMIT, then the job's end. 0, -errno of the
 * driver's run (the job's status), or -errno from gspace with @*taken
 * false: gspace did not take it.
 */
static int shim_submit(struct gsp *g, void *arg, size_t size, bool *taken)
{
	struct gspace_drm_submit s = {
		.size = sizeof(s),
		.payload_ptr = (uintptr_t)arg,
		.payload_size = (uint32_t)size,
	};
	struct gspace_wait w;
	int ret;

	*taken = false;
	ret = gsp_drm_submit(g, &s);
	if (ret)
		return ret;
	*taken = true;
	do {
		memset(&w, 0, sizeof(w));
		w.size = sizeof(w);
		w.handle = s.handle;
		w.deadline_ns = gsp_now_ns() + 3600ULL * 1000000000ULL;
		ret = gsp_wait(g, &w);
	} while (ret == -ETIME || ret == -EINTR);
	return ret ? ret : w.status;
}

/* The counts of GSP_DRM_STATS, at exit (not after _exit()). */
static void __attribute__((destructor)) shim_report(void)
{
	const char *path = getenv("GSP_DRM_STATS");
	FILE *f;

	if (!path || !*path)
		return;
	f = fopen(path, "ae");
	if (!f)
		return;
	fprintf(f, "gsp-drmshim pid=%d taken=%lu failed=%lu fallback=%lu\n",
		(int)getpid(), atomic_load(&shim_taken),
		atomic_load(&shim_failed), atomic_load(&shim_fallback));
	fclose(f);
}

/* 1 and *@res if the request was ours and handled, else 0. */
static int shim_take(int fd, unsigned long request, void *arg, int *res)
{
	const struct shim_submit *sub = NULL;
	const char *what = "";
	bool fallback, taken;
	struct stat st;
	struct gsp *g;
	uint32_t channel;
	size_t i;
	int ret;

	for (i = 0; i < sizeof(shim_submits) / sizeof(*shim_submits); i++)
		if (shim_submits[i].request == request)
			sub = &shim_submits[i];
	if (!sub || !arg || fstat(fd, &st) || !S_ISCHR(st.st_mode))
		return 0;
	memcpy(&channel, (const char *)arg + sub->channel_off,
	       sizeof(channel));
	ret = shim_binding_get(fd, &st, sub, channel, &g, &what);
	if (ret == -ENODEV)
		return 0;
	if (!ret) {
		what = sub->name;
		ret = shim_submit(g, arg, _IOC_SIZE(request), &taken);
		if (taken || !ret) {
			atomic_fetch_add(&shim_taken, 1);
			*res = ret;
			return 1;
		}
	}
	fallback = shim_env_one("GSP_DRM_FALLBACK");
	shim_warn(what, -ret, fallback);
	atomic_fetch_add(fallback ? &shim_fallback : &shim_failed, 1);
	if (fallback)
		return 0;
	*res = ret;
	return 1;
}

SHIM_API int ioctl(int fd, unsigned long request, ...)
{
	int saved = errno, res;
	va_list ap;
	void *arg;

	va_start(ap, request);
	arg = va_arg(ap, void *);
	va_end(ap);
	pthread_once(&shim_once, shim_resolve);
	if (_IOC_TYPE(request) == 'd' && shim_take(fd, request, arg, &res)) {
		if (res < 0) {
			errno = -res;
			return -1;
		}
		errno = saved;
		return 0;
	}
	errno = saved;
	if (!shim_real_ioctl) {
		errno = ENOSYS;
		return -1;
	}
	return shim_real_ioctl(fd, request, arg);
}
