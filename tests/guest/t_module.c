// SPDX-License-Identifier: GPL-2.0
/*
 * Module lifecycle: load, the debugfs directory and its permissions,
 * unload, and the unwinding of every load failure path; every file reads
 * to its end, and those that stream are the ones make demo skips.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "harness.h"

/* skbprof_init() has at least these steps (fail_init_at=N). */
#define MIN_INIT_STEPS 3

/* Files every build of the module creates. */
static const char *const expected_files[] = { "stats", "control" };

static int check_absent(void)
{
	char *mods;

	CHECK(!path_exists(DEBUGFS_DIR), "%s still exists", DEBUGFS_DIR);
	CHECK(!module_loaded("skbprof"), "/sys/module/skbprof still exists");
	mods = read_file("/proc/modules");
	CHECK(mods, "cannot read /proc/modules");
	CHECK(!strstr(mods, "skbprof "), "skbprof listed in /proc/modules");
	free(mods);
	return 0;
}

TEST(load_creates_debugfs)
{
	struct stat st;
	size_t i;
	int err;

	CHECK(check_absent() == 0, "not clean before loading");
	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	CHECK(stat(DEBUGFS_DIR, &st) == 0 && S_ISDIR(st.st_mode),
	      "%s is not a directory", DEBUGFS_DIR);
	for (i = 0; i < sizeof(expected_files) / sizeof(*expected_files); i++) {
		char path[256];

		snprintf(path, sizeof(path), DEBUGFS_DIR "/%s", expected_files[i]);
		CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode),
		      "%s missing", path);
	}
	return 0;
}

TEST(files_are_root_only)
{
	struct dirent *de;
	int n = 0, err;
	DIR *d;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	d = opendir(DEBUGFS_DIR);
	CHECK(d, "opendir %s: %s", DEBUGFS_DIR, strerror(errno));
	while ((de = readdir(d))) {
		char path[512];
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), DEBUGFS_DIR "/%s", de->d_name);
		if (stat(path, &st)) {
			closedir(d);
			return fail("stat %s: %s", path, strerror(errno));
		}
		if (st.st_uid != 0 || st.st_gid != 0 || (st.st_mode & 0077)) {
			closedir(d);
			return fail("%s is %o %d:%d, want root-only", path,
				    st.st_mode & 07777, st.st_uid, st.st_gid);
		}
		n++;
	}
	closedir(d);
	CHECK(n > 0, "no files in %s", DEBUGFS_DIR);
	return 0;
}

static int open_stats(void *arg)
{
	int fd = open(DEBUGFS_DIR "/stats", O_RDONLY);

	(void)arg;
	if (fd >= 0)
		return 1;
	/* debugfs itself is 0700: the walk or the open must be refused */
	return errno == EACCES ? 0 : 1;
}

TEST(unprivileged_cannot_read)
{
	int err;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	/* make the directory chain traversable so the file mode is tested */
	CHECK(chmod("/sys/kernel/debug", 0755) == 0, "chmod debugfs: %s",
	      strerror(errno));
	err = run_as(65534, open_stats, NULL);
	chmod("/sys/kernel/debug", 0700);
	CHECK(err == 0, "nobody could open %s/stats", DEBUGFS_DIR);
	return 0;
}

TEST(unload_removes_everything)
{
	int err;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	err = skbprof_unload();
	CHECK(err == 0, "unloading skbprof: %s", strerror(-err));
	return check_absent();
}

TEST(init_failures_unwind)
{
	char params[64];
	int step, err;

	/*
	 * fail_init_at=N fails the Nth step of skbprof_init(); past the last
	 * step the load succeeds.  Every failing step must leave nothing.
	 */
	for (step = 1; step < 100; step++) {
		snprintf(params, sizeof(params), "fail_init_at=%d", step);
		err = skbprof_load(params);
		if (err == 0)
			break;
		CHECK(err == -ENOMEM, "load with %s returned %d (%s), want -ENOMEM",
		      params, err, strerror(-err));
		if (check_absent())
			return fail("after a failure at step %d: not clean", step);
	}
	note("%d init steps fail cleanly", step - 1);
	CHECK(step >= MIN_INIT_STEPS, "only %d failing init steps", step - 1);
	CHECK(path_exists(DEBUGFS_DIR "/stats"), "no stats after the last step");
	return 0;
}

TEST(control_accepts_reset_only)
{
	int err;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	err = write_file(DEBUGFS_DIR "/control", "reset\n");
	CHECK(err == 0, "writing reset: %s", strerror(-err));
	err = write_file(DEBUGFS_DIR "/control", "bogus\n");
	CHECK(err == -EINVAL, "writing bogus gave %d, want -EINVAL", err);
	err = write_file(DEBUGFS_DIR "/control", "reset\nbogus\n");
	CHECK(err == -EINVAL, "a write with a bad line gave %d, want -EINVAL", err);
	return 0;
}

