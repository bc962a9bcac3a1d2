// SPDX-License-Identifier: GPL-2.0
/*
 * The board's dev[].waiting (ABI 1.4, GSPACE_FEAT_PREEMPT): the jobs
 * queued for a device's compute engine and not yet granted, which a BE
 * lease holder reads to know whether anyone waits for the engine. It
 * must be exact at every transition: a job queued behind another tenant's
 * lease counts, and stops counting when it is granted, cancelled, or its
 * tenant closes its file or is killed; a job waiting for its chained
 * predecessor does not count yet; copy engines never count; sim devices
 * count too; the watchdog marking a holder hung hands the engine on and
 * the count follows.
 *
 * Runs on both transports: a BE tenant's read-only board, mapped through
 * the transport. The arbiters under test are built from this tree, so an
 * arbiter without the feature fails.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "gsp_util.h"

static uint64_t waiting(const struct gspace_board *b, uint32_t dev)
{
	return __atomic_load_n(&b->dev[dev].waiting, __ATOMIC_ACQUIRE);
}

/*
 * Polls (up to GSP_SLOW_NS) until @dev's count is @want: a closed or
 * killed tenant is released a little later, on the daemon after its
 * socket's hang-up is seen. Returns the last count read.
 */
static uint64_t waiting_settles(const struct gspace_board *b, uint32_t dev,
				uint64_t want)
{
	uint64_t end = now_ns() + GSP_SLOW_NS, n;

	while ((n = waiting(b, dev)) != want && now_ns() < end)
		sleep_ms(5);
	return n;
}

/*
 * gspaced answers SUBMIT before it queues the job, in the same loop
 * iteration; one more request on the tenant, answered in order, waits
 * for that. The module queues before SUBMIT returns.
 */
static void sync_tenant(struct __test_meta *_metadata, int fd)
{
	struct gspace_stats st;

	t_stats(_metadata, fd, &st);
}

static uint64_t queue_job(struct __test_meta *_metadata, int fd,
			  uint32_t engine, uint64_t cost_ns, uint32_t flags)
{
	uint64_t h = t_submit_fl(_metadata, fd, engine, cost_ns, flags, -1,
				 NULL);

	sync_tenant(_metadata, fd);
	return h;
}

#define queue(fd, cost)	queue_job(_metadata, (fd), GSPACE_ENGINE_COMPUTE, \
				  (cost), 0)

FIXTURE(waiting) {
	int fd;			/* the observer, BE, with the board mapped */
	int a, b;		/* two tenants on one engine */
	struct gsp_info info;
	struct gspace_board *board;
	char watchdog[64];	/* saved watchdog_ms, or "" */
};

FIXTURE_SETUP(waiting)
{
	self->fd = self->a = self->b = -1;
	self->board = NULL;
	self->watchdog[0] = 0;
	self->fd = t_open(_metadata);
	t_info(_metadata, self->fd, &self->info);
	if (!(self->info.v.features & GSPACE_FEAT_PREEMPT))
		TH_LOG("the arbiter (ABI %u.%u) lacks GSPACE_FEAT_PREEMPT",
		       self->info.v.abi_major, self->info.v.abi_minor);
	ASSERT_TRUE(self->info.v.features & GSPACE_FEAT_PREEMPT);
	ASSERT_LE(4, self->info.v.abi_minor);
	self->board = gsp_board_map(self->fd, 0);
	ASSERT_NE(NULL, self->board);
	self->a = t_open(_metadata);
	self->b = t_open(_metadata);
}

FIXTURE_TEARDOWN(waiting)
{
	t_close(&self->b);
	t_close(&self->a);
	if (self->watchdog[0])
		EXPECT_EQ(0, knob_write("watchdog_ms", self->watchdog));
	if (self->board)
		munmap(self->board, GSPACE_BOARD_SIZE);
	t_close(&self->fd);
}

/* Both tenants on @dev, and nothing left queued there by earlier tests. */
static void two_on(struct __test_meta *_metadata, FIXTURE_DATA(waiting) *self,
		   uint32_t dev)
{
	t_ctx(_metadata, self->a, dev, 100);
	t_ctx(_metadata, self->b, dev, 100);
	ASSERT_EQ(0, waiting_settles(self->board, dev, 0));
}

/* @fd's lease on the lease device, granted. */
static uint64_t hold_lease(struct __test_meta *_metadata, int fd)
{
	uint64_t h = t_submit(_metadata, fd, 1000000);

	t_wait_granted(_metadata, fd, h, GSP_SLOW_NS);
	return h;
}

static void end_lease(struct __test_meta *_metadata, int fd, uint64_t h)
{
	ASSERT_OK(complete_raw(fd, h, 1000, 0));
}

