// SPDX-License-Identifier: GPL-2.0
/*
 * Drop monitor: where and why the kernel drops packets.
 *
 * The free path's probe on the kfree_skb tracepoint (probes.c; the
 * kernel's "this packet was dropped" event) calls drops_record(), which
 * counts drops per (location, reason, stage, network namespace) in a
 * table of the CPU it runs on; see drops_table.h.
 * /sys/kernel/debug/skbprof/drops (for people) and drops_rows (for
 * programs) merge the CPUs' tables when opened and print one row per
 * key, most drops first.
 * Documentation/skbprof.rst describes the file.
 *
 * The hot path touches only its own CPU's table, with interrupts off
 * (the tracepoint fires in task, softirq and hardirq context, and a
 * drop may interrupt the recording of another on the same CPU); it never
 * allocates and takes no lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/fs.h>
#include <linux/if_ether.h>
#include <linux/kallsyms.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>

#include "config.h"
#include "drops.h"
#include "drops_table.h"
#include "pktinfo.h"
#include "pkttrace.h"
#include "sample.h"
#include "skbprof.h"
#include "stages.h"

static unsigned int drop_keys = 256;
module_param(drop_keys, uint, 0400);
MODULE_PARM_DESC(drop_keys,
		 "Distinct (location, reason, stage, netns) keys each CPU's drop table holds (1-16384, default 256)");

static int drops_fail_init_at;
SKBPROF_TEST_PARAM(drops_fail_init_at, drops_fail_init_at, int, 0400,
		   "Testing only: fail the drop monitor's initialisation at its step N (0: never)");

/* Per-CPU key tables; slots are allocated separately, on the CPU's node. */
static struct dt_table __percpu *drops_tables;

/*
 * Generation of the tables' contents; bumped by reset, which is serialised
 * by the control file.  Starts above the tables' 0, so fresh tables are
 * "old" until their first drop.
 */
static unsigned long drops_gen = 1;

static int drops_fault(int step)
{
	return drops_fail_init_at == step ? -ENOMEM : 0;
}

/*
 * The protocol of @skb: skb->protocol and, for IP, the header's protocol,
 * as its flow @t has it (skbprof_skb_info()).
 */
static void drops_skb_proto(const struct sk_buff *skb,
			    const struct skbprof_tuple *t, struct dt_sample *s)
{
	s->ethertype = ntohs(skb->protocol);
	s->l4 = t->family ? t->proto : 0;
	s->flags = t->family ? DT_L4 : 0;
}

/*
 * The network namespace of a drop, by its device (skbprof_skb_info()) or
 * else its socket, and the cgroup of its socket: a full socket's, the
 * one it was created in; 0 when not known.
 */
static void drops_skb_owner(const struct sk_buff *skb, struct dt_sample *s,
			    u64 dev_netns)
{
	const struct sock *sk = skb->sk;

	s->netns = dev_netns;
	s->cgroup = 0;
	if (!sk)
		return;
	if (!s->netns)
		s->netns = sock_net(sk)->ns.inum;
	s->cgroup = skbprof_sk_cgroup_id(sk);
}

/* A drop on the trace stream; its location is the event's code address. */
struct drop_event {
	struct skbprof_tuple tuple;
	u32 netns;			/* 0: not known */
	u8 stage;			/* SKBPROF_REACHED_* */
	char reason[40];		/* copied: a subsystem's list may go */
	char dev[IFNAMSIZ];
};

/*
 * "DROP NO_SOCKET sym+0x1/0x2 | UDP a:p > b:p | dev lo | stage ip-udp |
 * netns 4026531840", or "kind=drop reason=NO_SOCKET location=sym+0x1/0x2
 * module=- proto=UDP ... dev=lo stage=ip-udp netns=4026531840" ("-" where
 * not known; module: the module of the code, if not the kernel's).  The
 * location is resolved when the event is read: no symbol lookup, and no
 * buffer for its name, deep in the stack where packets are freed.
 */
