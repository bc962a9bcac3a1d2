/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The wire protocol between gspaced and its clients (libgsp and the
 * selftests' daemon transport). Internal: both ends are built from this
 * tree, but a client built from an older tree must get a clean error, so
 * every message carries a magic and a version.
 *
 * Transport: a UNIX SOCK_SEQPACKET socket, one message per packet. The
 * connection is the tenant: closing it ends the tenant exactly as closing
 * a /dev/gspace file does. The tenant's identity is the peer's
 * credentials at connect time (SO_PEERCRED, SO_PEERGROUPS).
 *
 * A request is a struct gspd_msg followed by @len payload bytes. A reply
 * carries the request's @seq, @op and a @status (0 or a non-negative
 * result, or a negative errno). Requests may be pipelined: the daemon
 * answers each exactly once, and a WAIT that has to wait is answered
 * later, so replies can come out of order; clients match them by @seq.
 *
 * Ops:
 * - GSPD_OP_IOCTL: payload is a struct gspd_ioctl, then the uapi argument
 *   structure (its own @size bytes, at most GSPD_ARG_MAX). The reply's
 *   payload is the argument as the arbiter wrote it back (the same number
 *   of bytes). The daemon validates it exactly as gspace.ko does
 *   (uapi/gspace.h), including @size, flags and padding.
 *   Fences are eventfds, not sync_files: SUBMIT with FENCE_IN carries the
 *   in-fence eventfd as SCM_RIGHTS (its in_fence_fd field is then ignored
 *   and must be >= 0); a FENCE_OUT reply carries a new eventfd, which the
 *   client library installs and writes into out_fence_fd. An eventfd fence
 *   is signalled when it is readable (count > 0): poll it, never read it.
 *   The daemon writes 1 when the job succeeds and 1 + (-error) when it
 *   fails, so the count, read without consuming it from the
 *   "eventfd-count:" line of /proc/self/fdinfo/<fd> (gspd_fence_status()),
 *   tells success from ECANCELED. An in-fence counts as failed if its
 *   count is above 1, with error -(count - 1) (if that is a valid errno,
 *   else -EIO).
 * - GSPD_OP_BOARD: no payload; the reply carries the board memfd
 *   (SCM_RIGHTS; read-only unless the tenant holds an LC slot) and a
 *   struct gspd_board_reply.
 * - GSPD_OP_CTL_GET / GSPD_OP_CTL_SET: the payload is NUL-terminated text
 *   "name" or "name=value", knob names as in sysfs
 *   (Documentation/ABI/testing/sysfs-class-misc-gspace). The GET reply's
 *   payload is the value as text, NUL-terminated. SET needs an admin peer
 *   (uid 0, the daemon's uid, or one named by admin_uids/admin_groups in
 *   the config file): else -EPERM.
 * - GSPD_OP_CTL_TENANTS: no payload; the reply payload is the same text as
 *   debugfs gspace/tenants (a header line, then one line per tenant), plus
 *   a leading "uid" column, NUL-terminated. Readable by anyone.
 *
 * A connection the daemon will not take as a tenant (its uid holds
 * uid_max_tenants already) gets one message before the daemon closes it:
 * @seq 0, which no request carries, @op 0, no payload, and @status the
 * -errno (-EUSERS). The client library fails that connection's requests
 * with it, whether they were sent before or after the close.
 */
#ifndef GSPD_PROTO_H
#define GSPD_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define GSPD_MAGIC	0x64707367u	/* "gspd" */
#define GSPD_VERSION	1

/* Biggest uapi argument structure, with room to grow. */
#define GSPD_ARG_MAX	256
/* Biggest payload of any message (CTL_TENANTS text included). */
#define GSPD_PAYLOAD_MAX	65536

enum gspd_op {
	GSPD_OP_IOCTL = 1,
	GSPD_OP_BOARD,
	GSPD_OP_CTL_GET,
	GSPD_OP_CTL_SET,
	GSPD_OP_CTL_TENANTS,
	GSPD_OP_ADMIT,		/* struct gspd_admit + a sealed memfd */
};

