// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-bench: runs a scenario of LC/BE co-location cells on one GPU under
 * each sharing mechanism, and writes CSV and SVG plots into a results
 * folder.
 *
 *   gsp-bench [-o DIR] [-w GSP_WL] [-g DIR] [-n] SCENARIO
 *
 * Every cell is one or two gsp-wl processes. They set up, print READY, and
 * get "GO start end" (CLOCK_MONOTONIC ns): the BE starts at once, the LC
 * at 'start' (warmup later); both count only what completes inside the
 * window. MPS cells run under an MPS control daemon that gsp-bench starts
 * with its own pipe and log folders inside the results folder and stops
 * afterwards (also on SIGINT/SIGTERM). A gspace cell also gets a gspaced
 * of its own (socket and config in the results folder), and runs its
 * processes under gsp-run: the BE with --spatial, the LC as class lc.
 *
 * Over 800 lines: one program whose parts (the cell runner, the MPS and
 * gspaced set-up, the CSV and plot writers) share the scenario's state and
 * its results folder; the parser and the SVG writer are already files of
 * their own (scn.c, svg.c), and the cell runner could follow.
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
/* out_abs: the results folder, absolute; room left for names inside it */
static char out_abs[PATH_MAX - 64], mps_pipe[PATH_MAX], mps_log[PATH_MAX];
static int mps_up;
static struct scn sc;
/* gspace cells: the tools and the daemon's socket */
static char gspaced_bin[PATH_MAX], gsprun_bin[PATH_MAX], gsp_sock[PATH_MAX];
static char gsp_tmpdir[64];	/* for a socket path too long in outdir */
static pid_t gspd_pid;

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

/* ---- gspaced, one per gspace cell ---- */

/*
 * gspaced renames its socket into place once it listens and needs 12
 * bytes of sun_path beyond the name: a results folder too deep for that
 * gets the socket in a private folder under /tmp.
 */
#define GSPD_SOCK_MAX 95

static int gsp_paths(const char *gdir, int dry)
{
	snprintf(gspaced_bin, sizeof(gspaced_bin), "%s/gspaced", gdir);
	snprintf(gsprun_bin, sizeof(gsprun_bin), "%s/gsp-run", gdir);
	snprintf(gsp_sock, sizeof(gsp_sock), "%s/gspace/gspaced.sock", out_abs);
	if (strlen(gsp_sock) <= GSPD_SOCK_MAX)
		return 0;
	snprintf(gsp_tmpdir, sizeof(gsp_tmpdir), "/tmp/gsp-bench.XXXXXX");
	if (!dry && !mkdtemp(gsp_tmpdir)) {
		fprintf(stderr, "gsp-bench: mkdtemp %s: %s\n", gsp_tmpdir, strerror(errno));
		gsp_tmpdir[0] = 0;
		return -1;
	}
	snprintf(gsp_sock, sizeof(gsp_sock), "%s/gspaced.sock", gsp_tmpdir);
	if (dry)
		gsp_tmpdir[0] = 0;
	return 0;
}

static void gsp_tmp_remove(void)
{
	if (gsp_tmpdir[0] && rmdir(gsp_tmpdir) && errno != ENOENT)
		fprintf(stderr, "gsp-bench: rmdir %s: %s\n", gsp_tmpdir, strerror(errno));
}

/* the config's lines, joined by sep; lc_uids: the LC runs as we do */
static void gspd_conf_text(char *buf, size_t n, int sm, int k, const char *sep)
{
	snprintf(buf, n, "lease_devices = 1%ssim_devices = 0%slc_uids = %u%s"
		 "partition = %d,%d", sep, sep, (unsigned int)getuid(), sep, sm, k);
}

static void gspd_conf_path(char *buf, size_t n, int sm, int k)
{
	snprintf(buf, n, "%s/gspace/gspaced-%d-%d.conf", out_abs, sm, k);
}

static int gspd_conf_write(int sm, int k)
{
	char path[PATH_MAX], text[256];
	FILE *f;

	gspd_conf_path(path, sizeof(path), sm, k);
	gspd_conf_text(text, sizeof(text), sm, k, "\n");
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "gsp-bench: %s: %s\n", path, strerror(errno));
		return -1;
	}
	fprintf(f, "# gsp-bench: gspaced of the gspace cells with n:k = %d:%d\n%s\n",
		sm, k, text);
	return fclose(f) ? -1 : 0;
}

static void gspd_argv(char **av, const char *conf)
{
	av[0] = gspaced_bin;
	av[1] = (char *)"--foreground";
	av[2] = (char *)"--config";
	av[3] = (char *)conf;
	av[4] = (char *)"--socket";
	av[5] = gsp_sock;
	av[6] = NULL;
}

