/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The 1-in-N samplers of the timelines, the drops and lifetime
 * (sample.c).
 */
#ifndef _SKBPROF_SAMPLE_H
#define _SKBPROF_SAMPLE_H

#include <linux/percpu.h>
#include <linux/types.h>

/*
 * The 1-in-N samplers: each counts, per CPU, what it is asked about
 * (this_cpu ops, which no interrupt splits).
 */
enum skbprof_sampler {
	SKBPROF_SAMPLE_RX,	/* receive timelines the filter matched */
	SKBPROF_SAMPLE_TX,	/* transmit timelines the filter matched */
	SKBPROF_SAMPLE_DROPS,	/* drops the filter matched */
	SKBPROF_SAMPLE_LIFE,	/* skb allocations */
	SKBPROF_SAMPLERS
};

DECLARE_PER_CPU(u32[SKBPROF_SAMPLERS], skbprof_sample_ticks);

/* Keep this one, one in @n on this CPU (@n <= 1: every one)? */
static inline bool skbprof_sample_keep(enum skbprof_sampler which, u32 n)
{
	return n <= 1 ||
	       !(this_cpu_inc_return(skbprof_sample_ticks[which]) % n);
}

/* Start @which's count on @cpu afresh (a reset). */
void skbprof_sample_restart(enum skbprof_sampler which, unsigned int cpu);

#endif /* _SKBPROF_SAMPLE_H */
