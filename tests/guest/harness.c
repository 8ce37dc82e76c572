// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof-test: the in-guest test runner.  See harness.h.
 *
 *   skbprof-test [--result FILE] [--selftest] [NAME...]
 *
 * --result FILE  also write every result line to FILE (the guest's second
 *                serial port), followed by the completion marker
 * --selftest     also run the deliberately failing tests
 * --slow         also run the slow tests (SLOWTEST), which otherwise run
 *                only when named
 * NAME...        run only the named tests
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <libkmod.h>
#include <linux/perf_event.h>
#include <linux/capability.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

extern const struct test __start_skbprof_tests[];
extern const struct test __stop_skbprof_tests[];

static char fail_msg[1024];
static FILE *result;
static struct kmod_ctx *kctx;

int fail(const char *fmt, ...)
{
	va_list ap;

	if (fail_msg[0])	/* keep the first reason */
		return -1;
	va_start(ap, fmt);
	vsnprintf(fail_msg, sizeof(fail_msg), fmt, ap);
	va_end(ap);
	return -1;
}

void note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static void out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
	if (result) {
		va_start(ap, fmt);
		vfprintf(result, fmt, ap);
		va_end(ap);
		fflush(result);
	}
}

static struct kmod_ctx *kmod(void)
{
	if (!kctx) {
		kctx = kmod_new(NULL, NULL);
		if (!kctx) {
			perror("kmod_new");
			exit(1);
		}
		kmod_load_resources(kctx);
	}
	return kctx;
}

int module_load(const char *path, const char *params)
{
	struct kmod_module *mod;
	int err;

	err = kmod_module_new_from_path(kmod(), path, &mod);
	if (err < 0)
		return err;
	err = kmod_module_insert_module(mod, 0, params);
	kmod_module_unref(mod);
	return err;
}

int module_unload(const char *name)
{
	struct kmod_module *mod;
	int err;

	err = kmod_module_new_from_name(kmod(), name, &mod);
	if (err < 0)
		return err;
	err = kmod_module_remove_module(mod, 0);
	kmod_module_unref(mod);
	return err;
}

bool module_loaded(const char *name)
{
	char path[256];

	snprintf(path, sizeof(path), "/sys/module/%s", name);
	return path_exists(path);
}

int skbprof_load(const char *params)
{
	return module_load(SKBPROF_KO, params ? params : "");
}

int skbprof_unload(void)
{
	return module_unload("skbprof");
}

int kmod_probe(const char *name)
{
	struct kmod_list *list = NULL, *l;
	int err;

	err = kmod_module_new_from_lookup(kmod(), name, &list);
	if (err < 0)
		return err;
	if (!list)
		return -ENOENT;
	kmod_list_foreach(l, list) {
		struct kmod_module *mod = kmod_module_get_module(l);

		err = kmod_module_probe_insert_module(mod, 0, NULL, NULL,
						      NULL, NULL);
		kmod_module_unref(mod);
		if (err < 0)
			break;
	}
	kmod_module_unref_list(list);
	return err < 0 ? err : 0;
}

char *read_file(const char *path)
{
	size_t len = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t n;
	int fd;

	if (!buf)
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(buf);
		return NULL;
	}
	for (;;) {
		if (cap - len < 2048) {
			char *nb = realloc(buf, cap * 2);

			if (!nb)
				goto err;
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + len, cap - len - 1);
		if (n < 0)
			goto err;
		if (n == 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = 0;
	return buf;
err:
	n = errno;
	close(fd);
	free(buf);
	errno = n;
	return NULL;
}

int write_file(const char *path, const char *data)
{
	size_t len = strlen(data);
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = write(fd, data, len);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

const char *line_after(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, prefix, n) && (p[n] == ' ' || p[n] == '\t'))
			return p + n + 1;
	return NULL;
}

int enter_ns(const char *ns)
{
	char path[128];
	int fd, err;

	snprintf(path, sizeof(path), "/run/netns/%s", ns);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = setns(fd, CLONE_NEWNET) ? -errno : 0;
	close(fd);
	return err;
}

bool path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static char *vformat(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0) {
		perror("vasprintf");
		exit(1);
	}
	return s;
}

int sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd;
	int st;

	va_start(ap, fmt);
	cmd = vformat(fmt, ap);
	va_end(ap);
	fflush(stdout);
	st = system(cmd);
	free(cmd);
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

char *sh_out(int *status, const char *fmt, ...)
{
	size_t len = 0, cap = 4096;
	char *cmd, *buf;
	va_list ap;
	FILE *p;
	size_t n;
	int st;

	va_start(ap, fmt);
	cmd = vformat(fmt, ap);
	va_end(ap);
	fflush(stdout);
	p = popen(cmd, "r");
	free(cmd);
	buf = malloc(cap);
	if (!p || !buf) {
		perror("popen");
		exit(1);
	}
	while ((n = fread(buf + len, 1, cap - len - 1, p)) > 0) {
		len += n;
		if (cap - len < 1024) {
			buf = realloc(buf, cap *= 2);
			if (!buf) {
				perror("realloc");
				exit(1);
			}
		}
	}
	buf[len] = 0;
	st = pclose(p);
	if (status)
		*status = (st != -1 && WIFEXITED(st)) ? WEXITSTATUS(st) : -1;
	return buf;
}

char *tool_out(int *status, const char *args)
{
	return sh_out(status, TOOL " %s 2>&1", args);
}

#define KFREE_SKB_TP	"/sys/kernel/debug/tracing/events/skb/kfree_skb"

