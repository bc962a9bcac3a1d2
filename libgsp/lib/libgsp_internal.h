/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libgsp internals shared with the tools built from the same objects
 * (gspctl). Never exported from libgsp.so: the build gives every symbol
 * hidden visibility unless gsp.c marks it GSP_API.
 */
#ifndef LIBGSP_INTERNAL_H
#define LIBGSP_INTERNAL_H

#include <stdbool.h>

#include <gsp.h>

#define GSP_API __attribute__((visibility("default")))

struct gspd_conn;

/* The daemon connection of @g, or NULL if @g talks to the kernel. */
struct gspd_conn *gspi_conn(struct gsp *g);

/* A request of uapi/gspace.h on @g's transport: >= 0, or -errno. */
int gspi_request(struct gsp *g, unsigned long request, void *arg);

/* Whether @g talks to gspaced. */
bool gspi_is_daemon(const struct gsp *g);

/*
 * The drm engine's binding of @g (gsp_drm.c), kept in @g so that
 * gsp_close() and gsp_reopen() end it through @release. gspi_drm_swap()
 * installs @drm (NULL: none) and returns the one before.
 */
struct gsp_drm;
struct gsp_drm *gspi_drm(struct gsp *g);
struct gsp_drm *gspi_drm_swap(struct gsp *g, struct gsp_drm *drm,
			      void (*release)(struct gsp_drm *drm));

#endif /* LIBGSP_INTERNAL_H */
