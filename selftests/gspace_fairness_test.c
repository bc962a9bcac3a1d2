// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel against simulator: each vm-*.sim scenario of libgsp/sim/scenarios
 * runs twice, once in gsp-sim (linked in, simulated time) and once for
 * real on sim device 1 of /dev/gspace, with one thread and one tenant per
 * scenario tenant. Every tenant's share of COMPUTE time after warm-up must
 * match the simulator's within FAIR_TOL_PP percentage points, or
 * GSP_FAIR_TOL_PP's (make check-vm-debug: KASAN and lockdep make every
 * request slower and TCG's timers later, and the check there is for the
 * locking and memory, not the timing).
 *
 * The scenario texts are compiled in (the VM has no source tree); they are
 * parsed by the simulator's own parser, sim_parse_string(), which is what
 * sim_parse_file() calls on a file's contents.
 */
#include <pthread.h>
#include <stdint.h>

#include "gsp_util.h"
#include "sim.h"

#define FAIR_TOL_PP	3.0

/* FAIR_TOL_PP, or GSP_FAIR_TOL_PP (0 < pp <= 10); < 0 if that is bad. */
static double fair_tol(void)
{
	const char *e = getenv("GSP_FAIR_TOL_PP");
	char *end;
	double v;

	if (!e)
		return FAIR_TOL_PP;
	v = strtod(e, &end);
	return *e && !*end && v > 0 && v <= 10 ? v : -1;
}

struct fair_scenario {
	const char *name;
	const char *text;
};

/* Generated from libgsp/sim/scenarios/vm-*.sim by mk/selftests.mk. */
#include "gspace_fairness_scenarios.h"

struct fair_tenant {
	int fd;
	uint64_t kernel_ns, think_ns;
	const volatile int *stop;
	pthread_barrier_t *start;
	/* Results, read after join. */
	uint64_t jobs;
	int err;		/* errno of the first failure, 0 if none */
	const char *what;	/* the failing call */
	int status;		/* a job's WAIT status, if not 0 */
};

FIXTURE(fair) {
	int fd[SIM_MAX_TENANTS];
	int nfd;
	struct gsp_info info;
	char policy[32];	/* saved knobs, restored in teardown */
	char period[32];
	char band_wait[32];
};

FIXTURE_SETUP(fair)
{
	int i;

	for (i = 0; i < SIM_MAX_TENANTS; i++)
		self->fd[i] = -1;
}

FIXTURE_TEARDOWN(fair)
{
	int i;

	for (i = 0; i < self->nfd; i++)
		if (self->fd[i] >= 0)
			gsp_close(self->fd[i]);
	EXPECT_EQ(0, knobs_restore_band(self->policy, self->period,
					self->band_wait));
}

static void *fair_loop(void *arg)
{
	struct fair_tenant *t = arg;
	struct timespec think = {
		.tv_sec = t->think_ns / NSEC_PER_SEC,
		.tv_nsec = t->think_ns % NSEC_PER_SEC,
	};

	pthread_barrier_wait(t->start);
	while (!*t->stop) {
		struct gspace_submit s;
		struct gspace_wait w;

		submit_init(&s, GSPACE_ENGINE_COMPUTE, t->kernel_ns);
		if (gsp_ioctl(t->fd, GSPACE_IOCTL_SUBMIT, &s)) {
			t->err = errno;
			t->what = "SUBMIT";
			break;
		}
		if (wait_raw(t->fd, s.handle, 0, now_ns() + 60 * NSEC_PER_SEC,
			     &w)) {
			t->err = errno;
			t->what = "WAIT";
			break;
		}
		if (w.status) {
			t->status = w.status;
			break;
		}
		t->jobs++;
		if (t->think_ns)
			nanosleep(&think, NULL);
	}
	return NULL;
}

