// SPDX-License-Identifier: GPL-2.0
/*
 * The board (ABI 1.1): mmap of /dev/gspace, read-only for BE tenants,
 * writable for LC ones; LC slots given and taken back with the class, the
 * file and the process; LC jobs counted per device; the LC knobs.
 *
 * gspaced serves its board through its socket, not mmap, so the "board"
 * fixture runs on the device transport only; tests/daemon covers
 * gspaced's. The "partition" fixture (ABI 1.2, the partition plane) runs
 * on both: it maps the board through the transport.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "gsp_util.h"
/* The LC side's update rule, exactly as libgsp and the interposer use it. */
#include "../libgsp/include/gsp_board.h"

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

/*
 * What gsp_reopen() does to a mapping: another tenant's board mapped
 * beside it, then moved over it with mremap(). The address shows the
 * live board, writable for the new LC tenant, and the old file, no longer
 * held by a mapping, is released at close (its slot cleared).
 */
TEST_F(board, mapping_moved_onto_another_tenant)
{
	struct gspace_board *old_rw, *n;
	int fd1, s1, s2;

	need_lc(_metadata, self->fd);
	fd1 = t_open(_metadata);
	ASSERT_OK(ctx_set_raw(fd1, 0, GSPACE_CLASS_LC, 100, 0));
	s1 = lc_slot_of(_metadata, fd1);
	ASSERT_LE(0, s1);
	old_rw = map_board(fd1, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, old_rw);
	self->fd2 = t_open(_metadata);
	ASSERT_OK(ctx_set_raw(self->fd2, 0, GSPACE_CLASS_LC, 100, 0));
	s2 = lc_slot_of(_metadata, self->fd2);
	ASSERT_LE(0, s2);
	ASSERT_NE(s1, s2);
	n = map_board(self->fd2, PROT_READ | PROT_WRITE);
	ASSERT_NE(NULL, n);
	ASSERT_EQ(old_rw, mremap(n, GSPACE_BOARD_SIZE, GSPACE_BOARD_SIZE,
				 MREMAP_MAYMOVE | MREMAP_FIXED, old_rw));
	/* Only the mapping held fd1's file: closing it ends the tenant. */
	ASSERT_OK(close(fd1));
	ASSERT_EQ(0, __atomic_load_n(&self->b->lc[s1].owner, __ATOMIC_ACQUIRE));
	ASSERT_EQ((uint32_t)getpid(),
		  __atomic_load_n(&old_rw->lc[s2].owner, __ATOMIC_ACQUIRE));
	__atomic_store_n(&old_rw->lc[s2].inflight, 2, __ATOMIC_RELEASE);
	ASSERT_EQ(2, __atomic_load_n(&self->b->lc[s2].inflight,
				     __ATOMIC_ACQUIRE));
	__atomic_store_n(&old_rw->lc[s2].inflight, 0, __ATOMIC_RELEASE);
	munmap(old_rw, GSPACE_BOARD_SIZE);
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

/* The partition plane (ABI 1.2). */

#define REQ_NK(n, k)	GSP_BOARD_REQ_NK(GSP_BOARD_REQ((n), (k), 0))

static uint64_t part_req(const struct gspace_board *b, uint32_t dev)
{
	return __atomic_load_n(&b->dev[dev].part_req, __ATOMIC_ACQUIRE);
}

/* An LC tenant's view: its descriptor, slot and writable board. */
struct lc_tenant {
	int fd;
	int slot;
	struct gspace_board *rw;
};

static void lc_open(struct __test_meta *_metadata, struct lc_tenant *t)
{
	t->fd = t_open(_metadata);
	ASSERT_OK(ctx_set_raw(t->fd, 0, GSPACE_CLASS_LC, 100, 0));
	t->slot = lc_slot_of(_metadata, t->fd);
	ASSERT_LE(0, t->slot);
	t->rw = gsp_board_map(t->fd, 1);
	ASSERT_NE(NULL, t->rw);
}

static void lc_close(struct lc_tenant *t)
{
	if (t->rw)
		munmap(t->rw, GSPACE_BOARD_SIZE);
	t->rw = NULL;
	t_close(&t->fd);
}

/*
 * gspaced sees a close when it reads the end of the connection, a little
 * later: wait (up to 5 s) for the arbiter to have freed @slot.
 */
static void slot_freed(struct __test_meta *_metadata,
		       const struct gspace_board *b, int slot)
{
	int i;

	for (i = 0; i < 500 && __atomic_load_n(&b->lc[slot].owner,
					       __ATOMIC_ACQUIRE); i++)
		sleep_ms(10);
	ASSERT_EQ(0, __atomic_load_n(&b->lc[slot].owner, __ATOMIC_ACQUIRE));
}

/* What the interposer does when its in-flight count leaves or reaches 0. */
static uint64_t lc_inflight(struct lc_tenant *t, uint64_t inflight)
{
	__atomic_store_n(&t->rw->lc[t->slot].stamp_ns, now_ns(),
			 __ATOMIC_RELAXED);
	__atomic_store_n(&t->rw->lc[t->slot].inflight, inflight,
			 __ATOMIC_RELEASE);
	return gsp_board_part_update((struct gsp_board *)t->rw, 0);
}

FIXTURE(partition) {
	int fd;
	struct gsp_info info;
	struct gspace_board *b;	/* a BE tenant's read-only mapping */
	char saved[64];
	int restore;
	struct lc_tenant lc[2];
};

FIXTURE_SETUP(partition)
{
	int i;

	self->fd = -1;
	self->b = NULL;
	self->restore = 0;
	for (i = 0; i < 2; i++) {
		self->lc[i].fd = -1;
		self->lc[i].rw = NULL;
	}
	self->fd = t_open(_metadata);
	t_info(_metadata, self->fd, &self->info);
	if (!(self->info.v.features & GSPACE_FEAT_PARTITION))
		SKIP("arbiter without GSPACE_FEAT_PARTITION (ABI %u.%u)",
		     self->info.v.abi_major, self->info.v.abi_minor);
	self->b = gsp_board_map(self->fd, 0);
	ASSERT_NE(NULL, self->b);
	/* Every test sets the knob: root on the device, an admin of gspaced. */
	t_knob_save(_metadata, "partition", self->saved, sizeof(self->saved));
	self->restore = 1;
}

FIXTURE_TEARDOWN(partition)
{
	int i;

	for (i = 0; i < 2; i++)
		lc_close(&self->lc[i]);
	if (self->restore)
		EXPECT_EQ(0, knob_write("partition", self->saved));
	if (self->b)
		munmap(self->b, GSPACE_BOARD_SIZE);
	t_close(&self->fd);
}

static void expect_knob(struct __test_meta *_metadata, const char *want)
{
	char buf[64];

	ASSERT_EQ(0, knob_read("partition", buf, sizeof(buf)));
	if (strcmp(want, buf))
		TH_LOG("partition reads '%s', not '%s'", buf, want);
	ASSERT_EQ(0, strcmp(want, buf));
}

TEST_F(partition, knob_validated_and_published)
{
	static const char *const bad[] = {
		"8", "0 1", "1 0", "257 1", "1 33", "-1 1", "8 -2",
		"8 2 3", "8  2", " 8 2", "x y", "8 2x", "99999999999 1",
		"0,1", "257,1", "1,33", "8,2,3", "8,,2", "8, 2", ",8,2",
		"8;2",
	};
	uint64_t epoch;
	size_t i;
	int d;

	/* "N,K" is the form; "N K" is still taken. Both read as "N,K". */
	ASSERT_EQ(0, knob_write("partition", "0,0"));
	expect_knob(_metadata, "0,0");
	epoch = self->b->dev[0].part_epoch;
	ASSERT_EQ(0, knob_write("partition", "8 2\n"));
	expect_knob(_metadata, "8,2");
	for (d = 0; d < self->info.num_devices; d++) {
		EXPECT_EQ(8, self->b->dev[d].part_n);
		EXPECT_EQ(2, self->b->dev[d].part_k);
	}
	/* Every device of the board, present or not. */
	EXPECT_EQ(8, self->b->dev[GSPACE_BOARD_MAX_DEVICES - 1].part_n);
	ASSERT_EQ(epoch + 1, self->b->dev[0].part_epoch);
	/* The same value again, in either form, is no change. */
	ASSERT_EQ(0, knob_write("partition", "8 2"));
	ASSERT_EQ(0, knob_write("partition", "8,2\n"));
	ASSERT_EQ(epoch + 1, self->b->dev[0].part_epoch);

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = knob_write("partition", bad[i]);

		if (r != -EINVAL)
			TH_LOG("partition '%s': %d, not -EINVAL", bad[i], r);
		EXPECT_EQ(-EINVAL, r);
	}
	expect_knob(_metadata, "8,2");
	EXPECT_EQ(8, self->b->dev[0].part_n);
	EXPECT_EQ(2, self->b->dev[0].part_k);
	EXPECT_EQ(epoch + 1, self->b->dev[0].part_epoch);

	/* The limits, GSPACE_PART_MAX_N and _K, are valid. */
	ASSERT_EQ(0, knob_write("partition", "256,32"));
	expect_knob(_metadata, "256,32");
	ASSERT_EQ(0, knob_write("partition", "1 1"));
	expect_knob(_metadata, "1,1");
	EXPECT_EQ(epoch + 3, self->b->dev[0].part_epoch);
	/* Nobody is in flight: the request stays off. */
	EXPECT_EQ(0, GSP_BOARD_REQ_NK(part_req(self->b, 0)));
}

