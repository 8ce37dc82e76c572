// SPDX-License-Identifier: GPL-2.0
/*
 * A Secure Boot host: the kernel locked down to integrity, as the lockdown
 * LSM does at boot under Secure Boot, here through securityfs.  Debugfs
 * then refuses every file that can be written, even to root; the control
 * file's twin in /proc/net/skbprof/ must carry the tool's filter, sample
 * and reset, checked against the packets sent, and a tool that finds no
 * twin must name lockdown.
 *
 * Then confidentiality, the level at which the kernel keeps its own
 * tracing data (LOCKDOWN_TRACEFS): the files that name packets or
 * processes (FLOW_FILES) are refused, every other file still reads, the
 * latency view's worst lines lose their flows, no packet trace starts,
 * and the tool says so.  Only a reboot lifts lockdown, and it refuses
 * unsigned modules: both levels are one test, run last (FINALTEST),
 * after the kmemleak scan.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
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
/* what lockdown=confidentiality refuses (module/skbprof.h, .flows) */
static const char *const flow_files[] = {
	"trace", "trace_records", "latency_worst", "procs", "inflight", NULL,
};


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
	char *lat = read_file(DEBUGFS_DIR "/latency_buckets");
	unsigned long long n = row_count(lat, "tx", "app-udp");

	free(lat);
	return n;
}

/* Lock the kernel down to @want; 0 when it says so. */
static int lock_down(const char *want)
{
	char line[32], *mode;
	int ok;

	if (!path_exists(LOCKDOWN) &&
	    sh("mount -t securityfs securityfs " SECURITYFS))
		return fail("cannot mount securityfs");
	mode = read_file(LOCKDOWN);
	if (!mode)
		return fail("no %s: the kernel has no lockdown LSM", LOCKDOWN);
	note("lockdown before: %s", mode);
	free(mode);
	snprintf(line, sizeof(line), "%s\n", want);
	if (write_file(LOCKDOWN, line))
		return fail("cannot lock the kernel down to %s", want);
	mode = read_file(LOCKDOWN);
	snprintf(line, sizeof(line), "[%s]", want);
	ok = mode && strstr(mode, line);
	free(mode);
	return ok ? 0 : fail("lockdown is not %s after the write", want);
}

static bool is_flow_file(const char *name)
{
	int i;

	for (i = 0; flow_files[i]; i++)
		if (!strcmp(name, flow_files[i]))
			return true;
	return false;
}

/* Every file of the module opens, but those of flow_files: EPERM. */
static int confidential_opens(void)
{
	struct dirent *de;
	int fd, n = 0, err = 0;
	DIR *d = opendir(DEBUGFS_DIR);

	if (!d)
		return fail("opendir %s: %s", DEBUGFS_DIR, strerror(errno));
	while (!err && (de = readdir(d))) {
		char path[512];
		bool flows = is_flow_file(de->d_name);

		if (de->d_name[0] == '.')
			continue;
		/* debugfs refuses control from integrity on: its twin reads */
		if (!strcmp(de->d_name, "control"))
			snprintf(path, sizeof(path), PROC_DIR "/control");
		else
			snprintf(path, sizeof(path), DEBUGFS_DIR "/%s", de->d_name);
		fd = open(path, O_RDONLY | O_NONBLOCK);
		if (flows && (fd >= 0 || errno != EPERM))
			err = fail("%s under confidentiality: %s", path,
				   fd >= 0 ? "opened" : strerror(errno));
		else if (!flows && fd < 0)
			err = fail("%s under confidentiality: %s", path,
				   strerror(errno));
		n += flows;
		if (fd >= 0)
			close(fd);
	}
	closedir(d);
	if (!err && n != 5)
		err = fail("%d of the 5 flow files are in %s", n, DEBUGFS_DIR);
	return err;
}

/* confidentiality, from integrity, with the module loaded and traffic seen */
static int confidentiality(void)
{
	char *s, *p;
	int st, worst = 0, hidden = 0;

	if (lock_down("confidentiality") || confidential_opens())
		return -1;
	/* the worst packets of latency: their times, not their flows */
	s = read_file(DEBUGFS_DIR "/latency");
	for (p = s; p && (p = strstr(p, "\nworst ")); p++)
		worst++;
	for (p = s; p && (p = strstr(p, " (flow, pid, comm: lockdown)\n")); p++)
		hidden++;
	CHECK(worst > 0 && hidden == worst && !strstr(s, "127.0.0.1"),
	      "latency under confidentiality: %d worst lines, %d without flows: %s",
	      worst, hidden, s);
	free(s);

	/* no packet trace starts; the rest of control works */
	CHECK(write_file(PROC_DIR "/control", "trace on\n") == -EPERM,
	      "trace on under confidentiality was not refused with EPERM");
	s = read_file(PROC_DIR "/control");
	CHECK(s && strstr(s, "trace off\n") && strstr(s, "last_error: trace: refused by the kernel's lockdown (confidentiality)"),
	      "control after trace on: %s", s);
	free(s);
	if (tool_exits(0, "control sample 3"))
		return -1;
	s = read_file(PROC_DIR "/control");
	CHECK(s && strstr(s, "sample 3\n"), "control after sample 3: %s", s);
	free(s);

	/* the tool: trace refused, latency without its worst packets */
	s = tool_out(&st, "control trace verbose");
	CHECK(st == 6 && s && strstr(s, "confidentiality"), "skbprof control trace verbose: exit %d: %s", st, s);
	free(s);
	s = tool_out(&st, "procs");
	CHECK(st == 6 && s && strstr(s, "lockdown (confidentiality)"), "skbprof procs: exit %d: %s", st, s);
	free(s);
	s = tool_out(&st, "-j latency");
	CHECK(st == 0 && s && strstr(s, "app-udp") && !strstr(s, "\"worst\"") &&
	      !strstr(s, "127.0.0.1"), "skbprof -j latency: exit %d: %s", st, s);
	free(s);
	return 0;
}

FINALTEST(lockdown_integrity_then_confidentiality)
{
	long long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long long kept;
	long long out0, out1;
	char *out;
	int fd, st;

	CHECK(skbprof_load("lifetime_sample=0") == 0, "load");
	CHECK(path_exists(PROC_DIR "/control"), "no %s/control", PROC_DIR);
	if (lock_down("integrity"))
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
	return confidentiality();
}
