// SPDX-License-Identifier: GPL-2.0
/*
 * Stage latency against ground truth: two network namespaces joined by a
 * veth pair, traffic whose timing the test sets itself (a netem delay, a
 * receiver that lets data wait), packet counts the test knows or reads
 * from the kernel's own SNMP counters.
 *
 * The guest is quiet: a test resets the module, makes its traffic and
 * reads the files.  The namespaces have IPv6 off (IPv4 tests) and static
 * neighbours, so no ARP or neighbour discovery adds packets.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <linux/ethtool.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <linux/if_link.h>
#include <linux/ip.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define NS_A	"skbp_a"	/* sender side */
#define NS_B	"skbp_b"	/* receiver side */
#define MAC_A	"02:00:00:00:00:0a"
#define MAC_B	"02:00:00:00:00:0b"
#define IP4_A	"10.201.0.1"
#define IP4_B	"10.201.0.2"
#define IP6_A	"fd00:201::1"
#define IP6_B	"fd00:201::2"
#define PORT	5001

#define MS	1000000ULL	/* ns */

/* iproute2, not the busybox applets the shell prefers */
#define IP	"/usr/sbin/ip"
#define TC	"/usr/sbin/tc"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void sleep_ns(unsigned long long ns)
{
	struct timespec ts = { ns / 1000000000ULL, ns % 1000000000ULL };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int control(const char *cmds)
{
	int err = write_file(DEBUGFS_DIR "/control", cmds);

	CHECK(err == 0, "writing '%s' to control: %s", cmds, strerror(-err));
	return 0;
}

/* The procs row of @dir @stage @pid @comm: 0 if found. */
static int procs_row(const char *dir, const char *stage, int pid,
		     const char *comm, struct row *r)
{
	struct table t;
	char pids[16];
	int i;

	memset(r, 0, sizeof(*r));
	if (table_read(&t, "procs"))
		return -1;
	snprintf(pids, sizeof(pids), "%d", pid);
	i = table_find(&t, 0, "dir", dir, "stage", stage, "pid", pids,
		       "comm", comm, NULL);
	r->count = table_num(&t, i, "count");
	r->p50 = table_num(&t, i, "p50");
	r->p99 = table_num(&t, i, "p99");
	r->max = table_num(&t, i, "max");
	table_free(&t);
	return i < 0 ? -1 : 0;
}

static unsigned long long procs_count(const char *dir, const char *stage,
				      int pid, const char *comm)
{
	struct row r;

	return procs_row(dir, stage, pid, comm, &r) ? 0 : r.count;
}

/* A counter of /proc/net/snmp or snmp6 as seen in namespace ns. */
static long long snmp(const char *ns, const char *group, const char *field)
{
	char *out, *names, *vals, *p;
	long long v = -1;
	int st, i, want = -1;

	if (!strcmp(group, "Ip6") || !strcmp(group, "Udp6")) {
		out = sh_out(&st, IP " netns exec %s cat /proc/net/snmp6 | "
			     "awk '$1 == \"%s%s\" { print $2 }'", ns, group,
			     field);
		v = st == 0 && *out ? atoll(out) : -1;
		free(out);
		return v;
	}
	out = sh_out(&st, IP " netns exec %s cat /proc/net/snmp | grep '^%s:'",
		     ns, group);
	names = out;
	vals = strchr(out, '\n');
	if (st || !vals) {
		free(out);
		return -1;
	}
	*vals++ = 0;
	for (i = 0, p = strtok(names, " \n"); p; p = strtok(NULL, " \n"), i++)
		if (!strcmp(p, field))
			want = i;
	for (i = 0, p = strtok(vals, " \n"); p; p = strtok(NULL, " \n"), i++)
		if (i == want)
			v = atoll(p);
	free(out);
	return v;
}

static int xdp_pass_attach(const char *ifname);

struct dev_set {
	const char *ifname;
	unsigned int cmd, on;
};

static int dev_set(void *arg)
{
	const struct dev_set *d = arg;

	return d->cmd ? ethtool_set(d->ifname, d->cmd, d->on) :
			xdp_pass_attach(d->ifname);
}

/*
 * From inside namespace @ns: set ethtool flag @cmd of @ifname to @on, or
 * without @cmd attach an XDP program that passes every frame
 * (xdp_pass_attach()); 0 or -errno.
 */
static int ns_dev_set(const char *ns, const char *ifname, unsigned int cmd,
		      unsigned int on)
{
	struct dev_set d = { ifname, cmd, on };

	return in_ns(ns, dev_set, &d);
}

/*
 * The topology: two namespaces and a veth pair, GRO off, static
 * neighbours, IPv6 off (fixture veth4) or on with addresses that skip
 * DAD (veth6); veth4_gso1 is veth4 with va's gso_max_segs at 1.
 *
 *   NS_A: va MAC_A IP4_A [IP6_A]  ---  NS_B: vb MAC_B IP4_B [IP6_B]
 */
#define VETH_AB(v6, va_opts) {						\
	.a = { NS_A, "va", MAC_A, IP4_A "/24", v6 ? IP6_A "/64" : NULL,	\
	       va_opts },						\
	.b = { NS_B, "vb", MAC_B, IP4_B "/24", v6 ? IP6_B "/64" : NULL,	\
	       NULL },							\
	.flags = (v6 ? VETH_IPV6_ON : VETH_IPV6_OFF) | VETH_NEIGH |	\
		 VETH_NO_GRO | VETH_UP | VETH_LO_UP,			\
}

static const struct veth veth4 = VETH_AB(false, NULL);
static const struct veth veth6 = VETH_AB(true, NULL);
static const struct veth veth4_gso1 = VETH_AB(false, "gso_max_segs 1");

FIXTURE(veth4);
FIXTURE_SETUP(veth4) { return veth_pair(&veth4); }
FIXTURE_TEARDOWN(veth4) { veth_pair_del(&veth4); }

FIXTURE(veth6);
FIXTURE_SETUP(veth6) { return veth_pair(&veth6); }
FIXTURE_TEARDOWN(veth6) { veth_pair_del(&veth6); }

FIXTURE(veth4_gso1);
FIXTURE_SETUP(veth4_gso1) { return veth_pair(&veth4_gso1); }
FIXTURE_TEARDOWN(veth4_gso1) { veth_pair_del(&veth4_gso1); }

/* ---- traffic ---- */

struct peer {
	pid_t pid;
	int to[2];		/* parent -> child */
	int from[2];		/* child -> parent */
};

static void tell(int fd, char c)
{
	if (write(fd, &c, 1) != 1)
		_exit(90);
}

static char hear(int fd)
{
	char c = 0;

	if (read(fd, &c, 1) != 1)
		return 0;
	return c;
}

struct traffic {
	int family;		/* AF_INET, AF_INET6 */
	int type;		/* SOCK_DGRAM, SOCK_STREAM */
	int n;			/* messages */
	int port;		/* the receiver's; 0: PORT */
	unsigned int mark;	/* the sender's SO_MARK; 0: none */
	/* called when both ends are up, before the first message */
	int (*ready)(struct traffic *t);
	unsigned long long wait_ns;	/* receiver lets each wait this long */
	bool peek;		/* receiver peeks at each before the wait */
	bool lockstep;		/* UDP too: one message in flight at a time */
	bool mapped;		/* AF_INET: the sender's socket is IPv6 */
	const char *rx_comm, *tx_comm;
	unsigned long long waited_min;	/* out: shortest wait it made */
	/* out: longest time from a sendto() to the end of its recv() */
	unsigned long long e2e_max;
	pid_t rx_pid, tx_pid;		/* out */
};

static void fill_addr(int family, const char *v4, const char *v6, int port,
		      struct sockaddr_storage *ss, socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (!port)
		port = PORT;
	if (family == AF_INET) {
		struct sockaddr_in *s = (void *)ss;

		s->sin_family = AF_INET;
		s->sin_port = htons(port);
		inet_pton(AF_INET, v4, &s->sin_addr);
		*len = sizeof(*s);
	} else {
		struct sockaddr_in6 *s = (void *)ss;

		s->sin6_family = AF_INET6;
		s->sin6_port = htons(port);
		inet_pton(AF_INET6, v6, &s->sin6_addr);
		*len = sizeof(*s);
	}
}

static int wait_readable(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, 20000) == 1 ? 0 : -1;
}

/*
 * The receiver (namespace B).  Per message: wait until it is queued, peek
 * at it if asked, let it wait t->wait_ns, read it, then tell the parent,
 * which lets the sender send the next one (so TCP never coalesces two in
 * the receive queue).  For TCP it answers each message with one byte.
 * Exit status: 0 or a step number.
 */
static int receiver(struct traffic *t, struct peer *p)
{
	struct sockaddr_storage ss;
	unsigned long long w, minw = ~0ULL, sent, e2e[2] = { ~0ULL, 0 };
	int s, c, i, one = 1;
	socklen_t len;
	char buf[256];

	if (enter_ns(NS_B))
		return 1;
	prctl(PR_SET_NAME, t->rx_comm);
	fill_addr(t->family, IP4_B, IP6_B, t->port, &ss, &len);
	s = socket(t->family, t->type, 0);
	if (s < 0)
		return 2;
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(s, (void *)&ss, len))
		return 3;
	if (t->type == SOCK_STREAM && listen(s, 1))
		return 4;
	tell(p->from[1], 'r');			/* ready */
	c = s;
	if (t->type == SOCK_STREAM) {
		c = accept(s, NULL, NULL);
		if (c < 0)
			return 5;
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	}
	for (i = 0; i < t->n; i++) {
		if (wait_readable(c))
			return 6;
		w = now_ns();
		if (t->peek && recv(c, buf, sizeof(buf), MSG_PEEK) <= 0)
			return 11;
		if (t->wait_ns)
			sleep_ns(t->wait_ns);
		if (recv(c, buf, t->type == SOCK_STREAM ? 100 : sizeof(buf),
			 MSG_WAITALL) != 100)
			return 7;
		w = now_ns() - w;
		if (w < minw)
			minw = w;
		/* the sender's clock reading, taken just before its sendto() */
		memcpy(&sent, buf, sizeof(sent));
		if (now_ns() - sent > e2e[1])
			e2e[1] = now_ns() - sent;
		if (t->type == SOCK_STREAM && send(c, "k", 1, 0) != 1)
			return 8;
		tell(p->from[1], 'g');		/* got one */
	}
	e2e[0] = minw;
	if (write(p->from[1], e2e, sizeof(e2e)) != sizeof(e2e))
		return 9;
	if (t->type == SOCK_STREAM) {
		/* wait for the sender's close, then close */
		if (recv(c, buf, 1, 0) != 0)
			return 10;
		close(c);
	}
	close(s);
	return 0;
}

static int sender(struct traffic *t, struct peer *p)
{
	struct sockaddr_storage ss;
	unsigned long long stamp;
	char buf[100], k;
	socklen_t len;
	int s, i, one = 1;

	if (enter_ns(NS_A))
		return 1;
	prctl(PR_SET_NAME, t->tx_comm);
	memset(buf, 'x', sizeof(buf));
	if (t->mapped)		/* IP4_B as an IPv4-mapped IPv6 address */
		fill_addr(AF_INET6, NULL, "::ffff:" IP4_B, t->port, &ss, &len);
	else
		fill_addr(t->family, IP4_B, IP6_B, t->port, &ss, &len);
	s = socket(ss.ss_family, t->type, 0);
	if (s < 0)
		return 2;
	if (t->mark &&
	    setsockopt(s, SOL_SOCKET, SO_MARK, &t->mark, sizeof(t->mark)))
		return 7;
	if (t->type == SOCK_STREAM) {
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(s, (void *)&ss, len))
			return 3;
	}
	for (i = 0; i < t->n; i++) {
		if (hear(p->to[0]) != 's')	/* parent says: send */
			return 4;
		stamp = now_ns();
		memcpy(buf, &stamp, sizeof(stamp));
		if (sendto(s, buf, sizeof(buf), 0, (void *)&ss, len) != 100)
			return 5;
		if (t->type == SOCK_STREAM && recv(s, &k, 1, 0) != 1)
			return 6;
	}
	close(s);
	return 0;
}

