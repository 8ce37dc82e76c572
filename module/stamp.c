// SPDX-License-Identifier: GPL-2.0
/*
 * The stamp table; see stamp.h for the design.
 *
 * Locking: bucket b is guarded by locks[b % NLOCKS] (irq-safe: probes run
 * in process and softirq context).  An entry is linked in, unlinked and
 * changed only under the lock of the bucket its key hashes to, so holding
 * that lock and finding the entry in that bucket's chain means nobody else
 * can touch it.  The free lists have a lock per CPU, taken inside a bucket
 * lock, never the other way round.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/rculist_nulls.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include "stamp.h"

static unsigned int table_size = 16384;
module_param(table_size, uint, 0400);
MODULE_PARM_DESC(table_size,
		 "Packets the stamp table can follow at once (default 16384)");

#define STAMP_MAX_LOCKS	1024

/* The pools, by entry size: the timelines' (RX, TX), the lifetimes'. */
enum stamp_pool { POOL_TIMELINE, POOL_LIFE, POOLS };

static inline enum stamp_pool pool_of(u8 kind)
{
	return kind == STAMP_LIFE ? POOL_LIFE : POOL_TIMELINE;
}

struct stamp_cpu {
	spinlock_t lock;		/* guards free, nfree */
	struct stamp *free[POOLS];
	unsigned int nfree[POOLS];
	u64 inserts;
	u64 evictions[STAMP_KINDS];
	u64 full;
};

static void *pools[POOLS];
static size_t entry_size[POOLS];
static unsigned int capacity;		/* of each pool */
struct hlist_nulls_head *stamp_buckets;
unsigned int stamp_bucket_bits;
DEFINE_PER_CPU(u64, stamp_misses);
static spinlock_t *locks;
static unsigned int nlocks;
static struct stamp_cpu __percpu *pcpu;

static inline spinlock_t *lock_of(unsigned int b)
{
	return &locks[b & (nlocks - 1)];
}

/* Entry @i of pool @p. */
static inline struct stamp *pool_entry(enum stamp_pool p, unsigned int i)
{
	return (struct stamp *)((char *)pools[p] + (size_t)i * entry_size[p]);
}

/* Take a stamp of pool @p from @c's free list, if it has one. */
static struct stamp *pool_pop(struct stamp_cpu *c, enum stamp_pool p)
{
	struct stamp *s;

	spin_lock(&c->lock);
	s = c->free[p];
	if (s) {
		c->free[p] = s->free_next;
		c->nfree[p]--;
	}
	spin_unlock(&c->lock);
	return s;
}

/* Called with interrupts off. */
static struct stamp *pool_get(enum stamp_pool p)
{
	int this = smp_processor_id(), cpu;
	struct stamp_cpu *c;
	struct stamp *s;

	s = pool_pop(per_cpu_ptr(pcpu, this), p);
	if (s)
		return s;
	/* This CPU ran dry (its stamps were freed elsewhere): take one. */
	for_each_possible_cpu(cpu) {
		if (cpu == this)
			continue;
		c = per_cpu_ptr(pcpu, cpu);
		if (!READ_ONCE(c->nfree[p]))
			continue;
		s = pool_pop(c, p);
		if (s)
			return s;
	}
	return NULL;
}

/* Called with interrupts off; @s keeps its kind, which names its pool. */
static void pool_put(struct stamp *s)
{
	struct stamp_cpu *c = this_cpu_ptr(pcpu);
	enum stamp_pool p = pool_of(s->kind);

	spin_lock(&c->lock);
	s->free_next = c->free[p];
	c->free[p] = s;
	c->nfree[p]++;
	spin_unlock(&c->lock);
}

/* Lock-free walk; may return an entry that is being reused. */
static struct stamp *find_lockless(unsigned long key, u8 kind, unsigned int b)
{
	struct hlist_nulls_node *n;
	struct stamp *s;

begin:
	hlist_nulls_for_each_entry_rcu(s, n, &stamp_buckets[b], node) {
		if (READ_ONCE(s->key) == key && READ_ONCE(s->kind) == kind)
			return s;
	}
	/*
	 * Entries are reused at once: if the one we stood on moved to another
	 * chain, the walk ended on that chain's nulls marker.  Start again.
	 */
	if (get_nulls_value(n) != b)
		goto begin;
	return NULL;
}

/* Walk under the bucket's lock: the chain cannot change. */
static struct stamp *find_locked(unsigned long key, u8 kind, unsigned int b)
{
	struct hlist_nulls_node *n;
	struct stamp *s;

	hlist_nulls_for_each_entry(s, n, &stamp_buckets[b], node) {
		if (s->key == key && s->kind == kind)
			return s;
	}
	return NULL;
}

/* A lookup found no entry: a miss in stats, when the caller counts it. */
static inline struct stamp *found_none(bool count_miss)
{
	if (count_miss)
		this_cpu_inc(stamp_misses);
	return NULL;
}

