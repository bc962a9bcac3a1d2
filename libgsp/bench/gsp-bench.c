// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-bench: runs a scenario of LC/BE co-location cells on one GPU under
 * each sharing mechanism, and writes CSV and SVG plots into a results
 * folder.
 *
 *   gsp-bench [-o DIR] [-w GSP_WL] [-n] SCENARIO
 *
 * Every cell is one or two gsp-wl processes. They set up, print READY, and
 * get "GO start end" (CLOCK_MONOTONIC ns): the BE starts at once, the LC
 * at 'start' (warmup later); both count only what completes inside the
 * window. MPS cells run under an MPS control daemon that gsp-bench starts
 * with its own pipe and log folders inside the results folder and stops
 * afterwards (also on SIGINT/SIGTERM).
 */
#include "scn.h"
#include "svg.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *outdir, *wl_bin;
static char mps_pipe[PATH_MAX], mps_log[PATH_MAX];
static int mps_up;
static struct scn sc;

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- NVML utilisation sampling (optional, dlopen) ---- */

typedef struct { unsigned int gpu, memory; } nvml_util_t;
static int (*nvml_util)(void *, nvml_util_t *);
static void *nvml_dev;

static void nvml_open(void)
{
	void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
	int (*init)(void);
	int (*get)(unsigned int, void **);

	if (!h) {
		fprintf(stderr, "gsp-bench: NVML not found; utilisation is not sampled\n");
		return;
	}
	init = (int (*)(void))dlsym(h, "nvmlInit_v2");
	get = (int (*)(unsigned int, void **))dlsym(h, "nvmlDeviceGetHandleByIndex_v2");
	nvml_util = (int (*)(void *, nvml_util_t *))dlsym(h, "nvmlDeviceGetUtilizationRates");
	if (!init || !get || !nvml_util || init() || get(0, &nvml_dev)) {
		fprintf(stderr, "gsp-bench: NVML unusable; utilisation is not sampled\n");
		nvml_util = NULL;
	}
}

/* ---- MPS daemon ---- */

static int run_cmd(const char *cmd, const char *input)
{
	FILE *p = popen(cmd, "w");

	if (!p)
		return -1;
	if (input)
		fputs(input, p);
	return pclose(p);
}

static void mps_stop(void)
{
	char cmd[PATH_MAX * 2 + 100];

	if (!mps_up)
		return;
	snprintf(cmd, sizeof(cmd), "CUDA_MPS_PIPE_DIRECTORY='%s' CUDA_MPS_LOG_DIRECTORY='%s' "
		 "nvidia-cuda-mps-control", mps_pipe, mps_log);
	run_cmd(cmd, "quit\n");
	/* the daemon removes its control pipe when it has exited */
	for (int i = 0; i < 100; i++) {
		char ctl[PATH_MAX + 10];

		snprintf(ctl, sizeof(ctl), "%s/control", mps_pipe);
		if (access(ctl, F_OK))
			break;
		usleep(50000);
	}
	mps_up = 0;
	fprintf(stderr, "gsp-bench: MPS control daemon stopped\n");
}

static int mps_start(void)
{
	char cmd[PATH_MAX * 2 + 100];

	snprintf(mps_pipe, sizeof(mps_pipe), "%s/mps/pipe", outdir);
	snprintf(mps_log, sizeof(mps_log), "%s/mps/log", outdir);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s' '%s'", mps_pipe, mps_log);
	if (system(cmd))
		return -1;
	snprintf(cmd, sizeof(cmd), "CUDA_MPS_PIPE_DIRECTORY='%s' CUDA_MPS_LOG_DIRECTORY='%s' "
		 "nvidia-cuda-mps-control -d", mps_pipe, mps_log);
	if (run_cmd(cmd, NULL)) {
		fprintf(stderr, "gsp-bench: could not start nvidia-cuda-mps-control; "
			"MPS cells are skipped\n");
		return -1;
	}
	mps_up = 1;
	fprintf(stderr, "gsp-bench: MPS control daemon started (pipe %s)\n", mps_pipe);
	return 0;
}

