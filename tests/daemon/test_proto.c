// SPDX-License-Identifier: GPL-2.0
/*
 * gspaced's own tests, against a daemon on $GSP_SOCKET (tests/daemon/run.sh
 * starts it with sim device 0): protocol abuse drops only the abuser (and
 * what a descriptor it passed is closed, even on an empty packet), a
 * client killed mid-WAIT leaks nothing and stalls nobody, a client that
 * never reads is dropped, the CTL requests, and LC and admin rights from
 * SO_PEERCRED (as root, through a child that becomes nobody).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gspace.h"
#include "gspd_proto.h"
#include "tap.h"

#define MS	1000000ULL

static const char *sock_path;

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* A raw connection, for what the client library would never send. */
static int raw_connect(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock_path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* 1 if the daemon closes @fd within @ms (replies before EOF are read). */
static int closed_by_daemon(int fd, int ms)
{
	struct timeval tv = { .tv_sec = ms / 1000, .tv_usec = (ms % 1000) * 1000 };
	char buf[256];
	ssize_t n;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			return 1;
		if (n < 0)
			return 0;	/* timed out: still open */
	}
}

static struct gspd_msg hdr(uint16_t op, uint32_t len)
{
	struct gspd_msg h = {
		.magic = GSPD_MAGIC, .version = GSPD_VERSION, .op = op,
		.seq = 7, .len = len,
	};

	return h;
}

/* The daemon still serves a fresh tenant: VERSION works. */
static int daemon_alive(void)
{
	struct gspace_version v = { .size = sizeof(v) };
	struct gspd_conn *c;
	int r;

	if (gspd_connect(sock_path, &c))
		return 0;
	r = gspd_ioctl(c, GSPACE_IOCTL_VERSION, &v);
	gspd_disconnect(c);
	return r == 0 && v.abi_major == GSPACE_ABI_MAJOR;
}

static void test_abuse(void)
{
	struct gspd_msg h;
	char big[16384];
	int fd;

	fd = raw_connect();
	h = hdr(GSPD_OP_CTL_TENANTS, 0);
	h.magic = 0x12345678;
	tap_ok(fd >= 0 && send(fd, &h, sizeof(h), 0) == sizeof(h) &&
	       closed_by_daemon(fd, 2000), "bad magic: dropped");
	close(fd);

	fd = raw_connect();
	h = hdr(GSPD_OP_CTL_TENANTS, 0);
	h.version = GSPD_VERSION + 1;
	tap_ok(fd >= 0 && send(fd, &h, sizeof(h), 0) == sizeof(h) &&
	       closed_by_daemon(fd, 2000), "other protocol version: dropped");
	close(fd);

	fd = raw_connect();
	tap_ok(fd >= 0 && send(fd, "gspd", 4, 0) == 4 &&
	       closed_by_daemon(fd, 2000), "short packet: dropped");
	close(fd);

	fd = raw_connect();
	h = hdr(GSPD_OP_CTL_TENANTS, 100);	/* says 100, carries 0 */
	tap_ok(fd >= 0 && send(fd, &h, sizeof(h), 0) == sizeof(h) &&
	       closed_by_daemon(fd, 2000), "len beyond the packet: dropped");
	close(fd);

	fd = raw_connect();
	memset(big, 0, sizeof(big));
	h = hdr(GSPD_OP_CTL_GET, sizeof(big) - sizeof(h));
	memcpy(big, &h, sizeof(h));
	tap_ok(fd >= 0 && send(fd, big, sizeof(big), 0) == sizeof(big) &&
	       closed_by_daemon(fd, 2000), "oversized packet: dropped");
	close(fd);

	/* An ioctl whose argument length disagrees with its size field. */
	fd = raw_connect();
	{
		struct {
			struct gspd_msg h;
			struct gspd_ioctl io;
			struct gspace_version v;
		} m = { hdr(GSPD_OP_IOCTL, sizeof(struct gspd_ioctl) + 8),
			{ GSPACE_IOCTL_VERSION }, { .size = sizeof(m.v) } };

		tap_ok(fd >= 0 &&
		       send(fd, &m, sizeof(m.h) + sizeof(m.io) + 8, 0) > 0 &&
		       closed_by_daemon(fd, 2000),
		       "ioctl argument shorter than its size: dropped");
	}
	close(fd);

	/* A descriptor with a request that takes none. */
	fd = raw_connect();
	{
		union {
			struct cmsghdr a;
			char b[CMSG_SPACE(sizeof(int))];
		} cb;
		struct gspd_msg m = hdr(GSPD_OP_CTL_TENANTS, 0);
		struct iovec iov = { &m, sizeof(m) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cb.b,
				     .msg_controllen = sizeof(cb.b) };
		struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
		int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &nul, sizeof(int));
		tap_ok(fd >= 0 && sendmsg(fd, &mh, 0) == sizeof(m) &&
		       closed_by_daemon(fd, 2000),
		       "descriptor passed where none belongs: dropped");
		close(nul);
	}
	close(fd);

	/* An op this daemon does not know: an error, not a drop. */
	fd = raw_connect();
	{
		struct gspd_msg m = hdr(99, 0), r = { 0 };
		int got = fd >= 0 && send(fd, &m, sizeof(m), 0) == sizeof(m) &&
			  recv(fd, &r, sizeof(r), 0) == sizeof(r);

		tap_ok(got && r.seq == 7 && r.status == -EOPNOTSUPP &&
		       !closed_by_daemon(fd, 100),
		       "unknown op: -EOPNOTSUPP, connection kept (%d)",
		       r.status);
	}
	close(fd);
	tap_ok(daemon_alive(), "the daemon serves others after every abuse");
}

