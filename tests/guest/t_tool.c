// SPDX-License-Identifier: GPL-2.0
/*
 * The reader tool (/bin/skbprof) against the live module.  Its JSON is
 * parsed here with json-c and its numbers compared with ground truths the
 * kernel keeps itself (/proc/net/snmp) or the packets this test sent.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define CONTROL		DEBUGFS_DIR "/control"
#define CLOSED_PORT	9

/* A counter of /proc/net/snmp's "Udp:" lines, by name; -1 if missing. */
static long long udp_ctr(const char *field)
{
	char *s = read_file("/proc/net/snmp"), *names = NULL, *vals = NULL;
	char *line, *save = NULL, *a, *b, *sa = NULL, *sb = NULL;
	long long v = -1;

	if (!s)
		return -1;
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "Udp: ", 5))
			continue;
		if (!names)
			names = line;
		else
			vals = line;
	}
	if (names && vals) {
		a = strtok_r(names + 5, " ", &sa);
		b = strtok_r(vals + 5, " ", &sb);
		while (a && b) {
			if (!strcmp(a, field)) {
				v = atoll(b);
				break;
			}
			a = strtok_r(NULL, " ", &sa);
			b = strtok_r(NULL, " ", &sb);
		}
	}
	free(s);
	return v;
}

struct noports_want {
	long long noports, drops;
};

static bool noports_reached(void *arg)
{
	return udp_ctr("NoPorts") >= ((struct noports_want *)arg)->noports;
}

static bool drops_reached(void *arg)
{
	return (long long)drops_at(udp_noport_fn(AF_INET)) >=
	       ((struct noports_want *)arg)->drops;
}

/*
 * Send n datagrams to 127.0.0.1:CLOSED_PORT; wait until NoPorts saw them,
 * and then the module (its kfree_skb follows the counter, maybe late).
 */
static int udp_to_closed_port(int n, long long *noports_delta)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET, .sin_port = htons(CLOSED_PORT),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	long long before = udp_ctr("NoPorts");
	struct noports_want w = { before + n, 0 };
	unsigned long long d0 = drops_at(udp_noport_fn(AF_INET));
	int fd, i;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	for (i = 0; i < n; i++)
		if (sendto(fd, "x", 1, 0, (struct sockaddr *)&sin, sizeof(sin)) != 1) {
			close(fd);
			return -errno;
		}
	close(fd);
	if (!wait_until(noports_reached, &w, WAIT_MS))
		note("NoPorts below %lld after %d ms", w.noports, WAIT_MS);
	*noports_delta = udp_ctr("NoPorts") - before;
	w.drops = d0 + *noports_delta;
	if (!wait_until(drops_reached, &w, WAIT_MS))
		note("fewer than %lld drops after %d ms", w.drops, WAIT_MS);
	return 0;
}


/* The drops row in UDP receive for ipv4/udp, or NULL. */
static json_object *udp_drop_obj(json_object *rows)
{
	char at[64];
	size_t i;

	snprintf(at, sizeof(at), "%s+", udp_noport_fn(AF_INET));
	for (i = 0; i < json_object_array_length(rows); i++) {
		json_object *r = json_object_array_get_idx(rows, i), *loc, *proto;

		if (!json_object_object_get_ex(r, "location", &loc) ||
		    !json_object_object_get_ex(r, "proto", &proto) ||
		    !json_object_object_get_ex(r, "count", NULL))
			continue;
		if (!strncmp(json_object_get_string(loc), at, strlen(at)) &&
		    !strcmp(json_object_get_string(proto), "ipv4/udp"))
			return r;
	}
	return NULL;
}

/* The count of the drops row in UDP receive for ipv4/udp, or -1. */
static long long udp_drop_row(json_object *rows)
{
	json_object *r = udp_drop_obj(rows), *c;

	if (!r || !json_object_object_get_ex(r, "count", &c))
		return -1;
	return json_object_get_int64(c);
}

