/* SPDX-License-Identifier: GPL-2.0 */
/* What gsp-xform's unit test programs share: a PTX header, a run, a count. */
#ifndef GSP_TESTS_XFORM_TEST_H
#define GSP_TESTS_XFORM_TEST_H

#include <string.h>

#include "tap.h"
#include "xform.h"

#define HEAD ".version 8.0\n.target sm_90\n.address_size 64\n"

/* gsp_xform() on @src, its error said on failure; *@rc its return. */
static inline struct gsp_xform_result run(const char *src,
					  const char *const *only, int *rc)
{
	struct gsp_xform_result r;
	char err[256];

	*rc = gsp_xform(src, strlen(src), only, &r, err, sizeof(err));
	if (*rc)
		tap_diag("gsp_xform: %s", err);
	return r;
}

/* How many times @needle occurs in @hay, overlaps counted. */
static inline size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

#endif
