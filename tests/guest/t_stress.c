// SPDX-License-Identifier: GPL-2.0
/*
 * Reliability under what production does to the module:
 *
 *   stress_load_unload_100: load and unload 100 times while TCP, UDP and
 *   dropped traffic flows, readers open/read/close every file in loops, a
 *   reader sits in `trace`, and writers hammer `control`; stats stay
 *   consistent while loaded, every unload is complete, and the memory
 *   comes back.
 *
 *   stress_exhaustion: a 64-entry stamp table and one drop key under a
 *   flood with several drop locations: misses are counted, the drop
 *   accounting adds up against the kernel's own counters, memory stays
 *   bounded.
 *
 *   lifecycle_failing_loads: loads that fail at every step, and good ones,
 *   while the same children open every file, a reader waits in a blocking
 *   read of `trace` whenever it can open it, and writers send `reset` and
 *   filters without a pause: no load hangs, nothing is left behind.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define STATS	DEBUGFS_DIR "/stats"
#define CONTROL	DEBUGFS_DIR "/control"
#define TRACE	DEBUGFS_DIR "/trace"
#define DROPS	DEBUGFS_DIR "/drops"
#define DROPS_ROWS	DEBUGFS_DIR "/drops_rows"

#define CYCLES		100
/*
 * The work per cycle, tuned so that 100 cycles stay near 3 minutes in a
 * 2-CPU TCG guest: loading and unloading (kprobe registration, RCU grace
 * periods) is most of a cycle; the children pause between rounds so that
 * they do not starve it.
 */
#define WORK_MS			20
#define READER_PAUSE_MS		10
#define WRITER_PAUSE_MS		10
#define TRAFFIC_PAUSE_MS	10
#define PORT_TCP	34100
#define PORT_UDP	34101
#define PORT_CLOSED	34102	/* nobody listens: UDP drops, TCP resets */
#define PORT_FULL	34103	/* a socket that never reads, tiny buffer */
#define PORT_HOARD	34104	/* one that never reads, huge buffer */

static void msleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/*
 * How much longer the children pause: skbprof.pace=N on the kernel command
 * line, 1 by default.  The harness passes 10 on the debug kernel (KASAN,
 * lockdep, under TCG, tens of times slower).  There, the children at the
 * normal pace keep both CPUs busy on their own, and every synchronize_rcu()
 * in the guest (the module loader's own do_free_init() as well as an
 * unload's) waited minutes, without an RCU stall warning, until the load
 * stopped: stopping the children let a blocked unload finish in seconds.
 * That measures an overloaded emulator, not the module.
 */
static int pace(void)
{
	static int p;
	char *s, *a;

	if (p)
		return p;
	p = 1;
	s = read_file("/proc/cmdline");
	a = s ? strstr(s, "skbprof.pace=") : NULL;
	if (a && atoi(a + strlen("skbprof.pace=")) > 0)
		p = atoi(a + strlen("skbprof.pace="));
	free(s);
	return p;
}

/* A child's pause between rounds, or while the files are absent. */
static void pause_ms(int ms)
{
	msleep(ms * pace());
}

/*
 * A hurried child's pause while the files are absent: none at the normal
 * pace, so that it opens them the moment they appear.  On a paced kernel
 * its loop of opens and writes alone kept a failing load's synchronize_rcu()
 * (ftrace_release_mod()) waiting for minutes: there it pauses too.
 */