/* "2026-11-23T08:41:47.123456Z" in ns since 1970; -1 if it is not that. */
static long long utc_ns(json_object *o, const char *key)
{
	struct tm tm = { 0 };
	json_object *v;
	const char *s, *e;
	unsigned int us;
	int n = 0;

	if (!json_object_object_get_ex(o, key, &v) || !(s = json_object_get_string(v)))
		return -1;
	e = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!e || sscanf(e, ".%6u%n", &us, &n) != 1 || n != 7 || strcmp(e + n, "Z"))
		return -1;
	return (long long)timegm(&tm) * 1000000000LL + us * 1000LL;
}

TEST(tool_views)
{
	static const char *const views[] = {
		"stats", "drops", "latency", "procs", "cgroups", "lifetime",
		"softnet", "control", "prom", "filter", NULL
	};
	char args[64], *out;
	json_object *o;
	int i, st;

	CHECK(skbprof_load(NULL) == 0, "load");
	for (i = 0; views[i]; i++) {
		out = tool_out(&st, views[i]);
		CHECK(st == 0, "skbprof %s: exit %d: %s", views[i], st, out);
		CHECK(strlen(out) > 0, "skbprof %s printed nothing", views[i]);
		free(out);
		if (!strcmp(views[i], "prom"))
			continue;
		snprintf(args, sizeof(args), "-j %s", views[i]);
		out = tool_out(&st, args);
		o = json_tokener_parse(out);
		CHECK(st == 0 && o, "skbprof -j %s: exit %d, not JSON: %.300s", views[i], st, out);
		json_object_put(o);
		free(out);
	}
	return 0;
}

/*
 * Every counters line of the live module, with every view on, is one the
 * tool declares (a type and a unit): prom says nothing on stderr, with
 * the defaults or --detail all, and types each skbprof_stats_ series as
 * a counter or a gauge.
 */
TEST(tool_prom_knows_every_counter)
{
	static const char *const runs[] = { "prom", "--detail all prom" };
	char *out;
	size_t i;
	int st;

	CHECK(skbprof_load(NULL) == 0, "load");
	CHECK(write_file(CONTROL, "softnet on\nlifetime 4\ntrace on\nprocs stages\n") == 0,
	      "control");
	CHECK(sh("skbprof-traffic udp-pair 127.0.0.1 9141 20 100") == 0, "traffic");
	for (i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
		out = sh_out(&st, TOOL " %s 2>&1 >/dev/null", runs[i]);
		CHECK(st == 0 && !*out, "skbprof %s: exit %d, stderr: %.500s", runs[i], st, out);
		free(out);
	}
	out = tool_out(&st, "prom | awk '$2 == \"TYPE\" && $3 ~ /^skbprof_stats_/ && "
			    "$4 != \"counter\" && $4 != \"gauge\"'");
	CHECK(st == 0 && !*out, "untyped stats: %.300s", out);
	free(out);
	out = tool_out(&st, "prom");
	CHECK(strstr(out, "\nskbprof_up 1\n") && strstr(out, "\nskbprof_stats_table_full_total "),
	      "no skbprof_up 1 or table_full: %.300s", out);
	free(out);
	return 0;
}

