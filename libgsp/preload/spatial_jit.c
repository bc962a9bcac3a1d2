// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Spatial sharing: transformation and JIT (dispatcher thread). An
 * image's PTX is cut into its symbols once; each kernel is taken from it
 * with what it names, goes through gsp_xform() alone, and its clone is
 * JIT-loaded alone, once per context, with its module variables paired
 * with the program's, its occupancy and, where it needs one, a register
 * cap. Apart from the rest because it is the one part that calls the
 * transformer.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <ptx.h>

#include "spatial_internal.h"

/* Transformation and JIT (dispatcher thread) --------------------------------- */

/*
 * The module-scope .global and .const variables of @text into img->gv: 0,
 * or -1 with img->xerr (out of memory). Texture, sampler and surface
 * references are the business of the kernels that name them (mod_decls()).
 */
static int img_vars(struct sp_img *img, const char *text, size_t len)
{
	struct ptx_module pm;
	char err[96];
	uint32_t i;

	if (ptx_parse(&pm, text, len, err, sizeof(err))) {
		snprintf(img->xerr, sizeof(img->xerr), "its PTX: %s", err);
		return -1;
	}
	img->gv = calloc(pm.nvars ? pm.nvars : 1, sizeof(*img->gv));
	if (!img->gv) {
		snprintf(img->xerr, sizeof(img->xerr), "out of memory");
		goto fail;
	}
	for (i = 0; i < pm.nvars; i++) {
		const struct ptx_tok *t = &pm.toks[pm.vars[i].name_tok];

		if (pm.vars[i].space == PTX_V_TEXTURE)
			continue;
		img->gv[img->ngv].name = strndup(text + t->off, t->len);
		if (!img->gv[img->ngv].name) {
			snprintf(img->xerr, sizeof(img->xerr), "out of memory");
			goto fail;
		}
		img->gv[img->ngv++].writable = pm.vars[i].space == PTX_V_GLOBAL;
	}
	ptx_free(&pm);
	return 0;
fail:
	ptx_free(&pm);
	return -1;
}

/* The image's PTX text cut into parts, once; 0 or -1 with img->xerr. */
static int img_cut(struct sp_img *img)
{
	const char *why;
	char err[128];
	size_t len = 0;

	if (img->xstate)
		return img->xstate > 0 ? 0 : -1;
	img->xstate = -1;
	if (!img->ptx.data) {
		snprintf(img->xerr, sizeof(img->xerr), "%s", img->noptx);
		return -1;
	}
	img->text = gsp_fb_ptx_text(&img->ptx, &len, &why);
	if (!img->text) {
		snprintf(img->xerr, sizeof(img->xerr), "%s", why);
		return -1;
	}
	if (memchr(img->text, 0, len)) {
		snprintf(img->xerr, sizeof(img->xerr), "the image's PTX is not text");
		return -1;
	}
	if (gsp_xform_parts_new(img->text, len, &img->parts, err, sizeof(err))) {
		snprintf(img->xerr, sizeof(img->xerr), "its PTX: %s", err);
		return -1;
	}
	if (img_vars(img, img->text, len))
		return -1;
	img->xstate = 1;
	return 0;
}

/* The stats' reason for each gsp_xform verdict. */
static const char *const xform_token[] = {
	[GSP_XFORM_OK] = "xform-ok",
	[GSP_XFORM_GRID_SYNC] = "xform-grid-sync",
	[GSP_XFORM_DYN_PAR] = "xform-dynamic-parallelism",
	[GSP_XFORM_CLUSTER] = "xform-cluster",
	[GSP_XFORM_SM_ID] = "xform-sm-id",
	[GSP_XFORM_BARRIER] = "xform-barrier",
	[GSP_XFORM_FUNC] = "xform-function",
	[GSP_XFORM_TARGET] = "xform-target",
	[GSP_XFORM_NAME] = "xform-name",
	[GSP_XFORM_UNSUPPORTED] = "xform-unsupported",
	[GSP_XFORM_NO_BODY] = "xform-no-body",
	[GSP_XFORM_NOT_SELECTED] = "xform-not-selected",
	[GSP_XFORM_NO_PTX] = "xform-no-ptx",
};

/*
 * Squeezes each run of empty lines in @s to one: the kernel's text kept the
 * image's line numbers (GSP_XFORM_PARTS_LINES) for gsp-xform's reports,
 * which the JIT does not need (tens of thousands of lines in a large image).
 */
