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
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gsp.h>
#include <gsp_board.h>
#include "libgsp_internal.h"
#include "gspd_proto.h"
#include "gsp_knobs.h"
#include "gspctl_admit.h"

#define SYSFS_DIR	"/sys/class/misc/gspace"
#define DEBUGFS_DIR	"/sys/kernel/debug/gspace"
#define TEXT_MAX	GSPD_PAYLOAD_MAX
#define MAX_TENANTS	1024
#define MAX_DEVICES	16	/* GSP_MAX_DEVICES of both arbiters */
#define MPS_CONTROL	"nvidia-cuda-mps-control"
#define MPS_PIPE_DEFAULT "/tmp/nvidia-mps"	/* NVIDIA's defaults */
#define MPS_LOG_DEFAULT	"/var/log/nvidia-mps"

extern char **environ;

enum { EXIT_FAIL = 1, EXIT_USAGE = 2 };

static const char usage_text[] =
"usage: gspctl [--arbiter kernel|daemon|auto] [--socket PATH] COMMAND\n"
"\n"
"commands:\n"
"  status                          arbiter, ABI, devices, knobs, tenants\n"
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
"  -h, --help    this text\n";

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

/* Where gspctl talks to; chosen once in main(). */
struct target {
	enum gsp_arbiter kind;		/* KERNEL or DAEMON */
	const char *socket;
	const char *dev;
	struct gsp *g;			/* open tenant, or NULL */
	int open_err;			/* why @g is NULL */
};

static const char *err_text(int err)
{
	return strerror(err < 0 ? -err : err);
}

static void connect_target(struct target *t)
{
	struct gsp_open_opts o = {
		.size = sizeof(o),
		.arbiter = t->kind,
		.dev_path = t->dev,
		.socket_path = t->socket,
	};

	t->open_err = gsp_open(&t->g, &o);
}

/* A daemon connection, or exit 1 with what to do. */
static struct gspd_conn *need_daemon(struct target *t)
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

/* Reads a small text file into @buf. 0 or -errno. */
static int read_text(const char *path, char *buf, size_t bufsz)
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

/* The knob's value as text. 0 or -errno (-ENOENT: no such knob there). */
static int knob_get(struct target *t, const char *name, char *out, size_t sz)
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

static bool kernel_loaded(void)
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

/* One row of the tenants text; columns looked up by header name. */
struct tenant {
	long long uid;			/* -1: not reported (kernel) */
	long long pid;
	unsigned dev;
	char cls[8];
	char weight[16];
	char queued[24], running[24], completed[24], failed[24], qos[24];
	uint64_t gpu[GSPACE_ENGINE_COUNT];
	long long credit;
	int hung;
	char renewals[24];		/* "-": not reported (older arbiter) */
	unsigned nth;			/* rows before it with the same pid */
};

struct table {
	struct tenant t[MAX_TENANTS];
	size_t n;
	uint64_t when_ns;
};

static const char *const cols[] = {
	"uid", "pid", "dev", "class", "weight", "queued", "running",
	"completed", "failed", "qos_violations", "gpu_ns_compute",
	"gpu_ns_h2d", "gpu_ns_d2h", "credit_ns_compute", "hung", "renewals",
};

enum {
	C_UID, C_PID, C_DEV, C_CLASS, C_WEIGHT, C_QUEUED, C_RUNNING,
	C_COMPLETED, C_FAILED, C_QOS, C_GPU_C, C_GPU_H, C_GPU_D, C_CREDIT,
	C_HUNG, C_RENEWALS, C_COUNT
};

static void copy_field(char *dst, size_t sz, const char *src)
{
	snprintf(dst, sz, "%s", src ? src : "-");
}

/*
 * Parses the tenants text (debugfs gspace/tenants, or gspaced's with a
 * leading uid column). -EPROTO if the header lacks the pid column.
 */
