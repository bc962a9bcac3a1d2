// SPDX-License-Identifier: GPL-2.0
/*
 * The board (ABI 1.1): mmap of /dev/gspace, read-only for BE tenants,
 * writable for LC ones; LC slots given and taken back with the class, the
 * file and the process; LC jobs counted per device; the LC knobs.
 *
 * gspaced serves its board through its socket, not mmap, so this file
 * runs on the device transport only; tests/daemon covers gspaced's.
 */
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "gsp_util.h"

static void need_dev_board(struct __test_meta *_metadata, int fd)
{
	struct gspace_version v;

	if (strcmp(gsp_transport()->name, "dev"))
		SKIP("the board is an mmap of /dev/gspace only");
	t_version(_metadata, fd, &v);
	if (!(v.features & GSPACE_FEAT_BOARD))
		SKIP("arbiter without GSPACE_FEAT_BOARD (ABI %u.%u)",
		     v.abi_major, v.abi_minor);
}

static struct gspace_board *map_board(int fd, int prot)
{
	void *p = mmap(NULL, GSPACE_BOARD_SIZE, prot, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void need_lc(struct __test_meta *_metadata, int fd)
{
	struct gspace_version v;

	t_version(_metadata, fd, &v);
	if (!v.lc_allowed)
		SKIP("this caller may not use GSPACE_CLASS_LC");
}

static int lc_slot_of(struct __test_meta *_metadata, int fd)
{
	struct gspace_stats st;

	t_stats(_metadata, fd, &st);
	return st.lc_slot;
}

FIXTURE(board) {
	int fd;
	int fd2;
	struct gsp_info info;
	struct gspace_board *b;
};

FIXTURE_SETUP(board)
{
	self->fd2 = -1;
	self->b = NULL;
	self->fd = t_open(_metadata);
	need_dev_board(_metadata, self->fd);
	t_info(_metadata, self->fd, &self->info);
	self->b = map_board(self->fd, PROT_READ);
	ASSERT_NE(NULL, self->b);
}

FIXTURE_TEARDOWN(board)
{
	if (self->b)
		munmap(self->b, GSPACE_BOARD_SIZE);
	t_close(&self->fd2);
	t_close(&self->fd);
}

TEST_F(board, header)
{
	ASSERT_LE(1, self->info.v.abi_minor);
	ASSERT_EQ(GSPACE_BOARD_MAGIC, self->b->magic);
	ASSERT_EQ(GSPACE_BOARD_VERSION, self->b->version);
	ASSERT_EQ(self->info.num_devices, (int)self->b->num_devices);
	ASSERT_LT(0, self->b->lc_max_ns);
}

TEST_F(board, be_cannot_write)
{
	void *p;

	ASSERT_EQ(-1, lc_slot_of(_metadata, self->fd));
	p = mmap(NULL, GSPACE_BOARD_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		 self->fd, 0);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EACCES, errno);
	/* Nor by upgrading a read-only mapping. */
	ASSERT_EQ(-1, mprotect(self->b, GSPACE_BOARD_SIZE,
			       PROT_READ | PROT_WRITE));
	ASSERT_EQ(EACCES, errno);
}

/* A private mapping would hide LC stores: refused, even read-only. */
TEST_F(board, private_mapping_refused)
{
	void *p;

	p = mmap(NULL, GSPACE_BOARD_SIZE, PROT_READ, MAP_PRIVATE, self->fd, 0);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(board, bad_offset_and_length)
{
	void *p;

	p = mmap(NULL, GSPACE_BOARD_SIZE, PROT_READ, MAP_SHARED, self->fd,
		 GSPACE_BOARD_SIZE);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
	p = mmap(NULL, 2 * GSPACE_BOARD_SIZE, PROT_READ, MAP_SHARED, self->fd,
		 0);
	ASSERT_EQ(MAP_FAILED, p);
	ASSERT_EQ(EINVAL, errno);
}

TEST_F(board, lc_slot_follows_class)
{
	struct gspace_board *rw;
	int slot;

	need_lc(_metadata, self->fd);
	self->fd2 = t_open(_metadata);
	ASSERT_OK(ctx_set_raw(self->fd2, 0, GSPACE_CLASS_LC, 100, 0));
	slot = lc_slot_of(_metadata, self->fd2);
	ASSERT_LE(0, slot);
	ASSERT_GT(GSPACE_BOARD_LC_SLOTS, slot);
	ASSERT_EQ((uint32_t)getpid(), self->b->lc[slot].owner);
	ASSERT_EQ(0, self->b->lc[slot].device);

	/* The LC tenant writes; the BE tenant's mapping sees it. */
	rw = map_board(self->fd2, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, rw);
	__atomic_store_n(&rw->lc[slot].inflight, 3, __ATOMIC_RELEASE);
	__atomic_store_n(&rw->lc[slot].stamp_ns, now_ns(), __ATOMIC_RELEASE);
	ASSERT_EQ(3, __atomic_load_n(&self->b->lc[slot].inflight,
				     __ATOMIC_ACQUIRE));

	/* Back to BE: the slot is cleared and given up. */
	ASSERT_OK(ctx_set_raw(self->fd2, 0, GSPACE_CLASS_BE, 100, 0));
	ASSERT_EQ(-1, lc_slot_of(_metadata, self->fd2));
	ASSERT_EQ(0, self->b->lc[slot].owner);
	ASSERT_EQ(0, self->b->lc[slot].inflight);
	ASSERT_EQ(0, self->b->lc[slot].stamp_ns);
	munmap(rw, GSPACE_BOARD_SIZE);

	/* LC again, then close: cleared too. */
	ASSERT_OK(ctx_set_raw(self->fd2, 0, GSPACE_CLASS_LC, 100, 0));
	slot = lc_slot_of(_metadata, self->fd2);
	ASSERT_LE(0, slot);
	ASSERT_NE(0, self->b->lc[slot].owner);
	t_close(&self->fd2);
	ASSERT_EQ(0, self->b->lc[slot].owner);
}

TEST_F(board, lc_slot_moves_with_device)
{
	int slot;

	need_lc(_metadata, self->fd);
	if (self->info.num_devices < 2)
		SKIP("one device only");
	self->fd2 = t_open(_metadata);
	ASSERT_OK(ctx_set_raw(self->fd2, 0, GSPACE_CLASS_LC, 100, 0));
	slot = lc_slot_of(_metadata, self->fd2);
	ASSERT_LE(0, slot);
	ASSERT_OK(ctx_set_raw(self->fd2, 1, GSPACE_CLASS_LC, 100, 0));
	ASSERT_EQ(slot, lc_slot_of(_metadata, self->fd2));
	ASSERT_EQ(1, self->b->lc[slot].device);
}

/* A killed LC tenant, mid-burst, must not hold BE work back. */
TEST_F(board, killed_lc_tenant_slot_cleared)
{
	int pipefd[2], slot = -1, status, i;
	pid_t pid;

	need_lc(_metadata, self->fd);
	ASSERT_OK(pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct gspace_stats st = { .size = sizeof(st) };
		struct gspace_board *rw;
		int fd = gsp_open();

		if (fd < 0 || ctx_set_raw(fd, 0, GSPACE_CLASS_LC, 100, 0) ||
		    gsp_ioctl(fd, GSPACE_IOCTL_STATS, &st) || st.lc_slot < 0)
			_exit(1);
		rw = map_board(fd, PROT_READ | PROT_WRITE);
		if (!rw)
			_exit(1);
		__atomic_store_n(&rw->lc[st.lc_slot].inflight, 1,
				 __ATOMIC_RELEASE);
		__atomic_store_n(&rw->lc[st.lc_slot].stamp_ns, now_ns(),
				 __ATOMIC_RELEASE);
		if (write(pipefd[1], &st.lc_slot, sizeof(int)) != sizeof(int))
			_exit(1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	ASSERT_EQ(sizeof(int), read(pipefd[0], &slot, sizeof(int)));
	close(pipefd[0]);
	ASSERT_LE(0, slot);
	ASSERT_EQ(1, self->b->lc[slot].inflight);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	/* The file is released with the process, maybe a little later. */
	for (i = 0; i < 500 && __atomic_load_n(&self->b->lc[slot].owner,
					       __ATOMIC_ACQUIRE); i++)
		sleep_ms(10);
	ASSERT_EQ(0, self->b->lc[slot].owner);
	ASSERT_EQ(0, self->b->lc[slot].inflight);
}

TEST_F(board, lc_jobs_counted)
{
	uint64_t h;

	need_lc(_metadata, self->fd);
	ASSERT_EQ(0, __atomic_load_n(&self->b->dev[0].lc_jobs,
				     __ATOMIC_ACQUIRE));
	self->fd2 = t_open(_metadata);
	ASSERT_OK(ctx_set_raw(self->fd2, 0, GSPACE_CLASS_LC, 100, 0));
	h = t_submit(_metadata, self->fd2, 300 * NSEC_PER_MSEC);
	ASSERT_EQ(1, __atomic_load_n(&self->b->dev[0].lc_jobs,
				     __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd2, h, GSP_SLOW_NS, NULL));
	ASSERT_EQ(0, __atomic_load_n(&self->b->dev[0].lc_jobs,
				     __ATOMIC_ACQUIRE));
	/* A BE job is not counted. */
	h = t_submit(_metadata, self->fd, 100 * NSEC_PER_MSEC);
	ASSERT_EQ(0, __atomic_load_n(&self->b->dev[0].lc_jobs,
				     __ATOMIC_ACQUIRE));
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h, GSP_SLOW_NS, NULL));
}

TEST_F(board, slots_run_out_cleanly)
{
	int fds[GSPACE_BOARD_LC_SLOTS + 1], n = 0, i, free_slots = 0;

	need_lc(_metadata, self->fd);
	for (i = 0; i < GSPACE_BOARD_LC_SLOTS; i++)
		free_slots += !self->b->lc[i].owner;
	for (i = 0; i <= free_slots && i <= GSPACE_BOARD_LC_SLOTS; i++) {
		fds[n] = t_open(_metadata);
		n++;
		ASSERT_OK(ctx_set_raw(fds[i], 0, GSPACE_CLASS_LC, 100, 0));
		if (i < free_slots)
			EXPECT_LE(0, lc_slot_of(_metadata, fds[i]));
		else
			EXPECT_EQ(-1, lc_slot_of(_metadata, fds[i]));
	}
	/* One given back is taken by the next LC tenant. */
	gsp_close(fds[0]);
	ASSERT_OK(ctx_set_raw(fds[n - 1], 0, GSPACE_CLASS_BE, 100, 0));
	ASSERT_OK(ctx_set_raw(fds[n - 1], 0, GSPACE_CLASS_LC, 100, 0));
	EXPECT_LE(0, lc_slot_of(_metadata, fds[n - 1]));
	for (i = 1; i < n; i++)
		gsp_close(fds[i]);
}

TEST_F(board, lc_knobs)
{
	char hold[64], max[64];

	t_knob_save(_metadata, "lc_hold_us", hold, sizeof(hold));
	t_knob_save(_metadata, "lc_max_ms", max, sizeof(max));
	ASSERT_EQ(0, knob_write("lc_hold_us", "750"));
	ASSERT_EQ(750000, self->b->lc_hold_ns);
	ASSERT_EQ(0, knob_write("lc_max_ms", "7"));
	ASSERT_EQ(7000000, self->b->lc_max_ns);
	EXPECT_EQ(-EINVAL, knob_write("lc_max_ms", "0"));
	EXPECT_EQ(-EINVAL, knob_write("lc_hold_us", "100001"));
	EXPECT_EQ(-EINVAL, knob_write("lc_hold_us", "-1"));
	EXPECT_EQ(750000, self->b->lc_hold_ns);
	EXPECT_EQ(0, knob_write("lc_hold_us", hold));
	EXPECT_EQ(0, knob_write("lc_max_ms", max));
}

TEST_HARNESS_MAIN
