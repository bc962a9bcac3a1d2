// SPDX-License-Identifier: GPL-2.0
/*
 * The board (gsp_board.h): a memfd page that every tenant maps. gspaced
 * writes the header, dev[].lc_jobs and dev[].waiting; an LC tenant
 * writes its own slot, which gspaced zeroes when the tenant stops being
 * LC or goes away.
 *
 * Each tenant gets its own open file of the memfd, re-opened through
 * /proc/self/fd: read-write for the holder of an LC slot, read-only for
 * everyone else. The memfd's mode is 0600, so a tenant of another uid
 * cannot re-open its read-only descriptor read-write through /proc
 * either (a memfd is born 0777). Root and gspaced's own uid still can,
 * and an LC tenant writes the whole page: the page is only a published
 * copy. Who owns which slot, and on which device, lives in gd_state and
 * is never read back from the page (see Documentation/gspaced.rst).
 *
 * The partition plane: gspaced publishes the partition knob in
 * dev[].part_n/part_k/part_epoch and the protect knob in dev[].protect
 * and, like every writer, recomputes dev[].part_req with
 * gsp_board_part_update() after each change of what it depends on: the
 * knobs, and a slot it gives out, clears or moves. The knobs' values are
 * gd_state.cfg's, never read back from the board.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gspaced.h"

int gd_board_init(void)
{
	struct gsp_board *b;
	int fd;

	fd = memfd_create("gspace-board", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		gd_log(GD_LOG_ERR, "memfd_create: %s\n", strerror(errno));
		return -1;
	}
	if (fchmod(fd, 0600) || ftruncate(fd, GSP_BOARD_SIZE) ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		gd_log(GD_LOG_ERR, "board: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	b = mmap(NULL, GSP_BOARD_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 0);
	if (b == MAP_FAILED) {
		gd_log(GD_LOG_ERR, "board mmap: %s\n", strerror(errno));
		close(fd);
		return -1;
	}
	gd_state.board_fd = fd;
	gd_state.board = b;
	b->magic = GSP_BOARD_MAGIC;
	b->version = GSP_BOARD_VERSION;
	gd_board_update_knobs();
	gd_board_protect();
	if (gd_state.cfg.part_n || gd_state.cfg.part_auto)
		gd_board_partition();
	return 0;
}

void gd_board_fini(void)
{
	if (gd_state.board)
		munmap(gd_state.board, GSP_BOARD_SIZE);
	if (gd_state.board_fd >= 0)
		close(gd_state.board_fd);
	gd_state.board = NULL;
	gd_state.board_fd = -1;
}

/* The header fields that follow knobs. */
void gd_board_update_knobs(void)
{
	struct gsp_board *b = gd_state.board;

	if (!b)
		return;
	gsp_board_store(&b->num_devices, gd_nr_devices());
	gsp_board_store(&b->lc_hold_ns, gd_state.cfg.lc_hold_ns);
	gsp_board_store(&b->lc_max_ns, gd_state.cfg.lc_max_ns);
	gsp_board_store(&b->predict_lead_ns, gd_state.cfg.predict_lead_ns);
	gsp_board_store(&b->watchdog_ns, gd_state.cfg.watchdog_ns);
}

void gd_board_lc_jobs(struct gd_dev *d)
{
	if (gd_state.board)
		gsp_board_store(&gd_state.board->dev[d->index].lc_jobs,
				d->lc_jobs);
}

/*
 * gsp_board_waiting_locked(): the scheduler's count of jobs queued for
 * the compute engine, so it cannot drift from the queue; stored only when
 * it changed, since every tenant reads that line.
 */
void gd_board_waiting(struct gd_dev *d)
{
	uint64_t n = gsp_engine_nr_queued(&d->sched, GSP_ENGINE_COMPUTE);

	if (n == d->waiting)
		return;
	d->waiting = n;
	if (gd_state.board)
		gsp_board_store(&gd_state.board->dev[d->index].waiting, n);
}

