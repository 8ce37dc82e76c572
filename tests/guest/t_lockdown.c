// SPDX-License-Identifier: GPL-2.0
/*
 * A Secure Boot host: the kernel locked down to integrity, as the lockdown
 * LSM does at boot under Secure Boot, here through securityfs.  Debugfs
 * then refuses every file that can be written, even to root; the control
 * file's twin in /proc/net/skbprof/ must carry the tool's filter, sample
 * and reset, checked against the packets sent, and a tool that finds no
 * twin must name lockdown.  Only a reboot lifts lockdown: the test runs
 * last (FINALTEST), after the kmemleak scan.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define SECURITYFS	"/sys/kernel/security"
#define LOCKDOWN	SECURITYFS "/lockdown"
#define PROC_DIR	"/proc/net/skbprof"
#define PORT_IN		9301	/* the filter's port */
#define PORT_OUT	9302	/* another */


/* Run the tool; fail unless it exits @want. */
static int tool_exits(int want, const char *args)
{
	char *out;
	int st;

	out = tool_out(&st, args);
	if (st != want)
		fail("skbprof %s: exit %d, want %d: %.300s", args, st, want,
		     out ? out : "");
	free(out);
	return st == want ? 0 : -1;
}

/* UDP datagrams over loopback to @port; 0 when all went out and back. */
static int udp_to(int port, int n)
{
	return sh("skbprof-traffic udp-pair 127.0.0.1 %d %d 64", port, n);
}

/* The tx app-udp count, from the module's latency file. */
static unsigned long long app_udp(void)
{
	char *lat = read_file(DEBUGFS_DIR "/latency");
	unsigned long long n = row_count(lat, "tx", "app-udp");

	free(lat);
	return n;
}

/* Lock the kernel down to integrity; 0 when it says so. */
static int lock_down(void)
{
	char *mode;
	int ok;

	if (!path_exists(LOCKDOWN) &&
	    sh("mount -t securityfs securityfs " SECURITYFS))
		return fail("cannot mount securityfs");
	mode = read_file(LOCKDOWN);
	if (!mode)
		return fail("no %s: the kernel has no lockdown LSM", LOCKDOWN);
	note("lockdown before: %s", mode);
	free(mode);
	if (write_file(LOCKDOWN, "integrity\n"))
		return fail("cannot lock the kernel down");
	mode = read_file(LOCKDOWN);
	ok = mode && strstr(mode, "[integrity]");
	free(mode);
	return ok ? 0 : fail("lockdown is not integrity after the write");
}

FINALTEST(lockdown_control_through_procfs)
{
	long long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long kept;
	long long out0, out1;
	char *out;
	int fd, st;

	CHECK(skbprof_load("lifetime_sample=0") == 0, "load");
	CHECK(path_exists(PROC_DIR "/control"), "no %s/control", PROC_DIR);
	if (lock_down())
		return -1;
	/* what lockdown does to debugfs: the ground of this test */
	fd = open(DEBUGFS_DIR "/control", O_WRONLY);
	CHECK(fd < 0 && errno == EPERM, "debugfs control opened for writing under lockdown");

	/* filter and sample: 1 in 2 of the datagrams to PORT_IN, none else */
	if (tool_exits(0, "filter proto udp dport 9301") ||
	    tool_exits(0, "control sample 2") || tool_exits(0, "reset"))
		return -1;
	out0 = snmp_value("Udp", "OutDatagrams");
	CHECK(udp_to(PORT_IN, 100) == 0 && udp_to(PORT_OUT, 50) == 0, "traffic");
	out1 = snmp_value("Udp", "OutDatagrams");
	CHECK_EQ(out1 - out0, 150);
	kept = app_udp();
	note("sample 2 of 100 to port %d (and 50 to %d): %llu", PORT_IN,
	     PORT_OUT, kept);
	/* the 1-in-N count runs per CPU: half, give or take one per CPU */
	CHECK(kept + ncpu >= 50 && kept <= 50 + (unsigned long long)ncpu,
	      "tx app-udp counted %llu of 100 matching, 50 other, sample 2", kept);

	/* reset, then every matching datagram */
	if (tool_exits(0, "control sample 1") || tool_exits(0, "reset"))
		return -1;
	CHECK_EQ(app_udp(), 0);
	out0 = snmp_value("Udp", "OutDatagrams");
	CHECK(udp_to(PORT_OUT, 20) == 0 && udp_to(PORT_IN, 30) == 0, "traffic");
	out1 = snmp_value("Udp", "OutDatagrams");
	CHECK_EQ(out1 - out0, 50);
	CHECK_EQ(app_udp(), 30);

	/* the configuration reads back, and a rejection names its token */
	out = tool_out(&st, "control");
	CHECK(st == 0 && out && strstr(out, "filter proto udp dport 9301\n") &&
	      strstr(out, "sample 1\n"), "skbprof control: exit %d: %s", st, out);
	free(out);
	out = tool_out(&st, "filter 'port 70000'");
	CHECK(st == 3 && out && strstr(out, "70000"), "rejected filter: exit %d: %s",
	      st, out);
	free(out);
	CHECK(tool_exits(0, "-j latency") == 0, "views under lockdown");

	/*
	 * No twin, as with an older module: the tool, in a mount namespace
	 * whose /proc is an empty tmpfs, names lockdown, exit 6.
	 */
	out = sh_out(&st, "unshare -m sh -c 'mount -t tmpfs none /proc && "
		     TOOL " reset' 2>&1");
	CHECK(st == 6 && out && strstr(out, "lockdown (integrity)"),
	      "skbprof reset without the twin: exit %d: %s", st, out);
	free(out);
	out = tool_out(&st, "-j control");
	CHECK(st == 0 && out && strstr(out, "9301"), "after: exit %d: %s", st, out);
	free(out);
	return 0;
}
