// SPDX-License-Identifier: GPL-2.0
/*
 * The probe points of the stage timelines, and the free path.
 *
 * Each point of a timeline (see timeline.h) is served by a group of
 * candidates: stable tracepoints where one sits at the right place, else
 * function entries, else kretprobes where the skb is the return value.
 * A function entry gets skbprof's ftrace callback where ftrace traces the
 * function (a fraction of a kprobe's cost), a kprobe elsewhere; stats
 * names the mechanism of each ("probe GROUP SYMBOL MECHANISM ...").
 * Functions get inlined or renamed between kernels, so a group lists
 * every candidate known on the supported kernels and, at load, registers
 * the first that works ("first" groups) or every one that works ("all"
 * groups: several hand-off tracepoints, the free paths).  A candidate
 * that fails is reported in stats with its error and never fails the
 * load.
 *
 * The table (groups[]) is the one list of probes: a group names the
 * point it serves (direction, point, transport protocol) and when it is
 * armed; each of its candidates, the function or tracepoint and, for most
 * points, the argument that is the skb (PT()), which one generic handler
 * serves (point()).  Handlers are written out only where a probe does
 * more: starts a timeline, tells peeks from reads, follows GRO, a free,
 * a new head or a segmentation.
 *
 * Every group must be served on every supported kernel: stats says so per
 * group ("group NAME served").  A group is "absent", not unserved, only
 * when it watches a function younger than some supported kernel
 * (@optional) and none of its candidates exists.  A kernel that leaves a
 * group "unserved" (a newer one that renamed or inlined its functions) is
 * refused at load, naming the group, unless allow_unserved=1 asks to run
 * without its stages.
 *
 * Arming.  A group is armed only while the configuration needs it
 * (group_needed()): the points of a direction while one of its stages is
 * measured, for the protocols those stages are for (UDP's send calls,
 * tx app, only for app-udp and tx-total); the free paths while a
 * timeline or lifetime is followed, kfree_skb's (which feeds the drops
 * view) also while drops are counted; the entries of pskb_expand_head()
 * and software GSO that end a followed skb's timeline there while a
 * timeline (a transmit one, for GSO) is followed and kretprobes are off
 * (the default), and instead, with kretprobes on, the kretprobes that
 * carry it on to the new head and the segments, software GSO's also
 * while lifetime is on; a point group a kretprobe serves only with
 * kretprobes on (see compat.h for their cost); lifetime's constructors
 * while lifetime is on, and its own GRO probes while no receive stage is
 * too (the receive groups feed the same GRO tracker then); softnet's
 * softirq and NAPI tracepoints while softnet is on.
 * Every group is registered at load, to learn whether the kernel serves
 * it; main.c then disarms what the configuration does not need.  Later
 * control writes call probes_arm() before the new configuration is
 * published and probes_trim() after, serialised by the control file's
 * mutex; a group is armed while one of its candidates is
 * (group_armed()).  Kprobes stay registered until unload and are enabled
 * and disabled, so switching views waits for no grace period; the ftrace
 * entries a write switches join or leave the ftrace callback's filter in
 * one edit (ft_edit()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/in.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/utsname.h>
#include <net/tcp.h>
#include <trace/events/irq.h>
#include <trace/events/napi.h>
#include <trace/events/net.h>
#include <trace/events/skb.h>

#include "config.h"
#include "drops.h"
#include "gro.h"
#include "lifetime.h"
#include "probes.h"
#include "softnet.h"
#include "stamp.h"
#include "timeline.h"

/* How a candidate is declared: a tracepoint, a function entry, a return. */
enum cand_type { CT_TP, CT_ENTRY, CT_KRETPROBE };

/*
 * What serves it on the running kernel, chosen at load: a function entry
 * gets the ftrace callback where ftrace can trace the function, else a
 * kprobe.
 */
enum cand_mech { CM_NONE, CM_TRACEPOINT, CM_FTRACE, CM_KPROBE, CM_KRETPROBE };

/* What a group serves, and so when it must be armed (group_needed()). */
enum group_view {
	GV_POINT,	/* a timeline point: its direction's stages */
	GV_UDP_CALL,	/* UDP's tx app: app-udp, tx-total */
	GV_REKEY,	/* any timeline, kretprobes on */
	GV_REKEY_END,	/* any timeline, kretprobes off */
	GV_TX,		/* lifetime, or any transmit timeline, kretprobes on */
	GV_TX_END,	/* any transmit timeline, kretprobes off */
	GV_FREE,	/* any timeline, or lifetime */
	GV_DROP,	/* the drops view, any timeline, or lifetime */
	GV_LIFETIME,	/* lifetime */
	GV_LIFE_GRO,	/* lifetime, while no receive stage feeds GRO's tracker */
	GV_SOFTNET,	/* softnet */
};

/*
 * CS_ACTIVE: armed.  CS_IDLE: served at load, disarmed since as no view
 * needs it (a kprobe disabled, a tracepoint probe unregistered).
 * CS_STANDBY: another candidate of its group serves.
 */
enum cand_state { CS_UNTRIED, CS_ACTIVE, CS_IDLE, CS_STANDBY, CS_FAILED };

struct cand;

/*
 * An entry handler reads the probed function's arguments where its
 * mechanism saved them, with ARG(n): ftrace's registers @f, or a kprobe's
 * @regs when @f is NULL.  Nothing is copied that the handler does not read.
 */
typedef void (*entry_fn)(struct cand *c, SKBPROF_FREGS *f,
			 struct pt_regs *regs);
/* The arguments an entry handler may read: the probed function's first. */
#define ENTRY_ARGS	5

static __always_inline unsigned long entry_arg(SKBPROF_FREGS *f,
					       struct pt_regs *regs,
					       unsigned int n)
{
	return f ? skbprof_ftrace_arg(f, n) : regs_get_kernel_argument(regs, n);
}

struct cand {
	const char *sym;
	const char *group;		/* its group's name, set at load */
	u8 type;
	void *tp_fn;
	entry_fn en;
	u8 arg;			/* en_point(): the argument that is the skb */
	kretprobe_handler_t entry, ret;
	size_t data_size;
	/* set at load; a point's from its group (en_point(), tp_point()) */
	s8 kind;
	u8 point;
	u8 proto;
	u8 mech;
	u8 state;
	int err;
	unsigned int id;		/* slot in hits[] */
	bool ftrace_off;		/* failed: on ftrace's site, ftrace off */
	unsigned long ip;		/* CM_FTRACE: the traced call site */
	atomic_long_t missed;		/* CM_FTRACE: hits the guard refused */
	struct tracepoint *tp;
	struct kprobe kp;
	struct kretprobe krp;
};

struct group {
	const char *name;
	s8 kind;		/* STAMP_RX, STAMP_TX; -1: not a timeline point */
	s8 point;
	u8 proto;		/* IPPROTO_TCP, IPPROTO_UDP; 0: either */
	bool all;		/* every candidate that works, not the first */
	u8 view;		/* enum group_view: what needs it */
	bool optional;		/* its function is younger than some kernels */
	struct cand *c;
	unsigned int n;
};

static bool allow_unserved;
module_param(allow_unserved, bool, 0400);
MODULE_PARM_DESC(allow_unserved,
		 "Load even when no probe serves a group on this kernel; its stages are then unavailable");

static bool entry_ftrace = true;
module_param(entry_ftrace, bool, 0400);
MODULE_PARM_DESC(entry_ftrace,
		 "Serve function entries with an ftrace callback where ftrace traces them (default); 0: kprobes");

/* writable: arming after load reads it too (under kernel_param_lock) */
static char *probe_deny;
SKBPROF_TEST_PARAM(probe_deny, probe_deny, charp, 0600,
		   "Testing only: candidates (comma-separated) to treat as absent from the kernel");

static bool ftrace_batch = true;
SKBPROF_TEST_PARAM(ftrace_batch, ftrace_batch, bool, 0600,
		   "Testing only: 0 edits ftrace's filter one address at a time, as where the kernel has no ftrace_set_filter_ips()");

static u64 __percpu *hits;
/* room for every candidate, filled on unload (see unregister_all) */
static struct kprobe **kp_batch;
static struct kretprobe **krp_batch;
/* the same, for the ftrace entries a control write switches (ft_edit()) */
static struct cand **ft_cands;
static unsigned long *ft_ips;

/*
 * Count a hit; false in benchmark mode, where handlers do nothing else,
 * and in NMI context (a panic through netconsole), where a handler could
 * spin on a bucket lock the interrupted context holds.
 */
static inline bool hit(struct cand *c)
{
	/* every handler runs with preemption off (SKBPROF_TP_ENTER()) */
	SKBPROF_ASSERT(preemptible());
	if (skbprof_bench_empty || in_nmi())
		return false;
	this_cpu_inc(hits[c->id]);
	return true;
}

/* argument @n of a probed function: of an entry handler, of a kretprobe's */
#define ARG(n)	({ BUILD_BUG_ON((n) >= ENTRY_ARGS);			\
		   (void *)entry_arg(f, regs, n); })
#define REG_ARG(regs, n)	((void *)regs_get_kernel_argument(regs, n))

static inline struct cand *kp_cand(struct kprobe *p)
{
	return container_of(p, struct cand, kp);
}

static inline struct cand *krp_cand(struct kretprobe_instance *ri)
{
	return container_of(skbprof_kretprobe_of(ri), struct cand, krp);
}

/* ---- the function-entry probes: one ftrace callback, or kprobes ---- */

