// SPDX-License-Identifier: GPL-2.0
/*
 * The timelines: the per-packet state machine of stage latency, across
 * the receive and transmit paths.  The probes (probes.c) report points
 * (timeline.h); finished measurements go to the aggregation (latency.h),
 * which makes them histograms and files.  Its entries are the RX and TX
 * kinds of the stamp table (stamp.h), a part of its own that lifetime.c
 * shares; this part ends, evicts, resets and sweeps only those.
 *
 * A timeline lives in the stamp table under skb->head, which the clones
 * TCP transmits share with the write-queue skb, and under its direction:
 * over veth or loopback the very skb that was transmitted is received
 * next, and both timelines must stay apart.  Each probe reports a point;
 * a stage is measured only between two consecutive points,
 * so a point that did not fire never stretches the next stage.  The
 * receive timeline ends when the data is copied to the application, the
 * transmit one when the driver gets the skb; a free before that ends it
 * as incomplete.  Every free path (probes.c, "free") ends the timelines
 * the freed skb carried, and those of its head when this was the last
 * reference to it: skb addresses and heads are reused at once.  Software
 * GSO forks a transmit timeline: each segment, a new skb with a new
 * head, continues the timeline of the skb it was cut from, which ends
 * there (lat_tx_segmented()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/hash.h>
#include <linux/in.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/skbuff.h>
#include <linux/smp.h>
#include <linux/workqueue.h>
#include <net/inet_sock.h>
#include <net/ip.h>
#include <net/flow.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "config.h"
#include "gro.h"
#include "latency.h"
#include "pktinfo.h"
#include "pkttrace.h"
#include "sample.h"
#include "probe_engine.h"
#include "lat_stamp.h"
#include "timeline.h"

static struct delayed_work reaper;

/* The time of a point: CLOCK_MONOTONIC, ns. */
static __always_inline u64 lat_clock(void)
{
	/* a tick's resolution, for the cost of the clock alone */
	if (skbprof_skips(SKBPROF_SKIP_CLOCK))
		return ktime_get_coarse_ns();
	return ktime_get_mono_fast_ns();
}

static inline unsigned long head_key(const struct sk_buff *skb)
{
	return lat_head_key(skb);
}

/*
 * The task running now owns the packet, if a task runs: a point reached
 * in softirq (5.10's TCP segmentation allocates there) or in an interrupt
 * would charge whoever it interrupted.
 */
static void set_owner_current(struct lat_stamp *s)
{
	if (!in_task())
		return;
	s->pid = task_tgid_nr(current);
	memcpy(s->comm, current->comm, sizeof(s->comm));
	/* every caller holds rcu_read_lock_sched() */
	s->cgroup = skbprof_task_cgroup_id(current);
}

/* An IPv6 socket whose peer is an IPv4-mapped address: it sends IPv4. */
static bool sk_v4mapped(const struct sock *sk)
{
#if IS_ENABLED(CONFIG_IPV6)
	return sk->sk_family == AF_INET6 &&
	       ipv6_addr_v4mapped(&sk->sk_v6_daddr);
#else
	return false;
#endif
}

static void tuple_from_sk(const struct sock *sk, const struct flowi4 *fl4,
			  u8 proto, struct skbprof_tuple *t)
{
	if (fl4) {			/* UDP: the datagram's own addresses */
		t->family = AF_INET;
		t->proto = proto;
		t->saddr.v4 = fl4->saddr;
		t->daddr.v4 = fl4->daddr;
		t->sport = fl4->fl4_sport;
		t->dport = fl4->fl4_dport;
		return;
	}
	if (!sk)
		return;
	t->proto = proto;
	t->sport = inet_sk(sk)->inet_sport;
	t->dport = sk->sk_dport;
	if (sk->sk_family == AF_INET || sk_v4mapped(sk)) {
		t->family = AF_INET;
		t->saddr.v4 = sk->sk_rcv_saddr;
		t->daddr.v4 = sk->sk_daddr;
#if IS_ENABLED(CONFIG_IPV6)
	} else if (sk->sk_family == AF_INET6) {
		t->family = AF_INET6;
		t->saddr.v6 = sk->sk_v6_rcv_saddr;
		t->daddr.v6 = sk->sk_v6_daddr;
#endif
	}
}

static inline bool stale(const struct lat_stamp *s, u64 now)
{
	return stamp_stale(&s->s, now);
}

/*
 * Is @s, found under @skb's head, the timeline of another packet?  Only
 * clones share a head, and cloning marks both skbs for good (skb->cloned):
 * an skb that is neither the owner nor a clone got the head after the
 * owner's packet was freed, and skbprof missed that free (a kprobe's
 * nmissed).  Such a stamp never lends its points to the new packet.  The
 * same skb at the same address again cannot be told apart.
 */
static inline bool foreign(const struct lat_stamp *s, const struct sk_buff *skb)
{
	return s->owner != skb && !skb->cloned;
}

/* Why @s, found under @skb's head where its packet cannot be, ends. */
static inline enum stamp_end gone_why(const struct lat_stamp *s,
				      const struct sk_buff *skb, u64 now)
{
	if (stale(s, now))
		return END_EVICTED;
	return foreign(s, skb) ? END_ORPHANED : END_RESTARTED;
}

/* Does @cfg follow @kind timelines? */
static inline bool followed(const struct skbprof_config *cfg, u8 kind)
{
	return cfg->stages & (kind == STAMP_RX ? SKBPROF_RX_STAGES :
						 SKBPROF_TX_STAGES);
}

/* Mark @point reached by @skb at @now, through probe @via. */
static void reach(struct lat_stamp *s, const struct sk_buff *skb, u8 point,
		  u16 via, u64 now)
{
	s->point = point;
	s->reached |= BIT(point);
	s->t_point[point] = now;
	s->via[point] = via;
	s->owner = skb;
}

static void start(struct lat_stamp *s, const struct sk_buff *skb,
		  const struct skbprof_config *cfg, u16 via, u64 now,
		  bool queued)
{
	s->s.t_start = now;
	s->queued = queued ? LAT_QUEUED : LAT_NOT_QUEUED;
	s->stages = cfg->stages;
	s->stage_rows = cfg->procs_stages;
	reach(s, skb, 0, via, now);
}

/*
 * The send call a UDP datagram came from (udp_call_of()): when its entry
 * was, and the probe that saw it.
 */
struct tx_call {
	u64 t;
	u16 via;
};

