// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The client side of the gspaced wire protocol (gspd_proto.h).
 *
 * Threads: one mutex guards the connection. A request is sent under it;
 * its caller then waits for the reply with the same seq. Whichever waiting
 * thread finds no other thread reading becomes the reader: it receives
 * with the mutex dropped, files each reply with the request it answers and
 * wakes everyone. So a WAIT that the daemon answers late blocks only its
 * caller, and replies may come in any order.
 *
 * The uapi argument is read and written with process_vm_readv/writev on
 * ourselves, so a bad pointer gives EFAULT as the ioctl would, not SIGSEGV.
 * Only libc and pthread: the selftests link this statically.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/ioctl.h>

#include "gspace.h"
#include "gspd_proto.h"

/* A request waiting for its reply. */
struct gspd_pending {
	uint32_t seq;
	bool done;
	int status;
	void *buf;		/* reply payload goes here */
	size_t cap;
	size_t len;		/* payload bytes received */
	int fd;			/* descriptor that came with the reply, or -1 */
	struct gspd_pending *next;
};

struct gspd_conn {
	int fd;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	uint32_t next_seq;
	bool reading;		/* a thread is in recvmsg() */
	int dead;		/* 0, or the -errno that ended the connection */
	struct gspd_pending *pending;
	unsigned char *rbuf;	/* the reader's buffer */
};

#define GSPD_RBUF_SIZE	(sizeof(struct gspd_msg) + GSPD_PAYLOAD_MAX)

int gspd_connect(const char *path, struct gspd_conn **out)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct gspd_conn *c;
	int fd, e;

	if (!path || !*path || strlen(path) >= sizeof(sa.sun_path))
		return -EINVAL;
	strcpy(sa.sun_path, path);
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->rbuf = malloc(GSPD_RBUF_SIZE);
	if (!c->rbuf) {
		free(c);
		return -ENOMEM;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		e = -errno;
		goto err_free;
	}
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		e = -errno;
		close(fd);
		goto err_free;
	}
	c->fd = fd;
	c->next_seq = 1;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	*out = c;
	return 0;

err_free:
	free(c->rbuf);
	free(c);
	return e;
}

void gspd_disconnect(struct gspd_conn *c)
{
	if (!c)
		return;
	close(c->fd);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->lock);
	free(c->rbuf);
	free(c);
}

int gspd_conn_fd(const struct gspd_conn *c)
{
	return c->fd;
}

/* Closes every descriptor carried by @m's control messages. */
static void close_cmsg_fds(struct msghdr *m)
{
	struct cmsghdr *cm;

	for (cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm)) {
		size_t i, n;
		int fd;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < n; i++) {
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(fd));
			close(fd);
		}
	}
}

/* Ends every pending request with @err; called with the lock held. */
static void conn_fail_locked(struct gspd_conn *c, int err)
{
	struct gspd_pending *p;

	if (!c->dead)
		c->dead = err;
	for (p = c->pending; p; p = p->next) {
		if (!p->done) {
			p->done = true;
			p->status = c->dead;
		}
	}
}

/*
 * The daemon closed the connection (@err: EPIPE, ECONNRESET or EOF). If
 * it refused it, its message is queued for us, behind the ECONNRESET the
 * kernel reports first when our request was still unread: its errno,
 * else @err.
 */
static int conn_refused(struct gspd_conn *c, int err)
{
	struct gspd_msg hdr;
	ssize_t n;

	n = recv(c->fd, &hdr, sizeof(hdr), MSG_DONTWAIT);
	if (n == (ssize_t)sizeof(hdr) && gspd_msg_valid(&hdr, (size_t)n) &&
	    !hdr.seq && hdr.status < 0)
		return hdr.status;
	return err;
}

/*
 * Receives one reply and files it; the lock is held on entry and exit,
 * dropped around recvmsg().
 */