/*
 * A zero-length packet carrying a descriptor: SOCK_SEQPACKET reads it as
 * 0 bytes, like a close. The daemon must still close what came with it:
 * we pass a pipe's write end and keep none, so the read end sees EOF once
 * the daemon's copy is closed, and never while the daemon leaks it.
 */
static void test_empty_packet_fd(void)
{
	union {
		struct cmsghdr a;
		char b[CMSG_SPACE(sizeof(int))];
	} cb;
	struct msghdr mh = { .msg_control = cb.b,
			     .msg_controllen = sizeof(cb.b) };
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	struct pollfd pf;
	int fd = raw_connect(), p[2], sent, eof = 0;
	char c;

	if (fd < 0 || pipe2(p, O_CLOEXEC)) {
		tap_ok(0, "empty packet with a descriptor: set up");
		if (fd >= 0)
			close(fd);
		return;
	}
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &p[1], sizeof(int));
	sent = sendmsg(fd, &mh, 0) == 0;
	close(p[1]);
	pf = (struct pollfd){ .fd = p[0], .events = POLLIN };
	if (sent && poll(&pf, 1, 3000) == 1)
		eof = read(p[0], &c, 1) == 0;
	tap_ok(sent && eof,
	       "empty packet with a descriptor: the daemon closes the descriptor");
	tap_ok(closed_by_daemon(fd, 2000), "and drops the connection");
	close(p[0]);
	close(fd);
}

