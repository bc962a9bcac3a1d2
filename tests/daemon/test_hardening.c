// SPDX-License-Identifier: GPL-2.0
/*
 * gspaced against hostile clients, with daemons of its own ($GSPACED, each
 * with the config and fd limit a test needs, on sockets in a temp folder):
 * rights from the connection's credentials, not from the process its pid
 * names later; the board page, which no BE of another uid can write and
 * whose slot owners gspaced never reads back; the fd limit, where a client
 * gspaced cannot take is closed, not left hanging while the loop spins;
 * the tenants' limits on jobs, fences and parked WAITs, and WAITs that
 * park and expire in a log each; a tenants table too long for its reply
 * says so.
 */
#define _GNU_SOURCE
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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Lines in @path, up to the first MiB. */
static int file_lines(const char *path)
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

static int raw_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static bool file_has(const char *path, const char *needle)
{
	static char buf[1 << 20];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strstr(buf, needle);
}

static void show_log(const char *path)
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

/*
 * Starts gspaced named @name with @conf text and, if @nofile, that fd
 * limit; returns once it listens. false (and the log shown) if it does not.
 */
static bool daemon_start(struct daemon *d, const char *name, const char *conf,
			 rlim_t nofile)
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
static void daemon_stop(struct daemon *d, const char *name)
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
	     !file_has(d->log, "ERROR: AddressSanitizer") &&
	     !file_has(d->log, "ERROR: LeakSanitizer") &&
	     !file_has(d->log, "runtime error:");
	tap_ok(ok, "%s: gspaced exits 0 at SIGTERM, sanitizers quiet (0x%x)",
	       name, st);
	if (!ok)
		show_log(d->log);
	d->pid = 0;
}

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

/* A new tenant on @sock of @class; its board slot in *@slot. */
static struct gspd_conn *tenant_as(const char *sock, uint32_t class,
				   int *slot)
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

/*
 * A CTL_GET round trip on a fresh connection, within 2 s: 1 answered,
 * 0 closed by the daemon, -1 no answer. The connection, open, in *@fdp.
 */
static int probe(const char *sock, int *fdp)
{
	struct timeval tv = { 2, 0 };
	struct {
		struct gspd_msg h;
		char name[8];
	} m = { { .magic = GSPD_MAGIC, .version = GSPD_VERSION,
		  .op = GSPD_OP_CTL_GET, .seq = 1, .len = 8 }, "objects" };
	char buf[512];
	ssize_t n;
	int fd = raw_connect(sock);

	*fdp = fd;
	if (fd < 0)
		return 0;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (send(fd, &m, sizeof(m), MSG_NOSIGNAL) != sizeof(m))
		return 0;
	n = recv(fd, buf, sizeof(buf), 0);
	if (n > 0)
		return 1;
	return n == 0 || errno == ECONNRESET ? 0 : -1;
}

/* utime + stime of @pid, in clock ticks. */
static long long cpu_ticks(pid_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long ut, st;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu",
			 &ut, &st) != 2)
		return -1;
	return (long long)(ut + st);
}

/*
 * gspaced at its fd limit (RLIMIT_NOFILE 64): a client it cannot take is
 * closed at once rather than left hanging; the loop does not spin nor
 * flood the log meanwhile; and once fds are free, clients are served.
 */
static void test_fd_limit(void)
{
	static const char conf[] = "sim_devices = 1\nlease_devices = 0\n";
	int fds[200], n = 0, r = 1, extra, i;
	long long t0, t1, hz = sysconf(_SC_CLK_TCK);
	struct daemon d;
	int lines;

	if (!daemon_start(&d, "fdlimit", conf, 64)) {
		tap_ok(0, "fdlimit: gspaced starts");
		return;
	}
	while (n < 200 && (r = probe(d.sock, &fds[n])) == 1)
		n++;
	tap_ok(r == 0 && n > 10 && n < 64,
	       "at its fd limit, gspaced closes the client it cannot take (%s after %d served)",
	       r == 0 ? "closed" : r < 0 ? "no answer" : "still served", n);
	if (r >= 0 && fds[n] >= 0)
		close(fds[n]);
	/* One more, left open: nothing must keep the loop busy meanwhile. */
	probe(d.sock, &extra);
	t0 = cpu_ticks(d.pid);
	sleep_ms(1000);
	t1 = cpu_ticks(d.pid);
	tap_ok(t0 >= 0 && t1 >= 0 && (t1 - t0) * 1000 / hz < 300,
	       "and does not spin there (%lld ms of CPU in 1 s)",
	       (t1 - t0) * 1000 / hz);
	lines = file_lines(d.log);
	tap_ok(lines >= 0 && lines < 20,
	       "and its log says so in a few lines (%d)", lines);
	if (extra >= 0)
		close(extra);
	for (i = 0; i < n && i < 10; i++)
		close(fds[i]);
	sleep_ms(200);	/* gspaced sees the closes */
	r = probe(d.sock, &extra);
	tap_ok(r == 1, "fds freed: the next client is served (%d)", r);
	if (extra >= 0)
		close(extra);
	for (; i < n; i++)
		close(fds[i]);
	daemon_stop(&d, "fdlimit");
}