/* The stages that need the send call: those from tx app. */
#define UDP_CALL_STAGES	(BIT(SKBPROF_STAGE_APP_UDP) | BIT(SKBPROF_STAGE_TX_TOTAL))

static bool udp_call_of(const struct sk_buff *skb, const void *cork,
			struct tx_call *call);

/*
 * A UDP datagram's first point, tx app, is the entry of its send call,
 * before the udp point that starts its timeline (udp_send_skb() with
 * @cork): looked up only for a timeline sampling kept or the filter
 * judges.  Without one seen, the timeline has no first point: the stages
 * from tx udp on are measured, app-udp and tx-total are not, rather than
 * a made-up figure.
 */
static void call_first(struct lat_stamp *s, const struct sk_buff *skb,
		       const struct skbprof_config *cfg, const void *cork)
{
	struct tx_call call;

	if (!(cfg->stages & UDP_CALL_STAGES) ||
	    !udp_call_of(skb, cork, &call)) {
		if (cfg->stages & UDP_CALL_STAGES)
			latency_udp_unseen();
		s->reached &= ~BIT(TXP_APP);
		return;
	}
	s->s.t_start = call.t;
	s->t_point[TXP_APP] = call.t;
	s->via[TXP_APP] = call.via;
}

/* The packet as the filter sees it: what its timeline learnt so far. */
static void stamp_pktinfo(const struct lat_stamp *s, struct skbprof_pktinfo *pi)
{
	memset(pi, 0, sizeof(*pi));
	skbprof_flow_pktinfo(&s->tuple, pi);
	pi->mark = s->mark;
	pi->netns = s->netns;
	pi->dev = s->dev[0] ? s->dev : NULL;
	if (s->pid) {
		pi->pid = s->pid;
		pi->comm = s->comm;
		pi->cgroup = s->cgroup;
	}
}

/* Does the timeline @s match filter @f?  No filter: no packet to build. */
static bool stamp_matches(const struct lat_stamp *s, const struct skbprof_filter *f)
{
	struct skbprof_pktinfo pi;

	if (!f->terms)
		return true;
	stamp_pktinfo(s, &pi);
	return skbprof_filter_match(f, &pi);
}

/*
 * Verbose trace: one probe hit of a kept packet, by probe @via.  Out of
 * line, as the points' paths call it only for kept packets under a
 * verbose trace.
 */
static noinline void trace_hit(const struct lat_stamp *s,
			       unsigned int point, u16 via, u64 t)
{
	skbprof_trace_hit(s, point, probe_engine_name(via), t);
}

/* A timeline ends before its last point: the stages it measured count. */
static void end_early(struct lat_stamp *s, enum stamp_end why)
{
	latency_settle(s, 0);
	latency_incomplete(s, why);
}

/* Sampling's verdict on a @kind timeline the filter matched. */
static u8 sample(u8 kind, const struct skbprof_config *cfg)
{
	enum skbprof_sampler which = kind == STAMP_RX ? SKBPROF_SAMPLE_RX :
							SKBPROF_SAMPLE_TX;

	return skbprof_sample_keep(which, cfg->sample) ? LAT_KEEP :
							  LAT_SAMPLED_OUT;
}

/*
 * Apply the filter and sampling to a timeline, once the facts the filter
 * asks about are known (@s->decide_at).  A kept timeline then gets the
 * verbose lines of the points it passed before.
 */
static noinline void decide(struct lat_stamp *s, const struct skbprof_config *cfg)
{
	unsigned int i;

	s->verdict = stamp_matches(s, &cfg->filter) ?
		     sample(s->s.kind, cfg) : LAT_FILTERED;
	latency_verdict(s->s.kind, s->verdict);
	if (s->verdict != LAT_KEEP)
		return;
	for (i = 0; i <= s->point; i++) {
		if (lat_reached(s, i) && cfg->trace == SKBPROF_TRACE_VERBOSE)
			trace_hit(s, i, s->via[i], s->t_point[i]);
	}
}

/* A point reached for the first time: decide, or trace, or neither. */
static __always_inline void progress(struct lat_stamp *s,
				     const struct skbprof_config *cfg, u8 point)
{
	if (s->verdict == LAT_UNDECIDED) {
		if (point >= s->decide_at)
			decide(s, cfg);
		return;
	}
	if (s->verdict == LAT_KEEP && cfg->trace == SKBPROF_TRACE_VERBOSE)
		trace_hit(s, point, s->via[point], s->t_point[point]);
}

/* A point the timeline passed already: a second probe, a retransmission. */
static void repeat(const struct lat_stamp *s, const struct skbprof_config *cfg,
		   u8 point, u16 via, u64 now)
{
	if (s->verdict == LAT_KEEP && cfg->trace == SKBPROF_TRACE_VERBOSE)
		trace_hit(s, point, via, now);
}

/* The end of a kept timeline: its stages, its total, its trace line. */
static void finish(struct lat_stamp *s, const struct skbprof_config *cfg,
		   u64 now)
{
	if (s->verdict != LAT_KEEP)
		return;
	latency_settle(s, now);
	if (cfg->trace != SKBPROF_TRACE_OFF)
		skbprof_trace_timeline(s);
}

/*
 * Where the filter can be applied to a receive timeline: at IP receive,
 * where the headers are known, or at the copy to the application when it
 * asks about the process; at once when there is no filter, or when it
 * asks only about the device and netns, known at the driver hand-off (so
 * that a packet that ends before IP is decided, and counted).
 */
static u8 rx_decide_at(const struct skbprof_filter *f)
{
	if (f->terms & (SKBPROF_F_PID | SKBPROF_F_COMM | SKBPROF_F_CGROUP))
		return RXP_APP;
	return f->terms & ~(SKBPROF_F_DEV | SKBPROF_F_NETNS) ? RXP_IP : RXP_DRV;
}

/*
 * A transmit timeline knows all but the device from its socket, unless
 * the socket is not connected and the datagram's flow was not at hand
 * (IPv6 UDP): then IP output, where the headers are complete.
 */
static u8 tx_decide_at(const struct skbprof_filter *f,
		       const struct skbprof_tuple *t)
{
	if (f->terms & SKBPROF_F_DEV)
		return TXP_DEV;
	if (f->terms && (!t->family || !t->dport))
		return TXP_IP;
	return TXP_APP;
}

