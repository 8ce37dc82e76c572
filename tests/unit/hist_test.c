// SPDX-License-Identifier: GPL-2.0
/* Host unit tests of module/hist.c, the log-linear latency histograms. */
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "hist.c"

/* The exact true percentile (nearest rank) of a sorted array. */
static u64 true_pct(const u64 *sorted, size_t n, unsigned int pct)
{
	size_t rank = (n * pct + 99) / 100;

	if (pct >= 100)
		return sorted[n - 1];
	if (!rank)
		return sorted[0];
	return sorted[rank - 1];
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

UNIT_TEST(bucket_boundaries)
{
	unsigned int i;

	/* 0..15 have a bucket each */
	for (i = 0; i < 16; i++) {
		EXPECT_EQ(hist_index(i), i);
		EXPECT_EQ(hist_bucket_lo(i), i);
		EXPECT_EQ(hist_bucket_hi(i), i + 1);
	}
	/* [16, 32) in 8 buckets of width 2, [32, 64) in 8 of width 4 */
	EXPECT_EQ(hist_index(16), 16);
	EXPECT_EQ(hist_index(17), 16);
	EXPECT_EQ(hist_index(18), 17);
	EXPECT_EQ(hist_index(31), 23);
	EXPECT_EQ(hist_index(32), 24);
	EXPECT_EQ(hist_index(35), 24);
	EXPECT_EQ(hist_index(36), 25);
	EXPECT_EQ(hist_bucket_lo(24), 32);
	EXPECT_EQ(hist_bucket_hi(24), 36);
	/* 20 ms: [2^24 + 2 * 2^21, 2^24 + 3 * 2^21) */
	EXPECT_EQ(hist_bucket_lo(hist_index(20000000)), 18874368);
	EXPECT_EQ(hist_bucket_hi(hist_index(20000000)), 20971520);
	/* from 2^42 ns (73 min) up: the last bucket */
	EXPECT_EQ(hist_index((u64)1 << 42), HIST_BUCKETS - 1);
	EXPECT_EQ(hist_index(~(u64)0), HIST_BUCKETS - 1);
	EXPECT_EQ(hist_index(((u64)1 << 42) - 1), HIST_BUCKETS - 1);
	/* the last bucket is open: [15 * 2^38, U64_MAX) */
	EXPECT_EQ(hist_bucket_lo(HIST_BUCKETS - 1), (u64)15 << 38);
	EXPECT_EQ(hist_bucket_hi(HIST_BUCKETS - 1), ~(u64)0);

	/* contiguous, increasing, every value in its bucket, width <= lo/8 */
	for (i = 0; i < HIST_BUCKETS; i++) {
		u64 lo = hist_bucket_lo(i), hi = hist_bucket_hi(i);

		EXPECT(hi > lo, "bucket %u [%llu, %llu)", i,
		       (unsigned long long)lo, (unsigned long long)hi);
		EXPECT_EQ(hist_index(lo), i);
		EXPECT_EQ(hist_index(hi - 1), i);
		if (lo >= 16 && i + 1 < HIST_BUCKETS)
			EXPECT(8 * (hi - lo) <= lo, "bucket %u too wide", i);
		if (i + 1 < HIST_BUCKETS)
			EXPECT_EQ(hist_bucket_lo(i + 1), hi);
	}
}

UNIT_TEST(empty)
{
	struct hist h;

	hist_init(&h);
	EXPECT_EQ(h.count, 0);
	EXPECT_EQ(hist_percentile(&h, 50), 0);
	EXPECT_EQ(hist_percentile(&h, 100), 0);
	EXPECT_EQ(hist_avg(&h), 0);
}

UNIT_TEST(min_max_avg_exact)
{
	struct hist h;

	hist_init(&h);
	hist_add(&h, 1000003);
	hist_add(&h, 7);
	hist_add(&h, 123456789);
	EXPECT_EQ(h.count, 3);
	EXPECT_EQ(h.min, 7);
	EXPECT_EQ(h.max, 123456789);
	EXPECT_EQ(h.sum, 124456799);
	EXPECT_EQ(hist_avg(&h), 124456799 / 3);
	EXPECT_EQ(hist_percentile(&h, 0), 7);
	EXPECT_EQ(hist_percentile(&h, 100), 123456789);
	/* a single sample is its own percentile, whatever its bucket */
	hist_init(&h);
	hist_add(&h, 20000000);
	EXPECT_EQ(hist_percentile(&h, 50), 20000000);
	EXPECT_EQ(hist_percentile(&h, 99), 20000000);
}

UNIT_TEST(constant_distribution)
{
	struct hist h;
	int i;

	hist_init(&h);
	for (i = 0; i < 1000; i++)
		hist_add(&h, 5000);
	EXPECT_EQ(hist_percentile(&h, 50), 5000);
	EXPECT_EQ(hist_percentile(&h, 90), 5000);
	EXPECT_EQ(hist_percentile(&h, 99), 5000);
	EXPECT_EQ(hist_avg(&h), 5000);
}

UNIT_TEST(uniform_small_values_exact)
{
	struct hist h;
	int i;

	/* 1..10: exact buckets, so percentiles are exact nearest ranks */
	hist_init(&h);
	for (i = 1; i <= 10; i++)
		hist_add(&h, i);
	EXPECT_EQ(hist_percentile(&h, 50), 5);
	EXPECT_EQ(hist_percentile(&h, 90), 9);
	EXPECT_EQ(hist_percentile(&h, 99), 10);
	EXPECT_EQ(hist_percentile(&h, 10), 1);
}

/* Percentiles of known distributions: never below, at most 12.5% above. */
static void check_distribution(const char *name, u64 *v, size_t n)
{
	static const unsigned int pcts[] = { 1, 10, 25, 50, 75, 90, 99, 100 };
	struct hist h, a, b;
	u64 sum = 0;
	size_t i, j;

	hist_init(&h);
	hist_init(&a);
	hist_init(&b);
	for (i = 0; i < n; i++) {
		hist_add(&h, v[i]);
		hist_add(i % 3 ? &a : &b, v[i]);
		sum += v[i];
	}
	hist_merge(&a, &b);
	EXPECT(!memcmp(&a, &h, sizeof(h)), "%s: merge differs", name);
	qsort(v, n, sizeof(*v), cmp_u64);
	EXPECT_EQ(h.min, v[0]);
	EXPECT_EQ(h.max, v[n - 1]);
	EXPECT_EQ(hist_avg(&h), sum / n);
	for (j = 0; j < sizeof(pcts) / sizeof(*pcts); j++) {
		u64 t = true_pct(v, n, pcts[j]);
		u64 got = hist_percentile(&h, pcts[j]);

		EXPECT(got >= t && (got - t) * 8 <= t,
		       "%s p%u: got %llu, true %llu", name, pcts[j],
		       (unsigned long long)got, (unsigned long long)t);
	}
}

UNIT_TEST(known_distributions)
{
	size_t n = 100000, i;
	u64 *v = malloc(n * sizeof(*v));
	unsigned int seed = 12345;

	EXPECT(v != NULL, "malloc");
	if (!v)
		return;
	/* uniform over [1 us, 1 ms] */
	for (i = 0; i < n; i++)
		v[i] = 1000 + (u64)rand_r(&seed) % 999001;
	check_distribution("uniform", v, n);
	/* log-uniform over 1 ns .. 2^40 ns */
	for (i = 0; i < n; i++)
		v[i] = (((u64)rand_r(&seed) << 20 | (u64)rand_r(&seed)) >>
			(rand_r(&seed) % 40)) % ((u64)1 << 40) + 1;
	check_distribution("log-uniform", v, n);
	/* bimodal: 90% near 20 us, 10% near 20 ms */
	for (i = 0; i < n; i++)
		v[i] = (i % 10 ? 20000 : 20000000) + rand_r(&seed) % 1000;
	check_distribution("bimodal", v, n);
	free(v);
}

/*
 * A percentile in the open last bucket is never below the true one: the
 * bucket's top is not 2^42 but the histogram's max.
 */
UNIT_TEST(percentile_in_last_bucket)
{
	struct hist h;

	hist_init(&h);
	hist_add(&h, 1);
	hist_add(&h, (u64)1 << 43);
	hist_add(&h, (u64)1 << 50);
	EXPECT_EQ(hist_percentile(&h, 50), (u64)1 << 50);
	EXPECT(hist_percentile(&h, 50) >= (u64)1 << 43, "p50 below the true one");
	EXPECT_EQ(hist_percentile(&h, 34), (u64)1 << 50);
	EXPECT_EQ(hist_percentile(&h, 33), 1);
}

UNIT_TEST(log2_view)
{
	u64 out[HIST_LOG2_BUCKETS];
	struct hist h;

	hist_init(&h);
	hist_add(&h, 0);
	hist_add(&h, 1);
	hist_add(&h, 3);
	hist_add(&h, 1000);		/* [512, 1024) */
	hist_add(&h, 1023);
	hist_add(&h, 1024);		/* [1024, 2048) */
	hist_add(&h, (u64)1 << 50);	/* clamped into the last */
	hist_log2(&h, out);
	EXPECT_EQ(out[0], 1);
	EXPECT_EQ(out[1], 1);
	EXPECT_EQ(out[2], 1);
	EXPECT_EQ(out[10], 2);
	EXPECT_EQ(hist_log2_lo(10), 512);
	EXPECT_EQ(out[11], 1);
	EXPECT_EQ(out[HIST_LOG2_BUCKETS - 1], 1);
}
