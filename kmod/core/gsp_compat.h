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
#include <linux/bitops.h>
#include <linux/list.h>
#include <linux/bug.h>
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/errno.h>
#include <linux/math64.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/kernel.h>
#include <linux/string.h>

#define GSP_WARN_ON(cond)	WARN_ON_ONCE(cond)

#else /* userspace */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#define fallthrough	__attribute__((__fallthrough__))

/* The kernel's, from linux/build_bug.h and linux/err.h. */
#define BUILD_BUG_ON(cond)	_Static_assert(!(cond), #cond)
#define MAX_ERRNO	4095

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/*
 * kstrtoull() of lib/kstrtox.c: an optional '+', then base 0 (0x hex, 0
 * octal, else decimal) digits to the end, or to a newline that ends the
 * string; -ERANGE on overflow, -EINVAL on anything else.
 */
static inline int kstrtou64(const char *s, unsigned int base, u64 *res)
{
	u64 v = 0;
	unsigned int d, b = base;
	bool any = false;

	if (*s == '+')
		s++;
	if (!b) {
		if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
		    ((s[2] >= '0' && s[2] <= '9') ||
		     ((s[2] | 0x20) >= 'a' && (s[2] | 0x20) <= 'f'))) {
			b = 16;
			s += 2;
		} else {
			b = s[0] == '0' ? 8 : 10;
		}
	} else if (b == 16 && s[0] == '0' && (s[1] | 0x20) == 'x') {
		s += 2;
	}
	for (;; s++, any = true) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if ((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
			d = (*s | 0x20) - 'a' + 10;
		else
			break;
		if (d >= b)
			break;
		if (v > (U64_MAX - d) / b)
			return -ERANGE;
		v = v * b + d;
	}
	if (!any)
		return -EINVAL;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = v;
	return 0;
}

static inline int kstrtou32(const char *s, unsigned int base, u32 *res)
{
	u64 v;
	int ret = kstrtou64(s, base, &v);

	if (ret)
		return ret;
	if (v > U32_MAX)
		return -ERANGE;
	*res = (u32)v;
	return 0;
}

static inline int kstrtos64(const char *s, unsigned int base, s64 *res)
{
	u64 v;
	int ret;

	if (*s == '-') {
		ret = kstrtou64(s + 1, base, &v);
		if (ret)
			return ret;
		if (v > (u64)S64_MAX + 1)
			return -ERANGE;
		*res = -(s64)(v - 1) - 1;
		return 0;
	}
	ret = kstrtou64(s, base, &v);
	if (ret)
		return ret;
	if (v > S64_MAX)
		return -ERANGE;
	*res = (s64)v;
	return 0;
}

static inline u64 div64_u64(u64 a, u64 b) { return a / b; }
static inline s64 div64_s64(s64 a, s64 b) { return a / b; }
static inline u64 mul_u64_u64_div_u64(u64 a, u64 b, u64 c)
{
	return (u64)(((__uint128_t)a * b) / c);
}

/* The kernel's, from linux/bitops.h: @word must not be 0 for __ffs64(). */
static inline unsigned int __ffs64(u64 word)
{
	return (unsigned int)__builtin_ctzll(word);
}

static inline u64 ror64(u64 word, unsigned int shift)
{
	return (word >> (shift & 63)) | (word << ((-shift) & 63));
}

#define BIT_ULL(nr)	(1ULL << (nr))

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
