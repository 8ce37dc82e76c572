// SPDX-License-Identifier: GPL-2.0
/*
 * The lifetime view: one skb allocation in N (control's `lifetime N`) is
 * followed to its free, and the time between goes into a per-CPU
 * histogram.  The probes are probes.c's constructor groups and free
 * paths, armed while the view is on; a followed skb has a stamp of kind
 * STAMP_LIFE in the stamp table (stamp.h), under the skb's own address.
 * This part evicts, resets and sweeps those stamps, and no others.
 *
 * A lifetime follows the packet, not the skb, where the packet changes
 * shape (the timelines' rules, latency.c):
 * - software GSO (lifetime_segmented()): each segment carries on the
 *   birth of the skb it was cut from, whose own free is then no sample
 *   (counted as forked);
 * - GRO (lifetime_gro_*()): a frame merged into another skb ends there,
 *   counted as merged, or as reused when napi_gro_frags() keeps its skb
 *   for the next frame without a free;
 * - TCP coalescing (lifetime_coalesced()): an skb whose data joined
 *   another ends there, counted as coalesced.
 * Each of these costs only where the packet changes shape, and only
 * while the view is on: the probes that report them are armed with it.
 *
 * No stamp outlives the view: `lifetime off` ends every one, counted as
 * disarmed (lifetime_sweep()), and a constructor's return probe that
 * comes after that adds none (lifetime_start()).  A followed skb whose
 * free was missed (a kprobe's nmissed) leaves its stamp until a followed
 * constructor returns an skb at its address, which counts it as orphaned
 * instead of inheriting its birth.
 *
 * Files:
 *   lifetime  count min p50 p90 p99 max avg, then a log2 histogram
 *   lifetime_buckets  count sum min max, then the non-empty buckets as
 *             lo:hi:count
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>

#include "config.h"
#include "gro.h"
#include "hist.h"
#include "lifetime.h"
#include "sample.h"
#include "stamp.h"

/* Per CPU; written with interrupts off, merged on read. */
struct life_cpu {
	struct hist h;
	u64 outcomes[END_REASONS];	/* STAMP_ENDS_LIFE */
};

static struct life_cpu __percpu *life_cpu;

/*
 * The GRO frame of this CPU (gro.h), freed before GRO's exit: whether GRO
 * merged it is known only at the exit, so its lifetime waits here (@ns)
 * for the exit to decide.  Written by this CPU with interrupts off.
 */
struct life_gro {
	bool freed;
	u64 ns;
};

static DEFINE_PER_CPU(struct life_gro, life_gro);

static struct delayed_work reaper;

/* The configuration's `lifetime N`: one allocation in N followed, 0 off. */
static u32 lifetime_sample(void)
{
	u32 n;

	rcu_read_lock_sched();
	n = skbprof_config()->lifetime;
	rcu_read_unlock_sched();
	return n;
}

/* Interrupts off. */
static void count_outcome(enum stamp_end o)
{
	this_cpu_ptr(life_cpu)->outcomes[o]++;
}

bool lifetime_follow(u64 *called)
{
	u32 n = lifetime_sample();

	if (!n || !skbprof_sample_keep(SKBPROF_SAMPLE_LIFE, n))
		return false;
	*called = ktime_get_mono_fast_ns();
	return true;
}

/*
 * A constructor called at @called returned @skb.  Its return probe may
 * come after `lifetime off` disarmed it, and after the sweep: the stamp
 * is made only while the view is on, in one RCU-sched section with the
 * test, which the sweep waits for.
 */
void lifetime_start(const struct sk_buff *skb, u64 called)
{
	unsigned long flags;
	struct stamp *s;
	bool fresh;
	u64 now;

	rcu_read_lock_sched();
	if (!skbprof_config()->lifetime)
		goto out;
	s = stamp_lock_insert((unsigned long)skb, STAMP_LIFE, &fresh, &flags);
	if (!s)
		goto out;
	now = ktime_get_mono_fast_ns();
	/*
	 * Nested constructors return the same skb: a stamp made since this
	 * call began is an inner one's, and stays.  An older one is an skb's
	 * at this address whose free was missed.
	 */
	if (!fresh && (s64)(s->t_start - called) >= 0) {
		stamp_unlock(s, flags);
		goto out;
	}
	if (!fresh)
		count_outcome(END_ORPHANED);
	s->t_start = now;
	stamp_unlock(s, flags);
out:
	rcu_read_unlock_sched();
}

/*
 * @skb is freed: its lifetime is a sample, unless its data went on in
 * another skb (@coalesced), or it is the frame GRO works on (decided at
 * GRO's exit).  A second free of that address during one GRO call is
 * another skb's, made since.
 */