static int parse_tenants(char *text, struct table *tab)
{
	int map[32];		/* header position -> C_* or -1 */
	int ncol = 0, i;
	char *line, *save_line, *tok, *save_tok;
	bool have_pid = false;

	tab->n = 0;
	line = strtok_r(text, "\n", &save_line);
	if (!line)
		return -EPROTO;
	for (tok = strtok_r(line, " \t", &save_tok); tok && ncol < 32;
	     tok = strtok_r(NULL, " \t", &save_tok), ncol++) {
		map[ncol] = -1;
		for (i = 0; i < C_COUNT; i++)
			if (!strcmp(tok, cols[i]))
				map[ncol] = i;
		have_pid |= map[ncol] == C_PID;
	}
	if (!have_pid)
		return -EPROTO;
	while ((line = strtok_r(NULL, "\n", &save_line)) &&
	       tab->n < MAX_TENANTS) {
		const char *f[C_COUNT] = { 0 };
		struct tenant *t = &tab->t[tab->n];
		size_t j;
		int c = 0;

		for (tok = strtok_r(line, " \t", &save_tok); tok && c < ncol;
		     tok = strtok_r(NULL, " \t", &save_tok), c++)
			if (map[c] >= 0)
				f[map[c]] = tok;
		if (!f[C_PID])
			continue;
		memset(t, 0, sizeof(*t));
		t->uid = f[C_UID] ? strtoll(f[C_UID], NULL, 10) : -1;
		t->pid = strtoll(f[C_PID], NULL, 10);
		t->dev = f[C_DEV] ? (unsigned)strtoul(f[C_DEV], NULL, 10) : 0;
		copy_field(t->cls, sizeof(t->cls), f[C_CLASS]);
		copy_field(t->weight, sizeof(t->weight), f[C_WEIGHT]);
		copy_field(t->queued, sizeof(t->queued), f[C_QUEUED]);
		copy_field(t->running, sizeof(t->running), f[C_RUNNING]);
		copy_field(t->completed, sizeof(t->completed), f[C_COMPLETED]);
		copy_field(t->failed, sizeof(t->failed), f[C_FAILED]);
		copy_field(t->qos, sizeof(t->qos), f[C_QOS]);
		for (i = 0; i < GSPACE_ENGINE_COUNT; i++)
			t->gpu[i] = f[C_GPU_C + i] ?
				strtoull(f[C_GPU_C + i], NULL, 10) : 0;
		t->credit = f[C_CREDIT] ? strtoll(f[C_CREDIT], NULL, 10) : 0;
		t->hung = f[C_HUNG] ? atoi(f[C_HUNG]) : 0;
		copy_field(t->renewals, sizeof(t->renewals), f[C_RENEWALS]);
		for (j = 0; j < tab->n; j++)
			t->nth += tab->t[j].pid == t->pid &&
				  tab->t[j].dev == t->dev;
		tab->n++;
	}
	return 0;
}

/* Reads the tenant table. 0 or -errno, with a message on failure. */
static int read_tenants(struct target *t, struct table *tab, char *buf)
{
	int ret;

	if (t->kind == GSP_ARBITER_KERNEL) {
		ret = read_text(DEBUGFS_DIR "/tenants", buf, TEXT_MAX);
		if (ret == -EACCES || ret == -EPERM) {
			fprintf(stderr, "gspctl: %s/tenants is readable by root only; run gspctl as root to see tenants\n",
				DEBUGFS_DIR);
			return ret;
		}
		if (ret == -ENOENT) {
			fprintf(stderr, "gspctl: no %s/tenants: mount debugfs (mount -t debugfs none /sys/kernel/debug) and load gspace.ko\n",
				DEBUGFS_DIR);
			return ret;
		}
	} else {
		ret = gspd_ctl_tenants(need_daemon(t), buf, TEXT_MAX);
	}
	if (ret) {
		fprintf(stderr, "gspctl: reading the tenants: %s\n",
			err_text(ret));
		return ret;
	}
	tab->when_ns = gsp_now_ns();
	ret = parse_tenants(buf, tab);
	if (ret)
		fprintf(stderr, "gspctl: the tenants table has no pid column; is gspctl older than the arbiter?\n");
	return ret;
}

static uint64_t gpu_total(const struct tenant *t)
{
	return t->gpu[0] + t->gpu[1] + t->gpu[2];
}

static void print_tenant_ids(const struct tenant *t)
{
	if (t->uid >= 0)
		printf("%6lld ", t->uid);
	else
		printf("%6s ", "-");
	printf("%7lld%c %3u %-5s %6s ", t->pid,
	       t->pid == (long long)getpid() ? '*' : ' ', t->dev, t->cls,
	       t->weight);
}

