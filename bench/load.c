// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof-load: the fixed workloads of `make bench`, run in the guest.
 *
 *   skbprof-load udp-flood SECS SIZE
 *	one thread sends bursts of BURST datagrams of SIZE bytes to its own
 *	socket on 127.0.0.1 and reads them back, for SECS seconds: no
 *	losses, so every datagram crosses every transmit and receive stage
 *   skbprof-load udp-drop SECS SIZE
 *	sends datagrams of SIZE bytes to a closed port on 127.0.0.1 for SECS
 *	seconds: each one is dropped on receive (no socket), the drop path
 *   skbprof-load tcp-stream NS_CLIENT NS_SERVER ADDR SECS
 *	a client in netns NS_CLIENT streams to a server on ADDR in netns
 *	NS_SERVER (over a veth pair) for SECS seconds
 *   skbprof-load udp-rr NS_CLIENT NS_SERVER ADDR SECS SIZE
 *	request/response: one datagram out, the echo back, one at a time,
 *	for SECS seconds; round-trip time percentiles
 *   skbprof-load scale MS FLOWS HOLD CGROUPS
 *	make bench-scale's workload (bench/scale.sh): udp-flood for MS
 *	milliseconds from FLOWS sockets in turn (distinct source address
 *	and port each: FLOWS concurrent flows), after HOLD datagrams were
 *	queued, unread, on another socket (packets in flight, each holding
 *	its receive stamp); with CGROUPS > 0 the process moves to the next
 *	of the cgroups CGROUP_DIR/c0 ... c(CGROUPS-1) before each burst, so
 *	the packets' owners go round that many cgroups
 *   skbprof-load read PATH COUNT
 *	reads file PATH COUNT times to its end: the time one read takes
 *
 * Namespaces are names under /run/netns (ip netns add).  Prints one line
 *   result WORKLOAD key=value...
 * with the figures (time is the guest's CLOCK_MONOTONIC).  Exits 0 when the
 * run went as described, 1 otherwise with a message naming what failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PORT_FLOOD	9100
#define PORT_TCP	9101
#define PORT_RR		9102
#define PORT_CLOSED	9103
#define PORT_HOLD	9104
#define CGROUP_DIR	"/sys/fs/cgroup/skbprof-bench"
#define BURST		32
#define MAX_RTTS	(1 << 21)

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "skbprof-load: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long number(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v <= 0) {
		fprintf(stderr, "skbprof-load: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static void enter_ns(const char *ns)
{
	char path[256];
	int fd;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || setns(fd, CLONE_NEWNET))
		die(path);
	close(fd);
}

static struct sockaddr_in addr4(const char *a, int port)
{
	struct sockaddr_in s = { .sin_family = AF_INET, .sin_port = htons(port) };

	if (inet_pton(AF_INET, a, &s.sin_addr) != 1) {
		fprintf(stderr, "skbprof-load: bad IPv4 address '%s'\n", a);
		exit(2);
	}
	return s;
}

/*
 * Packets that crossed device DEV (received + transmitted) in the current
 * netns, from /proc/self/net/dev: the skbs the stack handled, whatever
 * their size (TSO/GSO skbs count once, as the probes see them).
 */
static unsigned long long dev_packets(const char *dev)
{
	char line[512], name[64];
	unsigned long long v[16];
	FILE *f = fopen("/proc/self/net/dev", "r");

	if (!f)
		die("/proc/self/net/dev");
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!colon)
			continue;
		*colon = ' ';
		if (sscanf(line, " %63s %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu",
			   name, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
			   &v[7], &v[8], &v[9]) == 11 && !strcmp(name, dev)) {
			fclose(f);
			return v[1] + v[9];	/* rx packets + tx packets */
		}
	}
	fclose(f);
	fprintf(stderr, "skbprof-load: no device %s in /proc/self/net/dev\n", dev);
	exit(1);
}

