/* SPDX-License-Identifier: GPL-2.0 */
/* The test controls of the fake libgsp (fake_gsp.c). */
#ifndef FAKE_GSP_H
#define FAKE_GSP_H

#include <stdint.h>

#define FAKE_SUBMIT	1
#define FAKE_COMPLETE	2

struct fake_gsp_rec {
	int op;			/* FAKE_SUBMIT or FAKE_COMPLETE */
	uint32_t engine;	/* SUBMIT only */
	uint64_t handle;
	uint64_t ns;		/* SUBMIT: cost_ns; COMPLETE: gpu_ns */
};

#endif /* FAKE_GSP_H */
