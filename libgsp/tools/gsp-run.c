// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * gsp-run: runs an unmodified CUDA program as one tenant of the gspace
 * arbiter, with libgsp_preload.so in LD_PRELOAD and its settings in the
 * environment (Documentation/interposer.rst); with --drm, a DRM program
 * (nouveau GL or Vulkan) with libgsp_drmshim.so instead
 * (Documentation/drm.rst).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gsp.h>

#include "gsp_paths.h"
#include "gsp_version.h"
#include "gspd_proto.h"
#include "libgsp_internal.h"
#include "prophet.h"

#define EXIT_USAGE 2
#define EXIT_REFUSED 3	/* --admit refuse: the prediction broke the target */
#define EXIT_NO_ARBITER 4	/* nothing would schedule the program */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gsp-run [--class be|lc] [--weight N] [--lc-target-us N] [--device N]\n"
		"               [--arbiter kernel|daemon|auto] [--socket PATH] [--quantum-us N]\n"
		"               [--spatial|--no-spatial] [--no-green] [--no-lc-priority]\n"
		"               [--no-gate] [--fail-open] [--drm]\n"
		"               [--admit refuse|idle --admit-hw HW.csv\n"
"               --admit-lc LC.csv --admit-be BE.csv [--admit-k K] [--admit-q Q]]\n"
"               -- PROGRAM [ARGS...]\n"
"       gsp-run --version | --help\n"
		"  --class        be (default) or lc\n"
		"  --weight       1..10000 (default 100)\n"
		"  --lc-target-us LC latency target, 0..3600000000 (lc only)\n"
		"  --device       arbiter device, 0..15 (default 0)\n"
		"  --arbiter      kernel (/dev/gspace), daemon (gspaced) or auto (default)\n"
		"  --socket       gspaced's socket\n"
		"  --quantum-us   BE lease length, 10..10000000 (default: auto, 2000 to\n"
		"                 5000 by the tenants waiting; see gsp-run(1))\n"
		"  --spatial      be only: kernels become persistent and yield SM slots\n"
		"                 to LC work (default: when the board has a partition)\n"
		"  --no-spatial   kernels run unchanged; BE waits for LC work instead\n"
		"  --no-green     be only: spatial kernels that cannot be transformed wait\n"
		"                 for LC work instead of running on the SMs it leaves\n"
		"  --no-lc-priority\n"
		"                 lc only: leave the program's stream priorities alone\n"
		"                 (default: its streams and its kernels on the default\n"
		"                 stream run at the device's greatest priority)\n"
		"  --no-gate      load the interposer but pass every call through\n"
		"  --fail-open    run the program unscheduled when no arbiter answers\n"
		"                 or it is lost (default: exit 4 before the program\n"
		"                 starts; GPU work fails if the arbiter refuses it)\n"
		"  --drm          a DRM program (nouveau: GL through nvc0, Vulkan\n"
		"                 through NVK): its submit ioctls go through\n"
		"                 /dev/gspace (libgsp_drmshim.so; gspace.ko and\n"
		"                 gspace_drm.ko only); with --fail-open they go to\n"
		"                 the driver unscheduled when gspace cannot take them\n"
		"  --admit        be only: before the program starts, predict the LC's\n"
		"                 mean latency beside K instances of this BE from solo\n"
		"                 traces (Prophet, Documentation/admission.rst); if it\n"
		"                 breaks min(Q x solo, 100 ms): refuse exits 3, idle runs\n"
		"                 the program as --no-spatial (only while the LC is idle)\n"
		"  --admit-hw, --admit-lc, --admit-be\n"
		"                 hw.csv and the LC's and this BE's gsp-trace files;\n"
		"                 without --admit-hw and --admit-lc gspaced answers,\n"
		"                 from its admit_hw and admit_lc and the BEs at work\n"
		"  --admit-k      BE instances beside the LC, this one counted, 1..64\n"
		"                 (default 1; with gspaced answering, it counts)\n"
		"  --admit-q      the target over the LC's solo mean (default 2;\n"
		"                 gspaced's admit_q when it answers)\n"
		"  --version      print 'gsp-run VERSION' and exit\n");
}

