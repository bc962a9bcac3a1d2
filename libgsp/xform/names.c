// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Names to indices by open addressing: modules can declare thousands of
 * variables and functions, and the rewriters look up every word.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "names.h"

static uint32_t name_hash(const char *p, uint32_t len)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (len--)
		h = (h ^ (unsigned char)*p++) * 16777619u;
	return h;
}

int names_init(struct names *h, size_t n)
{
	size_t cap = 8;

	while (cap < 2 * n + 1)
		cap *= 2;
	h->e = cap <= UINT32_MAX ? calloc(cap, sizeof(*h->e)) : NULL;
	h->mask = (uint32_t)(cap - 1);
	return h->e ? 0 : -1;
}

void names_free(struct names *h)
{
	free(h->e);
	h->e = NULL;
}

static struct name_ent *names_slot(const struct names *h, const char *p,
				   uint32_t len)
{
	uint32_t i = name_hash(p, len) & h->mask;

	while (h->e[i].p && (h->e[i].len != len || memcmp(h->e[i].p, p, len)))
		i = (i + 1) & h->mask;
	return &h->e[i];
}

int names_put(struct names *h, const char *p, uint32_t len, uint32_t val)
{
	struct name_ent *e = names_slot(h, p, len);

	if (!e->p)
		*e = (struct name_ent){ .p = p, .len = len, .val = val };
	return (int)e->val;
}

int names_get(const struct names *h, const char *p, uint32_t len)
{
	const struct name_ent *e = names_slot(h, p, len);

	return e->p ? (int)e->val : -1;
}