static void squeeze_lines(char *s)
{
	const char *r;
	char *w = s;

	for (r = s; *r; r++) {
		/* a newline after two in a row would start a second empty line */
		if (*r == '\n' && w - s >= 2 && w[-1] == '\n' && w[-2] == '\n')
			continue;
		*w++ = *r;
	}
	*w = 0;
}

/*
 * @r's verdict on @kn, and on success its clone alone in kn->text with the
 * variables it reaches by reference: 0, or -1 with kn->why/token.
 */
static int kern_take(struct sp_kern *kn, struct gsp_xform_result *r)
{
	char clone[512], err[96];
	const char *keep[] = { clone, NULL };
	struct gsp_xform_parts *pp;
	size_t i, len;

	for (i = 0; i < r->nk && strcmp(r->k[i].name, kn->name); i++)
		;
	if (i == r->nk) {
		snprintf(kn->why, sizeof(kn->why), "not in the image's PTX");
		return -1;
	}
	if (r->k[i].reason != GSP_XFORM_OK) {
		if ((size_t)r->k[i].reason < sizeof(xform_token) /
					     sizeof(*xform_token))
			kn->token = xform_token[r->k[i].reason];
		snprintf(kn->why, sizeof(kn->why), "%s (line %u: %s)",
			 gsp_xform_reason_name(r->k[i].reason), r->k[i].line,
			 r->k[i].detail);
		return -1;
	}
	snprintf(clone, sizeof(clone), "%s%s", kn->name, GSP_PERSIST_SUFFIX);
	if (gsp_xform_parts_new(r->out, r->out_len, &pp, err, sizeof(err))) {
		snprintf(kn->why, sizeof(kn->why), "its transformed form: %s", err);
		return -1;
	}
	if (gsp_xform_parts_take(pp, keep, 0, &kn->text, &len, err,
				 sizeof(err))) {
		snprintf(kn->why, sizeof(kn->why), "its transformed form: %s", err);
		gsp_xform_parts_free(pp);
		return -1;
	}
	gsp_xform_parts_free(pp);
	squeeze_lines(kn->text);
	kn->nparams = r->k[i].nparams;
	kn->vars = r->vars;
	kn->nvars = r->nvars;
	r->vars = NULL;
	r->nvars = 0;
	return 0;
}

/*
 * The xform verdict on @kn, from the kernel and what it names taken out of
 * its image (line numbers kept, for the reasons): 0 transformed, else -1
 * with kn->why/token.
 */
int kern_verdict(struct sp_kern *kn)
{
	struct sp_img *img = kn->img;
	const char *keep[] = { kn->name, NULL };
	struct gsp_xform_result r;
	char err[160], *text;
	size_t len;
	int rc;

	if (kn->looked)
		return kn->ok ? 0 : -1;
	kn->looked = 1;
	kn->token = "xform";
	if (img_cut(img)) {
		kn->token = img->ptx.data ? "xform" : "no-ptx";
		snprintf(kn->why, sizeof(kn->why), "%s", img->xerr);
		return -1;
	}
	if (gsp_xform_parts_take(img->parts, keep, GSP_XFORM_PARTS_LINES, &text,
				 &len, err, sizeof(err))) {
		snprintf(kn->why, sizeof(kn->why), "its image's PTX: %s", err);
		return -1;
	}
	rc = gsp_xform(text, len, keep, &r, err, sizeof(err));
	free(text);
	if (rc) {
		snprintf(kn->why, sizeof(kn->why), "%s", err);
		return -1;
	}
	rc = kern_take(kn, &r);
	gsp_xform_result_free(&r);
	if (rc)
		return -1;
	kn->ok = 1;
	return 0;
}

/* @name in the program's module (the current context's, for a library). */
static CUresult prog_global(struct sp_img *img, const char *name,
			    CUdeviceptr *d, size_t *size)
{
	if (!img->lib)
		return cudrv.mod_global(d, size, (CUmodule)img->root, name);
	return cudrv.lib_global ? cudrv.lib_global(d, size, (CUlibrary)img->root, name)
			    : CUDA_ERROR_NOT_SUPPORTED;
}

/*
 * Which of the image's variables @text, one kernel's module, declares:
 * has[i] for img->gv[i], and ref[j] for the reference of kn->vars[j]
 * (NAME__gsp_ref). 0, or -1 with md->why: a texture, sampler or surface
 * reference (textures bind per module: ours would never be bound).
 */