static int spawn(struct peer *p, int (*fn)(struct traffic *, struct peer *),
		 struct traffic *t)
{
	if (pipe(p->to) || pipe(p->from))
		return -1;
	fflush(stdout);
	p->pid = fork();
	if (p->pid < 0)
		return -1;
	if (p->pid == 0) {
		close(p->to[1]);
		close(p->from[0]);
		_exit(fn(t, p));
	}
	close(p->to[0]);
	close(p->from[1]);
	return 0;
}

static int reap_child(struct peer *p)
{
	int st;

	close(p->to[1]);
	if (waitpid(p->pid, &st, 0) < 0)
		return -1;
	close(p->from[0]);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * Run the traffic: the receiver in B, the sender in A.  UDP messages are
 * sent one after the other when wait_ns is 0 and lockstep unset (they
 * queue up), else one at a time, like TCP.
 */
static int run_traffic(struct traffic *t)
{
	bool lockstep = t->type == SOCK_STREAM || t->wait_ns || t->lockstep;
	unsigned long long got[2];
	struct peer rx, tx;
	int i, a, b;

	CHECK(spawn(&rx, receiver, t) == 0, "cannot start the receiver");
	if (hear(rx.from[0]) != 'r') {
		reap_child(&rx);
		return fail("receiver did not get ready");
	}
	CHECK(spawn(&tx, sender, t) == 0, "cannot start the sender");
	t->rx_pid = rx.pid;
	t->tx_pid = tx.pid;
	if (t->ready && t->ready(t)) {
		kill(tx.pid, SIGKILL);
		kill(rx.pid, SIGKILL);
		reap_child(&tx);
		reap_child(&rx);
		return fail("preparing the traffic failed");
	}
	for (i = 0; i < t->n; i++) {
		tell(tx.to[1], 's');
		if (lockstep && hear(rx.from[0]) != 'g')
			break;
	}
	for (; !lockstep && i > 0; i--)
		if (hear(rx.from[0]) != 'g')
			break;
	if (read(rx.from[0], got, sizeof(got)) == sizeof(got)) {
		t->waited_min = got[0];
		t->e2e_max = got[1];
	} else {
		t->waited_min = 0;
		t->e2e_max = 0;
	}
	a = reap_child(&tx);
	b = reap_child(&rx);
	CHECK(a == 0, "sender failed at step %d", a);
	CHECK(b == 0, "receiver failed at step %d", b);
	return 0;
}

static int load_and_reset(const char *params)
{
	int err = skbprof_load(params);

	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	err = write_file(DEBUGFS_DIR "/control", "reset\n");
	CHECK(err == 0, "reset: %s", strerror(-err));
	return 0;
}

/* Wait (bounded) until the stamp table is empty again. */
static int check_no_leak(void)
{
	long long used = -1;
	int i;

	for (i = 0; i < 50; i++) {
		used = stat_value("table_in_use");
		if (used == 0)
			return 0;
		sleep_ns(100 * MS);
	}
	note("stats:\n%s", read_file(DEBUGFS_DIR "/stats"));
	return fail("table_in_use is %lld after the traffic, want 0", used);
}

static void dump(void)
{
	char *s = read_file(DEBUGFS_DIR "/latency");

	note("latency:\n%s", s ? s : "(unreadable)");
	free(s);
}

#define CHECK_ROW(text, dir, stage, want)				\
	do {								\
		unsigned long long __c = row_count(text, dir, stage);	\
		if (__c != (unsigned long long)(want)) {		\
			dump();						\
			free(text);					\
			return fail("%s %s count %llu, want %llu", dir,	\
				    stage, __c, (unsigned long long)(want)); \
		}							\
	} while (0)

/* ---- tests ---- */

TEST(latency_stages_all_active)
{
	static const char *const want[] = {
		"rx backlog", "rx drv-ip", "rx ip-tcp", "rx ip-udp", "rx tcp-app",
		"rx udp-app", "rx rx-total", "tx app-tcp", "tx app-udp",
		"tx tcp-ip", "tx udp-ip", "tx ip-dev", "tx dev-drv",
		"tx tx-total",
	};
	char dir[8], stage[32];
	struct table t;
	size_t i;

	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	CHECK(table_read(&t, "stages") == 0, "cannot read stages");
	for (i = 0; i < sizeof(want) / sizeof(*want); i++) {
		sscanf(want[i], "%7s %31s", dir, stage);
		if (table_find(&t, 0, "dir", dir, "stage", stage,
			       "state", "active", NULL) < 0) {
			note("stages:\n%s", t.text);
			table_free(&t);
			return fail("stage %s is not active", want[i]);
		}
	}
	table_free(&t);
	return 0;
}

/*
 * A netem delay D on va: dev-drv of the flow has p50 in [D, 1.3 D]; the
 * stages before the qdisc and b's backlog stay far below D.
 */
TEST_F(veth4, latency_netem_dev_drv)
{
	const unsigned long long d = 100 * MS;
	struct traffic t = {
		.family = AF_INET, .type = SOCK_DGRAM, .n = 20,
		.rx_comm = "skbp_nrx", .tx_comm = "skbp_ntx",
	};
	struct row r;
	char *s;

	CHECK(kmod_probe("sch_netem") == 0, "cannot load sch_netem");
	CHECK(sh(IP " netns exec " NS_A " " TC " qdisc add dev va root netem delay %llums",
		 d / MS) == 0, "cannot add netem");
	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	CHECK(run_traffic(&t) == 0, "traffic");
	s = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(s, "cannot read latency");
	CHECK_ROW(s, "tx", "dev-drv", t.n);
	latency_row(s, "tx", "dev-drv", &r);
	note("netem %llu ns: dev-drv min %llu p50 %llu p99 %llu max %llu",
	     d, r.min, r.p50, r.p99, r.max);
	if (r.p50 < d || r.p50 * 10 > d * 13) {
		dump();
		free(s);
		return fail("dev-drv p50 %llu ns, want [%llu, %llu]", r.p50, d,
			    d * 13 / 10);
	}
	/* the other stages are not delayed by netem */
	latency_row(s, "tx", "ip-dev", &r);
	if (r.max >= d) {
		dump();
		free(s);
		return fail("ip-dev max %llu ns includes the netem delay",
			    r.max);
	}
	/*
	 * veth hands each datagram to netif_rx(): every one passes b's
	 * backlog, whose wait netem (before the driver) does not move
	 */
	CHECK_ROW(s, "rx", "backlog", t.n);
	latency_row(s, "rx", "backlog", &r);
	note("rx backlog: min %llu p50 %llu p99 %llu max %llu", r.min, r.p50,
	     r.p99, r.max);
	/* measured: a few ms under TCG; the delay would make it 100 */
	if (r.max * 2 >= d) {
		dump();
		free(s);
		return fail("rx backlog max %llu ns: half the netem delay or more",
			    r.max);
	}
	free(s);
	CHECK(check_no_leak() == 0, "leak");
	return 0;
}

/*
 * The receiver lets each message wait w: its app stage lasts w or more,
 * in latency and in its own row of procs (`procs stages`).  With @peek
 * it peeks at each at once, before the wait: a peek is not the read, so
 * the stage still lasts until the read, and ends nothing early.
 */
static int app_wait(int family, int type, const char *stage, bool peek)
{
	const unsigned long long w = 300 * MS;
	struct traffic t = {
		.family = family, .type = type, .n = 3, .wait_ns = w,
		.peek = peek, .rx_comm = "skbp_wrx", .tx_comm = "skbp_wtx",
	};
	struct row r, p;
	char *s;

	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	CHECK(control("procs stages\n") == 0, "procs stages");
	CHECK(run_traffic(&t) == 0, "traffic");
	CHECK(t.waited_min >= w, "receiver waited only %llu ns", t.waited_min);
	s = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(s, "cannot read latency");
	/* TCP: the sender reads a 1-byte answer to each, without waiting */
	CHECK_ROW(s, "rx", stage, type == SOCK_STREAM ? 2 * t.n : t.n);
	latency_row(s, "rx", stage, &r);
	free(s);
	CHECK(procs_row("rx", stage, t.rx_pid, t.rx_comm, &p) == 0,
	      "no procs row rx %s for %d %s", stage, t.rx_pid, t.rx_comm);
	note("wait %llu ns: %s of the receiver: count %llu p50 %llu max %llu; sendto to recv at most %llu ns",
	     w, stage, p.count, p.p50, p.max, t.e2e_max);
	CHECK_EQ(p.count, t.n);
	/*
	 * Each datagram waits w before it is read, so the stage lasts w or
	 * more, and is part of the time from sendto() to the end of recv()
	 * the applications measured, so no longer than that: the bound of
	 * the max, which a loaded machine can stretch past 1.3 w.
	 */
	if (p.p50 < w || p.p50 * 10 > w * 13 || p.max > t.e2e_max) {
		dump();
		return fail("%s p50 %llu max %llu ns, want p50 within [%llu, %llu] and max <= %llu",
			    stage, p.p50, p.max, w, w * 13 / 10, t.e2e_max);
	}
	/* UDP on a quiet IPv4 link: every receive timeline reaches the read */
	if (family == AF_INET && type == SOCK_DGRAM)
		CHECK_EQ(rx_incomplete(), 0);
	CHECK(check_no_leak() == 0, "leak");
	return 0;
}

TEST_F(veth4, latency_udp_app_wait)
{
	return app_wait(AF_INET, SOCK_DGRAM, "udp-app", false);
}

TEST_F(veth4, latency_tcp_app_wait)
{
	return app_wait(AF_INET, SOCK_STREAM, "tcp-app", false);
}

TEST_F(veth6, latency_udp6_app_wait)
{
	return app_wait(AF_INET6, SOCK_DGRAM, "udp-app", false);
}

TEST_F(veth4, latency_udp_peek_ends_at_read)
{
	return app_wait(AF_INET, SOCK_DGRAM, "udp-app", true);
}

TEST_F(veth4, latency_tcp_peek_ends_at_read)
{
	return app_wait(AF_INET, SOCK_STREAM, "tcp-app", true);
}

/*
 * N datagrams on a quiet flow with GRO off: every RX and TX stage counts
 * exactly N, as do the kernel's own UDP counters; the receiving and the
 * sending process have exactly their packets in procs.  app-udp, the
 * time in the send call before UDP takes the datagram, is never 0, and
 * every send call was seen.  @mapped: an IPv6 socket sends IPv4, its call
 * going from udpv6_sendmsg() on to udp_sendmsg().
 */
static int udp_counts(int family, bool mapped)
{
	struct traffic t = {
		.family = family, .type = SOCK_DGRAM, .n = 50,
		.rx_comm = "skbp_urx", .tx_comm = "skbp_utx",
		.mapped = mapped,
	};
	struct row r;
	const char *ug = family == AF_INET ? "Udp" : "Udp6";
	long long in0, out0, in1, out1;
	static const char *const rx[] = { "drv-ip", "ip-udp", "udp-app",
					  "rx-total" };
	static const char *const tx[] = { "app-udp", "udp-ip", "ip-dev",
					  "dev-drv", "tx-total" };
	char *s;
	size_t i;

	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	in0 = snmp(NS_B, ug, "InDatagrams");
	out0 = snmp(NS_A, ug, "OutDatagrams");
	CHECK(run_traffic(&t) == 0, "traffic");
	in1 = snmp(NS_B, ug, "InDatagrams");
	out1 = snmp(NS_A, ug, "OutDatagrams");
	CHECK(in0 >= 0 && out0 >= 0, "cannot read the SNMP counters");
	CHECK_EQ(in1 - in0, t.n);
	CHECK_EQ(out1 - out0, t.n);
	s = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(s, "cannot read latency");
	for (i = 0; i < sizeof(rx) / sizeof(*rx); i++) {
		/* IPv6 neighbour/MLD chatter passes drv-ip: UDP stages only */
		if (family == AF_INET6 && !strcmp(rx[i], "drv-ip"))
			continue;
		CHECK_ROW(s, "rx", rx[i], in1 - in0);
	}
	for (i = 0; i < sizeof(tx) / sizeof(*tx); i++)
		CHECK_ROW(s, "tx", tx[i], out1 - out0);
	CHECK_ROW(s, "rx", "ip-tcp", 0);
	CHECK_ROW(s, "tx", "app-tcp", 0);
	latency_row(s, "tx", "app-udp", &r);
	free(s);
	note("app-udp min %llu p50 %llu max %llu ns", r.min, r.p50, r.max);
	CHECK(r.min > 0, "app-udp min 0: not measured");
	CHECK_EQ(stat_value("udp_calls_unseen_tx"), 0);
	/* `procs totals`, the default: each direction's total alone */
	CHECK_EQ(procs_count("rx", "rx-total", t.rx_pid, t.rx_comm), t.n);
	CHECK_EQ(procs_count("tx", "tx-total", t.tx_pid, t.tx_comm), t.n);
	CHECK_EQ(procs_count("rx", "udp-app", t.rx_pid, t.rx_comm), 0);
	CHECK_EQ(procs_count("tx", "app-udp", t.tx_pid, t.tx_comm), 0);
	/* nothing charged to the wrong task */
	CHECK_EQ(procs_count("rx", "rx-total", t.tx_pid, t.tx_comm), 0);
	CHECK_EQ(procs_count("tx", "tx-total", t.rx_pid, t.rx_comm), 0);
	CHECK(check_no_leak() == 0, "leak");
	return 0;
}

TEST_F(veth4, latency_udp_counts_exact)
{
	return udp_counts(AF_INET, false);
}

TEST_F(veth6, latency_udp6_counts_exact)
{
	return udp_counts(AF_INET6, false);
}

TEST_F(veth4, latency_udp_v4mapped_counts_exact)
{
	return udp_counts(AF_INET, true);
}

/*
 * A corked datagram is built in the cork over several calls and sent by
 * udp_push_pending_frames(), not through ip_make_skb(); its app-udp runs
 * from the entry of the call that began it to udp_send_skb().  N
 * datagrams sent in two parts @wait_us apart (MODE udp-cork: the first
 * with MSG_MORE; udp-uncork: both under UDP_CORK, sent by the setsockopt()
 * that uncorks @wait_us after the second): app-udp and tx-total count N,
 * as OutDatagrams rises by N, with no send call unseen; every app-udp is
 * at least the wait, and at most the span the sender measured around its
 * calls.
 */
static int udp_corked(const char *mode, unsigned long long wait_us)
{
	unsigned long long lo, hi;
	long long out0, out1;
	const int n = 30;
	struct row r;
	char *s, *o;
	int st;

	CHECK(sh(IP " -n " NS_A " link set lo up") == 0, "lo up");
	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	out0 = snmp(NS_A, "Udp", "OutDatagrams");
	o = sh_out(&st, IP " netns exec " NS_A " skbprof-traffic %s " IP4_A
		   " 5011 %d 100 %llu", mode, n, wait_us);
	CHECK(o && st == 0 && sscanf(o, "span_ns %llu %llu", &lo, &hi) == 2,
	      "corked traffic: %s", o ? o : "?");
	free(o);
	out1 = snmp(NS_A, "Udp", "OutDatagrams");
	CHECK(out0 >= 0, "cannot read OutDatagrams");
	CHECK_EQ(out1 - out0, n);
	s = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(s, "cannot read latency");
	CHECK_ROW(s, "tx", "app-udp", out1 - out0);
	CHECK_ROW(s, "tx", "tx-total", out1 - out0);
	CHECK_EQ(stat_value("udp_calls_unseen_tx"), 0);
	latency_row(s, "tx", "app-udp", &r);
	free(s);
	note("%s, %llu us apart: app-udp min %llu p50 %llu max %llu ns; sender's span %llu to %llu ns",
	     mode, wait_us, r.min, r.p50, r.max, lo, hi);
	CHECK(r.min >= wait_us * 1000 && r.max <= hi,
	      "app-udp min %llu max %llu ns, want within [%llu, %llu]",
	      r.min, r.max, wait_us * 1000, hi);
	CHECK(check_no_leak() == 0, "leak");
	return 0;
}

TEST_F(veth4, latency_udp_corked_sends)
{
	return udp_corked("udp-cork", 0);
}

TEST_F(veth4, latency_udp_cork_wait)
{
	return udp_corked("udp-cork", 5000);
}

TEST_F(veth4, latency_udp_uncork_wait)
{
	return udp_corked("udp-uncork", 5000);
}

/*
 * N request/response rounds over TCP: 2N application segments, so every
 * TX stage counts exactly 2N and tcp-app 2N; every TCP segment received
 * (handshake and ACKs included) passes ip-tcp, per the kernel's InSegs.
 * With `procs stages`, each process has a row per stage, its own N.
 */
TEST_F(veth4, latency_tcp_counts_exact)
{
	struct traffic t = {
		.family = AF_INET, .type = SOCK_STREAM, .n = 20,
		.rx_comm = "skbp_trx", .tx_comm = "skbp_ttx",
	};
	static const char *const tx[] = { "app-tcp", "tcp-ip", "ip-dev",
					  "dev-drv", "tx-total" };
	long long a0, b0, a1, b1, ia0, ib0, ia1, ib1;
	unsigned long long iptcp = 0, drvip = 0;
	char *s = NULL;
	size_t i;
	int tries;

	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	CHECK(control("procs stages\n") == 0, "procs stages");
	a0 = snmp(NS_A, "Tcp", "InSegs");
	b0 = snmp(NS_B, "Tcp", "InSegs");
	ia0 = snmp(NS_A, "Ip", "InReceives");
	ib0 = snmp(NS_B, "Ip", "InReceives");
	CHECK(run_traffic(&t) == 0, "traffic");
	/* the closing handshake may still be on its way: wait for a match */
	for (tries = 0; tries < 30; tries++) {
		free(s);
		a1 = snmp(NS_A, "Tcp", "InSegs");
		b1 = snmp(NS_B, "Tcp", "InSegs");
		ia1 = snmp(NS_A, "Ip", "InReceives");
		ib1 = snmp(NS_B, "Ip", "InReceives");
		s = read_file(DEBUGFS_DIR "/latency_buckets");
		CHECK(s, "cannot read latency");
		iptcp = row_count(s, "rx", "ip-tcp");
		drvip = row_count(s, "rx", "drv-ip");
		if (iptcp == (unsigned long long)(a1 - a0 + b1 - b0) &&
		    drvip == (unsigned long long)(ia1 - ia0 + ib1 - ib0))
			break;
		sleep_ns(100 * MS);
	}
	if (iptcp != (unsigned long long)(a1 - a0 + b1 - b0) ||
	    drvip != (unsigned long long)(ia1 - ia0 + ib1 - ib0)) {
		dump();
		free(s);
		return fail("ip-tcp %llu drv-ip %llu, kernel InSegs %lld InReceives %lld",
			    iptcp, drvip, a1 - a0 + b1 - b0,
			    ia1 - ia0 + ib1 - ib0);
	}
	for (i = 0; i < sizeof(tx) / sizeof(*tx); i++)
		CHECK_ROW(s, "tx", tx[i], 2 * t.n);
	CHECK_ROW(s, "rx", "tcp-app", 2 * t.n);
	CHECK_ROW(s, "tx", "app-udp", 0);
	free(s);
	CHECK_EQ(procs_count("tx", "app-tcp", t.tx_pid, t.tx_comm), t.n);
	CHECK_EQ(procs_count("tx", "app-tcp", t.rx_pid, t.rx_comm), t.n);
	CHECK_EQ(procs_count("rx", "tcp-app", t.rx_pid, t.rx_comm), t.n);
	CHECK_EQ(procs_count("rx", "tcp-app", t.tx_pid, t.tx_comm), t.n);
	CHECK_EQ(procs_count("tx", "tx-total", t.tx_pid, t.tx_comm), t.n);
	CHECK(check_no_leak() == 0, "leak");
	return 0;
}

/* Bulk TCP: the receiver in B reads to the end, the sender in A writes. */
static int bulk_rx(int ready)
{
	struct sockaddr_storage ss;
	int s, c, one = 1;
	socklen_t len;
	char buf[1024];

	if (enter_ns(NS_B))
		return 1;
	prctl(PR_SET_NAME, "skbp_brx");
	fill_addr(AF_INET, IP4_B, IP6_B, 0, &ss, &len);
	s = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (s < 0 || bind(s, (void *)&ss, len) || listen(s, 1))
		return 2;
	tell(ready, 'r');
	c = accept(s, NULL, NULL);
	if (c < 0)
		return 3;
	while (read(c, buf, sizeof(buf)) > 0)
		;
	close(c);
	close(s);
	return 0;
}

static int bulk_tx(size_t bytes)
{
	static char buf[65536];
	struct sockaddr_storage ss;
	socklen_t len;
	size_t sent;
	int s, big = 4 << 20;

	if (enter_ns(NS_A))
		return 1;
	prctl(PR_SET_NAME, "skbp_btx");
	fill_addr(AF_INET, IP4_B, IP6_B, 0, &ss, &len);
	s = socket(AF_INET, SOCK_STREAM, 0);
	/* all of it queued at once: the window lets it out later */
	setsockopt(s, SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big));
	if (s < 0 || connect(s, (void *)&ss, len))
		return 2;
	for (sent = 0; sent < bytes; sent += sizeof(buf))
		if (write(s, buf, sizeof(buf)) != sizeof(buf))
			return 3;
	close(s);
	return 0;
}

