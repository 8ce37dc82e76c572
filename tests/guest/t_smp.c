// SPDX-License-Identifier: GPL-2.0
/*
 * The module with its CPUs really running at once: booted with
 * SKBPROF_SMP=4 (tests/lib.sh), QEMU runs each vCPU in a thread of its
 * own (multi-threaded TCG), so handlers, readers and resets meet on
 * different CPUs at the same instant, not by turns as in the other boots.
 *
 * Topology:
 *   loopback, initial namespace: a UDP flood pinned to each CPU, to a
 *     socket its own process reads (port PORT_UDP + cpu) and to a port
 *     nobody binds (PORT_CLOSED: drops);
 *   the guest's NICs (harness.h, vnet_setup()): a TCP client on NIC a,
 *     its server in VNET_NS behind NIC b, streaming over the QEMU hub.
 *
 * smp_load: every view armed while the guest is idle (stages all,
 * lifetime 1, softnet on, procs stages, trace verbose), then the load
 * above with a reader of every file of the module in a loop and a writer
 * sending `reset` every 0.3 s, for skbprof.smp_secs seconds (default 50;
 * make check-smp: 600) in three phases.  Between phases, with the load
 * stopped and the guest idle, the views are switched: arming patches
 * kernel text, which under multi-threaded TCG hangs the guest when other
 * vCPUs run through it (Documentation/testing.rst).  Then, idle again,
 * a final reset and a measured burst pinned to every CPU, whose counts
 * in the module must equal the kernel's /proc/net/snmp deltas and what
 * the test itself sent; and the stats must add up.  The harness checks
 * the kernel log (panic_on_warn=1).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define CONTROL		DEBUGFS_DIR "/control"

#define PORT_TCP	34200	/* the server in VNET_NS */
#define PORT_UDP	34210	/* + cpu: each flood's own receiver */
#define PORT_CLOSED	34209	/* nobody listens: UDP drops */

#define MAX_CPUS	16
#define MAX_FILES	32
#define RESET_MS	300

/* The burst measured at the end, per CPU. */
#define BURST_DELIVERED	200
#define BURST_CLOSED	50

