// SPDX-License-Identifier: GPL-2.0
/*
 * Kill-anywhere: a tenant is SIGKILLed at GSP_KILL_POINTS random points
 * (default 1000) of its life of SUBMIT, WAIT, COMPLETE, renewal, CANCEL,
 * fences and chains, on the lease device and a sim device, on either
 * arbiter (gsp_transport.h). A point is a random delay in microseconds
 * after the victim's fork, or a random count of its requests, after which
 * it kills itself.
 *
 * Two other tenants run all along: one takes the lease device's grant
 * and completes in a loop, one runs short jobs on sim device 0. After
 * each kill:
 *
 * - both get service again, and the gap from the kill to their next
 *   grant (lease) or end of job (sim) stays under half the watchdog
 *   period: a lease that only the watchdog took back would come a whole
 *   period after its grant, and a victim lives at most a quarter of one;
 * - the object counters (debugfs "objects" on the device, the daemon's
 *   "objects" on gspaced) hold the baseline's contexts plus the two
 *   survivors', and no more jobs or fences than the survivors can hold.
 *
 * At the end, with the survivors gone, the counters equal the baseline
 * and, on the device, the kernel log has no oops, BUG or WARNING. It
 * prints "# kill-anywhere: N points, L leaked objects". GSP_KILL_SEED
 * replays the points' choices (the seed is printed).
 */
#include <signal.h>

#include "gsp_util.h"
#include "gsp_chaos.h"

#define KA_POINTS	1000
#define KA_HANDLES	8
#define KA_FENCES	4
/* What the two survivors can hold between them. */
#define KA_SURVIVORS	2
#define KA_SURV_JOBS	2
#define KA_SURV_FENCES	4

struct ka_shared {
	/* Per survivor: the last grant (lease) or end (sim), and count. */
	uint64_t served_ns[KA_SURVIVORS];
	uint64_t served[KA_SURVIVORS];
	int err[KA_SURVIVORS];	/* errno of an unexpected failure */
	int err_line[KA_SURVIVORS];
	int stop;
};

static void ka_served(struct ka_shared *sh, int who)
{
	__atomic_store_n(&sh->served_ns[who], now_ns(), __ATOMIC_RELEASE);
	__atomic_fetch_add(&sh->served[who], 1, __ATOMIC_RELAXED);
}

#define KA_FAIL(sh, who) do {						\
	if (!(sh)->err[who]) {						\
		(sh)->err_line[who] = __LINE__;				\
		(sh)->err[who] = errno ? errno : -1;			\
	}								\
} while (0)

/*
 * Survivor 0 on @lease_dev: SUBMIT, wait for the grant, COMPLETE. Survivor
 * 1 on sim device 0: SUBMIT a 200 us job and wait for its end.
 */
static void __attribute__((noreturn))
ka_survivor(struct ka_shared *sh, int who, int dev, uint64_t wd_ns)
{
	int fd = gsp_open();
	struct gspace_wait w;
	struct gspace_submit s;

	if (fd < 0 || ctx_set_raw(fd, dev, GSPACE_CLASS_BE,
				  GSPACE_WEIGHT_DEFAULT, 0)) {
		KA_FAIL(sh, who);
		_exit(1);
	}
	while (!__atomic_load_n(&sh->stop, __ATOMIC_ACQUIRE)) {
		submit_init(&s, GSPACE_ENGINE_COMPUTE,
			    who ? 200000 : 0);
		if (gsp_ioctl(fd, GSPACE_IOCTL_SUBMIT, &s)) {
			KA_FAIL(sh, who);
			break;
		}
		if (who) {
			if (wait_raw(fd, s.handle, 0, now_ns() + 4 * wd_ns,
				     &w) || w.status) {
				KA_FAIL(sh, who);
				break;
			}
			ka_served(sh, who);
			continue;
		}
		if (wait_raw(fd, s.handle, GSPACE_WAIT_GRANTED,
			     now_ns() + 4 * wd_ns, NULL)) {
			KA_FAIL(sh, who);
			break;
		}
		ka_served(sh, who);
		if (complete_raw(fd, s.handle, 1000, 0)) {
			KA_FAIL(sh, who);
			break;
		}
	}
	gsp_close(fd);
	_exit(0);
}

struct ka_victim {
	struct gsp_rng rng;
	int fd[2];		/* 0: the lease device, 1: sim device 0 */
	uint64_t h[2][KA_HANDLES];
	int nh[2];
	int fence[KA_FENCES];
	uint64_t ops, kill_at;	/* kill_at 0: the parent kills */
};

/* Counts a request and dies at the chosen one. */
static void ka_op(struct ka_victim *v)
{
	if (++v->ops == v->kill_at)
		raise(SIGKILL);
}

