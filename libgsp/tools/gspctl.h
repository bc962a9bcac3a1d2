/* SPDX-License-Identifier: GPL-2.0 */
/*
 * gspctl's parts (gspctl.c: the commands, the knobs and the target;
 * gspctl_status.c: status and top; gspctl_mps.c: mps): what they share.
 */
#ifndef GSPCTL_H
#define GSPCTL_H

#include <stdbool.h>
#include <stddef.h>

#include <gsp.h>

#define SYSFS_DIR	"/sys/class/misc/gspace"
#define DEBUGFS_DIR	"/sys/kernel/debug/gspace"

enum { EXIT_FAIL = 1, EXIT_USAGE = 2 };

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

int cmd_status(struct target *t);
int cmd_top(struct target *t, unsigned int interval_ms, unsigned long count);
int cmd_mps(const char *what);

#endif /* GSPCTL_H */
