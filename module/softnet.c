// SPDX-License-Identifier: GPL-2.0
/*
 * The softnet view: below the stack, per CPU.
 *
 * From the softirq tracepoints (irq:softirq_raise, _entry, _exit) for the
 * vectors NET_RX and NET_TX, and napi:napi_poll, while `softnet on`:
 *   net-rx-wait, net-tx-wait  the first raise since the vector last ran,
 *                             to its entry (a wait in ksoftirqd included)
 *   net-rx-run, net-tx-run    entry to exit
 *   napi-poll                 a NAPI poll inside a NET_RX run: from the
 *                             run's entry, or the poll before, to the
 *                             poll's tracepoint
 * and the counts of polls, of polls that used their whole budget, and of
 * NET_RX runs in ksoftirqd.  The kernel's own per-CPU counters (NET_RX
 * softirqs as /proc/softirqs has them; processed, time_squeeze and
 * dropped as /proc/net/softnet_stat has them) are read when the file is,
 * as deltas since the last reset: they cost nothing and need no probe.
 *
 * Each CPU's data is written only on that CPU: the raise in any context
 * (this_cpu ops, which no interrupt splits), the rest in softirq context
 * or with bottom halves off, the histograms with interrupts off and the
 * counts with this_cpu ops (a reset writes them from an IPI, and netpoll
 * polls NAPI from any context, a hardirq on top of a NET_RX run
 * included).
 *
 * Files:
 *   softnet           # cpu what count min p50 p90 p99 max avg (ns)
 *   softnet_buckets   the same histograms with their buckets, as
 *                     latency_buckets (hist_seq.c)
 *   softnet_counters  # cpu net_rx polls polls_full time_squeeze
 *                       backlog_drops ksoftirqd processed
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/interrupt.h>
#include <linux/kernel_stat.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/timekeeping.h>

#include "compat.h"
#include "config.h"
#include "hist.h"
#include "softnet.h"

/* What the histograms measure, in the file's order. */
enum sn_what {
	SN_RX_WAIT,
	SN_RX_RUN,
	SN_TX_WAIT,
	SN_TX_RUN,
	SN_POLL,
	SN_WHATS
};

static const char *const sn_names[SN_WHATS] = {
	[SN_RX_WAIT] = "net-rx-wait",
	[SN_RX_RUN] = "net-rx-run",
	[SN_TX_WAIT] = "net-tx-wait",
	[SN_TX_RUN] = "net-tx-run",
	[SN_POLL] = "napi-poll",
};

/* The vectors followed: NET_RX (0) and NET_TX (1). */
enum { SN_RX, SN_TX, SN_VECS };

/* The kernel's counters of a CPU, as the reset found them. */
struct sn_base {
	unsigned int net_rx;
	unsigned int processed;
	unsigned int time_squeeze;
	unsigned int dropped;
};

struct sn_cpu {
	u64 raised[SN_VECS];	/* the first raise since the last run; 0: none */
	u64 entered[SN_VECS];	/* the run in progress began; 0: none */
	u64 poll_from;		/* the NET_RX run's entry or its last poll */
	struct hist h[SN_WHATS];
	u64 polls;
	u64 polls_full;
	u64 ksoftirqd;		/* NET_RX runs in ksoftirqd */
	struct sn_base base;
};

static struct sn_cpu __percpu *sn_cpu;

static inline int sn_vec(unsigned int vec)
{
	return vec == NET_RX_SOFTIRQ ? SN_RX : vec == NET_TX_SOFTIRQ ? SN_TX : -1;
}

void softnet_raise(unsigned int vec)
{
	int v = sn_vec(vec);

	if (v < 0 || this_cpu_read(sn_cpu->raised[v]))
		return;
	this_cpu_cmpxchg(sn_cpu->raised[v], 0, ktime_get_mono_fast_ns());
}

static void sn_add(struct sn_cpu *c, enum sn_what w, u64 ns)
{
	unsigned long flags;

	local_irq_save(flags);
	hist_add(&c->h[w], ns);
	local_irq_restore(flags);
}

/* Is this softirq run ksoftirqd's (not an interrupt's exit or a bh enable)? */
static bool in_ksoftirqd(void)
{
	return (current->flags & PF_KTHREAD) &&
	       !strncmp(current->comm, "ksoftirqd/", 10);
}

void softnet_entry(unsigned int vec)
{
	int v = sn_vec(vec);
	struct sn_cpu *c;
	u64 now, raised;

	if (v < 0)
		return;
	c = this_cpu_ptr(sn_cpu);
	now = ktime_get_mono_fast_ns();
	raised = this_cpu_xchg(sn_cpu->raised[v], 0);
	if (raised)
		sn_add(c, v == SN_RX ? SN_RX_WAIT : SN_TX_WAIT, now - raised);
	c->entered[v] = now;
	if (v == SN_RX) {
		c->poll_from = now;
		if (in_ksoftirqd())
			this_cpu_inc(sn_cpu->ksoftirqd);
	}
}

