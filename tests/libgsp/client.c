// SPDX-License-Identifier: GPL-2.0
/*
 * A libgsp client as a user builds it, with pkg-config against an
 * installed libgsp (tests/libgsp/run.sh). Run with GSP_ARBITER=kernel and
 * a GSPACE_DEV that does not exist: gsp_open must say -ENOENT.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gsp.h>
#include <gsp_board.h>

int main(void)
{
	enum gsp_arbiter a;
	struct gsp *g;
	int ret;

	if (gsp_arbiter_parse("daemon", &a) || a != GSP_ARBITER_DAEMON) {
		printf("gsp_arbiter_parse(daemon) failed\n");
		return 1;
	}
	ret = gsp_open(&g, NULL);
	if (ret != -ENOENT) {
		printf("gsp_open: %d (%s), expected -ENOENT\n", ret,
		       strerror(-ret));
		if (!ret)
			gsp_close(g);
		return 1;
	}
	printf("gsp_open with no device: -ENOENT, as expected\n");
	return 0;
}
