// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl ABI of uapi/gspace.h: the happy path of every ioctl, and every
 * class of bad input the header promises an error for (size, flags,
 * padding, pointers, ranges, must-be-zero fields, unknown handles,
 * privilege, unknown ioctl numbers).
 *
 * Over 800 lines: one kselftest binary per area is the harness's unit; the
 * ABI's bad-input cases are many, one test each.
 */
#include <stdint.h>
#include <linux/capability.h>

#include "gsp_util.h"

FIXTURE(abi) {
	int fd;
	int fd2;
	struct gsp_info info;
	uint64_t handle;	/* the job a prepared argument refers to */
};

FIXTURE_SETUP(abi)
{
	self->fd = -1;
	self->fd2 = -1;
	self->fd = t_open(_metadata);
	t_info(_metadata, self->fd, &self->info);
}

FIXTURE_TEARDOWN(abi)
{
	t_close(&self->fd2);
	t_close(&self->fd);
}

/*
 * Arguments that are valid as they stand, one builder per ioctl. The
 * bad-input tests below break one thing in a copy, expect the error, then
 * pass the argument as built and expect success: the failed calls must have
 * changed nothing.
 */
struct op {
	const char *name;
	unsigned long req;
	size_t ssz;
	size_t msz;		/* smallest accepted: the ABI 1.0 size */
	uint32_t known_flags;
	int pad_off;		/* offset of the MBZ pad, or -1 */
	int writes_out;		/* only copies back, no side effect */
	void (*prep)(struct __test_meta *, FIXTURE_DATA(abi) *, void *);
	void (*check)(struct __test_meta *, FIXTURE_DATA(abi) *, void *);
};

static void prep_version(struct __test_meta *_metadata,
			 FIXTURE_DATA(abi) *self, void *buf)
{
	struct gspace_version *v = buf;

	(void)_metadata;
	(void)self;
	memset(v, 0, sizeof(*v));
	v->size = sizeof(*v);
}

static void check_version(struct __test_meta *_metadata,
			  FIXTURE_DATA(abi) *self, void *buf)
{
	struct gspace_version *v = buf;

	(void)self;
	ASSERT_EQ(GSPACE_ABI_MAJOR, v->abi_major);
	ASSERT_LE(1, v->num_devices);
}

static void prep_ctx_set(struct __test_meta *_metadata,
			 FIXTURE_DATA(abi) *self, void *buf)
{
	struct gspace_ctx_set *c = buf;

	(void)_metadata;
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->device = self->info.num_devices > 1 ? 1 : 0;
	c->class = GSPACE_CLASS_BE;
	c->weight = 250;
}

static void check_ctx_set(struct __test_meta *_metadata,
			  FIXTURE_DATA(abi) *self, void *buf)
{
	struct gspace_ctx_set *c = buf;
	struct gspace_stats st;

	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(c->device, st.device);
	ASSERT_EQ(250, st.weight);
}

static void prep_submit(struct __test_meta *_metadata,
			FIXTURE_DATA(abi) *self, void *buf)
{
	(void)_metadata;
	(void)self;
	submit_init(buf, GSPACE_ENGINE_COMPUTE, 0);
}

static void check_submit(struct __test_meta *_metadata,
			 FIXTURE_DATA(abi) *self, void *buf)
{
	struct gspace_submit *s = buf;

	ASSERT_NE(0, s->handle);
	ASSERT_EQ(-1, s->out_fence_fd);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd, s->handle, GSP_SLOW_NS,
				NULL));
}

static void prep_wait(struct __test_meta *_metadata, FIXTURE_DATA(abi) *self,
		      void *buf)
{
	struct gspace_wait *w = buf;

	if (!self->handle)
		self->handle = t_submit(_metadata, self->fd, 0);
	memset(w, 0, sizeof(*w));
	w->size = sizeof(*w);
	w->handle = self->handle;
	w->deadline_ns = now_ns() + GSP_SLOW_NS;
}

static void check_wait(struct __test_meta *_metadata, FIXTURE_DATA(abi) *self,
		       void *buf)
{
	struct gspace_wait *w = buf;

	ASSERT_EQ(0, w->status);
	/* The handle is gone now. */
	ASSERT_ERRNO(ENOENT, wait_raw(self->fd, self->handle, 0, 0, NULL));
}

/* A running job on the lease device. */
static void prep_complete(struct __test_meta *_metadata,
			  FIXTURE_DATA(abi) *self, void *buf)
{
	struct gspace_complete *c = buf;

	if (!self->handle) {
		t_need_lease(_metadata, &self->info);
		t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
		self->handle = t_submit(_metadata, self->fd, 1000);
		t_wait_granted(_metadata, self->fd, self->handle, GSP_SLOW_NS);
	}
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->handle = self->handle;
	c->gpu_ns = 777;
}

static void check_complete(struct __test_meta *_metadata,
			   FIXTURE_DATA(abi) *self, void *buf)
{
	struct gspace_stats st;

	(void)buf;
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(1, st.completed);
	ASSERT_EQ(777, st.gpu_ns[GSPACE_ENGINE_COMPUTE]);
	ASSERT_ERRNO(ENOENT, wait_raw(self->fd, self->handle, 0, 0, NULL));
}

/*
 * A queued job: behind a running lease job with GSPACE_SUBMIT_CHAIN, or,
 * with no lease device, behind a long sim job on the last sim device.
 */
static uint64_t make_queued(struct __test_meta *_metadata,
			    FIXTURE_DATA(abi) *self)
{
	if (self->info.lease_dev >= 0) {
		uint64_t a;

		t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
		a = t_submit(_metadata, self->fd, 0);
		t_wait_granted(_metadata, self->fd, a, GSP_SLOW_NS);
	} else {
		t_ctx(_metadata, self->fd, self->info.num_devices - 1, 100);
		t_submit(_metadata, self->fd, 3 * NSEC_PER_SEC);
	}
	return t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 0,
			   GSPACE_SUBMIT_CHAIN, -1, NULL);
}

