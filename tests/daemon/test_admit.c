// SPDX-License-Identifier: GPL-2.0
/*
 * ADMIT (gspaced/admit.c): gspaced with admit_hw and admit_lc from
 * tests/admit/fixtures answers as Prophet does for the same traces, with
 * k the BE tenants at work on the device plus the asker (checked against
 * the library's own prediction, linked in); and it refuses what it must:
 * no admission config, no descriptor, an unsealed or oversized memfd, a
 * malformed trace, a bad device or pad. A config naming one file only,
 * or an unreadable one, stops the daemon at start (exit 2).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <math.h>

#include "daemon_harness.h"
#include "prophet.h"
#include "trace.h"

#define FIX	"tests/admit/fixtures/"

static char hw_path[PATH_MAX], lc_path[PATH_MAX], be_path[PATH_MAX];

/* A memfd holding @len bytes of @data, with @seals added. */
static int memfd_of(const void *data, size_t len, int seals)
{
	int fd = memfd_create("test-admit", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -1;
	if ((len && write(fd, data, len) != (ssize_t)len) ||
	    (seals && fcntl(fd, F_ADD_SEALS, seals))) {
		close(fd);
		return -1;
	}
	return fd;
}

#define SEALED	(F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW)

static int trace_memfd(const char *path, int seals)
{
	static char buf[1 << 20];
	ssize_t n = read_text(path, buf, sizeof(buf));

	return n < 0 ? -1 : memfd_of(buf, (size_t)n, seals);
}

/* The library's LC mean beside @k copies of the BE trace, in us. */
static double expected_us(unsigned int k)
{
	const struct gsp_trace *be[GSP_PROPHET_MAX_BE];
	struct gsp_prophet_cfg cfg = { .model = GSP_PROPHET_FLUID, .skip = 1 };
	struct gsp_trace lc = { 0 }, bt = { 0 };
	struct gsp_prophet_result res;
	char err[256];
	struct gsp_hw hw;
	double us = -1;

	if (gsp_hw_load(hw_path, &hw, err, sizeof(err)) ||
	    gsp_trace_load(lc_path, &hw, &lc, err, sizeof(err)) ||
	    gsp_trace_load(be_path, &hw, &bt, err, sizeof(err))) {
		printf("# %s\n", err);
		goto out;
	}
	for (unsigned int i = 0; i < k; i++)
		be[i] = &bt;
	if (!gsp_prophet_predict(&hw, &lc, be, k, &cfg, &res)) {
		us = res.lc_mean_ns / 1e3;
		gsp_prophet_result_free(&res);
	}
out:
	gsp_trace_free(&lc);
	gsp_trace_free(&bt);
	return us;
}

/* ADMIT of @path's trace on @c: the answer's k and mean, or -1. */
static int ask(struct gspd_conn *c, unsigned int *k, double *mean, int *ok)
{
	double solo, target;
	char text[512];
	int fd = trace_memfd(be_path, SEALED), r;

	if (fd < 0)
		return -1;
	r = gspd_admit(c, 0, fd, text, sizeof(text));
	close(fd);
	if (r) {
		printf("# ADMIT: %s: %s\n", strerror(-r), text);
		return -1;
	}
	return sscanf(text, "k=%u admitted=%d lc_solo_us=%lf lc_mean_us=%lf target_us=%lf",
		      k, ok, &solo, mean, &target) == 5 ? 0 : -1;
}

static bool near_us(double a, double b)
{
	return b > 0 && fabs(a - b) <= 0.05 + 1e-6 * b;	/* "%.1f" */
}

static void test_answers(void)
{
	struct gspace_submit sb = { .size = sizeof(sb),
				    .engine = GSPACE_ENGINE_COMPUTE,
				    .cost_ns = 1000 };
	struct gspd_conn *c, *busy, *idle;
	char conf[3 * PATH_MAX];
	struct daemon d;
	unsigned int k = 0;
	double mean = 0;
	int ok = -1, slot, r;

	snprintf(conf, sizeof(conf),
		 "sim_devices = 1\nlease_devices = 0\nadmit_hw = %s\nadmit_lc = %s\n",
		 hw_path, lc_path);
	if (!daemon_start(&d, "admit", conf, 0)) {
		tap_ok(0, "admit: gspaced with admit_hw and admit_lc starts");
		return;
	}
	if (gspd_connect(d.sock, &c)) {
		tap_ok(0, "admit: connect");
		daemon_stop(&d, "admit");
		return;
	}
	r = ask(c, &k, &mean, &ok);
	tap_ok(!r && k == 1 && near_us(mean, expected_us(1)) && ok == 0,
	       "admit: alone: k 1, the LC's mean as Prophet predicts it (%.1f us, library %.1f), not admitted",
	       mean, expected_us(1));

	/* A BE with a job counts; one without any does not. */
	busy = tenant_as(d.sock, GSPACE_CLASS_BE, &slot);
	idle = tenant_as(d.sock, GSPACE_CLASS_BE, &slot);
	r = !busy || !idle || gspd_ioctl(busy, GSPACE_IOCTL_SUBMIT, &sb) ||
	    ask(c, &k, &mean, &ok);
	tap_ok(!r && k == 2 && near_us(mean, expected_us(2)),
	       "admit: beside a BE at work (and one idle): k 2, the library's mean for 2 (%.1f us, library %.1f)",
	       mean, expected_us(2));
	if (busy)
		gspd_disconnect(busy);
	if (idle)
		gspd_disconnect(idle);
	sleep_ms(50);
	r = ask(c, &k, &mean, &ok);
	tap_ok(!r && k == 1,
	       "admit: the BE gone, k is 1 again (%u)", k);
	gspd_disconnect(c);
	daemon_stop(&d, "admit");
}

static void test_refusals(void)
{
	static char big[GSPD_ADMIT_TRACE_MAX + 1];
	char conf[3 * PATH_MAX], text[512];
	struct gspd_conn *c = NULL;
	struct gspd_admit req = { .device = 0, .pad = 1 };
	struct gspd_msg h = { .magic = GSPD_MAGIC, .version = GSPD_VERSION,
			      .op = GSPD_OP_ADMIT, .seq = 7,
			      .len = sizeof(req) };
	struct daemon d;
	unsigned char reply[sizeof(struct gspd_msg) + 512];
	int fd, raw, r;

	snprintf(conf, sizeof(conf),
		 "sim_devices = 1\nlease_devices = 0\nadmit_hw = %s\nadmit_lc = %s\n",
		 hw_path, lc_path);
	if (!daemon_start(&d, "admitbad", conf, 0) || gspd_connect(d.sock, &c)) {
		tap_ok(0, "admit: refusals: gspaced starts");
		daemon_stop(&d, "admitbad");
		return;
	}
	fd = trace_memfd(be_path, 0);
	r = gspd_admit(c, 0, fd, text, sizeof(text));
	tap_ok(r == -EINVAL && strstr(text, "sealed"),
	       "admit: an unsealed memfd: EINVAL, says to seal it (%d: %s)", r, text);
	close(fd);
	fd = open(be_path, O_RDONLY | O_CLOEXEC);
	r = gspd_admit(c, 0, fd, text, sizeof(text));
	tap_ok(r == -EINVAL, "admit: a plain file's descriptor: EINVAL (%d)", r);
	close(fd);
	memset(big, '#', sizeof(big));
	fd = memfd_of(big, sizeof(big), SEALED);
	r = gspd_admit(c, 0, fd, text, sizeof(text));
	tap_ok(r == -EFBIG, "admit: a trace over %u bytes: EFBIG (%d)",
	       GSPD_ADMIT_TRACE_MAX, r);
	close(fd);
	fd = memfd_of("not a trace\n", 12, SEALED);
	r = gspd_admit(c, 0, fd, text, sizeof(text));
	tap_ok(r == -EINVAL && strstr(text, "gsp-trace"),
	       "admit: a malformed trace: EINVAL, the reader's message (%s)", text);
	close(fd);
	fd = trace_memfd(be_path, SEALED);
	r = gspd_admit(c, 1, fd, text, sizeof(text));
	tap_ok(r == -ENODEV, "admit: device 1 of 1: ENODEV (%d)", r);
	close(fd);

	/* pad 1 and no descriptor, by hand */
	raw = raw_connect(d.sock);
	if (raw >= 0) {
		struct iovec iov[2] = { { &h, sizeof(h) }, { &req, sizeof(req) } };
		struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };
		struct gspd_msg *rh = (struct gspd_msg *)reply;
		ssize_t n;

		r = sendmsg(raw, &m, MSG_NOSIGNAL) < 0 ? -errno : 0;
		n = r ? -1 : recv(raw, reply, sizeof(reply), 0);
		tap_ok(n >= (ssize_t)sizeof(*rh) && rh->seq == 7 &&
		       rh->status == -EINVAL,
		       "admit: pad not 0: EINVAL (%d)", n > 0 ? rh->status : r);
		req.pad = 0;
		h.seq = 8;
		r = sendmsg(raw, &m, MSG_NOSIGNAL) < 0 ? -errno : 0;
		n = r ? -1 : recv(raw, reply, sizeof(reply), 0);
		tap_ok(n >= (ssize_t)sizeof(*rh) && rh->seq == 8 &&
		       rh->status == -EBADF,
		       "admit: no descriptor: EBADF (%d)", n > 0 ? rh->status : r);
		close(raw);
	} else {
		tap_ok(0, "admit: raw connect");
	}
	gspd_disconnect(c);
	daemon_stop(&d, "admitbad");

	/* Without the config: ENOENT, and says which keys. */
	if (!daemon_start(&d, "admitoff", "sim_devices = 1\nlease_devices = 0\n", 0) ||
	    gspd_connect(d.sock, &c)) {
		tap_ok(0, "admit: gspaced without admission starts");
		daemon_stop(&d, "admitoff");
		return;
	}
	fd = trace_memfd(be_path, SEALED);
	r = gspd_admit(c, 0, fd, text, sizeof(text));
	tap_ok(r == -ENOENT && strstr(text, "admit_hw"),
	       "admit: no admit_hw, admit_lc: ENOENT, names the keys (%s)", text);
	close(fd);
	gspd_disconnect(c);
	daemon_stop(&d, "admitoff");
}

