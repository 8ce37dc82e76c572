// SPDX-License-Identifier: GPL-2.0
/*
 * Software GSO on a real driver path: the guest's two virtio-net NICs on
 * one QEMU hub (harness.h, vnet_setup()), which offer no offloads, so
 * every large skb TCP builds is cut into segments in validate_xmit_skb()
 * before the driver gets them.
 *
 *   initial netns                        VNET_NS (GRO off)
 *   sender  VNET_IP4_A (NIC a) --hub-- (NIC b) VNET_IP4_B  receiver
 *
 * The ground truth is what the receiving side counts: the flow's
 * segments with data that arrived (an nft counter at prerouting in
 * VNET_NS, GRO off on NIC b so that each is one skb), less the sender's
 * retransmissions (Tcp RetransSegs, in segments): the segments of the
 * flow's data that reached a's driver once.
 *
 * That equals `tx dev-drv` only where every byte of data had a timeline:
 * TCP splits an skb the congestion window or the pacing cannot send whole
 * (tso_fragment()), and the piece split off is a new skb without one
 * (Documentation/skbprof.rst, Caveats).  So the exact test sends writes
 * of two segments, each acknowledged before the next: an skb that size
 * is never split (the window and the pacing allow two segments at the
 * least), and each is one GSO skb cut into two.  The bulk test checks
 * what survives the splits: the skbs that reach the device reach the
 * driver, as segments.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define GSO_PORT	5201
#define GSO_NFT		"ip skbp_gso in"
#define GRO_NFT		"ip skbp_gso skbs"
#define IPROUTE		"/usr/sbin/ip"
#define TC		"/usr/sbin/tc"
#define WRITES		200		/* of two segments each */
#define BULK_BYTES	(4 << 20)

/*
 * The receiver, in VNET_NS: GRO @gro on @dev, accept one connection, say
 * so, read until the sender closes.  Exit status: 0 or a step number.
 */
static int gso_receiver(int ready, const char *dev, unsigned int gro)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(GSO_PORT) };
	static char buf[65536];
	int s, c, one = 1;
	ssize_t n;

	if (enter_ns(VNET_NS) || ethtool_set(dev, ETHTOOL_SGRO, gro))
		return 1;
	inet_pton(AF_INET, VNET_IP4_B, &sin.sin_addr);
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		return 2;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (void *)&sin, sizeof(sin)) || listen(s, 1))
		return 3;
	if (write(ready, "l", 1) != 1)		/* listening */
		return 4;
	c = accept(s, NULL, NULL);
	if (c < 0 || write(ready, "a", 1) != 1)	/* accepted */
		return 5;
	while ((n = read(c, buf, sizeof(buf))) > 0)
		;
	close(c);
	close(s);
	return n ? 6 : 0;
}

/* Has the socket had every byte acknowledged? */
static bool all_acked(void *arg)
{
	int outq = -1;

	return !ioctl(*(int *)arg, SIOCOUTQ, &outq) && outq == 0;
}

/* Write @n bytes in writes of @chunk; wait for each ack when @one_by_one. */
static int send_data(int s, long long n, size_t chunk, bool one_by_one)
{
	static char buf[65536];
	long long sent = 0;

	memset(buf, 'g', sizeof(buf));
	while (sent < n) {
		ssize_t w = write(s, buf, chunk);

		CHECK(w > 0, "write: %s", strerror(errno));
		sent += w;
		CHECK(!one_by_one || wait_until(all_acked, &s, WAIT_MS),
		      "a write unacknowledged after %d ms", WAIT_MS);
	}
	/* every byte acknowledged: no data segment is left to send */
	CHECK(wait_until(all_acked, &s, WAIT_MS),
	      "data unacknowledged after %d ms", WAIT_MS);
	return 0;
}

/* The counters of one round of traffic. */
struct gso_round {
	long long rx0, retrans0;		/* before */
	long long rx, retrans;			/* ground truth, after */
	long long ipdev, drv, total, forks, segs, full;	/* the module's */
};