/* What the first point teaches a timeline about its packet. */
static void learn_first(struct lat_stamp *s, const struct sk_buff *skb,
			const struct skbprof_config *cfg,
			const struct sock *sk, const struct flowi4 *fl4,
			u8 proto)
{
	if (s->s.kind == STAMP_RX) {
		/* only the filter asks about them, and reading costs */
		if (cfg->filter.terms & (SKBPROF_F_DEV | SKBPROF_F_NETNS))
			s->netns = skbprof_skb_dev_info(skb, s->dev);
		s->decide_at = rx_decide_at(&cfg->filter);
		return;
	}
	s->proto = proto;
	/* the sending task, in its sendmsg: later stages run elsewhere */
	set_owner_current(s);
	tuple_from_sk(sk, fl4, proto, &s->tuple);
	s->mark = skb->mark;
	if (sk) {
		if (!s->mark)
			s->mark = READ_ONCE(sk->sk_mark);
		s->netns = sock_net(sk)->ns.inum;
	}
	s->decide_at = tx_decide_at(&cfg->filter, &s->tuple);
}

/* A timeline the filter or sampling decided not to follow. */
static inline bool decided_out(const struct lat_stamp *s)
{
	return s->verdict == LAT_SAMPLED_OUT || s->verdict == LAT_FILTERED;
}

/*
 * A @kind timeline of @skb was not started: end the one an earlier packet
 * left under the same key.
 */
static noinline void __end_previous(const struct sk_buff *skb, u8 kind)
{
	unsigned long flags;
	struct lat_stamp *s;

	s = lat_lock(head_key(skb), kind, false, &flags);
	if (s) {
		end_early(s, gone_why(s, skb, lat_clock()));
		lat_remove(s, flags);
	}
}

/* Inline: most packets not followed find no stamp there. */
static __always_inline void end_previous(const struct sk_buff *skb, u8 kind)
{
	if (!stamp_none(head_key(skb), kind, false))
		__end_previous(skb, kind);
}

/*
 * A @kind timeline starts in @tmp, off the table: when its filter can be
 * decided at this first point (rx_decide_at(), tx_decide_at()), it is,
 * and a packet filtered or sampled out takes no stamp at all; its later
 * points then miss the table without taking a lock.  False for such a
 * packet.
 */
static bool admit(struct lat_stamp *tmp, u8 kind, const struct sk_buff *skb,
		  const struct skbprof_config *cfg, const struct sock *sk,
		  const struct flowi4 *fl4, u8 proto, u16 via, u64 now,
		  const void *udp_cork)
{
	unsigned long flags;

	lat_stamp_clear(tmp);
	tmp->s.kind = kind;
	start(tmp, skb, cfg, via, now, false);
	if (udp_cork)
		call_first(tmp, skb, cfg, udp_cork);
	learn_first(tmp, skb, cfg, sk, fl4, proto);
	if (tmp->decide_at != 0)
		return true;
	local_irq_save(flags);
	decide(tmp, cfg);
	local_irq_restore(flags);
	if (tmp->verdict == LAT_KEEP)
		return true;
	end_previous(skb, kind);
	return false;
}

/*
 * Is this first point, come for @s, another probe of the point @s is at
 * (several probes of a received skb's first point see it, and the first
 * keeps it)?  Then @s stays, and its skb is the one seen last.  A
 * transmit timeline has one probe at its first point: a stamp there is an
 * earlier packet's.
 */
static bool first_point_again(struct lat_stamp *s, const struct sk_buff *skb,
			      const struct skbprof_config *cfg, u16 via,
			      u64 now)
{
	if (s->point != 0 || s->s.kind != STAMP_RX || stale(s, now) ||
	    foreign(s, skb))
		return false;
	s->owner = skb;
	repeat(s, cfg, 0, via, now);
	return true;
}

/*
 * The insert step of a start: the entry a new @kind timeline of @skb
 * starts in, locked and cleared.  A stamp already under the key is ended
 * first, unless it stays (first_point_again(): another probe of the same
 * first point), and then, like a full table, there is none: NULL.
 */
static struct lat_stamp *__start_lock(const struct sk_buff *skb, u8 kind,
				      const struct skbprof_config *cfg,
				      u16 via, u64 now, unsigned long *flags)
{
	struct lat_stamp *s;
	bool fresh;

	s = lat_lock_insert(head_key(skb), kind, &fresh, flags);
	if (!s)
		return NULL;
	if (!fresh) {
		if (first_point_again(s, skb, cfg, via, now)) {
			lat_unlock(s, *flags);
			return NULL;
		}
		end_early(s, gone_why(s, skb, now));
	}
	lat_stamp_clear(s);
	__release(stamp_bucket);	/* held: the caller unlocks */
	return s;
}

#define start_lock(skb, kind, cfg, via, now, flags) ({			\
	struct lat_stamp *__s;						\
	skbprof_cond_lock(stamp_bucket, (__s = __start_lock(skb, kind, cfg, \
							   via, now, flags))); \
	__s; })

/*
 * A timeline the filter decides on: admit() it, then put it in the table.
 * It reaches @also too, with its first point (see start_timeline()).
 */
static noinline void start_filtered(u8 kind, const struct sk_buff *skb,
				    const struct skbprof_config *cfg,
				    const struct sock *sk,
				    const struct flowi4 *fl4, u8 proto, u8 also,
				    u16 via, u64 now, const void *udp_cork)
{
	struct lat_stamp tmp __uninitialized;	/* admit() clears it */
	unsigned long flags;
	struct lat_stamp *s;

	if (!admit(&tmp, kind, skb, cfg, sk, fl4, proto, via, now, udp_cork))
		return;
	if (also) {
		reach(&tmp, skb, also, via, now);
		progress(&tmp, cfg, also);
	}
	s = start_lock(skb, kind, cfg, via, now, &flags);
	if (!s)
		return;
	lat_stamp_copy(s, &tmp);
	lat_unlock(s, flags);
}

/*
 * A @kind timeline kept by sampling alone starts at its first point (see
 * start_timeline()).  Out of line: the packets sampled out, most of them,
 * make no stack frame for its lock.
 */
