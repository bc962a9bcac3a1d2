/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small kselftest-style test harness for the gspace selftests.
 *
 *   TEST(name) { ... }
 *   TEST_TIMEOUT(name, seconds) { ... }
 *   FIXTURE(f) { members };
 *   FIXTURE_SETUP(f) { ... self->member ... }
 *   FIXTURE_TEARDOWN(f) { ... }
 *   TEST_F(f, name) { ... }
 *   TEST_F_TIMEOUT(f, name, seconds) { ... }
 *   TEST_HARNESS_MAIN
 *
 * Every test runs in its own forked child, in its own process group, under
 * a timeout (GSP_TEST_TIMEOUT seconds unless the test says otherwise). A
 * failed ASSERT_* ends the test body at once and a failed EXPECT_* marks the
 * test failed and carries on; in both cases FIXTURE_TEARDOWN still runs.
 * SKIP(reason) ends the body and reports the test as skipped.
 *
 * Output is TAP 13 on stdout: a version line, the plan "1..N", one line
 * "ok N - name", "not ok N - name" or "ok N - name # SKIP reason" per test,
 * and diagnostics as "# " comments. Nothing else on stdout begins with "ok "
 * or "not ok ". The exit status is 0 when no test failed (skips included)
 * and 1 otherwise.
 *
 * Options: -l lists the tests, -t NAME runs only the tests named NAME
 * (repeatable), -T SECONDS scales every timeout to at least SECONDS.
 */
#ifndef GSP_HARNESS_H
#define GSP_HARNESS_H

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define KSFT_PASS	0
#define KSFT_FAIL	1
#define KSFT_SKIP	4

#ifndef GSP_TEST_TIMEOUT
#define GSP_TEST_TIMEOUT 30
#endif

#define GSP_MAX_TESTS 512

struct __test_meta;
typedef void (*__test_fn_t)(struct __test_meta *);

struct __test_meta {
	const char *name;
	const char *fixture;
	__test_fn_t fn;
	int timeout;
	/* Child-side state. */
	int failed;
	int skipped;
	int in_teardown;
	int jmp_armed;
	jmp_buf jmp;
};

/* Shared with the parent, so a skip reason survives the child's exit. */
struct __test_shared {
	int skipped;
	char reason[1024];
};

static struct __test_meta __tests[GSP_MAX_TESTS];
static int __test_count;
static struct __test_shared *__test_shm;

static inline void __test_register(const char *fixture, const char *name,
				   __test_fn_t fn, int timeout)
{
	struct __test_meta *t;

	if (__test_count >= GSP_MAX_TESTS) {
		fprintf(stderr, "harness: too many tests\n");
		abort();
	}
	t = &__tests[__test_count++];
	memset(t, 0, sizeof(*t));
	t->name = name;
	t->fixture = fixture;
	t->fn = fn;
	t->timeout = timeout;
}

/*
 * Writes one diagnostic line, prefixed "# ", straight to fd 1 so that it
 * is neither duplicated by fork() nor lost by _exit().
 */
