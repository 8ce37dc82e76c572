// SPDX-License-Identifier: GPL-2.0
/*
 * The lifetime view: one skb allocation in N (control's `lifetime N`) is
 * followed to its free, and the time between goes into a per-CPU
 * histogram.  The probes are probes.c's constructor groups and free
 * paths, armed while the view is on; a followed skb has a stamp of kind
 * STAMP_LIFE in the stamp table (timeline.c sets it up and reaps it),
 * under the skb's own address.
 *
 * Files:
 *   lifetime  count min p50 p90 p99 max avg, then a log2 histogram
 *   lifetime_buckets  count sum min max, then the non-empty buckets as
 *             lo:hi:count
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>

#include "config.h"
#include "hist.h"
#include "lifetime.h"
#include "stamp.h"

/* Per CPU; updated under a stamp's bucket lock, interrupts off. */
static struct hist __percpu *life_hist;

void lifetime_start(const struct sk_buff *skb)
{
	unsigned long flags;
	struct stamp *s;
	bool fresh;

	s = stamp_lock_insert((unsigned long)skb, STAMP_LIFE, &fresh, &flags);
	if (!s)
		return;
	/*
	 * Nested constructors return the same skb: the first stamp stays.
	 * The free paths are armed with the view, so an older stamp under
	 * this address was not left by an skb freed unseen.
	 */
	if (fresh) {
		s->t_start = ktime_get_mono_fast_ns();
		s->owner = skb;
	}
	stamp_unlock(s, flags);
}

void lifetime_end(const struct sk_buff *skb)
{
	unsigned long flags;
	struct stamp *s;
	u32 on;

	rcu_read_lock();
	on = skbprof_config()->lifetime;
	rcu_read_unlock();
	if (!on || !skb)
		return;
	s = stamp_lock((unsigned long)skb, STAMP_LIFE, false, &flags);
	if (!s)
		return;
	hist_add(this_cpu_ptr(life_hist), ktime_get_mono_fast_ns() - s->t_start);
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
		hist_merge(h, per_cpu_ptr(life_hist, cpu));
	return h;
}

static int lifetime_show(struct seq_file *m, void *v)
{
	struct hist *h;
	u32 on;

	h = lifetime_merged();
	if (!h)
		return -ENOMEM;
	rcu_read_lock();
	on = skbprof_config()->lifetime;
	rcu_read_unlock();
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
	hist_seq_buckets_header(m, "");
	seq_puts(m, "lifetime");
	hist_seq_buckets(m, h);
	kvfree(h);
	return 0;
}

SKBPROF_DEFINE_SHOW_FILE(lifetime_buckets);

static void reset_cpu(unsigned int cpu)
{
	hist_init(per_cpu_ptr(life_hist, cpu));
}

static void lifetime_reset(void)
{
	skbprof_reset_cpus(reset_cpu);
}

static void lifetime_stats(struct seq_file *m)
{
	rcu_read_lock();
	seq_printf(m, "lifetime_sample %u\n", skbprof_config()->lifetime);
	rcu_read_unlock();
}

static int lifetime_init(void)
{
	unsigned int cpu;

	life_hist = alloc_percpu(struct hist);
	if (!life_hist)
		return -ENOMEM;
	for_each_possible_cpu(cpu)
		hist_init(per_cpu_ptr(life_hist, cpu));
	return 0;
}

static void lifetime_exit(void)
{
	/* the probes part, which calls in here, is down */
	free_percpu(life_hist);
	life_hist = NULL;
}

static const struct skbprof_file lifetime_files[] = {
	{ "lifetime", 0400, &lifetime_fops },
	{ "lifetime_buckets", 0400, &lifetime_buckets_fops },
};

const struct skbprof_part skbprof_lifetime_part = {
	.name	= "lifetime",
	.init	= lifetime_init,
	.exit	= lifetime_exit,
	.reset	= lifetime_reset,
	.stats	= lifetime_stats,
	.files	= lifetime_files,
	.nfiles	= ARRAY_SIZE(lifetime_files),
};
