// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The wire helpers of gspd_proto.h that both ends use: gspaced links this
 * file and not the client (gspd_client.c), which links it too.
 *
 * Only libc: the selftests link this statically.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "gspd_proto.h"

size_t gspd_arg_len(uint32_t size)
{
	return size < sizeof(size) ? sizeof(size) :
	       size > GSPD_ARG_MAX ? GSPD_ARG_MAX : size;
}

bool gspd_msg_valid(const struct gspd_msg *h, size_t n)
{
	return h->magic == GSPD_MAGIC && h->version == GSPD_VERSION &&
	       h->len == n - sizeof(*h);
}

void gspd_msg_attach_fd(struct msghdr *m, union gspd_fd_cmsg *cbuf, int fd)
{
	struct cmsghdr *cm;

	if (fd < 0)
		return;
	memset(cbuf, 0, sizeof(*cbuf));
	m->msg_control = cbuf->buf;
	m->msg_controllen = sizeof(cbuf->buf);
	cm = CMSG_FIRSTHDR(m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof(int));
}

int gspd_fence_status(int fence_fd, int *signalled, int *error)
{
	char path[64], line[128];
	unsigned long long count;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fence_fd);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -EBADF : -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "eventfd-count: %llx", &count) == 1) {
			found = true;
			break;
		}
	fclose(f);
	if (!found)
		return -EINVAL;
	*signalled = count > 0;
	if (count <= 1)
		*error = 0;
	else if (count - 1 <= 4095)
		*error = -(int)(count - 1);
	else
		*error = -EIO;
	return 0;
}