/*
 * Every function entry ftrace serves goes to one ftrace_ops, registered
 * for the module's lifetime: unregistering an ops waits for RCU-tasks
 * grace periods, one ops per function would wait once for each.  Arming
 * a candidate adds its function to the ops' filter, disarming removes it.
 * The filter always holds skbprof_ftrace_park() too, which nothing calls:
 * an ops whose filter is empty traces every function in the kernel.
 *
 * ftrace calls the ops through a trampoline of its own while no other
 * tracer (a kprobe, the function tracer) is on the same function; with
 * another there, every hit walks the list of ops on it.
 *
 * ft_table maps a traced call site to its candidate; it is filled at load,
 * before the ops traces the site, and read only since.
 *
 * kernel.ftrace_enabled=0 makes ftrace call nothing: not this ops, nor
 * the kprobes that sit on ftrace's call sites (KPROBES_ON_FTRACE, every
 * function entry on x86-64), which would stay "active" and never fire.
 * So the ops is FTRACE_OPS_FL_PERMANENT, as livepatch's are: while it is
 * registered the kernel refuses to set the sysctl to 0 (EBUSY), and it
 * is registered even with entry_ftrace=0, tracing only the park, to hold
 * the sysctl for those kprobes.  Loaded while the sysctl is 0, the
 * registration fails with EBUSY (ft_off): the candidates that would need
 * ftrace are then unavailable ("ftrace-disabled"), not falsely active.
 */
#define FT_BITS		6
static struct cand *ft_table[1 << FT_BITS];
static bool ft_registered;
static int ft_err;		/* why the ops could not be registered */
static bool ft_off;		/* kernel.ftrace_enabled was 0 at load */

static noinline void skbprof_ftrace_park(void)
{
	barrier();
}

/*
 * The callback's guard: one bit per context (task, softirq, hardirq) on
 * each CPU, so that a handler never runs inside itself (a function it
 * calls being traced), while a softirq that interrupts a handler still
 * gets its own hits, which kprobes would miss (nmissed).  In an NMI,
 * hit() declines.  Preemption stays off while the handler runs, as in a
 * kprobe's.
 */
static DEFINE_PER_CPU(unsigned int, ft_busy);

static __always_inline int ft_trylock(void)
{
	unsigned long pc = preempt_count();
	int bit = pc & HARDIRQ_MASK ? 2 : pc & SOFTIRQ_OFFSET ? 1 : 0;

	preempt_disable_notrace();
	if (unlikely(__this_cpu_read(ft_busy) & BIT(bit))) {
		preempt_enable_notrace();
		return -1;
	}
	__this_cpu_or(ft_busy, BIT(bit));
	return bit;
}

static __always_inline void ft_unlock(int bit)
{
	__this_cpu_and(ft_busy, ~BIT(bit));
	preempt_enable_notrace();
}

static inline unsigned int ft_slot(unsigned long ip)
{
	return hash_long(ip, FT_BITS);
}

static struct cand *ft_cand(unsigned long ip)
{
	unsigned int i = ft_slot(ip), n;

	for (n = 0; n < ARRAY_SIZE(ft_table); n++) {
		if (!ft_table[i] || ft_table[i]->ip == ip)
			return ft_table[i];
		i = (i + 1) % ARRAY_SIZE(ft_table);
	}
	return NULL;
}

static void notrace skbprof_ftrace_entry(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *op,
					 SKBPROF_FREGS *f)
{
	struct cand *c = ft_cand(ip);
	int bit;

	if (unlikely(!c))
		return;			/* skbprof_ftrace_park() */
	bit = ft_trylock();
	if (unlikely(bit < 0)) {
		atomic_long_inc(&c->missed);
		return;
	}
	if (hit(c))
		c->en(c, f, NULL);
	ft_unlock(bit);
}

static struct ftrace_ops ft_ops = {
	.func	= skbprof_ftrace_entry,
	.flags	= SKBPROF_FTRACE_OPS_FLAGS | FTRACE_OPS_FL_PERMANENT,
};

/*
 * Register the ops, tracing only the park.  On error, kprobes serve; but
 * with kernel.ftrace_enabled=0 (EBUSY, see above) not those on ftrace's
 * call sites.
 */
static void ft_init(void)
{
	unsigned long park = (unsigned long)skbprof_ftrace_park;

	memset(ft_table, 0, sizeof(ft_table));
	ft_off = false;
	ft_err = ftrace_set_filter_ip(&ft_ops, park, 0, 1);
	if (ft_err)
		goto out;
	ft_err = register_ftrace_function(&ft_ops);
	if (ft_err)
		ftrace_set_filter_ip(&ft_ops, park, 1, 0);
out:
	ft_registered = !ft_err;
	ft_off = ft_err == -EBUSY;
	if (ft_off)
		pr_warn("kernel.ftrace_enabled is 0: no probe on ftrace's call sites can fire, and those that need one are unavailable (ftrace-disabled); set it to 1 and load again\n");
	else if (ft_err)
		pr_warn("no ftrace callback (%d): function entries get kprobes\n",
			ft_err);
}

static void ft_exit(void)
{
	size_t i;

	if (!ft_registered)
		return;
	unregister_ftrace_function(&ft_ops);
	ft_registered = false;
	/*
	 * Empty the filter, which frees its entries: 5.10 does not export
	 * ftrace_free_filter().  The ops traces nothing now.
	 */
	for (i = 0; i < ARRAY_SIZE(ft_table); i++)
		if (ft_table[i])
			ftrace_set_filter_ip(&ft_ops, ft_table[i]->ip, 1, 0);
	ftrace_set_filter_ip(&ft_ops, (unsigned long)skbprof_ftrace_park, 1, 0);
}

/*
 * Give @c the callback at @ip, if ftrace traces a call site there: enter
 * it in ft_table, then in the ops' filter, which refuses any other
 * address.  On refusal the slot is emptied again: it ends its probe
 * sequence, so every other candidate stays reachable.
 */
static int ft_take(struct cand *c, unsigned long ip)
{
	unsigned int i = ft_slot(ip), n;
	int err;

	for (n = 0; ft_table[i]; n++, i = (i + 1) % ARRAY_SIZE(ft_table))
		if (n == ARRAY_SIZE(ft_table) - 1 || ft_table[i]->ip == ip)
			return -EBUSY;
	c->ip = ip;
	WRITE_ONCE(ft_table[i], c);
	err = ftrace_set_filter_ip(&ft_ops, ip, 0, 0);
	if (err)
		WRITE_ONCE(ft_table[i], NULL);
	return err;
}

/*
 * Serve @c, whose kprobe found its function, with the callback at the
 * call site ftrace traces.  With kprobes on ftrace the kprobe at the
 * entry sits on the site and says so (KPROBE_FLAG_FTRACE).  Without
 * (arm64) the site is one of the first instructions (compat.h,
 * SKBPROF_FTRACE_SITE_OFFSETS).  0, or an error: then a kprobe serves @c.
 */
static int ft_serve(struct cand *c)
{
	static const unsigned int site[] = SKBPROF_FTRACE_SITE_OFFSETS;
	unsigned long addr = (unsigned long)c->kp.addr;
	int err = -ENOENT;
	size_t i;

	if (c->kp.flags & KPROBE_FLAG_FTRACE)
		return ft_take(c, addr);
	for (i = 0; i < ARRAY_SIZE(site) && err && err != -EBUSY; i++)
		err = ft_take(c, addr + site[i]);
	return err;
}

/* A kprobe on an entry that ftrace cannot serve: the same handler. */
static int kp_entry(struct kprobe *p, struct pt_regs *regs)
{
	struct cand *c = kp_cand(p);

	if (hit(c))
		c->en(c, NULL, regs);
	return 0;
}

/* ---- the points most rows serve: the skb is an argument ---- */

/* @skb reaches the point @c serves, in its group's direction. */
static __always_inline void point(const struct cand *c,
				  const struct sk_buff *skb)
{
	if (c->kind == STAMP_RX)
		lat_rx_point(skb, c->point, c->proto, c->id);
	else
		lat_tx_point(skb, c->point, c->proto, c->id);
}

/* A function entry whose argument @c->arg is the skb. */
static void en_point(struct cand *c, SKBPROF_FREGS *f, struct pt_regs *regs)
{
	const struct sk_buff *skb;

	/* each a load from a register's slot: no general argument lookup */
	switch (c->arg) {
	case 0:
		skb = ARG(0);
		break;
	case 1:
		skb = ARG(1);
		break;
	case 2:
		skb = ARG(2);
		break;
	case 3:
		skb = ARG(3);
		break;
	default:
		skb = ARG(4);
		break;
	}
	point(c, skb);
}

/* The tracepoints, by prototype: the skb comes first. */
static void tp_point(void *data, struct sk_buff *skb)
{
	SKBPROF_TP_ENTER();
	if (hit(data))
		point(data, skb);
}

static void tp_point_len(void *data, const struct sk_buff *skb, int len)
{
	SKBPROF_TP_ENTER();
	if (hit(data))
		point(data, skb);
}

static void tp_point_dev(void *data, const struct sk_buff *skb,
			 const struct net_device *dev)
{
	SKBPROF_TP_ENTER();
	if (hit(data))
		point(data, skb);
}

/* ---- receive ---- */

/* netif_rx: to a CPU's backlog */
static void tp_rx_start(void *data, struct sk_buff *skb)
{
	SKBPROF_TP_ENTER();
	if (!hit(data))
		return;
	lat_rx_start(skb, ((struct cand *)data)->id, LAT_RX_QUEUED);
}

/* the *_entry tracepoints, whose skb is const */
static void tp_rx_start_entry(void *data, const struct sk_buff *skb)
{
	SKBPROF_TP_ENTER();
	if (!hit(data))
		return;
	lat_rx_start(skb, ((struct cand *)data)->id, LAT_RX_ENTRY);
}

/* napi_gro_receive_entry, napi_gro_frags_entry: a frame GRO may merge */
static void tp_rx_gro_entry(void *data, const struct sk_buff *skb)
{
	SKBPROF_TP_ENTER();
	if (!hit(data))
		return;
	gro_enter(skb);
	lat_rx_start(skb, ((struct cand *)data)->id, LAT_RX_ENTRY);
}

/* netif_receive_skb: the core, where GRO hands its skbs to the stack */
static void tp_rx_core(void *data, struct sk_buff *skb)
{
	SKBPROF_TP_ENTER();
	if (!hit(data))
		return;
	gro_deliver(skb);
	lat_rx_start(skb, ((struct cand *)data)->id, LAT_RX_CORE);
}

/* GRO returns: what became of its frame, to the timelines, then lifetime */
static void gro_returned(int ret, bool frags)
{
	struct gro_end end;

	gro_exit(ret, frags, &end);
	lat_rx_gro_end(&end);
	lifetime_gro_end(&end);
}

