// SPDX-License-Identifier: GPL-2.0
/*
 * Containers: cgroup v2 ids in procs and cgroups, the `cgroup` filter
 * term, and the network namespace and socket cgroup of drops.
 *
 * Topology:
 *
 *   cgroup2 at /sys/fs/cgroup (mounted here if it is not)
 *     /skbprof-a   process "skbp_cga": NA datagrams to itself
 *     /skbprof-b   process "skbp_cgb": NB datagrams to itself
 *   netns skbp_cg: lo only; both processes run there, on 127.0.0.1
 *
 * Each process is placed in its cgroup by the parent (its pid written to
 * the cgroup's cgroup.procs) before it sends, binds a UDP port and sends
 * to it, reading each datagram back before the next.  Ground truth: the
 * datagrams the processes sent and read, the namespace's own UDP counters
 * (InDatagrams, OutDatagrams, NoPorts), the cgroup directories' inode
 * numbers (their ids) and the namespace's inode (stat of /run/netns/...).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define CG_ROOT		"/sys/fs/cgroup"
#define CG_A		"/skbprof-a"
#define CG_B		"/skbprof-b"
#define NS		"skbp_cg"
#define IP		"/usr/sbin/ip"
#define NA		300
#define NB		200
#define PORT_A		6001
#define PORT_B		6002
#define PORT_CLOSED	6009
#define CGROUP2_MAGIC	0x63677270

/* ---- the cgroups and the namespace ---- */

/* The id of the cgroup at @path from the root: its directory's inode. */
static unsigned long long cg_id(const char *path)
{
	char dir[256];
	struct stat st;

	snprintf(dir, sizeof(dir), CG_ROOT "%s", path);
	return stat(dir, &st) ? 0 : st.st_ino;
}

static unsigned long long ns_inode(void)
{
	struct stat st;

	return stat("/run/netns/" NS, &st) ? 0 : st.st_ino;
}

FIXTURE(cg);

FIXTURE_TEARDOWN(cg)
{
	rmdir(CG_ROOT CG_A);
	rmdir(CG_ROOT CG_B);
	netns_del(NS);
}

FIXTURE_SETUP(cg)
{
	struct statfs fs;

	cg_teardown();
	if (statfs(CG_ROOT, &fs) || fs.f_type != CGROUP2_MAGIC)
		CHECK(mount("none", CG_ROOT, "cgroup2", 0, NULL) == 0,
		      "mount cgroup2 on " CG_ROOT ": %s", strerror(errno));
	CHECK(mkdir(CG_ROOT CG_A, 0755) == 0 && mkdir(CG_ROOT CG_B, 0755) == 0,
	      "mkdir the cgroups: %s", strerror(errno));
	if (netns_make(NS, true))
		return -1;
	CHECK(cg_id(CG_A) && cg_id(CG_B) && cg_id(CG_A) != cg_id(CG_B),
	      "cgroup ids %llu %llu", cg_id(CG_A), cg_id(CG_B));
	return 0;
}

/* A counter of /proc/net/snmp in the namespace; -1 when missing. */
static long long ns_snmp(const char *field)
{
	int st;

	return snmp_table_value(sh_out(&st, IP " netns exec " NS
				       " cat /proc/net/snmp"), "Udp", field);
}

/* ---- the processes ---- */

struct proc {
	const char *cgroup, *comm;
	int port, n;
	bool closed;		/* read nothing; sends may fail (dropped) */
	int hold_ms;		/* send all, hold them queued so long, read all */
	pid_t pid;
	int go[2];		/* the parent says go when it is placed */
};

