// SPDX-License-Identifier: GPL-2.0
/*
 * The control file: its syntax as read back, round trips, the documented
 * errors, privilege, module parameters and concurrent writers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define CONTROL DEBUGFS_DIR "/control"
#define DEFAULT_CONFIG "filter clear\nsample 1\nstages all\nlifetime off\nprocs totals\nsoftnet off\nkretprobes off\ntrace off\n"

/* write(2) of exactly len bytes in one call; 0 or -errno. */
static int write_raw(const char *data, size_t len)
{
	int fd = open(CONTROL, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write(fd, data, len);
	if (n < 0)
		n = -errno;
	close(fd);
	return n < 0 ? n : (size_t)n == len ? 0 : -EIO;
}

static char *control(void)
{
	char *s = read_file(CONTROL);

	if (!s) {
		fail("reading control: %s", strerror(errno));
		return NULL;
	}
	return s;
}

/* Does control read as the configuration @cfg (before last_error)? */
static bool control_is(const char *cfg)
{
	char *s = read_file(CONTROL);
	bool same = s && !strncmp(s, cfg, strlen(cfg));

	if (!same)
		note("control reads '%s', want '%s'", s ? s : "(nothing)", cfg);
	free(s);
	return same;
}

TEST(control_reads_defaults)
{
	char *s;
	int err;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	s = control();
	CHECK(s, "no control");
	if (strcmp(s, DEFAULT_CONFIG "last_error: none\n")) {
		fail("control reads '%s'", s);
		free(s);
		return -1;
	}
	free(s);
	return 0;
}

TEST(control_round_trips)
{
	static const char *const set =
		"filter proto udp family ipv6 src 2001:db8::/32 dport 53 dev veth0 mark 0x9999/0xffff\n"
		"sample 10\nstages drv-ip,udp-app,drops\nlifetime off\nprocs totals\nsoftnet off\nkretprobes off\ntrace verbose\n";
	char *first, *second;
	int err;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	err = write_file(CONTROL, set);
	CHECK(err == 0, "writing the configuration: %s", strerror(-err));
	first = control();
	CHECK(first, "no control");
	if (strncmp(first, set, strlen(set))) {
		fail("wrote '%s', read '%s'", set, first);
		free(first);
		return -1;
	}
	/* cat control > saved; reset to defaults; cat saved > control */
	err = write_file(CONTROL, DEFAULT_CONFIG);
	CHECK(err == 0, "writing defaults: %s", strerror(-err));
	err = write_file(CONTROL, first);
	if (err) {
		free(first);
		return fail("writing back what control read: %s", strerror(-err));
	}
	second = control();
	if (!second || strcmp(first, second)) {
		fail("read '%s' after writing it back, got '%s'", first,
		     second ? second : "(nothing)");
		free(first);
		free(second);
		return -1;
	}
	free(first);
	free(second);
	return 0;
}

struct bad_write {
	const char *data;
	size_t len;		/* 0: strlen(data) */
	int err;
	const char *msg;	/* in last_error */
};

TEST(control_rejects_bad_input)
{
	static const struct bad_write cases[] = {
		{ "frobnicate\n", 0, -EINVAL, "unknown command 'frobnicate'" },
		{ "filter port 70000\n", 0, -EINVAL, "port: '70000' is not a port" },
		{ "filter host 999.1.1.1\n", 0, -EINVAL, "'999.1.1.1' is not an IPv4 or IPv6 address" },
		{ "filter\n", 0, -EINVAL, "filter: no terms" },
		{ "filter port 80\0\n", 16, -EINVAL, "NUL byte at offset 14" },
		{ "sample 5", 0, -EINVAL, "partial line 'sample 5'" },
		{ "sample 5\nfilter port 1 bogus 2\n", 0, -EINVAL, "unknown term 'bogus'" },
		{ "sample 0\n", 0, -EINVAL, "sample: '0'" },
		{ "stages drv-ip,nowhere\n", 0, -EINVAL, "unknown stage 'nowhere'" },
		{ "trace maybe\n", 0, -EINVAL, "trace: 'maybe'" },
		{ "lifetime never\n", 0, -EINVAL, "lifetime: 'never'" },
		{ "procs some\n", 0, -EINVAL, "procs: 'some' is not totals or stages" },
	};
	static const char *const set = "filter port 7\nsample 3\nstages all\nlifetime off\nprocs totals\nsoftnet off\nkretprobes off\ntrace off\n";
	char want[512], *s, *big;
	size_t i;
	int err;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	err = write_file(CONTROL, set);
	CHECK(err == 0, "writing the configuration: %s", strerror(-err));
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		const struct bad_write *c = &cases[i];

		err = write_raw(c->data, c->len ? c->len : strlen(c->data));
		CHECK(err == c->err, "'%s' gave %d, want %d", c->data, err, c->err);
		s = control();
		CHECK(s, "no control");
		snprintf(want, sizeof(want), "%slast_error: ", set);
		if (strncmp(s, want, strlen(want)) || !strstr(s, c->msg)) {
			fail("after '%s' control reads '%s', want the old "
			     "configuration and '%s'", c->data, s, c->msg);
			free(s);
			return -1;
		}
		free(s);
	}

	/* a 1 MB write */
	big = malloc(1 << 20);
	CHECK(big, "malloc");
	memset(big, '\n', 1 << 20);
	err = write_raw(big, 1 << 20);
	free(big);
	CHECK(err == -E2BIG, "1 MB write gave %d, want -E2BIG", err);
	s = control();
	CHECK(s, "no control");
	if (strncmp(s, set, strlen(set)) || !strstr(s, "1048576 bytes")) {
		fail("after a 1 MB write control reads '%s'", s);
		free(s);
		return -1;
	}
	free(s);

	/* the kernel log names the offending token too */
	s = sh_out(NULL, "dmesg | grep 'skbprof: control:' | tail -n 20");
	if (!strstr(s, "unknown command 'frobnicate'")) {
		fail("kernel log lacks the first rejection: '%s'", s);
		free(s);
		return -1;
	}
	free(s);
	return 0;
}

