/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-guest test suite's framework.
 *
 * A test is a function registered with TEST(name).  It returns 0 on success;
 * on failure it records why with fail() (or the CHECK macros) and returns -1.
 * The runner prints one line per test, "ok <name>" or "FAIL <name>: <why>",
 * and ends with "N passed, N failed".  After every test the module is
 * unloaded if the test left it loaded, so tests do not depend on each other.
 *
 * A test that needs a topology (namespaces, a veth pair) registers with
 * TEST_F(fixture, name), as in kselftest_harness.h: the runner calls the
 * fixture's setup before the test's body, and its teardown after it
 * whatever happened, also when the setup or a CHECK of the body failed
 * and returned early.  A failing setup fails the test with its reason, and
 * the body does not run.
 *
 *	FIXTURE(pair);
 *	FIXTURE_SETUP(pair) { return veth_pair(&pair_topo); }
 *	FIXTURE_TEARDOWN(pair) { veth_pair_del(&pair_topo); }
 *	TEST_F(pair, a_test) { CHECK(...); return 0; }
 */
#ifndef SKBPROF_HARNESS_H
#define SKBPROF_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct fixture {
	int (*setup)(void);	/* 0, or fail() and -1 */
	void (*teardown)(void);	/* always, after the setup and the body */
};

struct test {
	const char *name;
	int (*fn)(void);
	bool selftest;		/* deliberately failing: only with --selftest */
	bool slow;		/* minutes long: only with --slow or named */
	bool final;		/* changes the kernel for good: after the rest */
	const struct fixture *fixture;	/* NULL: none */
};

