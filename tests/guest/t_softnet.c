// SPDX-License-Identifier: GPL-2.0
/*
 * The softnet view against the kernel's own counters, and the receive
 * backlog as a stage.
 *
 * Topology: loopback only, with RPS steering every packet of lo to CPU 1.
 * UDP datagrams sent from CPU 0 to a bound socket of 127.0.0.1 go through
 * netif_rx() to CPU 1's backlog and a NET_RX softirq there.  With the
 * budget of a NET_RX run and the backlog's weight at 1, every run that
 * polls squeezes (time_squeeze), and the sender outruns CPU 1's backlog
 * of 2 (the guest's CPUs take turns on one host thread): backlog drops.
 *
 * Ground truth: /proc/softirqs (NET_RX) and /proc/net/softnet_stat
 * (processed, dropped, time_squeeze), read before the reset (A), after it
 * (B) and after the last read of the module's files (C).  A counter the
 * module has since the reset lies in [C - B, C - A]: the kernel counts
 * between A and B may fall either side of the reset.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <sys/sysinfo.h>
#include <unistd.h>
#include <json-c/json.h>

#include "harness.h"

#define CONTROL		DEBUGFS_DIR "/control"
#define SOFTNET		DEBUGFS_DIR "/softnet"
#define COUNTERS	DEBUGFS_DIR "/softnet_counters"
#define PORT_SINK	7401
#define DATAGRAMS	4000

/* Where the loopback traffic goes: 127.0.0.1, PORT_SINK. */
static struct sockaddr_in sink_addr(void)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(PORT_SINK),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};

	return a;
}

/* The kernel's side, summed over CPUs. */
struct kernel_counts {
	long long net_rx;	/* /proc/softirqs NET_RX */
	long long processed, dropped, squeeze;	/* /proc/net/softnet_stat */
};

static int kernel_read(struct kernel_counts *k)
{
	char *s = read_file("/proc/softirqs"), *line, *save = NULL, *p, *end;
	unsigned int v[3];
	long long n;

	memset(k, 0, sizeof(*k));
	CHECK(s, "cannot read /proc/softirqs");
	line = strstr(s, "NET_RX:");
	CHECK(line, "no NET_RX line in /proc/softirqs");
	for (p = line + 7;; p = end) {
		n = strtoll(p, &end, 10);
		if (end == p)
			break;
		k->net_rx += n;
	}
	free(s);
	s = read_file("/proc/net/softnet_stat");
	CHECK(s, "cannot read /proc/net/softnet_stat");
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%x %x %x", &v[0], &v[1], &v[2]) != 3)
			continue;
		k->processed += v[0];
		k->dropped += v[1];
		k->squeeze += v[2];
	}
	free(s);
	return 0;
}

/* The module's counters, its `all` row of softnet_counters. */
struct module_counts {
	long long net_rx, polls, polls_full, squeeze, dropped, ksoftirqd,
		  processed;
};

static int module_read(struct module_counts *m)
{
	struct table t;
	int all;

	if (table_read(&t, "softnet_counters"))
		return -1;
	all = table_find(&t, 0, "cpu", "all", NULL);
	m->net_rx = table_num(&t, all, "net_rx");
	m->polls = table_num(&t, all, "polls");
	m->polls_full = table_num(&t, all, "polls_full");
	m->squeeze = table_num(&t, all, "time_squeeze");
	m->dropped = table_num(&t, all, "backlog_drops");
	m->ksoftirqd = table_num(&t, all, "ksoftirqd");
	m->processed = table_num(&t, all, "processed");
	if (m->net_rx < 0 || m->polls < 0 || m->polls_full < 0 ||
	    m->squeeze < 0 || m->dropped < 0 || m->ksoftirqd < 0 ||
	    m->processed < 0) {
		note("%s:\n%s", COUNTERS, t.text);
		table_free(&t);
		return fail("no all row of every column in %s", COUNTERS);
	}
	table_free(&t);
	return 0;
}

/* Column @col of softnet_buckets' row of CPU @cpu ("all") for @what; -1. */
static long long softnet_num(const char *cpu, const char *what,
			     const char *col)
{
	struct table t;
	long long v;

	if (table_read(&t, "softnet_buckets"))
		return -1;
	v = table_num(&t, table_find(&t, 0, "cpu", cpu, "what", what, NULL),
		      col);
	table_free(&t);
	return v;
}

