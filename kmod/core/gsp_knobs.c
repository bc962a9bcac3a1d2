// SPDX-License-Identifier: GPL-2.0
/*
 * The knobs of both arbiters (gsp_knobs.h): their table, and how a value
 * is parsed, written and described.
 */

#include "gsp_knobs.h"

const struct gsp_knob gsp_knobs[GSP_KNOB_COUNT] = {
#define GSP_KNOB(_name, _type, _unit, _scale, _min, _max, _def, _help)	\
	[GSP_KNOB_##_name] = {						\
		.name = #_name,						\
		.type = _type,						\
		.unit = _unit,						\
		.scale = _scale,					\
		.min = _min,						\
		.max = _max,						\
		.def = _def,						\
		.help = _help,						\
	},
#include "gsp_knob_table.h"
};

const char *const gsp_policy_names[GSP_POLICY_COUNT] = {
	[GSP_POLICY_FIFO] = "fifo",
	[GSP_POLICY_CREDIT] = "credit",
	[GSP_POLICY_BAND] = "band",
};


/* Indexed by GSPACE_PROTECT_*. */
const char *const gsp_protect_names[GSPACE_PROTECT_COUNT] = {
	[GSPACE_PROTECT_REACTIVE] = "reactive",
	[GSPACE_PROTECT_RESERVED] = "reserved",
	[GSPACE_PROTECT_PREDICTIVE] = "predictive",
	[GSPACE_PROTECT_PREEMPTIVE] = "preemptive",
};

/* Indexed by GSPACE_SEARCH_*; "off" is not a method the knob takes. */
const char *const gsp_search_names[GSPACE_SEARCH_COUNT] = {
	[GSPACE_SEARCH_OFF] = "off",
	[GSPACE_SEARCH_NS] = "ns",
	[GSPACE_SEARCH_GNS] = "gns",
	[GSPACE_SEARCH_SRS] = "srs",
	[GSPACE_SEARCH_NN_NS] = "nn_ns",
	[GSPACE_SEARCH_NN_GNS] = "nn_gns",
	[GSPACE_SEARCH_NN_SRS] = "nn_srs",
	[GSPACE_SEARCH_NN] = "nn",
	[GSPACE_SEARCH_LR] = "lr",
	[GSPACE_SEARCH_GRID] = "grid",
};

/* sysfs_streq() for a written @s: @name, or @name and a newline. */
static bool gsp_knob_streq(const char *s, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(s, name, n) && (!s[n] || (s[n] == '\n' && !s[n + 1]));
}

int gsp_knob_find(const char *name)
{
	int i;

	for (i = 0; i < GSP_KNOB_COUNT; i++)
		if (gsp_knob_streq(name, gsp_knobs[i].name))
			return i;
	return -ENOENT;
}

static int gsp_knob_match(const char *s, const char *const *names, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (gsp_knob_streq(s, names[i]))
			return i;
	return -EINVAL;
}

/*
 * "N,K", or "N K" (sysfs's form before ABI 1.3's docs made "N,K" the one
 * they write): one separator, no blanks, one trailing newline allowed;
 * both 0, or N 1..GSPACE_PART_MAX_N and K 1..GSPACE_PART_MAX_K.
 */
static int gsp_knob_parse_partition(const char *buf, u32 *n, u32 *k)
{
	size_t len = strlen(buf);
	char tmp[32], *sep;

	if (len >= sizeof(tmp))
		return -EINVAL;
	memcpy(tmp, buf, len + 1);
	sep = strpbrk(tmp, ", ");
	if (!sep)
		return -EINVAL;
	*sep = 0;
	if (kstrtou32(tmp, 0, n) || kstrtou32(sep + 1, 0, k))
		return -EINVAL;
	if (!*n && !*k)
		return 0;
	if (*n < 1 || *n > GSPACE_PART_MAX_N || *k < 1 ||
	    *k > GSPACE_PART_MAX_K)
		return -EINVAL;
	return 0;
}

int gsp_knob_parse(enum gsp_knob_id id, const char *buf,
		   struct gsp_knob_val *v)
{
	const struct gsp_knob *kn = &gsp_knobs[id];
	struct gsp_knob_val r = { 0 };
	s64 gid;
	int i;

	switch (kn->type) {
	case GSP_KNOB_UINT:
	case GSP_KNOB_DEVICES:
		if (kstrtou64(buf, 0, &r.u) || r.u < kn->min || r.u > kn->max)
			return -EINVAL;
		break;
	case GSP_KNOB_POLICY:
		i = gsp_knob_match(buf, gsp_policy_names, GSP_POLICY_COUNT);
		if (i < 0)
			return -EINVAL;
		r.u = i;
		break;
	case GSP_KNOB_PROTECT:
		i = gsp_knob_match(buf, gsp_protect_names, GSPACE_PROTECT_COUNT);
		if (i < 0)
			return -EINVAL;
		r.u = i;
		break;
	case GSP_KNOB_PARTITION:
		if (gsp_knob_streq(buf, "auto"))
			r.u = 1;
		else if (gsp_knob_parse_partition(buf, &r.n, &r.k))
			return -EINVAL;
		break;
	case GSP_KNOB_SEARCH:
		i = gsp_knob_match(buf, gsp_search_names, GSPACE_SEARCH_COUNT);
		if (i < (int)kn->min)
			return -EINVAL;
		r.u = i;
		break;
	case GSP_KNOB_GROUP:
		if (kstrtos64(buf, 0, &gid))
			return -EINVAL;
		if (gid != -1 && (gid < 0 || gid > (s64)kn->max))
			return -EINVAL;
		r.u = gid == -1 ? U64_MAX : (u64)gid;
		break;
	default:
		return -EINVAL;
	}
	*v = r;
	return 0;
}

