// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof-traffic: small, deterministic traffic generator for the guest
 * demo and benchmarks.
 *
 *   skbprof-traffic udp ADDR PORT COUNT [SIZE]
 *	send COUNT datagrams to ADDR:PORT (nobody need listen)
 *   skbprof-traffic udp-pair ADDR PORT COUNT [SIZE]
 *	bind ADDR:PORT, send COUNT datagrams to it, read them all back
 *   skbprof-traffic udp-cork ADDR PORT COUNT [SIZE [WAIT_US]]
 *	as udp-pair, each datagram sent in two parts, the first with
 *	MSG_MORE, WAIT_US apart
 *   skbprof-traffic udp-uncork ADDR PORT COUNT [SIZE [WAIT_US]]
 *	as udp-pair, each datagram sent in two parts under UDP_CORK, sent
 *	by the setsockopt() that uncorks WAIT_US after the second part
 *	With a cork, prints "span_ns MIN MAX": over the datagrams, the
 *	time from before the first part's sendto() to the return of the
 *	call that sent the datagram (CLOCK_MONOTONIC).
 *   skbprof-traffic tcp ADDR PORT BYTES
 *	listen on ADDR:PORT, connect, stream BYTES through, check the count
 *   skbprof-traffic tcp-syn ADDR PORT
 *	connect to ADDR:PORT, expecting the refusal of a closed port
 *   skbprof-traffic tun-drop ADDR PORT COUNT
 *	attach to the tun device sktun0 (made, persistent, if missing),
 *	never read it, and send COUNT datagrams to ADDR:PORT, routed there
 *	by the caller: past its queue (txqueuelen), tun drops them and
 *	counts them in the device's tx_dropped.  The device stays, with
 *	its counters, after the program ends; COUNT 0 only makes it.
 *
 * ADDR is an IPv4 or IPv6 literal.  Exits 0 when the traffic went as
 * described, 1 otherwise, with a message naming what failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static socklen_t parse_addr(const char *addr, const char *port,
			    struct sockaddr_storage *ss)
{
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	char *end;
	long p = strtol(port, &end, 10);

	if (*end || p < 1 || p > 65535) {
		fprintf(stderr, "skbprof-traffic: bad port '%s'\n", port);
		exit(2);
	}
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(p);
		return sizeof(*s4);
	}
	if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(p);
		return sizeof(*s6);
	}
	fprintf(stderr, "skbprof-traffic: bad address '%s'\n", addr);
	exit(2);
}

static long number(const char *s, const char *what)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*end || v < 0) {
		fprintf(stderr, "skbprof-traffic: bad %s '%s'\n", what, s);
		exit(2);
	}
	return v;
}

static int die(const char *what)
{
	fprintf(stderr, "skbprof-traffic: %s: %s\n", what, strerror(errno));
	return 1;
}

static long long mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

enum { NO_CORK, CORK_MORE, CORK_OPT };

/* Set UDP_CORK on @fd to @on. */
static int udp_cork(int fd, int on)
{
	return setsockopt(fd, IPPROTO_UDP, UDP_CORK, &on, sizeof(on));
}

/*
 * COUNT datagrams of SIZE bytes; with @pair, read each back on a socket
 * bound to ADDR; with @cork, each datagram is sent in two parts, @wait_us
 * apart, so the kernel builds it in the cork and sends it from
 * udp_push_pending_frames(): CORK_MORE, the first part with MSG_MORE;
 * CORK_OPT, both parts under UDP_CORK, sent when it is switched off
 * @wait_us after the second part.
 */
