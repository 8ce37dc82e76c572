/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control-file configuration: its grammar, its parser and printer, and
 * the packet filter it carries.  Pure logic, built both into the module and
 * into host programs (unit tests, fuzzer) with the stand-in headers of
 * tests/unit/shim/: no kernel state is touched here.
 *
 * Grammar, one command per line, every line ending in '\n':
 *
 *   filter TERM...     replace the filter; the terms are ANDed:
 *                        proto tcp|udp|icmp      family ipv4|ipv6
 *                        host A[/LEN]  src A[/LEN]  dst A[/LEN]
 *                        port N  sport N  dport N
 *                        dev IFNAME  mark V[/MASK]  pid N  comm NAME
 *                        netns INODE
 *                        cgroup PATH|ID
 *   filter clear       remove the filter
 *   sample N           keep 1 in N matching packets (N >= 1)
 *   stages all|LIST    measure these stages (LIST: comma-separated names)
 *   lifetime N|off     follow 1 in N skb allocations to their free (N >= 1)
 *   procs totals|stages  procs and cgroups: each direction's total, or
 *                      every stage too
 *   softnet on|off     time softirqs and NAPI polls per CPU (softnet)
 *   kretprobes on|off  follow timelines through head reallocations and
 *                      software GSO with kretprobes (off: they end there)
 *   trace on|off|verbose
 *   reset              zero every counter, histogram and table row
 *   # ...              a comment
 *   last_error: ...    ignored (the line reading control ends with)
 *
 * A term may appear once per filter.  Numbers are decimal or 0x-hex.
 * `cgroup` takes a cgroup v2 directory, as a path from the cgroup2 root
 * of the writer ("/", "/system.slice/x.service"), resolved to its id when
 * the line is parsed (skbprof_cgroup_lookup(), cgroup.h), or as the id
 * itself; it prints as it was given.
 */
#ifndef _SKBPROF_CONFIG_H
#define _SKBPROF_CONFIG_H

#include <linux/types.h>

#define SKBPROF_NAME_LEN	16	/* IFNAMSIZ and TASK_COMM_LEN */
#define SKBPROF_ERR_LEN		160	/* room for the last error message */
#define SKBPROF_MAX_STAGES	32
#define SKBPROF_CGROUP_PATH_LEN	256	/* a cgroup path, NUL included */

/* Which terms a filter has. */
enum {
	SKBPROF_F_PROTO		= 1 << 0,
	SKBPROF_F_FAMILY	= 1 << 1,
	SKBPROF_F_HOST		= 1 << 2,
	SKBPROF_F_SRC		= 1 << 3,
	SKBPROF_F_DST		= 1 << 4,
	SKBPROF_F_PORT		= 1 << 5,
	SKBPROF_F_SPORT		= 1 << 6,
	SKBPROF_F_DPORT		= 1 << 7,
	SKBPROF_F_DEV		= 1 << 8,
	SKBPROF_F_MARK		= 1 << 9,
	SKBPROF_F_PID		= 1 << 10,
	SKBPROF_F_COMM		= 1 << 11,
	SKBPROF_F_NETNS		= 1 << 12,
	SKBPROF_F_CGROUP	= 1 << 13,
};

/* Families and protocols, with the values of AF_* and IPPROTO_*. */
#define SKBPROF_AF_INET		2
#define SKBPROF_AF_INET6	10
#define SKBPROF_PROTO_ICMP	1	/* also matches ICMPv6 (58) */
#define SKBPROF_PROTO_TCP	6
#define SKBPROF_PROTO_UDP	17
#define SKBPROF_PROTO_ICMPV6	58

struct skbprof_prefix {
	u8 family;		/* SKBPROF_AF_INET or SKBPROF_AF_INET6 */
	u8 len;			/* prefix length in bits */
	u8 addr[16];		/* network byte order; IPv4 in the first 4 */
};

struct skbprof_filter {
	u32 terms;		/* SKBPROF_F_* */
	u8 proto;
	u8 family;
	struct skbprof_prefix host, src, dst;
	u16 port, sport, dport;	/* host byte order */
	u32 mark, mark_mask;
	u32 pid;
	u64 netns;
	u64 cgroup;		/* cgroup v2 id */
	char dev[SKBPROF_NAME_LEN];
	char comm[SKBPROF_NAME_LEN];
	/* the path `cgroup` was given as; "": given as the id */
	char cgroup_path[SKBPROF_CGROUP_PATH_LEN];
};

enum skbprof_trace_mode {
	SKBPROF_TRACE_OFF,
	SKBPROF_TRACE_ON,
	SKBPROF_TRACE_VERBOSE,
};

struct skbprof_config {
	struct skbprof_filter filter;
	u32 sample;		/* keep 1 in sample; 1 keeps all */
	u32 stages;		/* bit i: stage names[i] is measured */
	u32 lifetime;		/* follow 1 in lifetime allocations; 0: off */
	bool procs_stages;	/* procs and cgroups rows for every stage */
	bool softnet;		/* the softnet view's probes are armed */
	bool kretprobes;	/* timelines may use kretprobes (probes.c) */
	u8 trace;		/* enum skbprof_trace_mode */
};

/* The stage names `stages` accepts, in bit order. */
struct skbprof_stage_names {
	const char *(*name)(unsigned int i);	/* stage i's name */
	unsigned int count;	/* at most SKBPROF_MAX_STAGES */
};

/* What a parsed write asks for besides the new configuration. */
enum {
	SKBPROF_ACT_RESET = 1 << 0,
};

/* A packet as the filter sees it. */
struct skbprof_pktinfo {
	u8 family;		/* 0: not IP */
	u8 proto;
	u16 sport, dport;	/* host byte order; 0 when no ports */
	u8 saddr[16], daddr[16];
	u32 mark;
	u32 pid;		/* 0: unknown */
	u64 netns;		/* 0: unknown */
	u64 cgroup;		/* cgroup v2 id of the process; 0: unknown */
	const char *dev;	/* NULL: no device */
	const char *comm;	/* NULL: unknown */
};

/* The configuration at load: everything measured, no filter. */
void skbprof_config_default(struct skbprof_config *cfg,
			    const struct skbprof_stage_names *stages);

/*
 * Apply the commands in buf[0..len) to *cfg, all or nothing.  On success
 * returns 0, *cfg holds the new configuration and *actions the actions
 * (SKBPROF_ACT_*) to take.  On failure returns a negative errno (-EINVAL,
 * -E2BIG, or -ENOENT for a cgroup path that names no cgroup), leaves *cfg
 * untouched and writes a message naming the offending token into err.
 */
int skbprof_config_parse(struct skbprof_config *cfg,
			 const struct skbprof_stage_names *stages,
			 const char *buf, size_t len, unsigned int *actions,
			 char *err, size_t errlen);

/*
 * Print cfg in the syntax skbprof_config_parse() accepts, one command per
 * line.  Returns the length it needed (like snprintf).
 */
int skbprof_config_print(const struct skbprof_config *cfg,
			 const struct skbprof_stage_names *stages,
			 char *buf, size_t size);

/* Does the packet match the filter? */
bool skbprof_filter_match(const struct skbprof_filter *f,
			  const struct skbprof_pktinfo *p);

/* Longest write the parser accepts. */
#define SKBPROF_CONFIG_MAX	4096

#endif /* _SKBPROF_CONFIG_H */
