// SPDX-License-Identifier: GPL-2.0
/*
 * The drop monitor (/sys/kernel/debug/skbprof/drops), against ground
 * truths the kernel keeps independently of skbprof: /proc/net/snmp and
 * /proc/net/snmp6 counters, nftables rule counters, the packets sent.
 *
 * What each kernel does (checked in the guests, see Documentation/skbprof.rst):
 *   - 5.10 has no drop reasons: the reason column is "-" and rows are told
 *     apart by location only;
 *   - 6.1 and 6.12 give the reason; the expected names come from the
 *     kernels' own tables, which the module prints unchanged.
 * Rows are picked by reason and by the function of the location, and
 * their counts must equal the ground truth's rise over the same window.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <linux/perf_event.h>
#include <linux/sock_diag.h>
#include <poll.h>
#include <pthread.h>
#include <regex.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define DROPS		DEBUGFS_DIR "/drops"
#define DROPS_ROWS	DEBUGFS_DIR "/drops_rows"
#define CONTROL		DEBUGFS_DIR "/control"
#define STATS		DEBUGFS_DIR "/stats"

/*
 * One row of drops_rows, its values as the drops view shows them ("lo+"
 * for dev "lo" with dev_mixed 1).
 */
struct drow {
	unsigned long long count;
	char reason[64];
	char proto[32];
	char dev[32];
	char netns[16];		/* inode of its network namespace, or - */
	char cgroup[32];	/* cgroup v2 id of its socket, or - */
	char stage[32];		/* the last stage the packet reached */
	long long first_ns, last_ns;	/* since boot, exact */
	double first, last;		/* the same in seconds */
	char loc[256];		/* symbol+off/size [module], or ? */
	char sym[128];		/* the function alone */
};

struct dtab {
	int n;
	struct drow r[1024];
	char *text;		/* the file as read, for messages */
};

static struct dtab tab;

/* ---- kernel facts ---------------------------------------------------- */

/* Drop reasons appeared in the kfree_skb tracepoint in 5.17. */
static bool have_reasons(void)
{
	return kver() >= 517;
}

/* The reason column expected for a drop of reason @name. */
static const char *reason(const char *name)
{
	return have_reasons() ? name : "-";
}

/* ---- ground truth ---------------------------------------------------- */

/* A counter of /proc/net/snmp6: "Udp6NoPorts   3". */
static long long snmp6(const char *field)
{
	return snmp6_table_value(read_file("/proc/net/snmp6"), field);
}

/* CLOCK_BOOTTIME seconds, as the drops file's times. */
static double uptime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_BOOTTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct settle {
	long long (*get)(const void *);
	const void *arg;
	long long want;
};

static bool settled(void *arg)
{
	const struct settle *s = arg;

	return s->get(s->arg) >= s->want;
}

/*
 * Wait until @get() reaches @want: loopback delivery may finish in
 * ksoftirqd long after send returns.  The kfree_skb that follows the
 * counter update may run later still: a check of the module's count waits
 * for that count itself (drops_wait()).
 */
static long long settle(long long (*get)(const void *), const void *arg,
			long long want)
{
	struct settle s = { get, arg, want };

	if (!wait_until(settled, &s, WAIT_MS))
		note("the counter is at %lld after %d ms, want %lld",
		     get(arg), WAIT_MS, want);
	return get(arg);
}

struct ctr {
	const char *proto;	/* NULL: snmp6 */
	const char *field;
};

static long long ctr_get(const void *arg)
{
	const struct ctr *c = arg;

	return c->proto ? snmp_value(c->proto, c->field) : snmp6(c->field);
}

/* ---- the module's files ---------------------------------------------- */

static int drops_reset(void)
{
	int err = write_file(CONTROL, "reset\n");

	CHECK(err == 0, "writing reset to control: %s", strerror(-err));
	return 0;
}

static regex_t loc_re;

/*
 * A cell of row @row of drops_rows (which has every column: checked),
 * with a '+' after it when its flag column @flag is 1, as the drops view
 * marks a key whose drops had several values.
 */
static void drops_cell(const struct table *t, int row, const char *col,
		       const char *flag, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s", table_str(t, row, col),
		 flag && table_num(t, row, flag) == 1 ? "+" : "");
}

/*
 * Read drops_rows, the drops table, into tab through the harness's table
 * reader; checks its format as it goes: every column, the clock meta line
 * read between our own clock reads, the flags 0 or 1, the locations, the
 * times and the order.
 */
static int drops_read(void)
{
	static const char *const cols[] = {
		"count", "reason", "proto", "proto_mixed", "dev", "dev_mixed",
		"netns", "cgroup", "cgroup_mixed", "stage", "first_ns",
		"last_ns", "location", "module", NULL
	};
	static const char *const flags[] = {
		"proto_mixed", "dev_mixed", "cgroup_mixed", NULL
	};
	unsigned long long b0, b1, r0, r1, boot, real;
	const char *mod, *bs, *rs;
	struct table t;
	char *s;
	int i, k;

	if (!loc_re.re_nsub &&
	    regcomp(&loc_re,
		    "^([A-Za-z0-9_.$]+\\+0x[0-9a-f]+/0x[0-9a-f]+( \\[[A-Za-z0-9_]+\\])?|\\?)$",
		    REG_EXTENDED))
		return fail("regcomp");
	free(tab.text);
	tab.text = NULL;
	tab.n = 0;
	b0 = clock_ns(CLOCK_BOOTTIME);
	r0 = clock_ns(CLOCK_REALTIME);
	s = read_file(DROPS_ROWS);
	b1 = clock_ns(CLOCK_BOOTTIME);
	r1 = clock_ns(CLOCK_REALTIME);
	CHECK(s, "reading %s: %s", DROPS_ROWS, strerror(errno));
	tab.text = strdup(s);
	if (table_parse(&t, s, "drops_rows")) {
		table_free(&t);
		return -1;
	}
	for (k = 0; cols[k]; k++) {
		if (table_col(&t, cols[k]) < 0) {
			table_free(&t);
			return fail("drops_rows has no column %s", cols[k]);
		}
	}
	/* the clocks, read when the file was opened: between our reads */
	bs = table_meta(&t, "boottime_ns");
	rs = table_meta(&t, "realtime_ns");
	boot = bs ? strtoull(bs, NULL, 10) : 0;
	real = rs ? strtoull(rs, NULL, 10) : 0;
	if (boot < b0 || boot > b1 || real < r0 || real > r1) {
		table_free(&t);
		return fail("meta boottime_ns %llu not in [%llu, %llu] or realtime_ns %llu not in [%llu, %llu]",
			    boot, b0, b1, real, r0, r1);
	}
	for (i = 0; i < t.nrows; i++) {
		struct drow *r = &tab.r[tab.n];

		if (tab.n == (int)(sizeof(tab.r) / sizeof(tab.r[0]))) {
			table_free(&t);
			return fail("more than %d rows", tab.n);
		}
		for (k = 0; flags[k]; k++) {
			if (table_num(&t, i, flags[k]) != 0 &&
			    table_num(&t, i, flags[k]) != 1) {
				table_free(&t);
				return fail("row %d: %s '%s', want 0 or 1", i,
					    flags[k], table_str(&t, i, flags[k]));
			}
		}
		if (table_num(&t, i, "count") <= 0) {
			table_free(&t);
			return fail("row %d: count '%s'", i, table_str(&t, i, "count"));
		}
		r->count = table_num(&t, i, "count");
		drops_cell(&t, i, "reason", NULL, r->reason, sizeof(r->reason));
		drops_cell(&t, i, "proto", "proto_mixed", r->proto, sizeof(r->proto));
		drops_cell(&t, i, "dev", "dev_mixed", r->dev, sizeof(r->dev));
		drops_cell(&t, i, "netns", NULL, r->netns, sizeof(r->netns));
		drops_cell(&t, i, "cgroup", "cgroup_mixed", r->cgroup, sizeof(r->cgroup));
		drops_cell(&t, i, "stage", NULL, r->stage, sizeof(r->stage));
		r->first_ns = table_num(&t, i, "first_ns");
		r->last_ns = table_num(&t, i, "last_ns");
		r->first = r->first_ns / 1e9;
		r->last = r->last_ns / 1e9;
		mod = table_str(&t, i, "module");
		snprintf(r->loc, sizeof(r->loc), "%s%s%s%s",
			 table_str(&t, i, "location"), strcmp(mod, "-") ? " [" : "",
			 strcmp(mod, "-") ? mod : "", strcmp(mod, "-") ? "]" : "");
		if (regexec(&loc_re, r->loc, 0, NULL, 0)) {
			table_free(&t);
			return fail("location '%s' is not symbol+off/size or ?", r->loc);
		}
		k = strcspn(r->loc, "+");
		if (k >= (int)sizeof(r->sym))
			k = sizeof(r->sym) - 1;
		memcpy(r->sym, r->loc, k);
		r->sym[k] = 0;
		/* exact ns: never after the clock line's boottime */
		if (r->first_ns < 0 || r->first_ns > r->last_ns ||
		    (unsigned long long)r->last_ns > boot) {
			table_free(&t);
			return fail("bad row %d: count %llu first_ns %lld last_ns %lld",
				    i, r->count, r->first_ns, r->last_ns);
		}
		if (tab.n && r->count > tab.r[tab.n - 1].count) {
			table_free(&t);
			return fail("rows not sorted by count at row %d", i);
		}
		tab.n++;
	}
	table_free(&t);
	return 0;
}

static void drops_note(void)
{
	note("drops:\n%s", tab.text ? tab.text : "(not read)");
}