static int submit(struct gspd_conn *c, uint32_t flags, int in_fence,
		  uint64_t *handle, int *out_fence)
{
	struct gspace_submit sb = { .size = sizeof(sb),
				    .engine = GSPACE_ENGINE_COMPUTE,
				    .cost_ns = 60000 * MS, .flags = flags };
	int r;

	if (flags & GSPACE_SUBMIT_FENCE_IN)
		sb.in_fence_fd = in_fence;
	r = gspd_ioctl(c, GSPACE_IOCTL_SUBMIT, &sb);

	if (!r && handle)
		*handle = sb.handle;
	if (!r && out_fence)
		*out_fence = (flags & GSPACE_SUBMIT_FENCE_OUT) ?
			     sb.out_fence_fd : -1;
	return r;
}

static int cancel(struct gspd_conn *c, uint64_t handle)
{
	struct gspace_cancel cn = { .size = sizeof(cn), .handle = handle };

	return gspd_ioctl(c, GSPACE_IOCTL_CANCEL, &cn);
}

/*
 * tenant_max_jobs and tenant_max_fences: past them SUBMIT fails with
 * ENOSPC and EMFILE, the tenant loses nothing it holds, another tenant is
 * not affected, and what the tenant frees it may use again.
 */
static void test_limits(void)
{
	static const char conf[] = "sim_devices = 1\nlease_devices = 0\n"
				   "tenant_max_jobs = 40\n"
				   "tenant_max_fences = 6\n";
	struct gspd_conn *a = NULL, *b = NULL;
	int fences[8], nf = 0, r, i, ok, efd = -1;
	uint64_t h[40], hf[8];
	struct daemon d;

	if (!daemon_start(&d, "limits", conf, 0)) {
		tap_ok(0, "limits: gspaced starts with the tenant_max_* keys");
		return;
	}
	if (gspd_connect(d.sock, &a) || gspd_connect(d.sock, &b)) {
		tap_ok(0, "limits: connect");
		goto out;
	}
	/* 6 fences: 5 out-fences and an in-fence not yet signalled. */
	for (ok = 1, i = 0; i < 5; i++)
		ok &= !submit(a, GSPACE_SUBMIT_FENCE_OUT, -1, &hf[i],
			      &fences[nf++]);
	efd = eventfd(0, EFD_CLOEXEC);
	ok &= !submit(a, GSPACE_SUBMIT_FENCE_IN, efd, &hf[5], NULL);
	r = submit(a, GSPACE_SUBMIT_FENCE_OUT, -1, NULL, NULL);
	tap_ok(ok && r == -EMFILE,
	       "tenant_max_fences 6: a 7th fence is refused with EMFILE (%d)",
	       r);
	r = submit(a, GSPACE_SUBMIT_FENCE_IN, efd, NULL, NULL);
	tap_ok(r == -EMFILE, "an in-fence too (%d)", r);
	r = submit(b, GSPACE_SUBMIT_FENCE_OUT, -1, &hf[6], &fences[nf]);
	tap_ok(!r, "another tenant's fence is not refused (%d)", r);
	if (!r)
		nf++;
	r = cancel(a, hf[1]);	/* queued behind hf[0], which runs */
	r = r ? r : submit(a, GSPACE_SUBMIT_FENCE_OUT, -1, &hf[7],
			   &fences[nf]);
	tap_ok(!r, "one fence signalled (CANCEL): the tenant may take one again (%d)",
	       r);
	if (!r)
		nf++;
	/* a holds 7 jobs now (one ended, not yet waited: it counts). */
	for (ok = 1, i = 0; i < 33; i++)
		ok &= !submit(a, 0, -1, &h[i], NULL);
	r = submit(a, 0, -1, NULL, NULL);
	tap_ok(ok && r == -ENOSPC,
	       "tenant_max_jobs 40: a 41st job is refused with ENOSPC (%d)", r);
	r = submit(b, 0, -1, NULL, NULL);
	tap_ok(!r, "another tenant's job is not refused (%d)", r);
	for (i = 0; i < nf; i++)
		close(fences[i]);
out:
	if (efd >= 0)
		close(efd);
	if (a)
		gspd_disconnect(a);
	if (b)
		gspd_disconnect(b);
	daemon_stop(&d, "limits");
}