#define __TEST_F(name, self, slw, fin, fix)				\
	static int name(void);						\
	static const struct test __test_##name				\
	__attribute__((used, section("skbprof_tests"), aligned(8))) = {	\
		#name, name, self, slw, fin, fix };			\
	static int name(void)

#define TEST(name)		__TEST_F(name, false, false, false, NULL)
#define SELFTEST(name)		__TEST_F(name, true, false, false, NULL)
#define SLOWTEST(name)		__TEST_F(name, false, true, false, NULL)
/*
 * A test after which the kernel is not the same (lockdown, which only a
 * reboot lifts): it runs once every other test of the run has.
 */
#define FINALTEST(name)		__TEST_F(name, false, false, true, NULL)

/* A fixture @fix: declare it, then define its setup and its teardown. */
#define FIXTURE(fix)							\
	static int fix##_setup(void);					\
	static void fix##_teardown(void);				\
	static const struct fixture __fixture_##fix = {		\
		fix##_setup, fix##_teardown }
#define FIXTURE_SETUP(fix)	static int fix##_setup(void)
#define FIXTURE_TEARDOWN(fix)	static void fix##_teardown(void)
/* A test in fixture @fix: its setup before, its teardown after, always. */
#define TEST_F(fix, name)	__TEST_F(name, false, false, false,	\
					 &__fixture_##fix)

int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define CHECK(cond, fmt, ...)						\
	do {								\
		if (!(cond))						\
			return fail("%s:%d: " fmt, __FILE__, __LINE__,	\
				    ##__VA_ARGS__);			\
	} while (0)

#define CHECK_EQ(a, b)							\
	do {								\
		long long __a = (a), __b = (b);				\
		if (__a != __b)						\
			return fail("%s:%d: %s == %lld, expected %s == %lld", \
				    __FILE__, __LINE__, #a, __a, #b, __b); \
	} while (0)

/* Where things are in the guest. */
#define SKBPROF_KO	"/lib/skbprof/skbprof.ko"
#define SELFTEST_KO	"/lib/skbprof/skbprof_selftest_warn.ko"
#define DEBUGFS_DIR	"/sys/kernel/debug/skbprof"
#define TOOL		"/bin/skbprof"

/* Module control through libkmod.  Return 0 or a negative errno. */
int module_load(const char *path, const char *params);
int module_unload(const char *name);
bool module_loaded(const char *name);
int skbprof_load(const char *params);
int skbprof_unload(void);
/* Load a module of the running kernel by name, with its dependencies. */
int kmod_probe(const char *name);

/* Files.  read_file returns a malloc'd NUL-terminated string or NULL. */
char *read_file(const char *path);
int write_file(const char *path, const char *data);
bool path_exists(const char *path);

/* Run a shell command (busybox sh -c); returns its exit status or -1. */
int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Run a command and capture its stdout (malloc'd); *status gets the status. */
char *sh_out(int *status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Run the reader tool (TOOL) with @args; its stdout and stderr, as sh_out(). */
char *tool_out(int *status, const char *args);

/*
 * Hold the kfree_skb tracepoint's patched code still: its static branch
 * on (the kernel's own trace event) and its static call on the iterator
 * (a second, perf, probe), so that skbprof's probe coming and going
 * patches no code.  Returns the perf fd, or -1; with @must the failure is
 * the test's and recorded with fail(), without it the caller goes on
 * unheld.  tp_release() lets go of a hold (nothing for an fd < 0).
 */
int tp_hold(bool must);
void tp_release(int fd);

/*
 * A counter of an SNMP-style table in @text ("Udp: a b c\nUdp: 1 2 3", as
 * /proc/net/snmp and /proc/net/netstat print them); frees @text (NULL is
 * fine).  -1 when missing.
 */
long long snmp_table_value(char *text, const char *proto, const char *field);
/* A counter of /proc/net/snmp; -1 when missing. */
long long snmp_value(const char *proto, const char *field);
/*
 * A counter of @text in /proc/net/snmp6's form ("Udp6NoPorts   3" lines);
 * frees @text (NULL is fine).  -1 when missing.
 */
long long snmp6_table_value(char *text, const char *field);

/*
 * Packets the CPUs' backlogs dropped for want of room (the second column
 * of /proc/net/softnet_stat): what loopback loses before IP, under load.
 */
long long softnet_dropped(void);

/*
 * Packets of the first counter of nft chain @chain ("inet t c") in
 * network namespace @ns (NULL: the test's own), or -1.
 */
long long nft_packets(const char *ns, const char *chain);

/* The running kernel's major * 100 + minor: 510 for 5.10. */
int kver(void);

/* Is @sym a symbol of the running kernel or a module (/proc/kallsyms)? */
bool kallsyms_has(const char *sym);

/*
 * The function that drops UDP to a closed port, where drops rows locate
 * it: __udp4_lib_rcv (__udp6_lib_rcv for AF_INET6), or udp_rcv
 * (udpv6_rcv) on kernels that inline it there (7.x); from /proc/kallsyms.
 */
const char *udp_noport_fn(int family);

/* Sum of the counts of skbprof's drops rows located in function @sym. */
unsigned long long drops_at(const char *sym);

/*
 * On a kernel with kmemleak (make check-debug): scan twice and count the
 * reports whose backtrace is skbprof's; the first one fails the test
 * (printed).  *reports gets every report.  -1 without kmemleak.  The
 * module must be unloaded: its frames then print as raw module addresses.
 */
int kmemleak_skbprof_leaks(int *reports);

/* clock_gettime(@clk) in nanoseconds. */
unsigned long long clock_ns(int clk);

/*
 * The first line of @text that starts with @prefix followed by a blank:
 * a pointer to what follows the blank, or NULL.
 */
const char *line_after(const char *text, const char *prefix);

/* Enter the network namespace `ip netns` calls @ns; 0 or a negative errno. */
int enter_ns(const char *ns);

/* Sleep for @ms milliseconds. */
void sleep_ms(int ms);

/* Run the calling process on @cpu alone, or on every CPU for -1. */
int pin_cpu(int cpu);

/* A test's children, forked together and killed and reaped together. */
#define KIDS_MAX	64
struct kids {
	pid_t pid[KIDS_MAX];
	int n;
};

/*
 * A child running @fn(@arg) with SIGPIPE ignored: its pid, or -1 when
 * @k is full or fork() fails (the caller reports it).
 */
pid_t kids_spawn(struct kids *k, void (*fn)(int), int arg);
/* SIGKILL every child of @k, reap them, and empty @k. */
void kids_kill(struct kids *k);

/*
 * A reader's round: open @path non-blocking, read it to the end, close
 * it.  0; -errno when the open failed; errno when a read did (EAGAIN: a
 * stream such as trace drained).
 */
int drain_file(const char *path);

/*
 * The bound for waiting on work the kernel finishes in its own time
 * (loopback delivery in ksoftirqd, an RCU callback, the linkwatch work):
 * far above anything measured, so that only a condition that never comes
 * true runs into it, not a slow host.
 */
#define WAIT_MS		30000

/*
 * Poll @cond(@arg) every 10 ms until it holds, for at most @max_ms
 * (CLOCK_MONOTONIC); whether it held.  Wait for what a check needs this
 * way, never for a fixed time, then make the exact check.
 */
bool wait_until(bool (*cond)(void *arg), void *arg, int max_ms);

/* Run fn(arg) in a child with the given uid/gid and no capabilities. */
int run_as(uid_t uid, int (*fn)(void *), void *arg);

/* Drop capability @cap from every set of this process, stay root; 0 or -1. */
int drop_cap(int cap);

/* ---- what the module says ---- */

/*
 * A machine file of the module (Documentation/skbprof.rst, "Machine
 * files"): a table, read whole.  Cells are found by column name, never by
 * position; a number cell that is "-" (none) reads as -1.
 */
struct table {
	char *text;		/* the file as read, to show */
	char *buf;		/* the same, cut into the cells */
	char **meta;		/* "key=value" tokens of the meta lines */
	int nmeta;
	char **name;		/* the header's column names */
	int ncols;
	char **cell;		/* nrows * ncols, row by row */
	int nrows;
};

/*
 * Read machine file @file (of DEBUGFS_DIR, or a path) into @t; 0, or -1
 * after fail() saying why (unreadable, or not the grammar).  table_parse()
 * does the same with @text (malloc'd; @t owns it from then on, even on
 * failure).
 */
int table_read(struct table *t, const char *file);
int table_parse(struct table *t, char *text, const char *what);
void table_free(struct table *t);
/* The column named @name (as the header has it, "buckets..." too); -1. */
int table_col(const struct table *t, const char *name);
/* The value of meta key @key; NULL without it. */
const char *table_meta(const struct table *t, const char *key);
/*
 * The first row from row @from on whose cells equal the values of the
 * (column name, value) pairs that follow, up to a NULL name: its index,
 * or -1.  A NULL value matches any cell.
 */
int table_find(const struct table *t, int from, ...)
	__attribute__((sentinel));
/* Row @row's cell of column @col: a string, NULL without that column. */
const char *table_str(const struct table *t, int row, const char *col);
/* The same as a number: -1 for "-", a missing column or not a number. */
long long table_num(const struct table *t, int row, const char *col);
/* The sum of column @col over the rows that table_find()'s pairs match. */
long long table_sum(const struct table *t, const char *col, ...)
	__attribute__((sentinel));
/*
 * A human view against its machine table: human view @view (stats,
 * latency, ...) has, for every row of machine table @machine, a line of
 * that row's cells of columns @cols (NULL-ended) in that order, blanks
 * between them.  Read while the table stays the same; 0, or -1 after
 * fail() names the row the view lacks.  The one place a test reads a
 * human view's figures.
 */
int view_shows(const char *view, const char *machine,
	       const char *const *cols);
/*
 * Field @key of record @line ("key=value key=value ...", up to its
 * newline): its value, copied into @buf of @len bytes; NULL without it.
 */
const char *record_get(const char *line, const char *key, char *buf,
		       size_t len);


/* A row of a histogram table (latency_buckets, ...): count and times. */
struct row {
	unsigned long long count, sum, min, p50, p90, p99, max, avg;
};

/* Row @i of histogram table @t into @r (zeroes without the row). */
void hist_row(const struct table *t, int i, struct row *r);

/* The row of @dir @stage in latency_buckets text @text; 0 if found. */
int latency_row(const char *text, const char *dir, const char *stage,
		struct row *r);
/* Its count; 0 without the row (no sample). */
unsigned long long row_count(const char *text, const char *dir,
			     const char *stage);
/* The value of counter @key (the counters file); -1 when missing. */
long long stat_value(const char *key);
/* The same of a counters table @t read before, for figures of one read. */
long long counter_of(const struct table *t, const char *key);
/*
 * Wait (bounded: WAIT_MS) until counter @key reaches @want; whether it
 * did (a note says when not).
 */
bool stat_wait(const char *key, long long want);
/* The same as a string, in a static buffer; "" when missing. */
const char *stat_str(const char *key);
/*
 * The kprobe layer's skipped hits (probes' "nmissed"), summed over the
 * active probes; not reset by reset.  -1 when stats is unreadable.
 */
long long probes_nmissed(void);
/* The same over the active probes of group @group only. */
long long group_nmissed(const char *group);
/*
 * Kept receive timelines that ended before the read, the sum of stats'
 * incomplete_rx_{dropped,freed,evicted,restarted,rekeyed}: not those
 * that ended merged, reused or coalesced.
 */
long long rx_incomplete(void);

/*
 * TCP segments coalesced into the one before them in network namespace
 * @ns, as its kernel counts them: TcpExt TCPRcvCoalesce (receive queue)
 * plus TCPBacklogCoalesce; -1 when unreadable.
 */
long long tcp_coalesced(const char *ns);


/*
 * Set ethtool flag @cmd (ETHTOOL_SGRO, ...) of device @ifname in this
 * process's namespace to @on; 0 or -errno.
 */
int ethtool_set(const char *ifname, unsigned int cmd, unsigned int on);


/* ---- topologies ---- */

/*
 * A test's network, built in one place: each test (and bench/guest.sh,
 * through `skbprof-test --veth-pair`) describes its topology at its top
 * and builds it with these, as WireGuard's tests/netns.sh does.  Every
 * builder first removes what a run before may have left, so a teardown
 * is a plain removal: idempotent, silent.
 */

/* One end of a veth pair. */
struct veth_end {
	const char *ns;		/* its namespace (made by the pair); NULL: the initial one */
	const char *dev;
	const char *mac;	/* NULL: the kernel's */
	const char *ip4;	/* "10.201.0.1/24"; NULL: none */
	const char *ip6;	/* "fd00:201::1/64", added nodad; NULL: none */
	const char *opts;	/* more `ip link add` options for it; NULL: none */
};

struct veth {
	struct veth_end a, b;
	unsigned int flags;	/* VETH_* */
};

/*
 * IPv6 off (VETH_IPV6_OFF) or explicitly on (VETH_IPV6_ON): every
 * disable_ipv6 of the end's namespace, or the device's own in the initial
 * one; neither: as the kernel makes them.
 */
#define VETH_IPV6_OFF	0x01
#define VETH_IPV6_ON	0x02
/* static neighbours for the ends' addresses (needs both MACs): no ARP, no ND */
#define VETH_NEIGH	0x04
/* GRO off on both ends (ethtool) */
#define VETH_NO_GRO	0x08
/* both ends up */
#define VETH_UP		0x10
/* lo up in the ends' namespaces */
#define VETH_LO_UP	0x20

/*
 * Remove what veth_pair_del() removes, make the ends' namespaces and the
 * pair, then addresses, neighbours, GRO and links as @v's flags ask, in
 * that order; 0, or fail() and -1.
 */
int veth_pair(const struct veth *v);
/* Delete @v's namespaces and its ends in the initial namespace. */
void veth_pair_del(const struct veth *v);

/*
 * A namespace of its own: @ns removed if a run left it, then made, its
 * lo up with @lo_up; 0, or fail() and -1.  netns_del() removes it.
 */
int netns_make(const char *ns, bool lo_up);
void netns_del(const char *ns);

/* Run @fn(@arg) inside namespace @ns, then back in this one; its result. */
int in_ns(const char *ns, int (*fn)(void *arg), void *arg);

/* ---- the guest's NICs ---- */

/*
 * The guest's two virtio-net NICs, on one QEMU hub that joins them to
 * each other only (tests/lib.sh, GUEST_NICS): a real driver path, with
 * no offloads (the hub has no vnet header), so TCP's large skbs are
 * segmented in software before the driver.  vnet_setup() moves NIC b into
 * namespace VNET_NS, gives both an IPv4 address with IPv6 off and static
 * neighbours (no neighbour traffic, not even ARP), brings them up and
 * waits until a ping passes; vnet_teardown() moves b back and takes both
 * down.  Their names are the kernel's, found by MAC.
 */
#define VNET_MAC_A	"52:54:00:5b:00:0a"
#define VNET_MAC_B	"52:54:00:5b:00:0b"
#define VNET_NS		"skbp_vnet"
#define VNET_IP4_A	"10.202.0.1"
#define VNET_IP4_B	"10.202.0.2"

struct vnet {
	char a[16];	/* in the initial namespace */
	char b[16];	/* in VNET_NS */
};

int vnet_setup(struct vnet *v);
void vnet_teardown(const struct vnet *v);
/*
 * The same pair as a fixture, TEST_F(virtio, name): vnet_setup() before
 * the test, vnet_teardown() after it; the NICs' names in virtio_nics.
 */
extern struct vnet virtio_nics;
extern const struct fixture __fixture_virtio;
/*
 * A counter of /sys/class/net/@dev/statistics/ (tx_packets, ...) in
 * the initial namespace; -1 when missing.
 */
long long netdev_stat(const char *dev, const char *name);

#endif
