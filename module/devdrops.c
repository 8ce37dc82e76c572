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
 * counts from zero too.  A read holds each namespace and takes its
 * devices DD_CHUNK at a time, each lot in an RCU read-side section of
 * its own, with a resched point between: its cost per section is
 * bounded, however many devices and CPUs the host has.
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
	size_t cap;		/* room for cap devices */
	struct dd_dev dev[];
};

static DEFINE_MUTEX(dd_lock);	/* guards dd_base */
static struct dd_set *dd_base;

/*
 * The most devices dd_take() reads in one RCU read-side section: each
 * dev_get_stats() sums per-CPU counters over every possible CPU, so one
 * section for every device of every namespace, with no resched point,
 * held the CPU (and RCU's grace periods) for tens of milliseconds with
 * 10,000 veths and 256 CPUs.
 */
#define DD_CHUNK	64

/*
 * Tests: devdrops_chunk, a smaller chunk, so that a few devices cross
 * its boundaries; devdrops_batch_max, the most devices any read of
 * this load took in one section.
 */
#ifdef SKBPROF_TESTING
static unsigned int dd_chunk = DD_CHUNK;
SKBPROF_TEST_PARAM(devdrops_chunk, dd_chunk, uint, 0644,
		   "devices read per RCU read-side section");
static unsigned int dd_batch_max;
SKBPROF_TEST_PARAM(devdrops_batch_max, dd_batch_max, uint, 0644,
		   "the most devices read in one RCU read-side section");

static void dd_batch_done(unsigned int n)
{
	if (n > READ_ONCE(dd_batch_max))
		WRITE_ONCE(dd_batch_max, n);
}
#else
#define dd_chunk	DD_CHUNK
static inline void dd_batch_done(unsigned int n)
{
}
#endif

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

static void dd_put_nets(struct net **nets, size_t n)
{
	while (n)
		put_net(nets[--n]);
	kvfree(nets);
}

/*
 * Every network namespace now, each held (a dying one is left out: its
 * devices are going), into *@np of them; NULL: no memory.  Sized by a
 * count first, retried larger while namespaces come faster.
 */
static struct net **dd_nets(size_t *np)
{
	struct net **nets, *net;
	size_t cap = 0, n;
	bool more;

	rcu_read_lock();
	for_each_net_rcu(net)
		cap++;
	rcu_read_unlock();
	for (;;) {
		cap += 16;
		nets = kvmalloc_array(cap, sizeof(*nets), GFP_KERNEL);
		if (!nets)
			return NULL;
		n = 0;
		more = false;
		rcu_read_lock();
		for_each_net_rcu(net) {
			if (n == cap) {
				more = true;
				break;
			}
			if (maybe_get_net(net))
				nets[n++] = net;
		}
		rcu_read_unlock();
		if (!more)
			break;
		dd_put_nets(nets, n);
		cap *= 2;
	}
	*np = n;
	return nets;
}

/*
 * The ifindex of every device of @net now, into *@idx (room for *@cap,
 * grown as needed), *@np of them; -ENOMEM.  One RCU read-side section,
 * but it reads no counters: a list walk.
 */
static int dd_indexes(struct net *net, int **idx, size_t *cap, size_t *np)
{
	struct net_device *dev;
	size_t n;

	for (;;) {
		n = 0;
		rcu_read_lock();
		for_each_netdev_rcu(net, dev) {
			if (n < *cap)
				(*idx)[n] = dev->ifindex;
			n++;
		}
		rcu_read_unlock();
		if (n <= *cap)
			break;
		kvfree(*idx);
		*cap = n + 16;
		*idx = kvmalloc_array(*cap, sizeof(**idx), GFP_KERNEL);
		if (!*idx) {
			*cap = 0;
			return -ENOMEM;
		}
	}
	*np = n;
	return 0;
}

/* Room in *@setp for @need devices: 0, or -ENOMEM (*@setp unchanged). */
static int dd_room(struct dd_set **setp, size_t need)
{
	struct dd_set *set = *setp, *bigger;
	size_t cap;

	if (set && need <= set->cap)
		return 0;
	cap = max(need, set ? 2 * set->cap : (size_t)DD_CHUNK);
	bigger = kvmalloc(struct_size(bigger, dev, cap), GFP_KERNEL);
	if (!bigger)
		return -ENOMEM;
	bigger->n = 0;
	if (set) {
		bigger->n = set->n;
		memcpy(bigger->dev, set->dev, set->n * sizeof(set->dev[0]));
		kvfree(set);
	}
	bigger->cap = cap;
	*setp = bigger;
	return 0;
}

/*
 * Read @n devices of @net, by ifindex (@idx), into @set (room made):
 * dd_chunk of them per RCU read-side section, with a resched point
 * between sections.  A device gone since dd_indexes() is left out, as
 * if it had gone before the read.
 */
static void dd_read_net(struct dd_set *set, struct net *net, const int *idx,
			size_t n)
{
	struct net_device *dev;
	size_t k = 0, end;

	while (k < n) {
		end = min(n, k + max_t(size_t, dd_chunk, 1));
		rcu_read_lock();
		dd_batch_done(end - k);
		for (; k < end; k++) {
			dev = dev_get_by_index_rcu(net, idx[k]);
			if (dev)
				dd_read(net, dev, &set->dev[set->n++]);
		}
		rcu_read_unlock();
		cond_resched();
	}
}

/*
 * Every device of every network namespace now, sorted; NULL: no memory.
 * Namespace by namespace, a bounded number of devices per RCU read-side
 * section (DD_CHUNK), so a read costs no one a long non-preemptible
 * stretch, however many devices and CPUs.  A device is in it if it was
 * there when its namespace's turn came and still is when its counters
 * are read; one that came later, or went before, is not.
 */
static struct dd_set *dd_take(void)
{
	size_t nnets, i, n, icap = 0;
	struct dd_set *set = NULL;
	struct net **nets;
	int *idx = NULL;

	nets = dd_nets(&nnets);
	if (!nets)
		return NULL;
	if (dd_room(&set, 0))
		goto fail;
	for (i = 0; i < nnets; i++) {
		if (dd_indexes(nets[i], &idx, &icap, &n) ||
		    dd_room(&set, set->n + n))
			goto fail;
		dd_read_net(set, nets[i], idx, n);
	}
	sort(set->dev, set->n, sizeof(set->dev[0]), dd_cmp, NULL);
	goto out;
fail:
	kvfree(set);
	set = NULL;
out:
	kvfree(idx);
	dd_put_nets(nets, nnets);
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