static noinline void start_kept(u8 kind, const struct sk_buff *skb,
				const struct skbprof_config *cfg,
				const struct sock *sk,
				const struct flowi4 *fl4, u8 proto, u8 also,
				u16 via, bool queued, const void *udp_cork)
{
	unsigned long flags;
	struct lat_stamp *s;
	u64 now;

	now = lat_clock();
	s = start_lock(skb, kind, cfg, via, now, &flags);
	if (!s)
		return;
	start(s, skb, cfg, via, now, queued);
	if (udp_cork)
		call_first(s, skb, cfg, udp_cork);
	learn_first(s, skb, cfg, sk, fl4, proto);
	s->verdict = LAT_KEEP;
	if (cfg->trace == SKBPROF_TRACE_VERBOSE && lat_reached(s, 0))
		trace_hit(s, 0, s->via[0], s->t_point[0]);
	if (also) {
		reach(s, skb, also, via, now);
		progress(s, cfg, also);
	}
	lat_unlock(s, flags);
}

/*
 * Start a @kind timeline of @skb at its first point: decided at once,
 * with no stamp for a packet not followed, when the filter is known there
 * (start_filtered()) or there is none.  Without a filter, sampling alone
 * decides, before anything is learnt about the packet.  A probe that is
 * the first point and a later one, @also (0: none), reaches both at once,
 * in one visit to the table.  A UDP datagram's first point is its send
 * call, seen earlier: @udp_cork is udp_send_skb()'s cork (see
 * call_first()); NULL for the others.
 */
static __always_inline void start_timeline(u8 kind, const struct sk_buff *skb,
					   const struct skbprof_config *cfg,
					   const struct sock *sk,
					   const struct flowi4 *fl4, u8 proto,
					   u8 also, u16 via, bool queued,
					   const void *udp_cork)
{
	u8 verdict;

	if (cfg->filter.terms) {
		start_filtered(kind, skb, cfg, sk, fl4, proto, also, via,
			       lat_clock(), udp_cork);
		return;
	}
	verdict = sample(kind, cfg);
	latency_verdict(kind, verdict);
	if (verdict != LAT_KEEP) {
		end_previous(skb, kind);
		return;
	}
	start_kept(kind, skb, cfg, sk, fl4, proto, also, via, queued,
		   udp_cork);
}

/*
 * The core's probe came for a receive timeline: the hand-off every skb
 * passes last among the first point's probes.  A timeline an entry
 * tracepoint started stays, but one it decided not to follow is
 * forgotten now (no other probe of the first point will decide again).
 * Without a filter, the entry tracepoint sampled its packet at once, and
 * one sampled out has no stamp to tell it from a packet no entry
 * tracepoint saw: with sampling on, the core starts none (so a packet is
 * never sampled twice); otherwise it starts the timeline of one that
 * only the core sees, as a transmit timeline starts.
 */
/*
 * The core takes a packet queued at its first point: its backlog wait
 * ends, and its drv-ip starts, at @now.
 */
static void dequeued(struct lat_stamp *s, u64 now)
{
	s->t_dequeued = now;
	s->queued = LAT_DEQUEUED;
}

/*
 * The core's probe found a stamp under @skb's head: true when it is the
 * packet's own, taken from its backlog now, false when it ended there
 * and a new timeline may start.
 */
static noinline bool rx_core_found(const struct sk_buff *skb,
				   const struct skbprof_config *cfg, u16 via)
{
	unsigned long flags;
	struct lat_stamp *s;
	u64 now;

	/* most packets come with the stamp their entry tracepoint made */
	s = lat_lock_hit(head_key(skb), STAMP_RX, false, &flags);
	if (!s)
		return false;
	/*
	 * The end of a backlog's wait, and the verbose trace, need this
	 * time; staleness alone, judged in max_age_ms, can take the coarse
	 * clock, a tick behind.
	 */
	now = cfg->trace == SKBPROF_TRACE_VERBOSE || s->queued == LAT_QUEUED ?
	      lat_clock() : ktime_get_coarse_ns();
	if (first_point_again(s, skb, cfg, via, now)) {
		if (s->queued == LAT_QUEUED)
			dequeued(s, now);
		if (decided_out(s))
			lat_remove(s, flags);
		else
			lat_unlock(s, flags);
		return true;
	}
	/*
	 * An earlier packet's, or this one's sent round the stack again (a
	 * tunnel, a bridge): it ends here, whether or not a new timeline
	 * starts.
	 */
	end_early(s, gone_why(s, skb, now));
	lat_remove(s, flags);
	return false;
}

static __always_inline void rx_start_core(const struct sk_buff *skb,
					  const struct skbprof_config *cfg,
					  u16 via)
{
	if (!stamp_none(head_key(skb), STAMP_RX, false) &&
	    rx_core_found(skb, cfg, via))
		return;
	if (!cfg->filter.terms && cfg->sample > 1)
		return;
	start_timeline(STAMP_RX, skb, cfg, NULL, NULL, 0, 0, via, false, NULL);
}

/* An entry tracepoint's timeline, which a filter decides later. */
static noinline void rx_start_undecided(const struct sk_buff *skb,
					const struct skbprof_config *cfg,
					u16 via, enum lat_rx_how how)
{
	unsigned long flags;
	struct lat_stamp *s;
	u64 now;

	now = lat_clock();
	s = start_lock(skb, STAMP_RX, cfg, via, now, &flags);
	if (!s)
		return;
	start(s, skb, cfg, via, now, how == LAT_RX_QUEUED);
	learn_first(s, skb, cfg, NULL, NULL, 0);
	progress(s, cfg, 0);
	lat_unlock(s, flags);
}

void lat_rx_start(const struct sk_buff *skb, u16 via, enum lat_rx_how how)
{
	const struct skbprof_config *cfg;

	if (!skb)
		return;
	rcu_read_lock_sched();
	cfg = skbprof_config();
	if (!(cfg->stages & SKBPROF_RX_STAGES))
		goto out;
	if (how == LAT_RX_CORE)
		rx_start_core(skb, cfg, via);
	/* an entry tracepoint: without a filter, sampling decides at once */
	else if (!cfg->filter.terms)
		start_timeline(STAMP_RX, skb, cfg, NULL, NULL, 0, 0, via,
			       how == LAT_RX_QUEUED, NULL);
	else
		rx_start_undecided(skb, cfg, via, how);
out:
	rcu_read_unlock_sched();
}

void lat_tx_start(const struct sk_buff *skb, const struct sock *sk,
		  const struct flowi4 *fl4, u8 proto, enum tx_point also,
		  u16 via)
{
	const struct skbprof_config *cfg;

	if (!skb)
		return;
	rcu_read_lock_sched();
	cfg = skbprof_config();
	if (!(cfg->stages & SKBPROF_TX_STAGES))
		goto out;
	start_timeline(STAMP_TX, skb, cfg, sk, fl4, proto, also, via, false,
		       NULL);
out:
	rcu_read_unlock_sched();
}