/* Rows of reason @why (NULL: any) whose function is one of @syms. */
static unsigned long long rows_sum(const char *why, const char *const *syms,
				   int *nrows)
{
	unsigned long long sum = 0;
	int i, k;

	*nrows = 0;
	for (i = 0; i < tab.n; i++) {
		const struct drow *r = &tab.r[i];

		if (why && strcmp(r->reason, why))
			continue;
		for (k = 0; syms[k]; k++)
			if (!strcmp(r->sym, syms[k]))
				break;
		if (!syms[k])
			continue;
		sum += r->count;
		(*nrows)++;
	}
	return sum;
}

static const struct drow *row_find(const char *why, const char *const *syms)
{
	int i, k;

	for (i = 0; i < tab.n; i++) {
		const struct drow *r = &tab.r[i];

		if (why && strcmp(r->reason, why))
			continue;
		for (k = 0; syms[k]; k++)
			if (!strcmp(r->sym, syms[k]))
				return r;
	}
	return NULL;
}

struct drops_want {
	const char *why;
	const char *const *syms;
	long long want;
};

static bool drops_reached(void *arg)
{
	const struct drops_want *w = arg;
	long long sum = 0;
	int rows, i;

	/* a file that does not parse fails the test: stop waiting */
	if (drops_read())
		return true;
	if (w->syms)
		return (long long)rows_sum(w->why, w->syms, &rows) >= w->want;
	for (i = 0; i < tab.n; i++)
		sum += tab.r[i].count;
	return sum >= w->want;
}

/*
 * Wait until the rows of reason @why (NULL: any) located in @syms (NULL:
 * every row, of any reason) add up to @want: the kernel counts a drop in
 * its own counters before the kfree_skb that skbprof sees, which a loaded
 * host can run much later.  The caller then reads the file and checks the
 * count exactly: too many fail at once, too few after WAIT_MS.
 */
static void drops_wait(const char *why, const char *const *syms,
		       long long want)
{
	struct drops_want w = { why, syms, want };

	if (!wait_until(drops_reached, &w, WAIT_MS))
		note("fewer than %lld drops of reason %s after %d ms", want,
		     why ? why : "any", WAIT_MS);
}

/* The socket's own drop count (SO_MEMINFO, as ss -m shows it). */
static unsigned int sock_drops(int fd)
{
	u_int32_t mi[SK_MEMINFO_VARS] = { 0 };
	socklen_t ml = sizeof(mi);

	getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mi, &ml);
	return mi[SK_MEMINFO_DROPS];
}

/* The datagrams of @len bytes queued on UDP socket @fd, left queued. */
static int peek_count(int fd, size_t len)
{
	char buf[2048];
	int off = 0, n = 0;

	setsockopt(fd, SOL_SOCKET, SO_PEEK_OFF, &off, sizeof(off));
	while (recv(fd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT) ==
	       (ssize_t)len)
		n++;
	return n;
}

/* ---- traffic ---------------------------------------------------------- */

#define PORT_UDP_CLOSED		33301
#define PORT_NFT		33302
#define PORT_RCVBUF		33303
#define PORT_TCP_CLOSED		33304
#define PORT_TCP_CLEAN		33305

static socklen_t mkaddr(int family, int port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return sizeof(*a);
	} else {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(port);
		a->sin6_addr = in6addr_loopback;
		return sizeof(*a);
	}
}

/* Send @n datagrams of @len bytes to the loopback address, port @port. */
static int udp_send(int family, int port, int n, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = mkaddr(family, port, &ss);
	char buf[1500] = { 0 };
	int fd, i;

	fd = socket(family, SOCK_DGRAM, 0);
	if (fd < 0)
		return fail("socket: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		if (sendto(fd, buf, len, 0, (struct sockaddr *)&ss, sl) !=
		    (ssize_t)len) {
			close(fd);
			return fail("sendto #%d: %s", i, strerror(errno));
		}
	}
	close(fd);
	return 0;
}

/* @n connection attempts to a closed TCP port; each must be refused. */
static int tcp_refused(int family, int port, int n)
{
	struct sockaddr_storage ss;
	socklen_t sl = mkaddr(family, port, &ss);
	int fd, i;

	for (i = 0; i < n; i++) {
		fd = socket(family, SOCK_STREAM, 0);
		if (fd < 0)
			return fail("socket: %s", strerror(errno));
		if (connect(fd, (struct sockaddr *)&ss, sl) == 0 ||
		    errno != ECONNREFUSED) {
			int e = errno;

			close(fd);
			return fail("connect #%d: %s, want ECONNREFUSED", i,
				    strerror(e));
		}
		close(fd);
	}
	return 0;
}

static int load(const char *params)
{
	int err = skbprof_load(params);

	CHECK(err == 0, "loading skbprof %s: %s", params ? params : "",
	      strerror(-err));
	return 0;
}

/* Pin the calling process to @cpu: loopback rx then runs there too. */
static int pin(int cpu)
{
	CHECK(pin_cpu(cpu) == 0, "sched_setaffinity(%d): %s", cpu,
	      strerror(errno));
	return 0;
}

static void unpin(void)
{
	pin_cpu(-1);
}

/* Where an nft drop rule frees packets: nf_hook_slow (5.10), nft_do_chain. */
static const char *const *nft_drop_syms(void)
{
	static const char *const syms510[] = { "nf_hook_slow", NULL };
	static const char *const syms6[] = { "nft_do_chain", NULL };

	return kver() < 600 ? syms510 : syms6;
}

struct nft_want {
	const char *chain;
	long long want;
};

static bool nft_reached(void *arg)
{
	const struct nft_want *w = arg;
	long long v = nft_packets(NULL, w->chain);

	/* no counter: nothing to wait for */
	return v < 0 || v >= w->want;
}

/*
 * The counter of @chain once it reaches @want (a packet may be still on
 * its way through loopback), or what it is after WAIT_MS.
 */
static long long nft_wait(const char *chain, long long want)
{
	struct nft_want w = { chain, want };

	if (!wait_until(nft_reached, &w, WAIT_MS))
		note("the counter of %s is below %lld after %d ms", chain, want,
		     WAIT_MS);
	return nft_packets(NULL, chain);
}

/* ---- the tests -------------------------------------------------------- */

/*
 * UDP to a closed port: __udp4_lib_rcv()/__udp6_lib_rcv() (udp_rcv(),
 * udpv6_rcv() in 7.x) count NoPorts, answer with an ICMP port unreachable
 * and drop the datagram (reason NO_SOCKET from 5.17).
 */
static int udp_closed_port(int family)
{
	const char *const syms[] = { udp_noport_fn(family), NULL };
	static const char *const icmp6syms[] = { "icmpv6_rcv", NULL };
	struct ctr c4 = { "Udp", "NoPorts" }, c6 = { NULL, "Udp6NoPorts" };
	struct ctr i4 = { "Icmp", "InDestUnreachs" };
	struct ctr i6 = { NULL, "Icmp6InDestUnreachs" };
	const struct ctr *c = family == AF_INET ? &c4 : &c6;
	const struct ctr *ic = family == AF_INET ? &i4 : &i6;
	/* below the ICMP rate limit's burst of 50 */
	const int n = 37;
	long long before, after, ibefore, iafter;
	const struct drow *r;
	double t0, t1;
	int rows;

	if (load(NULL) || drops_reset())
		return -1;
	t0 = uptime();
	before = ctr_get(c);
	ibefore = ctr_get(ic);
	if (udp_send(family, PORT_UDP_CLOSED, n, 20))
		return -1;
	after = settle(ctr_get, c, before + n);
	iafter = settle(ctr_get, ic, ibefore + n);
	drops_wait(reason("NO_SOCKET"), syms, after - before);
	if (family == AF_INET6 && kver() < 612)
		drops_wait(reason("NOT_SPECIFIED"), icmp6syms,
			   iafter - ibefore);
	t1 = uptime();
	if (drops_read())
		return -1;
	drops_note();

	CHECK_EQ(after - before, n);
	CHECK_EQ(rows_sum(reason("NO_SOCKET"), syms, &rows), after - before);
	CHECK_EQ(rows, 1);
	r = row_find(reason("NO_SOCKET"), syms);
	CHECK(!strcmp(r->proto, family == AF_INET ? "ipv4/udp" : "ipv6/udp"),
	      "proto '%s'", r->proto);
	CHECK(!strcmp(r->dev, "lo"), "dev '%s', want lo", r->dev);
	/* it got as far as UDP receive */
	CHECK(!strcmp(r->stage, "ip-udp"), "stage '%s', want ip-udp", r->stage);
	/* /proc/uptime's clock; allow for the 1us print resolution */
	CHECK(r->first >= t0 - 1e-5 && r->last <= t1 + 1e-5,
	      "seen %.6f..%.6f outside the window %.6f..%.6f", r->first,
	      r->last, t0, t1);

	/*
	 * The port unreachable errors come back over loopback.  IPv4 consumes
	 * them: no other row.  icmpv6_rcv() of 5.10 and 6.1 frees every error
	 * it passed to the socket with kfree_skb (NOT_SPECIFIED on 6.1): one
	 * more drop per error received.  6.12 consumes them.
	 */
	CHECK_EQ(iafter - ibefore, n);
	if (family == AF_INET || kver() >= 612) {
		CHECK_EQ(tab.n, 1);
	} else {
		CHECK_EQ(rows_sum(reason("NOT_SPECIFIED"), icmp6syms, &rows),
			 iafter - ibefore);
		CHECK_EQ(rows, 1);
		CHECK_EQ(tab.n, 2);
	}
	return 0;
}