/* The count of softnet's `all` row for @what, or -1. */
static long long softnet_count(const char *what)
{
	return softnet_num("all", what, "count");
}

/* The sysctls the test turns down, and what they were. */
static const char *const knobs[] = {
	"/proc/sys/net/core/netdev_budget",
	"/proc/sys/net/core/dev_weight",
	"/proc/sys/net/core/netdev_max_backlog",
	"/sys/class/net/lo/queues/rx-0/rps_cpus",
};
#define KNOBS	(sizeof(knobs) / sizeof(knobs[0]))
static char *saved[KNOBS];

static void knobs_restore(void)
{
	size_t i;

	for (i = KNOBS; i-- > 0;) {
		if (saved[i])
			write_file(knobs[i], saved[i]);
		free(saved[i]);
		saved[i] = NULL;
	}
}

static int knobs_squeeze(void)
{
	static const char *const low[KNOBS] = { "1\n", "1\n", "2\n", "2\n" };
	size_t i;

	for (i = 0; i < KNOBS; i++) {
		saved[i] = read_file(knobs[i]);
		if (!saved[i] || write_file(knobs[i], low[i])) {
			knobs_restore();
			return fail("cannot set %s to %s", knobs[i], low[i]);
		}
	}
	return 0;
}

/*
 * Send DATAGRAMS from CPU 0 to a bound socket of 127.0.0.1; its queue may
 * drop them.
 */
static int flood_loopback(void)
{
	struct sockaddr_in a = sink_addr();
	cpu_set_t was, cpu0;
	int rx = socket(AF_INET, SOCK_DGRAM, 0);
	int tx = socket(AF_INET, SOCK_DGRAM, 0);
	char buf[64] = "softnet";
	int i = 0;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_getaffinity(0, sizeof(was), &was) ||
	    sched_setaffinity(0, sizeof(cpu0), &cpu0)) {
		fail("affinity: %s", strerror(errno));
		goto out;
	}
	if (rx < 0 || tx < 0 || bind(rx, (void *)&a, sizeof(a))) {
		fail("sockets: %s", strerror(errno));
		goto out;
	}
	for (i = 0; i < DATAGRAMS; i++)
		sendto(tx, buf, sizeof(buf), 0, (void *)&a, sizeof(a));
	sched_setaffinity(0, sizeof(was), &was);
out:
	if (rx >= 0)
		close(rx);
	if (tx >= 0)
		close(tx);
	return i == DATAGRAMS ? 0 : -1;
}

/* NET_RX stood still for 5 reads 20 ms apart: the backlogs are empty. */
static int net_rx_settle(void)
{
	struct kernel_counts k;
	long long last = -1;
	int i, still = 0;

	for (i = 0; i < 500 && still < 5; i++) {
		if (kernel_read(&k))
			return -1;
		still = k.net_rx == last ? still + 1 : 0;
		last = k.net_rx;
		sleep_ms(20);
	}
	CHECK(still >= 5, "NET_RX still counting after 10 s");
	return 0;
}

/* [C - B, C - A] holds @got, which is @name since the reset. */
static int bracket(const char *name, long long got, long long a, long long b,
		   long long c)
{
	note("%s: module %lld, kernel %lld..%lld", name, got, c - b, c - a);
	CHECK(got >= c - b && got <= c - a,
	      "%s: module %lld, kernel's delta %lld..%lld", name, got, c - b,
	      c - a);
	return 0;
}

/*
 * @runs, the net-rx-run runs timed since the reset, are the kernel's NET_RX
 * count over it, [C - B, C - A], less at most one in flight per CPU at the
 * reset.  @who prefixes the failure.
 */
static int runs_bracket(const char *who, long long runs, long long a,
			long long b, long long c)
{
	if (runs < c - b - get_nprocs_conf() || runs > c - a)
		return fail("%snet-rx-run counted %lld runs, the kernel %lld..%lld",
			    who, runs, c - b, c - a);
	return 0;
}

/*
 * Under a squeezed loopback flood, the module's NET_RX, time_squeeze,
 * backlog drop and processed counts equal the kernel's deltas since the
 * reset, and each is not zero; the runs the histograms timed are those
 * the kernel counted, less at most one in flight per CPU at the reset.
 */