/*
 * Bulk TCP from A to B.  The sender queues all of it in 64 KiB skbs and
 * closes; the ACKs are then processed in softirq, in whatever task runs
 * (the receiver in its recvmsg, often), and send the rest from there, cut
 * to the congestion window (5.10 allocates the pieces in tso_fragment, at
 * the transmit timeline's first point): only the sender may be charged a
 * transmit stage.
 */
/* @bytes of bulk TCP from A to B, to the end; *@txpid: the sender's pid. */
static int run_bulk(size_t bytes, pid_t *txpid)
{
	int pipefd[2], st;
	pid_t rx, tx;

	CHECK(pipe(pipefd) == 0, "pipe");
	fflush(stdout);
	rx = fork();
	if (rx == 0)
		_exit(bulk_rx(pipefd[1]));
	CHECK(rx > 0 && hear(pipefd[0]) == 'r', "the receiver did not start");
	tx = fork();
	if (tx == 0)
		_exit(bulk_tx(bytes));
	CHECK(tx > 0, "fork");
	*txpid = tx;
	CHECK(waitpid(tx, &st, 0) == tx && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "the sender failed (%d)", st);
	CHECK(waitpid(rx, &st, 0) == rx && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "the receiver failed (%d)", st);
	close(pipefd[0]);
	close(pipefd[1]);
	return 0;
}

TEST_F(veth4, latency_tcp_bulk_charges_the_sender)
{
	unsigned long long rows = 0;
	struct table t;
	int bad = 0, r;
	pid_t tx;

	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	CHECK(run_bulk(4 << 20, &tx) == 0, "bulk traffic");
	CHECK(table_read(&t, "procs") == 0, "cannot read procs");
	for (r = 0; (r = table_find(&t, r, "dir", "tx", NULL)) >= 0; r++) {
		rows++;
		if (table_num(&t, r, "pid") != tx) {
			note("charged to pid %s (%s), not the sender %d: stage %s",
			     table_str(&t, r, "pid"), table_str(&t, r, "comm"),
			     tx, table_str(&t, r, "stage"));
			bad++;
		}
	}
	table_free(&t);
	CHECK(procs_count("tx", "tx-total", tx, "skbp_btx") > 0,
	      "the sender was charged nothing");
	CHECK(!bad, "%d of %llu transmit rows charge another process", bad,
	      rows);
	return 0;
}

/* Run on @cpu only (-1: on any). */
static int cpu_online(int cpu, bool on)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/online",
		 cpu);
	return write_file(path, on ? "1" : "0");
}

/*
 * A reset reaches every CPU, also one that is offline at the time: its
 * figures are gone when it comes back.
 */