struct stamp *__stamp_lock_hit_at(unsigned int b, unsigned long key, u8 kind,
				  bool count_miss, unsigned long *flags)
{
	struct stamp *s;

	spin_lock_irqsave(lock_of(b), *flags);
	s = find_locked(key, kind, b);
	if (s) {
		__release(lock_of(b));	/* held: see stamp_bucket */
		return s;
	}
	spin_unlock_irqrestore(lock_of(b), *flags);
	return found_none(count_miss);
}

struct stamp *__stamp_lock_hit(unsigned long key, u8 kind, bool count_miss,
			       unsigned long *flags)
{
	unsigned int b = stamp_bucket_of(key, kind);

	/*
	 * An empty chain has nothing to lock for: the stamp of a packet
	 * that has one was inserted by its earlier point, which this one
	 * follows.
	 */
	if (!stamp_chain_empty(b))
		return __stamp_lock_hit_at(b, key, kind, count_miss, flags);
	return found_none(count_miss);
}

struct stamp *__stamp_lock(unsigned long key, u8 kind, bool count_miss,
			   unsigned long *flags)
{
	unsigned int b = stamp_bucket_of(key, kind);
	struct stamp *s = NULL;

	/* a chain that is empty has nothing to walk */
	if (!stamp_chain_empty(b))
		s = find_lockless(key, kind, b);
	/*
	 * The lock-free walk only tells whether to lock.  The entry it found
	 * may be re-initialised for another key under another bucket's lock,
	 * and nothing orders those writes against reads under this one:
	 * find it again in the chain this lock guards.
	 */
	if (s)
		return __stamp_lock_hit_at(b, key, kind, count_miss, flags);
	return found_none(count_miss);
}

struct stamp *__stamp_lock_insert(unsigned long key, u8 kind, bool *fresh,
				  unsigned long *flags)
{
	unsigned int b = stamp_bucket_of(key, kind);
	struct stamp *s;

	spin_lock_irqsave(lock_of(b), *flags);
	s = find_locked(key, kind, b);
	if (s) {
		*fresh = false;
		__release(lock_of(b));		/* held: see stamp_bucket */
		return s;
	}
	s = pool_get(pool_of(kind));
	if (!s) {
		this_cpu_inc(pcpu->full);
		spin_unlock_irqrestore(lock_of(b), *flags);
		return NULL;
	}
	/*
	 * Lock-free walkers may be reading node and key: leave node alone.
	 * The kind stays in its pool: walkers compare it with the key.
	 */
	WRITE_ONCE(s->key, key);
	WRITE_ONCE(s->kind, kind);
	s->t_start = 0;
	s->lock = lock_of(b);
	hlist_nulls_add_head_rcu(&s->node, &stamp_buckets[b]);
	this_cpu_inc(pcpu->inserts);
	*fresh = true;
	__release(lock_of(b));			/* held: see stamp_bucket */
	return s;
}

/* Under the bucket lock, interrupts off. */
static void unlink_entry(struct stamp *s)
{
	hlist_nulls_del_init_rcu(&s->node);
	pool_put(s);
}

void stamp_remove(struct stamp *s, unsigned long flags)
	__releases(stamp_bucket)
{
	spinlock_t *l = s->lock;

	unlink_entry(s);
	spin_unlock_irqrestore(l, flags);
}

unsigned int stamp_reap(unsigned int kinds, u64 now, u64 max_age,
			void (*gone)(struct stamp *s))
{
	unsigned int b, n = 0;

	for (b = 0; b < (1U << stamp_bucket_bits); b++) {
		struct hlist_nulls_node *pos, *next;
		unsigned long flags;

		if (stamp_chain_empty(b))
			continue;
		spin_lock_irqsave(lock_of(b), flags);
		for (pos = stamp_buckets[b].first; !is_a_nulls(pos); pos = next) {
			struct stamp *s = hlist_nulls_entry(pos, struct stamp,
							    node);

			next = pos->next;
			if (!(kinds & BIT(s->kind)))
				continue;
			/*
			 * Stamps made since @now was read, on another CPU or
			 * while this sweep ran, are younger than @now.
			 */
			if (max_age && (s64)(now - s->t_start) <= (s64)max_age)
				continue;
			if (gone)
				gone(s);
			unlink_entry(s);
			if (max_age)
				this_cpu_inc(pcpu->evictions[s->kind]);
			n++;
		}
		spin_unlock_irqrestore(lock_of(b), flags);
		if (!(b & 255))
			cond_resched();
	}
	return n;
}

void stamp_show_live(struct seq_file *m, unsigned int max,
		     void (*show)(struct seq_file *m, const struct stamp *s))
{
	unsigned int b, n = 0;

	for (b = 0; b < (1U << stamp_bucket_bits) && n < max; b++) {
		struct hlist_nulls_node *pos;
		unsigned long flags;
		struct stamp *s;

		if (stamp_chain_empty(b))
			continue;
		spin_lock_irqsave(lock_of(b), flags);
		hlist_nulls_for_each_entry(s, pos, &stamp_buckets[b], node) {
			if (n++ >= max)
				break;
			show(m, s);
		}
		spin_unlock_irqrestore(lock_of(b), flags);
	}
}