TEST(softnet_counts_match_kernel)
{
	static const char *const human_cols[] = {
		"cpu", "what", "count", "min", "p50", "p90", "p99", "max", "avg",
		NULL };
	struct kernel_counts a, b, c;
	struct module_counts m;
	long long runs, polls;
	char *text = NULL;
	int err, rc = -1;

	err = skbprof_load("stages=drops softnet=on");
	CHECK(err == 0, "load: %s", strerror(-err));
	if (knobs_squeeze())
		return -1;
	/* counts before the reset, which the module must leave out */
	if (flood_loopback() || net_rx_settle())
		goto out;
	if (kernel_read(&a) || write_file(CONTROL, "reset\n") ||
	    kernel_read(&b) || flood_loopback() || net_rx_settle() ||
	    module_read(&m))
		goto out;
	text = read_file(SOFTNET);
	if (!text || kernel_read(&c)) {
		fail("cannot read %s", SOFTNET);
		goto out;
	}
	note("%s", text);
	free(text);
	text = read_file(COUNTERS);
	note("%s", text ? text : "(no counters)");
	free(text);
	text = NULL;
	/* the view for people shows softnet_buckets' figures */
	if (view_shows("softnet", "softnet_buckets", human_cols))
		goto out;
	runs = softnet_count("net-rx-run");
	polls = softnet_count("napi-poll");
	note("ksoftirqd ran NET_RX %lld times; %lld polls, %lld used their budget",
	     m.ksoftirqd, m.polls, m.polls_full);
	if (bracket("net_rx", m.net_rx, a.net_rx, b.net_rx, c.net_rx) ||
	    bracket("time_squeeze", m.squeeze, a.squeeze, b.squeeze,
		    c.squeeze) ||
	    bracket("backlog_drops", m.dropped, a.dropped, b.dropped,
		    c.dropped) ||
	    bracket("processed", m.processed, a.processed, b.processed,
		    c.processed))
		goto out;
	if (m.net_rx <= 0 || m.squeeze <= 0 || m.dropped <= 0) {
		fail("the flood made net_rx %lld, time_squeeze %lld, drops %lld: want each > 0",
		     m.net_rx, m.squeeze, m.dropped);
		goto out;
	}
	if (runs_bracket("", runs, a.net_rx, b.net_rx, c.net_rx))
		goto out;
	/* each datagram is one backlog poll of weight 1, in a NET_RX run */
	if (polls <= 0 || polls > m.polls || m.polls_full <= 0) {
		fail("napi-poll %lld of %lld polls, %lld full", polls, m.polls,
		     m.polls_full);
		goto out;
	}
	rc = 0;
out:
	free(text);
	knobs_restore();
	return rc;
}

/* Write @cmd; then stats must show the softnet group @state. */
static int softnet_set(const char *cmd, const char *state)
{
	struct table t;
	int err, r;

	err = write_file(CONTROL, cmd);
	CHECK(err == 0, "%s: %s", cmd, strerror(-err));
	CHECK(table_read(&t, "groups") == 0, "groups");
	r = table_find(&t, 0, "group", "softnet", "state", "served",
		       "armed", state, NULL);
	if (r < 0)
		note("after %s groups:\n%s", cmd, t.text);
	table_free(&t);
	CHECK(r >= 0, "after %s the softnet group is not served %s", cmd,
	      state);
	return 0;
}

/* Flood, settle; the NET_RX runs softnet timed, or -1. */
static long long runs_timed(void)
{
	long long runs;

	if (flood_loopback() || net_rx_settle())
		return -1;
	runs = softnet_count("net-rx-run");
	if (runs >= 0 && softnet_count("net-rx-wait") < (runs > 0))
		runs = -1;
	return runs;
}

/*
 * softnet is off by default: its probes are disarmed and the histograms
 * stay empty under traffic; `softnet on` arms them, `softnet off` disarms
 * them, and reset empties what they timed.
 */
