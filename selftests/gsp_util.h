/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the gspace selftests: tenants, jobs, fences, sysfs and
 * debugfs. Everything that talks to the arbiter goes through
 * gsp_transport.h. Helpers that take @_metadata may ASSERT and SKIP.
 */
#ifndef GSP_UTIL_H
#define GSP_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/sync_file.h>

#include "harness.h"
#include "gsp_transport.h"

#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL

/* Generous bound for anything that should be "prompt" under QEMU TCG. */
#define GSP_SLOW_NS	(5 * NSEC_PER_SEC)

#define GSP_DEBUGFS_DEFAULT	"/sys/kernel/debug/gspace"

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static inline void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Knobs: sysfs files on the device, CTL_GET/CTL_SET on the daemon. */

/* Reads a knob, trailing newline stripped; 0 or -errno (-ENOENT: none). */
static inline int knob_read(const char *knob, char *buf, size_t len)
{
	const struct gsp_transport *t = gsp_transport();

	return t ? t->knob_read(knob, buf, len) : -EPROTONOSUPPORT;
}

/* Writes a knob in one request; 0 or -errno. */
static inline int knob_write(const char *knob, const char *val)
{
	const struct gsp_transport *t = gsp_transport();

	return t ? t->knob_write(knob, val) : -EPROTONOSUPPORT;
}

/*
 * Puts back the BAND knobs a test saved (an empty string: not changed);
 * 0, or how many writes failed. period_us and band_wait_us are validated
 * together, so band_wait_us goes to 1 before period_us is restored.
 */
static inline int knobs_restore_band(const char *policy, const char *period,
				     const char *band_wait)
{
	int bad = 0;

	if (band_wait[0])
		bad += knob_write("band_wait_us", "1") != 0;
	if (period[0])
		bad += knob_write("period_us", period) != 0;
	if (band_wait[0])
		bad += knob_write("band_wait_us", band_wait) != 0;
	if (policy[0])
		bad += knob_write("policy", policy) != 0;
	return bad;
}

/* Where the knobs are, for messages: the sysfs folder or the socket. */
static inline const char *knob_dir(void)
{
	return gsp_on_daemon() ? gsp_where() : gsp_sysfs_dir();
}

/* What the arbiter serves, learned once per test. */
struct gsp_info {
	struct gspace_version v;
	int num_devices;
	int sim_devices;	/* devices 0..sim_devices-1 are sim */
	int lease_dev;		/* first lease device, or -1 */
};

static inline int read_int_file(const char *path, long long *val)
{
	char buf[64];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	*val = strtoll(buf, NULL, 0);
	return 0;
}

/*
 * A new tenant; SKIPs if the arbiter is absent, fails on any other error
 * (a present /dev/gspace must be usable by every user).
 */
static inline int t_open(struct __test_meta *_metadata)
{
	int fd = gsp_open();

	if (fd < 0 && gsp_absent_errno(errno))
		SKIP("no gspace arbiter at %s (%s)", gsp_where(),
		     strerror(errno));
	ASSERT_OK(fd);
	return fd;
}

static inline void t_version(struct __test_meta *_metadata, int fd,
			     struct gspace_version *v)
{
	memset(v, 0, sizeof(*v));
	v->size = sizeof(*v);
	ASSERT_OK(gsp_ioctl(fd, GSPACE_IOCTL_VERSION, v));
}

static inline void t_info(struct __test_meta *_metadata, int fd,
			  struct gsp_info *info)
{
	char path[256];
	long long v;
	const char *e;

	memset(info, 0, sizeof(*info));
	t_version(_metadata, fd, &info->v);
	info->num_devices = info->v.num_devices;
	/*
	 * The environment, else the arbiter's knob, else the module
	 * parameter, else the VM's 2.
	 */
	e = getenv("GSPACE_SIM_DEVICES");
	if (e && *e)
		info->sim_devices = atoi(e);
	else if (knob_read("sim_devices", path, sizeof(path)) == 0)
		info->sim_devices = atoi(path);
	else if (read_int_file("/sys/module/gspace/parameters/sim_devices",
			       &v) == 0)
		info->sim_devices = (int)v;
	else
		info->sim_devices = 2;
	if (info->sim_devices > info->num_devices)
		info->sim_devices = info->num_devices;
	info->lease_dev = -1;
	if ((info->v.features & GSPACE_FEAT_LEASE_ENGINE) &&
	    info->sim_devices < info->num_devices)
		info->lease_dev = info->sim_devices;
}

/* SKIPs the test when the arbiter has no lease device. */
static inline void t_need_lease(struct __test_meta *_metadata,
				const struct gsp_info *info)
{
	if (info->lease_dev < 0)
		SKIP("no lease device");
}

/* Closes *fd if it is open and marks it closed: for teardowns. */
static inline void t_close(int *fd)
{
	if (*fd >= 0)
		gsp_close(*fd);
	*fd = -1;
}

