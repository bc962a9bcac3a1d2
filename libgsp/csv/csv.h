/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The line reader of libgsp's CSV data files: the initial selection's
 * tables (libgsp/search/select_csv.c) and the solo traces and hw.csv of
 * admission (libgsp/admit/trace.c). One line at a time into the caller's
 * buffer, split at commas into the caller's fields, each field checked
 * as an integer or a number; every refusal is -EINVAL (or -EIO) with a
 * message naming the file, the line and what is wrong. No allocation.
 */
#ifndef GSP_CSV_H
#define GSP_CSV_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gsp_csv {
	const char *what;		/* the file's name in messages */
	FILE *f;
	unsigned long line;		/* the line in buf, from 1; 0: none */
	char *buf;			/* line_max + 1 bytes */
	size_t line_max;
	char **field;			/* max_fields + 1 slots */
	unsigned int max_fields, nfields;
	const char *const *names;	/* fields' names; NULL: "field N" */
	char *err;			/* the message, if not NULL */
	size_t errlen;
};

/* Sets @r up and clears @err. */
void gsp_csv_init(struct gsp_csv *r, const char *what, FILE *f, char *buf,
		  size_t line_max, char **field, unsigned int max_fields,
		  char *err, size_t errlen);
/* Writes "WHAT line N: " and the message into r->err; returns @rc. */
int gsp_csv_fail(struct gsp_csv *r, int rc, const char *fmt, ...);
/*
 * The next line, without its CR LF or LF: 1, or 0 at the end of the
 * file, or a negative errno. Lines over line_max and NUL bytes are
 * refused. With @skip_blank, blank lines are skipped.
 */
int gsp_csv_next(struct gsp_csv *r, int skip_blank);
/* The next line must be @want (the @which line); 0 or an error. */
int gsp_csv_expect(struct gsp_csv *r, const char *want, const char *which);
/* Splits the line at every comma: -EINVAL unless it has @want fields. */
int gsp_csv_split(struct gsp_csv *r, unsigned int want);
/* Field @i as a decimal integer in 0..@max. */
int gsp_csv_uint(struct gsp_csv *r, unsigned int i, uint64_t max,
		 uint64_t *v);
/*
 * Field @i as a finite decimal number (an exponent allowed; no hex, nan
 * or infinity, no blanks); @nonneg refuses a sign.
 */
int gsp_csv_number(struct gsp_csv *r, unsigned int i, int nonneg, double *v);

#endif /* GSP_CSV_H */