static unsigned int in_use(enum stamp_pool p)
{
	unsigned int nfree = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		nfree += READ_ONCE(per_cpu_ptr(pcpu, cpu)->nfree[p]);
	return nfree > capacity ? 0 : capacity - nfree;
}

void stamp_reset_counters(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct stamp_cpu *c = per_cpu_ptr(pcpu, cpu);
		unsigned long flags;

		spin_lock_irqsave(&c->lock, flags);
		c->inserts = 0;
		memset(c->evictions, 0, sizeof(c->evictions));
		c->full = 0;
		spin_unlock_irqrestore(&c->lock, flags);
		per_cpu(stamp_misses, cpu) = 0;
	}
}

void stamp_stats(struct seq_file *m)
{
	u64 inserts = 0, misses = 0, evictions = 0, life_evictions = 0;
	u64 full = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct stamp_cpu *c = per_cpu_ptr(pcpu, cpu);

		inserts += READ_ONCE(c->inserts);
		misses += READ_ONCE(per_cpu(stamp_misses, cpu));
		evictions += READ_ONCE(c->evictions[STAMP_RX]) +
			     READ_ONCE(c->evictions[STAMP_TX]);
		life_evictions += READ_ONCE(c->evictions[STAMP_LIFE]);
		full += READ_ONCE(c->full);
	}
	/* the timelines' pool; the lifetimes' has as many entries */
	seq_printf(m, "table_capacity %u\n", capacity);
	seq_printf(m, "table_in_use %u\n", in_use(POOL_TIMELINE));
	seq_printf(m, "table_in_use_lifetime %u\n", in_use(POOL_LIFE));
	seq_printf(m, "table_inserts %llu\n", inserts);
	seq_printf(m, "table_lookup_misses %llu\n", misses);
	/* timelines; lifetimes older than max_age_ms on their own */
	seq_printf(m, "table_evictions %llu\n", evictions);
	seq_printf(m, "table_evictions_lifetime %llu\n", life_evictions);
	seq_printf(m, "table_full %llu\n", full);
}

int stamp_init(size_t timeline_size)
{
	unsigned int i, nb, per, cpu_i = 0, ncpus = num_possible_cpus();
	enum stamp_pool p;
	int cpu;

	if (table_size < 64 || table_size > (1U << 24)) {
		pr_err("table_size=%u: must be between 64 and %u\n",
		       table_size, 1U << 24);
		return -EINVAL;
	}
	capacity = table_size;
	nb = roundup_pow_of_two(capacity);
	stamp_bucket_bits = ilog2(nb);
	nlocks = min_t(unsigned int, nb, STAMP_MAX_LOCKS);

	entry_size[POOL_TIMELINE] = timeline_size;
	entry_size[POOL_LIFE] = sizeof(struct stamp);
	for (p = 0; p < POOLS; p++)
		pools[p] = vzalloc(array_size(capacity, entry_size[p]));
	stamp_buckets = vmalloc(array_size(nb, sizeof(*stamp_buckets)));
	locks = kcalloc(nlocks, sizeof(*locks), GFP_KERNEL);
	pcpu = alloc_percpu(struct stamp_cpu);
	if (!pools[POOL_TIMELINE] || !pools[POOL_LIFE] || !stamp_buckets ||
	    !locks || !pcpu) {
		stamp_exit();
		return -ENOMEM;
	}
	for (i = 0; i < nb; i++)
		INIT_HLIST_NULLS_HEAD(&stamp_buckets[i], i);
	for (i = 0; i < nlocks; i++)
		spin_lock_init(&locks[i]);

	/* Shard the pool over the CPUs: inserts mostly stay local. */
	per = DIV_ROUND_UP(capacity, ncpus);
	i = 0;
	for_each_possible_cpu(cpu) {
		struct stamp_cpu *c = per_cpu_ptr(pcpu, cpu);
		unsigned int end = min(capacity, (cpu_i + 1) * per);

		spin_lock_init(&c->lock);
		for (; i < end; i++) {
			for (p = 0; p < POOLS; p++) {
				struct stamp *s = pool_entry(p, i);

				s->kind = p == POOL_LIFE ? STAMP_LIFE : STAMP_RX;
				s->free_next = c->free[p];
				c->free[p] = s;
				c->nfree[p]++;
			}
		}
		cpu_i++;
	}
	return 0;
}

void stamp_exit(void)
{
	free_percpu(pcpu);
	pcpu = NULL;
	kfree(locks);
	locks = NULL;
	vfree(stamp_buckets);
	stamp_buckets = NULL;
	vfree(pools[POOL_LIFE]);
	vfree(pools[POOL_TIMELINE]);
	pools[POOL_LIFE] = NULL;
	pools[POOL_TIMELINE] = NULL;
}