TEST(load_unload_cycles)
{
	int i, err;

	for (i = 0; i < 20; i++) {
		err = skbprof_load(NULL);
		CHECK(err == 0, "cycle %d: load: %s", i, strerror(-err));
		free(read_file(DEBUGFS_DIR "/stats"));
		err = skbprof_unload();
		CHECK(err == 0, "cycle %d: unload: %s", i, strerror(-err));
	}
	return check_absent();
}

/*
 * counters names the build, and stats, the view for people, shows every
 * counter as counters has it.
 */
TEST(stats_identifies_build)
{
	static const char *const cols[] = { "name", "value", NULL };
	struct utsname u;
	int err;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	uname(&u);
	CHECK(!strcmp(stat_str("version"), SKBPROF_VERSION),
	      "counters' version '%s', want '%s'", stat_str("version"),
	      SKBPROF_VERSION);
	CHECK(!strcmp(stat_str("kernel"), u.release),
	      "counters' kernel '%s', want '%s'", stat_str("kernel"),
	      u.release);
	return view_shows("stats", "counters", cols);
}

TEST(tool_reads_and_explains)
{
	char *file, *tool;
	int st, err;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	file = read_file(DEBUGFS_DIR "/stats");
	tool = sh_out(&st, TOOL " stats");
	CHECK(file && st == 0, "tool exited %d", st);
	if (strcmp(file, tool)) {
		free(file);
		free(tool);
		return fail("tool output differs from the file");
	}
	free(file);
	free(tool);

	err = skbprof_unload();
	CHECK(err == 0, "unloading skbprof: %s", strerror(-err));
	tool = sh_out(&st, TOOL " stats 2>&1");
	CHECK(st == 4, "tool exited %d without the module, want 4", st);
	if (!strstr(tool, "module not loaded")) {
		fail("tool said '%s' without the module", tool);
		free(tool);
		return -1;
	}
	free(tool);
	return 0;
}

/* Does the kernel have function @sym (/proc/kallsyms) or tracepoint @sym? */
static bool kernel_has(const char *sym, bool tp)
{
	if (tp)
		return sh("ls -d /sys/kernel/debug/tracing/events/*/%s >/dev/null 2>&1",
			  sym) == 0;
	return kallsyms_has(sym);
}

/*
 * Every probe group is served on this kernel: a function renamed or
 * inlined by a new kernel leaves its group "unserved" in stats (6.12's
 * napi_alloc_skb did).  And where the module says a candidate has no
 * such symbol, the kernel's own symbol table agrees.
 */
TEST(probe_groups_served)
{
	struct table g, p;
	int groups, unserved = 0, err, r;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	/* a symbol every kernel has: /proc/kallsyms is readable */
	CHECK(kallsyms_has("tcp_v4_rcv"), "cannot read /proc/kallsyms");
	CHECK(table_read(&g, "groups") == 0, "groups");
	groups = g.nrows;
	for (r = 0; (r = table_find(&g, r, "state", "unserved", NULL)) >= 0;
	     r++) {
		note("group %s unserved", table_str(&g, r, "group"));
		unserved++;
	}
	table_free(&g);
	CHECK(table_read(&p, "probes") == 0, "probes");
	for (r = 0; (r = table_find(&p, r, "state", "unavailable",
				    "reason", "no-such-symbol",
				    "error", "-2", NULL)) >= 0; r++) {
		const char *sym = table_str(&p, r, "symbol");

		if (kernel_has(sym, !strcmp(table_str(&p, r, "mechanism"),
					    "tracepoint"))) {
			fail("probes says %s %s has no such symbol, but the kernel has it",
			     table_str(&p, r, "group"), sym);
			table_free(&p);
			return -1;
		}
	}
	table_free(&p);
	CHECK(groups >= 20, "only %d group rows in groups", groups);
	CHECK(unserved == 0, "%d of %d probe groups unserved", unserved,
	      groups);
	return 0;
}

/*
 * A kernel where no probe serves a group (probe_deny= plays a kernel that
 * renamed both of rx-udp4's functions) is refused, with a message naming
 * the group; allow_unserved=1 loads without its stages.
 */