int gsp_knob_format(enum gsp_knob_id id, const struct gsp_knob_val *v,
		    char *buf, size_t size)
{
	switch (gsp_knobs[id].type) {
	case GSP_KNOB_POLICY:
		return snprintf(buf, size, "%s", v->u < GSP_POLICY_COUNT ?
				gsp_policy_names[v->u] : "?");
	case GSP_KNOB_PROTECT:
		return snprintf(buf, size, "%s", v->u < GSPACE_PROTECT_COUNT ?
				gsp_protect_names[v->u] : "?");
	case GSP_KNOB_PARTITION:
		if (v->u)
			return snprintf(buf, size, "auto");
		return snprintf(buf, size, "%u,%u", v->n, v->k);
	case GSP_KNOB_SEARCH:
		return snprintf(buf, size, "%s", v->u < GSPACE_SEARCH_COUNT ?
				gsp_search_names[v->u] : "?");
	case GSP_KNOB_GROUP:
		if (v->u == U64_MAX)
			return snprintf(buf, size, "-1");
		fallthrough;
	default:
		return snprintf(buf, size, "%llu", (unsigned long long)v->u);
	}
}

/* "a, b or c": every name of @names, for messages and the docs. */
static int gsp_knob_names(char *buf, size_t size, const char *const *names,
			  u32 n)
{
	size_t len = 0;
	u32 i;
	int r;

	if (size)
		buf[0] = 0;
	for (i = 0; i < n; i++) {
		/* Past the end, snprintf() only counts. */
		r = snprintf(len < size ? buf + len : NULL,
			     len < size ? size - len : 0, "%s%s",
			     !i ? "" : i + 1 < n ? ", " : " or ", names[i]);
		if (r < 0)
			return r;
		len += r;
	}
	return (int)len;
}

int gsp_knob_range(enum gsp_knob_id id, char *buf, size_t size)
{
	const struct gsp_knob *kn = &gsp_knobs[id];

	switch (kn->type) {
	case GSP_KNOB_POLICY:
		return gsp_knob_names(buf, size, gsp_policy_names,
				      GSP_POLICY_COUNT);
	case GSP_KNOB_PROTECT:
		return gsp_knob_names(buf, size, gsp_protect_names,
				      GSPACE_PROTECT_COUNT);
	case GSP_KNOB_PARTITION:
		return snprintf(buf, size,
				"N,K: N 1..%u SMs, K 1..%u slots, 0,0 (off), or auto",
				GSPACE_PART_MAX_N, GSPACE_PART_MAX_K);
	case GSP_KNOB_SEARCH:
		return gsp_knob_names(buf, size, gsp_search_names + 1,
				      GSPACE_SEARCH_COUNT - 1);
	case GSP_KNOB_GROUP:
		return snprintf(buf, size, "a gid, or -1 for none");
	default:
		if (kn->min == 0 && kn->max == 1)
			return snprintf(buf, size, "0 or 1");
		return snprintf(buf, size, "%llu..%llu%s%s",
				(unsigned long long)kn->min,
				(unsigned long long)kn->max,
				*kn->unit ? " " : "", kn->unit);
	}
}

int gsp_knob_default(enum gsp_knob_id id, char *buf, size_t size)
{
	struct gsp_knob_val v = { .u = gsp_knobs[id].def };

	switch (gsp_knobs[id].type) {
	case GSP_KNOB_DEVICES:
		return snprintf(buf, size, "set at start");
	case GSP_KNOB_GROUP:
		v.u = U64_MAX;
		break;
	default:
		break;
	}
	return gsp_knob_format(id, &v, buf, size);
}

u64 gsp_knob_default_scaled(enum gsp_knob_id id)
{
	return gsp_knobs[id].def * gsp_knobs[id].scale;
}

bool gsp_knob_is_param(enum gsp_knob_id id)
{
	switch (id) {
	case GSP_KNOB_policy:
	case GSP_KNOB_period_us:
	case GSP_KNOB_band_wait_us:
	case GSP_KNOB_min_be_permille:
	case GSP_KNOB_reorder:
	case GSP_KNOB_window:
		return true;
	default:
		return false;
	}
}

u64 gsp_knob_param_get(const struct gsp_params *p, enum gsp_knob_id id)
{
	switch (id) {
	case GSP_KNOB_policy:
		return p->policy;
	case GSP_KNOB_period_us:
		return div64_u64(p->period_ns, gsp_knobs[id].scale);
	case GSP_KNOB_band_wait_us:
		return div64_u64(p->band_wait_ns, gsp_knobs[id].scale);
	case GSP_KNOB_min_be_permille:
		return p->min_be_permille;
	case GSP_KNOB_reorder:
		return p->reorder;
	case GSP_KNOB_window:
		return p->window;
	default:
		GSP_WARN_ON(1);
		return 0;
	}
}

void gsp_knob_param_set(struct gsp_params *p, enum gsp_knob_id id, u64 v)
{
	switch (id) {
	case GSP_KNOB_policy:
		p->policy = v;
		break;
	case GSP_KNOB_period_us:
		p->period_ns = v * gsp_knobs[id].scale;
		break;
	case GSP_KNOB_band_wait_us:
		p->band_wait_ns = v * gsp_knobs[id].scale;
		break;
	case GSP_KNOB_min_be_permille:
		p->min_be_permille = v;
		break;
	case GSP_KNOB_reorder:
		p->reorder = v;
		break;
	case GSP_KNOB_window:
		p->window = v;
		break;
	default:
		GSP_WARN_ON(1);
		break;
	}
}