static int mod_decls(struct sp_kern *kn, struct sp_mod *md, const char *text,
		     char *has, char *ref)
{
	struct sp_img *img = kn->img;
	size_t rl = strlen(GSP_PERSIST_REF_SUFFIX), j, n;
	struct ptx_module pm;
	char err[96];
	uint32_t i;

	if (ptx_parse(&pm, text, strlen(text), err, sizeof(err))) {
		snprintf(md->why, sizeof(md->why), "its module: %s", err);
		return -1;
	}
	for (i = 0; i < pm.nvars; i++) {
		const struct ptx_tok *t = &pm.toks[pm.vars[i].name_tok];
		const char *name = text + t->off;

		n = t->len;
		if (pm.vars[i].space == PTX_V_TEXTURE) {
			md->token = "module-texture";
			snprintf(md->why, sizeof(md->why),
				 "it names the texture, sampler or surface %.*s",
				 (int)n, name);
			ptx_free(&pm);
			return -1;
		}
		if (n > rl && !memcmp(name + n - rl, GSP_PERSIST_REF_SUFFIX, rl)) {
			for (j = 0; j < kn->nvars; j++)
				if (strlen(kn->vars[j]) == n - rl &&
				    !memcmp(kn->vars[j], name, n - rl))
					ref[j] = 1;
			continue;
		}
		for (j = 0; j < img->ngv; j++)
			if (strlen(img->gv[j].name) == n &&
			    !memcmp(img->gv[j].name, name, n))
				has[j] = 1;
	}
	ptx_free(&pm);
	return 0;
}

/*
 * Pairs each .const variable that @md declares (@has, mod_decls()) with
 * the program's own, to be copied in before each primary launch: 0, or -1
 * with md->why. (.global ones need no copies: the module reaches the
 * program's, mod_bind().)
 */
static int mod_vars(struct sp_img *img, struct sp_mod *md, const char *has)
{
	unsigned int i;

	md->vars = calloc(img->ngv ? img->ngv : 1, sizeof(*md->vars));
	if (!md->vars) {
		snprintf(md->why, sizeof(md->why), "out of memory");
		return -1;
	}
	for (i = 0; i < img->ngv; i++) {
		struct sp_var *v = &md->vars[md->nvars];
		const char *name = img->gv[i].name;
		size_t xs = 0, os = 0;
		CUresult r;

		if (img->gv[i].writable || !has[i])
			continue;
		r = cudrv.mod_global(&v->xf, &xs, md->m, name);
		if (r) {
			snprintf(md->why, sizeof(md->why),
				 "its module variable %s is not in its transformed module (error %d)",
				 name, (int)r);
			return -1;
		}
		r = prog_global(img, name, &v->orig, &os);
		if (r || os != xs) {
			snprintf(md->why, sizeof(md->why),
				 "its module variable %s is not in the program's module (error %d, %zu bytes, ours %zu)",
				 name, (int)r, os, xs);
			return -1;
		}
		v->size = xs;
		md->nvars++;
	}
	return 0;
}

/*
 * @text with the references it declares (@ref, mod_decls()) bound to the
 * program's variables (gsp_xform_bind()) into *@bound, which stays NULL
 * when it has none: 0, or -1 with md->why.
 */
static int mod_bind(struct sp_kern *kn, struct sp_mod *md, const char *text,
		    const char *ref, char **bound)
{
	unsigned long long *addrs;
	const char **names;
	size_t i, n = 0, len;
	char err[96];
	int rc = -1;

	*bound = NULL;
	for (i = 0; i < kn->nvars; i++)
		n += ref[i];
	if (!n)
		return 0;
	addrs = calloc(n, sizeof(*addrs));
	names = calloc(n, sizeof(*names));
	if (!addrs || !names) {
		snprintf(md->why, sizeof(md->why), "out of memory");
		goto out;
	}
	for (i = 0, n = 0; i < kn->nvars; i++) {
		CUdeviceptr d = 0;
		CUresult r;

		if (!ref[i])
			continue;
		r = prog_global(kn->img, kn->vars[i], &d, NULL);
		if (r) {
			snprintf(md->why, sizeof(md->why),
				 "its module variable %s is not in the program's module (error %d)",
				 kn->vars[i], (int)r);
			goto out;
		}
		names[n] = kn->vars[i];
		addrs[n++] = d;
	}
	rc = gsp_xform_bind(text, strlen(text), names, addrs, n, bound, &len,
			    err, sizeof(err));
	if (rc)
		snprintf(md->why, sizeof(md->why),
			 "its module variables cannot be bound: %s", err);
out:
	free(names);
	free(addrs);
	return rc;
}