int tp_hold(bool must)
{
	struct perf_event_attr a;
	char *id;
	int fd, err;

	err = write_file(KFREE_SKB_TP "/enable", "1");
	if (err)
		return must ? fail("enabling %s/enable: %s", KFREE_SKB_TP,
				   strerror(-err)) : -1;
	id = read_file(KFREE_SKB_TP "/id");
	if (!id)
		return must ? fail("reading %s/id: %s", KFREE_SKB_TP,
				   strerror(errno)) : -1;
	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_TRACEPOINT;
	a.size = sizeof(a);
	a.config = strtoull(id, NULL, 10);
	free(id);
	fd = syscall(__NR_perf_event_open, &a, -1, 0, -1, 0);
	if (fd < 0) {
		if (must)
			fail("perf_event_open(kfree_skb): %s", strerror(errno));
		write_file(KFREE_SKB_TP "/enable", "0");
		return -1;
	}
	return fd;
}

void tp_release(int fd)
{
	if (fd < 0)
		return;
	close(fd);
	write_file(KFREE_SKB_TP "/enable", "0");
}

unsigned long long clock_ns(int clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

int pin_cpu(int cpu)
{
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	for (i = 0; i < CPU_SETSIZE; i++)
		if (cpu < 0 || i == cpu)
			CPU_SET(i, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

pid_t kids_spawn(struct kids *k, void (*fn)(int), int arg)
{
	pid_t pid;

	if (k->n == KIDS_MAX)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		signal(SIGPIPE, SIG_IGN);
		fn(arg);
		_exit(0);
	}
	if (pid > 0)
		k->pid[k->n++] = pid;
	return pid;
}

void kids_kill(struct kids *k)
{
	int i;

	for (i = 0; i < k->n; i++)
		kill(k->pid[i], SIGKILL);
	for (i = 0; i < k->n; i++)
		waitpid(k->pid[i], NULL, 0);
	k->n = 0;
}

int drain_file(const char *path)
{
	char buf[4096];
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		;
	if (n < 0)
		err = errno;
	close(fd);
	return err;
}

static long long mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

bool wait_until(bool (*cond)(void *arg), void *arg, int max_ms)
{
	long long end = mono_ms() + max_ms;

	while (!cond(arg)) {
		if (mono_ms() >= end)
			return cond(arg);
		sleep_ms(10);
	}
	return true;
}

int run_as(uid_t uid, int (*fn)(void *), void *arg)
{
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* setresuid from root to non-root drops every capability */
		if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
		    setresuid(uid, uid, uid))
			_exit(126);
		_exit(fn(arg) ? 1 : 0);
	}
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	if (!WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st) ? -1 : 0;
}

int drop_cap(int cap)
{
	/* raw capget/capset: no libcap in the guest */
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];
	unsigned int bit = CAP_TO_MASK(cap);
	int i = CAP_TO_INDEX(cap);

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[i].effective &= ~bit;
	data[i].permitted &= ~bit;
	data[i].inheritable &= ~bit;
	return syscall(SYS_capset, &hdr, data);
}

static bool selected(const struct test *t, int argc, char **argv, int first)
{
	int i;

	if (first >= argc)
		return true;
	for (i = first; i < argc; i++)
		if (!strcmp(argv[i], t->name))
			return true;
	return false;
}

/*
 * Run @t, within its fixture's setup and teardown (the teardown also
 * after a failed setup or body), print its line, and unload the module
 * if it was left loaded.
 */
static void run_one(const struct test *t, int *passed, int *failed)
{
	int rc = 0;

	fail_msg[0] = 0;
	note("running %s", t->name);
	if (t->fixture)
		rc = t->fixture->setup();
	if (rc == 0)
		rc = t->fn();
	if (t->fixture)
		t->fixture->teardown();
	if (rc == 0 && !fail_msg[0]) {
		out("ok %s\n", t->name);
		(*passed)++;
	} else {
		out("FAIL %s: %s\n", t->name,
		    fail_msg[0] ? fail_msg : "(no reason given)");
		(*failed)++;
	}
	if (module_loaded("skbprof") && skbprof_unload() < 0) {
		out("FAIL %s: cannot unload the module after the test\n",
		    t->name);
		(*failed)++;
	}
}

static int veth_pair_cmd(int argc, char **argv);

int main(int argc, char **argv)
{
	const struct test *t;
	bool selftest = false, slow = false;
	int passed = 0, failed = 0, i = 1, pass, err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "--veth-pair"))
		return veth_pair_cmd(argc - 2, argv + 2);
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--result") && i + 1 < argc) {
			result = fopen(argv[++i], "w");
			if (!result) {
				perror(argv[i]);
				return 1;
			}
		} else if (!strcmp(argv[i], "--selftest")) {
			selftest = true;
		} else if (!strcmp(argv[i], "--slow")) {
			slow = true;
		} else {
			fprintf(stderr, "usage: skbprof-test [--result FILE] [--selftest] [--slow] [NAME...]\n"
				"       skbprof-test --veth-pair END END [FLAG,...]\n");
			return 2;
		}
	}

	/*
	 * The tests' fixed ports (t_drops.c 333xx, t_stress.c 341xx,
	 * t_smp.c 342xx) lie in the ephemeral range: reserved, no connect()
	 * or autobind takes one.  A connect from the closed port it connects
	 * to is a connection with itself, not the refused SYN a flood counts
	 * (stress_exhaustion saw it on 7.2: two drops past the kernel's).
	 */
	err = write_file("/proc/sys/net/ipv4/ip_local_reserved_ports",
			 "33300-33399,34100-34299");
	if (err)
		out("# ip_local_reserved_ports: %s\n", strerror(-err));

	/* the final tests (FINALTEST) in a second pass */
	for (pass = 0; pass < 2; pass++)
		for (t = __start_skbprof_tests; t < __stop_skbprof_tests; t++) {
			if (t->final != (pass == 1))
				continue;
			if (t->selftest && !selftest)
				continue;
			if (!selected(t, argc, argv, i))
				continue;
			if (t->slow && !slow && i >= argc)
				continue;
			run_one(t, &passed, &failed);
		}
	out("%d passed, %d failed\n", passed, failed);
	/* The marker: only a run that got here prints it. */
	out("SKBPROF-TESTS-COMPLETE\n");
	if (kctx)
		kmod_unref(kctx);
	return failed ? 1 : 0;
}

