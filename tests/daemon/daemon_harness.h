/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the daemon tests that start daemons of their own share: $GSPACED,
 * each daemon with the config and fd limit a test needs, on a socket in
 * a temporary folder, stopped with SIGTERM and checked to exit 0 with the
 * sanitizers quiet; and a tenant of a class. daemon_main() runs a
 * program's tests, between daemon_setup() and daemon_cleanup(). Its
 * includer defines _GNU_SOURCE first.
 */
#ifndef GSP_DAEMON_HARNESS_H
#define GSP_DAEMON_HARNESS_H

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gspace.h"
#include "gsp_board.h"
#include "gspd_proto.h"
#include "tap.h"

#define MS		1000000ULL
#define START_MS	60000

static char *gspaced;
static char dir[64];

/* One daemon of ours: its pid, socket and log. */
struct daemon {
	pid_t pid;
	char sock[128], log[128], conf[128];
};

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static inline void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Lines in @path, up to the first MiB. */
static inline int file_lines(const char *path)
{
	char buf[65536];
	ssize_t n, i;
	int fd, lines = 0;
	size_t total = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while ((n = read(fd, buf, sizeof(buf))) > 0 && total < (1u << 20)) {
		for (i = 0; i < n; i++)
			lines += buf[i] == '\n';
		total += (size_t)n;
	}
	close(fd);
	return lines;
}

static inline int raw_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	if (strlen(path) >= sizeof(sa.sun_path))
		fd = fd < 0 ? fd : (close(fd), -1);
	else
		memcpy(sa.sun_path, path, strlen(path) + 1);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* The start of @path, up to @size - 1 bytes, as a string: > 0, or -1. */
static inline ssize_t read_text(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static inline bool file_has(const char *path, const char *needle)
{
	static char buf[1 << 20];

	return read_text(path, buf, sizeof(buf)) > 0 && strstr(buf, needle);
}

static inline void show_log(const char *path)
{
	char line[512];
	FILE *f = fopen(path, "r");
	int n = 0;

	if (!f)
		return;
	while (fgets(line, sizeof(line), f) && n++ < 40)
		printf("# %s", line);
	fclose(f);
}

/* No sanitizer reported anything in @path, a daemon's log. */
static inline bool sanitizers_quiet(const char *path)
{
	return !file_has(path, "ERROR: AddressSanitizer") &&
	       !file_has(path, "ERROR: LeakSanitizer") &&
	       !file_has(path, "runtime error:");
}

/*
 * Starts gspaced named @name with @conf text and, if @nofile, that fd
 * limit; returns once it listens. false (and the log shown) if it does not.
 */
static inline bool daemon_start(struct daemon *d, const char *name,
				const char *conf, rlim_t nofile)
{
	char want[192];
	FILE *f;

	snprintf(d->sock, sizeof(d->sock), "%s/%s.sock", dir, name);
	snprintf(d->log, sizeof(d->log), "%s/%s.log", dir, name);
	snprintf(d->conf, sizeof(d->conf), "%s/%s.conf", dir, name);
	f = fopen(d->conf, "w");
	if (!f || fputs(conf, f) < 0 || fclose(f))
		return false;
	d->pid = fork();
	if (d->pid < 0)
		return false;
	if (!d->pid) {
		struct rlimit rl = { nofile, nofile };
		int fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			      0644);

		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(127);
		if (nofile && setrlimit(RLIMIT_NOFILE, &rl))
			_exit(127);
		execl(gspaced, gspaced, "--foreground", "--config", d->conf,
		      "--socket", d->sock, (char *)NULL);
		_exit(127);
	}
	snprintf(want, sizeof(want), "listening on %s:", d->sock);
	for (int i = 0; i < START_MS / 10; i++) {
		int st;

		if (file_has(d->log, want))
			return true;
		if (waitpid(d->pid, &st, WNOHANG) == d->pid)
			break;
		sleep_ms(10);
	}
	printf("# gspaced %s did not start\n", name);
	show_log(d->log);
	kill(d->pid, SIGKILL);
	waitpid(d->pid, NULL, 0);
	d->pid = 0;
	return false;
}

/* SIGTERM: it must exit 0 with the sanitizers quiet. */
static inline void daemon_stop(struct daemon *d, const char *name)
{
	int st = -1;
	bool ok;

	if (d->pid <= 0)
		return;
	kill(d->pid, SIGCONT);
	kill(d->pid, SIGTERM);
	for (int i = 0; i < START_MS / 10; i++) {
		if (waitpid(d->pid, &st, WNOHANG) == d->pid)
			break;
		sleep_ms(10);
		st = -1;
	}
	if (st == -1) {
		kill(d->pid, SIGKILL);
		waitpid(d->pid, NULL, 0);
	}
	ok = st != -1 && WIFEXITED(st) && !WEXITSTATUS(st) &&
	     sanitizers_quiet(d->log);
	tap_ok(ok, "%s: gspaced exits 0 at SIGTERM, sanitizers quiet (0x%x)",
	       name, st);
	if (!ok)
		show_log(d->log);
	d->pid = 0;
}

/* A new tenant on @sock of @class; its board slot in *@slot. */
static inline struct gspd_conn *tenant_as(const char *sock,
					  uint32_t class, int *slot)
{
	struct gspace_ctx_set cs = { .size = sizeof(cs), .class = class,
				     .weight = 100 };
	struct gspace_stats st = { .size = sizeof(st) };
	struct gspd_conn *c;

	*slot = -2;
	if (gspd_connect(sock, &c))
		return NULL;
	if (gspd_ioctl(c, GSPACE_IOCTL_CTX_SET, &cs) ||
	    gspd_ioctl(c, GSPACE_IOCTL_STATS, &st)) {
		gspd_disconnect(c);
		return NULL;
	}
	*slot = st.lc_slot;
	return c;
}

/*
 * $GSPACED, absolute (a test may run it from elsewhere), and a folder of
 * ours, searchable by the child that becomes nobody: 0, or -1 (said).
 */
static inline int daemon_setup(const char *name)
{
	gspaced = getenv("GSPACED");
	gspaced = gspaced && *gspaced ? realpath(gspaced, NULL) : NULL;
	if (!gspaced) {
		tap_ok(0, "GSPACED names the gspaced binary");
		return -1;
	}
	/* mkdtemp()'s template: six of X after the name. */
	snprintf(dir, sizeof(dir), "/tmp/gsp-test-%s.", name);
	if (strlen(dir) + 6 < sizeof(dir))
		memset(dir + strlen(dir), 'X', 6);
	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp: %s", strerror(errno));
		return -1;
	}
	chmod(dir, 0755);
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* Removes the folder; the program's exit status. */
static inline int daemon_cleanup(void)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	free(gspaced);
	return tap_done();
}

/* A program of tests (NULL-ended) between the two. */
static inline int daemon_main(const char *name, void (*const *tests)(void))
{
	if (daemon_setup(name))
		return tap_done();
	for (; *tests; tests++)
		(*tests)();
	return daemon_cleanup();
}

#endif /* GSP_DAEMON_HARNESS_H */