/* Loaded with every view armed; the phases' views, switched while idle. */
#define LOAD_ALL	"stages=all lifetime_sample=1 softnet=on trace=verbose"
static const char *const phase_views[] = {
	"procs stages\n",
	"filter proto udp\nsample 3\nstages drv-ip,ip-udp,udp-app,rx-total,drops\n"
	"lifetime off\nsoftnet off\nprocs totals\ntrace on\n",
	"filter clear\nsample 1\nstages all\nlifetime 1\nsoftnet on\n"
	"procs stages\ntrace verbose\n",
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define PHASES		((int)ARRAY_SIZE(phase_views))

/* what the children count and report, in shared memory */
struct smp_shared {
	long udp_sent[MAX_CPUS], udp_read[MAX_CPUS], tcp_conns;
	long reads[MAX_FILES], resets;
	int bad;
	char why[256];
};

static struct smp_shared *shm;
static char files[MAX_FILES][64];
static int nfiles;

#define __printf(a, b)	__attribute__((format(printf, a, b)))

static __printf(1, 2) void report_bad(const char *fmt, ...);

static void report_bad(const char *fmt, ...)
{
	va_list ap;

	if (__sync_lock_test_and_set(&shm->bad, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(shm->why, sizeof(shm->why), fmt, ap);
	va_end(ap);
}

static double now(void)
{
	return clock_ns(CLOCK_MONOTONIC) / 1e9;
}

/* skbprof.smp_secs=N on the kernel command line; 50 without. */
#define SECS_ARG	"skbprof.smp_secs="

static int load_seconds(void)
{
	char *s = read_file("/proc/cmdline"), *a;
	int secs = 50;

	a = s ? strstr(s, SECS_ARG) : NULL;
	if (a && atoi(a + strlen(SECS_ARG)) > 0)
		secs = atoi(a + strlen(SECS_ARG));
	free(s);
	return secs;
}

static void addr4(struct sockaddr_in *a, const char *ip, int port)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	inet_pton(AF_INET, ip, &a->sin_addr);
}

/*
 * A UDP socket bound to 127.0.0.1:@port, whose reads give up after 10 s
 * (a datagram that never comes is reported, not waited for forever).
 */
static int udp_receiver(int port)
{
	struct timeval tv = { 10, 0 };
	struct sockaddr_in a;
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	addr4(&a, "127.0.0.1", port);
	if (fd < 0 || bind(fd, (void *)&a, sizeof(a)) ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		return -1;
	return fd;
}

/*
 * On CPU @cpu: @delivered datagrams to its receiver, each read back
 * before the next, and @closed to PORT_CLOSED, interleaved; forever
 * when @delivered is 0.  Counts in shm; 0, or -1 when a read failed.
 */
static int udp_on_cpu(int cpu, long delivered, long closed)
{
	struct sockaddr_in to, shut;
	char buf[256] = "s";
	long i;
	int rx, tx;

	if (pin_cpu(cpu)) {
		report_bad("pin to CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	rx = udp_receiver(PORT_UDP + cpu);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (rx < 0 || tx < 0) {
		report_bad("UDP sockets on CPU %d: %s", cpu, strerror(errno));
		return -1;
	}
	addr4(&to, "127.0.0.1", PORT_UDP + cpu);
	addr4(&shut, "127.0.0.1", PORT_CLOSED);
	for (i = 0; !delivered || i < delivered || i < closed; i++) {
		if ((!delivered || i < delivered) &&
		    sendto(tx, buf, sizeof(buf), 0, (void *)&to, sizeof(to)) ==
		    sizeof(buf)) {
			__sync_fetch_and_add(&shm->udp_sent[cpu], 1);
			if (recv(rx, buf, sizeof(buf), 0) != sizeof(buf)) {
				report_bad("CPU %d: datagram %ld not read back: %s",
					   cpu, i, strerror(errno));
				return -1;
			}
			__sync_fetch_and_add(&shm->udp_read[cpu], 1);
		}
		/* flooding: one in four to the closed port */
		if ((delivered && i < closed) || (!delivered && !(i & 3)))
			sendto(tx, buf, 64, 0, (void *)&shut, sizeof(shut));
	}
	close(rx);
	close(tx);
	return 0;
}

static void udp_flood(int cpu)
{
	udp_on_cpu(cpu, 0, 0);
}

/* In VNET_NS: accept connections on PORT_TCP and read them to the end. */
static void tcp_server(int unused)
{
	static char buf[65536];
	struct sockaddr_in a;
	int l, s, one = 1;

	(void)unused;
	if (enter_ns(VNET_NS)) {
		report_bad("cannot enter " VNET_NS);
		return;
	}
	addr4(&a, "0.0.0.0", PORT_TCP);
	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l < 0 || bind(l, (void *)&a, sizeof(a)) || listen(l, 16)) {
		report_bad("tcp listener: %s", strerror(errno));
		return;
	}
	for (;;) {
		s = accept(l, NULL, NULL);
		if (s < 0)
			continue;
		while (read(s, buf, sizeof(buf)) > 0)
			;
		close(s);
	}
}

/* From NIC a: connect to the server, send 256 KiB, close; forever. */
static void tcp_client(int unused)
{
	static char buf[65536];
	struct sockaddr_in a;
	int c, i;

	(void)unused;
	addr4(&a, VNET_IP4_B, PORT_TCP);
	for (;;) {
		c = socket(AF_INET, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (void *)&a, sizeof(a))) {
			/* the server may not listen yet */
			if (c >= 0)
				close(c);
			sleep_ms(10);
			continue;
		}
		for (i = 0; i < 4; i++)
			if (write(c, buf, sizeof(buf)) != sizeof(buf)) {
				report_bad("tcp write: %s", strerror(errno));
				return;
			}
		close(c);
		__sync_fetch_and_add(&shm->tcp_conns, 1);
	}
}

/* Open, read to the end, close file @i of the module; forever. */
static void file_reader(int i)
{
	char path[128];
	int err;

	snprintf(path, sizeof(path), DEBUGFS_DIR "/%s", files[i]);
	for (;;) {
		err = drain_file(path);
		if (err < 0) {
			report_bad("open %s: %s", path, strerror(-err));
			return;
		}
		/* trace is a stream: EAGAIN once it is drained */
		if (err && err != EAGAIN)
			report_bad("read %s: %s", path, strerror(err));
		__sync_fetch_and_add(&shm->reads[i], 1);
		sleep_ms(5);
	}
}

/* `reset` to control every RESET_MS. */
static void resetter(int unused)
{
	(void)unused;
	for (;;) {
		int err = write_file(CONTROL, "reset\n");

		if (err) {
			report_bad("reset: %s", strerror(-err));
			return;
		}
		__sync_fetch_and_add(&shm->resets, 1);
		sleep_ms(RESET_MS);
	}
}

/* A child of @k; one it cannot have is reported. */
static void spawn(struct kids *k, void (*fn)(int), int arg)
{
	if (kids_spawn(k, fn, arg) < 0)
		report_bad("cannot start child %d: %s", k->n, strerror(errno));
}

/* The files of the module, as the directory lists them. */
static int list_files(void)
{
	DIR *d = opendir(DEBUGFS_DIR);
	struct dirent *e;

	nfiles = 0;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && nfiles < MAX_FILES &&
		    strlen(e->d_name) < sizeof(files[0]))
			strcpy(files[nfiles++], e->d_name);
	if (d)
		closedir(d);
	return nfiles;
}

/* Packets the CPUs' backlogs have processed: /proc/net/softnet_stat. */
static long long softnet_processed(void)
{
	char *s = read_file("/proc/net/softnet_stat"), *p;
	long long sum = 0;

	for (p = s; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		sum += strtoll(p, NULL, 16);
	free(s);
	return s ? sum : -1;
}

/*
 * Idle: the load's children are gone and no packet passed for 500 ms
 * (the TCP connections the killed children left finish closing).
 */
static bool idle(void *arg)
{
	long long *last = arg, n = softnet_processed();

	if (n != *last) {
		*last = n;
		return false;
	}
	sleep_ms(500);
	return softnet_processed() == n;
}

static int wait_idle(void)
{
	long long last = -1;

	return wait_until(idle, &last, 10 * WAIT_MS) ? 0 : -1;
}

/* Sum of the count column of drops_rows; -1 when unreadable. */
static long long drops_rows(void)
{
	long long sum = -1;
	struct table t;

	if (!table_read(&t, "drops_rows"))
		sum = table_sum(&t, "count", NULL);
	table_free(&t);
	return sum;
}

static long long incomplete(const char *dir)
{
	static const char *const why[] = {
		"dropped", "freed", "evicted", "restarted", "rekeyed", "merged",
		"reused", "coalesced", "duplicate", "disarmed", "orphaned",
	};
	long long sum = 0;
	char key[64];
	size_t i;

	for (i = 0; i < sizeof(why) / sizeof(*why); i++) {
		snprintf(key, sizeof(key), "incomplete_%s_%s", dir, why[i]);
		sum += stat_value(key);
	}
	return sum;
}

/* While loaded: bounds that hold at any instant, resets or not. */
static int stats_bounded(void)
{
	long long cap = stat_value("table_capacity");
	long long used = stat_value("table_in_use");
	long long kmax = stat_value("drops_keys_max");
	long long kused = stat_value("drops_keys_used");

	CHECK(cap == 16384 && used >= 0 && kmax == 256 && kused >= 0,
	      "stats: capacity %lld, in use %lld, keys %lld of %lld", cap,
	      used, kused, kmax);
	CHECK(used <= cap, "table_in_use %lld > capacity %lld", used, cap);
	CHECK(kused <= kmax, "drops_keys_used %lld > max %lld", kused, kmax);
	return 0;
}

/* The load for @secs seconds, children killed at the end. */
static int run_load(int secs, int ncpu, int phase)
{
	struct kids k = { .n = 0 };
	double t0 = now(), next = t0 + 10;
	int i, err = 0;

	spawn(&k, tcp_server, 0);
	spawn(&k, tcp_client, 0);
	for (i = 0; i < ncpu; i++)
		spawn(&k, udp_flood, i);
	for (i = 0; i < nfiles; i++)
		spawn(&k, file_reader, i);
	spawn(&k, resetter, 0);
	while (!shm->bad && !err && now() - t0 < secs) {
		sleep_ms(100);
		if (now() >= next) {
			/* a line now and then: the harness sees us alive */
			note("phase %d: %.0f s, %ld TCP connections, %ld resets",
			     phase, now() - t0, shm->tcp_conns, shm->resets);
			next += 10;
			err = stats_bounded();
		}
	}
	kids_kill(&k);
	return err;
}

/* The kernel's UDP counters of the initial namespace. */
struct udp_snmp {
	long long in, out, noports;
};

static void udp_snmp(struct udp_snmp *u)
{
	u->in = snmp_value("Udp", "InDatagrams");
	u->out = snmp_value("Udp", "OutDatagrams");
	u->noports = snmp_value("Udp", "NoPorts");
}

struct burst_want {
	long long in, out, noports;
};

/* The module has counted the burst as the kernel did. */
static bool module_caught_up(void *arg)
{
	struct burst_want *w = arg;
	char *s = read_file(DEBUGFS_DIR "/latency_buckets");
	bool done;

	done = s && (long long)row_count(s, "rx", "udp-app") >= w->in &&
	       (long long)row_count(s, "tx", "app-udp") >= w->out &&
	       (long long)drops_at(udp_noport_fn(AF_INET)) >= w->noports &&
	       stat_value("table_in_use") == 0;
	free(s);
	return done;
}

/*
 * Only when named (make check-smp, make check's SMP boot, make
 * check-race): a minute or more of load, for the boots with vCPUs in
 * parallel.
 */
SLOWTEST(smp_load)
{
	struct vnet v;
	struct kids k = { .n = 0 };
	struct udp_snmp u0, u1;
	struct burst_want w;
	long long reads = 0, sent = 0, rows, tot, ovf, kept, total, inc;
	int ncpu = sysconf(_SC_NPROCESSORS_ONLN), secs = load_seconds();
	int i, phase, err, st;
	double t0;
	char *s;

	CHECK(ncpu >= 2 && ncpu <= MAX_CPUS, "%d CPUs online", ncpu);
	shm = mmap(NULL, sizeof(*shm), PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(shm != MAP_FAILED, "shared memory");
	memset(shm, 0, sizeof(*shm));
	CHECK(vnet_setup(&v) == 0, "the NICs");

	/* every view armed, the guest idle */
	err = skbprof_load(LOAD_ALL);
	CHECK(err == 0, "load: %s", strerror(-err));
	CHECK(list_files() >= 20, "only %d files in " DEBUGFS_DIR, nfiles);
	note("%d CPUs, %d s of load in %d phases, %d files read", ncpu, secs,
	     PHASES, nfiles);

	t0 = now();
	for (phase = 0; phase < PHASES && !shm->bad; phase++) {
		CHECK(wait_idle() == 0, "phase %d: the guest never went idle",
		      phase);
		err = write_file(CONTROL, phase_views[phase]);
		CHECK(err == 0, "phase %d: views: %s", phase, strerror(-err));
		err = run_load(secs / PHASES, ncpu, phase);
		if (err)
			break;
	}
	vnet_teardown(&v);
	CHECK(!shm->bad, "a child saw: %s", shm->why);
	CHECK(!err, "phase %d failed", phase);
	for (i = 0; i < nfiles; i++) {
		reads += shm->reads[i];
		CHECK(shm->reads[i] > 0, "nobody ever read %s", files[i]);
	}
	for (i = 0; i < ncpu; i++) {
		sent += shm->udp_sent[i];
		CHECK(shm->udp_sent[i] > 0, "no UDP flowed on CPU %d", i);
	}
	note("load: %.0f s; %lld UDP datagrams delivered, %ld TCP connections",
	     now() - t0, sent, shm->tcp_conns);
	note("readers: %lld reads; %ld resets", reads, shm->resets);
	CHECK(shm->tcp_conns > 0 && shm->resets > 0,
	      "no TCP connection or no reset got through");

	/*
	 * The measured burst: idle, a final reset, then on every CPU at
	 * once BURST_DELIVERED datagrams read back and BURST_CLOSED to a
	 * closed port.  The kernel's counters and the test's own are the
	 * truth; wait until the kernel has counted it all, then until the
	 * module has (each drop's kfree_skb follows its counter).
	 */
	CHECK(wait_idle() == 0, "never idle after the load");
	CHECK(write_file(CONTROL, "trace off\nreset\n") == 0, "final reset");
	memset(shm->udp_sent, 0, sizeof(shm->udp_sent));
	memset(shm->udp_read, 0, sizeof(shm->udp_read));
	udp_snmp(&u0);
	for (i = 0; i < ncpu; i++) {
		pid_t pid;

		fflush(stdout);
		pid = fork();
		if (pid == 0)
			_exit(udp_on_cpu(i, BURST_DELIVERED, BURST_CLOSED) ?
			      1 : 0);
		k.pid[k.n++] = pid;
	}
	for (i = 0, err = 0; i < k.n; i++)
		if (waitpid(k.pid[i], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st))
			err = 1;
	CHECK(!err && !shm->bad, "the burst failed: %s", shm->why);
	w.in = (long long)ncpu * BURST_DELIVERED;
	w.out = (long long)ncpu * (BURST_DELIVERED + BURST_CLOSED);
	w.noports = (long long)ncpu * BURST_CLOSED;
	for (i = 0, sent = 0; i < ncpu; i++)
		sent += shm->udp_read[i];
	CHECK_EQ(sent, w.in);
	udp_snmp(&u1);
	CHECK_EQ(u1.in - u0.in, w.in);
	CHECK_EQ(u1.out - u0.out, w.out);
	CHECK_EQ(u1.noports - u0.noports, w.noports);
	wait_until(module_caught_up, &w, WAIT_MS);

	s = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(s, "cannot read latency");
	note("after the burst:\n%s", s);
	/* closed-port datagrams pass ip-udp and leave through udp-ip too */
	CHECK_EQ(row_count(s, "rx", "udp-app"), u1.in - u0.in);
	CHECK_EQ(row_count(s, "rx", "ip-udp"),
		 u1.in - u0.in + u1.noports - u0.noports);
	CHECK_EQ(row_count(s, "tx", "app-udp"), u1.out - u0.out);
	CHECK_EQ(row_count(s, "tx", "udp-ip"), u1.out - u0.out);
	CHECK_EQ(row_count(s, "tx", "tx-total"), u1.out - u0.out);
	total = row_count(s, "rx", "rx-total");
	free(s);
	CHECK_EQ(total, u1.in - u0.in);
	CHECK_EQ(drops_at(udp_noport_fn(AF_INET)), u1.noports - u0.noports);

	/* and the stats add up, nothing left in flight */
	CHECK_EQ(stat_value("table_in_use"), 0);
	CHECK_EQ(stat_value("table_full"), 0);
	CHECK_EQ(stat_value("table_evictions"), 0);
	tot = stat_value("drops_total");
	ovf = stat_value("drops_overflow");
	rows = drops_rows();
	CHECK_EQ(tot, rows + ovf);
	CHECK_EQ(ovf, 0);
	kept = stat_value("timelines_rx_kept");
	inc = incomplete("rx");
	note("rx: %lld kept, %lld complete, %lld incomplete", kept, total, inc);
	CHECK_EQ(kept, total + inc);
	kept = stat_value("timelines_tx_kept");
	inc = incomplete("tx");
	note("tx: %lld kept, %lld incomplete", kept, inc);
	CHECK_EQ(kept, u1.out - u0.out + inc);
	CHECK_EQ(stat_value("udp_calls_unseen_tx"), 0);
	return skbprof_unload() == 0 ? 0 : fail("unload");
}
