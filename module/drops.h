/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The drops view (drops.c): drops counted per location, reason, stage and
 * network namespace, and their lines on the trace stream.  The free path
 * (probes.c) calls it from its kfree_skb probe.
 */
#ifndef _SKBPROF_DROPS_H
#define _SKBPROF_DROPS_H

#include <linux/skbuff.h>

#include "pktinfo.h"
#include "skbprof.h"

/*
 * The kernel dropped @skb at @location for @reason (SKBPROF_NO_DROP_REASON
 * where the kernel has none): count it while the drops stage is on.
 * @seen: what its timeline knew of it, NULL when it had none.
 */
void drops_record(struct sk_buff *skb, void *location, u32 reason,
		  const struct skbprof_seen *seen);

extern const struct skbprof_part skbprof_drops_part;

#endif /* _SKBPROF_DROPS_H */