/* ---- ground truth: the kernel's own counters ---- */

long long snmp_table_value(char *s, const char *proto, const char *field)
{
	char *line, *save = NULL, *names = NULL;
	size_t plen = strlen(proto);
	long long v = -1;

	if (!s)
		return -1;
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *np, *vp, *ns = NULL, *vs = NULL;

		if (strncmp(line, proto, plen) || line[plen] != ':')
			continue;
		if (!names) {
			names = line + plen + 1;
			continue;
		}
		np = strtok_r(names, " ", &ns);
		vp = strtok_r(line + plen + 1, " ", &vs);
		for (; np && vp; np = strtok_r(NULL, " ", &ns),
				 vp = strtok_r(NULL, " ", &vs))
			if (!strcmp(np, field)) {
				v = atoll(vp);
				break;
			}
		break;
	}
	free(s);
	return v;
}

long long snmp_value(const char *proto, const char *field)
{
	return snmp_table_value(read_file("/proc/net/snmp"), proto, field);
}

long long snmp6_table_value(char *s, const char *field)
{
	char *line, *save = NULL, name[64];
	long long v = -1, x;

	for (line = s ? strtok_r(s, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%63s %lld", name, &x) == 2 &&
		    !strcmp(name, field)) {
			v = x;
			break;
		}
	free(s);
	return v;
}

/* ---- what the module says ---- */

/*
 * The machine files' grammar (Documentation/skbprof.rst, "Machine
 * files"), the only one read here:
 *
 *   # key=value key=value	meta lines: every token holds a '='
 *   # name name ... rest...	the header, once: no token holds a '='
 *   value value ... a b c	a row: one token per column, "-" for none;
 *				a last column named "*..." takes the rest
 *				(none too), read by its name without the dots
 *
 * Nothing else: no blank line, no '#' line after the header, no row
 * before it, no row with a token too many or too few.  A record is one
 * line of key=value tokens.
 */

static bool blank(char c)
{
	return c == ' ' || c == '\t';
}

/* Cut @s into its tokens in place: how many, at most @max into @tok. */
static int tokens(char *s, char **tok, int max, bool rest)
{
	int n = 0;

	for (;;) {
		while (blank(*s))
			s++;
		if (!*s)
			return n;
		if (n == max)
			return n + 1;	/* one too many */
		tok[n++] = s;
		if (rest && n == max) {	/* the rest column: to the end */
			s += strlen(s);
			while (blank(s[-1]))
				*--s = 0;
			return n;
		}
		while (*s && !blank(*s))
			s++;
		if (*s)
			*s++ = 0;
	}
}

static bool has_eq(char *const *tok, int n, bool all)
{
	int i, eq = 0;

	for (i = 0; i < n; i++)
		eq += strchr(tok[i], '=') != NULL;
	return all ? eq == n : eq > 0;
}

/* Make room in array *@arrp of @n elements of @size for @more. */
static bool grow(void *arrp, int n, size_t size, int more)
{
	void **a = arrp, *na = realloc(*a, (n + more) * size);

	if (na)
		*a = na;
	return na != NULL;
}

int table_parse(struct table *t, char *text, const char *what)
{
	char *line, *save = NULL, *tok[256];
	int n, lineno = 0;
	bool rest = false;

	memset(t, 0, sizeof(*t));
	t->buf = text;
	if (!text)
		return fail("cannot read %s: %s", what, strerror(errno));
	t->text = strdup(text);
	if (!t->text)
		goto nomem;
	for (line = text; line; line = save) {
		save = strchr(line, '\n');
		if (save)
			*save++ = 0;
		else if (!*line)
			break;		/* after the last newline */
		lineno++;
		if (!*line)
			goto bad;
		if (*line == '#' && !t->ncols) {
			n = tokens(line + 1, tok, 256, false);
			if (n > 0 && n <= 256 && has_eq(tok, n, true)) {
				if (!grow(&t->meta, t->nmeta, sizeof(char *), n))
					goto nomem;
				memcpy(t->meta + t->nmeta, tok, n * sizeof(char *));
				t->nmeta += n;
				continue;
			}
			if (n <= 0 || n > 256 || has_eq(tok, n, false))
				goto bad;
			t->name = malloc(n * sizeof(char *));
			if (!t->name)
				goto nomem;
			memcpy(t->name, tok, n * sizeof(char *));
			t->ncols = n;
			n = strlen(tok[n - 1]);
			rest = n > 3 && !strcmp(tok[t->ncols - 1] + n - 3, "...");
			if (rest)	/* the column's name is without the dots */
				tok[t->ncols - 1][n - 3] = 0;
			continue;
		}
		if (*line == '#' || !t->ncols)
			goto bad;
		if (!grow(&t->cell, t->nrows * t->ncols, sizeof(char *),
			  t->ncols))
			goto nomem;
		n = tokens(line, t->cell + t->nrows * t->ncols, t->ncols, rest);
		if (rest && n == t->ncols - 1)	/* an empty rest column */
			t->cell[t->nrows * t->ncols + n++] = "";
		if (n != t->ncols)
			goto bad;
		t->nrows++;
	}
	if (!t->ncols)
		return fail("%s has no header line", what);
	return 0;
nomem:
	return fail("%s: out of memory", what);
bad:
	note("%s:\n%s", what, t->text);
	return fail("%s: line %d is not a machine table's", what, lineno);
}

/* read_file() of @file of DEBUGFS_DIR, or of path @file. */
static char *read_file_at(const char *file)
{
	char path[256];

	snprintf(path, sizeof(path), "%s%s", file[0] == '/' ? "" :
		 DEBUGFS_DIR "/", file);
	return read_file(path);
}

int table_read(struct table *t, const char *file)
{
	return table_parse(t, read_file_at(file), file);
}

void table_free(struct table *t)
{
	free(t->text);
	free(t->buf);
	free(t->meta);
	free(t->name);
	free(t->cell);
	memset(t, 0, sizeof(*t));
}

int table_col(const struct table *t, const char *name)
{
	int i;

	for (i = 0; i < t->ncols; i++)
		if (!strcmp(t->name[i], name))
			return i;
	return -1;
}

const char *table_meta(const struct table *t, const char *key)
{
	size_t n = strlen(key);
	int i;

	for (i = 0; i < t->nmeta; i++)
		if (!strncmp(t->meta[i], key, n) && t->meta[i][n] == '=')
			return t->meta[i] + n + 1;
	return NULL;
}

const char *table_str(const struct table *t, int row, const char *col)
{
	int c = table_col(t, col);

	if (c < 0 || row < 0 || row >= t->nrows)
		return NULL;
	return t->cell[row * t->ncols + c];
}

long long table_num(const struct table *t, int row, const char *col)
{
	const char *s = table_str(t, row, col);
	char *end;
	long long v;

	if (!s)
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	return errno || end == s || *end ? -1 : v;
}

/* Does row @row match the (column, value) pairs of @ap? */
static bool row_matches(const struct table *t, int row, va_list ap)
{
	const char *col, *val, *cell;

	while ((col = va_arg(ap, const char *))) {
		val = va_arg(ap, const char *);
		cell = table_str(t, row, col);
		if (!cell || (val && strcmp(cell, val)))
			return false;
	}
	return true;
}

static int vfind(const struct table *t, int from, va_list ap)
{
	va_list aq;
	bool hit;

	for (; from < t->nrows; from++) {
		va_copy(aq, ap);
		hit = row_matches(t, from, aq);
		va_end(aq);
		if (hit)
			return from;
	}
	return -1;
}

int table_find(const struct table *t, int from, ...)
{
	va_list ap;
	int r;

	va_start(ap, from);
	r = vfind(t, from, ap);
	va_end(ap);
	return r;
}

long long table_sum(const struct table *t, const char *col, ...)
{
	long long sum = 0, v;
	va_list ap, aq;
	int r = 0;

	va_start(ap, col);
	for (;; r++) {
		va_copy(aq, ap);
		r = vfind(t, r, aq);
		va_end(aq);
		if (r < 0)
			break;
		v = table_num(t, r, col);
		if (v < 0) {
			sum = -1;
			break;
		}
		sum += v;
	}
	va_end(ap);
	return sum;
}

/* @text with every run of blanks one space, and a newline before it. */
static char *squeeze(const char *text)
{
	char *s = malloc(strlen(text) + 2), *o = s;

	if (!s)
		return NULL;
	*o++ = '\n';
	for (; *text; text++)
		if (blank(*text)) {
			if (o[-1] != ' ' && o[-1] != '\n')
				*o++ = ' ';
		} else if (*text == '\n' && o[-1] == ' ') {
			o[-1] = '\n';
		} else {
			*o++ = *text;
		}
	*o = 0;
	return s;
}

/* Does @human (squeezed) have row @r of @t, columns @cols, as a line? */
static bool shows_row(const char *human, const struct table *t, int r,
		      const char *const *cols, char *line, size_t size)
{
	size_t len = snprintf(line, size, "\n");
	const char *c;

	for (; *cols; cols++) {
		c = table_str(t, r, *cols);
		len += snprintf(line + len, len < size ? size - len : 0, "%s%s",
				len > 1 ? " " : "", c ? c : "(none)");
	}
	if (len + 1 >= size)
		return false;
	strcat(line, "\n");
	return strstr(human, line) != NULL;
}

int view_shows(const char *view, const char *machine,
	       const char *const *cols)
{
	char *a = NULL, *b = NULL, *h = NULL, *hs = NULL, line[512];
	struct table t = { NULL };
	int i, r, err = -1;

	for (i = 0; i < 50; i++, sleep_ms(100)) {
		free(a);
		free(b);
		free(h);
		a = read_file_at(machine);
		h = read_file_at(view);
		b = read_file_at(machine);
		if (a && b && h && !strcmp(a, b))
			break;
	}
	if (!a || !b || !h || strcmp(a, b)) {
		fail("%s and %s: unreadable, or %s never the same twice",
		     view, machine, machine);
		goto out;
	}
	hs = squeeze(h);
	if (!hs || table_parse(&t, a, machine)) {
		a = NULL;
		goto out;
	}
	a = NULL;
	if (!t.nrows) {
		fail("%s has no row to check %s by", machine, view);
		goto out;
	}
	for (r = 0; r < t.nrows; r++)
		if (!shows_row(hs, &t, r, cols, line, sizeof(line))) {
			note("%s:\n%s", view, h);
			fail("%s lacks %s's row '%.*s'", view, machine,
			     (int)strlen(line + 1) - 1, line + 1);
			goto out;
		}
	err = 0;
out:
	table_free(&t);
	free(a);
	free(b);
	free(h);
	free(hs);
	return err;
}

const char *record_get(const char *line, const char *key, char *buf,
		       size_t len)
{
	size_t n = strlen(key), v;
	const char *p = line;

	while (*p && *p != '\n') {
		while (blank(*p))
			p++;
		v = strcspn(p, " \t\n");
		if (v > n && !strncmp(p, key, n) && p[n] == '=') {
			v -= n + 1;
			if (v >= len)
				v = len - 1;
			memcpy(buf, p + n + 1, v);
			buf[v] = 0;
			return buf;
		}
		p += v;
	}
	return NULL;
}

/*
 * Packets the CPUs' backlogs dropped for want of room (the second column
 * of /proc/net/softnet_stat, in hex): what loopback loses before IP.
 */
long long softnet_dropped(void)
{
	char *s = read_file("/proc/net/softnet_stat"), *line, *save = NULL;
	unsigned int processed, dropped;
	long long sum = 0;

	if (!s)
		return -1;
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (sscanf(line, "%x %x", &processed, &dropped) == 2)
			sum += dropped;
	free(s);
	return sum;
}

int kver(void)
{
	static int v;
	struct utsname u;
	int a = 0, b = 0;

	if (!v) {
		uname(&u);
		sscanf(u.release, "%d.%d", &a, &b);
		v = a * 100 + b;
	}
	return v;
}

long long nft_packets(const char *ns, const char *chain)
{
	long long pkts = -1;
	char *out, *p;

	if (ns)
		out = sh_out(NULL, "/usr/sbin/ip netns exec %s nft list chain %s",
			     ns, chain);
	else
		out = sh_out(NULL, "nft list chain %s", chain);
	p = out ? strstr(out, "counter packets ") : NULL;
	if (p)
		pkts = atoll(p + strlen("counter packets "));
	free(out);
	return pkts;
}

bool kallsyms_has(const char *sym)
{
	static char *syms;	/* read once: megabytes */
	char needle[160];

	if (!syms)
		syms = read_file("/proc/kallsyms");
	if (!syms)
		return false;
	/* "ADDR t NAME\n", or "ADDR t NAME\t[module]\n" */
	snprintf(needle, sizeof(needle), " %s\n", sym);
	if (strstr(syms, needle))
		return true;
	snprintf(needle, sizeof(needle), " %s\t", sym);
	return strstr(syms, needle) != NULL;
}

const char *udp_noport_fn(int family)
{
	if (family == AF_INET6)
		return kallsyms_has("__udp6_lib_rcv") ? "__udp6_lib_rcv" :
							"udpv6_rcv";
	return kallsyms_has("__udp4_lib_rcv") ? "__udp4_lib_rcv" : "udp_rcv";
}

unsigned long long drops_at(const char *sym)
{
	unsigned long long sum = 0;
	size_t n = strlen(sym);
	const char *loc;
	struct table t;
	int r;

	if (table_read(&t, "drops_rows")) {
		table_free(&t);
		return 0;
	}
	for (r = 0; r < t.nrows; r++) {
		loc = table_str(&t, r, "location");
		if (loc && !strncmp(loc, sym, n) && loc[n] == '+')
			sum += table_num(&t, r, "count");
	}
	table_free(&t);
	return sum;
}

void hist_row(const struct table *t, int i, struct row *r)
{
	memset(r, 0, sizeof(*r));
	if (i < 0)
		return;
	r->count = table_num(t, i, "count");
	r->sum = table_num(t, i, "sum");
	r->min = table_num(t, i, "min");
	r->p50 = table_num(t, i, "p50");
	r->p90 = table_num(t, i, "p90");
	r->p99 = table_num(t, i, "p99");
	r->max = table_num(t, i, "max");
	r->avg = table_num(t, i, "avg");
}

int latency_row(const char *text, const char *dir, const char *stage,
		struct row *r)
{
	struct table t;
	int i;

	memset(r, 0, sizeof(*r));
	if (table_parse(&t, text ? strdup(text) : NULL, "latency_buckets"))
		return -1;
	i = table_find(&t, 0, "dir", dir, "stage", stage, NULL);
	hist_row(&t, i, r);
	table_free(&t);
	return i < 0 ? -1 : 0;		/* no row: no sample */
}

unsigned long long row_count(const char *text, const char *dir,
			     const char *stage)
{
	struct row r;

	return latency_row(text, dir, stage, &r) ? 0 : r.count;
}

long long counter_of(const struct table *t, const char *key)
{
	return table_num(t, table_find(t, 0, "name", key, NULL), "value");
}

long long stat_value(const char *key)
{
	struct table t;
	long long v;

	if (table_read(&t, "counters"))
		return -1;
	v = counter_of(&t, key);
	table_free(&t);
	return v;
}

const char *stat_str(const char *key)
{
	static char val[128];
	struct table t;
	const char *v = NULL;

	if (!table_read(&t, "counters"))
		v = table_str(&t, table_find(&t, 0, "name", key, NULL), "value");
	snprintf(val, sizeof(val), "%s", v ? v : "");
	table_free(&t);
	return val;
}

struct stat_want {
	const char *key;
	long long want;
};

static bool stat_reached(void *arg)
{
	const struct stat_want *w = arg;

	return stat_value(w->key) >= w->want;
}

bool stat_wait(const char *key, long long want)
{
	struct stat_want w = { key, want };

	if (wait_until(stat_reached, &w, WAIT_MS))
		return true;
	note("%s below %lld after %d ms", key, want, WAIT_MS);
	return false;
}

/* The active probes' nmissed of the probes table: of @group, or all. */
static long long nmissed_of(const char *group)
{
	struct table t;
	long long sum;

	if (table_read(&t, "probes"))
		return -1;
	sum = table_sum(&t, "nmissed", "group", group, "state", "active",
			NULL);
	table_free(&t);
	return sum;
}

long long probes_nmissed(void)
{
	return nmissed_of(NULL);
}

long long group_nmissed(const char *group)
{
	return nmissed_of(group);
}

/* iproute2, not the busybox applet the shell prefers */
#define IPROUTE	"/usr/sbin/ip"

long long rx_incomplete(void)
{
	static const char *const why[] = { "dropped", "freed", "evicted",
					   "restarted", "rekeyed", "segmented" };
	long long sum = 0;
	char key[64];
	size_t i;

	for (i = 0; i < sizeof(why) / sizeof(*why); i++) {
		snprintf(key, sizeof(key), "incomplete_rx_%s", why[i]);
		sum += stat_value(key);
	}
	return sum;
}

long long tcp_coalesced(const char *ns)
{
	long long a, b;

	a = snmp_table_value(sh_out(NULL, IPROUTE " netns exec %s cat /proc/net/netstat",
				    ns), "TcpExt", "TCPRcvCoalesce");
	b = snmp_table_value(sh_out(NULL, IPROUTE " netns exec %s cat /proc/net/netstat",
				    ns), "TcpExt", "TCPBacklogCoalesce");
	return a < 0 || b < 0 ? -1 : a + b;
}

int ethtool_set(const char *ifname, unsigned int cmd, unsigned int on)
{
	struct ethtool_value ev = { .cmd = cmd, .data = on };
	struct ifreq ifr;
	int fd, err;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
	ifr.ifr_data = (void *)&ev;
	err = ioctl(fd, SIOCETHTOOL, &ifr) ? -errno : 0;
	close(fd);
	return err;
}

/* ---- topologies ---- */

void netns_del(const char *ns)
{
	sh(IPROUTE " netns del %s 2>/dev/null", ns);
}

int netns_make(const char *ns, bool lo_up)
{
	netns_del(ns);
	CHECK(sh(IPROUTE " netns add %s", ns) == 0, "cannot make netns %s", ns);
	if (lo_up)
		CHECK(sh(IPROUTE " -n %s link set lo up", ns) == 0,
		      "cannot set lo up in %s", ns);
	return 0;
}

int in_ns(const char *ns, int (*fn)(void *arg), void *arg)
{
	int self, err;

	self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0)
		return -errno;
	err = enter_ns(ns);
	if (!err)
		err = fn(arg);
	if (setns(self, CLONE_NEWNET))
		err = -errno;
	close(self);
	return err;
}