TEST(drops_udp_closed_port)
{
	return udp_closed_port(AF_INET);
}

TEST(drops_udp6_closed_port)
{
	return udp_closed_port(AF_INET6);
}

/* @text less its first line, every run of blanks one space, none leading. */
static char *drops_squeezed(const char *text)
{
	const char *p = strchr(text, '\n');
	char *out = malloc(strlen(text) + 1), *o = out;
	bool sol = true;

	if (!out)
		return NULL;
	for (p = p ? p + 1 : ""; *p; p++) {
		if (*p == ' ' && (sol || o[-1] == ' '))
			continue;
		if (*p == '\n' && o > out && o[-1] == ' ')
			o--;
		*o++ = *p;
		sol = *p == '\n';
	}
	*o = 0;
	return out;
}

/*
 * The one test of the human drops view: it shows drops_rows' rows, the
 * same rows in the same order with the same counts, flags as a '+', times
 * in seconds since boot to the microsecond, under a "# clock" line.  Read
 * drops, drops_rows, drops again, until both reads of drops agree (no
 * drop in between).
 */
TEST(drops_view_shows_rows)
{
	char *v0 = NULL, *v1 = NULL, *want = NULL;
	unsigned long long b, r;
	size_t len, size = 65536;
	int i, k, end = 0, rc = -1;

	if (load(NULL) || drops_reset())
		return -1;
	if (udp_send(AF_INET, PORT_UDP_CLOSED, 7, 20) ||
	    udp_send(AF_INET6, PORT_UDP_CLOSED, 5, 20))
		return -1;
	drops_wait(NULL, NULL, 12);
	for (k = 0; k < 5; k++) {
		free(v0);
		free(v1);
		v0 = read_file(DROPS);
		if (drops_read())
			goto out;
		v1 = read_file(DROPS);
		if (!v0 || !v1) {
			fail("cannot read %s", DROPS);
			goto out;
		}
		if (!strcmp(strchr(v0, '\n') ?: "", strchr(v1, '\n') ?: ""))
			break;
	}
	if (k == 5) {
		fail("drops changed between every two reads");
		goto out;
	}
	if (sscanf(v0, "# clock boottime_ns %llu realtime_ns %llu\n%n", &b, &r,
		   &end) != 2 || !end) {
		fail("first line of drops: %.80s", v0);
		goto out;
	}
	CHECK(tab.n >= 2, "%d rows, want the UDP and the UDP6 closed port's", tab.n);
	want = malloc(size);
	CHECK(want, "out of memory");
	len = snprintf(want, size, "count reason proto dev netns cgroup stage first last location\n");
	for (i = 0; i < tab.n && len < size; i++) {
		const struct drow *d = &tab.r[i];

		len += snprintf(want + len, size - len,
				"%llu %s %s %s %s %s %s %lld.%06lld %lld.%06lld %s\n",
				d->count, d->reason, d->proto, d->dev, d->netns,
				d->cgroup, d->stage, d->first_ns / 1000000000,
				d->first_ns % 1000000000 / 1000,
				d->last_ns / 1000000000,
				d->last_ns % 1000000000 / 1000, d->loc);
	}
	free(v1);
	v1 = drops_squeezed(v0);
	if (!v1 || strcmp(v1, want)) {
		note("drops:\n%s\ndrops_rows:\n%s", v0, tab.text);
		fail("drops does not show drops_rows' rows:\n%s\nwant:\n%s",
		     v1 ? v1 : "", want);
		goto out;
	}
	rc = 0;
out:
	free(v0);
	free(v1);
	free(want);
	return rc;
}

/* Load nf_tables and, where it is a module, its counter expression. */
static int nft_modules(void)
{
	int err;

	err = kmod_probe("nf_tables");
	CHECK(err == 0, "loading nf_tables: %s", strerror(-err));
	/* the counter expression is a module on 5.10, built in later */
	err = kmod_probe("nft_counter");
	CHECK(err == 0 || (kver() >= 600 && err == -ENOENT),
	      "loading nft_counter: %s", strerror(-err));
	return 0;
}

/*
 * Table skbprof_t: an input-hook rule that ends in @verdict ("drop" or
 * "counter drop") for UDP to PORT_NFT.
 */
static int nft_input_drop(const char *verdict)
{
	int st;

	sh("nft delete table inet skbprof_t 2>/dev/null");
	st = sh("nft add table inet skbprof_t && "
		"nft add chain inet skbprof_t in '{ type filter hook input priority 0; }' && "
		"nft add rule inet skbprof_t in udp dport %d %s",
		PORT_NFT, verdict);
	CHECK(st == 0, "nft setup exited %d", st);
	return 0;
}

/*
 * An nftables rule drops one port.  On 5.10 nft_do_chain() returns NF_DROP
 * and nf_hook_slow() frees the packet; Debian's 6.1 and 6.12 have the
 * change (upstream 6.6) that frees it in nft_do_chain() itself, in the
 * nf_tables module, through NF_DROP_REASON().
 */
TEST(drops_nft_drop)
{
	const char *const *syms = nft_drop_syms();
	const int n = 23;
	long long pkts;
	const struct drow *r;
	char *out;
	int st, rows;

	if (nft_modules() || load(NULL) || nft_input_drop("counter drop"))
		return -1;
	if (drops_reset() || udp_send(AF_INET, PORT_NFT, n, 20))
		goto err;
	pkts = nft_wait("inet skbprof_t in", n);
	drops_wait(reason("NETFILTER_DROP"), syms, pkts);
	out = sh_out(&st, "nft list chain inet skbprof_t in");
	note("%s", out);
	free(out);
	if (drops_read())
		goto err;
	drops_note();
	sh("nft delete table inet skbprof_t");

	CHECK_EQ(pkts, n);
	CHECK_EQ(rows_sum(reason("NETFILTER_DROP"), syms, &rows), pkts);
	CHECK_EQ(rows, 1);
	r = row_find(reason("NETFILTER_DROP"), syms);
	CHECK(!strcmp(r->proto, "ipv4/udp"), "proto '%s'", r->proto);
	CHECK(!strcmp(r->dev, "lo"), "dev '%s'", r->dev);
	/* the input hook runs after IP receive, before UDP */
	CHECK(!strcmp(r->stage, "drv-ip"), "stage '%s', want drv-ip", r->stage);
	if (kver() >= 600)
		CHECK(strstr(r->loc, " [nf_tables]"), "location '%s' not in nf_tables",
		      r->loc);
	return 0;
err:
	sh("nft delete table inet skbprof_t");
	return -1;
}

/*
 * A location in a module unloaded since has no symbol any more: it reads
 * "?", never an address.  Of the drops here only 6.1's and 6.12's nft drop
 * is inside a module (nft_do_chain, in nf_tables); on 5.10 it is in
 * nf_hook_slow(), in vmlinux, and the row must simply stay as it was.
 */
TEST(drops_unloaded_module_location)
{
	static const char *const unknown[] = { "?", NULL };
	const char *const *syms = nft_drop_syms();
	int st, rows, err;

	if (nft_modules() || load(NULL) || nft_input_drop("drop"))
		return -1;
	if (drops_reset() || udp_send(AF_INET, PORT_NFT, 5, 20)) {
		sh("nft delete table inet skbprof_t");
		return -1;
	}
	/* no counter in this rule: the drops themselves are the sign */
	drops_wait(reason("NETFILTER_DROP"), syms, 5);
	st = sh("nft delete table inet skbprof_t");
	CHECK(st == 0, "nft delete exited %d", st);
	if (drops_read())
		return -1;
	CHECK_EQ(rows_sum(reason("NETFILTER_DROP"), syms, &rows), 5);

	if (kver() >= 600) {
		err = module_unload("nf_tables");
		CHECK(err == 0, "unloading nf_tables: %s", strerror(-err));
		syms = unknown;
	}
	if (drops_read())
		return -1;
	drops_note();
	CHECK_EQ(rows_sum(reason("NETFILTER_DROP"), syms, &rows), 5);
	CHECK_EQ(rows, 1);
	return 0;
}

struct rcvbuf_wait {
	int fd, n;
	long long before;
};

/* All delivered: each datagram counted in RcvbufErrors or queued. */
static bool rcvbuf_all_in(void *arg)
{
	const struct rcvbuf_wait *w = arg;
	struct ctr c = { "Udp", "RcvbufErrors" };

	return ctr_get(&c) - w->before + peek_count(w->fd, 200) >= w->n;
}

/*
 * A UDP socket with the smallest receive buffer, never read: datagrams
 * that do not fit are counted in RcvbufErrors and dropped in
 * __udp_queue_rcv_skb() (inlined into udp_queue_rcv_one_skb() on these
 * kernels), reason SOCKET_RCVBUFF.  The drops file is read before the
 * socket is closed: closing frees the queued datagrams with kfree_skb too.
 */
