// SPDX-License-Identifier: GPL-2.0
/*
 * gspaced: the userspace gspace arbiter.
 *
 *   gspaced [--foreground] [--config FILE] [--socket PATH] [-v]...
 *
 * Serves uapi/gspace.h over a UNIX SOCK_SEQPACKET socket
 * (libgsp/proto/gspd_proto.h) with the scheduling core of gspace.ko.
 * One thread runs everything from one epoll loop. Documentation/gspaced.rst.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "gspaced.h"
#include "gsp.h"
#include "gsp_version.h"

#define GD_DEFAULT_CONFIG	"/etc/gspace/gspaced.conf"

/* The one daemon instance; see struct gd. */
struct gd gd_state = { .epfd = -1, .listen_fd = -1, .timer_fd = -1,
		       .signal_fd = -1, .board_fd = -1, .reserve_fd = -1,
		       .log_level = GD_LOG_INFO };

void gd_log(int level, const char *fmt, ...)
{
	va_list ap;

	if (level > gd_state.log_level)
		return;
	fputs("gspaced: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

uint64_t gd_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

int gd_epoll_add(int fd, enum gd_tag tag, void *ptr)
{
	struct epoll_event ev = {
		.events = EPOLLIN,
		.data.u64 = (uint64_t)(uintptr_t)ptr | tag,
	};

	if (epoll_ctl(gd_state.epfd, EPOLL_CTL_ADD, fd, &ev)) {
		gd_log(GD_LOG_ERR, "epoll_ctl: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

void gd_epoll_del(int fd)
{
	epoll_ctl(gd_state.epfd, EPOLL_CTL_DEL, fd, NULL);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gspaced [--foreground] [--config FILE] [--socket PATH] [-v]...\n"
		"       gspaced --version | --help\n"
		"  --foreground  stay attached (systemd, tests); else detach once listening\n"
		"  --config FILE configuration (default %s; missing = defaults)\n"
		"  --socket PATH listening socket (default %s)\n"
		"  -v            more log lines on stderr (repeat for more)\n"
		"  --version     print 'gspaced VERSION' and exit\n",
		GD_DEFAULT_CONFIG, GSP_DEFAULT_SOCKET);
}

/*
 * One daemon per socket path. The lock, a flock() on "PATH.lock" held for
 * our whole life, decides it, not a probe of the socket: a daemon that is
 * alive but slow, stopped or swamped holds its lock all the same. The lock
 * file is never removed (removing it would let two daemons lock two
 * files); it holds the pid of its holder, for the message of the next.
 */
static int lock_fd = -1;
static bool lock_held;
/* The socket we put at the path: we remove that and nothing else. */
static bool sock_placed;
static dev_t sock_dev;
static ino_t sock_ino;

/* The pid the lock's holder wrote in the lock file, if it still runs. */
static pid_t lock_holder(void)
{
	char buf[16], *end;
	ssize_t n;
	long pid;

	n = pread(lock_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	pid = strtol(buf, &end, 10);
	if (pid <= 0 || pid > INT_MAX || *end != '\n')
		return 0;
	if (kill((pid_t)pid, 0) && errno != EPERM)
		return 0;
	return (pid_t)pid;
}

static int take_lock(const char *path, const char *lock)
{
	char buf[16];
	pid_t pid;
	int n;

	lock_fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	/* Another user's lock file: flock() needs no write access. */
	if (lock_fd < 0 && errno == EACCES)
		lock_fd = open(lock, O_RDONLY | O_CLOEXEC);
	if (lock_fd < 0) {
		gd_log(GD_LOG_ERR, "cannot open the lock file %s: %s\n", lock,
		       strerror(errno));
		return -1;
	}
	if (flock(lock_fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK) {
			gd_log(GD_LOG_ERR, "cannot lock %s: %s\n", lock,
			       strerror(errno));
			return -1;
		}
		pid = lock_holder();
		if (pid > 0)
			gd_log(GD_LOG_ERR, "another gspaced (pid %d) is listening on %s; stop it first, or give this one another --socket\n",
			       (int)pid, path);
		else
			gd_log(GD_LOG_ERR, "another gspaced is listening on %s; stop it first, or give this one another --socket\n",
			       path);
		return -1;
	}
	lock_held = true;
	/* Only the message above reads it: a failure costs just the pid. */
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(lock_fd, 0) || pwrite(lock_fd, buf, n, 0) != n)
		gd_log(GD_LOG_DEBUG, "cannot write our pid in %s\n", lock);
	return 0;
}

/*
 * With the lock held, whether @path may be replaced: if it is missing, or
 * a socket nobody listens on (ECONNREFUSED), left by a daemon that died.
 * A socket that accepts, or whose accept queue is full (EAGAIN: its
 * daemon is stopped or swamped, not gone), belongs to a live daemon whose
 * lock file was removed; whatever else we cannot judge is left alone.
 */
static int may_replace(const char *path, const char *lock)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, r, err;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		gd_log(GD_LOG_ERR, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		gd_log(GD_LOG_ERR, "%s exists and is not a socket; remove it, or give gspaced another --socket\n",
		       path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		gd_log(GD_LOG_ERR, "socket: %s\n", strerror(errno));
		return -1;
	}
	strcpy(sa.sun_path, path);
	r = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	err = errno;
	close(fd);
	if (!r || err == EAGAIN) {
		gd_log(GD_LOG_ERR, "a gspaced that holds no lock on %s is listening on %s (was the lock file removed?); stop it first, or give this one another --socket\n",
		       lock, path);
		return -1;
	}
	if (err == ECONNREFUSED || err == ENOENT)
		return 0;
	gd_log(GD_LOG_ERR, "cannot tell whether %s is in use (connect: %s); if no gspaced serves it, remove it\n",
	       path, strerror(err));
	return -1;
}

/*
 * Listens on @path: refuses if another daemon holds its lock or answers
 * there, and replaces a stale socket. The socket is bound under a
 * temporary name and renamed into place once listening, so a client (or a
 * second daemon probing) never finds a socket that refuses connections.
 * Mode 0666: access control is by credentials.
 */
static int listen_on(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[sizeof(sa.sun_path)], tmp[sizeof(sa.sun_path)];
	char lock[sizeof(sa.sun_path) + 8];
	struct stat st;
	int fd;

	strcpy(dir, path);
	if (stat(dirname(dir), &st) && errno == ENOENT &&
	    mkdir(dir, 0755) && errno != EEXIST) {
		gd_log(GD_LOG_ERR, "cannot create %s: %s\n", dir, strerror(errno));
		return -1;
	}
	snprintf(lock, sizeof(lock), "%s.lock", path);
	if (take_lock(path, lock) || may_replace(path, lock))
		return -1;

	snprintf(tmp, sizeof(tmp), "%s.%d", path, (int)getpid());
	strcpy(sa.sun_path, tmp);
	unlink(tmp);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		gd_log(GD_LOG_ERR, "socket: %s\n", strerror(errno));
		return -1;
	}
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		gd_log(GD_LOG_ERR, "bind %s: %s\n", tmp, strerror(errno));
		close(fd);
		return -1;
	}
	/* rename() replaces a stale socket left by a daemon that died. */
	if (chmod(tmp, 0666) || listen(fd, 128) || lstat(tmp, &st) ||
	    rename(tmp, path)) {
		gd_log(GD_LOG_ERR, "listen %s: %s\n", path, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	sock_placed = true;
	sock_dev = st.st_dev;
	sock_ino = st.st_ino;
	return fd;
}

/* Removes our socket, unless something else has taken its place. */
static void unlisten(const char *path)
{
	struct stat st;

	if (!sock_placed || lstat(path, &st))
		return;
	if (st.st_dev == sock_dev && st.st_ino == sock_ino)
		unlink(path);
	else
		gd_log(GD_LOG_ERR, "%s is no longer our socket; leaving it in place\n",
		       path);
}

/* Last: clears our pid from the lock file while we still hold the lock. */
static void release_lock(void)
{
	if (lock_fd < 0)
		return;
	if (lock_held && ftruncate(lock_fd, 0))
		gd_log(GD_LOG_DEBUG, "cannot clear the lock file\n");
	close(lock_fd);
}

/* Detaching moves us to /: a relative --socket must not land there. */
static char *absolute_path(const char *path)
{
	char *cwd, *abs;

	cwd = getcwd(NULL, 0);
	if (!cwd)
		return NULL;
	if (asprintf(&abs, "%s/%s", cwd, path) < 0)
		abs = NULL;
	free(cwd);
	return abs;
}

static void timer_arm(uint64_t when)
{
	struct itimerspec its = { 0 };

	if (when == gd_state.timer_armed_ns)
		return;
	its.it_value.tv_sec = when / 1000000000ULL;
	its.it_value.tv_nsec = when % 1000000000ULL;
	if (timerfd_settime(gd_state.timer_fd, TFD_TIMER_ABSTIME, &its, NULL))
		gd_log(GD_LOG_ERR, "timerfd_settime: %s\n", strerror(errno));
	gd_state.timer_armed_ns = when;
}

/* Runs until SIGTERM or SIGINT. */
static void loop(void)
{
	struct epoll_event ev[64];

	for (;;) {
		uint64_t next = gd_next_deadline(),
			 resume = gd_client_listen_resume(gd_now());
		int i, n;

		timer_arm(resume && (!next || resume < next) ? resume : next);
		n = epoll_wait(gd_state.epfd, ev, 64, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			gd_log(GD_LOG_ERR, "epoll_wait: %s\n", strerror(errno));
			return;
		}
		for (i = 0; i < n; i++) {
			uint64_t d = ev[i].data.u64;
			void *ptr = (void *)(uintptr_t)(d & ~((1ULL << GD_TAG_BITS) - 1));
			struct signalfd_siginfo si;
			uint64_t exp;

			switch (d & ((1ULL << GD_TAG_BITS) - 1)) {
			case GD_TAG_LISTEN:
				gd_client_accept();
				break;
			case GD_TAG_TIMER:
				if (read(gd_state.timer_fd, &exp, sizeof(exp)) > 0)
					gd_state.timer_armed_ns = 0;
				break;
			case GD_TAG_SIGNAL:
				if (read(gd_state.signal_fd, &si, sizeof(si)) ==
				    sizeof(si)) {
					gd_log(GD_LOG_INFO, "signal %u: shutting down\n",
					       si.ssi_signo);
					return;
				}
				break;
			case GD_TAG_CLIENT: {
				struct gd_tenant *t = ptr;

				if (!t->dead)
					gd_client_readable(t);
				break;
			}
			case GD_TAG_FENCE:
				gd_fence_ready(ptr);
				break;
			}
		}
		gd_run_timers(gd_now());
		gd_client_reap_dead();
		gd_run_timers(gd_now());
		gd_graveyard_empty();
	}
}

/* Detaches once listening; the parent's exit status says it worked. */
static int daemonize(void)
{
	int p[2];
	pid_t pid;
	char ok;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid > 0) {
		close(p[1]);
		_exit(read(p[0], &ok, 1) == 1 ? 0 : 1);
	}
	close(p[0]);
	setsid();
	if (chdir("/"))
		return -1;
	/* The caller learns we are up when this end closes with a byte. */
	return p[1];
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "foreground", no_argument, NULL, 'f' },
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *sock = NULL;
	char *abs_sock = NULL;
	bool foreground = false;
	int ready_fd = -1, status = 1, c, devnull;
	sigset_t mask;

	while ((c = getopt_long(argc, argv, "fc:s:vh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			foreground = true;
			break;
		case 'c':
			config = optarg;
			break;
		case 's':
			sock = optarg;
			break;
		case 'v':
			gd_state.log_level++;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("gspaced %s\n", GSP_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "gspaced: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if ((config && !*config) || (sock && !*sock)) {
		fprintf(stderr, "gspaced: --config and --socket need a non-empty path\n");
		return 2;
	}

	gd_config_default(&gd_state.cfg);
	if (gd_config_load(config ? config : GD_DEFAULT_CONFIG, config != NULL) ||
	    gd_admit_load())
		return 2;
	gd_state.self_uid = getuid();

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (gd_board_init())
		return 1;
	gd_devices_init();
	gd_config_set_live();
	gd_state.epfd = epoll_create1(EPOLL_CLOEXEC);
	gd_state.signal_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	gd_state.timer_fd = timerfd_create(CLOCK_MONOTONIC,
					   TFD_CLOEXEC | TFD_NONBLOCK);
	gd_state.reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (gd_state.epfd < 0 || gd_state.signal_fd < 0 ||
	    gd_state.timer_fd < 0 || gd_state.reserve_fd < 0) {
		gd_log(GD_LOG_ERR, "setup: %s\n", strerror(errno));
		goto out;
	}
	sock = sock ? sock : GSP_DEFAULT_SOCKET;
	if (!foreground && sock[0] != '/') {
		abs_sock = absolute_path(sock);
		if (!abs_sock) {
			gd_log(GD_LOG_ERR, "cannot make --socket %s absolute: %s\n",
			       sock, strerror(errno));
			goto out;
		}
		sock = abs_sock;
	}
	/* With room for listen_on()'s ".PID" temporary name. */
	if (strlen(sock) + 12 >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		gd_log(GD_LOG_ERR, "socket path too long (%zu bytes at most): %s\n",
		       sizeof(((struct sockaddr_un *)0)->sun_path) - 13, sock);
		status = 2;
		goto out;
	}
	if (!foreground) {
		ready_fd = daemonize();
		if (ready_fd < 0) {
			gd_log(GD_LOG_ERR, "cannot detach: %s\n", strerror(errno));
			goto out;
		}
	}
	gd_state.listen_fd = listen_on(sock);
	if (gd_state.listen_fd < 0)
		goto out;
	if (gd_epoll_add(gd_state.listen_fd, GD_TAG_LISTEN, NULL) ||
	    gd_epoll_add(gd_state.timer_fd, GD_TAG_TIMER, NULL) ||
	    gd_epoll_add(gd_state.signal_fd, GD_TAG_SIGNAL, NULL))
		goto out_unlink;
	gd_log(GD_LOG_INFO, "listening on %s: %u sim and %u lease devices, policy %s\n",
	       sock, gd_state.cfg.nr_sim, gd_state.cfg.nr_lease,
	       gsp_policy_names[gd_state.cfg.params.policy]);
	if (ready_fd >= 0) {
		devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (devnull >= 0) {
			dup2(devnull, STDIN_FILENO);
			dup2(devnull, STDOUT_FILENO);
			close(devnull);
		}
		if (write(ready_fd, "1", 1) != 1)
			gd_log(GD_LOG_ERR, "cannot tell the parent we are up\n");
		close(ready_fd);
	}

	loop();
	status = 0;

	/* Every tenant ends as if its socket had closed. */
	while (gd_state.tenants)
		gd_tenant_teardown(gd_state.tenants);
out_unlink:
	unlisten(sock);
out:
	if (gd_state.listen_fd >= 0)
		close(gd_state.listen_fd);
	if (gd_state.epfd >= 0)
		close(gd_state.epfd);
	if (gd_state.timer_fd >= 0)
		close(gd_state.timer_fd);
	if (gd_state.signal_fd >= 0)
		close(gd_state.signal_fd);
	if (gd_state.reserve_fd >= 0)
		close(gd_state.reserve_fd);
	release_lock();
	free(abs_sock);
	gd_jobs_fini();
	gd_board_fini();
	return status;
}