TEST(latency_reset_offline_cpu)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t len = sizeof(a);
	int rx, tx, i, err;
	char buf[64] = "x", *s;
	struct table t;

	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	/* loopback UDP made and read on CPU 1: its figures are CPU 1's */
	CHECK(pin_cpu(1) == 0, "cannot run on CPU 1: %s", strerror(errno));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(rx >= 0 && tx >= 0 && !bind(rx, (void *)&a, sizeof(a)) &&
	      !getsockname(rx, (void *)&a, &len), "udp sockets");
	for (i = 0; i < 20; i++) {
		CHECK(sendto(tx, buf, sizeof(buf), 0, (void *)&a, len) ==
		      sizeof(buf), "sendto");
		CHECK(recv(rx, buf, sizeof(buf), 0) == sizeof(buf), "recv");
	}
	close(rx);
	close(tx);
	CHECK(pin_cpu(-1) == 0, "unpin");
	s = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(s && row_count(s, "rx", "udp-app") == 20, "udp-app before the reset");
	free(s);

	CHECK(cpu_online(1, false) == 0, "cannot take CPU 1 offline");
	err = write_file(DEBUGFS_DIR "/control", "reset\n");
	CHECK(cpu_online(1, true) == 0, "cannot bring CPU 1 back");
	CHECK(err == 0, "reset: %s", strerror(-err));

	s = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(s && table_read(&t, "procs") == 0,
	      "cannot read latency_buckets and procs");
	err = row_count(s, "rx", "udp-app") || row_count(s, "tx", "app-udp") ||
	      table_find(&t, 0, "comm", "skbprof-test", NULL) >= 0;
	if (err)
		note("after the reset:\n%s\n%s", s, t.text);
	free(s);
	table_free(&t);
	CHECK(!err, "CPU 1's figures survived a reset made while it was offline");
	return 0;
}

/*
 * The free stamps of a CPU that goes offline are not lost: loopback UDP
 * made and read on CPU 1 leaves free stamps on CPU 1's list; with CPU 1
 * offline, datagrams sent from CPU 0 and left unread (each holds its
 * receive timeline until the read) fill every entry of the table.
 */
static int fill_from_cpu0(int *in_use, int *capacity)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	int rx, tx, i, big = 1 << 20, ret = -1;
	socklen_t len = sizeof(a);
	char buf[32] = "x";

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0 || bind(rx, (void *)&a, sizeof(a)) ||
	    getsockname(rx, (void *)&a, &len) ||
	    setsockopt(rx, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
		goto out;
	/* twice the table's entries, all queued on rx */
	for (i = 0; i < 128; i++)
		if (sendto(tx, buf, sizeof(buf), 0, (void *)&a, len) !=
		    sizeof(buf))
			goto out;
	*in_use = stat_value("table_in_use");
	*capacity = stat_value("table_capacity");
	for (i = 0; i < 128; i++)
		if (recv(rx, buf, sizeof(buf), 0) != sizeof(buf))
			goto out;
	ret = 0;
out:
	if (rx >= 0)
		close(rx);
	if (tx >= 0)
		close(tx);
	return ret;
}

TEST(latency_table_cpu_offline_keeps_stamps)
{
	int in_use = -1, capacity = -1, err, err_fill;

	CHECK(load_and_reset("table_size=64 lifetime_sample=0") == 0, "load");
	/* CPU 1 takes stamps and gives them back to its own list */
	CHECK(pin_cpu(1) == 0, "cannot run on CPU 1: %s", strerror(errno));
	CHECK(fill_from_cpu0(&in_use, &capacity) == 0, "traffic on CPU 1");
	CHECK(pin_cpu(0) == 0, "cannot run on CPU 0: %s", strerror(errno));

	err = cpu_online(1, false);
	err_fill = err ? 0 : fill_from_cpu0(&in_use, &capacity);
	/* always brought back, whatever failed */
	CHECK(cpu_online(1, true) == 0, "cannot bring CPU 1 back");
	CHECK(pin_cpu(-1) == 0, "unpin");
	CHECK(err == 0, "cannot take CPU 1 offline: %s", strerror(-err));
	CHECK(err_fill == 0, "traffic on CPU 0 failed");
	if (in_use != capacity)
		note("stats with 128 datagrams queued:\n%s",
		     read_file(DEBUGFS_DIR "/stats"));
	CHECK(capacity == 64 && in_use == capacity,
	      "128 datagrams queued, CPU 1 offline: %d of %d entries in use",
	      in_use, capacity);
	return check_no_leak();
}

/*
 * The files' shape, and the lifetime histogram: with every allocation
 * followed, N datagrams mean at least N skbs allocated and freed.
 */
TEST_F(veth4, latency_files_and_lifetime)
{
	struct traffic t = {
		.family = AF_INET, .type = SOCK_DGRAM, .n = 20,
		.rx_comm = "skbp_frx", .tx_comm = "skbp_ftx",
	};
	static const char *const latency_cols[] = {
		"dir", "stage", "count", "min", "p50", "p90", "p99", "max",
		"avg", NULL };
	static const char *const lifetime_cols[] = {
		"label", "count", "min", "p50", "p90", "p99", "max", "avg", NULL };
	unsigned long long cnt = 0, mn, p50, p90, p99, mx, avg;
	char *s, *p, dir[8], stage[16];
	int rows = 0, hist = 0, worst = 0, r;
	struct table life;

	CHECK(load_and_reset("lifetime_sample=1") == 0, "load");
	CHECK(run_traffic(&t) == 0, "traffic");

	s = read_file(DEBUGFS_DIR "/latency");
	CHECK(s, "cannot read latency");
	note("latency:\n%s", s);
	CHECK(s[0] == '#', "no header line");
	for (p = s; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (!strncmp(p, "rx ", 3) || !strncmp(p, "tx ", 3)) {
			int n = sscanf(p, "%7s %15s %llu %llu %llu %llu %llu %llu %llu",
				       dir, stage, &cnt, &mn, &p50, &p90, &p99,
				       &mx, &avg);

			CHECK(n == 9, "bad row: %.60s", p);
			CHECK(mn <= p50 && p50 <= p90 && p90 <= p99 && p99 <= mx &&
			      mn <= avg && avg <= mx, "inconsistent row: %.80s", p);
			rows++;
		} else if (*p == '[') {
			hist++;
		} else if (!strncmp(p, "worst ", 6)) {
			char *l = strndup(p, strcspn(p, "\n"));
			bool flow, proc;

			CHECK(l, "strndup");
			flow = strstr(l, "udp " IP4_A ":") || strstr(l, " -> " IP4_B ":");
			/*
			 * every datagram was read: the worst of each stage,
			 * the early receive stages' too, names its sender
			 * (tx) or its receiver (rx)
			 */
			proc = strstr(l, " comm skbp_f");
			free(l);
			CHECK(flow, "worst line without the flow: %.100s", p);
			CHECK(proc, "worst line without the process: %.120s", p);
			worst++;
		}
	}
	free(s);
	/* veth queues to the backlog: it is one of them */
	CHECK(rows == 10, "%d rows, want the 10 UDP stages", rows);
	CHECK(worst == rows, "%d worst lines for %d rows", worst, rows);
	CHECK(hist >= rows, "%d histogram lines for %d rows", hist, rows);

	s = read_file(DEBUGFS_DIR "/procs");
	CHECK(s, "cannot read procs");
	note("procs:\n%s", s);
	free(s);

	s = read_file(DEBUGFS_DIR "/lifetime");
	CHECK(s, "cannot read lifetime");
	note("lifetime:\n%s", s);
	free(s);
	/* the views for people show the machine files' figures */
	if (view_shows("latency", "latency_buckets", latency_cols) ||
	    view_shows("lifetime", "lifetime_buckets", lifetime_cols))
		return -1;
	CHECK(table_read(&life, "lifetime_buckets") == 0, "lifetime_buckets");
	r = table_find(&life, 0, "label", "lifetime", NULL);
	cnt = table_num(&life, r, "count");
	mn = table_num(&life, r, "min");
	p50 = table_num(&life, r, "p50");
	mx = table_num(&life, r, "max");
	table_free(&life);
	CHECK(r >= 0, "no lifetime row");
	CHECK(cnt >= (unsigned long long)t.n, "lifetime count %llu < %d datagrams",
	      cnt, t.n);
	CHECK(mn > 0 && mn <= p50 && p50 <= mx, "inconsistent lifetime row");
	/* the view off, a reset empties it on every CPU, and nothing comes */
	CHECK(write_file(DEBUGFS_DIR "/control", "lifetime off\nreset\n") == 0,
	      "control");
	CHECK(table_read(&life, "lifetime_buckets") == 0, "lifetime_buckets");
	r = table_find(&life, 0, "label", "lifetime", NULL);
	cnt = table_num(&life, r, "count");
	table_free(&life);
	CHECK(r >= 0, "no lifetime row");
	CHECK_EQ(cnt, 0);
	return 0;
}

/* A sender that floods UDP and TCP in namespace A until killed. */
static int flood(void *arg)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(PORT) };
	char buf[1400];
	unsigned int n;
	int u, t;

	(void)arg;
	if (enter_ns(NS_A))
		return 1;
	inet_pton(AF_INET, IP4_B, &to.sin_addr);
	memset(buf, 'f', sizeof(buf));
	u = socket(AF_INET, SOCK_DGRAM, 0);
	t = socket(AF_INET, SOCK_STREAM, 0);
	if (u < 0 || t < 0 || connect(t, (void *)&to, sizeof(to)))
		return 2;
	for (n = 0;; n++) {
		sendto(u, buf, sizeof(buf), MSG_DONTWAIT, (void *)&to,
		       sizeof(to));
		send(t, buf, sizeof(buf), MSG_DONTWAIT);
		/* a busy flood, but one an emulated CPU keeps up with */
		if (!(n & 15))
			sleep_ns(MS / 2);
	}
	return 0;
}

/* The sink in namespace B: reads TCP and UDP until killed. */
static int sink(int ready)
{
	struct sockaddr_in me = { .sin_family = AF_INET,
				  .sin_port = htons(PORT) };
	struct pollfd p[3];
	char buf[65536];
	int u, l, c = -1, one = 1, i;

	if (enter_ns(NS_B))
		return 1;
	inet_pton(AF_INET, IP4_B, &me.sin_addr);
	u = socket(AF_INET, SOCK_DGRAM, 0);
	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (u < 0 || l < 0 || bind(u, (void *)&me, sizeof(me)) ||
	    bind(l, (void *)&me, sizeof(me)) || listen(l, 1))
		return 2;
	tell(ready, 'r');
	for (;;) {
		p[0] = (struct pollfd){ .fd = u, .events = POLLIN };
		p[1] = (struct pollfd){ .fd = l, .events = POLLIN };
		p[2] = (struct pollfd){ .fd = c, .events = POLLIN };
		if (poll(p, c >= 0 ? 3 : 2, -1) < 0)
			continue;
		if (p[0].revents)
			recv(u, buf, sizeof(buf), MSG_DONTWAIT);
		if (p[1].revents && c < 0)
			c = accept(l, NULL, NULL);
		/* read slowly sometimes: data waits in the queue */
		for (i = 0; c >= 0 && p[2].revents && i < 4; i++)
			if (recv(c, buf, sizeof(buf), MSG_DONTWAIT) <= 0)
				break;
	}
	return 0;
}

/*
 * Load, reset, read and unload over and over while packets fly both ways
 * and sit in socket queues: no crash, no warning (the guest panics on
 * any), and the module comes and goes cleanly.
 *
 * The harness runs single-threaded TCG for this: under multi-threaded
 * TCG, patching the entry of a function another vCPU is executing (what
 * every ftrace-based kprobe registration does) crashes the guest at the
 * patched site, with or without this module loaded.
 */
TEST_F(veth4, latency_load_unload_under_traffic)
{
	pid_t rx, tx;
	int pfd[2], i, err, st;
	char *s;

	CHECK(pipe(pfd) == 0, "pipe");
	fflush(stdout);
	rx = fork();
	CHECK(rx >= 0, "fork");
	if (rx == 0)
		_exit(sink(pfd[1]));
	CHECK(hear(pfd[0]) == 'r', "sink not ready");
	tx = fork();
	CHECK(tx >= 0, "fork");
	if (tx == 0)
		_exit(flood(NULL));
	for (i = 0; i < 8; i++) {
		err = skbprof_load(i & 1 ? "table_size=64 lifetime_sample=1" :
					   NULL);
		if (err)
			break;
		sleep_ns(150 * MS);
		write_file(DEBUGFS_DIR "/control", "reset\n");
		free(read_file(DEBUGFS_DIR "/latency"));
		free(read_file(DEBUGFS_DIR "/procs"));
		free(read_file(DEBUGFS_DIR "/lifetime"));
		s = read_file(DEBUGFS_DIR "/stats");
		if (i == 7 && s)
			note("stats after a table_size=64 run:\n%s", s);
		free(s);
		err = skbprof_unload();
		if (err)
			break;
	}
	kill(tx, SIGKILL);
	kill(rx, SIGKILL);
	waitpid(tx, &st, 0);
	waitpid(rx, &st, 0);
	close(pfd[0]);
	close(pfd[1]);
	CHECK(err == 0, "cycle %d: %s", i, strerror(-err));
	return 0;
}

