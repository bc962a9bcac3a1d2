// SPDX-License-Identifier: GPL-2.0
/*
 * gspaced configuration: the config file (key = value, # comments) and
 * the knobs that CTL_GET/CTL_SET reach at runtime. The knobs are the
 * core's table (kmod/core/gsp_knob_table.h), as gspace.ko's sysfs files
 * are: names, ranges, defaults and parsing are the core's; here is only
 * where each value lives. The other keys (the id lists) are documented in
 * Documentation/gspaced.rst.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gspaced.h"

#include "gsp_knobs.h"

void gd_config_default(struct gd_config *c)
{
	memset(c, 0, sizeof(*c));
	gsp_params_default(&c->params);
	c->watchdog_ns = gsp_knob_default_scaled(GSP_KNOB_watchdog_ms);
	c->nr_sim = 0;
	c->nr_lease = 1;
	c->lc_hold_ns = gsp_knob_default_scaled(GSP_KNOB_lc_hold_us);
	c->lc_max_ns = gsp_knob_default_scaled(GSP_KNOB_lc_max_ms);
	c->protect = gsp_knobs[GSP_KNOB_protect].def;
	c->search = gsp_knobs[GSP_KNOB_search].def;
	c->predict_lead_ns = gsp_knob_default_scaled(GSP_KNOB_predict_lead_us);
	c->max_jobs = gsp_knobs[GSP_KNOB_tenant_max_jobs].def;
	c->max_fences = gsp_knobs[GSP_KNOB_tenant_max_fences].def;
	c->max_waits = gsp_knobs[GSP_KNOB_tenant_max_waits].def;
	c->max_uid_tenants = gsp_knobs[GSP_KNOB_uid_max_tenants].def;
	c->admit_q = 2;
}

/* Whether the daemon runs: knobs then act on the schedulers too. */
static bool knobs_live;