/* The replies to a tenant's WAITs, read by a thread of their own. */
struct replies {
	int fd;
	int etime, other;	/* -ETIME answers; any others but -EAGAIN */
	uint32_t eagain_seq;	/* the WAIT answered -EAGAIN */
	bool stop;
	pthread_mutex_t lock;
};

/* Reads every reply, so gspaced never finds the socket full. */
static void *reader(void *arg)
{
	struct replies *r = arg;
	struct timeval tv = { 0, 100000 };
	struct gspd_msg h;
	char buf[512];
	ssize_t n;

	setsockopt(r->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (;;) {
		pthread_mutex_lock(&r->lock);
		if (r->stop) {
			pthread_mutex_unlock(&r->lock);
			return NULL;
		}
		pthread_mutex_unlock(&r->lock);
		n = recv(r->fd, buf, sizeof(buf), 0);
		if (n < (ssize_t)sizeof(h)) {
			if (n >= 0 || (errno != EAGAIN && errno != EINTR))
				return NULL;	/* closed */
			continue;
		}
		memcpy(&h, buf, sizeof(h));
		pthread_mutex_lock(&r->lock);
		if (h.status == -ETIME)
			r->etime++;
		else if (h.status == -EAGAIN)
			r->eagain_seq = h.seq;
		else
			r->other++;
		pthread_mutex_unlock(&r->lock);
	}
}

static void replies_get(struct replies *r, int *etime, int *other,
			uint32_t *eagain_seq)
{
	pthread_mutex_lock(&r->lock);
	*etime = r->etime;
	*other = r->other;
	*eagain_seq = r->eagain_seq;
	pthread_mutex_unlock(&r->lock);
}

/*
 * Parked WAITs: a tenant parks tenant_max_waits of them (20000) on one
 * job, pipelined, with deadlines 50 us apart; one more is refused with
 * EAGAIN. Parking them, and their expiry, cost a log each, not a scan of
 * all: parking takes seconds and expiry stalls the loop when they do.
 * Meanwhile another tenant's round trips stay short.
 */
#define NW	20000
#define STEP_NS	50000
static void test_waits(void)
{
	static const char conf[] = "sim_devices = 1\nlease_devices = 0\n"
				   "tenant_max_waits = 20000\n";
	struct {
		struct gspd_msg h;
		struct gspd_ioctl io;
		struct gspace_wait w;
	} m = { { .magic = GSPD_MAGIC, .version = GSPD_VERSION,
		  .op = GSPD_OP_IOCTL,
		  .len = sizeof(struct gspd_ioctl) + sizeof(struct gspace_wait) },
		{ GSPACE_IOCTL_WAIT },
		{ .size = sizeof(struct gspace_wait) } };
	uint64_t start, base, parked, done, end, last, rtt, max_rtt = 0;
	int etime = 0, other = 0, fd, sent = 0, rtts = 0;
	struct replies rep = { .lock = PTHREAD_MUTEX_INITIALIZER };
	struct gspd_conn *a = NULL, *b = NULL;
	uint32_t eagain_seq = 0;
	pthread_t th;
	struct daemon d;
	char buf[256];
	uint64_t h;

	if (!daemon_start(&d, "waits", conf, 0)) {
		tap_ok(0, "waits: gspaced starts with tenant_max_waits");
		return;
	}
	if (gspd_connect(d.sock, &a) || gspd_connect(d.sock, &b) ||
	    submit(a, 0, -1, &h, NULL)) {
		tap_ok(0, "waits: two tenants and a 60 s job");
		goto out;
	}
	fd = gspd_conn_fd(a);
	rep.fd = fd;
	if (pthread_create(&th, NULL, reader, &rep)) {
		tap_ok(0, "waits: a reader thread");
		goto out;
	}
	start = now_ns();
	base = start + 2000 * MS;
	end = start + 20000 * MS;
	m.w.handle = h;
	while (sent <= NW && now_ns() < end) {
		m.h.seq = (uint32_t)sent + 1;
		m.w.deadline_ns = base + (uint64_t)sent * STEP_NS;
		if (send(fd, &m, sizeof(m), MSG_NOSIGNAL) != sizeof(m))
			break;
		sent++;
	}
	do {
		replies_get(&rep, &etime, &other, &eagain_seq);
		if (!eagain_seq)
			sleep_ms(1);
	} while (!eagain_seq && now_ns() < end);
	parked = now_ns() - start;
	tap_ok(eagain_seq == NW + 1 && !etime && !other,
	       "tenant_max_waits 20000: the next WAIT is refused with EAGAIN (seq %u)",
	       eagain_seq);
	tap_ok(parked < 1000 * MS, "20000 WAITs parked in %llu ms",
	       (unsigned long long)(parked / MS));
	/* The other tenant's round trips, until every WAIT has expired. */
	while (etime + other < NW && now_ns() < end) {
		uint64_t t0 = now_ns();

		if (gspd_ctl_get(b, "objects", buf, sizeof(buf)))
			break;
		rtt = now_ns() - t0;
		max_rtt = rtt > max_rtt ? rtt : max_rtt;
		rtts++;
		replies_get(&rep, &etime, &other, &eagain_seq);
		sleep_ms(1);	/* leaves the reader a CPU */
	}
	done = now_ns();
	pthread_mutex_lock(&rep.lock);
	rep.stop = true;
	pthread_mutex_unlock(&rep.lock);
	pthread_join(th, NULL);
	tap_ok(etime == NW && !other,
	       "each WAIT answered ETIME at its deadline (%d of %d, %d other)",
	       etime, NW, other);
	if (etime != NW)
		show_log(d.log);
	last = base + (uint64_t)NW * STEP_NS;
	tap_ok(done < last + 500 * MS,
	       "the last %lld ms after the last deadline",
	       ((long long)done - (long long)last) / (long long)MS);
	tap_ok(rtts && max_rtt < 100 * MS,
	       "another tenant's round trip meanwhile: at most %llu ms (%d)",
	       (unsigned long long)(max_rtt / MS), rtts);
out:
	if (a)
		gspd_disconnect(a);
	if (b)
		gspd_disconnect(b);
	daemon_stop(&d, "waits");
}

/*
 * CTL_TENANTS with more tenants than its 64 KiB hold: the table ends with
 * a line that says how many were left out, and they add up.
 */
#define NT	1600
static void test_tenants_cut(void)
{
	static const char conf[] = "sim_devices = 1\nlease_devices = 0\n";
	static char buf[GSPD_PAYLOAD_MAX];
	struct rlimit rl;
	struct gspd_conn *c = NULL;
	int *fds, n = 0, lines = 0, left = -1, r = -1;
	struct daemon d;
	char *p;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_max < NT + 64) {
		tap_ok(1, "tenants table cut # SKIP needs %d fds", NT + 64);
		return;
	}
	rl.rlim_cur = rl.rlim_max;
	fds = calloc(NT, sizeof(*fds));
	if (!fds || setrlimit(RLIMIT_NOFILE, &rl) ||
	    !daemon_start(&d, "tenants", conf, NT + 64)) {
		tap_ok(0, "tenants: gspaced starts");
		free(fds);
		return;
	}
	while (n < NT && (fds[n] = raw_connect(d.sock)) >= 0)
		n++;
	/* Answered after every earlier connection was accepted. */
	if (n == NT && !gspd_connect(d.sock, &c))
		r = gspd_ctl_tenants(c, buf, sizeof(buf));
	for (p = buf; !r && *p; p = strchr(p, '\n') + 1) {
		if (*p == '#')
			sscanf(p, "# %d more tenants left out", &left);
		else
			lines++;
		if (!strchr(p, '\n'))
			break;
	}
	tap_ok(!r && left > 0 && lines - 1 + left == NT + 1,
	       "%d tenants: the table shows %d and says %d were left out",
	       NT + 1, lines - 1, left);
	if (c)
		gspd_disconnect(c);
	while (n > 0)
		close(fds[--n]);
	free(fds);
	daemon_stop(&d, "tenants");
}

int main(void)
{
	char cmd[96];

	gspaced = getenv("GSPACED");
	gspaced = gspaced && *gspaced ? realpath(gspaced, NULL) : NULL;
	if (!gspaced) {
		tap_ok(0, "GSPACED names the gspaced binary");
		return tap_done();
	}
	snprintf(dir, sizeof(dir), "/tmp/gsp-test-hardening.XXXXXX");
	if (!mkdtemp(dir)) {
		tap_ok(0, "mkdtemp: %s", strerror(errno));
		return tap_done();
	}
	/* The child that becomes nobody must reach the sockets. */
	chmod(dir, 0755);
	signal(SIGPIPE, SIG_IGN);

	test_identity();
	test_board();
	test_fd_limit();
	test_limits();
	test_waits();
	test_tenants_cut();

	snprintf(cmd, sizeof(cmd), "rm -rf -- '%s'", dir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", dir);
	free(gspaced);
	return tap_done();
}