static inline int ctx_set_raw(int fd, uint32_t device, uint32_t class,
			      uint32_t weight, uint64_t lc_target_ns)
{
	struct gspace_ctx_set c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.device = device;
	c.class = class;
	c.weight = weight;
	c.lc_target_ns = lc_target_ns;
	return gsp_ioctl(fd, GSPACE_IOCTL_CTX_SET, &c);
}

static inline void t_ctx(struct __test_meta *_metadata, int fd,
			 uint32_t device, uint32_t weight)
{
	ASSERT_OK(ctx_set_raw(fd, device, GSPACE_CLASS_BE, weight, 0));
}

static inline void submit_init(struct gspace_submit *s, uint32_t engine,
			       uint64_t cost_ns)
{
	memset(s, 0, sizeof(*s));
	s->size = sizeof(*s);
	s->engine = engine;
	s->cost_ns = cost_ns;
}

/* Submits and returns the handle; *@out_fence gets the fence (or -1). */
static inline uint64_t t_submit_fl(struct __test_meta *_metadata, int fd,
				   uint32_t engine, uint64_t cost_ns,
				   uint32_t flags, int in_fence,
				   int *out_fence)
{
	struct gspace_submit s;

	submit_init(&s, engine, cost_ns);
	s.flags = flags;
	if (flags & GSPACE_SUBMIT_FENCE_IN)
		s.in_fence_fd = in_fence;
	s.out_fence_fd = 12345;
	ASSERT_OK(gsp_ioctl(fd, GSPACE_IOCTL_SUBMIT, &s));
	ASSERT_NE(0, s.handle);
	if (flags & GSPACE_SUBMIT_FENCE_OUT)
		ASSERT_LE(0, s.out_fence_fd);
	else
		ASSERT_EQ(-1, s.out_fence_fd);
	if (out_fence)
		*out_fence = s.out_fence_fd;
	else if (s.out_fence_fd >= 0)
		close(s.out_fence_fd);
	return s.handle;
}

static inline uint64_t t_submit(struct __test_meta *_metadata, int fd,
				uint64_t cost_ns)
{
	return t_submit_fl(_metadata, fd, GSPACE_ENGINE_COMPUTE, cost_ns, 0,
			   -1, NULL);
}

static inline int wait_raw(int fd, uint64_t handle, uint32_t flags,
			   uint64_t deadline_ns, struct gspace_wait *out)
{
	struct gspace_wait w;
	int r;

	memset(&w, 0, sizeof(w));
	w.size = sizeof(w);
	w.flags = flags;
	w.handle = handle;
	w.deadline_ns = deadline_ns;
	w.status = 0x7eadbeef;
	r = gsp_ioctl(fd, GSPACE_IOCTL_WAIT, &w);
	if (out)
		*out = w;
	return r;
}

/* Waits (up to @timeout_ns from now) for the end of @handle; its status. */
static inline int t_wait_end(struct __test_meta *_metadata, int fd,
			     uint64_t handle, uint64_t timeout_ns,
			     struct gspace_wait *out)
{
	struct gspace_wait w;

	ASSERT_OK(wait_raw(fd, handle, 0, now_ns() + timeout_ns, &w));
	if (out)
		*out = w;
	return w.status;
}

static inline void t_wait_granted(struct __test_meta *_metadata, int fd,
				  uint64_t handle, uint64_t timeout_ns)
{
	ASSERT_OK(wait_raw(fd, handle, GSPACE_WAIT_GRANTED,
			   now_ns() + timeout_ns, NULL));
}

static inline int complete_fl_raw(int fd, uint64_t handle, uint64_t gpu_ns,
				  int32_t error, uint32_t flags)
{
	struct gspace_complete c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.flags = flags;
	c.handle = handle;
	c.gpu_ns = gpu_ns;
	c.error = error;
	return gsp_ioctl(fd, GSPACE_IOCTL_COMPLETE, &c);
}

static inline int complete_raw(int fd, uint64_t handle, uint64_t gpu_ns,
			       int32_t error)
{
	return complete_fl_raw(fd, handle, gpu_ns, error, 0);
}

/* Renews a running lease, reporting @gpu_ns used so far (ABI 1.3). */
static inline int progress_raw(int fd, uint64_t handle, uint64_t gpu_ns)
{
	return complete_fl_raw(fd, handle, gpu_ns, 0,
			       GSPACE_COMPLETE_PROGRESS);
}

static inline int cancel_raw(int fd, uint64_t handle)
{
	struct gspace_cancel c;

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	c.handle = handle;
	return gsp_ioctl(fd, GSPACE_IOCTL_CANCEL, &c);
}

static inline void t_stats(struct __test_meta *_metadata, int fd,
			   struct gspace_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	ASSERT_OK(gsp_ioctl(fd, GSPACE_IOCTL_STATS, st));
}

/* Fences: sync_files on the device, eventfds on the daemon. */

/* 1 if fences carry their signal time (sync_file), so tests can compare. */
static inline int fence_has_ts(void)
{
	const struct gsp_transport *t = gsp_transport();

	return t && t->sync_file;
}

/*
 * 1 signaled, 0 pending, < 0 the error; *@ts the signal time where
 * fence_has_ts(), else 0.
 */
