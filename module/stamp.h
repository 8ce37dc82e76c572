/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stamp table: one entry per packet followed and kind, keyed by an
 * address (skb->head for the stage timelines, which clones share; the skb
 * itself for lifetimes) and the kind.  It keeps what every user needs:
 * the key, the kind and when the entry was made (for eviction by age).
 * A user's entry begins with a struct stamp and carries the rest: a
 * timeline's is struct lat_stamp (lat_stamp.h), a lifetime's is the bare
 * struct stamp.
 *
 * Fixed capacity, preallocated: one pool per entry size (timelines,
 * lifetimes), table_size entries each, so nothing is allocated in the hot
 * path.  Free entries sit in per-CPU free lists and a depot (stamp.c): a
 * CPU takes and gives back its own, moves them to and from the depot in
 * batches, and searches the other CPUs only when both run dry, at most
 * once a tick while the table stays full.  Lookups are lock-free walks
 * of hlist_nulls chains, which need no RCU read section: the entries
 * live as long as the table.  An
 * entry can be reused at once for another key (like SLAB_TYPESAFE_BY_RCU),
 * so a walker that strays onto another chain notices by the nulls value
 * and restarts, and a found entry is only trusted once stamp_lock() has
 * taken its bucket's lock and found it again in the chain.  Every change to an
 * entry (insert, update, remove) is made under its bucket's lock.
 *
 * The table is a part of its own (skbprof_stamp_part), up before its
 * users: it allocates the pools, keeps the table's counters (table_*)
 * and the age past which an entry is stale (max_age_ms).  Each user
 * removes its own kinds' entries, when they end, go stale
 * (stamp_evict_old()), or are reset or swept: none removes another's.
 */
#ifndef _SKBPROF_STAMP_H
#define _SKBPROF_STAMP_H

#include <linux/hash.h>
#include <linux/list_nulls.h>
#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "compat.h"
#include "stages.h"

/* The timelines of the two directions (stages.h), and lifetimes. */
enum stamp_kind {
	STAMP_RX = SKBPROF_RX,
	STAMP_TX = SKBPROF_TX,
	STAMP_LIFE = SKBPROF_DIRS,
	STAMP_KINDS
};

/* "rx", "tx" (skbprof_dir_name()), "life"; "?" out of range. */
const char *stamp_kind_name(unsigned int kind);

/*
 * How the following of a packet ended without reaching its end: a
 * timeline (lat_stamp.h) before its last point, a lifetime (lifetime.c)
 * otherwise than by a free that is a sample.  Each kind counts the ends
 * it can have (STAMP_ENDS_*), under their names (stamp_end_name()).
 */
enum stamp_end {
	END_DROPPED,	/* kfree_skb */
	END_FREED,	/* consumed or released before the end */
	END_EVICTED,	/* older than max_age */
	END_RESTARTED,	/* its first point came again */
	END_REKEYED,	/* the skb's head was reallocated */
	END_SEGMENTED,	/* software GSO cut the skb, kretprobes off */
	END_FORKED,	/* cut into GSO segments, which carry it on */
	/* outcomes of a frame whose data went on in another skb: */
	END_MERGED,	/* GRO merged it into another skb, then freed it */
	END_REUSED,	/* GRO merged it, and its skb is the next frame's */
	END_COALESCED,	/* its data joined another skb (kfree_skb_partial) */
	END_DUPLICATE,	/* TCP discarded it: its data had come already */
	END_DISARMED,	/* its view was switched off (control) */
	END_ORPHANED,	/* another skb came with its head: its free was missed */
	END_REASONS
};

/* The ends a timeline counts (incomplete_rx_*, incomplete_tx_*). */
#define STAMP_ENDS_TIMELINE	(GENMASK(END_REASONS - 1, 0) & ~BIT(END_FORKED))
/* The ends a lifetime counts (lifetime_*). */
#define STAMP_ENDS_LIFE		(BIT(END_FORKED) | BIT(END_MERGED) |	\
				 BIT(END_REUSED) | BIT(END_COALESCED) |	\
				 BIT(END_DISARMED) | BIT(END_ORPHANED))