static int proc_main(struct proc *p)
{
	struct sockaddr_in to = { .sin_family = AF_INET,
				  .sin_port = htons(p->port) };
	char c, buf[64];
	int tx, rx, i;

	close(p->go[1]);
	if (read(p->go[0], &c, 1) != 1 || c != 'g')
		return 1;
	if (enter_ns(NS))
		return 2;
	prctl(PR_SET_NAME, p->comm);
	inet_pton(AF_INET, "127.0.0.1", &to.sin_addr);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	rx = socket(AF_INET, SOCK_DGRAM, 0);
	if (tx < 0 || rx < 0 || (!p->closed && bind(rx, (void *)&to, sizeof(to))))
		return 3;
	if (p->hold_ms) {
		for (i = 0; i < p->n; i++)
			if (sendto(tx, "cg", 2, 0, (void *)&to, sizeof(to)) != 2)
				return 4;
		sleep_ms(p->hold_ms);
		for (i = 0; i < p->n; i++)
			if (recv(rx, buf, sizeof(buf), 0) != 2)
				return 5;
		return 0;
	}
	for (i = 0; i < p->n; i++) {
		if (sendto(tx, "cg", 2, 0, (void *)&to, sizeof(to)) != 2 &&
		    !p->closed)
			return 4;
		if (!p->closed && recv(rx, buf, sizeof(buf), 0) != 2)
			return 5;
	}
	return 0;
}

/* Fork @p, move it into its cgroup, then let it send. */
static int proc_start(struct proc *p)
{
	char path[256], pid[16];
	int err;

	CHECK(pipe(p->go) == 0, "pipe");
	fflush(stdout);
	p->pid = fork();
	CHECK(p->pid >= 0, "fork: %s", strerror(errno));
	if (p->pid == 0)
		_exit(proc_main(p));
	close(p->go[0]);
	snprintf(path, sizeof(path), CG_ROOT "%s/cgroup.procs", p->cgroup);
	snprintf(pid, sizeof(pid), "%d\n", p->pid);
	err = write_file(path, pid);
	if (write(p->go[1], err ? "x" : "g", 1) != 1)
		err = -EIO;
	close(p->go[1]);
	CHECK(err == 0, "cannot move %d into %s: %s", p->pid, p->cgroup,
	      strerror(-err));
	return 0;
}

static int proc_wait(struct proc *p)
{
	int st;

	CHECK(waitpid(p->pid, &st, 0) == p->pid && WIFEXITED(st) &&
	      WEXITSTATUS(st) == 0, "%s failed (0x%x)", p->comm, st);
	return 0;
}

/* NA datagrams from a process in /skbprof-a, NB from one in /skbprof-b. */
static int traffic(struct proc *a, struct proc *b)
{
	*a = (struct proc){ .cgroup = CG_A, .comm = "skbp_cga",
			    .port = PORT_A, .n = NA };
	*b = (struct proc){ .cgroup = CG_B, .comm = "skbp_cgb",
			    .port = PORT_B, .n = NB };
	if (proc_start(a) || proc_start(b) || proc_wait(a) || proc_wait(b))
		return -1;
	return 0;
}

/* ---- the files ---- */

/*
 * Column @col of the row of @file (cgroups or procs) of @dir @stage,
 * cgroup @id and, in procs, process @p; -1 when there is none.
 */
static long long cgroup_row_num(const char *file, const char *dir,
				const char *stage, const struct proc *p,
				unsigned long long id, const char *col)
{
	char ids[24], pid[16];
	struct table t;
	long long v;

	if (table_read(&t, file))
		return -1;
	snprintf(ids, sizeof(ids), "%llu", id);
	snprintf(pid, sizeof(pid), "%d", p ? p->pid : 0);
	v = table_num(&t, table_find(&t, 0, "dir", dir, "stage", stage,
				     "cgroup", ids, p ? "pid" : NULL, pid,
				     "comm", p ? p->comm : NULL, NULL), col);
	table_free(&t);
	return v;
}

/* The count of a row of cgroups or procs, as cgroup_row_num(); 0 without. */
static unsigned long long cgroup_row_count(const char *file, const char *dir,
					   const char *stage,
					   const struct proc *p,
					   unsigned long long id)
{
	long long c = cgroup_row_num(file, dir, stage, p, id, "count");

	return c < 0 ? 0 : c;
}

static unsigned long long cg_count(const char *dir, const char *stage,
				   unsigned long long id)
{
	return cgroup_row_count("cgroups", dir, stage, NULL, id);
}

