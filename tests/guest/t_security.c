// SPDX-License-Identifier: GPL-2.0
/*
 * What an attacker or a careless user can do to the module:
 *
 *   security_file_modes_and_uid: every file root-only with the exact
 *   mode (0400, control 0600); an unprivileged uid is refused every open.
 *
 *   security_no_cap_sys_admin: root without CAP_SYS_ADMIN cannot change
 *   anything through control (EPERM for every command, reset included).
 *
 *   security_control_opener_decides: a write is judged by who opened the
 *   file, not who writes: a descriptor opened without CAP_SYS_ADMIN stays
 *   refused in a privileged writer's hands, and one root opened works
 *   for the unprivileged process it was handed to.
 *
 *   security_control_other_netns: root with every capability, in a
 *   network namespace of its own (a container that sees the host's pids),
 *   reaches the control file through /proc/1/net/skbprof/ and debugfs
 *   but cannot open it for writing (EPERM), and the tool there says why;
 *   the configuration reads back unchanged, and the host's root still
 *   writes.
 *
 *   security_no_kernel_addresses: after traffic, drops and a verbose
 *   trace, no file prints a raw or hashed kernel pointer.
 *
 *   malformed_packets: truncated and bogus IPv4/IPv6/TCP/UDP headers
 *   through every probe point (AF_PACKET frames into a veth peer's receive
 *   path, IP_HDRINCL and IPv6 raw sends); the kernel's own counters move
 *   by what it must reject, nothing crashes, and the module still counts
 *   a normal drop exactly afterwards.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip6.h>
#include <netinet/tcp.h>
#include <netinet/udp.h>
#include <regex.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define CONTROL	DEBUGFS_DIR "/control"
#define PROCFS_DIR	"/proc/net/skbprof"	/* control's twin, for lockdown */
#define IP	"/usr/sbin/ip"

/* The paths of the files in directory @dir, "" after the last. */
static int list_files(const char *dir, char names[][256], int max)
{
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return fail("opendir %s: %s", dir, strerror(errno));
	while ((de = readdir(d)) && n < max - 1) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(names[n++], 256, "%.40s/%.200s", dir, de->d_name);
	}
	closedir(d);
	names[n][0] = 0;
	return n;
}

static int nobody_opens(void *arg)
{
	char (*names)[256] = arg;
	const char *path;
	int i, fd;

	for (i = 0; names[i][0]; i++) {
		path = names[i];
		fd = open(path, O_RDONLY | O_NONBLOCK);
		if (fd >= 0 || errno != EACCES) {
			fprintf(stderr, "nobody: open %s read: %s\n", path,
				fd >= 0 ? "allowed" : strerror(errno));
			return 1;
		}
		fd = open(path, O_WRONLY | O_NONBLOCK);
		if (fd >= 0 || errno != EACCES) {
			fprintf(stderr, "nobody: open %s write: %s\n", path,
				fd >= 0 ? "allowed" : strerror(errno));
			return 1;
		}
	}
	return 0;
}

TEST(security_file_modes_and_uid)
{
	char names[32][256];
	const char *path;
	struct stat st;
	int n, np, i, err;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	n = list_files(DEBUGFS_DIR, names, 32);
	CHECK(n >= 7, "only %d files", n);
	/* and the procfs twins: the control file only */
	np = list_files(PROCFS_DIR, names + n, 32 - n);
	CHECK(np == 1 && !strcmp(names[n], PROCFS_DIR "/control"),
	      "%s holds %d files, the first '%s'", PROCFS_DIR, np, names[n]);
	n += np;
	for (i = 0; i < n; i++) {
		const char *base = strrchr(names[i], '/') + 1;
		unsigned int want = strcmp(base, "control") ? 0400 : 0600;

		path = names[i];
		CHECK(stat(path, &st) == 0, "stat %s: %s", path, strerror(errno));
		CHECK(S_ISREG(st.st_mode) && st.st_uid == 0 && st.st_gid == 0 &&
		      (st.st_mode & 07777) == want,
		      "%s is %o %u:%u, want %o root:root", path,
		      st.st_mode & 07777, st.st_uid, st.st_gid, want);
	}
	CHECK(stat(DEBUGFS_DIR, &st) == 0 && st.st_uid == 0 &&
	      !(st.st_mode & 0022), "%s is writable by others (%o)",
	      DEBUGFS_DIR, st.st_mode & 07777);
	CHECK(stat(PROCFS_DIR, &st) == 0 && st.st_uid == 0 &&
	      !(st.st_mode & 0022), "%s is writable by others (%o)",
	      PROCFS_DIR, st.st_mode & 07777);
	/* open the path to the directory, so the files' modes decide */
	CHECK(chmod("/sys/kernel/debug", 0755) == 0, "chmod: %s",
	      strerror(errno));
	err = run_as(65534, nobody_opens, names);
	chmod("/sys/kernel/debug", 0700);
	CHECK(err == 0, "uid 65534 opened a file (see the log)");
	note("%d files, all root-only; uid 65534 refused EACCES on each", n);
	return 0;
}