TEST(drops_udp_rcvbuf)
{
	static const char *const syms[] = {
		"__udp_queue_rcv_skb", "udp_queue_rcv_one_skb", NULL };
	struct ctr c = { "Udp", "RcvbufErrors" };
	struct sockaddr_storage ss;
	socklen_t sl = mkaddr(AF_INET, PORT_RCVBUF, &ss);
	const int n = 200;
	struct rcvbuf_wait w = { -1, n, 0 };
	long long before, after;
	int fd, zero = 0, rows, queued = 0;
	char buf[2048];

	if (load(NULL))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(fd >= 0, "socket: %s", strerror(errno));
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &zero, sizeof(zero)) ||
	    bind(fd, (struct sockaddr *)&ss, sl)) {
		close(fd);
		return fail("setsockopt/bind: %s", strerror(errno));
	}
	if (drops_reset())
		goto err;
	before = ctr_get(&c);
	if (udp_send(AF_INET, PORT_RCVBUF, n, 200))
		goto err;
	w.fd = fd;
	w.before = before;
	if (!wait_until(rcvbuf_all_in, &w, WAIT_MS))
		note("not all %d datagrams delivered after %d ms", n, WAIT_MS);
	after = ctr_get(&c);
	drops_wait(reason("SOCKET_RCVBUFF"), syms, after - before);
	if (drops_read())
		goto err;
	drops_note();
	while (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) == 200)
		queued++;
	close(fd);

	/* the buffer overflowed, and not for every datagram */
	CHECK(after - before > 0 && after - before < n,
	      "RcvbufErrors rose by %lld of %d", after - before, n);
	CHECK_EQ(queued, n - (after - before));
	CHECK_EQ(rows_sum(reason("SOCKET_RCVBUFF"), syms, &rows),
		 after - before);
	CHECK_EQ(rows, 1);
	return 0;
err:
	close(fd);
	return -1;
}

struct queued_want {
	int fd, n;
};

static bool queued_all(void *arg)
{
	const struct queued_want *q = arg;

	return peek_count(q->fd, 100) >= q->n;
}

/*
 * Closing a UDP socket with unread datagrams frees them with kfree_skb, in
 * udp_destruct_common() (reason NOT_SPECIFIED on 6.1 and 6.12): the drop
 * monitor sees each one.  Ground truth: the datagrams sent, all queued (the
 * socket's own drop count stays 0, and UDP counts no error).  UDP keeps
 * its dev_scratch in skb->dev once a datagram is queued, so these drops
 * have no device.
 */
TEST(drops_udp_close_unread)
{
	static const char *const syms[] = { "udp_destruct_common", NULL };
	struct ctr c = { "Udp", "InErrors" };
	struct sockaddr_storage ss;
	socklen_t sl = mkaddr(AF_INET, PORT_RCVBUF, &ss);
	const int n = 6;
	struct queued_want q = { -1, n };
	long long errs0, errs1;
	unsigned int dropped;
	int fd, rows, queued;

	if (load(NULL))
		return -1;
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(fd >= 0, "socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&ss, sl)) {
		close(fd);
		return fail("bind: %s", strerror(errno));
	}
	errs0 = ctr_get(&c);
	if (udp_send(AF_INET, PORT_RCVBUF, n, 100)) {
		close(fd);
		return -1;
	}
	/* count the queue without emptying it, once all are delivered */
	q.fd = fd;
	if (!wait_until(queued_all, &q, WAIT_MS))
		note("not all %d datagrams queued after %d ms", n, WAIT_MS);
	errs1 = ctr_get(&c);
	dropped = sock_drops(fd);
	queued = peek_count(fd, 100);
	if (drops_reset()) {
		close(fd);
		return -1;
	}
	/* the socket is destroyed after an RCU grace period: no fixed time */
	close(fd);
	drops_wait(reason("NOT_SPECIFIED"), syms, n);
	if (drops_read())
		return -1;
	drops_note();
	CHECK_EQ(errs1 - errs0, 0);
	CHECK_EQ(dropped, 0);
	CHECK_EQ(queued, n);
	CHECK_EQ(rows_sum(reason("NOT_SPECIFIED"), syms, &rows), n);
	CHECK_EQ(rows, 1);
	CHECK_EQ(tab.n, 1);
	CHECK(!strcmp(tab.r[0].dev, "-"), "dev '%s', want -", tab.r[0].dev);
	CHECK(!strcmp(tab.r[0].proto, "ipv4/udp"), "proto '%s'",
	      tab.r[0].proto);
	return 0;
}

/*
 * TCP SYN to a closed port: tcp_v4_rcv()/tcp_v6_rcv() answer with a RST
 * (OutRsts, shared by IPv4 and IPv6) and drop the SYN, reason NO_SOCKET.
 */
static int tcp_closed_port(int family)
{
	static const char *const syms4[] = { "tcp_v4_rcv", NULL };
	static const char *const syms6[] = { "tcp_v6_rcv", NULL };
	const char *const *syms = family == AF_INET ? syms4 : syms6;
	struct ctr c = { "Tcp", "OutRsts" };
	const int n = 19;
	long long before, after;
	int rows;

	if (load(NULL) || drops_reset())
		return -1;
	before = ctr_get(&c);
	if (tcp_refused(family, PORT_TCP_CLOSED, n))
		return -1;
	after = settle(ctr_get, &c, before + n);
	drops_wait(reason("NO_SOCKET"), syms, after - before);
	if (drops_read())
		return -1;
	drops_note();

	CHECK_EQ(after - before, n);
	CHECK_EQ(rows_sum(reason("NO_SOCKET"), syms, &rows), after - before);
	CHECK_EQ(rows, 1);
	CHECK(!strcmp(row_find(reason("NO_SOCKET"), syms)->proto,
		      family == AF_INET ? "ipv4/tcp" : "ipv6/tcp"),
	      "proto of the SYN drops");
	CHECK(!strcmp(row_find(reason("NO_SOCKET"), syms)->stage, "ip-tcp"),
	      "stage of the SYN drops '%s', want ip-tcp",
	      row_find(reason("NO_SOCKET"), syms)->stage);
	return 0;
}

TEST(drops_tcp_syn_closed_port)
{
	return tcp_closed_port(AF_INET);
}

TEST(drops_tcp6_syn_closed_port)
{
	return tcp_closed_port(AF_INET6);
}

struct sink {
	int lfd;
	volatile int fd;		/* the accepted connection */
	volatile long long bytes;
};

static void *sink_run(void *arg)
{
	struct sink *s = arg;
	char buf[65536];
	ssize_t n;
	int fd;

	fd = accept(s->lfd, NULL, NULL);
	if (fd < 0)
		return NULL;
	s->fd = fd;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		s->bytes += n;
	close(fd);
	return NULL;
}

/*
 * A clean TCP transfer of 32 MB: every segment is freed with consume_skb
 * (or __kfree_skb, which has no tracepoint), so nothing may be reported
 * while the data flows.  "Clean" is judged by the kernel's own counters: no
 * retransmission (Tcp RetransSegs) and no drop by TCP itself (both
 * sockets' SO_MEMINFO drop counts).  Under TCG a late ACK can trigger a
 * loss probe whose duplicate the receiver then drops (and counts); such a
 * run is not clean and is repeated.  From 5.17 TCP's own drops go through
 * kfree_skb_reason(), so even then the rows must add up to the sockets'
 * drop counts; 5.10 frees them with __kfree_skb(), unseen.
 *
 * Closing: the client closes first and is orphaned, so the server's FIN
 * reaches a socket nobody reads, and every kernel here frees it with
 * kfree_skb: purged from the receive queue by sk_stream_kill_queues() when
 * the socket is destroyed (reason QUEUE_PURGE on 6.12, NOT_SPECIFIED on
 * 6.1), or discarded by tcp_v4_rcv() when a TIME_WAIT socket already
 * stands for it (NOT_SPECIFIED); which of the two depends on timing.
 * Exactly that one drop.
 */
static bool fin_drop(const struct drow *r)
{
	if (!strcmp(r->sym, "sk_stream_kill_queues"))
		return !strcmp(r->reason, kver() >= 612 ? "QUEUE_PURGE" :
						     reason("NOT_SPECIFIED"));
	if (!strcmp(r->sym, "tcp_v4_rcv"))
		return !strcmp(r->reason, reason("NOT_SPECIFIED"));
	return false;
}

/* The drops of two sockets, and the rows of drops read with them. */
struct socks_drops {
	int cfd, sfd;
	unsigned int c, s;
	unsigned long long rows;
};

/*
 * Do the rows of drops account for what sockets @arg's counted, read now?
 * A socket counts a drop before its kfree_skb, maybe on another CPU, and
 * counts a segment, not an skb: sk_drops_add() adds the skb's gso_segs,
 * and loopback hands TCP's skbs up unsegmented.  So every skb a socket
 * dropped is a row, and the rows are at most the sockets' count, at least
 * one per socket that counted any.
 */
static bool socks_drops_agree(void *arg)
{
	struct socks_drops *d = arg;
	unsigned int socks;
	int i;

	d->c = sock_drops(d->cfd);
	d->s = sock_drops(d->sfd);
	if (drops_read())
		return false;
	for (d->rows = 0, i = 0; i < tab.n; i++)
		d->rows += tab.r[i].count;
	socks = !!d->c + !!d->s;
	return d->rows <= d->c + d->s && d->rows >= socks;
}

/* Has TCP socket *@arg no unacknowledged data left? */
static bool tcp_all_acked(void *arg)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	return getsockopt(*(int *)arg, IPPROTO_TCP, TCP_INFO, &ti, &len) ||
	       ti.tcpi_unacked == 0;
}