/* N datagrams to a closed port: the drops row and the prom counter. */
TEST(tool_drops_equal_snmp)
{
	long long delta = 0, got, first, last;
	long long r0, r1;
	json_object *o, *rows;
	char *out, want[64];
	int st;

	CHECK(skbprof_load(NULL) == 0, "load");
	CHECK(write_file(CONTROL, "reset\n") == 0, "reset");
	r0 = clock_ns(CLOCK_REALTIME);
	CHECK(udp_to_closed_port(23, &delta) == 0, "send");
	r1 = clock_ns(CLOCK_REALTIME);
	CHECK_EQ(delta, 23);
	out = tool_out(&st, "drops -j");
	o = json_tokener_parse(out);
	CHECK(st == 0 && o, "skbprof drops -j: exit %d: %.300s", st, out);
	CHECK(json_object_object_get_ex(o, "drops", &rows), "no drops key: %.300s", out);
	got = udp_drop_row(rows);
	CHECK(got == delta, "drops row count %lld, NoPorts rose by %lld: %.500s", got, delta, out);
	/*
	 * The row's wall-clock times: within the time we sent (to 1 ms: the
	 * drops' boot clock and the reference pair are read separately).
	 */
	first = utc_ns(udp_drop_obj(rows), "first_utc");
	last = utc_ns(udp_drop_obj(rows), "last_utc");
	CHECK(first >= r0 - 1000000 && first <= last && last <= r1 + 1000000,
	      "first_utc %lld last_utc %lld ns, sent within [%lld, %lld]: %.500s",
	      first, last, r0, r1, out);
	json_object_put(o);
	free(out);

	out = tool_out(&st, "prom");
	CHECK(st == 0, "skbprof prom: exit %d", st);
	snprintf(want, sizeof(want), "} %lld\n", delta);
	{
		char *l = strstr(out, "skbprof_drops_total{reason="), at[80];

		snprintf(at, sizeof(at), "location=\"%s\"", udp_noport_fn(AF_INET));
		while (l && !(strstr(l, at) && strstr(l, at) < strchr(l, '\n')))
			l = strstr(l + 1, "skbprof_drops_total{reason=");
		CHECK(l, "no skbprof_drops_total for %s: %.800s",
		      udp_noport_fn(AF_INET), out);
		CHECK(strstr(l, want) && strstr(l, want) < strchr(l, '\n') + 1,
		      "prom counter is not %lld: %.200s", delta, l);
	}
	free(out);
	return 0;
}

/* The tool's tx app-udp count equals the kernel's OutDatagrams rise. */
TEST(tool_latency_equals_snmp)
{
	long long out0, out1, got = -1;
	json_object *o, *rows;
	char *out;
	size_t i;
	int st;

	CHECK(skbprof_load("lifetime_sample=0") == 0, "load");
	CHECK(write_file(CONTROL, "reset\n") == 0, "reset");
	out0 = udp_ctr("OutDatagrams");
	CHECK(sh("skbprof-traffic udp-pair 127.0.0.1 9100 40 100") == 0, "traffic");
	out1 = udp_ctr("OutDatagrams");
	CHECK_EQ(out1 - out0, 40);
	out = tool_out(&st, "-j latency");
	o = json_tokener_parse(out);
	CHECK(st == 0 && o, "skbprof -j latency: exit %d: %.300s", st, out);
	CHECK(json_object_object_get_ex(o, "stages", &rows), "no stages");
	for (i = 0; i < json_object_array_length(rows); i++) {
		json_object *r = json_object_array_get_idx(rows, i), *d, *s, *c;

		if (json_object_object_get_ex(r, "dir", &d) &&
		    json_object_object_get_ex(r, "stage", &s) &&
		    json_object_object_get_ex(r, "count", &c) &&
		    !strcmp(json_object_get_string(d), "tx") &&
		    !strcmp(json_object_get_string(s), "app-udp"))
			got = json_object_get_int64(c);
	}
	CHECK(got == out1 - out0, "tx app-udp count %lld, OutDatagrams rose by %lld: %.600s",
	      got, out1 - out0, out);
	json_object_put(o);
	free(out);
	return 0;
}

/* `skbprof @args` succeeds and the control file then shows @line. */
static int tool_filter_set(const char *args, const char *line)
{
	char *out, *ctl;
	int st;

	out = tool_out(&st, args);
	CHECK(st == 0, "skbprof %s: exit %d: %s", args, st, out);
	free(out);
	ctl = read_file(CONTROL);
	CHECK(ctl && strstr(ctl, line), "control: %s", ctl);
	free(ctl);
	return 0;
}

