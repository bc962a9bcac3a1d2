// SPDX-License-Identifier: GPL-2.0
/*
 * libgsp without an arbiter: the parsers, gsp_open()'s choice of arbiter
 * and its errors, and the NULL-safe corners. Needs no device, no daemon
 * and no root.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <gsp.h>
#include "tap.h"

static char tmpdir[] = "/tmp/gsp-test-api.XXXXXX";
static char missing[64];	/* a path in tmpdir that does not exist */

static void env(const char *arbiter, const char *dev, const char *sock)
{
	unsetenv("GSP_ARBITER");
	unsetenv("GSPACE_DEV");
	unsetenv("GSP_SOCKET");
	if (arbiter)
		setenv("GSP_ARBITER", arbiter, 1);
	if (dev)
		setenv("GSPACE_DEV", dev, 1);
	if (sock)
		setenv("GSP_SOCKET", sock, 1);
}

/* gsp_open(NULL) under the environment; checks *out and errno too. */
static int open_env(void)
{
	struct gsp *g = (struct gsp *)&g;	/* must be set to NULL */
	int ret;

	errno = 4242;
	ret = gsp_open(&g, NULL);
	if (errno != 4242)
		tap_diag("gsp_open changed errno to %d", errno);
	if (ret && g)
		tap_diag("gsp_open failed but left *out set");
	if (!ret)
		gsp_close(g);
	return ret && (errno != 4242 || g) ? -9999 : ret;
}

static void test_parsers(void)
{
	static const char *const bad[] = {
		"", "Kernel", "KERNEL", "kernel ", " daemon", "autox", "dev",
		"be", "lc",
	};
	static const char *const bad_cls[] = {
		"", "BE", "Lc", "be ", "lc\n", "latency", "kernel",
	};
	enum gsp_arbiter a = (enum gsp_arbiter)77;
	uint32_t c = 77;
	size_t i;
	int ok;

	tap_ok(!gsp_arbiter_parse("kernel", &a) && a == GSP_ARBITER_KERNEL,
	       "arbiter_parse: kernel");
	tap_ok(!gsp_arbiter_parse("daemon", &a) && a == GSP_ARBITER_DAEMON,
	       "arbiter_parse: daemon");
	tap_ok(!gsp_arbiter_parse("auto", &a) && a == GSP_ARBITER_AUTO,
	       "arbiter_parse: auto");
	ok = 1;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		a = (enum gsp_arbiter)77;
		if (gsp_arbiter_parse(bad[i], &a) != -EINVAL || a != 77) {
			tap_diag("arbiter_parse accepted '%s'", bad[i]);
			ok = 0;
		}
	}
	ok &= gsp_arbiter_parse(NULL, &a) == -EINVAL;
	ok &= gsp_arbiter_parse("kernel", NULL) == -EINVAL;
	tap_ok(ok, "arbiter_parse: -EINVAL, output untouched, for %zu bad strings and NULLs",
	       sizeof(bad) / sizeof(bad[0]));

	tap_ok(!gsp_class_parse("be", &c) && c == GSPACE_CLASS_BE,
	       "class_parse: be");
	tap_ok(!gsp_class_parse("lc", &c) && c == GSPACE_CLASS_LC,
	       "class_parse: lc");
	ok = 1;
	for (i = 0; i < sizeof(bad_cls) / sizeof(bad_cls[0]); i++) {
		c = 77;
		if (gsp_class_parse(bad_cls[i], &c) != -EINVAL || c != 77) {
			tap_diag("class_parse accepted '%s'", bad_cls[i]);
			ok = 0;
		}
	}
	ok &= gsp_class_parse(NULL, &c) == -EINVAL;
	ok &= gsp_class_parse("be", NULL) == -EINVAL;
	tap_ok(ok, "class_parse: -EINVAL, output untouched, for %zu bad strings and NULLs",
	       sizeof(bad_cls) / sizeof(bad_cls[0]));
}

static void test_open_env(void)
{
	int ret;

	env("kernel", missing, NULL);
	ret = open_env();
	tap_ok(ret == -ENOENT, "GSP_ARBITER=kernel, no device: -ENOENT (got %d)",
	       ret);

	env("daemon", NULL, missing);
	ret = open_env();
	tap_ok(ret == -ENOENT, "GSP_ARBITER=daemon, no socket: -ENOENT (got %d)",
	       ret);

	env(NULL, missing, missing);
	ret = open_env();
	tap_ok(ret == -ENOENT, "GSP_ARBITER unset (auto), neither: -ENOENT (got %d)",
	       ret);

	env("auto", missing, missing);
	ret = open_env();
	tap_ok(ret == -ENOENT, "GSP_ARBITER=auto, neither: -ENOENT (got %d)",
	       ret);

	env("", missing, missing);
	ret = open_env();
	tap_ok(ret == -ENOENT, "GSP_ARBITER empty is unset (auto): -ENOENT (got %d)",
	       ret);

	env("bogus", missing, missing);
	ret = open_env();
	tap_ok(ret == -EINVAL, "GSP_ARBITER=bogus: -EINVAL (got %d)", ret);

	env("Kernel", missing, missing);
	ret = open_env();
	tap_ok(ret == -EINVAL, "GSP_ARBITER=Kernel (case): -EINVAL (got %d)",
	       ret);

	/* /dev/null opens but is no arbiter: VERSION gives ENOTTY. */
	env("kernel", "/dev/null", NULL);
	ret = open_env();
	tap_ok(ret == -EPROTO, "GSPACE_DEV=/dev/null: -EPROTO, not an arbiter (got %d)",
	       ret);

	/* A path where nothing listens: connect() refuses, no daemon. */
	env("daemon", NULL, tmpdir);
	ret = open_env();
	tap_ok(ret == -ENOENT,
	       "GSP_SOCKET naming a directory, nothing listens: -ENOENT (got %d)",
	       ret);
}