TEST(drops_clean_tcp_transfer)
{
	const long long total = 32LL << 20;
	struct sockaddr_storage ss;
	socklen_t sl = mkaddr(AF_INET, PORT_TCP_CLEAN, &ss);
	static char buf[65536];
	int attempt, clean = 0, one = 1;

	if (load(NULL))
		return -1;
	for (attempt = 1; attempt <= 3 && !clean; attempt++) {
		long long sent = 0, segs0, segs1, rtx0, rtx1;
		struct sink s = { -1, -1, 0 };
		unsigned int cdrops, sdrops;
		pthread_t th;
		int fd;

		s.lfd = socket(AF_INET, SOCK_STREAM, 0);
		CHECK(s.lfd >= 0, "socket: %s", strerror(errno));
		setsockopt(s.lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(s.lfd, (struct sockaddr *)&ss, sl) || listen(s.lfd, 1)) {
			close(s.lfd);
			return fail("bind/listen: %s", strerror(errno));
		}
		pthread_create(&th, NULL, sink_run, &s);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&ss, sl)) {
			fail("connect: %s", strerror(errno));
			shutdown(s.lfd, SHUT_RDWR);
			pthread_join(th, NULL);
			close(s.lfd);
			return -1;
		}

		/* the data phase */
		if (drops_reset())
			return -1;
		segs0 = snmp_value("Tcp", "InSegs");
		rtx0 = snmp_value("Tcp", "RetransSegs");
		while (sent < total) {
			ssize_t n = write(fd, buf, sizeof(buf));

			if (n <= 0)
				break;
			sent += n;
		}
		while (s.bytes < sent)
			sleep_ms(10);
		/* all acknowledged: nothing left to retransmit or probe */
		if (!wait_until(tcp_all_acked, &fd, WAIT_MS))
			note("data unacknowledged after %d ms", WAIT_MS);
		segs1 = snmp_value("Tcp", "InSegs");
		rtx1 = snmp_value("Tcp", "RetransSegs");
		cdrops = sock_drops(fd);
		sdrops = sock_drops(s.fd);
		if (drops_read())
			return -1;
		drops_note();
		CHECK_EQ(sent, total);
		CHECK(segs1 - segs0 > 100, "only %lld segments", segs1 - segs0);
		clean = rtx1 == rtx0 && !cdrops && !sdrops;
		if (clean) {
			CHECK_EQ(tab.n, 0);
			CHECK_EQ(stat_value("drops_total"), 0);
		} else {
			struct socks_drops d = { fd, s.fd, 0, 0, 0 };

			note("attempt %d not clean: %lld retransmitted, drops by the client %u, the server %u",
			     attempt, rtx1 - rtx0, cdrops, sdrops);
			if (have_reasons()) {
				CHECK(wait_until(socks_drops_agree, &d, WAIT_MS) ||
				      (drops_note(), false),
				      "%llu drops in rows, the sockets counted %u + %u segments",
				      d.rows, d.c, d.s);
			}
		}

		/* the close */
		if (drops_reset())
			return -1;
		close(fd);
		pthread_join(th, NULL);
		close(s.lfd);
		CHECK_EQ(s.bytes, total);
		/* the FIN reaches the orphaned client in a softirq, later */
		if (clean)
			drops_wait(NULL, NULL, 1);
		if (drops_read())
			return -1;
		drops_note();
		if (clean) {
			CHECK_EQ(tab.n, 1);
			CHECK_EQ(tab.r[0].count, 1);
			CHECK(fin_drop(&tab.r[0]), "the drop at close is %s at %s",
			      tab.r[0].reason, tab.r[0].loc);
			CHECK(!strcmp(tab.r[0].proto, "ipv4/tcp"), "proto '%s'",
			      tab.r[0].proto);
		}
	}
	CHECK(clean, "no clean transfer in 3 attempts");
	return 0;
}

/* reset empties the file and the counters; later drops count afresh. */
TEST(drops_reset_clears)
{
	const char *const syms[] = { udp_noport_fn(AF_INET), NULL };
	struct ctr c = { "Udp", "NoPorts" };
	long long before, after;
	char *file, *tool;
	int rows, st;

	if (load(NULL))
		return -1;
	before = ctr_get(&c);
	if (udp_send(AF_INET, PORT_UDP_CLOSED, 5, 20))
		return -1;
	settle(ctr_get, &c, before + 5);
	drops_wait(reason("NO_SOCKET"), syms, 5);
	if (drops_read())
		return -1;
	CHECK(rows_sum(reason("NO_SOCKET"), syms, &rows) >= 5,
	      "drops before the reset not seen");
	CHECK(stat_value("drops_total") >= 5, "drops_total before reset");

	if (drops_reset() || drops_read())
		return -1;
	drops_note();
	CHECK_EQ(tab.n, 0);
	CHECK_EQ(stat_value("drops_total"), 0);
	CHECK_EQ(stat_value("drops_overflow"), 0);
	CHECK_EQ(stat_value("drops_keys_used"), 0);
	CHECK_EQ(stat_value("drops_keys_max"), 256);
	/* where the reason names come from, per kernel */
	CHECK(!strcmp(stat_str("drops_reasons"),
		      kver() < 600 ? "none" : kver() < 604 ?
		      "drop_reasons" : "drop_reasons_by_subsys"),
	      "drops_reasons '%s'", stat_str("drops_reasons"));

	/*
	 * the tool shows the empty table as the file does: its clock line
	 * (read again: other values) and the header, padded its own way
	 */
	file = read_file(DROPS);
	tool = sh_out(&st, TOOL " drops | sed 's/boottime_ns [0-9]*/B/; s/realtime_ns [0-9]*/R/; s/  */ /g'");
	CHECK(file && tool && st == 0, "tool exited %d", st);
	st = strcmp(tool, "# clock B R\ncount reason proto dev netns cgroup stage first last location\n");
	if (st)
		note("file:\n%stool:\n%s", file, tool);
	free(file);
	free(tool);
	CHECK(st == 0, "the tool's drops view is not the empty table");

	before = ctr_get(&c);
	if (udp_send(AF_INET, PORT_UDP_CLOSED, 3, 20))
		return -1;
	after = settle(ctr_get, &c, before + 3);
	drops_wait(reason("NO_SOCKET"), syms, after - before);
	if (drops_read())
		return -1;
	CHECK_EQ(after - before, 3);
	CHECK_EQ(rows_sum(reason("NO_SOCKET"), syms, &rows), 3);
	CHECK_EQ(stat_value("drops_keys_used"), 1);
	return 0;
}

/*
 * With room for one key per CPU, a second key's drops on the same CPU are
 * counted as overflow, exactly.  The second key is TCP SYNs to a closed
 * port: their RSTs are not dropped, unlike the ICMPv6 errors that UDP over
 * IPv6 would bring (see drops_udp6_closed_port).
 */
TEST(drops_key_overflow)
{
	const char *const syms4[] = { udp_noport_fn(AF_INET), NULL };
	struct ctr cu = { "Udp", "NoPorts" }, ct = { "Tcp", "OutRsts" };
	long long bu, au, bt, at;
	int rows;

	if (load("drop_keys=1") || pin(0))
		return -1;
	if (drops_reset())
		goto err;
	bu = ctr_get(&cu);
	bt = ctr_get(&ct);
	if (udp_send(AF_INET, PORT_UDP_CLOSED, 11, 20))
		goto err;
	au = settle(ctr_get, &cu, bu + 11);
	if (tcp_refused(AF_INET, PORT_TCP_CLOSED, 7))
		goto err;
	at = settle(ctr_get, &ct, bt + 7);
	unpin();
	/* the overflow has no row: wait for the total */
	stat_wait("drops_total", (au - bu) + (at - bt));
	if (drops_read())
		return -1;
	drops_note();

	CHECK_EQ(au - bu, 11);
	CHECK_EQ(at - bt, 7);
	CHECK_EQ(stat_value("drops_keys_max"), 1);
	CHECK_EQ(stat_value("drops_keys_used"), 1);
	CHECK_EQ(rows_sum(reason("NO_SOCKET"), syms4, &rows), au - bu);
	CHECK_EQ(tab.n, 1);
	CHECK_EQ(stat_value("drops_overflow"), at - bt);
	CHECK_EQ(stat_value("drops_total"), (au - bu) + (at - bt));
	{
		char *st = read_file(STATS);

		note("stats:\n%s", st ? st : "?");
		free(st);
	}
	return 0;
err:
	unpin();
	return -1;
}

static int send_on_cpu(int cpu, int n)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (pin(cpu) || udp_send(AF_INET, PORT_UDP_CLOSED, n, 20))
			_exit(1);
		_exit(0);
	}
	return pid;
}

struct merge_want {
	long long before, lost0, want;
	const char *const *syms;
	long long after;	/* NoPorts when the rows last agreed */
};

static bool merge_all_in(void *arg)
{
	const struct merge_want *w = arg;
	struct ctr c = { "Udp", "NoPorts" };

	return ctr_get(&c) - w->before + softnet_dropped() - w->lost0 >=
	       w->want;
}

/*
 * Do the NO_SOCKET rows equal NoPorts' rise, read now?  Both only grow;
 * a drop's kfree_skb follows its count, and ICMP errors the drops send
 * fill the backlog too, so merge_all_in() can hold early.
 */
static bool merge_agrees(void *arg)
{
	struct merge_want *w = arg;
	struct ctr c = { "Udp", "NoPorts" };
	int rows;

	w->after = ctr_get(&c);
	return !drops_read() &&
	       rows_sum(reason("NO_SOCKET"), w->syms, &rows) ==
	       (unsigned long long)(w->after - w->before);
}

/*
 * Drops of one key on two CPUs, read while they happen, merge into one
 * row per key whose counts add up to the kernel's NoPorts exactly.
 */
