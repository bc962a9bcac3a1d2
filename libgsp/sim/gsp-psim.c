// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-psim: the partition plane on a SIMULATED GPU (psim.h). Runs one
 * scenario under each mode and prints a table of LC latency and BE
 * throughput, each against its solo run; the baseline rows, plain MPS
 * without gspace, come first.
 *
 * -M runs the LC tenant's and the BE kernels' board logic against
 * gspace.ko's own board: /dev/gspace opened as an LC tenant, the board
 * mapped writable, protect, partition and predict_lead_us written through
 * sysfs, and the module's own part_req update checked at every setup.
 * Time stays simulated: the request rule has no clock in it, and the
 * stamps the time plane ages are written in the board's clock.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gsp_version.h"
#include "psim.h"

#define MAX_ROWS	16

struct row {
	enum psim_mode mode;
	uint32_t n, k;
	struct psim_res r;
};

static double us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

static int parse_u64(const char *s, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Microseconds, fractions allowed, to ns. */
static int parse_us(const char *s, uint64_t *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0) || v > 3.6e9)
		return -1;
	*out = (uint64_t)(v * 1000.0 + 0.5);
	return 0;
}

static int parse_nk(const char *s, uint32_t *n, uint32_t *k)
{
	unsigned int a, b;
	char c;

	if (sscanf(s, "%u%c%u", &a, &c, &b) != 3 || (c != 'x' && c != ','))
		return -1;
	*n = a;
	*k = b;
	return 0;
}

/* "MODE" or "MODE@NxK", comma separated. */
static int parse_rows(char *list, const struct psim_cfg *c, struct row *rows,
		      int *nrows)
{
	char *save = NULL, *p, *at;

	*nrows = 0;
	for (p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		struct row *r = &rows[*nrows];
		int m;

		if (*nrows == MAX_ROWS)
			return -1;
		at = strchr(p, '@');
		if (at)
			*at++ = 0;
		m = psim_mode_parse(p);
		if (m < 0)
			return -1;
		r->mode = m;
		r->n = c->part_n;
		r->k = c->part_k;
		if (at && parse_nk(at, &r->n, &r->k))
			return -1;
		(*nrows)++;
	}
	return *nrows ? 0 : -1;
}

static struct psim_cfg row_cfg(const struct psim_cfg *c, const struct row *w)
{
	struct psim_cfg rc = *c;

	rc.mode = w->mode;
	rc.part_n = w->n;
	rc.part_k = w->k;
	return rc;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: gsp-psim [-M] [-d DEVICE] [OPTION...]\n"
"The partition plane on a SIMULATED GPU: one scenario under every mode,\n"
"a table of LC latency and BE throughput against their solo runs.\n"
"  -M, --module        run against gspace.ko's board (/dev/gspace and its\n"
"                      sysfs knobs; root); default: a board in memory\n"
"  -d, --device D      the module's device (0)\n"
"  --modes LIST        rows: MODE or MODE@NxK, comma separated; modes none,\n"
"                      mps-priority, time, reactive, reserved, predictive,\n"
"                      preemptive (default: each, reserved also at N/2)\n"
"  --partition N,K     n SMs, k slots for the partition plane (N,K)\n"
"GPU:  --sms N (132)  --slots K (8)  --slowdown X (11: an LC kernel on an\n"
"      SM shared with BE blocks)\n"
"BE:   --task-us T (220)  --jitter-pct P (10)  --tasks N (64 waves)\n"
"      --gap-us G (20)  --topup-us U (50)\n"
"LC:   --lc-sms S (132)  --lc-us T (110)  --period-us P (2000)  --poisson\n"
"      --seed S (1)  --count C (500)  --warmup W (10)  --lead-us L (500)\n"
"      --target X (1.5: LC p99 over solo that gspace's rows aim at)\n"
"  --version           print 'gsp-psim VERSION' and exit\n");
}

enum {
	O_MODES = 256, O_PART, O_SMS, O_SLOTS, O_SLOW, O_TASK, O_JIT,
	O_TASKS, O_GAP, O_TOPUP, O_LCSMS, O_LCUS, O_PERIOD, O_POISSON,
	O_SEED, O_COUNT, O_WARMUP, O_LEAD, O_TARGET, O_VERSION,
};