static void hurried_pause(void)
{
	if (pace() > 1)
		pause_ms(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- what the children report -------------------------------------- */

#define NFILES 21
static const char *const files[NFILES] = {
	"stats", "control", "drops", "drops_rows", "latency", "procs", "cgroups", "lifetime",
	"latency_buckets", "lifetime_buckets", "softnet", "softnet_buckets",
	"softnet_counters",
	"drops_devices", "counters", "probes", "groups", "stages", "inflight",
	"latency_worst", "trace",	/* the blocking one last */
};

struct shared {
	long reads[NFILES];		/* complete open/read/close rounds */
	long absent[NFILES];		/* open refused: module not there */
	long writes_ok, writes_einval, writes_absent;
	long sent[4];
	long unsent;			/* flood packets that never left */
	int unsent_errno;		/* the last reason */
	int trace_open;			/* the trace reader has it open */
	long not_ready;			/* opens refused while loading */
	long trace_blocked;		/* blocking reads of trace begun */
	int quiet;			/* writers, readers: hold off (an unload) */
	long writing;			/* writers with control open */
	long reading;			/* readers opening a file */
	int bad;			/* an unexpected result, described: */
	char why[256];
};

static struct shared *sh_mem;

/* fields the other processes change under us (shared memory) */
#define READ_ONCE(x)		(*(volatile typeof(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile typeof(x) *)&(x) = (v))

static void report_bad(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static void report_bad(const char *fmt, ...)
{
	va_list ap;

	if (__sync_lock_test_and_set(&sh_mem->bad, 1))
		return;
	va_start(ap, fmt);
	vsnprintf(sh_mem->why, sizeof(sh_mem->why), fmt, ap);
	va_end(ap);
}

/*
 * open() errors of a file whose module is absent or going away, or still
 * loading (ENODEV: the files refuse until the load cannot fail).
 */
static bool absent_errno(int e)
{
	if (e == ENODEV)
		__sync_fetch_and_add(&sh_mem->not_ready, 1);
	return e == ENOENT || e == ENXIO || e == ENODEV;
}

/*
 * Count one in *@busy (sh_mem->reading or ->writing) before opening a
 * file, unless an unload is tried (sh_mem->quiet): waits while one is,
 * and is false, having counted nothing, when one began meanwhile (the
 * caller tries again).  quiet_leave() takes the count off once the open
 * is done.
 */
static bool quiet_enter(long *busy)
{
	while (READ_ONCE(sh_mem->quiet))
		pause_ms(1);
	__sync_fetch_and_add(busy, 1);
	if (!READ_ONCE(sh_mem->quiet))
		return true;
	__sync_fetch_and_sub(busy, 1);
	return false;
}

static void quiet_leave(long *busy)
{
	__sync_fetch_and_sub(busy, 1);
}

/* A reader of file @i: open, read to the end, close, forever. */
static void file_reader(int i)
{
	char path[128];
	int err;

	snprintf(path, sizeof(path), DEBUGFS_DIR "/%s", files[i]);
	for (;;) {
		/*
		 * No open while an unload is tried: the kernel WARNs on a
		 * debugfs open between the module's last reference going
		 * and its state turning GOING (full_proxy_open(), "did not
		 * clean up at exit"), a window skbprof cannot close.  The
		 * trace readers' files, open across it, still make unloads
		 * retry (EBUSY).
		 */
		if (!quiet_enter(&sh_mem->reading))
			continue;
		err = drain_file(path);
		quiet_leave(&sh_mem->reading);
		if (err < 0) {
			if (!absent_errno(-err))
				report_bad("open %s: %s", path, strerror(-err));
			sh_mem->absent[i]++;
			pause_ms(2);
			continue;
		}
		/* trace is non-blocking here: EAGAIN once it is drained */
		if (err && !(err == EAGAIN && i == NFILES - 1))
			report_bad("read %s: %s", path, strerror(err));
		sh_mem->reads[i]++;
		pause_ms(READER_PAUSE_MS);
	}
}

/*
 * Writes to control: valid commands succeed, bad ones get EINVAL.  With
 * @hurry, `reset` is one of the valid ones and there is no pause.
 */
static void control_writer(unsigned int seed, bool hurry)
{
	static const char *const good[] = {
		"sample 1\n", "sample 3\n", "filter proto udp\n",
		"filter clear\n", "stages all\n", "stages drv-ip,drops\n",
		"trace on\n", "trace off\n", "trace verbose\n",
		"filter port 34102\nsample 1\n", "filter clear\nstages all\n",
	};
	/*
	 * No view switched on or off: arming takes grace periods with the
	 * file open, and two writers doing it back to back keep the module
	 * pinned past any unload's retries (t_arming.c switches views).
	 */
	static const char *const good_reset[] = {
		"reset\n", "filter proto udp\nreset\n", "filter clear\n",
		"stages all\nreset\n", "sample 2\n", "reset\nsample 1\n",
		"trace on\n", "reset\n", "trace off\n", "filter port 34101\n",
		"sample 5\n",
	};
	static const char *const bad[] = {
		"bogus\n", "sample 0\n", "filter port 70000\n", "stages x\n",
	};
	const char *cmd;
	ssize_t n;
	int fd, k;

	for (;;) {
		seed = seed * 1103515245 + 12345;
		k = (seed >> 16) % 16;
		cmd = k >= 11 ? bad[k - 11 < 4 ? k - 11 : 0] :
		      hurry ? good_reset[k] : good[k];
		if (!quiet_enter(&sh_mem->writing))
			continue;
		fd = open(CONTROL, O_WRONLY);
		if (fd < 0) {
			quiet_leave(&sh_mem->writing);
			if (!absent_errno(errno))
				report_bad("open control: %s", strerror(errno));
			sh_mem->writes_absent++;
			if (hurry)
				hurried_pause();
			else
				pause_ms(2);
			continue;
		}
		n = write(fd, cmd, strlen(cmd));
		if (k < 11 && n != (ssize_t)strlen(cmd))
			report_bad("'%s' gave %zd (%s)", cmd, n,
				   n < 0 ? strerror(errno) : "short");
		else if (k >= 11 && !(n < 0 && errno == EINVAL))
			report_bad("bad '%s' gave %zd (%s)", cmd, n,
				   n < 0 ? strerror(errno) : "accepted");
		if (k < 11)
			sh_mem->writes_ok++;
		else
			sh_mem->writes_einval++;
		close(fd);
		quiet_leave(&sh_mem->writing);
		if (hurry)
			hurried_pause();
		else
			pause_ms(WRITER_PAUSE_MS);
	}
}

static void addr4(struct sockaddr_in *a, int port)
{
	memset(a, 0, sizeof(*a));
	a->sin_family = AF_INET;
	a->sin_port = htons(port);
	a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

/* TCP: connect, stream 16 KiB, close; over and over. */
static void tcp_traffic(void)
{
	static char buf[16384];
	struct sockaddr_in a;
	int l, c, s, one = 1;
	ssize_t n, got;

	addr4(&a, PORT_TCP);
	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (l < 0 || bind(l, (void *)&a, sizeof(a)) || listen(l, 4)) {
		report_bad("tcp listener: %s", strerror(errno));
		return;
	}
	for (;;) {
		c = socket(AF_INET, SOCK_STREAM, 0);
		if (c < 0 || connect(c, (void *)&a, sizeof(a))) {
			report_bad("tcp connect: %s", strerror(errno));
			return;
		}
		s = accept(l, NULL, NULL);
		if (s < 0 || write(c, buf, sizeof(buf)) != sizeof(buf)) {
			report_bad("tcp accept/write: %s", strerror(errno));
			return;
		}
		shutdown(c, SHUT_WR);
		for (got = 0; (n = read(s, buf, sizeof(buf))) > 0; got += n)
			;
		close(s);
		close(c);
		sh_mem->sent[0]++;
		pause_ms(TRAFFIC_PAUSE_MS);
	}
}

/* UDP to a bound socket (read back) and to a closed port (dropped). */
static void udp_traffic(bool closed)
{
	struct sockaddr_in a;
	char buf[256] = "x";
	int tx, rx = -1, i;

	addr4(&a, closed ? PORT_CLOSED : PORT_UDP);
	tx = socket(AF_INET, SOCK_DGRAM, 0);
	if (!closed) {
		rx = socket(AF_INET, SOCK_DGRAM, 0);
		if (rx < 0 || bind(rx, (void *)&a, sizeof(a))) {
			report_bad("udp bind: %s", strerror(errno));
			return;
		}
	}
	for (;;) {
		for (i = 0; i < 8; i++) {
			sendto(tx, buf, sizeof(buf), 0, (void *)&a, sizeof(a));
			if (rx >= 0)
				recv(rx, buf, sizeof(buf), 0);
		}
		sh_mem->sent[closed ? 2 : 1] += 8;
		pause_ms(TRAFFIC_PAUSE_MS);
	}
}

/* A child of @k; one it cannot have is reported, loudly. */
static pid_t spawn(struct kids *k, void (*fn)(int), int arg)
{
	pid_t pid = kids_spawn(k, fn, arg);

	if (pid < 0)
		report_bad("cannot start child %d: %s", k->n, strerror(errno));
	return pid;
}

static void run_reader(int i) { file_reader(i); }
static void run_writer(int seed) { control_writer(seed, false); }
static void run_hurried_writer(int seed) { control_writer(seed, true); }
static void run_tcp(int unused) { (void)unused; tcp_traffic(); }
static void run_udp(int closed) { udp_traffic(closed); }

/* ---- the trace reader that blocks ------------------------------------ */

static volatile sig_atomic_t trace_stop;

static void on_usr1(int sig)
{
	(void)sig;
	trace_stop = 1;
}

/* Blocking reads of trace until SIGUSR1; exit 0 when all went as told. */
static void trace_reader(int unused)
{
	struct sigaction sa = { .sa_handler = on_usr1 };	/* no restart */
	char buf[4096];
	ssize_t n;
	int fd;

	(void)unused;
	sigaction(SIGUSR1, &sa, NULL);
	fd = open(TRACE, O_RDONLY);
	if (fd < 0) {
		report_bad("open trace: %s", strerror(errno));
		_exit(1);
	}
	sh_mem->trace_open = 1;
	while (!trace_stop) {
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno != EINTR) {
			report_bad("blocking read of trace: %s", strerror(errno));
			_exit(1);
		}
	}
	close(fd);
	_exit(0);
}

/* ---- the module ------------------------------------------------------ */

/*
 * delete_module directly: libkmod would log each refusal of a module
 * that is in use, and here refusals are expected.
 */
static int unload_once(void)
{
	return syscall(__NR_delete_module, "skbprof", O_NONBLOCK) ? -errno : 0;
}

/*
 * Unload, waiting out readers that hold a file open for a moment.  The
 * control writers hold off meanwhile: a write may take grace periods
 * (arming, the trace buffer) with the file open, and on a slow guest two
 * of them back to back pinned the module past every retry.
 */
static int unload_retry(int *busy)
{
	int i, err = 0;

	if (sh_mem) {
		WRITE_ONCE(sh_mem->quiet, 1);
		while (READ_ONCE(sh_mem->writing) || READ_ONCE(sh_mem->reading))
			usleep(500);
	}
	for (i = 0; i < 5000; i++) {
		err = unload_once();
		if (err != -EAGAIN && err != -EBUSY)
			break;
		(*busy)++;
		usleep(500 + (i & 7) * 100);
	}
	if (sh_mem)
		WRITE_ONCE(sh_mem->quiet, 0);
	return err;
}

/* "key value" of a stats text; -1 when missing. */
/* The relations stats must keep whatever happens, while loaded. */
static int stats_consistent(const struct table *s, unsigned int cycle)
{
	long long cap = counter_of(s, "table_capacity");
	long long used = counter_of(s, "table_in_use");
	long long ins = counter_of(s, "table_inserts");
	long long evi = counter_of(s, "table_evictions");
	long long kmax = counter_of(s, "drops_keys_max");
	long long kused = counter_of(s, "drops_keys_used");
	long long tot = counter_of(s, "drops_total");
	long long ovf = counter_of(s, "drops_overflow");
	long long tbuf = counter_of(s, "trace_buffer_bytes");

	CHECK(cap > 0 && used >= 0 && ins >= 0 && evi >= 0 && kmax > 0 &&
	      kused >= 0 && tot >= 0 && ovf >= 0 && tbuf >= 0,
	      "cycle %u: counters lacks a counter:\n%s", cycle, s->text);
	CHECK(used <= cap, "cycle %u: table_in_use %lld > capacity %lld",
	      cycle, used, cap);
	/* no reset is written here: every stamp in use was inserted */
	CHECK(used <= ins, "cycle %u: table_in_use %lld > inserts %lld",
	      cycle, used, ins);
	CHECK(evi <= ins, "cycle %u: evictions %lld > inserts %lld", cycle,
	      evi, ins);
	CHECK(kused <= kmax, "cycle %u: drops_keys_used %lld > max %lld",
	      cycle, kused, kmax);
	CHECK(ovf <= tot, "cycle %u: drops_overflow %lld > total %lld", cycle,
	      ovf, tot);
	/* trace on was written after this load: the default 256 KiB buffer */
	CHECK(tbuf == 256 * 1024, "cycle %u: trace_buffer_bytes %lld", cycle,
	      tbuf);
	return 0;
}

/* ---- memory ---------------------------------------------------------- */

struct slab {
	char name[40];
	long long kb;			/* its slabs' pages */
};

struct mem {
	long long slab, percpu, vmalloc;	/* /proc/meminfo, kB */
	struct slab slabs[512];		/* /proc/slabinfo */
	int nslabs;
	long long mod_bytes;		/* vmallocinfo areas of [skbprof] */
	int mod_areas;
	int orphans;			/* areas whose caller does not resolve */
};

static long long meminfo(const char *s, const char *key)
{
	const char *p = strstr(s, key);

	return p ? atoll(p + strlen(key)) : -1;
}

/* The kB each slab cache holds, for saying which one grew. */
static void slabs_read(struct mem *m)
{
	long long kb_page = sysconf(_SC_PAGESIZE) / 1024, pages, slabs;
	char *s = read_file("/proc/slabinfo"), *line, *save = NULL;
	struct slab *c;

	m->nslabs = 0;
	if (!s)
		return;
	for (line = strtok_r(s, "\n", &save); line && m->nslabs < 512;
	     line = strtok_r(NULL, "\n", &save)) {
		c = &m->slabs[m->nslabs];
		if (sscanf(line, "%39s %*d %*d %*d %*d %lld : tunables %*d %*d %*d : slabdata %*d %lld",
			   c->name, &pages, &slabs) == 3) {
			c->kb = pages * slabs * kb_page;
			m->nslabs++;
		}
	}
	free(s);
}

/*
 * SLUB merges caches of one size and flags, and /proc/slabinfo names the
 * merged cache after one of them: note the others (/sys/kernel/slab,
 * where each name is a link to the merged cache).
 */
static void slab_aliases(const char *name)
{
	char *out = sh_out(NULL, "cd /sys/kernel/slab 2>/dev/null && t=$(readlink %s) && "
			   "for l in *; do [ \"$(readlink $l)\" = \"$t\" ] && echo -n \"$l \"; done",
			   name);

	note("%s is also: %s", name, out && *out ? out : "(no other)");
	free(out);
}

/* Note the slab caches that grew most from @a to @b. */
static void slabs_note_growth(const struct mem *a, const struct mem *b)
{
	char line[512] = "";
	long long grew[512];
	int i, j, top, n = 0;

	for (i = 0; i < b->nslabs; i++) {
		grew[i] = b->slabs[i].kb;
		for (j = 0; j < a->nslabs; j++)
			if (!strcmp(a->slabs[j].name, b->slabs[i].name))
				grew[i] -= a->slabs[j].kb;
	}
	while (n < 8) {
		for (top = -1, i = 0; i < b->nslabs; i++)
			if (grew[i] > 0 && (top < 0 || grew[i] > grew[top]))
				top = i;
		if (top < 0)
			break;
		snprintf(line + strlen(line), sizeof(line) - strlen(line),
			 " %s +%lld", b->slabs[top].name, grew[top]);
		if (n < 2)
			slab_aliases(b->slabs[top].name);
		grew[top] = 0;
		n++;
	}
	note("slab caches that grew most, kB:%s", n ? line : " none");
}

static int mem_read(struct mem *m)
{
	char *s, *line, *save = NULL;

	sh("echo 3 > /proc/sys/vm/drop_caches");
	s = read_file("/proc/meminfo");
	CHECK(s, "/proc/meminfo");
	m->slab = meminfo(s, "\nSlab:");
	m->percpu = meminfo(s, "\nPercpu:");
	m->vmalloc = meminfo(s, "\nVmallocUsed:");
	free(s);
	slabs_read(m);
	s = read_file("/proc/vmallocinfo");
	CHECK(s, "/proc/vmallocinfo");
	m->mod_bytes = 0;
	m->mod_areas = 0;
	m->orphans = 0;
	for (line = strtok_r(s, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char range[64], caller[256] = "";
		long long size = 0;

		if (sscanf(line, "%63s %lld %255s", range, &size, caller) < 2)
			continue;
		if (strstr(line, "[skbprof]")) {
			m->mod_areas++;
			m->mod_bytes += size;
		}
		/* an area allocated by code that is gone: %pS gave 0x... */
		if (!strncmp(caller, "0x", 2))
			m->orphans++;
	}
	free(s);
	return 0;
}

/* The traffic alone before "before": TCP_TIMEWAIT_LEN (60 s), and more. */
#define WARMUP_MS	70000

/* TCP sockets in TIME_WAIT (/proc/net/sockstat), or -1. */
static long tcp_time_wait(void)
{
	char *s = read_file("/proc/net/sockstat"), *p;
	long tw = -1;

	p = s ? strstr(s, "\nTCP: ") : NULL;
	p = p ? strstr(p, " tw ") : NULL;
	if (p)
		tw = atol(p + 4);
	free(s);
	return tw;
}

/*
 * Wait for the TIME_WAIT sockets of the traffic to expire: each holds
 * slab for TCP_TIMEWAIT_LEN (60 s), and hundreds of them weigh more than
 * the growth the memory check looks for.  The seconds it took, or -1.
 */
static double time_wait_drained(void)
{
	double t0 = now();

	while (tcp_time_wait() != 0) {
		if (now() - t0 > 120)
			return -1;
		msleep(100);
	}
	return now() - t0;
}

/* The traffic: TCP connections, UDP read back, UDP to a closed port. */
static void spawn_traffic(struct kids *k)
{
	spawn(k, run_tcp, 0);
	spawn(k, run_udp, 0);
	spawn(k, run_udp, 1);
}

/*
 * Stop the children of @k, wait for their TIME_WAIT sockets to expire,
 * then read the memory into @m; *@took: how long the sockets took.
 * 0, or -1 having said why.
 */
static int mem_read_settled(struct kids *k, struct mem *m, double *took)
{
	kids_kill(k);
	*took = time_wait_drained();
	if (*took < 0)
		return fail("%ld TCP sockets still in TIME_WAIT after 120 s",
			    tcp_time_wait());
	return mem_read(m);
}

static long long mem_sum(const struct mem *m)
{
	return m->slab + m->percpu + m->vmalloc;
}

static int shared_map(void)
{
	sh_mem = mmap(NULL, sizeof(*sh_mem), PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	CHECK(sh_mem != MAP_FAILED, "mmap: %s", strerror(errno));
	memset(sh_mem, 0, sizeof(*sh_mem));
	return 0;
}

/* Seconds spent loading and unloading, over all cycles; the longest unload. */
static double t_load, t_unload, t_unload_max;

/* One cycle: load, trace on, a blocked reader, check, unload. */
static int cycle(struct kids *k, unsigned int i, int work_ms, int *busy,
		 struct mem *loaded)
{
	struct kids tr = { .n = 0 };
	struct table c;
	pid_t rd;
	int err, st, j;
	double t;

	t = now();
	err = skbprof_load(NULL);
	t_load += now() - t;
	CHECK(err == 0, "cycle %u: load: %s", i, strerror(-err));
	err = write_file(CONTROL, "trace on\n");
	CHECK(err == 0, "cycle %u: trace on: %s", i, strerror(-err));
	sh_mem->trace_open = 0;
	rd = spawn(&tr, trace_reader, 0);
	CHECK(rd > 0, "fork");
	for (j = 0; j < 30000 && !sh_mem->trace_open; j++)
		msleep(1);
	CHECK(sh_mem->trace_open, "cycle %u: the trace reader did not open", i);
	msleep(work_ms);
	CHECK(table_read(&c, "counters") == 0, "cycle %u: counters", i);
	err = stats_consistent(&c, i);
	table_free(&c);
	if (loaded && mem_read(loaded))
		err = -1;
	/* an open file pins the module: unloading now must be refused */
	j = unload_once();
	if (j != -EAGAIN && j != -EBUSY)
		err = fail("cycle %u: unload with trace open gave %d, want EAGAIN",
			   i, j);
	kill(rd, SIGUSR1);
	CHECK(waitpid(rd, &st, 0) == rd, "waitpid");
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "cycle %u: the trace reader ended with status %d", i, st);
	if (err)
		return -1;
	t = now();
	err = unload_retry(busy);
	t = now() - t;
	t_unload += t;
	if (t > t_unload_max)
		t_unload_max = t;
	CHECK(err == 0, "cycle %u: unload: %s", i, strerror(-err));
	CHECK(!module_loaded("skbprof"), "cycle %u: /sys/module/skbprof remains", i);
	CHECK(!path_exists(DEBUGFS_DIR), "cycle %u: %s remains", i, DEBUGFS_DIR);
	(void)k;
	return 0;
}

/* Minutes long under TCG: make check-stress, make check-debug. */
SLOWTEST(stress_load_unload_100)
{
	static struct mem before, loaded, after;
	struct kids k = { .n = 0 };
	int i, err = 0, busy = 0, hold = -1, leaks, reports;
	long long reads = 0, absent = 0;
	double t0 = 0, t1 = 0, tw_took = 0;

	CHECK(shared_map() == 0, "shared memory");
	if (pace() > 1)
		note("children pause %d times longer (skbprof.pace)", pace());
	if (kver() >= 612)
		hold = tp_hold(false);	/* see t_drops.c drops_unload_under_load */
	/*
	 * "before" as "after" will be: once the traffic alone ran as long
	 * as a TIME_WAIT socket lives, and stopped, and its TIME_WAIT
	 * sockets expired.  The caches it fills (TCP's bind buckets, its
	 * TIME_WAIT socks) keep their part-used slabs once emptied: read
	 * before any traffic, 7.2 grew 2436 kB, most in eventpoll_epi
	 * (merged with tcp_bind_bucket, tcp_bind2_bucket, fib6_node) and
	 * tw_sock_TCP, with no TIME_WAIT socket left.
	 */
	spawn_traffic(&k);
	msleep(WARMUP_MS);
	err = mem_read_settled(&k, &before, &tw_took);
	if (err)
		goto out;
	spawn_traffic(&k);
	for (i = 0; i < NFILES; i++)
		spawn(&k, run_reader, i);
	spawn(&k, run_writer, 1);
	spawn(&k, run_writer, 2);
	msleep(500);

	t0 = now();
	for (i = 0; i < CYCLES && !err && !sh_mem->bad; i++)
		err = cycle(&k, i, WORK_MS, &busy, i == 0 ? &loaded : NULL);
	t1 = now();
	if (!err)
		err = mem_read_settled(&k, &after, &tw_took);
out:
	kids_kill(&k);
	tp_release(hold);
	if (err)
		return -1;
	CHECK(!sh_mem->bad, "a child saw: %s", sh_mem->why);

	for (i = 0; i < NFILES; i++) {
		reads += sh_mem->reads[i];
		absent += sh_mem->absent[i];
		CHECK(sh_mem->reads[i] > 0, "nobody ever read %s", files[i]);
	}
	note("%d cycles in %.1f s (%.2f s each: load %.2f s, unload %.2f s, longest unload %.2f s); %d unload refusals while files were open",
	     CYCLES, t1 - t0, (t1 - t0) / CYCLES, t_load / CYCLES,
	     t_unload / CYCLES, t_unload_max, busy);
	note("readers: %lld reads, %lld opens refused while unloaded; control: %ld ok, %ld EINVAL, %ld refused",
	     reads, absent, sh_mem->writes_ok, sh_mem->writes_einval,
	     sh_mem->writes_absent);
	note("traffic: %ld TCP connections, %ld UDP delivered, %ld UDP to a closed port",
	     sh_mem->sent[0], sh_mem->sent[1], sh_mem->sent[2]);
	note("the traffic's TIME_WAIT sockets expired %.1f s after it stopped",
	     tw_took);
	note("memory kB (Slab+Percpu+VmallocUsed): before %lld (%lld+%lld+%lld), loaded %lld (%lld+%lld+%lld), after %lld (%lld+%lld+%lld)",
	     mem_sum(&before), before.slab, before.percpu, before.vmalloc,
	     mem_sum(&loaded), loaded.slab, loaded.percpu, loaded.vmalloc,
	     mem_sum(&after), after.slab, after.percpu, after.vmalloc);
	note("vmalloc areas of [skbprof] while loaded: %d, %lld bytes; after: %d",
	     loaded.mod_areas, loaded.mod_bytes, after.mod_areas);
	slabs_note_growth(&before, &after);
	CHECK(sh_mem->writes_ok > 0 && sh_mem->writes_einval > 0,
	      "the control writers did not get through");
	CHECK(sh_mem->sent[0] > 0 && sh_mem->sent[1] > 0 && sh_mem->sent[2] > 0,
	      "some traffic never flowed");
	CHECK(loaded.mod_areas > 0, "no vmalloc area of [skbprof] while loaded");
	CHECK_EQ(after.mod_areas, 0);
	CHECK_EQ(after.orphans, before.orphans);
	/*
	 * One load takes about loaded - before; were a part of that kept
	 * per cycle, 100 cycles would show it many times over.  Before and
	 * after are read with no traffic and no TIME_WAIT socket, but the
	 * traffic leaves slabs part-used, so allow 2 MiB.  Where kmemleak is (the
	 * debug kernel), it judges slab exactly instead: KASAN's quarantine
	 * there keeps megabytes of freed objects counted in Slab.
	 */
	leaks = kmemleak_skbprof_leaks(&reports);
	if (leaks > 0)
		return -1;
	if (leaks == 0) {
		note("kmemleak: %d reports, none of skbprof", reports);
		CHECK(after.percpu + after.vmalloc -
		      before.percpu - before.vmalloc < 2048,
		      "Percpu+VmallocUsed grew by %lld kB over %d cycles",
		      after.percpu + after.vmalloc - before.percpu -
		      before.vmalloc, CYCLES);
		return 0;
	}
	CHECK(mem_sum(&after) - mem_sum(&before) < 2048,
	      "memory grew by %lld kB over %d cycles",
	      mem_sum(&after) - mem_sum(&before), CYCLES);
	return 0;
}

/* ---- failing loads ---------------------------------------------------- */

/*
 * Whenever trace opens, read it, blocking, until killed.  Before the
 * files waited for the end of the load, such a reader kept a failing
 * load's unwind waiting for its read, and its close ran freed code.
 */
static void trace_blocker(int unused)
{
	char buf[4096];
	int fd;

	(void)unused;
	for (;;) {
		/* no open while an unload is tried: see file_reader() */
		if (!quiet_enter(&sh_mem->reading))
			continue;
		fd = open(TRACE, O_RDONLY);
		quiet_leave(&sh_mem->reading);
		if (fd < 0) {
			if (READ_ONCE(sh_mem->quiet))
				continue;
			if (!absent_errno(errno))
				report_bad("open trace: %s", strerror(errno));
			hurried_pause();
			continue;
		}
		__sync_fetch_and_add(&sh_mem->trace_blocked, 1);
		while (read(fd, buf, sizeof(buf)) >= 0 || errno == EINTR)
			;
		report_bad("blocking read of trace: %s", strerror(errno));
		close(fd);
	}
}

/*
 * Load with @params in a child, so that a load which hangs is seen: the
 * load's errno (0 when it loaded), or 1 when it ran past @bound seconds.
 */
static int load_within(const char *params, double bound, double *took)
{
	double t0 = now();
	pid_t pid;
	int st;

	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(-skbprof_load(params));
	if (pid < 0)
		return errno;
	while (waitpid(pid, &st, WNOHANG) == 0) {
		*took = now() - t0;
		if (*took > bound)
			return 1;
		msleep(5);
	}
	*took = now() - t0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* Loads that fail, and the errno each must fail with. */
static const struct {
	const char *params;
	int err;
} failing[] = {
	{ "drop_keys=0", EINVAL },		/* the last part refuses */
	{ "table_size=1", EINVAL },		/* the timelines refuse */
	{ "max_age_ms=0", EINVAL },		/* every stamp stale at once */
	/* 1 + the last row's index would not fit payer.row[] */
	{ "procs_rows=65536", EINVAL },
	{ "trace=on trace_buffer_kb=0", EINVAL },
	/* trace=on: control has allocated the trace buffer */
	{ "trace=on procs_rows=3", EINVAL },
	{ "drops_fail_init_at=1", ENOMEM },
};

/* fail_init_at steps: one per part (ten, main.c's parts[]), then the files. */
#define INIT_STEPS	11
#define ROUNDS		3

TEST(lifecycle_failing_loads)
{
	struct kids k = { .n = 0 }, tb = { .n = 0 };
	double took, bound, longest = 0, t_good;
	char params[64];
	const char *p;
	int i, r, n, want, err, busy = 0, loads = 0, leaks, reports;
	long before[NFILES], blocked;

	CHECK(shared_map() == 0, "shared memory");
	spawn(&k, run_tcp, 0);
	spawn(&k, run_udp, 0);
	spawn(&k, run_udp, 1);
	for (i = 0; i < NFILES - 1; i++)	/* trace: the blocker's */
		spawn(&k, run_reader, i);
	spawn(&k, run_hurried_writer, 1);
	spawn(&k, run_hurried_writer, 2);

	/* the bound: what a good load takes here, many times over */
	err = load_within(NULL, 600, &t_good);
	CHECK(err == 0, "first load: %s", err == 1 ? "hangs" : strerror(err));
	bound = 60 + 20 * t_good;
	CHECK(unload_retry(&busy) == 0, "unload");

	for (r = 0; r < ROUNDS && !sh_mem->bad; r++) {
		spawn(&tb, trace_blocker, 0);
		n = (int)(sizeof(failing) / sizeof(failing[0])) + INIT_STEPS;
		for (i = 0; i < n && !sh_mem->bad; i++) {
			if (i < INIT_STEPS) {
				snprintf(params, sizeof(params),
					 "fail_init_at=%d", i + 1);
				p = params;
				want = ENOMEM;
			} else {
				p = failing[i - INIT_STEPS].params;
				want = failing[i - INIT_STEPS].err;
			}
			err = load_within(p, bound, &took);
			loads++;
			if (took > longest)
				longest = took;
			/* a line per load: the harness sees the test alive */
			note("round %d: load with %s: %s in %.1f s", r, p,
			     err == 1 ? "still running" : strerror(err), took);
			if (err == 1) {
				fail("round %d: load with %s still running after %.0f s (a good load took %.1f s)",
				     r, p, took, t_good);
				goto out;
			}
			if (err != want) {
				fail("round %d: load with %s: %s, want %s", r,
				     p, strerror(err), strerror(want));
				goto out;
			}
			if (module_loaded("skbprof") || path_exists(DEBUGFS_DIR)) {
				fail("round %d: after load with %s: not clean",
				     r, p);
				goto out;
			}
		}
		/*
		 * A good load, used by every child until each file was read
		 * and the blocking reader sits in trace.
		 */
		for (i = 0; i < NFILES - 1; i++)
			before[i] = sh_mem->reads[i];
		blocked = sh_mem->trace_blocked;
		err = load_within(NULL, bound, &took);
		if (err) {
			fail("round %d: good load: %s", r,
			     err == 1 ? "hangs" : strerror(err));
			goto out;
		}
		took = now();
		for (i = 0; i < NFILES - 1 && !sh_mem->bad; i++)
			while (sh_mem->reads[i] == before[i] && !sh_mem->bad &&
			       now() - took < bound)
				msleep(5);
		for (i = 0; i < NFILES - 1; i++)
			if (sh_mem->reads[i] == before[i]) {
				fail("round %d: %s was not read in %.0f s of a good load",
				     r, files[i], bound);
				goto out;
			}
		while (sh_mem->trace_blocked == blocked && !sh_mem->bad &&
		       now() - took < bound)
			msleep(5);
		if (sh_mem->trace_blocked == blocked) {
			fail("round %d: trace was not opened in %.0f s of a good load",
			     r, bound);
			goto out;
		}
		kids_kill(&tb);		/* its open trace pins the module */
		err = unload_retry(&busy);
		if (err) {
			fail("round %d: unload: %s", r, strerror(-err));
			goto out;
		}
	}
out:
	kids_kill(&tb);
	kids_kill(&k);
	/*
	 * A writer killed between its count of `writing` and the undoing
	 * of it left the count up for good: unload_retry() would wait for
	 * it forever (it did, on the race kernel, after a failure).
	 */
	WRITE_ONCE(sh_mem->writing, 0);
	WRITE_ONCE(sh_mem->reading, 0);
	if (module_loaded("skbprof"))
		unload_retry(&busy);
	CHECK(!sh_mem->bad, "a child saw: %s", sh_mem->why);
	if (r < ROUNDS)
		return -1;
	note("%d failing loads in %d rounds, the longest %.1f s (bound %.0f s; a good load %.1f s)",
	     loads, ROUNDS, longest, bound, t_good);
	note("opens refused while loading: %ld; blocking reads of trace: %ld; control: %ld written, %ld refused",
	     sh_mem->not_ready, sh_mem->trace_blocked, sh_mem->writes_ok,
	     sh_mem->writes_absent);
	CHECK(sh_mem->trace_blocked >= ROUNDS, "trace was not held open");
	CHECK(sh_mem->writes_ok > 0, "control was never written");
	leaks = kmemleak_skbprof_leaks(&reports);
	CHECK(leaks <= 0, "kmemleak: %d of skbprof's", leaks);
	if (leaks == 0)
		note("kmemleak: %d reports, none of skbprof", reports);
	return 0;
}

/* ---- exhaustion ------------------------------------------------------- */


/* The kernel's own count of every drop the flood makes, backlogs' too. */
/* A counter of /proc/net/snmp; 0 where the kernel has no such line. */
static long long snmp0(const char *proto, const char *field)
{
	long long v = snmp_value(proto, field);

	return v < 0 ? 0 : v;
}

/*
 * Where the kernel counts the flood's drops: a datagram a full socket
 * refuses is RcvbufErrors, or MemErrors when UDP's memory accounting
 * refuses it.
 */
static long long flood_drops(void)
{
	return snmp_value("Udp", "NoPorts") + snmp_value("Udp", "RcvbufErrors") +
	       snmp0("Udp", "MemErrors") +
	       snmp_value("Tcp", "OutRsts") + snmp_value("Ip", "InUnknownProtos") +
	       softnet_dropped();
}

/* A packet of the flood that did not leave: not the kernel's to count. */
static void flood_unsent(int err)
{
	__atomic_add_fetch(&sh_mem->unsent, 1, __ATOMIC_RELAXED);
	sh_mem->unsent_errno = err;
}

/*
 * Several drop locations at once: each of the first FLOOD_DROPPING kinds
 * sends FLOOD_PACKETS packets that the kernel drops; the last one queues.
 */
#define FLOOD_PACKETS	150
#define FLOOD_DROPPING	4

static void flood(int what)
{
	struct sockaddr_in a;
	char buf[512] = "f";
	int fd, i;

	for (i = 0; i < FLOOD_PACKETS; i++) {
		switch (what) {
		case 0:		/* UDP to a closed port */
			addr4(&a, PORT_CLOSED);
			fd = socket(AF_INET, SOCK_DGRAM, 0);
			if (sendto(fd, buf, 64, 0, (void *)&a, sizeof(a)) < 0)
				flood_unsent(errno);
			break;
		case 1:		/* UDP to a socket whose buffer is full */
			addr4(&a, PORT_FULL);
			fd = socket(AF_INET, SOCK_DGRAM, 0);
			if (sendto(fd, buf, sizeof(buf), 0, (void *)&a,
				   sizeof(a)) < 0)
				flood_unsent(errno);
			break;
		case 4:		/* UDP that waits in a queue, stamped */
			addr4(&a, PORT_HOARD);
			fd = socket(AF_INET, SOCK_DGRAM, 0);
			sendto(fd, buf, sizeof(buf), 0, (void *)&a, sizeof(a));
			break;
		case 2:		/* TCP SYN to a closed port */
			addr4(&a, PORT_CLOSED);
			fd = socket(AF_INET, SOCK_STREAM, 0);
			/* refused: the SYN left and a reset came back */
			if (!connect(fd, (void *)&a, sizeof(a)) ||
			    (errno != ECONNREFUSED && errno != ETIMEDOUT))
				flood_unsent(errno);
			break;
		default: {	/* IP protocol nobody handles */
			struct iphdr ip = {
				.ihl = 5, .version = 4, .ttl = 64,
				.protocol = 253,
				.tot_len = htons(sizeof(ip) + 32),
				.saddr = htonl(INADDR_LOOPBACK),
				.daddr = htonl(INADDR_LOOPBACK),
			};

			memcpy(buf, &ip, sizeof(ip));
			addr4(&a, 0);
			fd = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
			if (sendto(fd, buf, sizeof(ip) + 32, 0, (void *)&a,
				   sizeof(a)) < 0)
				flood_unsent(errno);
			break;
		}
		}
		if (fd >= 0)
			close(fd);
	}
}

static void run_flood(int what) { flood(what); }

TEST(stress_exhaustion)
{
	struct kids k = { .n = 0 };
	long long b, a, tot, ovf, rows = 0, full, cap, used, misses, kused;
	long long queued;
	struct mem m0, m1;
	struct table t;
	struct sockaddr_in fa;
	char fa_buf[512];
	int full_fd, hoard_fd, small = 2048, big = 8 << 20, i, err;
	char *s, *d;

	CHECK(shared_map() == 0, "shared memory");
	full_fd = socket(AF_INET, SOCK_DGRAM, 0);
	addr4(&fa, PORT_FULL);
	setsockopt(full_fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	CHECK(full_fd >= 0 && !bind(full_fd, (void *)&fa, sizeof(fa)),
	      "bind: %s", strerror(errno));
	hoard_fd = socket(AF_INET, SOCK_DGRAM, 0);
	addr4(&fa, PORT_HOARD);
	setsockopt(hoard_fd, SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof(big));
	CHECK(hoard_fd >= 0 && !bind(hoard_fd, (void *)&fa, sizeof(fa)),
	      "bind: %s", strerror(errno));
	err = skbprof_load("table_size=64 drop_keys=1");
	CHECK(err == 0, "load: %s", strerror(-err));
	CHECK(mem_read(&m0) == 0, "memory");
	b = flood_drops();
	/* packets queued in hoard_fd keep their stamps: the table fills */
	for (i = 0; i <= FLOOD_DROPPING; i++)
		spawn(&k, run_flood, i);
	for (i = 0; i < k.n; i++)
		waitpid(k.pid[i], NULL, 0);
	k.n = 0;
	/*
	 * Each packet of the four dropping floods is one drop, or sits in
	 * full_fd's queue (a loaded CPU's backlog may drop replies too).
	 * Loopback delivery may finish in ksoftirqd long after the senders
	 * exit, and each kfree_skb follows its counter: wait for the
	 * kernel's count, then until the module's equals it.
	 */
	for (i = 0, queued = 0; i < 6000; i++) {
		while (recv(full_fd, fa_buf, sizeof(fa_buf), MSG_DONTWAIT) >= 0)
			queued++;
		a = flood_drops();
		if (a - b + queued + sh_mem->unsent >=
		    FLOOD_DROPPING * FLOOD_PACKETS)
			break;
		msleep(10);
	}
	if (sh_mem->unsent)
		note("%ld flood packets did not leave, the last for %s",
		     sh_mem->unsent, strerror(sh_mem->unsent_errno));
	CHECK(a - b + queued + sh_mem->unsent >= FLOOD_DROPPING * FLOOD_PACKETS,
	      "after 60 s the kernel counted %lld drops and %lld queued of %d packets (%ld not sent)",
	      a - b, queued, FLOOD_DROPPING * FLOOD_PACKETS, sh_mem->unsent);
	for (i = 0; i < 6000; i++) {
		tot = stat_value("drops_total");
		a = flood_drops();
		if (tot == a - b)
			break;
		msleep(10);
	}
	CHECK(mem_read(&m1) == 0, "memory");
	s = read_file(STATS);
	d = read_file(DROPS_ROWS);
	CHECK(s && d, "reading stats and drops_rows");
	note("stats after the flood:\n%s", s);
	note("drops_rows:\n%s", d);
	CHECK(table_read(&t, "counters") == 0, "reading counters");
	tot = counter_of(&t, "drops_total");
	ovf = counter_of(&t, "drops_overflow");
	full = counter_of(&t, "table_full");
	cap = counter_of(&t, "table_capacity");
	used = counter_of(&t, "table_in_use");
	misses = counter_of(&t, "table_lookup_misses");
	kused = counter_of(&t, "drops_keys_used");
	table_free(&t);
	CHECK(table_parse(&t, d, "drops_rows") == 0, "reading drops_rows");
	rows = table_sum(&t, "count", NULL);
	table_free(&t);
	free(s);
	/* closing purges the queues: drops, after the counting */
	close(full_fd);
	close(hoard_fd);
	note("kernel counted %lld drops; module: total %lld, rows %lld, overflow %lld; table full %lld times, misses %lld, in use %lld of %lld",
	     a - b, tot, rows, ovf, full, misses, used, cap);
	note("vmalloc of [skbprof]: %lld bytes after load, %lld after the flood; Slab+Percpu+Vmalloc %lld -> %lld kB",
	     m0.mod_bytes, m1.mod_bytes, mem_sum(&m0), mem_sum(&m1));
	CHECK_EQ(cap, 64);
	CHECK(used <= cap, "table_in_use %lld > %lld", used, cap);
	CHECK(full > 0, "the 64-entry table never filled");
	CHECK_EQ(kused, 1);
	CHECK(ovf > 0, "no drop overflowed one key");
	CHECK_EQ(tot, rows + ovf);
	CHECK_EQ(tot, a - b);
	/* nothing allocated in the hot path: the module's memory is fixed */
	CHECK_EQ(m1.mod_bytes, m0.mod_bytes);
	return 0;
}