static void prep_cancel(struct __test_meta *_metadata,
			FIXTURE_DATA(abi) *self, void *buf)
{
	struct gspace_cancel *c = buf;

	if (!self->handle)
		self->handle = make_queued(_metadata, self);
	memset(c, 0, sizeof(*c));
	c->size = sizeof(*c);
	c->handle = self->handle;
}

static void check_cancel(struct __test_meta *_metadata,
			 FIXTURE_DATA(abi) *self, void *buf)
{
	struct gspace_wait w;

	(void)buf;
	ASSERT_OK(wait_raw(self->fd, self->handle, 0, now_ns() + GSP_SLOW_NS,
			   &w));
	ASSERT_EQ(-ECANCELED, w.status);
}

static void prep_stats(struct __test_meta *_metadata, FIXTURE_DATA(abi) *self,
		       void *buf)
{
	struct gspace_stats *st = buf;

	(void)_metadata;
	(void)self;
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
}

static void check_stats(struct __test_meta *_metadata,
			FIXTURE_DATA(abi) *self, void *buf)
{
	struct gspace_stats *st = buf;

	(void)self;
	ASSERT_EQ(GSPACE_WEIGHT_DEFAULT, st->weight);
	ASSERT_EQ(GSPACE_CLASS_BE, st->class);
}

#define OP_V10(n, R, S, KF, PAD, OUT, MSZ) {				\
	.name = #n, .req = R, .ssz = sizeof(struct S), .msz = MSZ,	\
	.known_flags = KF, .pad_off = PAD, .writes_out = OUT,		\
	.prep = prep_##n, .check = check_##n,				\
}
#define OP(n, R, S, KF, PAD, OUT)					\
	OP_V10(n, R, S, KF, PAD, OUT, sizeof(struct S))

static const struct op op_version =
	OP(version, GSPACE_IOCTL_VERSION, gspace_version, 0, -1, 1);
static const struct op op_ctx_set =
	OP(ctx_set, GSPACE_IOCTL_CTX_SET, gspace_ctx_set, 0,
	   (int)offsetof(struct gspace_ctx_set, pad), 0);
static const struct op op_submit =
	OP(submit, GSPACE_IOCTL_SUBMIT, gspace_submit, GSPACE_SUBMIT_FLAGS,
	   (int)offsetof(struct gspace_submit, pad), 0);
static const struct op op_wait =
	OP(wait, GSPACE_IOCTL_WAIT, gspace_wait, GSPACE_WAIT_FLAGS,
	   (int)offsetof(struct gspace_wait, pad), 0);
static const struct op op_complete =
	OP(complete, GSPACE_IOCTL_COMPLETE, gspace_complete,
	   GSPACE_COMPLETE_FLAGS,
	   (int)offsetof(struct gspace_complete, pad), 0);
static const struct op op_cancel =
	OP(cancel, GSPACE_IOCTL_CANCEL, gspace_cancel, 0, -1, 0);
static const struct op op_stats =
	OP_V10(stats, GSPACE_IOCTL_STATS, gspace_stats, 0, -1, 1,
	       offsetof(struct gspace_stats, lc_slot));

#define BUF_SZ 512

/*
 * Issues @op with the first @ssz bytes of @arg and @size in the size
 * field; bytes [ssz, size) are zero except the last, which is @tail_byte;
 * bytes from @size on are a canary the arbiter must not touch.
 */
static int call_sized(struct __test_meta *_metadata, FIXTURE_DATA(abi) *self,
		      const struct op *op, void *arg, uint32_t size,
		      uint8_t tail_byte)
{
	static unsigned char buf[BUF_SZ] __attribute__((aligned(8)));
	size_t i;
	int r, e;

	memset(buf, 0xa5, sizeof(buf));
	memcpy(buf, arg, op->ssz);
	if (size > op->ssz) {
		memset(buf + op->ssz, 0, size - op->ssz);
		buf[size - 1] = tail_byte;
	}
	memcpy(buf, &size, sizeof(size));
	r = gsp_ioctl(self->fd, op->req, buf);
	e = errno;
	for (i = size > op->ssz ? size : op->ssz; i < sizeof(buf); i++)
		if (buf[i] != 0xa5)
			break;
	ASSERT_EQ(sizeof(buf), i);	/* nothing written past @size */
	if (size > op->ssz) {
		for (i = op->ssz; i < size - 1; i++)
			ASSERT_EQ(0, buf[i]);
		ASSERT_EQ(tail_byte, buf[size - 1]);
	}
	memcpy(arg, buf, op->ssz);
	errno = e;
	return r;
}

static void valid_call(struct __test_meta *_metadata, FIXTURE_DATA(abi) *self,
		       const struct op *op, void *arg)
{
	ASSERT_OK(gsp_ioctl(self->fd, op->req, arg));
	op->check(_metadata, self, arg);
}

static void run_size_short(struct __test_meta *_metadata,
			   FIXTURE_DATA(abi) *self, const struct op *op)
{
	uint64_t arg[BUF_SZ / 8];
	uint32_t sizes[] = { 0, 4, 8, (uint32_t)op->msz - 8,
			     (uint32_t)op->msz - 1 };
	unsigned int i;

	op->prep(_metadata, self, arg);
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t copy[BUF_SZ / 8];

		memcpy(copy, arg, op->ssz);
		ASSERT_ERRNO(EINVAL, call_sized(_metadata, self, op, copy,
						sizes[i], 0));
	}
	valid_call(_metadata, self, op, arg);
}

static void run_size_big_nonzero(struct __test_meta *_metadata,
				 FIXTURE_DATA(abi) *self, const struct op *op)
{
	uint64_t arg[BUF_SZ / 8];
	uint32_t extra[] = { 1, 8, 64, 256 };
	unsigned int i;

	op->prep(_metadata, self, arg);
	for (i = 0; i < sizeof(extra) / sizeof(extra[0]); i++) {
		uint64_t copy[BUF_SZ / 8];

		memcpy(copy, arg, op->ssz);
		ASSERT_ERRNO(E2BIG, call_sized(_metadata, self, op, copy,
					       op->ssz + extra[i], 0x01));
	}
	valid_call(_metadata, self, op, arg);
}

