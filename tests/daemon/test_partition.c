// SPDX-License-Identifier: GPL-2.0
/*
 * gspaced's partition plane, against a daemon on $GSP_SOCKET that
 * tests/daemon/run.sh starts with "partition = 8,2", "protect =
 * predictive" and "predict_lead_us = 700" in its config: the configured
 * values on the board, the partition knob through CTL_GET/CTL_SET (both
 * the config's "N,K" and sysfs's "N K"), and the request withdrawn when
 * an LC client that raised it is killed with SIGKILL. The selftests'
 * "partition" and "protect" fixtures cover the rest, on both arbiters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gspace.h"
#include "gsp_board.h"
#include "gspd_proto.h"
#include "tap.h"

static const char *sock_path;

static void sleep_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

static uint64_t req(const struct gsp_board *b)
{
	return gsp_board_load(&b->dev[0].part_req);
}

static int knob_is(struct gspd_conn *c, const char *want)
{
	char buf[64];

	return !gspd_ctl_get(c, "partition", buf, sizeof(buf)) &&
	       !strcmp(buf, want);
}

/* The board as a BE client maps it: read-only. */
static const struct gsp_board *be_board(struct gspd_conn *c)
{
	void *b;
	int wr = 1;

	if (gspd_board(c, &b, NULL, &wr) || wr)
		return NULL;
	return b;
}

static void test_config_and_set(struct gspd_conn *c,
				const struct gsp_board *b)
{
	char buf[64] = "";
	uint64_t epoch;
	int r;

	r = gspd_ctl_get(c, "partition", buf, sizeof(buf));
	tap_ok(!r && !strcmp(buf, "8,2"),
	       "config partition = 8,2: CTL_GET says '8,2' (%d, '%s')", r, buf);
	tap_ok(b->dev[0].part_n == 8 && b->dev[0].part_k == 2 &&
	       b->dev[GSP_BOARD_MAX_DEVICES - 1].part_n == 8 &&
	       b->dev[0].part_epoch >= 1,
	       "config partition: on the board for every device, epoch %llu",
	       (unsigned long long)b->dev[0].part_epoch);

	epoch = b->dev[0].part_epoch;
	r = gspd_ctl_set(c, "partition", "4,1");
	tap_ok(!r && knob_is(c, "4,1") && b->dev[0].part_n == 4 &&
	       b->dev[0].part_k == 1 && b->dev[0].part_epoch == epoch + 1,
	       "CTL_SET partition=4,1: knob and board follow, epoch + 1 (%d)",
	       r);
	r = gspd_ctl_set(c, "partition", "16 3");
	tap_ok(!r && knob_is(c, "16,3"),
	       "CTL_SET partition='16 3': still taken, read as 16,3 (%d)", r);
	epoch = b->dev[0].part_epoch;
	r = gspd_ctl_set(c, "partition", "4,0");
	tap_ok(r == -EINVAL, "CTL_SET partition=4,0: -EINVAL (%d)", r);
	r = gspd_ctl_set(c, "partition", "257,1");
	tap_ok(r == -EINVAL, "CTL_SET partition=257,1: -EINVAL (%d)", r);
	r = gspd_ctl_set(c, "partition", "8;2");
	tap_ok(r == -EINVAL, "CTL_SET partition=8;2: -EINVAL (%d)", r);
	tap_ok(knob_is(c, "16,3") && b->dev[0].part_n == 16 &&
	       b->dev[0].part_epoch == epoch,
	       "rejected values changed nothing");
	r = gspd_ctl_set(c, "partition", "0,0");
	tap_ok(!r && knob_is(c, "0,0") && !b->dev[0].part_n,
	       "CTL_SET partition=0,0: off (%d)", r);
	r = gspd_ctl_set(c, "partition", "8,2");
	tap_ok(!r, "CTL_SET partition=8,2 again (%d)", r);
}

