// SPDX-License-Identifier: GPL-2.0
/*
 * Log-linear histograms; see hist.h.  Plain C shared by the module and the
 * host unit tests.
 */
#include <linux/bitops.h>
#include <linux/math64.h>
#include <linux/string.h>

#include "hist.h"

u64 hist_bucket_lo(unsigned int i)
{
	unsigned int e, sub;

	if (i < HIST_EXACT)
		return i;
	if (i >= HIST_BUCKETS)
		return (u64)1 << HIST_MAX_EXP;
	e = (i - HIST_EXACT) / HIST_SUB + HIST_SUB_BITS + 1;
	sub = (i - HIST_EXACT) % HIST_SUB;
	return (u64)(HIST_SUB + sub) << (e - HIST_SUB_BITS);
}

u64 hist_bucket_hi(unsigned int i)
{
	/* the last bucket holds every value from its lo up */
	if (i >= HIST_BUCKETS - 1)
		return ~(u64)0;		/* U64_MAX */
	return hist_bucket_lo(i + 1);
}

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	unsigned int i;

	if (!src->count)
		return;
	if (!dst->count || src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	dst->count += src->count;
	dst->sum += src->sum;
	for (i = 0; i < HIST_BUCKETS; i++)
		dst->buckets[i] += src->buckets[i];
}

u64 hist_percentile(const struct hist *h, unsigned int pct)
{
	u64 rank, seen = 0, v;
	unsigned int i;

	if (!h->count)
		return 0;
	if (pct >= 100)
		return h->max;
	/* nearest rank: ceil(pct * count / 100), at least 1 */
	rank = div64_u64(h->count * pct + 99, 100);
	if (!rank)
		return h->min;
	for (i = 0; i < HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank)
			break;
	}
	if (i >= HIST_BUCKETS)		/* buckets disagree with count */
		return h->max;
	v = hist_bucket_hi(i) - 1;
	if (v > h->max)
		v = h->max;
	if (v < h->min)
		v = h->min;
	return v;
}

u64 hist_avg(const struct hist *h)
{
	return h->count ? div64_u64(h->sum, h->count) : 0;
}

u64 hist_log2_lo(unsigned int k)
{
	return k ? (u64)1 << (k - 1) : 0;
}

void hist_log2(const struct hist *h, u64 out[HIST_LOG2_BUCKETS])
{
	unsigned int i, k;

	memset(out, 0, sizeof(u64) * HIST_LOG2_BUCKETS);
	for (i = 0; i < HIST_BUCKETS; i++) {
		if (!h->buckets[i])
			continue;
		/* buckets never straddle a power of two */
		k = fls64(hist_bucket_lo(i));
		if (k >= HIST_LOG2_BUCKETS)
			k = HIST_LOG2_BUCKETS - 1;
		out[k] += h->buckets[i];
	}
}