static void tp_gro_exit(void *data, int ret)
{
	SKBPROF_TP_ENTER();
	if (hit(data))
		gro_returned(ret, false);
}

static void tp_gro_frags_exit(void *data, int ret)
{
	SKBPROF_TP_ENTER();
	if (hit(data))
		gro_returned(ret, true);
}

/* GRO takes a frame, for lifetime alone (no receive timeline starts) */
static void tp_gro_entry(void *data, const struct sk_buff *skb)
{
	SKBPROF_TP_ENTER();
	if (hit(data))
		gro_enter(skb);
}

/* tcp_recvmsg(sk, msg, len, [nonblock,] flags, addr_len): does it peek? */
static void en_recv_tcp(struct cand *c, SKBPROF_FREGS *f,
			struct pt_regs *regs)
{
	lat_rx_recv((unsigned long)ARG(SKBPROF_TCP_RECVMSG_FLAGS_ARG) &
		    MSG_PEEK);
}

/*
 * skb_consume_udp(sk, skb, len): UDP's read of a datagram, with len its
 * length, or minus it for a peek (udp_recvmsg(), udpv6_recvmsg()).  A peek
 * of an empty datagram holds a reference besides the queue's.
 */
static void en_rx_app_udp(struct cand *c, SKBPROF_FREGS *f,
			  struct pt_regs *regs)
{
	const struct sk_buff *skb = ARG(1);
	int len = (int)(long)ARG(2);

	if (len < 0 || (!len && refcount_read(&skb->users) > 1))
		return;
	point(c, skb);
}

/* ---- transmit ---- */

static void en_tx_tcp_entail(struct cand *c, SKBPROF_FREGS *f,
			     struct pt_regs *regs)
{
	lat_tx_start(ARG(1), ARG(0), NULL, IPPROTO_TCP, TXP_APP, c->id);
}

/* The TCP allocators' kretprobes keep the socket here. */
struct sk_arg {
	const struct sock *sk;
};

static int krp_save_sk(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sk_arg *a = (void *)ri->data;

	if (skbprof_bench_empty)
		return 0;
	a->sk = REG_ARG(regs, 0);
	return 0;
}

/*
 * [start, end) of the functions that allocate TCP's skbs for the
 * application (skbprof_tcp_app_allocators()), those whose end kallsyms
 * knows: without it, every return address would seem inside.  Set by
 * probes_init() before any probe is registered, read only since.
 */
static struct {
	unsigned long start, end;
} tcp_app_allocators[SKBPROF_TCP_APP_ALLOCATORS_MAX];
static unsigned int n_tcp_app_allocators;

static void tcp_app_allocators_init(void)
{
	unsigned long addr[SKBPROF_TCP_APP_ALLOCATORS_MAX], end;
	unsigned int i, n;

	n = skbprof_tcp_app_allocators(addr);
	n_tcp_app_allocators = 0;
	for (i = 0; i < n; i++) {
		end = skbprof_function_end(addr[i]);
		if (!end) {
			pr_warn("no size of the TCP allocator at %pS: its skbs have no transmit timeline before 5.15\n",
				(void *)addr[i]);
			continue;
		}
		tcp_app_allocators[n_tcp_app_allocators].start = addr[i];
		tcp_app_allocators[n_tcp_app_allocators++].end = end;
	}
}

/* Did an skb allocator return to the application's TCP send path? */
static inline bool tcp_app_alloc(unsigned long ret)
{
	unsigned int i;

	for (i = 0; i < n_tcp_app_allocators; i++)
		if (ret - tcp_app_allocators[i].start <
		    tcp_app_allocators[i].end - tcp_app_allocators[i].start)
			return true;
	return false;
}

/*
 * Before 5.15: the skbs sk_stream_alloc_skb() returns to
 * tcp_sendmsg_locked() or do_tcp_sendpages(), as tcp_skb_entail() sees
 * from 5.15; not the pieces tcp_fragment() and tso_fragment() split off
 * (also on retransmission), nor MTU probes, SYNs or SYN data.
 */
static int krp_tx_tcp_alloc(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct sk_buff *skb = (void *)regs_return_value(regs);

	if (!tcp_app_alloc(skbprof_kretprobe_retaddr(ri)))
		return 0;
	if (!hit(krp_cand(ri)))
		return 0;
	if (skb)
		lat_tx_start(skb, ((struct sk_arg *)ri->data)->sk, NULL,
			     IPPROTO_TCP, TXP_APP, krp_cand(ri)->id);
	return 0;
}

/*
 * udp_sendmsg(sk, msg, len), udpv6_sendmsg(sk, msg[, len]): a UDP send
 * call begins, the first point of its datagrams (lat_tx_udp_call()).  An
 * IPv6 socket's datagram to an IPv4-mapped address goes on from
 * udpv6_sendmsg() to udp_sendmsg(): its call began at the first.
 */
static void en_tx_app_udp4(struct cand *c, SKBPROF_FREGS *f,
			   struct pt_regs *regs)
{
	const struct sock *sk = ARG(0);

	if (sk->sk_family == AF_INET)
		lat_tx_udp_call(sk, ARG(1), c->id);
}

static void en_tx_app_udp6(struct cand *c, SKBPROF_FREGS *f,
			   struct pt_regs *regs)
{
	lat_tx_udp_call(ARG(0), ARG(1), c->id);
}

/*
 * udp_send_skb(skb, fl4, cork), udp_v6_send_skb(skb, fl6, cork): the
 * datagram, whole, as UDP puts its header on.  Its transmit timeline
 * starts here, corked or not (udp_sendmsg() calls it as soon as
 * ip_make_skb() returns, udp_push_pending_frames() when the cork comes
 * off, with the socket's own cork), from the send call's entry, and
 * reaches UDP at once, in the same visit to the table.
 */
static void en_tx_udp4(struct cand *c, SKBPROF_FREGS *f,
		       struct pt_regs *regs)
{
	lat_tx_udp(ARG(0), ARG(1), ARG(2), c->id);
}

static void en_tx_udp6(struct cand *c, SKBPROF_FREGS *f,
		       struct pt_regs *regs)
{
	lat_tx_udp(ARG(0), NULL, ARG(2), c->id);
}

/* ---- frees, head reallocation, lifetime ---- */

/*
 * Does @sk's TCP have the data of the segment @skb already: data (a FIN
 * counts) wholly before the next byte it expects?  TCP's control block
 * holds the numbers: tcp_v4_rcv() and tcp_v6_rcv() filled it before
 * tcp_validate_incoming() and tcp_data_queue() judge the segment.
 */
static bool tcp_old_data(const struct sock *sk, const struct sk_buff *skb)
{
	const struct tcp_skb_cb *cb = TCP_SKB_CB(skb);

	return cb->end_seq != cb->seq &&
	       !after(cb->end_seq, READ_ONCE(tcp_sk(sk)->rcv_nxt));
}

/*
 * The old segment tcp_validate_incoming() is about to discard on this CPU
 * (outside the window, or an old timestamp), marked by the probe of the
 * duplicate ACK it sends first (en_tcp_dupack()); its end_seq guards
 * against a mark left by a drop on another CPU (a backlog run in process
 * context can migrate) and an skb at the same address later.
 */
struct tcp_dup_mark {
	const struct sk_buff *skb;
	u32 end_seq;
};

static DEFINE_PER_CPU(struct tcp_dup_mark, tcp_dup_mark);

/*
 * tcp_send_dupack(sk, skb), static, where the kernel does not inline it
 * (5.10, 6.1, 6.12 and 7.2 on x86-64 do not): it answers a segment
 * tcp_validate_incoming() refuses, which it then discards at once, and
 * counts an old one in TcpExt DelayedACKLost.  The only duplicates 6.1
 * cannot tell by their drop reason, and 5.10 by anything else.
 */
static void en_tcp_dupack(struct cand *c, SKBPROF_FREGS *f,
			  struct pt_regs *regs)
{
	const struct sk_buff *skb = ARG(1);
	struct tcp_dup_mark *m = this_cpu_ptr(&tcp_dup_mark);

	if (!tcp_old_data(ARG(0), skb))
		return;
	m->skb = skb;
	m->end_seq = TCP_SKB_CB(skb)->end_seq;
}

/* Is the free of @skb the discard of the old segment marked?  Unmarks. */
static __always_inline bool tcp_dup_marked(const struct sk_buff *skb)
{
	struct tcp_dup_mark *m = this_cpu_ptr(&tcp_dup_mark);

	if (likely(m->skb != skb) || !skb)
		return false;
	m->skb = NULL;
	return m->end_seq == TCP_SKB_CB(skb)->end_seq;
}

/*
 * Is the TCP segment @skb, which @rx_sk's receive path drops for @reason,
 * one whose data TCP had already (a retransmission's copy: the original
 * came, or a copy before it)?  Its data reaches the application in the
 * skb that came first.  The reasons that say so by their definition, and
 * those of a sequence check that say it of an old segment when the
 * socket is known (compat.h, SKBPROF_TCP_DROP_REASONS), or when its
 * duplicate ACK marked it (en_tcp_dupack()).
 */
static bool tcp_dup_drop(const struct sk_buff *skb, u32 reason,
			 const struct sock *rx_sk)
{
	if (tcp_dup_marked(skb))
		return true;
#ifdef SKBPROF_TCP_DROP_REASONS
	switch (reason) {
	case SKB_DROP_REASON_TCP_OLD_DATA:	/* before rcv_nxt */
	case SKB_DROP_REASON_TCP_OFOMERGE:	/* in the out-of-order queue */
	case SKB_DROP_REASON_TCP_OFO_DROP:	/* received in order meanwhile */
		return true;
#ifdef SKBPROF_DROP_TCP_OLD_SEQUENCE
	case SKB_DROP_REASON_TCP_OLD_SEQUENCE:	/* before the window */
		return TCP_SKB_CB(skb)->end_seq != TCP_SKB_CB(skb)->seq;
#endif
	case SKB_DROP_REASON_TCP_INVALID_SEQUENCE:
	case SKB_DROP_REASON_TCP_RFC7323_PAWS:
		/* a time-wait or request socket has no rcv_nxt */
		if (!rx_sk || !sk_fullsock(rx_sk) ||
		    rx_sk->sk_protocol != IPPROTO_TCP ||
		    ((1 << READ_ONCE(rx_sk->sk_state)) &
		     (TCPF_LISTEN | TCPF_SYN_SENT | TCPF_CLOSE)))
			return false;
		return tcp_old_data(rx_sk, skb);
	}
#endif
	return false;
}