static void test_protect_config(struct gspd_conn *c,
				const struct gsp_board *b)
{
	char mode[64] = "", lead[64] = "";
	int d, all = 1;

	for (d = 0; d < GSP_BOARD_MAX_DEVICES; d++)
		all &= gsp_board_load(&b->dev[d].protect) ==
		       GSP_PROTECT_PREDICTIVE;
	tap_ok(!gspd_ctl_get(c, "protect", mode, sizeof(mode)) &&
	       !strcmp(mode, "predictive") && all,
	       "config protect = predictive: CTL_GET says so ('%s'), and every device of the board",
	       mode);
	tap_ok(!gspd_ctl_get(c, "predict_lead_us", lead, sizeof(lead)) &&
	       !strcmp(lead, "700") &&
	       gsp_board_load(&b->predict_lead_ns) == 700000,
	       "config predict_lead_us = 700: CTL_GET '%s', the board %llu ns",
	       lead, (unsigned long long)gsp_board_load(&b->predict_lead_ns));
}

/* A child that raises the request as the interposer does, then sleeps. */
static pid_t lc_child(int wfd)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct gspace_ctx_set cs = { .size = sizeof(cs), .weight = 100,
					     .class = GSPACE_CLASS_LC };
		struct gspd_conn *c;
		struct gsp_board *rw;
		void *map;
		int slot = -1, wr = 0;
		char ok = 'y';

		if (gspd_connect(sock_path, &c) ||
		    gspd_ioctl(c, GSPACE_IOCTL_CTX_SET, &cs) ||
		    gspd_board(c, &map, &slot, &wr) || slot < 0 || !wr)
			_exit(1);
		rw = map;
		gsp_board_store(&rw->lc[slot].inflight, 1);
		gsp_board_part_update(rw, 0);
		if (write(wfd, &ok, 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	return pid;
}

static void test_killed_lc(const struct gsp_board *b)
{
	uint64_t before;
	int p[2], st, i;
	char ok = 'n';
	pid_t pid;

	if (pipe(p)) {
		tap_ok(0, "pipe");
		return;
	}
	pid = lc_child(p[1]);
	close(p[1]);
	if (pid < 0 || read(p[0], &ok, 1) != 1 || ok != 'y') {
		tap_ok(0, "an LC client raises part_req (is this uid in lc_uids?)");
		close(p[0]);
		if (pid > 0) {
			kill(pid, SIGKILL);
			waitpid(pid, &st, 0);
		}
		return;
	}
	close(p[0]);
	before = req(b);
	tap_ok(GSP_BOARD_REQ_NK(before) ==
	       GSP_BOARD_REQ_NK(GSP_BOARD_REQ(8, 2, 0)),
	       "an LC client in flight: part_req (8, 2) (0x%llx)",
	       (unsigned long long)before);
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	for (i = 0; i < 500 && GSP_BOARD_REQ_NK(req(b)); i++)
		sleep_ms(10);
	tap_ok(!GSP_BOARD_REQ_NK(req(b)) &&
	       GSP_BOARD_REQ_EPOCH(req(b)) != GSP_BOARD_REQ_EPOCH(before),
	       "kill -9 of that client: part_req (0, 0) with a new epoch (0x%llx)",
	       (unsigned long long)req(b));
}

int main(void)
{
	const struct gsp_board *b;
	struct gspd_conn *c;

	sock_path = getenv("GSP_SOCKET");
	if (!sock_path || !*sock_path) {
		tap_ok(0, "GSP_SOCKET names the daemon's socket");
		return tap_done();
	}
	if (gspd_connect(sock_path, &c)) {
		tap_ok(0, "connect to %s", sock_path);
		return tap_done();
	}
	b = be_board(c);
	tap_ok(b != NULL, "a BE client maps the board read-only");
	if (b) {
		test_protect_config(c, b);
		test_config_and_set(c, b);
		test_killed_lc(b);
		munmap((void *)b, GSP_BOARD_SIZE);
	}
	gspd_disconnect(c);
	return tap_done();
}
