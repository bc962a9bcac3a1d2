/* SPDX-License-Identifier: GPL-2.0 */
/* The test controls of the fake libgsp (fake_gsp.c). */
#ifndef FAKE_GSP_H
#define FAKE_GSP_H

#include <stdint.h>

#define FAKE_SUBMIT	1
#define FAKE_COMPLETE	2
#define FAKE_PROGRESS	3	/* COMPLETE with GSPACE_COMPLETE_PROGRESS */
#define FAKE_REOPEN	4

struct fake_gsp_rec {
	int op;			/* FAKE_* */
	uint32_t engine;	/* SUBMIT only */
	uint64_t handle;
	uint64_t ns;		/* SUBMIT: cost_ns; COMPLETE: gpu_ns */
	/* SUBMIT: its flags and, with GSPACE_SUBMIT_TASK_HEAD, the task */
	uint32_t flags;
	uint64_t task_compute_ns, task_d2h_ns;
};

#endif /* FAKE_GSP_H */