static void sleep_until(uint64_t t)
{
	uint64_t now = now_ns();
	struct timespec ts;

	if (now >= t)
		return;
	ts.tv_sec = (t - now) / NSEC_PER_SEC;
	ts.tv_nsec = (t - now) % NSEC_PER_SEC;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void knob_write_u64(struct __test_meta *_metadata, const char *knob,
			   uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	ASSERT_EQ(0, knob_write(knob, buf));
}

static void run_scenario(struct __test_meta *_metadata,
			 FIXTURE_DATA(fair) *self, const char *name)
{
	static struct sim_res res;
	static struct sim_cfg cfg;
	struct fair_tenant ft[SIM_MAX_TENANTS];
	struct gspace_stats st0[SIM_MAX_TENANTS], st1[SIM_MAX_TENANTS];
	const struct fair_scenario *sc = NULL;
	pthread_t th[SIM_MAX_TENANTS];
	pthread_barrier_t start;
	volatile int stop = 0;
	uint64_t t0, sum = 0, d;
	char err[256];
	unsigned int i, n;
	int bad = 0;

	if (fair_tol() < 0) {
		gsp_diag("GSP_FAIR_TOL_PP=%s: give percentage points, more than 0 and at most 10",
			 getenv("GSP_FAIR_TOL_PP"));
		ASSERT_TRUE(0);
	}
	for (i = 0; i < sizeof(fair_scenarios) / sizeof(fair_scenarios[0]); i++)
		if (!strcmp(fair_scenarios[i].name, name))
			sc = &fair_scenarios[i];
	if (!sc) {
		gsp_diag("%s: scenario not compiled in", name);
		ASSERT_TRUE(sc);
	}

	/* The simulator's expectation. */
	if (sim_parse_string(sc->name, sc->text, &cfg, err, sizeof(err))) {
		gsp_diag("%s", err);
		ASSERT_TRUE(0);
	}
	if (sim_run(&cfg, &res, err, sizeof(err))) {
		gsp_diag("%s: sim_run: %s", name, err);
		ASSERT_TRUE(0);
	}
	n = cfg.nr_tenants;
	for (i = 0; i < n; i++) {
		/* The sim engine runs a job for its cost: no jitter. */
		ASSERT_EQ(0, cfg.t[i].jitter_permille);
		ASSERT_EQ(SIM_LOOP, cfg.t[i].kind);
		ASSERT_FALSE(cfg.t[i].lc);
		ASSERT_EQ(0, cfg.t[i].start_ns);
	}
	ASSERT_EQ(0, cfg.p.reorder);
	ASSERT_EQ(0, cfg.switch_ns);

	/* The kernel: root, sim device 1, the scenario's knobs. */
	t_knob_save(_metadata, "policy", self->policy, sizeof(self->policy));
	t_knob_save(_metadata, "period_us", self->period,
		    sizeof(self->period));
	t_knob_save(_metadata, "band_wait_us", self->band_wait,
		    sizeof(self->band_wait));
	for (i = 0; i < n; i++) {
		self->fd[i] = t_open(_metadata);
		self->nfd = i + 1;
	}
	t_info(_metadata, self->fd[0], &self->info);
	if (self->info.sim_devices < 2)
		SKIP("needs sim device 1 (%d sim devices)",
		     self->info.sim_devices);
	ASSERT_EQ(0, knob_write("band_wait_us", "1"));
	knob_write_u64(_metadata, "period_us", cfg.p.period_ns / 1000);
	knob_write_u64(_metadata, "band_wait_us", cfg.p.band_wait_ns / 1000);
	ASSERT_EQ(0, knob_write("policy", gsp_policy_names[cfg.p.policy]));
	for (i = 0; i < n; i++)
		t_ctx(_metadata, self->fd[i], 1, cfg.t[i].weight);

	ASSERT_EQ(0, pthread_barrier_init(&start, NULL, n + 1));
	memset(ft, 0, sizeof(ft));
	for (i = 0; i < n; i++) {
		ft[i].fd = self->fd[i];
		ft[i].kernel_ns = cfg.t[i].kernel_ns;
		ft[i].think_ns = cfg.t[i].think_ns;
		ft[i].stop = &stop;
		ft[i].start = &start;
		ASSERT_EQ(0, pthread_create(&th[i], NULL, fair_loop, &ft[i]));
	}
	pthread_barrier_wait(&start);
	t0 = now_ns();
	sleep_until(t0 + cfg.warmup_ns);
	for (i = 0; i < n; i++)
		t_stats(_metadata, self->fd[i], &st0[i]);
	sleep_until(t0 + cfg.duration_ns);
	for (i = 0; i < n; i++)
		t_stats(_metadata, self->fd[i], &st1[i]);
	stop = 1;
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	pthread_barrier_destroy(&start);

	for (i = 0; i < n; i++) {
		if (ft[i].err || ft[i].status) {
			gsp_diag("%s: tenant %s: %s failed: errno %d (%s), job status %d",
				 name, cfg.t[i].name, ft[i].what ? ft[i].what : "job",
				 ft[i].err, gsp_errname(ft[i].err), ft[i].status);
			bad = 1;
		}
		sum += st1[i].gpu_ns[GSPACE_ENGINE_COMPUTE] -
		       st0[i].gpu_ns[GSPACE_ENGINE_COMPUTE];
	}
	ASSERT_FALSE(bad);
	ASSERT_LT(0, sum);
	gsp_diag("%s: policy %s, %llu ms after %llu ms warm-up; kernel busy %.1f ms (simulator %.1f ms)",
		 name, gsp_policy_names[cfg.p.policy],
		 (unsigned long long)((cfg.duration_ns - cfg.warmup_ns) / NSEC_PER_MSEC),
		 (unsigned long long)(cfg.warmup_ns / NSEC_PER_MSEC),
		 sum / 1e6, res.busy_ns[GSP_ENGINE_COMPUTE] / 1e6);
	for (i = 0; i < n; i++) {
		double sim = 100.0 * res.t[i].share;
		double got, tol = fair_tol();

		d = st1[i].gpu_ns[GSPACE_ENGINE_COMPUTE] -
		    st0[i].gpu_ns[GSPACE_ENGINE_COMPUTE];
		got = 100.0 * (double)d / (double)sum;
		gsp_diag("%s: tenant %s weight %u: simulator %.2f%%, kernel %.2f%% (%llu jobs)",
			 name, cfg.t[i].name, cfg.t[i].weight, sim, got,
			 (unsigned long long)ft[i].jobs);
		if (got - sim > tol || sim - got > tol) {
			gsp_diag("%s: tenant %s: expected a share of %.2f%% +- %.0f pp (simulator) but observed %.2f%% (kernel)",
				 name, cfg.t[i].name, sim, tol, got);
			_metadata->failed = 1;
		}
	}
}

TEST_F_TIMEOUT(fair, vm_fifo_1_10, 60)
{
	run_scenario(_metadata, self, "vm-fifo-1-10.sim");
}

TEST_F_TIMEOUT(fair, vm_credit_pause_2, 60)
{
	run_scenario(_metadata, self, "vm-credit-pause-2.sim");
}

TEST_F_TIMEOUT(fair, vm_band_pause_2, 60)
{
	run_scenario(_metadata, self, "vm-band-pause-2.sim");
}

TEST_F_TIMEOUT(fair, vm_band_weighted_3, 60)
{
	run_scenario(_metadata, self, "vm-band-weighted-3.sim");
}

TEST_HARNESS_MAIN