TEST(tool_filter)
{
	char *out, *ctl;
	int st;

	CHECK(skbprof_load(NULL) == 0, "load");
	/* rejected: the kernel's last_error names the token; nothing changes */
	out = tool_out(&st, "filter 'port 70000'");
	CHECK(st == 3, "skbprof filter 'port 70000': exit %d, want 3: %s", st, out);
	CHECK(strstr(out, "70000") && strstr(out, "rejected"), "message: %s", out);
	free(out);
	ctl = read_file(CONTROL);
	CHECK(ctl && strstr(ctl, "filter clear\n") && strstr(ctl, "last_error: ") &&
	      strstr(strstr(ctl, "last_error: "), "70000"), "control: %s", ctl);
	free(ctl);
	out = tool_out(&st, "-j filter 'port 70000'");
	CHECK(st == 3 && strstr(out, "\"errno\":22") && strstr(out, "70000"), "json: %d %s", st, out);
	free(out);

	if (tool_filter_set("filter 'port 5000'", "filter port 5000\n"))
		return -1;
	out = tool_out(&st, "filter");
	CHECK(st == 0 && !strcmp(out, "filter port 5000\n"), "skbprof filter: %d %s", st, out);
	free(out);
	return tool_filter_set("filter clear", "filter clear\n");
}

TEST(tool_reset)
{
	long long delta = 0;
	json_object *o, *rows;
	char *out;
	int st;

	CHECK(skbprof_load(NULL) == 0, "load");
	CHECK(udp_to_closed_port(5, &delta) == 0, "send");
	out = tool_out(&st, "reset");
	CHECK(st == 0, "skbprof reset: exit %d: %s", st, out);
	free(out);
	out = tool_out(&st, "-j drops");
	o = json_tokener_parse(out);
	CHECK(st == 0 && o && json_object_object_get_ex(o, "drops", &rows), "drops: %s", out);
	CHECK(udp_drop_row(rows) == -1, "a udp row survived reset: %s", out);
	json_object_put(o);
	free(out);
	return 0;
}

#define MODVER		"/sys/module/skbprof/version"
#define FAKE_MODVER	"/tmp/skbprof-fake-version"

/*
 * The tool's version (VERSION, as this program's) and the loaded
 * module's (its MODULE_VERSION, which the kernel shows in MODVER): the
 * same, no warning.  A module of another version, made by mounting a
 * file over MODVER: --version prints both, and every view warns on
 * stderr, once, naming both, while its stdout (JSON too) and its exit
 * status stay as they were.
 */
TEST(tool_version_mismatch)
{
	char *ver = NULL, *out = NULL, want[128];
	json_object *o = NULL;
	int st, rc = -1;

	CHECK(skbprof_load(NULL) == 0, "load");
	ver = read_file(MODVER);
	CHECK(ver && !strcmp(ver, SKBPROF_VERSION "\n"), "%s: %s, want %s",
	      MODVER, ver ? ver : "(none)", SKBPROF_VERSION);
	free(ver);
	out = tool_out(&st, "--version");
	snprintf(want, sizeof(want), "skbprof %s\nmodule %s\n", SKBPROF_VERSION,
		 SKBPROF_VERSION);
	CHECK(st == 0 && !strcmp(out, want), "--version: exit %d: %s", st, out);
	free(out);
	out = sh_out(&st, TOOL " stats 2>&1 >/dev/null");
	CHECK(st == 0 && !*out, "stats, same versions: exit %d, stderr %s", st, out);
	free(out);
	out = NULL;

	CHECK(sh("echo 9.9.9 > " FAKE_MODVER) == 0, "write " FAKE_MODVER);
	CHECK(sh("mount -o bind " FAKE_MODVER " " MODVER) == 0,
	      "mount over " MODVER);
	out = tool_out(&st, "--version");
	snprintf(want, sizeof(want), "skbprof %s\nmodule 9.9.9\n", SKBPROF_VERSION);
	if (st || !strstr(out, want)) {
		fail("--version, module 9.9.9: exit %d: %s", st, out);
		goto out;
	}
	free(out);
	snprintf(want, sizeof(want),
		 "skbprof: warning: the tool is version %s, the loaded module 9.9.9 (",
		 SKBPROF_VERSION);
	out = sh_out(&st, TOOL " stats 2>&1 >/dev/null");
	if (st || strncmp(out, want, strlen(want)) ||
	    strchr(out, '\n') != out + strlen(out) - 1) {
		fail("stats, module 9.9.9: exit %d, stderr %s", st, out);
		goto out;
	}
	free(out);
	out = sh_out(&st, TOOL " -j drops 2>/dev/null");
	o = json_tokener_parse(out);
	if (st || !o || !json_object_object_get_ex(o, "drops", NULL)) {
		fail("-j drops, module 9.9.9: exit %d: %s", st, out);
		goto out;
	}
	free(out);
	out = sh_out(&st, TOOL " reset 2>&1 >/dev/null");
	if (st || strncmp(out, want, strlen(want))) {
		fail("reset, module 9.9.9: exit %d, stderr %s", st, out);
		goto out;
	}
	rc = 0;
out:
	json_object_put(o);
	free(out);
	sh("umount " MODVER);
	unlink(FAKE_MODVER);
	return rc;
}