/* Queued behind a lease, then granted: 0, 1, 0; a grant at once: never. */
TEST_F(waiting, queued_until_granted)
{
	uint32_t L;
	uint64_t ha, hb, hb2;
	struct gspace_stats st;

	t_need_lease(_metadata, &self->info);
	L = self->info.lease_dev;
	two_on(_metadata, self, L);

	ha = hold_lease(_metadata, self->a);
	ASSERT_EQ(0, waiting(self->board, L));
	hb = queue(self->b, 1000000);
	ASSERT_EQ(1, waiting(self->board, L));
	t_stats(_metadata, self->b, &st);
	ASSERT_EQ(1, st.queued);
	/* Chained after a queued job: waits for it, not for the engine. */
	hb2 = queue_job(_metadata, self->b, GSPACE_ENGINE_COMPUTE, 1000000,
			GSPACE_SUBMIT_CHAIN);
	ASSERT_EQ(1, waiting(self->board, L));
	/* Only another device's compute jobs: none here. */
	if (self->info.num_devices > 1)
		ASSERT_EQ(0, waiting(self->board, L ? 0 : 1));

	/* The lease ends: b's job is granted, its successor still waits. */
	end_lease(_metadata, self->a, ha);
	t_wait_granted(_metadata, self->b, hb, GSP_SLOW_NS);
	ASSERT_EQ(0, waiting(self->board, L));
	end_lease(_metadata, self->b, hb);
	/* The successor is queued and granted at once: it never waits. */
	t_wait_granted(_metadata, self->b, hb2, GSP_SLOW_NS);
	ASSERT_EQ(0, waiting(self->board, L));
	end_lease(_metadata, self->b, hb2);
	ASSERT_EQ(0, waiting(self->board, L));
}

/* Copy engines have their own queues: they never count. */
TEST_F(waiting, copy_engines_not_counted)
{
	uint32_t L;
	uint64_t ha, hb, hc;

	t_need_lease(_metadata, &self->info);
	L = self->info.lease_dev;
	two_on(_metadata, self, L);

	ha = t_submit_fl(_metadata, self->a, GSPACE_ENGINE_COPY_H2D, 1000, 0,
			 -1, NULL);
	t_wait_granted(_metadata, self->a, ha, GSP_SLOW_NS);
	hb = queue_job(_metadata, self->b, GSPACE_ENGINE_COPY_H2D, 1000, 0);
	hc = queue_job(_metadata, self->b, GSPACE_ENGINE_COPY_D2H, 1000, 0);
	t_wait_granted(_metadata, self->b, hc, GSP_SLOW_NS);
	ASSERT_EQ(0, waiting(self->board, L));
	end_lease(_metadata, self->a, ha);
	t_wait_granted(_metadata, self->b, hb, GSP_SLOW_NS);
	end_lease(_metadata, self->b, hb);
	end_lease(_metadata, self->b, hc);
	ASSERT_EQ(0, waiting(self->board, L));
}

TEST_F(waiting, cancelled)
{
	uint32_t L;
	uint64_t ha, hb, hb2;
	struct gspace_wait w;

	t_need_lease(_metadata, &self->info);
	L = self->info.lease_dev;
	two_on(_metadata, self, L);

	ha = hold_lease(_metadata, self->a);
	hb = queue(self->b, 1000000);
	hb2 = queue(self->b, 1000000);
	ASSERT_EQ(2, waiting(self->board, L));
	ASSERT_OK(cancel_raw(self->b, hb));
	ASSERT_EQ(1, waiting(self->board, L));
	ASSERT_EQ(-ECANCELED, t_wait_end(_metadata, self->b, hb, GSP_SLOW_NS,
					 &w));
	ASSERT_OK(cancel_raw(self->b, hb2));
	ASSERT_EQ(0, waiting(self->board, L));
	/* A second cancel changes nothing. */
	ASSERT_ERRNO(EALREADY, cancel_raw(self->b, hb2));
	ASSERT_EQ(0, waiting(self->board, L));
	end_lease(_metadata, self->a, ha);
	ASSERT_EQ(0, waiting(self->board, L));
}

/* The tenant closes its file (its socket) with jobs queued. */
TEST_F(waiting, tenant_closes_with_jobs_queued)
{
	uint32_t L;
	uint64_t ha;

	t_need_lease(_metadata, &self->info);
	L = self->info.lease_dev;
	two_on(_metadata, self, L);

	ha = hold_lease(_metadata, self->a);
	queue(self->b, 1000000);
	queue(self->b, 1000000);
	ASSERT_EQ(2, waiting(self->board, L));
	t_close(&self->b);
	ASSERT_EQ(0, waiting_settles(self->board, L, 0));
	/* The lease is a's still: nothing was granted to a dead tenant. */
	end_lease(_metadata, self->a, ha);
	ASSERT_EQ(0, waiting(self->board, L));
}

