// SPDX-License-Identifier: GPL-2.0
/*
 * gspaced connections: one per tenant. Identity from SO_PEERCRED and
 * SO_PEERGROUPS (the credentials of connect() time), the wire protocol of
 * gspd_proto.h, and teardown when the peer goes.
 *
 * A client that breaks the protocol (bad magic, version or length, a
 * truncated packet, a descriptor where none belongs) is logged and
 * dropped. So is one that stops reading: replies are sent without
 * blocking, and a full socket buffer ends the tenant, which then loses
 * its jobs exactly as if it had closed the socket.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "gspaced.h"

/* Biggest request: a header, an ioctl request and an argument, or text. */
#define GD_REQ_MAX	(sizeof(struct gspd_msg) + 4096)

static bool idlist_has(const struct gd_idlist *l, uint32_t id)
{
	uint32_t i;

	for (i = 0; i < l->n; i++)
		if (l->id[i] == id)
			return true;
	return false;
}

/*
 * The peer's supplementary groups as the kernel captured them at
 * connect(), with its SO_PEERCRED: SO_PEERGROUPS. The count, with *@out
 * (free it) holding them; -1 if the kernel cannot say (then only the
 * primary gid counts, which never grants more than the peer had).
 */
static int peer_groups(int fd, gid_t **out)
{
	socklen_t len = 64 * sizeof(gid_t);
	gid_t *g = NULL;

	for (;;) {
		gid_t *n = realloc(g, len ? len : sizeof(gid_t));

		if (!n)
			break;
		g = n;
		if (!getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len)) {
			*out = g;
			return (int)(len / sizeof(gid_t));
		}
		/* ERANGE: len now says how much the list needs. */
		if (errno != ERANGE)
			break;
	}
	gd_log(GD_LOG_ERR, "SO_PEERGROUPS: %s; only the primary gid counts\n",
	       strerror(errno));
	free(g);
	*out = NULL;
	return -1;
}

/* Does the peer's uid, gid or a supplementary group match the lists? */
static bool peer_matches(uid_t uid, gid_t gid, const struct gd_idlist *groups,
			 const struct gd_idlist *uids, const gid_t *supp,
			 int nsupp)
{
	int i;

	if (idlist_has(uids, uid) || idlist_has(groups, gid))
		return true;
	for (i = 0; i < nsupp; i++)
		if (idlist_has(groups, supp[i]))
			return true;
	return false;
}

/*
 * At the fd limit. accept4() failing leaves the client in the listen
 * queue, so the level-triggered listening socket would wake the loop at
 * once, forever. The reserve descriptor makes room to accept the client
 * and close it, so it sees EOF rather than hang; where that cannot be
 * done, the listener leaves epoll for GD_LISTEN_PAUSE_NS. One log line a
 * second at most says how many were refused.
 */
#define GD_LISTEN_PAUSE_NS	100000000ULL
#define GD_REFUSED_LOG_NS	1000000000ULL

