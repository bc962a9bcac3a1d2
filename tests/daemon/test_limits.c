// SPDX-License-Identifier: GPL-2.0
/*
 * gspaced's limits against hostile clients, with daemons of its own
 * (daemon_harness.h): at the fd limit a client gspaced cannot take is
 * closed, not left hanging while the loop spins; the tenants' limits on
 * jobs, fences and parked WAITs, and WAITs that park and expire in a log
 * each; a tenants table too long for its reply says so; a uid's tenants
 * past uid_max_tenants are refused with EUSERS.
 */
#define _GNU_SOURCE
#include "daemon_harness.h"

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

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_text(path, buf, sizeof(buf)) < 0)
		return -1;
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

/*
 * A raw connection's first round trip (CTL_GET objects): 1 answered, or
 * the -errno of gspaced's refusal (a message of seq 0, then the close;
 * the kernel may report ECONNRESET before it), or 0 for anything else.
 */
static int first_trip(int fd)
{
	struct timeval tv = { 5, 0 };
	struct {
		struct gspd_msg h;
		char name[8];
	} m = { { .magic = GSPD_MAGIC, .version = GSPD_VERSION,
		  .op = GSPD_OP_CTL_GET, .seq = 1, .len = 8 }, "objects" };
	struct gspd_msg h;
	char buf[512];
	ssize_t n;
	int i;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	send(fd, &m, sizeof(m), MSG_NOSIGNAL);
	for (i = 0; i < 2; i++) {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0 && errno == ECONNRESET)
			continue;
		if (n < (ssize_t)sizeof(h))
			return 0;
		memcpy(&h, buf, sizeof(h));
		if (h.magic != GSPD_MAGIC || (size_t)n != sizeof(h) + h.len)
			return 0;
		if (!h.seq && h.status < 0 && !h.len)
			return h.status;
		return h.seq == 1 && !h.status ? 1 : 0;
	}
	return 0;
}

/*
 * In a child that becomes @uid: @n connections served, then one refused
 * with EUSERS, then (if @hold) says so on @wfd and waits to be killed.
 * 0, or the step that failed.
 */
static int uid_child(const char *sock, uid_t uid, int n, int hold, int wfd)
{
	int fds[16], i, r;

	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid))
		return 2;
	for (i = 0; i < n; i++) {
		fds[i] = raw_connect(sock);
		if (fds[i] < 0 || first_trip(fds[i]) != 1)
			return 3;
	}
	r = raw_connect(sock);
	if (r < 0 || first_trip(r) != -EUSERS)
		return 4;
	close(r);
	if (!hold)
		return 0;
	if (write(wfd, "r", 1) != 1)
		return 5;
	for (;;)
		pause();
}

static int child_status(pid_t pid)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * uid_max_tenants, from the config file and by CTL_SET: a uid's tenant
 * past it gets gspaced's refusal (EUSERS) and the close, without a log
 * line each; a SIGKILLed holder's slots come back; root is exempt; a
 * uid not an admin cannot raise it, and a bad value is refused.
 */