static int die_usage(const char *fmt, const char *a, const char *b)
{
	fprintf(stderr, "gsp-run: ");
	fprintf(stderr, fmt, a, b);
	fprintf(stderr, "; see gsp-run --help\n");
	return EXIT_USAGE;
}

/* Decimal in [lo, hi], nothing else. */
static int parse_num(const char *s, unsigned long long lo,
		     unsigned long long hi)
{
	unsigned long long v;
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	return *end || errno || v < lo || v > hi ? -1 : 0;
}

/*
 * 1 if @dir/@sub followed by @lib is readable (@sub: "" or "NAME/"); the
 * path in @out.
 */
static int preload_in(char *out, size_t n, const char *dir, const char *sub,
		      const char *lib)
{
	return snprintf(out, n, "%s/%s%s", dir, sub, lib) < (int)n &&
	       !access(out, R_OK);
}

/*
 * $(dirname /proc/self/exe)/lib/ (the build tree), then ../lib/gspace/
 * and ../lib/, then GSP_LIBDIR/gspace/ and GSP_LIBDIR/ (installed: make
 * install puts it in $(LIBDIR), which mk/install.mk gives us).
 */
static int find_preload(char *out, size_t n, const char *lib)
{
	static const char *const by_exe[] = { "lib/", "../lib/gspace/", "../lib/" };
	static const char *const by_libdir[] = { "gspace/", "" };
	char exe[PATH_MAX - 64];	/* room for the suffixes above */
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	char *slash = NULL;
	size_t i;

	if (len > 0) {
		exe[len] = 0;
		slash = strrchr(exe, '/');
	}
	if (slash) {
		*slash = 0;
		for (i = 0; i < sizeof(by_exe) / sizeof(by_exe[0]); i++)
			if (preload_in(out, n, exe, by_exe[i], lib))
				return 0;
	}
	/* where make install put it: LIBDIR, as it was at build time */
	for (i = 0; i < sizeof(by_libdir) / sizeof(by_libdir[0]); i++)
		if (preload_in(out, n, GSP_LIBDIR, by_libdir[i], lib))
			return 0;
	return -1;
}

struct admit_req {
	const char *mode, *hw, *lc, *be;	/* mode NULL: no admission */
	unsigned int k;
	double q;
	bool k_given, q_given;
};

/*
 * Prophet's answer for @r: 0 admitted, 1 not, -1 the traces could not be
 * used (said why). The LC's first query is its set-up, left out as
 * gspctl admit does by default.
 */
static int admit_check(const struct admit_req *r)
{
	const struct gsp_trace *be[GSP_PROPHET_MAX_BE];
	struct gsp_prophet_cfg cfg = { .model = GSP_PROPHET_FLUID, .skip = 1 };
	/* the paper's rule: min(q x solo, 100 ms) */
	const struct gsp_prophet_target tg = { .q = r->q, .cap_ns = 100e6 };
	struct gsp_trace lc = { 0 }, bt = { 0 };
	struct gsp_prophet_result res;
	char err[512] = "";
	struct gsp_hw hw;
	double target;
	unsigned int i;
	int rc;

	rc = gsp_hw_load(r->hw, &hw, err, sizeof(err));
	if (!rc)
		rc = gsp_trace_load(r->lc, &hw, &lc, err, sizeof(err));
	if (!rc)
		rc = gsp_trace_load(r->be, &hw, &bt, err, sizeof(err));
	if (!rc && lc.nqueries < 2) {
		snprintf(err, sizeof(err), "%s has %zu queries: none is left after its set-up",
			 r->lc, lc.nqueries);
		rc = -EINVAL;
	}
	for (i = 0; !rc && i < r->k; i++)
		be[i] = &bt;
	if (!rc)
		rc = gsp_prophet_predict(&hw, &lc, be, r->k, &cfg, &res);
	gsp_trace_free(&lc);
	gsp_trace_free(&bt);
	if (rc) {
		fprintf(stderr, "gsp-run: --admit: %s\n",
			err[0] ? err : strerror(-rc));
		return -1;
	}
	target = gsp_prophet_target_ns(&tg, res.lc_solo_mean_ns);
	rc = !gsp_prophet_within(res.lc_mean_ns, target);
	fprintf(stderr, "gsp-run: admission: the LC's mean %.1f us predicted beside %u BE (solo %.1f us, target %.1f us): %s\n",
		res.lc_mean_ns / 1e3, r->k, res.lc_solo_mean_ns / 1e3,
		target / 1e3, rc ? "not admitted" : "admitted");
	gsp_prophet_result_free(&res);
	return rc;
}

