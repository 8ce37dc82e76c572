// SPDX-License-Identifier: GPL-2.0
/*
 * No stamp outlives the view that follows it.  A view switched off ends
 * the stamps only its probes could end, before the control write returns,
 * and counts them (incomplete_*_disarmed, lifetime_disarmed); a view
 * switched on again inherits none of them.
 *
 * Topology: loopback only, in the test's namespace.
 *   rq  a TCP connection whose receiver never reads: its receive queue
 *       holds the data (the kernel's SIOCINQ)
 *   wq  a TCP connection whose data an nft output rule drops: its write
 *       queue holds it (the kernel's SIOCOUTQ)
 * Both stand still once filled: nothing is received, nothing is freed, no
 * stamp is made, so stats' table_in_use is exact before the switch.
 * Fresh traffic afterwards (a third connection, in lockstep) must record
 * no stage that began before it did: the worst packet of every stage
 * that ended after the traffic began took no longer than the traffic.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define CONTROL		DEBUGFS_DIR "/control"
#define PORT_RQ		7301
#define PORT_WQ		7302
#define PORT_FRESH	7303
#define NFT_TABLE	"inet skbprof_sweep"

struct tcp_pair {
	int lfd, cl, sv;
};

/* Closed with a reset: what the queues hold goes at once, unsent. */
static void pair_close(struct tcp_pair *p)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 };

	if (p->cl >= 0) {
		setsockopt(p->cl, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		close(p->cl);
	}
	if (p->sv >= 0) {
		setsockopt(p->sv, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
		close(p->sv);
	}
	if (p->lfd >= 0)
		close(p->lfd);
	p->lfd = p->cl = p->sv = -1;
}

/* A TCP connection over 127.0.0.1:@port, both ends in this process. */
static int pair_open(struct tcp_pair *p, int port)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int one = 1;

	p->sv = -1;
	p->lfd = socket(AF_INET, SOCK_STREAM, 0);
	p->cl = socket(AF_INET, SOCK_STREAM, 0);
	if (p->lfd < 0 || p->cl < 0)
		goto err;
	setsockopt(p->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(p->lfd, (struct sockaddr *)&a, sizeof(a)) ||
	    listen(p->lfd, 1) ||
	    connect(p->cl, (struct sockaddr *)&a, sizeof(a)))
		goto err;
	p->sv = accept(p->lfd, NULL, NULL);
	if (p->sv < 0)
		goto err;
	return 0;
err:
	pair_close(p);
	return fail("TCP pair on port %d: %s", port, strerror(errno));
}

static long long queued(int fd, unsigned long req)
{
	int n = -1;

	return ioctl(fd, req, &n) ? -1 : n;
}

/* Has the client of pair *@arg no unacknowledged data left? */
static bool all_acked(void *arg)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	return !getsockopt(*(int *)arg, IPPROTO_TCP, TCP_INFO, &ti, &len) &&
	       ti.tcpi_unacked == 0;
}

/* rq: @bytes in the receiver's queue, all acknowledged. */
static int fill_receive_queue(struct tcp_pair *p, size_t bytes)
{
	static char buf[65536];

	CHECK(bytes <= sizeof(buf), "fill of %zu bytes", bytes);
	CHECK(write(p->cl, buf, bytes) == (ssize_t)bytes, "rq write: %s",
	      strerror(errno));
	CHECK(wait_until(all_acked, &p->cl, WAIT_MS), "rq: data unacknowledged");
	CHECK_EQ(queued(p->sv, SIOCINQ), (long long)bytes);
	return 0;
}

/* wq: nft drops the client's data; write until its send buffer is full. */
static int fill_write_queue(struct tcp_pair *p)
{
	static char buf[16384];
	int st;

	CHECK(kmod_probe("nf_tables") == 0, "loading nf_tables");
	st = sh("nft add table " NFT_TABLE " && "
		"nft add chain " NFT_TABLE " out '{ type filter hook output priority 0; }' && "
		"nft add rule " NFT_TABLE " out tcp dport %d drop",
		PORT_WQ);
	CHECK(st == 0, "nft setup exited %d", st);
	fcntl(p->cl, F_SETFL, O_NONBLOCK);
	while (write(p->cl, buf, sizeof(buf)) > 0)
		;
	CHECK(errno == EAGAIN, "wq write: %s", strerror(errno));
	CHECK(queued(p->cl, SIOCOUTQ) > 0, "wq: the write queue is empty");
	return 0;
}

