// SPDX-License-Identifier: GPL-2.0
/*
 * The boards gsp-psim runs on: one in memory, whose arbiter side is
 * emulated here, and an arbiter's own (gspace.ko's /dev/gspace, or
 * gspaced's through the selftests' transport), whose arbiter side is the
 * arbiter itself: the knobs are written, and its own update computes
 * part_req, which is then checked against the rule of gsp_board.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "psim.h"

#define MEM_CLOCK_NS	1000000000ULL	/* any nonzero time will do */
#define SYSFS_DIR	"/sys/class/misc/gspace/"

static const char *const arb_knobs[PSIM_ARB_KNOBS] = {
	"partition", "protect", "predict_lead_us",
};

/* The arbiter's fields as gspace.ko sets them (kmod/gsp_board.c). */
static int mem_setup(struct psim_board *pb, uint32_t protect, uint32_t n,
		     uint32_t k, uint64_t lead_ns)
{
	struct gsp_board_dev *d = &pb->b->dev[pb->device];

	gsp_board_store(&pb->b->predict_lead_ns, lead_ns);
	if (n != d->part_n || k != d->part_k) {
		gsp_board_store(&d->part_n, n);
		gsp_board_store(&d->part_k, k);
		gsp_board_store(&d->part_epoch, d->part_epoch + 1);
	}
	gsp_board_store(&d->protect, protect);
	gsp_board_part_update(pb->b, pb->device);
	return 0;
}

void psim_board_mem(struct psim_board *pb, struct gsp_board *mem)
{
	memset(mem, 0, sizeof(*mem));
	mem->magic = GSP_BOARD_MAGIC;
	mem->version = GSP_BOARD_VERSION;
	mem->num_devices = 1;
	mem->lc_hold_ns = 200000;	/* the module's defaults */
	mem->lc_max_ns = 100000000;
	mem->predict_lead_ns = 500000;
	*pb = (struct psim_board){
		.b = mem, .device = 0, .slot = 0, .clock_ns = MEM_CLOCK_NS,
		.what = "in memory (this process emulates the arbiter)",
		.setup = mem_setup,
	};
	/* The slot given out, and the request recomputed, as on CTX_SET. */
	mem->lc[0].owner = 1;
	mem->lc[0].device = 0;
	gsp_board_part_update(mem, 0);
}

/*
 * The arbiter publishes the knobs and recomputes the word itself; the
 * word it left must be what the rule of gsp_board.h gives.
 */
static int arb_setup(struct psim_board *pb, uint32_t protect, uint32_t n,
		     uint32_t k, uint64_t lead_ns)
{
	struct psim_arb *a = pb->priv;
	struct gsp_board_dev *d = &pb->b->dev[pb->device];
	char val[PSIM_ARB_VAL];
	uint32_t got, want;
	int e;

	snprintf(val, sizeof(val), "%u,%u", n, k);
	e = a->knob_write("partition", val);
	if (!e)
		e = a->knob_write("protect", gsp_protect_name(protect));
	if (!e) {
		snprintf(val, sizeof(val), "%llu",
			 (unsigned long long)(lead_ns / 1000));
		e = a->knob_write("predict_lead_us", val);
	}
	if (e) {
		snprintf(pb->err, sizeof(pb->err),
			 "the arbiter refused the knobs: %s%s", strerror(-e),
			 e == -EACCES || e == -EPERM ? " (run as root)" : "");
		return e;
	}
	if (gsp_board_load(&d->protect) != protect ||
	    gsp_board_load(&d->part_n) != n ||
	    gsp_board_load(&d->part_k) != k ||
	    gsp_board_load(&pb->b->predict_lead_ns) != lead_ns) {
		snprintf(pb->err, sizeof(pb->err),
			 "the board does not show the knobs just written");
		return -EIO;
	}
	got = GSP_BOARD_REQ_NK(gsp_board_load(&d->part_req));
	gsp_board_claim_nk(protect, &n, &k);
	want = gsp_board_lc_claims(pb->b, pb->device, protect) ?
	       GSP_BOARD_REQ_NK(GSP_BOARD_REQ(n, k, 0)) : 0;
	if (got != want) {
		snprintf(pb->err, sizeof(pb->err),
			 "the arbiter's word asks (%u, %u), the rule (%u, %u)",
			 GSP_BOARD_REQ_N(got), GSP_BOARD_REQ_K(got),
			 GSP_BOARD_REQ_N(want), GSP_BOARD_REQ_K(want));
		return -EIO;
	}
	a->setups++;
	return 0;
}