static void accept_refuse(int err)
{
	uint64_t now = gd_now();
	int fd = -1;

	if (gd_state.reserve_fd >= 0 && (err == EMFILE || err == ENFILE)) {
		close(gd_state.reserve_fd);
		fd = accept4(gd_state.listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			close(fd);
		gd_state.reserve_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	if (fd >= 0) {
		gd_state.nr_refused++;
	} else if (!gd_state.listen_resume_ns) {
		gd_epoll_del(gd_state.listen_fd);
		gd_state.listen_resume_ns = now + GD_LISTEN_PAUSE_NS;
	}
	if (now - gd_state.refused_log_ns >= GD_REFUSED_LOG_NS) {
		gd_log(GD_LOG_ERR, "accept: %s: %llu connections refused since the last such line; raise the fd limit (LimitNOFILE) or lower the tenants' limits\n",
		       strerror(err), (unsigned long long)gd_state.nr_refused);
		gd_state.refused_log_ns = now;
		gd_state.nr_refused = 0;
	}
}

/* The tenants of @uid: its entry's link, NULL at the end if it has none. */
static struct gd_uid **uid_slot(uid_t uid)
{
	struct gd_uid **pp = &gd_state.uids[uid % GD_UID_BUCKETS];

	while (*pp && (*pp)->uid != uid)
		pp = &(*pp)->next;
	return pp;
}

static uint32_t uid_tenants(uid_t uid)
{
	struct gd_uid *u = *uid_slot(uid);

	return u ? u->n : 0;
}

/* One more tenant of @uid: 0 or -ENOMEM. */
static int uid_charge(uid_t uid)
{
	struct gd_uid **pp = uid_slot(uid);

	if (!*pp) {
		*pp = calloc(1, sizeof(**pp));
		if (!*pp)
			return -ENOMEM;
		(*pp)->uid = uid;
	}
	(*pp)->n++;
	return 0;
}

/* A tenant of @uid is gone; the entry goes with the last. */
static void uid_uncharge(uid_t uid)
{
	struct gd_uid **pp = uid_slot(uid), *u = *pp;

	if (!u) {
		gd_log(GD_LOG_ERR, "uid %u: no tenant counted\n",
		       (unsigned int)uid);
		return;
	}
	if (--u->n)
		return;
	*pp = u->next;
	free(u);
}

/*
 * A connection that may not become a tenant: one message, seq 0 (no
 * request has it) and status -@err, then the close (gspd_proto.h). The
 * client library answers its requests with @err. One log line a second
 * at most, as at the fd limit.
 */
static void refuse(int fd, uid_t uid, int err)
{
	struct gspd_msg h = {
		.magic = GSPD_MAGIC, .version = GSPD_VERSION,
		.status = -err,
	};
	uint64_t now = gd_now();

	send(fd, &h, sizeof(h), MSG_DONTWAIT | MSG_NOSIGNAL);
	close(fd);
	gd_state.nr_uid_refused++;
	if (now - gd_state.uid_refused_log_ns >= GD_REFUSED_LOG_NS) {
		gd_log(GD_LOG_INFO, "uid %u: %s: %llu connections refused since the last such line (uid_max_tenants %u)\n",
		       (unsigned int)uid, strerror(err),
		       (unsigned long long)gd_state.nr_uid_refused,
		       gd_state.cfg.max_uid_tenants);
		gd_state.uid_refused_log_ns = now;
		gd_state.nr_uid_refused = 0;
	}
}

uint64_t gd_client_listen_resume(uint64_t now)
{
	if (!gd_state.listen_resume_ns)
		return 0;
	if (now < gd_state.listen_resume_ns)
		return gd_state.listen_resume_ns;
	gd_state.listen_resume_ns = 0;
	if (gd_epoll_add(gd_state.listen_fd, GD_TAG_LISTEN, NULL))
		gd_state.listen_resume_ns = now + GD_LISTEN_PAUSE_NS;
	return gd_state.listen_resume_ns;
}

void gd_client_accept(void)
{
	struct gd_tenant *t;
	struct ucred cr;
	socklen_t len = sizeof(cr);
	gid_t *supp;
	bool admin;
	int fd, nsupp;

	fd = accept4(gd_state.listen_fd, NULL, NULL,
		     SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0) {
		if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
		    errno == ENOMEM)
			accept_refuse(errno);
		else if (errno != EAGAIN && errno != EINTR &&
			 errno != ECONNABORTED)
			gd_log(GD_LOG_ERR, "accept: %s\n", strerror(errno));
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len)) {
		gd_log(GD_LOG_ERR, "SO_PEERCRED: %s\n", strerror(errno));
		close(fd);
		return;
	}
	/*
	 * Rights come from the connection alone, never from the process
	 * that @cr.pid names now (it may have exited, its pid reused): the
	 * credentials the kernel took at connect(), kept for life.
	 */
	nsupp = peer_groups(fd, &supp);
	admin = cr.uid == 0 || cr.uid == gd_state.self_uid ||
		peer_matches(cr.uid, cr.gid, &gd_state.cfg.admin_groups,
			     &gd_state.cfg.admin_uids, supp, nsupp);
	/* uid_max_tenants: admins, as root in the module, are exempt. */
	if (!admin && uid_tenants(cr.uid) >= gd_state.cfg.max_uid_tenants) {
		free(supp);
		refuse(fd, cr.uid, EUSERS);
		return;
	}
	t = calloc(1, sizeof(*t));
	if (!t) {
		free(supp);
		close(fd);
		return;
	}
	t->fd = fd;
	t->id = ++gd_state.next_tenant_id ? gd_state.next_tenant_id :
					    ++gd_state.next_tenant_id;
	t->pid = cr.pid;
	t->uid = cr.uid;
	t->gid = cr.gid;
	t->lc_allowed = cr.uid == 0 ||
			peer_matches(cr.uid, cr.gid, &gd_state.cfg.lc_groups,
				     &gd_state.cfg.lc_uids, supp, nsupp);
	t->admin = admin;
	free(supp);
	t->class = GSPACE_CLASS_BE;
	t->weight = GSPACE_WEIGHT_DEFAULT;
	t->next_handle = 1;
	t->lc_slot = -1;
	gd_tenant_init_sched(t);
	if (uid_charge(t->uid)) {
		gd_tenant_cancel_all(t);
		free(t);
		refuse(fd, cr.uid, ENOMEM);
		return;
	}
	if (gd_epoll_add(fd, GD_TAG_CLIENT, t)) {
		uid_uncharge(t->uid);
		gd_tenant_cancel_all(t);
		close(fd);
		free(t);
		return;
	}
	t->next = gd_state.tenants;
	if (t->next)
		t->next->prev = t;
	gd_state.tenants = t;
	gd_state.nr_tenants++;
	gd_log(GD_LOG_DEBUG, "tenant %u: pid %d uid %u%s\n", t->id, (int)t->pid,
	       (unsigned int)t->uid, t->lc_allowed ? " (LC allowed)" : "");
}