static int udp_flood(double secs, long size)
{
	struct sockaddr_in a = addr4("127.0.0.1", PORT_FLOOD);
	static char buf[65536];
	unsigned long long n = 0;
	int tx, rx, i;
	double t0, t;

	if (size > (long)sizeof(buf))
		size = sizeof(buf);
	memset(buf, 'f', size);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	if (tx < 0 || rx < 0)
		die("socket");
	if (bind(rx, (struct sockaddr *)&a, sizeof(a)))
		die("bind");
	t0 = now();
	do {
		for (i = 0; i < BURST; i++)
			if (sendto(tx, buf, size, 0, (struct sockaddr *)&a,
				   sizeof(a)) != size)
				die("sendto");
		for (i = 0; i < BURST; i++)
			if (recv(rx, buf, sizeof(buf), 0) != size)
				die("recv");
		n += BURST;
		t = now();
	} while (t - t0 < secs);
	printf("result udp-flood secs=%.6f packets=%llu pps=%.1f\n",
	       t - t0, n, n / (t - t0));
	return 0;
}

static int udp_drop(double secs, long size)
{
	struct sockaddr_in a = addr4("127.0.0.1", PORT_CLOSED);
	static char buf[65536];
	unsigned long long n = 0;
	double t0, t;
	int tx;

	if (size > (long)sizeof(buf))
		size = sizeof(buf);
	memset(buf, 'd', size);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (tx < 0)
		die("socket");
	t0 = now();
	do {
		/* not connected: ICMP port unreachable cannot fail the send */
		if (sendto(tx, buf, size, 0, (struct sockaddr *)&a,
			   sizeof(a)) != size)
			die("sendto");
		n++;
		t = now();
	} while (t - t0 < secs);
	printf("result udp-drop secs=%.6f packets=%llu pps=%.1f\n",
	       t - t0, n, n / (t - t0));
	return 0;
}

/* The server half of tcp-stream: count bytes until EOF. */
static void tcp_sink(int l, int out)
{
	static char buf[1 << 16];
	unsigned long long got = 0;
	double t0 = 0, t1 = 0;
	ssize_t n;
	int c;

	c = accept(l, NULL, NULL);
	if (c < 0)
		die("accept");
	while ((n = read(c, buf, sizeof(buf))) > 0) {
		if (!got)
			t0 = now();
		got += n;
		t1 = now();
	}
	if (n < 0)
		die("read");
	dprintf(out, "%llu %.9f\n", got, t1 - t0);
	_exit(0);
}

static int tcp_stream(const char *ns_c, const char *ns_s, const char *a_s,
		      double secs)
{
	struct sockaddr_in a = addr4(a_s, PORT_TCP);
	static char buf[1 << 16];
	unsigned long long sent = 0, got, p0, p1;
	int one = 1, l, c, st, res[2];
	double t0, t, dt;
	char line[128];
	pid_t pid;
	ssize_t n;

	if (pipe(res))
		die("pipe");
	enter_ns(ns_s);
	l = socket(AF_INET, SOCK_STREAM, 0);
	if (l < 0)
		die("socket");
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1))
		die("bind/listen");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		close(res[0]);
		tcp_sink(l, res[1]);
	}
	close(l);
	close(res[1]);
	enter_ns(ns_c);
	c = socket(AF_INET, SOCK_STREAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)))
		die("connect");
	memset(buf, 't', sizeof(buf));
	p0 = dev_packets("va");
	t0 = now();
	do {
		n = write(c, buf, sizeof(buf));
		if (n <= 0)
			die("write");
		sent += n;
		t = now();
	} while (t - t0 < secs);
	close(c);
	n = read(res[0], line, sizeof(line) - 1);
	if (n <= 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) ||
	    WEXITSTATUS(st)) {
		fprintf(stderr, "skbprof-load: the tcp server failed\n");
		return 1;
	}
	p1 = dev_packets("va");
	line[n] = 0;
	if (sscanf(line, "%llu %lf", &got, &dt) != 2 || got != sent || dt <= 0) {
		fprintf(stderr, "skbprof-load: sent %llu bytes, server says '%s'\n",
			sent, line);
		return 1;
	}
	printf("result tcp-stream secs=%.6f bytes=%llu packets=%llu MBps=%.3f pps=%.1f\n",
	       dt, got, p1 - p0, got / dt / 1e6, (p1 - p0) / dt);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static int udp_rr(const char *ns_c, const char *ns_s, const char *a_s,
		  double secs, long size)
{
	struct sockaddr_in a = addr4(a_s, PORT_RR);
	static char buf[65536];
	double *rtt, t0, t, s, sum = 0;
	int sv, c, st;
	long i, n = 0;
	pid_t pid;

	if (size > (long)sizeof(buf))
		size = sizeof(buf);
	if (size < 2)		/* a 1-byte datagram ends the server */
		size = 2;
	rtt = malloc(sizeof(*rtt) * MAX_RTTS);
	if (!rtt)
		die("malloc");
	enter_ns(ns_s);
	sv = socket(AF_INET, SOCK_DGRAM, 0);
	if (sv < 0 || bind(sv, (struct sockaddr *)&a, sizeof(a)))
		die("server socket");
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		struct sockaddr_in from;
		socklen_t fl;
		ssize_t m;

		for (;;) {
			fl = sizeof(from);
			m = recvfrom(sv, buf, sizeof(buf), 0,
				     (struct sockaddr *)&from, &fl);
			if (m < 0)
				die("recvfrom");
			if (m == 1)	/* the end */
				_exit(0);
			if (sendto(sv, buf, m, 0, (struct sockaddr *)&from, fl) != m)
				die("sendto (echo)");
		}
	}
	close(sv);
	enter_ns(ns_c);
	c = socket(AF_INET, SOCK_DGRAM, 0);
	if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)))
		die("client socket");
	memset(buf, 'r', size);
	t0 = now();
	do {
		s = now();
		if (send(c, buf, size, 0) != size)
			die("send");
		if (recv(c, buf, sizeof(buf), 0) != size)
			die("recv");
		t = now();
		if (n < MAX_RTTS)
			rtt[n++] = t - s;
		sum += t - s;
	} while (t - t0 < secs);
	if (send(c, buf, 1, 0) != 1)
		die("send (end)");
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		fprintf(stderr, "skbprof-load: the echo server failed\n");
		return 1;
	}
	qsort(rtt, n, sizeof(*rtt), cmp_double);
	i = n;
	printf("result udp-rr secs=%.6f transactions=%ld tps=%.1f rtt_mean_us=%.2f "
	       "rtt_p50_us=%.2f rtt_p90_us=%.2f rtt_p99_us=%.2f pps=%.1f\n",
	       t - t0, i, i / (t - t0), sum / i * 1e6, rtt[i * 50 / 100] * 1e6,
	       rtt[i * 90 / 100] * 1e6, rtt[i * 99 / 100] * 1e6,
	       2 * i / (t - t0));
	free(rtt);
	return 0;
}

