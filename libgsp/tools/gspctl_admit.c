// SPDX-License-Identifier: GPL-2.0
/*
 * gspctl predict and gspctl admit: the Prophet predictor (libgsp/admit)
 * on solo traces (Documentation/admission.rst). Offline: they read
 * files and print; no arbiter, no socket, no GPU.
 *
 * Exit status: 0 done (admit: k >= 1 admitted), 1 a file could not be
 * read or the prediction failed, 2 bad usage, 3 (admit) not even one
 * batch instance meets the target.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gspctl_admit.h"
#include "prophet.h"

enum { EXIT_FAIL = 1, EXIT_USAGE = 2, EXIT_NONE = 3 };

#define ERR_MAX		512
#define CAP_US_DEFAULT	100000.0	/* the paper's 100 ms */

static const char predict_usage[] =
"usage: gspctl predict --hw HW.csv --lc LC.csv [--be BE.csv [--k N]]\n"
"                      [--model fluid|fluid2|sequential] [--be-pes P] [--skip N]\n"
"  prints lc_solo_us= lc_mean_us= lc_p95_us= be_tasks_per_s= be_iters_per_s=\n"
"  --k N        batch instances of BE.csv, 0..64 (default 1)\n"
"  --be-pes P   each batch instance uses at most P SMs (fluid only)\n"
"  --skip N     the LC's first N queries (its set-up) left out (default 1)\n";

static const char admit_usage[] =
"usage: gspctl admit --hw HW.csv --lc LC.csv --be BE.csv\n"
"                    [--q Q | --target-us US] [--cap-us US] [--kmax K]\n"
"                    [--model fluid|fluid2|sequential] [--be-pes P] [--skip N]\n"
"  prints k= lc_mean_us= ok= for k = 0..K, then admit k= lc_solo_us= target_us=\n"
"  --q Q          target = Q x the LC's solo mean (default 2)\n"
"  --target-us US an absolute target instead\n"
"  --cap-us US    and at most US (default 100000; 0: no cap)\n"
"  --kmax K       batch instances tried, 0..64 (default 15)\n"
"  --skip N       the LC's first N queries (its set-up) left out (default 1)\n"
"  exit 0: k >= 1 admitted, 3: not even one instance, 2: bad usage\n";

struct opts {
	const char *cmd, *usage;
	const char *hw, *lc, *be;
	unsigned long k, kmax, be_pes, skip;
	int have_k, have_q, have_target;
	double q, target_us, cap_us;
	struct gsp_prophet_cfg cfg;
};

static void usage_error(const struct opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void usage_error(const struct opts *o, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "gspctl %s: ", o->cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n\n", stderr);
	fputs(o->usage, stderr);
	exit(EXIT_USAGE);
}

static unsigned long parse_uint(const struct opts *o, const char *opt,
				const char *s, unsigned long max)
{
	unsigned long v = 0;
	const char *p;

	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9' ||
		    v > (max - (unsigned long)(*p - '0')) / 10)
			break;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (!*s || *p)
		usage_error(o, "%s takes an integer in 0..%lu, not '%s'", opt,
			    max, s);
	return v;
}

static double parse_pos(const struct opts *o, const char *opt,
			const char *s, int zero_ok)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (!*s || *end || errno || !isfinite(v) || v < 0 ||
	    (!zero_ok && v == 0) || strpbrk(s, "xXnNiI"))
		usage_error(o, "%s takes a %s number, not '%s'", opt,
			    zero_ok ? "non-negative" : "positive", s);
	return v;
}

