// SPDX-License-Identifier: GPL-2.0
/*
 * Stage latency, the aggregation: what the timelines (timeline.c) measured,
 * handed over through latency.h, in per-CPU log-linear histograms per
 * stage and per process and cgroup, with each stage's worst packet and
 * counters of the timelines that ended early.
 *
 * Files:
 *   latency   one row per stage: dir stage count min p50 p90 p99 max avg,
 *             then per stage a log2 histogram and its worst packet
 *   latency_buckets  one line per stage: dir stage count sum min max,
 *             then the non-empty buckets as lo:hi:count
 *   procs     per process: dir stage pid comm cgroup count p50 p99 max sum,
 *             each direction's total (`procs totals`) or every stage
 *   cgroups   per cgroup v2 cgroup: dir stage cgroup count p50 p99 max sum
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sort.h>

#include "hist.h"
#include "latency.h"
#include "pktinfo.h"
#include "lat_stamp.h"

static unsigned int procs_rows = 128;
module_param(procs_rows, uint, 0400);
MODULE_PARM_DESC(procs_rows,
		 "Process rows per CPU in procs (power of two, default 128)");

static unsigned int cgroups_rows = 64;
module_param(cgroups_rows, uint, 0400);
MODULE_PARM_DESC(cgroups_rows,
		 "Cgroup rows per CPU in cgroups (power of two, default 64)");

/* The worst packet of a stage since the last reset. */
struct exemplar {
	u64 ns;
	u64 when;		/* ktime_get_ns() at the stage's end */
	pid_t pid;
	char comm[TASK_COMM_LEN];
	struct skbprof_tuple tuple;
};

/*
 * What a procs or cgroups histogram is kept under: procs by (pid, comm,
 * cgroup, stage), so a process that moves to another cgroup gets rows
 * there; cgroups by (cgroup, stage), pid 0 and comm "".
 */
struct proc_key {
	pid_t pid;
	u8 stage;
	char comm[TASK_COMM_LEN];
	u64 cgroup;
};

/* A process's or cgroup's histogram of one stage; free unless of gen. */
struct proc_row {
	u32 gen;
	struct proc_key key;
	struct hist h;
};

/*
 * Who a timeline bills, and which of its histograms serve each stage:
 * one lookup per timeline, not one per stage.  Free unless of gen.
 */
struct payer {
	u32 gen;
	pid_t pid;		/* 0 in the cgroups table */
	u8 dir;
	char comm[TASK_COMM_LEN];
	u64 cgroup;
	u16 row[SKBPROF_TIMELINE_STAGES];	/* 1 + its row (ROWS_MAX); 0: none */
};

/*
 * The histograms of procs or of cgroups on one CPU: procs_rows or
 * cgroups_rows of them, taken in order (rows[0..nrows)), so reading costs
 * what is in use, not the table's size, and as many payers, hashed.  A
 * reset frees them all by moving to a new generation; each is cleared
 * when it is taken again.  Written by its CPU with interrupts off; read
 * by rows_snapshot().
 */
struct row_table {
	u32 gen;		/* never 0: zeroed rows and payers are free */
	u32 nrows;		/* published with release, rows whole */
	unsigned int size;	/* a power of two */
	unsigned int bits;	/* ilog2(size) */
	struct proc_row *rows;
	struct payer *payers;
	/* the payer each direction found last: NULL, or of an older gen */
	struct payer *last[SKBPROF_DIRS];
};

/* Per-CPU aggregates; written with interrupts off, merged on read. */
struct lat_cpu {
	struct hist stage[SKBPROF_TIMELINE_STAGES];
	struct exemplar worst[SKBPROF_TIMELINE_STAGES];
	u64 incomplete[END_REASONS][2];	/* [why][kind] */
	u64 procs_overflow;
	u64 cgroups_overflow;
	/* software GSO: timelines forked, segments given one, not given one */
	u64 gso_forks, gso_segments, gso_full;
	/* kept by reset, which moves the tables to a new generation: */
	struct row_table procs;
	struct row_table cgroups;
};

/* Where reset starts clearing a CPU's aggregates. */
#define LAT_CPU_KEPT	offsetof(struct lat_cpu, procs)

static struct lat_cpu **lcpu;

