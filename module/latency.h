/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stage latency: the timeline points the probes report (probes.c) and the
 * part that turns them into histograms and files (latency.c).
 */
#ifndef _SKBPROF_LATENCY_H
#define _SKBPROF_LATENCY_H

#include <linux/seq_file.h>
#include <linux/skbuff.h>

#include "skbprof.h"

/* Points of the receive timeline, in order. */
enum rx_point {
	RXP_DRV,	/* the driver hands the skb to the stack */
	RXP_IP,		/* IP receive */
	RXP_L4,		/* transport receive */
	RXP_APP,	/* copied to the application */
	RXP_POINTS
};

/* Points of the transmit timeline, in order. */
enum tx_point {
	TXP_APP,	/* the application's data became an skb */
	TXP_L4,		/* transport transmit */
	TXP_IP,		/* IP output */
	TXP_DEV,	/* dev_queue_xmit */
	TXP_DRV,	/* the driver's transmit */
	TXP_POINTS
};

/* How a timeline ended without reaching its last point. */
enum lat_end {
	END_DROPPED,	/* kfree_skb */
	END_FREED,	/* consumed or released before the end */
	END_EVICTED,	/* older than max_age */
	END_RESTARTED,	/* its first point came again */
	END_REKEYED,	/* the skb's head was reallocated */
	END_REASONS
};

/* Events from the probes (any context but NMI). */
void lat_rx_start(const struct sk_buff *skb);
void lat_rx_point(const struct sk_buff *skb, enum rx_point point, u8 proto);
struct flowi4;
/* @sk: the sending socket; @fl4: the flow of an IPv4 datagram, or NULL */
void lat_tx_start(const struct sk_buff *skb, const struct sock *sk,
		  const struct flowi4 *fl4, u8 proto);
void lat_tx_point(const struct sk_buff *skb, enum tx_point point, u8 proto);
void lat_free(const struct sk_buff *skb, enum lat_end why);
void lat_rekey(const struct sk_buff *skb, const void *old_head);
void lat_life_start(const struct sk_buff *skb);

/* The probe points (probes.c). */
int probes_init(void);
void probes_exit(void);
void probes_stats(struct seq_file *m);
/* Zero the hit counters (nmissed is the kernel's own). */
void probes_reset(void);
/* Whether some probe serves timeline point @point of @kind (STAMP_RX...). */
bool probes_point_active(int kind, int point, u8 proto);
/* Names of the probes serving a point, comma separated, for stats. */
void probes_point_names(struct seq_file *m, int kind, int point, u8 proto);

/* Lifetime sampling: one skb allocation in lifetime_sample, 0: off. */
extern unsigned int lat_lifetime_sample;

#endif /* _SKBPROF_LATENCY_H */
