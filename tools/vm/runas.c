// SPDX-License-Identifier: GPL-2.0
/*
 * runas: run a program as another user inside the test VM, where busybox
 * su has no login configuration to work with.
 *
 *   runas UID GID[,SUPP_GID...] PROGRAM [ARG...]
 *
 * Drops supplementary groups (or sets the listed ones), then the gid, then
 * the uid, checks that root cannot be regained, and execs PROGRAM.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_GROUPS 32

static int parse_id(const char *s, unsigned int *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || (*end && *end != ',') || v > 65535)
		return -1;
	*out = (unsigned int)v;
	return (int)(end - s);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: runas UID GID[,SUPP_GID...] PROGRAM [ARG...]\n"
		"runs PROGRAM with the given numeric uid, gid and supplementary groups\n");
	exit(2);
}

int main(int argc, char **argv)
{
	gid_t groups[MAX_GROUPS];
	unsigned int uid, gid, g;
	const char *p;
	int n, ngroups = 0;

	if (argc < 4)
		usage();
	if (parse_id(argv[1], &uid) < 0 || strchr(argv[1], ','))
		usage();
	p = argv[2];
	n = parse_id(p, &gid);
	if (n < 0)
		usage();
	p += n;
	while (*p == ',') {
		p++;
		n = parse_id(p, &g);
		if (n < 0 || ngroups == MAX_GROUPS)
			usage();
		groups[ngroups++] = g;
		p += n;
	}
	if (*p)
		usage();

	if (setgroups((size_t)ngroups, groups)) {
		perror("runas: setgroups (must start as root)");
		return 1;
	}
	if (setgid(gid)) {
		perror("runas: setgid");
		return 1;
	}
	if (setuid(uid)) {
		perror("runas: setuid");
		return 1;
	}
	if (uid != 0 && setuid(0) == 0) {
		fprintf(stderr, "runas: could regain root after setuid(%u)\n",
			uid);
		return 1;
	}
	execv(argv[3], argv + 3);
	fprintf(stderr, "runas: cannot execute %s: %s\n", argv[3],
		strerror(errno));
	return 127;
}