static void parse(struct opts *o, int argc, char **argv, int admit)
{
	static const struct option lopts[] = {
		{ "hw", required_argument, NULL, 'H' },
		{ "lc", required_argument, NULL, 'L' },
		{ "be", required_argument, NULL, 'B' },
		{ "k", required_argument, NULL, 'k' },
		{ "kmax", required_argument, NULL, 'K' },
		{ "q", required_argument, NULL, 'q' },
		{ "target-us", required_argument, NULL, 't' },
		{ "cap-us", required_argument, NULL, 'c' },
		{ "model", required_argument, NULL, 'm' },
		{ "be-pes", required_argument, NULL, 'p' },
		{ "skip", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c, li;

	o->cmd = argv[0];
	o->usage = admit ? admit_usage : predict_usage;
	o->k = 1;
	o->skip = 1;
	o->kmax = GSP_PROPHET_KMAX;
	o->q = 2;
	o->cap_us = CAP_US_DEFAULT;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":h", lopts, &li)) != -1) {
		/* each command takes only its own options */
		if ((!admit && strchr("Kqtc", c)) || (admit && c == 'k'))
			usage_error(o, "--%s is not an option of %s",
				    lopts[li].name, o->cmd);
		switch (c) {
		case 'H':
			o->hw = optarg;
			break;
		case 'L':
			o->lc = optarg;
			break;
		case 'B':
			o->be = optarg;
			break;
		case 'k':
			o->k = parse_uint(o, "--k", optarg, GSP_PROPHET_MAX_BE);
			o->have_k = 1;
			break;
		case 'K':
			o->kmax = parse_uint(o, "--kmax", optarg,
					     GSP_PROPHET_MAX_BE);
			break;
		case 'q':
			o->q = parse_pos(o, "--q", optarg, 0);
			o->have_q = 1;
			break;
		case 't':
			o->target_us = parse_pos(o, "--target-us", optarg, 0);
			o->have_target = 1;
			break;
		case 'c':
			o->cap_us = parse_pos(o, "--cap-us", optarg, 1);
			break;
		case 'm':
			if (!strcmp(optarg, "fluid"))
				o->cfg.model = GSP_PROPHET_FLUID;
			else if (!strcmp(optarg, "sequential"))
				o->cfg.model = GSP_PROPHET_SEQUENTIAL;
			else if (!strcmp(optarg, "fluid2"))
				o->cfg.model = GSP_PROPHET_FLUID2;
			else
				usage_error(o, "--model takes fluid, fluid2 or sequential, not '%s'",
					    optarg);
			o->cfg.query_ns = o->cfg.model == GSP_PROPHET_FLUID2 ?
					  GSP_PROPHET_FLUID2_QUERY_NS : 0;
			break;
		case 'p':
			o->be_pes = parse_uint(o, "--be-pes", optarg,
					       UINT32_MAX);
			if (!o->be_pes)
				usage_error(o, "--be-pes takes at least 1 SM");
			break;
		case 's':
			o->skip = parse_uint(o, "--skip", optarg, UINT32_MAX);
			break;
		case 'h':
			fputs(o->usage, stdout);
			exit(0);
		case ':':
			usage_error(o, "%s needs a value", argv[optind - 1]);
		default:
			usage_error(o, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind != argc)
		usage_error(o, "unexpected argument '%s'", argv[optind]);
	if (!o->hw || !o->lc)
		usage_error(o, "--hw and --lc are required");
	if (admit && !o->be)
		usage_error(o, "--be is required: the batch trace to admit");
	if (!admit && o->have_k && !o->be)
		usage_error(o, "--k needs --be");
	if (o->have_q && o->have_target)
		usage_error(o, "give --q or --target-us, not both");
	if (o->be_pes && o->cfg.model == GSP_PROPHET_SEQUENTIAL)
		usage_error(o, "--be-pes needs the fluid model");
	o->cfg.be_pes = (uint32_t)o->be_pes;
	o->cfg.skip = (uint32_t)o->skip;
}

/* The machine and the traces, or a message and EXIT_FAIL. */
static int load(const struct opts *o, struct gsp_hw *hw,
		struct gsp_trace *lc, struct gsp_trace *be)
{
	char err[ERR_MAX] = "";
	int rc;

	memset(lc, 0, sizeof(*lc));
	memset(be, 0, sizeof(*be));
	rc = gsp_hw_load(o->hw, hw, err, sizeof(err));
	if (!rc && o->be_pes > hw->sms) {
		fprintf(stderr, "gspctl %s: --be-pes %lu is more than the %u SMs of %s\n",
			o->cmd, o->be_pes, hw->sms, o->hw);
		return EXIT_USAGE;
	}
	if (!rc)
		rc = gsp_trace_load(o->lc, hw, lc, err, sizeof(err));
	if (!rc && o->be)
		rc = gsp_trace_load(o->be, hw, be, err, sizeof(err));
	if (!rc && o->skip >= lc->nqueries) {
		fprintf(stderr, "gspctl %s: --skip %lu leaves none of the %zu queries of %s\n",
			o->cmd, o->skip, lc->nqueries, o->lc);
		gsp_trace_free(lc);
		gsp_trace_free(be);
		return EXIT_USAGE;
	}
	if (!rc)
		return 0;
	gsp_trace_free(lc);
	fprintf(stderr, "gspctl %s: %s\n", o->cmd,
		err[0] ? err : strerror(rc == INT_MIN ? INT_MAX : -rc));
	return EXIT_FAIL;
}

static int predict_failed(const struct opts *o, int rc)
{
	fprintf(stderr, "gspctl %s: the prediction failed: %s\n", o->cmd,
		rc == -EDOM ? "the simulation's causality check (a bug)" :
		strerror(rc == INT_MIN ? INT_MAX : -rc));
	return EXIT_FAIL;
}

int gspctl_predict(int argc, char **argv)
{
	const struct gsp_trace *list[GSP_PROPHET_MAX_BE];
	struct opts o = { 0 };
	struct gsp_prophet_result r;
	struct gsp_trace lc, be;
	struct gsp_hw hw;
	unsigned int i, n;
	int rc;

	parse(&o, argc, argv, 0);
	rc = load(&o, &hw, &lc, &be);
	if (rc)
		return rc;
	n = o.be ? (unsigned int)o.k : 0;
	for (i = 0; i < n; i++)
		list[i] = &be;
	rc = gsp_prophet_predict(&hw, &lc, list, n, &o.cfg, &r);
	gsp_trace_free(&lc);
	gsp_trace_free(&be);
	if (rc)
		return predict_failed(&o, rc);
	printf("lc_solo_us=%.3f lc_mean_us=%.3f lc_p95_us=%.3f be_tasks_per_s=%.3f be_iters_per_s=%.3f\n",
	       r.lc_solo_mean_ns / 1e3, r.lc_mean_ns / 1e3, r.lc_p95_ns / 1e3,
	       r.be_tasks_per_s, r.be_iters_per_s);
	gsp_prophet_result_free(&r);
	return 0;
}

int gspctl_admit(int argc, char **argv)
{
	struct gsp_prophet_admission *ad;
	struct gsp_prophet_target tg;
	struct opts o = { 0 };
	struct gsp_trace lc, be;
	struct gsp_hw hw;
	unsigned int k;
	int rc;

	parse(&o, argc, argv, 1);
	tg.q = o.have_target ? 0 : o.q;
	tg.target_ns = o.have_target ? o.target_us * 1e3 : 0;
	tg.cap_ns = o.cap_us * 1e3;
	rc = load(&o, &hw, &lc, &be);
	if (rc)
		return rc;
	ad = malloc(sizeof(*ad));
	rc = ad ? gsp_prophet_admit(&hw, &lc, &be, (unsigned int)o.kmax, &tg,
				    &o.cfg, ad) : -ENOMEM;
	gsp_trace_free(&lc);
	gsp_trace_free(&be);
	if (rc) {
		free(ad);
		return predict_failed(&o, rc);
	}
	for (k = 0; k <= ad->kmax; k++)
		printf("k=%u lc_mean_us=%.3f ok=%d\n", k,
		       ad->lc_mean_ns[k] / 1e3, ad->ok[k]);
	printf("admit k=%d lc_solo_us=%.3f target_us=%.3f\n", ad->k,
	       ad->lc_solo_ns / 1e3, ad->target_ns / 1e3);
	rc = ad->k >= 1 ? 0 : EXIT_NONE;
	free(ad);
	return rc;
}