static int drop_fmt(char *buf, size_t size, const void *data,
		    enum skbprof_trace_form form, const char *sym)
{
	const struct drop_event *e = data;
	const char *stage = skbprof_reached_name(e->stage), *mod;
	char flow[SKBPROF_FLOW_LEN], ns[16] = "-";

	if (e->netns)
		snprintf(ns, sizeof(ns), "%u", e->netns);
	if (form == SKBPROF_TRACE_TEXT) {
		skbprof_fmt_flow(flow, sizeof(flow), &e->tuple,
				 SKBPROF_FLOW_TRACE);
		return scnprintf(buf, size,
				 "DROP %s %s | %s | dev %s | stage %s | netns %s",
				 e->reason, sym, flow, e->dev, stage, ns);
	}
	/* a record's values have no blanks: "sym+0x1/0x2 [mod]" in two keys */
	mod = strstr(sym, " [");
	skbprof_fmt_flow(flow, sizeof(flow), &e->tuple, SKBPROF_FLOW_RECORD);
	return scnprintf(buf, size,
			 "kind=drop reason=%s location=%.*s module=%.*s %s dev=%s stage=%s netns=%s",
			 e->reason, mod ? (int)(mod - sym) : (int)strlen(sym),
			 sym, mod ? (int)strcspn(mod + 2, "]") : 1,
			 mod ? mod + 2 : "-", flow, e->dev, stage, ns);
}

/* @dev: the device's name, "" when none */
static void drops_trace(const struct skbprof_tuple *t, const char *dev,
			void *location, u32 reason, u8 stage, u32 netns)
{
	struct drop_event e = {
		.tuple = *t,
		.netns = netns,
		.stage = stage,
	};
	const char *name = NULL;

	if (SKBPROF_HAVE_DROP_REASONS)
		name = skbprof_drop_reason_name(reason);
	strscpy(e.reason, name ? name : "-", sizeof(e.reason));
	strscpy(e.dev, dev[0] ? dev : "-", sizeof(e.dev));
	skbprof_trace_event(drop_fmt, &e, (unsigned long)location);
}

void drops_record(struct sk_buff *skb, void *location, u32 reason,
		  const struct skbprof_seen *seen)
{
	const struct skbprof_config *cfg;
	struct skbprof_pktinfo pi __uninitialized;
	struct skbprof_tuple t __uninitialized;
	struct dt_sample s __uninitialized;
	unsigned long flags;
	bool match = true;
	u64 dev_netns;

	rcu_read_lock();
	cfg = skbprof_config();
	if (!(cfg->stages & BIT(SKBPROF_STAGE_DROPS)))
		goto out;
	if (!cfg->filter.terms) {
		/*
		 * No filter: the row needs the protocol, the device (copied
		 * into the sample) and the owner, none of the rest of what
		 * the filter could ask (addresses, ports, mark, process);
		 * the trace's line has the flow.
		 */
		memset(&t, 0, sizeof(t));
		if (cfg->trace != SKBPROF_TRACE_OFF)
			skbprof_flow_parse(skb, &t);
		else
			skbprof_flow_proto(skb, &t);
		dev_netns = skbprof_skb_dev_info(skb, s.dev);
		drops_skb_owner(skb, &s, dev_netns);
	} else {
		/* The device is copied once, for the filter and the table. */
		skbprof_skb_info(skb, &pi, s.dev, &t);
		/*
		 * A packet with a timeline was matched already, where its
		 * headers were first known; its sender is known too, whoever
		 * frees it.
		 */
		if (seen && !pi.pid && seen->pid) {
			pi.pid = seen->pid;
			pi.comm = seen->comm;
			pi.cgroup = seen->cgroup;
		}
		drops_skb_owner(skb, &s, pi.netns);
		/* no process: a socket's cgroup is the best `cgroup` can have */
		if (!pi.cgroup)
			pi.cgroup = s.cgroup;
		if (!seen || seen->matched < 0)
			match = skbprof_filter_match(&cfg->filter, &pi);
	}
	if (seen && seen->matched >= 0)
		match = seen->matched;
	if (!match || !skbprof_sample_keep(SKBPROF_SAMPLE_DROPS, cfg->sample))
		goto out;

	s.location = (unsigned long)location;
	s.reason = reason;
	s.stage = seen ? seen->reached : SKBPROF_REACHED_NONE;
	s.now_ns = ktime_get_boot_fast_ns();
	drops_skb_proto(skb, &t, &s);

	local_irq_save(flags);
	dt_record(this_cpu_ptr(drops_tables), READ_ONCE(drops_gen), &s);
	local_irq_restore(flags);

	if (cfg->trace != SKBPROF_TRACE_OFF)
		drops_trace(&t, s.dev, location, reason, s.stage, s.netns);
out:
	rcu_read_unlock();
}