TEST(softnet_switch_and_reset)
{
	long long runs;
	int err;

	err = skbprof_load("stages=drops");
	CHECK(err == 0, "load: %s", strerror(-err));
	if (softnet_set("# load\n", "disarmed"))
		return -1;
	runs = runs_timed();
	CHECK(runs == 0, "softnet off timed %lld runs", runs);
	if (softnet_set("softnet on\n", "armed"))
		return -1;
	runs = runs_timed();
	CHECK(runs > 0, "softnet on timed %lld runs (or no wait)", runs);
	if (softnet_set("softnet off\nreset\n", "disarmed"))
		return -1;
	CHECK(softnet_count("net-rx-run") == 0 &&
	      softnet_count("napi-poll") == 0, "softnet counts %lld runs, %lld polls after reset",
	      softnet_count("net-rx-run"), softnet_count("napi-poll"));
	return 0;
}

/* Send @n datagrams to a socket of 127.0.0.1, and read them. */
static int loopback_send(int n)
{
	struct timeval wait = { .tv_sec = 10 };
	struct sockaddr_in a = sink_addr();
	int rx = socket(AF_INET, SOCK_DGRAM, 0);
	int tx = socket(AF_INET, SOCK_DGRAM, 0);
	int i, sent = 0, got = 0;
	char buf[8];

	if (rx >= 0 && tx >= 0 && !bind(rx, (void *)&a, sizeof(a)))
		for (i = 0; i < n; i++)
			sent += sendto(tx, "x", 1, 0, (void *)&a, sizeof(a)) == 1;
	/* each within 10 s of the last: a softirq deferred to ksoftirqd */
	if (rx >= 0)
		setsockopt(rx, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
	while (got < sent && recv(rx, buf, sizeof(buf), 0) == 1)
		got++;
	if (rx >= 0)
		close(rx);
	if (tx >= 0)
		close(tx);
	CHECK(sent == n && got == n, "sent %d, read %d of %d datagrams",
	      sent, got, n);
	return 0;
}

/*
 * Loopback hands every packet to netif_rx(), which queues it to this
 * CPU's backlog: each of N datagrams passes the rx backlog stage, and its
 * drv-ip after it, as UDP's InDatagrams rises by N.
 */
TEST(backlog_stage_loopback)
{
	unsigned long long backlog, drv_ip;
	long long in0, in1;
	char *s;

	CHECK(skbprof_load(NULL) == 0, "load");
	CHECK(write_file(CONTROL, "reset\n") == 0, "reset");
	in0 = snmp_value("Udp", "InDatagrams");
	if (loopback_send(100))
		return -1;
	in1 = snmp_value("Udp", "InDatagrams");
	CHECK_EQ(in1 - in0, 100);
	s = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(s, "cannot read latency");
	backlog = row_count(s, "rx", "backlog");
	drv_ip = row_count(s, "rx", "drv-ip");
	if (backlog != 100 || drv_ip != 100)
		note("latency:\n%s", s);
	free(s);
	CHECK(backlog == 100 && drv_ip == 100,
	      "rx backlog and drv-ip counted %llu and %llu, InDatagrams rose by %lld",
	      backlog, drv_ip, in1 - in0);
	return 0;
}

/* The value of prom's series @name (with its labels), or -1. */
static long long prom_value(const char *text, const char *name)
{
	const char *p = line_after(text, name);

	return p ? atoll(p) : -1;
}

/*
 * The tool shows the same: `skbprof -j softnet`'s all row, `skbprof
 * prom`'s NET_RX counter (summed over the CPUs) and the count of its
 * net-rx-run histogram (from softnet_buckets) lie within the kernel's
 * NET_RX delta since the reset, and `top -j` has a softnet object.
 */
TEST(softnet_tool_matches_kernel)
{
	struct kernel_counts a, b, c;
	json_object *o = NULL, *rows, *all;
	long long json_rx = -1, prom_rx, prom_runs;
	char *out = NULL, *prom = NULL, *top = NULL;
	int st, rc = -1;
	size_t n;

	CHECK(skbprof_load("softnet=on") == 0, "load");
	if (kernel_read(&a) || write_file(CONTROL, "reset\n") ||
	    kernel_read(&b) || flood_loopback() || net_rx_settle())
		return -1;
	out = sh_out(&st, TOOL " -j softnet 2>&1");
	prom = sh_out(NULL, TOOL " prom 2>&1");
	if (kernel_read(&c))
		goto out;
	o = json_tokener_parse(out);
	if (st || !o || !json_object_object_get_ex(o, "counters", &rows) ||
	    !(n = json_object_array_length(rows))) {
		fail("skbprof -j softnet: exit %d: %.300s", st, out);
		goto out;
	}
	all = json_object_array_get_idx(rows, n - 1);
	if (json_object_object_get_ex(all, "net_rx", &all))
		json_rx = json_object_get_int64(all);
	prom_rx = prom_value(prom, "skbprof_softnet_net_rx_total");
	prom_runs = prom_value(prom, "skbprof_softnet_seconds_count{what=\"net-rx-run\"}");
	if (bracket("json net_rx", json_rx, a.net_rx, b.net_rx, c.net_rx) ||
	    bracket("prom net_rx", prom_rx, a.net_rx, b.net_rx, c.net_rx))
		goto out;
	if (runs_bracket("prom: ", prom_runs, a.net_rx, b.net_rx, c.net_rx))
		goto out;
	top = sh_out(&st, TOOL " top -j -n 1 -i 0.2 2>&1");
	if (st || !strstr(top, "\"softnet\":{\"net_rx_rate\":")) {
		fail("skbprof top -j: exit %d: %.300s", st, top);
		goto out;
	}
	rc = 0;
out:
	json_object_put(o);
	free(out);
	free(prom);
	free(top);
	return rc;
}

/* ---- a starved NET_RX: a real-time hog on the CPU of NIC a's interrupt ---- */

#define PORT_STARVE	7402
#define HOG_CPU		1
#define MS		1000000LL

/* The IRQ of @nic's receive queue: "virtioN-input.0" in /proc/interrupts. */
static int nic_rx_irq(const char *nic)
{
	char path[128], link[PATH_MAX], want[64], *dev, *s, *line;
	ssize_t n;
	int irq = -1;

	snprintf(path, sizeof(path), "/sys/class/net/%s/device", nic);
	n = readlink(path, link, sizeof(link) - 1);
	if (n <= 0)
		return -1;
	link[n] = 0;
	dev = strrchr(link, '/');
	snprintf(want, sizeof(want), "%.48s-input.0", dev ? dev + 1 : link);
	s = read_file("/proc/interrupts");
	for (line = s; line && *line; line = strchr(line, '\n') ?
	     strchr(line, '\n') + 1 : NULL) {
		const char *e = strchr(line, '\n');
		const char *w = strstr(line, want);

		if (w && (!e || w < e)) {
			irq = atoi(line);
			break;
		}
	}
	free(s);
	return irq;
}

/* A SCHED_FIFO busy loop on HOG_CPU for @ms, in a child; its pid. */
static pid_t hog(int ms)
{
	struct sched_param sp = { .sched_priority = 50 };
	unsigned long long end;
	cpu_set_t cpu;
	pid_t pid = fork();

	if (pid)
		return pid;
	CPU_ZERO(&cpu);
	CPU_SET(HOG_CPU, &cpu);
	if (sched_setaffinity(0, sizeof(cpu), &cpu) ||
	    sched_setscheduler(0, SCHED_FIFO, &sp))
		_exit(1);
	end = clock_ns(CLOCK_MONOTONIC) + ms * 1000000ULL;
	while (clock_ns(CLOCK_MONOTONIC) < end)
		;
	_exit(0);
}

/* UDP from NIC b (in VNET_NS) to a for @ms, from CPU 0, in a child. */
static pid_t flood_from_b(int ms)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(PORT_STARVE) };
	unsigned long long end;
	char buf[64] = "starve";
	cpu_set_t cpu;
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	CPU_ZERO(&cpu);
	CPU_SET(0, &cpu);
	if (sched_setaffinity(0, sizeof(cpu), &cpu) || enter_ns(VNET_NS))
		_exit(1);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	inet_pton(AF_INET, VNET_IP4_A, &to.sin_addr);
	end = clock_ns(CLOCK_MONOTONIC) + ms * 1000000ULL;
	while (fd >= 0 && clock_ns(CLOCK_MONOTONIC) < end)
		sendto(fd, buf, sizeof(buf), 0, (void *)&to, sizeof(to));
	_exit(0);
}

