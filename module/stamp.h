/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stamp table: one timeline per packet and direction, keyed by an
 * address (skb->head for the stage timelines, which clones share; the skb
 * itself for lifetimes) and a kind.
 *
 * Fixed capacity, preallocated: entries come from per-CPU free lists (a
 * CPU that runs dry takes from the others), so nothing is allocated in the
 * hot path.  Lookups are lock-free walks of hlist_nulls chains, which need
 * no RCU read section: the entries live as long as the table.  An
 * entry can be reused at once for another key (like SLAB_TYPESAFE_BY_RCU),
 * so a walker that strays onto another chain notices by the nulls value
 * and restarts, and a found entry is only trusted once stamp_lock() has
 * taken its bucket's lock and found it again in the chain.  Every change to an
 * entry (insert, update, remove) is made under its bucket's lock.
 */
#ifndef _SKBPROF_STAMP_H
#define _SKBPROF_STAMP_H

#include <linux/hash.h>
#include <linux/if.h>
#include <linux/list_nulls.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/in6.h>
#include <linux/types.h>

#include "compat.h"
#include "pktinfo.h"
#include "stages.h"

/* The timelines of the two directions (stages.h), and lifetimes. */
enum stamp_kind {
	STAMP_RX = SKBPROF_RX,
	STAMP_TX = SKBPROF_TX,
	STAMP_LIFE = SKBPROF_DIRS,
	STAMP_KINDS
};

/* Most points a timeline can pass (stages.h). */
#define STAMP_MAX_POINTS	SKBPROF_MAX_POINTS

/* What the filter and sampling made of a timeline (struct stamp.verdict). */
enum stamp_verdict {
	STAMP_UNDECIDED,	/* the filter needs a later point */
	STAMP_KEEP,		/* matched and sampled: measured */
	STAMP_SAMPLED_OUT,	/* matched, not sampled */
	STAMP_FILTERED,		/* did not match */
};

/* How a timeline ended without reaching its last point. */
enum lat_end {
	END_DROPPED,	/* kfree_skb */
	END_FREED,	/* consumed or released before the end */
	END_EVICTED,	/* older than max_age */
	END_RESTARTED,	/* its first point came again */
	END_REKEYED,	/* the skb's head was reallocated */
	/* outcomes of a frame whose data went on in another skb: */
	END_MERGED,	/* GRO merged it into another skb, then freed it */
	END_REUSED,	/* GRO merged it, and its skb is the next frame's */
	END_COALESCED,	/* its data joined another skb (kfree_skb_partial) */
	END_DISARMED,	/* its view was switched off (control) */
	END_ORPHANED,	/* another skb came with its head: its free was missed */
	END_REASONS
};

struct stamp {
	struct hlist_nulls_node node;
	union {
		struct stamp *free_next;	/* in a free list */
		spinlock_t *lock;	/* in a chain: its bucket's lock */
	};
	unsigned long key;
	u8 kind;
	/* the timeline, from here on; stamp_clear() zeroes up to @via */
	u8 point;		/* the last point reached */
	u8 proto;		/* IPPROTO_TCP / IPPROTO_UDP, 0 unknown */
	u8 verdict;		/* enum stamp_verdict */
	u8 decide_at;		/* the point where the filter is applied */
	u8 reached;		/* bit per point reached */
	u16 settled;		/* stages recorded already (settle()) */
	/* the skb that last carried the timeline: its free ends it */
	const void *owner;
	u64 t_start;		/* the first point: age, totals */
	u32 stages;		/* SKBPROF_STAGE_* bits measured */
	u32 mark;
	u64 netns;		/* 0: not known */
	pid_t pid;		/* the task charged, 0: not known yet */
	bool stage_rows;	/* procs and cgroups rows per stage, not just totals */
	u64 cgroup;		/* its cgroup v2 id, with pid */
	/*
	 * Not cleared: each is read only where a field above says it was
	 * written, or has its first bytes cleared by stamp_clear().
	 */
	u16 via[STAMP_MAX_POINTS];	/* the probe that served each point */
	u64 t_point[STAMP_MAX_POINTS];	/* when each point was reached */
	char comm[TASK_COMM_LEN];	/* with @pid; "" before */
	char dev[IFNAMSIZ];	/* "": not known */
	struct skbprof_tuple tuple;	/* family 0: not known */
};

/* The chains, read inline by stamp_none(); set by stamp_init(). */
extern struct hlist_nulls_head *stamp_buckets;
extern unsigned int stamp_bucket_bits;
DECLARE_PER_CPU(u64, stamp_misses);

static inline unsigned int stamp_bucket_of(unsigned long key, u8 kind)
{
	return hash_64((u64)key ^ ((u64)kind << 1), stamp_bucket_bits);
}