/* ---- filters, sampling and the trace applied to the timelines ---- */

/*
 * Datagrams to a port nobody listens on any more, sent from A in a child:
 * B drops them (Udp NoPorts).
 */
static int send_closed(int family, int port, int n)
{
	struct sockaddr_storage ss;
	socklen_t len;
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return fail("fork: %s", strerror(errno));
	if (pid == 0) {
		int s, i;

		if (enter_ns(NS_A))
			_exit(1);
		fill_addr(family, IP4_B, IP6_B, port, &ss, &len);
		s = socket(family, SOCK_DGRAM, 0);
		for (i = 0; s >= 0 && i < n; i++) {
			if (sendto(s, "x", 1, 0, (void *)&ss, len) != 1)
				_exit(2);
			sleep_ns(2 * MS);	/* under the ICMP rate limit */
		}
		_exit(s < 0 ? 3 : 0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "the closed-port sender failed (0x%x)", st);
	return 0;
}

/*
 * Two UDP flows, to ports 5001 and 5002, and then datagrams to each port
 * closed: with `filter port 5001` the latency rows count the first flow
 * alone and the drops rows its closed-port datagrams alone; `filter clear`
 * brings the second back.
 */
TEST_F(veth4, filter_latency_and_drops_port)
{
	struct traffic t1 = {
		.family = AF_INET, .type = SOCK_DGRAM, .n = 30, .port = 5001,
		.rx_comm = "skbp_r1", .tx_comm = "skbp_t1",
	};
	struct traffic t2 = t1;
	long long nop0, nop1;
	int round;
	char *s;

	t2.n = 20;
	t2.port = 5002;
	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	for (round = 0; round < 2; round++) {
		unsigned long long want = round ? t1.n + t2.n : t1.n;
		unsigned long long dwant = round ? 7 + 5 : 7;

		CHECK(control(round ? "filter clear\nreset\n" :
				      "filter port 5001\nreset\n") == 0, "control");
		nop0 = snmp(NS_B, "Udp", "NoPorts");
		CHECK(run_traffic(&t1) == 0 && run_traffic(&t2) == 0,
		      "traffic");
		CHECK(send_closed(AF_INET, 5001, 7) == 0 &&
		      send_closed(AF_INET, 5002, 5) == 0, "closed ports");
		sleep_ns(100 * MS);
		nop1 = snmp(NS_B, "Udp", "NoPorts");
		CHECK_EQ(nop1 - nop0, 7 + 5);
		s = read_file(DEBUGFS_DIR "/latency_buckets");
		CHECK(s, "cannot read latency");
		/* the closed-port datagrams pass drv-ip and ip-udp too */
		CHECK_ROW(s, "rx", "udp-app", want);
		CHECK_ROW(s, "rx", "ip-udp", want + dwant);
		/*
		 * Unfiltered, drv-ip also counts the port unreachables A
		 * gets back, as many as B's ICMP rate limit lets out.
		 */
		if (!round)
			CHECK_ROW(s, "rx", "drv-ip", want + dwant);
		CHECK_ROW(s, "tx", "app-udp", want + dwant);
		CHECK_ROW(s, "tx", "dev-drv", want + dwant);
		free(s);
		CHECK_EQ(drops_at(udp_noport_fn(AF_INET)), dwant);
	}
	return 0;
}

/* ---- the numeric histogram files ---- */

#define MAX_BOUNDS	512

/* One line of latency_buckets or lifetime_buckets. */
struct hline {
	char dir[8], stage[16];
	struct row r;
	unsigned long long nb;
	unsigned long long lo[MAX_BOUNDS], hi[MAX_BOUNDS], c[MAX_BOUNDS];
};

/* Is [lo, hi) a bucket of the "# bounds=" line, two consecutive bounds? */
static bool is_bucket(const unsigned long long *b, int nb,
		      unsigned long long lo, unsigned long long hi)
{
	int i;

	for (i = 0; i + 1 < nb; i++)
		if (b[i] == lo)
			return b[i + 1] == hi;
	return false;
}

/*
 * Read *_buckets file @file into @h (up to @max rows; without dir and
 * stage columns, stage gets the label column), checking every row is
 * well-formed: count is the sum of its buckets, the buckets ascending
 * and of the bounds meta line, min in the first, max in the last.  The
 * number of rows, or -1 (failed).
 */
static int buckets_parse(const char *file, struct hline *h, int max)
{
	static unsigned long long b[MAX_BOUNDS];
	const char *bounds, *p;
	struct table t;
	char *tok, *ts, *list;
	int nb = 0, n = 0;
	bool label;

	if (table_read(&t, file))
		return -1;
	bounds = table_meta(&t, "bounds");
	for (p = bounds; p && nb < MAX_BOUNDS;
	     p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		b[nb++] = strtoull(p, NULL, 10);
	label = table_col(&t, "stage") < 0;
	if (nb <= 2 || b[0] != 0 || t.nrows > max) {
		table_free(&t);
		return fail("%s: %d bounds, %d rows", file, nb, t.nrows);
	}
	for (n = 0; n < t.nrows; n++) {
		struct hline *l = &h[n];
		unsigned long long sum = 0;

		memset(l, 0, sizeof(*l));
		snprintf(l->dir, sizeof(l->dir), "%s",
			 label ? "" : table_str(&t, n, "dir"));
		snprintf(l->stage, sizeof(l->stage), "%s",
			 table_str(&t, n, label ? "label" : "stage"));
		hist_row(&t, n, &l->r);
		if (!(l->r.p50 <= l->r.p90 && l->r.p90 <= l->r.p99 && l->r.p99 <= l->r.max &&
		      l->r.min <= l->r.avg && l->r.avg <= l->r.max)) {
			table_free(&t);
			return fail("%s %s: percentiles or average out of order",
				    l->dir, l->stage);
		}
		list = strdup(table_str(&t, n, "buckets"));
		for (tok = list ? strtok_r(list, " ", &ts) : NULL; tok;
		     tok = strtok_r(NULL, " ", &ts)) {
			unsigned long long *lo = &l->lo[l->nb], *hi = &l->hi[l->nb];

			if (!(l->nb < MAX_BOUNDS &&
			      sscanf(tok, "%llu:%llu:%llu", lo, hi, &l->c[l->nb]) == 3 &&
			      *lo < *hi && l->c[l->nb] > 0 &&
			      (!l->nb || *lo >= l->hi[l->nb - 1]) &&
			      is_bucket(b, nb, *lo, *hi))) {
				fail("%s %s: bad bucket '%s'", l->dir, l->stage,
				     tok);
				free(list);
				table_free(&t);
				return -1;
			}
			sum += l->c[l->nb++];
		}
		free(list);
		if (sum != l->r.count ||
		    !(!l->r.count || (l->lo[0] <= l->r.min && l->r.min < l->hi[0] &&
				    l->lo[l->nb - 1] <= l->r.max &&
				    l->r.max < l->hi[l->nb - 1] && l->r.min <= l->r.max &&
				    l->r.sum >= l->r.count * l->r.min &&
				    l->r.sum <= l->r.count * l->r.max))) {
			table_free(&t);
			return fail("%s %s: count %llu, its buckets %llu; min %llu max %llu sum %llu",
				    l->dir, l->stage, l->r.count, sum, l->r.min,
				    l->r.max, l->r.sum);
		}
	}
	table_free(&t);
	return n;
}

static const struct hline *hline_of(const struct hline *h, int n,
				    const char *dir, const char *stage)
{
	int i;

	for (i = 0; i < n; i++)
		if (!strcmp(h[i].dir, dir) && !strcmp(h[i].stage, stage))
			return &h[i];
	return NULL;
}

/*
 * The numeric files against the traffic: `filter port 5001`, N datagrams
 * on that flow and M on port 5002, a netem delay D on va.  The flow's
 * timelines, and nothing else, are in latency_buckets: rx-total and
 * tx-total count N, in their buckets too; every datagram waited D in the
 * qdisc, so no dev-drv bucket lies below D and the sum is at least N D.
 * Every line of both files is well-formed.
 */
TEST_F(veth4, latency_buckets_match_traffic)
{
	const unsigned long long d = 20 * MS;
	struct traffic t1 = {
		.family = AF_INET, .type = SOCK_DGRAM, .n = 25, .port = 5001,
		.rx_comm = "skbp_b1", .tx_comm = "skbp_c1",
	};
	struct traffic t2 = t1;
	static struct hline h[32];
	const struct hline *l;
	unsigned long long sum, j;
	int n, i;
	char *s;

	t2.n = 7;
	t2.port = 5002;
	CHECK(kmod_probe("sch_netem") == 0, "cannot load sch_netem");
	CHECK(sh(IP " netns exec " NS_A " " TC " qdisc add dev va root netem delay %llums",
		 d / MS) == 0, "cannot add netem");
	CHECK(load_and_reset("lifetime_sample=1") == 0, "load");
	CHECK(control("filter port 5001\nreset\n") == 0, "control");
	CHECK(run_traffic(&t1) == 0 && run_traffic(&t2) == 0, "traffic");

	n = buckets_parse("latency_buckets", h, 32);
	CHECK(n > 0, "latency_buckets: %d lines", n);
	for (i = 0; i < 2; i++) {
		l = hline_of(h, n, i ? "tx" : "rx", i ? "tx-total" : "rx-total");
		CHECK(l, "no %s line", i ? "tx-total" : "rx-total");
		for (sum = 0, j = 0; j < l->nb; j++)
			sum += l->c[j];
		if (l->r.count != (unsigned long long)t1.n) {
			s = read_file(DEBUGFS_DIR "/stats");
			note("stats:\n%s", s ? s : "(unreadable)");
			free(s);
		}
		CHECK(l->r.count == (unsigned long long)t1.n && sum == l->r.count,
		      "%s: count %llu, buckets %llu, datagrams sent %d", l->stage,
		      l->r.count, sum, t1.n);
	}
	l = hline_of(h, n, "tx", "dev-drv");
	CHECK(l && l->r.count == (unsigned long long)t1.n, "dev-drv count %llu, want %d",
	      l ? l->r.count : 0, t1.n);
	for (j = 0; j < l->nb; j++)
		CHECK(l->hi[j] > d, "dev-drv bucket [%llu, %llu) lies below the netem delay %llu",
		      l->lo[j], l->hi[j], d);
	CHECK(l->r.min >= d && l->r.sum >= l->r.count * d, "dev-drv min %llu sum %llu, delay %llu",
	      l->r.min, l->r.sum, d);

	n = buckets_parse("lifetime_buckets", h, 32);
	CHECK(n == 1 && !strcmp(h[0].stage, "lifetime"), "lifetime_buckets: %d lines", n);
	/* every allocation followed: each datagram is at least one skb */
	CHECK(h[0].r.count >= (unsigned long long)t1.n, "lifetime count %llu < %d",
	      h[0].r.count, t1.n);
	CHECK(check_no_leak() == 0, "leak");
	return 0;
}

/*
 * A kprobe point can miss a packet: a softirq run on an interrupt's exit
 * inside another probe's handler finds the kprobe layer busy, and the
 * packet's IP and UDP points are skipped (nmissed).  Under load with
 * netem, whose timer releases packets at any moment, this cost
 * latency_buckets_match_traffic 5 of its 25 datagrams: decided without
 * their headers, `filter port` dropped them.  The filter now takes the
 * headers at the next point.  Played here by denying the IP and UDP
 * probes: under `filter port 5001`, rx-total counts exactly the
 * datagrams read on port 5001, none of port 5002's.
 */
TEST_F(veth4, latency_filter_decides_past_missed_points)
{
	struct traffic t1 = {
		.family = AF_INET, .type = SOCK_DGRAM, .n = 20, .port = 5001,
		.rx_comm = "skbp_b1", .tx_comm = "skbp_c1",
	};
	struct traffic t2 = t1;
	unsigned long long total, drvip;
	char *s;

	t2.n = 7;
	t2.port = 5002;
	CHECK(load_and_reset("probe_deny=ip_rcv_core,ip_rcv,udp_rcv,__udp4_lib_rcv allow_unserved=1")
	      == 0, "load");
	CHECK(control("filter port 5001\nreset\n") == 0, "control");
	CHECK(run_traffic(&t1) == 0 && run_traffic(&t2) == 0, "traffic");
	s = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(s, "cannot read latency");
	total = row_count(s, "rx", "rx-total");
	drvip = row_count(s, "rx", "drv-ip");
	free(s);
	note("rx-total %llu, drv-ip %llu; datagrams read %d on port 5001, %d on 5002",
	     total, drvip, t1.n, t2.n);
	CHECK_EQ(drvip, 0);
	CHECK_EQ(total, t1.n);
	CHECK(check_no_leak() == 0, "leak");
	return 0;
}

/*
 * Samples of lifetime_buckets in buckets that reach beyond @d: those of
 * @d and more, and those of the bucket holding @d below it (its lower
 * bound is within an eighth of @d); -1.
 */
static long long lifetime_beyond(unsigned long long d)
{
	static struct hline h[2];
	long long n = 0;
	unsigned long long j;

	if (buckets_parse("lifetime_buckets", h, 2) != 1)
		return -1;
	for (j = 0; j < h[0].nb; j++)
		if (h[0].hi[j] > d)
			n += h[0].c[j];
	return n;
}

/*
 * Hits the lifetime constructors' kretprobes missed (probes' nmissed,
 * not reset): allocations the view could not follow.
 */
static long long life_missed(void)
{
	struct table t;
	long long n = 0;
	int r;

	if (table_read(&t, "probes"))
		return -1;
	for (r = 0; (r = table_find(&t, r, "state", "active", NULL)) >= 0; r++)
		if (!strncmp(table_str(&t, r, "group"), "life-", 5))
			n += table_num(&t, r, "nmissed");
	table_free(&t);
	return n;
}

#define GSO_DATAGRAMS	8	/* K */
#define GSO_SEGS	4	/* S: segments of each */
#define GSO_SIZE	1000	/* payload of a segment */

/* A sends the K UDP GSO datagrams to B's port @port, in a child. */
static int send_gso(int port)
{
	static char buf[GSO_SEGS * GSO_SIZE];
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(port) };
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		int s, i, gso = GSO_SIZE;

		if (enter_ns(NS_A))
			_exit(1);
		inet_pton(AF_INET, IP4_B, &to.sin_addr);
		s = socket(AF_INET, SOCK_DGRAM, 0);
		if (s < 0 || setsockopt(s, SOL_UDP, UDP_SEGMENT, &gso,
					sizeof(gso)))
			_exit(2);
		for (i = 0; i < GSO_DATAGRAMS; i++)
			if (sendto(s, buf, sizeof(buf), 0, (void *)&to,
				   sizeof(to)) != sizeof(buf))
				_exit(3);
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "the GSO sender failed (0x%x)", st);
	return 0;
}

