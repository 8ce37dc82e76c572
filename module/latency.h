/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The aggregation of stage latency (latency.c): what the timelines
 * (timeline.c) hand it, the one way in.  It makes per-CPU histograms,
 * worst packets, process and cgroup rows and counters of them, and the
 * files and stats lines that show them.  It knows a timeline only by the
 * struct lat_stamp handed to it, and calls nothing of the timelines.
 *
 * The calls from the hot path run with interrupts off (they write this
 * CPU's aggregates), but for latency_verdict().
 */
#ifndef _SKBPROF_LATENCY_H
#define _SKBPROF_LATENCY_H

#include <linux/percpu.h>
#include <linux/seq_file.h>
#include <linux/types.h>

#include "skbprof.h"
#include "lat_stamp.h"

/*
 * Record the stages of the kept timeline @s that no earlier call
 * recorded, and its total when @end (the time of its last point), in one
 * pass: their histograms, worst packets, and the process and cgroup
 * charged, who are looked up once.  Called at the timeline's end, when
 * the receiver is known too, and at a GSO fork for the stages before it,
 * which the segments do not repeat; marks them recorded in @s.
 */
void latency_settle(struct lat_stamp *s, u64 end);
/* The timeline @s ended without reaching its last point, because @why. */
void latency_incomplete(const struct lat_stamp *s, enum stamp_end why);
/*
 * The filter's and sampling's verdicts per direction, per CPU: counted
 * where a timeline starts, before any lock, so with this_cpu ops, which
 * interrupts cannot split.
 */
DECLARE_PER_CPU(u64 [2][LAT_FILTERED + 1], lat_verdicts);

/* The filter and sampling gave a @kind timeline @verdict (any context). */
static inline void latency_verdict(u8 kind, u8 verdict)
{
	this_cpu_inc(lat_verdicts[kind][verdict]);
}

/*
 * UDP datagrams whose send call was not seen (timeline.c), per CPU: of
 * those sampling kept or the filter judged.
 */
DECLARE_PER_CPU(u64, lat_udp_unseen);

static inline void latency_udp_unseen(void)
{
	this_cpu_inc(lat_udp_unseen);
}

/* Software GSO forked a transmit timeline to @segs segments; @full had none. */
void latency_gso(unsigned int segs, unsigned int full);

/*
 * The aggregates' life, driven by the part that owns them (timeline.c):
 * latency_init() allocates them (-EINVAL for bad module parameters),
 * latency_exit() frees them once nothing records; latency_reset() zeroes
 * them, latency_stats() adds the stamp table's counters and theirs to
 * the stats file, latency_stats_rows() a few timelines in flight, and
 * latency_files[] are their files (inflight: those timelines' table).
 */
int latency_init(void);
void latency_exit(void);
void latency_reset(void);
void latency_stats(struct seq_file *m);
void latency_stats_rows(struct seq_file *m);
#define LATENCY_NFILES	6
extern const struct skbprof_file latency_files[LATENCY_NFILES];

#endif /* _SKBPROF_LATENCY_H */
