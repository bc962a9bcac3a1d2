// SPDX-License-Identifier: GPL-2.0
/*
 * Admission at registration (Documentation/gspaced.rst, "Admission"):
 * before a BE starts, gsp-run sends its solo trace and gspaced
 * predicts, with Prophet, the LC's mean beside the BE tenants already at
 * work on the device plus this one, against the operator's LC trace and
 * hw.csv (admit_lc, admit_hw). The daemon knows what no client does: how
 * many BEs run.
 *
 * The trace comes in a memfd sealed against writes, growth and
 * shrinking: its bytes cannot change under the parser, and reading it
 * cannot block the daemon's one loop, as a file on FUSE or NFS could.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gspaced.h"
#include "prophet.h"
#include "trace.h"

#define SEALS_NEEDED	(F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW)

/*
 * The operator's hw.csv and LC trace: loaded once at start, read-only
 * after, by the daemon's one thread; "on" if the config named both.
 */
static struct {
	bool on;
	struct gsp_hw hw;
	struct gsp_trace lc;
} admit;

int gd_admit_load(void)
{
	const struct gd_config *c = &gd_state.cfg;
	char err[PATH_MAX + 128] = "";
	int r;

	if (!c->admit_hw[0] && !c->admit_lc[0])
		return 0;
	if (!c->admit_hw[0] || !c->admit_lc[0]) {
		gd_log(GD_LOG_ERR, "admission needs both admit_hw and admit_lc; give the other or neither\n");
		return -1;
	}
	r = gsp_hw_load(c->admit_hw, &admit.hw, err, sizeof(err));
	if (!r)
		r = gsp_trace_load(c->admit_lc, &admit.hw, &admit.lc, err,
				   sizeof(err));
	if (!r && admit.lc.nqueries < 2) {
		snprintf(err, sizeof(err), "%s has %zu queries: none is left after its set-up",
			 c->admit_lc, admit.lc.nqueries);
		r = -EINVAL;
	}
	if (r) {
		gd_log(GD_LOG_ERR, "admission: %s\n", err[0] ? err : strerror(-r));
		gsp_trace_free(&admit.lc);
		return -1;
	}
	admit.on = true;
	return 0;
}

/* BE tenants at work on @dev (any job so far), @asker left out. */
static unsigned int busy_be(uint32_t dev, const struct gd_tenant *asker)
{
	const struct gd_tenant *x;
	unsigned int n = 0;

	for (x = gd_state.tenants; x; x = x->next) {
		const struct gsp_tenant_acct *a = &x->acct;

		if (x == asker || x->dead || x->class != GSPACE_CLASS_BE ||
		    !x->dev || x->dev->index != dev)
			continue;
		n += a->nr_queued + a->nr_running + a->nr_completed +
		     a->nr_failed > 0;
	}
	return n;
}

/* The BE's trace from @fd into @bt: 0, or -errno with why in @err. */
static int read_be_trace(int fd, struct gsp_trace *bt, char *err, size_t sz)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS), dfd, r;
	FILE *f;

	if (seals < 0 || (seals & SEALS_NEEDED) != SEALS_NEEDED) {
		snprintf(err, sz, "the trace must come in a memfd sealed against writes, growth and shrinking");
		return -EINVAL;
	}
	if (fstat(fd, &st) || st.st_size > GSPD_ADMIT_TRACE_MAX) {
		snprintf(err, sz, "the trace is larger than %u bytes",
			 GSPD_ADMIT_TRACE_MAX);
		return -EFBIG;
	}
	dfd = dup(fd);
	f = dfd < 0 ? NULL : fdopen(dfd, "r");
	if (!f) {
		if (dfd >= 0)
			close(dfd);
		snprintf(err, sz, "%s", strerror(errno));
		return -ENOMEM;
	}
	/* The offset is shared with the client's descriptor: start over. */
	rewind(f);
	r = gsp_trace_read(f, "the BE's trace", &admit.hw, bt, err, sz);
	fclose(f);
	return r;
}

void gd_admit_handle(struct gd_tenant *t, const struct gspd_msg *h,
		     const unsigned char *p, int fd)
{
	const struct gsp_trace *be[GSP_PROPHET_MAX_BE];
	struct gsp_prophet_cfg cfg = { .model = GSP_PROPHET_FLUID, .skip = 1 };
	struct gsp_prophet_target tg = { .q = gd_state.cfg.admit_q,
					 .cap_ns = 100e6 };
	struct gsp_prophet_result res;
	struct gsp_trace bt = { 0 };
	struct gspd_admit req;
	char text[512] = "";
	unsigned int k, i;
	double target;
	int r = 0;

	if (h->len != sizeof(req)) {
		r = -EINVAL;
		snprintf(text, sizeof(text), "ADMIT takes %zu bytes", sizeof(req));
		goto reply;
	}
	memcpy(&req, p, sizeof(req));
	if (req.pad || req.device >= gd_state.cfg.nr_sim + gd_state.cfg.nr_lease) {
		r = req.pad ? -EINVAL : -ENODEV;
		snprintf(text, sizeof(text), "%s", req.pad ? "pad must be 0" :
			 "no such device");
		goto reply;
	}
	if (!admit.on) {
		r = -ENOENT;
		snprintf(text, sizeof(text), "this gspaced has no admission traces (admit_hw, admit_lc)");
		goto reply;
	}
	if (fd < 0) {
		r = -EBADF;
		snprintf(text, sizeof(text), "ADMIT needs the trace's memfd");
		goto reply;
	}
	r = read_be_trace(fd, &bt, text, sizeof(text));
	if (r)
		goto reply;
	k = busy_be(req.device, t) + 1;
	if (k > GSP_PROPHET_MAX_BE)
		k = GSP_PROPHET_MAX_BE;
	for (i = 0; i < k; i++)
		be[i] = &bt;	/* the BEs at work, modelled as this one */
	r = gsp_prophet_predict(&admit.hw, &admit.lc, be, k, &cfg, &res);
	gsp_trace_free(&bt);
	if (r) {
		snprintf(text, sizeof(text), "the prediction failed: %s",
			 strerror(-r));
		goto reply;
	}
	target = gsp_prophet_target_ns(&tg, res.lc_solo_mean_ns);
	snprintf(text, sizeof(text),
		 "k=%u admitted=%d lc_solo_us=%.1f lc_mean_us=%.1f target_us=%.1f",
		 k, gsp_prophet_within(res.lc_mean_ns, target),
		 res.lc_solo_mean_ns / 1e3, res.lc_mean_ns / 1e3, target / 1e3);
	gsp_prophet_result_free(&res);
reply:
	if (fd >= 0)
		close(fd);
	gd_reply(t, h->seq, h->op, r, text, strlen(text) + 1, -1);
}
