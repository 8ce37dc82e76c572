// SPDX-License-Identifier: GPL-2.0
/*
 * Probes armed per view: a control write arms what the new configuration
 * needs and disarms the rest; a write that cannot arm changes nothing.
 *
 * The ground truth is the kernel's own lists: of registered kprobes and
 * kretprobes (/sys/kernel/debug/kprobes/list), and of the functions
 * ftrace traces (enabled_functions), each with its callback; nothing else
 * in the guest registers any.  They must hold exactly the probes stats
 * calls active, and those must be the probes of the groups the
 * configuration needs.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define CONTROL		DEBUGFS_DIR "/control"
#define STATS		DEBUGFS_DIR "/stats"
#define KPROBES		"/sys/kernel/debug/kprobes/list"
#define PROBE_DENY	"/sys/module/skbprof/parameters/probe_deny"
#define TRACING		"/sys/kernel/debug/tracing"
#define FTRACED		TRACING "/enabled_functions"
/* skbprof's ftrace callback, and the function that keeps its filter */
#define FT_CALLBACK	"(skbprof_ftrace_entry+"
#define FT_PARK		"skbprof_ftrace_park"

/* The groups file's armed groups, in its order; -1 when unreadable. */
static int armed_groups(char *out, size_t size)
{
	struct table t;
	size_t len = 0;
	int r = -1;

	out[0] = 0;
	if (table_read(&t, "groups"))
		return -1;
	while ((r = table_find(&t, r + 1, "armed", "armed", NULL)) >= 0 &&
	       len < size)
		len += snprintf(out + len, size - len, "%s%s", len ? " " : "",
				table_str(&t, r, "group"));
	table_free(&t);
	return 0;
}

/*
 * The kernel's list agrees with the probes file @probes: every kprobe and
 * kretprobe it calls active is listed enabled, every idle one listed
 * [DISABLED], and the list has no other.  Returns how many are enabled,
 * or -1.
 */
static int kprobes_match(const struct table *probes)
{
	char *list = read_file(KPROBES);
	int active = 0, idle = 0, enabled = 0, disabled = 0, r;
	const char *q, *e, *sym, *type, *state;

	CHECK(list, "cannot read %s", KPROBES);
	for (q = list; *q; q = e ? e + 1 : q + strlen(q)) {
		const char *d = strstr(q, "[DISABLED]");

		e = strchr(q, '\n');
		if (q == e)
			continue;
		if (d && (!e || d < e))
			disabled++;
		else
			enabled++;
	}
	for (r = 0; r < probes->nrows; r++) {
		char want[80], *at, *eol;
		bool is_idle;

		sym = table_str(probes, r, "symbol");
		type = table_str(probes, r, "mechanism");
		state = table_str(probes, r, "state");
		if ((strcmp(type, "kprobe") && strcmp(type, "kretprobe")) ||
		    (strcmp(state, "active") && strcmp(state, "idle")))
			continue;
		is_idle = !strcmp(state, "idle");
		active += !is_idle;
		idle += is_idle;
		/* +0x0, or +0x4 past an endbr64 (6.12 and later) */
		snprintf(want, sizeof(want), " %c  %s+0x",
			 !strcmp(type, "kprobe") ? 'k' : 'r', sym);
		at = strstr(list, want);
		eol = at ? strchr(at, '\n') : NULL;
		if (eol)
			*eol = 0;
		if (!at || !strstr(at, "[DISABLED]") != !is_idle) {
			if (eol)
				*eol = '\n';
			note("kprobes list:\n%s", list);
			free(list);
			return fail("probes has %s %s %s; the kernel's list %s",
				    type, sym, state, at ? "disagrees" : "has not");
		}
		if (eol)
			*eol = '\n';
	}
	free(list);
	CHECK(enabled == active && disabled == idle,
	      "the kernel lists %d enabled and %d disabled kprobes, probes %d active and %d idle",
	      enabled, disabled, active, idle);
	return active;
}

/*
 * Does a line of enabled_functions trace @sym with skbprof's callback?
 * Where the kernel names no callbacks (@named false: a function with one
 * ops is called through ftrace's common trampoline, which enabled_functions
 * does not name: arm64 before 6.4), any line does: nothing else in the
 * guest traces.  Nor does it name them on a function two ops trace (a
 * kretprobe's there too: lifetime's tx-gso with tx-gso-end), which ftrace
 * calls through its list function: that line does.
 */