/* The max of HOG_CPU's net-rx-wait row, or -1. */
static long long hog_cpu_wait_max(void)
{
	char cpu[16], *s;
	long long max;

	snprintf(cpu, sizeof(cpu), "%d", HOG_CPU);
	max = softnet_num(cpu, "net-rx-wait", "max");
	if (max < 0) {
		s = read_file(SOFTNET);
		note("%s:\n%s", SOFTNET, s ? s : "(unreadable)");
		free(s);
	}
	return max;
}

/* Reset, flood a for @ms, with the hog or not; HOG_CPU's longest wait. */
static long long starve_round(bool with_hog, int ms)
{
	pid_t f, h = 0;
	int st;

	if (write_file(CONTROL, "reset\n"))
		return -1;
	if (with_hog)
		h = hog(ms);
	f = flood_from_b(ms);
	waitpid(f, &st, 0);
	if (h > 0)
		waitpid(h, &st, 0);
	if (h < 0 || f < 0)
		return -1;
	return hog_cpu_wait_max();
}

/*
 * NIC a's receive interrupt goes to HOG_CPU, and a NET_RX run's budget is
 * 1, so a flood from b leaves NET_RX work pending and wakes ksoftirqd
 * there.  Without the hog, HOG_CPU's net-rx-wait stays far below the
 * real-time throttling period (950 ms of each second by default).  With
 * a SCHED_FIFO hog on HOG_CPU, ksoftirqd waits until the throttling lets
 * it run: on 5.10 and 6.1 an interrupt's exit leaves the pending softirq
 * to a ksoftirqd that is awake ("Let ksoftirqd do its job"), so the wait
 * reaches the order of the throttling period; 6.12 and 7.2 (after its
 * revert, in 6.5 as far as we know) run it at the next interrupt's exit
 * (the tick, at least), and there the test only notes the wait.
 */
