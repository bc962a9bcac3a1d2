/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Control flow of an entry's body, for the barrier choice of gsp-xform:
 * may a thread leave a task (ret/exit) while another thread of its block
 * still has a barrier of the same task to reach? See Documentation/xform.rst,
 * "Barriers".
 */
#ifndef GSP_FLOW_H
#define GSP_FLOW_H

#include "ptx.h"

/*
 * 1 if threads of a block may reach the end of a task with different
 * numbers of body barriers behind them (or if that cannot be shown
 * otherwise: indirect branches, out of memory), 0 if every thread that
 * runs the body to its end passes the same barriers.
 */
int ptx_uneven_barriers(const struct ptx_module *m, const struct ptx_func *f);

#endif /* GSP_FLOW_H */