static void on_signal(int sig)
{
	mps_stop();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* ---- processes ---- */

struct proc {
	pid_t pid;
	int in, out;
	char buf[8192];
	size_t len;
};

static int proc_start(struct proc *p, char **argv, const char *mps_pct)
{
	int i[2], o[2];

	if (pipe(i) || pipe(o))
		return -1;
	p->len = 0;
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (!p->pid) {
		dup2(i[0], 0);
		dup2(o[1], 1);
		close(i[0]);
		close(i[1]);
		close(o[0]);
		close(o[1]);
		if (mps_up) {
			setenv("CUDA_MPS_PIPE_DIRECTORY", mps_pipe, 1);
			setenv("CUDA_MPS_LOG_DIRECTORY", mps_log, 1);
		}
		if (mps_pct)
			setenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", mps_pct, 1);
		execv(argv[0], argv);
		perror(argv[0]);
		_exit(127);
	}
	close(i[0]);
	close(o[1]);
	p->in = i[1];
	p->out = o[0];
	return 0;
}

/* read until the buffer holds 'what' (or EOF with what == NULL) */
static int proc_wait(struct proc *p, const char *what, double timeout)
{
	double t_end = now_s() + timeout;

	while (1) {
		struct pollfd pf = { p->out, POLLIN, 0 };
		double left = t_end - now_s();
		ssize_t n;

		p->buf[p->len] = 0;
		if (what && strstr(p->buf, what))
			return 0;
		if (left <= 0)
			return -1;
		if (poll(&pf, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		if (p->len + 1 >= sizeof(p->buf))
			return -1;
		n = read(p->out, p->buf + p->len, sizeof(p->buf) - 1 - p->len);
		if (n <= 0)
			return what ? -1 : 0;
		p->len += n;
	}
}

static int proc_end(struct proc *p)
{
	int st = 0;

	close(p->in);
	close(p->out);
	if (waitpid(p->pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static double kv(const char *buf, const char *role, const char *key)
{
	char pat[64];
	const char *l = buf;

	snprintf(pat, sizeof(pat), "RESULT role=%s ", role);
	while ((l = strstr(l, pat))) {
		const char *e = strchr(l, '\n');
		char k[64];
		const char *v;

		snprintf(k, sizeof(k), " %s=", key);
		v = strstr(l, k);
		if (v && (!e || v < e))
			return atof(v + strlen(k));
		l += strlen(pat);
	}
	return NAN;
}

/* ---- cells ---- */

struct res {
	int ok;
	double lc_n, lc_p50, lc_p99, lc_max, be_ups, util;
	long viol;
	char lat[PATH_MAX];
};

static int cell_no, cell_total;

static int run_cell(const char *tag, int mech, const char *be, const char *lc,
		    double xl, double xb, struct res *r, double qthr_us)
{
	char *av[2][32], num[8][32], lat[PATH_MAX], log[PATH_MAX];
	struct proc p[2];
	int np = 0, rc = 0, two = (mech == M_TIMESLICE || mech == M_MPS ||
				  mech == M_MPS_PCT);
	double start, end, usum = 0;
	int un = 0;
	FILE *lf;

	memset(r, 0, sizeof(*r));
	r->lc_p50 = r->lc_p99 = r->lc_max = r->be_ups = r->util = NAN;
	snprintf(lat, sizeof(lat), "%s/lat/%s.txt", outdir, tag);
	snprintf(num[0], 32, "%g", sc.duration);
	snprintf(num[1], 32, "%g", sc.period_ms);
	snprintf(num[2], 32, "%g", xl);
	snprintf(num[3], 32, "%g", xb);
	snprintf(num[4], 32, "%d", sc.depth);
	snprintf(num[5], 32, "%d", sc.green_be_sms);
	snprintf(num[6], 32, "%d", sc.mps_be_pct);
	for (int k = 0; k < 2; k++) {
		int a = 0, want_lc = two ? k == 0 : 1, want_be = two ? k == 1 : 1;

		if (k == 1 && !two)
			break;
		if (!lc)
			want_lc = 0;
		if (!be)
			want_be = 0;
		if (!want_lc && !want_be)
			continue;
		av[np][a++] = (char *)wl_bin;
		av[np][a++] = (char *)"run";
		av[np][a++] = (char *)"--sync";
		av[np][a++] = (char *)"--duration";
		av[np][a++] = num[0];
		av[np][a++] = (char *)"--mech";
		av[np][a++] = (char *)(two || !lc || !be ? "solo" : mech_names[mech]);
		if (want_lc) {
			av[np][a++] = (char *)"--lc";
			av[np][a++] = (char *)lc;
			av[np][a++] = (char *)"--period-ms";
			av[np][a++] = num[1];
			av[np][a++] = (char *)"--xfer-lc";
			av[np][a++] = num[2];
			av[np][a++] = (char *)"--lat-out";
			av[np][a++] = lat;
		}
		if (want_be) {
			av[np][a++] = (char *)"--be";
			av[np][a++] = (char *)be;
			av[np][a++] = (char *)"--xfer-be";
			av[np][a++] = num[3];
			av[np][a++] = (char *)"--depth";
			av[np][a++] = num[4];
			if (sc.green_be_sms) {
				av[np][a++] = (char *)"--green-sms";
				av[np][a++] = num[5];
			}
		}
		av[np][a] = NULL;
		if (proc_start(&p[np], av[np],
			       mech == M_MPS_PCT && want_be ? num[6] : NULL))
			return -1;
		np++;
	}
	for (int k = 0; k < np; k++)
		if (proc_wait(&p[k], "READY\n", 120)) {
			fprintf(stderr, "gsp-bench: %s: a process did not get ready\n", tag);
			rc = -1;
		}
	if (!rc) {
		char go[96];

		start = now_s() + sc.warmup;
		end = start + sc.duration;
		snprintf(go, sizeof(go), "GO %lld %lld\n", (long long)(start * 1e9),
			 (long long)(end * 1e9));
		for (int k = 0; k < np; k++)
			if (write(p[k].in, go, strlen(go)) != (ssize_t)strlen(go))
				rc = -1;
		/* sample utilisation inside the window */
		while (now_s() < end) {
			nvml_util_t u;

			if (now_s() > start && nvml_util && !nvml_util(nvml_dev, &u)) {
				usum += u.gpu;
				un++;
			}
			usleep(50000);
		}
	}
	snprintf(log, sizeof(log), "%s/log/%s.txt", outdir, tag);
	lf = fopen(log, "w");
	for (int k = 0; k < np; k++) {
		int st;

		if (proc_wait(&p[k], NULL, sc.duration + 120))
			rc = -1;
		st = proc_end(&p[k]);
		if (st)
			rc = -1;
		if (lf)
			fprintf(lf, "# process %d exit %d\n%s", k, st, p[k].buf);
		if (lc && !isfinite(r->lc_p50) && isfinite(kv(p[k].buf, "lc", "p50_us"))) {
			r->lc_n = kv(p[k].buf, "lc", "n");
			r->lc_p50 = kv(p[k].buf, "lc", "p50_us");
			r->lc_p99 = kv(p[k].buf, "lc", "p99_us");
			r->lc_max = kv(p[k].buf, "lc", "max_us");
		}
		if (be && !isfinite(r->be_ups))
			r->be_ups = kv(p[k].buf, "be", "units_per_s");
	}
	if (lf)
		fclose(lf);
	r->util = un ? usum / un : NAN;
	if (lc && qthr_us > 0) {
		FILE *f = fopen(lat, "r");
		double v;

		while (f && fscanf(f, "%lf", &v) == 1)
			r->viol += v > qthr_us;
		if (f)
			fclose(f);
	}
	r->ok = !rc && (!lc || isfinite(r->lc_p50)) && (!be || isfinite(r->be_ups));
	return r->ok ? 0 : -1;
}

static void progress(const char *tag, const struct res *r)
{
	cell_no++;
	fprintf(stderr, "[%3d/%d] %-32s %s lc p50 %8.1f us p99 %8.1f us  be %8.2f units/s  util %5.1f%%\n",
		cell_no, cell_total, tag, r->ok ? "ok  " : "FAIL", r->lc_p50,
		r->lc_p99, r->be_ups, r->util);
}

/* ---- solo baselines ---- */

struct solo {
	char wl[SCN_NAME];
	int lc;
	double xfer;
	struct res r;
};

static struct solo solos[2 * SCN_MAXPAIR];
static int nsolo;

static struct solo *solo_find(const char *wl, int lc, double xfer)
{
	for (int i = 0; i < nsolo; i++)
		if (!strcmp(solos[i].wl, wl) && solos[i].lc == lc &&
		    solos[i].xfer == xfer)
			return &solos[i];
	return NULL;
}

static void solo_add(const char *wl, int lc, double xfer)
{
	if (solo_find(wl, lc, xfer))
		return;
	snprintf(solos[nsolo].wl, SCN_NAME, "%s", wl);
	solos[nsolo].lc = lc;
	solos[nsolo].xfer = xfer;
	nsolo++;
}

static void tagname(char *t, size_t n, const char *m, const char *be,
		    const char *lc, double xl, double xb)
{
	char *p;

	snprintf(t, n, "%s_%s_%s_x%g_%g", m, be ? be : "-", lc ? lc : "-", xl, xb);
	for (p = t; *p; p++)
		if (*p == ':' || *p == '/')
			*p = '-';
}

/* ---- scaling ---- */

static int run_scale(FILE *csv)
{
	char sms[256] = "", bps[256] = "", tm[32], *av[12];

	for (int i = 0; i < sc.nsms; i++)
		snprintf(sms + strlen(sms), sizeof(sms) - strlen(sms), "%s%d",
			 i ? "," : "", sc.sms[i]);
	for (int i = 0; i < sc.nbps; i++)
		snprintf(bps + strlen(bps), sizeof(bps) - strlen(bps), "%s%d",
			 i ? "," : "", sc.bps[i]);
	snprintf(tm, sizeof(tm), "%g", sc.scale_time);
	fprintf(csv, "wl,kind,value,got,units_per_s,speedup\n");
	for (int w = 0; w < sc.nscale; w++) {
		struct proc p;
		const char *l;

		av[0] = (char *)wl_bin;
		av[1] = (char *)"scale";
		av[2] = (char *)"--wl";
		av[3] = sc.scale[w];
		av[4] = (char *)"--sms";
		av[5] = sms;
		av[6] = (char *)"--bps";
		av[7] = bps;
		av[8] = (char *)"--time";
		av[9] = tm;
		av[10] = NULL;
		if (proc_start(&p, av, NULL))
			return -1;
		close(p.in);
		p.in = open("/dev/null", O_RDONLY);
		proc_wait(&p, NULL, 600);
		if (proc_end(&p))
			fprintf(stderr, "gsp-bench: scale %s failed\n", sc.scale[w]);
		for (l = p.buf; (l = strstr(l, "SCALE ")); l++) {
			char wl[SCN_NAME], kind[8];
			int v, g;
			double u, s;

			if (sscanf(l, "SCALE wl=%47s kind=%7s value=%d got=%d "
				   "units_per_s=%lf speedup=%lf", wl, kind, &v, &g,
				   &u, &s) == 6)
				fprintf(csv, "%s,%s,%d,%d,%.3f,%.4f\n", wl, kind, v,
					g, u, s);
		}
		fflush(csv);
		fprintf(stderr, "[scale] %s done\n", sc.scale[w]);
	}
	return 0;
}

static void plot_scale(const char *csvpath)
{
	static double xs[2][SCN_MAXWL][SCN_MAXLIST + 2], ys[2][SCN_MAXWL][SCN_MAXLIST + 2];
	int n[2][SCN_MAXWL] = { { 0 } };
	const double *px[SCN_MAXWL], *py[SCN_MAXWL];
	const char *names[SCN_MAXWL];
	char line[512], path[PATH_MAX];
	FILE *f = fopen(csvpath, "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char wl[SCN_NAME], kind[8];
		int v, g;
		double u, s;

		if (sscanf(line, "%47[^,],%7[^,],%d,%d,%lf,%lf", wl, kind, &v, &g,
			   &u, &s) != 6)
			continue;
		for (int w = 0; w < sc.nscale; w++) {
			int k = !strcmp(kind, "bps"), i;

			if (strcmp(sc.scale[w], wl) || n[k][w] >= SCN_MAXLIST + 2)
				continue;
			/* keep the series sorted by the achieved x value */
			for (i = n[k][w]; i > 0 && xs[k][w][i - 1] > g; i--) {
				xs[k][w][i] = xs[k][w][i - 1];
				ys[k][w][i] = ys[k][w][i - 1];
			}
			xs[k][w][i] = g;
			ys[k][w][i] = s;
			n[k][w]++;
		}
	}
	fclose(f);
	for (int k = 0; k < 2; k++) {
		for (int w = 0; w < sc.nscale; w++) {
			px[w] = xs[k][w];
			py[w] = ys[k][w];
			names[w] = sc.scale[w];
		}
		snprintf(path, sizeof(path), "%s/scaling_%s.svg", outdir, k ? "bps" : "sms");
		svg_lines(path, k ? "Solo speedup vs blocks per SM (occupancy limit)" :
			  "Solo speedup vs SMs (green contexts)",
			  k ? "blocks per SM (achieved, occupancy calculator)" :
			  "SMs in the green context", "speedup over full GPU",
			  sc.nscale, names, n[k], px, py);
	}
}

/* rows of a [SCN_MAXPAIR][M_NMECH] table, packed to [npairs][nm] */
static double *pack(double (*t)[M_NMECH], int np, int nm)
{
	static double buf[SCN_MAXPAIR * M_NMECH];

	for (int i = 0; i < np; i++)
		for (int m = 0; m < nm; m++)
			buf[i * nm + m] = t[i][m];
	return buf;
}

/* ---- env file ---- */

static void write_env(int argc, char **argv)
{
	char path[PATH_MAX], cmd[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/env.txt", outdir);
	f = fopen(path, "w");
	if (!f)
		return;
	fprintf(f, "command:");
	for (int i = 0; i < argc; i++)
		fprintf(f, " %s", argv[i]);
	fprintf(f, "\n");
	fclose(f);
	snprintf(cmd, sizeof(cmd), "{ echo '# date'; date -u; echo '# uname'; uname -r; "
		 "echo '# nvidia-smi'; nvidia-smi --query-gpu=name,driver_version,"
		 "memory.total,clocks.max.sm,compute_mode --format=csv 2>&1; "
		 "echo '# nvcc'; ${CUDA_HOME:-/usr/local/cuda}/bin/nvcc --version 2>&1 | tail -2; "
		 "echo '# gsp-wl info'; '%s' info 2>&1; } >> '%s/env.txt'", wl_bin, outdir);
	if (system(cmd))
		fprintf(stderr, "gsp-bench: env.txt may be incomplete\n");
}

static void usage(void)
{
	fprintf(stderr, "usage: gsp-bench [-o DIR] [-w GSP_WL] [-n] SCENARIO\n");
}

int main(int argc, char **argv)
{
	static double lc50[SCN_MAXPAIR][M_NMECH], lc99[SCN_MAXPAIR][M_NMECH],
		bex[SCN_MAXPAIR][M_NMECH], vfrac[SCN_MAXPAIR][M_NMECH];
	static char glabel[SCN_MAXPAIR][2 * SCN_NAME + 2];
	const char *groups[SCN_MAXPAIR], *series[M_NMECH];
	int opt, dry = 0, nm = 0, mlist[M_NMECH], fails = 0;
	char err[512], path[PATH_MAX], self[PATH_MAX], def_out[PATH_MAX];
	FILE *f, *csv;

	while ((opt = getopt(argc, argv, "o:w:nh")) != -1) {
		if (opt == 'o')
			outdir = optarg;
		else if (opt == 'w')
			wl_bin = optarg;
		else if (opt == 'n')
			dry = 1;
		else {
			usage();
			return opt == 'h' ? 0 : 2;
		}
	}
	if (optind != argc - 1) {
		usage();
		return 2;
	}
	f = fopen(argv[optind], "r");
	if (!f) {
		fprintf(stderr, "gsp-bench: %s: %s\n", argv[optind], strerror(errno));
		return 2;
	}
	if (scn_parse(f, argv[optind], &sc, err, sizeof(err))) {
		fprintf(stderr, "gsp-bench: %s\n", err);
		fclose(f);
		return 2;
	}
	fclose(f);
	for (int m = 1; m < M_NMECH; m++)
		if (sc.mechs & (1u << m))
			mlist[nm++] = m;
	/* solo baselines for every LC and BE in the pairs */
	for (int i = 0; i < sc.npairs; i++) {
		solo_add(sc.pairs[i].lc, 1, sc.pairs[i].xfer_lc);
		solo_add(sc.pairs[i].be, 0, sc.pairs[i].xfer_be);
	}
	cell_total = nsolo + sc.npairs * nm;
	if (dry) {
		printf("%d solo cells, %d pairs x %d mechanisms, %d scaling workloads\n",
		       nsolo, sc.npairs, nm, sc.nscale);
		for (int i = 0; i < sc.npairs; i++)
			printf("pair %s %s xfer_lc=%g xfer_be=%g\n", sc.pairs[i].be,
			       sc.pairs[i].lc, sc.pairs[i].xfer_lc, sc.pairs[i].xfer_be);
		return 0;
	}
	if (!wl_bin) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 8);

		if (n <= 0) {
			fprintf(stderr, "gsp-bench: cannot find gsp-wl; use -w\n");
			return 2;
		}
		self[n] = 0;
		strcpy(strrchr(self, '/') + 1, "gsp-wl");
		wl_bin = self;
	}
	if (!outdir) {
		time_t t = time(NULL);
		struct tm tm;

		gmtime_r(&t, &tm);
		strftime(def_out, sizeof(def_out), "gsp-bench-%Y%m%d-%H%M%S", &tm);
		outdir = def_out;
	}
	snprintf(path, sizeof(path), "mkdir -p '%s/lat' '%s/log' && cp '%s' '%s/scenario.scn'",
		 outdir, outdir, argv[optind], outdir);
	if (system(path)) {
		fprintf(stderr, "gsp-bench: cannot create %s\n", outdir);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	atexit(mps_stop);
	write_env(argc, argv);
	nvml_open();

	/* solo */
	snprintf(path, sizeof(path), "%s/solo.csv", outdir);
	csv = fopen(path, "w");
	if (!csv)
		return 1;
	fprintf(csv, "role,wl,xfer,lc_n,lc_p50_us,lc_p99_us,lc_max_us,be_units_per_s,util_pct,status\n");
	for (int i = 0; i < nsolo; i++) {
		struct solo *s = &solos[i];
		char tag[256];

		tagname(tag, sizeof(tag), "solo", s->lc ? NULL : s->wl,
			s->lc ? s->wl : NULL, s->lc ? s->xfer : 0, s->lc ? 0 : s->xfer);
		run_cell(tag, M_SOLO, s->lc ? NULL : s->wl, s->lc ? s->wl : NULL,
			 s->lc ? s->xfer : 0, s->lc ? 0 : s->xfer, &s->r, 0);
		progress(tag, &s->r);
		fails += !s->r.ok;
		fprintf(csv, "%s,%s,%g,%.0f,%.1f,%.1f,%.1f,%.3f,%.1f,%s\n",
			s->lc ? "lc" : "be", s->wl, s->xfer, s->r.lc_n, s->r.lc_p50,
			s->r.lc_p99, s->r.lc_max, s->r.be_ups, s->r.util,
			s->r.ok ? "ok" : "failed");
		fflush(csv);
	}
	fclose(csv);

	/* co-location cells, grouped by mechanism (one MPS daemon per group) */
	snprintf(path, sizeof(path), "%s/results.csv", outdir);
	csv = fopen(path, "w");
	if (!csv)
		return 1;
	fprintf(csv, "mech,be,lc,xfer_lc,xfer_be,lc_n,lc_p50_us,lc_p99_us,lc_max_us,"
		"lc_p50_x,lc_p99_x,lc_max_x,be_units_per_s,be_x,q,qos_threshold_us,"
		"qos_viol,qos_viol_frac,qos_ok,util_pct,eq1_breakeven_x,status\n");
	for (int mi = 0; mi < nm; mi++) {
		int m = mlist[mi], skip = 0;

		if ((m == M_MPS || m == M_MPS_PCT) && !mps_up)
			skip = mps_start() != 0;
		if (m != M_MPS && m != M_MPS_PCT)
			mps_stop();
		for (int i = 0; i < sc.npairs; i++) {
			struct scn_pair *pr = &sc.pairs[i];
			struct solo *sl = solo_find(pr->lc, 1, pr->xfer_lc);
			struct solo *sb = solo_find(pr->be, 0, pr->xfer_be);
			double thr = sc.q * sl->r.lc_p50, frac, eq1;
			struct res r;
			char tag[256];

			tagname(tag, sizeof(tag), mech_names[m], pr->be, pr->lc,
				pr->xfer_lc, pr->xfer_be);
			if (skip) {
				memset(&r, 0, sizeof(r));
				r.lc_p50 = r.lc_p99 = r.lc_max = r.be_ups = r.util = NAN;
			} else {
				run_cell(tag, m, pr->be, pr->lc, pr->xfer_lc,
					 pr->xfer_be, &r, thr);
			}
			progress(tag, &r);
			fails += !r.ok;
			frac = r.lc_n > 0 ? r.viol / r.lc_n : NAN;
			eq1 = (r.lc_p50 - sl->r.lc_p50) / r.lc_p50;
			lc50[i][mi] = r.lc_p50 / sl->r.lc_p50;
			lc99[i][mi] = r.lc_p99 / sl->r.lc_p99;
			bex[i][mi] = r.be_ups / sb->r.be_ups;
			vfrac[i][mi] = frac;
			fprintf(csv, "%s,%s,%s,%g,%g,%.0f,%.1f,%.1f,%.1f,%.3f,%.3f,%.3f,"
				"%.3f,%.4f,%g,%.1f,%ld,%.4f,%d,%.1f,%.4f,%s\n",
				mech_names[m], pr->be, pr->lc, pr->xfer_lc, pr->xfer_be,
				r.lc_n, r.lc_p50, r.lc_p99, r.lc_max, lc50[i][mi],
				lc99[i][mi], r.lc_max / sl->r.lc_max, r.be_ups,
				bex[i][mi], sc.q, thr, r.viol, frac,
				r.ok && frac <= 0.01, r.util, eq1 > 0 ? eq1 : 0,
				skip ? "skipped" : r.ok ? "ok" : "failed");
			fflush(csv);
		}
	}
	mps_stop();
	fclose(csv);

	/* plots and a summary per mechanism */
	if (sc.npairs && nm) {
		snprintf(path, sizeof(path), "%s/summary.csv", outdir);
		csv = fopen(path, "w");
		if (csv)
			fprintf(csv, "mech,pairs,geomean_lc_p50_x,geomean_lc_p99_x,"
				"mean_be_x,pairs_qos_ok\n");
		for (int mi = 0; mi < nm; mi++) {
			double g50 = 0, g99 = 0, b = 0;
			int k = 0, ok = 0;

			series[mi] = mech_names[mlist[mi]];
			for (int i = 0; i < sc.npairs; i++) {
				if (!isfinite(lc99[i][mi]) || !isfinite(bex[i][mi]))
					continue;
				g50 += log(lc50[i][mi]);
				g99 += log(lc99[i][mi]);
				b += bex[i][mi];
				ok += vfrac[i][mi] <= 0.01;
				k++;
			}
			if (csv)
				fprintf(csv, "%s,%d,%.3f,%.3f,%.3f,%d\n", series[mi], k,
					k ? exp(g50 / k) : NAN, k ? exp(g99 / k) : NAN,
					k ? b / k : NAN, ok);
		}
		if (csv)
			fclose(csv);
		for (int i = 0; i < sc.npairs; i++) {
			snprintf(glabel[i], sizeof(glabel[i]), "%s+%s", sc.pairs[i].be,
				 sc.pairs[i].lc);
			groups[i] = glabel[i];
		}
		snprintf(path, sizeof(path), "%s/lc_p99.svg", outdir);
		svg_bars(path, "LC p99 latency / solo p99 (lower is better)",
			 "ratio to solo (log)", sc.npairs, groups, nm, series,
			 pack(lc99, sc.npairs, nm), 1, 1.0);
		snprintf(path, sizeof(path), "%s/be_throughput.svg", outdir);
		svg_bars(path, "BE throughput during the overlap / solo",
			 "ratio to solo", sc.npairs, groups, nm, series, pack(bex, sc.npairs, nm), 0, 1.0);
		snprintf(path, sizeof(path), "%s/qos_violations.svg", outdir);
		svg_bars(path, "Fraction of LC requests over q x solo p50",
			 "fraction", sc.npairs, groups, nm, series, pack(vfrac, sc.npairs, nm), 0, 0.01);
	}
	if (sc.nscale) {
		snprintf(path, sizeof(path), "%s/scaling.csv", outdir);
		csv = fopen(path, "w");
		if (csv) {
			run_scale(csv);
			fclose(csv);
			plot_scale(path);
		}
	}
	fprintf(stderr, "gsp-bench: results in %s (%d failed cells)\n", outdir, fails);
	return fails ? 1 : 0;
}
