// SPDX-License-Identifier: GPL-2.0
/*
 * The packet trace stream: /sys/kernel/debug/skbprof/trace and
 * trace_records.  See pkttrace.h.
 *
 * Each record carries two timestamps taken when it was added: a monotonic
 * one, comparable across CPUs, by which readers merge the per-CPU buffers
 * into one stream in time order, and a wall-clock one for the line's
 * "HH:MM:SS.uuuuuu" prefix.
 *
 * Reading consumes: every line goes to exactly one reader.  A read blocks
 * until there is a line (or returns -EAGAIN with O_NONBLOCK) and returns
 * early on a signal; poll() reports readability.  When lines were
 * overwritten before being read, the reader gets "# lost N events" in
 * their place.  An open trace file pins the module, as every file here
 * does.
 *
 * The timelines' events are formatted here too, both forms: timeline.c
 * hands over a timeline (skbprof_trace_hit(), skbprof_trace_timeline()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/in.h>
#include <linux/irq_work.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/poll.h>
#include <linux/ring_buffer.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/time64.h>
#include <linux/timekeeping.h>
#include <linux/uaccess.h>
#include <linux/wait.h>

#include "config.h"
#include "lat_stamp.h"
#include "pktinfo.h"
#include "pkttrace.h"
#include "skbprof.h"

static unsigned int trace_buffer_kb = 256;
module_param(trace_buffer_kb, uint, 0400);
MODULE_PARM_DESC(trace_buffer_kb,
		 "Size of the packet trace buffer per CPU, in KiB (default 256)");

struct pkttrace_rec {
	u64 mono_ns;
	u64 real_ns;
	unsigned long sym;	/* 0, or the code address the event names */
	skbprof_trace_fmt_t fmt;
	u16 cpu;
	u16 len;
	u8 data[SKBPROF_TRACE_DATA_MAX] __aligned(8);
};

/* Published once by pkttrace_prepare(), freed at unload. */
static struct trace_buffer *pkttrace_rb;
static DEFINE_MUTEX(pkttrace_alloc_lock);

/* Readers consume one at a time, so the per-CPU merge sees a still buffer. */
static DEFINE_MUTEX(pkttrace_read_lock);
static DECLARE_WAIT_QUEUE_HEAD(pkttrace_wait);
static atomic64_t pkttrace_lost = ATOMIC64_INIT(0);
static atomic64_t pkttrace_lines = ATOMIC64_INIT(0);

/*
 * Producers may run where taking the wait queue's lock is not safe (deep
 * in the network stack, with unknown locks held): wake readers from an
 * irq_work instead.
 */
static void pkttrace_wake(struct irq_work *work)
{
	wake_up_all(&pkttrace_wait);
}

static struct irq_work pkttrace_iw;

static struct trace_buffer *pkttrace_ring(void)
{
	/* Pairs with the release in pkttrace_prepare(): a buffer seen
	 * here is fully initialised.
	 */
	return smp_load_acquire(&pkttrace_rb);
}

/* Make sure the ring buffer exists (process context): 0 or -ENOMEM. */
static int pkttrace_prepare(void)
{
	struct trace_buffer *rb;
	int err = 0;

	if (pkttrace_ring())
		return 0;
	mutex_lock(&pkttrace_alloc_lock);
	if (!pkttrace_rb) {
		rb = ring_buffer_alloc((unsigned long)trace_buffer_kb << 10,
				       RB_FL_OVERWRITE);
		if (rb)
			/* publish it initialised; see pkttrace_ring() */
			smp_store_release(&pkttrace_rb, rb);
		else
			err = -ENOMEM;
	}
	mutex_unlock(&pkttrace_alloc_lock);
	return err;
}

void skbprof_trace_add(skbprof_trace_fmt_t fmt, const void *data, size_t len,
		       unsigned long sym)
{
	struct trace_buffer *rb = pkttrace_ring();
	struct pkttrace_rec rec;

	/* len fits: skbprof_trace_event() checked it at build time */
	if (!rb)
		return;
	memcpy(rec.data, data, len);
	rec.mono_ns = ktime_get_mono_fast_ns();
	rec.real_ns = ktime_get_real_fast_ns();
	rec.sym = sym;
	rec.fmt = fmt;
	rec.cpu = raw_smp_processor_id();
	rec.len = len;
	if (ring_buffer_write(rb, offsetof(struct pkttrace_rec, data) + len, &rec))
		return;
	if (wq_has_sleeper(&pkttrace_wait))
		irq_work_queue(&pkttrace_iw);
}