/* Pass @fd over @sock (SCM_RIGHTS); 0 or -1. */
static int send_fd(int sock, int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 }, byte = 'f';
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &mh, 0) == 1 ? 0 : -1;
}

/* The descriptor sent over @sock, or -1. */
static int recv_fd(int sock)
{
	char ctl[CMSG_SPACE(sizeof(int))], byte;
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &mh, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&mh);
	if (!c || c->cmsg_type != SCM_RIGHTS)
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/* nobody writes on root's descriptor (run_as: uid 65534, no caps) */
static int nobody_writes(void *arg)
{
	int fd = *(int *)arg;

	return write(fd, "sample 7\n", 9) == 9 ? 0 : -1;
}

TEST(security_control_opener_decides)
{
	int sv[2], fd, st, err;
	char *c;
	pid_t pid;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));

	/* root opens, nobody writes: the opener's capability counts */
	fd = open(CONTROL, O_WRONLY);
	CHECK(fd >= 0, "open control: %s", strerror(errno));
	err = run_as(65534, nobody_writes, &fd);
	close(fd);
	CHECK(err == 0, "nobody could not write on a descriptor root opened");
	c = read_file(CONTROL);
	CHECK(c && strstr(c, "sample 7\n"), "control after the write: %s",
	      c ? c : "?");
	free(c);

	/* opened without CAP_SYS_ADMIN, written by root with it: refused */
	CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0, "socketpair");
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		close(sv[0]);
		if (drop_cap(CAP_SYS_ADMIN))
			_exit(100);
		fd = open(CONTROL, O_WRONLY);
		_exit(fd < 0 ? 101 : send_fd(sv[1], fd) ? 102 : 0);
	}
	close(sv[1]);
	fd = recv_fd(sv[0]);
	close(sv[0]);
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st), "child died");
	CHECK(WEXITSTATUS(st) == 0 && fd >= 0, "the child could not hand over control (%d)",
	      WEXITSTATUS(st));
	err = write(fd, "sample 9\n", 9) < 0 ? errno : 0;
	close(fd);
	CHECK(err == EPERM, "root wrote on a descriptor opened without CAP_SYS_ADMIN: %s",
	      err ? strerror(err) : "accepted");
	c = read_file(CONTROL);
	CHECK(c && strstr(c, "sample 7\n"), "control changed: %s", c ? c : "?");
	free(c);
	return 0;
}

/* In a network namespace of its own, root opens @arg's path for writing. */
static int other_netns_opens(void *arg)
{
	const char *path = arg;
	int fd;

	if (unshare(CLONE_NEWNET))
		return 100;
	fd = open(path, O_WRONLY);
	if (fd >= 0) {
		/* what a container would do with it */
		if (write(fd, "lifetime 1\nreset\n", 17) == 17)
			return 1;
		return 2;
	}
	return errno == EPERM ? 0 : 3;
}

/* Fork, run other_netns_opens(@path), return its exit status. */
static int in_other_netns(const char *path)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(other_netns_opens((void *)path));
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