/* @text, @kn's clone alone (kn->text or a form of it), JIT-ed in @c. */
static struct sp_mod *mod_jit(struct sp_kern *kn, struct sp_ctx *c,
			      const char *text)
{
	struct sp_img *img = kn->img;
	struct sp_mod *md = calloc(1, sizeof(*md));
	char *has = calloc(img->ngv + 1, 1), *ref = calloc(kn->nvars + 1, 1);
	char *bound = NULL;

	if (!md || !has || !ref) {
		free(md);
		md = NULL;
		goto out;
	}
	md->c = c;
	if (mod_decls(kn, md, text, has, ref) ||
	    mod_bind(kn, md, text, ref, &bound))
		md->err = CUDA_ERROR_NOT_FOUND;
	else
		md->err = cudrv.mod_load(&md->m, bound ? bound : text);
	free(bound);
	if (md->err)
		md->m = NULL;
	else if (mod_vars(img, md, has))
		md->err = CUDA_ERROR_NOT_FOUND;
	md->next = img->mods;
	img->mods = md;
out:
	free(ref);
	free(has);
	return md;
}

/* NAME__gsp in @c; NULL with @why and the stats' reason in *@token. */
struct sp_kfn *kfn_get(struct sp_kern *kn, struct sp_ctx *c,
		       char *why, size_t n, const char **token)
{
	char name[512];
	struct sp_kfn *kf;
	struct sp_mod *md;

	for (kf = kn->fns; kf; kf = kf->next)
		if (kf->c == c)
			goto found;
	*token = "jit";
	md = mod_jit(kn, c, kn->text);
	if (!md) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	kf = calloc(1, sizeof(*kf));
	if (!kf) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	kf->kind = SP_KFN;
	kf->c = c;
	kf->kern = kn;
	kf->md = md;
	kf->err = md->err;
	if (!kf->err) {
		snprintf(name, sizeof(name), "%s%s", kn->name, GSP_PERSIST_SUFFIX);
		kf->err = cudrv.mod_fn(&kf->f, md->m, name);
	}
	kf->next = kn->fns;
	kn->fns = kf;
found:
	*token = "jit";
	if (kf->md->why[0]) {
		*token = kf->md->token ? kf->md->token : "module-variable";
		snprintf(why, n, "%s", kf->md->why);
	} else if (kf->err) {
		snprintf(why, n, "the JIT of its transformed form failed (error %d)",
			 (int)kf->err);
	}
	return kf->err ? NULL : kf;
}

/* Blocks of @f per SM at this block size; 0 if none fit. */
static int fn_occ(CUfunction f, unsigned int threads, unsigned int shmem)
{
	int k = 0;

	/* The original's opt-in to large shared memory is not ours. */
	if (shmem > 48 * 1024)
		cudrv.fn_attr(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
			  (int)shmem);
	if (cudrv.occ(&k, f, (int)threads, shmem) != CUDA_SUCCESS || k < 0)
		return 0;
	return k;
}

/*
 * ptxas may give a clone's task loop more registers than the original
 * kernel had (lbm: 106 against 96), and so fewer blocks per SM (4 of 128
 * threads instead of 5). Such a clone is JIT-ed again, once, in another
 * module of its own, with .maxnreg at what the original's occupancy allows
 * (a few bytes of spills at most, Documentation/spatial.rst); the capped
 * one replaces it if more of its blocks fit. Returns K now.
 */