struct gso_life {
	unsigned long long d;
	long long nop0, nop, beyond, forked;
};

static bool gso_life_done(void *arg)
{
	struct gso_life *g = arg;

	g->nop = snmp(NS_B, "Udp", "NoPorts") - g->nop0;
	g->beyond = lifetime_beyond(g->d);
	g->forked = stat_value("lifetime_forked");
	return g->nop >= GSO_DATAGRAMS * GSO_SEGS &&
	       g->beyond >= GSO_DATAGRAMS * GSO_SEGS &&
	       g->forked >= GSO_DATAGRAMS;
}

/*
 * Software GSO in the lifetime view: A sends K UDP GSO datagrams of S
 * segments each (UDP_SEGMENT) to a closed port of B, through a netem
 * delay D on va; va takes no GSO skb (gso_max_segs 1), so each is cut
 * into its segments after the qdisc, in validate_xmit_skb().  Each
 * segment carries on the birth of its datagram, before the delay, to its
 * drop in B: K S lifetimes reach beyond D (B's NoPorts counts the
 * segments), and the K datagrams' skbs end as forked, not as samples.
 * Without the following, those K skbs would be the only lifetimes beyond
 * D, and the segments, made after the delay, would live shorter.  B
 * holds nothing (the port is closed); nothing else crosses va.  Only
 * the lifetime view is on: it arms the GSO probe itself.
 */
TEST_F(veth4_gso1, lifetime_follows_gso_segments)
{
	struct gso_life g = { .d = 300 * MS };
	long long missed0, missed;

	CHECK(kmod_probe("sch_netem") == 0, "cannot load sch_netem");
	CHECK(sh(IP " netns exec " NS_A " " TC " qdisc add dev va root netem delay %llums",
		 g.d / MS) == 0, "cannot add netem");
	CHECK(load_and_reset("lifetime_sample=0 stages=drops") == 0, "load");
	missed0 = life_missed();
	g.nop0 = snmp(NS_B, "Udp", "NoPorts");
	CHECK(control("lifetime 1\nreset\n") == 0, "control");
	CHECK(send_gso(PORT) == 0, "send");
	wait_until(gso_life_done, &g, WAIT_MS);
	CHECK(control("lifetime off\n") == 0, "control");
	missed = life_missed() - missed0;
	note("%d datagrams of %d segments, delay %llu ns: B dropped %lld, %lld lifetimes beyond the delay, %lld forked, %lld constructor hits missed",
	     GSO_DATAGRAMS, GSO_SEGS, g.d, g.nop, g.beyond, g.forked, missed);
	CHECK_EQ(g.nop, GSO_DATAGRAMS * GSO_SEGS);
	/* a constructor probe that missed a datagram lost its segments */
	CHECK(g.beyond <= GSO_DATAGRAMS * GSO_SEGS &&
	      g.beyond >= GSO_DATAGRAMS * GSO_SEGS - GSO_SEGS * missed,
	      "%lld lifetimes beyond %llu ns, want %d (%lld missed)",
	      g.beyond, g.d, GSO_DATAGRAMS * GSO_SEGS, missed);
	CHECK(g.forked <= GSO_DATAGRAMS && g.forked >= GSO_DATAGRAMS - missed,
	      "lifetime_forked %lld, want %d (%lld missed)", g.forked,
	      GSO_DATAGRAMS, missed);
	return 0;
}

/* One filter and what it must let through of the two flows below. */
struct fcase {
	const char *filter;	/* NULL: pid of flow 1's sender or receiver */
	int rx1, rx2, tx1, tx2;	/* 1: that flow's packets are counted */
};

static bool pid_of_receiver;

/* `pid` filters name a sender or receiver once it exists. */
static int set_pid_filter(struct traffic *t)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "filter pid %d\nreset\n",
		 pid_of_receiver ? t->rx_pid : t->tx_pid);
	return control(cmd);
}

/*
 * Two flows that differ in every term: 1 is IPv4 to port 5001, marked
 * 0x9999, between skbp_t1 and skbp_r1; 2 is IPv6 to port 5002, unmarked,
 * between skbp_t2 and skbp_r2.  The transmit side goes out of va, the
 * receive side comes in on vb; the mark does not cross the namespaces.
 */
TEST_F(veth6, filter_latency_terms)
{
	static const struct fcase cases[] = {
		{ "family ipv4", 1, 0, 1, 0 },
		{ "family ipv6", 0, 1, 0, 1 },
		{ "proto udp port 5002", 0, 1, 0, 1 },
		{ "dst 10.201.0.2/32", 1, 0, 1, 0 },
		{ "src fd00:201::/64", 0, 1, 0, 1 },
		{ "host 10.201.0.0/24", 1, 0, 1, 0 },
		{ "dst 10.201.1.0/24", 0, 0, 0, 0 },
		{ "mark 0x9999", 0, 0, 1, 0 },
		{ "mark 0x1000/0xf000", 0, 0, 0, 0 },
		{ "comm skbp_t1", 0, 0, 1, 0 },
		{ "comm skbp_r2", 0, 1, 0, 0 },
		{ "dev vb", 1, 1, 0, 0 },
		{ "dev va", 0, 0, 1, 1 },
		{ NULL, 0, 0, 1, 0 },	/* pid of flow 1's sender */
		{ NULL, 1, 0, 0, 0 },	/* pid of flow 1's receiver */
	};
	struct traffic ft[2];
	size_t i;

	ft[0] = (struct traffic){
		.family = AF_INET, .type = SOCK_DGRAM, .n = 12, .port = 5001,
		.mark = 0x9999, .rx_comm = "skbp_r1", .tx_comm = "skbp_t1",
	};
	ft[1] = (struct traffic){
		.family = AF_INET6, .type = SOCK_DGRAM, .n = 9, .port = 5002,
		.rx_comm = "skbp_r2", .tx_comm = "skbp_t2",
	};
	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const struct fcase *c = &cases[i];
		unsigned long long rx, tx;
		char cmd[96], *s;

		if (c->filter) {
			snprintf(cmd, sizeof(cmd), "filter %s\nreset\n",
				 c->filter);
			CHECK(control(cmd) == 0, "control");
		}
		/* the pid cases set their filter once the processes exist */
		ft[0].ready = c->filter ? NULL : set_pid_filter;
		pid_of_receiver = !c->filter && c->rx1;
		CHECK(run_traffic(&ft[0]) == 0 && run_traffic(&ft[1]) == 0,
		      "traffic");
		rx = c->rx1 * ft[0].n + c->rx2 * ft[1].n;
		tx = c->tx1 * ft[0].n + c->tx2 * ft[1].n;
		s = read_file(DEBUGFS_DIR "/latency_buckets");
		CHECK(s, "cannot read latency");
		note("filter %s", c->filter ? c->filter : "pid");
		CHECK_ROW(s, "rx", "ip-udp", rx);
		CHECK_ROW(s, "rx", "udp-app", rx);
		CHECK_ROW(s, "tx", "app-udp", tx);
		CHECK_ROW(s, "tx", "udp-ip", tx);
		CHECK_ROW(s, "tx", "tx-total", tx);
		free(s);
	}
	return 0;
}

/*
 * An IPv6 socket connected to an IPv4-mapped address sends IPv4: a filter
 * on the IPv4 destination, decided from the socket at the first point,
 * matches every data segment it sends, one per message in lockstep.
 */
TEST_F(veth4, filter_v4mapped_socket)
{
	struct traffic t = {
		.family = AF_INET, .type = SOCK_STREAM, .n = 10, .mapped = true,
		.rx_comm = "skbp_mr", .tx_comm = "skbp_mt",
	};
	char *s;

	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	CHECK(control("filter dst " IP4_B "/32\nreset\n") == 0, "control");
	CHECK(run_traffic(&t) == 0, "traffic");
	s = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(s, "cannot read latency");
	/* the receiver's one-byte answers go to IP4_A: not matched */
	CHECK_ROW(s, "tx", "app-tcp", t.n);
	CHECK_ROW(s, "tx", "tx-total", t.n);
	free(s);
	CHECK_EQ(procs_count("tx", "tx-total", t.tx_pid, t.tx_comm), t.n);
	CHECK(check_no_leak() == 0, "leak");
	return 0;
}

/*
 * The latency file @s after `sample 10` on @n UDP datagrams each way:
 * n/10 kept each way, to within one per CPU (each CPU keeps every tenth
 * it sees), and a kept datagram measured at every stage.  0 or -1 (a
 * stage row that is off frees @s, as CHECK_ROW() does).
 */
static int sampled_tenth(char *s, int n)
{
	unsigned long long rx = row_count(s, "rx", "udp-app");
	unsigned long long tx = row_count(s, "tx", "app-udp");
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);

	CHECK(rx + ncpu >= (unsigned long long)n / 10 &&
	      rx <= (unsigned long long)n / 10 + ncpu,
	      "rx udp-app %llu, want %d +- %ld", rx, n / 10, ncpu);
	CHECK(tx + ncpu >= (unsigned long long)n / 10 &&
	      tx <= (unsigned long long)n / 10 + ncpu,
	      "tx app-udp %llu, want %d +- %ld", tx, n / 10, ncpu);
	/* the same packets at every stage */
	CHECK_ROW(s, "rx", "drv-ip", rx);
	CHECK_ROW(s, "rx", "ip-udp", rx);
	CHECK_ROW(s, "rx", "rx-total", rx);
	CHECK_ROW(s, "tx", "dev-drv", tx);
	return 0;
}

