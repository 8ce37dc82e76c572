// SPDX-License-Identifier: GPL-2.0
/*
 * The stamp table; see stamp.h for the design.
 *
 * Locking:
 *  - stamp_buckets[b].lock guards chain b and its entries (irq-safe:
 *    probes run in process and softirq context).  An entry is linked in,
 *    unlinked and changed only under the lock of the bucket its key hashes
 *    to, so holding that lock and finding the entry in that bucket's
 *    chain means nobody else can touch it.
 *  - struct stamp_cpu.lock guards a CPU's free lists: taken by the CPU
 *    itself, with interrupts off, and by a CPU that takes a batch from it.
 *  - depot.lock guards the depot's free lists.
 * A bucket lock may be held while taking a CPU's lock or the depot's;
 * a CPU's lock and the depot's are never held together, nor two CPUs'.
 *
 * The free entries, by pool (stamp.h): a CPU takes one from its own free
 * list under the bucket lock of the key it inserts, and gives one back
 * to its own list when it removes one.  What runs out or piles up moves
 * in batches, outside the bucket locks, so that a packet pays for a move
 * only once a batch:
 *  - a CPU whose list runs dry takes a batch from the depot, before it
 *    takes the bucket lock of its insert;
 *  - a list that grows past two batches (the CPU frees what others
 *    received: an application's CPU) gives one batch to the depot;
 *  - when the depot is empty too, the CPU takes half of the first online
 *    CPU's list it finds, starting after the one it took from last (a
 *    remote refill: counted);
 *  - when that finds nothing, the table is full: the CPU does not search
 *    again before the next tick, and its packets until then are counted
 *    in table_full at the cost of two reads.
 * A CPU that goes offline gives its lists to the depot once it is dead
 * (a CPU hotplug callback); every entry starts in the depot.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cache.h>
#include <linux/cpuhotplug.h>
#include <linux/hash.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/rculist_nulls.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include "skbprof.h"
#include "stamp.h"

static unsigned int table_size = 16384;
module_param(table_size, uint, 0400);
MODULE_PARM_DESC(table_size,
		 "Packets the stamp table can follow at once (default 16384)");

static unsigned int max_age_ms = 60000;
module_param(max_age_ms, uint, 0400);
MODULE_PARM_DESC(max_age_ms,
		 "Timelines and lifetimes older than this are evicted (at least 1, default 60000 ms)");

u64 stamp_max_age_ns;

/* The largest batch moved between a CPU and the depot or another CPU. */
#define STAMP_BATCH	32

/* The pools, by entry size: the timelines' (RX, TX), the lifetimes'. */
enum stamp_pool { POOL_TIMELINE, POOL_LIFE, POOLS };

static inline enum stamp_pool pool_of(u8 kind)
{
	return kind == STAMP_LIFE ? POOL_LIFE : POOL_TIMELINE;
}

/* A singly linked list of free entries, through free_next. */
struct free_list {
	struct stamp *first;
	unsigned int n;
};

/*
 * A CPU's free lists and counters.  Other CPUs write the first line (a
 * refill from it, rare); the counters, written per packet by the CPU
 * alone, start a line of their own.  Aligned, so that no other per-CPU
 * data shares the first line.
 */
struct stamp_cpu {
	spinlock_t lock;		/* guards free */
	struct free_list free[POOLS];
	/* the CPU's own, written with interrupts off: */
	int rotor;			/* where a remote search starts */
	bool dry[POOLS];		/* a search found nothing ... */
	unsigned long dry_since[POOLS];	/* ... in this tick */
	u64 inserts ____cacheline_aligned_in_smp;
	u64 evictions[STAMP_KINDS];
	u64 full;
	u64 depot_refills;
	u64 remote_refills;
} ____cacheline_aligned_in_smp;

const char *stamp_kind_name(unsigned int kind)
{
	if (kind == STAMP_LIFE)
		return "life";
	return kind < SKBPROF_DIRS ? skbprof_dir_name(kind) : "?";
}