static int kfn_regcap(struct sp_kfn *kf, CUfunction orig,
		      unsigned int threads, unsigned int shmem, int k)
{
	struct sp_kern *kn = kf->kern;
	unsigned int warps = (threads + 31) / 32, cap;
	int ko, regs = 0, k2 = 0;
	char name[512], err[160], *text;
	struct sp_mod *md;
	CUfunction f;
	size_t len;

	if (kf->capped || !kf->c->regs_sm || !cudrv.fn_get)
		return k;
	ko = fn_occ(orig, threads, shmem);
	if (ko <= k || cudrv.fn_get(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, kf->f))
		return k;
	/* registers go to a warp in units of 256: 8 per thread */
	cap = kf->c->regs_sm / ((unsigned int)ko * warps * 32) / 8 * 8;
	if (!cap || cap >= (unsigned int)regs)
		return k;	/* not registers: shared memory, say */
	kf->capped = 1;
	snprintf(name, sizeof(name), "%s%s", kn->name, GSP_PERSIST_SUFFIX);
	if (gsp_xform_maxnreg(kn->text, strlen(kn->text), name, cap, &text,
			      &len, err, sizeof(err))) {
		gsp_log(1, "spatial: kernel %s: no register cap: %s",
			kn->name, err);
		return k;
	}
	md = mod_jit(kn, kf->c, text);
	free(text);
	if (md && !md->err && !cudrv.mod_fn(&f, md->m, name))
		k2 = fn_occ(f, threads, shmem);
	if (k2 <= k) {
		gsp_log(1, "spatial: kernel %s: capped at %u registers its transformed form fits %d blocks per SM, not more than %d; kept as it was",
			kn->name, cap, k2, k);
		if (md && md->m) {
			cudrv.mod_unload(md->m);
			md->m = NULL;
		}
		return k;
	}
	kf->f = f;
	kf->md = md;
	atomic_fetch_add_explicit(&spatial.regcaps, 1, memory_order_relaxed);
	gsp_log(1, "spatial: kernel %s: its transformed form capped at %u registers (it used %d): %d blocks per SM, as the original, not %d",
		kn->name, cap, regs, k2, k);
	return k2;
}

/*
 * @kf's carveout preference: the most shared memory (@max, for padded
 * launches: K blocks must fit with their padding) or none (the L1 keeps
 * what the driver gives it). Set only when it changes.
 */
void kfn_carveout(struct sp_kfn *kf, int max)
{
	if (kf->maxsh == max)
		return;
	if (!cudrv.fn_attr(kf->f, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
			   max ? CU_SHAREDMEM_CARVEOUT_MAX_SHARED :
				 CU_SHAREDMEM_CARVEOUT_DEFAULT))
		kf->maxsh = max;
}

/*
 * The dynamic shared memory to add to each block of @kf so that K blocks
 * take all of an SM's shared memory (GSP_FILL): then no block of another
 * kernel fits on an SM where the job's blocks run (every block needs
 * smem_rsv), and the LC's blocks go to the SMs the job gave up, not
 * beside its blocks, where they would barely run. K must not change:
 * the result is checked with the occupancy call, in allocation units of
 * 128 bytes, and 0 if it cannot be had.
 */
static unsigned int kfn_pad(struct sp_kfn *kf, unsigned int threads,
			    unsigned int shmem, int k)
{
	const struct sp_ctx *c = kf->c;
	unsigned int per, have, tries;
	int st = 0;

	if (!spatial.cfg.fill || !c->smem_sm || !c->smem_blk || !cudrv.fn_get ||
	    cudrv.fn_get(&st, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, kf->f) || st < 0)
		return 0;
	per = c->smem_sm / (unsigned int)k / 128 * 128;
	if (per > c->smem_blk + c->smem_rsv)
		per = c->smem_blk + c->smem_rsv;
	have = c->smem_rsv + (unsigned int)st + shmem;
	kfn_carveout(kf, 1);	/* as the padded launch will have it */
	for (tries = 0; per > have && tries < 8 && kf->maxsh; tries++, per -= 128) {
		if (cudrv.fn_attr(kf->f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
				  (int)(per - have + shmem)))
			break;
		if (fn_occ(kf->f, threads, per - have + shmem) == k)
			return per - have;
	}
	kfn_carveout(kf, 0);
	return 0;
}

/* K for this block size and dynamic shared memory, cached. */
int kfn_k(struct sp_kfn *kf, CUfunction orig, unsigned int threads,
	  unsigned int shmem)
{
	int k;

	if (kf->k && kf->threads == threads && kf->shmem == shmem)
		return kf->k;
	k = fn_occ(kf->f, threads, shmem);
	if (k < 1)
		return 0;
	k = kfn_regcap(kf, orig, threads, shmem, k);
	if (k > GSP_PERSIST_MAX_K)
		k = GSP_PERSIST_MAX_K;
	kf->threads = threads;
	kf->shmem = shmem;
	kf->k = k;
	kf->pad = kfn_pad(kf, threads, shmem, k);
	return k;
}

/* Blocks in @op's grid: the original kernel's tasks. */