TEST(security_control_other_netns)
{
	static const char *const paths[] = {
		"/proc/1/net/skbprof/control", CONTROL,
	};
	char *before, *after, *out;
	size_t i;
	int st, err;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	CHECK(write_file(CONTROL, "sample 5\n") == 0, "the host's root writes");
	before = read_file(CONTROL);
	CHECK(before && strstr(before, "sample 5\n"), "control: %s", before);
	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		st = in_other_netns(paths[i]);
		if (st) {
			free(before);
			return fail("root in another netns, open %s for writing: %s",
				    paths[i], st == 100 ? "unshare failed" :
				    st == 3 ? "not EPERM" : st > 0 ?
				    "allowed" : "the child died");
		}
	}
	/* the tool there: refused, and why */
	out = sh_out(&st, "unshare -n " TOOL " control lifetime 1 2>&1");
	err = st != 5 || !out || !strstr(out, "host's network namespace");
	if (err)
		fail("skbprof control in another netns: exit %d: %s", st, out);
	free(out);
	after = read_file(CONTROL);
	if (!err && (!after || strcmp(before, after)))
		err = fail("control changed: '%s' -> '%s'", before, after);
	free(before);
	free(after);
	if (err)
		return -1;
	CHECK(write_file(CONTROL, "sample 1\n") == 0, "the host's root writes after");
	after = read_file(CONTROL);
	err = !after || !strstr(after, "sample 1\n");
	if (err)
		fail("control after the host's sample 1: %s", after);
	free(after);
	return err ? -1 : 0;
}

static int udp_closed(int n)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(34200) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), i;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = 0; i < n; i++)
		if (sendto(fd, "x", 1, 0, (void *)&a, sizeof(a)) != 1)
			break;
	close(fd);
	return i == n ? 0 : -1;
}

TEST(security_no_cap_sys_admin)
{
	static const char *const cmds[] = {
		"reset\n", "sample 9\n", "filter port 1\n", "stages drops\n",
		"trace on\n", "bogus\n", "",
	};
	char *before, *after;
	long long drops;
	pid_t pid;
	int st, err, i;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	CHECK(udp_closed(5) == 0, "udp");
	/* loopback delivery may finish in ksoftirqd, late */
	stat_wait("drops_total", 5);
	drops = stat_value("drops_total");
	CHECK(drops >= 5, "drops_total %lld after 5 UDP drops", drops);
	before = read_file(CONTROL);
	CHECK(before, "control");
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		if (drop_cap(CAP_SYS_ADMIN))
			_exit(100);
		for (i = 0; cmds[i][0]; i++) {
			/* root's file access is untouched: the open works */
			int fd = open(CONTROL, O_WRONLY);

			if (fd < 0)
				_exit(101);
			if (write(fd, cmds[i], strlen(cmds[i])) >= 0 ||
			    errno != EPERM)
				_exit(1 + i);
			close(fd);
		}
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st), "child died");
	CHECK(WEXITSTATUS(st) != 100, "capset failed");
	CHECK(WEXITSTATUS(st) != 101, "root without CAP_SYS_ADMIN could not open control");
	CHECK(WEXITSTATUS(st) == 0, "'%s' without CAP_SYS_ADMIN was not refused with EPERM",
	      cmds[WEXITSTATUS(st) - 1]);
	after = read_file(CONTROL);
	err = !after || strcmp(before, after);
	if (err)
		fail("control changed: '%s' -> '%s'", before, after ? after : "?");
	free(before);
	free(after);
	if (err)
		return -1;
	/* the refused reset zeroed nothing */
	CHECK(stat_value("drops_total") >= drops, "a refused reset cleared drops");
	return 0;
}

/* ---- malformed packets ------------------------------------------------ */

#define NS	"skbprof_mal"
#define VA	"skbm0"		/* in the test's namespace */
#define VB	"skbm1"		/* in NS */
#define A4	"10.77.0.1"
#define B4	"10.77.0.2"

/* A counter of an snmp text ("Ip", "InHdrErrors"); -1 if missing. */
/* The namespace's /proc/net/snmp, or /proc/net/netstat for IpExt. */
static long long ns_snmp(const char *proto, const char *field)
{
	return snmp_table_value(sh_out(NULL, IP " netns exec " NS " cat /proc/net/%s",
			      strcmp(proto, "IpExt") ? "snmp" : "netstat"),
		       proto, field);
}