/* Cleared by reset_cpu() with the rest. */
DEFINE_PER_CPU(u64 [2][LAT_FILTERED + 1], lat_verdicts);
DEFINE_PER_CPU(u64, lat_udp_unseen);

/* Interrupts are off in every caller: the CPU cannot change. */
static inline struct lat_cpu *this_lat(void)
{
	return lcpu[smp_processor_id()];
}

/* Two command names alike: two loads each, where memcmp() is a call. */
static inline bool comm_eq(const char *a, const char *b)
{
	u64 a0, a1, b0, b1;

	BUILD_BUG_ON(2 * sizeof(a0) != TASK_COMM_LEN);
	memcpy(&a0, a, sizeof(a0));
	memcpy(&a1, a + sizeof(a0), sizeof(a1));
	memcpy(&b0, b, sizeof(b0));
	memcpy(&b1, b + sizeof(b0), sizeof(b1));
	return a0 == b0 && a1 == b1;
}

static inline bool payer_is(const struct payer *p, pid_t pid, const char *comm,
			    u64 cgroup, u8 dir)
{
	return p->pid == pid && p->cgroup == cgroup && p->dir == dir &&
	       comm_eq(p->comm, comm);
}

/* The payer of (@pid, @comm, @cgroup, @dir) in @t, or NULL: no room. */
static struct payer *find_payer(struct row_table *t, pid_t pid,
				const char *comm, u64 cgroup, u8 dir)
{
	struct payer *p = t->last[dir];
	unsigned int i, h;

	/* most timelines bill whom the one before billed */
	if (p && p->gen == t->gen && payer_is(p, pid, comm, cgroup, dir))
		return p;
	/* a multiplicative hash: the top bits, as many as payers */
	h = t->bits ? hash_64(((u64)pid << 32 ^ cgroup) * SKBPROF_DIRS + dir,
			      t->bits) : 0;
	for (i = 0; i < min(t->size, 16U); i++) {
		p = &t->payers[(h + i) & (t->size - 1)];
		if (p->gen != t->gen) {
			memset(p, 0, sizeof(*p));
			p->pid = pid;
			p->dir = dir;
			memcpy(p->comm, comm, sizeof(p->comm));
			p->cgroup = cgroup;
			p->gen = t->gen;
			t->last[dir] = p;
			return p;
		}
		if (payer_is(p, pid, comm, cgroup, dir)) {
			t->last[dir] = p;
			return p;
		}
	}
	return NULL;
}

/* Take a row of @t for @p's histogram of stage @st: NULL when full. */
static noinline struct hist *take_row(struct row_table *t, struct payer *p,
				      int st)
{
	struct proc_row *r;

	if (t->nrows == t->size)
		return NULL;
	r = &t->rows[t->nrows];
	/*
	 * A row a reset freed may still be read by merge_run() under its
	 * old generation: mark it free before rewriting it, as a seqcount
	 * writer begins, so that a reader who sees any of what follows
	 * (the new key and histogram, the charges after) sees gen change.
	 */
	WRITE_ONCE(r->gen, 0);
	/* pairs with merge_run()'s smp_rmb(): gen 0 seen before the rest */
	smp_wmb();
	r->key.pid = p->pid;
	r->key.stage = st;
	memcpy(r->key.comm, p->comm, sizeof(r->key.comm));
	r->key.cgroup = p->cgroup;
	hist_init(&r->h);
	WRITE_ONCE(r->gen, t->gen);
	p->row[st] = t->nrows + 1;
	/* pairs with rows_snapshot(): the row is whole */
	smp_store_release(&t->nrows, t->nrows + 1);
	return &r->h;
}

/* @p's histogram of stage @st in @t, taken if it has none: NULL, full. */
static inline struct hist *payer_hist(struct row_table *t, struct payer *p,
				      int st)
{
	if (likely(p->row[st]))
		return &t->rows[p->row[st] - 1].h;
	return take_row(t, p, st);
}

/* Add @ns, of bucket @i, to @p's histogram of @st in @t, or overflow. */
static inline void charge(struct row_table *t, struct payer *p, int st,
			  unsigned int i, u64 ns, u64 *overflow)
{
	struct hist *h = p ? payer_hist(t, p, st) : NULL;

	if (h)
		hist_add_at(h, i, ns);
	else
		(*overflow)++;
}

