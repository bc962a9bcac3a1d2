/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the GPU experiment's programs share on the host side: the clocks,
 * a sleep until a monotonic time, and strict integer arguments (exit 2
 * with a message naming the program, the option and the range).
 */
#ifndef GPU_CLI_H
#define GPU_CLI_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* CLOCK_REALTIME in ms: several processes agree on a start time in it. */
static inline uint64_t real_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* Sleeps until mono_ns() reaches @t, through signals. */
static inline void sleep_until_mono(uint64_t t)
{
	uint64_t n = mono_ns();

	if (t > n) {
		struct timespec ts = { (time_t)((t - n) / 1000000000ULL),
				       (long)((t - n) % 1000000000ULL) };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
}

static inline uint64_t cli_num(const char *prog, const char *opt,
			       const char *s, uint64_t lo, uint64_t hi)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s ? s : "", &end, 10);
	if (!s || !*s || *end || errno || s[0] == '-' || v < lo || v > hi) {
		fprintf(stderr, "%s: %s needs an integer in [%llu, %llu], got '%s'\n",
			prog, opt, (unsigned long long)lo,
			(unsigned long long)hi, s ? s : "");
		exit(2);
	}
	return v;
}

#endif /* GPU_CLI_H */