static bool ftraced(const char *list, const char *sym, bool named)
{
	size_t n = strlen(sym);
	const char *q, *e;

	for (q = list; *q; q = e ? e + 1 : q + strlen(q)) {
		e = strchr(q, '\n');
		if (!strncmp(q, sym, n) && q[n] == ' ') {
			const char *cb = strstr(q, FT_CALLBACK);
			const char *lf = strstr(q, "ops_list_func");

			return !named || (cb && (!e || cb < e)) ||
			       (lf && (!e || lf < e));
		}
	}
	return false;
}

/*
 * enabled_functions agrees with the probes file: every ftrace probe it
 * calls active is traced with skbprof's callback, no idle one is, and the only
 * other function with it is skbprof_ftrace_park, which keeps the callback's
 * filter from going empty (an empty filter traces every function).
 * Returns how many are active, or -1.
 */
static int ftrace_match(const struct table *probes)
{
	char *list = read_file(FTRACED);
	int active = 0, listed = 0, r;
	const char *q, *mark, *sym, *state;
	bool traced, named;

	CHECK(list, "cannot read %s", FTRACED);
	named = strstr(list, FT_CALLBACK);
	mark = named ? FT_CALLBACK : "\n";
	for (q = list; (q = strstr(q, mark)); q++)
		listed++;
	/* functions two ops trace (see ftraced()) */
	for (q = list; named && (q = strstr(q, "ops_list_func")); q++)
		listed++;
	for (r = 0; (r = table_find(probes, r, "mechanism", "ftrace", NULL)) >= 0;
	     r++) {
		sym = table_str(probes, r, "symbol");
		state = table_str(probes, r, "state");
		if (strcmp(state, "active") && strcmp(state, "idle"))
			continue;
		active += !strcmp(state, "active");
		traced = ftraced(list, sym, named);
		if (traced != !strcmp(state, "active")) {
			note("%s:\n%s", FTRACED, list);
			free(list);
			return fail("probes has ftrace %s %s; %s %s", sym, state,
				    FTRACED, traced ? "traces it" : "does not trace it");
		}
	}
	traced = ftraced(list, FT_PARK, named);
	if (!traced || listed != active + 1) {
		note("%s:\n%s", FTRACED, list);
		free(list);
		return fail("%s: %d functions with skbprof's callback, %s; probes has %d active",
			    FTRACED, listed, traced ? FT_PARK " among them" :
			    "without " FT_PARK, active);
	}
	free(list);
	return active;
}

/* Write @cmd; then the armed groups must be @want. */
static int arm_as(const char *cmd, const char *want)
{
	struct table t;
	char got[512], *s;
	int err, n, f;

	err = write_file(CONTROL, cmd);
	CHECK(err == 0, "'%.*s': %s", (int)strcspn(cmd, "\n"), cmd, strerror(-err));
	if (armed_groups(got, sizeof(got)))
		return -1;
	if (strcmp(got, want)) {
		s = read_file(STATS);
		note("stats:\n%s", s);
		free(s);
		return fail("after '%.*s': armed '%s', want '%s'",
			    (int)strcspn(cmd, "\n"), cmd, got, want);
	}
	if (table_read(&t, "probes"))
		return -1;
	n = kprobes_match(&t);
	f = n < 0 ? -1 : ftrace_match(&t);
	table_free(&t);
	if (n < 0 || f < 0)
		return -1;
	note("%.*s: groups %s; %d kprobes, %d ftrace", (int)strcspn(cmd, "\n"),
	     cmd, want[0] ? want : "none", n, f);
	return 0;
}

#define RX_UDP	"rx-gro rx-drv rx-ip4 rx-ip6 rx-udp4 rx-udp6 rx-app " \
		"rx-app-udp rx-recv"
