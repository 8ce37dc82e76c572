// SPDX-License-Identifier: GPL-2.0
/*
 * drops_devices against the devices' own counters.
 *
 * Topology: a veth pair in the initial namespace, IPv6 off, no address:
 *   skdd0 --- skdd1
 * Frames of an ethertype nothing handles (0x88b5, local experimental),
 * sent on skdd0 from an AF_PACKET socket, are dropped by skdd1's receive
 * path, which counts them in rx_dropped.
 *
 * A bond in active-backup mode over two veths, skdd2 (active) and skdd4
 * (backup): a frame that arrives on the backup goes only to handlers of
 * that very device, and with none it counts in skdd4's rx_nohandler.
 *
 * A tun device, sktun0, whose queue nobody reads: tun_net_xmit() drops
 * what no longer fits its queue and counts it in tx_dropped itself.
 *
 * Ground truth: /sys/class/net/DEV/statistics/, read before the reset
 * and after it (the devices are idle then: both reads agree) and after
 * the module's file.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

#define CONTROL		DEBUGFS_DIR "/control"
#define DEVICES		DEBUGFS_DIR "/drops_devices"
#define ETH_P_EXP	0x88b5
#define IP		"/usr/sbin/ip"

static const char *const counters[] = {
	"rx_dropped", "rx_missed_errors", "rx_fifo_errors", "rx_over_errors",
	"rx_nohandler", "tx_dropped",
};
#define NCOUNTERS	(sizeof(counters) / sizeof(counters[0]))

/* skdd0 --- skdd1, in the initial namespace, IPv6 off, no address */
static const struct veth dd_pair = {
	.a = { .dev = "skdd0" },
	.b = { .dev = "skdd1" },
	.flags = VETH_IPV6_OFF | VETH_UP,
};

/* @n frames of ETH_P_EXP to the broadcast address, sent on @dev. */
static int send_frames_on(const char *dev, int n)
{
	struct sockaddr_ll to = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_EXP),
		.sll_halen = ETH_ALEN,
		.sll_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	};
	unsigned char frame[60] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x02, 0x00, 0x00, 0x00, 0xdd, 0x00,
		ETH_P_EXP >> 8, ETH_P_EXP & 0xff,
	};
	int fd, i, sent = 0;

	to.sll_ifindex = if_nametoindex(dev);
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	CHECK(fd >= 0 && to.sll_ifindex, "AF_PACKET on %s: %s", dev,
	      strerror(errno));
	for (i = 0; i < n; i++)
		sent += sendto(fd, frame, sizeof(frame), 0, (void *)&to,
			       sizeof(to)) == (ssize_t)sizeof(frame);
	close(fd);
	CHECK(sent == n, "sent %d of %d frames", sent, n);
	return 0;
}

static int send_frames(int n)
{
	return send_frames_on("skdd0", n);
}

static void sysfs_read(const char *dev, long long *v)
{
	size_t i;

	for (i = 0; i < NCOUNTERS; i++)
		v[i] = netdev_stat(dev, counters[i]);
}

/* @dev's row of drops_devices in the initial namespace; zeros if none. */
static int module_row(const char *text, const char *dev, long long *v)
{
	char head[96], *line;
	struct stat st;

	memset(v, 0, NCOUNTERS * sizeof(*v));
	CHECK(stat("/proc/1/ns/net", &st) == 0, "netns inode");
	snprintf(head, sizeof(head), "\n%llu %s ", (unsigned long long)st.st_ino,
		 dev);
	line = strstr(text, head);
	if (!line)
		return 0;
	CHECK(sscanf(line + strlen(head), "%lld %lld %lld %lld %lld %lld",
		     &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) == 6,
	      "row of %s: %.120s", dev, line + 1);
	return 0;
}

/* Reset with @dev idle across it; @base: its counters at the reset. */
static int reset_idle(const char *dev, long long *base)
{
	long long after[NCOUNTERS];

	sysfs_read(dev, base);
	CHECK(write_file(CONTROL, "reset\n") == 0, "reset");
	sysfs_read(dev, after);
	CHECK(!memcmp(base, after, sizeof(after)),
	      "%s counted across the reset", dev);
	return 0;
}

/*
 * @dev's row of @text, read just before, equals each of its counters now
 * (into @now) less @base.
 */