static void run_size_big_zero(struct __test_meta *_metadata,
			      FIXTURE_DATA(abi) *self, const struct op *op)
{
	uint64_t arg[BUF_SZ / 8];

	op->prep(_metadata, self, arg);
	ASSERT_OK(call_sized(_metadata, self, op, arg, op->ssz + 64, 0));
	op->check(_metadata, self, arg);
}

static void run_bad_pointer(struct __test_meta *_metadata,
			    FIXTURE_DATA(abi) *self, const struct op *op)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint64_t arg[BUF_SZ / 8];
	unsigned char *map;

	op->prep(_metadata, self, arg);
	ASSERT_ERRNO(EFAULT, gsp_ioctl(self->fd, op->req, NULL));

	map = mmap(NULL, 2 * pg, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, map);
	ASSERT_OK(munmap(map + pg, pg));
	/* Wholly unmapped. */
	ASSERT_ERRNO(EFAULT, gsp_ioctl(self->fd, op->req, map + pg));
	/* @size readable, the rest of the structure past the mapping. */
	memcpy(map + pg - 8, arg, 8);
	ASSERT_ERRNO(EFAULT, gsp_ioctl(self->fd, op->req, map + pg - 8));
	if (op->writes_out) {
		/* Readable but not writable: the copy back fails. */
		unsigned char *ro = map + pg - op->ssz;

		memcpy(ro, arg, op->ssz);
		ASSERT_OK(mprotect(map, pg, PROT_READ));
		ASSERT_ERRNO(EFAULT, gsp_ioctl(self->fd, op->req, ro));
	}
	munmap(map, pg);
	valid_call(_metadata, self, op, arg);
}

static void run_unknown_flags(struct __test_meta *_metadata,
			      FIXTURE_DATA(abi) *self, const struct op *op)
{
	uint64_t arg[BUF_SZ / 8];
	int bit;

	op->prep(_metadata, self, arg);
	for (bit = 0; bit < 32; bit++) {
		uint64_t copy[BUF_SZ / 8];
		uint32_t f = 1U << bit;

		if (op->known_flags & f)
			continue;
		memcpy(copy, arg, op->ssz);
		memcpy((char *)copy + 4, &f, 4);
		ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd, op->req, copy));
	}
	valid_call(_metadata, self, op, arg);
}

static void run_pad(struct __test_meta *_metadata, FIXTURE_DATA(abi) *self,
		    const struct op *op)
{
	uint64_t arg[BUF_SZ / 8];
	uint32_t vals[] = { 1, 0x80000000u, 0xffffffffu };
	unsigned int i;

	op->prep(_metadata, self, arg);
	for (i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		uint64_t copy[BUF_SZ / 8];

		memcpy(copy, arg, op->ssz);
		memcpy((char *)copy + op->pad_off, &vals[i], 4);
		ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd, op->req, copy));
	}
	valid_call(_metadata, self, op, arg);
}