/* @s's stage of @ns, ending at @end, is the worst of its kind yet. */
static noinline void set_worst(struct exemplar *w, const struct lat_stamp *s,
			       u64 ns, u64 end)
{
	w->ns = ns;
	w->when = end;
	w->pid = s->pid;
	memcpy(w->comm, s->comm, sizeof(w->comm));
	w->tuple = s->tuple;
}

/*
 * The payer of (@pid, @comm, @cgroup, @dir) in @t: inline when it is the
 * one this direction billed last, as for most timelines.
 */
static __always_inline struct payer *payer_of(struct row_table *t, pid_t pid,
					      const char *comm, u64 cgroup,
					      u8 dir)
{
	struct payer *p = t->last[dir];

	if (likely(p && p->gen == t->gen && payer_is(p, pid, comm, cgroup, dir)))
		return p;
	return find_payer(t, pid, comm, cgroup, dir);
}

/*
 * Who a timeline bills on this CPU, looked up at the first stage charged
 * (@looked), once: its process and its cgroup (NULL: none, or no room).
 */
struct bill {
	bool looked;
	struct payer *proc, *cgroup;
};

/* Charge @s's stage @st, @ns in bucket @i, to its process and cgroup. */
static void charge_payers(struct lat_cpu *c, const struct lat_stamp *s,
			  struct bill *b, int st, unsigned int i, u64 ns)
{
	static const char nobody[TASK_COMM_LEN];

	if (skbprof_skips(SKBPROF_SKIP_PAYERS))
		return;
	if (!b->looked) {
		b->looked = true;
		b->proc = payer_of(&c->procs, s->pid, s->comm, s->cgroup,
				   s->s.kind);
		if (s->cgroup)
			b->cgroup = payer_of(&c->cgroups, 0, nobody, s->cgroup,
					     s->s.kind);
	}
	if (s->cgroup)
		charge(&c->cgroups, b->cgroup, st, i, ns, &c->cgroups_overflow);
	charge(&c->procs, b->proc, st, i, ns, &c->procs_overflow);
}

/*
 * Record @s's stage @st of @ns, ending at @end: its histogram, its worst
 * packet, and with `procs stages` (@s->stage_rows) its payers' rows.
 */
static __always_inline void record(struct lat_cpu *c,
				   const struct lat_stamp *s, struct bill *b,
				   int st, u64 ns, u64 end)
{
	struct exemplar *w = &c->worst[st];
	unsigned int i = hist_index(ns);

	hist_add_at(&c->stage[st], i, ns);
	/* the first of equal times: a stage of 0 ns (app-udp) writes once */
	if (unlikely(ns > w->ns || !w->when))
		set_worst(w, s, ns, end);
	if (unlikely(s->stage_rows) && s->pid)
		charge_payers(c, s, b, st, i, ns);
}

void latency_settle(struct lat_stamp *s, u64 end)
{
	unsigned int i, last, slot = skbprof_proto_slot(s->proto);
	struct bill b = { };
	const s8 (*ending)[3];
	struct lat_cpu *c;
	u32 todo, done;
	u64 ns;
	int st;

	/* the reaper ends lifetime stamps too */
	if (s->s.kind > STAMP_TX || s->verdict != LAT_KEEP ||
	    skbprof_skips(SKBPROF_SKIP_RECORD))
		return;
	c = this_lat();
	ending = skbprof_stage_endings[s->s.kind];
	last = skbprof_last_point(s->s.kind);
	/* the stages to record, each once */
	todo = s->stages & ~s->settled;
	done = 0;
	st = SKBPROF_STAGE_BACKLOG;
	if (s->queued == LAT_DEQUEUED && (todo & BIT(st))) {
		done |= BIT(st);
		record(c, s, &b, st, s->t_dequeued - s->t_point[0],
		       s->t_dequeued);
	}
	for (i = 1; i <= last; i++) {
		/* the stage from the point before: both reached, measured */
		st = ending[i][slot];
		if (st < 0 || (s->reached & (3U << (i - 1))) != 3U << (i - 1) ||
		    !(todo & BIT(st)))
			continue;
		done |= BIT(st);
		record(c, s, &b, st, s->t_point[i] - lat_stage_from(s, i),
		       s->t_point[i]);
	}
	s->settled |= done;
	st = s->s.kind == STAMP_RX ? SKBPROF_STAGE_RX_TOTAL : SKBPROF_STAGE_TX_TOTAL;
	/* from the first point: a UDP datagram whose send call was not seen has none */
	if (!end || !(s->stages & BIT(st)) || !(s->reached & BIT(0)))
		return;
	ns = end - s->s.t_start;
	record(c, s, &b, st, ns, end);
	/* `procs totals` (the default): the direction's total alone */
	if (!s->stage_rows && s->pid)
		charge_payers(c, s, &b, st, hist_index(ns), ns);
}

