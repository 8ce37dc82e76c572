/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lifetime view (lifetime.c): skbs followed from their allocation to
 * their free, one allocation in `lifetime N`.
 */
#ifndef _SKBPROF_LIFETIME_H
#define _SKBPROF_LIFETIME_H

#include <linux/skbuff.h>

#include "skbprof.h"
#include "stamp.h"

/*
 * A constructor's entry probe: is the skb it makes one to follow (one
 * allocation in `lifetime N`, per CPU)?  Then *@called is when the call
 * began, and its return probe calls lifetime_start(@skb, @called).
 */
bool lifetime_follow(u64 *called);
void lifetime_start(const struct sk_buff *skb, u64 called);
void __lifetime_end(const struct sk_buff *skb);

/*
 * From every free path (probes.c): @skb goes.  Inline: no lifetime stamp
 * outlives the view (sweep), so most frees end with one look at a chain.
 */
static inline void lifetime_end(const struct sk_buff *skb)
{
	if (skb && !stamp_none((unsigned long)skb, STAMP_LIFE, false))
		__lifetime_end(skb);
}

/* kfree_skb_partial(): @skb goes, its data joined another skb. */
void lifetime_coalesced(const struct sk_buff *skb);
/*
 * Software GSO cut @skb, still alive, into the list @segs: each segment
 * carries on @skb's lifetime.
 */
void lifetime_segmented(const struct sk_buff *skb,
			const struct sk_buff *segs);
struct gro_end;
/* GRO returned, having kept a frame or not (gro.h). */
void lifetime_gro_end(const struct gro_end *end);

extern const struct skbprof_part skbprof_lifetime_part;

#endif /* _SKBPROF_LIFETIME_H */
