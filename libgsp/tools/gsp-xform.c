// SPDX-License-Identifier: GPL-2.0
/*
 * gsp-xform: rewrite the kernels of a PTX module into gspace's persistent,
 * SM-aware, yieldable form (Documentation/xform.rst).
 *
 *   gsp-xform IN.ptx -o OUT.ptx [--kernel NAME]... [--report FILE]
 *             [--maxnreg N] [--alone]
 *
 * Exit status: 0 done (some kernels may have been left as they were, see
 * the report), 1 bad arguments or bad input, 2 the input is not PTX text
 * (a cubin or fatbin: "no PTX"; nothing is written).
 */
#define _GNU_SOURCE	/* asprintf */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "gsp_version.h"
#include "xform.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: gsp-xform IN.ptx -o OUT.ptx [--kernel NAME]... [--report FILE]\n"
		"                 [--maxnreg N] [--alone]\n"
		"       gsp-xform --version | --help\n"
		"  IN.ptx, OUT.ptx  PTX files; '-' is stdin / stdout\n"
		"  --kernel NAME    transform only NAME (repeatable; default: all)\n"
		"  --report FILE    one line per kernel: 'NAME ok NAME__gsp barriers=none|even|joined'\n"
		"                   or\n"
		"                   'NAME skip REASON DETAIL' ('-': stdout)\n"
		"  --maxnreg N      cap every NAME__gsp at N registers (1..255), as the\n"
		"                   interposer does when a clone would lose occupancy\n"
		"  --alone          write only the NAME__gsp kernels and what they name,\n"
		"                   not the originals, as the interposer JITs them\n"
		"Kernels that cannot be transformed stay unchanged in OUT.ptx (with\n"
		"--alone, they are left out).\n"
		"  --version        print 'gsp-xform VERSION' and exit\n");
}

static int parse_regs(const char *s, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 10);
	if (!errno && *s >= '0' && *s <= '9' && !*end && *v >= 1 && *v <= 255)
		return 0;
	fprintf(stderr, "gsp-xform: --maxnreg '%s': give a register count, 1..255\n", s);
	return -1;
}

