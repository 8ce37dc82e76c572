// SPDX-License-Identifier: GPL-2.0
/*
 * The 1-in-N samplers' counts, per CPU (sample.h).  A leaf: it calls
 * nothing of skbprof.
 */
#include <linux/percpu.h>

#include "sample.h"

DEFINE_PER_CPU(u32[SKBPROF_SAMPLERS], skbprof_sample_ticks);

void skbprof_sample_restart(enum skbprof_sampler which, unsigned int cpu)
{
	per_cpu(skbprof_sample_ticks[which], cpu) = 0;
}
