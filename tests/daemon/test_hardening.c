// SPDX-License-Identifier: GPL-2.0
/*
 * gspaced against hostile clients, with daemons of its own
 * (daemon_harness.h): rights from the connection's credentials, not from
 * the process its pid names later; and the board page, which no BE of
 * another uid can write and whose slot owners gspaced never reads back.
 * The limits are test_limits.c.
 */
#define _GNU_SOURCE
#include "daemon_harness.h"

/*
 * A child connects to @d as nobody with the groups @before (n @nb) while
 * gspaced is stopped, then, back to root, takes @after (n @na) before
 * gspaced accepts. Its rights: "LA" with l/L for lc_allowed 0/1 and a/A
 * for whether CTL_SET is refused/allowed; "xx" if it could not say.
 */
static void rights_of(struct daemon *d, const gid_t *before, int nb,
		      const gid_t *after, int na, char res[3])
{
	int p[2], q[2];
	pid_t pid;

	memcpy(res, "xx", 3);
	if (pipe2(p, O_CLOEXEC) || pipe2(q, O_CLOEXEC))
		return;
	kill(d->pid, SIGSTOP);
	pid = fork();
	if (pid == 0) {
		struct gspace_version v = { .size = sizeof(v) };
		struct gspd_conn *c;
		char ch, r[2];
		int set;

		/* nobody; the saved uid 0 lets it change back. */
		if (setgroups(nb, before) || setresgid(65534, 65534, 0) ||
		    setresuid(65534, 65534, 0) || gspd_connect(d->sock, &c))
			_exit(1);
		if (setresuid(0, 0, 0) || setgroups(na, after) ||
		    write(p[1], "c", 1) != 1 || read(q[0], &ch, 1) != 1 ||
		    gspd_ioctl(c, GSPACE_IOCTL_VERSION, &v))
			_exit(1);
		/* A knob set to its value: allowed or not, nothing changes. */
		set = gspd_ctl_set(c, "policy", "fifo");
		r[0] = v.lc_allowed ? 'L' : 'l';
		r[1] = !set ? 'A' : set == -EPERM ? 'a' : 'x';
		_exit(write(p[1], r, 2) == 2 ? 0 : 1);
	}
	close(p[1]);
	close(q[0]);
	if (pid > 0 && read(p[0], res, 1) == 1) {
		kill(d->pid, SIGCONT);
		if (write(q[1], "g", 1) != 1 || read(p[0], res, 2) != 2)
			memcpy(res, "xx", 2);
	}
	kill(d->pid, SIGCONT);
	close(p[0]);
	close(q[1]);
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

/*
 * Rights belong to the connection: groups taken after connect(), as by a
 * process that reused the pid, give nothing; groups held at connect()
 * count, however many (SO_PEERGROUPS answers ERANGE to a short buffer).
 */
static void test_identity(void)
{
	static const char conf[] = "sim_devices = 1\nlease_devices = 0\n"
				   "lc_groups = 4242\nadmin_groups = 4243\n";
	static const gid_t both[] = { 4242, 4243 };
	gid_t many[300];
	struct daemon d;
	char res[3];

	if (geteuid() != 0) {
		tap_ok(1, "rights from SO_PEERGROUPS # SKIP needs root to change groups");
		return;
	}
	if (!daemon_start(&d, "identity", conf, 0)) {
		tap_ok(0, "identity: gspaced starts");
		return;
	}
	rights_of(&d, NULL, 0, both, 2, res);
	tap_ok(!strcmp(res, "la"),
	       "groups taken after connect: neither LC nor admin (%s)", res);
	rights_of(&d, both, 2, NULL, 0, res);
	tap_ok(!strcmp(res, "LA"),
	       "groups held at connect, dropped after: LC and admin (%s)", res);
	for (int i = 0; i < 300; i++)
		many[i] = 5000 + i;
	many[299] = 4242;
	rights_of(&d, many, 300, NULL, 0, res);
	tap_ok(!strcmp(res, "La"),
	       "300 groups at connect, lc_groups' last: LC, not admin (%s)",
	       res);
	daemon_stop(&d, "identity");
}

/*
 * The board page is a published copy: a BE tenant of another uid cannot
 * make its read-only descriptor writable through /proc, and what a writer
 * (root can always re-open it) puts in the slots' owners changes nothing
 * of who gets which slot.
 */
static void test_board(void)
{
	static const char conf[] = "sim_devices = 1\nlease_devices = 0\n";
	struct gspd_conn *forger, *a, *b, *c;
	struct gsp_board *bd = MAP_FAILED;
	int fd = -1, wfd = -1, slot, sa, sb, sc, wr, i;
	char path[64], res = 'x';
	struct daemon d;
	int p[2];
	pid_t pid;

	if (geteuid() != 0) {
		tap_ok(1, "board writes # SKIP needs root");
		return;
	}
	if (!daemon_start(&d, "board", conf, 0)) {
		tap_ok(0, "board: gspaced starts");
		return;
	}
	if (pipe2(p, O_CLOEXEC))
		return;
	pid = fork();
	if (pid == 0) {
		struct gspd_conn *n;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534) ||
		    gspd_connect(d.sock, &n) ||
		    gspd_board_fd(n, &fd, &slot, &wr))
			_exit(1);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		wfd = open(path, O_RDWR | O_CLOEXEC);
		res = wfd < 0 && errno == EACCES ? 'y' : 'n';
		_exit(write(p[1], &res, 1) == 1 ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], &res, 1) != 1)
		res = 'x';
	close(p[0]);
	waitpid(pid, NULL, 0);
	tap_ok(res == 'y',
	       "a BE tenant of uid nobody cannot re-open its board read-write (%c)",
	       res);

	/* Root re-opens it read-write, as any writer of the page could. */
	forger = tenant_as(d.sock, GSPACE_CLASS_BE, &slot);
	if (forger && !gspd_board_fd(forger, &fd, &slot, &wr)) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		wfd = open(path, O_RDWR | O_CLOEXEC);
		if (wfd >= 0)
			bd = mmap(NULL, GSP_BOARD_SIZE, PROT_READ | PROT_WRITE,
				  MAP_SHARED, wfd, 0);
	}
	if (bd == MAP_FAILED) {
		tap_ok(0, "board: a writable mapping for the forger");
		goto out;
	}
	a = tenant_as(d.sock, GSPACE_CLASS_LC, &sa);
	if (sa >= 0)
		gsp_board_store(&bd->lc[sa].owner, 0);	/* "free" */
	b = tenant_as(d.sock, GSPACE_CLASS_LC, &sb);
	tap_ok(a && b && sa >= 0 && sb >= 0 && sa != sb,
	       "a slot whose owner was zeroed on the page is not given twice (%d, %d)",
	       sa, sb);
	for (i = 0; i < GSP_BOARD_LC_SLOTS; i++)
		if (!gsp_board_load(&bd->lc[i].owner))
			gsp_board_store(&bd->lc[i].owner, 0x7fffffff);
	c = tenant_as(d.sock, GSPACE_CLASS_LC, &sc);
	tap_ok(c && sc >= 0 && sc != sa && sc != sb,
	       "every owner forged on the page: the next LC tenant still gets a slot (%d)",
	       sc);
	if (c)
		gspd_disconnect(c);
	if (b)
		gspd_disconnect(b);
	if (a)
		gspd_disconnect(a);
	munmap(bd, GSP_BOARD_SIZE);
out:
	if (wfd >= 0)
		close(wfd);
	if (fd >= 0)
		close(fd);
	if (forger)
		gspd_disconnect(forger);
	daemon_stop(&d, "board");
}


int main(void)
{
	static void (*const tests[])(void) = { test_identity, test_board, NULL };

	return daemon_main("hardening", tests);
}