static void life_end(const struct sk_buff *skb, bool coalesced)
{
	struct life_gro *g;
	unsigned long flags;
	struct stamp *s;
	u64 ns;

	/* no lifetime stamp outlives the view (sweep): one look at a chain */
	if (!skb || stamp_none((unsigned long)skb, STAMP_LIFE, false))
		return;
	s = stamp_lock((unsigned long)skb, STAMP_LIFE, false, &flags);
	if (!s)
		return;
	ns = ktime_get_mono_fast_ns() - s->t_start;
	g = this_cpu_ptr(&life_gro);
	if (coalesced) {
		count_outcome(END_COALESCED);
	} else if (gro_frame(skb) && !g->freed) {
		g->freed = true;
		g->ns = ns;
	} else {
		hist_add(&this_cpu_ptr(life_cpu)->h, ns);
	}
	stamp_remove(s, flags);
}

void __lifetime_end(const struct sk_buff *skb)
{
	life_end(skb, false);
}

void lifetime_coalesced(const struct sk_buff *skb)
{
	life_end(skb, true);
}

/*
 * The birth of @skb's lifetime, in *@born: false when it is not followed.
 * Its stamp goes, unless @kept: skb_segment_list() makes @skb itself the
 * first segment.
 */
static bool fork_birth(const struct sk_buff *skb, bool kept, u64 *born)
{
	unsigned long flags;
	struct stamp *s;

	s = stamp_lock((unsigned long)skb, STAMP_LIFE, false, &flags);
	if (!s)
		return false;
	*born = s->t_start;
	if (kept)
		stamp_unlock(s, flags);
	else
		stamp_remove(s, flags);
	return true;
}

/* The segment @seg carries on the lifetime born at @born. */
static void fork_one(const struct sk_buff *seg, u64 born)
{
	unsigned long flags;
	struct stamp *s;
	bool fresh;

	s = stamp_lock_insert((unsigned long)seg, STAMP_LIFE, &fresh, &flags);
	if (!s)
		return;		/* counted in table_full */
	s->t_start = born;
	stamp_unlock(s, flags);
}

/* The segment @seg of an skb not followed is not followed either. */
static void forget_one(const struct sk_buff *seg)
{
	unsigned long flags;
	struct stamp *s;

	s = stamp_lock((unsigned long)seg, STAMP_LIFE, false, &flags);
	if (s)
		stamp_remove(s, flags);
}

/*
 * A segment is not an allocation of its own: it takes the birth of a
 * followed skb, replacing the stamp its constructor may have drawn, and
 * an unfollowed skb's segments are not followed either.  The skb's own
 * free is then no sample: its lifetime went on in the segments.
 */
void lifetime_segmented(const struct sk_buff *skb,
			const struct sk_buff *segs)
{
	const struct sk_buff *seg;
	unsigned long flags;
	bool followed, kept = false;
	u64 born = 0;

	if (!skb)
		return;
	/* the test and the stamps in one section: see lifetime_start() */
	rcu_read_lock_sched();
	if (!skbprof_config()->lifetime)
		goto out;
	for (seg = segs; seg && !kept; seg = seg->next)
		kept = seg == skb;
	followed = fork_birth(skb, kept, &born);
	for (seg = segs; seg; seg = seg->next) {
		if (seg == skb)
			continue;
		if (followed)
			fork_one(seg, born);
		else
			forget_one(seg);
	}
	if (followed && !kept) {
		local_irq_save(flags);
		count_outcome(END_FORKED);
		local_irq_restore(flags);
	}
out:
	rcu_read_unlock_sched();
}

/*
 * GRO returned.  A followed frame it freed meanwhile was merged, or else
 * (the stack took it and freed it within the call) is a sample.  One it
 * kept, merged, ends as merged; one napi_gro_frags() kept for the next
 * frame ends as reused: the next frame must not inherit its birth.  Only
 * the skb's address is read: it may be gone.
 */
void lifetime_gro_end(const struct gro_end *end)
{
	struct life_gro *g = this_cpu_ptr(&life_gro);
	unsigned long flags;
	struct stamp *s;

	if (unlikely(g->freed)) {
		local_irq_save(flags);
		g->freed = false;
		if (end->fate != GRO_FATE_PASSED)
			count_outcome(END_MERGED);
		else
			hist_add(&this_cpu_ptr(life_cpu)->h, g->ns);
		local_irq_restore(flags);
		return;
	}
	if (!end->skb || end->fate == GRO_FATE_PASSED ||
	    end->fate == GRO_FATE_FREED ||
	    stamp_none((unsigned long)end->skb, STAMP_LIFE, false))
		return;
	s = stamp_lock((unsigned long)end->skb, STAMP_LIFE, false, &flags);
	if (!s)
		return;
	count_outcome(end->fate == GRO_FATE_HELD ? END_MERGED : END_REUSED);
	stamp_remove(s, flags);
}

/* Every CPU's histogram merged into a new copy; NULL: no memory. */
static struct hist *lifetime_merged(void)
{
	struct hist *h;
	unsigned int cpu;

	h = kvmalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return NULL;
	hist_init(h);
	for_each_possible_cpu(cpu)
		hist_merge(h, &per_cpu_ptr(life_cpu, cpu)->h);
	return h;
}

