// SPDX-License-Identifier: GPL-2.0
/*
 * The GRO tracker; see gro.h.
 */
#include <linux/netdevice.h>

#include "gro.h"

DEFINE_PER_CPU(struct skbprof_gro, skbprof_gro);

void gro_enter(const struct sk_buff *skb)
{
	struct skbprof_gro *g = this_cpu_ptr(&skbprof_gro);

	g->skb = skb;
	g->head = skb ? (unsigned long)READ_ONCE(skb->head) : 0;
}

/*
 * GRO_MERGED: the frame joined another skb's frag_list, to be freed with
 * it.  GRO_MERGED_FREE: the frame was merged and freed, except from
 * napi_gro_frags() when its head was not stolen: napi_reuse_skb() then
 * kept the skb and head for the next frame, without a free.
 */
void gro_exit(int ret, bool frags, struct gro_end *end)
{
	struct skbprof_gro *g = this_cpu_ptr(&skbprof_gro);

	end->skb = g->skb;
	end->head = g->head;
	g->skb = NULL;
	if (ret == GRO_MERGED)
		end->fate = GRO_FATE_HELD;
	else if (ret == GRO_MERGED_FREE)
		end->fate = frags ? GRO_FATE_REUSED : GRO_FATE_FREED;
	else
		end->fate = GRO_FATE_PASSED;
}

void gro_forget(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		per_cpu_ptr(&skbprof_gro, cpu)->skb = NULL;
}