/*
 * A container's root without a user namespace: CAP_NET_ADMIN of the
 * initial one, but not CAP_SYS_ADMIN, the bar of arming probes
 * host-wide.
 */
TEST(control_needs_sys_admin)
{
	pid_t pid;
	int st, err;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		/* the opener's capability counts: drop it before the open */
		int fd = drop_cap(CAP_SYS_ADMIN) ? -1 : open(CONTROL, O_WRONLY);

		if (fd < 0)
			_exit(2);
		if (write(fd, "sample 9\n", 9) >= 0 || errno != EPERM)
			_exit(1);
		_exit(0);
	}
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st), "child died");
	CHECK(WEXITSTATUS(st) != 2, "could not set up the unprivileged writer");
	CHECK(WEXITSTATUS(st) == 0, "a writer with CAP_NET_ADMIN, without CAP_SYS_ADMIN, was not refused with EPERM");
	CHECK(control_is(DEFAULT_CONFIG),
	      "the refused write changed the configuration");
	return 0;
}

TEST(control_module_parameters)
{
	static const char *const want =
		"filter proto tcp port 443\nsample 4\nstages drv-ip,drops\nlifetime off\nprocs totals\nsoftnet off\nkretprobes off\ntrace on\n";
	char *s;
	int err;

	err = skbprof_load("filter=\"proto tcp port 443\" sample=4 stages=drv-ip,drops trace=on");
	CHECK(err == 0, "loading skbprof with parameters: %s", strerror(-err));
	CHECK(control_is(want), "module parameters not in force");
	err = skbprof_unload();
	CHECK(err == 0, "unload: %s", strerror(-err));

	/* a bad parameter fails the load and says why */
	err = skbprof_load("filter=\"port 70000\"");
	CHECK(err == -EINVAL, "bad filter parameter gave %d, want -EINVAL", err);
	CHECK(!path_exists(DEBUGFS_DIR), "a failed load left %s", DEBUGFS_DIR);
	s = sh_out(NULL, "dmesg | tail -n 5");
	err = !strstr(s, "filter=\"port 70000\": port: '70000' is not a port");
	if (err)
		fail("kernel log lacks the reason: '%s'", s);
	free(s);
	return err ? -1 : 0;
}

/*
 * Two writers alternate between two complete configurations while a
 * reader checks that it only ever sees one or the other.
 */
