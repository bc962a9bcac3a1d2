/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A fixed-size map from names (pointer and length, not copied) to small
 * numbers, for the PTX rewriters of libgsp/xform.
 */
#ifndef GSP_XFORM_NAMES_H
#define GSP_XFORM_NAMES_H

#include <stddef.h>
#include <stdint.h>

struct names {
	struct name_ent {
		const char *p;	/* NULL: free */
		uint32_t len, val;
	} *e;
	uint32_t mask;		/* slots - 1; slots a power of two > 2 x entries */
};

/* Room for @n names; 0, or -1 when out of memory. */
int names_init(struct names *h, size_t n);
void names_free(struct names *h);
/* Puts @val under the name unless it has one: returns the name's value. */
int names_put(struct names *h, const char *p, uint32_t len, uint32_t val);
/* The name's value, or -1. */
int names_get(const struct names *h, const char *p, uint32_t len);

#endif /* GSP_XFORM_NAMES_H */