/* Nothing is under way: the last round waited for all it sent. */
static int round_start(struct gso_round *r)
{
	CHECK(write_file(DEBUGFS_DIR "/control", "reset\n") == 0, "reset");
	r->rx0 = nft_packets(VNET_NS, GSO_NFT);
	CHECK(r->rx0 >= 0, "no nft counter in " VNET_NS);
	r->retrans0 = snmp_value("Tcp", "RetransSegs");
	return 0;
}

static bool rx_reached(void *arg)
{
	struct gso_round *r = arg;

	return nft_packets(VNET_NS, GSO_NFT) - r->rx0 >= r->drv + r->retrans;
}

static void round_end(struct gso_round *r, const char *what)
{
	char *lat = read_file(DEBUGFS_DIR "/latency_buckets");

	r->ipdev = row_count(lat, "tx", "ip-dev");
	r->drv = row_count(lat, "tx", "dev-drv");
	r->total = row_count(lat, "tx", "tx-total");
	free(lat);
	r->forks = stat_value("gso_forks_tx");
	r->segs = stat_value("gso_segments_tx");
	r->full = stat_value("gso_segments_tx_full");
	r->retrans = snmp_value("Tcp", "RetransSegs") - r->retrans0;
	/* a retransmission may be on its way still */
	wait_until(rx_reached, r, WAIT_MS);
	r->rx = nft_packets(VNET_NS, GSO_NFT) - r->rx0;
	note("%s: ip-dev %lld dev-drv %lld tx-total %lld; gso forks %lld segments %lld full %lld; b received %lld data segments, %lld retransmitted",
	     what, r->ipdev, r->drv, r->total, r->forks, r->segs, r->full,
	     r->rx, r->retrans);
}

/* A round of WRITES writes of two segments each, one at a time, on @s. */
static int two_segment_round(int s, struct gso_round *r, const char *what)
{
	int mss = 0;
	socklen_t len = sizeof(mss);

	CHECK(!getsockopt(s, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) && mss > 0,
	      "TCP_MAXSEG: %s", strerror(errno));
	if (round_start(r) || send_data(s, (long long)WRITES * 2 * mss,
					2 * mss, true))
		return -1;
	round_end(r, what);
	return 0;
}

static int gso_rounds(const struct vnet *v, int s, void *arg)
{
	struct gso_round r;

	(void)v;
	(void)arg;
	/* writes of two segments, one at a time: every byte has a timeline */
	if (two_segment_round(s, &r, "two-segment writes"))
		return -1;
	CHECK(r.rx == r.drv + r.retrans,
	      "b received %lld data segments; dev-drv %lld + %lld retransmitted = %lld",
	      r.rx, r.drv, r.retrans, r.drv + r.retrans);
	/* the packets sent: WRITES GSO skbs of two segments */
	CHECK_EQ(r.drv, 2 * WRITES);
	CHECK_EQ(r.total, 2 * WRITES);
	CHECK_EQ(r.ipdev, WRITES);
	CHECK_EQ(r.forks, WRITES);
	CHECK_EQ(r.segs, 2 * WRITES);
	CHECK_EQ(r.full, 0);

	/* bulk: what reaches the device reaches the driver, as segments */
	if (round_start(&r) || send_data(s, BULK_BYTES, 65536, false))
		return -1;
	round_end(&r, "bulk");
	CHECK(r.forks > 0 && r.drv > r.ipdev,
	      "no software GSO: %lld forks, %lld skbs at ip-dev, %lld at dev-drv",
	      r.forks, r.ipdev, r.drv);
	CHECK(r.drv * 100 >= r.ipdev * 95 && r.total * 100 >= r.ipdev * 95,
	      "dev-drv %lld and tx-total %lld: not 95%% of ip-dev %lld",
	      r.drv, r.total, r.ipdev);
	CHECK(r.drv <= r.rx - r.retrans,
	      "dev-drv %lld: more than the %lld data segments b received",
	      r.drv, r.rx - r.retrans);
	CHECK_EQ(r.full, 0);
	return 0;
}

static char want_byte(int fd, char c)
{
	char got = 0;

	return read(fd, &got, 1) == 1 && got == c;
}

/*
 * A TCP connection from NIC a to a receiver behind NIC b, with GRO @gro
 * on b: rounds(@v, socket, @arg) sends, then the sender closes and the
 * receiver reads to the end and exits.
 */