/*
 * kfree_skb: the kernel dropped @skb.  In order: its timelines end, in
 * the one visit that also tells how far the packet got and who sent it
 * (as a duplicate when TCP had its data: tcp_dup_drop()); the drop is
 * counted with that; its lifetime ends.
 */
static void free_dropped(void *data, struct sk_buff *skb, void *location,
			 u32 reason, const struct sock *rx_sk)
{
	struct skbprof_seen seen;
	bool tracked;

	if (!hit(data))
		return;
	tracked = lat_free(skb, tcp_dup_drop(skb, reason, rx_sk) ?
			   END_DUPLICATE : END_DROPPED, &seen);
	drops_record(skb, location, reason, tracked ? &seen : NULL);
	lifetime_end(skb);
}

SKBPROF_DEFINE_KFREE_SKB_PROBE(tp_kfree_skb, free_dropped)

static void tp_consume_skb(SKBPROF_TP_CONSUME_SKB_ARGS)
{
	SKBPROF_TP_ENTER();
	if (!hit(data))
		return;
	lat_free(skb, END_FREED, NULL);
	lifetime_end(skb);
}

/* 5.10's tcp_drop() discards with __kfree_skb(): a marked one is old */
static void en_free(struct cand *c, SKBPROF_FREGS *f,
		    struct pt_regs *regs)
{
	lat_free(ARG(0), tcp_dup_marked(ARG(0)) ? END_DUPLICATE : END_FREED,
		 NULL);
	lifetime_end(ARG(0));
}

/* kfree_skb_partial: the skb's data joined another skb (TCP coalescing) */
static void en_free_partial(struct cand *c, SKBPROF_FREGS *f,
			    struct pt_regs *regs)
{
	lat_free(ARG(0), END_COALESCED, NULL);
	lifetime_coalesced(ARG(0));
}

struct expand_arg {
	const struct sk_buff *skb;
	const void *head;
};

/*
 * Non-zero declines the call: no return probe for an skb whose head
 * carries no timeline, most of them.  The kernel took an instance for
 * the call all the same, and gives it back (compat.h).
 */
static int krp_expand_entry(struct kretprobe_instance *ri,
			    struct pt_regs *regs)
{
	struct expand_arg *a = (void *)ri->data;

	if (skbprof_bench_empty)
		return 0;
	a->skb = REG_ARG(regs, 0);
	if (!a->skb || !lat_carries(a->skb, BIT(STAMP_RX) | BIT(STAMP_TX)))
		return 1;
	a->head = a->skb->head;
	return 0;
}

static int krp_expand_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct expand_arg *a = (void *)ri->data;

	if (!hit(krp_cand(ri)))
		return 0;
	if (!regs_return_value(regs) && a->skb &&
	    READ_ONCE(a->skb->head) != a->head)
		lat_rekey(a->skb, a->head);
	return 0;
}

/* __skb_gso_segment(skb, features, tx_path): @skb outlives the call */
static int krp_gso_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct sk_buff *skb = REG_ARG(regs, 0);

	if (skbprof_bench_empty)
		return 0;
	/* declined: neither a transmit timeline nor a lifetime follows it */
	if (!skb || (!lat_carries(skb, BIT(STAMP_TX)) &&
		     stamp_none((unsigned long)skb, STAMP_LIFE, false)))
		return 1;
	*(const struct sk_buff **)ri->data = skb;
	return 0;
}

/*
 * With kretprobes off (the default), the entries of the same functions:
 * a followed skb's timeline ends there, counted (lat_expand(),
 * lat_tx_gso()), as no probe sees the new head or the segments.
 */
static void en_expand(struct cand *c, SKBPROF_FREGS *f, struct pt_regs *regs)
{
	lat_expand(ARG(0));
}

static void en_gso(struct cand *c, SKBPROF_FREGS *f, struct pt_regs *regs)
{
	lat_tx_gso(ARG(0));
}

static int krp_gso_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	const struct sk_buff *segs = (void *)regs_return_value(regs);

	if (!hit(krp_cand(ri)))
		return 0;
	if (IS_ERR_OR_NULL(segs))
		return 0;
	lat_tx_segmented(*(const struct sk_buff **)ri->data, segs);
	lifetime_segmented(*(const struct sk_buff **)ri->data, segs);
	return 0;
}

/* The skb constructors: ri->data is when a followed call began. */
static int krp_life_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	/* non-zero: do not arm the return probe for this call */
	return in_nmi() || !lifetime_follow((u64 *)ri->data);
}

static int krp_life_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sk_buff *skb = (void *)regs_return_value(regs);

	if (!hit(krp_cand(ri)))
		return 0;
	if (!IS_ERR_OR_NULL(skb))
		lifetime_start(skb, *(u64 *)ri->data);
	return 0;
}

/* ---- below the stack: softirqs and NAPI polls (softnet.c) ---- */

static void tp_softirq_raise(void *data, unsigned int vec)
{
	SKBPROF_TP_ENTER();
	if (hit(data))
		softnet_raise(vec);
}

static void tp_softirq_entry(void *data, unsigned int vec)
{
	SKBPROF_TP_ENTER();
	if (hit(data))
		softnet_entry(vec);
}

static void tp_softirq_exit(void *data, unsigned int vec)
{
	SKBPROF_TP_ENTER();
	if (hit(data))
		softnet_exit(vec);
}

static void tp_napi_poll(void *data, struct napi_struct *napi, int work,
			 int budget)
{
	SKBPROF_TP_ENTER();
	if (hit(data))
		softnet_poll(work, budget);
}

/* ---- the candidates ---- */

#define TP(s, fn)	{ .sym = s, .type = CT_TP, .tp_fn = (void *)(fn) }
#define EN(s, fn)	{ .sym = s, .type = CT_ENTRY, .en = fn }
/* a point's function entry: its argument @n is the skb */
#define PT(s, n)	{ .sym = s, .type = CT_ENTRY, .en = en_point, \
			  .arg = (n) + BUILD_BUG_ON_ZERO((n) >= ENTRY_ARGS) }
#define KRP(s, en, fn, sz) \
	{ .sym = s, .type = CT_KRETPROBE, .entry = en, .ret = fn, \
	  .data_size = sz }

static struct cand c_rx_drv[] = {
	TP("netif_rx", tp_rx_start),
	TP("netif_receive_skb_entry", tp_rx_start_entry),
	TP("netif_receive_skb_list_entry", tp_rx_start_entry),
	TP("napi_gro_receive_entry", tp_rx_gro_entry),
	TP("napi_gro_frags_entry", tp_rx_gro_entry),
	/* the core: catches hand-offs without an entry tracepoint */
	TP("netif_receive_skb", tp_rx_core),
};

/* GRO's end: what became of the frame its entry tracepoint saw */
static struct cand c_rx_gro[] = {
	TP("napi_gro_receive_exit", tp_gro_exit),
	TP("napi_gro_frags_exit", tp_gro_frags_exit),
};

/* TCP's receive calls, IPv4 and IPv6: which of them peek */
static struct cand c_rx_recv[] = {
	EN("tcp_recvmsg", en_recv_tcp),
};

static struct cand c_rx_ip4[] = {
	PT("ip_rcv_core", 0),	/* ip_rcv and ip_list_rcv */
	PT("ip_rcv", 0),
};

static struct cand c_rx_ip6[] = {
	PT("ip6_rcv_core", 0),	/* ipv6_rcv and ipv6_list_rcv */
	PT("ipv6_rcv", 0),
};

static struct cand c_rx_tcp4[] = { PT("tcp_v4_rcv", 0) };

static struct cand c_rx_tcp6[] = { PT("tcp_v6_rcv", 0) };

static struct cand c_rx_udp4[] = {
	PT("udp_rcv", 0),
	PT("__udp4_lib_rcv", 0),
};

static struct cand c_rx_udp6[] = {
	PT("udpv6_rcv", 0),
	PT("__udp6_lib_rcv", 0),
};

static struct cand c_rx_app[] = {
	TP("skb_copy_datagram_iovec", tp_point_len),
	PT("skb_copy_datagram_iter", 0),
};

static struct cand c_rx_app_udp[] = {
	/* after udp(v6)_recvmsg copied: linear skbs skip the tracepoint */
	EN("skb_consume_udp", en_rx_app_udp),
};

static struct cand c_tx_app_tcp[] = {
	EN("tcp_skb_entail", en_tx_tcp_entail),			/* 5.15+ */
	/* 5.10's name, static: where the compiler did not inline it */
	EN("skb_entail", en_tx_tcp_entail),
	KRP("sk_stream_alloc_skb", krp_save_sk, krp_tx_tcp_alloc,
	    sizeof(struct sk_arg)),				/* to 5.18 */
	KRP("tcp_stream_alloc_skb", krp_save_sk, krp_tx_tcp_alloc,
	    sizeof(struct sk_arg)),
};

static struct cand c_tx_app_udp4[] = { EN("udp_sendmsg", en_tx_app_udp4) };

static struct cand c_tx_app_udp6[] = { EN("udpv6_sendmsg", en_tx_app_udp6) };

static struct cand c_tx_tcp[] = {
	PT("__tcp_transmit_skb", 1),
	PT("tcp_transmit_skb", 1),
};

static struct cand c_tx_udp4[] = { EN("udp_send_skb", en_tx_udp4) };

static struct cand c_tx_udp6[] = { EN("udp_v6_send_skb", en_tx_udp6) };

static struct cand c_tx_ip4[] = { PT("ip_output", 2) };

static struct cand c_tx_ip6[] = { PT("ip6_output", 2) };

static struct cand c_tx_dev[] = {
	TP("net_dev_queue", tp_point),
	PT("__dev_queue_xmit", 0),
	PT("dev_queue_xmit", 0),
};