/* This namespace's. */
static long long ns_snmp6(const char *field)
{
	return snmp6_table_value(sh_out(NULL, IP " netns exec " NS " cat /proc/net/snmp6"),
				 field);
}

/*
 * The topology: VA in the test's namespace, VB in NS, IPv4 on both, IPv6
 * as the kernel makes it (VB's link-local address tells it is ready):
 *
 *   VA A4  ---  NS: VB B4
 */
static const struct veth mal_pair = {
	.a = { .dev = VA, .ip4 = A4 "/24" },
	.b = { .ns = NS, .dev = VB, .ip4 = B4 "/24" },
	.flags = VETH_UP | VETH_LO_UP,
};

/* VA up with its qdisc attached, VB up with its IPv6 link-local address. */
static bool link_ready(void *arg)
{
	char *a, *b;
	bool ok;

	(void)arg;
	a = sh_out(NULL, IP " link show dev " VA);
	b = sh_out(NULL, IP " -n " NS " addr show dev " VB);
	ok = strstr(a, "qdisc noqueue") && strstr(a, "state UP") &&
	     strstr(b, "state UP") && strstr(b, "inet6 fe80");
	free(a);
	free(b);
	return ok;
}

FIXTURE(malformed);

FIXTURE_SETUP(malformed)
{
	if (veth_pair(&mal_pair))
		return -1;
	/*
	 * Frames sent on VA before the linkwatch work has seen its carrier
	 * go to the noop qdisc, silently; and VB's IPv6 link-local address
	 * comes with the same work on its side.
	 */
	CHECK(wait_until(link_ready, NULL, WAIT_MS),
	      "%s or %s not ready after %d ms", VA, VB, WAIT_MS);
	return 0;
}

FIXTURE_TEARDOWN(malformed)
{
	veth_pair_del(&mal_pair);
}

/* VB's MAC address into @mac_b. */
static int vb_mac(unsigned char mac_b[6])
{
	char *s;
	int st;

	s = sh_out(&st, IP " netns exec " NS " cat /sys/class/net/" VB "/address");
	CHECK(st == 0 && sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &mac_b[0],
				&mac_b[1], &mac_b[2], &mac_b[3], &mac_b[4],
				&mac_b[5]) == 6, "mac of %s: '%s'", VB, s);
	free(s);
	return 0;
}