/* "dropped", "freed", ...: the counters' names; "?" out of range. */
const char *stamp_end_name(unsigned int end);

struct stamp {
	struct hlist_nulls_node node;
	union {
		struct stamp *free_next;	/* in a free list */
		spinlock_t *lock;	/* in a chain: its bucket's lock */
	};
	unsigned long key;
	u8 kind;
	u64 t_start;		/* when it began: age, eviction */
};

/*
 * A chain and the lock that guards it, on one cache line: an insert or a
 * remove touches one line, and no two buckets' locks are further apart
 * than their chains.  Aligned to the power of two that holds both, so
 * that a bucket never straddles two lines (checked in stamp.c): 16 bytes
 * on a production kernel, four buckets to a 64-byte line.
 */
#define STAMP_BUCKET_FIELDS	(sizeof(spinlock_t) + \
				 sizeof(struct hlist_nulls_head))
#define STAMP_BUCKET_ALIGN	(STAMP_BUCKET_FIELDS <= 16 ? 16 :	\
				 STAMP_BUCKET_FIELDS <= 32 ? 32 : 64)
struct stamp_bucket {
	spinlock_t lock;		/* guards head and its entries */
	struct hlist_nulls_head head;
} __aligned(STAMP_BUCKET_ALIGN);

/* The chains, read inline by stamp_none(); set by stamp_init(). */
extern struct stamp_bucket *stamp_buckets;
extern unsigned int stamp_bucket_bits;
DECLARE_PER_CPU(u64, stamp_misses);

static inline unsigned int stamp_bucket_of(unsigned long key, u8 kind)
{
	return hash_64((u64)key ^ ((u64)kind << 1), stamp_bucket_bits);
}

/* Read without the lock: a chain that fills meanwhile was not ours yet. */
static inline bool stamp_chain_empty(unsigned int b)
{
	return is_a_nulls(READ_ONCE(stamp_buckets[b].head.first));
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

/* The age past which an entry is stale (max_age_ms), in ns. */
extern u64 stamp_max_age_ns;

/*
 * Is @s older than max_age_ms?  @now may have been read before another
 * CPU stamped @s: a stamp younger than @now is fresh, not 584 years old.
 */
static inline bool stamp_stale(const struct stamp *s, u64 now)
{
	return (s64)(now - s->t_start) > (s64)stamp_max_age_ns;
}

/* How often each user evicts its stale entries (stamp_evict_old()). */
#define STAMP_REAP_PERIOD	HZ

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
 * __stamp_lock_hit() for a caller that found chain @b, the bucket of
 * (@key, @kind), not empty (stamp_chain_empty()): no second hash or look.
 */
struct stamp *__stamp_lock_hit_at(unsigned int b, unsigned long key, u8 kind,
				  bool count_miss, unsigned long *flags);
/*
 * Find or create the entry of (key, kind) and lock it.  *@fresh tells a
 * new entry from an existing one: a new one has its key and kind, a
 * t_start of 0, and the rest of it for its user to set.  NULL when the
 * kind's pool is empty.
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

/*
 * Remove the entries of @kinds (BIT(STAMP_*)) older than max_age_ms,
 * counted as the table's evictions, calling @gone (if any) on each
 * first, under its bucket's lock.  Process context.
 */
unsigned int stamp_evict_old(unsigned int kinds, void (*gone)(struct stamp *s));

/*
 * Make the timelines' pool, of entries @size long (struct lat_stamp):
 * their part's init, after the table's, before any probe runs.
 */
int stamp_timeline_pool(size_t size);

struct skbprof_part;
/* The table as a part: init, exit, reset and stats of the table_* keys. */
extern const struct skbprof_part skbprof_stamp_part;

#endif /* _SKBPROF_STAMP_H */