void veth_pair_del(const struct veth *v)
{
	const struct veth_end *e[] = { &v->a, &v->b };
	int i;

	for (i = 0; i < 2; i++)
		if (e[i]->ns)
			netns_del(e[i]->ns);
		else
			sh(IPROUTE " link del %s 2>/dev/null", e[i]->dev);
}

/* "ip -n NS " for end @e, or "ip " in the initial namespace. */
static const char *ip_of(const struct veth_end *e, char *buf, size_t len)
{
	if (e->ns)
		snprintf(buf, len, IPROUTE " -n %s ", e->ns);
	else
		snprintf(buf, len, IPROUTE " ");
	return buf;
}

/* @e's `ip link add` words: "DEV [netns NS] [address MAC] [OPTS]". */
static const char *link_words(const struct veth_end *e, char *buf,
			      size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s%s%s", e->dev, e->ns ? " netns " : "",
		 e->ns ? e->ns : "", e->mac ? " address " : "",
		 e->mac ? e->mac : "", e->opts ? " " : "",
		 e->opts ? e->opts : "");
	return buf;
}

/* Address @addr ("ADDR/LEN") on @e. */
static int veth_addr(const struct veth_end *e, const char *addr, bool nodad)
{
	char ip[64];

	CHECK(sh("%saddr add %s dev %s%s", ip_of(e, ip, sizeof(ip)), addr,
		 e->dev, nodad ? " nodad" : "") == 0,
	      "cannot add %s to %s", addr, e->dev);
	return 0;
}

