/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The GRO tracker (gro.c): the frame napi_gro_receive() or
 * napi_gro_frags() works on, per CPU, from its entry tracepoint to its
 * exit.  A free of that frame in between, before the stack took it, is a
 * merge into another skb; at the exit, GRO's return value tells what
 * became of a frame it kept.  The probes feed it (probes.c) and hand its
 * end to the timelines and lifetime, in that order; they ask it about a
 * free with gro_frame().  A leaf: it calls nothing else of skbprof.
 */
#ifndef _SKBPROF_GRO_H
#define _SKBPROF_GRO_H

#include <linux/percpu.h>
#include <linux/skbuff.h>

/*
 * This CPU's frame: written only by its own GRO (softirq, or bottom
 * halves off), so by nothing else while set; the frees on this CPU
 * compare against it.
 */
struct skbprof_gro {
	const struct sk_buff *skb;	/* NULL: none, or the stack has it */
	unsigned long head;		/* skb->head at the entry */
};

DECLARE_PER_CPU(struct skbprof_gro, skbprof_gro);

/* What became of the frame, at GRO's exit. */
enum gro_fate {
	GRO_FATE_PASSED,	/* not merged: the stack's, or dropped */
	GRO_FATE_HELD,		/* GRO_MERGED: on another skb's frag_list */
	GRO_FATE_FREED,		/* GRO_MERGED_FREE: merged, then freed */
	/*
	 * GRO_MERGED_FREE from napi_gro_frags(): merged, and the skb kept
	 * for the next frame, unless its head was stolen (then freed)
	 */
	GRO_FATE_REUSED,
};

/* The exit, for those who follow the frame; @skb may be gone. */
struct gro_end {
	const struct sk_buff *skb;	/* NULL: the stack took it */
	unsigned long head;
	enum gro_fate fate;
};

/* Is @skb the frame this CPU's GRO works on, not yet the stack's? */
static inline bool gro_frame(const struct sk_buff *skb)
{
	return __this_cpu_read(skbprof_gro.skb) == skb;
}

/* GRO takes @skb (the entry tracepoints). */
void gro_enter(const struct sk_buff *skb);
/* The stack takes @skb (the netif_receive_skb tracepoint). */
static inline void gro_deliver(const struct sk_buff *skb)
{
	if (gro_frame(skb))
		__this_cpu_write(skbprof_gro.skb, NULL);
}

/* GRO returns @ret (the exit tracepoints): fills and clears. */
void gro_exit(int ret, bool frags, struct gro_end *end);
/* No probe feeds the tracker any more: every CPU's frame is forgotten. */
void gro_forget(void);

#endif /* _SKBPROF_GRO_H */