static int gso_flow(const struct vnet *v, unsigned int gro,
		    int (*rounds)(const struct vnet *v, int s, void *arg),
		    void *arg)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
				   .sin_port = htons(GSO_PORT) };
	int p[2], s = -1, st, ret = -1;
	pid_t pid;

	CHECK(pipe(p) == 0, "pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		_exit(gso_receiver(p[1], v->b, gro));
	}
	close(p[1]);
	inet_pton(AF_INET, VNET_IP4_B, &sin.sin_addr);
	if (!want_byte(p[0], 'l'))
		fail("the receiver did not listen");
	else if ((s = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
		 connect(s, (void *)&sin, sizeof(sin)))
		fail("connect to " VNET_IP4_B ": %s", strerror(errno));
	/* accepted: the handshake crossed the hub, nothing is under way */
	else if (!want_byte(p[0], 'a'))
		fail("the receiver did not accept");
	else
		ret = rounds(v, s, arg);
	if (s >= 0)
		close(s);
	close(p[0]);
	if (ret)		/* it may wait for what will not come */
		kill(pid, SIGKILL);
	if (waitpid(pid, &st, 0) == pid && !ret &&
	    (!WIFEXITED(st) || WEXITSTATUS(st)))
		ret = fail("the receiver failed (status 0x%x)", st);
	return ret;
}

/*
 * Run @rounds over a TCP connection from NIC a to VNET_NS with GRO @gro,
 * skbprof loaded with @params
 * on NIC b, under `filter proto tcp dport GSO_PORT`: the data flow's
 * transmit timelines at a, its receive timelines at b.  Two nft counters
 * at prerouting in VNET_NS count the flow's skbs there: GSO_NFT those
 * with data, GRO_NFT all.  @after(@v, @arg) runs once the receiver has
 * read everything and exited.
 */
static int vnet_tcp_test(const char *params, unsigned int gro,
			 int (*rounds)(const struct vnet *v, int s, void *arg),
			 int (*after)(const struct vnet *v, void *arg),
			 void *arg)
{
	char filter[64];
	struct vnet v;
	int err;

	err = vnet_setup(&v);
	if (!err && kmod_probe("nf_tables"))
		err = fail("cannot load nf_tables");
	kmod_probe("nft_counter");	/* a module on 5.10, built in later */
	/* data segments: more than the TCP header with timestamps (32) */
	if (!err && sh(IPROUTE " netns exec " VNET_NS " sh -c '"
		       "nft add table ip skbp_gso && "
		       "nft add chain " GSO_NFT " { type filter hook prerouting priority 0\\; } && "
		       "nft add rule " GSO_NFT " ip saddr " VNET_IP4_A
		       " tcp dport %d meta length gt 52 counter && "
		       "nft add chain " GRO_NFT " { type filter hook prerouting priority 0\\; } && "
		       "nft add rule " GRO_NFT " ip saddr " VNET_IP4_A
		       " tcp dport %d counter'", GSO_PORT, GSO_PORT))
		err = fail("cannot set up the nft counters");
	if (!err && skbprof_load(params))
		err = fail("cannot load skbprof");
	snprintf(filter, sizeof(filter), "filter proto tcp dport %d\n",
		 GSO_PORT);
	if (!err && write_file(DEBUGFS_DIR "/control", filter))
		err = fail("cannot set the filter");
	if (!err)
		err = gso_flow(&v, gro, rounds, arg);
	if (!err && after)
		err = after(&v, arg);
	sh(IPROUTE " netns exec " VNET_NS
	   " nft delete table ip skbp_gso 2>/dev/null");
	sh(TC " qdisc del dev %s root 2>/dev/null", v.a);
	vnet_teardown(&v);
	return err;
}

/*
 * The default, kretprobes off: no probe sees the segments, and each GSO
 * skb's timeline ends where segmentation begins, counted as segmented:
 * one per write, as each write is one GSO skb of two segments, which b
 * receives.  No stage after ip-dev is measured for them, and no fork.
 */