#define OP_TESTS(n)							\
TEST_F(abi, n##_size_short_einval)					\
{ run_size_short(_metadata, self, &op_##n); }				\
TEST_F(abi, n##_size_big_nonzero_tail_e2big)				\
{ run_size_big_nonzero(_metadata, self, &op_##n); }			\
TEST_F(abi, n##_size_big_zero_tail_ok)					\
{ run_size_big_zero(_metadata, self, &op_##n); }			\
TEST_F(abi, n##_bad_pointer_efault)					\
{ run_bad_pointer(_metadata, self, &op_##n); }				\
TEST_F(abi, n##_unknown_flags_einval)					\
{ run_unknown_flags(_metadata, self, &op_##n); }

OP_TESTS(version)
OP_TESTS(ctx_set)
OP_TESTS(submit)
OP_TESTS(wait)
OP_TESTS(complete)
OP_TESTS(cancel)
OP_TESTS(stats)

TEST_F(abi, ctx_set_pad_einval) { run_pad(_metadata, self, &op_ctx_set); }
TEST_F(abi, submit_pad_einval) { run_pad(_metadata, self, &op_submit); }
TEST_F(abi, wait_pad_einval) { run_pad(_metadata, self, &op_wait); }
TEST_F(abi, complete_pad_einval) { run_pad(_metadata, self, &op_complete); }

/* Unknown ioctl numbers. */

TEST_F(abi, unknown_ioctl_enotty)
{
	struct gspace_stats st;
	unsigned long reqs[] = {
		_IO(GSPACE_IOCTL_TYPE, GSPACE_CMD_DRM_SUBMIT + 1),
		_IO(GSPACE_IOCTL_TYPE, 0x3f),
		_IO(GSPACE_IOCTL_TYPE, 0xff),
		_IO(GSPACE_IOCTL_TYPE + 1, GSPACE_CMD_VERSION),
		_IO('T', 0x01),
	};
	unsigned int i;

	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		memset(&st, 0, sizeof(st));
		st.size = sizeof(st);
		ASSERT_ERRNO(ENOTTY, gsp_ioctl(self->fd, reqs[i], &st));
	}
}

/*
 * The numbers are _IO(): the same command number with a direction and size
 * encoded is a different, unknown, ioctl.
 */
TEST_F(abi, ioctl_number_with_size_enotty)
{
	struct gspace_version v;

	memset(&v, 0, sizeof(v));
	v.size = sizeof(v);
	ASSERT_ERRNO(ENOTTY, gsp_ioctl(self->fd,
		_IOWR(GSPACE_IOCTL_TYPE, GSPACE_CMD_VERSION,
		      struct gspace_version), &v));
	ASSERT_ERRNO(ENOTTY, gsp_ioctl(self->fd,
		_IOR(GSPACE_IOCTL_TYPE, GSPACE_CMD_STATS,
		     struct gspace_stats), &v));
}

/* VERSION. */

TEST_F(abi, version_happy)
{
	struct gspace_version v;

	memset(&v, 0, sizeof(v));
	v.size = sizeof(v);
	ASSERT_OK(gsp_ioctl(self->fd, GSPACE_IOCTL_VERSION, &v));
	ASSERT_EQ(sizeof(v), v.size);
	ASSERT_EQ(0, v.flags);
	ASSERT_EQ(GSPACE_ABI_MAJOR, v.abi_major);
	ASSERT_TRUE(v.features & GSPACE_FEAT_SIM_ENGINE);
	ASSERT_LE(1, v.num_devices);
	ASSERT_GE(1, v.lc_allowed);
	if (has_cap(CAP_SYS_NICE))
		ASSERT_EQ(1, v.lc_allowed);
	gsp_diag("abi %u.%u features 0x%llx devices %u lc_allowed %u",
		 v.abi_major, v.abi_minor, (unsigned long long)v.features,
		 v.num_devices, v.lc_allowed);
}

/* CTX_SET. */

TEST_F(abi, ctx_default_state)
{
	struct gspace_stats st;
	int e;

	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(0, st.device);
	ASSERT_EQ(GSPACE_CLASS_BE, st.class);
	ASSERT_EQ(GSPACE_WEIGHT_DEFAULT, st.weight);
	ASSERT_EQ(0, st.ctx_flags);
	ASSERT_EQ(0, st.queued);
	ASSERT_EQ(0, st.running);
	ASSERT_EQ(0, st.completed);
	ASSERT_EQ(0, st.failed);
	ASSERT_EQ(0, st.qos_violations);
	for (e = 0; e < GSPACE_ENGINE_COUNT; e++)
		ASSERT_EQ(0, st.gpu_ns[e]);
}

TEST_F(abi, ctx_set_happy)
{
	struct gspace_stats st;
	uint32_t dev = self->info.num_devices - 1;

	ASSERT_OK(ctx_set_raw(self->fd, dev, GSPACE_CLASS_BE, 4321, 0));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(dev, st.device);
	ASSERT_EQ(GSPACE_CLASS_BE, st.class);
	ASSERT_EQ(4321, st.weight);
	/* Back to device 0: a tenant with no job may move freely. */
	ASSERT_OK(ctx_set_raw(self->fd, 0, GSPACE_CLASS_BE, 100, 0));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(0, st.device);
	ASSERT_EQ(100, st.weight);
}

TEST_F(abi, ctx_set_weight_range)
{
	struct gspace_stats st;

	ASSERT_OK(ctx_set_raw(self->fd, 0, GSPACE_CLASS_BE, 77, 0));
	ASSERT_ERRNO(EINVAL, ctx_set_raw(self->fd, 0, GSPACE_CLASS_BE, 0, 0));
	ASSERT_ERRNO(EINVAL, ctx_set_raw(self->fd, 0, GSPACE_CLASS_BE,
					 GSPACE_WEIGHT_MAX + 1, 0));
	ASSERT_ERRNO(EINVAL, ctx_set_raw(self->fd, 0, GSPACE_CLASS_BE,
					 0xffffffffu, 0));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(77, st.weight);	/* the failed calls changed nothing */
	ASSERT_OK(ctx_set_raw(self->fd, 0, GSPACE_CLASS_BE,
			      GSPACE_WEIGHT_MIN, 0));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(GSPACE_WEIGHT_MIN, st.weight);
	ASSERT_OK(ctx_set_raw(self->fd, 0, GSPACE_CLASS_BE,
			      GSPACE_WEIGHT_MAX, 0));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(GSPACE_WEIGHT_MAX, st.weight);
}

TEST_F(abi, ctx_set_device_out_of_range_enodev)
{
	struct gspace_stats st;

	ASSERT_ERRNO(ENODEV, ctx_set_raw(self->fd, self->info.num_devices,
					 GSPACE_CLASS_BE, 100, 0));
	ASSERT_ERRNO(ENODEV, ctx_set_raw(self->fd, 0xffffffffu,
					 GSPACE_CLASS_BE, 100, 0));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(0, st.device);
}

TEST_F(abi, ctx_set_class_invalid_einval)
{
	struct gspace_stats st;

	ASSERT_ERRNO(EINVAL, ctx_set_raw(self->fd, 0, 2, 100, 0));
	ASSERT_ERRNO(EINVAL, ctx_set_raw(self->fd, 0, 0xffffffffu, 100, 0));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(GSPACE_CLASS_BE, st.class);
}

TEST_F(abi, ctx_set_lc_target_on_be_einval)
{
	ASSERT_ERRNO(EINVAL, ctx_set_raw(self->fd, 0, GSPACE_CLASS_BE, 100,
					 1000000));
	ASSERT_ERRNO(EINVAL, ctx_set_raw(self->fd, 0, GSPACE_CLASS_BE, 100,
					 ~0ULL));
}

TEST_F(abi, ctx_set_lc_unprivileged_eperm)
{
	struct gspace_stats st;

	if (has_cap(CAP_SYS_NICE))
		SKIP("has CAP_SYS_NICE");
	if (self->info.v.lc_allowed)
		SKIP("this user is in the operator's LC group");
	ASSERT_ERRNO(EPERM, ctx_set_raw(self->fd, 0, GSPACE_CLASS_LC, 100, 0));
	ASSERT_ERRNO(EPERM, ctx_set_raw(self->fd, 0, GSPACE_CLASS_LC, 100,
					5000000));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(GSPACE_CLASS_BE, st.class);
}

TEST_F(abi, ctx_set_lc_privileged_ok)
{
	struct gspace_stats st;

	if (!has_cap(CAP_SYS_NICE) && !self->info.v.lc_allowed)
		SKIP("no CAP_SYS_NICE and not in the LC group");
	ASSERT_EQ(1, self->info.v.lc_allowed);
	ASSERT_OK(ctx_set_raw(self->fd, 0, GSPACE_CLASS_LC, 300, 2000000));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(GSPACE_CLASS_LC, st.class);
	ASSERT_EQ(300, st.weight);
	/* And back to BE, where lc_target_ns must be zero again. */
	ASSERT_OK(ctx_set_raw(self->fd, 0, GSPACE_CLASS_BE, 100, 0));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(GSPACE_CLASS_BE, st.class);
}

/* SUBMIT. */

TEST_F(abi, submit_happy)
{
	uint64_t h1, h2;
	int fence;

	h1 = t_submit(_metadata, self->fd, 0);
	h2 = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COPY_H2D, 1000, 0,
			 -1, NULL);
	ASSERT_NE(h1, h2);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h1, GSP_SLOW_NS, NULL));
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h2, GSP_SLOW_NS, NULL));
	h1 = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COPY_D2H, 0,
			 GSPACE_SUBMIT_FENCE_OUT, -1, &fence);
	ASSERT_TRUE(fcntl(fence, F_GETFD) & FD_CLOEXEC);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h1, GSP_SLOW_NS, NULL));
	ASSERT_EQ(1, fence_info(_metadata, fence, NULL));
	close(fence);
}

TEST_F(abi, submit_engine_invalid_einval)
{
	struct gspace_submit s;
	uint32_t bad[] = { GSPACE_ENGINE_COUNT, 17, 0xffffffffu };
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		submit_init(&s, bad[i], 0);
		ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd, GSPACE_IOCTL_SUBMIT,
					       &s));
	}
}

TEST_F(abi, submit_cost_range)
{
	struct gspace_submit s;
	struct gspace_stats st;
	uint64_t h;

	submit_init(&s, GSPACE_ENGINE_COMPUTE, GSPACE_COST_MAX_NS + 1);
	ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd, GSPACE_IOCTL_SUBMIT, &s));
	submit_init(&s, GSPACE_ENGINE_COMPUTE, ~0ULL);
	ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd, GSPACE_IOCTL_SUBMIT, &s));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(0, st.queued + st.running + st.completed);
	/* The maximum itself is valid; on a lease device it is a hint only. */
	t_need_lease(_metadata, &self->info);
	t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
	h = t_submit(_metadata, self->fd, GSPACE_COST_MAX_NS);
	t_wait_granted(_metadata, self->fd, h, GSP_SLOW_NS);
	ASSERT_OK(complete_raw(self->fd, h, 10, 0));
}