int psim_board_arb(struct psim_board *pb, struct psim_arb *a, char *err,
		   size_t len)
{
	int i, e;

	for (i = 0; i < PSIM_ARB_KNOBS; i++) {
		e = a->knob_read(arb_knobs[i], a->saved[i], sizeof(a->saved[i]));
		if (e) {
			snprintf(err, len, "cannot read the knob %s: %s",
				 arb_knobs[i], strerror(-e));
			return -1;
		}
		a->saved[i][strcspn(a->saved[i], "\n")] = 0;
	}
	a->nsaved = PSIM_ARB_KNOBS;
	pb->priv = a;
	pb->setup = arb_setup;
	return 0;
}

int psim_arb_restore(struct psim_arb *a)
{
	int rc = 0;

	/* In reverse: the partition last, as the selftests do. */
	while (a->nsaved > 0) {
		a->nsaved--;
		if (a->knob_write(arb_knobs[a->nsaved], a->saved[a->nsaved]))
			rc = -1;
	}
	return rc;
}

/* gspace.ko ---------------------------------------------------------------- */

static int sysfs_read(const char *knob, char *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd, e;

	snprintf(path, sizeof(path), SYSFS_DIR "%s", knob);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	e = n < 0 ? -errno : 0;
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return e;
}

static int sysfs_write(const char *knob, const char *val)
{
	char path[128];
	ssize_t n;
	int fd, e = 0;

	snprintf(path, sizeof(path), SYSFS_DIR "%s", knob);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	if (n < 0)
		e = -errno;
	else if ((size_t)n != strlen(val))
		e = -EIO;
	close(fd);
	return e;
}

static int xioctl(int fd, unsigned long req, void *arg)
{
	int r;

	do {
		r = ioctl(fd, req, arg);
	} while (r < 0 && errno == EINTR);
	return r;
}

int psim_board_dev(struct psim_dev *d, uint32_t device, char *err,
		   size_t len)
{
	struct gspace_version v = { .size = sizeof(v) };
	struct gspace_ctx_set c = {
		.size = sizeof(c), .device = device, .class = GSPACE_CLASS_LC,
		.weight = GSPACE_WEIGHT_DEFAULT,
	};
	struct gspace_stats st = { .size = sizeof(st) };
	const uint64_t need = GSPACE_FEAT_BOARD | GSPACE_FEAT_PARTITION |
			      GSPACE_FEAT_PROTECT;
	struct timespec ts;
	void *map;

	memset(d, 0, sizeof(*d));
	d->fd = open("/dev/gspace", O_RDWR | O_CLOEXEC);
	if (d->fd < 0) {
		snprintf(err, len, "cannot open /dev/gspace: %s%s",
			 strerror(errno), errno == ENOENT ?
			 " (is gspace.ko loaded?)" : "");
		return -1;
	}
	if (xioctl(d->fd, GSPACE_IOCTL_VERSION, &v) ||
	    v.abi_major != GSPACE_ABI_MAJOR || (v.features & need) != need) {
		snprintf(err, len, "/dev/gspace has no board with protection modes (ABI %u.%u, features 0x%llx)",
			 v.abi_major, v.abi_minor,
			 (unsigned long long)v.features);
		goto fail;
	}
	if (xioctl(d->fd, GSPACE_IOCTL_CTX_SET, &c) ||
	    xioctl(d->fd, GSPACE_IOCTL_STATS, &st)) {
		snprintf(err, len, "cannot become an LC tenant on device %u: %s%s",
			 device, strerror(errno), errno == EPERM ?
			 " (class LC needs CAP_SYS_NICE: run as root)" : "");
		goto fail;
	}
	if (st.lc_slot < 0 || st.lc_slot >= GSP_BOARD_LC_SLOTS) {
		snprintf(err, len, "the module gave this LC tenant no board slot (all %d taken)",
			 GSP_BOARD_LC_SLOTS);
		goto fail;
	}
	map = mmap(NULL, GSP_BOARD_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
		   d->fd, 0);
	if (map == MAP_FAILED) {
		snprintf(err, len, "cannot map the board writable: %s",
			 strerror(errno));
		goto fail;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	d->arb = (struct psim_arb){
		.knob_read = sysfs_read, .knob_write = sysfs_write,
	};
	d->pb = (struct psim_board){
		.b = map, .device = device, .slot = st.lc_slot,
		.clock_ns = (uint64_t)ts.tv_sec * 1000000000ULL +
			    (uint64_t)ts.tv_nsec,
		.what = "gspace.ko's (/dev/gspace; knobs through sysfs)",
	};
	if (psim_board_arb(&d->pb, &d->arb, err, len)) {
		munmap(map, GSP_BOARD_SIZE);
		goto fail;
	}
	return 0;
fail:
	close(d->fd);
	d->fd = -1;
	return -1;
}

int psim_board_dev_close(struct psim_dev *d)
{
	int rc = psim_arb_restore(&d->arb);

	if (d->pb.b)
		munmap(d->pb.b, GSP_BOARD_SIZE);
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
	d->pb.b = NULL;
	return rc;
}