static struct cand c_tx_drv[] = {
	TP("net_dev_start_xmit", tp_point_dev),
	PT("dev_hard_start_xmit", 0),
};

/* the drops, which end timelines and lifetimes too */
static struct cand c_free_drop[] = { TP("kfree_skb", tp_kfree_skb) };

static struct cand c_free[] = {
	TP("consume_skb", tp_consume_skb),
	/* every release of an sk_buff, also those without a tracepoint */
	EN("skb_release_head_state", en_free),
	/* direct callers (TCP's pure ACKs, eaten skbs) */
	EN("__kfree_skb", en_free),
	EN("kfree_skb_partial", en_free_partial),
	/* 5.19+: handed to another CPU to free, maybe much later */
	EN("skb_attempt_defer_free", en_free),
	EN("napi_skb_free_stolen_head", en_free),
	/* marks an old segment tcp_validate_incoming() discards next */
	EN("tcp_send_dupack", en_tcp_dupack),
};

static struct cand c_rekey[] = {
	KRP("pskb_expand_head", krp_expand_entry, krp_expand_ret,
	    sizeof(struct expand_arg)),
};

static struct cand c_rekey_end[] = { EN("pskb_expand_head", en_expand) };

/* software GSO (validate_xmit_skb(), ip_finish_output_gso(), qdiscs) */
static struct cand c_tx_gso[] = {
	KRP("__skb_gso_segment", krp_gso_entry, krp_gso_ret,
	    sizeof(struct sk_buff *)),
};

static struct cand c_tx_gso_end[] = { EN("__skb_gso_segment", en_gso) };

/*
 * The skb constructors, a group each: a rename leaves its group unserved
 * instead of hiding behind the others.  Nested constructors return the
 * same skb, whose first stamp stays (lifetime_start()).
 */
#define LIFE_KRP(s)	KRP(s, krp_life_entry, krp_life_ret, sizeof(u64))

static struct cand c_life_alloc[] = {
	LIFE_KRP("__alloc_skb"),
};

static struct cand c_life_build[] = {
	LIFE_KRP("__build_skb"),
};

static struct cand c_life_napi_alloc[] = {
	LIFE_KRP("napi_alloc_skb"),	/* 6.12+ */
	LIFE_KRP("__napi_alloc_skb"),
};

static struct cand c_life_napi_build[] = {
	LIFE_KRP("napi_build_skb"),	/* 5.12+ */
};

static struct cand c_life_clone[] = {
	LIFE_KRP("skb_clone"),
};

/*
 * GRO, for the lifetime view while no receive timeline is followed: the
 * receive groups' GRO tracepoints feeding the same tracker (gro.h), so
 * that lifetime alone arms only these, which fire only for frames GRO
 * takes, and not every receive hand-off.
 */
static struct cand c_life_gro[] = {
	/* exits first: armed in this order and disarmed in the reverse */
	TP("napi_gro_receive_exit", tp_gro_exit),
	TP("napi_gro_frags_exit", tp_gro_frags_exit),
	TP("napi_gro_receive_entry", tp_gro_entry),
	TP("napi_gro_frags_entry", tp_gro_entry),
};

/*
 * softnet: exits first, armed in this order (a run's end ends no run),
 * disarmed in the reverse (no raise is left whose entry is gone)
 */
static struct cand c_softnet[] = {
	TP("softirq_exit", tp_softirq_exit),
	TP("napi_poll", tp_napi_poll),
	TP("softirq_entry", tp_softirq_entry),
	TP("softirq_raise", tp_softirq_raise),
};

#define GROUP(nm, k, pt, pr, every, cands) \
	{ .name = nm, .kind = k, .point = pt, .proto = pr, .all = every, \
	  .view = GV_POINT, .c = cands, .n = ARRAY_SIZE(cands) }
/* UDP's send calls: tx app, needed by the stages from there alone */
#define UDP_CALL_GROUP(nm, cands) \
	{ .name = nm, .kind = STAMP_TX, .point = TXP_APP, \
	  .proto = IPPROTO_UDP, .view = GV_UDP_CALL, .c = cands, \
	  .n = ARRAY_SIZE(cands) }
#define LIFE_GROUP(nm, cands, opt) \
	{ .name = nm, .kind = -1, .view = GV_LIFETIME, .optional = opt, \
	  .c = cands, .n = ARRAY_SIZE(cands) }

/*
 * Armed in this order: GRO's exits (rx-gro) before its entries (rx-drv),
 * so that no frame's entry tracepoint runs without its exit.
 */
static struct group groups[] = {
	/* no point of its own: armed with the receive stages */
	GROUP("rx-gro", STAMP_RX, -1, 0, true, c_rx_gro),
	GROUP("rx-drv", STAMP_RX, RXP_DRV, 0, true, c_rx_drv),
	GROUP("rx-ip4", STAMP_RX, RXP_IP, 0, false, c_rx_ip4),
	GROUP("rx-ip6", STAMP_RX, RXP_IP, 0, false, c_rx_ip6),
	GROUP("rx-tcp4", STAMP_RX, RXP_L4, IPPROTO_TCP, false, c_rx_tcp4),
	GROUP("rx-tcp6", STAMP_RX, RXP_L4, IPPROTO_TCP, false, c_rx_tcp6),
	GROUP("rx-udp4", STAMP_RX, RXP_L4, IPPROTO_UDP, false, c_rx_udp4),
	GROUP("rx-udp6", STAMP_RX, RXP_L4, IPPROTO_UDP, false, c_rx_udp6),
	GROUP("rx-app", STAMP_RX, RXP_APP, 0, false, c_rx_app),
	GROUP("rx-app-udp", STAMP_RX, RXP_APP, IPPROTO_UDP, true,
	      c_rx_app_udp),
	/* no point of its own: armed with the receive stages */
	GROUP("rx-recv", STAMP_RX, -1, 0, true, c_rx_recv),
	GROUP("tx-app-tcp", STAMP_TX, TXP_APP, IPPROTO_TCP, false,
	      c_tx_app_tcp),
	/* before tx-udp4/6, which look for the calls these saw */
	UDP_CALL_GROUP("tx-app-udp4", c_tx_app_udp4),
	UDP_CALL_GROUP("tx-app-udp6", c_tx_app_udp6),
	GROUP("tx-tcp", STAMP_TX, TXP_L4, IPPROTO_TCP, false, c_tx_tcp),
	/* UDP's transmit timelines start where UDP takes them */
	GROUP("tx-udp4", STAMP_TX, TXP_L4, IPPROTO_UDP, false, c_tx_udp4),
	GROUP("tx-udp6", STAMP_TX, TXP_L4, IPPROTO_UDP, false, c_tx_udp6),
	GROUP("tx-ip4", STAMP_TX, TXP_IP, 0, false, c_tx_ip4),
	GROUP("tx-ip6", STAMP_TX, TXP_IP, 0, false, c_tx_ip6),
	GROUP("tx-dev", STAMP_TX, TXP_DEV, 0, false, c_tx_dev),
	GROUP("tx-drv", STAMP_TX, TXP_DRV, 0, false, c_tx_drv),
	{ .name = "free-drop", .kind = -1, .view = GV_DROP,
	  .c = c_free_drop, .n = ARRAY_SIZE(c_free_drop) },
	{ .name = "free", .kind = -1, .all = true, .view = GV_FREE,
	  .c = c_free, .n = ARRAY_SIZE(c_free) },
	{ .name = "rekey", .kind = -1, .all = true, .view = GV_REKEY,
	  .c = c_rekey, .n = ARRAY_SIZE(c_rekey) },
	{ .name = "rekey-end", .kind = -1, .view = GV_REKEY_END,
	  .c = c_rekey_end, .n = ARRAY_SIZE(c_rekey_end) },
	{ .name = "tx-gso", .kind = -1, .view = GV_TX,
	  .c = c_tx_gso, .n = ARRAY_SIZE(c_tx_gso) },
	{ .name = "tx-gso-end", .kind = -1, .view = GV_TX_END,
	  .c = c_tx_gso_end, .n = ARRAY_SIZE(c_tx_gso_end) },
	LIFE_GROUP("life-alloc", c_life_alloc, false),
	LIFE_GROUP("life-build", c_life_build, false),
	LIFE_GROUP("life-napi-alloc", c_life_napi_alloc, false),
	LIFE_GROUP("life-napi-build", c_life_napi_build, true),
	LIFE_GROUP("life-clone", c_life_clone, false),
	{ .name = "life-gro", .kind = -1, .all = true, .view = GV_LIFE_GRO,
	  .c = c_life_gro, .n = ARRAY_SIZE(c_life_gro) },
	{ .name = "softnet", .kind = -1, .all = true, .view = GV_SOFTNET,
	  .c = c_softnet, .n = ARRAY_SIZE(c_softnet) },
};

/* ---- registration ---- */

enum group_state { GS_SERVED, GS_ABSENT, GS_UNSERVED };

static const char *const group_state_names[] = {
	[GS_SERVED] = "served",
	[GS_ABSENT] = "absent",
	[GS_UNSERVED] = "unserved",
};

static inline bool cand_works(const struct cand *c)
{
	return c->state == CS_ACTIVE || c->state == CS_IDLE;
}

/* Is a candidate of @gr armed now? */
static bool group_armed(const struct group *gr)
{
	size_t i;

	for (i = 0; i < gr->n; i++)
		if (gr->c[i].state == CS_ACTIVE)
			return true;
	return false;
}

/* See the top of the file. */
static enum group_state group_state(const struct group *gr)
{
	bool missing = true;
	size_t i;

	for (i = 0; i < gr->n; i++) {
		if (cand_works(&gr->c[i]))
			return GS_SERVED;
		missing &= gr->c[i].state == CS_FAILED &&
			   gr->c[i].err == -ENOENT;
	}
	return gr->optional && missing ? GS_ABSENT : GS_UNSERVED;
}

/* Was a candidate of @gr refused as ftrace calls nothing (ft_off)? */
static bool group_ftrace_off(const struct group *gr)
{
	size_t i;

	for (i = 0; i < gr->n; i++)
		if (gr->c[i].ftrace_off)
			return true;
	return false;
}