static const char *exit_text(int st, char *buf, size_t n)
{
	if (WIFEXITED(st))
		snprintf(buf, n, "exit status %d", WEXITSTATUS(st));
	else
		snprintf(buf, n, "signal %d", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	return buf;
}

/* Starts gspaced with its output in logpath; returns once it listens. */
static int gspd_start(const char *conf, const char *logpath)
{
	char *av[8], why[64];
	struct stat sb;
	int fd, st;

	gspd_argv(av, conf);
	unlink(gsp_sock);	/* a stale one would look like a live daemon */
	fd = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		fprintf(stderr, "gsp-bench: %s: %s\n", logpath, strerror(errno));
		return -1;
	}
	gspd_pid = fork();
	if (gspd_pid < 0) {
		gspd_pid = 0;
		close(fd);
		return -1;
	}
	if (!gspd_pid) {
		int nul = open("/dev/null", O_RDONLY);

		dup2(nul, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		execv(av[0], av);
		perror(av[0]);
		_exit(127);
	}
	close(fd);
	for (int i = 0; i < 200; i++) {
		if (!stat(gsp_sock, &sb) && S_ISSOCK(sb.st_mode))
			return 0;
		if (waitpid(gspd_pid, &st, WNOHANG) == gspd_pid) {
			fprintf(stderr, "gsp-bench: gspaced ended at start (%s); see %s\n",
				exit_text(st, why, sizeof(why)), logpath);
			gspd_pid = 0;
			return -1;
		}
		usleep(25000);
	}
	fprintf(stderr, "gsp-bench: gspaced did not listen on %s within 5 s; see %s\n",
		gsp_sock, logpath);
	kill(gspd_pid, SIGKILL);
	waitpid(gspd_pid, &st, 0);
	gspd_pid = 0;
	return -1;
}

/* Stops gspaced; -1 if it had ended before (the cell did not run under it). */
static int gspd_stop(const char *logpath)
{
	char why[64];
	int st, rc = 0;

	if (!gspd_pid)
		return 0;
	if (waitpid(gspd_pid, &st, WNOHANG) == gspd_pid) {
		fprintf(stderr, "gsp-bench: gspaced ended during the cell (%s); see %s\n",
			exit_text(st, why, sizeof(why)), logpath);
		gspd_pid = 0;
		return -1;
	}
	kill(gspd_pid, SIGTERM);
	for (int i = 0; i < 200 && waitpid(gspd_pid, &st, WNOHANG) != gspd_pid; i++) {
		if (i == 199) {
			fprintf(stderr, "gsp-bench: gspaced ignored SIGTERM for 5 s; killed\n");
			kill(gspd_pid, SIGKILL);
			waitpid(gspd_pid, &st, 0);
			rc = -1;
		}
		usleep(25000);
	}
	if (!rc && !(WIFEXITED(st) && !WEXITSTATUS(st))) {
		fprintf(stderr, "gsp-bench: gspaced stopped with %s; see %s\n",
			exit_text(st, why, sizeof(why)), logpath);
		rc = -1;
	}
	gspd_pid = 0;
	return rc;
}

static void on_signal(int sig)
{
	if (gspd_pid)
		kill(gspd_pid, SIGTERM);
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

/* One process of a cell: its command line and what it adds to the env. */
struct argvec {
	char *av[48];
	int n, nenv;
	const char *envk[3], *envv[3];
	const char *role;	/* "lc", "be" or "lc+be" */
};

static void arg(struct argvec *a, const char *s)
{
	a->av[a->n++] = (char *)s;
	a->av[a->n] = NULL;
}

static void env(struct argvec *a, const char *k, const char *v)
{
	a->envk[a->nenv] = k;
	a->envv[a->nenv++] = v;
}

static int proc_start(struct proc *p, const struct argvec *a)
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
		for (int k = 0; k < a->nenv; k++)
			setenv(a->envk[k], a->envv[k], 1);
		execv(a->av[0], a->av);
		perror(a->av[0]);
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

/* One cell: its processes, built by cell_make, run by run_cell. */
struct cell {
	char tag[256];
	int mech, n, k;		/* n, k: the gspace partition */
	const char *be, *lc;
	int mps;		/* under the MPS control daemon */
	int np;
	struct argvec p[2];
	char num[8][32], lat[PATH_MAX], conf[PATH_MAX];
};

static void tagname(char *t, size_t n, const char *m, const char *be,
		    const char *lc, double xl, double xb)
{
	char *p;

	snprintf(t, n, "%s_%s_%s_x%g_%g", m, be ? be : "-", lc ? lc : "-", xl, xb);
	for (p = t; *p; p++)
		if (*p == ':' || *p == '/')
			*p = '-';
}

/*
 * A cell of mechanism mech: solo when one of be and lc is NULL. gspace
 * (n, k) with both is the co-run under MPS; with only the BE it is the
 * BE alone under gsp-run --spatial, without MPS like mech solo.
 */
static void cell_make(struct cell *c, int mech, int n, int k, const char *be,
		      const char *lc, double xl, double xb)
{
	int two = mech == M_TIMESLICE || mech == M_MPS || mech == M_MPS_PCT ||
		  mech == M_GSPACE;
	char m[48];

	memset(c, 0, sizeof(*c));
	c->mech = mech;
	c->n = n;
	c->k = k;
	c->be = be;
	c->lc = lc;
	c->mps = mech == M_MPS || mech == M_MPS_PCT || (mech == M_GSPACE && be && lc);
	if (mech == M_GSPACE)
		snprintf(m, sizeof(m), "gspace%s-%d-%d", lc ? "" : "-solo", n, k);
	else
		snprintf(m, sizeof(m), "%s", mech_names[mech]);
	tagname(c->tag, sizeof(c->tag), m, be, lc, xl, xb);
	snprintf(c->lat, sizeof(c->lat), "%s/lat/%s.txt", outdir, c->tag);
	if (mech == M_GSPACE)
		gspd_conf_path(c->conf, sizeof(c->conf), n, k);
	snprintf(c->num[0], 32, "%g", sc.duration);
	snprintf(c->num[1], 32, "%g", sc.period_ms);
	snprintf(c->num[2], 32, "%g", xl);
	snprintf(c->num[3], 32, "%g", xb);
	snprintf(c->num[4], 32, "%d", sc.depth);
	snprintf(c->num[5], 32, "%d", sc.green_be_sms);
	snprintf(c->num[6], 32, "%d", sc.mps_be_pct);
	for (int i = 0; i < 2; i++) {
		int want_lc = two ? i == 0 : 1, want_be = two ? i == 1 : 1;
		struct argvec *a = &c->p[c->np];

		if (i == 1 && !two)
			break;
		if (!lc)
			want_lc = 0;
		if (!be)
			want_be = 0;
		if (!want_lc && !want_be)
			continue;
		a->role = want_lc && want_be ? "lc+be" : want_lc ? "lc" : "be";
		if (c->mps) {
			env(a, "CUDA_MPS_PIPE_DIRECTORY", mps_pipe);
			env(a, "CUDA_MPS_LOG_DIRECTORY", mps_log);
		}
		if (mech == M_MPS_PCT && want_be)
			env(a, "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", c->num[6]);
		if (mech == M_GSPACE) {
			arg(a, gsprun_bin);
			arg(a, "--arbiter");
			arg(a, "daemon");
			arg(a, "--socket");
			arg(a, gsp_sock);
			arg(a, "--class");
			arg(a, want_lc ? "lc" : "be");
			if (want_be)
				arg(a, "--spatial");
			arg(a, "--");
		}
		arg(a, wl_bin);
		arg(a, "run");
		arg(a, "--sync");
		arg(a, "--duration");
		arg(a, c->num[0]);
		arg(a, "--mech");
		arg(a, two || !lc || !be ? "solo" : mech_names[mech]);
		if (want_lc) {
			arg(a, "--lc");
			arg(a, lc);
			arg(a, "--period-ms");
			arg(a, c->num[1]);
			arg(a, "--xfer-lc");
			arg(a, c->num[2]);
			arg(a, "--lat-out");
			arg(a, c->lat);
		}
		if (want_be) {
			arg(a, "--be");
			arg(a, be);
			arg(a, "--xfer-be");
			arg(a, c->num[3]);
			arg(a, "--depth");
			arg(a, c->num[4]);
			if (sc.green_be_sms) {
				arg(a, "--green-sms");
				arg(a, c->num[5]);
			}
		}
		c->np++;
	}
}

/* a word as the shell would need it */
static void put_word(const char *w)
{
	if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			 "0123456789_./:=,+-%@") == strlen(w)) {
		fputs(w, stdout);
		return;
	}
	putchar('\'');
	for (; *w; w++)
		if (*w == '\'')
			fputs("'\\''", stdout);
		else
			putchar(*w);
	putchar('\'');
}