/* The status table: GPU time so far and each tenant's share of its device. */
static void print_tenants(const struct table *tab)
{
	uint64_t dev_total[MAX_DEVICES] = { 0 };
	size_t i;

	printf("%6s %8s %3s %-5s %6s %6s %4s %9s %6s %5s %12s %10s %10s %11s %6s %8s\n",
	       "UID", "PID", "DEV", "CLASS", "WEIGHT", "QUEUED", "RUN",
	       "COMPLETED", "FAILED", "QOS", "COMPUTE_MS", "H2D_MS",
	       "D2H_MS", "CREDIT_MS", "SHARE", "RENEWALS");
	for (i = 0; i < tab->n; i++)
		if (tab->t[i].dev < MAX_DEVICES)
			dev_total[tab->t[i].dev] += gpu_total(&tab->t[i]);
	for (i = 0; i < tab->n; i++) {
		const struct tenant *t = &tab->t[i];
		uint64_t total = t->dev < MAX_DEVICES ?
				 dev_total[t->dev] : 0;

		print_tenant_ids(t);
		printf("%6s %4s %9s %6s %5s %12.3f %10.3f %10.3f %11.3f ",
		       t->queued, t->running, t->completed, t->failed, t->qos,
		       t->gpu[0] / 1e6, t->gpu[1] / 1e6, t->gpu[2] / 1e6,
		       t->credit / 1e6);
		if (total)
			printf("%5.1f%%", 100.0 * (double)gpu_total(t) /
			       (double)total);
		else
			printf("%6s", "-");
		printf(" %8s", t->renewals);
		/* The watchdog is the one thing that marks a tenant. */
		printf("%s\n", t->hung ?
		       " HUNG (a lease outlived the watchdog unrenewed; the tenant must reopen)" :
		       "");
	}
}

/* The feature bits by name; a bit gspctl has no name for as bitN. */
static void print_features(uint64_t f)
{
	static const char *const names[] = {
		"sim", "lease", "sync_file", "fifo", "credit", "band",
		"lc_priority", "reorder", "board", "partition", "lease_progress",
		"protect", "preempt", "part_auto",
	};
	size_t i;

	for (i = 0; i < 64; i++) {
		if (!(f & (1ull << i)))
			continue;
		if (i < sizeof(names) / sizeof(names[0]) && names[i])
			printf(" %s", names[i]);
		else
			printf(" bit%zu", i);
	}
}

/*
 * Under partition auto: each LC slot's search, as its tenant writes it
 * (uapi GSPACE_BOARD_SEARCH()); the measurements behind it are in the
 * tenant's GSP_SEARCH_LOG (Documentation/search.rst).
 */
static void print_searches(const struct gsp_board *b, unsigned ndev)
{
	static const char *const states[] = { "idle", "solo", "running",
					      "done" };
	unsigned i, any = 0;

	for (i = 0; i < ndev && i < GSP_BOARD_MAX_DEVICES; i++)
		any |= gsp_board_load(&b->dev[i].search);
	if (!any)
		return;
	printf("search: per LC tenant, the cell it asks for\n");
	printf("  %4s %3s %8s %7s %8s %6s %11s\n", "SLOT", "DEV", "PID",
	       "METHOD", "STATE", "CELL", "CELLS/INVOC");
	for (i = 0; i < GSP_BOARD_LC_SLOTS; i++) {
		const struct gsp_board_lc *s = &b->lc[i];
		uint64_t w = gsp_board_load(&s->search);
		uint64_t c = gsp_board_load(&s->cell);
		uint32_t m = GSPACE_BOARD_SEARCH_METHOD(w);
		uint32_t st = GSPACE_BOARD_SEARCH_STATE(w);
		uint32_t owner = gsp_board_load(&s->owner);
		char cell[24], cnt[32];

		if (!owner)
			continue;
		if (GSP_BOARD_REQ_N(c))
			snprintf(cell, sizeof(cell), "%u,%u/8", GSP_BOARD_REQ_N(c),
				 GSP_BOARD_REQ_K(c));
		else
			snprintf(cell, sizeof(cell), "all");
		snprintf(cnt, sizeof(cnt), "%u/%u",
			 GSPACE_BOARD_SEARCH_CELLS(w),
			 GSPACE_BOARD_SEARCH_INVOC(w));
		printf("  %4u %3u %8u %7s %8s %6s %11s\n", i,
		       gsp_board_load(&s->device), owner,
		       w && m < GSPACE_SEARCH_COUNT ? gsp_search_names[m] : "-",
		       w && st < 4 ? states[st] : "-", cell, cnt);
	}
}

/*
 * Per device: the published partition, the live request, and the jobs
 * the board counts (LC jobs live; jobs waiting for the compute engine).
 */