static const struct option opts[] = {
	{ "module", no_argument, NULL, 'M' },
	{ "device", required_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ "modes", required_argument, NULL, O_MODES },
	{ "partition", required_argument, NULL, O_PART },
	{ "sms", required_argument, NULL, O_SMS },
	{ "slots", required_argument, NULL, O_SLOTS },
	{ "slowdown", required_argument, NULL, O_SLOW },
	{ "task-us", required_argument, NULL, O_TASK },
	{ "jitter-pct", required_argument, NULL, O_JIT },
	{ "tasks", required_argument, NULL, O_TASKS },
	{ "gap-us", required_argument, NULL, O_GAP },
	{ "topup-us", required_argument, NULL, O_TOPUP },
	{ "lc-sms", required_argument, NULL, O_LCSMS },
	{ "lc-us", required_argument, NULL, O_LCUS },
	{ "period-us", required_argument, NULL, O_PERIOD },
	{ "poisson", no_argument, NULL, O_POISSON },
	{ "seed", required_argument, NULL, O_SEED },
	{ "count", required_argument, NULL, O_COUNT },
	{ "warmup", required_argument, NULL, O_WARMUP },
	{ "lead-us", required_argument, NULL, O_LEAD },
	{ "target", required_argument, NULL, O_TARGET },
	{ "version", no_argument, NULL, O_VERSION },
	{ 0 }
};