struct gspd_msg {
	uint32_t magic;		/* GSPD_MAGIC */
	uint16_t version;	/* GSPD_VERSION */
	uint16_t op;		/* enum gspd_op */
	uint32_t seq;		/* chosen by the client, echoed in the reply */
	uint32_t len;		/* payload bytes that follow */
	int32_t status;		/* reply: result or -errno; request: 0 */
	uint32_t pad;		/* 0 */
};

struct gspd_ioctl {
	uint64_t request;	/* GSPACE_IOCTL_* */
};

/*
 * ADMIT: would a BE with this solo trace (the memfd, sealed against
 * writes, growth and shrinking) keep the LC within its target beside the
 * BE tenants already on @device? The reply is text: "k=K admitted=0|1
 * lc_solo_us=S lc_mean_us=M target_us=T"; on an error, why, as text.
 */
struct gspd_admit {
	uint32_t device;
	uint32_t pad;		/* 0 */
};

/* The largest trace ADMIT reads. */
#define GSPD_ADMIT_TRACE_MAX	(4u << 20)

struct gspd_board_reply {
	uint32_t size;		/* bytes to map: GSP_BOARD_SIZE */
	int32_t lc_slot;	/* this tenant's LC slot, or -1 */
	uint32_t device;	/* this tenant's device */
	uint32_t pad;
};

/*
 * Both ends, in libgsp/proto/gspd_proto.c: linked into gspaced and into
 * every client.
 */

/* The bytes of a uapi argument of @size that travel: 4..GSPD_ARG_MAX. */
size_t gspd_arg_len(uint32_t size);
/*
 * Whether @h, the first of @n bytes received (at least sizeof(*h)), has
 * our magic and version and announces the payload bytes that came with it.
 */
bool gspd_msg_valid(const struct gspd_msg *h, size_t n);

/* Room for the control message of one descriptor. */
union gspd_fd_cmsg {
	struct cmsghdr align;
	char buf[CMSG_SPACE(sizeof(int))];
};
/* Attaches @fd to @m as SCM_RIGHTS, in @cbuf; nothing if @fd is < 0. */
void gspd_msg_attach_fd(struct msghdr *m, union gspd_fd_cmsg *cbuf, int fd);

/*
 * Whether an eventfd fence has signalled, and with which error (0 or
 * -errno), from /proc/self/fdinfo. 0, or -errno if @fence_fd is not an
 * eventfd.
 */
int gspd_fence_status(int fence_fd, int *signalled, int *error);

/*
 * Client side, in libgsp/proto/gspd_client.c: shared by libgsp.so, gspctl
 * and the selftests' daemon transport.
 */
struct gspd_conn;

/* Connects to @path. 0 or -errno (-ENOENT/-ECONNREFUSED: no daemon). */
int gspd_connect(const char *path, struct gspd_conn **out);
void gspd_disconnect(struct gspd_conn *c);
/* The socket, for messages and poll(); the tenant lives as long as it. */
int gspd_conn_fd(const struct gspd_conn *c);

/*
 * One uapi request, as ioctl(2) would do it on /dev/gspace: @arg is the
 * uapi structure, updated in place. Returns 0 or -errno. Thread-safe:
 * requests from several threads are pipelined, and a WAIT blocks only its
 * caller. FENCE_IN/FENCE_OUT are translated as described above.
 */
int gspd_ioctl(struct gspd_conn *c, unsigned long request, void *arg);

/* The board: maps it and returns its address, slot and writability. */
int gspd_board(struct gspd_conn *c, void **board, int *lc_slot,
	       int *writable);
/*
 * The board's memfd (read-write with an LC slot), for the caller to map
 * and close, with the slot and writability.
 */
int gspd_board_fd(struct gspd_conn *c, int *fd, int *lc_slot, int *writable);

/* Knobs and the tenant table, for gspctl. @out is NUL-terminated. */
int gspd_ctl_get(struct gspd_conn *c, const char *name, char *out,
		 size_t outsz);
int gspd_ctl_set(struct gspd_conn *c, const char *name, const char *value);
int gspd_ctl_tenants(struct gspd_conn *c, char *out, size_t outsz);
/*
 * ADMIT (above) for the BE trace in @memfd: the reply's text in @out, on
 * success and, where gspaced said why, on failure. 0 or -errno.
 */
int gspd_admit(struct gspd_conn *c, uint32_t device, int memfd, char *out,
	       size_t outsz);

#endif /* GSPD_PROTO_H */