/* A count that may be 0. */
static long count(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0) {
		fprintf(stderr, "skbprof-load: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

/*
 * Sender @i of the scale workload: 127.0.(1 + i / 40000).1, port
 * 20000 + i % 40000, so 100,000 flows need no more ports than one
 * address has.
 */
static struct sockaddr_in flow_addr(long i)
{
	struct sockaddr_in s = { .sin_family = AF_INET,
				 .sin_port = htons(20000 + i % 40000) };

	s.sin_addr.s_addr = htonl(0x7f000001 | (uint32_t)(1 + i / 40000) << 8);
	return s;
}

static int scale(long ms, long flows, long hold, long cgroups)
{
	struct sockaddr_in a = addr4("127.0.0.1", PORT_FLOOD);
	struct sockaddr_in h = addr4("127.0.0.1", PORT_HOLD);
	int rx, holder, *tx, *cg = NULL, big = 1 << 30, one = 1;
	unsigned long long n = 0;
	long i, next = 0, nextcg = 0, held = 0;
	struct rlimit rl;
	char buf[64], path[128];
	double t0, t;

	memset(buf, 's', sizeof(buf));
	rl.rlim_cur = rl.rlim_max = flows + cgroups + 1024;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("setrlimit NOFILE");
	tx = calloc(flows, sizeof(*tx));
	if (!tx)
		die("calloc");
	for (i = 0; i < flows; i++) {
		struct sockaddr_in f = flow_addr(i);

		tx[i] = socket(AF_INET, SOCK_DGRAM, 0);
		if (tx[i] < 0)
			die("socket (flow)");
		setsockopt(tx[i], SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(tx[i], (struct sockaddr *)&f, sizeof(f)))
			die("bind (flow)");
	}
	if (cgroups) {
		cg = calloc(cgroups, sizeof(*cg));
		if (!cg)
			die("calloc");
		for (i = 0; i < cgroups; i++) {
			snprintf(path, sizeof(path), CGROUP_DIR "/c%ld/cgroup.procs", i);
			cg[i] = open(path, O_WRONLY | O_CLOEXEC);
			if (cg[i] < 0)
				die(path);
		}
	}
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	holder = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || holder < 0)
		die("socket");
	if (bind(rx, (struct sockaddr *)&a, sizeof(a)) ||
	    bind(holder, (struct sockaddr *)&h, sizeof(h)))
		die("bind");
	/* room for every held datagram: root may pass net.core.rmem_max */
	if (hold && setsockopt(holder, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big)))
		die("SO_RCVBUFFORCE");
	for (i = 0; i < hold; i++)
		if (sendto(tx[0], buf, sizeof(buf), 0, (struct sockaddr *)&h,
			   sizeof(h)) != sizeof(buf))
			die("sendto (hold)");
	t0 = now();
	do {
		if (cgroups) {
			if (write(cg[nextcg], "0", 1) != 1)
				die("cgroup.procs");
			nextcg = (nextcg + 1) % cgroups;
		}
		for (i = 0; i < BURST; i++) {
			if (sendto(tx[next], buf, sizeof(buf), 0,
				   (struct sockaddr *)&a, sizeof(a)) != sizeof(buf))
				die("sendto");
			next = next + 1 == flows ? 0 : next + 1;
		}
		for (i = 0; i < BURST; i++)
			if (recv(rx, buf, sizeof(buf), 0) != sizeof(buf))
				die("recv");
		n += BURST;
		t = now();
	} while (t - t0 < ms / 1e3);
	/* still held at the end: every one, or the figure means less */
	while (recv(holder, buf, sizeof(buf), MSG_DONTWAIT) == sizeof(buf))
		held++;
	if (cgroups) {
		/* back to the root cgroup, which the next run's removal needs */
		snprintf(path, sizeof(path), "/sys/fs/cgroup/cgroup.procs");
		i = open(path, O_WRONLY | O_CLOEXEC);
		if (i < 0 || write(i, "0", 1) != 1)
			die(path);
		close(i);
		for (i = 0; i < cgroups; i++)
			close(cg[i]);
	}
	for (i = 0; i < flows; i++)
		close(tx[i]);
	close(rx);
	close(holder);
	printf("result scale secs=%.6f packets=%llu pps=%.1f flows=%ld hold=%ld held=%ld cgroups=%ld\n",
	       t - t0, n, n / (t - t0), flows, hold, held, cgroups);
	return 0;
}

