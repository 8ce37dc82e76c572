// SPDX-License-Identifier: GPL-2.0
/*
 * napi_gro_frags() over tun.  A TAP device made with IFF_NAPI |
 * IFF_NAPI_FRAGS feeds every write() to napi_gro_frags() from
 * tun_get_user() itself, no NAPI poll needed: the first iovec goes to
 * the skb's head (napi_get_frags()), each further one to a page
 * fragment.  Were a frame merged into the flow's held skb, GRO would
 * return GRO_MERGED_FREE and napi_frags_finish() would recycle its skb
 * and head for the next write (napi_reuse_skb(), no free): the module
 * ends that frame's timeline as reused, so that the next frame starts
 * its own.
 *
 * On every supported kernel tun_get_user() follows napi_gro_frags() with
 * napi_complete() ("tun: Fix memory leaks of napi_get_frags", 2022,
 * also in 5.10.y), that is napi_complete_done(n, 0): with no work done
 * it reads no gro_flush_timeout and flushes every held skb
 * (napi_gro_flush(n, false)).  So each write's frame goes to the stack
 * on its own, no later write can merge into it, and the reuse path is
 * not reached through tun (measured: 40 frames, 40 skbs at IP, on 5.10,
 * 6.1 and 6.12).  What the test checks holds either way: pairs of
 * in-order TCP segments of one flow (headers in the head, payload in a
 * fragment, valid checksums, the second with PSH) are written with a
 * pause between pairs; every frame GRO merged is one reuse (frames -
 * skbs at IP, an nft counter at prerouting), no frame ends as merged,
 * each skb at IP has one drv-ip sample, and no sample is longer than
 * its pair took to write: a timeline left on a recycled skb would
 * measure the next frame from a pause earlier.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define TAP		"skbp_frags"
#define FRAGS_NS	"skbp_frags"	/* the TAP device's namespace */
#define TAP_MAC		"02:00:00:00:0f:01"
#define PEER_MAC	{ 0x02, 0x00, 0x00, 0x00, 0x0f, 0x02 }
#define TAP_IP4		"10.203.0.1"
#define PEER_IP4	"10.203.0.2"
#define FRAGS_PORT	5301
#define FRAGS_NFT	"ip skbp_frags pre"
#define PAIRS		20
#define PAYLOAD		1000		/* bytes per segment */
#define PAUSE_MS	20		/* between pairs */
#define IPROUTE		"/usr/sbin/ip"

/* Ethernet, IPv4 and TCP headers, no options: the frame's head. */
struct hdrs {
	uint8_t dst[6], src[6];
	uint16_t proto;
	uint8_t ver_ihl, tos;
	uint16_t tot_len, id, frag_off;
	uint8_t ttl, ip_proto;
	uint16_t ip_csum;
	uint32_t saddr, daddr;
	uint16_t sport, dport;
	uint32_t seq, ack_seq;
	uint8_t doff, flags;
	uint16_t window, tcp_csum, urg;
} __attribute__((packed));

#define TCP_ACK	0x10
#define TCP_PSH	0x08

static uint32_t csum_add(uint32_t sum, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)b[i] << 8 | b[i + 1];
	if (n & 1)
		sum += (uint32_t)b[n - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons(~sum & 0xffff);
}

/* Headers of the segment at @seq with @flags, checksums over @payload. */
static void build(struct hdrs *h, uint16_t id, uint32_t seq, uint8_t flags,
		  const char *payload)
{
	static const uint8_t peer[6] = PEER_MAC;
	uint32_t sum;
	uint16_t tcplen = 20 + PAYLOAD;

	memset(h, 0, sizeof(*h));
	sscanf(TAP_MAC, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &h->dst[0],
	       &h->dst[1], &h->dst[2], &h->dst[3], &h->dst[4], &h->dst[5]);
	memcpy(h->src, peer, 6);
	h->proto = htons(0x0800);
	h->ver_ihl = 0x45;
	h->tot_len = htons(20 + tcplen);
	h->id = htons(id);
	h->frag_off = htons(0x4000);		/* DF */
	h->ttl = 64;
	h->ip_proto = 6;
	inet_pton(AF_INET, PEER_IP4, &h->saddr);
	inet_pton(AF_INET, TAP_IP4, &h->daddr);
	h->ip_csum = csum_fold(csum_add(0, &h->ver_ihl, 20));
	h->sport = htons(40000);
	h->dport = htons(FRAGS_PORT);
	h->seq = htonl(seq);
	h->ack_seq = htonl(1);
	h->doff = 5 << 4;
	h->flags = flags;
	h->window = htons(65535);
	/* pseudo header, TCP header, payload */
	sum = csum_add(0, &h->saddr, 8);
	sum += 6 + tcplen;
	sum = csum_add(sum, &h->sport, 20);
	sum = csum_add(sum, payload, PAYLOAD);
	h->tcp_csum = csum_fold(sum);
}

/* One frame: the headers in the skb's head, the payload in a fragment. */
static int put(int fd, const struct hdrs *h, char *payload)
{
	struct iovec iov[2] = {
		{ .iov_base = (void *)h, .iov_len = sizeof(*h) },
		{ .iov_base = payload, .iov_len = PAYLOAD },
	};
	ssize_t n = writev(fd, iov, 2);

	CHECK(n == (ssize_t)(sizeof(*h) + PAYLOAD), "write to " TAP ": %s",
	      n < 0 ? strerror(errno) : "short");
	return 0;
}

