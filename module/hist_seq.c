// SPDX-License-Identifier: GPL-2.0
/*
 * Histograms for a seq_file: drawn in power-of-two rows, the human view
 * of the latency and lifetime files, and as numbers, the rest of a line
 * of latency_buckets and lifetime_buckets.  Kernel only (hist.c is shared
 * with the host unit tests).
 */
#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/seq_file.h>
#include <linux/string.h>

#include "hist.h"

void hist_seq_log2(struct seq_file *m, const struct hist *h)
{
	static const char units[] = " KMGT";
	u64 b[HIST_LOG2_BUCKETS], top = 0;
	unsigned int k, lo = HIST_LOG2_BUCKETS, hi = 0, i;

	hist_log2(h, b);
	for (k = 0; k < HIST_LOG2_BUCKETS; k++) {
		if (!b[k])
			continue;
		lo = min(lo, k);
		hi = max(hi, k);
		top = max(top, b[k]);
	}
	for (k = lo; k <= hi && k < HIST_LOG2_BUCKETS; k++) {
		u64 from = hist_log2_lo(k), to = hist_log2_lo(k + 1);
		unsigned int width = top ? div64_u64(b[k] * 52, top) : 0;
		char a[16], z[16];
		int ua = 0, uz = 0;

		while (from >= 1024 && !(from & 1023) && ua < 4) {
			from >>= 10;
			ua++;
		}
		while (to >= 1024 && !(to & 1023) && uz < 4) {
			to >>= 10;
			uz++;
		}
		snprintf(a, sizeof(a), "%llu%.*s", from, ua ? 1 : 0,
			 &units[ua]);
		snprintf(z, sizeof(z), "%llu%.*s", to, uz ? 1 : 0, &units[uz]);
		seq_printf(m, "[%s, %s)%*s%8llu |", a, z,
			   (int)(16 - strlen(a) - strlen(z)), "", b[k]);
		for (i = 0; i < 52; i++)
			seq_putc(m, i < width ? '@' : ' ');
		seq_puts(m, "|\n");
	}
}

void hist_seq_buckets_header(struct seq_file *m, const char *cols)
{
	unsigned int i;

	seq_puts(m, "# bounds=");
	for (i = 0; i < HIST_BUCKETS; i++)
		seq_printf(m, "%llu,", hist_bucket_lo(i));
	seq_printf(m, "%llu\n", hist_bucket_hi(HIST_BUCKETS - 1));
	seq_printf(m, "# %scount sum min max p50 p90 p99 avg buckets...\n",
		   cols);
}

void hist_seq_buckets(struct seq_file *m, const struct hist *h)
{
	unsigned int i;

	seq_printf(m, " %llu %llu %llu %llu %llu %llu %llu %llu", h->count,
		   h->sum, h->count ? h->min : 0, h->max,
		   hist_percentile(h, 50), hist_percentile(h, 90),
		   hist_percentile(h, 99), hist_avg(h));
	for (i = 0; i < HIST_BUCKETS; i++)
		if (h->buckets[i])
			seq_printf(m, " %llu:%llu:%llu", hist_bucket_lo(i),
				   hist_bucket_hi(i), h->buckets[i]);
	seq_putc(m, '\n');
}
