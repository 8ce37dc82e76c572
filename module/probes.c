// SPDX-License-Identifier: GPL-2.0
/*
 * The probe points of the stage timelines, and the free path: the table
 * of probe groups and their handlers.  The engine (probe_engine.c)
 * registers, serves and arms them.
 *
 * The table (groups[]) is the one list of probes: a group names the
 * point it serves (direction, point, transport protocol) and when it is
 * armed; each of its candidates, the function or tracepoint and, for most
 * points, the argument that is the skb (PT()), which one generic handler
 * serves (point()).  Handlers are written out only where a probe does
 * more: starts a timeline, tells peeks from reads, follows GRO, a free,
 * a new head or a segmentation.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ftrace.h>
#include <linux/in.h>
#include <linux/percpu.h>
#include <linux/skbuff.h>
#include <net/tcp.h>
#include <trace/events/irq.h>
#include <trace/events/napi.h>
#include <trace/events/net.h>
#include <trace/events/skb.h>

#include "config.h"
#include "drops.h"
#include "gro.h"
#include "lifetime.h"
#include "probe_engine.h"
#include "probes.h"
#include "softnet.h"
#include "stamp.h"
#include "timeline.h"

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
 * A drop, for drops_record(): where the kernel dropped the skb, why, and
 * room for what its timeline knew.
 */
struct drop_site {
	void *location;
	u32 reason;
	struct skbprof_seen *seen;
};

/*
 * Every free path's end of @skb, as @why says, in order: its timelines
 * end, in the one visit that also tells how far the packet got and who
 * sent it; a drop (@drop, or NULL) is counted with that; its lifetime
 * ends, coalesced when its data joined another skb.  Inline, with @why
 * and @drop constants at each call but the drop's: each free path keeps
 * only its own work.
 */
static __always_inline void skb_gone(struct sk_buff *skb, enum stamp_end why,
				     const struct drop_site *drop)
{
	bool tracked = lat_free(skb, why, drop ? drop->seen : NULL);

	if (drop)
		drops_record(skb, drop->location, drop->reason,
			     tracked ? drop->seen : NULL);
	if (why == END_COALESCED)
		lifetime_coalesced(skb);
	else
		lifetime_end(skb);
}

/*
 * kfree_skb: the kernel dropped @skb, counted as a duplicate when TCP had
 * its data (tcp_dup_drop()).
 */
static void free_dropped(void *data, struct sk_buff *skb, void *location,
			 u32 reason, const struct sock *rx_sk)
{
	struct skbprof_seen seen;
	const struct drop_site drop = { location, reason, &seen };

	if (!hit(data))
		return;
	skb_gone(skb, tcp_dup_drop(skb, reason, rx_sk) ?
		 END_DUPLICATE : END_DROPPED, &drop);
}

SKBPROF_DEFINE_KFREE_SKB_PROBE(tp_kfree_skb, free_dropped)

static void tp_consume_skb(SKBPROF_TP_CONSUME_SKB_ARGS)
{
	SKBPROF_TP_ENTER();
	if (hit(data))
		skb_gone(skb, END_FREED, NULL);
}

/* 5.10's tcp_drop() discards with __kfree_skb(): a marked one is old */
static void en_free(struct cand *c, SKBPROF_FREGS *f,
		    struct pt_regs *regs)
{
	skb_gone(ARG(0), tcp_dup_marked(ARG(0)) ? END_DUPLICATE : END_FREED,
		 NULL);
}

/* kfree_skb_partial: the skb's data joined another skb (TCP coalescing) */
static void en_free_partial(struct cand *c, SKBPROF_FREGS *f,
			    struct pt_regs *regs)
{
	skb_gone(ARG(0), END_COALESCED, NULL);
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
/* what its probes saw before they were disarmed is out of date at arming */
#define UDP_CALL_GROUP(nm, cands) \
	{ .name = nm, .kind = STAMP_TX, .point = TXP_APP, \
	  .proto = IPPROTO_UDP, .view = GV_UDP_CALL, .c = cands, \
	  .n = ARRAY_SIZE(cands), .arming = lat_tx_udp_forget }
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

static int probes_init(void)
{
	tcp_app_allocators_init();
	return probe_engine_init(groups, ARRAY_SIZE(groups));
}

static void probes_exit(void)
{
	probe_engine_exit();
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

const struct skbprof_part skbprof_probes_part = {
	.name	= "probes",
	.init	= probes_init,
	.exit	= probes_exit,
	.arm	= probe_engine_arm,
	.trim	= probe_engine_trim,
	.sweep	= probes_sweep,
	.reset	= probe_engine_reset,
	.stats	= probe_engine_stats,
	.stats_rows = probe_engine_stats_rows,
	.files	= probe_engine_files,
	.nfiles	= PROBE_ENGINE_NFILES,
};