static const char *const end_names[END_REASONS] = {
	[END_DROPPED] = "dropped",
	[END_FREED] = "freed",
	[END_EVICTED] = "evicted",
	[END_RESTARTED] = "restarted",
	[END_REKEYED] = "rekeyed",
	[END_SEGMENTED] = "segmented",
	[END_FORKED] = "forked",
	[END_MERGED] = "merged",
	[END_REUSED] = "reused",
	[END_COALESCED] = "coalesced",
	[END_DUPLICATE] = "duplicate",
	[END_DISARMED] = "disarmed",
	[END_ORPHANED] = "orphaned",
};

const char *stamp_end_name(unsigned int end)
{
	return end < END_REASONS ? end_names[end] : "?";
}

static void *pools[POOLS];
static size_t entry_size[POOLS];
static unsigned int capacity;		/* of each pool */
static unsigned int batch;		/* entries moved at once */
struct stamp_bucket *stamp_buckets;
unsigned int stamp_bucket_bits;
DEFINE_PER_CPU(u64, stamp_misses);
static struct stamp_cpu __percpu *pcpu;
static int hp_state = -1;		/* the CPU hotplug callback's */

static struct {
	spinlock_t lock;		/* guards free */
	struct free_list free[POOLS];
} depot ____cacheline_aligned_in_smp = {
	.lock = __SPIN_LOCK_UNLOCKED(depot.lock),
};

static inline spinlock_t *lock_of(unsigned int b)
{
	return &stamp_buckets[b].lock;
}

/* Entry @i of pool @p. */
static inline struct stamp *pool_entry(enum stamp_pool p, unsigned int i)
{
	return (struct stamp *)((char *)pools[p] + (size_t)i * entry_size[p]);
}

/* Move up to @max entries from the head of @from to the head of @to. */
static unsigned int move_batch(struct free_list *to, struct free_list *from,
			       unsigned int max)
{
	struct stamp *first = from->first, *last = first;
	unsigned int n;

	if (!first || !max)
		return 0;
	for (n = 1; n < max && last->free_next; n++)
		last = last->free_next;
	from->first = last->free_next;
	/* counts are read without the lock: refill(), in_use() */
	WRITE_ONCE(from->n, from->n - n);
	last->free_next = to->first;
	to->first = first;
	WRITE_ONCE(to->n, to->n + n);
	return n;
}

/* Give @c the entries of @got, a list of the caller's own. */
static void take_in(struct stamp_cpu *c, enum stamp_pool p,
		    struct free_list *got)
{
	spin_lock(&c->lock);
	move_batch(&c->free[p], got, got->n);
	spin_unlock(&c->lock);
}

/* Take up to a batch of pool @p from the depot into @got. */
static unsigned int from_depot(enum stamp_pool p, struct free_list *got)
{
	unsigned int n;

	if (!READ_ONCE(depot.free[p].n))
		return 0;
	spin_lock(&depot.lock);
	n = move_batch(got, &depot.free[p], batch);
	spin_unlock(&depot.lock);
	return n;
}

/* Take half of another online CPU's list of pool @p, at most a batch. */
static unsigned int from_remote(struct stamp_cpu *self, int this,
				enum stamp_pool p, struct free_list *got)
{
	unsigned int n;
	int cpu;

	for_each_cpu_wrap(cpu, cpu_online_mask, self->rotor) {
		struct stamp_cpu *c = per_cpu_ptr(pcpu, cpu);

		if (cpu == this || !READ_ONCE(c->free[p].n))
			continue;
		spin_lock(&c->lock);
		n = move_batch(got, &c->free[p],
			       min(batch, DIV_ROUND_UP(c->free[p].n, 2)));
		spin_unlock(&c->lock);
		if (n) {
			self->rotor = cpumask_next(cpu, cpu_online_mask);
			if (self->rotor >= nr_cpu_ids)
				self->rotor = 0;
			return n;
		}
	}
	return 0;
}