TEST_F(virtio, softnet_starved_by_rt_hog)
{
	struct sockaddr_in at = { .sin_family = AF_INET,
				  .sin_port = htons(PORT_STARVE) };
	long long calm, starved;
	char path[64], *was = NULL;
	int irq, sink = -1, rc = -1;

	CHECK(skbprof_load("stages=drops softnet=on") == 0, "load");
	irq = nic_rx_irq(virtio_nics.a);
	if (irq < 0) {
		fail("no receive IRQ of %s in /proc/interrupts", virtio_nics.a);
		goto out;
	}
	snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irq);
	was = read_file(path);
	saved[0] = read_file(knobs[0]);
	if (!was || write_file(path, "1\n") || !saved[0] ||
	    write_file(knobs[0], "1\n")) {
		fail("cannot steer IRQ %d to CPU %d or set the budget", irq,
		     HOG_CPU);
		goto out;
	}
	/* a sink that never reads: its queue fills, nothing answers */
	inet_pton(AF_INET, VNET_IP4_A, &at.sin_addr);
	sink = socket(AF_INET, SOCK_DGRAM, 0);
	if (sink < 0 || bind(sink, (void *)&at, sizeof(at))) {
		fail("sink: %s", strerror(errno));
		goto out;
	}
	calm = starve_round(false, 1500);
	starved = starve_round(true, 2500);
	note("CPU %d net-rx-wait max: %lld ns without the hog, %lld ns with it",
	     HOG_CPU, calm, starved);
	if (calm < 0 || starved < 0) {
		fail("no net-rx-wait row for CPU %d", HOG_CPU);
		goto out;
	}
	/* measured: 9 ms (6.1), 6 ms (6.12); with the hog 957 ms (6.1) */
	if (calm >= 100 * MS) {
		fail("without the hog, net-rx-wait max %lld ns: 100 ms or more",
		     calm);
		goto out;
	}
	if (kver() < 605 && starved < 300 * MS) {
		fail("with the hog, net-rx-wait max %lld ns: under 300 ms",
		     starved);
		goto out;
	}
	rc = 0;
out:
	if (sink >= 0)
		close(sink);
	if (was)
		write_file(path, was);
	free(was);
	knobs_restore();
	return rc;
}

/* ---- what the probes registered at load leave behind ---- */

#define PORT_WINDOW	7403
#define WINDOW_GAP_MS	50
#define WINDOW_AGE_MS	1500

/*
 * Datagrams to 127.0.0.1, PORT_WINDOW (no socket: each answered by an
 * ICMP error) from CPU @cpu, one every 200 us, in a child until killed.
 */