static void print_partition(struct target *t, unsigned ndev)
{
	const struct gsp_board *b = t->g ? gsp_board(t->g) : NULL;
	unsigned i;

	if (!b) {
		printf("partition: unknown (no board from the arbiter)\n");
		return;
	}
	printf("partition: per device, as published and as requested now\n");
	printf("  %3s %11s %6s %10s %9s %10s %8s %8s\n", "DEV", "PARTITION",
	       "EPOCH", "PROTECT", "REQUEST", "REQ_EPOCH", "LC_JOBS",
	       "WAITING");
	if (ndev > GSP_BOARD_MAX_DEVICES)
		ndev = GSP_BOARD_MAX_DEVICES;
	for (i = 0; i < ndev; i++) {
		const struct gsp_board_dev *d = &b->dev[i];
		uint64_t w = gsp_board_load(&d->part_req);
		const char *mode = gsp_protect_name(gsp_board_load(&d->protect));
		char part[24], req[24];

		if (gsp_board_load(&d->search))
			snprintf(part, sizeof(part), "auto:%s",
				 gsp_search_names[gsp_board_load(&d->search) %
						  GSPACE_SEARCH_COUNT]);
		else
			snprintf(part, sizeof(part), "%u,%u",
				 gsp_board_load(&d->part_n),
				 gsp_board_load(&d->part_k));
		/* partition auto: k is a share of each kernel's slots */
		if (GSP_BOARD_REQ_K(w) & GSPACE_BOARD_REQ_K_EIGHTHS)
			snprintf(req, sizeof(req), "%u,%u/8", GSP_BOARD_REQ_N(w),
				 GSP_BOARD_REQ_K(w) &
				 ~GSPACE_BOARD_REQ_K_EIGHTHS);
		else
			snprintf(req, sizeof(req), "%u,%u", GSP_BOARD_REQ_N(w),
				 GSP_BOARD_REQ_K(w));
		printf("  %3u %11s %6" PRIu64 " %10s %9s %10u %8" PRIu64
		       " %8" PRIu64 "\n", i, part,
		       gsp_board_load(&d->part_epoch), mode ? mode : "?", req,
		       GSP_BOARD_REQ_EPOCH(w), gsp_board_load(&d->lc_jobs),
		       gsp_board_load(&d->waiting));
	}
	print_searches(b, ndev);
}

static int cmd_status(struct target *t)
{
	static struct table tab;	/* too big for the stack */
	struct gspace_version v = { .size = sizeof(v) };
	char *buf;
	char val[256];
	size_t i;
	int ret;

	if (t->kind == GSP_ARBITER_KERNEL && !kernel_loaded()) {
		fprintf(stderr, "gspctl: gspace.ko is not loaded (no %s); load it or use --arbiter daemon\n",
			SYSFS_DIR);
		return EXIT_FAIL;
	}
	if (t->kind == GSP_ARBITER_DAEMON)
		need_daemon(t);
	else if (!t->g)
		connect_target(t);

	printf("arbiter:  %s (%s)\n",
	       t->kind == GSP_ARBITER_KERNEL ? "kernel" : "daemon",
	       t->kind == GSP_ARBITER_KERNEL ? t->dev : t->socket);
	ret = t->g ? gsp_version(t->g, &v) : t->open_err;
	if (ret) {
		printf("abi:      unknown (%s: %s)\n", t->dev, err_text(ret));
	} else {
		printf("abi:      %u.%u\nfeatures:", v.abi_major, v.abi_minor);
		print_features(v.features);
		printf("\ndevices:  %u\n", v.num_devices);
	}
	if (t->kind == GSP_ARBITER_KERNEL) {
		buf = malloc(TEXT_MAX);
		if (buf && !read_text(DEBUGFS_DIR "/devices", buf, TEXT_MAX))
			printf("%s", buf);
		free(buf);
	}
	printf("knobs:\n");
	for (i = 0; i < NKNOBS; i++) {
		ret = knob_get(t, gsp_knobs[i].name, val, sizeof(val));
		if (ret == -ENOENT)
			continue;	/* a knob of the other arbiter */
		if (ret)
			printf("  %-16s ? (%s)\n", gsp_knobs[i].name, err_text(ret));
		else
			printf("  %-16s %s\n", gsp_knobs[i].name, val);
	}

	print_partition(t, v.num_devices);	/* 0 if VERSION failed */

	buf = malloc(TEXT_MAX);
	if (!buf)
		return EXIT_FAIL;
	ret = read_tenants(t, &tab, buf);
	free(buf);
	if (ret)
		return EXIT_FAIL;
	printf("tenants:  %zu%s\n", tab.n,
	       t->kind == GSP_ARBITER_DAEMON ? " (* is gspctl itself)" : "");
	print_tenants(&tab);
	return 0;
}