TEST_F(abi, submit_mbz_without_flag_einval)
{
	struct gspace_submit s;

	submit_init(&s, GSPACE_ENGINE_COMPUTE, 0);
	s.in_fence_fd = 1;		/* set without GSPACE_SUBMIT_FENCE_IN */
	ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd, GSPACE_IOCTL_SUBMIT, &s));
	submit_init(&s, GSPACE_ENGINE_COMPUTE, 0);
	s.in_fence_fd = -1;
	ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd, GSPACE_IOCTL_SUBMIT, &s));
	submit_init(&s, GSPACE_ENGINE_COPY_H2D, 0);
	s.task_compute_ns = 1;		/* without GSPACE_SUBMIT_TASK_HEAD */
	ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd, GSPACE_IOCTL_SUBMIT, &s));
	submit_init(&s, GSPACE_ENGINE_COPY_H2D, 0);
	s.task_d2h_ns = 1;
	ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd, GSPACE_IOCTL_SUBMIT, &s));
}

TEST_F(abi, submit_task_head)
{
	struct gspace_submit s;

	submit_init(&s, GSPACE_ENGINE_COMPUTE, 0);
	s.flags = GSPACE_SUBMIT_TASK_HEAD;
	s.task_compute_ns = 1000;
	ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd, GSPACE_IOCTL_SUBMIT, &s));
	submit_init(&s, GSPACE_ENGINE_COPY_D2H, 0);
	s.flags = GSPACE_SUBMIT_TASK_HEAD;
	s.task_compute_ns = 1000;
	ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd, GSPACE_IOCTL_SUBMIT, &s));
	submit_init(&s, GSPACE_ENGINE_COPY_H2D, 1000);
	s.flags = GSPACE_SUBMIT_TASK_HEAD;
	s.task_compute_ns = GSPACE_COST_MAX_NS + 1;
	ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd, GSPACE_IOCTL_SUBMIT, &s));
	submit_init(&s, GSPACE_ENGINE_COPY_H2D, 1000);
	s.flags = GSPACE_SUBMIT_TASK_HEAD;
	s.task_compute_ns = 2000;
	s.task_d2h_ns = 1000;
	ASSERT_OK(gsp_ioctl(self->fd, GSPACE_IOCTL_SUBMIT, &s));
	ASSERT_NE(0, s.handle);
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd, s.handle, GSP_SLOW_NS,
				NULL));
}

TEST_F(abi, submit_in_fence_not_sync_file_einval)
{
	struct gspace_submit s;
	struct gspace_stats st;
	int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, nul);
	submit_init(&s, GSPACE_ENGINE_COMPUTE, 0);
	s.flags = GSPACE_SUBMIT_FENCE_IN;
	s.in_fence_fd = nul;
	ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd, GSPACE_IOCTL_SUBMIT, &s));
	submit_init(&s, GSPACE_ENGINE_COMPUTE, 0);
	s.flags = GSPACE_SUBMIT_FENCE_IN;
	s.in_fence_fd = -1;
	ASSERT_ERRNO(EINVAL, gsp_ioctl(self->fd, GSPACE_IOCTL_SUBMIT, &s));
	close(nul);
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(0, st.queued + st.running + st.completed);
}

/* WAIT. */