static char *read_all(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
	size_t cap = 1 << 16, n = 0, r;
	char *buf, *nb;

	if (!f)
		return NULL;
	buf = malloc(cap);
	while (buf) {
		r = fread(buf + n, 1, cap - n, f);
		n += r;
		if (n < cap) {
			if (ferror(f)) {
				free(buf);
				buf = NULL;
			}
			break;
		}
		nb = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
		if (!nb) {
			free(buf);
			buf = NULL;
			errno = ENOMEM;
			break;
		}
		buf = nb;
		cap *= 2;
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

/* Writes data to path through a temporary file, so a failure leaves any
 * previous path as it was. */
static int write_all(const char *path, const char *data, size_t len)
{
	char *tmp;
	FILE *f;
	int ok;

	if (!strcmp(path, "-"))
		return fwrite(data, 1, len, stdout) == len && !fflush(stdout) ? 0 : -1;
	if (asprintf(&tmp, "%s.tmp.%d", path, (int)getpid()) < 0)
		return -1;
	f = fopen(tmp, "wb");
	if (!f) {
		free(tmp);
		return -1;
	}
	ok = fwrite(data, 1, len, f) == len;
	ok = !fclose(f) && ok;
	ok = ok && !rename(tmp, path);
	if (!ok)
		unlink(tmp);
	free(tmp);
	return ok ? 0 : -1;
}

/* --alone: r->out becomes a module of the clones and what they name. */
static int take_clones(struct gsp_xform_result *r, const char *in)
{
	const char **keep = calloc(r->nk + 1, sizeof(*keep));
	struct gsp_xform_parts *pp = NULL;
	size_t i, n = 0, len;
	char err[256], *out = NULL;
	int rc = -1;

	if (!keep) {
		fprintf(stderr, "gsp-xform: out of memory\n");
		return -1;
	}
	for (i = 0; i < r->nk; i++) {
		if (r->k[i].reason != GSP_XFORM_OK)
			continue;
		if (asprintf((char **)&keep[n], "%s__gsp", r->k[i].name) < 0) {
			fprintf(stderr, "gsp-xform: out of memory\n");
			goto out;
		}
		n++;
	}
	if (!n) {
		fprintf(stderr, "gsp-xform: --alone: no kernel of %s was transformed; nothing written\n",
			in);
		goto out;
	}
	if (gsp_xform_parts_new(r->out, r->out_len, &pp, err, sizeof(err)) ||
	    gsp_xform_parts_take(pp, keep, 0, &out, &len, err, sizeof(err))) {
		fprintf(stderr, "gsp-xform: --alone: %s\n", err);
		goto out;
	}
	free(r->out);
	r->out = out;
	r->out_len = len;
	rc = 0;
out:
	gsp_xform_parts_free(pp);
	while (n)
		free((char *)keep[--n]);
	free(keep);
	return rc;
}

int main(int argc, char **argv)
{
	const char *in = NULL, *out = NULL, *report = NULL;
	const char *regs = NULL;
	unsigned long maxnreg = 0;
	const char **only = calloc(argc, sizeof(*only));
	int alone = 0;
	size_t nonly = 0, len, i;
	struct gsp_xform_result r;
	FILE *rep = NULL;
	char err[256];
	char *src;
	int a, rc;

	if (!only)
		return 1;
	for (a = 1; a < argc; a++) {
		const char *s = argv[a];

		if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
			usage(stdout);
			return 0;
		}
		if (!strcmp(s, "--version")) {
			printf("gsp-xform %s\n", GSP_VERSION);
			return 0;
		}
		if (!strcmp(s, "--alone")) {
			alone = 1;
			continue;
		}
		if (!strcmp(s, "-o") || !strcmp(s, "--kernel") ||
		    !strcmp(s, "--report") || !strcmp(s, "--maxnreg")) {
			if (a + 1 >= argc) {
				fprintf(stderr, "gsp-xform: %s needs a value\n", s);
				usage(stderr);
				return 1;
			}
			if (!strcmp(s, "-o"))
				out = argv[++a];
			else if (!strcmp(s, "--report"))
				report = argv[++a];
			else if (!strcmp(s, "--maxnreg"))
				regs = argv[++a];
			else
				only[nonly++] = argv[++a];
			continue;
		}
		if (s[0] == '-' && s[1]) {
			fprintf(stderr, "gsp-xform: unknown option '%s'\n", s);
			usage(stderr);
			return 1;
		}
		if (in) {
			fprintf(stderr, "gsp-xform: one input file only ('%s' and '%s')\n",
				in, s);
			return 1;
		}
		in = s;
	}
	if (!in || !out) {
		fprintf(stderr, "gsp-xform: %s\n", !in ? "no input PTX file given" :
			"no output given: add -o OUT.ptx");
		usage(stderr);
		return 1;
	}
	if (regs && parse_regs(regs, &maxnreg))
		return 1;
	src = read_all(in, &len);
	if (!src) {
		fprintf(stderr, "gsp-xform: cannot read %s: %s\n", in, strerror(errno));
		return 1;
	}
	if (report) {
		rep = strcmp(report, "-") ? fopen(report, "w") : stdout;
		if (!rep) {
			fprintf(stderr, "gsp-xform: cannot write report %s: %s\n",
				report, strerror(errno));
			free(src);
			return 1;
		}
	}
	rc = gsp_xform(src, len, nonly ? only : NULL, &r, err, sizeof(err));
	if (rc == GSP_XFORM_NO_PTX_INPUT) {
		fprintf(stderr, "gsp-xform: %s: %s; nothing written\n", in, err);
		if (rep)
			fprintf(rep, "* skip no-ptx %s\n", err);
		rc = 2;
		goto out;
	}
	if (rc) {
		fprintf(stderr, "gsp-xform: %s: %s\n", in, err);
		rc = 1;
		goto out;
	}
	for (i = 0; i < nonly; i++) {
		size_t j;

		for (j = 0; j < r.nk && strcmp(r.k[j].name, only[i]); j++)
			;
		if (j == r.nk) {
			fprintf(stderr, "gsp-xform: %s has no kernel '%s'; its kernels are:",
				in, only[i]);
			for (j = 0; j < r.nk; j++)
				fprintf(stderr, " %s", r.k[j].name);
			fprintf(stderr, "\n");
			rc = 1;
		}
	}
	if (rc)
		goto free_r;
	if (!r.nk) {
		fprintf(stderr, "gsp-xform: %s: no .entry in the module (no PTX kernel); "
			"copied unchanged\n", in);
		if (rep)
			fprintf(rep, "* skip no-ptx no .entry in the module\n");
	}
	for (i = 0; i < r.nk; i++) {
		const struct gsp_xform_kernel *k = &r.k[i];
		const char *why = gsp_xform_reason_name(k->reason);

		if (k->reason == GSP_XFORM_OK) {
			if (rep)
				fprintf(rep, "%s ok %s__gsp barriers=%s\n", k->name,
					k->name, k->alone ? "none" :
					k->uneven ? "joined" : "even");
			continue;
		}
		if (rep)
			fprintf(rep, "%s skip %s %s%.0u%s%s\n", k->name, why,
				k->line ? "line " : "", k->line, k->line ? ": " : "",
				k->detail);
		if (k->reason != GSP_XFORM_NOT_SELECTED)
			fprintf(stderr, "gsp-xform: %s:%u: kernel %s left unchanged (%s): %s\n",
				in, k->line, k->name, why, k->detail);
	}
	for (i = 0; maxnreg && i < r.nk; i++) {
		char clone[512], *capped;
		size_t clen;

		if (r.k[i].reason != GSP_XFORM_OK)
			continue;
		snprintf(clone, sizeof(clone), "%s__gsp", r.k[i].name);
		if (gsp_xform_maxnreg(r.out, r.out_len, clone,
				      (unsigned int)maxnreg, &capped, &clen,
				      err, sizeof(err))) {
			fprintf(stderr, "gsp-xform: --maxnreg on %s: %s\n", clone, err);
			rc = 1;
			goto free_r;
		}
		free(r.out);
		r.out = capped;
		r.out_len = clen;
	}
	if (alone && take_clones(&r, in)) {
		rc = 1;
		goto free_r;
	}
	if (write_all(out, r.out, r.out_len)) {
		fprintf(stderr, "gsp-xform: cannot write %s: %s\n", out, strerror(errno));
		rc = 1;
	}
free_r:
	gsp_xform_result_free(&r);
out:
	if (rep && rep != stdout && fclose(rep)) {
		fprintf(stderr, "gsp-xform: cannot write report %s\n", report);
		rc = rc ? rc : 1;
	}
	free(src);
	free(only);
	return rc;
}