static unsigned long long proc_count(const char *dir, const char *stage,
				     const struct proc *p,
				     unsigned long long id)
{
	return cgroup_row_count("procs", dir, stage, p, id);
}

/* The sum of @stage's counts over every row of cgroups. */
static unsigned long long cg_total(const char *dir, const char *stage)
{
	struct table t;
	long long sum;

	if (table_read(&t, "cgroups"))
		return 0;
	sum = table_sum(&t, "count", "dir", dir, "stage", stage, NULL);
	table_free(&t);
	return sum < 0 ? 0 : sum;
}

struct want {
	const char *dir, *stage;
	unsigned long long id, n;
};

static bool cg_reached(void *arg)
{
	const struct want *w = arg;

	return cg_count(w->dir, w->stage, w->id) >= w->n;
}

static int control(const char *cmds)
{
	return write_file(DEBUGFS_DIR "/control", cmds);
}

/* In fixture cg: the module loaded, @cmds written to control; the ids. */
static int setup_loaded(const char *cmds, unsigned long long *ida,
			unsigned long long *idb)
{
	*ida = cg_id(CG_A);
	*idb = cg_id(CG_B);
	CHECK(skbprof_load("lifetime_sample=0") == 0, "load");
	CHECK(control(cmds) == 0, "control '%s'", cmds);
	return 0;
}

/*
 * Both cgroups' packets, each charged to its own cgroup and process: the
 * transmit stages of every datagram sent, the receive stages of every one
 * read (`procs stages`), and the namespace's counters agree.
 */
TEST_F(cg, cgroup_rows_count_each_cgroup)
{
	unsigned long long ida, idb;
	long long in0, out0, in1, out1;
	struct proc a, b;
	struct want w;

	if (setup_loaded("procs stages\nreset\n", &ida, &idb))
		return -1;
	in0 = ns_snmp("InDatagrams");
	out0 = ns_snmp("OutDatagrams");
	if (traffic(&a, &b))
		return -1;
	in1 = ns_snmp("InDatagrams");
	out1 = ns_snmp("OutDatagrams");
	w = (struct want){ "rx", "udp-app", idb, NB };
	wait_until(cg_reached, &w, WAIT_MS);
	note("cgroups a=%llu b=%llu:\n%s", ida, idb,
	     read_file(DEBUGFS_DIR "/cgroups"));
	CHECK_EQ(in1 - in0, NA + NB);
	CHECK_EQ(out1 - out0, NA + NB);
	CHECK_EQ(cg_count("tx", "app-udp", ida), NA);
	CHECK_EQ(cg_count("tx", "tx-total", ida), NA);
	CHECK_EQ(cg_count("rx", "udp-app", ida), NA);
	CHECK_EQ(cg_count("rx", "rx-total", ida), NA);
	CHECK_EQ(cg_count("tx", "app-udp", idb), NB);
	CHECK_EQ(cg_count("rx", "udp-app", idb), NB);
	CHECK_EQ(cg_count("rx", "rx-total", idb), NB);
	/* nobody else was charged a datagram */
	CHECK_EQ(cg_total("rx", "udp-app"), in1 - in0);
	CHECK_EQ(cg_total("tx", "app-udp"), out1 - out0);
	/* procs: the same, by process, with the cgroup column */
	CHECK_EQ(proc_count("tx", "app-udp", &a, ida), NA);
	CHECK_EQ(proc_count("rx", "udp-app", &a, ida), NA);
	CHECK_EQ(proc_count("tx", "app-udp", &b, idb), NB);
	CHECK_EQ(proc_count("rx", "udp-app", &b, idb), NB);
	CHECK_EQ(proc_count("rx", "udp-app", &a, idb), 0);
	/* a reset empties cgroups */
	CHECK(control("reset\n") == 0, "reset");
	CHECK_EQ(cg_total("rx", "udp-app"), 0);
	CHECK(skbprof_unload() == 0, "unload");
	return 0;
}

#define NH	40
#define HOLD_MS	50