static inline int fence_info(struct __test_meta *_metadata, int fence,
			     uint64_t *ts)
{
	const struct gsp_transport *t = gsp_transport();
	int sig = 0, err = 0;
	uint64_t when = 0;

	ASSERT_NE(NULL, t);
	ASSERT_OK(t->fence_status(fence, &sig, &err, &when));
	if (ts)
		*ts = when;
	return !sig ? 0 : err ? err : 1;
}

/* 1 if @fence polls readable within @timeout_ms. */
static inline int fence_readable(int fence, int timeout_ms)
{
	struct pollfd p = { .fd = fence, .events = POLLIN };

	return poll(&p, 1, timeout_ms) == 1 && (p.revents & POLLIN);
}

/* Privilege. */

static inline int has_cap(int cap)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long eff = 0;

	if (!f)
		return geteuid() == 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	fclose(f);
	return !!(eff & (1ULL << cap));
}

#define REQUIRE_ROOT() do {						\
	if (geteuid() != 0)						\
		SKIP("needs root (uid %u)", (unsigned int)geteuid());	\
} while (0)

/*
 * The selected word of a choice knob: "[fifo] credit band" gives "fifo";
 * a plain "fifo" gives "fifo".
 */
static inline void knob_selected(const char *raw, char *out, size_t len)
{
	const char *b = strchr(raw, '[');
	size_t n;

	if (b) {
		const char *e = strchr(b, ']');

		b++;
		n = e ? (size_t)(e - b) : strlen(b);
	} else {
		b = raw;
		n = strlen(raw);
	}
	if (n >= len)
		n = len - 1;
	memcpy(out, b, n);
	out[n] = 0;
}

/*
 * Needs the right to set knobs (root on the device, an admin of the
 * daemon) and the knob; SKIPs otherwise. Saves its value in @saved.
 */
static inline void t_knob_save(struct __test_meta *_metadata,
			       const char *knob, char *saved, size_t len)
{
	char raw[256];
	int r;

	if (!gsp_on_daemon())
		REQUIRE_ROOT();
	r = knob_read(knob, raw, sizeof(raw));
	if (r == -ENOENT)
		SKIP("no %s/%s", knob_dir(), knob);
	ASSERT_EQ(0, r);
	knob_selected(raw, saved, len);
	if (gsp_on_daemon()) {
		/* Setting it to what it is tells whether we may. */
		r = knob_write(knob, saved);
		if (r == -EPERM)
			SKIP("not an admin of gspaced (uid %u)",
			     (unsigned int)geteuid());
		ASSERT_EQ(0, r);
	}
}

/* debugfs object counters. */

struct gsp_objects {
	long long contexts, jobs, fences;
};

static inline const char *debugfs_objects_path(void)
{
	const char *p = getenv("GSPACE_DEBUGFS");
	static char buf[256];

	snprintf(buf, sizeof(buf), "%s/objects",
		 p && *p ? p : GSP_DEBUGFS_DEFAULT);
	return buf;
}

/*
 * 0, or -errno if the counters cannot be read: debugfs objects on the
 * device, the daemon's "objects" (CTL_GET) on gspaced.
 */
static inline int objects_read(struct gsp_objects *o)
{
	char text[256], line[128];
	FILE *f;
	int seen = 0, r;

	o->contexts = o->jobs = o->fences = -1;
	if (gsp_on_daemon()) {
		r = knob_read("objects", text, sizeof(text));
		if (r)
			return r;
		f = fmemopen(text, strlen(text), "r");
	} else {
		f = fopen(debugfs_objects_path(), "r");
	}
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		long long v;

		if (sscanf(line, "contexts %lld", &v) == 1) {
			o->contexts = v;
			seen++;
		} else if (sscanf(line, "jobs %lld", &v) == 1) {
			o->jobs = v;
			seen++;
		} else if (sscanf(line, "fences %lld", &v) == 1) {
			o->fences = v;
			seen++;
		}
	}
	fclose(f);
	return seen == 3 ? 0 : -EPROTO;
}

/* Root and a readable objects file, mounting debugfs if need be. */
static inline void t_objects_baseline(struct __test_meta *_metadata,
				      struct gsp_objects *o)
{
	int r;

	if (!gsp_on_daemon())
		REQUIRE_ROOT();
	r = objects_read(o);
	if (r == -ENOENT && !gsp_on_daemon() && !getenv("GSPACE_DEBUGFS")) {
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
		r = objects_read(o);
	}
	if (r == -ENOENT)
		SKIP("no %s", debugfs_objects_path());
	ASSERT_EQ(0, r);
}

/* Polls until the counters equal @base or @timeout_ms passes; 1 if equal. */
static inline int objects_settle(const struct gsp_objects *base,
				 struct gsp_objects *now, int timeout_ms)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC;

	for (;;) {
		if (objects_read(now) == 0 && now->contexts == base->contexts &&
		    now->jobs == base->jobs && now->fences == base->fences)
			return 1;
		if (now_ns() >= end)
			return 0;
		sleep_ms(10);
	}
}

#endif /* GSP_UTIL_H */