void softnet_exit(unsigned int vec)
{
	int v = sn_vec(vec);
	struct sn_cpu *c;
	u64 entered;

	if (v < 0)
		return;
	c = this_cpu_ptr(sn_cpu);
	entered = c->entered[v];
	c->entered[v] = 0;
	if (v == SN_RX)
		c->poll_from = 0;
	if (entered)
		sn_add(c, v == SN_RX ? SN_RX_RUN : SN_TX_RUN,
		       ktime_get_mono_fast_ns() - entered);
}

void softnet_poll(int work, int budget)
{
	struct sn_cpu *c = this_cpu_ptr(sn_cpu);
	u64 now;

	this_cpu_inc(sn_cpu->polls);
	if (work >= budget)
		this_cpu_inc(sn_cpu->polls_full);
	/*
	 * A busy poll outside NET_RX, or netpoll, which polls with
	 * interrupts off (NET_RX never does), from a hardirq on top of this
	 * NET_RX run too: counted, not timed, and poll_from is the run's.
	 */
	if (!c->poll_from || !in_serving_softirq() || irqs_disabled())
		return;
	now = ktime_get_mono_fast_ns();
	sn_add(c, SN_POLL, now - c->poll_from);
	c->poll_from = now;
}

/* The kernel's counters of @cpu now. */
static void sn_kernel(unsigned int cpu, struct sn_base *k)
{
	struct softnet_data *sd = &per_cpu(softnet_data, cpu);

	k->net_rx = kstat_softirqs_cpu(NET_RX_SOFTIRQ, cpu);
	k->processed = READ_ONCE(sd->processed);
	k->time_squeeze = READ_ONCE(sd->time_squeeze);
	k->dropped = skbprof_softnet_dropped(sd);
}

/* ---- files ---- */

struct sn_snap {
	struct hist h[SN_WHATS];
};

static bool sn_cpu_shown(unsigned int cpu)
{
	const struct sn_cpu *c = per_cpu_ptr(sn_cpu, cpu);
	unsigned int w;

	if (cpu_online(cpu))
		return true;
	for (w = 0; w < SN_WHATS; w++)
		if (READ_ONCE(c->h[w].count))
			return true;
	return false;
}

static void sn_row(struct seq_file *m, const char *cpu, unsigned int w,
		   const struct hist *h)
{
	seq_printf(m, "%s %s %llu %llu %llu %llu %llu %llu %llu\n", cpu,
		   sn_names[w], h->count, h->min, hist_percentile(h, 50),
		   hist_percentile(h, 90), hist_percentile(h, 99), h->max,
		   hist_avg(h));
}

static void sn_bucket_row(struct seq_file *m, const char *cpu, unsigned int w,
			  const struct hist *h)
{
	seq_printf(m, "%s %s", cpu, sn_names[w]);
	hist_seq_buckets(m, h);
}

/*
 * softnet and softnet_buckets: a row per online CPU (or one with counts)
 * and what, then the "all" rows, their sums; @buckets: the machine form,
 * with the histograms' buckets.
 */
static int sn_show(struct seq_file *m, bool buckets)
{
	void (*row)(struct seq_file *m, const char *cpu, unsigned int w,
		    const struct hist *h) = buckets ? sn_bucket_row : sn_row;
	struct sn_snap *all;
	unsigned int cpu, w;
	char name[16];
	bool on;

	all = kvmalloc(sizeof(*all), GFP_KERNEL);
	if (!all)
		return -ENOMEM;
	for (w = 0; w < SN_WHATS; w++)
		hist_init(&all->h[w]);
	rcu_read_lock();
	on = skbprof_config()->softnet;
	rcu_read_unlock();
	if (buckets) {
		/* a machine table: a meta line, no comment */
		seq_printf(m, "# softnet=%s\n", on ? "on" : "off");
		hist_seq_buckets_header(m, "cpu what ");
	} else {
		seq_printf(m, "# softirqs and NAPI polls per CPU%s\n",
			   on ? "" : ": off (control: softnet on)");
		seq_puts(m, "# cpu what count min p50 p90 p99 max avg (ns)\n");
	}
	for_each_possible_cpu(cpu) {
		const struct sn_cpu *c = per_cpu_ptr(sn_cpu, cpu);

		if (!sn_cpu_shown(cpu))
			continue;
		snprintf(name, sizeof(name), "%u", cpu);
		for (w = 0; w < SN_WHATS; w++) {
			row(m, name, w, &c->h[w]);
			hist_merge(&all->h[w], &c->h[w]);
		}
	}
	for (w = 0; w < SN_WHATS; w++)
		row(m, "all", w, &all->h[w]);
	kvfree(all);
	return 0;
}