static void test_open_opts(void)
{
	struct {
		struct gsp_open_opts o;
		uint64_t extra;
	} big;
	struct gsp_open_opts o;
	struct gsp *g = NULL;
	int ret;

	/* opts override GSP_ARBITER, even a bad one. */
	env("bogus", NULL, NULL);
	o = (struct gsp_open_opts){ .size = sizeof(o),
		.arbiter = GSP_ARBITER_KERNEL, .dev_path = missing };
	ret = gsp_open(&g, &o);
	tap_ok(ret == -ENOENT && !g,
	       "opts kernel + missing dev_path: -ENOENT, GSP_ARBITER ignored (got %d)",
	       ret);

	/* dev_path NULL takes $GSPACE_DEV. */
	env(NULL, "/dev/null", NULL);
	o = (struct gsp_open_opts){ .size = sizeof(o),
		.arbiter = GSP_ARBITER_KERNEL };
	ret = gsp_open(&g, &o);
	tap_ok(ret == -EPROTO, "opts dev_path NULL uses $GSPACE_DEV (got %d)",
	       ret);

	env(NULL, NULL, missing);
	o = (struct gsp_open_opts){ .size = sizeof(o),
		.arbiter = GSP_ARBITER_DAEMON, .socket_path = missing };
	ret = gsp_open(&g, &o);
	tap_ok(ret == -ENOENT, "opts daemon + missing socket: -ENOENT (got %d)",
	       ret);

	o = (struct gsp_open_opts){ .size = sizeof(o) - 1,
		.arbiter = GSP_ARBITER_KERNEL, .dev_path = missing };
	ret = gsp_open(&g, &o);
	tap_ok(ret == -EINVAL, "opts size too small: -EINVAL (got %d)", ret);

	o = (struct gsp_open_opts){ .size = sizeof(o), .arbiter = 3,
		.dev_path = missing };
	ret = gsp_open(&g, &o);
	tap_ok(ret == -EINVAL, "opts arbiter out of range: -EINVAL (got %d)",
	       ret);

	o = (struct gsp_open_opts){ .size = sizeof(o),
		.arbiter = GSP_ARBITER_KERNEL, .dev_path = "" };
	ret = gsp_open(&g, &o);
	tap_ok(ret == -EINVAL, "opts empty dev_path: -EINVAL (got %d)", ret);

	memset(&big, 0, sizeof(big));
	big.o = (struct gsp_open_opts){ .size = sizeof(big),
		.arbiter = GSP_ARBITER_KERNEL, .dev_path = missing };
	ret = gsp_open(&g, &big.o);
	tap_ok(ret == -ENOENT, "opts larger, zero tail: accepted (got %d)",
	       ret);
	big.extra = 1;
	ret = gsp_open(&g, &big.o);
	tap_ok(ret == -EINVAL, "opts larger, non-zero tail: -EINVAL (got %d)",
	       ret);

	ret = gsp_open(NULL, &o);
	tap_ok(ret == -EINVAL, "out NULL: -EINVAL (got %d)", ret);
}

static void test_null(void)
{
	struct gspace_version v = { .size = sizeof(v) };
	struct gspace_stats st = { .size = sizeof(st) };

	gsp_close(NULL);
	tap_ok(gsp_version(NULL, &v) == -EINVAL &&
	       gsp_stats(NULL, &st) == -EINVAL &&
	       gsp_set_class(NULL, GSPACE_CLASS_BE, 100, 0) == -EINVAL,
	       "requests on a NULL struct gsp: -EINVAL");
	tap_ok(!gsp_board(NULL) && !gsp_board_rw(NULL) &&
	       gsp_board_lc_slot(NULL) == -EINVAL && !gsp_arbiter_name(NULL),
	       "board and name of a NULL struct gsp: NULL / -EINVAL");
}

static void test_now(void)
{
	struct timespec ts;
	uint64_t a, b, c;

	a = gsp_now_ns();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	b = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	c = gsp_now_ns();
	tap_ok(a <= b && b <= c, "gsp_now_ns is CLOCK_MONOTONIC");
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		tap_ok(0, "mkdtemp: %s", strerror(errno));
		return tap_done();
	}
	snprintf(missing, sizeof(missing), "%s/none", tmpdir);
	test_parsers();
	test_open_env();
	test_open_opts();
	test_null();
	test_now();
	rmdir(tmpdir);
	return tap_done();
}