/* The same tenant in the previous sample, or NULL. */
static const struct tenant *find_prev(const struct table *prev,
				      const struct tenant *t)
{
	size_t i;

	for (i = 0; i < prev->n; i++) {
		const struct tenant *p = &prev->t[i];
		int e;

		if (p->pid != t->pid || p->dev != t->dev || p->nth != t->nth ||
		    p->uid != t->uid)
			continue;
		/* Counters only grow: a drop means another tenant took the place. */
		for (e = 0; e < GSPACE_ENGINE_COUNT; e++)
			if (t->gpu[e] < p->gpu[e])
				return NULL;
		return p;
	}
	return NULL;
}

static void print_top(struct target *t, const struct table *prev,
		      const struct table *cur, unsigned interval_ms)
{
	double el = (double)(cur->when_ns - prev->when_ns);
	double sum[MAX_DEVICES][GSPACE_ENGINE_COUNT] = { { 0 } };
	size_t i;
	int e;

	if (isatty(STDOUT_FILENO))
		fputs("\033[H\033[2J", stdout);
	printf("gspctl top: %s, %zu tenants, every %u ms; GPU%% = GPU time charged in the last %.0f ms\n",
	       t->kind == GSP_ARBITER_KERNEL ? "kernel" : "daemon", cur->n,
	       interval_ms, el / 1e6);
	printf("%6s %8s %3s %-5s %6s %6s %4s %9s %9s %9s %9s\n",
	       "UID", "PID", "DEV", "CLASS", "WEIGHT", "QUEUED", "RUN",
	       "COMPLETED", "COMPUTE%", "H2D%", "D2H%");
	for (i = 0; i < cur->n; i++) {
		const struct tenant *c = &cur->t[i];
		const struct tenant *p = find_prev(prev, c);

		print_tenant_ids(c);
		printf("%6s %4s %9s", c->queued, c->running, c->completed);
		for (e = 0; e < GSPACE_ENGINE_COUNT; e++) {
			double d = (double)(c->gpu[e] - (p ? p->gpu[e] : 0));
			double pct = el > 0 ? 100.0 * d / el : 0;

			printf(" %8.1f%%", pct);
			if (c->dev < MAX_DEVICES)
				sum[c->dev][e] += pct;
		}
		printf("\n");
	}
	for (i = 0; i < MAX_DEVICES; i++) {
		bool any = false;
		size_t j;

		for (j = 0; j < cur->n; j++)
			any |= cur->t[j].dev == i;
		if (!any)
			continue;
		printf("dev%zu total: compute %.1f%%, h2d %.1f%%, d2h %.1f%%\n",
		       i, sum[i][0], sum[i][1], sum[i][2]);
	}
	fflush(stdout);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000 };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int cmd_top(struct target *t, unsigned interval_ms, unsigned long count)
{
	static struct table tabs[2];	/* too big for the stack */
	unsigned long n;
	char *buf;
	int cur = 0;

	if (t->kind == GSP_ARBITER_KERNEL && !kernel_loaded()) {
		fprintf(stderr, "gspctl: gspace.ko is not loaded (no %s); load it or use --arbiter daemon\n",
			SYSFS_DIR);
		return EXIT_FAIL;
	}
	buf = malloc(TEXT_MAX);
	if (!buf)
		return EXIT_FAIL;
	if (read_tenants(t, &tabs[0], buf)) {
		free(buf);
		return EXIT_FAIL;
	}
	for (n = 0; !count || n < count; n++) {
		sleep_ms(interval_ms);
		if (read_tenants(t, &tabs[!cur], buf)) {
			free(buf);
			return EXIT_FAIL;
		}
		cur = !cur;
		print_top(t, &tabs[!cur], &tabs[cur], interval_ms);
	}
	free(buf);
	return 0;
}

/*
 * MPS. The control daemon reads CUDA_MPS_PIPE_DIRECTORY and
 * CUDA_MPS_LOG_DIRECTORY from its environment, which it inherits from us;
 * gspctl only checks that they name directories and finds the control
 * pipe in the first.
 */
static const char *mps_dir(const char *var, const char *def)
{
	const char *d = getenv(var);

	return d && *d ? d : def;
}

/*
 * Runs nvidia-cuda-mps-control with @arg (or none), @input on its stdin
 * (or ours), its output to ours. Its exit status, or -1 after saying why
 * it could not run.
 */
