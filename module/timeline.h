/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The timelines of stage latency (timeline.c): the points the probes part
 * reports (probes.c drives them; nothing here calls it).  They hand what
 * they measure to the aggregation (latency.h).
 */
#ifndef _SKBPROF_TIMELINE_H
#define _SKBPROF_TIMELINE_H

#include <linux/seq_file.h>
#include <linux/skbuff.h>

#include "skbprof.h"
#include "lat_stamp.h"

/*
 * Events from the probes (any context but NMI).  @via names the probe
 * for the verbose trace (probe_engine_name()).
 */
/* How a received skb comes to its first point (lat_rx_start()). */
enum lat_rx_how {
	LAT_RX_ENTRY,	/* a driver's hand-off: *_entry tracepoints, GRO */
	LAT_RX_QUEUED,	/* netif_rx(): queued to a CPU's backlog */
	/*
	 * netif_receive_skb's tracepoint, which every skb handed to the
	 * stack passes after any entry tracepoint; a queued one leaves the
	 * backlog there
	 */
	LAT_RX_CORE,
};

void lat_rx_start(const struct sk_buff *skb, u16 via, enum lat_rx_how how);
void lat_point_found(const struct sk_buff *skb, unsigned long key,
		     unsigned int b, u8 kind, u8 point, u8 proto, u16 via,
		     bool count_miss);

static inline unsigned long lat_head_key(const struct sk_buff *skb)
{
	return (unsigned long)READ_ONCE(skb->head);
}

/*
 * A point after the first, inline: a packet not followed costs a look at
 * a chain of the stamp table.
 */
static __always_inline void lat_point(const struct sk_buff *skb, u8 kind,
				      u8 point, u8 proto, u16 via)
{
	/* several copy probes may see one skb: only the first finds it */
	bool count_miss = kind == STAMP_TX || point != RXP_APP;
	unsigned long key;
	unsigned int b;

	if (!skb)
		return;
	key = lat_head_key(skb);
	b = stamp_bucket_of(key, kind);
	if (!stamp_chain_empty(b))
		lat_point_found(skb, key, b, kind, point, proto, via,
				count_miss);
	else if (count_miss)
		this_cpu_inc(stamp_misses);
}

static inline void lat_rx_point(const struct sk_buff *skb,
				enum rx_point point, u8 proto, u16 via)
{
	lat_point(skb, STAMP_RX, point, proto, via);
}

struct flowi4;
/*
 * @sk: the sending socket; @fl4: the flow of an IPv4 datagram, or NULL;
 * @also: a later point the probe is too, reached at the same time
 * (TXP_APP: none)
 */
void lat_tx_start(const struct sk_buff *skb, const struct sock *sk,
		  const struct flowi4 *fl4, u8 proto, enum tx_point also,
		  u16 via);

struct msghdr;
/*
 * A UDP send call of @sk, udp_sendmsg() or udpv6_sendmsg() with @msg,
 * begins: the first point of the datagrams it sends, and of the corked
 * one it begins.
 */
void lat_tx_udp_call(const struct sock *sk, const struct msghdr *msg,
		     u16 via);
/*
 * udp_send_skb(), udp_v6_send_skb() with @cork: UDP takes the datagram
 * @skb, whose transmit timeline starts at its send call and reaches tx udp
 * now.  @fl4: the flow of an IPv4 datagram, or NULL.
 */
void lat_tx_udp(const struct sk_buff *skb, const struct flowi4 *fl4,
		const void *cork, u16 via);
/* Forget every send call seen: their probes are about to be armed again. */
void lat_tx_udp_forget(void);

static inline void lat_tx_point(const struct sk_buff *skb,
				enum tx_point point, u8 proto, u16 via)
{
	lat_point(skb, STAMP_TX, point, proto, via);
}

struct skbprof_seen;
bool lat_free_found(const struct sk_buff *skb, unsigned long key,
		    enum stamp_end why, struct skbprof_seen *seen);

/*
 * @skb is freed: the timelines it carried end, and *@seen (when not NULL)
 * gets what the first of them knew (pktinfo.h): false when it
 * carried none.  Inline: most frees are of packets no timeline follows
 * (any more), one look at each kind's chain.
 */
static inline bool lat_free(const struct sk_buff *skb, enum stamp_end why,
			    struct skbprof_seen *seen)
{
	unsigned long key;

	if (!skb)
		return false;
	key = lat_head_key(skb);
	if (stamp_none(key, STAMP_RX, false) &&
	    stamp_none(key, STAMP_TX, false))
		return false;
	return lat_free_found(skb, key, why, seen);
}

struct gro_end;
/* GRO returned, having kept a frame or not (gro.h). */
void lat_rx_gro_end(const struct gro_end *end);
/*
 * A TCP receive call of the current task begins (@peek: with MSG_PEEK):
 * until its next call, its copies are peeks, or are reads.  Peeks end no
 * timeline.  (UDP's probe of the read tells peeks apart itself.)
 */
void lat_rx_recv(bool peek);
void lat_rekey(const struct sk_buff *skb, const void *old_head);
/* Does a timeline of a kind in @kinds (bits) perhaps live under @skb's head? */
static inline bool lat_carries(const struct sk_buff *skb, unsigned int kinds)
{
	unsigned long key = lat_head_key(skb);

	return ((kinds & BIT(STAMP_RX)) && !stamp_none(key, STAMP_RX, false)) ||
	       ((kinds & BIT(STAMP_TX)) && !stamp_none(key, STAMP_TX, false));
}

void lat_expand_found(const struct sk_buff *skb, unsigned long key);
/*
 * pskb_expand_head(@skb) begins, kretprobes off: the timelines @skb owns
 * end (lat_expand_found()).  Inline: most calls are for skbs no timeline
 * follows.
 */
static inline void lat_expand(const struct sk_buff *skb)
{
	if (skb && lat_carries(skb, BIT(STAMP_RX) | BIT(STAMP_TX)))
		lat_expand_found(skb, lat_head_key(skb));
}

void lat_tx_gso_found(const struct sk_buff *skb, unsigned long key);
/* __skb_gso_segment(@skb) begins, kretprobes off: lat_tx_gso_found(). */
static inline void lat_tx_gso(const struct sk_buff *skb)
{
	if (skb && lat_carries(skb, BIT(STAMP_TX)))
		lat_tx_gso_found(skb, lat_head_key(skb));
}

/*
 * Software GSO cut @skb, still alive, into the list @segs: each segment
 * continues @skb's transmit timeline under its own head.
 */
void lat_tx_segmented(const struct sk_buff *skb, const struct sk_buff *segs);

/*
 * The probes name the one behind each @via for the verbose trace; NULL
 * before the probes part is up and after it is down.
 */

#endif /* _SKBPROF_TIMELINE_H */
