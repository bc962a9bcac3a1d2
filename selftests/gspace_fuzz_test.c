// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl fuzzer: GSP_FUZZ_PROCS processes (default 4) send random and
 * structure-aware requests to the arbiter until GSP_FUZZ_IOCTLS of them
 * (default 1,000,000; 100,000 on gspaced) have gone through:
 *
 * - every ioctl of uapi/gspace.h, mostly a valid-looking structure built
 *   from what the process holds (devices, handles, fences) with one field
 *   mutated: size, flags, padding, a word of the structure, the tail past
 *   the structure; sometimes a request number that is not one;
 * - DRM_BIND and DRM_SUBMIT with gsp-testdrm's render node and payloads
 *   (bound or not, the channel named or not, a syncobj or a random
 *   handle, the driver failing the job) where the TEST DEVICE is loaded,
 *   random descriptors where it is not;
 * - arguments at unmapped, kernel-range, non-canonical, read-only,
 *   misaligned and page-straddling addresses;
 * - random handles and random descriptors as in-fences;
 * - mmap (board_map, and on the device raw mmap with random length,
 *   protection and offset), writes of an LC tenant's own slot, munmap;
 *   open, dup and close of tenants;
 * - an interval timer without SA_RESTART, so WAITs see EINTR;
 * - half the processes without privilege (uid 1000) when run as root.
 *
 * The test process SIGKILLs a random worker every few tens of
 * milliseconds and starts another, and, as root, writes random values
 * (valid and not) to the knobs, which it restores at the end. Then every
 * object is gone (debugfs "objects" all 0 on the device, the daemon's back
 * to their baseline), and the kernel log has no oops, BUG or WARNING since
 * the start. It prints one line, "# fuzz: N ioctls, K oops".
 *
 * GSP_FUZZ_SEED replays a run's streams (the seed is printed); the order
 * in which the processes interleave, and so the kernel's answers, is not
 * replayed.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/time.h>

#include "gsp_util.h"
#include "gsp_chaos.h"
#include "gsp_fuzz_req.h"

static void fuzz_alarm(int sig)
{
	(void)sig;
}