#define TX_TCP	"tx-app-tcp tx-tcp tx-ip4 tx-ip6 tx-dev tx-drv"
#define TX_UDP	"tx-udp4 tx-udp6 tx-ip4 tx-ip6 tx-dev tx-drv"
#define POINTS	"rx-gro rx-drv rx-ip4 rx-ip6 rx-tcp4 rx-tcp6 rx-udp4 rx-udp6 " \
		"rx-app rx-app-udp rx-recv tx-app-tcp tx-app-udp4 tx-app-udp6 " \
		"tx-tcp tx-udp4 tx-udp6 tx-ip4 tx-ip6 tx-dev tx-drv free-drop free"
/* kretprobes off (the default): the entries that end timelines */
#define ALL	POINTS " rekey-end tx-gso-end"
/* kretprobes on: the kretprobes that carry them on */
#define ALL_KRP	POINTS " rekey tx-gso"

/* The lifetime view's groups: its constructors (5.10 has no napi_build_skb). */
static const char *life_groups(void)
{
	return kallsyms_has("napi_build_skb") ?
	       "life-alloc life-build life-napi-alloc life-napi-build life-clone" :
	       "life-alloc life-build life-napi-alloc life-clone";
}

/* Each `stages` or `lifetime` write arms its views' groups and no other. */
TEST(arming_follows_views)
{
	char life[256], life_rx[512];
	int err;

	err = skbprof_load("stages=drops");
	CHECK(err == 0, "load: %s", strerror(-err));
	/* lifetime follows packets through software GSO and GRO too */
	snprintf(life, sizeof(life), "free-drop free tx-gso %s life-gro", life_groups());
	/* the receive groups feed GRO's tracker then, not life-gro */
	snprintf(life_rx, sizeof(life_rx), POINTS " rekey-end tx-gso tx-gso-end %s",
		 life_groups());
	/* kfree_skb's group, free-drop, counts drops and ends the others */
	if (arm_as("stages drops\n", "free-drop") ||
	    arm_as("stages ip-udp\n", RX_UDP " free-drop free rekey-end") ||
	    arm_as("stages app-tcp\n", TX_TCP
		   " free-drop free rekey-end tx-gso-end") ||
	    /* UDP's send calls only for the stages from tx app */
	    arm_as("stages udp-ip\n", TX_UDP
		   " free-drop free rekey-end tx-gso-end") ||
	    arm_as("stages app-udp\n", "tx-app-udp4 tx-app-udp6 " TX_UDP
		   " free-drop free rekey-end tx-gso-end") ||
	    arm_as("stages drv-ip,tx-total\n", ALL) ||
	    arm_as("stages drops\n", "free-drop") ||
	    arm_as("stages all\n", ALL) ||
	    /* the opt-in: the kretprobes instead of the entries, and back */
	    arm_as("kretprobes on\n", ALL_KRP) ||
	    arm_as("stages ip-udp\n", RX_UDP " free-drop free rekey") ||
	    arm_as("stages drops\n", "free-drop") ||
	    arm_as("stages all\n", ALL_KRP) ||
	    arm_as("kretprobes off\n", ALL) ||
	    arm_as("stages drops\n", "free-drop") ||
	    arm_as("lifetime 4\n", life) ||
	    arm_as("stages all\n", life_rx) ||
	    arm_as("stages drops\n", life) ||
	    arm_as("lifetime off\n", "free-drop"))
		return -1;
	CHECK(skbprof_unload() == 0, "unload");

	/* the load-time parameter is the same command */
	err = skbprof_load("lifetime_sample=16 stages=drops");
	CHECK(err == 0, "load: %s", strerror(-err));
	return arm_as("stages drops\n", life);
}

/*
 * The kretprobes the kernel's list holds enabled (" r  SYM+0x..." without
 * [DISABLED]), their names into @names; and the probes file's rows of an
 * active kretprobe into *@rows.  -1 when either cannot be read.
 */
static int kretprobes_enabled(char *names, size_t size, int *rows)
{
	char *list = read_file(KPROBES), sym[64];
	struct table probes;
	const char *q, *e;
	size_t len = 0;
	int n = 0, r;

	names[0] = 0;
	*rows = 0;
	if (table_read(&probes, "probes") || !list) {
		free(list);
		table_free(&probes);
		return fail("cannot read %s", KPROBES);
	}
	for (q = list; *q; q = e ? e + 1 : q + strlen(q)) {
		const char *r = strstr(q, "  r  "), *d = strstr(q, "[DISABLED]");

		e = strchr(q, '\n');
		if (!r || (e && r > e) || (d && (!e || d < e)))
			continue;
		n++;
		if (sscanf(r + 5, "%63[^+ ]", sym) == 1 && len < size)
			len += snprintf(names + len, size - len, "%s%s",
					len ? " " : "", sym);
	}
	for (r = 0; (r = table_find(&probes, r, "mechanism", "kretprobe",
				    "state", "active", NULL)) >= 0; r++)
		(*rows)++;
	free(list);
	table_free(&probes);
	return n;
}

