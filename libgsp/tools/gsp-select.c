// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-select: G-Space's initial selection (libgsp/search/select.h) on
 * measured data. Loads a micro-benchmark set (bench/gpu/corun.cu's
 * tables, bench/gpu/profile.sh's features), the real workloads' profiles
 * and the real pairs' measured tables, trains LR, and for each real pair
 * prints NN's and LR's pick at --q against what was measured there, with
 * gsp_select_error()'s mean relative errors per model.
 *
 *   gsp-select --set DIR --profiles DIR --pairs FILE --q Q --gpu NAME
 *              [--out FILE] [--model-out FILE] [--grid N,K,NSTEP,KSTEP]
 *
 *   --set DIR       corun's folder: instances.csv, tables.csv
 *   --profiles DIR  profile.sh's folder: instances.csv (the same as the
 *                   set's), features.csv, features-real.csv
 *   --pairs FILE    the real pairs' tables, lc,be,n,k,lc_ratio,be_rate
 *                   with the workloads' names; be_rate as corun's, a
 *                   fraction of the BE's rate alone
 *   --q Q           the QoS target of the picks (LC ratio <= Q)
 *   --gpu NAME      the GPU the data is from, predict.csv's gpu column
 *   --out FILE      predict.csv (default predict.csv):
 *                   pair,model,predicted,measured,gpu; pair is LC_BE
 *                   (the two names joined by '_'), model one of nn_lc,
 *                   nn_be, lr_lc, lr_be: the model's LC ratio or BE rate
 *                   at the cell it picks, and what was measured there
 *   --model-out FILE  per real pair, the table of the micro pair NN
 *                   picks, as lc,be,n,k,lc_ratio,be_rate with the real
 *                   names: the model the online search loads
 *   --grid          the search's grid (default 132,8,12,1: 88 cells)
 *
 * Stdout: a line per pair and model (the pick, the prediction, the
 * measurement, and the measured best cell), then "summary" lines.
 * Exit status: 0, 1 for data that cannot be used, 2 for bad usage.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsp_version.h"
#include "select.h"
#include "select_csv.h"

#define ERRLEN	512

struct opts {
	const char *set, *profiles, *pairs, *gpu, *out, *model_out;
	double q;
	struct gsp_select_grid grid;
};

struct data {
	struct gsp_csv_names inst;
	struct gsp_select_set set;
	struct gsp_csv_profiles real;
	struct gsp_csv_pairs pairs;
	struct gsp_select_pair *sel;	/* [pairs.nr] */
	struct gsp_select_lr lr;
};

static void bad_usage(const char *fmt, ...)
{
	va_list ap;

	if (fmt) {
		fprintf(stderr, "gsp-select: ");
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, "\n");
	}
	fprintf(stderr,
		"usage: gsp-select --set DIR --profiles DIR --pairs FILE --q Q --gpu NAME\n"
		"                  [--out FILE] [--model-out FILE] [--grid N,K,NSTEP,KSTEP]\n"
		"       gsp-select --version | --help\n"
		"  --version  print 'gsp-select VERSION' and exit\n"
		"  (the comment at the top of gsp-select.c says what each is)\n");
	exit(fmt ? 2 : 0);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gsp-select: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(1);
}

static void parse(int argc, char **argv, struct opts *o)
{
	unsigned int g[4];
	char *end;
	int i, used;

	*o = (struct opts){ .out = "predict.csv", .q = NAN,
			    .grid = { 132, 8, 12, 1 } };
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = argv[i + 1];

		if (!strcmp(a, "--help") || !strcmp(a, "-h"))
			bad_usage(NULL);
		if (!strcmp(a, "--version")) {
			printf("gsp-select %s\n", GSP_VERSION);
			exit(0);
		}
		if (strncmp(a, "--", 2))
			bad_usage("'%s' is not an option; every value follows its option",
			      a);
		if (!v)
			bad_usage("%s needs a value", a);
		i++;
		if (!strcmp(a, "--set"))
			o->set = v;
		else if (!strcmp(a, "--profiles"))
			o->profiles = v;
		else if (!strcmp(a, "--pairs"))
			o->pairs = v;
		else if (!strcmp(a, "--gpu"))
			o->gpu = v;
		else if (!strcmp(a, "--out"))
			o->out = v;
		else if (!strcmp(a, "--model-out"))
			o->model_out = v;
		else if (!strcmp(a, "--q")) {
			o->q = strtod(v, &end);
			if (end == v || *end || !isfinite(o->q) || !(o->q > 0))
				bad_usage("--q needs a number above 0 (an LC ratio, as 1.5), got '%s'",
				      v);
		} else if (!strcmp(a, "--grid")) {
			used = -1;
			if (sscanf(v, "%u,%u,%u,%u%n", &g[0], &g[1], &g[2],
				   &g[3], &used) != 4 || used != (int)strlen(v) ||
			    strchr(v, '-'))
				bad_usage("--grid needs N,K,NSTEP,KSTEP, as 132,8,12,1; got '%s'",
				      v);
			o->grid = (struct gsp_select_grid){ g[0], g[1], g[2],
							    g[3] };
			if (!gsp_select_cells(&o->grid))
				bad_usage("--grid %s is not a grid: N 1..%d, K 1..%d, 1 <= NSTEP <= N, 1 <= KSTEP <= K",
				      v, GSP_SEARCH_MAX_N, GSP_SEARCH_MAX_K);
		} else {
			bad_usage("unknown option '%s'", a);
		}
	}
	if (!o->set || !o->profiles || !o->pairs)
		bad_usage("--set, --profiles and --pairs are all required");
	if (isnan(o->q))
		bad_usage("--q is required: the QoS target of the picks");
	if (!o->gpu || !gsp_csv_name_ok(o->gpu))
		bad_usage("--gpu NAME is required, 1..%d of [A-Za-z0-9_.:+-] (it fills predict.csv's gpu column)",
		      GSP_CSV_NAME_MAX - 1);
}

