// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of libgsp/preload/fatbin.c, built with ASan and UBSan: PTX
 * from plain text, fatbins (built here byte by byte, plain and with
 * zstd/lz4 payloads compressed through the system libraries), wrappers,
 * several fatbins in a row, ELF-only images, and every truncation and a
 * few thousand corruptions of them (no crash, no read out of bounds).
 * Arguments: fatbin files made by nvcc (run.sh makes them when nvcc is
 * there), each checked for the kernels of tests/preload/fatbin_kernels.cu.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"
#include "tap.h"

static const char ptx80[] =
	".version 8.0\n.target sm_80\n.address_size 64\n"
	".visible .entry k80()\n{\n\tret;\n}\n";
static const char ptx90[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry k90()\n{\n\tret;\n}\n";

/* A growing byte buffer. */
struct buf {
	unsigned char *p;
	size_t n;
};

static void put(struct buf *b, const void *d, size_t n)
{
	b->p = realloc(b->p, b->n + n);
	if (!b->p)
		abort();
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void put_zero(struct buf *b, size_t n)
{
	unsigned char z[64] = { 0 };

	while (n) {
		size_t k = n < sizeof(z) ? n : sizeof(z);

		put(b, z, k);
		n -= k;
	}
}

static void put32(struct buf *b, uint32_t v) { put(b, &v, 4); }
static void put16(struct buf *b, uint16_t v) { put(b, &v, 2); }
static void put64(struct buf *b, uint64_t v) { put(b, &v, 8); }

/*
 * One entry in nvcc's layout (fatbin.c): kind, arch, flags, payload of
 * @n bytes (@clen compressed of @raw uncompressed, else 0, 0).
 */
static void entry(struct buf *b, uint16_t kind, uint32_t arch, uint32_t flags,
		  const void *payload, size_t n, uint32_t clen, uint64_t raw)
{
	size_t padded = (n + 7) & ~(size_t)7;

	put16(b, kind);
	put16(b, 0x0101);
	put32(b, 64);
	put64(b, padded);
	put32(b, clen);
	put32(b, 0);
	put32(b, 0x10008);
	put32(b, arch);
	put64(b, 0);
	put32(b, flags);
	put32(b, 0);
	put64(b, 0);
	put64(b, raw);
	put(b, payload, n);
	put_zero(b, padded - n);
}

/* Wraps entries (@e) into a fatbin, appended to @out. */
static void fatbin(struct buf *out, const struct buf *e)
{
	put32(out, 0xba55ed50u);
	put16(out, 1);
	put16(out, 16);
	put64(out, e->n);
	put(out, e->p, e->n);
}

static const unsigned char elf[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };

/* Exact-size heap copy, so that ASan sees any read past @n. */
static unsigned char *dup_exact(const void *p, size_t n)
{
	unsigned char *d = malloc(n ? n : 1);

	if (!d)
		abort();
	memcpy(d, p, n);
	return d;
}

/* Finds PTX in @p[0..n) for @arch; returns the text or NULL, *why. */
static char *text_of(const void *p, size_t n, unsigned int arch,
		     const char **why, struct gsp_fb_ptx *keep)
{
	struct gsp_fb_ptx x;
	size_t len;
	char *t;

	if (gsp_fb_find_ptx(p, n, arch, &x, why))
		return NULL;
	t = gsp_fb_ptx_text(&x, &len, why);
	if (t && strlen(t) != len) {
		free(t);
		t = NULL;
		*why = "length mismatch";
	}
	if (keep)
		*keep = x;
	else
		gsp_fb_ptx_free(&x);
	return t;
}

static void t_plain(void)
{
	const char *why;
	char *t;

	t = text_of(ptx90, sizeof(ptx90), 90, &why, NULL);
	tap_ok(t && !strcmp(t, ptx90), "fatbin: plain PTX text is its own PTX");
	free(t);
	t = text_of(ptx90, strlen(ptx90), 90, &why, NULL);
	tap_ok(!t, "fatbin: PTX text without its NUL within the limit: none (%s)",
	       why);
	t = text_of(elf, sizeof(elf), 90, &why, NULL);
	tap_ok(!t && strstr(why, "ELF"), "fatbin: an ELF cubin has no PTX (%s)",
	       t ? "?" : why);
	t = text_of("hello", 6, 90, &why, NULL);
	tap_ok(!t, "fatbin: text that is not PTX: none (%s)", why);
}

/* ELF sm_90, PTX compute_80, PTX compute_90, all plain. */
static void build_mixed(struct buf *fb)
{
	struct buf e = { 0 };

	entry(&e, 2, 90, 0x11, elf, sizeof(elf), 0, 0);
	entry(&e, 1, 80, 0x11, ptx80, sizeof(ptx80), 0, 0);
	entry(&e, 1, 90, 0x11, ptx90, sizeof(ptx90), 0, 0);
	fatbin(fb, &e);
	free(e.p);
}

static void t_fatbin(void)
{
	struct buf fb = { 0 }, two = { 0 }, e = { 0 };
	const char *why;
	unsigned char *x;
	char *t;
	struct {
		uint32_t magic, version;
		const void *data, *name;
	} wrap = { 0x466243b1u, 1, NULL, NULL };

	build_mixed(&fb);
	x = dup_exact(fb.p, fb.n);
	t = text_of(x, fb.n, 90, &why, NULL);
	tap_ok(t && !strcmp(t, ptx90), "fatbin: sm_90 device: the compute_90 PTX");
	free(t);
	t = text_of(x, fb.n, 86, &why, NULL);
	tap_ok(t && !strcmp(t, ptx80), "fatbin: sm_86 device: the compute_80 PTX");
	free(t);
	t = text_of(x, fb.n, 75, &why, NULL);
	tap_ok(!t && strstr(why, "architecture"),
	       "fatbin: sm_75 device: no PTX it can run (%s)", t ? "?" : why);
	free(t);
	wrap.data = x;
	t = text_of(&wrap, sizeof(wrap), 90, &why, NULL);
	tap_ok(t && !strcmp(t, ptx90), "fatbin: through a fatbin wrapper");
	free(t);
	t = text_of(&wrap, 20, 90, &why, NULL);
	tap_ok(!t, "fatbin: a truncated wrapper: none (%s)", why);
	wrap.data = NULL;
	t = text_of(&wrap, sizeof(wrap), 90, &why, NULL);
	tap_ok(!t, "fatbin: a wrapper without data: none (%s)", why);
	free(x);

	/* An ELF-only fatbin, then the mixed one. */
	entry(&e, 2, 90, 0x11, elf, sizeof(elf), 0, 0);
	fatbin(&two, &e);
	t = text_of(two.p, two.n, 90, &why, NULL);
	tap_ok(!t && strstr(why, "SASS only"),
	       "fatbin: ELF entries only: no PTX (%s)", t ? "?" : why);
	put(&two, fb.p, fb.n);
	put_zero(&two, 16);	/* padding after the last one */
	x = dup_exact(two.p, two.n);
	t = text_of(x, two.n, 90, &why, NULL);
	tap_ok(t && !strcmp(t, ptx90),
	       "fatbin: two fatbins in a row: the PTX of the second");
	free(t);
	wrap.data = x;
	t = text_of(&wrap, sizeof(wrap), 90, &why, NULL);
	tap_ok(!t, "fatbin: a wrapper names one fatbin: the next one is not read (%s)",
	       t ? "?" : why);
	free(t);
	free(x);
	free(e.p);
	free(two.p);
	free(fb.p);
}

/* Every prefix, and bytes of the headers flipped: clean answers only. */
static void t_corrupt(const struct buf *fb, const char *what)
{
	unsigned int bad = 0, found = 0, flips = 0;
	uint32_t seed = 12345;
	size_t n, i;

	for (n = 0; n < fb->n; n++) {
		unsigned char *x = dup_exact(fb->p, n);
		const char *why;
		char *t = text_of(x, n, 90, &why, NULL);

		bad += t != NULL;
		free(t);
		free(x);
	}
	tap_ok(!bad, "fatbin: %s: all %zu truncations give no PTX, cleanly",
	       what, fb->n);
	for (i = 0; i < 4000; i++) {
		unsigned char *x = dup_exact(fb->p, fb->n);
		const char *why;
		char *t;
		size_t at;

		seed = seed * 1664525u + 1013904223u;
		/* Mostly headers: the first 16 + 80 bytes of each entry. */
		at = (seed >> 8) % (fb->n < 200 ? fb->n : 200);
		x[at] ^= (unsigned char)(1u << (seed % 8));
		flips++;
		t = text_of(x, fb->n, 90, &why, NULL);
		found += t != NULL;
		free(t);
		free(x);
	}
	tap_ok(1, "fatbin: %s: %u single-bit corruptions parsed without a fault (%u still gave PTX)",
	       what, flips, found);
}

static void skip(const char *what, const char *why)
{
	printf("ok %d - %s # SKIP %s\n", ++tap_n, what, why);
}

typedef size_t (*zstd_c_fn)(void *, size_t, const void *, size_t, int);
typedef int (*lz4_c_fn)(const char *, char *, int, int);

static void t_compressed(void)
{
	void *hz = dlopen("libzstd.so.1", RTLD_NOW);
	void *hl = dlopen("liblz4.so.1", RTLD_NOW);
	zstd_c_fn zc = hz ? (zstd_c_fn)dlsym(hz, "ZSTD_compress") : NULL;
	lz4_c_fn lc = hl ? (lz4_c_fn)dlsym(hl, "LZ4_compress_default") : NULL;
	unsigned char c[4096];
	struct buf e = { 0 }, fb = { 0 };
	struct gsp_fb_ptx x;
	const char *why;
	size_t n;
	char *t;

	if (!zc) {
		skip("fatbin: zstd-compressed PTX", "libzstd.so.1 is not installed");
	} else {
		n = zc(c, sizeof(c), ptx90, sizeof(ptx90), 3);
		entry(&e, 2, 90, 0x11, elf, sizeof(elf), 0, 0);
		entry(&e, 1, 90, 0x8011, c, n, (uint32_t)n, sizeof(ptx90));
		fatbin(&fb, &e);
		t = text_of(fb.p, fb.n, 90, &why, &x);
		tap_ok(t && !strcmp(t, ptx90) && x.comp == GSP_FB_ZSTD,
		       "fatbin: zstd-compressed PTX (flag 0x8000) comes out as text");
		free(t);
		if (!t) {
			tap_ok(0, "fatbin: corrupt zstd payload (no PTX to corrupt)");
		} else {
			x.data[x.len / 2] ^= 0x55;
			x.data[x.len / 2 + 1] ^= 0xaa;
			t = gsp_fb_ptx_text(&x, &n, &why);
			tap_ok(!t || strcmp(t, ptx90),
			       "fatbin: a corrupt zstd payload gives an error, not the PTX (%s)",
			       t ? "decoded to other text" : why);
			free(t);
			gsp_fb_ptx_free(&x);
		}
		t_corrupt(&fb, "zstd fatbin");
		free(e.p);
		free(fb.p);
		e.p = fb.p = NULL;
		e.n = fb.n = 0;
	}
	if (!lc) {
		skip("fatbin: lz4-compressed PTX", "liblz4.so.1 is not installed");
		return;
	}
	n = (size_t)lc(ptx80, (char *)c, sizeof(ptx80), sizeof(c));
	entry(&e, 1, 80, 0x2011, c, n, (uint32_t)n, sizeof(ptx80));
	fatbin(&fb, &e);
	t = text_of(fb.p, fb.n, 90, &why, NULL);
	tap_ok(t && !strcmp(t, ptx80),
	       "fatbin: lz4-compressed PTX (flag 0x2000) comes out as text");
	free(t);
	free(e.p);
	free(fb.p);
}

/* A file made by nvcc -fatbin from fatbin_kernels.cu. */
static void t_nvcc(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct buf b = { 0 };
	unsigned char chunk[4096];
	const char *why = "cannot read it";
	struct {
		uint32_t magic, version;
		const void *data, *name;
	} wrap = { 0x466243b1u, 1, NULL, NULL };
	size_t n;
	char *t = NULL, *tw;

	while (f && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		put(&b, chunk, n);
	if (f)
		fclose(f);
	if (b.n)
		t = text_of(b.p, b.n, 90, &why, NULL);
	tap_ok(t && strstr(t, ".entry _Z5saxpyifPKfPf") &&
	       strstr(t, ".entry _Z5scalePff") && strstr(t, ".target sm_90"),
	       "fatbin: nvcc's %s: the sm_90 PTX with both kernels (%s)", path,
	       t ? "ok" : why);
	wrap.data = b.p;
	tw = b.n ? text_of(&wrap, sizeof(wrap), 90, &why, NULL) : NULL;
	tap_ok(tw && t && !strcmp(t, tw),
	       "fatbin: nvcc's %s through a wrapper, extent unknown: the same PTX",
	       path);
	free(tw);
	free(t);
	free(b.p);
}

int main(int argc, char **argv)
{
	struct buf fb = { 0 };
	int i;

	t_plain();
	t_fatbin();
	build_mixed(&fb);
	t_corrupt(&fb, "plain fatbin");
	free(fb.p);
	t_compressed();
	for (i = 1; i < argc; i++)
		t_nvcc(argv[i]);
	return tap_done();
}