static inline void __attribute__((format(printf, 1, 2)))
gsp_diag(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	memcpy(buf, "# ", 2);
	va_start(ap, fmt);
	n = vsnprintf(buf + 2, sizeof(buf) - 3, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n += 2;
	if (n > (int)sizeof(buf) - 2)
		n = sizeof(buf) - 2;
	buf[n++] = '\n';
	if (write(1, buf, n) < 0)
		return;
}

#define TH_LOG(fmt, ...) gsp_diag("%s:%d: " fmt, __FILE__, __LINE__, ##__VA_ARGS__)

static inline void __attribute__((noreturn)) __test_bail(struct __test_meta *m)
{
	if (m->jmp_armed && !m->in_teardown)
		longjmp(m->jmp, 1);
	/* A failure inside teardown (or outside any test) ends the child. */
	_exit(m->skipped && !m->failed ? KSFT_SKIP : KSFT_FAIL);
}

#define SKIP(fmt, ...) do {						\
	if (__test_shm) {						\
		snprintf(__test_shm->reason, sizeof(__test_shm->reason),\
			 fmt, ##__VA_ARGS__);				\
		__test_shm->skipped = 1;				\
	}								\
	_metadata->skipped = 1;						\
	__test_bail(_metadata);						\
} while (0)

/* Compares as long long; prints both values in decimal and hex. */
#define __GSP_CMP(exp_, seen_, op_, is_assert_) do {			\
	long long __e = (long long)(exp_);				\
	long long __s = (long long)(seen_);				\
	if (!(__e op_ __s)) {						\
		gsp_diag("%s:%d: %s: expected %s (%lld, 0x%llx) " #op_	\
			 " %s but observed %lld (0x%llx)",		\
			 __FILE__, __LINE__, _metadata->name,		\
			 #exp_, __e, (unsigned long long)__e,		\
			 #seen_, __s, (unsigned long long)__s);		\
		_metadata->failed = 1;					\
		if (is_assert_)						\
			__test_bail(_metadata);				\
	}								\
} while (0)

#define ASSERT_EQ(exp, seen) __GSP_CMP(exp, seen, ==, 1)
#define ASSERT_NE(exp, seen) __GSP_CMP(exp, seen, !=, 1)
#define ASSERT_LT(exp, seen) __GSP_CMP(exp, seen, <, 1)
#define ASSERT_LE(exp, seen) __GSP_CMP(exp, seen, <=, 1)
#define ASSERT_GT(exp, seen) __GSP_CMP(exp, seen, >, 1)
#define ASSERT_GE(exp, seen) __GSP_CMP(exp, seen, >=, 1)
#define EXPECT_EQ(exp, seen) __GSP_CMP(exp, seen, ==, 0)
#define EXPECT_NE(exp, seen) __GSP_CMP(exp, seen, !=, 0)
#define EXPECT_LT(exp, seen) __GSP_CMP(exp, seen, <, 0)
#define EXPECT_LE(exp, seen) __GSP_CMP(exp, seen, <=, 0)
#define EXPECT_GT(exp, seen) __GSP_CMP(exp, seen, >, 0)
#define EXPECT_GE(exp, seen) __GSP_CMP(exp, seen, >=, 0)

#define __GSP_BOOL(cond, want, is_assert_) do {				\
	if ((!!(cond)) != (want)) {					\
		gsp_diag("%s:%d: %s: expected (%s) to be %s",		\
			 __FILE__, __LINE__, _metadata->name, #cond,	\
			 (want) ? "true" : "false");			\
		_metadata->failed = 1;					\
		if (is_assert_)						\
			__test_bail(_metadata);				\
	}								\
} while (0)

#define ASSERT_TRUE(cond)  __GSP_BOOL(cond, 1, 1)
#define ASSERT_FALSE(cond) __GSP_BOOL(cond, 0, 1)
#define EXPECT_TRUE(cond)  __GSP_BOOL(cond, 1, 0)
#define EXPECT_FALSE(cond) __GSP_BOOL(cond, 0, 0)

static inline const char *gsp_errname(int e)
{
	switch (e) {
	case 0: return "success";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case ENXIO: return "ENXIO";
	case E2BIG: return "E2BIG";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case ENOSPC: return "ENOSPC";
	case ERANGE: return "ERANGE";
	case ENOSYS: return "ENOSYS";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ETIME: return "ETIME";
	case ETIMEDOUT: return "ETIMEDOUT";
	case EALREADY: return "EALREADY";
	case ECANCELED: return "ECANCELED";
	default: return "errno";
	}
}

/*
 * ASSERT_OK(call): @call returns >= 0.
 * ASSERT_ERRNO(err, call): @call returns -1 with errno @err.
 */
#define __GSP_OK(call, is_assert_) do {					\
	errno = 0;							\
	long __r = (long)(call);					\
	int __en = errno;						\
	if (__r < 0) {							\
		gsp_diag("%s:%d: %s: expected %s to succeed but it "	\
			 "returned %ld, errno %d (%s)", __FILE__,	\
			 __LINE__, _metadata->name, #call, __r, __en,	\
			 gsp_errname(__en));				\
		_metadata->failed = 1;					\
		if (is_assert_)						\
			__test_bail(_metadata);				\
	}								\
} while (0)