static void cell_print(const struct cell *c)
{
	printf("cell %d/%d %s%s\n", ++cell_no, cell_total, c->tag,
	       c->mps ? " (MPS)" : "");
	if (c->mech == M_GSPACE) {
		char *av[8];

		gspd_argv(av, c->conf);
		printf("  gspaced:");
		for (int i = 0; av[i]; i++) {
			putchar(' ');
			put_word(av[i]);
		}
		putchar('\n');
	}
	for (int k = 0; k < c->np; k++) {
		const struct argvec *a = &c->p[k];

		printf("  %s:", a->role);
		for (int i = 0; i < a->nenv; i++) {
			printf(" %s=", a->envk[i]);
			put_word(a->envv[i]);
		}
		for (int i = 0; i < a->n; i++) {
			putchar(' ');
			put_word(a->av[i]);
		}
		putchar('\n');
	}
}

static int run_cell(struct cell *c, struct res *r, double qthr_us)
{
	char log[PATH_MAX], glog[PATH_MAX];
	struct proc p[2];
	int np = 0, rc = 0;
	double start, end, usum = 0;
	int un = 0;
	FILE *lf;

	memset(r, 0, sizeof(*r));
	r->lc_p50 = r->lc_p99 = r->lc_max = r->be_ups = r->util = NAN;
	snprintf(log, sizeof(log), "%s/log/%s.txt", outdir, c->tag);
	snprintf(glog, sizeof(glog), "%s/log/%s.gspaced.txt", outdir, c->tag);
	if (c->mech == M_GSPACE && gspd_start(c->conf, glog))
		return -1;
	for (; np < c->np; np++)
		if (proc_start(&p[np], &c->p[np])) {
			rc = -1;
			break;
		}
	for (int k = 0; k < np; k++)
		if (proc_wait(&p[k], "READY\n", 120)) {
			fprintf(stderr, "gsp-bench: %s: a process did not get ready\n", c->tag);
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
		if (c->lc && !isfinite(r->lc_p50) &&
		    isfinite(kv(p[k].buf, "lc", "p50_us"))) {
			r->lc_n = kv(p[k].buf, "lc", "n");
			r->lc_p50 = kv(p[k].buf, "lc", "p50_us");
			r->lc_p99 = kv(p[k].buf, "lc", "p99_us");
			r->lc_max = kv(p[k].buf, "lc", "max_us");
		}
		if (c->be && !isfinite(r->be_ups))
			r->be_ups = kv(p[k].buf, "be", "units_per_s");
	}
	if (lf)
		fclose(lf);
	if (c->mech == M_GSPACE && gspd_stop(glog))
		rc = -1;
	r->util = un ? usum / un : NAN;
	if (c->lc && qthr_us > 0) {
		FILE *f = fopen(c->lat, "r");
		double v;

		while (f && fscanf(f, "%lf", &v) == 1)
			r->viol += v > qthr_us;
		if (f)
			fclose(f);
	}
	r->ok = !rc && (!c->lc || isfinite(r->lc_p50)) && (!c->be || isfinite(r->be_ups));
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

/* ---- scaling ---- */

static int run_scale(FILE *csv)
{
	char sms[256] = "", bps[256] = "", tm[32];

	for (int i = 0; i < sc.nsms; i++)
		snprintf(sms + strlen(sms), sizeof(sms) - strlen(sms), "%s%d",
			 i ? "," : "", sc.sms[i]);
	for (int i = 0; i < sc.nbps; i++)
		snprintf(bps + strlen(bps), sizeof(bps) - strlen(bps), "%s%d",
			 i ? "," : "", sc.bps[i]);
	snprintf(tm, sizeof(tm), "%g", sc.scale_time);
	fprintf(csv, "wl,kind,value,got,units_per_s,speedup\n");
	for (int w = 0; w < sc.nscale; w++) {
		struct argvec a = { .n = 0 };
		struct proc p;
		const char *l;

		arg(&a, wl_bin);
		arg(&a, "scale");
		arg(&a, "--wl");
		arg(&a, sc.scale[w]);
		arg(&a, "--sms");
		arg(&a, sms);
		arg(&a, "--bps");
		arg(&a, bps);
		arg(&a, "--time");
		arg(&a, tm);
		if (proc_start(&p, &a))
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

/* ---- mechanisms, and gspace per (n, k): the series of the results ---- */

#define NVAR (M_NMECH + SCN_MAXNK)

struct variant {
	int mech, n, k;		/* n, k: gspace only */
	char name[32];		/* "mps", "gspace 132:8" */
};

static struct variant vars[NVAR];
static int nvar;

static void variants(void)
{
	for (int m = 1; m < M_NMECH; m++) {
		if (!(sc.mechs & (1u << m)))
			continue;
		for (int i = 0; i < (m == M_GSPACE ? sc.nnk : 1); i++) {
			struct variant *v = &vars[nvar++];

			v->mech = m;
			if (m == M_GSPACE) {
				v->n = sc.nk_n[i];
				v->k = sc.nk_k[i];
				snprintf(v->name, sizeof(v->name), "gspace %d:%d", v->n, v->k);
			} else {
				snprintf(v->name, sizeof(v->name), "%s", mech_names[m]);
			}
		}
	}
}

/* rows of a [SCN_MAXPAIR][NVAR] table, packed to [npairs][nv] */
static double *pack(double (*t)[NVAR], int np, int nv)
{
	static double buf[SCN_MAXPAIR * NVAR];

	for (int i = 0; i < np; i++)
		for (int v = 0; v < nv; v++)
			buf[i * nv + v] = t[i][v];
	return buf;
}

/*
 * gspace.svg: per BE, LC p99 slowdown against BE throughput (both as
 * ratios to solo), one colour per (n, k), small points per LC, a large
 * one for the geomean slowdown and mean throughput over the LCs; mps, the
 * untransformed co-run, in black.
 */
static void plot_gspace(double (*lc99)[NVAR], double (*bex)[NVAR])
{
	static struct svg_pt pts[SCN_MAXWL][SCN_MAXPAIR + NVAR];
	static char tips[SCN_MAXPAIR][SCN_NAME + 4];
	const struct svg_pt *pp[SCN_MAXWL];
	const char *panels[SCN_MAXWL], *series[NVAR];
	int npts[SCN_MAXWL] = { 0 }, sidx[NVAR], ns = 0, marked = -1, npan = 0;
	char path[PATH_MAX];

	for (int v = 0; v < nvar; v++) {
		sidx[v] = -1;
		if (vars[v].mech != M_GSPACE && vars[v].mech != M_MPS)
			continue;
		if (vars[v].mech == M_MPS)
			marked = ns;
		sidx[v] = ns;
		series[ns++] = vars[v].name;
	}
	for (int i = 0; i < sc.npairs; i++) {
		int p;

		for (p = 0; p < npan && strcmp(panels[p], sc.pairs[i].be); p++)
			;
		if (p == SCN_MAXWL)
			continue;
		if (p == npan)
			panels[npan++] = sc.pairs[i].be;
		snprintf(tips[i], sizeof(tips[i]), "+%s", sc.pairs[i].lc);
		for (int v = 0; v < nvar; v++)
			if (sidx[v] >= 0)
				pts[p][npts[p]++] = (struct svg_pt){ bex[i][v], lc99[i][v],
					sidx[v], 0, tips[i] };
	}
	for (int p = 0; p < npan; p++) {
		for (int v = 0; v < nvar; v++) {
			double lg = 0, b = 0;
			int k = 0;

			if (sidx[v] < 0)
				continue;
			for (int i = 0; i < sc.npairs; i++)
				if (!strcmp(sc.pairs[i].be, panels[p]) &&
				    isfinite(lc99[i][v]) && lc99[i][v] > 0 &&
				    isfinite(bex[i][v])) {
					lg += log(lc99[i][v]);
					b += bex[i][v];
					k++;
				}
			if (k)
				pts[p][npts[p]++] = (struct svg_pt){ b / k, exp(lg / k),
					sidx[v], 1, "mean over the LCs" };
		}
		pp[p] = pts[p];
	}
	snprintf(path, sizeof(path), "%s/gspace.svg", outdir);
	svg_scatter(path, "gspace: LC p99 / solo vs BE throughput / solo, per BE "
		    "(large: geomean and mean over the LCs)",
		    "BE throughput / solo", "LC p99 / solo p99 (log)", npan, panels,
		    npts, pp, ns, series, marked);
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
	fprintf(stderr,
		"usage: gsp-bench [-o DIR] [-w GSP_WL] [-g DIR] [-n] SCENARIO\n"
		"  -o DIR     results folder (default gsp-bench-<UTC time>)\n"
		"  -w GSP_WL  the workload runner (default: gsp-wl beside gsp-bench)\n"
		"  -g DIR     the folder of gspaced and gsp-run, for gspace cells\n"
		"             (default: gsp-wl's folder)\n"
		"  -n         print the plan and every cell's commands, run nothing\n");
}

/* p relative to the working directory made absolute, without resolving */
static int abspath(char *dst, size_t n, const char *p)
{
	char cwd[PATH_MAX];
	int len;

	if (p[0] == '/')
		len = snprintf(dst, n, "%s", p);
	else if (getcwd(cwd, sizeof(cwd)))
		len = snprintf(dst, n, "%s/%s", cwd, p);
	else
		return -1;
	return len < 0 || (size_t)len >= n ? -1 : 0;
}

static void dry_run(void)
{
	static struct cell c;
	int nm = 0;

	for (int m = 1; m < M_NMECH; m++)
		nm += (sc.mechs >> m) & 1;
	printf("%d solo cells, %d pairs x %d mechanisms, %d scaling workloads\n",
	       nsolo, sc.npairs, nm, sc.nscale);
	if (sc.nnk) {
		printf("gspace n:k");
		for (int i = 0; i < sc.nnk; i++)
			printf(" %d:%d", sc.nk_n[i], sc.nk_k[i]);
		printf(" (%d series)%s\n", sc.nnk,
		       sc.gspace_solo ? ", BE solo under --spatial" : "");
	}
	for (int i = 0; i < sc.npairs; i++)
		printf("pair %s %s xfer_lc=%g xfer_be=%g\n", sc.pairs[i].be,
		       sc.pairs[i].lc, sc.pairs[i].xfer_lc, sc.pairs[i].xfer_be);
	printf("%d cells, about %.0f s (warmup + duration + ~1 s to start the "
	       "processes, an estimate, per cell)%s\n", cell_total,
	       cell_total * (sc.warmup + sc.duration + 1.0),
	       sc.nscale ? ", plus scaling" : "");
	for (int i = 0; i < sc.nnk; i++) {
		char p[PATH_MAX], t[256];

		gspd_conf_path(p, sizeof(p), sc.nk_n[i], sc.nk_k[i]);
		gspd_conf_text(t, sizeof(t), sc.nk_n[i], sc.nk_k[i], "; ");
		printf("config %s: %s\n", p, t);
	}
	for (int i = 0; i < nsolo; i++) {
		struct solo *s = &solos[i];

		cell_make(&c, M_SOLO, 0, 0, s->lc ? NULL : s->wl,
			  s->lc ? s->wl : NULL, s->lc ? s->xfer : 0, s->lc ? 0 : s->xfer);
		cell_print(&c);
	}
	for (int i = 0; i < nsolo && sc.gspace_solo; i++)
		if (!solos[i].lc) {
			cell_make(&c, M_GSPACE, sc.nk_n[0], sc.nk_k[0], solos[i].wl,
				  NULL, 0, solos[i].xfer);
			cell_print(&c);
		}
	for (int v = 0; v < nvar; v++)
		for (int i = 0; i < sc.npairs; i++) {
			struct scn_pair *pr = &sc.pairs[i];

			cell_make(&c, vars[v].mech, vars[v].n, vars[v].k, pr->be,
				  pr->lc, pr->xfer_lc, pr->xfer_be);
			cell_print(&c);
		}
}

static void nk_cols(char *buf, size_t n, const struct variant *v)
{
	if (v->mech == M_GSPACE)
		snprintf(buf, n, "%d,%d", v->n, v->k);
	else
		snprintf(buf, n, ",");
}

int main(int argc, char **argv)
{
	static double lc50[SCN_MAXPAIR][NVAR], lc99[SCN_MAXPAIR][NVAR],
		bex[SCN_MAXPAIR][NVAR], vfrac[SCN_MAXPAIR][NVAR];
	static char glabel[SCN_MAXPAIR][2 * SCN_NAME + 2];
	static struct cell c;
	const char *groups[SCN_MAXPAIR], *series[NVAR], *gdir = NULL;
	int opt, dry = 0, fails = 0, nsp = 0, has_gspace = 0;
	char err[512], path[PATH_MAX], self[PATH_MAX], def_out[PATH_MAX];
	char wdir[PATH_MAX], nk[32];
	FILE *f, *csv;

	while ((opt = getopt(argc, argv, "o:w:g:nh")) != -1) {
		if (opt == 'o')
			outdir = optarg;
		else if (opt == 'w')
			wl_bin = optarg;
		else if (opt == 'g')
			gdir = optarg;
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
	variants();
	/* solo baselines for every LC and BE in the pairs */
	for (int i = 0; i < sc.npairs; i++) {
		solo_add(sc.pairs[i].lc, 1, sc.pairs[i].xfer_lc);
		solo_add(sc.pairs[i].be, 0, sc.pairs[i].xfer_be);
	}
	for (int i = 0; i < nsolo && sc.gspace_solo; i++)
		nsp += !solos[i].lc;
	has_gspace = sc.nnk > 0;
	cell_total = nsolo + nsp + sc.npairs * nvar;
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
	if (abspath(out_abs, sizeof(out_abs), outdir)) {
		fprintf(stderr, "gsp-bench: %s: path too long or no working directory; "
			"give a shorter -o\n", outdir);
		return 2;
	}
	snprintf(mps_pipe, sizeof(mps_pipe), "%s/mps/pipe", outdir);
	snprintf(mps_log, sizeof(mps_log), "%s/mps/log", outdir);
	if (has_gspace) {
		if (!gdir) {
			char *sl;

			snprintf(wdir, sizeof(wdir), "%s", wl_bin);
			sl = strrchr(wdir, '/');
			if (sl)
				*sl = 0;
			else
				strcpy(wdir, ".");
			gdir = wdir;
		}
		if (gsp_paths(gdir, dry))
			return 1;
	}
	if (dry) {
		dry_run();
		return 0;
	}
	if (has_gspace && (access(gspaced_bin, X_OK) || access(gsprun_bin, X_OK))) {
		fprintf(stderr, "gsp-bench: gspace cells need %s and %s; build them "
			"(make %s %s) or name their folder with -g\n", gspaced_bin,
			gsprun_bin, gspaced_bin, gsprun_bin);
		gsp_tmp_remove();
		return 2;
	}
	snprintf(path, sizeof(path), "mkdir -p '%s/lat' '%s/log' %s%s%s && cp '%s' '%s/scenario.scn'",
		 outdir, outdir, has_gspace ? "'" : "", has_gspace ? out_abs : "",
		 has_gspace ? "/gspace'" : "", argv[optind], outdir);
	if (system(path)) {
		fprintf(stderr, "gsp-bench: cannot create %s\n", outdir);
		gsp_tmp_remove();
		return 1;
	}
	for (int i = 0; i < sc.nnk; i++)
		if (gspd_conf_write(sc.nk_n[i], sc.nk_k[i])) {
			gsp_tmp_remove();
			return 1;
		}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	atexit(gsp_tmp_remove);
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

		cell_make(&c, M_SOLO, 0, 0, s->lc ? NULL : s->wl, s->lc ? s->wl : NULL,
			  s->lc ? s->xfer : 0, s->lc ? 0 : s->xfer);
		run_cell(&c, &s->r, 0);
		progress(c.tag, &s->r);
		fails += !s->r.ok;
		fprintf(csv, "%s,%s,%g,%.0f,%.1f,%.1f,%.1f,%.3f,%.1f,%s\n",
			s->lc ? "lc" : "be", s->wl, s->xfer, s->r.lc_n, s->r.lc_p50,
			s->r.lc_p99, s->r.lc_max, s->r.be_ups, s->r.util,
			s->r.ok ? "ok" : "failed");
		fflush(csv);
	}
	fclose(csv);

	/* each BE alone under gsp-run --spatial: the cost of the transformation */
	if (nsp) {
		snprintf(path, sizeof(path), "%s/spatial_solo.csv", outdir);
		csv = fopen(path, "w");
		if (!csv)
			return 1;
		fprintf(csv, "wl,xfer,n,k,be_units_per_s,solo_units_per_s,be_x,util_pct,status\n");
		for (int i = 0; i < nsolo; i++) {
			struct solo *s = &solos[i];
			struct res r;

			if (s->lc)
				continue;
			cell_make(&c, M_GSPACE, sc.nk_n[0], sc.nk_k[0], s->wl, NULL, 0,
				  s->xfer);
			run_cell(&c, &r, 0);
			progress(c.tag, &r);
			fails += !r.ok;
			fprintf(csv, "%s,%g,%d,%d,%.3f,%.3f,%.4f,%.1f,%s\n", s->wl,
				s->xfer, c.n, c.k, r.be_ups, s->r.be_ups,
				r.be_ups / s->r.be_ups, r.util, r.ok ? "ok" : "failed");
			fflush(csv);
		}
		fclose(csv);
	}

	/* co-location cells, grouped by mechanism (one MPS daemon per group) */
	snprintf(path, sizeof(path), "%s/results.csv", outdir);
	csv = fopen(path, "w");
	if (!csv)
		return 1;
	fprintf(csv, "mech,n,k,be,lc,xfer_lc,xfer_be,lc_n,lc_p50_us,lc_p99_us,lc_max_us,"
		"lc_p50_x,lc_p99_x,lc_max_x,be_units_per_s,be_x,q,qos_threshold_us,"
		"qos_viol,qos_viol_frac,qos_ok,util_pct,eq1_breakeven_x,status\n");
	for (int v = 0; v < nvar; v++) {
		int m = vars[v].mech, skip = 0;
		int under_mps = m == M_MPS || m == M_MPS_PCT || m == M_GSPACE;

		if (under_mps && !mps_up)
			skip = mps_start() != 0;
		if (!under_mps)
			mps_stop();
		nk_cols(nk, sizeof(nk), &vars[v]);
		for (int i = 0; i < sc.npairs; i++) {
			struct scn_pair *pr = &sc.pairs[i];
			struct solo *sl = solo_find(pr->lc, 1, pr->xfer_lc);
			struct solo *sb = solo_find(pr->be, 0, pr->xfer_be);
			double thr = sc.q * sl->r.lc_p50, frac, eq1;
			struct res r;

			cell_make(&c, m, vars[v].n, vars[v].k, pr->be, pr->lc,
				  pr->xfer_lc, pr->xfer_be);
			if (skip) {
				memset(&r, 0, sizeof(r));
				r.lc_p50 = r.lc_p99 = r.lc_max = r.be_ups = r.util = NAN;
			} else {
				run_cell(&c, &r, thr);
			}
			progress(c.tag, &r);
			fails += !r.ok;
			frac = r.lc_n > 0 ? r.viol / r.lc_n : NAN;
			eq1 = (r.lc_p50 - sl->r.lc_p50) / r.lc_p50;
			lc50[i][v] = r.lc_p50 / sl->r.lc_p50;
			lc99[i][v] = r.lc_p99 / sl->r.lc_p99;
			bex[i][v] = r.be_ups / sb->r.be_ups;
			vfrac[i][v] = frac;
			fprintf(csv, "%s,%s,%s,%s,%g,%g,%.0f,%.1f,%.1f,%.1f,%.3f,%.3f,%.3f,"
				"%.3f,%.4f,%g,%.1f,%ld,%.4f,%d,%.1f,%.4f,%s\n",
				mech_names[m], nk, pr->be, pr->lc, pr->xfer_lc, pr->xfer_be,
				r.lc_n, r.lc_p50, r.lc_p99, r.lc_max, lc50[i][v],
				lc99[i][v], r.lc_max / sl->r.lc_max, r.be_ups,
				bex[i][v], sc.q, thr, r.viol, frac,
				r.ok && frac <= 0.01, r.util, eq1 > 0 ? eq1 : 0,
				skip ? "skipped" : r.ok ? "ok" : "failed");
			fflush(csv);
		}
	}
	mps_stop();
	fclose(csv);

	/* plots and a summary per mechanism */
	if (sc.npairs && nvar) {
		snprintf(path, sizeof(path), "%s/summary.csv", outdir);
		csv = fopen(path, "w");
		if (csv)
			fprintf(csv, "mech,n,k,pairs,geomean_lc_p50_x,geomean_lc_p99_x,"
				"mean_be_x,pairs_qos_ok\n");
		for (int v = 0; v < nvar; v++) {
			double g50 = 0, g99 = 0, b = 0;
			int k = 0, ok = 0;

			series[v] = vars[v].name;
			for (int i = 0; i < sc.npairs; i++) {
				if (!isfinite(lc99[i][v]) || !isfinite(bex[i][v]))
					continue;
				g50 += log(lc50[i][v]);
				g99 += log(lc99[i][v]);
				b += bex[i][v];
				ok += vfrac[i][v] <= 0.01;
				k++;
			}
			nk_cols(nk, sizeof(nk), &vars[v]);
			if (csv)
				fprintf(csv, "%s,%s,%d,%.3f,%.3f,%.3f,%d\n",
					mech_names[vars[v].mech], nk, k,
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
			 "ratio to solo (log)", sc.npairs, groups, nvar, series,
			 pack(lc99, sc.npairs, nvar), 1, 1.0);
		snprintf(path, sizeof(path), "%s/be_throughput.svg", outdir);
		svg_bars(path, "BE throughput during the overlap / solo",
			 "ratio to solo", sc.npairs, groups, nvar, series,
			 pack(bex, sc.npairs, nvar), 0, 1.0);
		snprintf(path, sizeof(path), "%s/qos_violations.svg", outdir);
		svg_bars(path, "Fraction of LC requests over q x solo p50",
			 "fraction", sc.npairs, groups, nvar, series,
			 pack(vfrac, sc.npairs, nvar), 0, 0.01);
		if ((sc.mechs >> M_GSPACE) & 1)
			plot_gspace(lc99, bex);
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
