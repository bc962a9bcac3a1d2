/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libgsp: the client library of the gspace arbiter.
 *
 * A struct gsp is one tenant of the arbiter: an open file of /dev/gspace
 * (the kernel arbiter, gspace.ko) or a connection to gspaced (the
 * userspace arbiter). The requests and their semantics are those of
 * uapi/gspace.h; see Documentation/libgsp.rst.
 *
 * Every function returns 0 (or a non-negative result) on success and a
 * negative errno on failure; errno itself is left alone. Every function
 * may be called from several threads at once on the same struct gsp: a
 * WAIT blocks only its caller.
 */
#ifndef GSP_H
#define GSP_H

#include <stdint.h>

#include <gspace.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GSP_LIB_MAJOR	1
#define GSP_LIB_MINOR	2

/* Default paths; the environment overrides them (see gsp_open()). */
#define GSP_DEFAULT_DEV		"/dev/gspace"
#define GSP_DEFAULT_SOCKET	"/run/gspace/gspaced.sock"

enum gsp_arbiter {
	GSP_ARBITER_AUTO,	/* the device if it exists, else the daemon */
	GSP_ARBITER_KERNEL,	/* /dev/gspace only */
	GSP_ARBITER_DAEMON,	/* gspaced only */
};

/**
 * struct gsp_open_opts - where to find the arbiter
 * @size: sizeof(struct gsp_open_opts)
 * @arbiter: GSP_ARBITER_*
 * @dev_path: NULL for $GSPACE_DEV, else GSP_DEFAULT_DEV
 * @socket_path: NULL for $GSP_SOCKET, else GSP_DEFAULT_SOCKET
 */
struct gsp_open_opts {
	uint32_t size;
	uint32_t arbiter;
	const char *dev_path;
	const char *socket_path;
};

struct gsp;

/*
 * Opens a new tenant. With @opts NULL the arbiter comes from
 * $GSP_ARBITER (kernel, daemon or auto; auto if unset) and the paths from
 * $GSPACE_DEV and $GSP_SOCKET. -EINVAL: a bad option or environment value;
 * -ENOENT: no arbiter of the kind asked for; -EPROTO: the arbiter speaks
 * another major ABI version.
 */
int gsp_open(struct gsp **out, const struct gsp_open_opts *opts);

/* Ends the tenant: its queued and running jobs are cancelled. */
void gsp_close(struct gsp *g);

/*
 * (libgsp 1.1) Ends the tenant and starts a new one on the same arbiter
 * (the kind and path gsp_open() found), set up by the last CTX_SET that
 * worked: for a tenant the watchdog marked hung, or whose gspaced went
 * away and came back. Its jobs end as with gsp_close(). Pointers that
 * gsp_board() and gsp_board_rw() returned stay valid and show the new
 * tenant's board in place (the board is one page for every tenant); a
 * writable one the new tenant may not write is left as it was, and the
 * next gsp_board_rw() says so. gsp_board_lc_slot() gives the new slot.
 * Returns 1 if the board is now another page than before (a restarted
 * gspaced: device mappings of the old one must be made again), 0 if the
 * same, or -errno with the old tenant untouched (-ENOENT: no arbiter
 * yet; -EPERM: the class is refused now). No other call may be in
 * flight on @g meanwhile.
 */
int gsp_reopen(struct gsp *g);

/* "kernel" or "daemon". */
const char *gsp_arbiter_name(const struct gsp *g);

/* Parses "kernel", "daemon" or "auto"; -EINVAL for anything else. */
int gsp_arbiter_parse(const char *s, enum gsp_arbiter *out);

/* The uapi requests, one each. @arg->size must be set by the caller. */
int gsp_version(struct gsp *g, struct gspace_version *arg);
int gsp_ctx_set(struct gsp *g, struct gspace_ctx_set *arg);
int gsp_submit(struct gsp *g, struct gspace_submit *arg);
int gsp_wait(struct gsp *g, struct gspace_wait *arg);
int gsp_complete(struct gsp *g, struct gspace_complete *arg);
int gsp_cancel(struct gsp *g, struct gspace_cancel *arg);
int gsp_stats(struct gsp *g, struct gspace_stats *arg);

/*
 * Shorthand for CTX_SET on device 0: class GSPACE_CLASS_*, weight, and the
 * LC target (0 for BE).
 */