/* Read without the lock: a chain that fills meanwhile was not ours yet. */
static inline bool stamp_chain_empty(unsigned int b)
{
	return is_a_nulls(READ_ONCE(stamp_buckets[b].first));
}

/*
 * Has (@key, @kind) surely no entry, its chain being empty?  The test most
 * probe hits end with, inline: those of packets not followed.  An entry
 * inserted by a point this one follows is seen, as that point ran first,
 * on the packet's way here.  Counts a miss when @count_miss.
 */
static inline bool stamp_none(unsigned long key, u8 kind, bool count_miss)
{
	if (!stamp_chain_empty(stamp_bucket_of(key, kind)))
		return false;
	if (count_miss)
		this_cpu_inc(stamp_misses);
	return true;
}

int stamp_init(void);
/* Callers must have stopped every user and waited for RCU readers. */
void stamp_exit(void);

/*
 * Find the live entry of (key, kind) and lock it: NULL when there is none.
 * Counts a miss when @count_miss.  Interrupts stay off until the unlock.
 */
struct stamp *__stamp_lock(unsigned long key, u8 kind, bool count_miss,
			   unsigned long *flags);
#define stamp_lock(key, kind, count_miss, flags) ({			\
	struct stamp *__s;						\
	skbprof_cond_lock(stamp_bucket, (__s = __stamp_lock(key, kind,	\
						      count_miss, flags))); \
	__s; })
/*
 * stamp_lock() for a lookup that expects to find the entry: it locks the
 * bucket at once instead of walking it without the lock first.
 */
struct stamp *__stamp_lock_hit(unsigned long key, u8 kind, bool count_miss,
			       unsigned long *flags);
#define stamp_lock_hit(key, kind, count_miss, flags) ({			\
	struct stamp *__s;						\
	skbprof_cond_lock(stamp_bucket, (__s = __stamp_lock_hit(key, kind, \
							  count_miss, flags))); \
	__s; })
/*
 * Find or create the entry of (key, kind) and lock it.  *@fresh tells a
 * new entry (zeroed but for key and kind) from an existing one.  NULL when
 * the table is full.
 */
struct stamp *__stamp_lock_insert(unsigned long key, u8 kind, bool *fresh,
				  unsigned long *flags);
#define stamp_lock_insert(key, kind, fresh, flags) ({			\
	struct stamp *__s;						\
	skbprof_cond_lock(stamp_bucket, (__s = __stamp_lock_insert(key, kind, \
							     fresh, flags))); \
	__s; })
/*
 * "stamp_bucket" is sparse's name for whichever bucket lock the entry
 * took: the lock is computed, so the functions only tell sparse.
 */
static inline void stamp_unlock(struct stamp *s, unsigned long flags)
	__releases(stamp_bucket)
{
	spin_unlock_irqrestore(s->lock, flags);
}

#define STAMP_TIMELINE	offsetof(struct stamp, point)
#define STAMP_CLEARED	offsetof(struct stamp, via)

/*
 * Forget the timeline of a locked entry, keeping its key.  It runs at
 * every timeline's start, so it zeroes only the fields that say what the
 * rest holds, not the per-point arrays and names behind them.
 */
static inline void stamp_clear(struct stamp *s)
{
	memset((char *)s + STAMP_TIMELINE, 0, STAMP_CLEARED - STAMP_TIMELINE);
	s->comm[0] = '\0';
	s->dev[0] = '\0';
	/* addresses are read only for a known family */
	s->tuple.family = 0;
	s->tuple.proto = 0;
	s->tuple.sport = 0;
	s->tuple.dport = 0;
}

/* Give @dst the whole timeline of @src, keeping its own key. */
static inline void stamp_copy(struct stamp *dst, const struct stamp *src)
{
	memcpy((char *)dst + STAMP_TIMELINE, (const char *)src + STAMP_TIMELINE,
	       sizeof(*dst) - STAMP_TIMELINE);
}

/* Unlink a locked entry, give it back and unlock. */
void stamp_remove(struct stamp *s, unsigned long flags)
	__releases(stamp_bucket);

/*
 * Remove every entry of the kinds in @kinds (a mask of BIT(kind)) older
 * than @max_age ns (all of them for 0), calling @gone on each, under its
 * bucket lock, first.  Those removed for their age count as evictions of
 * their kind.  Process context.
 */
unsigned int stamp_reap(unsigned int kinds, u64 now, u64 max_age,
			void (*gone)(struct stamp *s));

/* Show up to @max live entries (under their bucket locks). */
void stamp_show_live(struct seq_file *m, unsigned int max,
		     void (*show)(struct seq_file *m, const struct stamp *s));

void stamp_reset_counters(void);
void stamp_stats(struct seq_file *m);
/* Entries in use now. */
unsigned int stamp_in_use(void);

#endif /* _SKBPROF_STAMP_H */
