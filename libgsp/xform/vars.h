/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Module-scope .global variables of a transformed module, reached through
 * references (Documentation/xform.rst, "Module variables"). Internal to
 * libgsp/xform; gsp_xform_bind() in xform.h is the launcher's half.
 */
#ifndef GSP_XFORM_VARS_H
#define GSP_XFORM_VARS_H

#include <stddef.h>

/*
 * Rewrites src[0..len) so that every instruction operand naming a
 * module-scope .global variable V goes through ".const .u64
 * V__gsp_ref = V". Returns 0 with *out NULL when no instruction names
 * one, 0 with the new module in *out (NUL-terminated, *out_len bytes) and
 * the names of the variables it redirected in *names (*nnames of them,
 * each malloc-ed, as the array), or -1 with a reason in err (the module
 * cannot be rewritten: a kernel must then not be transformed), or -2 when
 * out of memory.
 */
int gsp_xvars_redirect(const char *src, size_t len, char **out,
		       size_t *out_len, char ***names, size_t *nnames,
		       char *err, size_t errlen);

#endif /* GSP_XFORM_VARS_H */