TEST_F(partition, request_follows_lc_inflight)
{
	uint64_t w0, w;

	need_lc(_metadata, self->fd);
	ASSERT_EQ(0, knob_write("partition", "8,2"));
	lc_open(_metadata, &self->lc[0]);
	w0 = part_req(self->b, 0);
	ASSERT_EQ(0, GSP_BOARD_REQ_NK(w0));

	/* 0 -> 1: the BE tenant's read-only mapping sees (8, 2). */
	w = lc_inflight(&self->lc[0], 1);
	ASSERT_EQ(w, part_req(self->b, 0));
	ASSERT_EQ(REQ_NK(8, 2), GSP_BOARD_REQ_NK(w));
	ASSERT_NE(GSP_BOARD_REQ_EPOCH(w0), GSP_BOARD_REQ_EPOCH(w));

	/* A new partition reaches the LC tenant in flight... */
	ASSERT_EQ(0, knob_write("partition", "4,1"));
	ASSERT_EQ(REQ_NK(4, 1), GSP_BOARD_REQ_NK(part_req(self->b, 0)));
	/* ... and off is off, in flight or not. */
	ASSERT_EQ(0, knob_write("partition", "0,0"));
	ASSERT_EQ(0, GSP_BOARD_REQ_NK(part_req(self->b, 0)));
	ASSERT_EQ(0, knob_write("partition", "8,2"));
	ASSERT_EQ(REQ_NK(8, 2), GSP_BOARD_REQ_NK(part_req(self->b, 0)));

	/* 1 -> 0: withdrawn. */
	w0 = part_req(self->b, 0);
	w = lc_inflight(&self->lc[0], 0);
	ASSERT_EQ(w, part_req(self->b, 0));
	ASSERT_EQ(0, GSP_BOARD_REQ_NK(w));
	ASSERT_NE(GSP_BOARD_REQ_EPOCH(w0), GSP_BOARD_REQ_EPOCH(w));

	/* Other devices are not asked. */
	if (self->info.num_devices > 1) {
		lc_inflight(&self->lc[0], 1);
		EXPECT_EQ(0, GSP_BOARD_REQ_NK(part_req(self->b, 1)));
		lc_inflight(&self->lc[0], 0);
	}
}