/* ---- the send call of a UDP datagram ---- */

/*
 * app-udp runs from the entry of the send call (udp_sendmsg(),
 * udpv6_sendmsg()) to udp_send_skb(), where UDP takes the datagram,
 * whole, and its timeline starts: the time the call spends before the
 * datagram is built and handed on (the route, the socket's send buffer,
 * copying the data in).  A corked datagram (MSG_MORE, UDP_CORK) is built
 * over several calls and sent by a later one, or by the setsockopt()
 * that uncorks: its app-udp runs from the entry of the call that began
 * it, the cork's wait included, as app-tcp includes TCP's send queue.
 *
 * No return probe: an entry records its time in two small tables, by
 * the task (udp_calls) and, for a call that begins a corked datagram, by
 * the socket (udp_corks).  udp_send_skb() takes the record its datagram
 * needs, once: the socket's when it sends the socket's cork
 * (udp_push_pending_frames() passes the socket's own inet_cork), else
 * the task's, which its own call left just before, on whatever CPU the
 * task ran since.  Only the datagrams whose timeline is kept, or judged
 * by the filter, look (call_first()): a record left behind is replaced
 * by its owner's next entry.  A datagram whose record is not there (an
 * entry in another task that hashes alike in between, a send outside a
 * task, a call that began before the probes were armed) gets no app-udp
 * and no tx-total, and is counted in stats (udp_calls_unseen_tx).
 * Entries are the cost of one cmpxchg each on a line of their own: no
 * lock, nothing shared by all CPUs.
 */
struct udp_call {
	const void *owner;	/* the task, or the socket; NULL: free */
	const struct sock *sk;
	u64 t;
	u16 via;
} ____cacheline_aligned_in_smp;

#define UDP_CALL_BITS	8
/* @owner while a record is written */
#define UDP_CALL_BUSY	((const void *)1)

static struct udp_call udp_calls[1 << UDP_CALL_BITS];
static struct udp_call udp_corks[1 << UDP_CALL_BITS];

static void udp_call_put(struct udp_call *e, const void *owner,
			 const struct sock *sk, u64 t, u16 via)
{
	const void *old = READ_ONCE(e->owner);

	/* another entry is writing it: the one its call needs goes unseen */
	if (old == UDP_CALL_BUSY ||
	    cmpxchg(&e->owner, old, UDP_CALL_BUSY) != old)
		return;
	WRITE_ONCE(e->sk, sk);
	WRITE_ONCE(e->t, t);
	WRITE_ONCE(e->via, via);
	/* the record whole before its owner: pairs with udp_call_take() */
	smp_store_release(&e->owner, owner);
}

/* Take @owner's record of @sk from @e, once; false when it is not there. */
static bool udp_call_take(struct udp_call *e, const void *owner,
			  const struct sock *sk, struct tx_call *call)
{
	const struct sock *esk;
	u64 t;
	u16 via;

	/* the record its owner published: pairs with udp_call_put() */
	if (smp_load_acquire(&e->owner) != owner)
		return false;
	esk = READ_ONCE(e->sk);
	t = READ_ONCE(e->t);
	via = READ_ONCE(e->via);
	/* fails when another entry took it over meanwhile */
	if (cmpxchg(&e->owner, owner, NULL) != owner || esk != sk)
		return false;
	call->t = t;
	call->via = via;
	return true;
}

void lat_tx_udp_call(const struct sock *sk, const struct msghdr *msg, u16 via)
{
	u64 now = lat_clock();

	if (in_task())
		udp_call_put(&udp_calls[hash_ptr(current, UDP_CALL_BITS)],
			     current, sk, now, via);
	/* the call begins a corked datagram: no data pending, a cork asked */
	if (!READ_ONCE(udp_sk(sk)->pending) &&
	    ((msg->msg_flags & MSG_MORE) || skbprof_udp_corkflag(sk)))
		udp_call_put(&udp_corks[hash_ptr(sk, UDP_CALL_BITS)], sk, sk,
			     now, via);
}

/* Free @e unless an entry is writing it (a late handler's, harmless). */
static void udp_call_forget(struct udp_call *e)
{
	const void *old = READ_ONCE(e->owner);

	if (old && old != UDP_CALL_BUSY)
		cmpxchg(&e->owner, old, NULL);
}

void lat_tx_udp_forget(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(udp_calls); i++) {
		udp_call_forget(&udp_calls[i]);
		udp_call_forget(&udp_corks[i]);
	}
}

/* The send call @skb, on its way to udp_send_skb() with @cork, came from. */
static bool udp_call_of(const struct sk_buff *skb, const void *cork,
			struct tx_call *call)
{
	const struct sock *sk = skb->sk;

	if (cork == &inet_sk(sk)->cork.base)
		return udp_call_take(&udp_corks[hash_ptr(sk, UDP_CALL_BITS)],
				     sk, sk, call);
	if (!in_task())
		return false;
	return udp_call_take(&udp_calls[hash_ptr(current, UDP_CALL_BITS)],
			     current, sk, call);
}

void lat_tx_udp(const struct sk_buff *skb, const struct flowi4 *fl4,
		const void *cork, u16 via)
{
	const struct skbprof_config *cfg;

	if (!skb || !skb->sk || !cork)
		return;
	rcu_read_lock_sched();
	cfg = skbprof_config();
	if (!(cfg->stages & SKBPROF_TX_STAGES))
		goto out;
	start_timeline(STAMP_TX, skb, cfg, skb->sk, fl4, IPPROTO_UDP, TXP_L4,
		       via, false, cork);
out:
	rcu_read_unlock_sched();
}

