/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The initial selection's data from the CSV files of the GPU step
 * (bench/gpu/corun.cu, bench/gpu/profile.sh; Documentation/search.rst,
 * "Profiles and the micro-benchmark tables"), read into select.h's
 * types. Unlike select.c, these do I/O and allocate: each reader fills
 * a struct whose arrays its free function releases.
 *
 * The files are plain CSV: a fixed header, fields split at every comma
 * (no quoting), one record a line, a line at most GSP_CSV_LINE_MAX
 * characters. A line may end in CRLF; blank lines are skipped. Numbers
 * must be finite; names are 1..GSP_CSV_NAME_MAX - 1 characters of
 * [A-Za-z0-9_.:+-].
 *
 * Every reader returns 0, or a negative errno and writes nothing to its
 * output: -EINVAL for a file that breaks its format (a message of what
 * and where, "line N: ...", goes to @err, @errlen bytes, if @err is not
 * NULL), -ENOMEM, or -EIO for a read error.
 */
#ifndef GSP_SELECT_CSV_H
#define GSP_SELECT_CSV_H

#include <stddef.h>
#include <stdio.h>

#include "select.h"

#define GSP_CSV_LINE_MAX	512	/* characters, without the line end */
#define GSP_CSV_NAME_MAX	64	/* bytes of a name, with its NUL */
#define GSP_CSV_MAX_ITEMS	1024	/* real profiles or real pairs */

/* 1 if @s is a name as these files allow one, else 0. */
int gsp_csv_name_ok(const char *s);

/* instances.csv "mb,name": the micro-benchmarks of a run, mb 0, 1, ... */
struct gsp_csv_names {
	unsigned int nr;
	char (*name)[GSP_CSV_NAME_MAX];
};

int gsp_csv_read_instances(FILE *f, struct gsp_csv_names *out, char *err,
			   size_t errlen);
void gsp_csv_free_names(struct gsp_csv_names *n);

/*
 * features.csv "mb,l1_hit,l2_hit,dram_bw,l2_bw,l1_bw,arith,insts" and
 * tables.csv "lc_mb,be_mb,n,k,lc_ratio,be_rate" of @nr_mb
 * micro-benchmarks (instances.csv's count) over @grid: a set that
 * gsp_select_check() accepts, or -EINVAL. Every mb's profile and every
 * cell of every ordered pair must be there exactly once, in any order.
 */
int gsp_csv_read_set(FILE *features, FILE *tables, unsigned int nr_mb,
		     const struct gsp_select_grid *grid,
		     struct gsp_select_set *out, char *err, size_t errlen);
/* Frees what gsp_csv_read_set() allocated, and zeroes @set. */
void gsp_csv_free_set(struct gsp_select_set *set);

/* features-real.csv "name,l1_hit,...,insts": real kernels' profiles. */
struct gsp_csv_profiles {
	struct gsp_csv_names names;
	double (*features)[GSP_SELECT_FEATURES];	/* [names.nr] */
};

int gsp_csv_read_profiles(FILE *f, struct gsp_csv_profiles *out, char *err,
			  size_t errlen);
void gsp_csv_free_profiles(struct gsp_csv_profiles *p);

/*
 * The real pairs' measured tables, "lc,be,n,k,lc_ratio,be_rate" with the
 * workloads' names: pairs in the order of their first row, each with
 * every cell of @grid exactly once. be_rate is in the unit of the
 * micro-benchmark tables (corun.cu: a fraction of the BE's rate alone).
 */
struct gsp_csv_pairs {
	unsigned int nr;
	struct gsp_select_grid grid;
	char (*lc)[GSP_CSV_NAME_MAX];
	char (*be)[GSP_CSV_NAME_MAX];
	struct gsp_search_pred *measured;	/* [nr * cells] */
};

int gsp_csv_read_pairs(FILE *f, const struct gsp_select_grid *grid,
		       struct gsp_csv_pairs *out, char *err, size_t errlen);
void gsp_csv_free_pairs(struct gsp_csv_pairs *p);

#endif /* GSP_SELECT_CSV_H */