void gd_board_partition(void)
{
	struct gsp_board *b = gd_state.board;
	int i;

	if (!b)
		return;
	for (i = 0; i < GSP_BOARD_MAX_DEVICES; i++) {
		struct gsp_board_dev *d = &b->dev[i];

		gsp_board_store(&d->part_n, gd_state.cfg.part_n);
		gsp_board_store(&d->part_k, gd_state.cfg.part_k);
		gsp_board_store(&d->search, gd_state.cfg.part_auto ?
					    gd_state.cfg.search :
					    GSPACE_SEARCH_OFF);
		gsp_board_store(&d->part_epoch,
				gsp_board_load(&d->part_epoch) + 1);
		gsp_board_part_update(b, (uint32_t)i);
	}
}

void gd_board_protect(void)
{
	struct gsp_board *b = gd_state.board;
	int i;

	if (!b)
		return;
	for (i = 0; i < GSP_BOARD_MAX_DEVICES; i++) {
		gsp_board_store(&b->dev[i].protect, gd_state.cfg.protect);
		gsp_board_part_update(b, (uint32_t)i);
	}
}

static void slot_clear(struct gsp_board_lc *s)
{
	gsp_board_store(&s->owner, 0);
	gsp_board_store(&s->inflight, 0);
	gsp_board_store(&s->stamp_ns, 0);
	gsp_board_store(&s->reserve, 0);
	gsp_board_store(&s->cell, 0);
	gsp_board_store(&s->search, 0);
}

/* Publishes slot @i of @t, on @t's device, owner stored last. */
static void slot_publish(struct gsp_board *b, int i, const struct gd_tenant *t)
{
	struct gsp_board_lc *s = &b->lc[i];

	gsp_board_store(&s->device, t->dev->index);
	gsp_board_store(&s->owner, t->pid > 0 ? (uint32_t)t->pid : 1);
}

/*
 * gsp_board_update_slot(): an LC tenant holds a slot on its device (when
 * one is free), anyone else none. Which slot is free, and the device a
 * slot was on, come from gd_state.lc_owner and t->lc_dev, never from the
 * page, which writers other than us can change. The owner is the
 * tenant's pid, stored last, since readers check it first. The request
 * of each device the slot joins or leaves is recomputed: a slot given out
 * claims the partition at once under protect reserved.
 */
void gd_board_update_slot(struct gd_tenant *t)
{
	struct gsp_board *b = gd_state.board;
	uint32_t old_dev = UINT32_MAX;
	int i;

	if (!b)
		return;
	if (t->class != GSPACE_CLASS_LC) {
		if (t->lc_slot >= 0) {
			old_dev = t->lc_dev;
			slot_clear(&b->lc[t->lc_slot]);
			gd_state.lc_owner[t->lc_slot] = NULL;
			t->lc_slot = -1;
			gsp_board_part_update(b, old_dev);
		}
		return;
	}
	if (t->lc_slot < 0) {
		for (i = 0; i < GSP_BOARD_LC_SLOTS; i++)
			if (!gd_state.lc_owner[i])
				break;
		if (i == GSP_BOARD_LC_SLOTS)
			return;	/* all taken: STATS says -1 */
		slot_clear(&b->lc[i]);
		gd_state.lc_owner[i] = t;
		t->lc_slot = i;
	} else {
		if (t->lc_dev == t->dev->index)
			return;
		old_dev = t->lc_dev;
	}
	t->lc_dev = t->dev->index;
	slot_publish(b, t->lc_slot, t);
	/* A slot that moved takes its in-flight count along. */
	if (old_dev < GSP_BOARD_MAX_DEVICES)
		gsp_board_part_update(b, old_dev);
	gsp_board_part_update(b, t->dev->index);
}

int gd_board_fd_for(struct gd_tenant *t, struct gspd_board_reply *r)
{
	char path[64];
	int fd;

	if (!gd_state.board)
		return -ENODEV;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", gd_state.board_fd);
	fd = open(path, (t->lc_slot >= 0 ? O_RDWR : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	memset(r, 0, sizeof(*r));
	r->size = GSP_BOARD_SIZE;
	r->lc_slot = t->lc_slot;
	r->device = t->dev->index;
	return fd;
}