/*
 * Refill this CPU's list of pool @p, empty, outside any bucket lock:
 * from the depot, else from another CPU, unless a search in this tick
 * found nothing.  Interrupts off.
 */
static void refill(enum stamp_pool p)
{
	struct stamp_cpu *c = this_cpu_ptr(pcpu);
	struct free_list got = { };

	if (from_depot(p, &got)) {
		this_cpu_inc(pcpu->depot_refills);
	} else if (c->dry[p] && !time_after(jiffies, c->dry_since[p])) {
		return;
	} else if (from_remote(c, smp_processor_id(), p, &got)) {
		this_cpu_inc(pcpu->remote_refills);
	} else {
		c->dry[p] = true;
		c->dry_since[p] = jiffies;
		return;
	}
	c->dry[p] = false;
	take_in(c, p, &got);
}

/* Take a stamp of pool @p from this CPU's list.  Interrupts off. */
static struct stamp *pool_get(enum stamp_pool p)
{
	struct stamp_cpu *c = this_cpu_ptr(pcpu);
	struct stamp *s;

	if (!READ_ONCE(c->free[p].n))
		return NULL;
	spin_lock(&c->lock);
	s = c->free[p].first;
	if (s) {
		c->free[p].first = s->free_next;
		WRITE_ONCE(c->free[p].n, c->free[p].n - 1);
	}
	spin_unlock(&c->lock);
	return s;
}

/*
 * Give @s back to this CPU's list, a batch of it to the depot when it
 * holds more than two.  Interrupts off; @s keeps its kind, which names its
 * pool.
 */
static void pool_put(struct stamp *s)
{
	struct stamp_cpu *c = this_cpu_ptr(pcpu);
	enum stamp_pool p = pool_of(s->kind);
	struct free_list over = { };

	spin_lock(&c->lock);
	s->free_next = c->free[p].first;
	c->free[p].first = s;
	WRITE_ONCE(c->free[p].n, c->free[p].n + 1);
	if (c->free[p].n > 2 * batch)
		move_batch(&over, &c->free[p], batch);
	spin_unlock(&c->lock);
	if (over.n) {
		spin_lock(&depot.lock);
		move_batch(&depot.free[p], &over, over.n);
		spin_unlock(&depot.lock);
	}
}