/* Is @sym in the comma-separated probe_deny list? */
static bool denied(const char *sym)
{
	size_t n = strlen(sym);
	bool found = false;
	const char *p;

	kernel_param_lock(THIS_MODULE);
	p = probe_deny;
	while (p && *p && !found) {
		found = !strncmp(p, sym, n) &&
			(p[n] == ',' || !p[n] || p[n] == '\n');
		p = strchr(p, ',');
		if (p)
			p++;
	}
	kernel_param_unlock(THIS_MODULE);
	return found;
}

struct tp_find {
	const char *name;
	struct tracepoint *tp;
};

static void tp_match(struct tracepoint *tp, void *priv)
{
	struct tp_find *f = priv;

	if (!f->tp && !strcmp(tp->name, f->name))
		f->tp = tp;
}

/*
 * Does @p, a kprobe of @c, sit on an ftrace call site while ftrace calls
 * nothing (kernel.ftrace_enabled=0 at load)?  Then it would never fire:
 * @c is unavailable, and says why.
 */
static bool ft_cannot_fire(struct cand *c, const struct kprobe *p)
{
	c->ftrace_off = ft_off && (p->flags & KPROBE_FLAG_FTRACE);
	return c->ftrace_off;
}

/*
 * A function entry.  A kprobe, registered disabled, finds the function
 * (kallsyms_lookup_name() is not exported).  Where ftrace traces its
 * entry (ft_serve()) the ftrace callback serves it, and probes_init()
 * takes the kprobe out again; elsewhere the kprobe serves it.
 */
static int entry_register(struct cand *c)
{
	int err;

	memset(&c->kp, 0, sizeof(c->kp));
	c->kp.symbol_name = c->sym;
	c->kp.pre_handler = kp_entry;
	c->kp.flags = KPROBE_FLAG_DISABLED;
	err = register_kprobe(&c->kp);
	if (err)
		return err;
	if (entry_ftrace && ft_registered && !ft_serve(c)) {
		c->mech = CM_FTRACE;
		return 0;
	}
	c->mech = CM_KPROBE;
	/* probes_init() takes it out with the lookups' */
	if (ft_cannot_fire(c, &c->kp))
		return -EBUSY;
	err = enable_kprobe(&c->kp);
	if (err)
		unregister_kprobe(&c->kp);
	return err;
}

static int cand_register(struct cand *c)
{
	struct tp_find f = { .name = c->sym };
	int err;

	c->mech = CM_NONE;
	c->ftrace_off = false;
	if (denied(c->sym))
		return -ENOENT;
	switch (c->type) {
	case CT_TP:
		for_each_kernel_tracepoint(tp_match, &f);
		if (!f.tp)
			return -ENOENT;
		c->tp = f.tp;
		c->mech = CM_TRACEPOINT;
		return tracepoint_probe_register(c->tp, c->tp_fn, c);
	case CT_ENTRY:
		return entry_register(c);
	case CT_KRETPROBE:
		c->mech = CM_KRETPROBE;
		memset(&c->krp, 0, sizeof(c->krp));
		c->krp.kp.symbol_name = c->sym;
		c->krp.entry_handler = c->entry;
		c->krp.handler = c->ret;
		c->krp.data_size = c->data_size;
		/* instances for callers that sleep inside (allocations) */
		c->krp.maxactive = max_t(int, 64, 8 * num_possible_cpus());
		/*
		 * Disabled until it is known to fire: armed on ftrace while
		 * ftrace_enabled=0, a kprobe leaves flags on its record when
		 * it goes (a text update clears them, and none runs then),
		 * and when ftrace's last ops goes, its check of the records
		 * warns and disables ftrace for good (ftrace_kill()).
		 */
		c->krp.kp.flags = KPROBE_FLAG_DISABLED;
		err = register_kretprobe(&c->krp);
		if (err)
			return err;
		if (ft_cannot_fire(c, &c->krp.kp))
			err = -EBUSY;
		else
			err = enable_kretprobe(&c->krp);
		if (err)
			unregister_kretprobe(&c->krp);
		return err;
	}
	return -EINVAL;
}

static const char *why(int err)
{
	switch (err) {
	case -ENOENT:
		return "no-such-symbol";
	case -EINVAL:
		return "not-probeable";
	case -EEXIST:
		return "already-probed";
	case -EBUSY:
		return "busy";
	case -ENOMEM:
		return "no-memory";
	default:
		return "error";
	}
}

/*
 * Is @gr served by a kretprobe: its first candidate that works?  A point
 * group so served (TCP's tx app before 5.15 where the compiler inlined
 * skb_entail()) is armed only with kretprobes on.
 */
static bool group_by_kretprobe(const struct group *gr)
{
	size_t i;

	for (i = 0; i < gr->n; i++)
		if (cand_works(&gr->c[i]))
			return gr->c[i].mech == CM_KRETPROBE;
	return false;
}

/* Does @cfg need @gr armed?  See the top of the file. */
static bool group_needed(const struct group *gr,
			 const struct skbprof_config *cfg)
{
	u32 timelines = cfg->stages & (SKBPROF_RX_STAGES | SKBPROF_TX_STAGES);
	unsigned int st;

	switch (gr->view) {
	case GV_LIFETIME:
		return cfg->lifetime;
	case GV_LIFE_GRO:
		return cfg->lifetime && !(cfg->stages & SKBPROF_RX_STAGES);
	case GV_SOFTNET:
		return cfg->softnet;
	case GV_UDP_CALL:
		return cfg->stages & (BIT(SKBPROF_STAGE_APP_UDP) |
				      BIT(SKBPROF_STAGE_TX_TOTAL));
	case GV_DROP:
		if (cfg->stages & BIT(SKBPROF_STAGE_DROPS))
			return true;
		fallthrough;
	case GV_FREE:
		return cfg->lifetime || timelines;
	case GV_REKEY:
		return timelines && cfg->kretprobes;
	case GV_REKEY_END:
		return timelines && !cfg->kretprobes;
	case GV_TX:
		return cfg->lifetime ||
		       (cfg->kretprobes && (cfg->stages & SKBPROF_TX_STAGES));
	case GV_TX_END:
		return !cfg->kretprobes && (cfg->stages & SKBPROF_TX_STAGES);
	}
	if (!cfg->kretprobes && group_by_kretprobe(gr))
		return false;
	/* a point: for a stage of its direction and protocol */
	for (st = 0; st < SKBPROF_TIMELINE_STAGES; st++) {
		const struct skbprof_stage_def *d = &skbprof_stages[st];

		if ((cfg->stages & BIT(st)) && d->dir == gr->kind &&
		    (!d->proto || !gr->proto || d->proto == gr->proto))
			return true;
	}
	return false;
}

/*
 * Take every probe out at once, disarmed ones too.  Each single
 * unregister_kprobe() waits for its own grace period; the array calls
 * wait for one each, so unloading costs two grace periods however many
 * probes there are (a debug kernel under a flood takes minutes per grace
 * period).  Disarmed kprobes are skipped by the kernel before the wait,
 * so no handler runs once these return; the tracepoint probes, those
 * probes_trim() took out too, need their own synchronisation.
 */
static void unregister_all(void)
{
	unsigned int nkp = 0, nkrp = 0;
	size_t g, i;

	for (g = 0; g < ARRAY_SIZE(groups); g++) {
		for (i = 0; i < groups[g].n; i++) {
			struct cand *c = &groups[g].c[i];

			if (c->mech == CM_TRACEPOINT && c->state == CS_ACTIVE)
				tracepoint_probe_unregister(c->tp, c->tp_fn, c);
			else if (c->mech == CM_KPROBE && cand_works(c))
				kp_batch[nkp++] = &c->kp;
			else if (c->mech == CM_KRETPROBE && cand_works(c))
				krp_batch[nkrp++] = &c->krp;
			c->state = CS_UNTRIED;
		}
	}
	unregister_kprobes(kp_batch, nkp);
	unregister_kretprobes(krp_batch, nkrp);
	ft_exit();
	tracepoint_synchronize_unregister();
}

/*
 * Arm a candidate registered at load: kprobes stay registered and are
 * only enabled and disabled (as the kernel's kprobe events do), without
 * waiting for a grace period; a tracepoint probe is registered again.
 */
static int cand_arm(struct cand *c)
{
	if (denied(c->sym))
		return -ENOENT;
	switch (c->mech) {
	case CM_TRACEPOINT:
		return tracepoint_probe_register(c->tp, c->tp_fn, c);
	case CM_FTRACE:
		return ftrace_set_filter_ip(&ft_ops, c->ip, 0, 0);
	case CM_KPROBE:
		return enable_kprobe(&c->kp);
	case CM_KRETPROBE:
		return enable_kretprobe(&c->krp);
	}
	return -EINVAL;
}

/*
 * Disarm an armed candidate.  A handler may still run on another CPU
 * when this returns: harmless, as it touches only what lives until
 * unload, and unregister_all() waits for them all.
 */
static void cand_disarm(struct cand *c)
{
	switch (c->mech) {
	case CM_TRACEPOINT:
		/* should it fail (no memory), the probe stays armed */
		if (tracepoint_probe_unregister(c->tp, c->tp_fn, c))
			return;
		break;
	case CM_FTRACE:
		/* the same; skbprof_ftrace_park() keeps the filter from going empty */
		if (ftrace_set_filter_ip(&ft_ops, c->ip, 1, 0))
			return;
		break;
	case CM_KPROBE:
		disable_kprobe(&c->kp);
		break;
	case CM_KRETPROBE:
		disable_kretprobe(&c->krp);
		break;
	}
	c->state = CS_IDLE;
}

/*
 * Test hook: sleep this long between the disarming of two candidates of
 * a group, so that a test sees what the probes of a half-disarmed group
 * leave behind (the sweep must end it).
 */
static unsigned int trim_gap_ms;
SKBPROF_TEST_PARAM(trim_gap_ms, trim_gap_ms, uint, 0400,
		   "Testing only: sleep N ms between the disarming of a group's probes (0: none)");