static int row_equals_sysfs(const char *text, const char *dev,
			    const long long *base, long long *now)
{
	long long got[NCOUNTERS];
	size_t k;

	sysfs_read(dev, now);
	if (module_row(text, dev, got))
		return -1;
	for (k = 0; k < NCOUNTERS; k++)
		CHECK(got[k] == now[k] - base[k],
		      "%s %s: module %lld, the device's delta %lld", dev,
		      counters[k], got[k], now[k] - base[k]);
	return 0;
}

/*
 * One read of drops_devices: the row of each of @devs (@n of them)
 * equals its counters now (into @now) less @base.
 */
static int rows_equal_sysfs(const char *const *devs, size_t n,
			    long long (*base)[NCOUNTERS],
			    long long (*now)[NCOUNTERS])
{
	char *text = read_file(DEVICES);
	size_t d;
	int rc = 0;

	CHECK(text, "cannot read %s", DEVICES);
	note("%s", text);
	for (d = 0; d < n && !rc; d++)
		rc = row_equals_sysfs(text, devs[d], base[d], now[d]);
	free(text);
	return rc;
}

/*
 * The tool says @want for skdd1's rx_dropped: in `-j drops`' devices and
 * in `prom`'s skbprof_device_drops_total.
 */
static int tool_agrees(long long want)
{
	char *out, line[160];
	struct stat st;
	int status, ok;

	CHECK(stat("/proc/1/ns/net", &st) == 0, "netns inode");
	out = sh_out(&status, TOOL " -j drops 2>&1");
	snprintf(line, sizeof(line),
		 "{\"netns\":%llu,\"dev\":\"skdd1\",\"rx_dropped\":%lld,",
		 (unsigned long long)st.st_ino, want);
	ok = status == 0 && strstr(out, line);
	if (!ok)
		note("skbprof -j drops, want %s:\n%.1000s", line, out);
	free(out);
	CHECK(ok, "skbprof -j drops: no skdd1 row with rx_dropped %lld", want);
	out = sh_out(&status, TOOL " prom 2>&1");
	snprintf(line, sizeof(line),
		 "skbprof_device_drops_total{netns=\"%llu\",dev=\"skdd1\",counter=\"rx_dropped\"} %lld\n",
		 (unsigned long long)st.st_ino, want);
	ok = status == 0 && strstr(out, line);
	free(out);
	CHECK(ok, "skbprof prom: no line %s", line);
	return 0;
}

/*
 * The rows of skdd0 and skdd1 equal their counters' deltas since the
 * reset, each counter; devices without drops have no row; a reset
 * empties them.
 */
TEST(drops_devices_equal_sysfs)
{
	static const char *const devs[] = { "skdd0", "skdd1" };
	long long a[2][NCOUNTERS], b[2][NCOUNTERS], c[2][NCOUNTERS];
	char *text = NULL;
	size_t d;
	int rc = -1, tries;

	CHECK(skbprof_load("stages=drops") == 0, "load");
	if (veth_pair(&dd_pair))
		goto out;
	/* the pair idle across the reset: both reads agree */
	for (tries = 0; tries < 20; tries++) {
		for (d = 0; d < 2; d++)
			sysfs_read(devs[d], a[d]);
		if (write_file(CONTROL, "reset\n")) {
			fail("reset");
			goto out;
		}
		for (d = 0; d < 2; d++)
			sysfs_read(devs[d], b[d]);
		if (!memcmp(a, b, sizeof(a)))
			break;
	}
	if (tries == 20) {
		fail("the pair's counters moved across every reset");
		goto out;
	}
	text = read_file(DEVICES);
	if (!text || strstr(text, " skdd0 ") || strstr(text, " skdd1 ")) {
		fail("rows before any drop:\n%s", text ? text : "(none)");
		goto out;
	}
	free(text);
	text = NULL;
	if (send_frames(37))
		goto out;
	if (rows_equal_sysfs(devs, 2, b, c))
		goto out;
	if (c[1][0] - b[1][0] < 37) {
		fail("skdd1 rx_dropped rose by %lld: want 37", c[1][0] - b[1][0]);
		goto out;
	}
	if (tool_agrees(c[1][0] - b[1][0]))
		goto out;
	if (write_file(CONTROL, "reset\n"))
		goto out;
	text = read_file(DEVICES);
	if (!text || strstr(text, " skdd0 ") || strstr(text, " skdd1 ")) {
		fail("rows after reset:\n%s", text ? text : "(none)");
		goto out;
	}
	rc = 0;
out:
	free(text);
	veth_pair_del(&dd_pair);
	return rc;
}

