// SPDX-License-Identifier: GPL-2.0
/*
 * gspctl: status, a live top-like view, and the knobs of a gspace arbiter.
 *
 *   kernel  knobs in /sys/class/misc/gspace/<knob>, tenants and devices
 *           in /sys/kernel/debug/gspace/ (root only), ABI from VERSION
 *   daemon  everything over the gspaced socket (gspd_ctl_*, VERSION)
 *
 * The partition plane is read from the board (gsp_board()) in either case.
 * "gspctl mps" drives NVIDIA's MPS control daemon and needs no arbiter.
 *
 * Built from libgsp's objects rather than against libgsp.so: it needs the
 * daemon connection and gspd_ctl_*(), which libgsp.so keeps hidden.
 * Exit status: 0 done, 1 the arbiter failed or is absent, 2 bad usage;
 * predict and admit (gspctl_admit.c) are offline, and admit exits 3 when
 * not even one batch instance meets the target.
 *
 * Over 800 lines: status, top, knobs and mps in one file; the split is
 * issue 33's section 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsp.h>
#include <gsp_board.h>
#include "libgsp_internal.h"
#include "gspd_proto.h"
#include "gsp_knobs.h"
#include "gsp_version.h"
#include "gspctl.h"
#include "gspctl_admit.h"


extern char **environ;


static const char usage_text[] =
"usage: gspctl [--arbiter kernel|daemon|auto] [--socket PATH] COMMAND\n"
"       gspctl --version | --help\n"
"\n"
"commands:\n"
"  status [--json]                 arbiter, ABI, devices, knobs, tenants\n"
"                                  (--json: one JSON object, for scripts)\n"
"  metrics [--textfile PATH]      the same in Prometheus' text format, on\n"
"                                  stdout or written whole to PATH (for\n"
"                                  node_exporter's textfile collector)\n"
"  top [--interval MS] [--count N] GPU-time rate per tenant, refreshed\n"
"                                  every MS ms (default 1000), N times\n"
"                                  (default: until interrupted)\n"
"  get KNOB                        print one knob\n"
"  set KNOB VALUE                  change one knob (root, or an admin of\n"
"                                  gspaced)\n"
"  knobs                           list the knobs and their valid values\n"
"  mps start|stop|status           NVIDIA's MPS control daemon, with\n"
"                                  $CUDA_MPS_PIPE_DIRECTORY and\n"
"                                  $CUDA_MPS_LOG_DIRECTORY (status: exit 0\n"
"                                  if it runs, 1 if not)\n"
"  predict --hw HW --lc LC [--be BE [--k N]] [--model fluid|sequential]\n"
"          [--be-pes P]            the LC's latency beside N batch\n"
"                                  instances, predicted from solo traces\n"
"                                  (offline; gspctl predict --help)\n"
"  admit --hw HW --lc LC --be BE [--q Q | --target-us US] [--kmax K]\n"
"        [--model M] [--be-pes P]  the most batch instances that keep the\n"
"                                  LC within its target (offline; exit 3:\n"
"                                  not even one; gspctl admit --help)\n"
"\n"
"options:\n"
"  --arbiter A   kernel (gspace.ko), daemon (gspaced) or auto (default:\n"
"                $GSP_ARBITER, else auto: the kernel if gspace.ko is loaded)\n"
"  --socket P    gspaced's socket (default: $GSP_SOCKET, else "
GSP_DEFAULT_SOCKET ")\n"
"  -h, --help    this text\n"
"  --version     print 'gspctl VERSION' and exit\n";

static void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("gspctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n\n", stderr);
	fputs(usage_text, stderr);
	exit(EXIT_USAGE);
}

/*
 * The knobs: the core's table (kmod/core/gsp_knob_table.h), which both
 * arbiters serve. gspctl checks a value before it sends it; the arbiter
 * checks again and has the last word (band_wait_us < period_us, for one,
 * depends on two knobs).
 */
#define NKNOBS	GSP_KNOB_COUNT

/* "help; range" of knob @k, for the list and the messages. */
static const char *knob_help(const struct gsp_knob *k)
{
	static char text[GSP_KNOB_COUNT][256];
	size_t i = (size_t)(k - gsp_knobs);
	char range[96];

	if (!text[i][0]) {
		gsp_knob_range((enum gsp_knob_id)i, range, sizeof(range));
		snprintf(text[i], sizeof(text[i]), "%s; %s", k->help, range);
	}
	return text[i];
}