/* Lock-free walk; may return an entry that is being reused. */
static struct stamp *find_lockless(unsigned long key, u8 kind, unsigned int b)
{
	struct hlist_nulls_node *n;
	struct stamp *s;

begin:
	hlist_nulls_for_each_entry_rcu(s, n, &stamp_buckets[b].head, node) {
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

	hlist_nulls_for_each_entry(s, n, &stamp_buckets[b].head, node) {
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
	enum stamp_pool p = pool_of(kind);
	struct stamp *s;

	/* a refill moves a batch: not under the bucket lock */
	local_irq_save(*flags);
	if (!READ_ONCE(this_cpu_ptr(pcpu)->free[p].n))
		refill(p);
	spin_lock(lock_of(b));
	s = find_locked(key, kind, b);
	if (s) {
		*fresh = false;
		__release(lock_of(b));		/* held: see stamp_bucket */
		return s;
	}
	s = pool_get(p);
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
	hlist_nulls_add_head_rcu(&s->node, &stamp_buckets[b].head);
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
		for (pos = stamp_buckets[b].head.first; !is_a_nulls(pos); pos = next) {
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
		hlist_nulls_for_each_entry(s, pos, &stamp_buckets[b].head, node) {
			if (n++ >= max)
				break;
			show(m, s);
		}
		spin_unlock_irqrestore(lock_of(b), flags);
	}
}

static unsigned int in_use(enum stamp_pool p)
{
	unsigned int nfree = READ_ONCE(depot.free[p].n);
	int cpu;

	for_each_possible_cpu(cpu)
		nfree += READ_ONCE(per_cpu_ptr(pcpu, cpu)->free[p].n);
	return nfree > capacity ? 0 : capacity - nfree;
}

static void stamp_reset_counters(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct stamp_cpu *c = per_cpu_ptr(pcpu, cpu);
		unsigned long flags;

		spin_lock_irqsave(&c->lock, flags);
		c->inserts = 0;
		memset(c->evictions, 0, sizeof(c->evictions));
		c->full = 0;
		c->depot_refills = 0;
		c->remote_refills = 0;
		spin_unlock_irqrestore(&c->lock, flags);
		per_cpu(stamp_misses, cpu) = 0;
	}
}

static void stamp_stats(struct seq_file *m)
{
	u64 inserts = 0, misses = 0, evictions = 0, life_evictions = 0;
	u64 full = 0, depot_refills = 0, remote_refills = 0;
	int cpu;

	for_each_possible_cpu(cpu) {
		struct stamp_cpu *c = per_cpu_ptr(pcpu, cpu);

		inserts += READ_ONCE(c->inserts);
		misses += READ_ONCE(per_cpu(stamp_misses, cpu));
		evictions += READ_ONCE(c->evictions[STAMP_RX]) +
			     READ_ONCE(c->evictions[STAMP_TX]);
		life_evictions += READ_ONCE(c->evictions[STAMP_LIFE]);
		full += READ_ONCE(c->full);
		depot_refills += READ_ONCE(c->depot_refills);
		remote_refills += READ_ONCE(c->remote_refills);
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
	/* batches a CPU took from the depot, and from another CPU */
	seq_printf(m, "table_depot_refills %llu\n", depot_refills);
	seq_printf(m, "table_remote_refills %llu\n", remote_refills);
}

/* A dead CPU's free entries go to the depot: nothing runs there now. */
static int stamp_cpu_dead(unsigned int cpu)
{
	struct stamp_cpu *c = per_cpu_ptr(pcpu, cpu);
	enum stamp_pool p;

	for (p = 0; p < POOLS; p++) {
		struct free_list all = { };
		unsigned long flags;

		spin_lock_irqsave(&c->lock, flags);
		move_batch(&all, &c->free[p], c->free[p].n);
		c->dry[p] = false;
		spin_unlock_irqrestore(&c->lock, flags);
		spin_lock_irqsave(&depot.lock, flags);
		move_batch(&depot.free[p], &all, all.n);
		spin_unlock_irqrestore(&depot.lock, flags);
	}
	return 0;
}

/* The layout the hot path relies on (stamp.h, struct stamp_bucket). */
static inline void stamp_check_layout(void)
{
	/* a bucket lies within one cache line, or starts its own */
	BUILD_BUG_ON(L1_CACHE_BYTES % sizeof(struct stamp_bucket) &&
		     sizeof(struct stamp_bucket) % L1_CACHE_BYTES);
	BUILD_BUG_ON(sizeof(struct stamp_bucket) < STAMP_BUCKET_FIELDS);
	/* the depot, and a CPU's lists, share no line with other data */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_SMP) &&
		     __alignof__(depot) < SMP_CACHE_BYTES);
	BUILD_BUG_ON(IS_ENABLED(CONFIG_SMP) &&
		     __alignof__(struct stamp_cpu) < SMP_CACHE_BYTES);
	/* what other CPUs write is on the first line, the counters are not */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_SMP) &&
		     offsetof(struct stamp_cpu, inserts) < SMP_CACHE_BYTES);
}

static void stamp_exit(void);

/* Pool @p of @size entries, every one in the depot: CPUs take what they use. */
static int pool_make(enum stamp_pool p, size_t size)
{
	unsigned int i;

	entry_size[p] = size;
	pools[p] = vzalloc(array_size(capacity, size));
	if (!pools[p])
		return -ENOMEM;
	depot.free[p].first = NULL;
	depot.free[p].n = 0;
	for (i = capacity; i-- > 0;) {
		struct stamp *s = pool_entry(p, i);

		s->kind = p == POOL_LIFE ? STAMP_LIFE : STAMP_RX;
		s->free_next = depot.free[p].first;
		depot.free[p].first = s;
		depot.free[p].n++;
	}
	return 0;
}