/* The arbiter withdraws the request with the slot: close, and back to BE. */
TEST_F(partition, cleared_by_close_and_by_be)
{
	uint64_t w;

	need_lc(_metadata, self->fd);
	ASSERT_EQ(0, knob_write("partition", "8,2"));
	lc_open(_metadata, &self->lc[0]);
	lc_inflight(&self->lc[0], 1);
	w = part_req(self->b, 0);
	ASSERT_EQ(REQ_NK(8, 2), GSP_BOARD_REQ_NK(w));
	lc_close(&self->lc[0]);
	slot_freed(_metadata, self->b, self->lc[0].slot);
	ASSERT_EQ(0, GSP_BOARD_REQ_NK(part_req(self->b, 0)));
	ASSERT_NE(GSP_BOARD_REQ_EPOCH(w), GSP_BOARD_REQ_EPOCH(part_req(self->b, 0)));

	lc_open(_metadata, &self->lc[0]);
	lc_inflight(&self->lc[0], 1);
	ASSERT_EQ(REQ_NK(8, 2), GSP_BOARD_REQ_NK(part_req(self->b, 0)));
	ASSERT_OK(ctx_set_raw(self->lc[0].fd, 0, GSPACE_CLASS_BE, 100, 0));
	ASSERT_EQ(0, GSP_BOARD_REQ_NK(part_req(self->b, 0)));
}