static int mps_run(const char *arg, const char *input)
{
	char *argv[] = { MPS_CONTROL, (char *)arg, NULL };
	posix_spawn_file_actions_t fa;
	int p[2] = { -1, -1 }, st, err;
	pid_t pid;

	if (posix_spawn_file_actions_init(&fa))
		return -1;
	if (input) {
		if (pipe2(p, O_CLOEXEC)) {
			fprintf(stderr, "gspctl: pipe: %s\n", strerror(errno));
			posix_spawn_file_actions_destroy(&fa);
			return -1;
		}
		posix_spawn_file_actions_adddup2(&fa, p[0], STDIN_FILENO);
	}
	fflush(stdout);
	err = posix_spawnp(&pid, MPS_CONTROL, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (input) {
		close(p[0]);
		if (!err && write(p[1], input, strlen(input)) < 0)
			err = errno;
		close(p[1]);
	}
	if (err == ENOENT) {
		fprintf(stderr, "gspctl: %s not found in PATH; install NVIDIA's MPS tools (part of the driver) or add their directory to PATH\n",
			MPS_CONTROL);
		return -1;
	}
	if (err) {
		fprintf(stderr, "gspctl: cannot run %s: %s\n", MPS_CONTROL,
			strerror(err));
		return -1;
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(st)) {
		fprintf(stderr, "gspctl: %s was killed by signal %d\n",
			MPS_CONTROL, WTERMSIG(st));
		return -1;
	}
	return WEXITSTATUS(st);
}

/* 1 if the control daemon's pipe is there. */
static bool mps_running(const char *pipe_dir)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s/control", pipe_dir);
	return !stat(path, &st) && S_ISFIFO(st.st_mode);
}

static int cmd_mps(const char *what)
{
	const char *pipe_dir = mps_dir("CUDA_MPS_PIPE_DIRECTORY",
				       MPS_PIPE_DEFAULT);
	const char *log_dir = mps_dir("CUDA_MPS_LOG_DIRECTORY",
				      MPS_LOG_DEFAULT);
	static const char *const vars[] = { "CUDA_MPS_PIPE_DIRECTORY",
					    "CUDA_MPS_LOG_DIRECTORY" };
	struct stat st;
	size_t i;
	int r;

	/* A control daemon that exits unread must not kill us mid-write. */
	signal(SIGPIPE, SIG_IGN);
	for (i = 0; i < 2; i++) {
		const char *d = getenv(vars[i]);

		if (d && *d && (stat(d, &st) || !S_ISDIR(st.st_mode))) {
			fprintf(stderr, "gspctl: %s=%s is not a directory; create it (mkdir -p) or unset it\n",
				vars[i], d);
			return EXIT_FAIL;
		}
	}
	if (!strcmp(what, "start")) {
		if (mps_running(pipe_dir)) {
			printf("mps: already running (%s/control)\n", pipe_dir);
			return 0;
		}
		r = mps_run("-d", NULL);
		if (r) {
			if (r > 0)
				fprintf(stderr, "gspctl: %s -d failed (exit %d); see %s/control.log\n",
					MPS_CONTROL, r, log_dir);
			return EXIT_FAIL;
		}
		printf("mps: started (pipes in %s, logs in %s)\n", pipe_dir,
		       log_dir);
		return 0;
	}
	if (!mps_running(pipe_dir)) {
		fprintf(stderr, "gspctl: mps: not running (no %s/control)\n",
			pipe_dir);
		return EXIT_FAIL;
	}
	if (!strcmp(what, "stop")) {
		r = mps_run(NULL, "quit\n");
		if (r) {
			if (r > 0)
				fprintf(stderr, "gspctl: 'quit' to %s failed (exit %d); see %s/control.log\n",
					MPS_CONTROL, r, log_dir);
			return EXIT_FAIL;
		}
		printf("mps: stopped\n");
		return 0;
	}
	printf("mps: running (%s/control), logs in %s\nservers:\n", pipe_dir,
	       log_dir);
	r = mps_run(NULL, "get_server_list\n");
	if (r) {
		if (r > 0)
			fprintf(stderr, "gspctl: 'get_server_list' to %s failed (exit %d)\n",
				MPS_CONTROL, r);
		return EXIT_FAIL;
	}
	return 0;
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
	} else if (!strcmp(cmd, "status") || !strcmp(cmd, "knobs")) {
		if (argc != 1)
			usage_error("%s takes no argument", cmd);
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
		ret = cmd_status(&t);
	else
		ret = main_top(&t, argc, argv);
	gsp_close(t.g);
	return ret;
}
