// SPDX-License-Identifier: GPL-2.0
/*
 * gspaced configuration: the config file (key = value, # comments) and
 * the knobs that CTL_GET/CTL_SET reach at runtime. Names, ranges and
 * validation are those of the module's sysfs knobs
 * (Documentation/ABI/testing/sysfs-class-misc-gspace, kmod/gsp_sysfs.c);
 * a knob the module does not have is documented in
 * Documentation/gspaced.rst.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gspaced.h"

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define GD_WATCHDOG_MAX_MS	(3600ULL * 1000)
#define GD_LC_HOLD_MAX_US	100000ULL	/* 100 ms, as the module */
#define GD_LC_MAX_MAX_MS	60000ULL	/* 1 min, as the module */
#define GD_PREDICT_LEAD_MAX_US	100000ULL	/* 100 ms, as the module */
#define GD_PART_MAX_N	256	/* GSP_PERSIST_MAX_SM, kernels/gsp_persist.h */
#define GD_PART_MAX_K	32	/* GSP_PERSIST_MAX_K */

void gd_config_default(struct gd_config *c)
{
	memset(c, 0, sizeof(*c));
	gsp_params_default(&c->params);
	c->watchdog_ns = 2000 * NSEC_PER_MSEC;
	c->nr_sim = 0;
	c->nr_lease = 1;
	c->lc_hold_ns = 200 * NSEC_PER_USEC;
	c->lc_max_ns = 100 * NSEC_PER_MSEC;
	c->protect = GSP_PROTECT_REACTIVE;
	c->predict_lead_ns = 500 * NSEC_PER_USEC;
}

/*
 * kstrtou64(buf, 0, ...) as sysfs parses: decimal, 0x hex or 0 octal, one
 * trailing newline allowed, at most @max.
 */