/*
 * Disarm every armed candidate of @gr but its ftrace entries, which join
 * ft_cands[] (*@nft of them) for ft_edit(), in the reverse of the order
 * group_arm() arms them: a group that lists its exits first (life-gro,
 * softnet) loses its entries first, so no entry is seen whose exit is
 * not, and softnet's raise goes before its entry.  What a run in flight
 * leaves still takes the sweep (struct skbprof_part).
 */
static void group_disarm(struct group *gr, unsigned int *nft)
{
	bool gap = false;
	size_t i = gr->n;

	while (i--) {
		struct cand *c = &gr->c[i];

		if (c->state != CS_ACTIVE)
			continue;
		if (c->mech == CM_FTRACE) {
			ft_cands[(*nft)++] = c;
			continue;
		}
		if (gap)
			msleep(trim_gap_ms);
		cand_disarm(c);
		gap = trim_gap_ms;
	}
}

/*
 * Arm (@arm) or disarm the @n ftrace entries of ft_cands[]: one edit of
 * the ops' filter where the kernel has one for many addresses (compat.h),
 * so one scan of ftrace's records and one round of text patching however
 * many entries a control write switches (19 between "stages drops" and
 * "stages all").  Where it has none, or the edit failed (which leaves the
 * filter as it was), one address at a time, which names the one that
 * fails.  0, or the error of *@bad, which stays disarmed with those after
 * it; a removal that fails leaves its entry armed, as cand_disarm() does.
 */
static int ft_edit(unsigned int n, bool arm, const struct cand **bad)
{
	unsigned int i;
	int err;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		ft_ips[i] = ft_cands[i]->ip;
	if (READ_ONCE(ftrace_batch) &&
	    !skbprof_ftrace_set_filter_ips(&ft_ops, ft_ips, n, !arm)) {
		for (i = 0; i < n; i++)
			ft_cands[i]->state = arm ? CS_ACTIVE : CS_IDLE;
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (!arm) {
			cand_disarm(ft_cands[i]);
			continue;
		}
		err = cand_arm(ft_cands[i]);
		if (err) {
			*bad = ft_cands[i];
			return err;
		}
		ft_cands[i]->state = CS_ACTIVE;
	}
	return 0;
}

static void probes_free(void)
{
	lat_via_names(NULL);
	kfree(ft_ips);
	ft_ips = NULL;
	kfree(ft_cands);
	ft_cands = NULL;
	kfree(krp_batch);
	krp_batch = NULL;
	kfree(kp_batch);
	kp_batch = NULL;
	free_percpu(hits);
	hits = NULL;
}

/*
 * Each tracepoint handler against its tracepoint's prototype: a kernel
 * that changes one fails the build here (see compat.h for the ones that
 * changed already).
 */
static void __maybe_unused probes_typecheck(void)
{
	check_trace_callback_type_netif_rx(tp_rx_start);
	check_trace_callback_type_netif_receive_skb(tp_rx_start);
	check_trace_callback_type_netif_receive_skb_entry(tp_rx_start_entry);
	check_trace_callback_type_netif_receive_skb_list_entry(tp_rx_start_entry);
	check_trace_callback_type_netif_receive_skb(tp_rx_core);
	check_trace_callback_type_napi_gro_receive_entry(tp_rx_gro_entry);
	check_trace_callback_type_napi_gro_frags_entry(tp_rx_gro_entry);
	check_trace_callback_type_napi_gro_receive_exit(tp_gro_exit);
	check_trace_callback_type_napi_gro_frags_exit(tp_gro_frags_exit);
	check_trace_callback_type_skb_copy_datagram_iovec(tp_point_len);
	check_trace_callback_type_net_dev_queue(tp_point);
	check_trace_callback_type_net_dev_start_xmit(tp_point_dev);
	check_trace_callback_type_consume_skb(tp_consume_skb);
	check_trace_callback_type_kfree_skb(tp_kfree_skb);
	check_trace_callback_type_napi_gro_receive_entry(tp_gro_entry);
	check_trace_callback_type_napi_gro_frags_entry(tp_gro_entry);
	check_trace_callback_type_softirq_raise(tp_softirq_raise);
	check_trace_callback_type_softirq_entry(tp_softirq_entry);
	check_trace_callback_type_softirq_exit(tp_softirq_exit);
	check_trace_callback_type_napi_poll(tp_napi_poll);
}

/* The symbol or tracepoint of probe @id, for the verbose trace. */
static const char *probes_name(unsigned int id)
{
	size_t g, i;

	for (g = 0; g < ARRAY_SIZE(groups); g++)
		for (i = 0; i < groups[g].n; i++)
			if (groups[g].c[i].id == id)
				return groups[g].c[i].sym;
	return "?";
}

static int probes_init(void)
{
	unsigned int id = 0, unserved = 0, nlookup = 0;
	size_t g, i;

	for (g = 0; g < ARRAY_SIZE(groups); g++) {
		for (i = 0; i < groups[g].n; i++) {
			struct cand *c = &groups[g].c[i];

			c->id = id++;
			c->group = groups[g].name;
			c->kind = groups[g].kind;
			c->point = groups[g].point;
			c->proto = groups[g].proto;
		}
	}
	hits = __alloc_percpu(sizeof(u64) * id, sizeof(u64));
	kp_batch = kcalloc(id, sizeof(*kp_batch), GFP_KERNEL);
	krp_batch = kcalloc(id, sizeof(*krp_batch), GFP_KERNEL);
	ft_cands = kcalloc(id, sizeof(*ft_cands), GFP_KERNEL);
	ft_ips = kcalloc(id, sizeof(*ft_ips), GFP_KERNEL);
	if (!hits || !kp_batch || !krp_batch || !ft_cands || !ft_ips) {
		probes_free();
		return -ENOMEM;
	}
	lat_via_names(probes_name);
	tcp_app_allocators_init();
	ft_init();

	for (g = 0; g < ARRAY_SIZE(groups); g++) {
		struct group *gr = &groups[g];
		bool served = false;

		for (i = 0; i < gr->n; i++) {
			struct cand *c = &gr->c[i];

			c->err = 0;
			if (served && !gr->all) {
				c->state = CS_STANDBY;
				continue;
			}
			c->err = cand_register(c);
			c->state = c->err ? CS_FAILED : CS_ACTIVE;
			served |= !c->err;
			if (c->mech == CM_FTRACE ||
			    (c->type == CT_ENTRY && c->ftrace_off))
				kp_batch[nlookup++] = &c->kp;
		}
		if (group_state(gr) != GS_UNSERVED)
			continue;
		unserved++;
		if (group_ftrace_off(gr) && allow_unserved)
			pr_warn("no probe serves %s while kernel.ftrace_enabled is 0: its stages are unavailable\n",
				gr->name);
		else if (group_ftrace_off(gr))
			pr_err("no probe serves %s while kernel.ftrace_enabled is 0; allow_unserved=1 loads without its stages\n",
			       gr->name);
		else if (allow_unserved)
			pr_warn("no probe serves %s on this kernel: its stages are unavailable\n",
				gr->name);
		else
			pr_err("no probe serves %s on this kernel (%s): not supported; allow_unserved=1 loads without its stages\n",
			       gr->name, init_utsname()->release);
	}
	/* the kprobes that found ftrace's functions: one grace period */
	unregister_kprobes(kp_batch, nlookup);
	if (unserved && !allow_unserved) {
		unregister_all();
		probes_free();
		return -ENOENT;
	}
	return 0;
}

static void probes_exit(void)
{
	unregister_all();
	probes_free();
}

/*
 * Arm the candidates of @gr that served at load, but its ftrace entries,
 * which join ft_cands[] (*@nft of them) for ft_edit(); *@bad: which
 * failed.
 */
static int group_arm(struct group *gr, const struct cand **bad,
		     unsigned int *nft)
{
	size_t i;
	int err;

	/* what its probes saw before they were disarmed is out of date */
	if (gr->view == GV_UDP_CALL)
		lat_tx_udp_forget();
	for (i = 0; i < gr->n; i++) {
		struct cand *c = &gr->c[i];

		if (c->state != CS_IDLE)
			continue;
		if (c->mech == CM_FTRACE && !denied(c->sym)) {
			ft_cands[(*nft)++] = c;
			continue;
		}
		err = cand_arm(c);
		if (err) {
			*bad = c;
			return err;
		}
		c->state = CS_ACTIVE;
	}
	return 0;
}

static int probes_arm(const struct skbprof_config *cfg, char *msg, size_t len)
{
	const struct cand *bad = NULL;
	unsigned int nft = 0;
	size_t g;
	int err = 0;

	for (g = 0; g < ARRAY_SIZE(groups) && !err; g++)
		if (!group_armed(&groups[g]) && group_needed(&groups[g], cfg))
			err = group_arm(&groups[g], &bad, &nft);
	if (!err)
		err = ft_edit(nft, true, &bad);
	/* main.c (parts_arm()) trims what this call armed */
	if (err)
		snprintf(msg, len, "cannot arm probe group %s: %s %s(%d)",
			 bad->group, bad->sym, why(err), err);
	return err;
}

static void probes_trim(const struct skbprof_config *cfg)
{
	unsigned int nft = 0;
	size_t g;

	for (g = 0; g < ARRAY_SIZE(groups); g++)
		if (group_armed(&groups[g]) && !group_needed(&groups[g], cfg))
			group_disarm(&groups[g], &nft);
	ft_edit(nft, false, NULL);
}

/*
 * No probe feeds GRO's tracker any more, and none still runs (main.c
 * waited): a frame whose exit went unseen is forgotten.  At load too:
 * rx-drv's entries outlive rx-gro's exits in every trim.
 */
static void probes_sweep(const struct skbprof_config *cfg)
{
	if (!cfg->lifetime && !(cfg->stages & SKBPROF_RX_STAGES))
		gro_forget();
}

/*
 * On @cpu itself (an IPI) or an offline CPU: see skbprof_reset_cpus().
 * Zeroing another CPU's counters from here would race its hit(): its
 * this_cpu_inc() reads and writes the counter back in one instruction,
 * but not atomically against another CPU's store, which it could undo.
 */
static void reset_hits(unsigned int cpu)
{
	size_t g, i;

	for (g = 0; g < ARRAY_SIZE(groups); g++)
		for (i = 0; i < groups[g].n; i++)
			per_cpu(hits[groups[g].c[i].id], cpu) = 0;
}