/* ---- the timelines' events (timeline.c hands them a timeline) ---- */

/* A point's name in the verbose trace; the transport's is its own. */
static const char *point_name(const struct lat_stamp *s, unsigned int point)
{
	bool l4 = (s->s.kind == STAMP_RX && point == RXP_L4) ||
		  (s->s.kind == STAMP_TX && point == TXP_L4);

	if (l4 && s->proto == IPPROTO_TCP)
		return "tcp";
	if (l4 && s->proto == IPPROTO_UDP)
		return "udp";
	return skbprof_point_name(s->s.kind, point);
}

/* 23104 ns as "23.104us": US_FMT of div_u64(ns, NSEC_PER_USEC), us_frac(ns) */
#define US_FMT		"%llu.%03uus"

static unsigned int us_frac(u64 ns)
{
	u32 rem;

	div_u64_rem(ns, NSEC_PER_USEC, &rem);
	return rem;
}

/* A probe hit of a kept packet (verbose trace). */
struct hit_event {
	struct skbprof_tuple tuple;
	u64 t;			/* CLOCK_MONOTONIC, as ktime_get_mono_fast_ns() */
	u64 offset;		/* from the timeline's first point */
	const char *point;	/* these: the module's own strings */
	const char *symbol;
	u8 kind;
};

/*
 * "HIT RX ip ip_rcv_core 12.000000001 +3.250us | UDP a:p > b:p", or
 * "kind=hit dir=rx point=ip symbol=ip_rcv_core mono_ns=.. offset_ns=.. flow"
 */
static int hit_fmt(char *buf, size_t size, const void *data,
		   enum skbprof_trace_form form, const char *sym)
{
	const struct hit_event *e = data;
	char flow[SKBPROF_FLOW_LEN];
	u64 sec;
	u32 ns;

	if (form == SKBPROF_TRACE_RECORD) {
		skbprof_fmt_flow(flow, sizeof(flow), &e->tuple,
				 SKBPROF_FLOW_RECORD);
		return scnprintf(buf, size,
				 "kind=hit dir=%s point=%s symbol=%s mono_ns=%llu offset_ns=%llu %s",
				 skbprof_dir_name(e->kind), e->point,
				 e->symbol, e->t, e->offset, flow);
	}
	sec = div_u64_rem(e->t, NSEC_PER_SEC, &ns);
	skbprof_fmt_flow(flow, sizeof(flow), &e->tuple, SKBPROF_FLOW_TRACE);
	return scnprintf(buf, size, "HIT %s %s %s %llu.%09u +" US_FMT " | %s",
			 e->kind == STAMP_RX ? "RX" : "TX", e->point,
			 e->symbol, sec, ns, div_u64(e->offset, NSEC_PER_USEC),
			 us_frac(e->offset), flow);
}

/*
 * Verbose trace: one probe hit of a kept packet, with its time
 * (CLOCK_MONOTONIC, as ktime_get_mono_fast_ns()) and its offset from the
 * timeline's first point.
 */
void skbprof_trace_hit(const struct lat_stamp *s, unsigned int point,
		       const char *symbol, u64 t)
{
	struct hit_event e = {
		.tuple = s->tuple,
		.t = t,
		.offset = t - s->s.t_start,
		.point = point_name(s, point),
		.symbol = symbol,
		.kind = s->s.kind,
	};

	skbprof_trace_event(hit_fmt, &e, 0);
}

/* The most stages one packet's line names. */
#define TL_STAGES	8

/* A completed, kept packet. */
struct timeline_event {
	struct skbprof_tuple tuple;
	u64 cgroup;			/* 0: not known */
	u64 ns[TL_STAGES];
	s32 pid;
	u8 stage[TL_STAGES];
	u8 n, kind;
	char comm[TASK_COMM_LEN];	/* cleaned: no blanks */
};