static int softnet_show(struct seq_file *m, void *v)
{
	return sn_show(m, false);
}

SKBPROF_DEFINE_SHOW_FILE(softnet);

static int softnet_buckets_show(struct seq_file *m, void *v)
{
	return sn_show(m, true);
}

SKBPROF_DEFINE_SHOW_FILE(softnet_buckets);

static void sn_counters_row(struct seq_file *m, const char *cpu,
			    const u64 *v)
{
	seq_printf(m, "%s %llu %llu %llu %llu %llu %llu %llu\n", cpu, v[0],
		   v[1], v[2], v[3], v[4], v[5], v[6]);
}

static int softnet_counters_show(struct seq_file *m, void *v)
{
	u64 row[7], all[7] = { 0 };
	unsigned int cpu, i;
	struct sn_base k;
	char name[16];

	seq_puts(m, "# cpu net_rx polls polls_full time_squeeze backlog_drops ksoftirqd processed\n");
	for_each_possible_cpu(cpu) {
		const struct sn_cpu *c = per_cpu_ptr(sn_cpu, cpu);

		if (!sn_cpu_shown(cpu))
			continue;
		sn_kernel(cpu, &k);
		/* the kernel's counters are unsigned int: they wrap */
		row[0] = (unsigned int)(k.net_rx - c->base.net_rx);
		row[1] = READ_ONCE(c->polls);
		row[2] = READ_ONCE(c->polls_full);
		row[3] = (unsigned int)(k.time_squeeze - c->base.time_squeeze);
		row[4] = (unsigned int)(k.dropped - c->base.dropped);
		row[5] = READ_ONCE(c->ksoftirqd);
		row[6] = (unsigned int)(k.processed - c->base.processed);
		snprintf(name, sizeof(name), "%u", cpu);
		sn_counters_row(m, name, row);
		for (i = 0; i < ARRAY_SIZE(row); i++)
			all[i] += row[i];
	}
	sn_counters_row(m, "all", all);
	return 0;
}

SKBPROF_DEFINE_SHOW_FILE(softnet_counters);

/* ---- the part ---- */

/* On @cpu itself (an IPI) or an offline CPU: see skbprof_reset_cpus(). */
static void reset_cpu(unsigned int cpu)
{
	struct sn_cpu *c = per_cpu_ptr(sn_cpu, cpu);
	unsigned int w;

	for (w = 0; w < SN_WHATS; w++)
		hist_init(&c->h[w]);
	c->polls = 0;
	c->polls_full = 0;
	c->ksoftirqd = 0;
	sn_kernel(cpu, &c->base);
}

static void softnet_reset(void)
{
	skbprof_reset_cpus(reset_cpu);
}

/*
 * `softnet off`, or a load with softnet off (its probes ran until the
 * first trim): no handler runs any more (main.c waited), so each CPU's
 * raise, run and poll in flight are forgotten, and a later `softnet on`
 * measures none from before.
 */
static void softnet_sweep(const struct skbprof_config *cfg)
{
	unsigned int cpu;

	if (cfg->softnet)
		return;
	for_each_possible_cpu(cpu) {
		struct sn_cpu *c = per_cpu_ptr(sn_cpu, cpu);

		memset(c->raised, 0, sizeof(c->raised));
		memset(c->entered, 0, sizeof(c->entered));
		c->poll_from = 0;
	}
}

static int softnet_part_init(void)
{
	unsigned int cpu, w;

	sn_cpu = alloc_percpu(struct sn_cpu);
	if (!sn_cpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct sn_cpu *c = per_cpu_ptr(sn_cpu, cpu);

		for (w = 0; w < SN_WHATS; w++)
			hist_init(&c->h[w]);
		sn_kernel(cpu, &c->base);
	}
	return 0;
}

/* The probes part is down by now (main.c orders the parts). */
static void softnet_part_exit(void)
{
	free_percpu(sn_cpu);
	sn_cpu = NULL;
}

static void softnet_stats(struct seq_file *m)
{
	bool on;

	rcu_read_lock();
	on = skbprof_config()->softnet;
	rcu_read_unlock();
	seq_printf(m, "softnet %s\n", on ? "on" : "off");
}

static const struct skbprof_file softnet_files[] = {
	{ "softnet", 0400, &softnet_fops },
	{ "softnet_buckets", 0400, &softnet_buckets_fops },
	{ "softnet_counters", 0400, &softnet_counters_fops },
};

const struct skbprof_part skbprof_softnet_part = {
	.name	= "softnet",
	.init	= softnet_part_init,
	.exit	= softnet_part_exit,
	.sweep	= softnet_sweep,
	.reset	= softnet_reset,
	.stats	= softnet_stats,
	.files	= softnet_files,
	.nfiles	= ARRAY_SIZE(softnet_files),
};