/* What reaching @point teaches a timeline about its packet. */
static void learn(struct lat_stamp *s, const struct sk_buff *skb, u8 point)
{
	if (skbprof_skips(SKBPROF_SKIP_LEARN))
		return;
	if (s->s.kind == STAMP_RX) {
		/*
		 * At IP, or at the next point when IP's kprobe missed the
		 * packet (nmissed: a softirq run on an interrupt's exit
		 * inside another probe's handler): the filter must not
		 * decide without the headers, which skbprof_flow_parse()
		 * still finds behind skb->data.
		 */
		if (point == RXP_IP || (point > RXP_IP && !s->tuple.family)) {
			skbprof_flow_parse(skb, &s->tuple);
			s->mark = skb->mark;
		}
		/* copied to the application: the task in recvmsg gets the bill */
		if (point == RXP_APP)
			set_owner_current(s);
		return;
	}
	/*
	 * An IPv4 socket, or an IPv4 datagram's flowi4, told the flow the
	 * header has.  An IPv6 datagram may go elsewhere than its socket's
	 * peer, and a filter still to decide (`dev`) judges the header.
	 */
	if (point == TXP_IP &&
	    (s->tuple.family != AF_INET || !s->tuple.dport ||
	     s->verdict == LAT_UNDECIDED))
		skbprof_flow_parse(skb, &s->tuple);
	/* only a filter with `dev` asks, there (tx_decide_at()) */
	if (point >= TXP_DEV && s->decide_at == TXP_DEV &&
	    s->verdict == LAT_UNDECIDED && !s->dev[0])
		skbprof_skb_dev_info(skb, s->dev);
}

/* ---- who reads a received packet ---- */

/*
 * The tasks in a TCP receive call with MSG_PEEK: a set of PEEK_WAYS
 * slots per hash of the task.  A task's slot is taken (cmpxchg) by the
 * entry probe of a call that peeks, and given back by the task's next
 * call without MSG_PEEK (lat_rx_recv()): every copy a task makes from a
 * TCP socket comes in such a call, after its entry, so the slot is right
 * at every copy with no return probe.  A slot
 * a task left when it exited is taken over once its set is full; a set
 * full of tasks peeking at once gives one of them up, whose peeks are
 * then taken for reads.
 */
#define PEEK_SET_BITS	8
#define PEEK_WAYS	4
/*
 * Written only by the tasks that peek, a set at a time; every other
 * receive call reads its task's set (one line) and looks no further.  No
 * count of the slots taken: a counter shared by every CPU would be
 * written at every peek and the read after it.
 */
static const struct task_struct *peekers[1 << PEEK_SET_BITS][PEEK_WAYS];

static inline const struct task_struct **peek_set(void)
{
	return peekers[hash_ptr(current, PEEK_SET_BITS)];
}

/* The way of @set the current task holds, or -1. */
static inline int peek_way(const struct task_struct **set)
{
	int i;

	for (i = 0; i < PEEK_WAYS; i++)
		if (READ_ONCE(set[i]) == current)
			return i;
	return -1;
}

/* Does the current task peek?  Its own slot was taken before it asks. */
static bool peeking(void)
{
	return peek_way(peek_set()) >= 0;
}

void lat_rx_recv(bool peek)
{
	const struct task_struct **set = peek_set();
	int i = peek_way(set);

	if (!peek) {
		if (i >= 0)
			cmpxchg(&set[i], current, NULL);
		return;
	}
	if (i >= 0)
		return;
	for (i = 0; i < PEEK_WAYS; i++)
		if (!cmpxchg(&set[i], NULL, current))
			return;
	/* a slot changes hands */
	WRITE_ONCE(set[raw_smp_processor_id() % PEEK_WAYS], current);
}

/*
 * Is the copy of @skb, whose timeline is @s, reported with @proto, the
 * receiver's read?  Only the skb that carried the timeline into the
 * socket (a tap, a raw socket or another multicast receiver reads a
 * clone), and not a peek (the data stays queued for the read that
 * counts): a UDP datagram's read is its consume, whose probe tells peeks
 * apart (@proto UDP), not its copy; the others' reads are copies outside
 * a TCP receive call that peeks.
 */
static bool rx_reader(const struct lat_stamp *s, const struct sk_buff *skb,
		      u8 proto)
{
	if (s->owner != skb)
		return false;
	if (s->proto == IPPROTO_UDP)
		return proto == IPPROTO_UDP;
	return !peeking();
}

/*
 * A point after the first of a @kind timeline, whose chain in the table,
 * @b for @key, has entries: most are the packet's own, so lock at once.
 */
void lat_point_found(const struct sk_buff *skb, unsigned long key,
		     unsigned int b, u8 kind, u8 point, u8 proto, u16 via,
		     bool count_miss)
{
	const struct skbprof_config *cfg;
	unsigned long flags;
	struct lat_stamp *s;
	u64 now;

	rcu_read_lock_sched();
	s = lat_lock_hit_at(b, key, kind, count_miss, &flags);
	if (!s)
		goto out;
	if (skbprof_skips(SKBPROF_SKIP_POINTS) &&
	    point != skbprof_last_point(kind)) {
		lat_unlock(s, flags);
		goto out;
	}
	cfg = skbprof_config();
	if (foreign(s, skb)) {
		end_early(s, END_ORPHANED);
		lat_remove(s, flags);
		goto out;
	}
	if (kind == STAMP_RX && point == RXP_APP && !rx_reader(s, skb, proto)) {
		lat_unlock(s, flags);
		goto out;
	}
	now = lat_clock();
	if (stale(s, now)) {
		end_early(s, END_EVICTED);
		lat_remove(s, flags);
		goto out;
	}
	/* past the first point, nothing needs it to tell a repeat apart */
	if (decided_out(s)) {
		lat_remove(s, flags);
		goto out;
	}
	/* seen already: another probe, another pass, a retransmission */
	if (point <= s->point) {
		repeat(s, cfg, point, via, now);
		lat_unlock(s, flags);
		goto out;
	}
	/*
	 * A TCP skb without payload (a FIN or SYN that got a fresh skb) is
	 * not application data: forget it.
	 */
	if (kind == STAMP_TX && point == TXP_L4 && proto == IPPROTO_TCP &&
	    !skb->len) {
		lat_remove(s, flags);
		goto out;
	}
	if (proto)
		s->proto = proto;
	learn(s, skb, point);
	reach(s, skb, point, via, now);
	progress(s, cfg, point);
	if (decided_out(s)) {
		lat_remove(s, flags);
		goto out;
	}
	if (point != skbprof_last_point(kind)) {
		lat_unlock(s, flags);
		goto out;
	}
	finish(s, cfg, now);
	lat_remove(s, flags);
out:
	rcu_read_unlock_sched();
}

/* What the @kind timeline @s knew of its packet, for a drop's row. */
static void seen_fill(const struct lat_stamp *s, u8 kind,
		      struct skbprof_seen *seen)
{
	int st;