static int lifetime_show(struct seq_file *m, void *v)
{
	struct hist *h;
	u32 on;

	h = lifetime_merged();
	if (!h)
		return -ENOMEM;
	on = lifetime_sample();
	if (on)
		seq_printf(m, "# skb lifetime, allocation to free, one allocation in %u followed\n",
			   on);
	else
		seq_puts(m, "# skb lifetime: off (control: lifetime N)\n");
	seq_puts(m, "# count min p50 p90 p99 max avg (ns)\n");
	seq_printf(m, "lifetime %llu %llu %llu %llu %llu %llu %llu\n",
		   h->count, h->min, hist_percentile(h, 50),
		   hist_percentile(h, 90), hist_percentile(h, 99), h->max,
		   hist_avg(h));
	if (h->count) {
		seq_puts(m, "\n@lifetime (ns):\n");
		hist_seq_log2(m, h);
	}
	kvfree(h);
	return 0;
}

SKBPROF_DEFINE_SHOW_FILE(lifetime);

static int lifetime_buckets_show(struct seq_file *m, void *v)
{
	struct hist *h = lifetime_merged();

	if (!h)
		return -ENOMEM;
	hist_seq_buckets_header(m, "label ");
	seq_puts(m, "lifetime");
	hist_seq_buckets(m, h);
	kvfree(h);
	return 0;
}

SKBPROF_DEFINE_SHOW_FILE(lifetime_buckets);

static void reset_cpu(unsigned int cpu)
{
	struct life_cpu *c = per_cpu_ptr(life_cpu, cpu);

	hist_init(&c->h);
	memset(c->outcomes, 0, sizeof(c->outcomes));
}

/*
 * The stamps go first: a lifetime that began before the reset would end
 * in the fresh histogram.
 */
static void lifetime_reset(void)
{
	stamp_reap(BIT(STAMP_LIFE), 0, 0, NULL);
	skbprof_reset_cpus(reset_cpu);
}

/*
 * Stale lifetimes go, counted by the table.  None is left while the view
 * is off (lifetime_sweep()), and the table is not walked for them then.
 */
static void reap(struct work_struct *w)
{
	if (lifetime_sample())
		stamp_evict_old(BIT(STAMP_LIFE), NULL);
	schedule_delayed_work(&reaper, STAMP_REAP_PERIOD);
}

/* Under the stamp's bucket lock, interrupts off. */
static void swept(struct stamp *s)
{
	count_outcome(END_DISARMED);
}

/*
 * `lifetime off`: the stamps end, counted as disarmed, and so does GRO's
 * state of the frame in flight on each CPU, which no exit clears (a
 * sample it held for the exit counts as disarmed too).  No handler of
 * the view runs any more: the CPUs' data is this function's.
 */
static void lifetime_sweep(const struct skbprof_config *cfg)
{
	unsigned int cpu;

	if (cfg->lifetime)
		return;
	stamp_reap(BIT(STAMP_LIFE), 0, 0, swept);
	for_each_possible_cpu(cpu) {
		struct life_gro *g = per_cpu_ptr(&life_gro, cpu);

		if (g->freed)
			per_cpu_ptr(life_cpu, cpu)->outcomes[END_DISARMED]++;
		g->freed = false;
	}
}

static void lifetime_stats(struct seq_file *m)
{
	static const unsigned long life_ends = STAMP_ENDS_LIFE;
	unsigned int cpu, o;
	u64 n;

	seq_printf(m, "lifetime_sample %u\n", lifetime_sample());
	for_each_set_bit(o, &life_ends, END_REASONS) {
		n = 0;
		for_each_possible_cpu(cpu)
			n += READ_ONCE(per_cpu_ptr(life_cpu, cpu)->outcomes[o]);
		seq_printf(m, "lifetime_%s %llu\n", stamp_end_name(o), n);
	}
}

static int lifetime_init(void)
{
	unsigned int cpu;

	life_cpu = alloc_percpu(struct life_cpu);
	if (!life_cpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		reset_cpu(cpu);
	INIT_DELAYED_WORK(&reaper, reap);
	schedule_delayed_work(&reaper, STAMP_REAP_PERIOD);
	return 0;
}

static void lifetime_exit(void)
{
	/* the probes part, which calls in here, is down */
	cancel_delayed_work_sync(&reaper);
	free_percpu(life_cpu);
	life_cpu = NULL;
}

static const struct skbprof_file lifetime_files[] = {
	{ "lifetime", 0400, &lifetime_fops },
	{ "lifetime_buckets", 0400, &lifetime_buckets_fops },
};

const struct skbprof_part skbprof_lifetime_part = {
	.name	= "lifetime",
	.init	= lifetime_init,
	.exit	= lifetime_exit,
	.sweep	= lifetime_sweep,
	.reset	= lifetime_reset,
	.stats	= lifetime_stats,
	.files	= lifetime_files,
	.nfiles	= ARRAY_SIZE(lifetime_files),
};