/* Read @path to its end @times times: the time of one read. */
static int read_file(const char *path, long times)
{
	static char buf[1 << 16];
	unsigned long long bytes = 0;
	double t0, t;
	long i;
	ssize_t n;

	t0 = now();
	for (i = 0; i < times; i++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			die(path);
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			bytes += n;
		if (n < 0)
			die(path);
		close(fd);
	}
	t = now();
	printf("result read secs=%.6f reads=%ld bytes_per_read=%llu ns_per_read=%.0f\n",
	       t - t0, times, bytes / times, (t - t0) / times * 1e9);
	return 0;
}

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && !strcmp(argv[1], "udp-flood"))
		return udp_flood(number(argv[2], "SECS"), number(argv[3], "SIZE"));
	if (argc == 4 && !strcmp(argv[1], "udp-drop"))
		return udp_drop(number(argv[2], "SECS"), number(argv[3], "SIZE"));
	if (argc == 6 && !strcmp(argv[1], "tcp-stream"))
		return tcp_stream(argv[2], argv[3], argv[4],
				  number(argv[5], "SECS"));
	if (argc == 7 && !strcmp(argv[1], "udp-rr"))
		return udp_rr(argv[2], argv[3], argv[4],
			      number(argv[5], "SECS"), number(argv[6], "SIZE"));
	if (argc == 6 && !strcmp(argv[1], "scale"))
		return scale(number(argv[2], "MS"), number(argv[3], "FLOWS"),
			     count(argv[4], "HOLD"), count(argv[5], "CGROUPS"));
	if (argc == 4 && !strcmp(argv[1], "read"))
		return read_file(argv[2], number(argv[3], "COUNT"));
	fprintf(stderr,
		"usage: skbprof-load udp-flood SECS SIZE\n"
		"       skbprof-load udp-drop SECS SIZE\n"
		"       skbprof-load tcp-stream NS_CLIENT NS_SERVER ADDR SECS\n"
		"       skbprof-load udp-rr NS_CLIENT NS_SERVER ADDR SECS SIZE\n"
		"       skbprof-load scale MS FLOWS HOLD CGROUPS\n"
		"       skbprof-load read PATH COUNT\n");
	return 2;
}
