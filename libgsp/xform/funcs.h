/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Device functions that read %ctaid/%nctaid, for gsp-xform: a transformed
 * block runs many tasks, so such a function gets the task's virtual ids as
 * parameters, in a clone NAME__gsp_f that the clones call instead of NAME.
 * See Documentation/xform.rst, "Device functions".
 */
#ifndef GSP_XFORM_FUNCS_H
#define GSP_XFORM_FUNCS_H

#include <stdint.h>
#include "names.h"
#include "ptx.h"
#include "sbuf.h"

#define GSP_XFUNC_SUFFIX	"__gsp_f"	/* .func NAME -> NAME__gsp_f */

/* The ids, as bits of a mask: %nctaid.x, .y, .z, %ctaid.x, .y, .z. */
#define XF_NIDS		6

/* Token @t is %nctaid.x ... %ctaid.z: 0..5, else -1. */
int xf_grid_sreg(const struct ptx_module *m, uint32_t t);

struct xfuncs {
	const struct ptx_module *m;
	struct names defs;	/* function name -> its definition (a body) */
	uint8_t *own;		/* per function: the ids its body reads */
	uint8_t *need;		/* ... it or a function it calls directly */
	uint32_t *first;	/* ... the token of its first read, 0: none */
	uint8_t *clone;		/* per definition: NAME__gsp_f is written */
	uint8_t *taken;		/* ... the module has a NAME__gsp_f already */
	uint32_t *edge0;	/* callees of function i: to[edge0[i]..[i+1]) */
	uint32_t *to;
};

/* Scans @m's functions and direct calls. 0, or -1 when out of memory
 * (xfuncs_free() either way). */
int xfuncs_init(struct xfuncs *x, const struct ptx_module *m);
void xfuncs_free(struct xfuncs *x);

/* The definition that call statement @s names directly, or -1. */
int xfuncs_callee(const struct xfuncs *x, const struct ptx_stmt *s);

/* Marks the clones that entry @e's clone calls, transitively. 0, or -1
 * when out of memory. */
int xfuncs_mark(struct xfuncs *x, uint32_t e);

/* Function @fi (a definition or a prototype) has a marked clone. */
int xfuncs_cloned(const struct xfuncs *x, uint32_t fi);

/* The clone of function @fi, as a definition or a prototype like @fi. */
void xfuncs_emit(struct sbuf *b, const struct xfuncs *x, uint32_t fi);

/*
 * Instruction @s of a clone, %ctaid/%nctaid operands loaded into
 * %__gsp_vN just before it, and a call to a marked function turned into
 * a call of its clone with the ids it needs. The ids come from the task
 * entry at %__gsp_cur and the job parameter @job in an entry's clone,
 * from the function's own parameters where @job is NULL.
 */
void xfuncs_insn(struct sbuf *b, const struct xfuncs *x,
		 const struct ptx_stmt *s, const char *job);

#endif /* GSP_XFORM_FUNCS_H */
