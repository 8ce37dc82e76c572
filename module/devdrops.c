// SPDX-License-Identifier: GPL-2.0
/*
 * Device drops: what network devices count as dropped, per device and
 * network namespace, since the last reset.  Many of these packets never
 * reach kfree_skb (a full ring, a missed frame, a FIFO overrun): the
 * drops view cannot see them, `ip -s link` can.
 *
 * No probe: the file reads every device's counters (dev_get_stats(), as
 * /proc/net/dev does) when it is read, less what they were at the reset.
 * A device that came after the reset counts from zero; one whose counter
 * went down since (unregistered and made again under the same index)
 * counts from zero too.
 *
 * File:
 *   drops_devices  # netns dev rx_dropped rx_missed_errors rx_fifo_errors
 *                    rx_over_errors rx_nohandler tx_dropped
 *                  a row per device with a count since the reset
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bsearch.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <net/net_namespace.h>

#include "devdrops.h"

/* The counters, in the file's order. */
enum {
	DD_RX_DROPPED,
	DD_RX_MISSED,
	DD_RX_FIFO,
	DD_RX_OVER,
	DD_RX_NOHANDLER,
	DD_TX_DROPPED,
	DD_COUNTERS
};

struct dd_dev {
	u64 netns;
	int ifindex;
	char name[IFNAMSIZ];
	u64 v[DD_COUNTERS];
};

/* Sorted by (netns, ifindex); replaced whole by a reset. */
struct dd_set {
	size_t n;
	struct dd_dev dev[];
};

static DEFINE_MUTEX(dd_lock);	/* guards dd_base */
static struct dd_set *dd_base;

static void dd_read(struct net *net, struct net_device *dev, struct dd_dev *d)
{
	struct rtnl_link_stats64 st;

	dev_get_stats(dev, &st);
	d->netns = net->ns.inum;
	d->ifindex = dev->ifindex;
	strscpy(d->name, dev->name, sizeof(d->name));
	d->v[DD_RX_DROPPED] = st.rx_dropped;
	d->v[DD_RX_MISSED] = st.rx_missed_errors;
	d->v[DD_RX_FIFO] = st.rx_fifo_errors;
	d->v[DD_RX_OVER] = st.rx_over_errors;
	d->v[DD_RX_NOHANDLER] = st.rx_nohandler;
	d->v[DD_TX_DROPPED] = st.tx_dropped;
}

static int dd_cmp(const void *a, const void *b)
{
	const struct dd_dev *x = a, *y = b;

	if (x->netns != y->netns)
		return x->netns < y->netns ? -1 : 1;
	return x->ifindex < y->ifindex ? -1 : x->ifindex > y->ifindex;
}

/*
 * Every device of every network namespace now, sorted; NULL: no memory.
 * Sized by a count first, retried larger while devices come faster.
 */
static struct dd_set *dd_take(void)
{
	struct net_device *dev;
	size_t cap = 0, n;
	struct dd_set *set;
	struct net *net;

	rcu_read_lock();
	for_each_net_rcu(net)
		for_each_netdev_rcu(net, dev)
			cap++;
	rcu_read_unlock();
	for (;;) {
		cap += 16;
		set = kvmalloc(struct_size(set, dev, cap), GFP_KERNEL);
		if (!set)
			return NULL;
		n = 0;
		rcu_read_lock();
		for_each_net_rcu(net)
			for_each_netdev_rcu(net, dev)
				if (n < cap)
					dd_read(net, dev, &set->dev[n++]);
				else
					n = cap + 1;
		rcu_read_unlock();
		if (n <= cap)
			break;
		kvfree(set);
		cap *= 2;
	}
	set->n = n;
	sort(set->dev, n, sizeof(set->dev[0]), dd_cmp, NULL);
	return set;
}

static int drops_devices_show(struct seq_file *m, void *v)
{
	struct dd_set *now = dd_take();
	const struct dd_dev *base;
	u64 d[DD_COUNTERS];
	size_t i, k;
	bool any;

	if (!now)
		return -ENOMEM;
	seq_puts(m, "# netns dev rx_dropped rx_missed_errors rx_fifo_errors rx_over_errors rx_nohandler tx_dropped\n");
	mutex_lock(&dd_lock);
	for (i = 0; i < now->n; i++) {
		const struct dd_dev *cur = &now->dev[i];

		base = dd_base ? bsearch(cur, dd_base->dev, dd_base->n,
					 sizeof(*base), dd_cmp) : NULL;
		any = false;
		for (k = 0; k < DD_COUNTERS; k++) {
			d[k] = cur->v[k];
			if (base && base->v[k] <= cur->v[k])
				d[k] -= base->v[k];
			any |= d[k] != 0;
		}
		if (!any)
			continue;
		seq_printf(m, "%llu %s %llu %llu %llu %llu %llu %llu\n",
			   cur->netns, cur->name, d[0], d[1], d[2], d[3], d[4],
			   d[5]);
	}
	mutex_unlock(&dd_lock);
	kvfree(now);
	return 0;
}

SKBPROF_DEFINE_SHOW_FILE(drops_devices);

/* A reset that finds no memory keeps the old base: counts from before. */
static void devdrops_reset(void)
{
	struct dd_set *set = dd_take(), *old;

	if (!set) {
		pr_warn("no memory for the device counters at reset: drops_devices counts from the reset before\n");
		return;
	}
	mutex_lock(&dd_lock);
	old = dd_base;
	dd_base = set;
	mutex_unlock(&dd_lock);
	kvfree(old);
}

static int devdrops_init(void)
{
	dd_base = dd_take();
	return dd_base ? 0 : -ENOMEM;
}

static void devdrops_exit(void)
{
	kvfree(dd_base);
	dd_base = NULL;
}

static const struct skbprof_file devdrops_files[] = {
	{ "drops_devices", 0400, &drops_devices_fops },
};

const struct skbprof_part skbprof_devdrops_part = {
	.name	= "devdrops",
	.init	= devdrops_init,
	.exit	= devdrops_exit,
	.reset	= devdrops_reset,
	.files	= devdrops_files,
	.nfiles	= ARRAY_SIZE(devdrops_files),
};