/*
 * "RX drv-ip 23.104us ip-udp 5.200us udp-app 189.000us | UDP a:p > b:p |
 * cgroup 1234 | comm pid" ("cgroup -" when not known), or "kind=rx
 * stages=drv-ip:23104,ip-udp:5200,udp-app:189000 proto=UDP src=a sport=p
 * dst=b dport=p cgroup=1234 comm=comm pid=pid" (ns; "cgroup=-")
 */
static int timeline_fmt(char *buf, size_t size, const void *data,
			enum skbprof_trace_form form, const char *sym)
{
	const struct timeline_event *e = data;
	bool rec = form == SKBPROF_TRACE_RECORD;
	char flow[SKBPROF_FLOW_LEN], cgroup[24] = "-";
	unsigned int i;
	int n;

	if (e->cgroup)
		snprintf(cgroup, sizeof(cgroup), "%llu", e->cgroup);
	n = scnprintf(buf, size, rec ? "kind=%s stages=" : "%s",
		      rec ? skbprof_dir_name(e->kind) :
			    (e->kind == STAMP_RX ? "RX" : "TX"));
	for (i = 0; i < e->n; i++) {
		const char *name = skbprof_stages[e->stage[i]].name;

		if (rec)
			n += scnprintf(buf + n, size - n, "%s%s:%llu",
				       i ? "," : "", name, e->ns[i]);
		else
			n += scnprintf(buf + n, size - n, " %s " US_FMT, name,
				       div_u64(e->ns[i], NSEC_PER_USEC),
				       us_frac(e->ns[i]));
	}
	if (rec && !e->n)
		n += scnprintf(buf + n, size - n, "-");
	skbprof_fmt_flow(flow, sizeof(flow), &e->tuple,
			 rec ? SKBPROF_FLOW_RECORD : SKBPROF_FLOW_TRACE);
	return n + scnprintf(buf + n, size - n, rec ?
			     " %s cgroup=%s comm=%s pid=%d" :
			     " | %s | cgroup %s | %s %d", flow, cgroup,
			     e->comm, e->pid);
}

/* One event per completed, kept packet: its stages, flow, cgroup, process. */
void skbprof_trace_timeline(const struct lat_stamp *s)
{
	struct timeline_event e = {
		.tuple = s->tuple,
		.pid = s->pid,
		.kind = s->s.kind,
	};
	unsigned int i;
	int st;

	if (s->queued == LAT_DEQUEUED &&
	    (s->stages & BIT(SKBPROF_STAGE_BACKLOG))) {
		e.stage[e.n] = SKBPROF_STAGE_BACKLOG;
		e.ns[e.n++] = s->t_dequeued - s->t_point[0];
	}
	for (i = 1; i <= skbprof_last_point(s->s.kind) && e.n < TL_STAGES; i++) {
		st = skbprof_stage_ending(s->s.kind, i, s->proto);
		if (st < 0 || !(s->stages & BIT(st)) || !lat_reached(s, i) ||
		    !lat_reached(s, i - 1))
			continue;
		e.stage[e.n] = st;
		e.ns[e.n++] = s->t_point[i] - lat_stage_from(s, i);
	}
	skbprof_clean_comm(e.comm, s->pid ? s->comm : "");
	if (s->pid && s->cgroup)
		e.cgroup = s->cgroup;
	skbprof_trace_event(timeline_fmt, &e, 0);
}

static bool pkttrace_has_data(void)
{
	struct trace_buffer *rb = pkttrace_ring();

	return rb && !ring_buffer_empty(rb);
}

/* One open file's lines, formatted but not yet read. */
struct pkttrace_reader {
	enum skbprof_trace_form form;	/* trace or trace_records */
	struct mutex lock;	/* its readers (threads, io_uring): all below */
	size_t len, off;
	char buf[PAGE_SIZE];
};

/* Room one formatted line needs: prefix, event, a symbol, newline. */
#define LINE_ROOM (2 * SKBPROF_TRACE_DATA_MAX + KSYM_SYMBOL_LEN + 96)

/* The name of a record's sym; under pkttrace_read_lock. */
static char pkttrace_sym[KSYM_SYMBOL_LEN];