static void ka_keep(struct ka_victim *v, int t, uint64_t h)
{
	if (v->nh[t] < KA_HANDLES)
		v->h[t][v->nh[t]++] = h;
	else
		v->h[t][rng_below(&v->rng, KA_HANDLES)] = h;
}

static int ka_pick(struct ka_victim *v, int t, uint64_t *h)
{
	int i;

	if (!v->nh[t])
		return -1;
	i = (int)rng_below(&v->rng, v->nh[t]);
	*h = v->h[t][i];
	return i;
}

static void ka_drop(struct ka_victim *v, int t, int i)
{
	v->h[t][i] = v->h[t][--v->nh[t]];
}

static void ka_submit(struct ka_victim *v, int t)
{
	struct gsp_rng *r = &v->rng;
	struct gspace_submit s;
	int f;

	if (v->nh[t] >= KA_HANDLES)
		return;
	submit_init(&s, rng_chance(r, 4, 5) ? GSPACE_ENGINE_COMPUTE :
		    (uint32_t)rng_below(r, GSPACE_ENGINE_COUNT),
		    t ? rng_below(r, 2 * NSEC_PER_MSEC) : 0);
	if (rng_chance(r, 1, 3))
		s.flags |= GSPACE_SUBMIT_FENCE_OUT;
	if (rng_chance(r, 1, 4))
		s.flags |= GSPACE_SUBMIT_CHAIN;
	f = (int)rng_below(r, KA_FENCES);
	if (v->fence[f] >= 0 && rng_chance(r, 1, 3)) {
		s.flags |= GSPACE_SUBMIT_FENCE_IN;
		s.in_fence_fd = v->fence[f];
	}
	ka_op(v);
	if (gsp_ioctl(v->fd[t], GSPACE_IOCTL_SUBMIT, &s))
		return;
	ka_keep(v, t, s.handle);
	if (s.out_fence_fd >= 0) {
		f = (int)rng_below(r, KA_FENCES);
		if (v->fence[f] >= 0)
			close(v->fence[f]);
		v->fence[f] = s.out_fence_fd;
	}
}

/* One step of the victim's life. */
static void ka_step(struct ka_victim *v)
{
	struct gsp_rng *r = &v->rng;
	struct gspace_wait w;
	uint64_t h;
	int t = (int)rng_below(r, 2), i;

	switch (rng_below(r, 8)) {
	case 0:
	case 1:
		ka_submit(v, t);
		break;
	case 2:		/* the grant, or the end of a sim job */
		i = ka_pick(v, t, &h);
		if (i < 0)
			break;
		ka_op(v);
		if (!wait_raw(v->fd[t], h, t ? 0 : GSPACE_WAIT_GRANTED,
			      now_ns() + rng_below(r, 20 * NSEC_PER_MSEC),
			      &w) && t)
			ka_drop(v, t, i);
		break;
	case 3:		/* a lease ends, or is renewed */
		i = ka_pick(v, 0, &h);
		if (i < 0)
			break;
		ka_op(v);
		if (rng_chance(r, 1, 3)) {
			progress_raw(v->fd[0], h, rng_below(r, NSEC_PER_MSEC));
		} else if (!complete_raw(v->fd[0], h,
					 rng_below(r, NSEC_PER_MSEC),
					 rng_chance(r, 1, 8) ? -EIO : 0)) {
			ka_drop(v, 0, i);
		}
		break;
	case 4:
		i = ka_pick(v, t, &h);
		if (i < 0)
			break;
		ka_op(v);
		cancel_raw(v->fd[t], h);
		break;
	case 5:		/* reap whatever has ended */
		i = ka_pick(v, t, &h);
		if (i < 0)
			break;
		ka_op(v);
		if (!wait_raw(v->fd[t], h, 0, 0, &w))
			ka_drop(v, t, i);
		break;
	case 6:
		i = (int)rng_below(r, KA_FENCES);
		if (v->fence[i] >= 0) {
			close(v->fence[i]);
			v->fence[i] = -1;
		}
		break;
	default:	/* holds the lease a while, as a GPU job would */
		usleep((useconds_t)rng_below(r, 2000));
		break;
	}
}

static void __attribute__((noreturn))
ka_victim_main(uint64_t seed, uint64_t kill_at, int lease_dev, int sim_dev)
{
	struct ka_victim v;
	int i;

	memset(&v, 0, sizeof(v));
	v.rng.s = seed;
	v.kill_at = kill_at;
	for (i = 0; i < KA_FENCES; i++)
		v.fence[i] = -1;
	v.fd[0] = gsp_open();
	v.fd[1] = gsp_open();
	if (v.fd[0] < 0 || v.fd[1] < 0)
		_exit(1);
	ka_op(&v);
	ctx_set_raw(v.fd[0], lease_dev, GSPACE_CLASS_BE,
		    1 + (uint32_t)rng_below(&v.rng, 1000), 0);
	ka_op(&v);
	ctx_set_raw(v.fd[1], sim_dev, GSPACE_CLASS_BE,
		    1 + (uint32_t)rng_below(&v.rng, 1000), 0);
	for (;;)
		ka_step(&v);
}