static void probes_reset(void)
{
	skbprof_reset_cpus(reset_hits);
}

static bool group_matches(const struct group *gr, int kind, int point,
			  u8 proto)
{
	return gr->kind == kind && gr->point == point &&
	       (!gr->proto || !proto || gr->proto == proto);
}

static bool probes_point_served(int kind, int point, u8 proto)
{
	size_t g, i;

	for (g = 0; g < ARRAY_SIZE(groups); g++) {
		if (!group_matches(&groups[g], kind, point, proto))
			continue;
		for (i = 0; i < groups[g].n; i++)
			if (cand_works(&groups[g].c[i]))
				return true;
	}
	return false;
}

static void probes_point_names(struct seq_file *m, int kind, int point,
			       u8 proto)
{
	bool first = true;
	size_t g, i;

	for (g = 0; g < ARRAY_SIZE(groups); g++) {
		if (!group_matches(&groups[g], kind, point, proto))
			continue;
		for (i = 0; i < groups[g].n; i++) {
			if (!cand_works(&groups[g].c[i]))
				continue;
			seq_printf(m, "%s%s", first ? "" : ",",
				   groups[g].c[i].sym);
			first = false;
		}
	}
	if (first)
		seq_puts(m, "none");
}

/* what serves a candidate, or for one that failed, what it was to be */
static const char *const mech_names[] = {
	[CM_TRACEPOINT] = "tracepoint",
	[CM_FTRACE] = "ftrace",
	[CM_KPROBE] = "kprobe",
	[CM_KRETPROBE] = "kretprobe",
};

static const char *const type_names[] = {
	[CT_TP] = "tracepoint",
	[CT_ENTRY] = "entry",
	[CT_KRETPROBE] = "kretprobe",
};

/*
 * What stats and the machine tables say of a candidate: its mechanism,
 * its state and, while active, its hits and the hits its mechanism
 * skipped; otherwise why it is not active, and the error if it failed.
 */
struct cand_view {
	const char *mech;
	const char *state;
	bool active;
	u64 hits;
	unsigned long missed;
	const char *why;
	bool failed;
	int err;
};

static void cand_view(const struct cand *c, struct cand_view *v)
{
	int cpu;

	v->mech = c->mech ? mech_names[c->mech] : type_names[c->type];
	v->active = c->state == CS_ACTIVE;
	v->hits = 0;
	v->missed = 0;
	v->why = NULL;
	v->failed = false;
	v->err = 0;
	switch (c->state) {
	case CS_ACTIVE:
		v->state = "active";
		/*
		 * Each CPU counts its own while we sum (KCSAN: a race of
		 * unknown origin, this_cpu_inc() being uninstrumented):
		 * benign, a sum that misses a hit in progress is the sum
		 * read a moment earlier.  READ_ONCE: one load each, untorn.
		 */
		for_each_possible_cpu(cpu)
			v->hits += READ_ONCE(*per_cpu_ptr(hits + c->id, cpu));
		if (c->mech == CM_FTRACE)
			v->missed = atomic_long_read(&c->missed);
		else if (c->mech == CM_KPROBE)
			v->missed = c->kp.nmissed;
		else if (c->mech == CM_KRETPROBE)
			v->missed = c->krp.nmissed + c->krp.kp.nmissed;
		break;
	case CS_IDLE:
		v->state = "idle";
		v->why = "no-view-needs-it";
		break;
	case CS_FAILED:
		v->state = "unavailable";
		v->why = c->ftrace_off ? "ftrace-disabled" : why(c->err);
		v->failed = true;
		v->err = c->err;
		break;
	default:
		v->state = "standby";
		v->why = "another-candidate-serves";
		break;
	}
}

/*
 * Is @kind's @point (for @proto) served by kretprobes alone: each of its
 * groups that is served, by one (group_by_kretprobe())?  Then it is armed
 * only with kretprobes on.
 */
static bool point_by_kretprobe(int kind, int point, u8 proto)
{
	bool any = false;
	size_t g;

	for (g = 0; g < ARRAY_SIZE(groups); g++) {
		if (!group_matches(&groups[g], kind, point, proto) ||
		    group_state(&groups[g]) != GS_SERVED)
			continue;
		if (!group_by_kretprobe(&groups[g]))
			return false;
		any = true;
	}
	return any;
}

/*
 * "needs-kretprobes": a stage asked for whose end a kretprobe alone
 * serves, with kretprobes off (TCP's tx app where 5.10's skb_entail() is
 * inlined).
 */
static const char *stage_state(const struct skbprof_stage_def *d, u32 stages,
			       bool kretprobes, int st)
{
	bool from = probes_point_served(d->dir, d->from, d->proto);
	bool to = probes_point_served(d->dir, d->to, d->proto);

	if (!(from && to))
		return "unavailable";
	if (!(stages & BIT(st)))
		return "off";
	if (!kretprobes &&
	    (point_by_kretprobe(d->dir, d->from, d->proto) ||
	     point_by_kretprobe(d->dir, d->to, d->proto)))
		return "needs-kretprobes";
	return "active";
}

/* The stages measured, and whether kretprobes may serve them. */
static u32 stages_in_force(bool *kretprobes)
{
	const struct skbprof_config *cfg;
	u32 stages;

	rcu_read_lock();
	cfg = skbprof_config();
	stages = cfg->stages;
	*kretprobes = cfg->kretprobes;
	rcu_read_unlock();
	return stages;
}

/*
 * Per stage: whether its points are served and measured, and by what;
 * "stage DIR NAME STATE FROM -> TO" for stats (@row false), or the
 * stages table's row "DIR NAME STATE FROM TO".
 */
static void stage_rows(struct seq_file *m, bool row)
{
	bool kretprobes;
	u32 stages = stages_in_force(&kretprobes);
	int st;

	for (st = 0; st < SKBPROF_TIMELINE_STAGES; st++) {
		const struct skbprof_stage_def *d = &skbprof_stages[st];

		seq_printf(m, "%s%s %s %s ", row ? "" : "stage ",
			   skbprof_dir_name(d->dir), d->name,
			   stage_state(d, stages, kretprobes, st));
		probes_point_names(m, d->dir, d->from, d->proto);
		seq_puts(m, row ? " " : " -> ");
		probes_point_names(m, d->dir, d->to, d->proto);
		seq_putc(m, '\n');
	}
}

static void group_rows(struct seq_file *m, bool row)
{
	size_t g;

	for (g = 0; g < ARRAY_SIZE(groups); g++)
		seq_printf(m, "%s%s %s %s\n", row ? "" : "group ",
			   groups[g].name,
			   group_state_names[group_state(&groups[g])],
			   group_armed(&groups[g]) ? "armed" : "disarmed");
}

/*
 * Every candidate: "probe GROUP SYMBOL MECH active hits N nmissed M" or
 * "probe GROUP SYMBOL MECH STATE WHY[(ERR)]" for stats, or the probes
 * table's row "GROUP SYMBOL MECH STATE HITS NMISSED REASON ERROR" ("-"
 * where none).
 */
static void cand_rows(struct seq_file *m, bool row)
{
	struct cand_view v;
	size_t g, i;

	for (g = 0; g < ARRAY_SIZE(groups); g++) {
		const struct group *gr = &groups[g];

		for (i = 0; i < gr->n; i++) {
			cand_view(&gr->c[i], &v);
			seq_printf(m, "%s%s %s %s %s ", row ? "" : "probe ",
				   gr->name, gr->c[i].sym, v.mech, v.state);
			if (row && v.active)
				seq_printf(m, "%llu %lu - -\n", v.hits, v.missed);
			else if (row && v.failed)
				seq_printf(m, "- - %s %d\n", v.why, v.err);
			else if (row)
				seq_printf(m, "- - %s -\n", v.why);
			else if (v.active)
				seq_printf(m, "hits %llu nmissed %lu\n", v.hits,
					   v.missed);
			else if (v.failed)
				seq_printf(m, "%s(%d)\n", v.why, v.err);
			else
				seq_printf(m, "%s\n", v.why);
		}
	}
}

static void probes_stats(struct seq_file *m)
{
	/* what serves function entries that ftrace traces */
	if (!entry_ftrace)
		seq_puts(m, "entry_probes kprobe entry_ftrace=0\n");
	else if (ft_registered)
		seq_puts(m, "entry_probes ftrace\n");
	else if (ft_off)
		seq_printf(m, "entry_probes kprobe ftrace-disabled(%d)\n", ft_err);
	else
		seq_printf(m, "entry_probes kprobe ftrace-error(%d)\n", ft_err);
}

static void probes_stats_rows(struct seq_file *m)
{
	group_rows(m, false);
	cand_rows(m, false);
	stage_rows(m, false);
}

/* The machine forms of those rows: a header, then one row each. */
static int probes_show(struct seq_file *m, void *v)
{
	seq_puts(m, "# group symbol mechanism state hits nmissed reason error\n");
	cand_rows(m, true);
	return 0;
}

static int groups_show(struct seq_file *m, void *v)
{
	seq_puts(m, "# group state armed\n");
	group_rows(m, true);
	return 0;
}

static int stages_show(struct seq_file *m, void *v)
{
	seq_puts(m, "# dir stage state from to\n");
	stage_rows(m, true);
	return 0;
}

SKBPROF_DEFINE_SHOW_FILE(probes);
SKBPROF_DEFINE_SHOW_FILE(groups);
SKBPROF_DEFINE_SHOW_FILE(stages);

static const struct skbprof_file probes_files[] = {
	{ "probes", 0400, &probes_fops },
	{ "groups", 0400, &groups_fops },
	{ "stages", 0400, &stages_fops },
};

const struct skbprof_part skbprof_probes_part = {
	.name	= "probes",
	.init	= probes_init,
	.exit	= probes_exit,
	.arm	= probes_arm,
	.trim	= probes_trim,
	.sweep	= probes_sweep,
	.reset	= probes_reset,
	.stats	= probes_stats,
	.stats_rows = probes_stats_rows,
	.files	= probes_files,
	.nfiles	= ARRAY_SIZE(probes_files),
};