/*
 * @rec as a line in @form: its time and CPU, then the event as its
 * producer prints it, the code address it names looked up now.
 */
static int pkttrace_line(char *buf, size_t size,
			 const struct pkttrace_rec *rec,
			 enum skbprof_trace_form form)
{
	const char *sym = rec->sym ? skbprof_location(pkttrace_sym, rec->sym) :
				     "-";
	struct tm tm;
	u32 nsec;
	int n;

	if (form == SKBPROF_TRACE_RECORD) {
		n = scnprintf(buf, size, "realtime_ns=%llu cpu=%u ",
			      rec->real_ns, rec->cpu);
	} else {
		time64_to_tm(div_u64_rem(rec->real_ns, NSEC_PER_SEC, &nsec), 0,
			     &tm);
		n = scnprintf(buf, size, "%02d:%02d:%02d.%06u cpu%u ",
			      tm.tm_hour, tm.tm_min, tm.tm_sec, nsec / 1000,
			      rec->cpu);
	}
	n += rec->fmt(buf + n, size - n, rec->data, form, sym);
	return n + scnprintf(buf + n, size - n, "\n");
}

/* Move lines, oldest first across CPUs, into r->buf. */
static void pkttrace_fill(struct pkttrace_reader *r)
{
	struct trace_buffer *rb = pkttrace_ring();
	const struct pkttrace_rec *rec;
	struct ring_buffer_event *ev;
	unsigned long lost;
	u64 ts, best_ts;
	int cpu, best;

	r->len = 0;
	r->off = 0;
	if (!rb)
		return;
	mutex_lock(&pkttrace_read_lock);
	while (r->len + 2 * LINE_ROOM <= sizeof(r->buf)) {
		best = -1;
		best_ts = 0;
		for_each_online_cpu(cpu) {
			ev = ring_buffer_peek(rb, cpu, &ts, NULL);
			if (!ev)
				continue;
			rec = ring_buffer_event_data(ev);
			if (best < 0 || rec->mono_ns < best_ts) {
				best = cpu;
				best_ts = rec->mono_ns;
			}
		}
		if (best < 0)
			break;
		lost = 0;
		ev = ring_buffer_consume(rb, best, &ts, &lost);
		if (!ev)
			continue;
		if (lost) {
			atomic64_add(lost, &pkttrace_lost);
			r->len += scnprintf(r->buf + r->len, sizeof(r->buf) - r->len,
					    r->form == SKBPROF_TRACE_RECORD ?
					    "lost=%lu\n" : "# lost %lu events\n",
					    lost);
		}
		rec = ring_buffer_event_data(ev);
		r->len += pkttrace_line(r->buf + r->len,
					sizeof(r->buf) - r->len, rec, r->form);
		atomic64_inc(&pkttrace_lines);
	}
	mutex_unlock(&pkttrace_read_lock);
}

static ssize_t pkttrace_read(struct file *file, char __user *ubuf,
			     size_t count, loff_t *ppos)
{
	struct pkttrace_reader *r = file->private_data;
	ssize_t ret;
	size_t n;

	if (!count)
		return 0;
	if (mutex_lock_interruptible(&r->lock))
		return -ERESTARTSYS;
	while (r->off == r->len) {
		pkttrace_fill(r);
		if (r->len)
			break;
		if (file->f_flags & O_NONBLOCK) {
			ret = -EAGAIN;
			goto out;
		}
		ret = wait_event_interruptible(pkttrace_wait,
					       pkttrace_has_data());
		if (ret)
			goto out;
	}
	n = min(count, r->len - r->off);
	ret = -EFAULT;
	if (copy_to_user(ubuf, r->buf + r->off, n))
		goto out;
	r->off += n;
	ret = n;
out:
	mutex_unlock(&r->lock);
	return ret;
}

static __poll_t pkttrace_poll(struct file *file, poll_table *wait)
{
	struct pkttrace_reader *r = file->private_data;

	poll_wait(file, &pkttrace_wait, wait);
	/* a hint without the reader's lock: read() decides */
	if (READ_ONCE(r->off) < READ_ONCE(r->len) || pkttrace_has_data())
		return EPOLLIN | EPOLLRDNORM;
	return 0;
}