TEST(drops_merge_cpus)
{
	const char *const syms[] = { udp_noport_fn(AF_INET), NULL };
	struct ctr c = { "Udp", "NoPorts" };
	const int n = 3000;
	struct merge_want sw;
	long long before, after, missed, lost0;
	int rows, st, i, k, reads = 0;
	pid_t p0, p1;

	CHECK(sysconf(_SC_NPROCESSORS_ONLN) >= 2, "needs two CPUs");
	if (load(NULL) || drops_reset())
		return -1;
	before = ctr_get(&c);
	lost0 = softnet_dropped();
	p0 = send_on_cpu(0, n);
	p1 = send_on_cpu(1, n);
	CHECK(p0 > 0 && p1 > 0, "fork: %s", strerror(errno));
	/* concurrent readers: the per-slot seqcounts at work */
	for (i = 0; i < 100000; i++) {
		char *s = read_file(DROPS);

		free(s);
		reads++;
		/* waitpid(0) would reap any child: ask only for live ones */
		if (p0 && waitpid(p0, &st, WNOHANG) == p0) {
			CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "sender 0");
			p0 = 0;
		}
		if (p1 && waitpid(p1, &st, WNOHANG) == p1) {
			CHECK(WIFEXITED(st) && !WEXITSTATUS(st), "sender 1");
			p1 = 0;
		}
		if (!p0 && !p1)
			break;
	}
	/* every datagram reaches UDP or is dropped by a full backlog */
	sw.before = before;
	sw.lost0 = lost0;
	sw.want = 2 * n;
	sw.syms = syms;
	if (!wait_until(merge_all_in, &sw, WAIT_MS))
		note("not all %d datagrams arrived after %d ms", 2 * n,
		     WAIT_MS);
	/* the rows as merge_agrees() last read them, with NoPorts then */
	if (!wait_until(merge_agrees, &sw, WAIT_MS))
		note("the rows never equalled NoPorts in %d ms", WAIT_MS);
	after = sw.after;
	drops_note();
	note("%d reads during the senders; %lld of %d reached UDP, %lld dropped by the backlog",
	     reads, after - before, 2 * n, softnet_dropped() - lost0);
	/*
	 * A slow (debug) kernel can overflow loopback's backlog, which
	 * drops some before UDP sees them: the kernel's own count is the
	 * truth, and most must have got through.
	 */
	CHECK(after - before <= 2 * n && after - before >= n,
	      "NoPorts rose by %lld for %d datagrams", after - before, 2 * n);
	CHECK_EQ(rows_sum(reason("NO_SOCKET"), syms, &rows), after - before);
	/* merged: each key (reason, stage, location) is one row */
	for (i = 0; i < tab.n; i++)
		for (k = i + 1; k < tab.n; k++)
			CHECK(strcmp(tab.r[i].reason, tab.r[k].reason) ||
			      strcmp(tab.r[i].stage, tab.r[k].stage) ||
			      strcmp(tab.r[i].loc, tab.r[k].loc),
			      "rows %d and %d share a key", i + 1, k + 1);
	/*
	 * All of them passed ip-udp, unless the kprobe layer skipped a hit
	 * (a probe fired on a CPU already running one: a timer interrupt's
	 * softirq during the sender's own probe), which the stats report.
	 */
	/*
	 * Nothing here lives max_age_ms (60 s): an eviction is the reaper
	 * taking a stamp made after it read the clock for an old one.
	 */
	CHECK_EQ(stat_value("table_evictions"), 0);
	CHECK_EQ(stat_value("incomplete_rx_evicted"), 0);
	missed = probes_nmissed();
	note("%d rows; probes missed %lld hits", rows, missed);
	for (i = 0; i < tab.n; i++)
		CHECK(strcmp(tab.r[i].sym, syms[0]) ||
		      strcmp(tab.r[i].reason, reason("NO_SOCKET")) ||
		      !strcmp(tab.r[i].stage, "ip-udp") || missed > 0,
		      "%llu drops at stage %s, and no probe missed a hit",
		      tab.r[i].count, tab.r[i].stage);
	return 0;
}

/* Out-of-range drop_keys: refused with EINVAL and a message naming it. */
TEST(drops_bad_params)
{
	static const char *const bad[] = { "drop_keys=0", "drop_keys=16385" };
	size_t i;
	char *log;
	int err;

	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		err = skbprof_load(bad[i]);
		CHECK(err == -EINVAL, "load with %s gave %d, want -EINVAL",
		      bad[i], err);
		CHECK(!path_exists(DEBUGFS_DIR), "%s left %s", bad[i],
		      DEBUGFS_DIR);
		log = sh_out(NULL, "dmesg | grep 'skbprof: %s: out of range'",
			     bad[i]);
		err = *log == 0;
		free(log);
		CHECK(!err, "no message naming %s in the kernel log", bad[i]);
	}
	return 0;
}

/*
 * Every failure inside the drop monitor's init unwinds: nothing is left,
 * and no probe stays in (a drop after the failed load would run a freed
 * probe otherwise).
 */
TEST(drops_init_failures_unwind)
{
	char params[64];
	int step, err;

	for (step = 1; step < 20; step++) {
		snprintf(params, sizeof(params), "drops_fail_init_at=%d", step);
		err = skbprof_load(params);
		if (err == 0)
			break;
		CHECK(err == -ENOMEM, "load with %s returned %d, want -ENOMEM",
		      params, err);
		CHECK(!path_exists(DEBUGFS_DIR), "after step %d: %s remains",
		      step, DEBUGFS_DIR);
		CHECK(!module_loaded("skbprof"), "after step %d: loaded",
		      step);
		if (udp_send(AF_INET, PORT_UDP_CLOSED, 3, 20))
			return -1;
		sleep_ms(20);
	}
	note("%d drop monitor init steps fail cleanly", step - 1);
	CHECK(step - 1 >= 1, "no failing step");
	CHECK(path_exists(DROPS), "no drops file after the last step");
	return 0;
}

/*
 * Load and unload while drops happen on both CPUs: unregistering must wait
 * for probes running elsewhere before the tables go.
 *
 * On 6.12 the tracepoint's code is held still (tp_hold()) for the
 * duration: patching it while the other CPU runs sk_skb_reason_drop()
 * ends in "Oops: int3" at the patched site in the QEMU 7.2 TCG guest, also
 * with only the kernel's trace event toggled and no skbprof loaded
 * (checked; not seen on 5.10 and 6.1).  Registering and unregistering
 * still change the probe list under load, which is what matters here.
 */
TEST(drops_unload_under_load)
{
	int hold = -1;
	pid_t p0, p1;
	int i, st, err = 0;

	if (kver() >= 612) {
		hold = tp_hold(true);
		if (hold < 0)
			return -1;
	}
	p0 = send_on_cpu(0, 20000);
	p1 = send_on_cpu(1, 20000);
	CHECK(p0 > 0 && p1 > 0, "fork: %s", strerror(errno));
	for (i = 0; i < 10 && !err; i++) {
		err = skbprof_load(NULL);
		if (err)
			break;
		free(read_file(DROPS));
		err = skbprof_unload();
	}
	waitpid(p0, &st, 0);
	waitpid(p1, &st, 0);
	tp_release(hold);
	CHECK(err == 0, "cycle %d: %s", i, strerror(-err));
	return 0;
}

/* ---- filters, sampling and the trace, on drops ------------------------ */

#define PORT_F1		33310
#define PORT_F2		33311


static int control_set(const char *cmds)
{
	int err = write_file(CONTROL, cmds);

	CHECK(err == 0, "writing '%s' to control: %s", cmds, strerror(-err));
	return 0;
}

/*
 * Datagrams to @addr:@port (nobody listens), from a socket with mark
 * @mark (0: none).  Waits until the kernel counted them in @c.
 */
static int udp_send_to(const char *addr, int port, int n, unsigned int mark,
		       const struct ctr *c)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(port) };
	long long before = ctr_get(c);
	int fd, i;

	inet_pton(AF_INET, addr, &a.sin_addr);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(fd >= 0, "socket: %s", strerror(errno));
	if (mark && setsockopt(fd, SOL_SOCKET, SO_MARK, &mark, sizeof(mark))) {
		close(fd);
		return fail("SO_MARK: %s", strerror(errno));
	}
	for (i = 0; i < n; i++) {
		if (sendto(fd, "x", 1, 0, (struct sockaddr *)&a, sizeof(a)) != 1) {
			close(fd);
			return fail("sendto %s:%d: %s", addr, port, strerror(errno));
		}
	}
	close(fd);
	CHECK_EQ(settle(ctr_get, c, before + n) - before, n);
	return 0;
}

/*
 * A drop ends the packet's timeline as dropped: each datagram to a closed
 * port, which the kernel counts in NoPorts, is one receive timeline that
 * reached UDP and was dropped there, after its drops row named ip-udp.
 */
TEST(drops_end_timelines_as_dropped)
{
	struct ctr c = { "Udp", "NoPorts" };
	long long ended, rows;
	const char *const syms[] = { udp_noport_fn(AF_INET), NULL };
	int nrows;

	if (load(NULL) || control_set("reset\n") ||
	    udp_send_to("127.0.0.1", PORT_F1, 20, 0, &c))
		return -1;
	drops_wait(reason("NO_SOCKET"), syms, 20);
	stat_wait("incomplete_rx_dropped", 20);
	ended = stat_value("incomplete_rx_dropped");
	if (drops_read())
		return -1;
	rows = rows_sum(reason("NO_SOCKET"), syms, &nrows);
	CHECK_EQ(rows, 20);
	CHECK_EQ(ended, 20);
	return 0;
}

/*
 * NO_SOCKET drops counted in UDP receive, the drops file read anew once
 * they reach @want (drops_wait()).
 */