void gd_config_set_live(void)
{
	knobs_live = true;
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

/* The board's LC knobs, in gd_state.cfg; NULL for any other knob. */
static uint64_t *board_knob(enum gsp_knob_id id)
{
	switch (id) {
	case GSP_KNOB_lc_hold_us:
		return &gd_state.cfg.lc_hold_ns;
	case GSP_KNOB_lc_max_ms:
		return &gd_state.cfg.lc_max_ns;
	case GSP_KNOB_predict_lead_us:
		return &gd_state.cfg.predict_lead_ns;
	default:
		return NULL;
	}
}

/*
 * The tenants' limits (gspaced.rst, "Limits"), in gd_state.cfg; NULL for
 * any other knob. A lower limit takes nothing back: it refuses what comes
 * next.
 */
static uint32_t *limit_knob(enum gsp_knob_id id)
{
	switch (id) {
	case GSP_KNOB_tenant_max_jobs:
		return &gd_state.cfg.max_jobs;
	case GSP_KNOB_tenant_max_fences:
		return &gd_state.cfg.max_fences;
	case GSP_KNOB_tenant_max_waits:
		return &gd_state.cfg.max_waits;
	case GSP_KNOB_uid_max_tenants:
		return &gd_state.cfg.max_uid_tenants;
	default:
		return NULL;
	}
}

/* glibc's chunk for a malloc() of @n bytes: a header, 16-byte aligned. */
static uint64_t malloc_bytes(size_t n)
{
	uint64_t c = (n + sizeof(size_t) + 15) & ~(uint64_t)15;

	return c < 32 ? 32 : c;
}

/*
 * CTL_GET "limits": the limits and what they bound a tenant's memory in
 * gspaced to, as the module's debugfs "limits" says it: the tenant and
 * its uid's entry; per job held its record and its two slots in the
 * ready list (which doubles); per WAIT parked its record and its two
 * slots in the deadline heap (which doubles).
 */
static void limits_text(char *out, size_t outsz)
{
	const struct gd_config *c = &gd_state.cfg;
	uint64_t tenant = malloc_bytes(sizeof(struct gd_tenant)) +
			  malloc_bytes(sizeof(struct gd_uid));
	uint64_t job = malloc_bytes(sizeof(struct gd_job)) +
		       2 * sizeof(struct gd_job *);
	uint64_t wait = malloc_bytes(sizeof(struct gd_wait)) +
			2 * sizeof(struct gd_wait *);

	snprintf(out, outsz,
		 "tenant_max_jobs %u\ntenant_max_fences %u\ntenant_max_waits %u\n"
		 "uid_max_tenants %u\ntenant_bytes %llu\njob_bytes %llu\n"
		 "wait_bytes %llu\ntenant_max_bytes %llu\n",
		 c->max_jobs, c->max_fences, c->max_waits, c->max_uid_tenants,
		 (unsigned long long)tenant, (unsigned long long)job,
		 (unsigned long long)wait,
		 (unsigned long long)(tenant + c->max_jobs * job +
				      c->max_waits * wait));
}

/*
 * The knob @name of the core's table (gsp_knobs.h), which gspaced has
 * unless it is gspace.ko's alone; -ENOENT otherwise.
 */
static int knob_id(const char *name)
{
	int id = gsp_knob_find(name);

	if (id < 0 || strcmp(name, gsp_knobs[id].name) ||
	    gsp_knobs[id].type == GSP_KNOB_GROUP)
		return -ENOENT;
	return id;
}

int gd_knob_set(const char *name, const char *value)
{
	struct gd_config *c = &gd_state.cfg;
	struct gsp_knob_val v;
	uint32_t *limit;
	uint64_t *field;
	int id = knob_id(name);

	if (id < 0)
		return id;
	if (gsp_knob_parse(id, value, &v))
		return -EINVAL;
	limit = limit_knob(id);
	if (limit) {
		*limit = (uint32_t)v.u;
		return 0;
	}
	field = board_knob(id);
	if (field) {
		*field = v.u * gsp_knobs[id].scale;
		gd_board_update_knobs();
		return 0;
	}
	if (gsp_knob_is_param(id)) {
		struct gsp_params p = c->params;

		gsp_knob_param_set(&p, id, v.u);
		if (gsp_params_validate(&p))
			return -EINVAL;
		c->params = p;
		if (knobs_live)
			gd_params_apply();
		return 0;
	}
	switch (id) {
	case GSP_KNOB_watchdog_ms:
		c->watchdog_ns = v.u * gsp_knobs[id].scale;
		/* Lease holders renew by it. */
		gd_board_update_knobs();
		return 0;
	case GSP_KNOB_sim_devices:
	case GSP_KNOB_lease_devices:
		return devices_knob(id == GSP_KNOB_lease_devices, v.u);
	case GSP_KNOB_partition:
		/* One partition for every device of the board. */
		if (v.n == c->part_n && v.k == c->part_k &&
		    (int)v.u == c->part_auto)
			return 0;
		c->part_n = v.n;
		c->part_k = v.k;
		c->part_auto = (int)v.u;
		gd_board_partition();
		return 0;
	case GSP_KNOB_search:
		c->search = (uint32_t)v.u;
		gd_board_partition();
		return 0;
	case GSP_KNOB_protect:
		/* One mode for every device of the board. */
		if (v.u == c->protect)
			return 0;
		c->protect = (uint32_t)v.u;
		gd_board_protect();
		return 0;
	default:
		return -ENOENT;
	}
}

int gd_knob_get(const char *name, char *out, size_t outsz)
{
	const struct gd_config *c = &gd_state.cfg;
	struct gsp_knob_val v = { 0 };
	const uint32_t *limit;
	const uint64_t *field;
	int id;

	/* Read-only: the module's debugfs "objects", for leak checks. */
	if (!strcmp(name, "objects")) {
		snprintf(out, outsz, "contexts %u\njobs %llu\nfences %llu\n",
			 gd_state.nr_tenants,
			 (unsigned long long)gd_state.nr_jobs,
			 (unsigned long long)gd_state.nr_fences);
		return 0;
	}
	if (!strcmp(name, "limits")) {
		limits_text(out, outsz);
		return 0;
	}
	id = knob_id(name);
	if (id < 0)
		return id;
	field = board_knob(id);
	limit = limit_knob(id);
	if (limit)
		v.u = *limit;
	else if (field)
		v.u = *field / gsp_knobs[id].scale;
	else if (gsp_knob_is_param(id))
		v.u = gsp_knob_param_get(&c->params, id);
	else if (id == GSP_KNOB_watchdog_ms)
		v.u = c->watchdog_ns / gsp_knobs[id].scale;
	else if (id == GSP_KNOB_sim_devices)
		v.u = c->nr_sim;
	else if (id == GSP_KNOB_lease_devices)
		v.u = c->nr_lease;
	else if (id == GSP_KNOB_protect)
		v.u = c->protect;
	else if (id == GSP_KNOB_search)
		v.u = c->search;
	else if (id == GSP_KNOB_partition)
		v.u = (uint64_t)c->part_auto;
	v.n = c->part_n;
	v.k = c->part_k;
	gsp_knob_format(id, &v, out, outsz);
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
		if (isdigit((unsigned char)*tok) && !kstrtou64(tok, 0, &id) &&
		    id <= UINT32_MAX - 1) {
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

/*
 * Admission's keys (config only): 1 if @key is none of them, else 0 or
 * -1 (logged).
 */
static int admit_key(const char *key, const char *val, const char *path,
		     int line)
{
	struct gd_config *c = &gd_state.cfg;
	char *end;

	if (!strcmp(key, "admit_q")) {
		errno = 0;
		c->admit_q = strtod(val, &end);
		if (!*val || *end || errno || !(c->admit_q > 0 &&
						 c->admit_q <= 1000)) {
			gd_log(GD_LOG_ERR, "%s:%d: admit_q = '%s': write a ratio in (0, 1000] such as 2\n",
			       path, line, val);
			return -1;
		}
		return 0;
	}
	if (strcmp(key, "admit_hw") && strcmp(key, "admit_lc"))
		return 1;
	if (!*val || strlen(val) >= sizeof(c->admit_hw)) {
		gd_log(GD_LOG_ERR, "%s:%d: %s needs a file's path\n", path, line,
		       key);
		return -1;
	}
	strcpy(key[6] == 'h' ? c->admit_hw : c->admit_lc, val);
	return 0;
}

int gd_config_load(const char *path, bool must_exist)
{
	char line[1024];
	struct stat st;
	FILE *f;
	int n = 0, fd;

	/* O_NONBLOCK: a FIFO must not block us; it is refused below. */
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && !must_exist)
			return 0;
		gd_log(GD_LOG_ERR, "%s: %s; give a readable file with --config\n",
		       path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		gd_log(GD_LOG_ERR, "%s: not a regular file; give a readable file with --config\n",
		       path);
		close(fd);
		return -1;
	}
	f = fdopen(fd, "r");
	if (!f || fcntl(fd, F_SETFL, 0)) {
		gd_log(GD_LOG_ERR, "%s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		else
			close(fd);
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
		if (r == 1)
			r = admit_key(key, val, path, n);
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
		if (r && (!strcmp(key, "protect") || !strcmp(key, "partition") ||
			  !strcmp(key, "search") ||
			  limit_knob(gsp_knob_find(key)))) {
			char what[128];

			gsp_knob_range(gsp_knob_find(key), what, sizeof(what));
			gd_log(GD_LOG_ERR, "%s:%d: %s = '%s': write %s\n",
			       path, n, key, val, what);
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