TEST(unserved_group_refuses_load)
{
	struct table t;
	char *log;
	int err;

	sh("dmesg -c > /dev/null");
	err = skbprof_load("probe_deny=udp_rcv,__udp4_lib_rcv");
	CHECK(err == -ENOENT, "load with rx-udp4 unserved: %s, want ENOENT",
	      err ? strerror(-err) : "loaded");
	CHECK(check_absent() == 0, "not clean after the refused load");
	log = sh_out(NULL, "dmesg | grep 'skbprof: no probe serves rx-udp4 on this kernel'");
	err = !log || !*log;
	free(log);
	CHECK(!err, "the kernel log does not name rx-udp4");

	err = skbprof_load("probe_deny=udp_rcv,__udp4_lib_rcv allow_unserved=1");
	CHECK(err == 0, "load with allow_unserved=1: %s", strerror(-err));
	CHECK(table_read(&t, "groups") == 0, "groups");
	err = table_find(&t, 0, "group", "rx-udp4", "state", "unserved",
			 "armed", "disarmed", NULL) < 0 ||
	      table_find(&t, 0, "group", "rx-udp6", "state", "served",
			 "armed", "armed", NULL) < 0;
	table_free(&t);
	CHECK(!err, "groups does not show rx-udp4 unserved and rx-udp6 served");
	return 0;
}

/* The harness self-test: this one must be reported as failed. */
SELFTEST(selftest_must_fail)
{
	CHECK(1 + 1 == 3, "deliberate failure");
	return 0;
}

/*
 * A file read to its end under TCG takes about a second at most (the
 * largest view, after traffic); a read still going after this is one that
 * waits for packets.
 */
#define READ_BOUND_S	60
#define DEMO_SCRIPT	"/usr/share/skbprof/demo.sh"

/*
 * Read @path to its end in a child, which SIGALRM stops after
 * READ_BOUND_S.  A file that streams (opened nonseekable, like the
 * kernel's trace_pipe) is read without blocking until it has nothing.
 * Returns 0, or 1 for a streaming file, or -1 with the failure recorded.
 */
static int read_to_end(const char *path)
{
	char buf[4096];
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return fail("fork: %s", strerror(errno));
	if (pid == 0) {
		int fd = open(path, O_RDONLY);
		ssize_t n;

		alarm(READ_BOUND_S);
		if (fd < 0)
			_exit(10);
		if (lseek(fd, 0, SEEK_CUR) < 0 && errno == ESPIPE) {
			close(fd);
			fd = open(path, O_RDONLY | O_NONBLOCK);
			while ((n = read(fd, buf, sizeof(buf))) > 0)
				;
			_exit(n < 0 && errno == EAGAIN ? 1 : 11);
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0)
			;
		_exit(n == 0 ? 0 : 12);
	}
	if (waitpid(pid, &st, 0) != pid)
		return fail("waitpid: %s", strerror(errno));
	if (WIFSIGNALED(st) && WTERMSIG(st) == SIGALRM)
		return fail("%s: a read did not end within %d s", path,
			    READ_BOUND_S);
	if (!WIFEXITED(st) || WEXITSTATUS(st) > 1)
		return fail("%s: %s", path, !WIFEXITED(st) ? "the reader died" :
			    WEXITSTATUS(st) == 10 ? "cannot open" :
			    WEXITSTATUS(st) == 11 ? "a streaming read without O_NONBLOCK's EAGAIN" :
			    "a read failed");
	return WEXITSTATUS(st);
}

TEST(every_file_reads_to_its_end)
{
	static const char *const dirs[] = { DEBUGFS_DIR, "/proc/net/skbprof" };
	char *demo, *list, path[512], word[80];
	int files = 0, streams = 0, listed = 0, r = 0, err;
	char *w;
	struct dirent *de;
	size_t i;
	DIR *d;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	/* traffic, so that the views have rows to print */
	CHECK(sh("skbprof-traffic udp-pair 127.0.0.1 9000 200 200 && "
		 "skbprof-traffic udp 127.0.0.1 9999 5") == 0, "traffic");
	demo = read_file(DEMO_SCRIPT);
	list = demo ? strstr(demo, "\nstreaming=\"") : NULL;
	if (!list) {
		free(demo);
		return fail("no streaming=\"...\" line in %s", DEMO_SCRIPT);
	}
	*strchr(list + 1, '\n') = 0;
	for (w = strchr(list, '"') + 1; *w && *w != '"'; w++)
		listed += *w != ' ' && (w[1] == ' ' || w[1] == '"');
	for (i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		d = opendir(dirs[i]);
		if (!d) {
			free(demo);
			return fail("opendir %s: %s", dirs[i], strerror(errno));
		}
		while ((de = readdir(d))) {
			if (de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", dirs[i], de->d_name);
			r = read_to_end(path);
			snprintf(word, sizeof(word), " %.70s ", de->d_name);
			if (r == 1 && !strstr(list, word))
				r = fail("%s streams, but make demo would cat it (%s)",
					 path, list + 1);
			if (r < 0)
				break;
			files++;
			streams += r;
		}
		closedir(d);
		if (r < 0) {
			free(demo);
			return -1;
		}
	}
	free(demo);
	note("%d files read to their end, %d of them streaming", files, streams);
	/* and every file the demo skips does stream */
	CHECK(streams == listed, "%d streaming files, the demo skips %d",
	      streams, listed);
	return 0;
}