/* gspaced exits 2 at start with @conf, and its log says @why. */
static void start_fails(const char *name, const char *conf, const char *why)
{
	struct daemon d;
	int st = -1;

	snprintf(d.conf, sizeof(d.conf), "%s/%s.conf", dir, name);
	snprintf(d.log, sizeof(d.log), "%s/%s.log", dir, name);
	snprintf(d.sock, sizeof(d.sock), "%s/%s.sock", dir, name);
	FILE *f = fopen(d.conf, "w");

	if (f) {
		fputs(conf, f);
		fclose(f);
	}
	d.pid = fork();
	if (!d.pid) {
		int fd = open(d.log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			      0644);

		if (fd < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(127);
		execl(gspaced, gspaced, "--foreground", "--config", d.conf,
		      "--socket", d.sock, (char *)NULL);
		_exit(127);
	}
	if (d.pid > 0)
		waitpid(d.pid, &st, 0);
	tap_ok(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 2 &&
	       file_has(d.log, why),
	       "admit: %s: gspaced exits 2 at start, says '%s' (0x%x)", name,
	       why, st);
	if (!(st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 2))
		show_log(d.log);
}

static void test_config(void)
{
	char conf[3 * PATH_MAX];

	snprintf(conf, sizeof(conf), "sim_devices = 1\nadmit_hw = %s\n",
		 hw_path);
	start_fails("admit_hw alone", conf, "both admit_hw and admit_lc");
	snprintf(conf, sizeof(conf),
		 "sim_devices = 1\nadmit_hw = %s\nadmit_lc = %s/none.csv\n",
		 hw_path, dir);
	start_fails("admit_lc missing", conf, "none.csv");
	start_fails("admit_q 0", "sim_devices = 1\nadmit_q = 0\n",
		    "admit_q = '0'");
}

int main(void)
{
	static void (*const tests[])(void) = {
		test_answers, test_refusals, test_config, NULL,
	};

	if (!realpath(FIX "hw.csv", hw_path) ||
	    !realpath(FIX "lc_kernel.csv", lc_path) ||
	    !realpath(FIX "be_kernel.csv", be_path)) {
		tap_ok(0, "admit: the fixtures under %s (run from the repository)",
		       FIX);
		return tap_done();
	}
	return daemon_main("admit", tests);
}
