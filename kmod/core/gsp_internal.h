/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Functions shared between the scheduling core's source files. Nothing
 * outside kmod/core/ calls them.
 */
#ifndef _GSP_INTERNAL_H
#define _GSP_INTERNAL_H

#include "gsp_core.h"

/* The most GPU time one completion charges: about 73 minutes. */
#define GSP_CHARGE_MAX_NS	(1ULL << 42)
/* Per-period usage is clamped here so that usage * weight fits in u64. */
#define GSP_USED_MAX_NS		(1ULL << 48)
/* BAND's first grain, before a period has measured one: 1 us at weight 1. */
#define GSP_BAND_GRAIN_INIT	(1000ULL << GSP_BAND_KEY_SHIFT)
/* Credit saturates here, far below S64 overflow. */
#define GSP_CREDIT_LIMIT_NS	(1LL << 61)

static inline enum gsp_class gsp_class_of(const struct gsp_entity *e)
{
	return e->lc ? GSP_CLASS_LC : GSP_CLASS_BE;
}

static inline bool gsp_job_is_task(const struct gsp_job *j)
{
	return j->task_ns[GSP_ENGINE_H2D] || j->task_ns[GSP_ENGINE_COMPUTE] ||
	       j->task_ns[GSP_ENGINE_D2H];
}

/* gsp_sched.c */
void gsp_rq_add(struct gsp_sched *s, u32 engine, struct gsp_entity *e);
void gsp_rq_remove(struct gsp_sched *s, u32 engine, struct gsp_entity *e);
void gsp_rq_all_engine(struct gsp_sched *s, u32 engine, bool add);

/* gsp_credit.c */
void gsp_heap_insert(struct gsp_heap_node **root, struct gsp_heap_node *n);
void gsp_heap_delete(struct gsp_heap_node **root, struct gsp_heap_node *n);
void gsp_band_init(struct gsp_band_rq *b, u64 grain);
void gsp_band_add(struct gsp_band_rq *b, struct gsp_entity_engine *ee);
void gsp_band_del(struct gsp_band_rq *b, struct gsp_entity_engine *ee);
void gsp_credit_period_update(struct gsp_sched *s, u32 engine, u64 now_ns);
void gsp_credit_charge(struct gsp_sched *s, u32 engine, struct gsp_entity *e,
		       u64 gpu_ns);
s64 gsp_credit_default(const struct gsp_sched *s, u32 weight, u64 sum_w);
struct gsp_entity *gsp_credit_pick(struct gsp_sched *s, u32 engine,
				   enum gsp_class cls);
struct gsp_entity *gsp_band_pick(struct gsp_sched *s, u32 engine,
				 enum gsp_class cls, bool may_hold,
				 u64 now_ns, u64 *retry_ns);

/* gsp_cumas.c */
struct gsp_job *gsp_cumas_pick(struct gsp_sched *s, u64 now_ns);

#endif /* _GSP_INTERNAL_H */