/*
 * No kretprobe in the default views: loaded with no parameters (every
 * stage) and as the package's modprobe.d file loads it (stages=drops),
 * the kernel's list holds no enabled kretprobe, and the probes file says
 * the same; `kretprobes on` (or the parameter) arms the two that follow
 * timelines through pskb_expand_head() and software GSO, and `off` takes
 * them out again.  Lifetime, an opt-in of its own, keeps its kretprobes.
 */
TEST(arming_default_views_arm_no_kretprobe)
{
	static const char *const loads[] = { "", "stages=drops" };
	char names[512];
	size_t i;
	int n, rows, err;

	for (i = 0; i < sizeof(loads) / sizeof(loads[0]); i++) {
		err = skbprof_load(loads[i]);
		CHECK(err == 0, "load '%s': %s", loads[i], strerror(-err));
		n = kretprobes_enabled(names, sizeof(names), &rows);
		CHECK(n == 0 && rows == 0,
		      "loaded with '%s': the kernel lists %d enabled kretprobes (%s), the probes file %d active",
		      loads[i], n, names, rows);
		note("loaded with '%s': no kretprobe enabled", loads[i]);
		CHECK(skbprof_unload() == 0, "unload");
	}
	err = skbprof_load("kretprobes=on");
	CHECK(err == 0, "load kretprobes=on: %s", strerror(-err));
	n = kretprobes_enabled(names, sizeof(names), &rows);
	note("kretprobes=on: %s", names);
	CHECK(n == 2 && rows == 2 && strstr(names, "pskb_expand_head") &&
	      strstr(names, "__skb_gso_segment"),
	      "kretprobes=on: the kernel lists %d (%s), the probes file %d active",
	      n, names, rows);
	CHECK(write_file(CONTROL, "kretprobes off\n") == 0, "kretprobes off");
	n = kretprobes_enabled(names, sizeof(names), &rows);
	CHECK(n == 0 && rows == 0,
	      "kretprobes off: the kernel lists %d (%s), the probes file %d",
	      n, names, rows);
	CHECK(write_file(CONTROL, "kretprobes on\nstages drops\n") == 0,
	      "kretprobes on, stages drops");
	n = kretprobes_enabled(names, sizeof(names), &rows);
	CHECK(n == 0 && rows == 0,
	      "stages drops, kretprobes on: the kernel lists %d (%s), the probes file %d",
	      n, names, rows);
	return 0;
}

/* The state of stage @dir @stage in the stages file; "" when missing. */
static void stage_state_of(const char *dir, const char *stage, char *state,
			   size_t size)
{
	struct table t;
	const char *l = NULL;

	if (!table_read(&t, "stages"))
		l = table_str(&t, table_find(&t, 0, "dir", dir, "stage", stage,
					     NULL), "state");
	snprintf(state, size, "%s", l ? l : "");
	table_free(&t);
}

/*
 * Where a kretprobe alone serves a point (5.10 with skb_entail() inlined:
 * played here by probe_deny, TCP's tx app falls back to the return of
 * sk_stream_alloc_skb()), its group stays disarmed until `kretprobes on`,
 * and its stages say so: "needs-kretprobes", not "active".
 */
