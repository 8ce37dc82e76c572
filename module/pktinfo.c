// SPDX-License-Identifier: GPL-2.0
/*
 * Packet facts for the filter and the trace, read from an skb at any probe
 * point: headers in place or not, skb->dev a device or not.
 */
#include <linux/ctype.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/skbuff.h>
#include <linux/uaccess.h>
#include <net/ip.h>
#include <net/net_namespace.h>

#include "compat.h"
#include "drops_table.h"
#include "pktinfo.h"

/*
 * skb->dev is not always a device: it shares its storage with dev_scratch,
 * which UDP fills when it queues a datagram to a socket, and with the
 * rb_node of skbs kept in red-black trees (TCP's out-of-order queue, IP
 * defragmentation, netem), where it points into another skb.  So the
 * device is read with fault-safe accesses and believed only if it looks
 * live: a positive ifindex and a well-formed name.  Returns it or NULL.
 */
static const struct net_device *skb_real_dev(const struct sk_buff *skb,
					     char *name)
{
	const struct net_device *dev = READ_ONCE(skb->dev);
	int ifindex;

	BUILD_BUG_ON(sizeof(dev->name) != SKBPROF_DEVLEN);
	BUILD_BUG_ON(SKBPROF_DEVLEN != DT_DEVLEN);
	if (!dev ||
	    copy_from_kernel_nofault(&ifindex, &dev->ifindex, sizeof(ifindex)) ||
	    ifindex <= 0 ||
	    copy_from_kernel_nofault(name, dev->name, SKBPROF_DEVLEN) ||
	    !dt_dev_name_ok(name)) {
		memset(name, 0, SKBPROF_DEVLEN);
		return NULL;
	}
	/* a rename leaves the old name's bytes after the NUL: clear them */
	dt_dev_name_pad(name);
	return dev;
}

static u64 dev_netns(const struct net_device *dev)
{
	struct net *net;
	unsigned int inum;

	if (copy_from_kernel_nofault(&net, &dev->nd_net, sizeof(net)) || !net ||
	    copy_from_kernel_nofault(&inum, &net->ns.inum, sizeof(inum)))
		return 0;
	return inum;
}

u64 skbprof_skb_dev_info(const struct sk_buff *skb, char *name)
{
	const struct net_device *dev = skb_real_dev(skb, name);

	return dev ? dev_netns(dev) : 0;
}

void skbprof_skb_info(const struct sk_buff *skb, struct skbprof_pktinfo *pi,
		      char *dev)
{
	const unsigned char *nh = skb_network_header(skb);
	const unsigned char *tail = skb_tail_pointer(skb);
	const unsigned char *th = NULL;
	const struct net_device *nd;

	memset(pi, 0, sizeof(*pi));
	pi->mark = skb->mark;
	nd = skb_real_dev(skb, dev);
	if (nd) {
		pi->dev = dev;
		pi->netns = dev_netns(nd);
	}
	if (in_task()) {
		pi->pid = task_tgid_nr(current);
		pi->comm = current->comm;
		rcu_read_lock();
		pi->cgroup = skbprof_task_cgroup_id(current);
		rcu_read_unlock();
	}

	/*
	 * The network header offset means something only once the stack set
	 * it: the version check and the bounds of the linear data keep an
	 * unset one from being read as a header, or beyond the buffer.
	 */
	switch (skb->protocol) {
	case htons(ETH_P_IP): {
		const struct iphdr *ip = (const struct iphdr *)nh;

		if (nh + sizeof(*ip) > tail || ip->version != 4 || ip->ihl < 5)
			break;
		pi->family = SKBPROF_AF_INET;
		pi->proto = ip->protocol;
		memcpy(pi->saddr, &ip->saddr, 4);
		memcpy(pi->daddr, &ip->daddr, 4);
		if (!(ip->frag_off & htons(IP_OFFSET)))
			th = nh + ip->ihl * 4;
		break;
	}
	case htons(ETH_P_IPV6): {
		const struct ipv6hdr *ip6 = (const struct ipv6hdr *)nh;

		if (nh + sizeof(*ip6) > tail || ip6->version != 6)
			break;
		pi->family = SKBPROF_AF_INET6;
		pi->proto = ip6->nexthdr;
		memcpy(pi->saddr, &ip6->saddr, 16);
		memcpy(pi->daddr, &ip6->daddr, 16);
		th = nh + sizeof(*ip6);
		break;
	}
	}
	if (th && (pi->proto == IPPROTO_TCP || pi->proto == IPPROTO_UDP) &&
	    th + 4 <= tail) {
		pi->sport = th[0] << 8 | th[1];
		pi->dport = th[2] << 8 | th[3];
	}
}

int skbprof_fmt_flow(char *buf, size_t size, const struct skbprof_pktinfo *pi)
{
	const char *proto;
	char p[8];

	switch (pi->proto) {
	case IPPROTO_TCP:
		proto = "TCP";
		break;
	case IPPROTO_UDP:
		proto = "UDP";
		break;
	case IPPROTO_ICMP:
		proto = "ICMP";
		break;
	case IPPROTO_ICMPV6:
		proto = "ICMPv6";
		break;
	default:
		snprintf(p, sizeof(p), "ip/%u", pi->proto);
		proto = p;
	}
	if (pi->family == SKBPROF_AF_INET && (pi->sport || pi->dport))
		return scnprintf(buf, size, "%s %pI4:%u > %pI4:%u", proto,
				 pi->saddr, pi->sport, pi->daddr, pi->dport);
	if (pi->family == SKBPROF_AF_INET)
		return scnprintf(buf, size, "%s %pI4 > %pI4", proto, pi->saddr,
				 pi->daddr);
	if (pi->family == SKBPROF_AF_INET6 && (pi->sport || pi->dport))
		return scnprintf(buf, size, "%s [%pI6c]:%u > [%pI6c]:%u", proto,
				 pi->saddr, pi->sport, pi->daddr, pi->dport);
	if (pi->family == SKBPROF_AF_INET6)
		return scnprintf(buf, size, "%s %pI6c > %pI6c", proto, pi->saddr,
				 pi->daddr);
	return scnprintf(buf, size, "-");
}

void skbprof_clean_comm(char *c, const char *comm)
{
	unsigned int i;

	strscpy(c, comm, TASK_COMM_LEN);
	for (i = 0; c[i]; i++)
		if (c[i] == ' ' || c[i] == '\t' || !isprint(c[i]))
			c[i] = '_';
	if (!c[0])
		strscpy(c, "-", TASK_COMM_LEN);
}

static DEFINE_PER_CPU(u32, sample_count);

bool skbprof_sample_keep(u32 n)
{
	if (n <= 1)
		return true;
	/* 1 in n of the matching packets seen by this CPU */
	return this_cpu_inc_return(sample_count) % n == 0;
}
