// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Spatial sharing: images and handles. Each module or library load
 * records its image's PTX under the handle; functions, kernels and a
 * library's modules map to (image, kernel name). Images are
 * reference-counted (spatial_internal.h) and freed here, unloading their
 * JIT-ed modules. Apart from the rest because every other part only
 * looks images up.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spatial_internal.h"

/* Images and handles (spatial.mu held unless said otherwise) ---------- */

static unsigned int hslot(const void *h)
{
	uint64_t x = (uintptr_t)h;

	x ^= x >> 29;
	x *= 0xbf58476d1ce4e5b9ULL;
	return (unsigned int)(x >> 40) % HBUCKETS;
}

struct sp_handle *hfind(const void *h)
{
	struct sp_handle *e;

	for (e = spatial.hb[hslot(h)]; e; e = e->next)
		if (e->h == h)
			return e;
	return NULL;
}

/* Drops one reference; the image to free (unlocked) when it was the last. */
struct sp_img *img_unref(struct sp_img *img)
{
	return img && --img->refs == 0 ? img : NULL;
}

/* Frees an unreferenced image, unloading what we JIT-ed (unlocked). */
static void img_free(struct sp_img *img)
{
	struct sp_kern *kn, *kn2;
	struct sp_mod *md, *md2;
	struct sp_kfn *kf, *kf2;

	if (!img)
		return;
	for (md = img->mods; md; md = md2) {
		md2 = md->next;
		/* A destroyed context took its modules with it. */
		if (md->m && !__atomic_load_n(&md->c->dead, __ATOMIC_ACQUIRE))
			cudrv.mod_unload(md->m);
		free(md->vars);
		free(md);
	}
	while (img->ngv)
		free(img->gv[--img->ngv].name);
	free(img->gv);
	for (kn = img->kerns; kn; kn = kn2) {
		kn2 = kn->next;
		for (kf = kn->fns; kf; kf = kf2) {
			kf2 = kf->next;
			free(kf);
		}
		while (kn->nvars)
			free(kn->vars[--kn->nvars]);
		free(kn->vars);
		free(kn->text);
		free(kn->name);
		free(kn);
	}
	gsp_xform_parts_free(img->parts);
	free(img->text);
	gsp_fb_ptx_free(&img->ptx);
	free(img);
}

/* Queues @img (unreferenced, or NULL) for img_free_list(), unlocked. */
void img_queue(struct sp_img *img, struct sp_img **list)
{
	if (img) {
		img->dead_next = *list;
		*list = img;
	}
}

void img_free_list(struct sp_img *l)
{
	while (l) {
		struct sp_img *nx = l->dead_next;

		img_free(l);
		l = nx;
	}
}

void img_put(struct sp_img *img)
{
	pthread_mutex_lock(&spatial.mu);
	img = img_unref(img);
	pthread_mutex_unlock(&spatial.mu);
	img_free(img);
}

/* Removes @e from the map; returns the image to free, if any. */
static struct sp_img *hremove(struct sp_handle *e)
{
	struct sp_handle **pp = &spatial.hb[hslot(e->h)];
	struct sp_img *img = e->img;

	while (*pp != e)
		pp = &(*pp)->next;
	*pp = e->next;
	free(e);
	return img_unref(img);
}

/* Adds @h -> (@img, @kern), replacing a stale entry for a reused handle. */
static struct sp_img *hadd(const void *h, const void *root,
			   struct sp_img *img, struct sp_kern *kern)
{
	struct sp_handle *e = hfind(h);
	struct sp_img *dead = NULL;
	unsigned int s = hslot(h);

	if (e)
		dead = hremove(e);
	e = calloc(1, sizeof(*e));
	if (!e)
		return dead;
	e->h = h;
	e->root = root;
	e->img = img;
	e->kern = kern;
	img->refs++;
	e->next = spatial.hb[s];
	spatial.hb[s] = e;
	return dead;
}

/* The architecture loads pick PTX for: the current context's device. */
static unsigned int load_arch(void)
{
	CUdevice d;
	int ma = 0, mi = 0;

	if (cudrv.ctx_dev(&d) != CUDA_SUCCESS && cudrv.dev_get(&d, 0) != CUDA_SUCCESS)
		return ~0u;
	if (cudrv.dev_attr(&ma, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d) ||
	    cudrv.dev_attr(&mi, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d))
		return ~0u;
	return (unsigned int)(ma * 10 + mi);
}

