// SPDX-License-Identifier: GPL-2.0
/*
 * gspctl status and gspctl top: the tenants, the features, the searches
 * and the partition plane of an arbiter (gspctl.h); the reader of the
 * tenants table gspctl metrics shares.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsp.h>
#include <gsp_board.h>
#include "libgsp_internal.h"
#include "gspd_proto.h"
#include "gsp_knobs.h"
#include "gspctl.h"

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

		if (line[0] == '#')
			continue;	/* a note, such as gspaced's cut */

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

static int read_tenants_into(struct target *t, struct table *tab, char *buf)
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

int read_tenants(struct target *t, struct table *tab)
{
	char *buf = malloc(TEXT_MAX);
	int ret;

	if (!buf) {
		fprintf(stderr, "gspctl: out of memory\n");
		return -ENOMEM;
	}
	ret = read_tenants_into(t, tab, buf);
	free(buf);
	return ret;
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

const char *const gspctl_features[GSPCTL_FEATURES] = {
	"sim", "lease", "sync_file", "fifo", "credit", "band",
	"lc_priority", "reorder", "board", "partition", "lease_progress",
	"protect", "preempt", "part_auto",
};

/* The feature bits by name; a bit gspctl has no name for as bitN. */
static void print_features(uint64_t f)
{
	size_t i;

	for (i = 0; i < 64; i++) {
		if (!(f & (1ull << i)))
			continue;
		if (i < GSPCTL_FEATURES)
			printf(" %s", gspctl_features[i]);
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

int status_connect(struct target *t)
{
	if (t->kind == GSP_ARBITER_KERNEL && !kernel_loaded()) {
		fprintf(stderr, "gspctl: gspace.ko is not loaded (no %s); load it or use --arbiter daemon\n",
			SYSFS_DIR);
		return EXIT_FAIL;
	}
	if (t->kind == GSP_ARBITER_DAEMON)
		need_daemon(t);
	else if (!t->g)
		connect_target(t);
	return 0;
}

int cmd_status(struct target *t)
{
	static struct table tab;	/* too big for the stack */
	struct gspace_version v = { .size = sizeof(v) };
	char *buf;
	char val[256];
	size_t i;
	int ret;

	if (status_connect(t))
		return EXIT_FAIL;

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
	for (i = 0; i < GSP_KNOB_COUNT; i++) {
		ret = knob_get(t, gsp_knobs[i].name, val, sizeof(val));
		if (ret == -ENOENT)
			continue;	/* a knob of the other arbiter */
		if (ret)
			printf("  %-16s ? (%s)\n", gsp_knobs[i].name, err_text(ret));
		else
			printf("  %-16s %s\n", gsp_knobs[i].name, val);
	}

	print_partition(t, v.num_devices);	/* 0 if VERSION failed */

	if (read_tenants(t, &tab))
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

int cmd_top(struct target *t, unsigned int interval_ms, unsigned long count)
{
	static struct table tabs[2];	/* too big for the stack */
	unsigned long n;
	int cur = 0;

	if (t->kind == GSP_ARBITER_KERNEL && !kernel_loaded()) {
		fprintf(stderr, "gspctl: gspace.ko is not loaded (no %s); load it or use --arbiter daemon\n",
			SYSFS_DIR);
		return EXIT_FAIL;
	}
	if (read_tenants(t, &tabs[0]))
		return EXIT_FAIL;
	for (n = 0; !count || n < count; n++) {
		sleep_ms(interval_ms);
		if (read_tenants(t, &tabs[!cur]))
			return EXIT_FAIL;
		cur = !cur;
		print_top(t, &tabs[!cur], &tabs[cur], interval_ms);
	}
	return 0;
}