/*
 * The sum column, against a wait we set: a process in /skbprof-a sends
 * NH datagrams to itself, holds them HOLD_MS in its socket's queue, then
 * reads them.  Each one's udp-app time is at least HOLD_MS and at most
 * the process's run (which the parent brackets), so a's row sums to
 * within NH x HOLD_MS and NH x that run; prom's seconds for a's path are
 * the same sum.
 */
TEST_F(cg, cgroup_sum_holds_queue_wait)
{
	struct proc a = { .cgroup = CG_A, .comm = "skbp_cgh", .port = PORT_A,
			  .n = NH, .hold_ms = HOLD_MS };
	unsigned long long ida, idb, count = 0, sum = 0, t0, t1, lo, hi;
	char line[160], *s, *out;
	const char *p;
	double secs = -1;

	if (setup_loaded("procs stages\nreset\n", &ida, &idb))
		return -1;
	t0 = clock_ns(CLOCK_MONOTONIC);
	if (proc_start(&a) || proc_wait(&a))
		return -1;
	t1 = clock_ns(CLOCK_MONOTONIC);
	s = read_file(DEBUGFS_DIR "/cgroups");
	note("cgroups (a=%llu):\n%s", ida, s ? s : "(none)");
	free(s);
	count = cgroup_row_num("cgroups", "rx", "udp-app", NULL, ida, "count");
	sum = cgroup_row_num("cgroups", "rx", "udp-app", NULL, ida, "sum");
	lo = NH * HOLD_MS * 1000000ULL;
	hi = NH * (t1 - t0);
	CHECK_EQ(count, NH);
	CHECK(sum >= lo && sum <= hi, "a's udp-app sum %llu ns, want %llu..%llu",
	      sum, lo, hi);
	out = sh_out(NULL, TOOL " prom");
	snprintf(line, sizeof(line),
		 "skbprof_cgroup_stage_seconds_total{dir=\"rx\",stage=\"udp-app\",cgroup=\"%s\"}",
		 CG_A);
	p = line_after(out, line);
	if (p)
		secs = strtod(p, NULL);
	free(out);
	CHECK(secs >= 0 && (unsigned long long)(secs * 1e9 + 0.5) == sum,
	      "prom: %.9f s for %s, the file %llu ns", secs, CG_A, sum);
	CHECK(skbprof_unload() == 0, "unload");
	return 0;
}

/*
 * `filter cgroup /skbprof-a`: exactly a's datagrams are measured; it reads
 * back as written.  Bad paths are refused, naming the path, and change
 * nothing.
 */
TEST_F(cg, cgroup_filter_path)
{
	static const struct {
		const char *cmd;
		int err;
		const char *msg;
	} bad[] = {
		{ "filter cgroup /skbprof-nope\n", -ENOENT,
		  "no cgroup '/skbprof-nope' in the cgroup2 hierarchy" },
		{ "filter cgroup skbprof-a\n", -EINVAL,
		  "'skbprof-a' is not a path from the cgroup2 root" },
		{ "filter cgroup " CG_A "/cgroup.procs\n", -EINVAL,
		  "'" CG_A "/cgroup.procs' is not a cgroup directory" },
		{ "filter cgroup " CG_A "/../skbprof-b\n", -EINVAL,
		  "'..' component" },
	};
	unsigned long long ida, idb;
	char *before, *after, *ctl, cmd[64];
	struct proc a, b;
	struct want w;
	size_t i;
	int err;

	if (setup_loaded("filter cgroup " CG_A "\nreset\n", &ida, &idb))
		return -1;
	ctl = read_file(DEBUGFS_DIR "/control");
	CHECK(ctl && !strncmp(ctl, "filter cgroup " CG_A "\n", 15 + strlen(CG_A)),
	      "control reads '%s'", ctl);
	free(ctl);
	if (traffic(&a, &b))
		return -1;
	w = (struct want){ "rx", "rx-total", ida, NA };
	wait_until(cg_reached, &w, WAIT_MS);
	note("cgroups a=%llu b=%llu:\n%s", ida, idb,
	     read_file(DEBUGFS_DIR "/cgroups"));
	CHECK_EQ(cg_count("tx", "tx-total", ida), NA);
	CHECK_EQ(cg_count("rx", "rx-total", ida), NA);
	CHECK_EQ(cg_total("tx", "tx-total"), NA);
	CHECK_EQ(cg_total("rx", "rx-total"), NA);
	CHECK_EQ(cg_count("rx", "rx-total", idb), 0);

	/* the same by id */
	CHECK(control("reset\n") == 0, "reset");
	snprintf(cmd, sizeof(cmd), "filter cgroup %llu\n", idb);
	CHECK(control(cmd) == 0, "%s", cmd);
	if (traffic(&a, &b))
		return -1;
	w = (struct want){ "rx", "rx-total", idb, NB };
	wait_until(cg_reached, &w, WAIT_MS);
	CHECK_EQ(cg_total("rx", "rx-total"), NB);
	CHECK_EQ(cg_count("tx", "tx-total", idb), NB);

	before = read_file(DEBUGFS_DIR "/control");
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		err = control(bad[i].cmd);
		after = read_file(DEBUGFS_DIR "/control");
		CHECK(err == bad[i].err, "'%s' gave %d, want %d", bad[i].cmd,
		      err, bad[i].err);
		CHECK(after && strstr(after, bad[i].msg),
		      "'%s': control says '%s', want '%s'", bad[i].cmd, after,
		      bad[i].msg);
		/* all but the last_error line as before */
		CHECK(before && !strncmp(before, after,
					 strstr(before, "last_error:") - before),
		      "'%s' changed the configuration: '%s'", bad[i].cmd, after);
		free(after);
	}
	free(before);
	CHECK(skbprof_unload() == 0, "unload");
	return 0;
}