TEST(arming_kretprobe_point_needs_opt_in)
{
	char names[512], state[32];
	int n, rows, err;

	if (!kallsyms_has("skb_entail") || !kallsyms_has("sk_stream_alloc_skb")) {
		note("no skb_entail and sk_stream_alloc_skb (5.10's): nothing to play");
		return 0;
	}
	err = skbprof_load("probe_deny=skb_entail");
	CHECK(err == 0, "load: %s", strerror(-err));
	stage_state_of("tx", "app-tcp", state, sizeof(state));
	n = kretprobes_enabled(names, sizeof(names), &rows);
	note("skb_entail denied: tx app-tcp %s; %d kretprobes enabled (%s)", state, n, names);
	CHECK(!strcmp(state, "needs-kretprobes"), "tx app-tcp is '%s'", state);
	CHECK(n == 0 && rows == 0, "%d kretprobes enabled (%s), %d active rows", n, names, rows);
	CHECK(write_file(CONTROL, "kretprobes on\n") == 0, "kretprobes on");
	stage_state_of("tx", "app-tcp", state, sizeof(state));
	n = kretprobes_enabled(names, sizeof(names), &rows);
	note("kretprobes on: tx app-tcp %s; %d kretprobes enabled (%s)", state, n, names);
	CHECK(!strcmp(state, "active"), "kretprobes on: tx app-tcp is '%s'", state);
	CHECK(n == 3 && strstr(names, "sk_stream_alloc_skb"),
	      "kretprobes on: %d enabled (%s)", n, names);
	return 0;
}

/*
 * A write whose probes cannot be armed (probe_deny now plays a kernel
 * that lost rx-udp4's functions since the load) fails with their errno,
 * names the group, and leaves the configuration and the armed probes as
 * they were: the groups it armed before the failing one come out again.
 */
TEST(arming_refused_write_changes_nothing)
{
	char *before, *after;
	struct table t;
	int err, n;

	err = skbprof_load("stages=drops");
	CHECK(err == 0, "load: %s", strerror(-err));
	CHECK(write_file(PROBE_DENY, "udp_rcv,__udp4_lib_rcv") == 0,
	      "cannot write %s", PROBE_DENY);
	before = read_file(CONTROL);
	err = write_file(CONTROL, "stages ip-udp\n");
	after = read_file(CONTROL);
	CHECK(before && after, "reading control");
	CHECK(err == -ENOENT, "stages ip-udp with rx-udp4 gone: %s, want ENOENT",
	      err ? strerror(-err) : "accepted");
	CHECK(!strncmp(after, before, strstr(before, "last_error:") - before),
	      "the configuration changed:\n%s", after);
	CHECK(strstr(after, "last_error: cannot arm probe group rx-udp4: "),
	      "last_error does not name rx-udp4:\n%s", after);
	free(before);
	free(after);
	CHECK(table_read(&t, "probes") == 0, "probes");
	err = kprobes_match(&t);
	n = err ? -1 : ftrace_match(&t);
	table_free(&t);
	CHECK(err == 0, "%d kprobes armed after the refused write", err);
	CHECK(n == 0, "%d ftrace probes armed after the refused write", n);

	CHECK(write_file(PROBE_DENY, "\n") == 0, "cannot clear %s", PROBE_DENY);
	return arm_as("stages ip-udp\n", RX_UDP " free-drop free rekey-end");
}

/* Send datagrams to a closed port of 127.0.0.1 until killed; each is dropped. */
static void send_closed(void)
{
	struct sockaddr_in a = {
		.sin_family = AF_INET,
		.sin_port = htons(9),	/* discard: nobody listens */
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	while (fd >= 0)
		sendto(fd, "x", 1, 0, (struct sockaddr *)&a, sizeof(a));
	_exit(1);
}

/* What the kernel counts of the drops below: no port, or no backlog room. */
static long long kernel_drops(void)
{
	return snmp_value("Udp", "NoPorts") + softnet_dropped();
}


/*
 * Views switched on and off while packets are dropped: every write
 * succeeds, the kernel log stays clean (the harness checks it), and as
 * every configuration measures drops, the module counts every drop the
 * kernel counts (Udp NoPorts, softnet_stat's backlog drops), no more, no
 * less.
 */
TEST(arming_under_traffic_counts_exact)
{
	static const char *const views[] = {
		"stages all\n", "stages drops\n", "stages ip-udp,drops\nlifetime 2\n",
		"stages app-tcp,drops\n", "lifetime off\nstages drv-ip,drops\n",
		"stages drops\nlifetime 1\n", "stages all\nlifetime off\n",
	};
	const size_t nviews = sizeof(views) / sizeof(*views);
	long long before, want, got = -1;
	bool alive;
	size_t i;
	pid_t pid;
	int err;

	err = skbprof_load(NULL);
	CHECK(err == 0, "load: %s", strerror(-err));
	before = kernel_drops();
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0)
		send_closed();
	/* every switch twice, while the sender runs */
	for (i = 0, err = 0; i < 2 * nviews && !err; i++)
		err = write_file(CONTROL, views[i % nviews]);
	alive = waitpid(pid, NULL, WNOHANG) == 0;
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK(alive, "the sender stopped early");
	CHECK(err == 0, "write %zu: %s", i - 1, strerror(-err));
	/*
	 * Loopback delivery may finish later, and each kfree_skb follows
	 * its counter.  A flood also overflows the CPU's backlog, whose
	 * drops softnet_stat counts.
	 */
	want = kernel_drops() - before;
	for (i = 0; i < 3000 && (got = stat_value("drops_total")) < want; i++) {
		usleep(10000);
		want = kernel_drops() - before;
	}
	note("%zu writes while %lld datagrams were dropped; module counted %lld",
	     2 * nviews, want, got);
	CHECK(want > 0, "no datagram was dropped");
	CHECK_EQ(got, want);
	return 0;
}

