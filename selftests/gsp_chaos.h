/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the chaos selftests (gspace_fuzz_test.c,
 * gspace_killanywhere_test.c): a seeded PRNG whose seed is printed and can
 * be given back, and a reader of the kernel log that counts oopses.
 */
#ifndef GSP_CHAOS_H
#define GSP_CHAOS_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

/* splitmix64: one word of state, every seed a good one. */
struct gsp_rng {
	uint64_t s;
};

static inline uint64_t rng_next(struct gsp_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n); 0 when n is 0. */
static inline uint64_t rng_below(struct gsp_rng *r, uint64_t n)
{
	return n ? rng_next(r) % n : 0;
}

/* 1 with probability num/den. */
static inline int rng_chance(struct gsp_rng *r, unsigned int num,
			     unsigned int den)
{
	return rng_below(r, den) < num;
}

/* The seed of stream @idx of a run seeded @seed. */
static inline uint64_t rng_derive(uint64_t seed, uint64_t idx)
{
	struct gsp_rng r = { seed ^ (idx * 0xd1342543de82ef95ULL) };

	rng_next(&r);
	return rng_next(&r);
}

/*
 * The run's seed: $@env (decimal or 0x hex) if set, else one from the
 * clock and the pid. The caller prints it, so a failure can be replayed.
 */
static inline uint64_t gsp_seed(const char *env)
{
	const char *e = getenv(env);
	struct timespec ts;

	if (e && *e)
		return strtoull(e, NULL, 0);
	clock_gettime(CLOCK_REALTIME, &ts);
	return rng_derive((uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec,
			  (uint64_t)getpid());
}

/* A count from the environment, or @def. */
static inline uint64_t gsp_env_count(const char *env, uint64_t def)
{
	const char *e = getenv(env);

	return e && *e ? strtoull(e, NULL, 0) : def;
}

/*
 * The kernel log from now on: /dev/kmsg, positioned at its end. -1 if it
 * cannot be read (not root, or no /dev/kmsg).
 */
static inline int kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	if (lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * What starts a kernel report: each counts as one oops. The lines that
 * follow a report (Call Trace, registers) do not count again. The same
 * list as tools/vm/run.sh's, less its markers of what follows.
 */
static const char *const gsp_kmsg_bad[] = {
	"Oops", "BUG:", "kernel BUG", "WARNING:", "general protection",
	"UBSAN:", "KASAN:", "refcount_t:", "list_add corruption",
	"list_del corruption", "Kernel panic", "soft lockup", "hard LOCKUP",
	"blocked for more than", "detected stall", "kmemleak:",
};

/*
 * Reads the records logged since kmsg_open() and returns how many start
 * a report, printing the first few as "#" comments. Closes @fd.
 */
static inline int kmsg_count_oops(int fd)
{
	char rec[8192];
	int oops = 0;
	size_t i;

	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		char *msg, *nl;

		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten before we read it */
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		/* "prio,seq,usec,flags;message\n" then " KEY=value" lines */
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		nl = strchr(msg, '\n');
		if (nl)
			*nl = 0;
		for (i = 0; i < sizeof(gsp_kmsg_bad) / sizeof(gsp_kmsg_bad[0]);
		     i++) {
			if (!strstr(msg, gsp_kmsg_bad[i]))
				continue;
			if (oops++ < 8)
				gsp_diag("kernel log: %s", msg);
			break;
		}
	}
	close(fd);
	return oops;
}

#endif /* GSP_CHAOS_H */