#define __GSP_ERRNO(err, call, is_assert_) do {				\
	errno = 0;							\
	long __r = (long)(call);					\
	int __en = errno;						\
	int __want = (err);						\
	if (__r != -1 || __en != __want) {				\
		if (__r == -1)						\
			gsp_diag("%s:%d: %s: expected %s to fail with %d "\
				 "(%s) but observed errno %d (%s)",	\
				 __FILE__, __LINE__, _metadata->name,	\
				 #call, __want, gsp_errname(__want),	\
				 __en, gsp_errname(__en));		\
		else							\
			gsp_diag("%s:%d: %s: expected %s to fail with %d "\
				 "(%s) but it returned %ld", __FILE__,	\
				 __LINE__, _metadata->name, #call,	\
				 __want, gsp_errname(__want), __r);	\
		_metadata->failed = 1;					\
		if (is_assert_)						\
			__test_bail(_metadata);				\
	}								\
} while (0)

#define ASSERT_OK(call) __GSP_OK(call, 1)
#define EXPECT_OK(call) __GSP_OK(call, 0)
#define ASSERT_ERRNO(err, call) __GSP_ERRNO(err, call, 1)
#define EXPECT_ERRNO(err, call) __GSP_ERRNO(err, call, 0)

/* Registration. */

#define __GSP_CONSTRUCTOR(name) \
	static void __attribute__((constructor)) name(void)

#define TEST_TIMEOUT(test_name, secs)					\
	static void test_name(struct __test_meta *_metadata);		\
	__GSP_CONSTRUCTOR(__register_##test_name)			\
	{								\
		__test_register(NULL, #test_name, test_name, secs);	\
	}								\
	static void test_name(struct __test_meta __attribute__((unused)) *_metadata)

#define TEST(test_name) TEST_TIMEOUT(test_name, GSP_TEST_TIMEOUT)

#define FIXTURE_DATA(f) struct __fixture_##f
#define FIXTURE(f) FIXTURE_DATA(f)

#define FIXTURE_SETUP(f)						\
	static void __setup_##f(					\
		struct __test_meta __attribute__((unused)) *_metadata,	\
		FIXTURE_DATA(f) __attribute__((unused)) *self)
#define FIXTURE_TEARDOWN(f)						\
	static void __teardown_##f(					\
		struct __test_meta __attribute__((unused)) *_metadata,	\
		FIXTURE_DATA(f) __attribute__((unused)) *self)

#define TEST_F_TIMEOUT(f, test_name, secs)				\
	static void __body_##f##_##test_name(struct __test_meta *,	\
					     FIXTURE_DATA(f) *);	\
	static void __run_##f##_##test_name(struct __test_meta *_metadata)\
	{								\
		FIXTURE_DATA(f) self;					\
		memset(&self, 0, sizeof(self));				\
		_metadata->jmp_armed = 1;				\
		if (setjmp(_metadata->jmp) == 0) {			\
			__setup_##f(_metadata, &self);			\
			__body_##f##_##test_name(_metadata, &self);	\
		}							\
		/* Always: teardown must cope with a partial setup. */	\
		_metadata->in_teardown = 1;				\
		__teardown_##f(_metadata, &self);			\
	}								\
	__GSP_CONSTRUCTOR(__register_##f##_##test_name)			\
	{								\
		__test_register(#f, #test_name,				\
				__run_##f##_##test_name, secs);		\
	}								\
	static void __body_##f##_##test_name(				\
		struct __test_meta __attribute__((unused)) *_metadata,	\
		FIXTURE_DATA(f) __attribute__((unused)) *self)

#define TEST_F(f, test_name) TEST_F_TIMEOUT(f, test_name, GSP_TEST_TIMEOUT)

/* Running. */

static inline void __test_child(struct __test_meta *t)
{
	setpgid(0, 0);
	signal(SIGPIPE, SIG_IGN);
	t->failed = 0;
	t->skipped = 0;
	t->in_teardown = 0;
	if (t->fixture) {
		/* TEST_F's runner arms the jump itself. */
		t->fn(t);
	} else {
		t->jmp_armed = 1;
		if (setjmp(t->jmp) == 0)
			t->fn(t);
	}
	if (t->failed)
		_exit(KSFT_FAIL);
	_exit(t->skipped ? KSFT_SKIP : KSFT_PASS);
}

static inline long long __test_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Returns KSFT_PASS, KSFT_FAIL or KSFT_SKIP. */
static inline int __test_run_one(struct __test_meta *t, int timeout)
{
	long long deadline;
	int status = 0;
	pid_t pid;
	int r;

	memset(__test_shm, 0, sizeof(*__test_shm));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		gsp_diag("%s: fork: %s", t->name, strerror(errno));
		return KSFT_FAIL;
	}
	if (pid == 0)
		__test_child(t);
	/* Also set here, so that a kill on timeout cannot race the child. */
	setpgid(pid, pid);

	deadline = __test_now_ms() + (long long)timeout * 1000;
	for (;;) {
		siginfo_t info;

		memset(&info, 0, sizeof(info));
		r = waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT);
		if (r == 0 && info.si_pid == pid)
			break;
		if (r < 0 && errno != EINTR) {
			gsp_diag("%s: waitid: %s", t->name, strerror(errno));
			return KSFT_FAIL;
		}
		if (__test_now_ms() >= deadline) {
			gsp_diag("%s: timed out after %d s", t->name, timeout);
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			return KSFT_FAIL;
		}
		usleep(2000);
	}
	/*
	 * The child has exited but is not reaped, so its process group id
	 * cannot be reused yet: end whatever the test left running in it.
	 */
	kill(-pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid) {
		gsp_diag("%s: waitpid: %s", t->name, strerror(errno));
		return KSFT_FAIL;
	}

	if (WIFSIGNALED(status)) {
		gsp_diag("%s: killed by signal %d", t->name, WTERMSIG(status));
		return KSFT_FAIL;
	}
	if (!WIFEXITED(status))
		return KSFT_FAIL;
	switch (WEXITSTATUS(status)) {
	case KSFT_PASS:
		return KSFT_PASS;
	case KSFT_SKIP:
		return KSFT_SKIP;
	default:
		return KSFT_FAIL;
	}
}