/* Marks @t for teardown at the end of this loop iteration. */
static void drop(struct gd_tenant *t, const char *why)
{
	if (t->dead)
		return;
	if (why)
		gd_log(GD_LOG_INFO, "tenant %u (pid %d): dropped: %s\n", t->id,
		       (int)t->pid, why);
	t->dead = true;
}

void gd_reply(struct gd_tenant *t, uint32_t seq, uint16_t op, int status,
	      const void *payload, size_t len, int fd)
{
	union gspd_fd_cmsg cbuf;
	struct gspd_msg h = {
		.magic = GSPD_MAGIC, .version = GSPD_VERSION, .op = op,
		.seq = seq, .len = (uint32_t)len, .status = status,
	};
	struct iovec iov[2] = { { &h, sizeof(h) }, { (void *)payload, len } };
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 2 };
	ssize_t n;

	if (t->dead)
		return;
	gspd_msg_attach_fd(&m, &cbuf, fd);
	do {
		n = sendmsg(t->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0)
		drop(t, errno == EAGAIN ? "does not read its replies" :
		     strerror(errno));
}

size_t gd_tenants_text(char *out, size_t cap)
{
	static const char head[] = "uid pid dev class weight queued running completed failed qos_violations gpu_ns_compute gpu_ns_h2d gpu_ns_d2h credit_ns_compute hung renewals\n";
	/* Room kept for the line that says how many were left out. */
	const size_t note = 96;
	uint32_t left = 0;
	struct gd_tenant *t;
	size_t off;

	if (cap < sizeof(head) + note)
		return 0;
	off = snprintf(out, cap, "%s", head);
	for (t = gd_state.tenants; t; t = t->next) {
		int n;

		if (t->dead)
			continue;
		if (left) {
			left++;
			continue;
		}
		n = snprintf(out + off, cap - note - off,
			     "%u %d %u %s %u %llu %llu %llu %llu %llu %llu %llu %llu %lld %d %llu\n",
			     (unsigned int)t->uid, (int)t->pid, t->dev->index,
			     t->class == GSPACE_CLASS_LC ? "lc" : "be",
			     t->weight,
			     (unsigned long long)t->acct.nr_queued,
			     (unsigned long long)t->acct.nr_running,
			     (unsigned long long)t->acct.nr_completed,
			     (unsigned long long)t->acct.nr_failed,
			     (unsigned long long)t->acct.nr_qos_violations,
			     (unsigned long long)t->acct.gpu_ns[GSP_ENGINE_COMPUTE],
			     (unsigned long long)t->acct.gpu_ns[GSP_ENGINE_H2D],
			     (unsigned long long)t->acct.gpu_ns[GSP_ENGINE_D2H],
			     (long long)gsp_entity_credit_ns(&t->ent,
							     GSP_ENGINE_COMPUTE),
			     t->hung, (unsigned long long)t->acct.nr_renewals);
		/* What does not fit is left out, whole lines only. */
		if (n < 0 || (size_t)n >= cap - note - off) {
			out[off] = 0;
			left = 1;
			continue;
		}
		off += n;
	}
	/* Said, not silent: a reply holds GSPD_PAYLOAD_MAX bytes at most. */
	if (left)
		off += snprintf(out + off, cap - off,
				"# %u more tenants left out: the table is cut at %zu bytes\n",
				left, cap);
	return off;
}

