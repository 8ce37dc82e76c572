/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the filter and the trace know of a packet, read from an skb
 * safely at any probe point (see pktinfo.c).
 */
#ifndef _SKBPROF_PKTINFO_H
#define _SKBPROF_PKTINFO_H

#include <linux/skbuff.h>

#include "config.h"

#define SKBPROF_DEVLEN 16	/* IFNAMSIZ */

/*
 * Fill @pi from @skb: family, protocol, addresses and ports from the
 * headers in the linear data (when the network header is in place), the
 * mark, the device (name copied into @dev, SKBPROF_DEVLEN bytes; "" when
 * none), its network namespace, and the process and its cgroup when
 * called in task context.  Reads nothing outside the skb's buffer and no pointer it
 * cannot validate.
 */
void skbprof_skb_info(const struct sk_buff *skb, struct skbprof_pktinfo *pi,
		      char *dev);

/*
 * The name of skb->dev into @name (SKBPROF_DEVLEN bytes), "" when none;
 * returns the inode of its network namespace, 0 when not known.
 */
u64 skbprof_skb_dev_info(const struct sk_buff *skb, char *name);

/* "UDP 10.0.0.1:53 > 10.0.0.2:4000" or "ipv6/58 [::1] > [::1]" or "-". */
int skbprof_fmt_flow(char *buf, size_t size, const struct skbprof_pktinfo *pi);

/*
 * @comm into @c (TASK_COMM_LEN bytes) for a whitespace-separated field:
 * blanks and unprintable bytes become '_', and an empty one "-".
 */
void skbprof_clean_comm(char *c, const char *comm);

/* Keep this matching packet under `sample N`?  (Per-CPU 1-in-N.) */
bool skbprof_sample_keep(u32 n);

#endif /* _SKBPROF_PKTINFO_H */