/*
 * A second tracer on a function skbprof's callback serves: ftrace then
 * calls both through its list of ops instead of skbprof's trampoline.
 * The function tracer, filtered to udp_rcv and ip_rcv_core (ftrace on
 * every architecture, where a kprobe event is ftrace's only with kprobes
 * on ftrace), on while N datagrams cross loopback: its buffer has N
 * calls of udp_rcv, and skbprof's ip-udp and udp-app still count the N
 * datagrams InDatagrams counts.  The tracer goes again whatever happened.
 */
#define FT_FILTER	TRACING "/set_ftrace_filter"

/* Lines of the trace buffer that record a call of @fn. */
static long long traced_calls(const char *fn)
{
	char *s = read_file(TRACING "/trace"), *p, pat[64];
	long long n = 0;

	if (!s)
		return -1;
	snprintf(pat, sizeof(pat), " %s <-", fn);
	for (p = s; (p = strstr(p, pat)); p++)
		n++;
	free(s);
	return n;
}

static int second_tracer_counts(void)
{
	const int n = 40;
	unsigned long long ipudp, udpapp;
	long long in0, in1;
	char *s;

	/* the filter takes one name per write(); echo writes the rest again */
	CHECK(sh("echo udp_rcv ip_rcv_core > " FT_FILTER) == 0 &&
	      write_file(TRACING "/current_tracer", "function") == 0,
	      "cannot start the function tracer on udp_rcv and ip_rcv_core");
	CHECK(skbprof_load(NULL) == 0, "load");
	CHECK(write_file(CONTROL, "reset\n") == 0, "reset");
	s = read_file(TRACING "/enabled_functions");
	CHECK(s && strstr(s, "udp_rcv (2)"), "udp_rcv has not two tracers:\n%s",
	      s ? s : "(unreadable)");
	free(s);
	/* truncating clears the buffer (and below, the filter) */
	CHECK(sh(": > " TRACING "/trace") == 0, "cannot clear the trace");
	in0 = snmp_value("Udp", "InDatagrams");
	CHECK(sh("skbprof-traffic udp-pair 127.0.0.1 9130 %d", n) == 0, "traffic");
	in1 = snmp_value("Udp", "InDatagrams");
	CHECK_EQ(in1 - in0, n);
	CHECK_EQ(traced_calls("udp_rcv"), n);
	s = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(s, "latency");
	ipudp = row_count(s, "rx", "ip-udp");
	udpapp = row_count(s, "rx", "udp-app");
	if (ipudp != (unsigned long long)n || udpapp != (unsigned long long)n)
		note("latency:\n%s", s);
	free(s);
	CHECK(ipudp == (unsigned long long)n && udpapp == (unsigned long long)n,
	      "ip-udp %llu, udp-app %llu; InDatagrams rose by %d", ipudp,
	      udpapp, n);
	return 0;
}

TEST(arming_second_tracer_counts_same)
{
	int err = second_tracer_counts();

	write_file(TRACING "/current_tracer", "nop");
	sh(": > " FT_FILTER);
	sh(": > " TRACING "/trace");
	return err;
}