static void conn_read_one(struct gspd_conn *c)
{
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * 4)];
	} cbuf;
	struct iovec iov = { c->rbuf, GSPD_RBUF_SIZE };
	struct msghdr m = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf.buf, .msg_controllen = sizeof(cbuf.buf),
	};
	struct gspd_msg hdr;
	struct gspd_pending *p;
	struct cmsghdr *cm;
	ssize_t n;
	int fd = -1;

	c->reading = true;
	pthread_mutex_unlock(&c->lock);
	do {
		n = recvmsg(c->fd, &m, MSG_CMSG_CLOEXEC);
	} while (n < 0 && errno == EINTR);
	pthread_mutex_lock(&c->lock);
	c->reading = false;

	if (n <= 0) {
		int e = n ? -errno : -ECONNRESET;

		if (e == -ECONNRESET)
			e = conn_refused(c, e);
		conn_fail_locked(c, e);
		return;
	}
	if ((size_t)n < sizeof(hdr) || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		close_cmsg_fds(&m);
		conn_fail_locked(c, -EPROTO);
		return;
	}
	memcpy(&hdr, c->rbuf, sizeof(hdr));
	if (!gspd_msg_valid(&hdr, (size_t)n)) {
		close_cmsg_fds(&m);
		conn_fail_locked(c, -EPROTO);
		return;
	}
	/* The daemon refused the connection (gspd_proto.h): its errno. */
	if (!hdr.seq) {
		close_cmsg_fds(&m);
		conn_fail_locked(c, hdr.status < 0 ? hdr.status : -EPROTO);
		return;
	}
	for (cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm))
		if (cm->cmsg_level == SOL_SOCKET &&
		    cm->cmsg_type == SCM_RIGHTS &&
		    cm->cmsg_len == CMSG_LEN(sizeof(int)) && fd < 0)
			memcpy(&fd, CMSG_DATA(cm), sizeof(fd));
	for (p = c->pending; p; p = p->next)
		if (p->seq == hdr.seq && !p->done)
			break;
	if (!p) {
		/* A reply to nothing we asked: the daemon is confused. */
		close_cmsg_fds(&m);
		conn_fail_locked(c, -EPROTO);
		return;
	}
	p->done = true;
	p->status = hdr.status;
	p->len = hdr.len < p->cap ? hdr.len : p->cap;
	if (p->len)
		memcpy(p->buf, c->rbuf + sizeof(hdr), p->len);
	p->fd = fd;
}

/*
 * One request and its reply. @send_fd (or -1) travels as SCM_RIGHTS; the
 * reply's payload lands in @rbuf (@rcap bytes at most), its length in
 * *@rlen and its descriptor, if any, in *@rfd (else -1). Returns the
 * reply's status, or -errno if the exchange failed.
 */
static int gspd_call(struct gspd_conn *c, uint16_t op, const void *p1,
		     size_t l1, const void *p2, size_t l2, int send_fd,
		     void *rbuf, size_t rcap, size_t *rlen, int *rfd)
{
	union gspd_fd_cmsg cbuf;
	struct gspd_msg hdr = {
		.magic = GSPD_MAGIC, .version = GSPD_VERSION, .op = op,
		.len = (uint32_t)(l1 + l2),
	};
	struct iovec iov[3] = {
		{ &hdr, sizeof(hdr) }, { (void *)p1, l1 }, { (void *)p2, l2 },
	};
	struct msghdr m = { .msg_iov = iov, .msg_iovlen = 3 };
	struct gspd_pending me = { .buf = rbuf, .cap = rcap, .fd = -1 };
	struct gspd_pending **pp;
	ssize_t n;

	gspd_msg_attach_fd(&m, &cbuf, send_fd);

	pthread_mutex_lock(&c->lock);
	if (c->dead) {
		int e = c->dead;

		pthread_mutex_unlock(&c->lock);
		return e;
	}
	/* 0 is the daemon's, for a refusal. */
	if (!c->next_seq)
		c->next_seq++;
	me.seq = hdr.seq = c->next_seq++;
	do {
		n = sendmsg(c->fd, &m, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		int e = -errno;

		if (e == -EPIPE || e == -ECONNRESET) {
			e = conn_refused(c, e);
			conn_fail_locked(c, e);
		}
		pthread_mutex_unlock(&c->lock);
		return e;
	}
	me.next = c->pending;
	c->pending = &me;
	while (!me.done) {
		if (c->reading)
			pthread_cond_wait(&c->cond, &c->lock);
		else {
			conn_read_one(c);
			pthread_cond_broadcast(&c->cond);
		}
	}
	for (pp = &c->pending; *pp != &me; pp = &(*pp)->next)
		;
	*pp = me.next;
	/* Another waiter may need a reader now, or its reply has come. */
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);

	if (rlen)
		*rlen = me.len;
	if (rfd)
		*rfd = me.fd;
	else if (me.fd >= 0)
		close(me.fd);
	return me.status;
}

