/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The lifetime view (lifetime.c): skbs followed from their allocation to
 * their free, one allocation in `lifetime N`.
 */
#ifndef _SKBPROF_LIFETIME_H
#define _SKBPROF_LIFETIME_H

#include <linux/skbuff.h>

#include "skbprof.h"

/* From the constructors' probes: @skb was just made. */
void lifetime_start(const struct sk_buff *skb);
/* From every free path (probes.c, and drops.c's kfree_skb): @skb goes. */
void lifetime_end(const struct sk_buff *skb);
/*
 * Software GSO cut @skb, still alive, into the list @segs: each segment
 * carries on @skb's lifetime.
 */
void lifetime_segmented(const struct sk_buff *skb,
			const struct sk_buff *segs);

extern const struct skbprof_part skbprof_lifetime_part;

#endif /* _SKBPROF_LIFETIME_H */