static void print_knobs(FILE *f)
{
	size_t i;

	fputs("knobs:\n", f);
	for (i = 0; i < NKNOBS; i++)
		fprintf(f, "  %-16s %s\n", gsp_knobs[i].name,
			knob_help(&gsp_knobs[i]));
}

static void knob_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

static void knob_error(const char *fmt, ...)
{
	va_list ap;

	fputs("gspctl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	print_knobs(stderr);
	exit(EXIT_USAGE);
}

static const struct gsp_knob *knob_find(const char *name)
{
	size_t i;

	for (i = 0; i < NKNOBS; i++)
		if (!strcmp(gsp_knobs[i].name, name))
			return &gsp_knobs[i];
	return NULL;
}

/* A decimal unsigned integer, all of @s; no sign, no blanks. */
static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*out = strtoull(s, &end, 10);
	return !errno && !*end;
}

/* Checks @value for @k; exits 2 with the valid range if it is bad. */
static void knob_check(const struct gsp_knob *k, const char *value)
{
	enum gsp_knob_id id = (enum gsp_knob_id)(k - gsp_knobs);
	struct gsp_knob_val v;
	uint64_t u;

	switch (k->type) {
	case GSP_KNOB_PARTITION:
		/* "N,K", the form gspctl writes and reads, or "auto". */
		if (strcmp(value, "auto") &&
		    (!strchr(value, ',') || gsp_knob_parse(id, value, &v)))
			knob_error("partition must be N,K with N 1..%d and K 1..%d (such as 8,2), 0,0 for off, or auto, not '%s'",
				   GSPACE_PART_MAX_N, GSPACE_PART_MAX_K, value);
		return;
	case GSP_KNOB_SEARCH:
	case GSP_KNOB_PROTECT:
	case GSP_KNOB_POLICY:
		if (gsp_knob_parse(id, value, &v)) {
			char range[96];

			gsp_knob_range(id, range, sizeof(range));
			knob_error("%s must be %s, not '%s'", k->name, range,
				   value);
		}
		return;
	case GSP_KNOB_GROUP:
		if (!strcmp(value, "-1"))
			return;
		if (!parse_u64(value, &u) || u > k->max)
			knob_error("lc_group must be a gid 0..%" PRIu64
				   " or -1, not '%s'", k->max, value);
		return;
	case GSP_KNOB_UINT:
	case GSP_KNOB_DEVICES:
		if (!parse_u64(value, &u))
			knob_error("%s must be a decimal integer, not '%s' (%s)",
				   k->name, value, knob_help(k));
		if (u < k->min || u > k->max)
			knob_error("%s=%s is out of range: %s", k->name, value,
				   knob_help(k));
		return;
	}
}

const char *err_text(int err)
{
	/* -INT_MIN overflows; a status that low names no errno anyway. */
	if (err < 0)
		err = err == INT_MIN ? INT_MAX : -err;
	return strerror(err);
}

void connect_target(struct target *t)
{
	struct gsp_open_opts o = {
		.size = sizeof(o),
		.arbiter = t->kind,
		.dev_path = t->dev,
		.socket_path = t->socket,
	};

	t->open_err = gsp_open(&t->g, &o);
}

struct gspd_conn *need_daemon(struct target *t)
{
	if (!t->g && !t->open_err)
		connect_target(t);
	if (t->open_err == -ENOENT) {
		fprintf(stderr, "gspctl: no gspaced listens on %s: start gspaced or pass --socket\n",
			t->socket);
		exit(EXIT_FAIL);
	}
	if (t->open_err) {
		fprintf(stderr, "gspctl: cannot connect to gspaced on %s: %s\n",
			t->socket, err_text(t->open_err));
		exit(EXIT_FAIL);
	}
	return gspi_conn(t->g);
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		s[--n] = 0;
}