/* The TAP device, made in FRAGS_NS; its fd, or -1. */
static int tap_open(void)
{
	struct ifreq ifr;
	int self, fd = -1;

	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0 || enter_ns(FRAGS_NS)) {
		fail("cannot enter " FRAGS_NS);
		goto out;
	}
	fd = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		fail("/dev/net/tun: %s", strerror(errno));
		goto back;
	}
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, TAP);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_NAPI | IFF_NAPI_FRAGS;
	if (ioctl(fd, TUNSETIFF, &ifr)) {
		fail("TUNSETIFF " TAP " with IFF_NAPI_FRAGS: %s",
		     strerror(errno));
		close(fd);
		fd = -1;
	}
back:
	if (setns(self, CLONE_NEWNET) && fd >= 0) {
		fail("cannot leave " FRAGS_NS ": %s", strerror(errno));
		close(fd);
		fd = -1;
	}
out:
	if (self >= 0)
		close(self);
	return fd;
}

static bool all_at_ip(void *arg)
{
	return nft_packets(FRAGS_NS, FRAGS_NFT) >= *(long long *)arg;
}

/*
 * Write the pairs, each frame whole, or fail; *longest gets the longest
 * time a pair took.
 */
static int send_pairs(int fd, unsigned long long *longest)
{
	static char payload[PAYLOAD];
	unsigned long long t0, t;
	struct hdrs h;
	uint32_t seq = 1;
	uint16_t id = 1;
	int i;

	memset(payload, 'f', sizeof(payload));
	*longest = 0;
	for (i = 0; i < PAIRS; i++) {
		t0 = clock_ns(CLOCK_MONOTONIC);
		build(&h, id++, seq, TCP_ACK, payload);
		if (put(fd, &h, payload))
			return -1;
		seq += PAYLOAD;
		build(&h, id++, seq, TCP_ACK | TCP_PSH, payload);
		if (put(fd, &h, payload))
			return -1;
		seq += PAYLOAD;
		t = clock_ns(CLOCK_MONOTONIC) - t0;
		if (t > *longest)
			*longest = t;
		/* the next pair comes later: a stale timeline would show */
		sleep_ms(PAUSE_MS);
	}
	return 0;
}

static int frags_run(int fd)
{
	long long frames = 2 * PAIRS, skbs, reused, merged;
	unsigned long long longest;
	struct row r;
	char *lat;

	CHECK(write_file(DEBUGFS_DIR "/control",
			 "filter dev " TAP "\nreset\n") == 0, "control");
	if (send_pairs(fd, &longest))
		return -1;
	/*
	 * Each frame reaches IP within its write, or its pair's second:
	 * wait for the frames, in case GRO merged none, bounded
	 */
	wait_until(all_at_ip, &frames, WAIT_MS);
	skbs = nft_packets(FRAGS_NS, FRAGS_NFT);
	reused = stat_value("incomplete_rx_reused");
	merged = stat_value("incomplete_rx_merged");
	lat = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(lat, "cannot read latency");
	latency_row(lat, "rx", "drv-ip", &r);
	free(lat);
	note("frames %lld, skbs at IP %lld, reused %lld, merged %lld; drv-ip count %llu max %llu ns, longest pair %llu ns",
	     frames, skbs, reused, merged, r.count, r.max, longest);
	CHECK(skbs >= PAIRS && skbs <= frames, "%lld skbs at IP", skbs);
	/* each frame GRO merged gave its skb back to napi_gro_frags() */
	CHECK_EQ(reused, frames - skbs);
	CHECK_EQ(merged, 0);
	CHECK_EQ(r.count, skbs);
	CHECK(r.max <= longest,
	      "a drv-ip sample of %llu ns: longer than any pair took to write (%llu ns), measured from an earlier frame",
	      r.max, longest);
	return 0;
}

/*
 * Pairs of TCP segments written into a TAP device with IFF_NAPI_FRAGS:
 * every frame's timeline starts at napi_gro_frags(); a frame merged
 * there ends as reused, each skb at IP is measured from its own frame.
 */
TEST(napi_gro_frags_timelines)
{
	int fd, err = 0;

	CHECK(kmod_probe("tun") == 0, "cannot load tun");
	CHECK(kmod_probe("nf_tables") == 0, "cannot load nf_tables");
	kmod_probe("nft_counter");	/* a module on 5.10, built in later */
	if (netns_make(FRAGS_NS, false))
		return -1;
	fd = tap_open();
	if (fd < 0)
		err = -1;
	if (!err && sh(IPROUTE " netns exec " FRAGS_NS " sh -c '"
		       "echo 1 > /proc/sys/net/ipv6/conf/" TAP "/disable_ipv6' && "
		       IPROUTE " -n " FRAGS_NS " link set " TAP " address " TAP_MAC " && "
		       IPROUTE " -n " FRAGS_NS " addr add " TAP_IP4 "/24 dev " TAP " && "
		       IPROUTE " -n " FRAGS_NS " link set " TAP " up"))
		err = fail("cannot configure " TAP);
	if (!err && sh(IPROUTE " netns exec " FRAGS_NS " sh -c '"
		       "nft add table ip skbp_frags && "
		       "nft add chain " FRAGS_NFT " { type filter hook prerouting priority 0\\; } && "
		       "nft add rule " FRAGS_NFT " ip saddr " PEER_IP4
		       " tcp dport %d counter'", FRAGS_PORT))
		err = fail("cannot set up the nft counter");
	if (!err && skbprof_load(""))
		err = fail("cannot load skbprof");
	if (!err)
		err = frags_run(fd);
	if (fd >= 0)
		close(fd);
	netns_del(FRAGS_NS);
	return err;
}