/* A copy of @path in a memfd sealed for gspaced: the fd, or -1 (said why). */
static int sealed_copy(const char *path)
{
	char buf[65536];
	size_t total = 0;
	ssize_t n;
	int in, fd;

	in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		fprintf(stderr, "gsp-run: --admit-be %s: %s\n", path, strerror(errno));
		return -1;
	}
	fd = memfd_create("gsp-admit", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	while (fd >= 0 && (n = read(in, buf, sizeof(buf))) > 0) {
		total += (size_t)n;
		if (total > GSPD_ADMIT_TRACE_MAX) {
			fprintf(stderr, "gsp-run: --admit-be %s: larger than gspaced reads (%u bytes)\n",
				path, GSPD_ADMIT_TRACE_MAX);
			close(fd);
			fd = -1;
		} else if (write(fd, buf, (size_t)n) != n) {
			close(fd);
			fd = -1;
		}
	}
	if (fd >= 0 && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW |
			     F_SEAL_WRITE | F_SEAL_SEAL)) {
		close(fd);
		fd = -1;
	}
	if (fd < 0 && total <= GSPD_ADMIT_TRACE_MAX)
		fprintf(stderr, "gsp-run: --admit-be %s: cannot copy it for gspaced: %s\n",
			path, strerror(errno));
	close(in);
	return fd;
}

/*
 * The same question, asked of gspaced: it has the LC's trace and hw.csv
 * (admit_lc, admit_hw) and knows how many BEs are at work on @device.
 * 0 admitted, 1 not, -1 it could not be asked (said why).
 */
static int admit_ask(const struct admit_req *r, unsigned int device)
{
	unsigned int k = 0;
	double solo, mean, target;
	char text[512];
	struct gsp *g;
	int fd, err, ok = -1;

	fd = sealed_copy(r->be);
	if (fd < 0)
		return -1;
	err = gsp_open(&g, NULL);
	if (err) {
		fprintf(stderr, "gsp-run: --admit: no arbiter answers (%s); start gspaced, or give --admit-hw and --admit-lc\n",
			strerror(-err));
		close(fd);
		return -1;
	}
	if (strcmp(gsp_arbiter_name(g), "daemon")) {
		fprintf(stderr, "gsp-run: --admit: gspace.ko does not predict; give --admit-hw and --admit-lc\n");
		goto out;
	}
	err = gspd_admit(gspi_conn(g), device, fd, text, sizeof(text));
	if (err) {
		fprintf(stderr, "gsp-run: --admit: gspaced: %s%s%s\n", strerror(-err),
			text[0] ? ": " : "", text);
		goto out;
	}
	if (sscanf(text, "k=%u admitted=%d lc_solo_us=%lf lc_mean_us=%lf target_us=%lf",
		   &k, &ok, &solo, &mean, &target) != 5 || (ok != 0 && ok != 1)) {
		fprintf(stderr, "gsp-run: --admit: gspaced's answer makes no sense: %s\n",
			text);
		ok = -1;
		goto out;
	}
	fprintf(stderr, "gsp-run: admission (gspaced): the LC's mean %.1f us predicted beside %u BE (solo %.1f us, target %.1f us): %s\n",
		mean, k, solo, target, ok ? "admitted" : "not admitted");
out:
	gsp_close(g);
	close(fd);
	return ok < 0 ? -1 : !ok;
}

