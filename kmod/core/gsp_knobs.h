/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The knobs of both arbiters, once: gspace.ko's sysfs files
 * (kmod/gsp_sysfs.c), gspaced's config keys and CTL_GET/CTL_SET
 * (gspaced/config.c), gspctl's list (libgsp/tools/gspctl.c) and the
 * table in Documentation/uapi.rst, "Knobs" (checked by
 * tests/core/test_knobs.c) are all made from its one table,
 * gsp_knob_table.h.
 *
 * Where a knob's value lives is each arbiter's own; what it is called,
 * what it takes, its default and what it means are here.
 */
#ifndef _GSP_KNOBS_H
#define _GSP_KNOBS_H

#include "gsp_core.h"
#include "gspace.h"

/*
 * The limits' ceilings (Documentation/kmod.rst and gspaced.rst,
 * "Limits"): tenant_max_jobs goes up to what one tenant may pin at most;
 * the other limits up to GSP_LIMIT_MAX.
 */
#define GSP_TENANT_MAX_JOBS	16384
#define GSP_LIMIT_MAX		(1u << 20)

/* How a knob's value is written. */
enum gsp_knob_type {
	GSP_KNOB_UINT,		/* a number, min..max, in unit */
	GSP_KNOB_POLICY,	/* a name of gsp_policy_names */
	GSP_KNOB_PROTECT,	/* a name of gsp_protect_names */
	GSP_KNOB_PARTITION,	/* "N,K" (or "N K"), "0,0" for off, or "auto" */
	GSP_KNOB_SEARCH,	/* a name of gsp_search_names */
	GSP_KNOB_DEVICES,	/* a device count, 0..max; its arbiter's default */
	GSP_KNOB_GROUP,		/* a gid, or -1 for none; gspace.ko only */
};

/*
 * The knobs: gsp_knob_table.h, one GSP_KNOB(name, type, unit, scale, min,
 * max, default, help) each. @scale is the number of the arbiters'
 * internal units (ns for times) in one unit. Both arbiters check the
 * ranges; the core checks its tunables again together (band_wait_us <
 * period_us).
 */
enum gsp_knob_id {
#define GSP_KNOB(_name, ...)	GSP_KNOB_##_name,
#include "gsp_knob_table.h"
	GSP_KNOB_COUNT
};

/**
 * struct gsp_knob - one knob, as GSP_KNOBS() describes it
 * @name: its sysfs file and config key
 * @type: GSP_KNOB_*
 * @unit: what one of its numbers counts, or ""
 * @scale: internal units (ns for times) per @unit
 * @min: least value
 * @max: greatest value
 * @def: default, in @unit
 * @help: what it does
 */
struct gsp_knob {
	const char *name;
	u32 type;
	const char *unit;
	u64 scale;
	u64 min;
	u64 max;
	u64 def;
	const char *help;
};

/**
 * struct gsp_knob_val - a knob's value
 * @u: GSP_KNOB_UINT and _DEVICES: the number; _POLICY, _PROTECT and
 *	_SEARCH: the index of the name; _GROUP: the gid, or U64_MAX for
 *	none; _PARTITION: 1 for "auto" (@n and @k 0), else 0
 * @n: GSP_KNOB_PARTITION: SMs
 * @k: GSP_KNOB_PARTITION: block slots per SM
 */
struct gsp_knob_val {
	u64 u;
	u32 n;
	u32 k;
};

extern const struct gsp_knob gsp_knobs[GSP_KNOB_COUNT];
extern const char *const gsp_protect_names[GSPACE_PROTECT_COUNT];
extern const char *const gsp_search_names[GSPACE_SEARCH_COUNT];

/* The knob called @name (a sysfs-style trailing newline allowed), or -ENOENT. */
int gsp_knob_find(const char *name);

/* Parses @buf for knob @id: 0, or -EINVAL and @v unchanged. */
int gsp_knob_parse(enum gsp_knob_id id, const char *buf,
		   struct gsp_knob_val *v);

/* Writes @v as the knob reads, without a newline: snprintf()'s return. */
int gsp_knob_format(enum gsp_knob_id id, const struct gsp_knob_val *v,
		    char *buf, size_t size);

/* Writes what the knob takes ("1..32 tasks"): snprintf()'s return. */
int gsp_knob_range(enum gsp_knob_id id, char *buf, size_t size);

/* Writes the knob's default, as it reads: snprintf()'s return. */
int gsp_knob_default(enum gsp_knob_id id, char *buf, size_t size);

/* The default of a GSP_KNOB_UINT knob in internal units (ns for times). */
u64 gsp_knob_default_scaled(enum gsp_knob_id id);

/*
 * The core's tunables (struct gsp_params) as knobs: whether @id is one,
 * its value, and a copy of @p with it set to @v (not validated).
 */
bool gsp_knob_is_param(enum gsp_knob_id id);
u64 gsp_knob_param_get(const struct gsp_params *p, enum gsp_knob_id id);
void gsp_knob_param_set(struct gsp_params *p, enum gsp_knob_id id, u64 v);

#endif /* _GSP_KNOBS_H */
