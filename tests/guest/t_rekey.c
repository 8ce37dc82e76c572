// SPDX-License-Identifier: GPL-2.0
/*
 * A head reallocated on the transmit path, with kretprobes off (the
 * default) and on.  An MPLS push on the egress of a veth (clsact,
 * matchall, act_mpls) needs 4 bytes in front of the Ethernet header,
 * where a UDP datagram has 2 (LL_RESERVED_SPACE, 16, less the 14 of the
 * header): skb_mpls_push() calls pskb_expand_head() for every datagram,
 * after ip-dev's start and before the driver.
 *
 * The ground truth is the datagrams sent, all of them: off, each
 * timeline ends at pskb_expand_head(), counted as rekeyed, and no
 * dev-drv or tx-total is measured; on, the kretprobe moves each to its
 * new head, and each reaches the driver.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"

#define IPROUTE		"/usr/sbin/ip"
#define TC		"/usr/sbin/tc"
#define RK_DEV		"skrk0"
#define RK_PEER		"skrk1"
#define RK_SRC		"10.203.0.1"
#define RK_DST		"10.203.0.2"
#define RK_PORT		7777
#define DATAGRAMS	100

/* RK_DEV RK_SRC --- RK_PEER, in the initial namespace */
static const struct veth rk_pair = {
	.a = { .dev = RK_DEV, .ip4 = RK_SRC "/24" },
	.b = { .dev = RK_PEER },
	.flags = VETH_UP,
};

static int rk_setup(void)
{
	CHECK(kmod_probe("veth") == 0 && kmod_probe("sch_ingress") == 0 &&
	      kmod_probe("cls_matchall") == 0 &&
	      kmod_probe("act_mpls") == 0, "cannot load sch_ingress, cls_matchall, act_mpls");
	if (veth_pair(&rk_pair))
		return -1;
	CHECK(sh(IPROUTE " neigh replace " RK_DST " lladdr 02:00:00:5b:00:02 dev "
		 RK_DEV " nud permanent && "
		 TC " qdisc add dev " RK_DEV " clsact && "
		 TC " filter add dev " RK_DEV " egress matchall "
		 "action mpls push label 16") == 0,
	      "cannot set up " RK_DEV " with an MPLS push");
	return 0;
}

static void rk_teardown(void)
{
	veth_pair_del(&rk_pair);
}

/* The module's counts once every datagram's timeline has ended. */
struct rk_counts {
	long long udpip, ipdev, drv, total, rekeyed, hits;
};

static long long rekey_hits(void)
{
	struct table t;
	long long n;

	if (table_read(&t, "probes"))
		return -1;
	n = table_num(&t, table_find(&t, 0, "group", "rekey",
				     "symbol", "pskb_expand_head",
				     "mechanism", "kretprobe",
				     "state", "active", NULL), "hits");
	table_free(&t);
	return n;
}

static bool rk_settled(void *arg)
{
	struct rk_counts *c = arg;
	char *lat = read_file(DEBUGFS_DIR "/latency_buckets");

	c->udpip = row_count(lat, "tx", "udp-ip");
	c->ipdev = row_count(lat, "tx", "ip-dev");
	c->drv = row_count(lat, "tx", "dev-drv");
	c->total = row_count(lat, "tx", "tx-total");
	free(lat);
	c->rekeyed = stat_value("incomplete_tx_rekeyed");
	return c->udpip == DATAGRAMS &&
	       (c->rekeyed == DATAGRAMS || c->total == DATAGRAMS);
}

/* Send the datagrams with skbprof loaded with @params; their counts. */
static int rk_send(const char *params, struct rk_counts *c)
{
	struct sockaddr_in dst = { .sin_family = AF_INET,
				   .sin_port = htons(RK_PORT) };
	char buf[64] = "rekey";
	int s, i, err;

	err = skbprof_load(params);
	CHECK(err == 0, "load '%s': %s", params, strerror(-err));
	CHECK(write_file(DEBUGFS_DIR "/control", "filter proto udp dport 7777\nreset\n") == 0,
	      "filter");
	inet_pton(AF_INET, RK_DST, &dst.sin_addr);
	s = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(s >= 0, "socket: %s", strerror(errno));
	for (i = 0; i < DATAGRAMS; i++)
		if (sendto(s, buf, sizeof(buf), 0, (void *)&dst, sizeof(dst)) !=
		    sizeof(buf)) {
			close(s);
			return fail("sendto: %s", strerror(errno));
		}
	close(s);
	wait_until(rk_settled, c, WAIT_MS);
	c->hits = rekey_hits();
	note("loaded with '%s': %d sent; udp-ip %lld ip-dev %lld dev-drv %lld tx-total %lld; incomplete_tx_rekeyed %lld; rekey kretprobe hits %lld",
	     params, DATAGRAMS, c->udpip, c->ipdev, c->drv, c->total, c->rekeyed,
	     c->hits);
	CHECK(skbprof_unload() == 0, "unload");
	return 0;
}

TEST(rekey_default_ends_kretprobes_follow)
{
	struct rk_counts off, on;
	int err;

	err = rk_setup();
	if (!err)
		err = rk_send("", &off);
	if (!err)
		err = rk_send("kretprobes=on", &on);
	rk_teardown();
	if (err)
		return err;
	/* off: each timeline ends at the call, counted, none reaches drv */
	CHECK_EQ(off.udpip, DATAGRAMS);
	CHECK_EQ(off.rekeyed, DATAGRAMS);
	CHECK_EQ(off.drv, 0);
	CHECK_EQ(off.total, 0);
	CHECK_EQ(off.hits, -1);		/* no rekey kretprobe armed */
	/* on: each moves to its new head and reaches the driver */
	CHECK_EQ(on.udpip, DATAGRAMS);
	CHECK_EQ(on.rekeyed, 0);
	CHECK_EQ(on.drv, DATAGRAMS);
	CHECK_EQ(on.total, DATAGRAMS);
	CHECK(on.hits >= DATAGRAMS, "the rekey kretprobe returned %lld times for %d datagrams",
	      on.hits, DATAGRAMS);
	return 0;
}