static FILE *open_in(const char *dir, const char *file)
{
	char path[4096];
	FILE *f;

	if (dir)
		snprintf(path, sizeof(path), "%s/%s", dir, file);
	else
		snprintf(path, sizeof(path), "%s", file);
	f = fopen(path, "r");
	if (!f)
		die("cannot read %s: %s", path, strerror(errno));
	return f;
}

static void check(int rc, const char *path, const char *err)
{
	if (rc == -ENOMEM)
		die("out of memory");
	if (rc)
		die("%s: %s", path, *err ? err : strerror(-rc));
}

/* Every file, read and cross-checked. */
static void load(const struct opts *o, struct data *d)
{
	struct gsp_csv_names pi;
	char err[ERRLEN];
	unsigned int i, j, cells = gsp_select_cells(&o->grid);
	FILE *f, *t;

	f = open_in(o->set, "instances.csv");
	check(gsp_csv_read_instances(f, &d->inst, err, sizeof(err)), o->set,
	      err);
	fclose(f);
	f = open_in(o->profiles, "instances.csv");
	check(gsp_csv_read_instances(f, &pi, err, sizeof(err)), o->profiles,
	      err);
	fclose(f);
	for (i = 0; i < d->inst.nr && i < pi.nr; i++)
		if (strcmp(d->inst.name[i], pi.name[i]))
			break;
	if (i < d->inst.nr || i < pi.nr)
		die("the set's and the profiles' instances.csv differ (mb %u): profile and measure the same instances",
		    i);
	gsp_csv_free_names(&pi);
	f = open_in(o->profiles, "features.csv");
	t = open_in(o->set, "tables.csv");
	check(gsp_csv_read_set(f, t, d->inst.nr, &o->grid, &d->set, err,
			       sizeof(err)), "the set", err);
	fclose(f);
	fclose(t);
	f = open_in(o->profiles, "features-real.csv");
	check(gsp_csv_read_profiles(f, &d->real, err, sizeof(err)),
	      o->profiles, err);
	fclose(f);
	f = open_in(NULL, o->pairs);
	check(gsp_csv_read_pairs(f, &o->grid, &d->pairs, err, sizeof(err)),
	      o->pairs, err);
	fclose(f);
	d->sel = calloc(d->pairs.nr, sizeof(*d->sel));
	if (!d->sel)
		die("out of memory");
	for (i = 0; i < d->pairs.nr; i++) {
		const char *lc = d->pairs.lc[i], *be = d->pairs.be[i];
		int found = 0;

		for (j = 0; j < d->real.names.nr; j++) {
			if (!strcmp(d->real.names.name[j], lc)) {
				memcpy(d->sel[i].lc, d->real.features[j],
				       sizeof(d->sel[i].lc));
				found |= 1;
			}
			if (!strcmp(d->real.names.name[j], be)) {
				memcpy(d->sel[i].be, d->real.features[j],
				       sizeof(d->sel[i].be));
				found |= 2;
			}
		}
		if (found != 3)
			die("pair %s,%s: features-real.csv has no profile of %s",
			    lc, be, found & 1 ? be : lc);
		d->sel[i].measured = d->pairs.measured + (size_t)i * cells;
	}
	if (gsp_select_lr_train(&d->set, &d->lr))
		die("LR cannot be trained on this set");
}

/* The cell of the greatest measured BE rate among those at most q. */
static unsigned int oracle(const struct gsp_search_pred *m, unsigned int cells,
			   double q)
{
	unsigned int c, best = 0;

	for (c = 1; c < cells; c++)
		if (gsp_search_prefer(q, 0, m[c].lc_ratio, m[c].be_rate,
				      m[best].lc_ratio, m[best].be_rate) > 0)
			best = c;
	return best;
}