TEST_F(partition, moves_with_the_device)
{
	need_lc(_metadata, self->fd);
	if (self->info.num_devices < 2)
		SKIP("one device only");
	ASSERT_EQ(0, knob_write("partition", "8,2"));
	lc_open(_metadata, &self->lc[0]);
	lc_inflight(&self->lc[0], 1);
	ASSERT_EQ(REQ_NK(8, 2), GSP_BOARD_REQ_NK(part_req(self->b, 0)));
	ASSERT_OK(ctx_set_raw(self->lc[0].fd, 1, GSPACE_CLASS_LC, 100, 0));
	EXPECT_EQ(0, GSP_BOARD_REQ_NK(part_req(self->b, 0)));
	EXPECT_EQ(REQ_NK(8, 2), GSP_BOARD_REQ_NK(part_req(self->b, 1)));
	ASSERT_OK(ctx_set_raw(self->lc[0].fd, 1, GSPACE_CLASS_BE, 100, 0));
	EXPECT_EQ(0, GSP_BOARD_REQ_NK(part_req(self->b, 1)));
}

TEST_F(partition, two_lc_tenants)
{
	need_lc(_metadata, self->fd);
	ASSERT_EQ(0, knob_write("partition", "8,2"));
	lc_open(_metadata, &self->lc[0]);
	lc_open(_metadata, &self->lc[1]);
	lc_inflight(&self->lc[0], 1);
	lc_inflight(&self->lc[1], 1);
	ASSERT_EQ(REQ_NK(8, 2), GSP_BOARD_REQ_NK(part_req(self->b, 0)));
	/* Up until both are idle, whichever order they go in. */
	lc_inflight(&self->lc[0], 0);
	ASSERT_EQ(REQ_NK(8, 2), GSP_BOARD_REQ_NK(part_req(self->b, 0)));
	lc_inflight(&self->lc[1], 0);
	ASSERT_EQ(0, GSP_BOARD_REQ_NK(part_req(self->b, 0)));
	lc_inflight(&self->lc[1], 1);
	lc_inflight(&self->lc[0], 1);
	lc_inflight(&self->lc[1], 0);
	ASSERT_EQ(REQ_NK(8, 2), GSP_BOARD_REQ_NK(part_req(self->b, 0)));
	/* One closed while the other is in flight: still up. */
	lc_close(&self->lc[1]);
	slot_freed(_metadata, self->b, self->lc[1].slot);
	ASSERT_EQ(REQ_NK(8, 2), GSP_BOARD_REQ_NK(part_req(self->b, 0)));
	lc_close(&self->lc[0]);
	slot_freed(_metadata, self->b, self->lc[0].slot);
	ASSERT_EQ(0, GSP_BOARD_REQ_NK(part_req(self->b, 0)));
}

/* An LC tenant killed in flight must not leave BE kernels partitioned. */
TEST_F(partition, killed_lc_tenant_withdrawn)
{
	int pipefd[2], slot = -1, status, i;
	uint64_t w;
	pid_t pid;

	need_lc(_metadata, self->fd);
	ASSERT_EQ(0, knob_write("partition", "8,2"));
	ASSERT_OK(pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		struct gspace_stats st = { .size = sizeof(st) };
		struct lc_tenant t;

		t.fd = gsp_open();
		if (t.fd < 0 || ctx_set_raw(t.fd, 0, GSPACE_CLASS_LC, 100, 0) ||
		    gsp_ioctl(t.fd, GSPACE_IOCTL_STATS, &st) || st.lc_slot < 0)
			_exit(1);
		t.slot = st.lc_slot;
		t.rw = gsp_board_map(t.fd, 1);
		if (!t.rw)
			_exit(1);
		lc_inflight(&t, 1);
		if (write(pipefd[1], &t.slot, sizeof(int)) != sizeof(int))
			_exit(1);
		pause();
		_exit(0);
	}
	close(pipefd[1]);
	ASSERT_EQ(sizeof(int), read(pipefd[0], &slot, sizeof(int)));
	close(pipefd[0]);
	ASSERT_LE(0, slot);
	w = part_req(self->b, 0);
	ASSERT_EQ(REQ_NK(8, 2), GSP_BOARD_REQ_NK(w));
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	/* The tenant ends with the process, maybe a little later. */
	for (i = 0; i < 500 && GSP_BOARD_REQ_NK(part_req(self->b, 0)); i++)
		sleep_ms(10);
	ASSERT_EQ(0, GSP_BOARD_REQ_NK(part_req(self->b, 0)));
	ASSERT_NE(GSP_BOARD_REQ_EPOCH(w), GSP_BOARD_REQ_EPOCH(part_req(self->b, 0)));
	ASSERT_EQ(0, self->b->lc[slot].owner);
}

TEST_HARNESS_MAIN