/*
 * The sum of the drops rows of namespace @ns located in @fn (NULL: any),
 * of cgroup @cg (NULL: any); *@rows gets how many rows.
 */
static unsigned long long drops_sum(unsigned long long ns, const char *fn,
				    const char *cg, int *rows)
{
	char *s = read_file(DEBUGFS_DIR "/drops_rows");
	unsigned long long sum = 0;
	const char *nsc, *loc;
	struct table t;
	char cgc[40];
	int r;

	note("drops_rows:\n%s", s);
	*rows = 0;
	if (table_parse(&t, s ? strdup(s) : NULL, "drops_rows")) {
		table_free(&t);
		free(s);
		return 0;
	}
	for (r = 0; r < t.nrows; r++) {
		nsc = table_str(&t, r, "netns");
		loc = table_str(&t, r, "location");
		/* a cgroup of a key with several: "id+", as drops shows it */
		snprintf(cgc, sizeof(cgc), "%s%s", table_str(&t, r, "cgroup"),
			 table_num(&t, r, "cgroup_mixed") == 1 ? "+" : "");
		if (!nsc || !loc || strtoull(nsc, NULL, 10) != ns ||
		    (cg && strcmp(cgc, cg)) ||
		    (fn && (strncmp(loc, fn, strlen(fn)) ||
			    loc[strlen(fn)] != '+')))
			continue;
		sum += table_num(&t, r, "count");
		(*rows)++;
	}
	table_free(&t);
	free(s);
	return sum;
}

/*
 * The drops row of a drop sums only the drops of its namespace: N to a
 * closed port in the namespace and M in the initial one give two rows,
 * N with the namespace's inode and M with the initial one's, each equal
 * to its namespace's NoPorts.  Without a socket the cgroup is "-".
 */