/* A NUL-terminated text payload: the text, or NULL. */
static const char *payload_text(const char *p, size_t len)
{
	if (!len || p[len - 1] || strlen(p) != len - 1)
		return NULL;
	return p;
}

static void handle_ctl(struct gd_tenant *t, const struct gspd_msg *h,
		       const char *p)
{
	char buf[512];
	const char *text = payload_text(p, h->len);
	char *eq;
	int ret;

	if (!text) {
		gd_reply(t, h->seq, h->op, -EINVAL, NULL, 0, -1);
		return;
	}
	if (h->op == GSPD_OP_CTL_GET) {
		ret = gd_knob_get(text, buf, sizeof(buf));
		gd_reply(t, h->seq, h->op, ret, ret ? NULL : buf,
			 ret ? 0 : strlen(buf) + 1, -1);
		return;
	}
	if (!t->admin) {
		gd_reply(t, h->seq, h->op, -EPERM, NULL, 0, -1);
		return;
	}
	if (strlen(text) >= sizeof(buf) || !strchr(text, '=')) {
		gd_reply(t, h->seq, h->op, -EINVAL, NULL, 0, -1);
		return;
	}
	strcpy(buf, text);
	eq = strchr(buf, '=');
	*eq = 0;
	ret = gd_knob_set(buf, eq + 1);
	if (!ret)
		gd_log(GD_LOG_INFO, "uid %u set %s=%.*s\n", (unsigned int)t->uid,
		       buf, (int)strcspn(eq + 1, "\n"), eq + 1);
	gd_reply(t, h->seq, h->op, ret, NULL, 0, -1);
}

static void handle_msg(struct gd_tenant *t, const struct gspd_msg *h,
		       const unsigned char *p, int fd)
{
	switch (h->op) {
	case GSPD_OP_IOCTL: {
		struct gspd_ioctl io;
		uint32_t size;
		size_t arglen, want;
		int ret;

		if (h->len < sizeof(io) + sizeof(uint32_t)) {
			drop(t, "short ioctl request");
			break;
		}
		memcpy(&io, p, sizeof(io));
		arglen = h->len - sizeof(io);
		memcpy(&size, p + sizeof(io), sizeof(size));
		want = gspd_arg_len(size);
		if (arglen != want) {
			drop(t, "ioctl argument length does not match its size");
			break;
		}
		if (fd >= 0 && io.request != GSPACE_IOCTL_SUBMIT) {
			drop(t, "descriptor passed with a request that takes none");
			break;
		}
		ret = gd_ioctl(t, h->seq, io.request, p + sizeof(io), arglen,
			       fd);
		fd = -1;
		if (ret)
			gd_reply(t, h->seq, h->op, ret, NULL, 0, -1);
		break;
	}
	case GSPD_OP_BOARD: {
		struct gspd_board_reply r;
		int bfd;

		if (h->len) {
			drop(t, "BOARD with a payload");
			break;
		}
		bfd = gd_board_fd_for(t, &r);
		if (bfd < 0) {
			gd_reply(t, h->seq, h->op, bfd, NULL, 0, -1);
			break;
		}
		gd_reply(t, h->seq, h->op, 0, &r, sizeof(r), bfd);
		close(bfd);
		break;
	}
	case GSPD_OP_CTL_GET:
	case GSPD_OP_CTL_SET:
		handle_ctl(t, h, (const char *)p);
		break;
	case GSPD_OP_ADMIT:
		gd_admit_handle(t, h, p, fd);
		fd = -1;
		break;
	case GSPD_OP_CTL_TENANTS: {
		char *buf;
		size_t n;

		if (h->len) {
			drop(t, "CTL_TENANTS with a payload");
			break;
		}
		buf = malloc(GSPD_PAYLOAD_MAX);
		if (!buf) {
			gd_reply(t, h->seq, h->op, -ENOMEM, NULL, 0, -1);
			break;
		}
		n = gd_tenants_text(buf, GSPD_PAYLOAD_MAX);
		gd_reply(t, h->seq, h->op, 0, buf, n + 1, -1);
		free(buf);
		break;
	}
	default:
		gd_reply(t, h->seq, h->op, -EOPNOTSUPP, NULL, 0, -1);
		break;
	}
	if (fd >= 0) {
		if (!t->dead)
			drop(t, "descriptor passed with a request that takes none");
		close(fd);
	}
}

