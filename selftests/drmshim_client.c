// SPDX-License-Identifier: GPL-2.0
/*
 * A plain DRM client of gsp-testdrm, the TEST DEVICE, that knows nothing
 * of gspace: it calls the driver's submit ioctl itself, through ioctl()
 * and through libdrm's drmIoctl() in turn, and waits on its syncobj with
 * drmSyncobjWait(). Dynamically linked against libdrm.so.2, so that
 * gspace_drmshim_test.c can run it under the LD_PRELOAD shim
 * libgsp_drmshim.so and see where its submissions went.
 *
 *   drmshim_client COUNT DURATION_US CONTEXT TAG
 *
 * Submits COUNT jobs of DURATION_US on CONTEXT, tagged TAG, TAG+1, ...
 * Prints one line "elapsed_ms N" at the end. Exit status: 0 every job
 * ran; 2 bad usage; 3 no gsp-testdrm node; 4 a submit failed; 5 a wait
 * failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <xf86drm.h>

#include "../kmod/gsp_testdrm.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int open_testdrm(void)
{
	char path[64];
	int i, fd;

	for (i = 128; i < 192; i++) {
		drmVersionPtr v;

		snprintf(path, sizeof(path), "/dev/dri/renderD%d", i);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		v = drmGetVersion(fd);
		if (v && v->name && !strcmp(v->name, GSP_TESTDRM_NAME)) {
			drmFreeVersion(v);
			return fd;
		}
		if (v)
			drmFreeVersion(v);
		close(fd);
	}
	return -1;
}

static int number(const char *s, unsigned long long max,
		  unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	return !*s || *end || errno || *out > max ? -1 : 0;
}

int main(int argc, char **argv)
{
	unsigned long long count, us, ctx, tag;
	uint64_t t0 = now_ns();
	uint32_t so;
	unsigned long long i;
	int fd;

	if (argc != 5 || number(argv[1], 1000, &count) ||
	    number(argv[2], GSP_TESTDRM_MAX_US, &us) ||
	    number(argv[3], GSP_TESTDRM_CONTEXTS - 1, &ctx) ||
	    number(argv[4], UINT64_MAX, &tag)) {
		fprintf(stderr, "usage: drmshim_client COUNT(0..1000) DURATION_US(0..%llu) CONTEXT(0..%d) TAG\n",
			(unsigned long long)GSP_TESTDRM_MAX_US,
			GSP_TESTDRM_CONTEXTS - 1);
		return 2;
	}
	fd = open_testdrm();
	if (fd < 0) {
		fprintf(stderr, "drmshim_client: no gsp-testdrm render node in /dev/dri: load gsp_testdrm.ko\n");
		return 3;
	}
	if (drmSyncobjCreate(fd, 0, &so)) {
		fprintf(stderr, "drmshim_client: drmSyncobjCreate: %s\n",
			strerror(errno));
		return 3;
	}
	for (i = 0; i < count; i++) {
		struct drm_gsp_testdrm_submit p = {
			.size = sizeof(p),
			.context = (uint32_t)ctx,
			.out_syncobj = so,
			.duration_us = us,
			.tag = tag + i,
		};
		int r = i % 2 ? drmIoctl(fd, DRM_IOCTL_GSP_TESTDRM_SUBMIT, &p) :
				ioctl(fd, DRM_IOCTL_GSP_TESTDRM_SUBMIT, &p);

		if (r) {
			printf("submit_errno %d\n", errno);
			fprintf(stderr, "drmshim_client: submit %llu: %s\n", i,
				strerror(errno));
			return 4;
		}
		if (drmSyncobjWait(fd, &so, 1, (int64_t)(now_ns() + 30000000000ULL),
				   DRM_SYNCOBJ_WAIT_FLAGS_WAIT_FOR_SUBMIT,
				   NULL)) {
			fprintf(stderr, "drmshim_client: wait %llu: %s\n", i,
				strerror(errno));
			return 5;
		}
	}
	printf("elapsed_ms %llu\n",
	       (unsigned long long)((now_ns() - t0) / 1000000));
	close(fd);
	return 0;
}