static uint16_t csum(const void *p, size_t len)
{
	const uint8_t *b = p;
	uint32_t s = 0;
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		s += b[i] << 8 | b[i + 1];
	if (len & 1)
		s += b[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return htons(~s);
}

/* A well-formed IPv4 header for @l4len bytes of @proto. */
static void ip4(struct iphdr *ip, int proto, size_t l4len)
{
	memset(ip, 0, sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = proto;
	ip->tot_len = htons(sizeof(*ip) + l4len);
	inet_pton(AF_INET, A4, &ip->saddr);
	inet_pton(AF_INET, B4, &ip->daddr);
	ip->check = csum(ip, sizeof(*ip));
}

struct frame {
	const char *what;
	unsigned char buf[256];
	size_t len;		/* bytes after the Ethernet header */
	uint16_t type;		/* ethertype */
};

/* The bogus frames; *n gets their number.  Each is described. */
static int make_frames(struct frame *f)
{
	struct iphdr *ip;
	struct udphdr *uh;
	struct tcphdr *th;
	struct ip6_hdr *ip6;
	int n = 0;

#define NEXT(w, t) (f[n] = (struct frame){ .what = (w), .type = (t) })
	/* IPv4 header checks of ip_rcv */
	NEXT("ipv4: 10 bytes, shorter than a header", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_UDP, 0);
	f[n++].len = 10;

	NEXT("ipv4: ihl 4", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_UDP, 8);
	ip->ihl = 4;
	ip->check = 0;
	ip->check = csum(ip, 16);
	f[n++].len = 28;

	NEXT("ipv4: version 6 in an IPv4 frame", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_UDP, 8);
	ip->version = 6;
	f[n++].len = 28;

	NEXT("ipv4: ihl 15 beyond the packet", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_UDP, 8);
	ip->ihl = 15;
	f[n++].len = 40;

	NEXT("ipv4: bad header checksum", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_UDP, 8);
	ip->check ^= 0x5555;
	f[n++].len = 28;

	NEXT("ipv4: tot_len shorter than the header", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_UDP, 8);
	ip->tot_len = htons(10);
	ip->check = 0;
	ip->check = csum(ip, 20);
	f[n++].len = 28;

	NEXT("ipv4: tot_len longer than the packet", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_UDP, 200);
	f[n++].len = 28;

	/* UDP */
	NEXT("udp: 4 bytes of header", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_UDP, 4);
	f[n++].len = 24;

	NEXT("udp: length beyond the datagram", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_UDP, 12);
	uh = (void *)(ip + 1);
	uh->source = htons(1000);
	uh->dest = htons(34300);
	uh->len = htons(100);
	f[n++].len = 32;

	NEXT("udp: length below the header", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_UDP, 12);
	uh = (void *)(ip + 1);
	uh->source = htons(1000);
	uh->dest = htons(34300);
	uh->len = htons(3);
	f[n++].len = 32;

	/* TCP */
	NEXT("tcp: doff 2", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_TCP, 20);
	th = (void *)(ip + 1);
	th->source = htons(1000);
	th->dest = htons(34301);
	th->doff = 2;
	th->syn = 1;
	f[n++].len = 40;

	NEXT("tcp: doff 15 beyond the segment", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_TCP, 20);
	th = (void *)(ip + 1);
	th->source = htons(1000);
	th->dest = htons(34301);
	th->doff = 15;
	th->syn = 1;
	f[n++].len = 40;

	NEXT("tcp: 6 bytes of header", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_TCP, 6);
	f[n++].len = 26;

	/* fragments */
	NEXT("ipv4: first fragment, udp, more to come", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_UDP, 16);
	ip->frag_off = htons(IP_MF);
	ip->id = htons(0x4242);
	ip->check = 0;
	ip->check = csum(ip, 20);
	f[n++].len = 36;

	NEXT("ipv4: fragment at offset 65528, past 64 KiB", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_UDP, 16);
	ip->frag_off = htons(8191);
	ip->id = htons(0x4242);
	ip->check = 0;
	ip->check = csum(ip, 20);
	f[n++].len = 36;

	NEXT("ipv4: 1-byte non-final fragment", ETH_P_IP);
	ip = (void *)f[n].buf;
	ip4(ip, IPPROTO_TCP, 1);
	ip->frag_off = htons(IP_MF | 3);
	ip->id = htons(0x4343);
	ip->check = 0;
	ip->check = csum(ip, 20);
	f[n++].len = 21;

	/* IPv6 */
	NEXT("ipv6: 20 bytes, shorter than a header", ETH_P_IPV6);
	ip6 = (void *)f[n].buf;
	ip6->ip6_flow = htonl(6 << 28);
	f[n++].len = 20;

	NEXT("ipv6: version 4 in an IPv6 frame", ETH_P_IPV6);
	ip6 = (void *)f[n].buf;
	ip6->ip6_flow = htonl(4 << 28);
	ip6->ip6_nxt = IPPROTO_UDP;
	ip6->ip6_hlim = 64;
	inet_pton(AF_INET6, "fe80::1", &ip6->ip6_src);
	inet_pton(AF_INET6, "ff02::1", &ip6->ip6_dst);
	f[n++].len = 48;

	NEXT("ipv6: payload length beyond the packet", ETH_P_IPV6);
	ip6 = (void *)f[n].buf;
	ip6->ip6_flow = htonl(6 << 28);
	ip6->ip6_plen = htons(200);
	ip6->ip6_nxt = IPPROTO_UDP;
	ip6->ip6_hlim = 64;
	inet_pton(AF_INET6, "fe80::1", &ip6->ip6_src);
	inet_pton(AF_INET6, "ff02::1", &ip6->ip6_dst);
	f[n++].len = 48;

	NEXT("ipv6: udp header cut to 3 bytes", ETH_P_IPV6);
	ip6 = (void *)f[n].buf;
	ip6->ip6_flow = htonl(6 << 28);
	ip6->ip6_plen = htons(3);
	ip6->ip6_nxt = IPPROTO_UDP;
	ip6->ip6_hlim = 64;
	inet_pton(AF_INET6, "fe80::1", &ip6->ip6_src);
	inet_pton(AF_INET6, "ff02::1", &ip6->ip6_dst);
	f[n++].len = 43;

	NEXT("ipv6: tcp doff 1", ETH_P_IPV6);
	ip6 = (void *)f[n].buf;
	ip6->ip6_flow = htonl(6 << 28);
	ip6->ip6_plen = htons(20);
	ip6->ip6_nxt = IPPROTO_TCP;
	ip6->ip6_hlim = 64;
	inet_pton(AF_INET6, "fe80::1", &ip6->ip6_src);
	inet_pton(AF_INET6, "ff02::1", &ip6->ip6_dst);
	th = (void *)(ip6 + 1);
	th->doff = 1;
	f[n++].len = 60;
#undef NEXT
	return n;
}

/* Send every frame @reps times on VA, to VB's address. */
static int send_frames(const struct frame *f, int n, int reps,
		       const unsigned char mac_b[6])
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_halen = 6 };
	unsigned char pkt[300];
	struct ether_header *eh = (void *)pkt;
	int fd, i, r;

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	CHECK(fd >= 0, "AF_PACKET socket: %s", strerror(errno));
	sll.sll_ifindex = if_nametoindex(VA);
	memcpy(sll.sll_addr, mac_b, 6);
	for (r = 0; r < reps; r++)
		for (i = 0; i < n; i++) {
			memcpy(eh->ether_dhost, mac_b, 6);
			memset(eh->ether_shost, 0x02, 6);
			eh->ether_type = htons(f[i].type);
			memcpy(pkt + sizeof(*eh), f[i].buf, f[i].len);
			if (sendto(fd, pkt, sizeof(*eh) + f[i].len, 0,
				   (void *)&sll, sizeof(sll)) < 0) {
				close(fd);
				return fail("sending '%s': %s", f[i].what,
					    strerror(errno));
			}
		}
	close(fd);
	return 0;
}

