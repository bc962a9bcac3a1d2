// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-sim scenario files. One directive per line, '#' starts a comment:
 *
 *	policy fifo|credit|band        duration 10s      warmup 1s
 *	window 100ms (fairness)        period 100ms      band_wait 500us
 *	min_be_permille 100            reorder on|off    reorder_window 8
 *	switch 0us                     seed 1
 *	tenant NAME kind=loop|lc|task [weight=N] [lc] [kernel=T] [think=T]
 *		[period=T] [h2d=T] [d2h=T] [tasks=N] [start=T] [jitter=N]
 *
 * Times take a unit: ns, us, ms or s.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

struct parse {
	const char *name;
	int line;
	char *err;
	size_t errlen;
};

static int perr(struct parse *ps, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	snprintf(ps->err, ps->errlen, "%s:%d: %s", ps->name, ps->line, msg);
	return -1;
}

static int parse_u64(const char *s, u64 *out)
{
	char *end;
	unsigned long long v;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

static int parse_time(const char *s, u64 *out)
{
	static const struct { const char *u; u64 m; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 },
	};
	char *end;
	double v;
	size_t i;

	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtod(s, &end);
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (!strcmp(end, units[i].u)) {
			v *= (double)units[i].m;
			if (v < 0 || v > 1e18)
				return -1;
			*out = (u64)(v + 0.5);
			return 0;
		}
	}
	return -1;
}

static int parse_tenant(struct parse *ps, struct sim_cfg *cfg, char *args)
{
	struct sim_tenant_cfg *t;
	char *tok, *save = NULL, *val;
	bool have_kind = false;

	if (cfg->nr_tenants >= SIM_MAX_TENANTS)
		return perr(ps, "too many tenants (at most %d)",
			    SIM_MAX_TENANTS);
	t = &cfg->t[cfg->nr_tenants];
	memset(t, 0, sizeof(*t));
	t->weight = 100;
	tok = strtok_r(args, " \t", &save);
	if (!tok || strchr(tok, '='))
		return perr(ps, "tenant needs a name first");
	snprintf(t->name, sizeof(t->name), "%s", tok);
	while ((tok = strtok_r(NULL, " \t", &save))) {
		u64 v = 0;

		if (!strcmp(tok, "lc")) {
			t->lc = true;
			continue;
		}
		val = strchr(tok, '=');
		if (!val)
			return perr(ps, "expected key=value, got '%s'", tok);
		*val++ = '\0';
		if (!strcmp(tok, "kind")) {
			if (!strcmp(val, "loop"))
				t->kind = SIM_LOOP;
			else if (!strcmp(val, "lc"))
				t->kind = SIM_LC;
			else if (!strcmp(val, "task"))
				t->kind = SIM_TASK;
			else
				return perr(ps, "unknown kind '%s' (loop, lc, task)",
					    val);
			have_kind = true;
			continue;
		}
		if (!strcmp(tok, "weight") || !strcmp(tok, "tasks") ||
		    !strcmp(tok, "jitter")) {
			if (parse_u64(val, &v))
				return perr(ps, "%s: '%s' is not a number",
					    tok, val);
			if (!strcmp(tok, "weight")) {
				if (v < 1 || v > GSP_WEIGHT_MAX)
					return perr(ps, "weight %llu out of 1..%d",
						    (unsigned long long)v,
						    GSP_WEIGHT_MAX);
				t->weight = (u32)v;
			} else if (!strcmp(tok, "tasks")) {
				t->tasks = v;
			} else {
				if (v > 1000)
					return perr(ps, "jitter is permille, 0..1000");
				t->jitter_permille = (u32)v;
			}
			continue;
		}
		if (parse_time(val, &v))
			return perr(ps, "%s: '%s' is not a time (e.g. 500us, 2ms)",
				    tok, val);
		if (!strcmp(tok, "kernel"))
			t->kernel_ns = v;
		else if (!strcmp(tok, "think"))
			t->think_ns = v;
		else if (!strcmp(tok, "period"))
			t->period_ns = v;
		else if (!strcmp(tok, "h2d"))
			t->h2d_ns = v;
		else if (!strcmp(tok, "d2h"))
			t->d2h_ns = v;
		else if (!strcmp(tok, "start"))
			t->start_ns = v;
		else
			return perr(ps, "unknown tenant key '%s'", tok);
	}
	if (!have_kind)
		return perr(ps, "tenant %s: kind= is required", t->name);
	if (t->kind == SIM_LC) {
		t->lc = true;
		if (!t->period_ns)
			return perr(ps, "tenant %s: kind=lc needs period=",
				    t->name);
	}
	if (t->kind != SIM_TASK && !t->kernel_ns)
		return perr(ps, "tenant %s: kernel= is required", t->name);
	if (t->kind == SIM_TASK && !t->h2d_ns)
		return perr(ps, "tenant %s: kind=task needs h2d= > 0",
			    t->name);
	cfg->nr_tenants++;
	return 0;
}

