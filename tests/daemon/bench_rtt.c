// SPDX-License-Identifier: GPL-2.0
/*
 * bench_rtt: round trips through gspaced, one tenant, one thread.
 *
 *   sim_submit_wait      SUBMIT of a zero-cost job on sim device 0, then
 *                        WAIT for its end
 *   lease_submit_grant_complete  SUBMIT on the first lease device, WAIT
 *                        GRANTED, COMPLETE: the lease protocol of one job
 *
 * Each timed per job over -n iterations (default 20000) after 1000 of
 * warm-up. Prints "# " lines, then CSV: metric,iterations,median_ns,p99_ns.
 * Needs $GSP_SOCKET and a daemon with sim device 0 and a lease device
 * (-l DEV, default 1). Exit 1 on any error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gspace.h"
#include "gspd_proto.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int one_sim(struct gspd_conn *c)
{
	struct gspace_submit s = { .size = sizeof(s) };
	struct gspace_wait w = { .size = sizeof(w) };
	int r = gspd_ioctl(c, GSPACE_IOCTL_SUBMIT, &s);

	if (r)
		return r;
	w.handle = s.handle;
	w.deadline_ns = now_ns() + 5000000000ULL;
	r = gspd_ioctl(c, GSPACE_IOCTL_WAIT, &w);
	return r ? r : w.status;
}

static int one_lease(struct gspd_conn *c)
{
	struct gspace_submit s = { .size = sizeof(s) };
	struct gspace_wait w = { .size = sizeof(w),
				 .flags = GSPACE_WAIT_GRANTED };
	struct gspace_complete k = { .size = sizeof(k), .gpu_ns = 1000 };
	int r = gspd_ioctl(c, GSPACE_IOCTL_SUBMIT, &s);

	if (r)
		return r;
	w.handle = k.handle = s.handle;
	w.deadline_ns = now_ns() + 5000000000ULL;
	r = gspd_ioctl(c, GSPACE_IOCTL_WAIT, &w);
	return r ? r : gspd_ioctl(c, GSPACE_IOCTL_COMPLETE, &k);
}

static int run(const char *name, struct gspd_conn *c, int n,
	       int (*fn)(struct gspd_conn *))
{
	uint64_t *t = calloc(n, sizeof(*t));
	int i, r;

	if (!t)
		return -ENOMEM;
	for (i = 0; i < 1000; i++)
		if ((r = fn(c)))
			goto out;
	for (i = 0; i < n; i++) {
		uint64_t t0 = now_ns();

		if ((r = fn(c)))
			goto out;
		t[i] = now_ns() - t0;
	}
	qsort(t, n, sizeof(*t), cmp_u64);
	printf("%s,%d,%llu,%llu\n", name, n, (unsigned long long)t[n / 2],
	       (unsigned long long)t[(size_t)n * 99 / 100]);
	r = 0;
out:
	free(t);
	return r;
}

int main(int argc, char **argv)
{
	struct gspace_ctx_set cs = { .size = sizeof(cs), .weight = 100 };
	const char *sock = getenv("GSP_SOCKET");
	struct gspd_conn *sim, *lease;
	int n = 20000, opt, r;
	char *end;

	while ((opt = getopt(argc, argv, "n:l:")) != -1) {
		long v = strtol(optarg, &end, 10);

		if (*end || v < 1 || v > 10000000) {
			fprintf(stderr, "%s: -%c wants a positive number\n",
				argv[0], opt);
			return 1;
		}
		if (opt == 'n')
			n = (int)v;
		else if (opt == 'l')
			cs.device = (uint32_t)v;
	}
	if (!cs.device)
		cs.device = 1;
	if (!sock || !*sock) {
		fprintf(stderr, "%s: set GSP_SOCKET to gspaced's socket\n", argv[0]);
		return 1;
	}
	if ((r = gspd_connect(sock, &sim)) || (r = gspd_connect(sock, &lease)) ||
	    (r = gspd_ioctl(lease, GSPACE_IOCTL_CTX_SET, &cs))) {
		fprintf(stderr, "%s: %s: %s\n", argv[0], sock, strerror(-r));
		return 1;
	}
	printf("# gspaced round trips, one tenant and one thread each, %d jobs\n", n);
	printf("metric,iterations,median_ns,p99_ns\n");
	r = run("sim_submit_wait", sim, n, one_sim);
	if (!r)
		r = run("lease_submit_grant_complete", lease, n, one_lease);
	gspd_disconnect(sim);
	gspd_disconnect(lease);
	if (r)
		fprintf(stderr, "%s: %s\n", argv[0], strerror(-r));
	return r ? 1 : 0;
}