/*
 * The timelines' pool: its entries (RX and TX kinds) begin with their
 * struct stamp and are @size long, which only their part knows; its init
 * makes the pool, before any probe runs.  stamp_exit() frees it.
 */
int stamp_timeline_pool(size_t size)
{
	return pool_make(POOL_TIMELINE, size);
}

static int stamp_init(void)
{
	unsigned int i, nb;
	int cpu, ret;

	stamp_check_layout();
	if (table_size < 64 || table_size > (1U << 24)) {
		pr_err("table_size=%u: must be between 64 and %u\n",
		       table_size, 1U << 24);
		return -EINVAL;
	}
	capacity = table_size;
	/*
	 * Two chains per entry at least: with the table full, most chains
	 * are still empty, and a packet not followed ends its look there
	 * (stamp_none()).
	 */
	nb = 2 * roundup_pow_of_two(capacity);
	stamp_bucket_bits = ilog2(nb);
	/*
	 * Batches small enough that the lists of the online CPUs, each up
	 * to two batches, hold no more than half of the table: the rest is
	 * in use or in the depot, a read away.
	 */
	batch = clamp_t(unsigned int, capacity / (4 * num_online_cpus()), 1,
			STAMP_BATCH);

	/* page-aligned: a bucket does not straddle two lines */
	stamp_buckets = vmalloc(array_size(nb, sizeof(*stamp_buckets)));
	pcpu = alloc_percpu(struct stamp_cpu);
	if (!stamp_buckets || !pcpu || pool_make(POOL_LIFE, sizeof(struct stamp))) {
		stamp_exit();
		return -ENOMEM;
	}
	for (i = 0; i < nb; i++) {
		spin_lock_init(&stamp_buckets[i].lock);
		INIT_HLIST_NULLS_HEAD(&stamp_buckets[i].head, i);
	}
	for_each_possible_cpu(cpu)
		spin_lock_init(&per_cpu_ptr(pcpu, cpu)->lock);

	ret = cpuhp_setup_state_nocalls(CPUHP_BP_PREPARE_DYN, "skbprof/stamp:dead",
					NULL, stamp_cpu_dead);
	if (ret < 0) {
		stamp_exit();
		return ret;
	}
	hp_state = ret;
	return 0;
}

/* Every user is down, and no RCU reader is left. */
static void stamp_exit(void)
{
	if (hp_state >= 0)
		cpuhp_remove_state_nocalls(hp_state);
	hp_state = -1;
	free_percpu(pcpu);
	pcpu = NULL;
	vfree(stamp_buckets);
	stamp_buckets = NULL;
	vfree(pools[POOL_LIFE]);
	vfree(pools[POOL_TIMELINE]);
	pools[POOL_LIFE] = NULL;
	pools[POOL_TIMELINE] = NULL;
}

unsigned int stamp_evict_old(unsigned int kinds, void (*gone)(struct stamp *s))
{
	return stamp_reap(kinds, ktime_get_ns(), stamp_max_age_ns, gone);
}

static int stamp_part_init(void)
{
	/* 0 would make every stamp stale at once */
	if (!max_age_ms) {
		pr_err("max_age_ms=0: must be at least 1\n");
		return -EINVAL;
	}
	stamp_max_age_ns = (u64)max_age_ms * NSEC_PER_MSEC;
	return stamp_init();
}

/*
 * Before the timelines and lifetimes, which each end, evict, reset and
 * sweep their own entries; the table's counters alone are its own.
 */
const struct skbprof_part skbprof_stamp_part = {
	.name	= "stamp",
	.init	= stamp_part_init,
	.exit	= stamp_exit,
	.reset	= stamp_reset_counters,
	.stats	= stamp_stats,
};
