/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libgsp internals shared with the tools built from the same objects
 * (gspctl). Never exported from libgsp.so: the build gives every symbol
 * hidden visibility unless gsp.c marks it GSP_API.
 */
#ifndef LIBGSP_INTERNAL_H
#define LIBGSP_INTERNAL_H

#include <gsp.h>

#define GSP_API __attribute__((visibility("default")))

struct gspd_conn;

/* The daemon connection of @g, or NULL if @g talks to the kernel. */
struct gspd_conn *gspi_conn(struct gsp *g);

#endif /* LIBGSP_INTERNAL_H */