static long long udp4_noport_drops(long long want)
{
	const char *const syms[] = { udp_noport_fn(AF_INET), NULL };
	int rows;

	drops_wait(reason("NO_SOCKET"), syms, want);
	if (drops_read())
		return -1;
	return rows_sum(reason("NO_SOCKET"), syms, &rows);
}

/*
 * Two ports, a filter on one: the drops are that port's alone; `filter
 * clear` brings the other back.
 */
TEST(filter_drops_port)
{
	struct ctr c = { "Udp", "NoPorts" };

	if (load(NULL) || control_set("filter dport 33310\nreset\n") ||
	    udp_send_to("127.0.0.1", PORT_F1, 30, 0, &c) ||
	    udp_send_to("127.0.0.1", PORT_F2, 20, 0, &c))
		return -1;
	CHECK_EQ(udp4_noport_drops(30), 30);
	if (control_set("filter clear\nreset\n") ||
	    udp_send_to("127.0.0.1", PORT_F1, 30, 0, &c) ||
	    udp_send_to("127.0.0.1", PORT_F2, 20, 0, &c))
		return -1;
	CHECK_EQ(udp4_noport_drops(50), 50);
	return 0;
}

TEST(filter_drops_prefix_and_family)
{
	const char *const udp4_syms[] = { udp_noport_fn(AF_INET), NULL };
	const char *const udp6_syms[] = { udp_noport_fn(AF_INET6), NULL };
	struct ctr c4 = { "Udp", "NoPorts" }, c6 = { NULL, "Udp6NoPorts" };
	long long before6;
	int rows;

	/* 127.0.0.2 is loopback too; only it is in 127.0.0.2/31 */
	if (load(NULL) || control_set("filter dst 127.0.0.2/31\nreset\n") ||
	    udp_send_to("127.0.0.1", PORT_F1, 11, 0, &c4) ||
	    udp_send_to("127.0.0.2", PORT_F1, 13, 0, &c4) ||
	    udp_send_to("127.0.0.3", PORT_F1, 17, 0, &c4))
		return -1;
	CHECK_EQ(udp4_noport_drops(13 + 17), 13 + 17);
	/* loopback sends to 127.0.0.2 come from 127.0.0.1: host matches either */
	if (control_set("filter host 127.0.0.3\nreset\n") ||
	    udp_send_to("127.0.0.2", PORT_F1, 13, 0, &c4) ||
	    udp_send_to("127.0.0.3", PORT_F1, 3, 0, &c4))
		return -1;
	CHECK_EQ(udp4_noport_drops(3), 3);

	if (control_set("filter family ipv6 proto udp\nreset\n") ||
	    udp_send_to("127.0.0.1", PORT_F1, 10, 0, &c4))
		return -1;
	before6 = ctr_get(&c6);
	if (udp_send(AF_INET6, PORT_F1, 12, 20))
		return -1;
	CHECK_EQ(settle(ctr_get, &c6, before6 + 12) - before6, 12);
	drops_wait(reason("NO_SOCKET"), udp6_syms, 12);
	if (drops_read())
		return -1;
	drops_note();
	CHECK_EQ(rows_sum(reason("NO_SOCKET"), udp4_syms, &rows), 0);
	CHECK_EQ(rows_sum(reason("NO_SOCKET"), udp6_syms, &rows), 12);
	return 0;
}

TEST(filter_drops_mark)
{
	struct ctr c = { "Udp", "NoPorts" };

	if (load(NULL) || control_set("filter mark 0x9999\nreset\n") ||
	    udp_send_to("127.0.0.1", PORT_F1, 15, 0x9999, &c) ||
	    udp_send_to("127.0.0.1", PORT_F1, 10, 0, &c) ||
	    udp_send_to("127.0.0.1", PORT_F1, 5, 0x9998, &c))
		return -1;
	CHECK_EQ(udp4_noport_drops(15), 15);
	if (control_set("filter mark 0x9990/0xfff0\nreset\n") ||
	    udp_send_to("127.0.0.1", PORT_F1, 15, 0x9999, &c) ||
	    udp_send_to("127.0.0.1", PORT_F1, 5, 0x9998, &c) ||
	    udp_send_to("127.0.0.1", PORT_F1, 7, 0x1999, &c))
		return -1;
	CHECK_EQ(udp4_noport_drops(20), 20);
	return 0;
}

TEST(filter_drops_dev)
{
	struct ctr c = { "Udp", "NoPorts" };

	if (load(NULL) || control_set("filter dev nosuch0\nreset\n") ||
	    udp_send_to("127.0.0.1", PORT_F1, 9, 0, &c))
		return -1;
	CHECK_EQ(udp4_noport_drops(0), 0);
	if (control_set("filter dev lo\nreset\n") ||
	    udp_send_to("127.0.0.1", PORT_F1, 9, 0, &c))
		return -1;
	CHECK_EQ(udp4_noport_drops(9), 9);
	return 0;
}

#define IP		"/usr/sbin/ip"

/* The NO_SOCKET row of UDP receive in the namespace of inode @netns. */
static const struct drow *noport_row_in(const char *netns)
{
	const char *const syms[] = { udp_noport_fn(AF_INET), NULL };
	int i, k;

	for (i = 0; i < tab.n; i++) {
		const struct drow *r = &tab.r[i];

		if (strcmp(r->reason, reason("NO_SOCKET")) ||
		    strcmp(r->netns, netns))
			continue;
		for (k = 0; syms[k]; k++)
			if (!strcmp(r->sym, syms[k]))
				return r;
	}
	return NULL;
}

/* The inode of namespace /run/netns/@name, as the drops file prints it. */
static int netns_inode(const char *name, char *buf, size_t len)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/run/netns/%s", name);
	CHECK(stat(path, &st) == 0, "stat %s: %s", path, strerror(errno));
	snprintf(buf, len, "%llu", (unsigned long long)st.st_ino);
	return 0;
}

/* @n datagrams to 10.98.0.2:PORT_F1, over the veth pair to skdrns. */
static int send_to_ns(int n)
{
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(PORT_F1) };
	int fd, i;

	inet_pton(AF_INET, "10.98.0.2", &a.sin_addr);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	CHECK(fd >= 0, "socket: %s", strerror(errno));
	for (i = 0; i < n; i++) {
		if (sendto(fd, "x", 1, 0, (struct sockaddr *)&a,
			   sizeof(a)) != 1) {
			close(fd);
			return fail("sendto: %s", strerror(errno));
		}
	}
	close(fd);
	return 0;
}

/* The receiving end of the pair, @dev in namespace @ns, up and addressed. */
static int ns_end_up(const char *ns, const char *dev)
{
	int st = sh(IP " -n %s addr replace 10.98.0.2/24 dev %s && "
		    IP " -n %s link set %s up && "
		    IP " -n %s link set lo up && "
		    IP " neigh replace 10.98.0.2 lladdr 02:00:00:00:98:02 dev skdr0 nud permanent",
		    ns, dev, ns, dev, ns);

	CHECK(st == 0, "setting up %s in %s exited %d", dev, ns, st);
	return 0;
}

/*
 * @n more datagrams to skdrns's end, @total NO_SOCKET drops since the
 * reset: the row of namespace @ns counts @count, on device @dev.
 */
static int noport_row_after(int n, long long total, const char *ns,
			    long long count, const char *dev)
{
	const char *const syms[] = { udp_noport_fn(AF_INET), NULL };
	const struct drow *r;

	if (send_to_ns(n))
		return -1;
	drops_wait(reason("NO_SOCKET"), syms, total);
	if (drops_read())
		return -1;
	r = noport_row_in(ns);
	CHECK(r, "no NO_SOCKET row in namespace %s", ns);
	CHECK_EQ(r->count, count);
	CHECK(!strcmp(r->dev, dev), "dev '%s', want %s", r->dev, dev);
	return 0;
}

/*
 * The device of a drop is named as it is when the drop happens, and its
 * namespace is the one it is in: drops on a veth end, then on the same
 * end renamed (the row's device is the new name, marked mixed), then on
 * it moved to another namespace (a row of its own, the name alone).
 */
static const struct veth dr_pair = {
	.a = { .dev = "skdr0", .mac = "02:00:00:00:98:01", .ip4 = "10.98.0.1/24" },
	.b = { .ns = "skdrns", .dev = "skdr1", .mac = "02:00:00:00:98:02" },
};

/* skdr0 up --- skdrns: skdr1 (down: ns_end_up()), and skdrns2, empty */
FIXTURE(dr);

FIXTURE_SETUP(dr)
{
	if (veth_pair(&dr_pair) || netns_make("skdrns2", false))
		return -1;
	CHECK(sh(IP " link set skdr0 up") == 0, "cannot set skdr0 up");
	return 0;
}

FIXTURE_TEARDOWN(dr)
{
	veth_pair_del(&dr_pair);
	netns_del("skdrns2");
}

TEST_F(dr, drops_dev_renamed_and_moved)
{
	char ns1[24], ns2[24];
	const struct drow *r;
	int st;

	if (ns_end_up("skdrns", "skdr1") || netns_inode("skdrns", ns1, sizeof(ns1)) ||
	    netns_inode("skdrns2", ns2, sizeof(ns2)))
		return -1;

	if (load(NULL) || control_set("reset\n") ||
	    noport_row_after(5, 5, ns1, 5, "skdr1"))
		return -1;

	st = sh(IP " -n skdrns link set skdr1 down && "
		IP " -n skdrns link set skdr1 name skdr2");
	CHECK(st == 0, "renaming exited %d", st);
	if (ns_end_up("skdrns", "skdr2") || noport_row_after(7, 12, ns1, 12, "skdr2+"))
		return -1;

	st = sh(IP " -n skdrns link set skdr2 netns skdrns2");
	CHECK(st == 0, "moving exited %d", st);
	if (ns_end_up("skdrns2", "skdr2") || noport_row_after(3, 15, ns2, 3, "skdr2"))
		return -1;
	r = noport_row_in(ns1);
	CHECK(r && r->count == 12, "the rows of namespace %s changed", ns1);
	return 0;
}

