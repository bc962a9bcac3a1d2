/* SPDX-License-Identifier: GPL-2.0 */
/* gsp-bench scenario files: see Documentation/benchmarks.rst. */
#ifndef GSP_BENCH_SCN_H
#define GSP_BENCH_SCN_H

#include <stddef.h>
#include <stdio.h>

enum mech {
	M_SOLO, M_TIMESLICE, M_MPS, M_MPS_PCT, M_PRIO, M_GREEN, M_FLEP,
	M_STREAMS, M_GSPACE, M_NMECH
};
extern const char *const mech_names[M_NMECH];

#define SCN_NAME 48
#define SCN_MAXPAIR 512
#define SCN_MAXWL 64
#define SCN_MAXLIST 32
#define SCN_MAXNK 16
/* gspace_nk ranges: libgsp/include/gsp_persist.h (MAX_SM, MAX_K) */
#define SCN_NK_MAXN 256
#define SCN_NK_MAXK 32

struct scn_pair {
	char be[SCN_NAME], lc[SCN_NAME];
	double xfer_lc, xfer_be;
};

struct scn {
	double duration, warmup, period_ms, q, xfer_lc, xfer_be, scale_time;
	int depth, mps_be_pct, green_be_sms;
	unsigned int mechs;		/* bit per enum mech */
	int npairs;
	struct scn_pair pairs[SCN_MAXPAIR];
	int nbe, nlc, nscale;
	char be[SCN_MAXWL][SCN_NAME], lc[SCN_MAXWL][SCN_NAME];
	char scale[SCN_MAXWL][SCN_NAME];
	int nsms, nbps;
	int sms[SCN_MAXLIST], bps[SCN_MAXLIST];
	/* gspace: the (n, k) partitions to sweep, and BE solo under --spatial */
	int nnk, gspace_solo;
	int nk_n[SCN_MAXNK], nk_k[SCN_MAXNK];
};

/*
 * Parse a scenario. On error returns -1 and writes "name:line: message"
 * into err. The be x lc cross product is expanded into pairs at the end.
 */
int scn_parse(FILE *f, const char *name, struct scn *s, char *err, size_t len);
int scn_parse_string(const char *text, struct scn *s, char *err, size_t len);
int scn_valid_workload(const char *w);

#endif