/* The sum of the @prefix*@suffix counters ("incomplete_", "_disarmed"). */
static long long stats_sum(const char *prefix, const char *suffix)
{
	struct table t;
	long long sum = 0;
	const char *key;
	size_t kl;
	int r;

	if (table_read(&t, "counters"))
		return -1;
	for (r = 0; r < t.nrows; r++) {
		key = table_str(&t, r, "name");
		kl = strlen(key);
		if (!strncmp(key, prefix, strlen(prefix)) &&
		    kl >= strlen(suffix) &&
		    !strcmp(key + kl - strlen(suffix), suffix))
			sum += table_num(&t, r, "value");
	}
	table_free(&t);
	return sum;
}

/*
 * @rounds messages of @len bytes over a fresh connection, each read
 * before the next is written: no packet waits on another.
 */
static int lockstep(int rounds, size_t len)
{
	static char buf[4096];
	struct tcp_pair p;
	int i;

	if (pair_open(&p, PORT_FRESH))
		return -1;
	for (i = 0; i < rounds; i++) {
		size_t got = 0;
		ssize_t n;

		if (write(p.cl, buf, len) != (ssize_t)len)
			break;
		while (got < len && (n = read(p.sv, buf, len - got)) > 0)
			got += n;
		if (got < len)
			break;
	}
	pair_close(&p);
	CHECK(i == rounds, "lockstep stopped at round %d: %s", i,
	      strerror(errno));
	return 0;
}

/*
 * In latency_worst, every stage's worst packet that ended at or after
 * @since (CLOCK_MONOTONIC ns) began at or after it: a stage longer than
 * its end minus @since spans an older packet's stamp.
 */
static int no_stage_before(unsigned long long since)
{
	unsigned long long ns, at;
	int checked = 0, r;
	struct table t;

	CHECK(table_read(&t, "latency_worst") == 0, "latency_worst");
	for (r = 0; r < t.nrows; r++) {
		ns = table_num(&t, r, "ns");
		at = table_num(&t, r, "at_ns");
		if (at < since)
			continue;
		checked++;
		if (ns > at - since) {
			note("latency_worst:\n%s", t.text);
			fail("%s %s: worst %llu ns, ended %llu ns after the fresh traffic began",
			     table_str(&t, r, "dir"), table_str(&t, r, "stage"),
			     ns, at - since);
			table_free(&t);
			return -1;
		}
	}
	table_free(&t);
	note("%d stages measured the fresh traffic alone", checked);
	CHECK(checked > 0, "no stage ended during the fresh traffic");
	return 0;
}

/*
 * Every stage on, TCP data waiting in a receive queue and in a write
 * queue, then `stages drops`: the write returns with the table empty,
 * every stamp it held counted as disarmed, receive and transmit both.
 * After the sockets close and `stages all`, fresh traffic is measured on
 * its own.
 */
TEST(sweep_stages_off_ends_queued_timelines)
{
	struct tcp_pair rq = { -1, -1, -1 }, wq = { -1, -1, -1 };
	long long before, after, rx, tx, inserts;
	unsigned long long since;
	int err, rc = -1;

	err = skbprof_load(NULL);
	CHECK(err == 0, "load: %s", strerror(-err));
	sh("nft delete table " NFT_TABLE " 2>/dev/null");
	if (pair_open(&rq, PORT_RQ) || pair_open(&wq, PORT_WQ) ||
	    fill_receive_queue(&rq, 49152) || fill_write_queue(&wq))
		goto out;
	before = stat_value("table_in_use");
	inserts = stat_value("table_inserts");
	note("%lld stamps for %lld bytes queued to receive and %lld to send",
	     before, queued(rq.sv, SIOCINQ), queued(wq.cl, SIOCOUTQ));
	err = write_file(CONTROL, "stages drops\n");
	if (err) {
		fail("stages drops: %s", strerror(-err));
		goto out;
	}
	after = stat_value("table_in_use");
	rx = stat_value("incomplete_rx_disarmed");
	tx = stat_value("incomplete_tx_disarmed");
	note("after stages drops: table_in_use %lld, disarmed rx %lld tx %lld",
	     after, rx, tx);
	if (after != 0 || rx < 1 || tx < 1 || rx + tx != before ||
	    stat_value("table_inserts") != inserts) {
		fail("table_in_use %lld -> %lld, disarmed rx %lld + tx %lld",
		     before, after, rx, tx);
		goto out;
	}
	sh("nft delete table " NFT_TABLE);
	pair_close(&rq);
	pair_close(&wq);
	since = clock_ns(CLOCK_MONOTONIC);
	err = write_file(CONTROL, "stages all\n");
	if (err) {
		fail("stages all: %s", strerror(-err));
		goto out;
	}
	if (lockstep(200, 1000) || no_stage_before(since))
		goto out;
	CHECK_EQ(stats_sum("incomplete_", "_disarmed"), rx + tx);
	rc = 0;
out:
	sh("nft delete table " NFT_TABLE " 2>/dev/null");
	pair_close(&rq);
	pair_close(&wq);
	return rc;
}