TEST(control_concurrent_writers_all_or_nothing)
{
	static const char *const cfg[2] = {
		"filter proto udp port 1000\nsample 2\nstages drv-ip\nlifetime off\nprocs totals\nsoftnet off\nkretprobes off\ntrace off\n",
		"filter proto tcp host 10.0.0.1\nsample 7\nstages all\nlifetime 4\nprocs totals\nsoftnet on\nkretprobes on\ntrace on\n",
	};
	pid_t pid[2];
	int i, n, bad = 0, err;
	char *s;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	CHECK(write_file(CONTROL, cfg[0]) == 0, "first write");
	fflush(stdout);
	for (i = 0; i < 2; i++) {
		pid[i] = fork();
		CHECK(pid[i] >= 0, "fork");
		if (pid[i] == 0) {
			for (;;)
				write_file(CONTROL, cfg[i]);
		}
	}
	for (n = 0; n < 500 && !bad; n++) {
		s = read_file(CONTROL);
		if (!s || (strncmp(s, cfg[0], strlen(cfg[0])) &&
			   strncmp(s, cfg[1], strlen(cfg[1])))) {
			fail("read a mixed configuration: '%s'", s ? s : "(null)");
			bad = 1;
		}
		free(s);
	}
	for (i = 0; i < 2; i++) {
		kill(pid[i], SIGKILL);
		waitpid(pid[i], NULL, 0);
	}
	return bad ? -1 : 0;
}

/* xorshift64*: a deterministic generator, so a failure can be replayed */
static unsigned long long rnd_state = 0x9e3779b97f4a7c15ull;

static unsigned int rnd(unsigned int n)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return (unsigned int)((rnd_state * 2685821657736338717ull) >> 33) % n;
}

/*
 * Thousands of random and mutated writes: each returns success or one of
 * the documented errors, and the module keeps answering.
 */
TEST(control_random_writes)
{
	static const char *const words[] = {
		"filter", "clear", "proto", "tcp", "udp", "icmp", "family",
		"ipv4", "ipv6", "host", "src", "dst", "port", "sport", "dport",
		"dev", "mark", "pid", "comm", "netns", "sample", "stages", "all",
		"drv-ip,drops", "trace", "on", "off", "verbose", "reset", "#",
		"procs", "totals",
		"last_error:", "10.0.0.1", "10.0.0.0/8", "::1", "fe80::/10",
		"::ffff:1.2.3.4", "1.2.3", "65535", "65536", "0", "0x9999/0xff",
		"4294967296", "veth0", "..", "a/b", "", " ", "\t", "\n", "\r",
		"999.1.1.1", "1::2::3", "x",
	};
	static char buf[8192];
	int i, j, n, len, err, ok = 0, einval = 0, e2big = 0;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	for (i = 0; i < 5000; i++) {
		len = 0;
		switch (rnd(4)) {
		case 0:	/* random bytes */
			n = rnd(64);
			for (j = 0; j < n; j++)
				buf[len++] = (char)rnd(256);
			break;
		case 1:	/* oversized */
			len = 4097 + rnd(4000);
			memset(buf, 'a' + rnd(26), len);
			buf[len - 1] = '\n';
			break;
		default: /* words, mostly well formed */
			n = 1 + rnd(12);
			for (j = 0; j < n && len < 4000; j++) {
				const char *w = words[rnd(sizeof(words) / sizeof(*words))];

				len += snprintf(buf + len, sizeof(buf) - len, "%s%s", w,
						rnd(8) ? " " : "\n");
			}
			if (rnd(4))
				buf[len++] = '\n';
			/* and sometimes a flipped byte */
			if (len && !rnd(5))
				buf[rnd(len)] ^= 1u << rnd(8);
			break;
		}
		err = write_raw(buf, len);
		if (err == 0)
			ok++;
		else if (err == -EINVAL)
			einval++;
		else if (err == -E2BIG && len > 4096)
			e2big++;
		else
			return fail("write %d (%d bytes) gave %d (%s)", i, len,
				    err, strerror(-err));
	}
	note("5000 random writes: %d accepted, %d EINVAL, %d E2BIG", ok,
	     einval, e2big);
	CHECK(ok > 0 && einval > 0 && e2big > 0, "the writes did not cover every outcome");
	/* still answering, and a normal configuration still applies */
	CHECK(write_file(CONTROL, DEFAULT_CONFIG) == 0, "writing defaults");
	CHECK(control_is(DEFAULT_CONFIG),
	      "defaults did not apply after the random writes");
	return 0;
}
