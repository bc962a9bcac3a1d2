// SPDX-License-Identifier: GPL-2.0
/*
 * gspaced's socket path, with daemons of its own ($GSPACED, on sockets in
 * a temp folder): a second daemon started by mistake never takes the path
 * of a live one, even while that one is stopped with a full accept queue
 * and even when its lock file was removed; of two started at once over a
 * stale socket, the one that gets there first serves and the other leaves
 * it be, however slow it is; a path that is not a socket is never
 * replaced; a daemon removes its own socket at exit and nothing that took
 * its place; a detached daemon puts a relative --socket where it was asked
 * to, not in /.
 */
#define _GNU_SOURCE
#include <sys/prctl.h>

#include "daemon_harness.h"

/* How long a daemon may take to give up, however loaded. */
#define REFUSE_MS	20000
/* More than gspaced's listen() backlog. */
#define MAX_QUEUED	512

/* The first daemon logs to flog, every other one to slog. */
static char conf[128], sock[128], lock[160], flog[128], slog[128];

/* 0 when @path accepts a connection now; else the errno of connect(). */
static int try_connect(const char *path, int *fdp)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd, err = 0;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return errno;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		err = errno;
	if (err || !fdp)
		close(fd);
	else
		*fdp = fd;
	return err;
}

static ino_t inode_of(const char *path)
{
	struct stat st;

	return lstat(path, &st) ? 0 : st.st_ino;
}

/*
 * Starts gspaced on @path with config @cfg, its stderr in @log; if @gate
 * is a pipe's read end, only once a byte comes through it.
 */
static pid_t spawn_gated(const char *path, const char *cfg, const char *log,
			 bool foreground, int gate)
{
	pid_t pid = fork();
	char ch;
	int fd;

	if (pid)
		return pid;
	if (gate >= 0 && read(gate, &ch, 1) != 1)
		_exit(127);
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
		_exit(127);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0)
		_exit(127);
	if (foreground)
		execl(gspaced, gspaced, "--foreground", "--config", cfg,
		      "--socket", path, (char *)NULL);
	else
		execl(gspaced, gspaced, "--config", cfg, "--socket", path,
		      (char *)NULL);
	_exit(127);
}

static pid_t spawn(const char *path, const char *cfg, const char *log,
		   bool foreground)
{
	return spawn_gated(path, cfg, log, foreground, -1);
}