/* The nft output counter of table skbprof_f, once it reaches @want. */
static long long nft_out_packets(long long want)
{
	return nft_wait("inet skbprof_f out", want);
}

/*
 * Table skbprof_f: an output-hook rule that counts and drops UDP to
 * PORT_F1, so the drops happen in the sending process's own context.
 */
static int nft_output_drop(void)
{
	int st;

	if (nft_modules())
		return -1;
	sh("nft delete table inet skbprof_f 2>/dev/null");
	st = sh("nft add table inet skbprof_f && "
		"nft add chain inet skbprof_f out '{ type filter hook output priority 0; }' && "
		"nft add rule inet skbprof_f out udp dport %d counter drop", PORT_F1);
	CHECK(st == 0, "nft setup exited %d", st);
	return 0;
}

/* Send @n datagrams to PORT_F1 from a child process named @comm. */
static pid_t send_as(const char *comm, int n)
{
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_port = htons(PORT_F1) };
		int fd = socket(AF_INET, SOCK_DGRAM, 0), i;

		prctl(PR_SET_NAME, comm);
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		for (i = 0; i < n; i++)
			sendto(fd, "x", 1, 0, (struct sockaddr *)&a, sizeof(a));
		_exit(0);
	}
	return pid;
}

/*
 * The comm term: drops in the sender's own context (an nft rule on the
 * output hook) are charged to it.  Ground truth: the rule's counter
 * and what each process sent.
 */
TEST(filter_drops_comm)
{
	const char *const *syms = nft_drop_syms();
	pid_t a, b;
	int rows;
	long long got, pkts;

	if (nft_output_drop() || load(NULL))
		return -1;

	if (control_set("filter comm skbp-sender\nreset\n"))
		goto err;
	a = send_as("skbp-sender", 9);
	b = send_as("skbp-other", 6);
	waitpid(a, NULL, 0);
	waitpid(b, NULL, 0);
	/* dropped in the senders' sendto: done, but wait all the same */
	pkts = nft_out_packets(15);
	drops_wait(reason("NETFILTER_DROP"), syms, 9);
	if (drops_read())
		goto err;
	drops_note();
	CHECK_EQ(pkts, 15);
	got = rows_sum(reason("NETFILTER_DROP"), syms, &rows);
	if (got != 9) {
		sh("nft delete table inet skbprof_f");
		return fail("comm filter: %lld drops, want 9 of 15", got);
	}
	/* the output hook runs after UDP transmit, before IP output */
	if (strcmp(row_find(reason("NETFILTER_DROP"), syms)->stage,
		   "app-udp")) {
		sh("nft delete table inet skbprof_f");
		return fail("stage '%s', want app-udp",
			    row_find(reason("NETFILTER_DROP"), syms)->stage);
	}

	sh("nft delete table inet skbprof_f");
	return 0;
err:
	sh("nft delete table inet skbprof_f");
	return -1;
}

TEST(filter_drops_pid)
{
	const char *const *syms = nft_drop_syms();
	int pipefd[2], st, rows, n = 0;
	char cmd[64], go;
	pid_t child, other;
	long long got, pkts;

	if (nft_output_drop() || load(NULL))
		return -1;

	/* a child that sends 8 datagrams once told its pid is filtered */
	CHECK(pipe(pipefd) == 0, "pipe");
	fflush(stdout);
	child = fork();
	if (child == 0) {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_port = htons(PORT_F1) };
		int fd = socket(AF_INET, SOCK_DGRAM, 0), i;

		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (read(pipefd[0], &go, 1) != 1)
			_exit(1);
		for (i = 0; i < 8; i++)
			sendto(fd, "x", 1, 0, (struct sockaddr *)&a, sizeof(a));
		_exit(0);
	}
	snprintf(cmd, sizeof(cmd), "filter pid %d\nreset\n", child);
	if (control_set(cmd))
		goto err;
	other = send_as("skbp-other", 6);
	waitpid(other, NULL, 0);
	n = write(pipefd[1], "g", 1);
	waitpid(child, &st, 0);
	pkts = nft_out_packets(14);
	drops_wait(reason("NETFILTER_DROP"), syms, 8);
	if (drops_read())
		goto err;
	drops_note();
	CHECK_EQ(n, 1);
	CHECK_EQ(pkts, 14);
	got = rows_sum(reason("NETFILTER_DROP"), syms, &rows);
	sh("nft delete table inet skbprof_f");
	CHECK_EQ(got, 8);
	return 0;
err:
	sh("nft delete table inet skbprof_f");
	return -1;
}

/* `sample 10` keeps 1 in 10: N/10, give or take one per CPU. */
TEST(sample_drops)
{
	struct ctr c = { "Udp", "NoPorts" };
	long long got, ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	const int n = 200;

	if (load(NULL) || control_set("sample 10\nreset\n"))
		return -1;
	if (udp_send_to("127.0.0.1", PORT_F1, n, 0, &c))
		return -1;
	/* whatever arrives later only brings it closer to the truth */
	got = udp4_noport_drops(n / 10 - ncpu);
	note("sample 10 of %d: %lld", n, got);
	CHECK(got >= n / 10 - ncpu && got <= n / 10 + ncpu,
	      "sample 10 of %d drops kept %lld", n, got);
	return 0;
}

/* Read what the trace holds now (non-blocking), appending to @buf. */
static size_t trace_drain(char *buf, size_t size, size_t len)
{
	int fd = open(DEBUGFS_DIR "/trace", O_RDONLY | O_NONBLOCK);
	ssize_t n;

	if (fd < 0)
		return len;
	while (len + 1 < size && (n = read(fd, buf + len, size - len - 1)) > 0)
		len += n;
	buf[len] = 0;
	close(fd);
	return len;
}

static int count_lines(const char *buf, const char *needle)
{
	const char *p = buf;
	int n = 0;

	while ((p = strstr(p, needle))) {
		n++;
		p += strlen(needle);
	}
	return n;
}

struct trace_want {
	char *buf;
	size_t size, len;
	const char *want;
	int n;
};

/* Drain the trace into the buffer: are there @n lines holding @want yet? */
static bool trace_lines_in(void *arg)
{
	struct trace_want *w = arg;

	w->len = trace_drain(w->buf, w->size, w->len);
	return count_lines(w->buf, w->want) >= w->n;
}

/* One trace line per drop, naming reason, location and flow. */
TEST(trace_drop_lines)
{
	struct ctr c = { "Udp", "NoPorts" };
	static char buf[65536];
	struct trace_want tw = { NULL, 0, 0, NULL, 7 };
	char want[160];
	int lines;

	if (load(NULL) || control_set("filter dport 33310\ntrace on\nreset\n") ||
	    udp_send_to("127.0.0.1", PORT_F1, 7, 0, &c) ||
	    udp_send_to("127.0.0.1", PORT_F2, 5, 0, &c))
		return -1;
	snprintf(want, sizeof(want), "DROP %s %s+0x",
		 have_reasons() ? "NO_SOCKET" : "-", udp_noport_fn(AF_INET));
	/* a drop's line is made at the kfree_skb, after NoPorts counted it */
	tw.buf = buf;
	tw.size = sizeof(buf);
	tw.want = want;
	if (!wait_until(trace_lines_in, &tw, WAIT_MS))
		note("fewer than 7 drop lines after %d ms", WAIT_MS);
	note("trace:\n%s", buf);
	lines = count_lines(buf, want);
	CHECK_EQ(lines, 7);
	/* the drop, and how far the datagram got: into UDP receive */
	CHECK_EQ(count_lines(buf, "> 127.0.0.1:33310 | dev lo | stage ip-udp"),
		 7);
	CHECK_EQ(count_lines(buf, ":33311"), 0);
	/* and the transmit timelines the datagrams completed on the way */
	CHECK_EQ(count_lines(buf, " TX app-udp "), 7);
	CHECK_EQ(count_lines(buf, "\n"), 14);
	return 0;
}

/* A reader blocked in trace wakes when a line arrives. */
TEST(trace_blocked_reader_wakes_on_data)
{
	struct ctr c = { "Udp", "NoPorts" };
	int pipefd[2], st;
	char buf[512];
	ssize_t n;
	pid_t pid;

	if (load(NULL) || control_set("trace on\n"))
		return -1;
	CHECK(pipe(pipefd) == 0, "pipe");
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		int fd = open(DEBUGFS_DIR "/trace", O_RDONLY);

		alarm(20);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf));
		if (n > 0 && write(pipefd[1], buf, n) != n)
			_exit(2);
		_exit(n > 0 ? 0 : 1);
	}
	close(pipefd[1]);
	/* a slow host can only make this pass wrongly, not fail */
	sleep_ms(300);
	CHECK(waitpid(pid, &st, WNOHANG) == 0, "the reader returned before any data");
	if (udp_send_to("127.0.0.1", PORT_F1, 1, 0, &c))
		return -1;
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the blocked reader did not return a line (status 0x%x)", st);
	n = read(pipefd[0], buf, sizeof(buf) - 1);
	close(pipefd[0]);
	CHECK(n > 0, "no line from the reader");
	buf[n] = 0;
	CHECK(strstr(buf, ":33310"), "the reader got '%s'", buf);
	return 0;
}