TEST_F(cg, cgroup_drops_netns)
{
	const char *fn = udp_noport_fn(AF_INET);
	unsigned long long ino = 0, init_ino;
	long long nb, na, ib, ia;
	struct proc c = { .cgroup = CG_A, .comm = "skbp_cgc",
			  .port = PORT_CLOSED, .n = 17, .closed = true };
	struct stat st;
	int rows;

	ino = ns_inode();
	CHECK(stat("/proc/self/ns/net", &st) == 0, "stat own netns");
	init_ino = st.st_ino;
	CHECK(ino && ino != init_ino, "netns inodes %llu %llu", ino, init_ino);
	CHECK(skbprof_load("lifetime_sample=0") == 0, "load");
	CHECK(control("reset\n") == 0, "reset");
	nb = ns_snmp("NoPorts");
	ib = snmp_value("Udp", "NoPorts");
	if (proc_start(&c) || proc_wait(&c))
		return -1;
	CHECK(sh("skbprof-traffic udp 127.0.0.1 %d 11", PORT_CLOSED) == 0,
	      "traffic in the initial namespace");
	na = ns_snmp("NoPorts");
	ia = snmp_value("Udp", "NoPorts");
	note("netns %llu, init %llu", ino, init_ino);
	CHECK_EQ(na - nb, c.n);
	CHECK_EQ(drops_sum(ino, fn, "-", &rows), na - nb);
	CHECK_EQ(rows, 1);
	CHECK_EQ(ia - ib, 11);
	CHECK_EQ(drops_sum(init_ino, fn, NULL, &rows), ia - ib);
	CHECK(skbprof_unload() == 0, "unload");
	return 0;
}

/* The packets nftables counted in the namespace's output chain; -1: none. */
static long long nft_out_packets(void)
{
	char *out = sh_out(NULL, IP " netns exec " NS
			   " nft list chain inet skbprof_cg out"), *p;
	long long n = -1;

	p = out ? strstr(out, "counter packets ") : NULL;
	if (p)
		n = atoll(p + strlen("counter packets "));
	note("%s", out);
	free(out);
	return n;
}

/*
 * A drop of a packet whose socket is known carries the socket's cgroup:
 * nftables drops the datagrams a process in /skbprof-a sends, in the
 * output hook of the namespace; the rows of that namespace with a's id
 * sum to what nftables counted, and to what was sent.
 */
TEST_F(cg, cgroup_drops_socket_cgroup)
{
	struct proc c = { .cgroup = CG_A, .comm = "skbp_cgd",
			  .port = PORT_CLOSED, .n = 13, .closed = true };
	char id[24];
	long long pkts;
	int rows, err;

	err = kmod_probe("nf_tables");
	CHECK(err == 0, "loading nf_tables: %s", strerror(-err));
	kmod_probe("nft_counter");	/* a module on 5.10, built in later */
	snprintf(id, sizeof(id), "%llu", cg_id(CG_A));
	CHECK(sh(IP " netns exec " NS " nft add table inet skbprof_cg && "
		 IP " netns exec " NS " nft add chain inet skbprof_cg out "
		 "'{ type filter hook output priority 0; }' && "
		 IP " netns exec " NS " nft add rule inet skbprof_cg out "
		 "udp dport %d counter drop", PORT_CLOSED) == 0, "nft setup");
	CHECK(skbprof_load("lifetime_sample=0") == 0, "load");
	CHECK(control("reset\n") == 0, "reset");
	if (proc_start(&c) || proc_wait(&c))
		return -1;
	pkts = nft_out_packets();
	CHECK_EQ(pkts, c.n);
	CHECK_EQ(drops_sum(ns_inode(), NULL, id, &rows), pkts);
	CHECK(rows >= 1, "no row of cgroup %s", id);
	CHECK(skbprof_unload() == 0, "unload");
	return 0;
}

/*
 * traffic(), then wait until the module has every datagram read in its
 * cgroups rows (rx-total: the last stage charged).
 */
static int counted_traffic(struct proc *a, struct proc *b,
			   unsigned long long ida, unsigned long long idb)
{
	struct want w = { "rx", "rx-total", ida, NA };

	if (traffic(a, b))
		return -1;
	wait_until(cg_reached, &w, WAIT_MS);
	w = (struct want){ "rx", "rx-total", idb, NB };
	wait_until(cg_reached, &w, WAIT_MS);
	return 0;
}

/*
 * The count of the line @prefix ("tx tx-total /skbprof-a") of what the
 * reader tool prints for @view (a view and options); -1 without one.
 * note()s the output.
 */
static long long tool_row(const char *view, const char *prefix)
{
	char *out = sh_out(NULL, TOOL " %s", view);
	const char *rest = line_after(out, prefix);
	long long c = rest ? strtoll(rest, NULL, 10) : -1;

	note("skbprof %s:\n%s", view, out);
	free(out);
	return c;
}