/*
 * `sample 10` on N matching packets keeps N/10 of them, to within one per
 * CPU (each CPU keeps every tenth it sees); a kept packet is measured at
 * every stage, a dropped one at none.
 */
TEST_F(veth4, sample_latency)
{
	struct traffic t = {
		.family = AF_INET, .type = SOCK_DGRAM, .n = 200,
		.rx_comm = "skbp_sr", .tx_comm = "skbp_st",
	};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char *s;

	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	CHECK(control("filter port 5001\nsample 10\nreset\n") == 0, "control");
	CHECK(run_traffic(&t) == 0, "traffic");
	s = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(s, "cannot read latency");
	note("sampled rx %llu tx %llu of %d", row_count(s, "rx", "udp-app"),
	     row_count(s, "tx", "app-udp"), t.n);
	CHECK(sampled_tenth(s, t.n) == 0, "sampling");
	free(s);
	CHECK_EQ(stat_value("timelines_rx_kept") +
		 stat_value("timelines_rx_sampled_out"), t.n);
	CHECK_EQ(stat_value("timelines_tx_kept") +
		 stat_value("timelines_tx_sampled_out"), t.n);
	/*
	 * Sampling saves on transmit: the filter is decided at the first
	 * point there, and a datagram sampled out takes no stamp (receive
	 * still stamps each, to apply the filter at IP).
	 */
	note("table_inserts %lld for %d datagrams each way",
	     stat_value("table_inserts"), t.n);
	CHECK(stat_value("table_inserts") <= t.n + t.n / 10 + ncpu + 10,
	      "%lld timelines started for %d datagrams, sample 10",
	      stat_value("table_inserts"), t.n);
	return 0;
}

/*
 * `sample 10` without a filter: sampling decides at each timeline's first
 * point, and a packet sampled out takes no stamp, on receive as on
 * transmit.  N datagrams from A to B over the veth pair: about N/10 kept
 * each way, measured at every stage, and about as many timelines started
 * (other packets, such as neighbour discovery, are sampled alike).
 */
TEST_F(veth4, sample_without_filter_saves_stamps)
{
	/* in lockstep: a loaded host must not overflow B's receive buffer */
	struct traffic t = {
		.family = AF_INET, .type = SOCK_DGRAM, .n = 300,
		.lockstep = true, .rx_comm = "skbp_sr", .tx_comm = "skbp_st",
	};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	long long in0, in1, inserts;
	char *s;

	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	CHECK(control("sample 10\nreset\n") == 0, "control");
	in0 = snmp(NS_B, "Udp", "InDatagrams");
	CHECK(run_traffic(&t) == 0, "traffic");
	in1 = snmp(NS_B, "Udp", "InDatagrams");
	CHECK(in0 >= 0 && in1 - in0 == t.n, "B received %lld of %d",
	      in1 - in0, t.n);
	s = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(s, "cannot read latency");
	inserts = stat_value("table_inserts");
	note("sampled rx %llu tx %llu of %d; %lld timelines started",
	     row_count(s, "rx", "udp-app"), row_count(s, "tx", "app-udp"),
	     t.n, inserts);
	CHECK(sampled_tenth(s, t.n) == 0, "sampling");
	free(s);
	/* a stamp per kept timeline, and a few for other packets */
	CHECK(inserts >= 0 && inserts <= 2 * (t.n / 10 + ncpu) + 10,
	      "%lld timelines started for %d datagrams each way, sample 10",
	      inserts, t.n);
	return 0;
}

/* Everything the trace holds now, without waiting. */
static char *trace_take(void)
{
	static char buf[1 << 18];
	size_t len = 0;
	ssize_t n;
	int fd = open(DEBUGFS_DIR "/trace", O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return NULL;
	while (len < sizeof(buf) - 1 &&
	       (n = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	return buf;
}

static int count_matching(const char *text, const char *a, const char *b)
{
	const char *p = text;
	int n = 0;

	while (p && *p) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)len, p);
		if (strstr(line, a) && (!b || strstr(line, b)))
			n++;
		p = e ? e + 1 : NULL;
	}
	return n;
}

/*
 * `trace on`: one line per completed packet, with its stages, its flow
 * and the process charged: N datagrams give N receive and N transmit
 * lines, and nothing of a flow the filter leaves out.
 */
TEST_F(veth4, trace_timeline_lines)
{
	struct traffic t = {
		.family = AF_INET, .type = SOCK_DGRAM, .n = 8,
		.rx_comm = "skbp_tr", .tx_comm = "skbp_tt",
	};
	struct traffic other = t;
	char rx_tail[64], tx_tail[64], *buf;
	int lines;

	other.port = 5002;
	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	CHECK(control("filter port 5001\ntrace on\n") == 0, "control");
	trace_take();			/* whatever came before */
	CHECK(run_traffic(&t) == 0 && run_traffic(&other) == 0, "traffic");
	buf = trace_take();
	CHECK(buf, "cannot read trace");
	note("trace:\n%s", buf);
	snprintf(rx_tail, sizeof(rx_tail), "| skbp_tr %d", t.rx_pid);
	snprintf(tx_tail, sizeof(tx_tail), "| skbp_tt %d", t.tx_pid);
	/* veth queues to the backlog: the first stage of each line */
	lines = count_matching(buf, " RX backlog ", rx_tail);
	CHECK_EQ(lines, t.n);
	CHECK_EQ(count_matching(buf, " drv-ip ", rx_tail), t.n);
	CHECK_EQ(count_matching(buf, " ip-udp ", " udp-app "), t.n);
	CHECK_EQ(count_matching(buf, "| UDP " IP4_A ":", " > " IP4_B ":5001 |"),
		 2 * t.n);
	CHECK_EQ(count_matching(buf, " TX app-udp ", tx_tail), t.n);
	CHECK_EQ(count_matching(buf, " udp-ip ", " dev-drv "), t.n);
	CHECK_EQ(count_matching(buf, ":5002", NULL), 0);
	CHECK_EQ(count_matching(buf, "", NULL), 2 * t.n);
	return 0;
}

#define VPORT		5003
#define VSPORT_MARKED	40001
#define VSPORT_PLAIN	40002

/*
 * In namespace A, over loopback: three datagrams from a socket marked
 * 0x9999 and three from an unmarked one, each read before the next.
 */
static int marked_traffic(void)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(VPORT) };
	unsigned int mark = 0x9999;
	int r, m, u, i, st;
	char buf[64];
	pid_t pid;

	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork: %s", strerror(errno));
	if (pid == 0) {
		struct sockaddr_in a = to;

		if (enter_ns(NS_A))
			_exit(1);
		prctl(PR_SET_NAME, "skbp_mark");
		r = socket(AF_INET, SOCK_DGRAM, 0);
		m = socket(AF_INET, SOCK_DGRAM, 0);
		u = socket(AF_INET, SOCK_DGRAM, 0);
		if (r < 0 || m < 0 || u < 0 || bind(r, (void *)&to, sizeof(to)))
			_exit(2);
		a.sin_port = htons(VSPORT_MARKED);
		if (bind(m, (void *)&a, sizeof(a)) ||
		    setsockopt(m, SOL_SOCKET, SO_MARK, &mark, sizeof(mark)))
			_exit(3);
		a.sin_port = htons(VSPORT_PLAIN);
		if (bind(u, (void *)&a, sizeof(a)))
			_exit(4);
		for (i = 0; i < 6; i++) {
			if (sendto(i % 2 ? u : m, "v", 1, 0, (void *)&to,
				   sizeof(to)) != 1)
				_exit(5);
			if (recv(r, buf, sizeof(buf), 0) != 1)
				_exit(6);
		}
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "marked traffic failed (0x%x)", st);
	return 0;
}

/* The position of a verbose point name on its timeline; -1: unknown. */
static int point_rank(const char *dir, const char *point)
{
	static const char *const rx[] = { "drv", "ip", "udp", "app", NULL };
	static const char *const tx[] = { "app", "udp", "ip", "dev", "drv",
					  NULL };
	const char *const *p = strcmp(dir, "RX") ? tx : rx;
	int i;

	for (i = 0; p[i]; i++)
		if (!strcmp(p[i], point))
			return i;
	return -1;
}

/*
 * `filter mark 0x9999` and `trace verbose`: every probe hit of the marked
 * datagrams, and nothing of the others.  Each timeline lists its points in
 * order, each at least once, with non-decreasing times and offsets.
 */
TEST_F(veth4, trace_verbose_marked_packets)
{
	int timelines[2] = { 0, 0 }, last[2] = { -1, -1 }, seen[2] = { 0, 0 };
	unsigned long long prev[2] = { 0, 0 };
	double prev_off[2] = { 0, 0 };
	const int full[2] = { 0xf, 0x1f };	/* RX 4 points, TX 5 */
	char *buf, *line, *save = NULL;
	int hits = 0;

	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	CHECK(control("filter mark 0x9999\ntrace verbose\n") == 0, "control");
	trace_take();
	CHECK(marked_traffic() == 0, "traffic");
	buf = trace_take();
	CHECK(buf, "cannot read trace");
	note("trace:\n%s", buf);
	CHECK_EQ(count_matching(buf, ":40002", NULL), 0);
	/* completed timelines: the marked datagrams, both ways */
	CHECK_EQ(count_matching(buf, " TX app-udp ", ":40001 > 127.0.0.1:5003"),
		 3);
	/* loopback queues to the backlog: the first stage of each line */
	CHECK_EQ(count_matching(buf, " RX backlog ", ":40001 > 127.0.0.1:5003"),
		 3);
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char dir[4], point[8], sym[64];
		unsigned long long sec, nsec, t;
		double off;
		const char *h = strstr(line, " HIT ");
		int d, rank;

		if (!h)
			continue;
		CHECK(sscanf(h, " HIT %3s %7s %63s %llu.%llu +%lfus", dir, point,
			     sym, &sec, &nsec, &off) == 6,
		      "cannot parse '%s'", line);
		CHECK(strstr(line, "| UDP 127.0.0.1:40001 > 127.0.0.1:5003"),
		      "flow of '%s'", line);
		d = !strcmp(dir, "TX");
		rank = point_rank(dir, point);
		CHECK(rank >= 0, "point '%s' in '%s'", point, line);
		t = sec * 1000000000ULL + nsec;
		hits++;
		/* point 0 again after others: the next timeline */
		if (rank == 0 && (!timelines[d] || last[d] > 0)) {
			CHECK(off == 0, "first hit at an offset: '%s'", line);
			CHECK(!timelines[d] || seen[d] == full[d],
			      "a %s timeline missed points (0x%x) before '%s'",
			      dir, seen[d], line);
			timelines[d]++;
			seen[d] = 0;
			last[d] = 0;
			prev[d] = t;
			prev_off[d] = 0;
		}
		CHECK(timelines[d], "'%s' before its timeline's first point",
		      line);
		CHECK(rank >= last[d], "point out of order: '%s'", line);
		CHECK(t >= prev[d] && off >= prev_off[d],
		      "time went back at '%s'", line);
		seen[d] |= 1 << rank;
		last[d] = rank;
		prev[d] = t;
		prev_off[d] = off;
	}
	CHECK_EQ(timelines[0], 3);
	CHECK_EQ(timelines[1], 3);
	CHECK(seen[0] == full[0] && seen[1] == full[1],
	      "the last timelines missed points (rx 0x%x, tx 0x%x)", seen[0],
	      seen[1]);
	note("%d hits", hits);
	return 0;
}

/* ---- readers beside the receiver, GRO ---- */

/*
 * A tap in B: an AF_PACKET socket on vb that reads every frame until it
 * has read @n UDP datagrams to PORT.  Exit status: 0 or a step number.
 */