static int pkttrace_open_form(struct inode *inode, struct file *file,
			      enum skbprof_trace_form form)
{
	struct pkttrace_reader *r;
	int err;

	err = skbprof_file_ready(inode);
	if (err)
		return err;
	if (file->f_mode & FMODE_WRITE)
		return -EINVAL;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->form = form;
	mutex_init(&r->lock);
	file->private_data = r;
	return nonseekable_open(inode, file);
}

static int pkttrace_open(struct inode *inode, struct file *file)
{
	return pkttrace_open_form(inode, file, SKBPROF_TRACE_TEXT);
}

static int pkttrace_records_open(struct inode *inode, struct file *file)
{
	return pkttrace_open_form(inode, file, SKBPROF_TRACE_RECORD);
}

static int pkttrace_release(struct inode *inode, struct file *file)
{
	struct pkttrace_reader *r = file->private_data;

	mutex_destroy(&r->lock);
	kfree(r);
	return 0;
}

static const struct file_operations pkttrace_fops = {
	.owner		= THIS_MODULE,
	.open		= pkttrace_open,
	.read		= pkttrace_read,
	.poll		= pkttrace_poll,
	.release	= pkttrace_release,
};

static const struct file_operations pkttrace_records_fops = {
	.owner		= THIS_MODULE,
	.open		= pkttrace_records_open,
	.read		= pkttrace_read,
	.poll		= pkttrace_poll,
	.release	= pkttrace_release,
};

static void pkttrace_stats(struct seq_file *m)
{
	struct trace_buffer *rb = pkttrace_ring();

	seq_printf(m, "trace_buffer_bytes %lu\n",
		   rb ? (unsigned long)trace_buffer_kb << 10 : 0);
	seq_printf(m, "pkttrace_lines %lld\n", atomic64_read(&pkttrace_lines));
	seq_printf(m, "pkttrace_lost %lld\n", atomic64_read(&pkttrace_lost));
}

static void pkttrace_reset(void)
{
	atomic64_set(&pkttrace_lines, 0);
	atomic64_set(&pkttrace_lost, 0);
}

/* The buffer is allocated the first time the trace is switched on. */
static int pkttrace_arm(const struct skbprof_config *cfg, char *msg,
			size_t len)
{
	if (cfg->trace == SKBPROF_TRACE_OFF || !pkttrace_prepare())
		return 0;
	snprintf(msg, len, "trace: cannot allocate the trace buffer");
	return -ENOMEM;
}

static int pkttrace_init(void)
{
	bool on;

	init_irq_work(&pkttrace_iw, pkttrace_wake);
	if (!trace_buffer_kb || trace_buffer_kb > (1U << 20)) {
		pr_err("trace_buffer_kb=%u: must be 1-1048576\n",
		       trace_buffer_kb);
		return -EINVAL;
	}
	/* the configuration at load (control is up): trace= */
	rcu_read_lock();
	on = skbprof_config()->trace != SKBPROF_TRACE_OFF;
	rcu_read_unlock();
	if (on && pkttrace_prepare()) {
		pr_err("trace: cannot allocate the trace buffer\n");
		return -ENOMEM;
	}
	return 0;
}

static void pkttrace_exit(void)
{
	/*
	 * Every producer is gone (parts after this one stopped first), and
	 * no control write can arm this part any more.
	 */
	irq_work_sync(&pkttrace_iw);
	if (pkttrace_rb)
		ring_buffer_free(pkttrace_rb);
	pkttrace_rb = NULL;
	pkttrace_reset();
}

static const struct skbprof_file pkttrace_files[] = {
	{ "trace", 0400, &pkttrace_fops, .flows = true },
	{ "trace_records", 0400, &pkttrace_records_fops, .flows = true },
};

const struct skbprof_part skbprof_trace_part = {
	.name	= "trace",
	.init	= pkttrace_init,
	.exit	= pkttrace_exit,
	.arm	= pkttrace_arm,
	.reset	= pkttrace_reset,
	.stats	= pkttrace_stats,
	.files	= pkttrace_files,
	.nfiles	= ARRAY_SIZE(pkttrace_files),
};
