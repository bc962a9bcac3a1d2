/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A PTX lexer and parser, just deep enough to rewrite entry kernels: the
 * module's top-level items, functions (.entry/.func) with their parameter
 * lists and performance directives, and each body as a list of
 * statements (declarations, labels, instructions, line directives, nested
 * blocks). Every token and statement keeps its byte range in the source,
 * so a rewriter copies what it does not change verbatim.
 */
#ifndef GSP_PTX_H
#define GSP_PTX_H

#include <stddef.h>
#include <stdint.h>

enum ptx_tok_kind {
	PTX_WORD,	/* opcode, directive, identifier, number, %reg */
	PTX_STRING,	/* "..." */
	PTX_PUNCT,	/* one character: , ; : { } ( ) [ ] < > + - ! @ | = */
};

struct ptx_tok {
	enum ptx_tok_kind kind;
	uint32_t off, len;	/* bytes in the source */
	uint32_t line;		/* 1-based */
	int nl_before;		/* a newline lies between this and the previous */
};

enum ptx_stmt_kind {
	PTX_S_DECL,	/* .reg/.shared/.local/.param/.pragma ... ; */
	PTX_S_LINEDIR,	/* .loc/.file: ends at the end of the line */
	PTX_S_LABEL,	/* NAME : */
	PTX_S_INSN,	/* [@[!]pred] opcode operands ; */
	PTX_S_OPEN,	/* { */
	PTX_S_CLOSE,	/* } */
};

struct ptx_stmt {
	enum ptx_stmt_kind kind;
	uint32_t tok, ntok;	/* tokens, the ';' included */
	uint32_t op;		/* PTX_S_INSN: index of the opcode token */
	int depth;		/* block depth, 0 = the function body */
};

struct ptx_func {
	int is_entry;
	uint32_t start_tok;	/* first token (linkage, or .entry/.func) */
	uint32_t name_tok;
	uint32_t param_open, param_close;	/* '(' ')' of the parameters,
						   0 when there is no list */
	uint32_t dir_tok, ndir_tok;	/* directives between params and body */
	int has_body;
	uint32_t body_open, body_close;	/* '{' '}' tokens */
	uint32_t stmt, nstmt;	/* body statements */
	uint32_t end_tok;	/* one past the last token */
};

/*
 * A module-scope variable: a .global or .const declaration outside every
 * function (CUDA __device__ and __constant__), or a texture, sampler or
 * surface reference. .extern ones are not listed: they are defined
 * elsewhere.
 */
enum ptx_var_space { PTX_V_GLOBAL, PTX_V_CONST, PTX_V_TEXTURE };

struct ptx_var {
	enum ptx_var_space space;
	uint32_t name_tok;
	uint32_t decl_tok, decl_end;	/* its declaration's tokens, from its
					   linkage to one past its ';' (one
					   declaration may list several) */
};

struct ptx_module {
	const char *src;
	size_t len;
	struct ptx_tok *toks;
	uint32_t ntoks;
	struct ptx_stmt *stmts;
	uint32_t nstmts;
	struct ptx_func *funcs;
	uint32_t nfuncs;
	struct ptx_var *vars;
	uint32_t nvars;
	int target_sm;		/* from .target sm_NN[a|f]; 0 if absent */
};

/*
 * Parses src[0..len). Returns 0, or -1 with a message "line N: ..." in err.
 * src must outlive the module.
 */
int ptx_parse(struct ptx_module *m, const char *src, size_t len,
	      char *err, size_t errlen);
void ptx_free(struct ptx_module *m);

/* Token helpers. */
int ptx_tok_is(const struct ptx_module *m, uint32_t t, const char *s);
int ptx_tok_prefix(const struct ptx_module *m, uint32_t t, const char *s);
/* The statement's source range: first token start to last token end. */
uint32_t ptx_stmt_start(const struct ptx_module *m, const struct ptx_stmt *s);
uint32_t ptx_stmt_end(const struct ptx_module *m, const struct ptx_stmt *s);

#endif /* GSP_PTX_H */
