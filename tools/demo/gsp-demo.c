// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-demo: one latency-critical tenant and three best-effort tenants share
 * one gspace device, under each scheduling policy the module offers.
 *
 * The device is a SIMULATED engine: a job "runs" for exactly its cost_ns on
 * a kernel timer; no GPU is involved. What the demo shows is the arbiter:
 * who gets the device when, and what that does to the LC tenant's latency.
 *
 *   lc    class LC, a 200 us job every 2 ms, latency target 1 ms
 *   be-1  class BE, weight 100, 2 ms jobs back to back
 *   be-2  class BE, weight 100, 5 ms jobs back to back
 *   be-3  class BE, weight 200, 10 ms jobs back to back
 *
 * Each tenant is one open file of /dev/gspace driven by one thread: SUBMIT,
 * then WAIT with an absolute CLOCK_MONOTONIC deadline. Setting class LC
 * needs CAP_SYS_NICE (or the operator's lc_group), so run it as root.
 *
 * Usage: gsp-demo [-t SECONDS] [-d DEVICE] [-p POLICY[,POLICY...]]
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "gspace.h"

#define DEV_PATH	"/dev/gspace"
#define SYSFS_DIR	"/sys/class/misc/gspace/"
#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_USEC	1000ULL
#define WAIT_LIMIT_NS	(5 * NSEC_PER_SEC)
#define MAX_POLICIES	8
#define NUM_TENANTS	4

struct tenant {
	/* the scenario */
	const char *name;
	uint32_t class;
	uint32_t weight;
	uint64_t cost_ns;
	uint64_t period_ns;	/* LC: one job per period; BE: 0, closed loop */
	uint64_t lc_target_ns;

	/* one run */
	int fd;
	uint64_t start_ns, end_ns;
	uint32_t device;
	pthread_t thread;
	uint64_t *lat;		/* LC: latency_ns of each job */
	size_t nlat, cap;
	uint64_t late_releases;	/* LC: periods missed, job still running */
	struct gspace_stats st;
	bool failed;
	char err[256];
};

struct result {
	const char *policy;
	bool ran;
	uint64_t p50, p99, max;
	uint64_t lc_jobs, qos;
	double share[NUM_TENANTS];
};

static const struct tenant scenario[NUM_TENANTS] = {
	{ .name = "lc", .class = GSPACE_CLASS_LC, .weight = 100,
	  .cost_ns = 200 * NSEC_PER_USEC, .period_ns = 2 * NSEC_PER_MSEC,
	  .lc_target_ns = 1 * NSEC_PER_MSEC },
	{ .name = "be-1", .class = GSPACE_CLASS_BE, .weight = 100,
	  .cost_ns = 2 * NSEC_PER_MSEC },
	{ .name = "be-2", .class = GSPACE_CLASS_BE, .weight = 100,
	  .cost_ns = 5 * NSEC_PER_MSEC },
	{ .name = "be-3", .class = GSPACE_CLASS_BE, .weight = 200,
	  .cost_ns = 10 * NSEC_PER_MSEC },
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = {
		.tv_sec = (time_t)(t / NSEC_PER_SEC),
		.tv_nsec = (long)(t % NSEC_PER_SEC),
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

static double ms(uint64_t ns)
{
	return (double)ns / (double)NSEC_PER_MSEC;
}

static void fail(struct tenant *t, const char *fmt, ...)
{
	va_list ap;

	if (t->failed)
		return;
	va_start(ap, fmt);
	vsnprintf(t->err, sizeof(t->err), fmt, ap);
	va_end(ap);
	t->failed = true;
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	int ret;

	do {
		ret = ioctl(fd, req, arg);
	} while (ret < 0 && errno == EINTR);
	return ret;
}

/* One job, start to end. Returns 0, or -1 with t->err set. */
static int run_job(struct tenant *t, uint64_t seq)
{
	struct gspace_submit s = {
		.size = sizeof(s),
		.engine = GSPACE_ENGINE_COMPUTE,
		.cost_ns = t->cost_ns,
		.user_tag = seq,
	};
	struct gspace_wait w = { .size = sizeof(w) };

	if (xioctl(t->fd, GSPACE_IOCTL_SUBMIT, &s)) {
		fail(t, "SUBMIT of job %llu failed: %s%s",
		     (unsigned long long)seq, strerror(errno),
		     errno == ENOSPC ? " (too many live jobs)" :
		     errno == EBUSY ? " (tenant marked hung by the watchdog)" :
		     "");
		return -1;
	}
	w.handle = s.handle;
	w.deadline_ns = now_ns() + WAIT_LIMIT_NS;
	if (xioctl(t->fd, GSPACE_IOCTL_WAIT, &w)) {
		int e = errno;
		struct gspace_cancel c = {
			.size = sizeof(c), .handle = s.handle,
		};

		if (e == ETIME) {
			fail(t, "job %llu (%.2f ms) had not ended after %llu s: the sim engine looks stuck",
			     (unsigned long long)seq, ms(t->cost_ns),
			     (unsigned long long)(WAIT_LIMIT_NS / NSEC_PER_SEC));
			xioctl(t->fd, GSPACE_IOCTL_CANCEL, &c);
		} else {
			fail(t, "WAIT for job %llu failed: %s",
			     (unsigned long long)seq, strerror(e));
		}
		return -1;
	}
	if (w.status) {
		fail(t, "job %llu ended with an error: %s",
		     (unsigned long long)seq, strerror(-w.status));
		return -1;
	}
	if (t->period_ns) {
		if (t->nlat == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 1024;
			uint64_t *p = realloc(t->lat, cap * sizeof(*p));

			if (!p) {
				fail(t, "out of memory for latencies");
				return -1;
			}
			t->lat = p;
			t->cap = cap;
		}
		t->lat[t->nlat++] = w.latency_ns;
	}
	return 0;
}

static void *tenant_main(void *arg)
{
	struct tenant *t = arg;
	uint64_t seq = 0, next;

	sleep_until(t->start_ns);
	next = t->start_ns;
	for (;;) {
		uint64_t now = now_ns();

		if (t->period_ns) {
			/* LC: released once per period; a late job skips the
			 * releases it ran over, as a real frame-driven
			 * service would drop frames.
			 */
			while (next + t->period_ns <= now) {
				next += t->period_ns;
				t->late_releases++;
			}
			if (next >= t->end_ns)
				break;
			sleep_until(next);
			next += t->period_ns;
		} else if (now >= t->end_ns) {
			break;
		}
		if (run_job(t, ++seq))
			break;
	}
	t->st.size = sizeof(t->st);
	if (xioctl(t->fd, GSPACE_IOCTL_STATS, &t->st))
		fail(t, "STATS failed: %s", strerror(errno));
	return NULL;
}

static int open_tenant(struct tenant *t)
{
	struct gspace_ctx_set c = {
		.size = sizeof(c),
		.device = t->device,
		.class = t->class,
		.weight = t->weight,
		.lc_target_ns = t->lc_target_ns,
	};

	t->fd = open(DEV_PATH, O_RDWR | O_CLOEXEC);
	if (t->fd < 0) {
		fail(t, "cannot open %s: %s", DEV_PATH, strerror(errno));
		return -1;
	}
	if (xioctl(t->fd, GSPACE_IOCTL_CTX_SET, &c)) {
		int e = errno;

		fail(t, "CTX_SET (class %s, weight %u, device %u) failed: %s%s",
		     t->class == GSPACE_CLASS_LC ? "LC" : "BE", t->weight,
		     t->device, strerror(e),
		     e == EPERM ? " (class LC needs root, CAP_SYS_NICE or the lc_group of "
				  SYSFS_DIR "lc_group)" :
		     e == ENODEV ? " (no such device: see -d)" : "");
		close(t->fd);
		t->fd = -1;
		return -1;
	}
	return 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted v[0..n-1]. */
static uint64_t pct(const uint64_t *v, size_t n, unsigned int p)
{
	size_t rank;

	if (!n)
		return 0;
	rank = (n * p + 99) / 100;
	return v[rank ? rank - 1 : 0];
}

static int sysfs_read(const char *knob, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), SYSFS_DIR "%s", knob);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Returns 0, or the errno of the failed write. */
static int sysfs_write(const char *knob, const char *val)
{
	char path[128];
	ssize_t n;
	int fd, e = 0;

	snprintf(path, sizeof(path), SYSFS_DIR "%s", knob);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		e = errno;
	else if ((size_t)n != strlen(val))
		e = EIO;
	close(fd);
	return e;
}

/* The current policy from a "fifo" or "[fifo] credit band" style value. */
static void current_policy(const char *val, char *out, size_t len)
{
	const char *b = strchr(val, '[');
	size_t n;

	if (b) {
		val = b + 1;
		n = strcspn(val, "]");
	} else {
		n = strcspn(val, " \t");
	}
	if (n >= len)
		n = len - 1;
	memcpy(out, val, n);
	out[n] = 0;
}

static void print_table(const char *policy, struct tenant *t, uint32_t device,
			uint64_t dur_ns, struct result *r)
{
	uint64_t total = 0;
	struct tenant *lc = &t[0];
	int i;

	for (i = 0; i < NUM_TENANTS; i++)
		total += t[i].st.gpu_ns[GSPACE_ENGINE_COMPUTE];

	qsort(lc->lat, lc->nlat, sizeof(*lc->lat), cmp_u64);
	r->p50 = pct(lc->lat, lc->nlat, 50);
	r->p99 = pct(lc->lat, lc->nlat, 99);
	r->max = lc->nlat ? lc->lat[lc->nlat - 1] : 0;
	r->lc_jobs = lc->st.completed;
	r->qos = lc->st.qos_violations;
	for (i = 0; i < NUM_TENANTS; i++)
		r->share[i] = total ? 100.0 *
			(double)t[i].st.gpu_ns[GSPACE_ENGINE_COMPUTE] /
			(double)total : 0.0;
	r->ran = true;

	printf("\n== policy %s: %.1f s on device %u, a SIMULATED engine ==\n",
	       policy, (double)dur_ns / NSEC_PER_SEC, device);
	printf("%-6s %-5s %6s %9s %7s %7s %10s %10s %7s %9s\n", "tenant",
	       "class", "weight", "job", "jobs", "failed", "GPU ms",
	       "ms/job", "share", "QoS viol.");
	for (i = 0; i < NUM_TENANTS; i++) {
		char qos[24] = "-";

		if (t[i].class == GSPACE_CLASS_LC)
			snprintf(qos, sizeof(qos), "%llu",
				 (unsigned long long)t[i].st.qos_violations);
		uint64_t gpu = t[i].st.gpu_ns[GSPACE_ENGINE_COMPUTE];
		uint64_t n = t[i].st.completed;

		printf("%-6s %-5s %6u %6.2f ms %7llu %7llu %10.1f %10.3f %6.1f%% %9s\n",
		       t[i].name, t[i].class == GSPACE_CLASS_LC ? "LC" : "BE",
		       t[i].weight, ms(t[i].cost_ns), (unsigned long long)n,
		       (unsigned long long)t[i].st.failed, ms(gpu),
		       n ? ms(gpu / n) : 0.0, r->share[i], qos);
	}
	printf("LC latency, submit to end (target %.2f ms): p50 %.3f ms, p99 %.3f ms, max %.3f ms\n",
	       ms(lc->lc_target_ns), ms(r->p50), ms(r->p99), ms(r->max));
	printf("LC QoS violations: %llu of %llu jobs (%.1f%%); releases skipped because the previous LC job was late: %llu\n",
	       (unsigned long long)r->qos, (unsigned long long)r->lc_jobs,
	       r->lc_jobs ? 100.0 * (double)r->qos / (double)r->lc_jobs : 0.0,
	       (unsigned long long)lc->late_releases);
	printf("device busy: %.0f ms of %.0f ms (%.0f%%)\n", ms(total),
	       ms(dur_ns), 100.0 * (double)total / (double)dur_ns);
}

/*
 * One policy: returns 1 if it ran, 0 if the module does not offer it, -1
 * on an error (already reported).
 */
static int run_policy(const char *policy, uint32_t device, uint64_t dur_ns,
		      struct result *r)
{
	struct tenant t[NUM_TENANTS];
	uint64_t start;
	int i, e, ret = 1;

	r->policy = policy;
	r->ran = false;
	e = sysfs_write("policy", policy);
	if (e == EINVAL) {
		printf("\n== policy %s: not offered by this module (writing it to %spolicy gives EINVAL), skipped ==\n",
		       policy, SYSFS_DIR);
		return 0;
	}
	if (e) {
		fprintf(stderr, "gsp-demo: cannot set policy %s in %spolicy: %s%s\n",
			policy, SYSFS_DIR, strerror(e),
			e == EACCES ? " (run as root)" : "");
		return -1;
	}

	memcpy(t, scenario, sizeof(t));
	for (i = 0; i < NUM_TENANTS; i++) {
		t[i].fd = -1;
		t[i].device = device;
	}
	for (i = 0; i < NUM_TENANTS; i++) {
		if (open_tenant(&t[i])) {
			fprintf(stderr, "gsp-demo: tenant %s: %s\n", t[i].name,
				t[i].err);
			ret = -1;
			goto out;
		}
	}
	/* All tenants start together, once every thread exists. */
	start = now_ns() + 50 * NSEC_PER_MSEC;
	for (i = 0; i < NUM_TENANTS; i++) {
		t[i].start_ns = start;
		t[i].end_ns = start + dur_ns;
	}
	for (i = 0; i < NUM_TENANTS; i++) {
		e = pthread_create(&t[i].thread, NULL, tenant_main, &t[i]);
		if (e) {
			fprintf(stderr, "gsp-demo: cannot start a thread for tenant %s: %s\n",
				t[i].name, strerror(e));
			ret = -1;
			break;
		}
	}
	while (i-- > 0)
		pthread_join(t[i].thread, NULL);
	for (i = 0; i < NUM_TENANTS; i++) {
		if (t[i].failed) {
			fprintf(stderr, "gsp-demo: policy %s, tenant %s: %s\n",
				policy, t[i].name, t[i].err);
			ret = -1;
		}
	}
	if (ret == 1)
		print_table(policy, t, device, dur_ns, r);
out:
	for (i = 0; i < NUM_TENANTS; i++) {
		if (t[i].fd >= 0)
			close(t[i].fd);
		free(t[i].lat);
	}
	return ret;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gsp-demo [-t SECONDS] [-d DEVICE] [-p POLICY[,POLICY...]]\n"
		"  -t  seconds each policy runs (default 3)\n"
		"  -d  gspace device, a sim device (default 0)\n"
		"  -p  policies to compare (default fifo,credit,band)\n"
		"Runs one LC and three BE tenants on %s under each policy\n"
		"(set through %spolicy) and prints LC latency, QoS\n"
		"violations and each tenant's share of the device. Run as root.\n",
		DEV_PATH, SYSFS_DIR);
}

int main(int argc, char **argv)
{
	static char policy_buf[256];
	struct gspace_version v = { .size = sizeof(v) };
	struct result res[MAX_POLICIES];
	const char *policies[MAX_POLICIES];
	char saved[64] = "", buf[256];
	uint64_t dur_ns = 3 * NSEC_PER_SEC;
	uint32_t device = 0;
	int npol = 0, nran = 0, i, j, fd, opt, status = 0;
	char *p, *end;

	snprintf(policy_buf, sizeof(policy_buf), "fifo,credit,band");
	while ((opt = getopt(argc, argv, "t:d:p:h")) != -1) {
		switch (opt) {
		case 't': {
			double s = strtod(optarg, &end);

			if (*end || s <= 0 || s > 3600) {
				fprintf(stderr, "gsp-demo: -t wants seconds in (0, 3600], got '%s'\n",
					optarg);
				return 2;
			}
			dur_ns = (uint64_t)(s * (double)NSEC_PER_SEC);
			break;
		}
		case 'd': {
			unsigned long d = strtoul(optarg, &end, 10);

			if (*end || end == optarg || d > UINT32_MAX) {
				fprintf(stderr, "gsp-demo: -d wants a device number, got '%s'\n",
					optarg);
				return 2;
			}
			device = (uint32_t)d;
			break;
		}
		case 'p':
			snprintf(policy_buf, sizeof(policy_buf), "%s", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	for (p = strtok(policy_buf, ","); p; p = strtok(NULL, ",")) {
		if (npol == MAX_POLICIES) {
			fprintf(stderr, "gsp-demo: at most %d policies\n",
				MAX_POLICIES);
			return 2;
		}
		policies[npol++] = p;
	}
	if (!npol) {
		fprintf(stderr, "gsp-demo: -p names no policy\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	fd = open(DEV_PATH, O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "gsp-demo: cannot open %s: %s%s\n", DEV_PATH,
			strerror(errno),
			errno == ENOENT ? " (is gspace.ko loaded? insmod gspace.ko sim_devices=1)" :
			errno == EACCES ? " (run as root)" : "");
		return 1;
	}
	if (xioctl(fd, GSPACE_IOCTL_VERSION, &v)) {
		fprintf(stderr, "gsp-demo: VERSION failed: %s\n",
			strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	if (v.abi_major != GSPACE_ABI_MAJOR) {
		fprintf(stderr, "gsp-demo: the module speaks ABI %u.%u, this demo %u.%u: rebuild one of them\n",
			v.abi_major, v.abi_minor, GSPACE_ABI_MAJOR,
			GSPACE_ABI_MINOR);
		return 1;
	}
	if (!(v.features & GSPACE_FEAT_SIM_ENGINE)) {
		fprintf(stderr, "gsp-demo: the module has no sim engine (features 0x%llx): load it with sim_devices=1\n",
			(unsigned long long)v.features);
		return 1;
	}
	if (device >= v.num_devices) {
		fprintf(stderr, "gsp-demo: device %u does not exist: the module serves %u device(s)\n",
			device, v.num_devices);
		return 1;
	}
	if (!sysfs_read("sim_devices", buf, sizeof(buf))) {
		unsigned long nsim = strtoul(buf, NULL, 10);

		if (device >= nsim) {
			fprintf(stderr, "gsp-demo: device %u is not a sim device (sim_devices=%lu): pick one with -d\n",
				device, nsim);
			return 1;
		}
	}
	if (!v.lc_allowed) {
		fprintf(stderr, "gsp-demo: this user may not create an LC tenant: run as root (CAP_SYS_NICE) or join the group in %slc_group\n",
			SYSFS_DIR);
		return 1;
	}
	if (sysfs_read("policy", buf, sizeof(buf))) {
		fprintf(stderr, "gsp-demo: cannot read %spolicy: %s\n",
			SYSFS_DIR, strerror(errno));
		return 1;
	}
	current_policy(buf, saved, sizeof(saved));

	printf("gspace demo: ABI %u.%u, %u device(s), features 0x%llx\n",
	       v.abi_major, v.abi_minor, v.num_devices,
	       (unsigned long long)v.features);
	printf("The engine is SIMULATED: a job occupies device %u for exactly its cost on a\n"
	       "kernel timer, and no GPU is involved. What is real is the arbiter in\n"
	       "gspace.ko: its queues, policies, accounting and LC priority.\n",
	       device);
	printf("A job cannot be preempted once it runs, so an LC job that arrives while a\n"
	       "long BE job runs waits for it: the policies decide who runs next, not\n"
	       "what is running. Columns: \"GPU ms\" is the time charged to the tenant\n"
	       "(STATS), \"ms/job\" that per job: the sim engine charges each job its\n"
	       "cost; a timer that fires late (QEMU's TCG emulation) adds latency, not\n"
	       "GPU time. \"share\" is each tenant's part of all time charged; LC\n"
	       "latency is WAIT's latency_ns, submit to end.\n");
	printf("Tenants, one open file of %s each:\n", DEV_PATH);
	for (i = 0; i < NUM_TENANTS; i++) {
		const struct tenant *t = &scenario[i];

		if (t->period_ns)
			printf("  %-5s LC, %.2f ms job every %.2f ms, latency target %.2f ms\n",
			       t->name, ms(t->cost_ns), ms(t->period_ns),
			       ms(t->lc_target_ns));
		else
			printf("  %-5s BE, weight %u, %.2f ms jobs back to back\n",
			       t->name, t->weight, ms(t->cost_ns));
	}

	for (i = 0; i < npol; i++) {
		int r = run_policy(policies[i], device, dur_ns, &res[i]);

		if (r < 0)
			status = 1;
		if (r > 0)
			nran++;
	}

	if (saved[0]) {
		int e = sysfs_write("policy", saved);

		if (e) {
			fprintf(stderr, "gsp-demo: cannot restore policy %s: %s\n",
				saved, strerror(e));
			status = 1;
		}
	}

	printf("\n== summary: %.1f s per policy, SIMULATED engine ==\n",
	       (double)dur_ns / NSEC_PER_SEC);
	printf("%-8s %10s %10s %10s  share %%", "policy", "LC p50 ms",
	       "LC p99 ms", "QoS viol.");
	for (j = 0; j < NUM_TENANTS; j++)
		printf(" %6s", scenario[j].name);
	printf("\n");
	for (i = 0; i < npol; i++) {
		if (!res[i].ran) {
			printf("%-8s %s\n", policies[i],
			       status ? "(skipped or failed, see above)" :
			       "(not offered by this module)");
			continue;
		}
		printf("%-8s %10.3f %10.3f %10llu         ", res[i].policy,
		       ms(res[i].p50), ms(res[i].p99),
		       (unsigned long long)res[i].qos);
		for (j = 0; j < NUM_TENANTS; j++)
			printf(" %6.1f", res[i].share[j]);
		printf("\n");
	}
	if (!nran && !status) {
		fprintf(stderr, "gsp-demo: the module offers none of the policies asked for\n");
		status = 1;
	}
	return status;
}