/*
 * sktun0, held open and never read, takes datagrams to 10.203.0.2 until
 * its queue is full: tun drops the rest itself (tx_dropped).  The row
 * equals the device's counters since the reset.
 */
TEST(drops_devices_tun_tx_dropped)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(9) };
	static const char *const dev = "sktun0";
	long long b[NCOUNTERS], c[NCOUNTERS];
	struct ifreq ifr;
	int fd = -1, s = -1, i, rc = -1;

	CHECK(kmod_probe("tun") == 0, "cannot load tun");
	CHECK(skbprof_load("stages=drops") == 0, "load");
	fd = open("/dev/net/tun", O_RDWR);
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "sktun0");
	if (fd < 0 || ioctl(fd, TUNSETIFF, &ifr)) {
		fail("/dev/net/tun: %s", strerror(errno));
		goto out;
	}
	if (write_file("/proc/sys/net/ipv6/conf/sktun0/disable_ipv6", "1") ||
	    sh(IP " addr add 10.203.0.1/24 dev sktun0 && " IP " link set sktun0 up")) {
		fail("sktun0 up");
		goto out;
	}
	if (reset_idle(dev, b))
		goto out;
	s = socket(AF_INET, SOCK_DGRAM, 0);
	inet_pton(AF_INET, "10.203.0.2", &to.sin_addr);
	for (i = 0; s >= 0 && i < 1000; i++)
		sendto(s, "x", 1, 0, (void *)&to, sizeof(to));
	if (rows_equal_sysfs(&dev, 1, &b, &c))
		goto out;
	if (c[5] - b[5] <= 0) {
		fail("sktun0 dropped nothing of 1000 datagrams");
		goto out;
	}
	rc = 0;
out:
	if (s >= 0)
		close(s);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* skdd2 --- skdd3 and skdd4 --- skdd5: the bond's slaves, and their peers */
static const struct veth bond_pairs[] = {
	{ .a = { .dev = "skdd2" }, .b = { .dev = "skdd3" } },
	{ .a = { .dev = "skdd4" }, .b = { .dev = "skdd5" } },
};

/*
 * Frames into the backup slave of an active-backup bond: the bond hands
 * them back for exact delivery only, nothing takes 0x88b5 on skdd4, and
 * skdd4 counts them in rx_nohandler.  The row equals the counters.
 */
TEST(drops_devices_bond_rx_nohandler)
{
	static const char *const dev = "skdd4";
	long long b[NCOUNTERS], c[NCOUNTERS];
	int rc = -1;

	CHECK(kmod_probe("veth") == 0 && kmod_probe("bonding") == 0,
	      "cannot load veth and bonding");
	CHECK(skbprof_load("stages=drops") == 0, "load");
	sh(IP " link del skbond0 2>/dev/null");
	if (veth_pair(&bond_pairs[0]) || veth_pair(&bond_pairs[1]) ||
	    sh(IP " link add skbond0 type bond mode active-backup") ||
	    write_file("/proc/sys/net/ipv6/conf/skbond0/disable_ipv6", "1") ||
	    write_file("/proc/sys/net/ipv6/conf/skdd3/disable_ipv6", "1") ||
	    write_file("/proc/sys/net/ipv6/conf/skdd5/disable_ipv6", "1") ||
	    sh(IP " link set skdd2 master skbond0 && "
	       IP " link set skdd4 master skbond0 && "
	       IP " link set skbond0 up && " IP " link set skdd3 up && "
	       IP " link set skdd5 up")) {
		fail("cannot make the bond");
		goto out;
	}
	if (reset_idle(dev, b))
		goto out;
	if (send_frames_on("skdd5", 29))
		goto out;
	if (rows_equal_sysfs(&dev, 1, &b, &c))
		goto out;
	if (c[4] - b[4] < 29) {
		fail("skdd4 rx_nohandler rose by %lld: want 29", c[4] - b[4]);
		goto out;
	}
	rc = 0;
out:
	sh(IP " link del skbond0 2>/dev/null");
	veth_pair_del(&bond_pairs[0]);
	veth_pair_del(&bond_pairs[1]);
	return rc;
}