TEST(tool_not_loaded)
{
	char *out;
	int st;

	if (module_loaded("skbprof"))
		CHECK(skbprof_unload() == 0, "unload");
	out = tool_out(&st, "stats");
	CHECK(st == 4 && strstr(out, "module not loaded"), "exit %d: %s", st, out);
	free(out);
	out = tool_out(&st, "-j drops");
	CHECK(st == 4 && strstr(out, "\"errno\":2"), "exit %d: %s", st, out);
	free(out);
	out = tool_out(&st, "nosuchview");
	CHECK(st == 2, "unknown view: exit %d", st);
	free(out);
	/* debugfs not mounted: said so, not "module not loaded" */
	CHECK(sh("umount /sys/kernel/debug") == 0, "umount debugfs");
	out = tool_out(&st, "stats");
	CHECK(sh("mount -t debugfs debugfs /sys/kernel/debug && chmod 0700 /sys/kernel/debug") == 0,
	      "mount debugfs again");
	CHECK(st == 1 && strstr(out, "debugfs is not mounted"), "exit %d: %s", st, out);
	free(out);
	return 0;
}

/* Start the tool in the background with stdout to @path. */
static pid_t tool_bg(const char *path, char *const argv[])
{
	pid_t pid = fork();
	int fd;

	if (pid == 0) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0)
			_exit(127);
		dup2(fd, 1);
		execv(TOOL, argv);
		_exit(127);
	}
	return pid;
}

/* Count of lines of @s holding every one of the needles. */
static int count_lines(const char *s, const char *n1, const char *n2)
{
	const char *l = s, *e;
	char line[2048];
	int n = 0;

	while (l && *l) {
		e = strchr(l, '\n');
		snprintf(line, sizeof(line), "%.*s", (int)(e ? e - l : (long)strlen(l)), l);
		if (strstr(line, n1) && strstr(line, n2))
			n++;
		l = e ? e + 1 : NULL;
	}
	return n;
}

struct lines_want {
	const char *path;
	long long n;
};

/* Has the tool written @n drop lines for port 9 yet (it flushes each)? */
static bool trace_lines_out(void *arg)
{
	const struct lines_want *w = arg;
	char *out = read_file(w->path);
	int n = out ? count_lines(out, "\"type\":\"drop\"", "\"dport\":9}") : 0;

	free(out);
	return n >= w->n;
}

TEST(tool_trace)
{
	char *const argv[] = { "skbprof", "-j", "trace", NULL };
	struct lines_want w = { "/tmp/trace.jsonl", 0 };
	long long delta = 0;
	char *out;
	pid_t pid;
	int st;

	CHECK(skbprof_load("trace=on") == 0, "load");
	pid = tool_bg("/tmp/trace.jsonl", argv);
	CHECK(pid > 0, "fork");
	/* reading consumes: lines made before the tool opens the file wait */
	CHECK(udp_to_closed_port(7, &delta) == 0, "send");
	w.n = delta;
	if (!wait_until(trace_lines_out, &w, WAIT_MS))
		note("fewer than %lld drop lines from the tool after %d ms",
		     delta, WAIT_MS);
	kill(pid, SIGINT);
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "skbprof trace ended with status 0x%x", st);
	out = read_file("/tmp/trace.jsonl");
	CHECK(out, "no output");
	CHECK_EQ(count_lines(out, "\"type\":\"drop\"", "\"dport\":9}"), delta);
	free(out);
	return 0;
}