/* On @e, a static neighbour: @peer at @addr ("ADDR/LEN"). */
static int veth_neigh(const struct veth_end *e, const struct veth_end *peer,
		      const char *addr)
{
	char ip[64];

	CHECK(sh("%sneigh add %.*s lladdr %s dev %s nud permanent",
		 ip_of(e, ip, sizeof(ip)), (int)strcspn(addr, "/"), addr,
		 peer->mac, e->dev) == 0,
	      "cannot add a neighbour on %s", e->dev);
	return 0;
}

/* Both ends' addresses of one family (@a on a, @b on b), then neighbours. */
static int veth_addrs(const struct veth *v, const char *a, const char *b,
		      bool nodad)
{
	if ((a && veth_addr(&v->a, a, nodad)) ||
	    (b && veth_addr(&v->b, b, nodad)))
		return -1;
	if (!(v->flags & VETH_NEIGH) || !a || !b)
		return 0;
	return veth_neigh(&v->a, &v->b, b) || veth_neigh(&v->b, &v->a, a) ?
	       -1 : 0;
}

/* @off ("1" or "0") into disable_ipv6: all of @e's namespace, or @e's own. */
static int veth_ipv6(const struct veth_end *e, const char *off)
{
	char path[96];

	if (e->ns) {
		CHECK(sh(IPROUTE " netns exec %s sh -c 'for f in %s; do echo %s > $f; done'",
			 e->ns, "/proc/sys/net/ipv6/conf/*/disable_ipv6", off) == 0,
		      "cannot set disable_ipv6 in %s", e->ns);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/sys/net/ipv6/conf/%s/disable_ipv6",
		 e->dev);
	CHECK(write_file(path, off) == 0, "cannot set disable_ipv6 of %s",
	      e->dev);
	return 0;
}

