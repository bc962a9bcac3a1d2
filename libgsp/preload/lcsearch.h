/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * An LC tenant's partition search under partition auto (lcsearch.c,
 * Documentation/search.rst "Partition auto"): the reporter thread times
 * the tenant's invocations, runs the agent (libgsp/search/agent.h) and
 * writes the cell it asks for in the tenant's board slot.
 */
#ifndef GSP_PRELOAD_LCSEARCH_H
#define GSP_PRELOAD_LCSEARCH_H

#include <stdint.h>
#include <stdio.h>

#include "preload.h"

/*
 * GSP_SEARCH_MODEL, GSP_SEARCH_LOG, GSP_LC_SOLO_US and GSP_LC_Q from the
 * environment (read_config); <0 if bad (said).
 */
GSP_HIDDEN int gsp_lcsearch_config(void);
/* The counters and the search's result, into the stats file. */
GSP_HIDDEN void gsp_lcsearch_stats(FILE *f);
/* An app thread took the tenant's in-flight count from 0 at @now_ns. */
GSP_HIDDEN void gsp_lcsearch_begin(uint64_t now_ns);
/* Reporter thread: the count came back to 0 at @now_ns. */
GSP_HIDDEN void gsp_lcsearch_end(uint64_t now_ns);
/* Reporter thread: measures what is over; when to call again. */
GSP_HIDDEN uint64_t gsp_lcsearch_poll(uint64_t now_ns);

#endif /* GSP_PRELOAD_LCSEARCH_H */
