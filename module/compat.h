/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the supported kernels (Debian's 5.10, 6.1
 * and 6.12), in one place.  Callers use the wrappers below and stay free of
 * version checks.
 *
 * Debian's 6.1 sublevel is above 255, which LINUX_VERSION_CODE cannot
 * represent (KERNEL_VERSION() saturates the sublevel), so checks here only
 * ever compare major.minor, or test for a feature directly.
 */
#ifndef _SKBPROF_COMPAT_H
#define _SKBPROF_COMPAT_H

#include <linux/version.h>

#define SKBPROF_KERNEL_AT_LEAST(maj, min) \
	(LINUX_VERSION_CODE >= KERNEL_VERSION(maj, min, 0))

/* Stage latency (latency.c, probes.c). */
#include <linux/kprobes.h>

/* The kretprobe a kretprobe_instance belongs to. */
#if SKBPROF_KERNEL_AT_LEAST(5, 11)
#define skbprof_kretprobe_of(ri)	get_kretprobe(ri)
#else
#define skbprof_kretprobe_of(ri)	((ri)->rp)
#endif

/*
 * Arguments of probes on skb:kfree_skb and skb:consume_skb: the drop reason
 * came in 5.17, the receiving socket in 6.11, consume_skb's location in 6.3.
 */
#if SKBPROF_KERNEL_AT_LEAST(6, 11)
#define SKBPROF_TP_KFREE_SKB_ARGS \
	void *data, struct sk_buff *skb, void *location, \
	enum skb_drop_reason reason, struct sock *rx_sk
#elif SKBPROF_KERNEL_AT_LEAST(5, 17)
#define SKBPROF_TP_KFREE_SKB_ARGS \
	void *data, struct sk_buff *skb, void *location, \
	enum skb_drop_reason reason
#else
#define SKBPROF_TP_KFREE_SKB_ARGS \
	void *data, struct sk_buff *skb, void *location
#endif
#if SKBPROF_KERNEL_AT_LEAST(6, 3)
#define SKBPROF_TP_CONSUME_SKB_ARGS \
	void *data, struct sk_buff *skb, void *location
#else
#define SKBPROF_TP_CONSUME_SKB_ARGS \
	void *data, struct sk_buff *skb
#endif

#endif /* _SKBPROF_COMPAT_H */