/*
 * A merged, sorted copy of every CPU's table, taken when drops is opened,
 * and the boot and wall clocks read once it was taken: no time in the
 * rows is later than boot_ns, and a reader turns the rows' times into
 * wall-clock time with the pair.
 */
struct drops_snap {
	size_t n;
	u64 boot_ns;
	u64 real_ns;
	struct dt_row rows[];
};

/* A struct drops_snap, or NULL (see skbprof_snapshot_open()). */
static void *drops_snapshot(void)
{
	unsigned long gen = READ_ONCE(drops_gen);
	size_t cap = 0, limit, n;
	struct drops_snap *snap;
	unsigned int cpu;

	/*
	 * Size the copy by the keys in use now, plus room for a few new
	 * ones; if keys are added faster than that, retry larger, up to
	 * every table full.
	 */
	for_each_possible_cpu(cpu)
		cap += READ_ONCE(per_cpu_ptr(drops_tables, cpu)->used);
	limit = (size_t)num_possible_cpus() * drop_keys;
	for (;;) {
		cap = min(cap + 64, limit);
		snap = kvmalloc(struct_size(snap, rows, cap), GFP_KERNEL);
		if (!snap)
			return NULL;
		n = 0;
		for_each_possible_cpu(cpu) {
			n += dt_snapshot(per_cpu_ptr(drops_tables, cpu), gen,
					 snap->rows + n, cap - n);
		}
		if (n < cap || cap == limit)
			break;
		kvfree(snap);
		cap *= 2;
	}
	snap->n = dt_merge(snap->rows, n);
	snap->boot_ns = ktime_get_boottime_ns();
	snap->real_ns = ktime_get_real_ns();
	return snap;
}

static void *drops_seq_start(struct seq_file *m, loff_t *pos)
{
	struct drops_snap *snap = m->private;

	if (*pos == 0)
		return SEQ_START_TOKEN;
	if (*pos - 1 < snap->n)
		return &snap->rows[*pos - 1];
	return NULL;
}

static void *drops_seq_next(struct seq_file *m, void *v, loff_t *pos)
{
	++*pos;
	return drops_seq_start(m, pos);
}

static void drops_seq_stop(struct seq_file *m, void *v)
{
}

/* Seconds since boot, CLOCK_BOOTTIME (as /proc/uptime), microseconds. */
static void drops_put_time(struct seq_file *m, u64 ns)
{
	u32 rem;
	u64 sec = div_u64_rem(ns, NSEC_PER_SEC, &rem);

	seq_printf(m, " %10llu.%06u", sec, rem / (u32)NSEC_PER_USEC);
}

/* The text of a row's columns that both drops and drops_rows show. */
struct drops_cols {
	char reason[48];	/* a name, "unknown:N" or "-" */
	char proto[24];
	const char *loc;	/* sym, or "?": skbprof_location() */
	char sym[KSYM_SYMBOL_LEN];
};