static int udp(struct sockaddr_storage *ss, socklen_t len, long count,
	       long size, int pair, int cork, long wait_us)
{
	long long t0, span, span_min = -1, span_max = 0;
	char buf[65536];
	int tx, rx = -1;
	long i;

	if (size > (long)sizeof(buf))
		size = sizeof(buf);
	memset(buf, 'u', size);
	tx = socket(ss->ss_family, SOCK_DGRAM, 0);
	if (tx < 0)
		return die("socket");
	if (pair) {
		int big = 4 << 20;

		rx = socket(ss->ss_family, SOCK_DGRAM, 0);
		if (rx < 0)
			return die("socket");
		setsockopt(rx, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
		if (bind(rx, (struct sockaddr *)ss, len))
			return die("bind");
	}
	for (i = 0; i < count; i++) {
		long first = cork ? size / 2 : 0;

		if (cork == CORK_OPT && udp_cork(tx, 1))
			return die("UDP_CORK on");
		t0 = mono_ns();
		if (first && sendto(tx, buf, first,
				    cork == CORK_MORE ? MSG_MORE : 0,
				    (struct sockaddr *)ss, len) != first)
			return die("sendto, first part");
		if (cork == CORK_MORE && wait_us)
			usleep(wait_us);
		if (sendto(tx, buf + first, size - first, 0,
			   (struct sockaddr *)ss, len) != size - first)
			return die("sendto");
		if (cork == CORK_OPT && wait_us)
			usleep(wait_us);
		if (cork == CORK_OPT && udp_cork(tx, 0))
			return die("UDP_CORK off");
		span = mono_ns() - t0;
		if (span_min < 0 || span < span_min)
			span_min = span;
		if (span > span_max)
			span_max = span;
		/* read as we go so a small default buffer never overflows */
		if (pair && recv(rx, buf, sizeof(buf), 0) != size)
			return die("recv");
	}
	close(tx);
	if (rx >= 0)
		close(rx);
	if (cork)
		printf("span_ns %lld %lld\n", span_min, span_max);
	return 0;
}

static int tcp(struct sockaddr_storage *ss, socklen_t len, long bytes)
{
	static char buf[1 << 16];
	int one = 1, l, c, st;
	long left, got = 0;
	pid_t pid;
	ssize_t n;

	l = socket(ss->ss_family, SOCK_STREAM, 0);
	if (l < 0)
		return die("socket");
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)ss, len) || listen(l, 1))
		return die("bind/listen");
	pid = fork();
	if (pid < 0)
		return die("fork");
	if (pid == 0) {
		c = socket(ss->ss_family, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (struct sockaddr *)ss, len))
			_exit(die("connect"));
		memset(buf, 't', sizeof(buf));
		for (left = bytes; left > 0; left -= n) {
			n = write(c, buf, left < (long)sizeof(buf) ? left : (long)sizeof(buf));
			if (n <= 0)
				_exit(die("write"));
		}
		close(c);
		_exit(0);
	}
	c = accept(l, NULL, NULL);
	if (c < 0)
		return die("accept");
	while ((n = read(c, buf, sizeof(buf))) > 0)
		got += n;
	close(c);
	close(l);
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return 1;
	if (got != bytes) {
		fprintf(stderr, "skbprof-traffic: received %ld of %ld bytes\n", got, bytes);
		return 1;
	}
	return 0;
}

static int tcp_syn(struct sockaddr_storage *ss, socklen_t len)
{
	int c = socket(ss->ss_family, SOCK_STREAM, 0);

	if (c < 0)
		return die("socket");
	if (connect(c, (struct sockaddr *)ss, len) == 0) {
		fprintf(stderr, "skbprof-traffic: connect succeeded, port is open\n");
		return 1;
	}
	if (errno != ECONNREFUSED)
		return die("connect");
	close(c);
	return 0;
}

/* sktun0, attached and never read: what it cannot queue it drops. */
static int tun_drop(struct sockaddr_storage *ss, socklen_t len, long count)
{
	struct ifreq ifr;
	int fd, s;
	long i;

	fd = open("/dev/net/tun", O_RDWR);
	if (fd < 0)
		return die("/dev/net/tun");
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "sktun0");
	if (ioctl(fd, TUNSETIFF, &ifr) || ioctl(fd, TUNSETPERSIST, 1))
		return die("sktun0");
	s = socket(ss->ss_family, SOCK_DGRAM, 0);
	if (s < 0)
		return die("socket");
	for (i = 0; i < count; i++)
		if (sendto(s, "x", 1, 0, (struct sockaddr *)ss, len) < 0 &&
		    errno != ENOBUFS)
			return die("sendto");
	close(s);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (argc < 4)
		goto usage;
	len = parse_addr(argv[2], argv[3], &ss);
	if (!strcmp(argv[1], "udp") && (argc == 5 || argc == 6))
		return udp(&ss, len, number(argv[4], "count"),
			   argc == 6 ? number(argv[5], "size") : 64, 0, 0, 0);
	if (!strcmp(argv[1], "udp-pair") && (argc == 5 || argc == 6))
		return udp(&ss, len, number(argv[4], "count"),
			   argc == 6 ? number(argv[5], "size") : 64, 1, 0, 0);
	if ((!strcmp(argv[1], "udp-cork") || !strcmp(argv[1], "udp-uncork")) &&
	    argc >= 5 && argc <= 7)
		return udp(&ss, len, number(argv[4], "count"),
			   argc >= 6 ? number(argv[5], "size") : 64, 1,
			   argv[1][4] == 'c' ? CORK_MORE : CORK_OPT,
			   argc == 7 ? number(argv[6], "wait") : 0);
	if (!strcmp(argv[1], "tcp") && argc == 5)
		return tcp(&ss, len, number(argv[4], "byte count"));
	if (!strcmp(argv[1], "tcp-syn") && argc == 4)
		return tcp_syn(&ss, len);
	if (!strcmp(argv[1], "tun-drop") && argc == 5)
		return tun_drop(&ss, len, number(argv[4], "count"));
usage:
	fprintf(stderr,
		"usage: skbprof-traffic udp|udp-pair ADDR PORT COUNT [SIZE]\n"
		"       skbprof-traffic udp-cork|udp-uncork ADDR PORT COUNT [SIZE [WAIT_US]]\n"
		"       skbprof-traffic tcp ADDR PORT BYTES\n"
		"       skbprof-traffic tcp-syn ADDR PORT\n"
		"       skbprof-traffic tun-drop ADDR PORT COUNT\n");
	return 2;
}
