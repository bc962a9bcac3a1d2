/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few primitives the scheduling core needs, mapped to the kernel or to
 * libc. The core includes nothing else, so the same sources build into
 * gspace.ko, gspaced and the userspace tests.
 */
#ifndef _GSP_COMPAT_H
#define _GSP_COMPAT_H

#ifdef __KERNEL__

#include <linux/types.h>
#include <linux/list.h>
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/limits.h>
#include <linux/minmax.h>

#define GSP_WARN_ON(cond)	WARN_ON_ONCE(cond)

#else /* userspace */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int32_t s32;
typedef int64_t s64;

#define U32_MAX		UINT32_MAX
#define U64_MAX		UINT64_MAX
#define S64_MAX		INT64_MAX
#define S64_MIN		INT64_MIN

/*
 * Userspace has no WARN: a broken core invariant aborts, so tests and
 * fuzzers see it at once instead of a wrong number later.
 */
#define GSP_WARN_ON(cond) ({						\
	bool __c = !!(cond);						\
	if (__c) {							\
		fprintf(stderr, "%s:%d: core invariant broken: %s\n",	\
			__FILE__, __LINE__, #cond);			\
		abort();						\
	}								\
	__c;								\
})

/* The kernel's, from linux/build_bug.h and linux/err.h. */
#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)
#define MAX_ERRNO	4095

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

static inline u64 div64_u64(u64 a, u64 b) { return a / b; }
static inline s64 div64_s64(s64 a, s64 b) { return a / b; }
static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (u64)(((__uint128_t)a * b) / c);
}

#define min_t(t, a, b)	((t)(a) < (t)(b) ? (t)(a) : (t)(b))
#define max_t(t, a, b)	((t)(a) > (t)(b) ? (t)(a) : (t)(b))
#define clamp_t(t, v, lo, hi)	min_t(t, max_t(t, v, lo), hi)

/* A circular doubly linked list with the kernel's names and semantics. */
struct list_head {
	struct list_head *next, *prev;
};

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline void __list_link(struct list_head *n, struct list_head *prev,
			       struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

static inline void list_add(struct list_head *n, struct list_head *head)
{
	__list_link(n, head, head->next);
}

static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	__list_link(n, head->prev, head);
}

static inline void list_del_init(struct list_head *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	INIT_LIST_HEAD(n);
}

static inline void list_move_tail(struct list_head *n, struct list_head *head)
{
	list_del_init(n);
	list_add_tail(n, head);
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

#define list_entry(ptr, type, member)	container_of(ptr, type, member)
#define list_first_entry(h, type, member) list_entry((h)->next, type, member)
#define list_first_entry_or_null(h, type, member) \
	(list_empty(h) ? NULL : list_first_entry(h, type, member))
#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_for_each_entry(pos, head, member)				\
	for (pos = list_first_entry(head, __typeof__(*pos), member);	\
	     &pos->member != (head);					\
	     pos = list_next_entry(pos, member))
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_first_entry(head, __typeof__(*pos), member),	\
	     n = list_next_entry(pos, member);				\
	     &pos->member != (head);					\
	     pos = n, n = list_next_entry(n, member))

#endif /* __KERNEL__ */

#endif /* _GSP_COMPAT_H */
