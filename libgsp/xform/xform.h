/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * gsp-xform: turns each entry kernel of a PTX module into the persistent,
 * SM-aware, yieldable form described in libgsp/include/gsp_persist.h and
 * Documentation/xform.rst. The output is the input module, unchanged, with
 * NAME__gsp added after every kernel NAME that could be transformed (and
 * F__gsp_f after each device function F they reach that reads the ids); a
 * kernel that cannot be transformed is reported with its reason and left
 * as it was, so the output always loads where the input did.
 */
#ifndef GSP_XFORM_H
#define GSP_XFORM_H

#include <stddef.h>

/* Why a kernel was not transformed; the first word is the machine-readable
 * reason of the report (gsp_xform_reason_name()). */
enum gsp_xform_reason {
	GSP_XFORM_OK = 0,
	GSP_XFORM_GRID_SYNC,	/* cooperative-groups grid sync */
	GSP_XFORM_DYN_PAR,	/* dynamic parallelism (device launches) */
	GSP_XFORM_CLUSTER,	/* thread-block clusters */
	GSP_XFORM_SM_ID,	/* reads %smid/%nsmid/%gridid */
	GSP_XFORM_BARRIER,	/* a barrier form that early exit cannot join */
	GSP_XFORM_FUNC,		/* a called function exits or synchronises
				   the block, or an indirect call may reach
				   one that reads %ctaid/%nctaid */
	GSP_XFORM_TARGET,	/* .target older than sm_70 */
	GSP_XFORM_NAME,		/* NAME__gsp exists, or reserved names used */
	GSP_XFORM_UNSUPPORTED,	/* e.g. %ctaid read as a vector */
	GSP_XFORM_NO_BODY,	/* a declaration, no code */
	GSP_XFORM_NOT_SELECTED,	/* --kernel named others */
	GSP_XFORM_NO_PTX,	/* no .entry at all, or not PTX text */
};

struct gsp_xform_kernel {
	char *name;		/* the entry's name */
	enum gsp_xform_reason reason;	/* GSP_XFORM_OK: NAME__gsp was written */
	unsigned nparams;	/* NAME's own .param entries; NAME__gsp takes
				   them, then struct gsp_persist_job */
	int uneven;		/* GSP_XFORM_OK: threads may end a task with
				   different body barriers behind them, so
				   the barriers join "done" threads (flow.h) */
	int alone;		/* GSP_XFORM_OK: no thread meets another of its
				   block within a task (no barrier, warp
				   collective or shared atomic), so each thread
				   runs a batch's tasks without waiting */
	unsigned line;		/* where the reason was found, 0 if nowhere */
	char detail[160];	/* what was found there */
};

struct gsp_xform_result {
	char *out;		/* the output module (NUL-terminated) */
	size_t out_len;
	struct gsp_xform_kernel *k;	/* one per .entry, in input order */
	size_t nk;
	/* the module-scope .global variables that out reaches through
	 * ".const .u64 NAME__gsp_ref" (gsp_xform_bind()) */
	char **vars;
	size_t nvars;
};

/*
 * Transforms src[0..len). only: NULL for every kernel, else a NULL-ended
 * list of names to transform. Returns 0 (see r->k for each kernel; no
 * .entry at all gives nk == 0), GSP_XFORM_NO_PTX_INPUT when the input is
 * not PTX text (NUL bytes: a cubin or fatbin), or -1 with a message in
 * err (bad PTX, out of memory).
 */
#define GSP_XFORM_NO_PTX_INPUT 1
int gsp_xform(const char *src, size_t len, const char *const *only,
	      struct gsp_xform_result *r, char *err, size_t errlen);
void gsp_xform_result_free(struct gsp_xform_result *r);

/*
 * Caps the registers of kernel @name in src[0..len) (an output of
 * gsp_xform(), or any PTX) at @regs, 1..255, with a .maxnreg directive; a
 * .maxnreg already there is lowered, never raised. Returns 0 with a new
 * NUL-terminated module in *out (the caller frees it), or -1 with a message
 * in err (bad PTX, no such kernel, out of memory).
 */
int gsp_xform_maxnreg(const char *src, size_t len, const char *name,
		      unsigned int regs, char **out, size_t *out_len,
		      char *err, size_t errlen);

/*
 * Binds the references of gsp_xform()'s output @src: NAME__gsp_ref, for
 * each names[i], is initialized to addrs[i] (the device address of the
 * launching program's NAME) instead of to the module's own NAME, so that
 * the transformed kernels share the program's variables. Returns 0 with
 * a new module in *out (malloc-ed, NUL-terminated, *out_len bytes), or -1
 * with a message in err (a name without its reference, out of memory).
 */
int gsp_xform_bind(const char *src, size_t len, const char *const *names,
		   const unsigned long long *addrs, size_t n, char **out,
		   size_t *out_len, char *err, size_t errlen);

/*
 * A module cut into its symbols, so that a kernel can be JIT-ed without
 * the rest of its image: gsp_xform_parts_take() writes the module's
 * directives and the named kernels with every function and module-scope
 * variable they name, transitively (and whatever the directives name),
 * nothing else, in module order. gsp_xform_parts_new() parses src[0..len)
 * once (src must outlive the parts); 0, or -1 with a message in err (bad
 * PTX, out of memory). Take: 0 with a new module in *out (malloc-ed,
 * NUL-terminated), or -1 with a message in err (a name that is not a
 * kernel with a body, unknown flags, out of memory). With
 * GSP_XFORM_PARTS_LINES every dropped part leaves its newlines, so that
 * each kept line has its number in src (for reports on the result).
 */
#define GSP_XFORM_PARTS_LINES	(1u << 0)
struct gsp_xform_parts;
int gsp_xform_parts_new(const char *src, size_t len,
			struct gsp_xform_parts **pp, char *err, size_t errlen);
int gsp_xform_parts_take(const struct gsp_xform_parts *pp,
			 const char *const *keep, unsigned int flags,
			 char **out, size_t *out_len, char *err, size_t errlen);
void gsp_xform_parts_free(struct gsp_xform_parts *pp);

const char *gsp_xform_reason_name(enum gsp_xform_reason r);

#endif /* GSP_XFORM_H */
