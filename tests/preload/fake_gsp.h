/* SPDX-License-Identifier: GPL-2.0 */
/* The test controls of the fake libgsp (fake_gsp.c). */
#ifndef FAKE_GSP_H
#define FAKE_GSP_H

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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

/*
 * A symbol of the fake libgsp, from a test under the interposer (which
 * loaded it from its own directory); NULL outside one. Needs _GNU_SOURCE
 * for dladdr().
 */
static inline void *fake_gsp_sym(const char *name)
{
	void *h = dlopen("libgsp.so.1", RTLD_NOW | RTLD_NOLOAD);
	Dl_info di;
	char path[4096];

	if (!h && dladdr(dlsym(RTLD_DEFAULT, "cuLaunchKernel"), &di)) {
		snprintf(path, sizeof(path), "%s", di.dli_fname);
		*strrchr(path, '/') = 0;
		strncat(path, "/libgsp.so.1", sizeof(path) - strlen(path) - 1);
		h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	}
	return h ? dlsym(h, name) : NULL;
}

#endif /* FAKE_GSP_H */