/* A measured timeline ended early (the others were never measured). */
void latency_incomplete(const struct lat_stamp *s, enum stamp_end why)
{
	if ((s->s.kind == STAMP_RX || s->s.kind == STAMP_TX) &&
	    s->verdict == LAT_KEEP)
		this_lat()->incomplete[why][s->s.kind]++;
}

void latency_gso(unsigned int segs, unsigned int full)
{
	struct lat_cpu *c = this_lat();

	c->gso_forks++;
	c->gso_segments += segs;
	c->gso_full += full;
}

/* ---- reading ---- */

static void merge_stage(int st, struct hist *h, struct exemplar *w)
{
	unsigned int cpu;

	hist_init(h);
	memset(w, 0, sizeof(*w));
	for_each_possible_cpu(cpu) {
		const struct lat_cpu *c = lcpu[cpu];

		hist_merge(h, &c->stage[st]);
		/* none yet (when is 0), or shorter */
		if (!c->worst[st].when || c->worst[st].ns < w->ns)
			continue;
		/* equal times: the one with a process */
		if (c->worst[st].ns > w->ns || !w->when || !w->pid)
			*w = c->worst[st];
	}
}

static void print_tuple(struct seq_file *m, const struct skbprof_tuple *t)
{
	char flow[SKBPROF_FLOW_LEN];

	skbprof_fmt_flow(flow, sizeof(flow), t, SKBPROF_FLOW_ROW);
	seq_puts(m, flow);
}

/* A comm for a whitespace-separated row. */
static void print_comm(struct seq_file *m, const char *comm)
{
	char c[TASK_COMM_LEN];

	skbprof_clean_comm(c, comm);
	seq_puts(m, c);
}

static const char *dir_name(int st)
{
	return skbprof_dir_name(skbprof_stages[st].dir);
}

static int latency_show(struct seq_file *m, void *v)
{
	struct {
		struct hist h[SKBPROF_TIMELINE_STAGES];
		struct exemplar w[SKBPROF_TIMELINE_STAGES];
	} *t;
	/* a packet's flow and process stay in the kernel (skbprof.h) */
	bool hide = skbprof_flows_locked_down();
	int st;

	t = kvmalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	for (st = 0; st < SKBPROF_TIMELINE_STAGES; st++)
		merge_stage(st, &t->h[st], &t->w[st]);

	seq_puts(m, "# dir stage count min p50 p90 p99 max avg (ns)\n");
	for (st = 0; st < SKBPROF_TIMELINE_STAGES; st++) {
		const struct hist *h = &t->h[st];

		if (!h->count)
			continue;
		seq_printf(m, "%s %s %llu %llu %llu %llu %llu %llu %llu\n",
			   dir_name(st), skbprof_stages[st].name, h->count, h->min,
			   hist_percentile(h, 50), hist_percentile(h, 90),
			   hist_percentile(h, 99), h->max, hist_avg(h));
	}
	for (st = 0; st < SKBPROF_TIMELINE_STAGES; st++) {
		const struct exemplar *w = &t->w[st];
		u64 secs, ns;

		if (!t->h[st].count)
			continue;
		seq_printf(m, "\n@%s %s (ns):\n", dir_name(st), skbprof_stages[st].name);
		hist_seq_log2(m, &t->h[st]);
		secs = div64_u64_rem(w->when, NSEC_PER_SEC, &ns);
		seq_printf(m, "worst %llu ns at %llu.%09llu ", w->ns, secs, ns);
		if (hide) {
			seq_puts(m, "(flow, pid, comm: lockdown)\n");
			continue;
		}
		print_tuple(m, &w->tuple);
		seq_printf(m, " pid %d comm ", w->pid);
		print_comm(m, w->comm);
		seq_putc(m, '\n');
	}
	kvfree(t);
	return 0;
}