static void drops_cols(struct drops_cols *c, const struct dt_row *r)
{
	const char *name;

	strscpy(c->reason, "-", sizeof(c->reason));
	if (SKBPROF_HAVE_DROP_REASONS) {
		rcu_read_lock();
		name = skbprof_drop_reason_name(r->reason);
		if (name)
			strscpy(c->reason, name, sizeof(c->reason));
		else
			snprintf(c->reason, sizeof(c->reason), "unknown:%u",
				 r->reason);
		rcu_read_unlock();
	}
	dt_proto_name(c->proto, sizeof(c->proto), r);
	c->loc = skbprof_location(c->sym, r->location);
}

/*
 * The human view, for cat: padded columns, a '+' after a protocol,
 * device or cgroup when the key's drops had several, seconds since boot.
 */
static int drops_seq_show(struct seq_file *m, void *v)
{
	const struct dt_row *r = v;
	char dev[DT_DEVLEN + 1], cgroup[24], proto[25];
	struct drops_cols c;

	if (v == SEQ_START_TOKEN) {
		const struct drops_snap *snap = m->private;

		seq_printf(m, "# clock boottime_ns %llu realtime_ns %llu\n",
			   snap->boot_ns, snap->real_ns);
		seq_printf(m, "%10s %-24s %-14s %-16s %-10s %-8s %-9s %17s %17s %s\n",
			   "count", "reason", "proto", "dev", "netns", "cgroup",
			   "stage", "first", "last", "location");
		return 0;
	}

	drops_cols(&c, r);
	seq_printf(m, "%10llu %-24s", r->count, c.reason);
	snprintf(proto, sizeof(proto), "%s%s", c.proto,
		 r->flags & DT_PROTO_MIXED ? "+" : "");
	snprintf(dev, sizeof(dev), "%s%s", r->dev[0] ? r->dev : "-",
		 r->flags & DT_DEV_MIXED ? "+" : "");
	seq_printf(m, " %-14s %-16s", proto, dev);
	if (r->netns)
		seq_printf(m, " %-10u", r->netns);
	else
		seq_printf(m, " %-10s", "-");
	if (r->cgroup)
		snprintf(cgroup, sizeof(cgroup), "%llu%s", r->cgroup,
			 r->flags & DT_CGROUP_MIXED ? "+" : "");
	else
		snprintf(cgroup, sizeof(cgroup), "-%s",
			 r->flags & DT_CGROUP_MIXED ? "+" : "");
	seq_printf(m, " %-8s %-9s", cgroup, skbprof_reached_name(r->stage));
	drops_put_time(m, r->first_ns);
	drops_put_time(m, r->last_ns);
	seq_printf(m, " %s\n", c.loc);
	return 0;
}

/*
 * The machine file, a table (Documentation/skbprof.rst, "Machine
 * files"): a flag in a column of its own, times in ns since boot, the
 * location's module (sprint_symbol()'s " [mod]") in a column of its own.
 */
static int drops_rows_seq_show(struct seq_file *m, void *v)
{
	const struct dt_row *r = v;
	struct drops_cols c;
	char *mod;

	if (v == SEQ_START_TOKEN) {
		const struct drops_snap *snap = m->private;

		seq_printf(m, "# boottime_ns=%llu realtime_ns=%llu\n",
			   snap->boot_ns, snap->real_ns);
		seq_puts(m, "# count reason proto proto_mixed dev dev_mixed netns cgroup cgroup_mixed stage first_ns last_ns location module\n");
		return 0;
	}

	drops_cols(&c, r);
	/* never a raw address: "?" has no module */
	mod = c.loc == c.sym ? strstr(c.sym, " [") : NULL;
	if (mod) {
		*mod = 0;
		mod += 2;
		mod[strcspn(mod, "]")] = 0;
	}
	seq_printf(m, "%llu %s %s %d %s %d", r->count, c.reason, c.proto,
		   !!(r->flags & DT_PROTO_MIXED), r->dev[0] ? r->dev : "-",
		   !!(r->flags & DT_DEV_MIXED));
	if (r->netns)
		seq_printf(m, " %u", r->netns);
	else
		seq_puts(m, " -");
	if (r->cgroup)
		seq_printf(m, " %llu", r->cgroup);
	else
		seq_puts(m, " -");
	seq_printf(m, " %d %s %llu %llu %s %s\n",
		   !!(r->flags & DT_CGROUP_MIXED),
		   skbprof_reached_name(r->stage), r->first_ns, r->last_ns,
		   c.loc, mod ? mod : "-");
	return 0;
}