/*
 * The same headers through the transmit path of raw sockets.  The kernel
 * refuses some of them (EINVAL, EMSGSIZE...): what matters is that the
 * ones it takes cross every transmit probe safely.
 */
static int send_raw(const struct frame *f, int n, int *sent)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6 };
	int fd4, fd6, i;

	fd4 = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);	/* IP_HDRINCL */
	fd6 = socket(AF_INET6, SOCK_RAW, IPPROTO_RAW);	/* IPV6_HDRINCL */
	CHECK(fd4 >= 0 && fd6 >= 0, "raw sockets: %s", strerror(errno));
	inet_pton(AF_INET, B4, &a4.sin_addr);
	/* a scoped link-local destination through VA */
	inet_pton(AF_INET6, "ff02::1", &a6.sin6_addr);
	a6.sin6_scope_id = if_nametoindex(VA);
	for (i = 0; i < n; i++) {
		if (f[i].type == ETH_P_IP) {
			if (sendto(fd4, f[i].buf, f[i].len, 0, (void *)&a4,
				   sizeof(a4)) >= 0)
				(*sent)++;
		} else if (sendto(fd6, f[i].buf, f[i].len, 0, (void *)&a6,
				  sizeof(a6)) >= 0) {
			(*sent)++;
		}
	}
	close(fd4);
	close(fd6);
	return 0;
}

struct expect {
	const char *proto, *field;	/* proto NULL: snmp6 */
	int per_round;			/* frames of the set it must count */
	long long before;
};

struct counted_want {
	const struct expect *ex;
	int n, reps;
};

/* Has every counter risen by what one round must count (or is missing)? */
static bool counted(void *arg)
{
	const struct counted_want *w = arg;
	long long v;
	int k;

	for (k = 0; k < w->n; k++) {
		const struct expect *e = &w->ex[k];

		v = e->proto ? ns_snmp(e->proto, e->field) : ns_snmp6(e->field);
		if (v >= 0 && e->before >= 0 &&
		    v - e->before < (long long)e->per_round * w->reps)
			return false;
	}
	return true;
}

struct noports_want {
	long long nop, drops;
};

static bool noports_reached(void *arg)
{
	const struct noports_want *w = arg;

	return snmp_value("Udp", "NoPorts") >= w->nop;
}