SKBPROF_DEFINE_SHOW_FILE(latency);

/*
 * Call @row for every stage with data, with one merged copy of its
 * histogram and worst packet: every field of a line comes from that
 * copy, so a count adds up.
 */
static int show_stages(struct seq_file *m,
		       void (*row)(struct seq_file *m, int st,
				   const struct hist *h,
				   const struct exemplar *w))
{
	struct {
		struct hist h;
		struct exemplar w;
	} *t;
	int st;

	t = kvmalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	for (st = 0; st < SKBPROF_TIMELINE_STAGES; st++) {
		merge_stage(st, &t->h, &t->w);
		if (t->h.count)
			row(m, st, &t->h, &t->w);
	}
	kvfree(t);
	return 0;
}

static void buckets_row(struct seq_file *m, int st, const struct hist *h,
			const struct exemplar *w)
{
	seq_printf(m, "%s %s", dir_name(st), skbprof_stages[st].name);
	hist_seq_buckets(m, h);
}

static int latency_buckets_show(struct seq_file *m, void *v)
{
	hist_seq_buckets_header(m, "dir stage ");
	return show_stages(m, buckets_row);
}

SKBPROF_DEFINE_SHOW_FILE(latency_buckets);

/* latency's worst packets, for machines: one row per stage measured. */
static void worst_row(struct seq_file *m, int st, const struct hist *h,
		      const struct exemplar *w)
{
	char flow[SKBPROF_FLOW_LEN];

	skbprof_fmt_flow(flow, sizeof(flow), &w->tuple, SKBPROF_FLOW_COLUMNS);
	seq_printf(m, "%s %s %llu %llu %s %d ", dir_name(st),
		   skbprof_stages[st].name, w->ns, w->when, flow, w->pid);
	print_comm(m, w->comm);
	seq_putc(m, '\n');
}

static int latency_worst_show(struct seq_file *m, void *v)
{
	seq_puts(m, "# dir stage ns at_ns proto src sport dst dport pid comm\n");
	return show_stages(m, worst_row);
}

SKBPROF_DEFINE_SHOW_FILE(latency_worst);

/* A row of one CPU, as procs_open() found it. */
struct proc_ref {
	struct proc_key key;
	u32 gen;
	u32 idx;
	unsigned int cpu;
};

/*
 * What an open procs or cgroups file walks: every CPU's rows in use of
 * one table (@table: its offset in struct lat_cpu), sorted by key, so that
 * the rows of one key are a run; each line merges its run into @h,
 * through @row, one row's copy.  Sized by the rows in use, not by the
 * table's size.
 */
struct procs_snap {
	size_t table;
	size_t n;
	struct hist h, row;
	struct proc_ref refs[];
};

static int proc_key_cmp(const void *a, const void *b)
{
	const struct proc_key *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->cgroup != y->cgroup)
		return x->cgroup < y->cgroup ? -1 : 1;
	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	return memcmp(x->comm, y->comm, sizeof(x->comm));
}

static struct row_table *cpu_table(unsigned int cpu, size_t table)
{
	return (struct row_table *)((char *)lcpu[cpu] + table);
}

/* A struct procs_snap of @table, or NULL (see skbprof_snapshot_open()). */
static void *rows_snapshot(size_t table)
{
	struct procs_snap *snap = NULL;
	unsigned int cpu, k;
	size_t n = 0;
	u32 *counted;

	/*
	 * The rows each CPU has taken now; rows taken later are left for
	 * the next read.  A CPU only takes rows in order, so its first
	 * counted[cpu] rows stay these until a reset.
	 */
	counted = kcalloc(nr_cpu_ids, sizeof(*counted), GFP_KERNEL);
	if (!counted)
		return NULL;
	for_each_possible_cpu(cpu) {
		counted[cpu] = READ_ONCE(cpu_table(cpu, table)->nrows);
		n += counted[cpu];
	}
	snap = kvmalloc(struct_size(snap, refs, n), GFP_KERNEL);
	if (!snap)
		goto out;
	snap->table = table;
	snap->n = 0;
	for_each_possible_cpu(cpu) {
		const struct row_table *t = cpu_table(cpu, table);
		/* pairs with reset_table(): a new generation has no rows yet */
		u32 gen = smp_load_acquire(&t->gen);
		/* pairs with the release in payer_hist(): counted rows are whole */
		u32 nrows = min(smp_load_acquire(&t->nrows), counted[cpu]);

		for (k = 0; k < nrows; k++) {
			const struct proc_row *r = &t->rows[k];
			struct proc_ref *ref = &snap->refs[snap->n];

			if (READ_ONCE(r->gen) != gen)
				continue;	/* a reset since */
			ref->key = r->key;
			ref->gen = gen;
			ref->idx = k;
			ref->cpu = cpu;
			snap->n++;
		}
		cond_resched();
	}
	sort(snap->refs, snap->n, sizeof(snap->refs[0]), proc_key_cmp, NULL);
out:
	kfree(counted);
	return snap;
}