/*
 * /proc/PID/syscall of @pid: the syscall's number (-1 for a task blocked
 * outside one, as a stopped task is on arm64, which forgets the
 * interrupted call before it stops) and the user pc, its last field.
 * False when it is running or gone.
 */
static bool syscall_at(pid_t pid, long *nr, unsigned long long *pc)
{
	char path[64], *s, *last;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	s = read_file(path);
	last = s ? strrchr(s, ' ') : NULL;
	ok = last && sscanf(s, "%ld", nr) == 1 &&
	     sscanf(last, " 0x%llx", pc) == 1;
	free(s);
	return ok;
}

struct hold {
	pid_t pid;
	int status;
	bool ended;
};

/*
 * Stop the tool; keep it stopped if that caught it asleep: it was in a
 * sleep just before, and stopped at the sleep's return, or on the system
 * call instruction before it (arm64 rewinds the pc there to restart the
 * interrupted call before the task stops; 4 bytes, as every instruction).
 */
static bool held_asleep(void *arg)
{
	struct hold *h = arg;
	unsigned long long pc, stopped_pc;
	long nr;

	if (!syscall_at(h->pid, &nr, &pc) ||
	    (nr != SYS_clock_nanosleep && nr != SYS_restart_syscall
#ifdef SYS_nanosleep
	     && nr != SYS_nanosleep
#endif
	     ))
		return false;
	kill(h->pid, SIGSTOP);
	if (waitpid(h->pid, &h->status, WUNTRACED) != h->pid ||
	    !WIFSTOPPED(h->status)) {
		h->ended = true;
		return true;
	}
	if (syscall_at(h->pid, &nr, &stopped_pc) &&
	    (stopped_pc == pc || stopped_pc + 4 == pc))
		return true;
	kill(h->pid, SIGCONT);
	return false;
}

/* top: a frame over an interval in which N datagrams were dropped. */
TEST(tool_top)
{
	char *const argv[] = { "skbprof", "top", "-j", "-n", "1", "-i", "5", NULL };
	struct hold h = { -1, 0, false };
	long long delta = 0;
	json_object *o;
	char *out, want[64], at[64];
	pid_t pid;
	int st;

	CHECK(skbprof_load(NULL) == 0, "load");
	CHECK(udp_to_closed_port(4, &delta) == 0, "send before");
	pid = tool_bg("/tmp/top.json", argv);
	CHECK(pid > 0, "fork");
	/*
	 * After the tool's first reading of latency and drops, before its
	 * second: the only sleep of top -n 1 lies between them.  Stopped in
	 * it, the tool takes the second reading once continued, however
	 * long the sending takes.
	 */
	h.pid = pid;
	if (!wait_until(held_asleep, &h, WAIT_MS) || h.ended) {
		if (!h.ended) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		return fail("could not stop skbprof top in its interval (status 0x%x)",
			    h.status);
	}
	st = udp_to_closed_port(11, &delta);
	kill(pid, SIGCONT);
	CHECK(st == 0, "send");
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "skbprof top ended with status 0x%x", st);
	out = read_file("/tmp/top.json");
	o = out ? json_tokener_parse(out) : NULL;
	CHECK(o, "not JSON: %s", out);
	json_object_put(o);
	/* the interval's count, not the 4 + 11 since load */
	snprintf(want, sizeof(want), "{\"count\":%lld,", delta);
	snprintf(at, sizeof(at), "%s+", udp_noport_fn(AF_INET));
	CHECK(count_lines(out, want, at) == 1 &&
	      strstr(out, "\"drops_count\":11,"), "want 11 drops in the frame: %s", out);
	free(out);
	return 0;
}