#define MANY_NS		4	/* namespaces skddns0..3 */
#define MANY_PAIRS	4	/* idle veth pairs in each, besides skddpN */
#define MANY_CHUNK	4	/* devdrops_chunk: devices per RCU section */
#define BATCH_MAX	"/sys/module/skbprof/parameters/devdrops_batch_max"

/*
 * @dev's rx_dropped, rx_missed_errors and tx_dropped in namespace @ns
 * (NULL: this one), as `ip -s link` prints them (RX: bytes packets
 * errors dropped missed ...; TX: bytes packets errors dropped ...).
 */
static int ip_drops(const char *ns, const char *dev, long long *v)
{
	long long x[5], y[4];
	const char *rx, *tx;
	char *out;
	int st, ok;

	out = sh_out(&st, IP " %s%s -s link show dev %s", ns ? "-n " : "",
		     ns ? ns : "", dev);
	rx = out ? strstr(out, "RX:") : NULL;
	tx = out ? strstr(out, "TX:") : NULL;
	rx = rx ? strchr(rx, '\n') : NULL;
	tx = tx ? strchr(tx, '\n') : NULL;
	ok = st == 0 && rx && tx &&
	     sscanf(rx, "%lld %lld %lld %lld %lld", &x[0], &x[1], &x[2],
		    &x[3], &x[4]) == 5 &&
	     sscanf(tx, "%lld %lld %lld %lld", &y[0], &y[1], &y[2], &y[3]) == 4;
	if (!ok)
		note("ip -s link show dev %s:\n%s", dev, out ? out : "(none)");
	free(out);
	CHECK(ok, "ip -s link: no counters of %s", dev);
	v[0] = x[3];
	v[1] = x[4];
	v[2] = y[3];
	return 0;
}

/*
 * Namespace @ino's row of @dev in @text: its rx_dropped,
 * rx_missed_errors and tx_dropped into @v (zeros without a row).  How
 * many rows namespace @ino has goes to *@rows.
 */
static int ns_row(const char *text, unsigned long long ino, const char *dev,
		  long long *v, int *rows)
{
	char head[96], pre[32];
	const char *line;
	long long c[NCOUNTERS];

	memset(v, 0, 3 * sizeof(*v));
	snprintf(pre, sizeof(pre), "\n%llu ", ino);
	*rows = 0;
	for (line = strstr(text, pre); line; line = strstr(line + 1, pre))
		++*rows;
	snprintf(head, sizeof(head), "\n%llu %s ", ino, dev);
	line = strstr(text, head);
	if (!line)
		return 0;
	CHECK(sscanf(line + strlen(head), "%lld %lld %lld %lld %lld %lld",
		     &c[0], &c[1], &c[2], &c[3], &c[4], &c[5]) == 6,
	      "row of %s: %.120s", dev, line + 1);
	v[0] = c[0];
	v[1] = c[1];
	v[2] = c[5];
	return 0;
}

/* Names of many pair @i: skddhI --- skddnsI: skddpI, IPv6 off, up. */
struct many_pair {
	char h[16], ns[16], p[16];
	struct veth v;
};

static void many_pair(int i, struct many_pair *m)
{
	snprintf(m->h, sizeof(m->h), "skddh%d", i);
	snprintf(m->ns, sizeof(m->ns), "skddns%d", i);
	snprintf(m->p, sizeof(m->p), "skddp%d", i);
	m->v = (struct veth){
		.a = { .dev = m->h },
		.b = { .ns = m->ns, .dev = m->p },
		.flags = VETH_IPV6_OFF | VETH_UP,
	};
}

static void many_cleanup(void)
{
	struct many_pair m;
	int i;

	for (i = 0; i < MANY_NS; i++) {
		many_pair(i, &m);
		veth_pair_del(&m.v);
	}
}

static int many_make(unsigned long long *ino)
{
	struct many_pair m;
	char path[48];
	struct stat st;
	int i, k;

	for (i = 0; i < MANY_NS; i++) {
		many_pair(i, &m);
		if (veth_pair(&m.v))
			return -1;
		/* idle pairs beside it, down */
		for (k = 0; k < MANY_PAIRS; k++)
			CHECK(sh(IP " -n skddns%d link add skddx%d type veth peer name skddy%d",
				 i, k, k) == 0, "veths of skddns%d", i);
		snprintf(path, sizeof(path), "/run/netns/skddns%d", i);
		CHECK(stat(path, &st) == 0, "stat %s", path);
		ino[i] = st.st_ino;
	}
	return 0;
}

