/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A client of the packaged libgsp, built with pkg-config by
 * tests/deb/test_deb.sh (against the unpacked packages) and
 * tests/deb/test_chroot.sh (inside the chroot they were installed in).
 */
#include <stdio.h>
#include <gsp.h>

int main(void)
{
	struct gspace_version v = { .size = sizeof(v) };
	struct gsp *g;
	int rc = gsp_open(&g, NULL);

	if (rc) {
		fprintf(stderr, "gsp_open: %d\n", rc);
		return 1;
	}
	rc = gsp_version(g, &v);
	printf("arbiter %s, gsp_version %d, ABI %u.%u, %u devices\n",
	       gsp_arbiter_name(g), rc, v.abi_major, v.abi_minor,
	       v.num_devices);
	gsp_close(g);
	return rc ? 1 : 0;
}
