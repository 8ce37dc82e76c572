/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A timeline's entry in the stamp table (stamp.h), and the timeline's
 * vocabulary: the points it reached and when, what the filter and
 * sampling made of it, and what it learnt of its packet (flow, sender,
 * device); how it ended is stamp.h's enum stamp_end.  The timelines
 * (timeline.c) write it; the aggregation (latency.c) and the trace part
 * (pkttrace.c) read the entries they hand them.
 */
#ifndef _SKBPROF_LAT_STAMP_H
#define _SKBPROF_LAT_STAMP_H

#include <linux/if.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/types.h>

#include "pktinfo.h"
#include "stages.h"
#include "stamp.h"

/* Most points a timeline can pass (stages.h). */
#define LAT_MAX_POINTS	SKBPROF_MAX_POINTS

/* What the filter and sampling made of a timeline (lat_stamp.verdict). */
enum lat_verdict {
	LAT_UNDECIDED,		/* the filter needs a later point */
	LAT_KEEP,		/* matched and sampled: measured */
	LAT_SAMPLED_OUT,	/* matched, not sampled */
	LAT_FILTERED,		/* did not match */
};

/*
 * A received packet queued at its first point (netif_rx(), RPS) waits in
 * a CPU's backlog until the stack's core takes it: the backlog stage.
 */
enum lat_queue {
	LAT_NOT_QUEUED,
	LAT_QUEUED,		/* in a backlog */
	LAT_DEQUEUED,		/* taken: t_point[0] to t_dequeued */
};

struct lat_stamp {
	struct stamp s;		/* first: key, kind, t_start (the first point) */
	/* the timeline, from here on; lat_stamp_clear() zeroes up to @via */
	u8 point;		/* the last point reached */
	u8 proto;		/* IPPROTO_TCP / IPPROTO_UDP, 0 unknown */
	u8 verdict;		/* enum lat_verdict */
	u8 decide_at;		/* the point where the filter is applied */
	u8 reached;		/* bit per point reached */
	u16 settled;		/* stages recorded already (settle()) */
	u8 queued;		/* enum lat_queue: a backlog's wait */
	/* the skb that last carried the timeline: its free ends it */
	const void *owner;
	u32 stages;		/* SKBPROF_STAGE_* bits measured */
	u32 mark;
	u64 netns;		/* 0: not known */
	pid_t pid;		/* the task charged, 0: not known yet */
	bool stage_rows;	/* procs and cgroups rows per stage, not just totals */
	u64 cgroup;		/* its cgroup v2 id, with pid */
	u64 t_dequeued;		/* LAT_DEQUEUED: when the core took it */
	/*
	 * Not cleared: each is read only where a field above says it was
	 * written, or has its first bytes cleared by lat_stamp_clear().
	 */
	u16 via[LAT_MAX_POINTS];	/* the probe that served each point */
	u64 t_point[LAT_MAX_POINTS];	/* when each point was reached */
	char comm[TASK_COMM_LEN];	/* with @pid; "" before */
	char dev[IFNAMSIZ];	/* "": not known */
	struct skbprof_tuple tuple;	/* family 0: not known */
};

/* Has the timeline reached @point? */
static inline bool lat_reached(const struct lat_stamp *s, unsigned int point)
{
	return s->reached & BIT(point);
}

/* Where the stage ending at point @i began: the point before, or the core. */
static inline u64 lat_stage_from(const struct lat_stamp *s, unsigned int i)
{
	if (i == 1 && s->queued == LAT_DEQUEUED)
		return s->t_dequeued;
	return s->t_point[i - 1];
}

/* The timeline of a struct stamp of kind STAMP_RX or STAMP_TX. */
static inline struct lat_stamp *lat_of(struct stamp *s)
{
	BUILD_BUG_ON(offsetof(struct lat_stamp, s));
	return (struct lat_stamp *)s;
}

static inline const struct lat_stamp *lat_of_const(const struct stamp *s)
{
	return (const struct lat_stamp *)s;
}

#define LAT_TIMELINE	offsetof(struct lat_stamp, point)
#define LAT_CLEARED	offsetof(struct lat_stamp, via)

/*
 * Forget the timeline of a locked entry, keeping its key.  It runs at
 * every timeline's start, so it zeroes only the fields that say what the
 * rest holds, not the per-point arrays and names behind them.
 */
static inline void lat_stamp_clear(struct lat_stamp *s)
{
	s->s.t_start = 0;
	memset((char *)s + LAT_TIMELINE, 0, LAT_CLEARED - LAT_TIMELINE);
	s->comm[0] = '\0';
	s->dev[0] = '\0';
	/* addresses are read only for a known family */
	s->tuple.family = 0;
	s->tuple.proto = 0;
	s->tuple.sport = 0;
	s->tuple.dport = 0;
}

/* Give @dst the whole timeline of @src, keeping its own key and kind. */
static inline void lat_stamp_copy(struct lat_stamp *dst,
				  const struct lat_stamp *src)
{
	dst->s.t_start = src->s.t_start;
	memcpy((char *)dst + LAT_TIMELINE, (const char *)src + LAT_TIMELINE,
	       sizeof(*dst) - LAT_TIMELINE);
}

/* stamp.h's locking, for timelines (and sparse: see stamp_lock()). */
#define lat_lock(key, kind, count_miss, flags) ({			\
	struct lat_stamp *__l;						\
	skbprof_cond_lock(stamp_bucket, (__l = lat_of(__stamp_lock(key, \
					kind, count_miss, flags))));	\
	__l; })
#define lat_lock_hit(key, kind, count_miss, flags) ({			\
	struct lat_stamp *__l;						\
	skbprof_cond_lock(stamp_bucket, (__l = lat_of(__stamp_lock_hit( \
					key, kind, count_miss, flags)))); \
	__l; })
#define lat_lock_hit_at(b, key, kind, count_miss, flags) ({		\
	struct lat_stamp *__l;						\
	skbprof_cond_lock(stamp_bucket, (__l = lat_of(__stamp_lock_hit_at( \
					b, key, kind, count_miss, flags)))); \
	__l; })
/* A new entry is the caller's to clear (lat_stamp_clear()) or fill. */
#define lat_lock_insert(key, kind, fresh, flags) ({			\
	struct lat_stamp *__l;						\
	skbprof_cond_lock(stamp_bucket, (__l = lat_of(__stamp_lock_insert( \
					key, kind, fresh, flags))));	\
	__l; })

static inline void lat_unlock(struct lat_stamp *s, unsigned long flags)
	__releases(stamp_bucket)
{
	stamp_unlock(&s->s, flags);
}

static inline void lat_remove(struct lat_stamp *s, unsigned long flags)
	__releases(stamp_bucket)
{
	stamp_remove(&s->s, flags);
}

#endif /* _SKBPROF_LAT_STAMP_H */