/* Waits up to @ms for @pid; its wait status, or -1 (then it is killed). */
static int reap(pid_t pid, int ms)
{
	int status;

	for (int i = 0; i < ms / 10; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			return status;
		sleep_ms(10);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return -1;
}

/*
 * Waits up to START_MS until @path accepts connections, while @pid runs
 * (an exited @pid is left for reap()).
 */
static bool serving(pid_t pid, const char *path)
{
	siginfo_t si;

	for (int i = 0; i < START_MS / 10; i++) {
		if (!try_connect(path, NULL))
			return true;
		si.si_pid = 0;
		if (!waitid(P_PID, pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
		    si.si_pid == pid)
			return false;
		sleep_ms(10);
	}
	return false;
}

/* A second daemon on @path: true if it exits 1 with @msg in its log. */
static bool second_refused(const char *path, const char *msg)
{
	int status = reap(spawn(path, conf, slog, true), REFUSE_MS);
	bool ok = status >= 0 && WIFEXITED(status) &&
		  WEXITSTATUS(status) == 1 && file_has(slog, msg) &&
		  sanitizers_quiet(slog);

	if (!ok) {
		if (status < 0)
			printf("# still running after %d ms: killed\n",
			       REFUSE_MS);
		else
			printf("# wait status 0x%x\n", status);
		show_log(slog);
	}
	return ok;
}

/*
 * The first daemon, stopped with its accept queue full, then with its lock
 * file removed as well: a second one must neither hang nor take the path.
 */
static pid_t test_second(void)
{
	int queued[MAX_QUEUED], nq = 0, err = 0;
	char msg[256], buf[32] = "";
	ino_t ino;
	pid_t a;
	FILE *f;
	bool ok;

	a = spawn(sock, conf, flog, true);
	if (!serving(a, sock)) {
		tap_ok(0, "first gspaced serves %s", sock);
		show_log(flog);
		reap(a, 0);
		return 0;
	}
	tap_ok(1, "first gspaced serves its socket");
	ino = inode_of(sock);
	f = fopen(lock, "r");
	if (f) {
		if (!fgets(buf, sizeof(buf), f))
			buf[0] = '\0';
		fclose(f);
	}
	tap_ok(atoi(buf) == a, "its lock file holds its pid");
	if (atoi(buf) != a)
		printf("# pid %d, lock file '%.*s'\n", (int)a,
		       (int)strcspn(buf, "\n"), buf);

	snprintf(msg, sizeof(msg),
		 "another gspaced (pid %d) is listening on %s;", (int)a, sock);
	tap_ok(second_refused(sock, msg),
	       "a second gspaced: exit 1, naming the first's pid");

	kill(a, SIGSTOP);
	while (nq < MAX_QUEUED && !(err = try_connect(sock, &queued[nq])))
		nq++;
	tap_ok(err == EAGAIN, "first stopped: its accept queue fills");
	if (err != EAGAIN)
		printf("# %d connections queued, then: %s\n", nq,
		       strerror(err));
	tap_ok(second_refused(sock, msg),
	       "first stopped, queue full: a second gspaced is refused");
	tap_ok(inode_of(sock) == ino, "and the first's socket is in place");

	/* As a /tmp cleaner could: liveness now rests on the probe alone. */
	unlink(lock);
	tap_ok(second_refused(sock, "that holds no lock"),
	       "lock file removed, first stopped, queue full: a second gspaced is refused, not hung");
	tap_ok(inode_of(sock) == ino, "and the first's socket is in place");

	kill(a, SIGCONT);
	while (nq > 0)
		close(queued[--nq]);
	unlink(lock);
	tap_ok(second_refused(sock, "that holds no lock"),
	       "lock file removed, first running: a second gspaced is refused");
	ok = inode_of(sock) == ino && serving(a, sock);
	tap_ok(ok, "and the first still serves its socket");
	if (!ok) {
		show_log(flog);
		reap(a, 0);
		return 0;
	}
	return a;
}

/*
 * Two daemons started at once over a stale socket, the first one slower
 * (as on a loaded machine: here it is held before its exec until the
 * second serves): the one that takes the lock serves, the other gives up
 * and leaves it be.
 */
static void test_slow_first(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char path[96], msg[256];
	int fd, status, gate[2];
	pid_t a, b;
	ino_t ino;
	bool ok;

	snprintf(path, sizeof(path), "%s/race.sock", dir);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	/* A stale socket: bound, never listened on, closed. */
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    pipe2(gate, O_CLOEXEC)) {
		tap_ok(0, "a stale socket and a gate: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);

	a = spawn_gated(path, conf, flog, true, gate[0]);
	close(gate[0]);
	b = spawn(path, conf, slog, true);
	ok = serving(b, path);
	tap_ok(ok, "the later of two gspaced, the first one slow: serves");
	if (!ok) {
		show_log(slog);
		close(gate[1]);
		kill(a, SIGKILL);
		reap(a, 0);
		reap(b, 0);
		return;
	}
	ino = inode_of(path);
	/* Lets the first one go on. */
	if (write(gate[1], "g", 1) != 1)
		printf("# opening the gate: %s\n", strerror(errno));
	close(gate[1]);
	status = reap(a, REFUSE_MS);
	snprintf(msg, sizeof(msg),
		 "another gspaced (pid %d) is listening on %s;", (int)b, path);
	ok = status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) == 1 &&
	     file_has(flog, msg) && sanitizers_quiet(flog);
	tap_ok(ok, "and the slow first one exits 1, naming it");
	if (!ok) {
		printf("# wait status 0x%x\n", status);
		show_log(flog);
	}
	tap_ok(inode_of(path) == ino && serving(b, path),
	       "and the later one still serves its socket");
	kill(b, SIGTERM);
	status = reap(b, START_MS);
	tap_ok(status >= 0 && WIFEXITED(status) && !WEXITSTATUS(status) &&
	       !inode_of(path) && sanitizers_quiet(slog),
	       "SIGTERM: it exits 0 and removes its socket (0x%x)", status);
}

/* @a, serving on sock: something else takes the path; a's exit leaves it. */
static void test_not_ours(pid_t a)
{
	char other[160];
	int fd, status;

	snprintf(other, sizeof(other), "%s/other", dir);
	fd = open(other, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0)
		close(fd);
	if (fd < 0 || rename(other, sock)) {
		tap_ok(0, "put a file in place of the first's socket: %s",
		       strerror(errno));
		kill(a, SIGKILL);
		reap(a, 0);
		return;
	}
	kill(a, SIGTERM);
	status = reap(a, START_MS);
	tap_ok(status >= 0 && WIFEXITED(status) && !WEXITSTATUS(status) &&
	       inode_of(sock) && file_has(flog, "no longer our socket"),
	       "SIGTERM: gspaced exits 0 and leaves what took its socket's place (0x%x)",
	       status);
	tap_ok(sanitizers_quiet(flog),
	       "the first gspaced: the sanitizers reported nothing");
	if (!sanitizers_quiet(flog))
		show_log(flog);
	unlink(sock);
}

/* A regular file on the path is never taken for a stale socket. */
static void test_not_a_socket(void)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "%s/file", dir);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0 || write(fd, "keep\n", 5) != 5) {
		tap_ok(0, "write %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	close(fd);
	tap_ok(second_refused(path, "exists and is not a socket") &&
	       file_has(path, "keep"),
	       "--socket naming a regular file: exit 1, the file kept");
}

/* Stops what is left of our children (a detached daemon reparented to us). */
static void stop_children(void)
{
	char path[64], buf[256], *p, *end;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children",
		 (int)getpid());
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	for (p = buf; *p; p = end) {
		long pid = strtol(p, &end, 10);

		if (end == p)
			break;
		printf("# stopping leftover daemon %ld\n", pid);
		kill((pid_t)pid, SIGTERM);
		if (reap((pid_t)pid, 5000) < 0)
			printf("# it needed SIGKILL\n");
	}
}