/* The tenant is killed with a job queued. */
TEST_F(waiting, tenant_killed_with_job_queued)
{
	int pipefd[2], status;
	uint32_t L;
	uint64_t ha;
	char ok = 0;
	pid_t pid;

	t_need_lease(_metadata, &self->info);
	L = self->info.lease_dev;
	two_on(_metadata, self, L);

	ha = hold_lease(_metadata, self->a);
	ASSERT_OK(pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct gspace_stats st = { .size = sizeof(st) };
		struct gspace_submit s;
		int fd = gsp_open();

		/* STATS after SUBMIT: the job is queued (see queue_job()). */
		submit_init(&s, GSPACE_ENGINE_COMPUTE, 1000000);
		if (fd < 0 || ctx_set_raw(fd, L, GSPACE_CLASS_BE, 100, 0) ||
		    gsp_ioctl(fd, GSPACE_IOCTL_SUBMIT, &s) ||
		    gsp_ioctl(fd, GSPACE_IOCTL_STATS, &st))
			_exit(1);
		if (write(pipefd[1], "y", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	ASSERT_EQ(1, read(pipefd[0], &ok, 1));
	close(pipefd[0]);
	ASSERT_EQ('y', ok);
	ASSERT_EQ(1, waiting(self->board, L));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_EQ(0, waiting_settles(self->board, L, 0));
	end_lease(_metadata, self->a, ha);
	ASSERT_EQ(0, waiting(self->board, L));
}

/* A sim device counts the same; the holder's death hands the engine on. */
TEST_F(waiting, sim_device)
{
	uint64_t hb;

	if (self->info.sim_devices < 1)
		SKIP("no sim device");
	two_on(_metadata, self, 0);

	/* An hour: it runs until a's file goes. */
	t_wait_granted(_metadata, self->a,
		       queue(self->a, GSPACE_COST_MAX_NS),
		       GSP_SLOW_NS);
	hb = queue(self->b, 1000);
	ASSERT_EQ(1, waiting(self->board, 0));
	ASSERT_OK(cancel_raw(self->b, hb));
	ASSERT_EQ(0, waiting(self->board, 0));
	hb = queue(self->b, 1000);
	ASSERT_EQ(1, waiting(self->board, 0));
	/* a's running job is aborted with its file: b's is granted. */
	t_close(&self->a);
	ASSERT_EQ(0, t_wait_end(_metadata, self->b, hb, GSP_SLOW_NS, NULL));
	ASSERT_EQ(0, waiting(self->board, 0));
}

/*
 * The watchdog fails a holder that neither completes nor renews and marks
 * its tenant hung; the engine goes to the next job, and the count with
 * it. The hung tenant's own queued job stays queued (it is granted in its
 * turn, and times out in its turn), so it counts until then.
 */
TEST_F(waiting, watchdog_hands_the_engine_on)
{
	uint64_t ha, ha2, hb, end, queued;
	struct gspace_stats st;
	uint32_t L;

	t_need_lease(_metadata, &self->info);
	L = self->info.lease_dev;
	t_knob_save(_metadata, "watchdog_ms", self->watchdog,
		    sizeof(self->watchdog));
	ASSERT_EQ(0, knob_write("watchdog_ms", "300"));
	two_on(_metadata, self, L);

	ha = hold_lease(_metadata, self->a);
	ha2 = queue(self->a, 1000000);
	hb = queue(self->b, 1000000);
	ASSERT_EQ(2, waiting(self->board, L));
	ASSERT_EQ(-ETIMEDOUT, t_wait_end(_metadata, self->a, ha, GSP_SLOW_NS,
					 NULL));
	t_stats(_metadata, self->a, &st);
	ASSERT_TRUE(st.ctx_flags & GSPACE_CTX_F_HUNG);
	/*
	 * One of the two queued jobs has the engine now (the waiter may be
	 * woken before the arbiter has given the engine on).
	 */
	ASSERT_EQ(1, waiting_settles(self->board, L, 1));
	/* b's turn comes, at the latest after a's second job times out. */
	t_wait_granted(_metadata, self->b, hb, GSP_SLOW_NS);
	/* a's second job still counts if the policy put b first. */
	queued = !!wait_raw(self->a, ha2, GSPACE_WAIT_GRANTED, 0, NULL);
	ASSERT_EQ(queued, waiting(self->board, L));
	end_lease(_metadata, self->b, hb);
	end = now_ns() + GSP_SLOW_NS;
	while (wait_raw(self->a, ha2, 0, 0, NULL) && now_ns() < end)
		sleep_ms(20);
	ASSERT_EQ(0, waiting(self->board, L));
}

TEST_HARNESS_MAIN