static void *procs_snapshot(void)
{
	return rows_snapshot(offsetof(struct lat_cpu, procs));
}

static void *cgroups_snapshot(void)
{
	return rows_snapshot(offsetof(struct lat_cpu, cgroups));
}

/* Position 0 is the header; position i + 1 the run starting at refs[i]. */
static void *procs_start(struct seq_file *m, loff_t *pos)
{
	struct procs_snap *snap = m->private;

	if (!*pos)
		return SEQ_START_TOKEN;
	return *pos - 1 < snap->n ? &snap->refs[*pos - 1] : NULL;
}

static void *procs_next(struct seq_file *m, void *v, loff_t *pos)
{
	struct procs_snap *snap = m->private;
	const struct proc_ref *ref = v;
	size_t i;

	if (v == SEQ_START_TOKEN) {
		*pos = 1;
	} else {
		for (i = ref - snap->refs + 1; i < snap->n; i++)
			if (proc_key_cmp(&snap->refs[i].key, &ref->key))
				break;
		*pos = i + 1;
	}
	return procs_start(m, pos);
}

static void procs_stop(struct seq_file *m, void *v)
{
}

/* Merge the run of rows starting at @v into the snapshot's @h. */
static const struct hist *merge_run(struct procs_snap *snap, const void *v)
{
	const struct proc_ref *ref = v, *end;
	struct hist *h = &snap->h;

	hist_init(h);
	end = snap->refs + snap->n;
	for (; ref < end && !proc_key_cmp(&ref->key, v); ref++) {
		const struct proc_row *r =
			&cpu_table(ref->cpu, snap->table)->rows[ref->idx];

		/*
		 * Copied first, kept only if the row was not freed by a
		 * reset (and maybe taken by another process) meanwhile: the
		 * generation is read after the copy, as read_seqcount_retry()
		 * reads the sequence.
		 */
		snap->row = r->h;
		/* pairs with take_row()'s smp_wmb() */
		smp_rmb();
		if (READ_ONCE(r->gen) == ref->gen)
			hist_merge(h, &snap->row);
	}
	return h;
}

static void print_counts(struct seq_file *m, const struct hist *h)
{
	seq_printf(m, " %llu %llu %llu %llu %llu\n", h->count,
		   hist_percentile(h, 50), hist_percentile(h, 99), h->max,
		   h->sum);
}

static int procs_show(struct seq_file *m, void *v)
{
	const struct proc_ref *ref = v;
	const struct hist *h;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "# dir stage pid comm cgroup count p50 p99 max sum\n");
		return 0;
	}
	h = merge_run(m->private, v);
	if (!h->count)
		return 0;
	seq_printf(m, "%s %s %d ", dir_name(ref->key.stage),
		   skbprof_stages[ref->key.stage].name, ref->key.pid);
	print_comm(m, ref->key.comm);
	if (ref->key.cgroup)
		seq_printf(m, " %llu", ref->key.cgroup);
	else
		seq_puts(m, " -");
	print_counts(m, h);
	return 0;
}

static int cgroups_show(struct seq_file *m, void *v)
{
	const struct proc_ref *ref = v;
	const struct hist *h;

	if (v == SEQ_START_TOKEN) {
		seq_puts(m, "# dir stage cgroup count p50 p99 max sum\n");
		return 0;
	}
	h = merge_run(m->private, v);
	if (!h->count)
		return 0;
	seq_printf(m, "%s %s %llu", dir_name(ref->key.stage),
		   skbprof_stages[ref->key.stage].name, ref->key.cgroup);
	print_counts(m, h);
	return 0;
}