static int gso_default_rounds(const struct vnet *v, int s, void *arg)
{
	struct gso_round r;
	long long segmented;

	(void)v;
	(void)arg;
	if (two_segment_round(s, &r, "two-segment writes, kretprobes off"))
		return -1;
	segmented = stat_value("incomplete_tx_segmented");
	note("incomplete_tx_segmented %lld", segmented);
	/* the packets sent: WRITES GSO skbs of two segments, all received */
	CHECK(r.rx == 2 * WRITES + r.retrans,
	      "b received %lld data segments; %d sent + %lld retransmitted",
	      r.rx, 2 * WRITES, r.retrans);
	CHECK_EQ(r.ipdev, WRITES);
	CHECK_EQ(segmented, WRITES);
	CHECK_EQ(r.drv, 0);
	CHECK_EQ(r.total, 0);
	CHECK_EQ(r.forks, 0);
	CHECK_EQ(r.segs, 0);
	return 0;
}

TEST(gso_default_ends_segmented)
{
	return vnet_tcp_test("", 0, gso_default_rounds, NULL, NULL);
}

/*
 * TCP from the initial namespace to VNET_NS, kretprobes on: each GSO skb
 * the sender's NIC cannot take is cut into segments, and each segment
 * reaches the driver on the timeline of its skb, with its own dev-drv and
 * tx-total.  GRO is off on NIC b, so that each segment is one skb there.
 */
TEST(gso_segments_reach_the_driver)
{
	return vnet_tcp_test("kretprobes=on", 0, gso_rounds, NULL, NULL);
}

/* The receive side of one bulk transfer with GRO on NIC b. */
struct gro_bulk {
	long long frames0, skbs0, coal0, retrans0, missed0, fmissed0, dups0;
	long long paws0;
	long long frames, skbs, coal, retrans, missed, fmissed, dups, paws;
	long long iptcp, total, inc, merged, mcoal;	/* the module's */
	long long backlog, freed, mdup, dropped;	/* the module's */
};

/* TcpExt @field of namespace @ns; -1 when missing */
static long long netstat_value(const char *ns, const char *field)
{
	return snmp_table_value(sh_out(NULL, IPROUTE " netns exec %s cat /proc/net/netstat",
				       ns), "TcpExt", field);
}

/*
 * The segments TCP in @ns discarded as data it had already: old data
 * (TcpExt DelayedACKLost, counted by tcp_data_queue() and by the dupack
 * of a segment before the window or with an old timestamp) and data the
 * out-of-order queue held (TCPOFOMerge).
 */
static long long tcp_duplicates(const char *ns)
{
	long long a, b;

	a = netstat_value(ns, "DelayedACKLost");
	b = netstat_value(ns, "TCPOFOMerge");
	return a < 0 || b < 0 ? -1 : a + b;
}

/*
 * Loss and reordering on a's egress, so that TCP retransmits on every
 * run, and some of its retransmissions are duplicates: netem holds one
 * frame in ten back 1 ms, behind the ones after it, whose duplicate ACKs
 * look like a loss to the sender, and its fast retransmission reaches b
 * as well as the original; the frames lost are retransmitted, and the
 * ones behind them wait in b's out-of-order queue.  Loss alone (3%: 101
 * to 105 segments retransmitted on 5.10, 6.1 and 7.2) made no duplicate
 * at all.
 */
#define GRO_NETEM	"loss 2%% delay 1ms reorder 90%%"

static int gro_bulk_send(const struct vnet *v, int s, void *arg)
{
	struct gro_bulk *g = arg;

	CHECK(write_file(DEBUGFS_DIR "/control", "reset\n") == 0, "reset");
	g->frames0 = netdev_stat(v->a, "tx_packets");
	g->skbs0 = nft_packets(VNET_NS, GRO_NFT);
	g->coal0 = tcp_coalesced(VNET_NS);
	g->retrans0 = snmp_value("Tcp", "RetransSegs");
	g->missed0 = probes_nmissed();
	g->fmissed0 = group_nmissed("free");
	g->dups0 = tcp_duplicates(VNET_NS);
	g->paws0 = netstat_value(VNET_NS, "PAWSEstab");
	CHECK(g->frames0 >= 0 && g->skbs0 >= 0 && g->coal0 >= 0 &&
	      g->missed0 >= 0 && g->fmissed0 >= 0 && g->dups0 >= 0 &&
	      g->paws0 >= 0,
	      "cannot read the counters");
	CHECK(kmod_probe("sch_netem") == 0, "cannot load sch_netem");
	CHECK(sh(TC " qdisc add dev %s root netem " GRO_NETEM, v->a) == 0,
	      "cannot add netem to %s", v->a);
	return send_data(s, BULK_BYTES, 65536, false);
}