/* Copies @len bytes from our own @addr: -EFAULT where the ioctl would. */
static int self_read(void *dst, const void *addr, size_t len)
{
	struct iovec l = { dst, len }, r = { (void *)addr, len };
	ssize_t n;

	if (!len)
		return 0;
	n = process_vm_readv(getpid(), &l, 1, &r, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
		/* Sandboxed: no check possible, as plain C would do. */
		memcpy(dst, addr, len);
		return 0;
	}
	return -EFAULT;
}

static int self_write(void *addr, const void *src, size_t len)
{
	struct iovec l = { (void *)src, len }, r = { addr, len };
	ssize_t n;

	if (!len)
		return 0;
	n = process_vm_writev(getpid(), &l, 1, &r, 1, 0);
	if (n == (ssize_t)len)
		return 0;
	if (n < 0 && (errno == ENOSYS || errno == EPERM)) {
		memcpy(addr, src, len);
		return 0;
	}
	return -EFAULT;
}

/* Requests whose argument the arbiter writes back on success. */
static bool writes_back(unsigned long request)
{
	return request == GSPACE_IOCTL_VERSION ||
	       request == GSPACE_IOCTL_SUBMIT ||
	       request == GSPACE_IOCTL_WAIT || request == GSPACE_IOCTL_STATS;
}

int gspd_ioctl(struct gspd_conn *c, unsigned long request, void *arg)
{
	unsigned char buf[GSPD_ARG_MAX], rbuf[GSPD_ARG_MAX];
	struct gspd_ioctl hdr = { .request = request };
	struct gspace_submit *s = (struct gspace_submit *)buf;
	bool submit = request == GSPACE_IOCTL_SUBMIT;
	size_t n, rlen = 0;
	uint32_t size, flags = 0;
	int in_fd = -1, out_fd = -1;
	int ret;

	/* Unknown numbers never touch the argument, as in the kernel. */
	if (_IOC_TYPE(request) != GSPACE_IOCTL_TYPE ||
	    request != _IO(GSPACE_IOCTL_TYPE, _IOC_NR(request)) ||
	    _IOC_NR(request) > GSPACE_CMD_STATS)
		return -ENOTTY;
	ret = self_read(&size, arg, sizeof(size));
	if (ret)
		return ret;
	n = gspd_arg_len(size);
	ret = self_read(buf, arg, n);
	if (ret)
		return ret;
	/* Bytes beyond what travels must be zero (E2BIG), as in the kernel. */
	if (size > GSPD_ARG_MAX) {
		unsigned char chunk[256];
		size_t off = GSPD_ARG_MAX, i, k;

		while (off < size) {
			k = size - off < sizeof(chunk) ? size - off : sizeof(chunk);
			ret = self_read(chunk, (char *)arg + off, k);
			if (ret)
				return ret;
			for (i = 0; i < k; i++)
				if (chunk[i])
					return -E2BIG;
			off += k;
		}
	}
	/* Fail on an unwritable argument before the daemon acts on it. */
	if (writes_back(request)) {
		ret = self_write(arg, buf, n);
		if (ret)
			return ret;
	}
	if (submit && n >= offsetof(struct gspace_submit, in_fence_fd) +
			   sizeof(s->in_fence_fd)) {
		flags = s->flags;
		if (flags & GSPACE_SUBMIT_FENCE_IN)
			in_fd = s->in_fence_fd;
	}
	ret = gspd_call(c, GSPD_OP_IOCTL, &hdr, sizeof(hdr), buf, n, in_fd,
			rbuf, sizeof(rbuf), &rlen, &out_fd);
	if (ret == -EBADF && in_fd >= 0)
		return -EINVAL;	/* not a descriptor: not a fence either */
	if (ret < 0) {
		if (out_fd >= 0)
			close(out_fd);
		return ret;
	}
	if (submit && rlen >= offsetof(struct gspace_submit, out_fence_fd) +
			      sizeof(s->out_fence_fd)) {
		struct gspace_submit *r = (struct gspace_submit *)rbuf;

		if (flags & GSPACE_SUBMIT_FENCE_OUT) {
			if (out_fd < 0)
				return -EPROTO;
			r->out_fence_fd = out_fd;
			out_fd = -1;
		}
	}
	if (out_fd >= 0)
		close(out_fd);
	if (rlen > size)
		rlen = size;
	if (self_write(arg, rbuf, rlen)) {
		/* Probed writable above: only a racing munmap gets here. */
		return -EFAULT;
	}
	return ret;
}