static bool drops_reached(void *arg)
{
	return (long long)drops_at(udp_noport_fn(AF_INET)) >=
	       ((struct noports_want *)arg)->drops;
}

TEST_F(malformed, malformed_packets)
{
	/*
	 * What the receive path must count for each round of make_frames(),
	 * from ip_rcv_core(), __udp4_lib_rcv(), tcp_v4_rcv() and
	 * ip6_rcv_core() (the same on 5.10, 6.1 and 6.12):
	 *   Ip InHdrErrors: short, ihl 4, version 6, ihl 15, bad checksum,
	 *     tot_len < ihl*4                                       = 6
	 *   IpExt InCsumErrors: bad checksum                        = 1
	 *   IpExt InTruncatedPkts: tot_len > packet                 = 1
	 *   Udp InErrors: 4-byte header, length beyond, length < 8  = 3
	 *   Tcp InErrs (v4 and v6): doff 2, IPv6 doff 1             = 2
	 *   Ip6 InHdrErrors: short, version 4                       = 2
	 *   Ip6 InTruncatedPkts: payload length beyond              = 1
	 *   Udp6 InErrors: 3-byte header                            = 1
	 * (TCP with doff 15 or a 6-byte header is discarded uncounted, as
	 * are fragments until they time out.)
	 */
	struct expect ex[] = {
		{ "Ip", "InHdrErrors", 6, 0 },
		{ "IpExt", "InCsumErrors", 1, 0 },
		{ "IpExt", "InTruncatedPkts", 1, 0 },
		{ "Udp", "InErrors", 3, 0 },
		{ "Tcp", "InErrs", 2, 0 },
		{ NULL, "Ip6InHdrErrors", 2, 0 },
		{ NULL, "Ip6InTruncatedPkts", 1, 0 },
		{ NULL, "Udp6InErrors", 1, 0 },
	};
	static struct frame f[32];
	const int reps = 20;
	struct counted_want cw = { ex, sizeof(ex) / sizeof(ex[0]), reps };
	struct noports_want nw = { 0, 0 };
	unsigned char mac_b[6];
	long long nop0, nop1, d0, d1, v;
	int n, i, k, err, sent = 0, round;

	if (vb_mac(mac_b))
		goto err;
	n = make_frames(f);
	/* every probe on, the trace formatting every packet it sees */
	err = skbprof_load("trace=verbose");
	if (err) {
		fail("loading skbprof: %s", strerror(-err));
		goto err;
	}
	for (round = 0; round < 2; round++) {
		/* the second round parses ports for a filter too */
		if (round && write_file(CONTROL, "filter port 34300\n")) {
			fail("filter");
			goto err;
		}
		for (k = 0; k < (int)(sizeof(ex) / sizeof(ex[0])); k++)
			ex[k].before = ex[k].proto ?
				ns_snmp(ex[k].proto, ex[k].field) :
				ns_snmp6(ex[k].field);
		if (send_frames(f, n, reps, mac_b))
			goto err;
		/* VB receives in a softirq, maybe in ksoftirqd, late */
		if (!wait_until(counted, &cw, WAIT_MS))
			note("round %d: counters short after %d ms", round,
			     WAIT_MS);
		for (k = 0; k < (int)(sizeof(ex) / sizeof(ex[0])); k++) {
			v = ex[k].proto ? ns_snmp(ex[k].proto, ex[k].field) :
					  ns_snmp6(ex[k].field);
			if (v < 0 || ex[k].before < 0) {
				fail("no counter %s %s", ex[k].proto ? ex[k].proto : "",
				     ex[k].field);
				goto err;
			}
			if (v - ex[k].before != ex[k].per_round * reps) {
				fail("round %d: %s%s%s rose by %lld, want %d (%d bogus frames x %d)",
				     round, ex[k].proto ? ex[k].proto : "",
				     ex[k].proto ? " " : "", ex[k].field,
				     v - ex[k].before, ex[k].per_round * reps,
				     ex[k].per_round, reps);
				goto err;
			}
		}
	}
	/*
	 * The transmit path, with the filter and without, after the
	 * counting: what these reach VB, in their own time, and count
	 * there is unpredicted.
	 */
	for (round = 0; round < 2; round++) {
		if (round && write_file(CONTROL, "filter clear\n")) {
			fail("filter clear");
			goto err;
		}
		if (send_raw(f, n, &sent))
			goto err;
		/* drain the trace: every line formatted from a bogus packet */
		sh("cat " DEBUGFS_DIR "/trace > /dev/null & sleep 1; kill $!");
	}
	note("%d bogus frames x %d x 2 rounds through %s; %d raw sends taken by the kernel",
	     n, reps, VB, sent);
	for (i = 0; i < n; i++)
		note("  frame: %s", f[i].what);

	/* the module still counts a normal drop exactly */
	CHECK(write_file(CONTROL, "filter clear\ntrace off\nreset\n") == 0,
	      "reset");
	nop0 = snmp_value("Udp", "NoPorts");
	/*
	 * At UDP's closed-port drop: the bogus fragments still queued for
	 * reassembly may expire (and be dropped) in this window too.
	 */
	d0 = drops_at(udp_noport_fn(AF_INET));
	CHECK(udp_closed(7) == 0, "udp");
	/* NoPorts first; the kfree_skb skbprof counts follows it */
	nw.nop = nop0 + 7;
	if (!wait_until(noports_reached, &nw, WAIT_MS))
		note("NoPorts below %lld after %d ms", nw.nop, WAIT_MS);
	nop1 = snmp_value("Udp", "NoPorts");
	nw.drops = d0 + (nop1 - nop0);
	if (!wait_until(drops_reached, &nw, WAIT_MS))
		note("fewer than %lld drops after %d ms", nw.drops, WAIT_MS);
	d1 = drops_at(udp_noport_fn(AF_INET));
	CHECK_EQ(nop1 - nop0, 7);
	CHECK_EQ(d1 - d0, nop1 - nop0);
	return 0;
err:
	return -1;
}

