// SPDX-License-Identifier: GPL-2.0
/*
 * gspace_bench: the cost of the arbiter's ioctl path.
 *
 * Measures, in one run and on one transport (see gsp_transport.h):
 *
 *   enotty       an unknown ioctl number (the null ioctl: the syscall and
 *                the driver's dispatch, nothing else)
 *   version      GSPACE_IOCTL_VERSION (copy in, copy out)
 *   submit_wait  SUBMIT of a zero-cost job on sim device 0, then WAIT for
 *                it: one full job round trip
 *
 * each timed per call over -n iterations (default 20000) after a warm-up,
 * the three interleaved call by call,
 * reported as median and p99 and as a ratio to enotty and to version; then
 * the job throughput of 1 tenant and of -T tenants (default 64), each a
 * thread with its own descriptor, keeping -w jobs (default 16) in flight.
 *
 * Output: "# " comment lines, then a CSV with a header line:
 *
 *   metric,tenants,iterations,median_ns,p99_ns,ratio_enotty,ratio_version,jobs_per_s
 *
 * Exit status: 0, 1 on an error, 4 if there is no arbiter.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "gsp_transport.h"

#define NSEC_PER_SEC 1000000000ULL

static int iters = 20000;
static int tenants = 64;
static int window = 16;
static int jobs_per_tenant = 2000;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct result {
	uint64_t median, p99;
};

static struct result summarize(uint64_t *v, int n)
{
	struct result r;
	int i99 = (int)((n * 99LL) / 100);

	qsort(v, n, sizeof(*v), cmp_u64);
	if (i99 >= n)
		i99 = n - 1;
	r.median = v[n / 2];
	r.p99 = v[i99];
	return r;
}

static void die(const char *what)
{
	printf("# error: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int op_enotty(int fd)
{
	struct gspace_version v = { .size = sizeof(v) };

	if (gsp_ioctl(fd, _IO(GSPACE_IOCTL_TYPE, 0x7f), &v) != -1 ||
	    errno != ENOTTY) {
		errno = errno ? errno : EPROTO;
		return -1;
	}
	return 0;
}

static int op_version(int fd)
{
	struct gspace_version v = { .size = sizeof(v) };

	return gsp_ioctl(fd, GSPACE_IOCTL_VERSION, &v);
}

static int submit0(int fd, uint64_t *handle)
{
	struct gspace_submit s;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.engine = GSPACE_ENGINE_COMPUTE;
	if (gsp_ioctl(fd, GSPACE_IOCTL_SUBMIT, &s))
		return -1;
	*handle = s.handle;
	return 0;
}

static int wait_end(int fd, uint64_t handle)
{
	struct gspace_wait w;

	memset(&w, 0, sizeof(w));
	w.size = sizeof(w);
	w.handle = handle;
	w.deadline_ns = now_ns() + 60 * NSEC_PER_SEC;
	if (gsp_ioctl(fd, GSPACE_IOCTL_WAIT, &w))
		return -1;
	if (w.status) {
		errno = -w.status;
		return -1;
	}
	return 0;
}

static int op_submit_wait(int fd)
{
	uint64_t h;

	if (submit0(fd, &h))
		return -1;
	return wait_end(fd, h);
}

/*
 * Times the three operations interleaved, call by call, so that drift in
 * the machine (frequency, a VM's timer) affects them alike.
 */
static void time_ops(int fd, int (*const op[])(int), const char *const name[],
		     int nops, uint64_t **samples, struct result *res)
{
	int i, k, warm = iters / 10 + 1;
	uint64_t t0;

	for (i = 0; i < warm; i++)
		for (k = 0; k < nops; k++)
			if (op[k](fd))
				die(name[k]);
	for (i = 0; i < iters; i++)
		for (k = 0; k < nops; k++) {
			t0 = now_ns();
			if (op[k](fd))
				die(name[k]);
			samples[k][i] = now_ns() - t0;
		}
	for (k = 0; k < nops; k++)
		res[k] = summarize(samples[k], iters);
}

struct tenant {
	pthread_t thread;
	pthread_barrier_t *start;
	int fd;
	int jobs;
	int err;
	uint64_t t0, t1;
};

static void *tenant_main(void *arg)
{
	struct tenant *t = arg;
	uint64_t ring[256];
	int head = 0, tail = 0, submitted = 0, done = 0;

	pthread_barrier_wait(t->start);
	t->t0 = now_ns();
	while (done < t->jobs) {
		while (submitted < t->jobs && head - tail < window) {
			if (submit0(t->fd, &ring[head % 256])) {
				if (errno == ENOSPC && head > tail)
					break;
				t->err = errno;
				return NULL;
			}
			head++;
			submitted++;
		}
		if (wait_end(t->fd, ring[tail % 256])) {
			t->err = errno;
			return NULL;
		}
		tail++;
		done++;
	}
	t->t1 = now_ns();
	return NULL;
}

