/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear latency histograms (HdrHistogram-like), in nanoseconds.
 *
 * Values below HIST_EXACT get a bucket each.  Above, every power of two
 * [2^e, 2^(e+1)) is split into HIST_SUB equal sub-buckets, so a bucket is
 * never wider than 1/HIST_SUB (12.5%) of its lower bound.  Values from
 * 2^HIST_MAX_EXP ns (about 73 minutes) up share the last bucket; count,
 * sum, min and max stay exact for every value.
 *
 * This file and hist.c build in the kernel and in userspace (the host unit
 * tests in tests/unit/hist_test.c), so they use nothing but plain C.
 * Nothing here locks: the kernel keeps one histogram per CPU and stage,
 * updates it with interrupts off, and merges copies on read.
 */
#ifndef _SKBPROF_HIST_H
#define _SKBPROF_HIST_H

/* In userspace, tests/unit/shim/ stands in for the kernel's headers. */
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/types.h>

#define HIST_SUB_BITS	3
#define HIST_SUB	BIT(HIST_SUB_BITS)		/* sub-buckets per 2^e */
#define HIST_EXACT	(2 * HIST_SUB)			/* 0..15: exact buckets */
#define HIST_MAX_EXP	42				/* 2^42 ns: 73 minutes */
#define HIST_BUCKETS	(HIST_EXACT + \
			 (HIST_MAX_EXP - HIST_SUB_BITS - 1) * HIST_SUB)

struct hist {
	u64 count;
	u64 sum;
	u64 min;		/* meaningful only when count > 0 */
	u64 max;
	u64 buckets[HIST_BUCKETS];
};

/* Bucket of value v (inline: the hot path computes it once per stage). */
static inline unsigned int hist_index(u64 v)
{
	unsigned int e;

	if (v < HIST_EXACT)
		return v;
	e = fls64(v) - 1;			/* 2^e <= v < 2^(e+1), e >= 4 */
	if (e >= HIST_MAX_EXP)
		return HIST_BUCKETS - 1;
	/* HIST_SUB sub-buckets per power of two from 2^(SUB_BITS+1) up */
	return HIST_EXACT + (e - HIST_SUB_BITS - 1) * HIST_SUB +
	       (unsigned int)(v >> (e - HIST_SUB_BITS)) - HIST_SUB;
}

/*
 * Smallest value of bucket i, and the one past its largest: bucket i
 * holds [lo, hi).  The last bucket is open; its hi is U64_MAX, past every
 * time a u64 of nanoseconds can hold but U64_MAX itself.
 */
u64 hist_bucket_lo(unsigned int i);
u64 hist_bucket_hi(unsigned int i);

void hist_init(struct hist *h);

/* hist_add() of @v, whose bucket @i the caller has: hist_index(v). */
static inline void hist_add_at(struct hist *h, unsigned int i, u64 v)
{
	if (!h->count || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->count++;
	h->sum += v;
	h->buckets[i]++;
}

static inline void hist_add(struct hist *h, u64 v)
{
	hist_add_at(h, hist_index(v), v);
}

void hist_merge(struct hist *dst, const struct hist *src);

/*
 * The value at or below which pct percent of the samples lie (nearest
 * rank: the ceil(pct * count / 100)-th smallest sample), reported as the
 * highest value of its bucket, clamped to [min, max].  So the result is
 * never below the true percentile and at most 12.5% above it, and exact
 * for p0 (min) and p100 (max).  0 for an empty histogram.
 */
u64 hist_percentile(const struct hist *h, unsigned int pct);
/* Integer mean (floor); 0 for an empty histogram. */
u64 hist_avg(const struct hist *h);

/*
 * Power-of-two view for display: log2 bucket k counts the values in
 * [2^(k-1), 2^k) for k >= 1 and the value 0 for k == 0.
 */
#define HIST_LOG2_BUCKETS	(HIST_MAX_EXP + 1)
void hist_log2(const struct hist *h, u64 out[HIST_LOG2_BUCKETS]);
u64 hist_log2_lo(unsigned int k);

struct seq_file;
/* Draw @h in power-of-two rows (hist_seq.c, kernel only). */
void hist_seq_log2(struct seq_file *m, const struct hist *h);
/*
 * The numeric files, latency_buckets, lifetime_buckets and
 * softnet_buckets (hist_seq.c, kernel only), machine tables.
 * hist_seq_buckets_header() prints their meta line "# bounds=" and every
 * edge of the buckets, comma-separated, ascending (bucket k holds [b_k,
 * b_k+1)), then their header "# @cols count sum min max p50 p90 p99 avg
 * buckets...".  hist_seq_buckets() prints the rest of a line: " count sum
 * min max p50 p90 p99 avg" (the human views' figures), then
 * " lo:hi:count" for every non-empty bucket, ascending, and the newline;
 * all from @h, one merged copy, so count is the sum of the buckets'.
 */
void hist_seq_buckets_header(struct seq_file *m, const char *cols);
void hist_seq_buckets(struct seq_file *m, const struct hist *h);

#endif /* _SKBPROF_HIST_H */