int read_text(const char *path, char *buf, size_t bufsz)
{
	size_t n = 0;
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	while (n + 1 < bufsz) {
		r = read(fd, buf + n, bufsz - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			close(fd);
			return (int)r;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	buf[n] = 0;
	close(fd);
	return 0;
}

int knob_get(struct target *t, const char *name, char *out, size_t sz)
{
	char path[PATH_MAX];
	int ret;

	if (t->kind == GSP_ARBITER_KERNEL) {
		snprintf(path, sizeof(path), SYSFS_DIR "/%s", name);
		ret = read_text(path, out, sz);
	} else {
		ret = gspd_ctl_get(need_daemon(t), name, out, sz);
	}
	if (!ret)
		chomp(out);
	/* An arbiter older than the core's knob table says "N K". */
	if (!ret && !strcmp(name, "partition") && strchr(out, ' '))
		*strchr(out, ' ') = ',';
	return ret;
}

static int knob_set(struct target *t, const char *name, const char *value)
{
	char path[PATH_MAX];
	ssize_t r;
	int fd;

	if (t->kind == GSP_ARBITER_DAEMON)
		return gspd_ctl_set(need_daemon(t), name, value);
	snprintf(path, sizeof(path), SYSFS_DIR "/%s", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = write(fd, value, strlen(value));
	r = r < 0 ? -errno : 0;
	close(fd);
	return (int)r;
}

bool kernel_loaded(void)
{
	struct stat st;

	return !stat(SYSFS_DIR, &st);
}

static int cmd_get(struct target *t, const char *name)
{
	char val[256];
	int ret;

	if (!knob_find(name))
		knob_error("unknown knob '%s'", name);
	if (t->kind == GSP_ARBITER_KERNEL && !kernel_loaded()) {
		fprintf(stderr, "gspctl: gspace.ko is not loaded (no %s); load it or use --arbiter daemon\n",
			SYSFS_DIR);
		return EXIT_FAIL;
	}
	ret = knob_get(t, name, val, sizeof(val));
	if (ret == -ENOENT) {
		fprintf(stderr, "gspctl: %s has no knob %s\n",
			t->kind == GSP_ARBITER_KERNEL ? "gspace.ko" : "gspaced",
			name);
		return EXIT_USAGE;
	}
	if (ret) {
		fprintf(stderr, "gspctl: get %s: %s\n", name, err_text(ret));
		return EXIT_FAIL;
	}
	printf("%s\n", val);
	return 0;
}

static int cmd_set(struct target *t, const char *name, const char *value)
{
	const struct gsp_knob *k = knob_find(name);
	const char *who;
	int ret;

	if (!k)
		knob_error("unknown knob '%s'", name);
	knob_check(k, value);
	if (t->kind == GSP_ARBITER_KERNEL && !kernel_loaded()) {
		fprintf(stderr, "gspctl: gspace.ko is not loaded (no %s); load it or use --arbiter daemon\n",
			SYSFS_DIR);
		return EXIT_FAIL;
	}
	who = t->kind == GSP_ARBITER_KERNEL ? "gspace.ko" : "gspaced";
	ret = knob_set(t, name, value);
	switch (ret) {
	case 0:
		return 0;
	case -EPERM:
	case -EACCES:
		if (t->kind == GSP_ARBITER_KERNEL)
			fprintf(stderr, "gspctl: set %s: %s; run gspctl as root\n",
				name, err_text(ret));
		else
			fprintf(stderr, "gspctl: set %s: %s; run gspctl as root, as gspaced's user, or as a user named in admin_uids/admin_groups of gspaced.conf\n",
				name, err_text(ret));
		return EXIT_FAIL;
	case -ENOENT:
		fprintf(stderr, "gspctl: %s has no knob %s\n", who, name);
		return EXIT_USAGE;
	case -EINVAL:
		fprintf(stderr, "gspctl: %s rejected %s=%s: %s\n", who, name,
			value, knob_help(k));
		return EXIT_USAGE;
	case -EBUSY:
		fprintf(stderr, "gspctl: set %s: jobs exist; %s can change only while no job does\n",
			name, name);
		return EXIT_FAIL;
	default:
		fprintf(stderr, "gspctl: set %s: %s\n", name, err_text(ret));
		return EXIT_FAIL;
	}
}

/* A decimal integer in [min, max] for option @opt, or a usage error. */
static unsigned long parse_opt_num(const char *opt, const char *s,
				   unsigned long min, unsigned long max)
{
	uint64_t v;

	if (!parse_u64(s, &v) || v < min || v > max)
		usage_error("%s takes an integer in %lu..%lu, not '%s'", opt,
			    min, max, s);
	return (unsigned long)v;
}

static int main_top(struct target *t, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ 0 },
	};
	unsigned interval = 1000;
	unsigned long count = 0;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			interval = (unsigned)parse_opt_num("--interval", optarg,
							   10, 3600000);
			break;
		case 'n':
			count = parse_opt_num("--count", optarg, 1, ULONG_MAX);
			break;
		case ':':
			usage_error("top: %s needs a value", argv[optind - 1]);
		default:
			usage_error("top: unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		usage_error("top: unexpected argument '%s'", argv[optind]);
	return cmd_top(t, interval, count);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "arbiter", required_argument, NULL, 'a' },
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	struct target t = { .kind = GSP_ARBITER_AUTO };
	const char *arbiter = getenv("GSP_ARBITER");
	const char *cmd;
	enum gsp_arbiter kind;
	int c, ret;

	t.socket = getenv("GSP_SOCKET");
	t.dev = getenv("GSPACE_DEV");
	opterr = 0;
	/* '+': options after the command belong to the command. */
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'a':
			arbiter = optarg;
			if (gsp_arbiter_parse(optarg, &kind))
				usage_error("--arbiter takes kernel, daemon or auto, not '%s'",
					    optarg);
			break;
		case 's':
			if (!*optarg)
				usage_error("--socket needs a path");
			t.socket = optarg;
			break;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'V':
			printf("gspctl %s\n", GSP_VERSION);
			return 0;
		case ':':
			usage_error("%s needs a value", argv[optind - 1]);
		default:
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (arbiter && *arbiter && gsp_arbiter_parse(arbiter, &t.kind))
		usage_error("GSP_ARBITER must be kernel, daemon or auto, not '%s'",
			    arbiter);
	if (!t.socket || !*t.socket)
		t.socket = GSP_DEFAULT_SOCKET;
	if (!t.dev || !*t.dev)
		t.dev = GSP_DEFAULT_DEV;
	if (optind >= argc)
		usage_error("no command given");
	cmd = argv[optind];
	argc -= optind;
	argv += optind;

	/* Offline: traces in, predictions out, no arbiter. */
	if (!strcmp(cmd, "predict"))
		return gspctl_predict(argc, argv);
	if (!strcmp(cmd, "admit"))
		return gspctl_admit(argc, argv);

	/* Argument errors first: they must not depend on what is running. */
	if (!strcmp(cmd, "get")) {
		if (argc != 2)
			usage_error("get takes one knob name");
		if (!knob_find(argv[1]))
			knob_error("unknown knob '%s'", argv[1]);
	} else if (!strcmp(cmd, "set")) {
		if (argc != 3)
			usage_error("set takes a knob name and a value");
		if (!knob_find(argv[1]))
			knob_error("unknown knob '%s'", argv[1]);
		knob_check(knob_find(argv[1]), argv[2]);
	} else if (!strcmp(cmd, "status")) {
		if (argc > 2 || (argc == 2 && strcmp(argv[1], "--json")))
			usage_error("status takes no argument but --json");
	} else if (!strcmp(cmd, "knobs")) {
		if (argc != 1)
			usage_error("%s takes no argument", cmd);
	} else if (!strcmp(cmd, "metrics")) {
		if (argc != 1 && (argc != 3 || strcmp(argv[1], "--textfile") ||
				  !*argv[2]))
			usage_error("metrics takes no argument or --textfile PATH");
	} else if (!strcmp(cmd, "mps")) {
		if (argc != 2 || (strcmp(argv[1], "start") &&
				  strcmp(argv[1], "stop") &&
				  strcmp(argv[1], "status")))
			usage_error("mps takes one of start, stop or status");
	} else if (strcmp(cmd, "top")) {
		usage_error("unknown command '%s'", cmd);
	}
	if (!strcmp(cmd, "knobs")) {
		print_knobs(stdout);
		return 0;
	}
	if (!strcmp(cmd, "mps"))
		return cmd_mps(argv[1]);

	/* auto: the kernel if gspace.ko is loaded, as libgsp's auto does. */
	if (t.kind == GSP_ARBITER_AUTO) {
		struct stat st;

		t.kind = kernel_loaded() || !stat(t.dev, &st) ?
			 GSP_ARBITER_KERNEL : GSP_ARBITER_DAEMON;
	}

	if (!strcmp(cmd, "get"))
		ret = cmd_get(&t, argv[1]);
	else if (!strcmp(cmd, "set"))
		ret = cmd_set(&t, argv[1], argv[2]);
	else if (!strcmp(cmd, "status"))
		ret = argc == 2 ? cmd_status_json(&t) : cmd_status(&t);
	else if (!strcmp(cmd, "metrics"))
		ret = cmd_metrics(&t, argc == 3 ? argv[2] : NULL);
	else
		ret = main_top(&t, argc, argv);
	gsp_close(t.g);
	return ret;
}