TEST_F(abi, wait_happy)
{
	const uint64_t cost = 20 * NSEC_PER_MSEC;
	struct gspace_wait w;
	uint64_t h, t0, t1;

	t0 = now_ns();
	h = t_submit(_metadata, self->fd, cost);
	ASSERT_OK(wait_raw(self->fd, h, 0, now_ns() + GSP_SLOW_NS, &w));
	t1 = now_ns();
	ASSERT_EQ(0, w.status);
	ASSERT_EQ(0, w.pad);
	ASSERT_LE(cost, w.gpu_ns);
	ASSERT_GE(cost + GSP_SLOW_NS, w.gpu_ns);
	ASSERT_LE(cost, w.latency_ns);
	ASSERT_GE(t1 - t0, w.latency_ns);
	ASSERT_LE(cost, t1 - t0);
}

TEST_F(abi, wait_unknown_handle_enoent)
{
	ASSERT_ERRNO(ENOENT, wait_raw(self->fd, 0, 0, 0, NULL));
	ASSERT_ERRNO(ENOENT, wait_raw(self->fd, 0x5eadbeefcafeULL, 0,
				      now_ns() + NSEC_PER_SEC, NULL));
	ASSERT_ERRNO(ENOENT, wait_raw(self->fd, ~0ULL, GSPACE_WAIT_GRANTED,
				      0, NULL));
}

TEST_F(abi, wait_twice_enoent)
{
	uint64_t h = t_submit(_metadata, self->fd, 0);

	ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h, GSP_SLOW_NS, NULL));
	ASSERT_ERRNO(ENOENT, wait_raw(self->fd, h, 0, 0, NULL));
	ASSERT_ERRNO(ENOENT, wait_raw(self->fd, h, GSPACE_WAIT_GRANTED, 0,
				      NULL));
}

TEST_F(abi, handles_are_per_tenant_enoent)
{
	uint64_t h = t_submit(_metadata, self->fd, 0);

	self->fd2 = t_open(_metadata);
	ASSERT_ERRNO(ENOENT, wait_raw(self->fd2, h, 0, 0, NULL));
	ASSERT_ERRNO(ENOENT, cancel_raw(self->fd2, h));
	ASSERT_ERRNO(ENOENT, complete_raw(self->fd2, h, 0, 0));
	/* The owner still has it. */
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h, GSP_SLOW_NS, NULL));
}

/* COMPLETE. */

TEST_F(abi, complete_happy)
{
	struct gspace_stats st;
	uint64_t h;

	t_need_lease(_metadata, &self->info);
	t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
	h = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COPY_H2D, 5000, 0,
			-1, NULL);
	t_wait_granted(_metadata, self->fd, h, GSP_SLOW_NS);
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(1, st.running);
	ASSERT_OK(complete_raw(self->fd, h, 4242, 0));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(0, st.running);
	ASSERT_EQ(1, st.completed);
	ASSERT_EQ(0, st.failed);
	ASSERT_EQ(4242, st.gpu_ns[GSPACE_ENGINE_COPY_H2D]);
	ASSERT_EQ(0, st.gpu_ns[GSPACE_ENGINE_COMPUTE]);
	/* COMPLETE forgets the handle. */
	ASSERT_ERRNO(ENOENT, wait_raw(self->fd, h, 0, 0, NULL));
	ASSERT_ERRNO(ENOENT, complete_raw(self->fd, h, 1, 0));
}

TEST_F(abi, complete_unknown_handle_enoent)
{
	ASSERT_ERRNO(ENOENT, complete_raw(self->fd, 0, 0, 0));
	ASSERT_ERRNO(ENOENT, complete_raw(self->fd, 0x1234567ULL, 10, 0));
}

TEST_F(abi, complete_sim_job_einval)
{
	uint64_t h = t_submit(_metadata, self->fd, 0);

	ASSERT_ERRNO(EINVAL, complete_raw(self->fd, h, 10, 0));
	/* Still the sim engine's to end. */
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h, GSP_SLOW_NS, NULL));
}

TEST_F(abi, complete_not_running_ebusy)
{
	uint64_t a, b;

	t_need_lease(_metadata, &self->info);
	t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
	a = t_submit(_metadata, self->fd, 0);
	t_wait_granted(_metadata, self->fd, a, GSP_SLOW_NS);
	b = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_CHAIN, -1, NULL);
	ASSERT_ERRNO(EBUSY, complete_raw(self->fd, b, 10, 0));
	ASSERT_OK(complete_raw(self->fd, a, 10, 0));
	t_wait_granted(_metadata, self->fd, b, GSP_SLOW_NS);
	ASSERT_OK(complete_raw(self->fd, b, 10, 0));
}

TEST_F(abi, complete_out_of_range_einval)
{
	struct gspace_stats st;
	uint64_t h;

	t_need_lease(_metadata, &self->info);
	t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
	h = t_submit(_metadata, self->fd, 0);
	t_wait_granted(_metadata, self->fd, h, GSP_SLOW_NS);
	ASSERT_ERRNO(EINVAL, complete_raw(self->fd, h, GSPACE_COST_MAX_NS + 1,
					  0));
	ASSERT_ERRNO(EINVAL, complete_raw(self->fd, h, 0, 1));
	ASSERT_ERRNO(EINVAL, complete_raw(self->fd, h, 0, -4096));
	ASSERT_ERRNO(EINVAL, complete_raw(self->fd, h, 0, INT32_MIN));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(1, st.running);
	ASSERT_OK(complete_raw(self->fd, h, GSPACE_COST_MAX_NS, 0));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(GSPACE_COST_MAX_NS, st.gpu_ns[GSPACE_ENGINE_COMPUTE]);
}

TEST_F(abi, complete_after_cancel_ealready)
{
	uint64_t h;

	t_need_lease(_metadata, &self->info);
	h = make_queued(_metadata, self);
	ASSERT_OK(cancel_raw(self->fd, h));
	ASSERT_ERRNO(EALREADY, complete_raw(self->fd, h, 1, 0));
	/* Not forgotten by the failed COMPLETE. */
	ASSERT_EQ(-ECANCELED, t_wait_end(_metadata, self->fd, h, GSP_SLOW_NS,
					 NULL));
}

/* COMPLETE with GSPACE_COMPLETE_PROGRESS (ABI 1.3): renewals. */