/* Without --foreground: the parent exits 0 once the child listens. */
static void test_detached(void)
{
	char rel[] = "detached.sock", path[160], buf[32] = "";
	pid_t parent, d;
	int status, fd;
	ssize_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	if (chdir(dir)) {
		tap_ok(0, "chdir %s: %s", dir, strerror(errno));
		return;
	}
	parent = spawn(rel, conf, slog, false);
	status = reap(parent, START_MS);
	tap_ok(status >= 0 && WIFEXITED(status) && !WEXITSTATUS(status),
	       "detached gspaced: the parent exits 0 once listening (0x%x)",
	       status);
	tap_ok(!try_connect(path, NULL),
	       "a relative --socket is made in the folder it was started from");
	snprintf(path, sizeof(path), "%s/%s.lock", dir, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	if (fd >= 0)
		close(fd);
	d = n > 0 ? atoi(buf) : 0;
	if (d > 0) {
		kill(d, SIGTERM);
		status = reap(d, START_MS);
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		tap_ok(status >= 0 && WIFEXITED(status) &&
		       !WEXITSTATUS(status) && !inode_of(path) &&
		       sanitizers_quiet(slog),
		       "SIGTERM: the detached gspaced exits 0, its socket removed (0x%x)",
		       status);
		if (!sanitizers_quiet(slog))
			show_log(slog);
	} else {
		tap_ok(0, "the detached gspaced's pid is in its lock file");
		show_log(slog);
	}
	stop_children();
	if (chdir("/"))
		printf("# chdir /: %s\n", strerror(errno));
}

int main(void)
{
	pid_t a;
	FILE *f;

	if (daemon_setup("socket"))
		return tap_done();
	snprintf(conf, sizeof(conf), "%s/gspaced.conf", dir);
	snprintf(sock, sizeof(sock), "%s/gspaced.sock", dir);
	snprintf(lock, sizeof(lock), "%s.lock", sock);
	snprintf(flog, sizeof(flog), "%s/first.log", dir);
	snprintf(slog, sizeof(slog), "%s/second.log", dir);
	f = fopen(conf, "w");
	if (!f || fputs("sim_devices = 1\nlease_devices = 0\n", f) < 0 ||
	    fclose(f)) {
		tap_ok(0, "write %s", conf);
		return daemon_cleanup();
	}
	/* A detached daemon's exit status comes to us. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1))
		printf("# PR_SET_CHILD_SUBREAPER: %s\n", strerror(errno));

	a = test_second();
	if (a > 0)
		test_not_ours(a);
	test_slow_first();
	test_not_a_socket();
	test_detached();
	return daemon_cleanup();
}