static void test_uid_tenants(void)
{
	static const char conf[] = "sim_devices = 1\nlease_devices = 0\n"
				   "uid_max_tenants = 2\n";
	static const char bad[] = "uid_max_tenants = 0\n";
	struct gspd_conn *c = NULL;
	int p[2], st, i, r, fds[5], lines;
	char buf[64], cmd[512];
	struct daemon d;
	pid_t a, b;

	if (geteuid() != 0) {
		tap_ok(1, "uid_max_tenants # SKIP needs root to become uid 4242");
		return;
	}
	if (!daemon_start(&d, "uids", conf, 0)) {
		tap_ok(0, "uids: gspaced starts with uid_max_tenants = 2");
		return;
	}
	b = fork();
	if (!b)
		_exit(uid_child(d.sock, 4242, 2, 0, -1));
	st = child_status(b);
	tap_ok(st == 0, "uid_max_tenants 2: a uid's 3rd tenant is refused with EUSERS (step %d)",
	       st);
	if (pipe(p) == 0) {
		a = fork();
		if (!a) {
			close(p[0]);
			_exit(uid_child(d.sock, 4242, 2, 1, p[1]));
		}
		close(p[1]);
		r = read(p[0], buf, 1) == 1;
		close(p[0]);
		b = fork();
		if (!b)
			_exit(uid_child(d.sock, 4243, 2, 0, -1));
		st = child_status(b);
		tap_ok(r && st == 0, "another uid is not held to the first's (step %d)",
		       st);
		kill(a, SIGKILL);
		child_status(a);
		for (i = 0, st = -1; i < 100 && st; i++) {
			if (i)
				sleep_ms(20);
			b = fork();
			if (!b)
				_exit(uid_child(d.sock, 4242, 2, 0, -1));
			st = child_status(b);
		}
		tap_ok(st == 0, "a SIGKILLed holder's slots come back (step %d, try %d)",
		       st, i);
	}
	for (i = 0, r = 0; i < 5; i++) {
		fds[i] = raw_connect(d.sock);
		r += fds[i] >= 0 && first_trip(fds[i]) == 1;
	}
	tap_ok(r == 5, "root is exempt: 5 of 5 served");
	for (i = 0; i < 5; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	lines = file_lines(d.log);
	tap_ok(lines >= 0 && lines < 10,
	       "refusals are logged once a second at most (%d lines)", lines);
	if (!gspd_connect(d.sock, &c)) {
		r = gspd_ctl_set(c, "uid_max_tenants", "0");
		tap_ok(r == -EINVAL, "CTL_SET uid_max_tenants 0: EINVAL (%d)", r);
		r = gspd_ctl_set(c, "uid_max_tenants", "1048577");
		tap_ok(r == -EINVAL, "CTL_SET uid_max_tenants 1048577: EINVAL (%d)",
		       r);
		r = gspd_ctl_set(c, "uid_max_tenants", "3");
		r = r ? r : gspd_ctl_get(c, "uid_max_tenants", buf, sizeof(buf));
		tap_ok(!r && !strcmp(buf, "3"), "CTL_SET uid_max_tenants 3 reads back ('%s')",
		       r ? "" : buf);
		gspd_disconnect(c);
	}
	b = fork();
	if (!b)
		_exit(uid_child(d.sock, 4242, 3, 0, -1));
	st = child_status(b);
	tap_ok(st == 0, "and holds: the uid's 4th is refused (step %d)", st);
	b = fork();
	if (!b) {
		if (setgroups(0, NULL) || setresgid(4242, 4242, 4242) ||
		    setresuid(4242, 4242, 4242) || gspd_connect(d.sock, &c))
			_exit(2);
		_exit(gspd_ctl_set(c, "uid_max_tenants", "1000") == -EPERM ? 0 : 3);
	}
	st = child_status(b);
	tap_ok(st == 0, "a uid not an admin cannot raise it: EPERM (step %d)", st);
	daemon_stop(&d, "uids");

	/* A bad value in the config: exit 2, naming the line and the range. */
	snprintf(cmd, sizeof(cmd), "printf '%s' > %s/bad.conf; '%s' --foreground --config %s/bad.conf --socket %s/bad.sock 2>%s/bad.log",
		 bad, dir, gspaced, dir, dir, dir);
	st = system(cmd);
	snprintf(cmd, sizeof(cmd), "%s/bad.log", dir);
	tap_ok(WIFEXITED(st) && WEXITSTATUS(st) == 2 &&
	       file_has(cmd, "bad.conf:1: uid_max_tenants = '0': write 1..1048576 tenants"),
	       "config uid_max_tenants = 0: exit 2 naming the line and the range (0x%x)",
	       st);
}

int main(void)
{
	static void (*const tests[])(void) = {
		test_fd_limit, test_limits, test_waits, test_tenants_cut,
		test_uid_tenants, NULL,
	};

	return daemon_main("limits", tests);
}