static int parse_line(struct parse *ps, struct sim_cfg *cfg, char *line)
{
	char *key, *val, *save = NULL, *hash = strchr(line, '#');
	u64 v;

	if (hash)
		*hash = '\0';
	key = strtok_r(line, " \t\r\n", &save);
	if (!key)
		return 0;
	if (!strcmp(key, "tenant"))
		return parse_tenant(ps, cfg, save ? save : (char *)"");
	val = strtok_r(NULL, " \t\r\n", &save);
	if (!val)
		return perr(ps, "'%s' needs a value", key);
	if (strtok_r(NULL, " \t\r\n", &save))
		return perr(ps, "'%s' takes one value", key);

	if (!strcmp(key, "policy")) {
		for (v = 0; v < GSP_POLICY_COUNT; v++)
			if (!strcmp(val, gsp_policy_names[v]))
				break;
		if (v == GSP_POLICY_COUNT)
			return perr(ps, "unknown policy '%s' (fifo, credit, band)",
				    val);
		cfg->p.policy = (u32)v;
		return 0;
	}
	if (!strcmp(key, "reorder")) {
		if (strcmp(val, "on") && strcmp(val, "off"))
			return perr(ps, "reorder is on or off, not '%s'", val);
		cfg->p.reorder = !strcmp(val, "on");
		return 0;
	}
	if (!strcmp(key, "reorder_window") || !strcmp(key, "seed") ||
	    !strcmp(key, "min_be_permille")) {
		if (parse_u64(val, &v))
			return perr(ps, "%s: '%s' is not a number", key, val);
		if (!strcmp(key, "seed")) {
			cfg->seed = v;
		} else if (!strcmp(key, "reorder_window")) {
			if (v < 1 || v > GSP_CUMAS_MAX_WINDOW)
				return perr(ps, "reorder_window out of 1..%d",
					    GSP_CUMAS_MAX_WINDOW);
			cfg->p.window = (u32)v;
		} else {
			if (v > 1000)
				return perr(ps, "min_be_permille out of 0..1000");
			cfg->p.min_be_permille = (u32)v;
		}
		return 0;
	}
	if (strcmp(key, "duration") && strcmp(key, "warmup") &&
	    strcmp(key, "window") && strcmp(key, "period") &&
	    strcmp(key, "band_wait") && strcmp(key, "switch"))
		return perr(ps, "unknown directive '%s'", key);
	if (parse_time(val, &v))
		return perr(ps, "%s: '%s' is not a time (e.g. 500us, 2ms)",
			    key, val);
	if (!strcmp(key, "duration"))
		cfg->duration_ns = v;
	else if (!strcmp(key, "warmup"))
		cfg->warmup_ns = v;
	else if (!strcmp(key, "window"))
		cfg->window_ns = v;
	else if (!strcmp(key, "period"))
		cfg->p.period_ns = v;
	else if (!strcmp(key, "band_wait"))
		cfg->p.band_wait_ns = v;
	else if (!strcmp(key, "switch"))
		cfg->switch_ns = v;
	else
		return perr(ps, "unknown directive '%s'", key);
	return 0;
}

int sim_parse_string(const char *name, const char *text, struct sim_cfg *cfg,
		     char *err, size_t errlen)
{
	struct parse ps = { .name = name, .line = 0, .err = err,
			    .errlen = errlen };
	const char *p = text;
	char buf[1024];

	sim_cfg_default(cfg);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		ps.line++;
		if (len >= sizeof(buf))
			return perr(&ps, "line too long");
		memcpy(buf, p, len);
		buf[len] = '\0';
		if (parse_line(&ps, cfg, buf))
			return -1;
		p += len + (nl ? 1 : 0);
	}
	ps.line++;
	if (!cfg->nr_tenants)
		return perr(&ps, "no tenant defined");
	if (!cfg->window_ns || !cfg->duration_ns)
		return perr(&ps, "duration and window must be > 0");
	if (cfg->warmup_ns >= cfg->duration_ns)
		return perr(&ps, "warmup must be shorter than duration");
	if (gsp_params_validate(&cfg->p))
		return perr(&ps, "scheduler parameters out of range (period 1ms..10s, band_wait < period and <= 100ms)");
	return 0;
}

int sim_parse_file(const char *path, struct sim_cfg *cfg, char *err,
		   size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text;
	long n;
	int ret;

	if (!f) {
		snprintf(err, errlen, "%s: cannot open: %s", path,
			 strerror(errno));
		return -1;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	if (n < 0 || n > (1 << 20)) {
		fclose(f);
		snprintf(err, errlen, "%s: not a scenario file (size)", path);
		return -1;
	}
	text = calloc(1, (size_t)n + 1);
	if (!text || fread(text, 1, (size_t)n, f) != (size_t)n) {
		free(text);
		fclose(f);
		snprintf(err, errlen, "%s: read error", path);
		return -1;
	}
	fclose(f);
	ret = sim_parse_string(path, text, cfg, err, errlen);
	free(text);
	return ret;
}
