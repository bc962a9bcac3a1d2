/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The PTX inside a CUDA module image (fatbin.c): a fatbin wrapper, one or
 * more fatbins, plain PTX text, or an ELF cubin (no PTX). Self-contained
 * (libc and dlopen only), so tests/preload can build it with sanitizers.
 */
#ifndef GSP_FATBIN_H
#define GSP_FATBIN_H

#include <stddef.h>

enum gsp_fb_comp {
	GSP_FB_PLAIN,		/* stored as text */
	GSP_FB_ZSTD,		/* CUDA 13's default */
	GSP_FB_LZ4,		/* CUDA 12's, and 13's --compress-mode=speed */
};

/* One PTX entry, copied out of the image: it owns @data. */
struct gsp_fb_ptx {
	enum gsp_fb_comp comp;
	unsigned int arch;	/* e.g. 90 for compute_90; 0: plain text */
	unsigned char *data;	/* the payload as stored */
	size_t len;		/* bytes of @data */
	size_t raw_len;		/* uncompressed size; 0 if not compressed */
};

/*
 * Finds the PTX of the highest arch <= @arch in @image and copies it into
 * @out. @limit bounds what may be read (SIZE_MAX: unknown, as for the
 * driver's image pointers; then only the fatbin the pointer names is
 * read, since what follows it may be another translation unit's). Returns
 * 0, or -1 with a short reason in *@why (never NULL).
 */
int gsp_fb_find_ptx(const void *image, size_t limit, unsigned int arch,
		    struct gsp_fb_ptx *out, const char **why);

/*
 * The PTX text of @p, NUL-terminated, malloc'd, its length in *@len;
 * NULL with a reason in *@why (a decompressor library missing, a corrupt
 * payload). libzstd.so.1 and liblz4.so.1 are dlopen'd on first use.
 */
char *gsp_fb_ptx_text(const struct gsp_fb_ptx *p, size_t *len,
		      const char **why);

void gsp_fb_ptx_free(struct gsp_fb_ptx *p);

#endif /* GSP_FATBIN_H */
