/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tests' pseudo-random numbers: xorshift64*, so that every run draws
 * the same sequence from the same seed, whatever the C library's rand().
 */
#ifndef GSP_TESTS_PRNG_H
#define GSP_TESTS_PRNG_H

#include <stdint.h>

/* The next number after state *@s (never seed it with 0). */
static inline uint64_t prng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/* Uniform in [0, 1). */
static inline double prng_unif(uint64_t *s)
{
	return (double)(prng_next(s) >> 11) / 9007199254740992.0;
}

#endif /* GSP_TESTS_PRNG_H */