static int parse_u64(const char *s, uint64_t max, uint64_t *val)
{
	char *end;

	if (!*s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	*val = strtoull(s, &end, 0);
	if (errno)
		return -EINVAL;
	if (*end == '\n')
		end++;
	if (*end || *val > max)
		return -EINVAL;
	return 0;
}

/* __sysfs_match_string(): @name, or @name and a newline. */
static bool name_is(const char *s, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(s, name, n) && (!s[n] || (s[n] == '\n' && !s[n + 1]));
}

static int parse_policy(const char *s)
{
	int i;

	for (i = 0; i < GSP_POLICY_COUNT; i++)
		if (name_is(s, gsp_policy_names[i]))
			return i;
	return -EINVAL;
}

/* The protect knob: one of gsp_protect_name()'s, for every device. */
static int protect_knob(const char *s)
{
	uint32_t i;

	for (i = 0; i < GSP_PROTECT_COUNT; i++)
		if (name_is(s, gsp_protect_name(i)))
			break;
	if (i == GSP_PROTECT_COUNT)
		return -EINVAL;
	if (i == gd_state.cfg.protect)
		return 0;
	gd_state.cfg.protect = i;
	gd_board_protect();
	return 0;
}

/*
 * The partition knob: "N,K" (the config file's form) or "N K" (sysfs's),
 * both 0 (off), or N 1..GD_PART_MAX_N and K 1..GD_PART_MAX_K.
 */
static int partition_knob(const char *s)
{
	uint64_t n, k;
	char buf[32], *sep;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	sep = strpbrk(buf, ", ");
	if (!sep)
		return -EINVAL;
	*sep = 0;
	if (parse_u64(buf, GD_PART_MAX_N, &n) ||
	    parse_u64(sep + 1, GD_PART_MAX_K, &k) || !n != !k)
		return -EINVAL;
	if (n == gd_state.cfg.part_n && k == gd_state.cfg.part_k)
		return 0;
	gd_state.cfg.part_n = (uint32_t)n;
	gd_state.cfg.part_k = (uint32_t)k;
	gd_board_partition();
	return 0;
}

/* Whether the daemon runs: knobs then act on the schedulers too. */
static bool knobs_live;

void gd_config_set_live(void)
{
	knobs_live = true;
}

static int params_knob(const char *name, uint64_t v)
{
	struct gsp_params p = gd_state.cfg.params;

	if (!strcmp(name, "period_us"))
		p.period_ns = v * NSEC_PER_USEC;
	else if (!strcmp(name, "band_wait_us"))
		p.band_wait_ns = v * NSEC_PER_USEC;
	else if (!strcmp(name, "min_be_permille"))
		p.min_be_permille = (uint32_t)v;
	else if (!strcmp(name, "reorder"))
		p.reorder = (uint32_t)v;
	else
		p.window = (uint32_t)v;
	if (gsp_params_validate(&p))
		return -EINVAL;
	gd_state.cfg.params = p;
	if (knobs_live)
		gd_params_apply();
	return 0;
}

/* Device counts renumber lease devices: only while no job exists. */
static int devices_knob(bool lease, uint64_t v)
{
	uint32_t sim = lease ? gd_state.cfg.nr_sim : (uint32_t)v;
	uint32_t nl = lease ? (uint32_t)v : gd_state.cfg.nr_lease;

	/* The file may set one count before the other: checked at its end. */
	if (knobs_live && (sim + nl < 1 || sim + nl > GD_MAX_DEVICES))
		return -EINVAL;
	if (gd_state.nr_jobs)
		return -EBUSY;
	gd_state.cfg.nr_sim = sim;
	gd_state.cfg.nr_lease = nl;
	gd_board_update_knobs();
	return 0;
}

int gd_knob_set(const char *name, const char *value)
{
	uint64_t v;
	int i;

	if (!strcmp(name, "policy")) {
		struct gsp_params p = gd_state.cfg.params;

		i = parse_policy(value);
		if (i < 0)
			return -EINVAL;
		p.policy = i;
		gd_state.cfg.params = p;
		if (knobs_live)
			gd_params_apply();
		return 0;
	}
	if (!strcmp(name, "period_us") || !strcmp(name, "band_wait_us") ||
	    !strcmp(name, "window"))
		return parse_u64(value, UINT32_MAX, &v) ?: params_knob(name, v);
	if (!strcmp(name, "min_be_permille"))
		return parse_u64(value, 1000, &v) ?: params_knob(name, v);
	if (!strcmp(name, "reorder"))
		return parse_u64(value, 1, &v) ?: params_knob(name, v);
	if (!strcmp(name, "watchdog_ms")) {
		if (parse_u64(value, GD_WATCHDOG_MAX_MS, &v) || !v)
			return -EINVAL;
		gd_state.cfg.watchdog_ns = v * NSEC_PER_MSEC;
		/* Lease holders renew by it. */
		gd_board_update_knobs();
		return 0;
	}
	if (!strcmp(name, "sim_devices") || !strcmp(name, "lease_devices"))
		return parse_u64(value, GD_MAX_DEVICES, &v) ?:
		       devices_knob(name[0] == 'l', v);
	if (!strcmp(name, "lc_hold_us")) {
		if (parse_u64(value, GD_LC_HOLD_MAX_US, &v))
			return -EINVAL;
		gd_state.cfg.lc_hold_ns = v * NSEC_PER_USEC;
		gd_board_update_knobs();
		return 0;
	}
	if (!strcmp(name, "lc_max_ms")) {
		if (parse_u64(value, GD_LC_MAX_MAX_MS, &v) || !v)
			return -EINVAL;
		gd_state.cfg.lc_max_ns = v * NSEC_PER_MSEC;
		gd_board_update_knobs();
		return 0;
	}
	if (!strcmp(name, "partition"))
		return partition_knob(value);
	if (!strcmp(name, "protect"))
		return protect_knob(value);
	if (!strcmp(name, "predict_lead_us")) {
		if (parse_u64(value, GD_PREDICT_LEAD_MAX_US, &v) || !v)
			return -EINVAL;
		gd_state.cfg.predict_lead_ns = v * NSEC_PER_USEC;
		gd_board_update_knobs();
		return 0;
	}
	return -ENOENT;
}

int gd_knob_get(const char *name, char *out, size_t outsz)
{
	const struct gd_config *c = &gd_state.cfg;
	unsigned long long v;

	if (!strcmp(name, "policy")) {
		snprintf(out, outsz, "%s", gsp_policy_names[c->params.policy]);
		return 0;
	}
	if (!strcmp(name, "partition")) {
		snprintf(out, outsz, "%u %u", c->part_n, c->part_k);
		return 0;
	}
	if (!strcmp(name, "protect")) {
		snprintf(out, outsz, "%s", gsp_protect_name(c->protect));
		return 0;
	}
	/* Read-only: the module's debugfs "objects", for leak checks. */
	if (!strcmp(name, "objects")) {
		snprintf(out, outsz, "contexts %u\njobs %llu\nfences %llu\n",
			 gd_state.nr_tenants,
			 (unsigned long long)gd_state.nr_jobs,
			 (unsigned long long)gd_state.nr_fences);
		return 0;
	}
	if (!strcmp(name, "period_us"))
		v = c->params.period_ns / NSEC_PER_USEC;
	else if (!strcmp(name, "band_wait_us"))
		v = c->params.band_wait_ns / NSEC_PER_USEC;
	else if (!strcmp(name, "min_be_permille"))
		v = c->params.min_be_permille;
	else if (!strcmp(name, "reorder"))
		v = c->params.reorder;
	else if (!strcmp(name, "window"))
		v = c->params.window;
	else if (!strcmp(name, "watchdog_ms"))
		v = c->watchdog_ns / NSEC_PER_MSEC;
	else if (!strcmp(name, "sim_devices"))
		v = c->nr_sim;
	else if (!strcmp(name, "lease_devices"))
		v = c->nr_lease;
	else if (!strcmp(name, "lc_hold_us"))
		v = c->lc_hold_ns / NSEC_PER_USEC;
	else if (!strcmp(name, "lc_max_ms"))
		v = c->lc_max_ns / NSEC_PER_MSEC;
	else if (!strcmp(name, "predict_lead_us"))
		v = c->predict_lead_ns / NSEC_PER_USEC;
	else
		return -ENOENT;
	snprintf(out, outsz, "%llu", v);
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* "0, 1000, alice": numbers or names; @groups picks the name database. */
static int parse_ids(char *v, bool groups, struct gd_idlist *out,
		     const char **bad)
{
	char *tok;

	out->n = 0;
	while ((tok = strsep(&v, ","))) {
		uint64_t id;

		tok = trim(tok);
		*bad = tok;
		if (!*tok)
			return -EINVAL;
		if (out->n == GD_MAX_GROUPS)
			return -E2BIG;
		if (!parse_u64(tok, UINT32_MAX - 1, &id)) {
			out->id[out->n++] = (uint32_t)id;
		} else if (groups) {
			struct group *g = getgrnam(tok);

			if (!g)
				return -ENOENT;
			out->id[out->n++] = g->gr_gid;
		} else {
			struct passwd *p = getpwnam(tok);

			if (!p)
				return -ENOENT;
			out->id[out->n++] = p->pw_uid;
		}
	}
	return 0;
}

static int id_key(const char *key, char *val, const char *path, int line)
{
	struct gd_idlist *l;
	const char *bad = "";
	bool groups;
	int r;

	if (!strcmp(key, "lc_uids"))
		l = &gd_state.cfg.lc_uids, groups = false;
	else if (!strcmp(key, "lc_groups"))
		l = &gd_state.cfg.lc_groups, groups = true;
	else if (!strcmp(key, "admin_uids"))
		l = &gd_state.cfg.admin_uids, groups = false;
	else if (!strcmp(key, "admin_groups"))
		l = &gd_state.cfg.admin_groups, groups = true;
	else
		return 1;
	r = parse_ids(val, groups, l, &bad);
	if (r == -E2BIG)
		gd_log(GD_LOG_ERR, "%s:%d: %s: more than %d entries; name fewer\n",
		       path, line, key, GD_MAX_GROUPS);
	else if (r == -ENOENT)
		gd_log(GD_LOG_ERR, "%s:%d: %s: no %s named '%s'; give a number or an existing name\n",
		       path, line, key, groups ? "group" : "user", bad);
	else if (r)
		gd_log(GD_LOG_ERR, "%s:%d: %s: empty entry; write a comma-separated list such as 0,1000\n",
		       path, line, key);
	return r ? -1 : 0;
}

int gd_config_load(const char *path, bool must_exist)
{
	char line[1024];
	FILE *f;
	int n = 0;

	f = fopen(path, "re");
	if (!f) {
		if (errno == ENOENT && !must_exist)
			return 0;
		gd_log(GD_LOG_ERR, "%s: %s; give a readable file with --config\n",
		       path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *s, *eq, *key, *val, *hash;
		int r;

		n++;
		if (!strchr(line, '\n') && !feof(f)) {
			gd_log(GD_LOG_ERR, "%s:%d: line longer than %zu bytes; shorten it\n",
			       path, n, sizeof(line) - 2);
			goto err;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		s = trim(line);
		if (!*s)
			continue;
		eq = strchr(s, '=');
		if (!eq) {
			gd_log(GD_LOG_ERR, "%s:%d: '%s' is not 'key = value'\n",
			       path, n, s);
			goto err;
		}
		*eq = 0;
		key = trim(s);
		val = trim(eq + 1);
		r = id_key(key, val, path, n);
		if (r < 0)
			goto err;
		if (r == 0)
			continue;
		r = gd_knob_set(key, val);
		if (r == -ENOENT) {
			gd_log(GD_LOG_ERR, "%s:%d: unknown key '%s'; see Documentation/gspaced.rst for the keys\n",
			       path, n, key);
			goto err;
		}
		if (r && !strcmp(key, "protect")) {
			gd_log(GD_LOG_ERR, "%s:%d: protect = '%s': write reactive, reserved or predictive\n",
			       path, n, val);
			goto err;
		}
		if (r && !strcmp(key, "partition")) {
			gd_log(GD_LOG_ERR, "%s:%d: partition = '%s': write N,K with N 1..%d SMs and K 1..%d slots, or 0,0 for off\n",
			       path, n, val, GD_PART_MAX_N, GD_PART_MAX_K);
			goto err;
		}
		if (r) {
			gd_log(GD_LOG_ERR, "%s:%d: %s = '%s' is out of range or malformed; see Documentation/gspaced.rst\n",
			       path, n, key, val);
			goto err;
		}
	}
	fclose(f);
	if (gd_state.cfg.nr_sim + gd_state.cfg.nr_lease < 1 ||
	    gd_state.cfg.nr_sim + gd_state.cfg.nr_lease > GD_MAX_DEVICES) {
		gd_log(GD_LOG_ERR, "%s: sim_devices + lease_devices must be 1..%d\n",
		       path, GD_MAX_DEVICES);
		return -1;
	}
	return 0;
err:
	fclose(f);
	return -1;
}
