// SPDX-License-Identifier: GPL-2.0
/*
 * kernel.ftrace_enabled and skbprof's ftrace_ops.
 *
 * With the sysctl at 0, ftrace calls nothing: neither skbprof's callback
 * nor a kprobe on ftrace's call site of a function (every function entry
 * on x86-64).  skbprof's ops is FTRACE_OPS_FL_PERMANENT, so while skbprof
 * is loaded the kernel refuses to set the sysctl to 0, and a load while
 * it is 0 registers no probe that cannot fire: those candidates say
 * "ftrace-disabled", and the kernel log says why.
 *
 * The ground truth: the sysctl's own read-back, the datagrams that
 * /proc/net/snmp counts against the hits of the probes on their path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

#define SYSCTL		"/proc/sys/kernel/ftrace_enabled"

static int ftrace_enabled(void)
{
	char *s = read_file(SYSCTL);
	int v = s ? atoi(s) : -1;

	free(s);
	return v;
}

/*
 * The probes of the groups a UDP/IPv4 datagram passes on loopback, each
 * once per datagram: after @n datagrams, each active one has at least @n
 * hits (since reset), and how many are unavailable for want of ftrace.
 * -1 (failed) when an active one has fewer: it cannot fire.
 */
static const char *const udp4_groups[] = { "rx-ip4", "rx-udp4", "tx-udp4", "tx-ip4" };

static int udp4_probes(const struct table *probes, long long n, int *active,
		       int *off)
{
	const char *g, *sym, *mech;
	long long hits;
	size_t i;
	int r;

	*active = *off = 0;
	for (i = 0; i < sizeof(udp4_groups) / sizeof(*udp4_groups); i++)
		for (r = 0; (r = table_find(probes, r, "group", udp4_groups[i],
					    NULL)) >= 0; r++) {
			g = table_str(probes, r, "group");
			sym = table_str(probes, r, "symbol");
			mech = table_str(probes, r, "mechanism");
			hits = table_num(probes, r, "hits");
			if (!strcmp(table_str(probes, r, "state"), "active")) {
				CHECK(hits >= n, "probe %s %s %s active with %lld hits; %lld datagrams sent",
				      g, sym, mech, hits, n);
				(*active)++;
			} else if (table_find(probes, r, "state", "unavailable",
					      "reason", "ftrace-disabled",
					      "error", "-16", NULL) == r) {
				(*off)++;
			}
		}
	return 0;
}

/* Send @n datagrams over loopback: UDP InDatagrams must count them all. */
static int send_udp4(int n)
{
	long long in0 = snmp_value("Udp", "InDatagrams");

	CHECK(sh("skbprof-traffic udp-pair 127.0.0.1 9131 %d", n) == 0, "traffic");
	CHECK_EQ(snmp_value("Udp", "InDatagrams") - in0, n);
	return 0;
}

/*
 * Reset, send @n datagrams, and judge the probes on their path
 * (udp4_probes()); the stats go to the log when they fail.
 */
static int udp4_counted(int n, int *active, int *off)
{
	struct table t;
	int err;

	CHECK(write_file(DEBUGFS_DIR "/control", "reset\n") == 0, "reset");
	if (send_udp4(n))
		return -1;
	CHECK(table_read(&t, "probes") == 0, "probes");
	err = udp4_probes(&t, n, active, off);
	if (err)
		note("probes:\n%s", t.text);
	table_free(&t);
	return err;
}

/*
 * Loaded, skbprof holds the sysctl at 1: writing 0 fails with EBUSY, the
 * sysctl still reads 1, and the probes keep counting every datagram.
 * With entry_ftrace=0 too (on x86-64 the kprobes sit on ftrace's sites).
 * Unloaded, the sysctl can be set to 0 again.
 */
static int sysctl_refused(const char *params)
{
	const int n = 50;
	int err, active, off;

	err = skbprof_load(params);
	CHECK(err == 0, "load %s: %s", params ? params : "", strerror(-err));
	err = write_file(SYSCTL, "0\n");
	CHECK(err == -EBUSY, "ftrace_enabled=0 with skbprof loaded (%s): %s, want EBUSY",
	      params ? params : "", err ? strerror(-err) : "accepted");
	CHECK_EQ(ftrace_enabled(), 1);
	if (udp4_counted(n, &active, &off))
		return -1;
	CHECK(active == 4 && off == 0, "%d active and %d ftrace-disabled probes on the datagrams' path, want 4 and 0",
	      active, off);
	note("%s: ftrace_enabled=0 refused (EBUSY); %d datagrams, 4 probes counted each",
	     params ? params : "defaults", n);
	CHECK(skbprof_unload() == 0, "unload");
	return 0;
}

TEST(ftrace_sysctl_refused_while_loaded)
{
	int err;

	CHECK_EQ(ftrace_enabled(), 1);
	if (sysctl_refused(NULL) || sysctl_refused("entry_ftrace=0"))
		return -1;
	/* skbprof gone: the sysctl is the administrator's again */
	err = write_file(SYSCTL, "0\n");
	CHECK(err == 0, "ftrace_enabled=0 after unload: %s", strerror(-err));
	CHECK_EQ(ftrace_enabled(), 0);
	CHECK(write_file(SYSCTL, "1\n") == 0, "ftrace_enabled=1");
	CHECK_EQ(ftrace_enabled(), 1);
	return 0;
}