static int tap(int ready, int n)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL),
	};
	unsigned char buf[2048];
	int s, got = 0;
	ssize_t len;

	if (enter_ns(NS_B))
		return 1;
	prctl(PR_SET_NAME, "skbp_tap");
	s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	sll.sll_ifindex = if_nametoindex("vb");
	if (s < 0 || !sll.sll_ifindex || bind(s, (void *)&sll, sizeof(sll)))
		return 2;
	tell(ready, 'r');
	while (got < n) {
		const struct iphdr *ip = (const void *)(buf + ETH_HLEN);
		const struct udphdr *uh;

		if (wait_readable(s))
			return 3;
		len = recv(s, buf, sizeof(buf), 0);
		if (len < 0)
			return 4;
		if (len < ETH_HLEN + (ssize_t)sizeof(*ip) + 8 ||
		    ntohs(((struct ethhdr *)buf)->h_proto) != ETH_P_IP ||
		    ip->protocol != IPPROTO_UDP)
			continue;
		uh = (const void *)((const char *)ip + ip->ihl * 4);
		if (ntohs(uh->dest) == PORT)
			got++;
	}
	close(s);
	return 0;
}

/* Does procs charge process @pid anything on receive? */
static bool procs_charges_rx(pid_t pid)
{
	struct table t;
	char pids[16];
	bool found;

	if (table_read(&t, "procs"))
		return true;
	snprintf(pids, sizeof(pids), "%d", pid);
	found = table_find(&t, 0, "dir", "rx", "pid", pids, NULL) >= 0;
	table_free(&t);
	return found;
}

/*
 * A tap beside a UDP receiver: an AF_PACKET socket reads each datagram
 * first (the receiver lets each wait), from a clone of the receiver's
 * skb.  The tap is no application of the flow: the receiver is charged
 * all N datagrams, every receive timeline ends at its read, and the tap
 * is charged nothing.
 */
TEST_F(veth4, latency_tap_charges_nobody)
{
	struct traffic t = {
		.family = AF_INET, .type = SOCK_DGRAM, .n = 20,
		.wait_ns = 20 * MS,
		.rx_comm = "skbp_trcv", .tx_comm = "skbp_tsnd",
	};
	long long in0, in1;
	int pfd[2], st, err;
	pid_t tp;
	char *s;

	CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
	CHECK(pipe(pfd) == 0, "pipe");
	fflush(stdout);
	tp = fork();
	if (tp == 0)
		_exit(tap(pfd[1], t.n));
	CHECK(tp > 0 && hear(pfd[0]) == 'r', "the tap did not start");
	in0 = snmp(NS_B, "Udp", "InDatagrams");
	err = run_traffic(&t);
	if (err)
		kill(tp, SIGKILL);
	CHECK(waitpid(tp, &st, 0) == tp, "waitpid");
	close(pfd[0]);
	close(pfd[1]);
	CHECK(err == 0, "traffic");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the tap failed (0x%x)",
	      st);
	in1 = snmp(NS_B, "Udp", "InDatagrams");
	CHECK(in0 >= 0 && in1 >= 0, "cannot read the SNMP counters");
	CHECK_EQ(in1 - in0, t.n);
	s = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(s, "cannot read latency");
	CHECK_ROW(s, "rx", "udp-app", t.n);
	CHECK_ROW(s, "rx", "rx-total", t.n);
	free(s);
	CHECK_EQ(procs_count("rx", "rx-total", t.rx_pid, t.rx_comm), t.n);
	CHECK(!procs_charges_rx(tp), "the tap %d is charged in procs", tp);
	CHECK_EQ(rx_incomplete(), 0);
	CHECK(check_no_leak() == 0, "leak");
	return 0;
}

/* A counter of /sys/class/net/@dev/statistics in namespace @ns; -1. */
static long long ns_dev_stat(const char *ns, const char *dev,
			     const char *name)
{
	long long v = -1;
	char *out;
	int st;

	out = sh_out(&st, IP " netns exec %s cat /sys/class/net/%s/statistics/%s",
		     ns, dev, name);
	if (!st && out && *out)
		v = atoll(out);
	free(out);
	return v;
}

/*
 * What B coalesced; @both: and A (the ACKs it queued in its backlog while
 * the sender held the socket), for the lifetime view, which sees both.
 */
static long long coalesced_seen(bool both)
{
	return tcp_coalesced(NS_B) + (both ? tcp_coalesced(NS_A) : 0);
}

/*
 * Attach an XDP program that passes every frame to @ifname, in the current
 * netns: veth then receives through its NAPI, and so through GRO, on
 * kernels before 5.13, where turning GRO on alone does not.
 */
static int xdp_pass_attach(const char *ifname)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0,
		  .imm = XDP_PASS },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		struct nlattr xdp;
		struct nlattr fd_a;
		__u32 fd;
		struct nlattr flags_a;
		__u32 flags;
	} req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_SETLINK,
			.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK },
		.ifi = { .ifi_family = AF_UNSPEC },
		.xdp = { .nla_len = sizeof(req) - offsetof(typeof(req), xdp),
			 .nla_type = IFLA_XDP | NLA_F_NESTED },
		.fd_a = { .nla_len = NLA_HDRLEN + 4, .nla_type = IFLA_XDP_FD },
		.flags_a = { .nla_len = NLA_HDRLEN + 4,
			     .nla_type = IFLA_XDP_FLAGS },
		.flags = XDP_FLAGS_DRV_MODE,
	};
	struct {
		struct nlmsghdr nh;
		struct nlmsgerr err;
	} ack;
	union bpf_attr attr;
	int prog, nl, err;

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_XDP;
	attr.insns = (uintptr_t)insns;
	attr.insn_cnt = sizeof(insns) / sizeof(*insns);
	attr.license = (uintptr_t)"GPL";
	prog = syscall(__NR_bpf, BPF_PROG_LOAD, &attr, sizeof(attr));
	if (prog < 0)
		return -errno;
	req.ifi.ifi_index = if_nametoindex(ifname);
	req.fd = prog;
	nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (nl < 0 || send(nl, &req, sizeof(req), 0) != sizeof(req) ||
	    recv(nl, &ack, sizeof(ack), 0) < (ssize_t)sizeof(ack))
		err = -errno ?: -EIO;
	else
		err = ack.nh.nlmsg_type == NLMSG_ERROR ? ack.err.error : -EIO;
	if (nl >= 0)
		close(nl);
	close(prog);
	return err;
}

/*
 * GRO merging on vb: A sends MSS-sized frames (TSO and GSO off on va), and
 * vb's GRO (its NAPI) merges those of the flow.  Frames that reached vb's
 * NAPI are vb's rx_packets; the skbs that left GRO are what an nft
 * counter at prerouting in B counts.  Each frame merged into another skb
 * ends its timeline as merged (or reused), not as incomplete: the two
 * counters add up to the frames minus the skbs, and the receive timelines
 * of B that end incomplete (handshake, FIN) are at most 5% of its ip-tcp.
 * Each segment TCP coalesced into the one before it ends as coalesced: as
 * many as B's TcpExt counters of coalescing say.
 * `filter dev vb` keeps B's receive timelines alone, from their first
 * point on.  The lifetime view counts the same outcomes.
 */
/* What became of the frames vb's GRO took, and the ground truth. */
struct gro_count {
	bool life;		/* the lifetime view's counters, not the timelines' */
	long long f0, c0, missed0;
	long long frames, skbs, merged, coal, tcp_coal, missed;
};

static bool gro_counted(void *arg)
{
	struct gro_count *g = arg;
	const char *m = g->life ? "lifetime_merged" : "incomplete_rx_merged";
	const char *r = g->life ? "lifetime_reused" : "incomplete_rx_reused";

	g->frames = ns_dev_stat(NS_B, "vb", "rx_packets") - g->f0;
	g->skbs = nft_packets(NS_B, "ip skbp_gro pre");
	g->merged = stat_value(m) + stat_value(r);
	return g->merged == g->frames - g->skbs;
}

/*
 * 4 MB of TCP from A to B with vb's GRO on; @life: count with the
 * lifetime view alone (every allocation followed), else with the
 * timelines of `filter dev vb`.
 */
static int gro_merges(bool life)
{
	struct gro_count g = { .life = life };
	long long inc = 0, slack;
	unsigned long long iptcp = 0;
	int err;
	pid_t tx;
	char *s;

	err = ns_dev_set(NS_A, "va", ETHTOOL_STSO, 0);
	if (!err)
		err = ns_dev_set(NS_A, "va", ETHTOOL_SGSO, 0);
	if (!err)
		err = ns_dev_set(NS_B, "vb", ETHTOOL_SGRO, 1);
	/* before 5.13, veth runs its NAPI (and GRO) only with XDP */
	if (!err && kver() < 513)
		err = ns_dev_set(NS_B, "vb", 0, 0);
	CHECK(err == 0, "setting offloads: %s", strerror(-err));
	CHECK(kmod_probe("nf_tables") == 0, "cannot load nf_tables");
	kmod_probe("nft_counter");	/* built in from 6.x */
	CHECK(sh(IP " netns exec " NS_B " nft add table ip skbp_gro && "
		 IP " netns exec " NS_B " nft add chain ip skbp_gro pre "
		 "'{ type filter hook prerouting priority -300; }' && "
		 IP " netns exec " NS_B " nft add rule ip skbp_gro pre counter")
	      == 0, "nft setup");
	if (life) {
		CHECK(load_and_reset("lifetime_sample=0 stages=drops") == 0,
		      "load");
		g.missed0 = life_missed();
		CHECK(control("lifetime 1\nreset\n") == 0, "control");
	} else {
		CHECK(load_and_reset("lifetime_sample=0") == 0, "load");
		CHECK(control("filter dev vb\nreset\n") == 0, "filter");
	}
	g.f0 = ns_dev_stat(NS_B, "vb", "rx_packets");
	g.c0 = coalesced_seen(life);
	CHECK(run_bulk(4 << 20, &tx) == 0, "bulk traffic");
	/* the closing handshake may still be on its way: wait for a match */
	wait_until(gro_counted, &g, WAIT_MS);
	g.tcp_coal = coalesced_seen(life) - g.c0;
	if (life) {
		g.coal = stat_value("lifetime_coalesced");
		g.missed = life_missed() - g.missed0;
		CHECK(control("lifetime off\n") == 0, "control");
	} else {
		s = read_file(DEBUGFS_DIR "/latency_buckets");
		CHECK(s, "cannot read latency");
		iptcp = row_count(s, "rx", "ip-tcp");
		free(s);
		inc = rx_incomplete();
		g.coal = stat_value("incomplete_rx_coalesced");
	}
	note("%s: frames %lld, skbs out of GRO %lld, merged+reused %lld, coalesced %lld (TcpExt %lld), ip-tcp %llu, incomplete %lld, constructor hits missed %lld",
	     life ? "lifetime" : "timelines", g.frames, g.skbs, g.merged,
	     g.coal, g.tcp_coal, iptcp, inc, g.missed);
	CHECK(g.f0 >= 0 && g.skbs > 0, "cannot read the counters");
	CHECK(g.frames > g.skbs, "GRO merged nothing: %lld frames, %lld skbs",
	      g.frames, g.skbs);
	CHECK(g.c0 >= 0 && g.tcp_coal > 0,
	      "TCP coalesced nothing (TcpExt %lld, %lld)", g.c0, g.tcp_coal);
	/* a constructor probe that missed an skb could not follow it */
	slack = life ? g.missed : 0;
	CHECK(g.merged <= g.frames - g.skbs &&
	      g.merged >= g.frames - g.skbs - slack,
	      "merged+reused %lld, frames %lld - skbs %lld = %lld (%lld missed)",
	      g.merged, g.frames, g.skbs, g.frames - g.skbs, slack);
	CHECK(g.coal <= g.tcp_coal && g.coal >= g.tcp_coal - slack,
	      "coalesced %lld, TcpExt %lld (%lld missed)", g.coal,
	      g.tcp_coal, slack);
	CHECK(inc * 20 <= (long long)iptcp,
	      "%lld incomplete receive timelines, ip-tcp %llu", inc, iptcp);
	sh(IP " netns exec " NS_B " nft delete table ip skbp_gro");
	return 0;
}

TEST_F(veth4, latency_gro_merges_counted)
{
	return gro_merges(false);
}

/*
 * The same traffic in the lifetime view alone: a frame GRO merged, and
 * an skb TCP coalesced, end as counted outcomes, not as samples, as many
 * as the same ground truths say.
 */
TEST_F(veth4, lifetime_gro_merges_counted)
{
	return gro_merges(true);
}