SKBPROF_DEFINE_SNAPSHOT_FILE(procs, procs_snapshot, procs_start, procs_next,
			     procs_stop, procs_show);

SKBPROF_DEFINE_SNAPSHOT_FILE(cgroups, cgroups_snapshot, procs_start,
			     procs_next, procs_stop, cgroups_show);

/*
 * A timeline or lifetime in flight: "inflight KIND point P age_ns A FLOW
 * pid PID" for stats (@row false), or the inflight table's row "KIND P A
 * PROTO SRC SPORT DST DPORT PID".
 */
static void show_live(struct seq_file *m, const struct stamp *st, bool row)
{
	static const struct skbprof_tuple unknown;
	const struct lat_stamp *s = lat_of_const(st);
	bool life = st->kind == STAMP_LIFE;
	char flow[SKBPROF_FLOW_LEN];

	/* a lifetime has no point, flow or process */
	skbprof_fmt_flow(flow, sizeof(flow), life ? &unknown : &s->tuple,
			 row ? SKBPROF_FLOW_COLUMNS : SKBPROF_FLOW_ROW);
	seq_printf(m, row ? "%s %u %llu %s %d\n" :
		   "inflight %s point %u age_ns %llu %s pid %d\n",
		   stamp_kind_name(st->kind),
		   life ? 0 : s->point, ktime_get_ns() - st->t_start, flow,
		   life ? 0 : s->pid);
}

static void show_live_stats(struct seq_file *m, const struct stamp *st)
{
	show_live(m, st, false);
}

static void show_live_row(struct seq_file *m, const struct stamp *st)
{
	show_live(m, st, true);
}

/* How many timelines in flight stats and inflight show. */
#define INFLIGHT_SHOWN	8

/* a few timelines in flight: where they stand */
void latency_stats_rows(struct seq_file *m)
{
	stamp_show_live(m, INFLIGHT_SHOWN, show_live_stats);
}

static int inflight_show(struct seq_file *m, void *v)
{
	seq_puts(m, "# kind point age_ns proto src sport dst dport pid\n");
	stamp_show_live(m, INFLIGHT_SHOWN, show_live_row);
	return 0;
}

SKBPROF_DEFINE_SHOW_FILE(inflight);

/* ---- stats, reset, life ---- */

static void gso_stats(struct seq_file *m)
{
	u64 forks = 0, segs = 0, full = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		forks += READ_ONCE(lcpu[cpu]->gso_forks);
		segs += READ_ONCE(lcpu[cpu]->gso_segments);
		full += READ_ONCE(lcpu[cpu]->gso_full);
	}
	seq_printf(m, "gso_forks_tx %llu\n", forks);
	seq_printf(m, "gso_segments_tx %llu\n", segs);
	seq_printf(m, "gso_segments_tx_full %llu\n", full);
}

void latency_stats(struct seq_file *m)
{
	static const unsigned long timeline_ends = STAMP_ENDS_TIMELINE;
	u64 inc[2][END_REASONS] = {}, overflow = 0, cg_overflow = 0;
	u64 unseen = 0;
	unsigned int cpu, k, r;

	for_each_possible_cpu(cpu) {
		const struct lat_cpu *c = lcpu[cpu];

		for (k = 0; k < 2; k++)
			for (r = 0; r < END_REASONS; r++)
				inc[k][r] += READ_ONCE(c->incomplete[r][k]);
		overflow += READ_ONCE(c->procs_overflow);
		cg_overflow += READ_ONCE(c->cgroups_overflow);
	}
	for (k = 0; k < 2; k++)
		for_each_set_bit(r, &timeline_ends, END_REASONS)
			seq_printf(m, "incomplete_%s_%s %llu\n",
				   skbprof_dir_name(k), stamp_end_name(r),
				   inc[k][r]);
	for (k = 0; k < 2; k++) {
		static const char *const vn[] = {
			[LAT_KEEP] = "kept",
			[LAT_SAMPLED_OUT] = "sampled_out",
			[LAT_FILTERED] = "filtered",
		};

		for (r = LAT_KEEP; r <= LAT_FILTERED; r++) {
			u64 sum = 0;

			for_each_possible_cpu(cpu)
				sum += READ_ONCE(per_cpu(lat_verdicts, cpu)[k][r]);
			seq_printf(m, "timelines_%s_%s %llu\n",
				   skbprof_dir_name(k), vn[r], sum);
		}
	}
	for_each_possible_cpu(cpu)
		unseen += READ_ONCE(per_cpu(lat_udp_unseen, cpu));
	seq_printf(m, "udp_calls_unseen_tx %llu\n", unseen);
	seq_printf(m, "procs_overflow %llu\n", overflow);
	seq_printf(m, "cgroups_overflow %llu\n", cg_overflow);
	gso_stats(m);
}