static void sp_image(const void *handle, const void *image, size_t limit,
		     int lib)
{
	struct sp_img *img, *dead = NULL;
	const char *why;

	if (!gsp_sp_on() || !handle)
		return;
	img = calloc(1, sizeof(*img));
	if (!img)
		return;
	img->root = handle;
	img->lib = lib;
	/* Copied now: the program may free its image after the load. */
	if (gsp_fb_find_ptx(image, limit, load_arch(), &img->ptx, &why))
		img->noptx = why;
	pthread_mutex_lock(&spatial.mu);
	img_queue(hadd(handle, NULL, img, NULL), &dead);
	if (!img->refs)
		img_queue(img, &dead);	/* no memory for the entry */
	pthread_mutex_unlock(&spatial.mu);
	img_free_list(dead);
}

void gsp_sp_image(const void *handle, const void *image, size_t limit)
{
	sp_image(handle, image, limit, 0);
}

void gsp_sp_lib_image(const void *handle, const void *image, size_t limit)
{
	sp_image(handle, image, limit, 1);
}

static void sp_image_file(const void *handle, const char *path, int lib)
{
	struct stat st;
	char *buf = NULL;
	ssize_t got = 0;
	int fd;

	if (!gsp_sp_on() || !handle || !path)
		return;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !fstat(fd, &st) && st.st_size > 0 &&
	    (uint64_t)st.st_size < FILE_MAX)
		buf = malloc((size_t)st.st_size + 1);
	while (buf && got < st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)(st.st_size - got));

		if (n <= 0)
			break;
		got += n;
	}
	if (fd >= 0)
		close(fd);
	if (buf) {
		buf[got] = 0;
		/* The NUL after it makes a PTX file plain text. */
		sp_image(handle, buf, (size_t)got + 1, lib);
	}
	free(buf);
}

void gsp_sp_image_file(const void *handle, const char *path)
{
	sp_image_file(handle, path, 0);
}

void gsp_sp_lib_image_file(const void *handle, const char *path)
{
	sp_image_file(handle, path, 1);
}

static struct sp_kern *kern_get(struct sp_img *img, const char *name)
{
	struct sp_kern *kn;

	for (kn = img->kerns; kn; kn = kn->next)
		if (!strcmp(kn->name, name))
			return kn;
	kn = calloc(1, sizeof(*kn));
	if (!kn)
		return NULL;
	kn->name = strdup(name);
	if (!kn->name) {
		free(kn);
		return NULL;
	}
	kn->img = img;
	kn->next = img->kerns;
	img->kerns = kn;
	return kn;
}

void gsp_sp_child(const void *child, const void *parent, const char *name)
{
	struct sp_handle *p;
	struct sp_kern *kn = NULL;
	struct sp_img *dead = NULL;

	if (!gsp_sp_on() || !child)
		return;
	pthread_mutex_lock(&spatial.mu);
	p = hfind(parent);
	if (p) {
		/* A function of a kernel keeps the kernel's name. */
		kn = p->kern;
		if (name && !kn)
			kn = kern_get(p->img, name);
		if (kn || !name)
			dead = hadd(child, p->root ? p->root : parent,
				    p->img, kn);
	}
	pthread_mutex_unlock(&spatial.mu);
	img_free(dead);
}

void gsp_sp_forget(const void *handle)
{
	struct sp_img *dead = NULL;
	int b;

	if (!gsp_sp_on() || !handle)
		return;
	pthread_mutex_lock(&spatial.mu);
	/* One pass: each entry knows the load it came from. */
	for (b = 0; b < HBUCKETS; b++) {
		struct sp_handle *e = spatial.hb[b], *nx;

		for (; e; e = nx) {
			nx = e->next;
			if (e->h != handle && e->root != handle)
				continue;
			img_queue(hremove(e), &dead);
		}
	}
	pthread_mutex_unlock(&spatial.mu);
	img_free_list(dead);
}
