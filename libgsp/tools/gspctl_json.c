// SPDX-License-Identifier: GPL-2.0
/*
 * gspctl status --json: what gspctl status prints, as one JSON object on
 * one line, for scripts (Documentation/libgsp.rst, "gspctl"). Numbers
 * the arbiter did not report are null.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsp.h>
#include <gsp_board.h>
#include "gsp_knobs.h"
#include "gspctl.h"

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

/* A decimal column of the tenants text, or null ("-", absent). */
static void json_count(const char *v)
{
	char *end;

	strtoull(v, &end, 10);
	if (end != v && !*end)
		fputs(v, stdout);
	else
		fputs("null", stdout);
}

static void json_features(uint64_t f)
{
	const char *sep = "";
	char bit[16];
	size_t i;

	putchar('[');
	for (i = 0; i < 64; i++) {
		if (!(f & (1ull << i)))
			continue;
		snprintf(bit, sizeof(bit), "bit%zu", i);
		fputs(sep, stdout);
		json_str(i < GSPCTL_FEATURES ? gspctl_features[i] : bit);
		sep = ",";
	}
	putchar(']');
}

static void json_knobs(struct target *t)
{
	const char *sep = "";
	char val[256];
	size_t i;

	putchar('{');
	for (i = 0; i < GSP_KNOB_COUNT; i++) {
		if (knob_get(t, gsp_knobs[i].name, val, sizeof(val)))
			continue;	/* the other arbiter's, or unreadable */
		fputs(sep, stdout);
		json_str(gsp_knobs[i].name);
		putchar(':');
		json_str(val);
		sep = ",";
	}
	putchar('}');
}

static void json_devices(const struct gsp_board *b, unsigned ndev)
{
	unsigned i;

	putchar('[');
	for (i = 0; b && i < ndev && i < GSP_BOARD_MAX_DEVICES; i++) {
		const struct gsp_board_dev *d = &b->dev[i];
		uint64_t w = gsp_board_load(&d->part_req);
		uint32_t s = gsp_board_load(&d->search);
		const char *mode = gsp_protect_name(gsp_board_load(&d->protect));
		uint32_t k = GSP_BOARD_REQ_K(w);

		printf("%s{\"dev\":%u,\"auto\":%s,\"search\":", i ? "," : "", i,
		       s ? "true" : "false");
		if (s)
			json_str(gsp_search_names[s % GSPACE_SEARCH_COUNT]);
		else
			fputs("null", stdout);
		printf(",\"n\":%u,\"k\":%u,\"epoch\":%" PRIu64 ",\"protect\":",
		       gsp_board_load(&d->part_n), gsp_board_load(&d->part_k),
		       gsp_board_load(&d->part_epoch));
		json_str(mode ? mode : "?");
		/* partition auto: k is a share of each kernel's slots, in 8ths */
		printf(",\"request\":{\"n\":%u,\"k\":%u,\"k_eighths\":%s,\"epoch\":%u}"
		       ",\"lc_jobs\":%" PRIu64 ",\"waiting\":%" PRIu64 "}",
		       GSP_BOARD_REQ_N(w), k & ~GSPACE_BOARD_REQ_K_EIGHTHS,
		       k & GSPACE_BOARD_REQ_K_EIGHTHS ? "true" : "false",
		       GSP_BOARD_REQ_EPOCH(w), gsp_board_load(&d->lc_jobs),
		       gsp_board_load(&d->waiting));
	}
	putchar(']');
}

static void json_searches(const struct gsp_board *b)
{
	static const char *const states[] = { "idle", "solo", "running",
					      "done" };
	const char *sep = "";
	unsigned i;

	putchar('[');
	for (i = 0; b && i < GSP_BOARD_LC_SLOTS; i++) {
		const struct gsp_board_lc *s = &b->lc[i];
		uint64_t w = gsp_board_load(&s->search);
		uint64_t c = gsp_board_load(&s->cell);
		uint32_t m = GSPACE_BOARD_SEARCH_METHOD(w);
		uint32_t st = GSPACE_BOARD_SEARCH_STATE(w);
		uint32_t owner = gsp_board_load(&s->owner);

		if (!owner || !w)
			continue;
		printf("%s{\"slot\":%u,\"dev\":%u,\"pid\":%u,\"method\":", sep, i,
		       gsp_board_load(&s->device), owner);
		json_str(m < GSPACE_SEARCH_COUNT ? gsp_search_names[m] : "?");
		fputs(",\"state\":", stdout);
		json_str(st < 4 ? states[st] : "?");
		if (GSP_BOARD_REQ_N(c))
			printf(",\"cell\":{\"n\":%u,\"k_eighths\":%u}",
			       GSP_BOARD_REQ_N(c), GSP_BOARD_REQ_K(c));
		else
			fputs(",\"cell\":null", stdout);
		printf(",\"cells\":%u,\"invocations\":%u}",
		       GSPACE_BOARD_SEARCH_CELLS(w), GSPACE_BOARD_SEARCH_INVOC(w));
		sep = ",";
	}
	putchar(']');
}