int gspd_board_fd(struct gspd_conn *c, int *fd, int *lc_slot, int *writable)
{
	struct gspd_board_reply r;
	size_t rlen = 0;
	int ret;

	*fd = -1;
	ret = gspd_call(c, GSPD_OP_BOARD, NULL, 0, NULL, 0, -1, &r, sizeof(r),
			&rlen, fd);
	if (ret >= 0 && (*fd < 0 || rlen != sizeof(r) ||
			 r.size != GSPACE_BOARD_SIZE))
		ret = -EPROTO;
	if (ret < 0) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return ret;
	}
	if (lc_slot)
		*lc_slot = r.lc_slot;
	if (writable)
		*writable = (fcntl(*fd, F_GETFL) & O_ACCMODE) == O_RDWR;
	return 0;
}

int gspd_board(struct gspd_conn *c, void **board, int *lc_slot,
	       int *writable)
{
	void *map;
	int fd, ret, w;

	ret = gspd_board_fd(c, &fd, lc_slot, &w);
	if (ret)
		return ret;
	map = mmap(NULL, GSPACE_BOARD_SIZE,
		   w ? PROT_READ | PROT_WRITE : PROT_READ, MAP_SHARED, fd, 0);
	ret = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (ret)
		return ret;
	*board = map;
	if (writable)
		*writable = w;
	return 0;
}

/* A text request: the reply's text, NUL-terminated, in @out. */
static int ctl_text(struct gspd_conn *c, uint16_t op, const char *in,
		    char *out, size_t outsz)
{
	size_t rlen = 0;
	char *tmp;
	int ret;

	if (!out || !outsz)
		return -EINVAL;
	tmp = malloc(GSPD_PAYLOAD_MAX);
	if (!tmp)
		return -ENOMEM;
	ret = gspd_call(c, op, in, in ? strlen(in) + 1 : 0, NULL, 0, -1, tmp,
			GSPD_PAYLOAD_MAX, &rlen, NULL);
	if (ret >= 0) {
		if (!rlen || tmp[rlen - 1] != 0)
			ret = -EPROTO;
		else if (rlen > outsz)
			ret = -ENOBUFS;
		else
			memcpy(out, tmp, rlen);
	}
	free(tmp);
	return ret;
}

int gspd_ctl_get(struct gspd_conn *c, const char *name, char *out,
		 size_t outsz)
{
	if (!name || !*name || strchr(name, '='))
		return -EINVAL;
	return ctl_text(c, GSPD_OP_CTL_GET, name, out, outsz);
}

int gspd_ctl_set(struct gspd_conn *c, const char *name, const char *value)
{
	char buf[512];
	int n;

	if (!name || !*name || !value || strchr(name, '='))
		return -EINVAL;
	n = snprintf(buf, sizeof(buf), "%s=%s", name, value);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -EINVAL;
	return gspd_call(c, GSPD_OP_CTL_SET, buf, (size_t)n + 1, NULL, 0, -1,
			 NULL, 0, NULL, NULL);
}

int gspd_ctl_tenants(struct gspd_conn *c, char *out, size_t outsz)
{
	return ctl_text(c, GSPD_OP_CTL_TENANTS, NULL, out, outsz);
}

int gspd_admit(struct gspd_conn *c, uint32_t device, int memfd, char *out,
	       size_t outsz)
{
	struct gspd_admit req = { .device = device };
	size_t rlen = 0;
	int ret;

	if (!out || !outsz || memfd < 0)
		return -EINVAL;
	out[0] = 0;
	ret = gspd_call(c, GSPD_OP_ADMIT, &req, sizeof(req), NULL, 0, memfd,
			out, outsz - 1, &rlen, NULL);
	out[rlen < outsz ? rlen : outsz - 1] = 0;
	return ret < 0 ? ret : 0;
}