/* Free every row and payer of @t. */
static void reset_table(struct row_table *t)
{
	WRITE_ONCE(t->nrows, 0);
	/* pairs with rows_snapshot(): who sees it sees no rows listed */
	smp_store_release(&t->gen, t->gen + 1 ?: 1);
}

/* Zero @c's aggregates; its process and cgroup rows all become free. */
static void reset_lat(struct lat_cpu *c)
{
	memset(c, 0, LAT_CPU_KEPT);
	reset_table(&c->procs);
	reset_table(&c->cgroups);
}

static void reset_cpu(unsigned int cpu)
{
	reset_lat(lcpu[cpu]);
	memset(per_cpu_ptr(&lat_verdicts, cpu), 0, sizeof(lat_verdicts));
	*per_cpu_ptr(&lat_udp_unseen, cpu) = 0;
}

void latency_reset(void)
{
	skbprof_reset_cpus(reset_cpu);
}

static void free_cpus(void)
{
	unsigned int cpu;

	if (!lcpu)
		return;
	for_each_possible_cpu(cpu) {
		if (!lcpu[cpu])
			continue;
		kvfree(lcpu[cpu]->procs.payers);
		kvfree(lcpu[cpu]->procs.rows);
		kvfree(lcpu[cpu]->cgroups.payers);
		kvfree(lcpu[cpu]->cgroups.rows);
		kvfree(lcpu[cpu]);
	}
	kfree(lcpu);
	lcpu = NULL;
}

/* Allocate @t's @size rows (checked by rows_param_ok()). */
static int alloc_table(struct row_table *t, unsigned int size)
{
	t->gen = 1;
	t->size = size;
	t->bits = ilog2(size);
	t->rows = kvcalloc(size, sizeof(*t->rows), GFP_KERNEL);
	t->payers = kvcalloc(size, sizeof(*t->payers), GFP_KERNEL);
	return t->rows && t->payers ? 0 : -ENOMEM;
}

/* The most rows a table can have: 1 + the last one's index fits a u16. */
#define ROWS_MAX	(U16_MAX / 2 + 1)

static bool rows_param_ok(const char *name, unsigned int rows)
{
	if (rows && is_power_of_2(rows) && rows <= ROWS_MAX)
		return true;
	pr_err("%s=%u: must be a power of two up to %u\n", name, rows,
	       ROWS_MAX);
	return false;
}

int latency_init(void)
{
	unsigned int cpu;

	if (!rows_param_ok("procs_rows", procs_rows) ||
	    !rows_param_ok("cgroups_rows", cgroups_rows))
		return -EINVAL;
	lcpu = kcalloc(nr_cpu_ids, sizeof(*lcpu), GFP_KERNEL);
	if (!lcpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		lcpu[cpu] = kvzalloc_node(sizeof(*lcpu[cpu]), GFP_KERNEL,
					  cpu_to_node(cpu));
		if (!lcpu[cpu] ||
		    alloc_table(&lcpu[cpu]->procs, procs_rows) ||
		    alloc_table(&lcpu[cpu]->cgroups, cgroups_rows)) {
			free_cpus();
			return -ENOMEM;
		}
	}
	return 0;
}

void latency_exit(void)
{
	free_cpus();
}

const struct skbprof_file latency_files[LATENCY_NFILES] = {
	{ "latency", 0400, &latency_fops },
	{ "latency_buckets", 0400, &latency_buckets_fops },
	{ "latency_worst", 0400, &latency_worst_fops, .flows = true },
	{ "procs", 0400, &procs_fops, .flows = true },
	{ "cgroups", 0400, &cgroups_fops },
	{ "inflight", 0400, &inflight_fops, .flows = true },
};