	if (s->point)
		st = skbprof_stage_ending(kind, s->point, s->proto);
	else
		st = kind == STAMP_RX ? SKBPROF_REACHED_RX_DRV :
					SKBPROF_REACHED_TX_APP;
	seen->reached = st < 0 ? SKBPROF_REACHED_NONE : st;
	seen->matched = s->verdict == LAT_UNDECIDED ? -1 :
			s->verdict != LAT_FILTERED;
	seen->pid = s->pid;
	memcpy(seen->comm, s->comm, sizeof(seen->comm));
	seen->cgroup = s->cgroup;
}

/* ---- GRO ---- */

/*
 * GRO kept the frame @end->skb without freeing it (GRO_MERGED, or reused
 * by napi_gro_frags()): end its timeline, unless the stack took it
 * meanwhile.  A frame merged and freed ended as merged at its free.  Only
 * the skb's key is read: it may be gone.
 */
void lat_rx_gro_end(const struct gro_end *end)
{
	enum stamp_end why;
	unsigned long flags;
	struct lat_stamp *s;

	if (!end->skb || end->fate == GRO_FATE_PASSED ||
	    end->fate == GRO_FATE_FREED)
		return;
	why = end->fate == GRO_FATE_HELD ? END_MERGED : END_REUSED;
	if (stamp_none(end->head, STAMP_RX, false))
		return;
	rcu_read_lock_sched();
	s = lat_lock(end->head, STAMP_RX, false, &flags);
	if (s) {
		if (s->owner == end->skb && s->point == RXP_DRV) {
			end_early(s, why);
			lat_remove(s, flags);
		} else {
			lat_unlock(s, flags);
		}
	}
	rcu_read_unlock_sched();
}

/*
 * Why the receive timeline @s of @skb ends at its free: a frame GRO took
 * and freed before it reached the stack was merged into another skb.
 */
static enum stamp_end rx_free_why(const struct lat_stamp *s,
				  const struct sk_buff *skb,
				  enum stamp_end why)
{
	if (why == END_FREED && s->point == RXP_DRV && gro_frame(skb))
		return END_MERGED;
	return why;
}

/*
 * The free of @skb ends its @kind timeline under @key, after telling
 * *@seen (when not NULL) what it knew.  @last: the free releases the head
 * (no clone holds it); else only the timeline this very skb carried ends.
 * False when there is none.
 */
static bool free_kind(const struct sk_buff *skb, unsigned long key, u8 kind,
		      enum stamp_end why, bool last, struct skbprof_seen *seen)
{
	unsigned long flags;
	struct lat_stamp *s;

	s = lat_lock(key, kind, false, &flags);
	if (!s)
		return false;
	if (seen)
		seen_fill(s, kind, seen);
	if (foreign(s, skb)) {
		end_early(s, END_ORPHANED);
		lat_remove(s, flags);
	} else if (s->owner == skb || last) {
		end_early(s, kind == STAMP_RX ? rx_free_why(s, skb, why) : why);
		lat_remove(s, flags);
	} else {
		lat_unlock(s, flags);
	}
	return true;
}

/*
 * The free of @skb, whose head's key has entries in the table: one visit
 * to each kind, transmit first (over veth and loopback a packet is both),
 * the first found telling *@seen.
 */
bool lat_free_found(const struct sk_buff *skb, unsigned long key,
		    enum stamp_end why, struct skbprof_seen *seen)
{
	bool last = !skb_cloned(skb);

	if (free_kind(skb, key, STAMP_TX, why, last, seen)) {
		free_kind(skb, key, STAMP_RX, why, last, NULL);
		return true;
	}
	return free_kind(skb, key, STAMP_RX, why, last, seen);
}

static void rekey_one(const struct sk_buff *skb, const void *old_head,
		      u8 kind)
{
	struct lat_stamp tmp __uninitialized;	/* a copy of *s */
	unsigned long flags;
	struct lat_stamp *s;
	bool fresh;

	s = lat_lock((unsigned long)old_head, kind, false, &flags);
	if (!s)
		return;
	if (s->owner != skb) {
		lat_unlock(s, flags);
		return;
	}
	tmp = *s;
	lat_remove(s, flags);
	s = lat_lock_insert(head_key(skb), kind, &fresh, &flags);
	if (s) {
		lat_stamp_copy(s, &tmp);
		lat_unlock(s, flags);
		return;
	}
	local_irq_save(flags);
	end_early(&tmp, END_REKEYED);
	local_irq_restore(flags);
}

/*
 * pskb_expand_head() gave @skb a new head: move its timelines along.  Its
 * kretprobe may return after its view was switched off and swept: a
 * stamp moves only while its view is on, in one RCU-sched section with
 * the test, which the sweep waits for.
 */
void lat_rekey(const struct sk_buff *skb, const void *old_head)
{
	const struct skbprof_config *cfg;

	rcu_read_lock_sched();
	cfg = skbprof_config();
	if (followed(cfg, STAMP_RX))
		rekey_one(skb, old_head, STAMP_RX);
	if (followed(cfg, STAMP_TX))
		rekey_one(skb, old_head, STAMP_TX);
	rcu_read_unlock_sched();
}

/* The @kind timeline under @key ends with @why, if @skb owns it. */
static void end_owned(const struct sk_buff *skb, unsigned long key, u8 kind,
		      enum stamp_end why)
{
	unsigned long flags;
	struct lat_stamp *s;

	s = lat_lock(key, kind, false, &flags);
	if (!s)
		return;
	if (s->owner != skb) {
		lat_unlock(s, flags);
		return;
	}
	end_early(s, why);
	lat_remove(s, flags);
}

/*
 * pskb_expand_head() is about to give @skb a new head, which no probe
 * will see while kretprobes are off: the timelines @skb owns under its
 * head @key end here, counted as rekeyed, as lat_rekey() would have moved
 * them.  (A call that then fails keeps the head: its timeline ended all
 * the same.)  Only while their view is on, as for lat_rekey().
 */
void lat_expand_found(const struct sk_buff *skb, unsigned long key)
{
	const struct skbprof_config *cfg;

	rcu_read_lock_sched();
	cfg = skbprof_config();
	if (followed(cfg, STAMP_RX))
		end_owned(skb, key, STAMP_RX, END_REKEYED);
	if (followed(cfg, STAMP_TX))
		end_owned(skb, key, STAMP_TX, END_REKEYED);
	rcu_read_unlock_sched();
}

/*
 * Software GSO is about to cut @skb into segments, new skbs with heads of
 * their own, which no probe will see while kretprobes are off: the
 * transmit timeline under its head @key ends here, counted as segmented,
 * where lat_tx_segmented() would have ended it as forked.  The same
 * timelines: kept or undecided, whichever skb owns it (a TCP clone's is
 * its write-queue skb's).
 */