static void json_tenants(const struct table *tab)
{
	uint64_t dev_total[MAX_DEVICES] = { 0 };
	size_t i;

	for (i = 0; i < tab->n; i++)
		if (tab->t[i].dev < MAX_DEVICES)
			dev_total[tab->t[i].dev] += gpu_total(&tab->t[i]);
	putchar('[');
	for (i = 0; i < tab->n; i++) {
		const struct tenant *t = &tab->t[i];
		uint64_t total = t->dev < MAX_DEVICES ? dev_total[t->dev] : 0;

		printf("%s{\"uid\":", i ? "," : "");
		if (t->uid >= 0)
			printf("%lld", t->uid);
		else
			fputs("null", stdout);
		printf(",\"pid\":%lld,\"nth\":%u,\"dev\":%u,\"self\":%s,\"class\":",
		       t->pid, t->nth, t->dev,
		       t->pid == (long long)getpid() ? "true" : "false");
		json_str(t->cls);
		fputs(",\"weight\":", stdout);
		json_count(t->weight);
		fputs(",\"queued\":", stdout);
		json_count(t->queued);
		fputs(",\"running\":", stdout);
		json_count(t->running);
		fputs(",\"completed\":", stdout);
		json_count(t->completed);
		fputs(",\"failed\":", stdout);
		json_count(t->failed);
		fputs(",\"qos_violations\":", stdout);
		json_count(t->qos);
		printf(",\"gpu_ns\":{\"compute\":%" PRIu64 ",\"h2d\":%" PRIu64
		       ",\"d2h\":%" PRIu64 "},\"credit_ns\":%lld,\"share\":",
		       t->gpu[0], t->gpu[1], t->gpu[2], t->credit);
		if (total)
			printf("%.6f", (double)gpu_total(t) / (double)total);
		else
			fputs("null", stdout);
		fputs(",\"renewals\":", stdout);
		json_count(t->renewals);
		printf(",\"hung\":%s}", t->hung ? "true" : "false");
	}
	putchar(']');
}

int cmd_status_json(struct target *t)
{
	static struct table tab;	/* too big for the stack */
	struct gspace_version v = { .size = sizeof(v) };
	int ret;

	if (status_connect(t))
		return EXIT_FAIL;
	if (read_tenants(t, &tab))
		return EXIT_FAIL;
	ret = t->g ? gsp_version(t->g, &v) : t->open_err;

	fputs("{\"arbiter\":", stdout);
	json_str(t->kind == GSP_ARBITER_KERNEL ? "kernel" : "daemon");
	fputs(",\"endpoint\":", stdout);
	json_str(t->kind == GSP_ARBITER_KERNEL ? t->dev : t->socket);
	if (ret) {
		fputs(",\"abi\":null,\"features\":[],\"devices\":null", stdout);
	} else {
		printf(",\"abi\":{\"major\":%u,\"minor\":%u},\"features\":",
		       v.abi_major, v.abi_minor);
		json_features(v.features);
		printf(",\"devices\":%u", v.num_devices);
	}
	fputs(",\"knobs\":", stdout);
	json_knobs(t);
	fputs(",\"partition\":", stdout);
	json_devices(t->g ? gsp_board(t->g) : NULL, ret ? 0 : v.num_devices);
	fputs(",\"searches\":", stdout);
	json_searches(t->g ? gsp_board(t->g) : NULL);
	fputs(",\"tenants\":", stdout);
	json_tenants(&tab);
	fputs("}\n", stdout);
	return 0;
}