TEST_F(abi, version_has_lease_progress)
{
	ASSERT_LE(3, self->info.v.abi_minor);
	ASSERT_TRUE(self->info.v.features & GSPACE_FEAT_LEASE_PROGRESS);
}

TEST_F(abi, progress_charges_as_it_runs)
{
	struct gspace_stats st;
	struct gspace_wait w;
	uint64_t h;

	t_need_lease(_metadata, &self->info);
	t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
	h = t_submit(_metadata, self->fd, 1000);
	t_wait_granted(_metadata, self->fd, h, GSP_SLOW_NS);
	ASSERT_OK(progress_raw(self->fd, h, 1000));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(1, st.running);
	ASSERT_EQ(0, st.completed);
	ASSERT_EQ(1000, st.gpu_ns[GSPACE_ENGINE_COMPUTE]);
	/* Less than before charges nothing; more charges the difference. */
	ASSERT_OK(progress_raw(self->fd, h, 600));
	ASSERT_OK(progress_raw(self->fd, h, 3000));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(1, st.running);
	ASSERT_EQ(3000, st.gpu_ns[GSPACE_ENGINE_COMPUTE]);
	/* The handle stays: WAIT GRANTED still sees it running. */
	ASSERT_OK(wait_raw(self->fd, h, GSPACE_WAIT_GRANTED, 0, &w));
	/* The end charges only what it adds. */
	ASSERT_OK(complete_raw(self->fd, h, 5000, 0));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(0, st.running);
	ASSERT_EQ(1, st.completed);
	ASSERT_EQ(0, st.failed);
	ASSERT_EQ(5000, st.gpu_ns[GSPACE_ENGINE_COMPUTE]);
	ASSERT_ERRNO(ENOENT, progress_raw(self->fd, h, 6000));
	/* An end that reports less than the renewals charges nothing more. */
	h = t_submit(_metadata, self->fd, 1000);
	t_wait_granted(_metadata, self->fd, h, GSP_SLOW_NS);
	ASSERT_OK(progress_raw(self->fd, h, 4000));
	ASSERT_OK(complete_raw(self->fd, h, 100, 0));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(2, st.completed);
	ASSERT_EQ(9000, st.gpu_ns[GSPACE_ENGINE_COMPUTE]);
}

TEST_F(abi, progress_does_not_end_the_job)
{
	uint64_t h;
	int f;

	t_need_lease(_metadata, &self->info);
	t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
	h = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 1000,
			GSPACE_SUBMIT_FENCE_OUT, -1, &f);
	t_wait_granted(_metadata, self->fd, h, GSP_SLOW_NS);
	ASSERT_OK(progress_raw(self->fd, h, 7000));
	ASSERT_OK(progress_raw(self->fd, h, 8000));
	/* Still running: no fence, no end to wait for, not cancellable. */
	ASSERT_FALSE(fence_readable(f, 0));
	ASSERT_ERRNO(ETIME, wait_raw(self->fd, h, 0, 0, NULL));
	ASSERT_ERRNO(EBUSY, cancel_raw(self->fd, h));
	/* The end still carries its error. */
	ASSERT_OK(complete_raw(self->fd, h, 9000, -EIO));
	ASSERT_TRUE(fence_readable(f, 1000));
	ASSERT_EQ(-EIO, fence_info(_metadata, f, NULL));
	close(f);
}

TEST_F(abi, progress_bad_input_einval)
{
	struct gspace_stats st;
	uint64_t h;

	t_need_lease(_metadata, &self->info);
	t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
	h = t_submit(_metadata, self->fd, 1000);
	t_wait_granted(_metadata, self->fd, h, GSP_SLOW_NS);
	/* A renewal cannot fail the job. */
	ASSERT_ERRNO(EINVAL, complete_fl_raw(self->fd, h, 10, -EIO,
					     GSPACE_COMPLETE_PROGRESS));
	/* Unknown flags, with or without PROGRESS. */
	ASSERT_ERRNO(EINVAL, complete_fl_raw(self->fd, h, 10, 0, 1U << 1));
	ASSERT_ERRNO(EINVAL, complete_fl_raw(self->fd, h, 10, 0,
					     GSPACE_COMPLETE_PROGRESS |
					     (1U << 31)));
	ASSERT_ERRNO(EINVAL, progress_raw(self->fd, h,
					  GSPACE_COST_MAX_NS + 1));
	/* None of them charged or ended anything. */
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(1, st.running);
	ASSERT_EQ(0, st.gpu_ns[GSPACE_ENGINE_COMPUTE]);
	ASSERT_OK(complete_raw(self->fd, h, 10, 0));
}

TEST_F(abi, progress_needs_a_running_lease)
{
	uint64_t h, a, b;

	ASSERT_ERRNO(ENOENT, progress_raw(self->fd, 0x1234567ULL, 10));
	/* A sim job is the engine's to end. */
	h = t_submit(_metadata, self->fd, 0);
	ASSERT_ERRNO(EINVAL, progress_raw(self->fd, h, 10));
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h, GSP_SLOW_NS, NULL));
	t_need_lease(_metadata, &self->info);
	t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
	a = t_submit(_metadata, self->fd, 0);
	t_wait_granted(_metadata, self->fd, a, GSP_SLOW_NS);
	b = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_CHAIN, -1, NULL);
	ASSERT_ERRNO(EBUSY, progress_raw(self->fd, b, 10));
	ASSERT_OK(cancel_raw(self->fd, b));
	ASSERT_ERRNO(EALREADY, progress_raw(self->fd, b, 10));
	ASSERT_OK(complete_raw(self->fd, a, 10, 0));
	ASSERT_EQ(-ECANCELED, t_wait_end(_metadata, self->fd, b, GSP_SLOW_NS,
					 NULL));
}

/* CANCEL. */