/*
 * Namespaces skddns0..3, each with MANY_PAIRS idle veth pairs and
 * skddpN, the peer of skddhN in the initial namespace.  Frames of an
 * ethertype nothing handles, 10 + N sent on skddhN, are dropped by
 * skddpN (rx_dropped).  With devdrops_chunk at MANY_CHUNK, a read of
 * drops_devices crosses many RCU sections, within a namespace and
 * between them, and still equals `ip -s link` in every namespace: the
 * row of skddpN has each counter's delta since the reset, the idle
 * pairs have none.  No section read more than MANY_CHUNK devices
 * (devdrops_batch_max, of the test build): one section for every
 * device, as before, fails here.
 */
TEST(drops_devices_many_netns_chunked)
{
	long long base[MANY_NS][3], now[MANY_NS][3], got[3], idle[3];
	unsigned long long ino[MANY_NS];
	char name[16], ns[16], params[48], *text = NULL, *max = NULL;
	int i, k, rows, rc = -1;

	CHECK(kmod_probe("veth") == 0, "cannot load veth");
	snprintf(params, sizeof(params), "stages=drops devdrops_chunk=%d",
		 MANY_CHUNK);
	CHECK(skbprof_load(params) == 0, "load");
	if (many_make(ino))
		goto out;
	/* every skddpN idle across the reset: both reads agree */
	for (k = 0; k < 20; k++) {
		for (i = 0; i < MANY_NS; i++) {
			snprintf(ns, sizeof(ns), "skddns%d", i);
			snprintf(name, sizeof(name), "skddp%d", i);
			if (ip_drops(ns, name, base[i]))
				goto out;
		}
		if (write_file(CONTROL, "reset\n")) {
			fail("reset");
			goto out;
		}
		for (i = 0; i < MANY_NS; i++) {
			snprintf(ns, sizeof(ns), "skddns%d", i);
			snprintf(name, sizeof(name), "skddp%d", i);
			if (ip_drops(ns, name, now[i]))
				goto out;
		}
		if (!memcmp(base, now, sizeof(base)))
			break;
	}
	if (k == 20) {
		fail("the counters moved across every reset");
		goto out;
	}
	for (i = 0; i < MANY_NS; i++) {
		snprintf(name, sizeof(name), "skddh%d", i);
		if (send_frames_on(name, 10 + i))
			goto out;
	}
	if (write_file(BATCH_MAX, "0")) {
		fail("cannot write %s: not a test build?", BATCH_MAX);
		goto out;
	}
	text = read_file(DEVICES);
	if (!text) {
		fail("cannot read %s", DEVICES);
		goto out;
	}
	note("%s", text);
	for (i = 0; i < MANY_NS; i++) {
		snprintf(ns, sizeof(ns), "skddns%d", i);
		snprintf(name, sizeof(name), "skddp%d", i);
		if (ip_drops(ns, name, now[i]) ||
		    ns_row(text, ino[i], name, got, &rows))
			goto out;
		for (k = 0; k < 3; k++)
			if (got[k] != now[i][k] - base[i][k]) {
				fail("%s %s: module %lld, ip -s link's delta %lld",
				     name, k == 0 ? "rx_dropped" :
				     k == 1 ? "rx_missed_errors" : "tx_dropped",
				     got[k], now[i][k] - base[i][k]);
				goto out;
			}
		if (got[0] < 10 + i) {
			fail("%s rx_dropped rose by %lld: want %d", name,
			     got[0], 10 + i);
			goto out;
		}
		if (rows != 1) {
			fail("skddns%d has %d rows, want skddp%d's alone",
			     i, rows, i);
			goto out;
		}
		/* an idle pair: no drops in ip -s link, no row */
		if (ip_drops(ns, "skddx0", idle) ||
		    idle[0] || idle[1] || idle[2]) {
			fail("skddx0 of %s counted drops", ns);
			goto out;
		}
	}
	max = read_file(BATCH_MAX);
	if (!max || atoi(max) <= 0 || atoi(max) > MANY_CHUNK) {
		fail("%d devices read in one RCU section, want 1 to %d",
		     max ? atoi(max) : -1, MANY_CHUNK);
		goto out;
	}
	rc = 0;
out:
	free(text);
	free(max);
	many_cleanup();
	return rc;
}
