/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gspctl's parts (gspctl.c: the commands, the knobs and the target;
 * gspctl_status.c: status and top; gspctl_json.c: status --json;
 * gspctl_metrics.c: metrics;
 * gspctl_mps.c: mps): what they share.
 */
#ifndef GSPCTL_H
#define GSPCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsp.h>
#include "gspd_proto.h"

#define SYSFS_DIR	"/sys/class/misc/gspace"
#define DEBUGFS_DIR	"/sys/kernel/debug/gspace"

enum { EXIT_FAIL = 1, EXIT_USAGE = 2 };

#define TEXT_MAX	GSPD_PAYLOAD_MAX
#define MAX_TENANTS	1024
#define MAX_DEVICES	16	/* GSP_MAX_DEVICES of both arbiters */

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

/* GSPACE_FEAT_* bits by name, bit 0 first. */
#define GSPCTL_FEATURES	14
extern const char *const gspctl_features[GSPCTL_FEATURES];

static inline uint64_t gpu_total(const struct tenant *t)
{
	return t->gpu[0] + t->gpu[1] + t->gpu[2];
}

/* Where gspctl talks to; chosen once in main(). */
struct target {
	enum gsp_arbiter kind;		/* KERNEL or DAEMON */
	const char *socket;
	const char *dev;
	struct gsp *g;			/* open tenant, or NULL */
	int open_err;			/* why @g is NULL */
};

struct gspd_conn;

const char *err_text(int err);
void connect_target(struct target *t);
/* A daemon connection, or exit 1 with what to do. */
struct gspd_conn *need_daemon(struct target *t);
/* Reads a small text file into @buf. 0 or -errno. */
int read_text(const char *path, char *buf, size_t bufsz);
/* The knob's value as text. 0 or -errno (-ENOENT: no such knob there). */
int knob_get(struct target *t, const char *name, char *out, size_t sz);
bool kernel_loaded(void);

/* Reads the tenant table into @tab. 0 or -errno, with a message on failure. */
int read_tenants(struct target *t, struct table *tab);

/*
 * status's connection: EXIT_FAIL (said why) if gspace.ko is asked for and
 * not loaded; exits if gspaced is and does not answer; else 0.
 */
int status_connect(struct target *t);
int cmd_status(struct target *t);
int cmd_status_json(struct target *t);
int cmd_metrics(struct target *t, const char *textfile);
int cmd_top(struct target *t, unsigned int interval_ms, unsigned long count);
int cmd_mps(const char *what);

#endif /* GSPCTL_H */
