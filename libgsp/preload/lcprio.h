/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An LC tenant's GPU work at the greatest stream priority (lcprio.c,
 * Documentation/interposer.rst "LC work runs at the greatest stream
 * priority"): the stream-creation wrappers.
 */
#ifndef GSP_PRELOAD_LCPRIO_H
#define GSP_PRELOAD_LCPRIO_H

#include "preload.h"

/* GSP_LC_PRIORITY from the environment (read_config); <0 if bad (said). */
GSP_HIDDEN int gsp_lcprio_config(void);
/* The counters, into the stats file. */
GSP_HIDDEN void gsp_lcprio_stats(FILE *f);

/*
 * cuStreamCreate (@with_prio 0) and cuStreamCreateWithPriority: in an LC
 * tenant the stream gets its context's greatest priority, unless @prio is
 * already that high.
 */
GSP_HIDDEN CUresult gsp_lcprio_create(CUstream *s, unsigned int flags,
				      int prio, int with_prio);

#endif /* GSP_PRELOAD_LCPRIO_H */