struct gro_off {
	const char *dev;
};

static int gro_off(void *arg)
{
	return ethtool_set(((struct gro_off *)arg)->dev, ETHTOOL_SGRO, 0);
}

int veth_pair(const struct veth *v)
{
	const struct veth_end *e[] = { &v->a, &v->b };
	char a[160], b[160];
	int i, err;

	veth_pair_del(v);
	CHECK(kmod_probe("veth") == 0, "cannot load veth");
	for (i = 0; i < 2; i++)
		if (e[i]->ns && (i == 0 || !v->a.ns || strcmp(e[i]->ns, v->a.ns)))
			CHECK(sh(IPROUTE " netns add %s", e[i]->ns) == 0,
			      "ip netns add %s failed", e[i]->ns);
	CHECK(sh(IPROUTE " link add %s type veth peer name %s",
		 link_words(&v->a, a, sizeof(a)),
		 link_words(&v->b, b, sizeof(b))) == 0,
	      "ip link add veth %s %s failed", v->a.dev, v->b.dev);
	for (i = 0; i < 2 && (v->flags & (VETH_IPV6_OFF | VETH_IPV6_ON)); i++)
		if (veth_ipv6(e[i], v->flags & VETH_IPV6_OFF ? "1" : "0"))
			return -1;
	if (veth_addrs(v, v->a.ip4, v->b.ip4, false) ||
	    veth_addrs(v, v->a.ip6, v->b.ip6, true))
		return -1;
	for (i = 0; i < 2 && (v->flags & VETH_NO_GRO); i++) {
		struct gro_off g = { e[i]->dev };

		err = e[i]->ns ? in_ns(e[i]->ns, gro_off, &g) : gro_off(&g);
		CHECK(err == 0, "turning GRO off: %s", strerror(-err));
	}
	for (i = 0; i < 2 && (v->flags & VETH_UP); i++)
		CHECK(sh("%slink set %s up", ip_of(e[i], a, sizeof(a)),
			 e[i]->dev) == 0, "cannot set %s up", e[i]->dev);
	for (i = 0; i < 2 && (v->flags & VETH_LO_UP); i++)
		if (e[i]->ns)
			CHECK(sh(IPROUTE " -n %s link set lo up", e[i]->ns) == 0,
			      "cannot set lo up in %s", e[i]->ns);
	return 0;
}