TEST_F(abi, cancel_queued_happy)
{
	struct gspace_wait w;
	struct gspace_stats st;
	uint64_t h = make_queued(_metadata, self);

	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(1, st.queued);
	ASSERT_OK(cancel_raw(self->fd, h));
	/* The handle stays valid for WAIT, which reports ECANCELED. */
	ASSERT_OK(wait_raw(self->fd, h, 0, now_ns() + GSP_SLOW_NS, &w));
	ASSERT_EQ(-ECANCELED, w.status);
	ASSERT_EQ(0, w.gpu_ns);
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(0, st.queued);
	ASSERT_EQ(1, st.failed);
}

TEST_F(abi, cancel_running_ebusy)
{
	uint64_t h;

	if (self->info.lease_dev >= 0) {
		t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
		h = t_submit(_metadata, self->fd, 0);
		t_wait_granted(_metadata, self->fd, h, GSP_SLOW_NS);
		ASSERT_ERRNO(EBUSY, cancel_raw(self->fd, h));
		ASSERT_OK(complete_raw(self->fd, h, 1, 0));
	} else {
		h = t_submit(_metadata, self->fd, 300 * NSEC_PER_MSEC);
		t_wait_granted(_metadata, self->fd, h, GSP_SLOW_NS);
		ASSERT_ERRNO(EBUSY, cancel_raw(self->fd, h));
		ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h, GSP_SLOW_NS,
					NULL));
	}
}

TEST_F(abi, cancel_twice_ealready)
{
	uint64_t h = make_queued(_metadata, self);

	ASSERT_OK(cancel_raw(self->fd, h));
	ASSERT_ERRNO(EALREADY, cancel_raw(self->fd, h));
	ASSERT_EQ(-ECANCELED, t_wait_end(_metadata, self->fd, h, GSP_SLOW_NS,
					 NULL));
	/* Waited for: now forgotten. */
	ASSERT_ERRNO(ENOENT, cancel_raw(self->fd, h));
}

TEST_F(abi, cancel_after_end_ealready)
{
	uint64_t h;
	int fence;

	h = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_FENCE_OUT, -1, &fence);
	ASSERT_TRUE(fence_readable(fence, 5000));
	ASSERT_ERRNO(EALREADY, cancel_raw(self->fd, h));
	ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h, GSP_SLOW_NS, NULL));
	close(fence);
}

TEST_F(abi, cancel_unknown_handle_enoent)
{
	ASSERT_ERRNO(ENOENT, cancel_raw(self->fd, 0));
	ASSERT_ERRNO(ENOENT, cancel_raw(self->fd, 0xabcdef01ULL));
}

/* STATS. */

TEST_F(abi, stats_counts_and_charges)
{
	struct gspace_stats st;
	uint64_t h[4];
	int i;

	h[0] = t_submit(_metadata, self->fd, 1 * NSEC_PER_MSEC);
	h[1] = t_submit(_metadata, self->fd, 2 * NSEC_PER_MSEC);
	h[2] = t_submit(_metadata, self->fd, 3 * NSEC_PER_MSEC);
	h[3] = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COPY_D2H,
			   4 * NSEC_PER_MSEC, 0, -1, NULL);
	for (i = 0; i < 4; i++)
		ASSERT_EQ(0, t_wait_end(_metadata, self->fd, h[i], GSP_SLOW_NS,
					NULL));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(4, st.completed);
	ASSERT_EQ(0, st.failed);
	ASSERT_EQ(0, st.queued);
	ASSERT_EQ(0, st.running);
	ASSERT_LE(6 * NSEC_PER_MSEC, st.gpu_ns[GSPACE_ENGINE_COMPUTE]);
	ASSERT_GE(6 * NSEC_PER_MSEC + GSP_SLOW_NS,
		  st.gpu_ns[GSPACE_ENGINE_COMPUTE]);
	ASSERT_EQ(0, st.gpu_ns[GSPACE_ENGINE_COPY_H2D]);
	ASSERT_LE(4 * NSEC_PER_MSEC, st.gpu_ns[GSPACE_ENGINE_COPY_D2H]);
}

/* A client built against ABI 1.0 gets its counters and nothing more. */
TEST_F(abi, stats_abi_1_0_size)
{
	unsigned char buf[sizeof(struct gspace_stats) + 8];
	struct gspace_stats *st = (struct gspace_stats *)buf;
	size_t v10 = offsetof(struct gspace_stats, lc_slot), i;

	memset(buf, 0xa5, sizeof(buf));
	memset(buf, 0, v10);
	st->size = v10;
	ASSERT_OK(gsp_ioctl(self->fd, GSPACE_IOCTL_STATS, st));
	ASSERT_EQ(GSPACE_WEIGHT_DEFAULT, st->weight);
	for (i = v10; i < sizeof(buf); i++)
		ASSERT_EQ(0xa5, buf[i]);
}

TEST_F(abi, stats_queued_and_running)
{
	struct gspace_stats st;
	uint64_t a, b;

	t_need_lease(_metadata, &self->info);
	t_ctx(_metadata, self->fd, self->info.lease_dev, 100);
	a = t_submit(_metadata, self->fd, 0);
	t_wait_granted(_metadata, self->fd, a, GSP_SLOW_NS);
	b = t_submit_fl(_metadata, self->fd, GSPACE_ENGINE_COMPUTE, 0,
			GSPACE_SUBMIT_CHAIN, -1, NULL);
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(self->info.lease_dev, st.device);
	ASSERT_EQ(1, st.running);
	ASSERT_EQ(1, st.queued);
	ASSERT_EQ(0, st.completed);
	ASSERT_OK(complete_raw(self->fd, a, 100, 0));
	t_wait_granted(_metadata, self->fd, b, GSP_SLOW_NS);
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(1, st.running);
	ASSERT_EQ(0, st.queued);
	ASSERT_EQ(1, st.completed);
	ASSERT_OK(complete_raw(self->fd, b, 100, 0));
	t_stats(_metadata, self->fd, &st);
	ASSERT_EQ(2, st.completed);
	ASSERT_EQ(200, st.gpu_ns[GSPACE_ENGINE_COMPUTE]);
}

TEST_HARNESS_MAIN