static void predict(const struct opts *o, const struct data *d, FILE *out,
		    FILE *model)
{
	static const char *const mname[] = { "nn", "lr" };
	unsigned int i, c, cells = gsp_select_cells(&o->grid);
	const struct gsp_search_pred *ms;
	struct gsp_select_model b;
	struct gsp_search_pred p, mp;
	struct gsp_cell pick, best;
	int m, idx;

	fprintf(out, "pair,model,predicted,measured,gpu\n");
	if (model)
		fprintf(model, "lc,be,n,k,lc_ratio,be_rate\n");
	for (i = 0; i < d->pairs.nr; i++) {
		ms = d->sel[i].measured;
		best = gsp_grid_cell(o->grid.n_max, o->grid.k_max,
				     o->grid.n_step, o->grid.k_step,
				     oracle(ms, cells, o->q));
		for (m = GSP_SELECT_NN; m <= GSP_SELECT_LR; m++) {
			if (gsp_select_bind(m, &d->set, &d->lr, d->sel[i].lc,
					    d->sel[i].be, &b) ||
			    gsp_select_pick(&b, o->q, &pick, &p))
				die("pair %s,%s: %s has no pick", d->pairs.lc[i],
				    d->pairs.be[i], mname[m]);
			idx = gsp_select_cell_index(&o->grid, pick);
			mp = ms[idx];
			printf("%s_%s %s pick (%u, %u)", d->pairs.lc[i],
			       d->pairs.be[i], mname[m], pick.n, pick.k);
			if (m == GSP_SELECT_NN)
				printf(" micro %s,%s", d->inst.name[b.lc_mb],
				       d->inst.name[b.be_mb]);
			printf(" lc %.5g (measured %.5g) be %.5g (measured %.5g); measured best (%u, %u)\n",
			       p.lc_ratio, mp.lc_ratio, p.be_rate, mp.be_rate,
			       best.n, best.k);
			fprintf(out, "%s_%s,%s_lc,%.6g,%.6g,%s\n",
				d->pairs.lc[i], d->pairs.be[i], mname[m],
				p.lc_ratio, mp.lc_ratio, o->gpu);
			fprintf(out, "%s_%s,%s_be,%.6g,%.6g,%s\n",
				d->pairs.lc[i], d->pairs.be[i], mname[m],
				p.be_rate, mp.be_rate, o->gpu);
			if (!model || m != GSP_SELECT_NN)
				continue;
			for (c = 0; c < cells; c++) {
				pick = gsp_grid_cell(o->grid.n_max,
						     o->grid.k_max,
						     o->grid.n_step,
						     o->grid.k_step, c);
				fprintf(model, "%s,%s,%u,%u,%.6g,%.6g\n",
					d->pairs.lc[i], d->pairs.be[i], pick.n,
					pick.k, b.table[c].lc_ratio,
					b.table[c].be_rate);
			}
		}
	}
}

static void print_summary(const struct opts *o, const struct data *d)
{
	static const char *const mname[] = { "nn", "lr" };
	struct gsp_select_err e;
	int m;

	for (m = GSP_SELECT_NN; m <= GSP_SELECT_LR; m++) {
		if (gsp_select_error(m, &d->set, &d->lr, d->sel, d->pairs.nr,
				     o->q, &e))
			die("%s's errors cannot be computed", mname[m]);
		printf("summary model=%s pairs=%u q=%g gpu=%s lc_pick=%.4f be_pick=%.4f lc_all=%.4f be_all=%.4f\n",
		       mname[m], d->pairs.nr, o->q, o->gpu, e.lc_pick,
		       e.be_pick, e.lc_all, e.be_all);
	}
}

static FILE *open_out(const char *path)
{
	FILE *f = fopen(path, "w");

	if (!f)
		die("cannot write %s: %s", path, strerror(errno));
	return f;
}

static void close_out(FILE *f, const char *path)
{
	if (ferror(f) | fclose(f))
		die("writing %s failed", path);
}

int main(int argc, char **argv)
{
	struct data d;
	struct opts o;
	FILE *out, *model = NULL;

	parse(argc, argv, &o);
	memset(&d, 0, sizeof(d));
	load(&o, &d);
	out = open_out(o.out);
	if (o.model_out)
		model = open_out(o.model_out);
	predict(&o, &d, out, model);
	print_summary(&o, &d);
	close_out(out, o.out);
	if (model)
		close_out(model, o.model_out);
	free(d.sel);
	gsp_csv_free_pairs(&d.pairs);
	gsp_csv_free_profiles(&d.real);
	gsp_csv_free_set(&d.set);
	gsp_csv_free_names(&d.inst);
	return 0;
}