/* ---- no kernel addresses --------------------------------------------- */

TEST(security_no_kernel_addresses)
{
	char names[32][256], path[512], *s, *tool;
	regmatch_t m;
	regex_t re;
	int n, i, err, st, checked = 0;

	CHECK(regcomp(&re, "(^|[^0-9A-Za-z_])(0x)?(ffff[0-9a-f]{12}|[0-9a-f]{16})([^0-9A-Za-z_]|$)",
		      REG_EXTENDED | REG_ICASE) == 0, "regcomp");
	err = skbprof_load("trace=verbose");
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	/* something in every view: drops, latency, trace lines */
	CHECK(udp_closed(20) == 0, "udp");
	sh("/bin/skbprof-traffic udp-pair 127.0.0.1 34201 50 >/dev/null");
	sh("/bin/skbprof-traffic tcp 127.0.0.1 34202 200000 >/dev/null");
	sh("/bin/skbprof-traffic tcp-syn 127.0.0.1 34203 >/dev/null");
	/* what comes later is unchecked: a slow host cannot fail this */
	sleep_ms(200);
	n = list_files(DEBUGFS_DIR, names, 32);
	CHECK(n > 0, "no files");
	for (i = 0; i <= n; i++) {
		if (i < n) {
			snprintf(path, sizeof(path), "%.255s", names[i]);
			/* the streams block: what comes in 2 s */
			if (!strcmp(path, DEBUGFS_DIR "/trace") ||
			    !strcmp(path, DEBUGFS_DIR "/trace_records"))
				s = sh_out(&st, "cat %s & sleep 2; kill $!", path);
			else
				s = read_file(path);
		} else {
			snprintf(path, sizeof(path), "the tool");
			tool = sh_out(&st, TOOL " stats; " TOOL " drops; " TOOL " latency");
			s = tool;
		}
		CHECK(s, "reading %s: %s", path, strerror(errno));
		checked += strlen(s);
		if (!regexec(&re, s, 1, &m, 0)) {
			int len = m.rm_eo - m.rm_so;

			fail("%s shows an address-like token '%.*s'", path,
			     len, s + m.rm_so);
			free(s);
			regfree(&re);
			return -1;
		}
		free(s);
	}
	regfree(&re);
	note("%d files and the tool, %d bytes: no kernel address", n, checked);
	return 0;
}