/* Waits until survivor @who is served after @t; the gap, or ~0 if not. */
static uint64_t ka_gap(struct ka_shared *sh, int who, uint64_t t,
		       uint64_t limit_ns)
{
	for (;;) {
		uint64_t s = __atomic_load_n(&sh->served_ns[who],
					     __ATOMIC_ACQUIRE);

		if (s > t)
			return s - t;
		if (now_ns() - t > limit_ns)
			return ~0ULL;
		usleep(200);
	}
}

/* The counters are in their band: 1 within @timeout_ms, else 0. */
static int ka_objects_ok(const struct gsp_objects *base,
			 struct gsp_objects *o, int timeout_ms)
{
	uint64_t end = now_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC;

	for (;;) {
		if (objects_read(o) == 0 &&
		    o->contexts == base->contexts + KA_SURVIVORS &&
		    o->jobs <= base->jobs + KA_SURV_JOBS &&
		    o->fences <= base->fences + KA_SURV_FENCES)
			return 1;
		if (now_ns() >= end)
			return 0;
		sleep_ms(5);
	}
}

TEST_TIMEOUT(kill_anywhere, 1800)
{
	uint64_t seed = gsp_seed("GSP_KILL_SEED");
	uint64_t points = gsp_env_count("GSP_KILL_POINTS", KA_POINTS);
	uint64_t wd_ns = 2000 * NSEC_PER_MSEC, gap_max[KA_SURVIVORS] = { 0 };
	uint64_t gap_sum[KA_SURVIVORS] = { 0 }, life_max, p, t0, t_kill;
	uint64_t self_kills = 0, bad_points = 0, bad_gaps = 0;
	struct gsp_objects base, o;
	struct gsp_rng r = { rng_derive(seed, ~0ULL) };
	struct gsp_info info;
	struct ka_shared *sh;
	pid_t surv[KA_SURVIVORS];
	long long leaked;
	char raw[64];
	int fd, kfd = -1, oops = 0, i, lease_dev, sim_dev, st, reaped;

	fd = t_open(_metadata);
	t_info(_metadata, fd, &info);
	gsp_close(fd);
	/* The counters need root on the device. */
	t_objects_baseline(_metadata, &base);
	if (!gsp_on_daemon()) {
		kfd = kmsg_open();
		ASSERT_LE(0, kfd);
	}
	if (knob_read("watchdog_ms", raw, sizeof(raw)) == 0 && atoi(raw) > 0)
		wd_ns = (uint64_t)atoi(raw) * NSEC_PER_MSEC;
	life_max = wd_ns / 4;
	lease_dev = info.lease_dev >= 0 ? info.lease_dev : 0;
	/* The sim survivor's device: the victim competes with it. */
	sim_dev = 0;
	gsp_diag("seed %llu (GSP_KILL_SEED=%llu replays it), %llu points, "
		 "watchdog %llu ms, lease device %d%s",
		 (unsigned long long)seed, (unsigned long long)seed,
		 (unsigned long long)points,
		 (unsigned long long)(wd_ns / NSEC_PER_MSEC), lease_dev,
		 info.lease_dev < 0 ? " (none: a sim device)" : "");

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	memset(sh, 0, sizeof(*sh));
	for (i = 0; i < KA_SURVIVORS; i++) {
		surv[i] = fork();
		if (surv[i] == 0)
			ka_survivor(sh, i, i ? sim_dev : lease_dev, wd_ns);
		ASSERT_LT(0, surv[i]);
	}
	/* Both are served before the first kill. */
	t0 = now_ns();
	for (i = 0; i < KA_SURVIVORS; i++)
		ASSERT_NE(~0ULL, ka_gap(sh, i, t0, GSP_SLOW_NS));

	t0 = now_ns();
	for (p = 0; p < points && !_metadata->failed; p++) {
		uint64_t vseed = rng_derive(seed, p), kill_at = 0, delay_us;
		pid_t v;

		/* A delay, mostly short; or a count of requests. */
		switch (rng_below(&r, 10)) {
		case 0:
		case 1:
			delay_us = rng_below(&r, 500);
			break;
		case 2:
			delay_us = rng_below(&r, 200000);
			break;
		case 3:
		case 4:
		case 5:
			kill_at = 1 + rng_below(&r, 64);
			self_kills++;
			/* and the parent's kill after its longest life */
			delay_us = life_max / 1000;
			break;
		default:
			delay_us = rng_below(&r, 20000);
			break;
		}
		v = fork();
		ASSERT_LE(0, v);
		if (v == 0)
			ka_victim_main(vseed, kill_at, lease_dev, sim_dev);
		reaped = 0;
		if (kill_at) {
			uint64_t end = now_ns() + delay_us * 1000;

			while (!(reaped = waitpid(v, &st, WNOHANG) == v) &&
			       now_ns() < end)
				usleep(100);
		} else {
			usleep((useconds_t)delay_us);
		}
		t_kill = now_ns();
		if (!reaped) {
			kill(v, SIGKILL);
			ASSERT_EQ(v, waitpid(v, &st, 0));
		}
		if (!WIFSIGNALED(st) || WTERMSIG(st) != SIGKILL) {
			gsp_diag("point %llu: the victim ended with status "
				 "0x%x, not by SIGKILL",
				 (unsigned long long)p, st);
			_metadata->failed = 1;
		}
		for (i = 0; i < KA_SURVIVORS; i++) {
			uint64_t g = ka_gap(sh, i, t_kill, wd_ns);

			if (g != ~0ULL) {
				gap_sum[i] += g;
				if (g > gap_max[i])
					gap_max[i] = g;
			}
			if (g == ~0ULL || g >= wd_ns / 2) {
				gsp_diag("point %llu: survivor %d (%s) served "
					 "%s%.1f ms after the kill, watchdog "
					 "%llu ms", (unsigned long long)p, i,
					 i ? "sim" : "lease",
					 g == ~0ULL ? "not within " : "",
					 (g == ~0ULL ? wd_ns : g) / 1e6,
					 (unsigned long long)(wd_ns /
							      NSEC_PER_MSEC));
				bad_gaps++;
				_metadata->failed = 1;
			}
		}
		if (!ka_objects_ok(&base, &o, 2000)) {
			gsp_diag("point %llu (seed %llu, kill %s %llu): "
				 "contexts %lld jobs %lld fences %lld, "
				 "baseline %lld %lld %lld and the survivors' "
				 "%d, <= %d, <= %d", (unsigned long long)p,
				 (unsigned long long)seed,
				 kill_at ? "at request" : "after us",
				 (unsigned long long)(kill_at ? kill_at :
						      delay_us),
				 o.contexts, o.jobs, o.fences, base.contexts,
				 base.jobs, base.fences, KA_SURVIVORS,
				 KA_SURV_JOBS, KA_SURV_FENCES);
			bad_points++;
			_metadata->failed = 1;
		}
		for (i = 0; i < KA_SURVIVORS; i++)
			if (sh->err[i]) {
				gsp_diag("point %llu: survivor %d failed at "
					 "line %d: %s", (unsigned long long)p,
					 i, sh->err_line[i],
					 strerror(sh->err[i]));
				_metadata->failed = 1;
			}
	}
	__atomic_store_n(&sh->stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < KA_SURVIVORS; i++) {
		ASSERT_EQ(surv[i], waitpid(surv[i], &st, 0));
		EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	EXPECT_TRUE(objects_settle(&base, &o, 5000));
	leaked = (o.contexts - base.contexts) + (o.jobs - base.jobs) +
		 (o.fences - base.fences);
	if (leaked)
		gsp_diag("left: contexts %lld jobs %lld fences %lld, baseline "
			 "%lld %lld %lld", o.contexts, o.jobs, o.fences,
			 base.contexts, base.jobs, base.fences);
	if (kfd >= 0)
		oops = kmsg_count_oops(kfd);
	gsp_diag("%llu points in %.1f s (%llu by request count), %llu with "
		 "objects out of band, %llu late; gap after a kill: lease max "
		 "%.1f ms mean %.2f ms, sim max %.1f ms mean %.2f ms; "
		 "watchdog %llu ms", (unsigned long long)p,
		 (now_ns() - t0) / 1e9, (unsigned long long)self_kills,
		 (unsigned long long)bad_points, (unsigned long long)bad_gaps,
		 gap_max[0] / 1e6, p ? gap_sum[0] / 1e6 / p : 0.0,
		 gap_max[1] / 1e6, p ? gap_sum[1] / 1e6 / p : 0.0,
		 (unsigned long long)(wd_ns / NSEC_PER_MSEC));
	gsp_diag("kill-anywhere: %llu points, %lld leaked objects%s",
		 (unsigned long long)p, leaked,
		 gsp_on_daemon() ? " (gspaced)" : "");
	EXPECT_EQ(points, p);
	EXPECT_EQ(0, leaked);
	EXPECT_EQ(0, oops);
}

TEST_HARNESS_MAIN