/* A client that pipelines requests and never reads the replies. */
static void test_never_reads(void)
{
	struct gspd_msg m = hdr(GSPD_OP_CTL_TENANTS, 0);
	uint64_t end = now_ns() + 10000 * MS;
	int fd = raw_connect(), dropped = 0, rcv = 4096;

	if (fd >= 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	while (fd >= 0 && now_ns() < end) {
		ssize_t n = send(fd, &m, sizeof(m), MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && (errno == EPIPE || errno == ECONNRESET)) {
			dropped = 1;
			break;
		}
		if (n < 0 && errno == EAGAIN) {
			struct timespec ts = { 0, 1000000 };

			nanosleep(&ts, NULL);
		}
	}
	tap_ok(dropped, "a client that never reads its replies is dropped");
	if (fd >= 0)
		close(fd);
	tap_ok(daemon_alive(), "and the daemon goes on serving");
}

static int get_objects(long long *tenants, long long *jobs)
{
	char buf[256];
	struct gspd_conn *c;
	int r;

	if (gspd_connect(sock_path, &c))
		return -1;
	r = gspd_ctl_get(c, "objects", buf, sizeof(buf));
	gspd_disconnect(c);
	if (r || sscanf(buf, "contexts %lld jobs %lld", tenants, jobs) != 2)
		return -1;
	return 0;
}

/* A child blocked in WAIT on a 10 s job is killed: nothing stays behind. */
static void test_killed_mid_wait(void)
{
	long long t0 = -1, j0 = -1, t1 = -1, j1 = -1;
	struct gspace_submit s = { .size = sizeof(s), .cost_ns = 10000 * MS };
	struct gspace_wait w = { .size = sizeof(w) };
	struct gspd_conn *c;
	uint64_t start, end;
	int p[2], st, ok;
	pid_t pid;
	char ch;

	ok = !get_objects(&t0, &j0);
	tap_ok(ok, "objects: contexts %lld jobs %lld", t0, j0);
	if (pipe(p))
		return;
	pid = fork();
	if (pid == 0) {
		if (gspd_connect(sock_path, &c) ||
		    gspd_ioctl(c, GSPACE_IOCTL_SUBMIT, &s))
			_exit(1);
		w.handle = s.handle;
		w.deadline_ns = now_ns() + 60000 * MS;
		if (write(p[1], "r", 1) != 1)
			_exit(1);
		gspd_ioctl(c, GSPACE_IOCTL_WAIT, &w);
		_exit(2);
	}
	close(p[1]);
	ok = read(p[0], &ch, 1) == 1;
	close(p[0]);
	usleep(50000);	/* let the WAIT park */
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	tap_ok(ok && WIFSIGNALED(st), "child parked in WAIT, then SIGKILLed");

	/* Our job on the same engine runs at once: the 10 s job is gone. */
	start = now_ns();
	ok = !gspd_connect(sock_path, &c);
	s.cost_ns = 1 * MS;
	ok = ok && !gspd_ioctl(c, GSPACE_IOCTL_SUBMIT, &s);
	w.handle = s.handle;
	w.deadline_ns = now_ns() + 5000 * MS;
	ok = ok && !gspd_ioctl(c, GSPACE_IOCTL_WAIT, &w) && w.status == 0;
	end = now_ns();
	if (ok)
		gspd_disconnect(c);
	tap_ok(ok && end - start < 2000 * MS,
	       "the next tenant's job on that engine ends in %llu ms",
	       (unsigned long long)((end - start) / MS));
	ok = !get_objects(&t1, &j1);
	tap_ok(ok && t1 == t0 && j1 == j0,
	       "objects back to contexts %lld jobs %lld (now %lld, %lld)",
	       t0, j0, t1, j1);
}

static void test_ctl(void)
{
	char buf[8192];
	struct gspd_conn *c;
	int r;

	if (gspd_connect(sock_path, &c)) {
		tap_ok(0, "connect to %s", sock_path);
		return;
	}
	r = gspd_ctl_get(c, "no_such_knob", buf, sizeof(buf));
	tap_ok(r == -ENOENT, "CTL_GET of an unknown knob: -ENOENT (%d)", r);
	r = gspd_ctl_set(c, "no_such_knob", "1");
	tap_ok(r == -ENOENT, "CTL_SET of an unknown knob: -ENOENT (%d)", r);
	r = gspd_ctl_get(c, "lc_hold_us", buf, sizeof(buf));
	tap_ok(!r && !strcmp(buf, "200"), "lc_hold_us defaults to 200 (%s)", buf);
	r = gspd_ctl_set(c, "lc_max_ms", "0");
	tap_ok(r == -EINVAL, "lc_max_ms 0: -EINVAL (%d)", r);
	r = gspd_ctl_set(c, "watchdog_ms", "3600001");
	tap_ok(r == -EINVAL, "watchdog_ms above an hour: -EINVAL (%d)", r);
	r = gspd_ctl_set(c, "min_be_permille", "-1");
	tap_ok(r == -EINVAL, "min_be_permille -1: -EINVAL (%d)", r);
	r = gspd_ctl_set(c, "sim_devices", "17");
	tap_ok(r == -EINVAL, "sim_devices 17: -EINVAL (%d)", r);
	r = gspd_ctl_tenants(c, buf, sizeof(buf));
	tap_ok(!r && !strncmp(buf, "uid pid dev class weight", 24) &&
	       strchr(buf, '\n') && strchr(buf, '\n')[1],
	       "CTL_TENANTS: a uid column, then a line per tenant");
	gspd_disconnect(c);
}

/* As root: a child that becomes nobody is neither LC nor admin. */
static void test_rights(void)
{
	int p[2], st;
	pid_t pid;
	char res[4] = "xxx";

	if (geteuid() != 0) {
		tap_ok(1, "LC and admin denial by SO_PEERCRED # SKIP needs root to become another user");
		return;
	}
	if (pipe(p))
		return;
	pid = fork();
	if (pid == 0) {
		struct gspace_version v = { .size = sizeof(v) };
		struct gspace_ctx_set cs = { .size = sizeof(cs), .weight = 100,
					     .class = GSPACE_CLASS_LC };
		struct gspd_conn *c;
		void *board;
		int slot = 0, wr = 1;

		if (setgroups(0, NULL) || setgid(65534) || setuid(65534) ||
		    gspd_connect(sock_path, &c))
			_exit(1);
		res[0] = !gspd_ioctl(c, GSPACE_IOCTL_VERSION, &v) &&
			 v.lc_allowed == 0 ? 'y' : 'n';
		res[1] = gspd_ioctl(c, GSPACE_IOCTL_CTX_SET, &cs) == -EPERM &&
			 gspd_ctl_set(c, "policy", "band") == -EPERM ?
			 'y' : 'n';
		res[2] = !gspd_board(c, &board, &slot, &wr) && slot == -1 &&
			 !wr ? 'y' : 'n';
		if (write(p[1], res, 3) != 3)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], res, 3) != 3)
		memcpy(res, "xxx", 3);
	close(p[0]);
	waitpid(pid, &st, 0);
	tap_ok(res[0] == 'y', "uid nobody: VERSION says lc_allowed 0");
	tap_ok(res[1] == 'y', "uid nobody: CTX_SET LC and CTL_SET: -EPERM");
	tap_ok(res[2] == 'y', "uid nobody: read-only board, no slot");
}

int main(void)
{
	sock_path = getenv("GSP_SOCKET");
	if (!sock_path || !*sock_path) {
		tap_ok(0, "GSP_SOCKET names the daemon's socket");
		return tap_done();
	}
	signal(SIGPIPE, SIG_IGN);
	test_abuse();
	test_empty_packet_fd();
	test_never_reads();
	test_killed_mid_wait();
	test_ctl();
	test_rights();
	return tap_done();
}