/*
 * The samples at least @lo ns long in @text, a read of lifetime_buckets
 * (its lifetime row's buckets..., "lo:hi:n" each).
 */
static long long lifetimes_from(const char *text, unsigned long long lo)
{
	unsigned long long blo, bhi, cnt;
	const char *p;
	struct table t;
	long long n = -1;
	int r;

	if (table_parse(&t, text ? strdup(text) : NULL, "lifetime_buckets"))
		return -1;
	r = table_find(&t, 0, "label", "lifetime", NULL);
	p = table_str(&t, r, "buckets");
	for (n = p ? 0 : -1; p && sscanf(p, "%llu:%llu:%llu", &blo, &bhi,
					 &cnt) == 3;
	     p = strchr(p, ' ') ? strchr(p, ' ') + 1 : NULL)
		if (blo >= lo)
			n += cnt;
	table_free(&t);
	return n;
}

/*
 * `lifetime 1` while TCP data waits in a receive queue, then `lifetime
 * off`: no lifetime stamp is left, each counted as disarmed.  The sockets
 * close unseen; after `lifetime 1` again, fresh traffic records no
 * lifetime longer than itself (a stamp left behind would lend its birth
 * to the skb that reuses its address).
 */
TEST(sweep_lifetime_off_leaves_no_stamp)
{
	struct tcp_pair rq = { -1, -1, -1 };
	long long before, after, disarmed, long0, long1;
	unsigned long long since, took;
	char *b0 = NULL, *b1 = NULL;
	int err, rc = -1;

	err = skbprof_load("stages=drops lifetime_sample=1");
	CHECK(err == 0, "load: %s", strerror(-err));
	if (pair_open(&rq, PORT_RQ) || fill_receive_queue(&rq, 49152))
		goto out;
	before = stat_value("table_in_use_lifetime");
	err = write_file(CONTROL, "lifetime off\n");
	if (err) {
		fail("lifetime off: %s", strerror(-err));
		goto out;
	}
	after = stat_value("table_in_use_lifetime");
	disarmed = stat_value("lifetime_disarmed");
	note("lifetime off: table_in_use_lifetime %lld -> %lld, %lld disarmed",
	     before, after, disarmed);
	if (after != 0 || disarmed < 1) {
		fail("table_in_use_lifetime %lld -> %lld, lifetime_disarmed %lld",
		     before, after, disarmed);
		goto out;
	}
	pair_close(&rq);
	b0 = read_file(DEBUGFS_DIR "/lifetime_buckets");
	since = clock_ns(CLOCK_MONOTONIC);
	err = write_file(CONTROL, "lifetime 1\n");
	if (err) {
		fail("lifetime 1: %s", strerror(-err));
		goto out;
	}
	if (lockstep(200, 1000))
		goto out;
	b1 = read_file(DEBUGFS_DIR "/lifetime_buckets");
	took = clock_ns(CLOCK_MONOTONIC) - since;
	/* a bucket whose floor is the traffic's length holds none of it */
	long0 = lifetimes_from(b0, took);
	long1 = lifetimes_from(b1, took);
	note("the traffic took %llu ns; lifetimes at least that long: %lld before, %lld after",
	     took, long0, long1);
	if (long0 < 0 || long1 != long0) {
		note("lifetime_buckets before:\n%s\nafter:\n%s", b0, b1);
		fail("%lld lifetimes of at least %llu ns in %llu ns of traffic",
		     long1 - long0, took, took);
		goto out;
	}
	rc = 0;
out:
	free(b0);
	free(b1);
	pair_close(&rq);
	return rc;
}