/* "ns=NS,dev=DEV,mac=MAC,ip4=ADDR/LEN,ip6=ADDR/LEN,opts=OPTS" into @e */
static int veth_end_parse(char *arg, struct veth_end *e)
{
	char *kv, *save = NULL;

	memset(e, 0, sizeof(*e));
	for (kv = strtok_r(arg, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *val = strchr(kv, '=');

		if (!val)
			return -1;
		*val++ = 0;
		if (!strcmp(kv, "ns"))
			e->ns = val;
		else if (!strcmp(kv, "dev"))
			e->dev = val;
		else if (!strcmp(kv, "mac"))
			e->mac = val;
		else if (!strcmp(kv, "ip4"))
			e->ip4 = val;
		else if (!strcmp(kv, "ip6"))
			e->ip6 = val;
		else if (!strcmp(kv, "opts"))
			e->opts = val;
		else
			return -1;
	}
	return e->dev ? 0 : -1;
}

/*
 * skbprof-test --veth-pair END END [FLAG,...]: veth_pair() from the
 * shell (bench/guest.sh), so that the benchmark's pair is built by the
 * same steps as the tests'.  END: veth_end_parse(); FLAG: ipv6-off,
 * ipv6-on, neigh, no-gro, up, lo-up.  Exits 0, or 1 with the reason on
 * stderr.
 */
static int veth_pair_cmd(int argc, char **argv)
{
	static const struct { const char *name; unsigned int flag; } flags[] = {
		{ "ipv6-off", VETH_IPV6_OFF }, { "ipv6-on", VETH_IPV6_ON },
		{ "neigh", VETH_NEIGH }, { "no-gro", VETH_NO_GRO },
		{ "up", VETH_UP }, { "lo-up", VETH_LO_UP },
	};
	struct veth v = { 0 };
	char *f, *save = NULL;
	size_t i;

	if (argc < 2 || argc > 3 || veth_end_parse(argv[0], &v.a) ||
	    veth_end_parse(argv[1], &v.b))
		goto usage;
	for (f = argc > 2 ? strtok_r(argv[2], ",", &save) : NULL; f;
	     f = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < sizeof(flags) / sizeof(*flags); i++)
			if (!strcmp(f, flags[i].name))
				break;
		if (i == sizeof(flags) / sizeof(*flags))
			goto usage;
		v.flags |= flags[i].flag;
	}
	if (veth_pair(&v) == 0)
		return 0;
	fprintf(stderr, "skbprof-test --veth-pair: %s\n", fail_msg);
	return 1;
usage:
	fprintf(stderr, "usage: skbprof-test --veth-pair END END [FLAG,...]\n"
		"  END: ns=NS,dev=DEV,mac=MAC,ip4=A/LEN,ip6=A/LEN,opts=OPTS\n"
		"  FLAG: ipv6-off ipv6-on neigh no-gro up lo-up\n");
	return 2;
}

/* ---- the guest's NICs ---- */

struct nic_find {
	const char *mac;
	char *name;		/* IFNAMSIZ */
};