SKBPROF_DEFINE_SNAPSHOT_FILE(drops, drops_snapshot, drops_seq_start,
			     drops_seq_next, drops_seq_stop, drops_seq_show);
SKBPROF_DEFINE_SNAPSHOT_FILE(drops_rows, drops_snapshot, drops_seq_start,
			     drops_seq_next, drops_seq_stop,
			     drops_rows_seq_show);

static void drops_reset(void)
{
	/* Serialised by the control file; see drops_table.h on laziness. */
	WRITE_ONCE(drops_gen, drops_gen + 1);
}

static void drops_stats(struct seq_file *m)
{
	unsigned long gen = READ_ONCE(drops_gen);
	u64 total = 0, overflow = 0;
	unsigned int cpu;
	u32 used = 0;

	for_each_possible_cpu(cpu) {
		struct dt_table *t = per_cpu_ptr(drops_tables, cpu);

		if (READ_ONCE(t->gen) != gen)
			continue;
		total += READ_ONCE(t->total);
		overflow += READ_ONCE(t->overflow);
		used = max(used, READ_ONCE(t->used));
	}
	seq_printf(m, "drops_reasons %s\n", SKBPROF_DROP_REASON_TABLE);
	seq_printf(m, "drops_keys_max %u\n", drop_keys);
	seq_printf(m, "drops_keys_used %u\n", used);
	seq_printf(m, "drops_total %llu\n", total);
	seq_printf(m, "drops_overflow %llu\n", overflow);
}

static void drops_free_tables(void)
{
	unsigned int cpu;

	if (!drops_tables)
		return;
	for_each_possible_cpu(cpu)
		kvfree(per_cpu_ptr(drops_tables, cpu)->slots);
	free_percpu(drops_tables);
	drops_tables = NULL;
}

static int drops_alloc_tables(void)
{
	size_t n = dt_capacity(drop_keys);
	unsigned int cpu;

	drops_tables = alloc_percpu(struct dt_table);
	if (!drops_tables)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct dt_slot *slots;

		slots = kvzalloc_node(array_size(n, sizeof(*slots)),
				      GFP_KERNEL, cpu_to_node(cpu));
		if (!slots) {
			drops_free_tables();
			return -ENOMEM;
		}
		dt_init(per_cpu_ptr(drops_tables, cpu), slots, drop_keys);
	}
	return 0;
}

static int drops_init(void)
{
	int err;

	BUILD_BUG_ON(DT_NO_STAGE != SKBPROF_REACHED_NONE);
	if (drop_keys < DT_MAX_KEYS_MIN || drop_keys > DT_MAX_KEYS_MAX) {
		pr_err("drop_keys=%u: out of range %u-%u\n", drop_keys,
		       DT_MAX_KEYS_MIN, DT_MAX_KEYS_MAX);
		return -EINVAL;
	}
	err = drops_fault(1);
	if (!err)
		err = drops_alloc_tables();
	return err;
}

/* The free path's probes are gone by now (main.c orders the parts). */
static void drops_exit(void)
{
	drops_free_tables();
}

static const struct skbprof_file drops_files[] = {
	{ "drops", 0400, &drops_fops },
	{ "drops_rows", 0400, &drops_rows_fops },
};

const struct skbprof_part skbprof_drops_part = {
	.name	= "drops",
	.init	= drops_init,
	.exit	= drops_exit,
	.reset	= drops_reset,
	.stats	= drops_stats,
	.files	= drops_files,
	.nfiles	= ARRAY_SIZE(drops_files),
};