/*
 * `skbprof cgroups` and `skbprof procs` name the cgroups this test made
 * by their paths, each with the datagrams its process sent and read; no
 * row keeps the id of a cgroup that resolves.  Once /skbprof-b is
 * removed, its rows show its id again.
 */
TEST_F(cg, cgroup_tool_paths)
{
	unsigned long long ida, idb;
	char want[128];
	struct proc a, b;

	if (setup_loaded("reset\n", &ida, &idb) ||
	    counted_traffic(&a, &b, ida, idb))
		return -1;
	note("cgroups a=%llu b=%llu", ida, idb);
	CHECK_EQ(tool_row("cgroups", "tx tx-total " CG_A), NA);
	CHECK_EQ(tool_row("cgroups", "rx rx-total " CG_A), NA);
	CHECK_EQ(tool_row("cgroups", "tx tx-total " CG_B), NB);
	CHECK_EQ(tool_row("cgroups", "rx rx-total " CG_B), NB);
	snprintf(want, sizeof(want), "tx tx-total %llu", ida);
	CHECK_EQ(tool_row("cgroups", want), -1);
	snprintf(want, sizeof(want), "tx tx-total %d %s " CG_A, a.pid, a.comm);
	CHECK_EQ(tool_row("procs", want), NA);
	snprintf(want, sizeof(want), "rx rx-total %d %s " CG_B, b.pid, b.comm);
	CHECK_EQ(tool_row("procs", want), NB);
	/* a cgroup removed: no path, its id */
	CHECK(rmdir(CG_ROOT CG_B) == 0, "rmdir " CG_B ": %s", strerror(errno));
	snprintf(want, sizeof(want), "tx tx-total %llu", idb);
	CHECK_EQ(tool_row("cgroups", want), NB);
	CHECK_EQ(tool_row("cgroups", "tx tx-total " CG_B), -1);
	CHECK(skbprof_unload() == 0, "unload");
	return 0;
}

/* prom's packets series of cgroup label @cg, for a dir and stage (%s %s) */
#define SERIES(cg)							\
	"skbprof_cgroup_stage_packets_total{dir=\"%s\",stage=\"%s\",cgroup=\"" cg "\"}"
/* prom --top-n @n, its packets series only: the notes stay short */
#define TOP(n)	"prom --top-n " n " | grep ^skbprof_cgroup_stage_packets_total"

/*
 * `skbprof prom --top-n 1`: /skbprof-a (300 datagrams each way) keeps its
 * series, /skbprof-b's 200 are in cgroup="other"; with --top-n all each
 * has its own.  Nobody else was charged (cgroup_rows_count_each_cgroup),
 * so other is exactly b's datagrams.
 */
TEST_F(cg, cgroup_prom_top_n)
{
	static const char *const dirs[][2] = {
		{ "tx", "tx-total" }, { "rx", "rx-total" },
	};
	unsigned long long ida, idb;
	char want[160];
	struct proc a, b;
	size_t i;

	if (setup_loaded("reset\n", &ida, &idb) ||
	    counted_traffic(&a, &b, ida, idb))
		return -1;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(want, sizeof(want), SERIES(CG_A), dirs[i][0], dirs[i][1]);
		CHECK_EQ(tool_row(TOP("1"), want), NA);
		snprintf(want, sizeof(want), SERIES("other"), dirs[i][0], dirs[i][1]);
		CHECK_EQ(tool_row(TOP("1"), want), NB);
		snprintf(want, sizeof(want), SERIES(CG_B), dirs[i][0], dirs[i][1]);
		CHECK_EQ(tool_row(TOP("1"), want), -1);
		CHECK_EQ(tool_row(TOP("all"), want), NB);
		snprintf(want, sizeof(want), SERIES("other"), dirs[i][0], dirs[i][1]);
		CHECK_EQ(tool_row(TOP("all"), want), -1);
	}
	CHECK(skbprof_unload() == 0, "unload");
	return 0;
}