/* Is a NIC with MAC f->mac in the initial namespace?  Its name then. */
static bool nic_present(void *arg)
{
	struct nic_find *f = arg;
	DIR *d = opendir("/sys/class/net");
	struct dirent *e;
	bool found = false;

	while (d && !found && (e = readdir(d))) {
		char path[300], *addr;

		if (e->d_name[0] == '.' || strlen(e->d_name) >= 16)
			continue;
		snprintf(path, sizeof(path), "/sys/class/net/%s/address",
			 e->d_name);
		addr = read_file(path);
		found = addr && !strncasecmp(addr, f->mac, strlen(f->mac));
		if (found)
			strcpy(f->name, e->d_name);
		free(addr);
	}
	if (d)
		closedir(d);
	return found;
}

static bool vnet_ping(void *arg)
{
	(void)arg;
	return sh("ping -c 1 -W 1 " VNET_IP4_B " >/dev/null 2>&1") == 0;
}

int vnet_setup(struct vnet *v)
{
	struct nic_find a = { VNET_MAC_A, v->a }, b = { VNET_MAC_B, v->b };

	memset(v, 0, sizeof(*v));
	/* a namespace left behind hands NIC b back as it goes, later */
	netns_del(VNET_NS);
	kmod_probe("virtio_pci");	/* built in on some kernels */
	CHECK(kmod_probe("virtio_net") == 0, "cannot load virtio_net");
	CHECK(wait_until(nic_present, &a, WAIT_MS) &&
	      wait_until(nic_present, &b, WAIT_MS),
	      "no virtio-net NICs with MACs " VNET_MAC_A " and " VNET_MAC_B
	      " (tests/lib.sh GUEST_NICS)");
	CHECK(sh(IPROUTE " netns add " VNET_NS " && "
		 IPROUTE " link set %s netns " VNET_NS, v->b) == 0,
	      "cannot move %s into " VNET_NS, v->b);
	/* a NIC gets its namespace's IPv6 settings as it enters it */
	CHECK(sh("echo 1 > /proc/sys/net/ipv6/conf/%s/disable_ipv6 && "
		 IPROUTE " netns exec " VNET_NS " sh -c "
		 "'echo 1 > /proc/sys/net/ipv6/conf/%s/disable_ipv6'",
		 v->a, v->b) == 0, "cannot turn IPv6 off");
	CHECK(sh(IPROUTE " addr add " VNET_IP4_A "/24 dev %s && "
		 IPROUTE " -n " VNET_NS " addr add " VNET_IP4_B "/24 dev %s && "
		 IPROUTE " neigh replace " VNET_IP4_B " lladdr " VNET_MAC_B
		 " dev %s nud permanent && "
		 IPROUTE " -n " VNET_NS " neigh replace " VNET_IP4_A " lladdr "
		 VNET_MAC_A " dev %s nud permanent && "
		 IPROUTE " link set %s up && "
		 IPROUTE " -n " VNET_NS " link set %s up && "
		 IPROUTE " -n " VNET_NS " link set lo up",
		 v->a, v->b, v->a, v->b, v->a, v->b) == 0,
	      "cannot configure %s and %s", v->a, v->b);
	CHECK(wait_until(vnet_ping, NULL, WAIT_MS),
	      "no ping from %s to %s across the hub", v->a, v->b);
	return 0;
}

void vnet_teardown(const struct vnet *v)
{
	if (v->b[0])
		sh(IPROUTE " -n " VNET_NS " link set %s netns 1 2>/dev/null",
		   v->b);
	netns_del(VNET_NS);
	if (v->a[0])
		sh(IPROUTE " link set %s down; " IPROUTE " addr flush dev %s; "
		   IPROUTE " neigh flush dev %s", v->a, v->a, v->a);
}

struct vnet virtio_nics;

static int virtio_setup(void)
{
	return vnet_setup(&virtio_nics);
}

static void virtio_teardown(void)
{
	vnet_teardown(&virtio_nics);
}

const struct fixture __fixture_virtio = { virtio_setup, virtio_teardown };

long long netdev_stat(const char *dev, const char *name)
{
	char path[256], *s;
	long long v;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", dev,
		 name);
	s = read_file(path);
	v = s ? atoll(s) : -1;
	free(s);
	return v;
}

#define KMEMLEAK "/sys/kernel/debug/kmemleak"

/* Does one report (from "unreferenced object" to the next) look ours? */
static bool leak_is_ours(const char *r, size_t len)
{
	char *s = strndup(r, len);
	bool ours;

	ours = s && (strstr(s, "skbprof") || strstr(s, "] 0xffffffffc"));
	free(s);
	return ours;
}

int kmemleak_skbprof_leaks(int *reports)
{
	const char *p, *next;
	int ours = 0, i;
	char *s;

	*reports = 0;
	if (access(KMEMLEAK, W_OK))
		return -1;
	/*
	 * An object is reported once it is older than 5 s and was found
	 * unreferenced, with unchanged contents, by two scans in a row.
	 */
	sleep(6);
	for (i = 0; i < 2; i++) {
		int err = write_file(KMEMLEAK, "scan");

		if (err) {
			fail("kmemleak scan: %s", strerror(-err));
			return 1;
		}
	}
	s = read_file(KMEMLEAK);
	if (!s) {
		fail("reading %s: %s", KMEMLEAK, strerror(errno));
		return 1;
	}
	for (p = strstr(s, "unreferenced object"); p; p = next) {
		next = strstr(p + 1, "unreferenced object");
		(*reports)++;
		if (leak_is_ours(p, next ? (size_t)(next - p) : strlen(p)) &&
		    !ours++)
			fail("kmemleak reports a leak of skbprof: %.1500s", p);
	}
	if (*reports)
		printf("%s\n", s);
	free(s);
	return ours;
}