/* Jobs per second of @n tenants together, each with @jobs jobs. */
static double throughput(int n, int jobs, int ndev)
{
	struct tenant *t = calloc(n, sizeof(*t));
	pthread_barrier_t start;
	uint64_t first = UINT64_MAX, last = 0;
	int i;

	if (!t)
		die("calloc");
	pthread_barrier_init(&start, NULL, n);
	for (i = 0; i < n; i++) {
		struct gspace_ctx_set c = {
			.size = sizeof(c),
			.device = ndev > 0 ? (uint32_t)(i % ndev) : 0,
			.class = GSPACE_CLASS_BE,
			.weight = GSPACE_WEIGHT_DEFAULT,
		};

		t[i].fd = gsp_open();
		if (t[i].fd < 0)
			die("open");
		if (gsp_ioctl(t[i].fd, GSPACE_IOCTL_CTX_SET, &c))
			die("CTX_SET");
		t[i].start = &start;
		t[i].jobs = jobs;
	}
	for (i = 0; i < n; i++)
		if (pthread_create(&t[i].thread, NULL, tenant_main, &t[i]))
			die("pthread_create");
	for (i = 0; i < n; i++) {
		pthread_join(t[i].thread, NULL);
		if (t[i].err) {
			errno = t[i].err;
			die("tenant");
		}
		if (t[i].t0 < first)
			first = t[i].t0;
		if (t[i].t1 > last)
			last = t[i].t1;
		gsp_close(t[i].fd);
	}
	pthread_barrier_destroy(&start);
	free(t);
	return (double)n * jobs * NSEC_PER_SEC / (double)(last - first);
}

static int sim_devices(int num_devices)
{
	const char *e = getenv("GSPACE_SIM_DEVICES");
	char buf[32];
	FILE *f;
	int n = 0;

	if (e && *e)
		n = atoi(e);
	else if ((f = fopen("/sys/class/misc/gspace/sim_devices", "r"))) {
		if (fgets(buf, sizeof(buf), f))
			n = atoi(buf);
		fclose(f);
	}
	if (n <= 0)
		n = 1;
	return n < num_devices ? n : num_devices;
}

int main(int argc, char **argv)
{
	struct result r_null, r_ver, r_job;
	struct gspace_version v = { .size = sizeof(v) };
	int (*const ops[3])(int) = { op_enotty, op_version, op_submit_wait };
	const char *const names[3] = { "enotty", "VERSION", "SUBMIT+WAIT" };
	struct result res[3];
	struct utsname u;
	uint64_t *samples[3];
	double tp1, tpn;
	int opt, fd, nsim, k;

	while ((opt = getopt(argc, argv, "n:T:w:j:")) != -1) {
		switch (opt) {
		case 'n':
			iters = atoi(optarg);
			break;
		case 'T':
			tenants = atoi(optarg);
			break;
		case 'w':
			window = atoi(optarg);
			break;
		case 'j':
			jobs_per_tenant = atoi(optarg);
			break;
		default:
			fprintf(stderr,
				"usage: %s [-n iters] [-T tenants] [-w window] [-j jobs per tenant]\n",
				argv[0]);
			return 1;
		}
	}
	if (iters < 10 || tenants < 1 || window < 1 || window > 256 ||
	    jobs_per_tenant < 1) {
		fprintf(stderr, "%s: bad arguments\n", argv[0]);
		return 1;
	}

	fd = gsp_open();
	if (fd < 0) {
		printf("# no gspace arbiter at %s: %s\n", gsp_where(),
		       strerror(errno));
		return gsp_absent_errno(errno) ? 4 : 1;
	}
	if (gsp_ioctl(fd, GSPACE_IOCTL_VERSION, &v))
		die("VERSION");
	nsim = sim_devices(v.num_devices);
	uname(&u);
	printf("# gspace_bench: transport %s (%s), abi %u.%u, %u devices (%d sim)\n",
	       gsp_transport()->name, gsp_where(), v.abi_major, v.abi_minor,
	       v.num_devices, nsim);
	printf("# kernel %s %s, %ld cpus\n", u.release, u.machine,
	       sysconf(_SC_NPROCESSORS_ONLN));
	printf("# %d iterations per latency, %d jobs per tenant, window %d\n",
	       iters, jobs_per_tenant, window);
	fflush(stdout);

	for (k = 0; k < 3; k++) {
		samples[k] = calloc(iters, sizeof(uint64_t));
		if (!samples[k])
			die("calloc");
	}
	time_ops(fd, ops, names, 3, samples, res);
	r_null = res[0];
	r_ver = res[1];
	r_job = res[2];
	for (k = 0; k < 3; k++)
		free(samples[k]);
	gsp_close(fd);

	tp1 = throughput(1, jobs_per_tenant, nsim);
	tpn = throughput(tenants, jobs_per_tenant, nsim);

	printf("# submit+wait round trip: median %.2fx the null ioctl, %.2fx VERSION\n",
	       (double)r_job.median / r_null.median,
	       (double)r_job.median / r_ver.median);
	printf("metric,tenants,iterations,median_ns,p99_ns,ratio_enotty,ratio_version,jobs_per_s\n");
	printf("enotty,1,%d,%llu,%llu,1.00,%.2f,\n", iters,
	       (unsigned long long)r_null.median,
	       (unsigned long long)r_null.p99,
	       (double)r_null.median / r_ver.median);
	printf("version,1,%d,%llu,%llu,%.2f,1.00,\n", iters,
	       (unsigned long long)r_ver.median, (unsigned long long)r_ver.p99,
	       (double)r_ver.median / r_null.median);
	printf("submit_wait,1,%d,%llu,%llu,%.2f,%.2f,\n", iters,
	       (unsigned long long)r_job.median, (unsigned long long)r_job.p99,
	       (double)r_job.median / r_null.median,
	       (double)r_job.median / r_ver.median);
	printf("throughput,1,%d,,,,,%.0f\n", jobs_per_tenant, tp1);
	printf("throughput,%d,%d,,,,,%.0f\n", tenants, tenants * jobs_per_tenant,
	       tpn);
	return 0;
}
