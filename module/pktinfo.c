// SPDX-License-Identifier: GPL-2.0
/*
 * Packet facts for the filter and the trace, read from an skb at any probe
 * point: headers in place or not, skb->dev a device or not.
 */
#include <linux/atomic.h>
#include <linux/ctype.h>
#include <linux/hash.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/notifier.h>
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
#include "skbprof.h"

/*
 * skb->dev is not always a device: it shares its storage with dev_scratch,
 * which UDP fills when it queues a datagram to a socket, and with the
 * rb_node of skbs kept in red-black trees (TCP's out-of-order queue, IP
 * defragmentation, netem), where it points into another skb.  So the
 * device is read with fault-safe accesses and believed only if it looks
 * live: a positive ifindex and a well-formed name.  Returns it or NULL.
 */
static const struct net_device *skb_real_dev(const struct net_device *dev,
					     char *name)
{
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

/*
 * The fault-safe reads above cost more than the rest of a drop's record,
 * so each CPU keeps the last devices they accepted, by address: name and
 * namespace as read then.  An entry holds while dev_cache_gen stays what
 * it was before its reads; the netdevice notifier bumps it whenever a
 * device comes, goes (a move to another namespace too: unregistered from
 * the old one first), or is renamed.  So an address in the cache is that
 * of a device registered all along since its reads, with the name and
 * namespace it had; no other value of skb->dev (a UDP queue's scratch, an
 * rb_node's pointer into a live skb) can be the address of a live device.
 * A device that went is only freed after an RCU grace period, and each
 * reader is in an RCU read-side section (the probes run with preemption
 * off): the reads of a fill that raced with its unregistering are of live
 * memory, and the entry they make is already stale.
 */
#define DEV_CACHE_BITS	2

struct dev_cache_ent {
	const struct net_device *dev;	/* NULL: empty */
	unsigned long gen;
	u64 netns;
	char name[SKBPROF_DEVLEN];
};

static DEFINE_PER_CPU(struct dev_cache_ent[1 << DEV_CACHE_BITS], dev_cache);
static atomic_long_t dev_cache_gen = ATOMIC_LONG_INIT(1);

/*
 * Is skb->dev a device?  Then its name into @name (zero-padded) and the
 * inode of its network namespace into *@netns (0: not known); else @name
 * all zeros and *@netns untouched.
 */
static bool skb_dev_lookup(const struct sk_buff *skb, char *name, u64 *netns)
{
	const struct net_device *dev = READ_ONCE(skb->dev);
	struct dev_cache_ent *e;
	unsigned long flags, gen;
	bool found = false;

	if (!dev) {
		memset(name, 0, SKBPROF_DEVLEN);
		return false;
	}
	/* an interrupt's drop may look up, or fill, the same entry */
	local_irq_save(flags);
	e = this_cpu_ptr(&dev_cache[hash_ptr((void *)dev, DEV_CACHE_BITS)]);
	gen = atomic_long_read(&dev_cache_gen);
	if (e->dev == dev && e->gen == gen) {
		memcpy(name, e->name, SKBPROF_DEVLEN);
		*netns = e->netns;
		found = true;
		goto out;
	}
	/*
	 * The generation is read before the device: pairs with the full
	 * barrier between a change and its bump in dev_cache_event().
	 */
	smp_rmb();
	if (skb_real_dev(dev, name)) {
		e->dev = dev;
		e->gen = gen;
		e->netns = dev_netns(dev);
		memcpy(e->name, name, SKBPROF_DEVLEN);
		*netns = e->netns;
		found = true;
	}
out:
	local_irq_restore(flags);
	return found;
}

static int dev_cache_event(struct notifier_block *nb, unsigned long event,
			   void *ptr)
{
	switch (event) {
	case NETDEV_REGISTER:
	case NETDEV_UNREGISTER:
	case NETDEV_CHANGENAME:
		/*
		 * After the change: a fill that read the old state is stale.
		 * Orders the change before the bump, for skb_dev_lookup()'s
		 * smp_rmb().
		 */
		smp_mb__before_atomic();
		atomic_long_inc(&dev_cache_gen);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block dev_cache_nb = {
	.notifier_call = dev_cache_event,
};

u64 skbprof_skb_dev_info(const struct sk_buff *skb, char *name)
{
	u64 netns = 0;

	skb_dev_lookup(skb, name, &netns);
	return netns;
}

/* @whole: addresses and ports too, else the family and protocol alone */
static __always_inline bool flow_parse(const struct sk_buff *skb,
				       struct skbprof_tuple *t, bool whole)
{
	/* behind skb->data once the stack pulled the header: still there */
	int off = skb_network_offset(skb);
	union {
		struct iphdr v4;
		struct ipv6hdr v6;
		__be16 ports[2];
	} buf;
	const __be16 *ports;
	bool l4 = false;

	/*
	 * The network header offset means something only once the stack set
	 * it: skb->protocol, the version and the bounds of the skb's data
	 * keep an unset one from being read as a header, or beyond the data.
	 */
	switch (skb->protocol) {
	case htons(ETH_P_IP): {
		const struct iphdr *ip = skb_header_pointer(skb, off,
							    sizeof(*ip), &buf);

		if (!ip || ip->version != 4 || ip->ihl < 5)
			return false;
		t->family = AF_INET;
		t->proto = ip->protocol;
		if (!whole)
			return true;
		t->saddr.v4 = ip->saddr;
		t->daddr.v4 = ip->daddr;
		/* a first fragment has the ports, the others not */
		l4 = !(ip->frag_off & htons(IP_OFFSET));
		off += ip->ihl * 4;
		break;
	}
	case htons(ETH_P_IPV6): {
		const struct ipv6hdr *ip6 = skb_header_pointer(skb, off,
							       sizeof(*ip6), &buf);

		if (!ip6 || ip6->version != 6)
			return false;
		t->family = AF_INET6;
		t->proto = ip6->nexthdr;
		if (!whole)
			return true;
		t->saddr.v6 = ip6->saddr;
		t->daddr.v6 = ip6->daddr;
		l4 = true;
		off += sizeof(*ip6);
		break;
	}
	default:
		return false;
	}
	t->sport = 0;
	t->dport = 0;
	if (!l4 || (t->proto != IPPROTO_TCP && t->proto != IPPROTO_UDP))
		return true;
	ports = skb_header_pointer(skb, off, sizeof(buf.ports), &buf);
	if (ports) {
		t->sport = ports[0];
		t->dport = ports[1];
	}
	return true;
}

bool skbprof_flow_parse(const struct sk_buff *skb, struct skbprof_tuple *t)
{
	return flow_parse(skb, t, true);
}

bool skbprof_flow_proto(const struct sk_buff *skb, struct skbprof_tuple *t)
{
	return flow_parse(skb, t, false);
}

void skbprof_flow_pktinfo(const struct skbprof_tuple *t,
			  struct skbprof_pktinfo *pi)
{
	BUILD_BUG_ON(SKBPROF_AF_INET != AF_INET);
	BUILD_BUG_ON(SKBPROF_AF_INET6 != AF_INET6);
	pi->family = t->family;
	if (t->family == AF_INET) {
		memcpy(pi->saddr, &t->saddr.v4, 4);
		memcpy(pi->daddr, &t->daddr.v4, 4);
	} else if (t->family == AF_INET6) {
		memcpy(pi->saddr, &t->saddr.v6, 16);
		memcpy(pi->daddr, &t->daddr.v6, 16);
	}
	pi->proto = t->proto;
	pi->sport = ntohs(t->sport);
	pi->dport = ntohs(t->dport);
}

void skbprof_skb_info(const struct sk_buff *skb, struct skbprof_pktinfo *pi,
		      char *dev, struct skbprof_tuple *t)
{
	memset(pi, 0, sizeof(*pi));
	memset(t, 0, sizeof(*t));
	if (skbprof_flow_parse(skb, t))
		skbprof_flow_pktinfo(t, pi);
	pi->mark = skb->mark;
	if (skb_dev_lookup(skb, dev, &pi->netns))
		pi->dev = dev;
	if (in_task()) {
		pi->pid = task_tgid_nr(current);
		pi->comm = current->comm;
		rcu_read_lock();
		pi->cgroup = skbprof_task_cgroup_id(current);
		rcu_read_unlock();
	}
}

static const char *flow_proto(char *p, size_t size, u8 proto,
			      enum skbprof_flow_style style)
{
	switch (proto) {
	case IPPROTO_TCP:
		return (style == SKBPROF_FLOW_ROW || style == SKBPROF_FLOW_COLUMNS) ? "tcp" : "TCP";
	case IPPROTO_UDP:
		return (style == SKBPROF_FLOW_ROW || style == SKBPROF_FLOW_COLUMNS) ? "udp" : "UDP";
	}
	if ((style == SKBPROF_FLOW_ROW || style == SKBPROF_FLOW_COLUMNS))
		return "ip";
	if (proto == IPPROTO_ICMP)
		return "ICMP";
	if (proto == IPPROTO_ICMPV6)
		return "ICMPv6";
	snprintf(p, size, "ip/%u", proto);
	return p;
}

/* "proto=P src=S sport=N dst=D dport=N" ("-" for ports it has none of) */
static int flow_record(char *buf, size_t size, const struct skbprof_tuple *t,
		       const char *proto, bool ports)
{
	char sp[8] = "-", dp[8] = "-";

	if (ports) {
		snprintf(sp, sizeof(sp), "%u", ntohs(t->sport));
		snprintf(dp, sizeof(dp), "%u", ntohs(t->dport));
	}
	if (t->family == AF_INET)
		return scnprintf(buf, size, "proto=%s src=%pI4 sport=%s dst=%pI4 dport=%s",
				 proto, &t->saddr.v4, sp, &t->daddr.v4, dp);
	return scnprintf(buf, size, "proto=%s src=%pI6c sport=%s dst=%pI6c dport=%s",
			 proto, &t->saddr.v6, sp, &t->daddr.v6, dp);
}

int skbprof_fmt_flow(char *buf, size_t size, const struct skbprof_tuple *t,
		     enum skbprof_flow_style style)
{
	/* a row has ports always, the trace only when there are */
	bool ports = style == SKBPROF_FLOW_ROW || t->sport || t->dport;
	const char *to = style == SKBPROF_FLOW_ROW ? "->" : ">";
	const char *proto;
	char p[8];

	if (t->family != AF_INET && t->family != AF_INET6)
		return scnprintf(buf, size, style == SKBPROF_FLOW_COLUMNS ?
				 "- - - - -" : style == SKBPROF_FLOW_RECORD ?
				 "proto=- src=- sport=- dst=- dport=-" : "-");
	proto = flow_proto(p, sizeof(p), t->proto, style);
	if (style == SKBPROF_FLOW_RECORD)
		return flow_record(buf, size, t, proto, ports);
	if (style == SKBPROF_FLOW_COLUMNS && t->family == AF_INET)
		return scnprintf(buf, size, "%s %pI4 %u %pI4 %u", proto,
				 &t->saddr.v4, ntohs(t->sport), &t->daddr.v4,
				 ntohs(t->dport));
	if (style == SKBPROF_FLOW_COLUMNS)
		return scnprintf(buf, size, "%s %pI6c %u %pI6c %u", proto,
				 &t->saddr.v6, ntohs(t->sport), &t->daddr.v6,
				 ntohs(t->dport));
	if (t->family == AF_INET && ports)
		return scnprintf(buf, size, "%s %pI4:%u %s %pI4:%u", proto,
				 &t->saddr.v4, ntohs(t->sport), to,
				 &t->daddr.v4, ntohs(t->dport));
	if (t->family == AF_INET)
		return scnprintf(buf, size, "%s %pI4 %s %pI4", proto,
				 &t->saddr.v4, to, &t->daddr.v4);
	if (ports)
		return scnprintf(buf, size, "%s [%pI6c]:%u %s [%pI6c]:%u",
				 proto, &t->saddr.v6, ntohs(t->sport), to,
				 &t->daddr.v6, ntohs(t->dport));
	return scnprintf(buf, size, "%s %pI6c %s %pI6c", proto, &t->saddr.v6,
			 to, &t->daddr.v6);
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

/* Before any probe: the device cache follows every device from the start. */
static int pktinfo_init(void)
{
	return register_netdevice_notifier(&dev_cache_nb);
}

static void pktinfo_exit(void)
{
	unregister_netdevice_notifier(&dev_cache_nb);
}

const struct skbprof_part skbprof_pktinfo_part = {
	.name	= "pktinfo",
	.init	= pktinfo_init,
	.exit	= pktinfo_exit,
};