static void __attribute__((noreturn))
fuzz_worker(struct fuzz_shared *sh, int idx, uint64_t seed,
	    const struct gsp_info *info, int drop)
{
	struct fuzz f;
	struct sigaction sa;
	struct itimerval it;
	uint8_t *hole;
	int i;

	memset(&f, 0, sizeof(f));
	f.rng.s = seed;
	f.sh = sh;
	f.slot = &sh->slot[idx];
	f.num_devices = info->num_devices ? info->num_devices : 1;
	f.sim_devices = info->sim_devices;
	f.lease_dev = info->lease_dev;
	f.on_daemon = gsp_on_daemon();
	f.pg = sysconf(_SC_PAGESIZE);
	for (i = 0; i < FUZZ_TENANTS; i++)
		f.t[i].fd = -1;
	for (i = 0; i < FUZZ_FENCES; i++)
		f.fence[i] = -1;

	if (drop && (setgroups(0, NULL) || setresgid(FUZZ_UID, FUZZ_UID, FUZZ_UID) ||
		     setresuid(FUZZ_UID, FUZZ_UID, FUZZ_UID)))
		_exit(3);

	fuzz_drm_open(&f);
	f.arena = mmap(NULL, 3 * f.pg, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	f.ro = mmap(NULL, f.pg, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	hole = mmap(NULL, f.pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f.arena == MAP_FAILED || f.ro == MAP_FAILED || hole == MAP_FAILED)
		_exit(3);
	mprotect(f.arena + 2 * f.pg, f.pg, PROT_NONE);
	/* A plausible header in the read-only page: the answer faults. */
	for (i = 0; i < 4; i++)
		fuzz_build(&f, &f.t[0], (int)rng_below(&f.rng, FUZZ_NR_OPS),
			   f.ro + 8 * i);
	mprotect(f.ro, f.pg, PROT_READ);
	munmap(hole, f.pg);
	f.hole = (uintptr_t)hole;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fuzz_alarm;	/* no SA_RESTART: EINTR */
	sigaction(SIGALRM, &sa, NULL);
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = 1000 + (long)rng_below(&f.rng, 9000);
	it.it_value = it.it_interval;
	setitimer(ITIMER_REAL, &it, NULL);

	fuzz_tenant_open(&f, &f.t[0]);
	fuzz_tenant_open(&f, &f.t[1]);
	while (fuzz_total(sh, FUZZ_MAX_PROCS) < sh->target) {
		uint64_t roll = rng_below(&f.rng, 1000);

		if (roll < 960)
			fuzz_ioctl(&f);
		else if (roll < 970)
			fuzz_tenant_open(&f, &f.t[rng_below(&f.rng, FUZZ_TENANTS)]);
		else if (roll < 978)
			fuzz_tenant_close(&f.t[rng_below(&f.rng, FUZZ_TENANTS)]);
		else if (roll < 983)
			fuzz_dup(&f);
		else if (roll < 993)
			fuzz_mmap(&f);
		else if (roll < 996)
			fuzz_board_write(&f);
		else {
			i = (int)rng_below(&f.rng, FUZZ_FENCES);
			if (f.fence[i] >= 0) {
				fence_readable(f.fence[i], 0);
				close(f.fence[i]);
				f.fence[i] = -1;
			}
		}
		if (!fuzz_any_tenant(&f))
			fuzz_tenant_open(&f, &f.t[0]);
	}
	_exit(0);
}

/* The knobs the test process writes, and values to write: good and bad. */
static const struct fuzz_knob {
	const char *name;
	const char *vals[10];
} fuzz_knobs[] = {
	{ "policy", { "fifo", "credit", "band", "lottery", "0", "" } },
	{ "period_us", { "1000", "5000", "100000", "999", "10000001", "-5" } },
	{ "band_wait_us", { "0", "500", "100000", "100001", "x" } },
	{ "min_be_permille", { "0", "100", "1000", "1001" } },
	{ "reorder", { "0", "1", "2" } },
	{ "window", { "1", "8", "0", "100000" } },
	{ "watchdog_ms", { "1", "20", "200", "2000", "0", "3600001" } },
	{ "sim_devices", { "0", "1", "2", "3", "16", "17" } },
	{ "lease_devices", { "0", "1", "2", "15", "16" } },
	{ "lc_group", { "-1", "0", "1000", "4294967295", "4294967296", "-2" } },
	{ "lc_hold_us", { "0", "200", "100000", "100001" } },
	{ "lc_max_ms", { "1", "100", "60000", "0" } },
	{ "partition", { "0,0", "8,2", "256,32", "257,1", "auto", "8",
			 "0,2", "8, 2" } },
	{ "search", { "ns", "gns", "srs", "nn", "grid", "lr", "off" } },
	{ "protect", { "reactive", "reserved", "predictive", "preemptive",
		       "always" } },
	{ "predict_lead_us", { "1", "700", "100000", "0", "100001" } },
	{ "tenant_max_jobs", { "1", "16", "16384", "0", "16385" } },
	{ "tenant_max_fences", { "0", "2", "256", "1048576", "1048577" } },
	{ "tenant_max_waits", { "0", "2", "1024", "1048576", "-1" } },
	{ "uid_max_tenants", { "1", "4", "256", "0", "1048577" } },
};

#define FUZZ_NR_KNOBS	(sizeof(fuzz_knobs) / sizeof(fuzz_knobs[0]))

struct fuzz_saved {
	char val[FUZZ_NR_KNOBS][64];
	int have[FUZZ_NR_KNOBS];
};

static void fuzz_knob_poke(struct gsp_rng *r)
{
	const struct fuzz_knob *k = &fuzz_knobs[rng_below(r, FUZZ_NR_KNOBS)];
	char junk[4200];
	int n = 0;

	while (n < 10 && k->vals[n])
		n++;
	if (rng_chance(r, 1, 10)) {
		size_t len = rng_chance(r, 1, 2) ? rng_below(r, 16) :
			     sizeof(junk) - 1 - rng_below(r, 200);
		size_t i;

		for (i = 0; i < len; i++)
			junk[i] = (char)(1 + rng_below(r, 255));
		junk[len] = 0;
		knob_write(k->name, junk);
		return;
	}
	knob_write(k->name, k->vals[rng_below(r, n)]);
}

static void fuzz_knobs_save(struct fuzz_saved *s)
{
	char raw[256];
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < FUZZ_NR_KNOBS; i++) {
		if (knob_read(fuzz_knobs[i].name, raw, sizeof(raw)))
			continue;
		knob_selected(raw, s->val[i], sizeof(s->val[i]));
		s->have[i] = 1;
	}
}

/* Restores every knob; the device counts need no job and a valid sum. */
static int fuzz_knobs_restore(const struct fuzz_saved *s)
{
	char raw[256], now[64];
	int round, bad = 0;
	size_t i;

	for (round = 0; round < 4; round++) {
		bad = 0;
		for (i = 0; i < FUZZ_NR_KNOBS; i++) {
			if (!s->have[i])
				continue;
			if (!knob_read(fuzz_knobs[i].name, raw, sizeof(raw))) {
				knob_selected(raw, now, sizeof(now));
				if (!strcmp(now, s->val[i]))
					continue;
			}
			if (knob_write(fuzz_knobs[i].name, s->val[i]))
				bad++;
		}
		if (!bad)
			break;
		sleep_ms(100);
	}
	for (i = 0; i < FUZZ_NR_KNOBS; i++) {
		if (!s->have[i])
			continue;
		if (knob_read(fuzz_knobs[i].name, raw, sizeof(raw)))
			return -1;
		knob_selected(raw, now, sizeof(now));
		if (strcmp(now, s->val[i])) {
			gsp_diag("knob %s is '%s', was '%s'",
				 fuzz_knobs[i].name, now, s->val[i]);
			return -1;
		}
	}
	return 0;
}

static pid_t fuzz_spawn(struct fuzz_shared *sh, int idx, uint64_t seed,
			uint64_t gen, const struct gsp_info *info, int drop)
{
	pid_t pid = fork();

	if (pid == 0)
		fuzz_worker(sh, idx, rng_derive(seed, gen), info, drop);
	return pid;
}

TEST_TIMEOUT(fuzz, 1800)
{
	uint64_t seed = gsp_seed("GSP_FUZZ_SEED");
	int nprocs = (int)gsp_env_count("GSP_FUZZ_PROCS", 4);
	int on_daemon = gsp_on_daemon();
	uint64_t target = gsp_env_count("GSP_FUZZ_IOCTLS", on_daemon ?
					FUZZ_IOCTLS_DAEMON : FUZZ_IOCTLS_DEV);
	struct gsp_objects base, end;
	struct fuzz_shared *sh;
	struct fuzz_saved saved;
	struct gsp_info info;
	pid_t pid[FUZZ_MAX_PROCS];
	uint64_t gen = 0, kills = 0, pokes = 0, t0, t1, last, last_t;
	uint64_t eintr = 0, efault = 0, ok = 0, submits = 0, maps = 0;
	uint64_t drm_submits = 0;
	uint64_t dups = 0, total;
	struct gsp_rng r = { rng_derive(seed, ~0ULL) };
	int kfd = -1, knobs = 0, oops = 0, root = geteuid() == 0;
	int i, fd, settled, restored = 0;

	ASSERT_LE(1, nprocs);
	ASSERT_GE(FUZZ_MAX_PROCS, nprocs);
	fd = t_open(_metadata);
	t_info(_metadata, fd, &info);
	gsp_close(fd);
	/*
	 * The checks read debugfs and the kernel log: root. The root run
	 * fuzzes unprivileged too, from half its processes.
	 */
	t_objects_baseline(_metadata, &base);
	gsp_diag("seed %llu (GSP_FUZZ_SEED=%llu replays it), %d processes, "
		 "%llu ioctls", (unsigned long long)seed,
		 (unsigned long long)seed, nprocs,
		 (unsigned long long)target);
	if (!on_daemon) {
		kfd = kmsg_open();
		ASSERT_LE(0, kfd);
		EXPECT_EQ(0, base.contexts);
		EXPECT_EQ(0, base.jobs);
		EXPECT_EQ(0, base.fences);
	}
	fuzz_knobs_save(&saved);
	if (!on_daemon)
		knobs = root;
	else
		knobs = knob_write("policy", saved.val[0]) == 0;

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, sh);
	memset(sh, 0, sizeof(*sh));
	sh->target = target;

	t0 = now_ns();
	for (i = 0; i < nprocs; i++) {
		pid[i] = fuzz_spawn(sh, i, seed, gen++, &info,
				    root && !on_daemon && (i & 1));
		ASSERT_LT(0, pid[i]);
	}
	last = 0;
	last_t = t0;
	for (;;) {
		int st;
		pid_t w;

		sleep_ms(5 + (unsigned int)rng_below(&r, 40));
		total = fuzz_total(sh, nprocs);
		if (total >= target)
			break;
		if (total != last) {
			last = total;
			last_t = now_ns();
		} else if (now_ns() - last_t > FUZZ_STALL_NS) {
			gsp_diag("no ioctl went through for %llu s: a hang "
				 "(seed %llu)",
				 FUZZ_STALL_NS / NSEC_PER_SEC,
				 (unsigned long long)seed);
			break;
		}
		/* A worker that ended on its own crashed: fail. */
		while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
			for (i = 0; i < nprocs; i++)
				if (pid[i] == w)
					break;
			if (i == nprocs)
				continue;
			if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
				gsp_diag("worker %d (pid %d) ended: %s %d",
					 i, (int)w, WIFSIGNALED(st) ?
					 "signal" : "exit",
					 WIFSIGNALED(st) ? WTERMSIG(st) :
					 WEXITSTATUS(st));
				_metadata->failed = 1;
			}
			pid[i] = fuzz_spawn(sh, i, seed, gen++, &info,
					    root && !on_daemon && (i & 1));
		}
		if (rng_chance(&r, 1, 8)) {
			i = (int)rng_below(&r, nprocs);
			if (pid[i] > 0) {
				kill(pid[i], SIGKILL);
				waitpid(pid[i], NULL, 0);
				kills++;
			}
			pid[i] = fuzz_spawn(sh, i, seed, gen++, &info,
					    root && !on_daemon && (i & 1));
		}
		if (knobs && rng_chance(&r, 1, 3)) {
			fuzz_knob_poke(&r);
			pokes++;
		}
	}
	for (i = 0; i < nprocs; i++)
		if (pid[i] > 0)
			kill(pid[i], SIGKILL);
	for (i = 0; i < nprocs; i++)
		if (pid[i] > 0)
			waitpid(pid[i], NULL, 0);
	t1 = now_ns();
	total = fuzz_total(sh, nprocs);
	for (i = 0; i < nprocs; i++) {
		eintr += sh->slot[i].eintr;
		efault += sh->slot[i].efault;
		ok += sh->slot[i].ok;
		submits += sh->slot[i].submits;
		drm_submits += sh->slot[i].drm_submits;
		maps += sh->slot[i].maps;
		dups += sh->slot[i].dups;
	}

	/*
	 * Every tenant is closed: every job ends and every fence goes. On
	 * the device nothing else is open: all 0.
	 */
	if (!on_daemon)
		memset(&base, 0, sizeof(base));
	settled = objects_settle(&base, &end, 10000);
	if (knobs)
		restored = fuzz_knobs_restore(&saved) == 0;
	if (kfd >= 0)
		oops = kmsg_count_oops(kfd);

	gsp_diag("%llu ioctls in %.1f s (%.0f/s), %d processes: %llu ok, "
		 "%llu EINTR, %llu EFAULT, %llu jobs (%llu drm), %llu maps, %llu dups, "
		 "%llu SIGKILLs, %llu knob writes, seed %llu",
		 (unsigned long long)total, (t1 - t0) / 1e9,
		 total / ((t1 - t0) / 1e9), nprocs, (unsigned long long)ok,
		 (unsigned long long)eintr, (unsigned long long)efault,
		 (unsigned long long)submits,
		 (unsigned long long)drm_submits, (unsigned long long)maps,
		 (unsigned long long)dups, (unsigned long long)kills,
		 (unsigned long long)pokes, (unsigned long long)seed);
	if (!settled)
		gsp_diag("objects left: contexts %lld jobs %lld fences %lld "
			 "(baseline %lld %lld %lld)", end.contexts, end.jobs,
			 end.fences, base.contexts, base.jobs, base.fences);
	if (on_daemon)
		gsp_diag("daemon fuzz: %llu requests, objects %s baseline",
			 (unsigned long long)total,
			 settled ? "back to" : "NOT back to");
	else
		gsp_diag("fuzz: %llu ioctls, %d oops",
			 (unsigned long long)total, oops);
	EXPECT_LE(target, total);
	EXPECT_TRUE(settled);
	EXPECT_EQ(0, oops);
	if (knobs)
		EXPECT_TRUE(restored);
	/* The daemon's client retries its socket calls. */
	if (!on_daemon)
		EXPECT_LT(0, eintr);
	/* gspaced must still answer. */
	fd = gsp_open();
	ASSERT_LE(0, fd);
	t_info(_metadata, fd, &info);
	gsp_close(fd);
}

TEST_HARNESS_MAIN
