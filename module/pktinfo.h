/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the filter and the trace know of a packet, read from an skb
 * safely at any probe point (see pktinfo.c): the one parser of a
 * packet's flow, and the one printer of it.
 */
#ifndef _SKBPROF_PKTINFO_H
#define _SKBPROF_PKTINFO_H

#include <linux/in6.h>
#include <linux/skbuff.h>

#include "config.h"

#define SKBPROF_DEVLEN 16	/* IFNAMSIZ */

/* Addresses and ports of a packet, network byte order. */
struct skbprof_tuple {
	u8 family;		/* 0: unknown */
	u8 proto;
	__be16 sport, dport;
	union {
		__be32 v4;
		struct in6_addr v6;
	} saddr, daddr;
};

/*
 * The flow of @skb from its IPv4 or IPv6 header (skb->protocol says
 * which) and its TCP or UDP ports: false, leaving @t as it was, when it
 * has no such header where the network header offset says.  Reads the
 * headers wherever they are, the linear data or the pages, and nothing
 * outside the skb's data; ports only from a datagram's first fragment.
 */
bool skbprof_flow_parse(const struct sk_buff *skb, struct skbprof_tuple *t);

/*
 * The same checks, but only the family and protocol into @t (a drop's
 * row keeps no more): true exactly when skbprof_flow_parse() would be.
 */
bool skbprof_flow_proto(const struct sk_buff *skb, struct skbprof_tuple *t);

/* The flow fields of @pi (family, protocol, addresses, ports) from @t. */
void skbprof_flow_pktinfo(const struct skbprof_tuple *t,
			  struct skbprof_pktinfo *pi);

/*
 * Fill @t with the flow of @skb (skbprof_flow_parse(); zeroed when it has
 * none) and @pi with it and the mark, the device (name copied into @dev,
 * SKBPROF_DEVLEN bytes; "" when none), its network namespace, and the
 * process and its cgroup when called in task context.  Reads nothing
 * outside the skb's buffer and no pointer it cannot validate.
 */
void skbprof_skb_info(const struct sk_buff *skb, struct skbprof_pktinfo *pi,
		      char *dev, struct skbprof_tuple *t);

/*
 * The name of skb->dev into @name (SKBPROF_DEVLEN bytes), "" when none;
 * returns the inode of its network namespace, 0 when not known.
 */
u64 skbprof_skb_dev_info(const struct sk_buff *skb, char *name);

/* How skbprof_fmt_flow() writes a flow. */
enum skbprof_flow_style {
	/*
	 * The trace: "UDP 10.0.0.1:53 > 10.0.0.2:4000",
	 * "ICMPv6 fe80::1 > ff02::1", "ip/47 10.0.0.1 > 10.0.0.2" or "-".
	 */
	SKBPROF_FLOW_TRACE,
	/*
	 * A file's row: "udp 10.0.0.1:53 -> 10.0.0.2:4000",
	 * "ip [::1]:0 -> [::1]:0" (always ports) or "-".
	 */
	SKBPROF_FLOW_ROW,
	/*
	 * A machine table's five columns, proto src sport dst dport:
	 * "udp 10.0.0.1 53 10.0.0.2 4000", "ip ::1 0 ::1 0" or "- - - - -".
	 */
	SKBPROF_FLOW_COLUMNS,
	/*
	 * A trace record's keys, protocol named as in the trace:
	 * "proto=UDP src=10.0.0.1 sport=53 dst=10.0.0.2 dport=4000",
	 * "proto=ICMP src=1.2.3.4 sport=- dst=5.6.7.8 dport=-" (no ports),
	 * "proto=- src=- sport=- dst=- dport=-".
	 */
	SKBPROF_FLOW_RECORD,
};

/* Room for any flow skbprof_fmt_flow() writes, with its NUL. */
#define SKBPROF_FLOW_LEN	128

/* Write @t in @style into @buf; returns the length written (scnprintf). */
int skbprof_fmt_flow(char *buf, size_t size, const struct skbprof_tuple *t,
		     enum skbprof_flow_style style);

/*
 * @comm into @c (TASK_COMM_LEN bytes) for a whitespace-separated field:
 * blanks and unprintable bytes become '_', and an empty one "-".
 */
void skbprof_clean_comm(char *c, const char *comm);

/*
 * What the timeline of a packet knew of it when it was dropped
 * (lat_free()): how far it got, the filter's verdict, its sender.
 */
struct skbprof_seen {
	u8 reached;		/* the last stage done, or SKBPROF_REACHED_* */
	s8 matched;		/* the filter's verdict: 1, 0; -1: not yet */
	pid_t pid;		/* 0: not known */
	char comm[TASK_COMM_LEN];
	u64 cgroup;		/* the process's cgroup v2 id, with pid */
};

/*
 * The part that keeps the device look-up's cache (pktinfo.c): it follows
 * the devices from before the first probe to after the last.
 */
struct skbprof_part;
extern const struct skbprof_part skbprof_pktinfo_part;

#endif /* _SKBPROF_PKTINFO_H */