/*
 * Loaded while the sysctl is 0: the kernel log says so; no probe on the
 * datagrams' path is active without firing.  Where kprobes sit on ftrace's
 * call sites (x86-64), every function entry there is unavailable: the
 * groups without another candidate are unserved, so the load is refused
 * (ENOENT) unless allow_unserved=1; where kprobes do not (arm64), kprobes
 * serve the entries and count every datagram.
 */
static int disabled_at_load(void)
{
	const int n = 50;
	int err, active, off, st;
	char *log;

	CHECK(write_file(SYSCTL, "0\n") == 0, "cannot set ftrace_enabled=0");
	sh("dmesg -c > /dev/null");
	err = skbprof_load(NULL);
	if (err) {
		CHECK(err == -ENOENT, "load: %s, want ENOENT (unserved) or success",
		      strerror(-err));
		err = skbprof_load("allow_unserved=1");
		CHECK(err == 0, "load allow_unserved=1: %s", strerror(-err));
	}
	if (udp4_counted(n, &active, &off))
		return -1;
	/* every group served by kprobes, or none (each candidate refused) */
	CHECK((active == 4 && !off) || (!active && off >= 4),
	      "%d active and %d ftrace-disabled probes on the datagrams' path",
	      active, off);
	/* counters' entry_probes value is the rest of its row */
	CHECK(!strcmp(stat_str("entry_probes"), "kprobe ftrace-disabled -16"),
	      "counters' entry_probes is '%s', want 'kprobe ftrace-disabled -16'",
	      stat_str("entry_probes"));
	log = sh_out(&st, "dmesg | grep 'skbprof: kernel.ftrace_enabled is 0'");
	CHECK(log && st == 0, "no kernel log line says ftrace_enabled is 0");
	free(log);
	note("loaded with ftrace_enabled=0: %d probes on the path counted %d datagrams each, %d ftrace-disabled",
	     active, n, off);
	return 0;
}

TEST(ftrace_disabled_at_load_reported)
{
	int err = disabled_at_load();

	skbprof_unload();
	write_file(SYSCTL, "1\n");
	if (err)
		return err;
	/*
	 * ftrace is whole: when skbprof's ops, the last, goes, ftrace checks
	 * that no record kept a flag (a kprobe armed on ftrace while the
	 * sysctl was 0 would leave one; ftrace would warn and die).
	 */
	CHECK(skbprof_load(NULL) == 0, "load with ftrace_enabled=1");
	CHECK(skbprof_unload() == 0, "unload");
	CHECK(path_exists("/sys/kernel/debug/tracing/enabled_functions"),
	      "no enabled_functions");
	return 0;
}

/*
 * A control write edits the callback's filter once for all the ftrace
 * entries it switches, where the kernel has ftrace_set_filter_ips() (6.1
 * on), else one entry at a time (5.10, or ftrace_batch=0).  Both must
 * leave the same entries armed after "stages drops" and "stages all"
 * alternate: the probes on a datagram's path each count every datagram
 * /proc/net/snmp counts.  What the batch saves is noted, not asserted
 * (make check times nothing): the function-call IPIs of text_poke's
 * rounds (x86-64: "CAL" in /proc/interrupts) and the time a switch takes.
 */
#define ROUNDS	10

/* The function-call IPIs of every CPU so far (/proc/interrupts). */
static long long call_ipis(void)
{
	char *s = sh_out(NULL, "grep 'Function call interrupts' /proc/interrupts");
	char *p = s ? strchr(s, ':') : NULL, *e;
	long long n = p ? 0 : -1, v;

	/* "CAL:  12  34  Function call interrupts": a column per CPU */
	while (p) {
		v = strtoll(++p, &e, 10);
		if (e == p)
			break;
		n += v;
		p = e - 1;
	}
	free(s);
	return n;
}

/* Switch ROUNDS times each way under @params; then every datagram counts. */
static int switch_and_count(const char *params)
{
	const int n = 50;
	unsigned long long t0, us;
	int i, active, off;
	long long i0, ipis;

	CHECK(skbprof_load(params) == 0, "load %s", params);
	i0 = call_ipis();
	t0 = clock_ns(CLOCK_MONOTONIC);
	for (i = 0; i < ROUNDS; i++) {
		CHECK(write_file(DEBUGFS_DIR "/control", "stages drops\n") == 0, "stages drops");
		CHECK(write_file(DEBUGFS_DIR "/control", "stages all\n") == 0, "stages all");
	}
	us = (clock_ns(CLOCK_MONOTONIC) - t0) / 1000 / (2 * ROUNDS);
	ipis = i0 < 0 ? -1 : (call_ipis() - i0) / (2 * ROUNDS);
	if (udp4_counted(n, &active, &off))
		return -1;
	CHECK(active == 4, "%s: %d probes active on the datagrams' path after %d switches, want 4",
	      params, active, 2 * ROUNDS);
	CHECK(skbprof_unload() == 0, "unload");
	note("%s: %d switches, %llu us and %lld function-call IPIs a switch; then %d datagrams, 4 probes counted each",
	     params, 2 * ROUNDS, us, ipis, n);
	return 0;
}

TEST(ftrace_stage_switch_batched)
{
	if (!kallsyms_has("ftrace_set_filter_ips"))
		note("no ftrace_set_filter_ips(): one edit per entry either way");
	if (switch_and_count("stages=all") ||
	    switch_and_count("stages=all ftrace_batch=0"))
		return -1;
	return 0;
}