int gsp_set_class(struct gsp *g, uint32_t cls, uint32_t weight,
		  uint64_t lc_target_ns);

/* Parses "be" or "lc"; -EINVAL for anything else. */
int gsp_class_parse(const char *s, uint32_t *out);

/*
 * The arbiter's board (gsp_board.h): a shared page through which LC
 * tenants tell BE tenants, without a request, that LC work is on the GPU,
 * and the arbiter publishes the partition BE kernels give up. NULL if the
 * arbiter has none (gspace.ko before ABI 1.1: no GSPACE_FEAT_BOARD). With
 * gspace.ko it is an mmap of the tenant's file, and the slot is STATS'
 * lc_slot.
 *
 * gsp_board_lc_slot() is this tenant's LC slot, which only it writes,
 * through the pointer that gsp_board_rw() returns: a tenant that set the
 * LC class gets one; else -ENOENT. The arbiter clears a slot when its
 * tenant ends.
 */
struct gsp_board;
const struct gsp_board *gsp_board(struct gsp *g);
struct gsp_board *gsp_board_rw(struct gsp *g);
int gsp_board_lc_slot(struct gsp *g);

/*
 * (libgsp 1.2) The drm engine: DRM submissions through the arbiter
 * (Documentation/drm.rst). gspace.ko only: on gspaced every gsp_drm_*
 * call that takes a struct gsp fails with -EOPNOTSUPP once its arguments
 * pass, since the daemon cannot forward into a kernel driver.
 *
 * gsp_drm_adapter_of() is the GSPACE_DRM_ADAPTER_* for the driver of a
 * DRM fd (drmGetVersion()'s name): -EBADF, not an open fd; -ENOTTY, not
 * a DRM device; -ENXIO, a driver gspace has no adapter for.
 *
 * gsp_drm_bind() binds @drm_fd, a render node, and the driver's
 * @channel to the tenant (DRM_BIND). @adapter GSP_DRM_ADAPTER_AUTO picks
 * it with gsp_drm_adapter_of(). The library keeps a duplicate of
 * @drm_fd for the syncobj calls below, so the caller may close its own.
 * gsp_drm_unbind() ends the binding; gsp_close() and gsp_reopen() do too.
 * Neither may run while another gsp_drm_* call is in flight on @g.
 *
 * gsp_drm_submit() queues the driver payload @arg->payload_ptr
 * (DRM_SUBMIT): -ENOLINK without a binding, -EINVAL for a payload size of
 * 0, -E2BIG past GSPACE_DRM_PAYLOAD_MAX, then the uapi's errors.
 *
 * The syncobj calls act on the bound DRM file, whose syncobjs a payload
 * names as its out-fence. After the forward the syncobj holds the
 * driver's fence, before it whatever it held: reset it (or use a new
 * one) before the submission that gsp_drm_syncobj_wait() is to wait for.
 * That wait returns once the syncobj holds a fence and the fence has
 * signalled, or -ETIME at @deadline_ns (gsp_now_ns()'s clock).
 * gsp_drm_syncobj_export() gives a sync_file of the fence it holds now
 * (-EINVAL if none).
 */
#define GSP_DRM_ADAPTER_AUTO	0

int gsp_drm_adapter_of(int drm_fd, uint32_t *adapter);
int gsp_drm_bind(struct gsp *g, int drm_fd, uint32_t adapter,
		 uint32_t channel);
int gsp_drm_unbind(struct gsp *g);
int gsp_drm_submit(struct gsp *g, struct gspace_drm_submit *arg);
int gsp_drm_syncobj_create(struct gsp *g, uint32_t *handle);
int gsp_drm_syncobj_destroy(struct gsp *g, uint32_t handle);
int gsp_drm_syncobj_reset(struct gsp *g, uint32_t handle);
int gsp_drm_syncobj_wait(struct gsp *g, uint32_t handle,
			 uint64_t deadline_ns);
int gsp_drm_syncobj_export(struct gsp *g, uint32_t handle,
			   int *sync_file_fd);

/* CLOCK_MONOTONIC now, in ns: the arbiter's clock for deadlines. */
uint64_t gsp_now_ns(void);

#ifdef __cplusplus
}
#endif

#endif /* GSP_H */
