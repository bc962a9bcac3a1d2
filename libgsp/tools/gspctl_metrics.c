// SPDX-License-Identifier: GPL-2.0
/*
 * gspctl metrics: the arbiter's state in Prometheus' text exposition
 * format (version 0.0.4), for node_exporter's textfile collector
 * (--textfile PATH, written whole and renamed into place) or any scraper
 * that runs a command. Why a file and not a port: neither arbiter then
 * listens on the network, and the same command serves both (the
 * reasons are in Documentation/metrics.rst).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <gsp.h>
#include <gsp_board.h>
#include "gspctl.h"

/* Round trips a scrape times: enough for a shape, cheap for the arbiter. */
#define RTT_SAMPLES	16

static const double rtt_bounds[] = {
	10e-6, 25e-6, 50e-6, 100e-6, 250e-6, 500e-6, 1e-3, 2.5e-3, 10e-3,
};
#define RTT_BUCKETS	(sizeof(rtt_bounds) / sizeof(rtt_bounds[0]))

static const char *const engines[GSPACE_ENGINE_COUNT] = {
	"compute", "h2d", "d2h",
};

static void family(FILE *f, const char *name, const char *type,
		   const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value as the format wants it: \, " and newline escaped. */
static void label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/* A tenant's labels: device, pid, the nth row of that pid, uid, class. */
static void tenant_labels(FILE *f, const struct tenant *t)
{
	fprintf(f, "{dev=\"%u\",pid=\"%lld\",nth=\"%u\",uid=\"", t->dev,
		t->pid, t->nth);
	if (t->uid >= 0)
		fprintf(f, "%lld", t->uid);
	fputs("\",class=\"", f);
	label_value(f, t->cls);
	fputc('"', f);
}

/* One value per tenant; @off a text column of the table ("-": left out). */
static void tenant_family(FILE *f, const struct table *tab, const char *name,
			  const char *type, const char *help, size_t off)
{
	size_t i;

	family(f, name, type, help);
	for (i = 0; i < tab->n; i++) {
		const char *v = (const char *)&tab->t[i] + off;
		char *end;

		strtoull(v, &end, 10);
		if (end == v || *end)
			continue;
		fputs(name, f);
		tenant_labels(f, &tab->t[i]);
		fprintf(f, "} %s\n", v);
	}
}

static void print_tenant_metrics(FILE *f, const struct table *tab)
{
	uint64_t dev_total[MAX_DEVICES] = { 0 };
	size_t i;
	int e;

	family(f, "gspace_tenant_gpu_seconds_total", "counter",
	       "GPU time charged to the tenant, per engine");
	for (i = 0; i < tab->n; i++) {
		const struct tenant *t = &tab->t[i];

		if (t->dev < MAX_DEVICES)
			dev_total[t->dev] += gpu_total(t);
		for (e = 0; e < GSPACE_ENGINE_COUNT; e++) {
			fputs("gspace_tenant_gpu_seconds_total", f);
			tenant_labels(f, t);
			fprintf(f, ",engine=\"%s\"} %.9f\n", engines[e],
				t->gpu[e] / 1e9);
		}
	}
	family(f, "gspace_tenant_share", "gauge",
	       "the tenant's part of its device's GPU time since it opened");
	for (i = 0; i < tab->n; i++) {
		const struct tenant *t = &tab->t[i];
		uint64_t total = t->dev < MAX_DEVICES ? dev_total[t->dev] : 0;

		if (!total)
			continue;
		fputs("gspace_tenant_share", f);
		tenant_labels(f, t);
		fprintf(f, "} %.6f\n", (double)gpu_total(t) / (double)total);
	}
	tenant_family(f, tab, "gspace_tenant_queued_jobs", "gauge",
		      "jobs submitted and not yet running",
		      offsetof(struct tenant, queued));
	tenant_family(f, tab, "gspace_tenant_running_jobs", "gauge",
		      "jobs running", offsetof(struct tenant, running));
	tenant_family(f, tab, "gspace_tenant_completed_jobs_total", "counter",
		      "jobs completed", offsetof(struct tenant, completed));
	tenant_family(f, tab, "gspace_tenant_failed_jobs_total", "counter",
		      "jobs failed", offsetof(struct tenant, failed));
	tenant_family(f, tab, "gspace_tenant_qos_violations_total", "counter",
		      "LC jobs that missed their target",
		      offsetof(struct tenant, qos));
	family(f, "gspace_tenant_hung", "gauge",
	       "1 if a lease outlived the watchdog unrenewed");
	for (i = 0; i < tab->n; i++) {
		fputs("gspace_tenant_hung", f);
		tenant_labels(f, &tab->t[i]);
		fprintf(f, "} %d\n", !!tab->t[i].hung);
	}
}

/* One gauge or counter per device, from the board. */
#define DEV_FAMILY(name, type, help, expr)				\
	do {								\
		family(f, name, type, help);				\
		for (i = 0; i < ndev; i++) {				\
			const struct gsp_board_dev *d = &b->dev[i];	\
									\
			fprintf(f, "%s{dev=\"%u\"} %" PRIu64 "\n", name, i, \
				(uint64_t)(expr));			\
		}							\
	} while (0)

static void print_device_metrics(FILE *f, const struct gsp_board *b,
				 unsigned ndev)
{
	unsigned i;

	if (ndev > GSP_BOARD_MAX_DEVICES)
		ndev = GSP_BOARD_MAX_DEVICES;
	DEV_FAMILY("gspace_device_partition_auto", "gauge",
		   "1 under partition auto (each LC tenant's search picks)",
		   gsp_board_load(&d->search) != 0);
	DEV_FAMILY("gspace_device_partition_sms", "gauge",
		   "the published partition's n: SMs BE kernels give up",
		   gsp_board_load(&d->part_n));
	DEV_FAMILY("gspace_device_partition_slots", "gauge",
		   "the published partition's k: block slots per SM",
		   gsp_board_load(&d->part_k));
	DEV_FAMILY("gspace_device_partition_epoch", "counter",
		   "partition changes published", gsp_board_load(&d->part_epoch));
	DEV_FAMILY("gspace_device_request_sms", "gauge",
		   "SMs the live request asks BE kernels to give up",
		   GSP_BOARD_REQ_N(gsp_board_load(&d->part_req)));
	DEV_FAMILY("gspace_device_request_epoch", "counter",
		   "requests raised on the device",
		   GSP_BOARD_REQ_EPOCH(gsp_board_load(&d->part_req)));
	DEV_FAMILY("gspace_device_lc_jobs", "gauge",
		   "LC jobs submitted and not yet ended",
		   gsp_board_load(&d->lc_jobs));
	DEV_FAMILY("gspace_device_waiting_jobs", "gauge",
		   "jobs waiting for the compute engine",
		   gsp_board_load(&d->waiting));
}

/* The round trip of a VERSION request, timed @RTT_SAMPLES times. */
static void print_rtt(FILE *f, struct gsp *g)
{
	unsigned long count[RTT_BUCKETS] = { 0 };
	double sum = 0;
	unsigned i, n = 0, j;

	for (i = 0; i < RTT_SAMPLES; i++) {
		struct gspace_version v = { .size = sizeof(v) };
		uint64_t t0 = gsp_now_ns();
		double s;

		if (gsp_version(g, &v))
			break;
		s = (gsp_now_ns() - t0) / 1e9;
		sum += s;
		n++;
		for (j = 0; j < RTT_BUCKETS; j++)
			count[j] += s <= rtt_bounds[j];
	}
	family(f, "gspace_arbiter_roundtrip_seconds", "histogram",
	       "round trips of a VERSION request, timed by this scrape");
	for (j = 0; j < RTT_BUCKETS; j++)
		fprintf(f, "gspace_arbiter_roundtrip_seconds_bucket{le=\"%g\"} %lu\n",
			rtt_bounds[j], count[j]);
	fprintf(f, "gspace_arbiter_roundtrip_seconds_bucket{le=\"+Inf\"} %u\n"
		"gspace_arbiter_roundtrip_seconds_sum %.9f\n"
		"gspace_arbiter_roundtrip_seconds_count %u\n", n, sum, n);
}

/*
 * Everything into @f. 0, or EXIT_FAIL when the arbiter did not answer
 * (gspace_up 0 is still written: a scraper sees it down, not stale).
 */
static int write_metrics(FILE *f, struct target *t, struct table *tab)
{
	struct gspace_version v = { .size = sizeof(v) };
	const struct gsp_board *b;
	int ret, tenants_ok;

	ret = t->g ? gsp_version(t->g, &v) : t->open_err;
	family(f, "gspace_up", "gauge", "1 if the arbiter answered");
	fprintf(f, "gspace_up{arbiter=\"%s\"} %d\n",
		t->kind == GSP_ARBITER_KERNEL ? "kernel" : "daemon", !ret);
	if (ret) {
		fprintf(stderr, "gspctl: metrics: the arbiter did not answer: %s\n",
			err_text(ret));
		return EXIT_FAIL;
	}
	family(f, "gspace_abi_info", "gauge", "the arbiter's ABI version");
	fprintf(f, "gspace_abi_info{major=\"%u\",minor=\"%u\"} 1\n",
		v.abi_major, v.abi_minor);
	family(f, "gspace_devices", "gauge", "devices the arbiter schedules");
	fprintf(f, "gspace_devices %u\n", v.num_devices);
	b = gsp_board(t->g);
	if (b)
		print_device_metrics(f, b, v.num_devices);
	print_rtt(f, t->g);

	tenants_ok = !read_tenants(t, tab);
	family(f, "gspace_tenants_readable", "gauge",
	       "1 if the tenants table could be read (the kernel's is root's)");
	fprintf(f, "gspace_tenants_readable %d\n", tenants_ok);
	if (tenants_ok) {
		family(f, "gspace_tenants", "gauge", "open tenants");
		fprintf(f, "gspace_tenants %zu\n", tab->n);
		print_tenant_metrics(f, tab);
	}
	return 0;
}

/* @textfile written whole beside itself, then renamed over it. */
static int write_textfile(struct target *t, struct table *tab,
			  const char *textfile)
{
	char *tmp = NULL;
	FILE *f;
	int fd, ret;

	/* mkstemp's template: the name, a dot, six of X */
	if (asprintf(&tmp, "%s.%6s", textfile, "") < 0)
		return EXIT_FAIL;
	memset(tmp + strlen(tmp) - 6, 'X', 6);
	fd = mkstemp(tmp);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		fprintf(stderr, "gspctl: metrics: cannot write beside %s: %s\n",
			textfile, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
		free(tmp);
		return EXIT_FAIL;
	}
	ret = write_metrics(f, t, tab);
	/* node_exporter reads 0644 files; mkstemp made it 0600 */
	if (fchmod(fileno(f), 0644) || fclose(f) || rename(tmp, textfile)) {
		fprintf(stderr, "gspctl: metrics: cannot write %s: %s\n",
			textfile, strerror(errno));
		unlink(tmp);
		ret = EXIT_FAIL;
	}
	free(tmp);
	return ret;
}

int cmd_metrics(struct target *t, const char *textfile)
{
	static struct table tab;	/* too big for the stack */

	/* Not need_daemon(): an arbiter that is down is gspace_up 0. */
	if (!t->g)
		connect_target(t);
	if (textfile)
		return write_textfile(t, &tab, textfile);
	return write_metrics(stdout, t, &tab);
}
