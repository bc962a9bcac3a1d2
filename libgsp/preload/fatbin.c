// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * PTX extraction from module images. The fatbin layout is not documented
 * by NVIDIA; what we rely on was read from the output of CUDA 13.0's
 * `nvcc -arch=sm_90 -fatbin` (and -gencode for compute_80 + compute_90,
 * --compress-mode=none|size|speed|balance) on small kernels:
 *
 *   wrapper (.nvFatBinSegment of a cudart program), 24 bytes:
 *     u32 magic 0x466243b1, u32 version, u64 data (-> fatbin), u64 name
 *   fatbin header, 16 bytes:
 *     u32 magic 0xba55ed50, u16 version (1), u16 header size (16),
 *     u64 size of the entries that follow the header
 *   entry header (64 bytes seen for ELF, 80 for PTX):
 *     +0  u16 kind: 1 PTX, 2 ELF       +2  u16 (0x0101)
 *     +4  u32 entry header size         +8  u64 payload size, padded
 *     +16 u32 compressed size (0: not)  +28 u32 arch (80, 90)
 *     +40 u32 flags: 0x8000 zstd (13.0's default and "size"/"balance"),
 *         0x2000 lz4 ("speed"; 12.x's only kind); 0x11 on every entry
 *     +56 u64 uncompressed size; PTX text there ends in a NUL
 *   the payload follows the entry header; entries follow each other up
 *   to the fatbin's size. zstd payloads are frames (ZSTD_decompress);
 *   lz4 ones raw blocks (LZ4_decompress_safe). Uncompressed PTX is the
 *   text, NUL-terminated, padded.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fatbin.h"

#define WRAPPER_MAGIC	0x466243b1u
#define FATBIN_MAGIC	0xba55ed50u
#define KIND_PTX	1
#define ENTRY_MIN	64	/* we read fields up to +64 */
#define FLAG_ZSTD	0x8000u
#define FLAG_LZ4	0x2000u
#define RAW_MAX		(1ULL << 30)	/* a sane bound on one PTX text */

static uint16_t rd16(const unsigned char *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The best PTX entry so far: highest arch not above the device's. */
struct pick {
	const unsigned char *payload;
	size_t len, raw_len;
	enum gsp_fb_comp comp;
	unsigned int arch;
	int found, any_ptx, bad;
};

/* Scans one fatbin of @avail bytes at @p; its total size, or 0 if bad. */
static size_t scan_fatbin(const unsigned char *p, size_t avail,
			  unsigned int arch, struct pick *pk)
{
	uint64_t hs, size, off, end;

	if (avail < 16 || rd32(p) != FATBIN_MAGIC)
		return 0;
	hs = rd16(p + 6);
	size = rd64(p + 8);
	if (hs < 16 || size > avail || hs > avail - size)
		return 0;
	end = hs + size;
	for (off = hs; off < end;) {
		const unsigned char *e = p + off;
		uint64_t ehs, psize, clen, raw;
		uint32_t flags, a;

		if (end - off < ENTRY_MIN) {
			pk->bad = 1;
			break;
		}
		ehs = rd32(e + 4);
		psize = rd64(e + 8);
		if (ehs < ENTRY_MIN || ehs > end - off || psize > end - off - ehs) {
			pk->bad = 1;
			break;
		}
		off += ehs + psize;
		if (rd16(e) != KIND_PTX)
			continue;
		pk->any_ptx = 1;
		a = rd32(e + 28);
		flags = rd32(e + 40);
		clen = rd32(e + 16);
		raw = rd64(e + 56);
		if (a > arch || (pk->found && a <= pk->arch))
			continue;
		if (flags & (FLAG_ZSTD | FLAG_LZ4)) {
			if (!clen || clen > psize || !raw || raw > RAW_MAX) {
				pk->bad = 1;
				continue;
			}
			pk->comp = flags & FLAG_ZSTD ? GSP_FB_ZSTD : GSP_FB_LZ4;
			pk->len = clen;
			pk->raw_len = raw;
		} else {
			pk->comp = GSP_FB_PLAIN;
			pk->len = psize;
			pk->raw_len = 0;
		}
		pk->payload = e + ehs;
		pk->arch = a;
		pk->found = 1;
	}
	return end;
}

/* Plain PTX text: NUL-terminated within @limit, with a .version line. */
static int plain_ptx(const unsigned char *p, size_t limit, size_t *len)
{
	size_t n = limit == SIZE_MAX ? strlen((const char *)p)
				     : strnlen((const char *)p, limit);

	if (n == limit)
		return 0;
	*len = n;
	return memmem(p, n, ".version", 8) != NULL;
}

static int find_ptx(const void *image, size_t limit, unsigned int arch,
		    struct gsp_fb_ptx *out, const char **why, int nested)
{
	const unsigned char *p = image;
	struct pick pk = { 0 };
	size_t n, off;

	memset(out, 0, sizeof(*out));
	*why = "no image";
	if (!p || limit < 4)
		return -1;
	if (rd32(p) == WRAPPER_MAGIC) {
		const void *data;

		if (limit < 24 || nested) {
			*why = nested ? "a fatbin wrapper inside a wrapper" :
					"truncated fatbin wrapper";
			return -1;
		}
		memcpy(&data, p + 8, sizeof(data));
		if (!data) {
			*why = "fatbin wrapper without data";
			return -1;
		}
		/* The wrapper's data lies elsewhere, of unknown extent. */
		return find_ptx(data, SIZE_MAX, arch, out, why, 1);
	}
	if (rd32(p) == FATBIN_MAGIC) {
		for (off = 0; off < limit; off += n) {
			n = scan_fatbin(p + off, limit - off, arch, &pk);
			if (!n) {
				pk.bad |= !off;
				break;
			}
			if (limit == SIZE_MAX)
				break;
		}
		if (!pk.found) {
			*why = pk.bad && !pk.any_ptx ? "corrupt fatbin" :
			       pk.any_ptx ? "no PTX for this device's architecture" :
					    "no PTX in the fatbin (SASS only)";
			return -1;
		}
		out->comp = pk.comp;
		out->arch = pk.arch;
		out->len = pk.len;
		out->raw_len = pk.raw_len;
	} else if (!memcmp(p, "\177ELF", 4)) {
		*why = "no PTX (an ELF cubin)";
		return -1;
	} else if (plain_ptx(p, limit, &n)) {
		pk.payload = p;
		out->comp = GSP_FB_PLAIN;
		out->len = n;
	} else {
		*why = "no PTX (not a fatbin, cubin or PTX text)";
		return -1;
	}
	out->data = malloc(out->len + 1);
	if (!out->data) {
		*why = "out of memory";
		return -1;
	}
	memcpy(out->data, pk.payload, out->len);
	out->data[out->len] = 0;
	*why = NULL;
	return 0;
}

int gsp_fb_find_ptx(const void *image, size_t limit, unsigned int arch,
		    struct gsp_fb_ptx *out, const char **why)
{
	return find_ptx(image, limit, arch, out, why, 0);
}

/* Decompressors, resolved once; NULL where the library is missing. */
static struct {
	pthread_once_t once;
	size_t (*zstd)(void *, size_t, const void *, size_t);
	unsigned int (*zstd_err)(size_t);
	int (*lz4)(const char *, char *, int, int);
} dz = { .once = PTHREAD_ONCE_INIT };

static void load_decompressors(void)
{
	void *h = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);

	if (h) {
		*(void **)&dz.zstd = dlsym(h, "ZSTD_decompress");
		*(void **)&dz.zstd_err = dlsym(h, "ZSTD_isError");
	}
	h = dlopen("liblz4.so.1", RTLD_NOW | RTLD_LOCAL);
	if (h)
		*(void **)&dz.lz4 = dlsym(h, "LZ4_decompress_safe");
}

char *gsp_fb_ptx_text(const struct gsp_fb_ptx *p, size_t *len,
		      const char **why)
{
	char *t;
	size_t n;

	*why = NULL;
	if (p->comp == GSP_FB_PLAIN) {
		n = strnlen((const char *)p->data, p->len);
		t = malloc(n + 1);
		if (!t) {
			*why = "out of memory";
			return NULL;
		}
		memcpy(t, p->data, n);
		t[n] = 0;
		*len = n;
		return t;
	}
	pthread_once(&dz.once, load_decompressors);
	t = malloc(p->raw_len + 1);
	if (!t) {
		*why = "out of memory";
		return NULL;
	}
	if (p->comp == GSP_FB_ZSTD) {
		if (!dz.zstd || !dz.zstd_err) {
			*why = "compressed PTX, and libzstd.so.1 is missing";
			goto fail;
		}
		n = dz.zstd(t, p->raw_len, p->data, p->len);
		if (dz.zstd_err(n) || n != p->raw_len) {
			*why = "corrupt zstd-compressed PTX";
			goto fail;
		}
	} else {
		int r;

		if (!dz.lz4) {
			*why = "compressed PTX, and liblz4.so.1 is missing";
			goto fail;
		}
		if (p->len > INT32_MAX || p->raw_len > INT32_MAX) {
			*why = "lz4-compressed PTX too large";
			goto fail;
		}
		r = dz.lz4((const char *)p->data, t, (int)p->len,
			   (int)p->raw_len);
		if (r < 0 || (size_t)r != p->raw_len) {
			*why = "corrupt lz4-compressed PTX";
			goto fail;
		}
		n = (size_t)r;
	}
	t[n] = 0;
	*len = strnlen(t, n);
	return t;
fail:
	free(t);
	return NULL;
}

void gsp_fb_ptx_free(struct gsp_fb_ptx *p)
{
	free(p->data);
	p->data = NULL;
}