/*
 * The transmit timeline under @key, locked, if one is followed and kept
 * or still undecided: what software GSO ends or forks.  RCU-sched held.
 */
static struct lat_stamp *__lock_segmenting(unsigned long key,
					   unsigned long *flags)
{
	struct lat_stamp *s;

	if (!followed(skbprof_config(), STAMP_TX))
		return NULL;
	s = lat_lock(key, STAMP_TX, false, flags);
	if (!s)
		return NULL;
	if (s->verdict != LAT_KEEP && s->verdict != LAT_UNDECIDED) {
		lat_unlock(s, *flags);
		return NULL;
	}
	__release(stamp_bucket);	/* held: the caller unlocks */
	return s;
}

#define lock_segmenting(key, flags) ({					\
	struct lat_stamp *__s;						\
	skbprof_cond_lock(stamp_bucket,					\
			  (__s = __lock_segmenting(key, flags)));	\
	__s; })

void lat_tx_gso_found(const struct sk_buff *skb, unsigned long key)
{
	unsigned long flags;
	struct lat_stamp *s;

	rcu_read_lock_sched();
	s = lock_segmenting(key, &flags);
	if (!s)
		goto out;
	end_early(s, END_SEGMENTED);
	lat_remove(s, flags);
out:
	rcu_read_unlock_sched();
}

/*
 * Give the segment @seg a copy @tl of the timeline it was cut from; false
 * when the table is full.  A stamp already under @seg's head is another
 * segment's copy (segments cloned from one frag_list skb share it), or
 * the timeline of an skb whose free skbprof did not see.
 */
static bool fork_one(const struct sk_buff *seg, const struct lat_stamp *tl,
		     u64 now)
{
	unsigned long flags;
	struct lat_stamp *s;
	bool fresh;

	s = lat_lock_insert(head_key(seg), STAMP_TX, &fresh, &flags);
	if (!s)
		return false;
	if (!fresh && s->s.t_start != tl->s.t_start)
		end_early(s, gone_why(s, seg, now));
	lat_stamp_copy(s, tl);
	s->owner = seg;
	lat_unlock(s, flags);
	return true;
}

/*
 * Each segment continues the timeline: the points reached, their times,
 * the owner, the tuple and the verdict, so that each gets its own stages
 * from here on and its own total.  The GSO skb's timeline ends here,
 * counted as forked, unless a segment kept its head (skb_segment_list()
 * makes the skb itself the first segment): that one carries it on.  A
 * timeline filtered or sampled out is not copied, and ends with its skb.
 * Like a rekey, only while transmit timelines are followed.
 */
void lat_tx_segmented(const struct sk_buff *skb, const struct sk_buff *segs)
{
	unsigned long key, flags;
	const struct sk_buff *seg;
	unsigned int n = 0, full = 0;
	bool kept_head = false;
	struct lat_stamp tl __uninitialized;	/* a copy of *s */
	struct lat_stamp *s;
	u64 now;

	if (!skb)
		return;
	rcu_read_lock_sched();
	key = head_key(skb);
	s = lock_segmenting(key, &flags);
	if (!s)
		goto out;
	/* the stages before the fork count once, not per segment */
	latency_settle(s, 0);
	tl = *s;
	for (seg = segs; seg && !kept_head; seg = seg->next)
		kept_head = head_key(seg) == key;
	/* gone first: its entry may serve a segment when the table is full */
	if (kept_head)
		lat_unlock(s, flags);
	else
		lat_remove(s, flags);
	now = lat_clock();
	for (seg = segs; seg; seg = seg->next) {
		if (head_key(seg) == key)
			continue;
		if (fork_one(seg, &tl, now))
			n++;
		else
			full++;
	}
	local_irq_save(flags);
	latency_gso(n, full);
	local_irq_restore(flags);
out:
	rcu_read_unlock_sched();
}

/* ---- the reaper ---- */

static void reaped(struct stamp *st)
{
	end_early(lat_of(st), END_EVICTED);
}

static void reap(struct work_struct *w)
{
	stamp_evict_old(BIT(STAMP_RX) | BIT(STAMP_TX), reaped);
	schedule_delayed_work(&reaper, STAMP_REAP_PERIOD);
}

/* ---- the part ---- */

static void reset_ticks(unsigned int cpu)
{
	skbprof_sample_restart(SKBPROF_SAMPLE_RX, cpu);
	skbprof_sample_restart(SKBPROF_SAMPLE_TX, cpu);
}

/*
 * The timelines go first: one that started before the reset would end
 * in the fresh histograms.
 */
static void timeline_reset(void)
{
	stamp_reap(BIT(STAMP_RX) | BIT(STAMP_TX), 0, 0, NULL);
	latency_reset();
	skbprof_reset_cpus(reset_ticks);
}

/* a timeline's: the sweep reaps no lifetime */
static void swept(struct stamp *st)
{
	end_early(lat_of(st), END_DISARMED);
}

/*
 * A direction whose stages are all off has no probe left to end its
 * timelines: they end now, counted as disarmed.
 */
static void timeline_sweep(const struct skbprof_config *cfg)
{
	unsigned int kinds = 0;

	if (!followed(cfg, STAMP_RX))
		kinds |= BIT(STAMP_RX);
	if (!followed(cfg, STAMP_TX))
		kinds |= BIT(STAMP_TX);
	if (kinds)
		stamp_reap(kinds, 0, 0, swept);
}

static int timeline_init(void)
{
	int err;

	skbprof_stages_init();
	err = stamp_timeline_pool(sizeof(struct lat_stamp));
	if (err)
		return err;
	err = latency_init();
	if (err)
		return err;
	INIT_DELAYED_WORK(&reaper, reap);
	schedule_delayed_work(&reaper, STAMP_REAP_PERIOD);
	return 0;
}

static void timeline_exit(void)
{
	/* main.c removed the files, and the probes part is down */
	cancel_delayed_work_sync(&reaper);
	latency_exit();
}

/* The timelines and their aggregation are one part: "latency". */
const struct skbprof_part skbprof_latency_part = {
	.name = "latency",
	.init = timeline_init,
	.exit = timeline_exit,
	.sweep = timeline_sweep,
	.reset = timeline_reset,
	.stats = latency_stats,
	.stats_rows = latency_stats_rows,
	.files = latency_files,
	.nfiles = LATENCY_NFILES,
};