/* @name is set to exactly "1", as the interposer reads a switch. */
static int env_is_one(const char *name)
{
	const char *v = getenv(name);

	return v && !strcmp(v, "1");
}

/*
 * Does an arbiter answer where the interposer will look for it
 * (GSP_ARBITER, GSP_SOCKET, GSPACE_DEV)? 0 or -errno. Asked before the
 * program starts, so that a program that would be refused its GPU work
 * is not started at all.
 */
static int arbiter_answers(void)
{
	struct gsp *g;
	int err = gsp_open(&g, NULL);

	if (!err)
		gsp_close(g);
	return err;
}

/*
 * For --drm: gspace.ko answers (GSP_ARBITER is kernel by then) and has
 * its drm engine. 0, -EOPNOTSUPP without it, or gsp_open()'s -errno.
 */
static int drm_engine_answers(void)
{
	struct gspace_version v = { .size = sizeof(v) };
	struct gsp *g;
	int err = gsp_open(&g, NULL);

	if (err)
		return err;
	err = gsp_version(g, &v);
	gsp_close(g);
	if (err)
		return err;
	return v.features & GSPACE_FEAT_DRM ? 0 : -EOPNOTSUPP;
}

/* A positive ratio no greater than 1000. */
static int parse_ratio(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return !*s || *end || errno || !(*v > 0 && *v <= 1000) ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "class", required_argument, NULL, 'c' },
		{ "weight", required_argument, NULL, 'w' },
		{ "lc-target-us", required_argument, NULL, 't' },
		{ "device", required_argument, NULL, 'd' },
		{ "arbiter", required_argument, NULL, 'a' },
		{ "socket", required_argument, NULL, 's' },
		{ "quantum-us", required_argument, NULL, 'q' },
		{ "no-gate", no_argument, NULL, 'n' },
		{ "fail-open", no_argument, NULL, 'F' },
		{ "spatial", no_argument, NULL, 'S' },
		{ "no-spatial", no_argument, NULL, 'N' },
		{ "no-green", no_argument, NULL, 'G' },
		{ "no-lc-priority", no_argument, NULL, 'P' },
		{ "admit", required_argument, NULL, 'A' },
		{ "admit-hw", required_argument, NULL, 1 },
		{ "admit-lc", required_argument, NULL, 2 },
		{ "admit-be", required_argument, NULL, 3 },
		{ "admit-k", required_argument, NULL, 4 },
		{ "admit-q", required_argument, NULL, 5 },
		{ "drm", no_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *cls = NULL, *target = NULL, *spatial = NULL;
	struct admit_req adm = { .k = 1, .q = 2 };
	int no_green = 0, no_prio = 0, admit_opts = 0, drm = 0;
	const char *cuda_opt = NULL;	/* the interposer's, not --drm's */
	const char *shlib;
	char lib[PATH_MAX], *pre;
	const char *old;
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			if (strcmp(optarg, "be") && strcmp(optarg, "lc"))
				return die_usage("--class must be be or lc, not '%s'%s",
						 optarg, "");
			cls = optarg;
			setenv("GSP_CLASS", optarg, 1);
			break;
		case 'w':
			if (parse_num(optarg, 1, 10000))
				return die_usage("--weight must be a number in 1..10000, not '%s'%s",
						 optarg, "");
			setenv("GSP_WEIGHT", optarg, 1);
			break;
		case 't':
			if (parse_num(optarg, 0, 3600000000ULL))
				return die_usage("--lc-target-us must be a number in 0..3600000000, not '%s'%s",
						 optarg, "");
			target = optarg;
			setenv("GSP_LC_TARGET_US", optarg, 1);
			break;
		case 'd':
			if (parse_num(optarg, 0, 15))
				return die_usage("--device must be a number in 0..15, not '%s'%s",
						 optarg, "");
			setenv("GSP_DEVICE", optarg, 1);
			break;
		case 'a':
			if (strcmp(optarg, "kernel") && strcmp(optarg, "daemon") &&
			    strcmp(optarg, "auto"))
				return die_usage("--arbiter must be kernel, daemon or auto, not '%s'%s",
						 optarg, "");
			setenv("GSP_ARBITER", optarg, 1);
			break;
		case 's':
			if (!*optarg)
				return die_usage("--socket needs a path%s%s", "", "");
			setenv("GSP_SOCKET", optarg, 1);
			break;
		case 'q':
			if (parse_num(optarg, 10, 10000000))
				return die_usage("--quantum-us must be a number in 10..10000000, not '%s'%s",
						 optarg, "");
			setenv("GSP_QUANTUM_US", optarg, 1);
			cuda_opt = "--quantum-us";
			break;
		case 'n':
			setenv("GSP_DISABLE", "1", 1);
			cuda_opt = "--no-gate";
			break;
		case 'R':
			drm = 1;
			break;
		case 'F':
			setenv("GSP_FAIL_OPEN", "1", 1);
			break;
		case 'S':
		case 'N':
			if (spatial && *spatial != (c == 'S' ? '1' : '0'))
				return die_usage("--spatial and --no-spatial exclude each other%s%s",
						 "", "");
			spatial = c == 'S' ? "1" : "0";
			setenv("GSP_SPATIAL", spatial, 1);
			cuda_opt = c == 'S' ? "--spatial" : "--no-spatial";
			break;
		case 'G':
			no_green = 1;
			setenv("GSP_GREEN", "0", 1);
			cuda_opt = "--no-green";
			break;
		case 'P':
			no_prio = 1;
			setenv("GSP_LC_PRIORITY", "0", 1);
			cuda_opt = "--no-lc-priority";
			break;
		case 'A':
			if (strcmp(optarg, "refuse") && strcmp(optarg, "idle"))
				return die_usage("--admit must be refuse or idle, not '%s'%s",
						 optarg, "");
			adm.mode = optarg;
			break;
		case 1:
			adm.hw = optarg;
			admit_opts = 1;
			break;
		case 2:
			adm.lc = optarg;
			admit_opts = 1;
			break;
		case 3:
			adm.be = optarg;
			admit_opts = 1;
			break;
		case 4:
			if (parse_num(optarg, 1, GSP_PROPHET_MAX_BE))
				return die_usage("--admit-k must be a number in 1..64, not '%s'%s",
						 optarg, "");
			adm.k = (unsigned int)strtoul(optarg, NULL, 10);
			adm.k_given = true;
			admit_opts = 1;
			break;
		case 5:
			if (parse_ratio(optarg, &adm.q))
				return die_usage("--admit-q must be a ratio in (0, 1000] such as 2, not '%s'%s",
						 optarg, "");
			adm.q_given = true;
			admit_opts = 1;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("gsp-run %s\n", GSP_VERSION);
			return 0;
		default:
			fprintf(stderr, "gsp-run: option '%s' is unknown or lacks its value\n",
				argv[optind - 1]);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (target && (!cls || strcmp(cls, "lc")))
		return die_usage("--lc-target-us needs --class lc%s%s", "", "");
	if (spatial && *spatial == '1' && cls && !strcmp(cls, "lc"))
		return die_usage("--spatial is for --class be: LC kernels run unchanged%s%s",
				 "", "");
	if (no_green && cls && !strcmp(cls, "lc"))
		return die_usage("--no-green is for --class be: LC kernels are never confined%s%s",
				 "", "");
	if (no_prio && (!cls || strcmp(cls, "lc")))
		return die_usage("--no-lc-priority is for --class lc: only LC streams get a priority%s%s",
				 "", "");
	if (admit_opts && !adm.mode)
		return die_usage("--admit-hw, --admit-lc, --admit-be, --admit-k and --admit-q need --admit refuse|idle%s%s",
				 "", "");
	if (adm.mode && (!cls || strcmp(cls, "be")))
		return die_usage("--admit is for --class be: it asks whether this BE may run beside the LC%s%s",
				 "", "");
	if (adm.mode && (!adm.be || !adm.hw != !adm.lc))
		return die_usage("--admit needs --admit-be, and --admit-hw and --admit-lc both or neither (neither: gspaced answers)%s%s",
				 "", "");
	if (adm.mode && !adm.hw && (adm.k_given || adm.q_given))
		return die_usage("--admit-k and --admit-q are gspaced's when it answers: drop them, or give --admit-hw and --admit-lc%s%s",
				 "", "");
	if (adm.mode && !strcmp(adm.mode, "idle") && spatial && *spatial == '1')
		return die_usage("--admit idle may run the program as --no-spatial: drop --spatial%s%s",
				 "", "");
	if (drm && cuda_opt)
		return die_usage("%s is for CUDA programs (the interposer), not --drm: drop one of them%s",
				 cuda_opt, "");
	if (drm && adm.mode)
		return die_usage("--admit is for CUDA programs (the interposer), not --drm: drop one of them%s%s",
				 "", "");
	if (drm && getenv("GSP_ARBITER") &&
	    strcmp(getenv("GSP_ARBITER"), "kernel") &&
	    strcmp(getenv("GSP_ARBITER"), "auto"))
		return die_usage("--drm needs gspace.ko (--arbiter kernel or auto): gspaced cannot forward into a kernel driver%s%s",
				 "", "");
	if (optind >= argc)
		return die_usage("no program given: put it after --%s%s", "", "");
	if (drm) {
		/* DRM submissions go through the kernel arbiter or nowhere. */
		setenv("GSP_ARBITER", "kernel", 1);
		if (env_is_one("GSP_FAIL_OPEN"))
			setenv("GSP_DRM_FALLBACK", "1", 1);
	}
	if (adm.mode) {
		const char *dev = getenv("GSP_DEVICE");
		int r = adm.hw ? admit_check(&adm) :
			admit_ask(&adm, dev ? (unsigned int)atoi(dev) : 0);

		if (r < 0)
			return EXIT_USAGE;
		if (r && !strcmp(adm.mode, "refuse")) {
			fprintf(stderr, "gsp-run: %s not started: it would break the LC's target; run it later, with fewer BE, or with --admit idle\n",
				argv[optind]);
			return EXIT_REFUSED;
		}
		if (r)
			setenv("GSP_SPATIAL", "0", 1);
	}
	if (drm && !env_is_one("GSP_FAIL_OPEN")) {
		int err = drm_engine_answers();

		if (err) {
			fprintf(stderr, "gsp-run: %s not started: %s%s%s; load gspace.ko and gspace_drm.ko, or pass --fail-open to run it unscheduled\n",
				argv[optind], err == -EOPNOTSUPP ?
				"gspace.ko has no drm engine (GSPACE_FEAT_DRM)" :
				"gspace.ko does not answer (",
				err == -EOPNOTSUPP ? "" : strerror(-err),
				err == -EOPNOTSUPP ? "" : ")");
			return EXIT_NO_ARBITER;
		}
	} else if (!drm && !env_is_one("GSP_DISABLE") &&
		   !env_is_one("GSP_FAIL_OPEN")) {
		int err = arbiter_answers();

		if (err) {
			fprintf(stderr, "gsp-run: %s not started: no gspace arbiter answers (%s); start gspaced or load gspace.ko (--arbiter, --socket say where), or pass --fail-open to run it unscheduled\n",
				argv[optind], strerror(-err));
			return EXIT_NO_ARBITER;
		}
	}
	shlib = drm ? "libgsp_drmshim.so" : "libgsp_preload.so";
	if (find_preload(lib, sizeof(lib), shlib)) {
		fprintf(stderr, "gsp-run: %s is not in lib/ next to gsp-run, ../lib/gspace/, ../lib/ or %s; rebuild or reinstall gspace\n",
			shlib, GSP_LIBDIR);
		return EXIT_USAGE;
	}
	old = getenv("LD_PRELOAD");
	if (asprintf(&pre, "%s%s%s", lib, old && *old ? ":" : "",
		     old ? old : "") < 0) {
		fprintf(stderr, "gsp-run: out of memory\n");
		return 1;
	}
	setenv("LD_PRELOAD", pre, 1);
	free(pre);
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "gsp-run: cannot run %s: %s\n", argv[optind],
		strerror(errno));
	return 127;
}