/* Reads and handles every request waiting on @t's socket. */
void gd_client_readable(struct gd_tenant *t)
{
	/* One request at a time; a single-threaded loop can share it. */
	static unsigned char buf[GD_REQ_MAX + 1]
		__attribute__((aligned(8)));
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(sizeof(int) * 8)];
	} cbuf;

	while (!t->dead) {
		struct iovec iov = { buf, GD_REQ_MAX };
		struct msghdr m = {
			.msg_iov = &iov, .msg_iovlen = 1,
			.msg_control = cbuf.b, .msg_controllen = sizeof(cbuf.b),
		};
		struct gspd_msg h;
		struct cmsghdr *cm;
		int fd = -1, nfds = 0;
		ssize_t n;

		n = recvmsg(t->fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				drop(t, strerror(errno));
			return;
		}
		/*
		 * Descriptors first: a zero-length packet can carry some, and
		 * every path below must close what it does not keep.
		 */
		for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
			size_t i, k;

			if (cm->cmsg_level != SOL_SOCKET ||
			    cm->cmsg_type != SCM_RIGHTS)
				continue;
			k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (i = 0; i < k; i++) {
				int x;

				memcpy(&x, CMSG_DATA(cm) + i * sizeof(int),
				       sizeof(x));
				if (!nfds++)
					fd = x;
				else
					close(x);
			}
		}
		if (n == 0) {
			if (fd >= 0)
				close(fd);
			/* closed (the normal end), or an empty packet */
			drop(t, nfds ? "empty packet with a descriptor" : NULL);
			return;
		}
		if (nfds > 1) {
			close(fd);
			drop(t, "more than one descriptor in a request");
			return;
		}
		if ((m.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
		    (size_t)n < sizeof(h)) {
			if (fd >= 0)
				close(fd);
			drop(t, (size_t)n < sizeof(h) ? "short packet" :
			     "oversized packet");
			return;
		}
		memcpy(&h, buf, sizeof(h));
		if (!gspd_msg_valid(&h, (size_t)n) || h.status || h.pad) {
			if (fd >= 0)
				close(fd);
			drop(t, h.magic != GSPD_MAGIC ? "bad magic" :
			     h.version != GSPD_VERSION ? "protocol version" :
			     "bad header");
			return;
		}
		/* The text ops need their NUL inside the buffer. */
		buf[n] = 0;
		handle_msg(t, &h, buf + sizeof(h), fd);
		gd_run_timers(gd_now());
	}
}

/* gsp_release(): the tenant is gone; nothing of it may stall anyone. */
void gd_tenant_teardown(struct gd_tenant *t)
{
	gd_tenant_cancel_all(t);
	t->class = GSPACE_CLASS_BE;
	gd_board_update_slot(t);
	gd_epoll_del(t->fd);
	close(t->fd);
	if (t->prev)
		t->prev->next = t->next;
	else
		gd_state.tenants = t->next;
	if (t->next)
		t->next->prev = t->prev;
	gd_state.nr_tenants--;
	uid_uncharge(t->uid);
	gd_log(GD_LOG_DEBUG, "tenant %u: gone\n", t->id);
	free(t);
}

/* Tears down every dropped tenant; repeats, as teardown may drop more. */
void gd_client_reap_dead(void)
{
	bool again = true;

	while (again) {
		struct gd_tenant *t, *n;

		again = false;
		for (t = gd_state.tenants; t; t = n) {
			n = t->next;
			if (t->dead) {
				gd_tenant_teardown(t);
				again = true;
				break;
			}
		}
	}
}