/* Has the timeline of every skb of the flow at b's IP ended? */
static bool gro_bulk_settled(void *arg)
{
	struct gro_bulk *g = arg;
	char *lat = read_file(DEBUGFS_DIR "/latency_buckets");

	g->iptcp = row_count(lat, "rx", "ip-tcp");
	g->total = row_count(lat, "rx", "rx-total");
	g->backlog = row_count(lat, "rx", "backlog");
	free(lat);
	g->inc = rx_incomplete();
	g->mcoal = stat_value("incomplete_rx_coalesced");
	g->mdup = stat_value("incomplete_rx_duplicate");
	g->skbs = nft_packets(VNET_NS, GRO_NFT) - g->skbs0;
	return g->total + g->mcoal + g->mdup + g->inc == g->skbs;
}

static int gro_bulk_check(const struct vnet *v, void *arg)
{
	struct gro_bulk *g = arg;

	/* the closing handshake may be on its way still */
	wait_until(gro_bulk_settled, g, WAIT_MS);
	g->frames = netdev_stat(v->a, "tx_packets") - g->frames0;
	g->coal = tcp_coalesced(VNET_NS) - g->coal0;
	g->retrans = snmp_value("Tcp", "RetransSegs") - g->retrans0;
	g->missed = probes_nmissed() - g->missed0;
	g->fmissed = group_nmissed("free") - g->fmissed0;
	g->merged = stat_value("incomplete_rx_merged") +
		    stat_value("incomplete_rx_reused");
	g->freed = stat_value("incomplete_rx_freed");
	g->dropped = stat_value("incomplete_rx_dropped");
	g->dups = tcp_duplicates(VNET_NS) - g->dups0;
	g->paws = netstat_value(VNET_NS, "PAWSEstab") - g->paws0;
	note("frames a sent %lld, skbs at b's prerouting %lld; ip-tcp %lld rx-total %lld; coalesced %lld (TcpExt %lld), duplicate %lld (TcpExt %lld, PAWSEstab %lld), incomplete %lld (dropped %lld, freed %lld), merged %lld; %lld retransmitted, %lld probe hits missed, %lld of them on the free paths",
	     g->frames, g->skbs, g->iptcp, g->total, g->mcoal, g->coal,
	     g->mdup, g->dups, g->paws, g->inc, g->dropped, g->freed, g->merged,
	     g->retrans, g->missed, g->fmissed);
	CHECK(g->frames > g->skbs && g->skbs > 0,
	      "GRO merged nothing: a sent %lld frames, b's IP got %lld skbs",
	      g->frames, g->skbs);
	/*
	 * netem made TCP discard segments it had: the path ran (6 to 55
	 * times a run, in 20 runs on 5.10, 6.1, 6.12 and 7.2)
	 */
	CHECK(g->dups > 0,
	      "TCP discarded no duplicate segment (TcpExt DelayedACKLost + TCPOFOMerge %lld): netem forced no spurious retransmission",
	      g->dups);
	/*
	 * Every skb of the flow that left GRO had one timeline, which
	 * ended once: read, coalesced, duplicate or incomplete; but for
	 * those whose end the kernel skipped (a free or coalescing in a
	 * softirq run inside another probe's handler: one timeline per hit
	 * missed on the free paths at most).
	 */
	CHECK(g->total + g->mcoal + g->mdup + g->inc <= g->skbs &&
	      g->skbs - (g->total + g->mcoal + g->mdup + g->inc) <= g->fmissed,
	      "rx-total %lld + coalesced %lld + duplicate %lld + incomplete %lld of %lld skbs at b's IP, %lld free-path hits missed",
	      g->total, g->mcoal, g->mdup, g->inc, g->skbs, g->fmissed);
	/*
	 * Each measured from IP to TCP, but for those whose IP or TCP
	 * kprobe the kernel skipped (a softirq inside another handler),
	 * and those freed on the way, which the module counts (seen: one
	 * of 113 on 6.12, ended as freed, no probe hit missed)
	 */
	if (!(g->iptcp <= g->skbs &&
	      g->skbs - g->iptcp <= g->missed + g->freed)) {
		/* flaky (1 of 177 short, twice): what ended the odd one */
		char *st = read_file(DEBUGFS_DIR "/stats");

		note("stats:\n%s", st ? st : "(unreadable)");
		free(st);
	}
	CHECK(g->iptcp <= g->skbs && g->skbs - g->iptcp <= g->missed + g->freed,
	      "ip-tcp %lld of %lld skbs at b's IP, %lld probe hits missed, %lld freed early",
	      g->iptcp, g->skbs, g->missed, g->freed);
	/* GRO hands its skbs to the stack itself: no backlog on the way */
	CHECK(g->backlog == 0, "rx backlog counted %lld skbs of a NIC's GRO",
	      g->backlog);
	/*
	 * Each segment TCP discarded as data it had ended as a duplicate:
	 * as many as TcpExt counts, but for one with some new data that
	 * PAWS refused (PAWSEstab), which DelayedACKLost counts and which
	 * is a drop.  On 5.10 (no drop reasons), an old segment that
	 * tcp_data_queue() discards, or the out-of-order queue holds, ends
	 * as freed: one in 44 on 7.2 came there (TCP_OLD_DATA), one in 39
	 * on 5.10, so a quarter of them is ample.  Measured, 4 runs each:
	 * equal on 6.1 (24 to 55), 6.12 (8 to 44) and 7.2 (10 to 39); on
	 * 5.10 (7 to 39) equal but for that one.
	 */
	if (kver() < 600)
		CHECK(g->mdup <= g->dups &&
		      g->dups - g->mdup <= g->paws + g->dups / 4,
		      "duplicate %lld, TcpExt DelayedACKLost + TCPOFOMerge %lld, PAWSEstab %lld",
		      g->mdup, g->dups, g->paws);
	else
		CHECK(g->mdup <= g->dups && g->dups - g->mdup <= g->paws,
		      "duplicate %lld, TcpExt DelayedACKLost + TCPOFOMerge %lld, PAWSEstab %lld",
		      g->mdup, g->dups, g->paws);
	/* what is left: the handshake's ACK, the FIN, a drop */
	CHECK(g->inc * 20 <= g->iptcp,
	      "%lld incomplete receive timelines, ip-tcp %lld", g->inc,
	      g->iptcp);
	/*
	 * TcpExt counts coalescing into the receive queue and the backlog,
	 * not into the out-of-order queue, which only loss fills here.
	 */
	if (!g->retrans)
		CHECK(g->mcoal <= g->coal && g->coal - g->mcoal <= g->fmissed,
		      "coalesced %lld, TcpExt %lld, %lld free-path hits missed",
		      g->mcoal, g->coal, g->fmissed);
	else
		CHECK(g->mcoal + g->fmissed >= g->coal,
		      "coalesced %lld, TcpExt %lld, %lld free-path hits missed",
		      g->mcoal, g->coal, g->fmissed);
	return 0;
}

/*
 * Bulk TCP into NIC b with GRO on (virtio-net: napi_gro_receive()): the
 * data flow's receive timelines are the skbs GRO made, each measured to
 * TCP (as many as the nft counter at b's prerouting saw), each ends with
 * one outcome, and at most 5% of them end incomplete; a segment TCP
 * coalesced ends as coalesced, and one TCP discarded as data it had
 * (a retransmission's copy, which netem forces: GRO_NETEM) as duplicate,
 * as many as TcpExt says.
 */
TEST(gro_receive_over_virtio)
{
	struct gro_bulk g;

	memset(&g, 0, sizeof(g));
	return vnet_tcp_test("kretprobes=on", 1, gro_bulk_send, gro_bulk_check,
			     &g);
}