static int parse_args(int argc, char **argv, struct psim_cfg *c, int *dev,
		      uint32_t *device, char **modes, double *target,
		      int *tasks_set)
{
	uint64_t v;
	int o, bad;

	while ((o = getopt_long(argc, argv, "Md:h", opts, NULL)) != -1) {
		bad = 0;
		v = 0;
		switch (o) {
		case 'M':
			*dev = 1;
			break;
		case 'd':
			bad = parse_u64(optarg, GSP_BOARD_MAX_DEVICES - 1, &v);
			*device = (uint32_t)v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case O_VERSION:
			printf("gsp-psim %s\n", GSP_VERSION);
			exit(0);
		case O_MODES:
			*modes = optarg;
			break;
		case O_PART:
			bad = parse_nk(optarg, &c->part_n, &c->part_k);
			break;
		case O_SMS:
			bad = parse_u64(optarg, PSIM_MAX_SMS, &v);
			c->sms = (uint32_t)v;
			break;
		case O_SLOTS:
			bad = parse_u64(optarg, PSIM_MAX_SLOTS, &v);
			c->slots = (uint32_t)v;
			break;
		case O_SLOW:
			bad = parse_u64(optarg, 1000, &v);
			c->share_slowdown = (uint32_t)v;
			break;
		case O_TASK:
			bad = parse_us(optarg, &c->task_ns);
			break;
		case O_JIT:
			bad = parse_u64(optarg, 99, &v);
			c->task_jitter_pct = (uint32_t)v;
			break;
		case O_TASKS:
			bad = parse_u64(optarg, UINT32_MAX, &c->tasks);
			*tasks_set = 1;
			break;
		case O_GAP:
			bad = parse_us(optarg, &c->gap_ns);
			break;
		case O_TOPUP:
			bad = parse_us(optarg, &c->topup_ns);
			break;
		case O_LCSMS:
			bad = parse_u64(optarg, PSIM_MAX_SMS, &v);
			c->lc_sms = (uint32_t)v;
			break;
		case O_LCUS:
			bad = parse_us(optarg, &c->lc_ns);
			break;
		case O_PERIOD:
			bad = parse_us(optarg, &c->period_ns);
			break;
		case O_POISSON:
			c->poisson = 1;
			break;
		case O_SEED:
			bad = parse_u64(optarg, UINT64_MAX, &c->seed);
			break;
		case O_COUNT:
			bad = parse_u64(optarg, PSIM_MAX_COUNT, &v);
			c->count = (uint32_t)v;
			break;
		case O_WARMUP:
			bad = parse_u64(optarg, PSIM_MAX_COUNT, &v);
			c->warmup = (uint32_t)v;
			break;
		case O_LEAD:
			bad = parse_us(optarg, &c->lead_ns);
			break;
		case O_TARGET: {
			char *end;

			*target = strtod(optarg, &end);
			bad = *end || !(*target > 0);
			break;
		}
		default:
			usage(stderr);
			return -1;
		}
		if (bad) {
			fprintf(stderr, "gsp-psim: bad value '%s' for %s\n",
				optarg, argv[optind - 1]);
			return -1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return -1;
	}
	return 0;
}

static void print_head(const struct psim_cfg *c, const struct psim_board *pb,
		       const struct psim_res *lc, const struct psim_res *be)
{
	uint64_t waves = (c->tasks + c->sms * c->slots - 1) /
			 (c->sms * c->slots);

	printf("\n== SIMULATED GPU: the partition plane (gsp-psim, a model in simulated time; no GPU) ==\n");
	printf("GPU    %u SMs x %u BE block slots; an LC kernel on an SM shared with BE blocks\n"
	       "       runs %ux slower (rules from H200 measurements: Documentation/spatial.rst)\n",
	       c->sms, c->slots, c->share_slowdown);
	printf("BE     kernels of %llu tasks (%llu waves) of %.0f us +-%u %%, %.0f us apart: %.2f ms each;\n"
	       "       a top-up refills yielded slots %.0f us after the request shrinks\n",
	       (unsigned long long)c->tasks, (unsigned long long)waves,
	       us(c->task_ns), c->task_jitter_pct, us(c->gap_ns),
	       us(waves * c->task_ns) / 1000.0, us(c->topup_ns));
	printf("LC     one kernel of %.0f us on %u SMs, %s %.0f us, %u arrivals (first %u not\n"
	       "       counted); a release while the last one runs is dropped; predict lead %.0f us\n",
	       us(c->lc_ns), c->lc_sms,
	       c->poisson ? "Poisson arrivals, mean interval" : "every",
	       us(c->period_ns), c->count, c->warmup, us(c->lead_ns));
	printf("board  %s, LC slot %d on device %u\n", pb->what, pb->slot,
	       pb->device);
	printf("solo   LC alone: p99 %.1f us; BE alone: %.3f M tasks/s\n",
	       us(lc->p99), be->be_tput / 1e6);
	printf("Rows: none, mps-priority: plain MPS WITHOUT gspace (equal stream priority; LC\n"
	       "stream high), the baseline; time: gspace's time plane; reactive, reserved,\n"
	       "predictive: its partition plane under each protect mode; preemptive: reactive\n"
	       "with n,k = N,K.\n\n");
	printf("%-12s %-7s %9s %9s %9s %8s %7s %8s %7s\n", "", "", "LC us",
	       "", "", "LC p99", "LC", "BE", "BE");
	printf("%-12s %-7s %9s %9s %9s %8s %7s %8s %7s\n", "mode", "n,k",
	       "p50", "p99", "p999", "/solo", "drops", "Mtask/s", "/solo");
}

static void print_row(const struct row *w, const struct psim_res *lc,
		      const struct psim_res *be)
{
	char nk[16] = "-";

	if (psim_mode_spatial(w->mode))
		snprintf(nk, sizeof(nk), "%u,%u", w->n, w->k);
	printf("%-12s %-7s %9.1f %9.1f %9.1f %7.2fx %7llu %8.3f %7.2f%s\n",
	       psim_mode_name(w->mode), nk, us(w->r.p50), us(w->r.p99),
	       us(w->r.p999), (double)w->r.p99 / (double)lc->p99,
	       (unsigned long long)w->r.lc_missed, w->r.be_tput / 1e6,
	       be->be_tput > 0 ? w->r.be_tput / be->be_tput : 0.0,
	       w->r.lc_unfinished ? "  (LC unfinished)" : "");
}

/* Which rows meet the target; the met ones with what the BE keeps. */
static void print_target(const struct row *rows, int nrows, double target,
			 const struct psim_res *lc, const struct psim_res *be)
{
	int i, pass;

	printf("\nLC target p99 <= %.2fx solo (%.1f us):\n", target,
	       us(lc->p99) * target);
	for (pass = 1; pass >= 0; pass--) {
		int col = 10, any = 0;

		printf("  %-8s", pass ? "met:" : "missed:");
		for (i = 0; i < nrows; i++) {
			const struct row *w = &rows[i];
			int met = (double)w->r.p99 <= target * (double)lc->p99 &&
				  !w->r.lc_unfinished;
			char item[64];
			int n;

			if (met != pass)
				continue;
			n = snprintf(item, sizeof(item), "%s",
				     psim_mode_name(w->mode));
			if (psim_mode_spatial(w->mode))
				n += snprintf(item + n, sizeof(item) - n,
					      " %u,%u", w->n, w->k);
			if (pass)
				snprintf(item + n, sizeof(item) - n,
					 " (BE keeps %.2f)", be->be_tput > 0 ?
					 w->r.be_tput / be->be_tput : 0);
			if (any && col + 2 + (int)strlen(item) > 78) {
				printf(",\n%10s", "");
				col = 10;
			} else if (any) {
				printf(", ");
				col += 2;
			}
			printf("%s", item);
			col += (int)strlen(item);
			any = 1;
		}
		printf("%s\n", any ? "" : "none");
	}
	printf("All numbers above are SIMULATED: a model of the GPU, not a measurement.\n");
}

int main(int argc, char **argv)
{
	/* static: a 4 KiB board off the stack; pb.priv points into dev */
	static struct psim_dev dev;
	static struct gsp_board mem;
	struct psim_cfg c;
	struct psim_board pb;
	struct psim_res lc_solo, be_solo;
	struct row rows[MAX_ROWS];
	char defmodes[160], err[256], *modes = NULL;
	double target = 1.5;
	uint32_t device = 0;
	int use_dev = 0, tasks_set = 0, nrows, i, rc = 0;

	psim_cfg_default(&c);
	if (parse_args(argc, argv, &c, &use_dev, &device, &modes, &target,
		       &tasks_set))
		return 2;
	if (!tasks_set)
		c.tasks = 64ULL * c.sms * c.slots;
	if (!modes) {
		/* each mode at the partition and at N/2: its cost and gain */
		static const char *const part[] = {
			"reactive", "reserved", "predictive",
		};
		size_t len, j;
		char h[32] = "";

		if (c.sms > 1 && c.part_n != c.sms / 2)
			snprintf(h, sizeof(h), "@%ux%u", c.sms / 2, c.part_k);
		len = (size_t)snprintf(defmodes, sizeof(defmodes),
				       "none,mps-priority,time");
		for (j = 0; j < 3; j++)
			len += (size_t)snprintf(defmodes + len,
						sizeof(defmodes) - len,
						",%s%s%s%s", part[j],
						h[0] ? "," : "",
						h[0] ? part[j] : "", h);
		snprintf(defmodes + len, sizeof(defmodes) - len, ",preemptive");
		modes = defmodes;
	}
	if (parse_rows(modes, &c, rows, &nrows)) {
		fprintf(stderr, "gsp-psim: bad --modes '%s' (MODE or MODE@NxK, at most %d)\n",
			modes, MAX_ROWS);
		return 2;
	}
	for (i = 0; i < nrows; i++) {
		struct psim_cfg rc_cfg = row_cfg(&c, &rows[i]);

		if (psim_cfg_check(&rc_cfg, err, sizeof(err))) {
			fprintf(stderr, "gsp-psim: %s: %s\n",
				psim_mode_name(rows[i].mode), err);
			return 2;
		}
	}
	if (use_dev) {
		if (psim_board_dev(&dev, device, err, sizeof(err))) {
			fprintf(stderr, "gsp-psim: %s\n", err);
			return 1;
		}
		pb = dev.pb;
	} else {
		psim_board_mem(&pb, &mem);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);

	c.mode = PSIM_NONE;
	c.be = 0;
	rc = psim_run(&c, &pb, &lc_solo, err, sizeof(err));
	c.be = 1;
	c.lc = 0;
	if (!rc)
		rc = psim_run(&c, &pb, &be_solo, err, sizeof(err));
	c.lc = 1;
	if (!rc)
		print_head(&c, &pb, &lc_solo, &be_solo);
	for (i = 0; !rc && i < nrows; i++) {
		struct psim_cfg rc_cfg = row_cfg(&c, &rows[i]);

		rc = psim_run(&rc_cfg, &pb, &rows[i].r, err, sizeof(err));
		if (!rc)
			print_row(&rows[i], &lc_solo, &be_solo);
	}
	if (rc)
		fprintf(stderr, "gsp-psim: %s\n", err);
	else
		print_target(rows, nrows, target, &lc_solo, &be_solo);
	if (use_dev) {
		if (!rc)
			printf("gspace.ko: %llu mode setups; each time the module's own request word was the rule's\n",
			       (unsigned long long)dev.arb.setups);
		dev.pb = pb;
		if (psim_board_dev_close(&dev)) {
			fprintf(stderr, "gsp-psim: cannot restore the module's knobs\n");
			rc = -1;
		}
	}
	return rc ? 1 : 0;
}
