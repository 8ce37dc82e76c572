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
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PORT_FLOOD	9100
#define PORT_TCP	9101
#define PORT_RR		9102
#define PORT_CLOSED	9103
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
	fprintf(stderr,
		"usage: skbprof-load udp-flood SECS SIZE\n"
		"       skbprof-load udp-drop SECS SIZE\n"
		"       skbprof-load tcp-stream NS_CLIENT NS_SERVER ADDR SECS\n"
		"       skbprof-load udp-rr NS_CLIENT NS_SERVER ADDR SECS SIZE\n");
	return 2;
}