static pid_t trickle(int cpu)
{
	struct sockaddr_in to = sink_addr();
	struct timespec pause = { .tv_nsec = 200000 };
	cpu_set_t set;
	pid_t pid = fork();
	int fd;

	if (pid)
		return pid;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(1);
	to.sin_port = htons(PORT_WINDOW);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	for (;;) {
		sendto(fd, "w", 1, 0, (void *)&to, sizeof(to));
		nanosleep(&pause, NULL);
	}
}

/*
 * Every row of softnet_buckets (table @t) whose max is above @bound ns,
 * noted; their count.  *@waits gets the all row's net-rx-wait count.
 */
static int rows_above(const struct table *t, long long bound,
		      long long *waits)
{
	long long max;
	int r, over = 0;

	*waits = table_num(t, table_find(t, 0, "cpu", "all",
					 "what", "net-rx-wait", NULL), "count");
	for (r = 0; r < t->nrows; r++) {
		max = table_num(t, r, "max");
		if (max <= bound)
			continue;
		note("cpu %s %s: max %lld ns, longer than the %lld ns since softnet on",
		     table_str(t, r, "cpu"), table_str(t, r, "what"), max,
		     bound);
		over++;
	}
	return over;
}

/*
 * Every probe is registered at load, softnet's too, and the first trim
 * disarms them one by one (trim_gap_ms apart here): NET_RX raised and
 * run meanwhile, from a trickle of loopback datagrams on each CPU, leaves
 * a raise whose entry is gone, a run whose exit is.  The first trim must
 * sweep it, or the first `softnet on`, WINDOW_AGE_MS later, times a wait,
 * run or poll as long as the time since load.  Ground truth: NET_RX ran
 * during the load (/proc/softirqs), and nothing softnet times after
 * `softnet on` can be longer than the time since that write.
 */
TEST(softnet_load_window_leaves_nothing)
{
	unsigned long long on, bound;
	struct kernel_counts k0, k1;
	pid_t kids[2] = { -1, -1 };
	cpu_set_t was;
	struct table t = { NULL };
	long long waits;
	char params[64];
	int i, over, err, rc = -1;

	if (kernel_read(&k0))
		return -1;
	for (i = 0; i < 2; i++)
		kids[i] = trickle(i);
	snprintf(params, sizeof(params), "stages=drops trim_gap_ms=%d",
		 WINDOW_GAP_MS);
	err = skbprof_load(params);
	for (i = 0; i < 2; i++) {
		if (kids[i] > 0) {
			kill(kids[i], SIGKILL);
			waitpid(kids[i], NULL, 0);
		}
	}
	CHECK(err == 0, "load: %s", strerror(-err));
	if (kernel_read(&k1))
		return -1;
	note("NET_RX ran %lld times during the load", k1.net_rx - k0.net_rx);
	CHECK(k1.net_rx > k0.net_rx, "no NET_RX during the load");
	if (net_rx_settle())
		return -1;
	sleep_ms(WINDOW_AGE_MS);
	on = clock_ns(CLOCK_MONOTONIC);
	if (softnet_set("softnet on\n", "armed"))
		return -1;
	CHECK(!sched_getaffinity(0, sizeof(was), &was), "affinity: %s",
	      strerror(errno));
	for (i = 0; i < 2; i++) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(i, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fail("affinity: %s", strerror(errno));
			goto out;
		}
		if (loopback_send(100))
			goto out;
	}
	if (net_rx_settle())
		goto out;
	if (table_read(&t, "softnet_buckets"))
		goto out;
	/* ktime_get_mono_fast_ns() is CLOCK_MONOTONIC, give or take a tick */
	bound = clock_ns(CLOCK_MONOTONIC) - on + 1000000;
	over = rows_above(&t, (long long)bound, &waits);
	if (over) {
		note("%s", t.text);
		fail("%d rows timed more than the %llu ms since softnet on: state from the load, %d ms before it",
		     over, bound / 1000000, WINDOW_AGE_MS);
		goto out;
	}
	if (waits <= 0) {
		note("%s", t.text);
		fail("softnet on timed no NET_RX wait");
		goto out;
	}
	rc = 0;
out:
	sched_setaffinity(0, sizeof(was), &was);
	table_free(&t);
	return rc;
}
