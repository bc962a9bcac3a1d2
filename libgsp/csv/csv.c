// SPDX-License-Identifier: LGPL-2.1-or-later
/* The CSV line reader (csv.h says what it accepts). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "csv.h"

void gsp_csv_init(struct gsp_csv *r, const char *what, FILE *f, char *buf,
		  size_t line_max, char **field, unsigned int max_fields,
		  char *err, size_t errlen)
{
	*r = (struct gsp_csv){
		.what = what, .f = f, .buf = buf, .line_max = line_max,
		.field = field, .max_fields = max_fields, .err = err,
		.errlen = errlen,
	};
	if (err && errlen)
		err[0] = 0;
}

int gsp_csv_fail(struct gsp_csv *r, int rc, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!r->err || !r->errlen)
		return rc;
	if (r->line)
		n = snprintf(r->err, r->errlen, "%s line %lu: ", r->what,
			     r->line);
	else
		n = snprintf(r->err, r->errlen, "%s: ", r->what);
	if (n < 0 || (size_t)n >= r->errlen)
		return rc;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - n, fmt, ap);
	va_end(ap);
	return rc;
}

int gsp_csv_next(struct gsp_csv *r, int skip_blank)
{
	size_t n;
	int c;

	for (;;) {
		n = 0;
		c = getc(r->f);
		if (c == EOF)
			return ferror(r->f) ?
			       gsp_csv_fail(r, -EIO, "read error") : 0;
		r->line++;
		while (c != EOF && c != '\n') {
			if (!c)
				return gsp_csv_fail(r, -EINVAL, "a NUL byte");
			if (n == r->line_max)
				return gsp_csv_fail(r, -EINVAL,
						    "longer than %zu characters",
						    r->line_max);
			r->buf[n++] = (char)c;
			c = getc(r->f);
		}
		if (c == EOF && ferror(r->f))
			return gsp_csv_fail(r, -EIO, "read error");
		if (n && r->buf[n - 1] == '\r')
			n--;
		r->buf[n] = 0;
		if (n || !skip_blank)
			return 1;
	}
}

int gsp_csv_expect(struct gsp_csv *r, const char *want, const char *which)
{
	int rc = gsp_csv_next(r, 0);

	if (rc < 0)
		return rc;
	if (!rc) {
		r->line++;
		return gsp_csv_fail(r, -EINVAL,
				    "the file ends before its %s line '%s'",
				    which, want);
	}
	if (strcmp(r->buf, want))
		return gsp_csv_fail(r, -EINVAL, "the %s line is not '%s'",
				    which, want);
	return 0;
}

int gsp_csv_split(struct gsp_csv *r, unsigned int want)
{
	unsigned int most = want < r->max_fields ? want + 1 : r->max_fields + 1;
	char *p = r->buf;

	r->nfields = 0;
	for (;;) {
		if (r->nfields == most)
			break;
		r->field[r->nfields++] = p;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = 0;
	}
	if (r->nfields != want || (want > r->max_fields))
		return gsp_csv_fail(r, -EINVAL,
				    "%s fields where %u are wanted",
				    r->nfields > want || p ? "more" : "fewer",
				    want);
	return 0;
}

/* Field @i's name for messages, in @buf when it has none. */
static const char *label(const struct gsp_csv *r, unsigned int i, char *buf,
			 size_t n)
{
	if (r->names)
		return r->names[i];
	snprintf(buf, n, "field %u", i + 1);
	return buf;
}

int gsp_csv_uint(struct gsp_csv *r, unsigned int i, uint64_t max,
		 uint64_t *v)
{
	const char *s = r->field[i], *name;
	char lb[24];
	uint64_t x = 0;

	name = label(r, i, lb, sizeof(lb));
	if (!*s)
		return gsp_csv_fail(r, -EINVAL, "%s is empty", name);
	if (*s == '-')
		return gsp_csv_fail(r, -EINVAL, "%s ('%s') is negative", name,
				    s);
	for (; *s; s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (*s < '0' || *s > '9')
			return gsp_csv_fail(r, -EINVAL,
					    "%s ('%s') is not an integer",
					    name, r->field[i]);
		if (d > max || x > (max - d) / 10)
			return gsp_csv_fail(r, -EINVAL, "%s ('%s') is over %llu",
					    name, r->field[i],
					    (unsigned long long)max);
		x = x * 10 + d;
	}
	*v = x;
	return 0;
}

int gsp_csv_number(struct gsp_csv *r, unsigned int i, int nonneg, double *v)
{
	const char *s = r->field[i], *name;
	char lb[24], *end;

	name = label(r, i, lb, sizeof(lb));
	if (!*s)
		return gsp_csv_fail(r, -EINVAL, "%s is empty", name);
	if (nonneg && *s == '-')
		return gsp_csv_fail(r, -EINVAL, "%s ('%s') is negative", name,
				    s);
	/* strtod would skip blanks and take hex, "nan" and "inf" */
	if (!strchr(nonneg ? "0123456789." : "0123456789.+-", *s) ||
	    strpbrk(s, "xXnNiI"))
		return gsp_csv_fail(r, -EINVAL, "%s ('%s') is not a number",
				    name, s);
	errno = 0;
	*v = strtod(s, &end);
	if (*end)
		return gsp_csv_fail(r, -EINVAL, "%s ('%s') is not a number",
				    name, s);
	if (errno == ERANGE || !isfinite(*v))
		return gsp_csv_fail(r, -EINVAL, "%s ('%s') is out of range",
				    name, s);
	return 0;
}