static inline int __test_selected(const char *name, char **only, int n_only)
{
	int i;

	if (!n_only)
		return 1;
	for (i = 0; i < n_only; i++)
		if (!strcmp(only[i], name))
			return 1;
	return 0;
}

static inline int test_harness_run(int argc, char **argv)
{
	char *only[64];
	int n_only = 0, min_timeout = 0, list = 0;
	int i, n, planned = 0, pass = 0, fail = 0, skip = 0;
	int opt;

	while ((opt = getopt(argc, argv, "lt:T:")) != -1) {
		switch (opt) {
		case 'l':
			list = 1;
			break;
		case 't':
			if (n_only < 64)
				only[n_only++] = optarg;
			break;
		case 'T':
			min_timeout = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-l] [-t test]... [-T seconds]\n",
				argv[0]);
			return KSFT_FAIL;
		}
	}
	if (list) {
		for (i = 0; i < __test_count; i++)
			printf("%s\n", __tests[i].name);
		return KSFT_PASS;
	}

	__test_shm = mmap(NULL, sizeof(*__test_shm), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (__test_shm == MAP_FAILED) {
		perror("mmap");
		return KSFT_FAIL;
	}
	signal(SIGPIPE, SIG_IGN);

	for (i = 0; i < __test_count; i++)
		planned += __test_selected(__tests[i].name, only, n_only);

	printf("TAP version 13\n");
	printf("1..%d\n", planned);
	fflush(stdout);

	n = 0;
	for (i = 0; i < __test_count; i++) {
		struct __test_meta *t = &__tests[i];
		int timeout = t->timeout, res;

		if (!__test_selected(t->name, only, n_only))
			continue;
		if (timeout < min_timeout)
			timeout = min_timeout;
		n++;
		res = __test_run_one(t, timeout);
		if (res == KSFT_PASS) {
			pass++;
			printf("ok %d - %s\n", n, t->name);
		} else if (res == KSFT_SKIP) {
			skip++;
			printf("ok %d - %s # SKIP %s\n", n, t->name,
			       __test_shm->reason[0] ? __test_shm->reason :
			       "skipped");
		} else {
			fail++;
			printf("not ok %d - %s\n", n, t->name);
		}
		fflush(stdout);
	}
	printf("# totals: pass %d fail %d skip %d\n", pass, fail, skip);
	fflush(stdout);
	return fail ? KSFT_FAIL : KSFT_PASS;
}

#define TEST_HARNESS_MAIN						\
	int main(int argc, char **argv)					\
	{								\
		return test_harness_run(argc, argv);			\
	}

#endif /* GSP_HARNESS_H */
