/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SKBPROF_H
#define _SKBPROF_H

#include <linux/fs.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/seq_file.h>
#include <linux/types.h>

#include "compat.h"
#include "config_live.h"
#include "stages.h"

/*
 * A file of a part, under /sys/kernel/debug/skbprof/.  Its mode must be
 * root-only.  Every open starts with skbprof_file_ready().
 *
 * @proc:  the same file under /proc/net/skbprof/ as well, or NULL.  For a
 *         file that is written: under lockdown=integrity (Secure Boot)
 *         debugfs refuses every file whose mode allows writing, procfs
 *         does not.
 * @flows: the file names single packets or processes (flows, pids,
 *         comms): refused under lockdown=confidentiality, as the kernel
 *         refuses its own tracing data there (LOCKDOWN_TRACEFS).  The
 *         aggregated views stay readable.
 */
struct skbprof_file {
	const char *name;
	umode_t mode;
	const struct file_operations *fops;
	const struct proc_ops *proc;
	bool flows;
};

struct skbprof_config;

/*
 * A part of skbprof (drop monitor, stage latency, ...).  main.c brings the
 * parts up in the order of its table, then creates every part's files,
 * and takes them down in reverse: no file exists while a part is not up.
 * A part starts or stops no other part: only main.c does.
 *
 * @init:  allocate, register probes.  Must undo everything itself when it
 *         fails.
 * @exit:  unregister probes, wait for running handlers, free.
 * @arm:   arm what @cfg needs that is not armed (probes, the trace
 *         buffer).  On failure, write why into @msg and return the errno;
 *         main.c then trims this part too.  May be NULL.
 * @trim:  disarm the probes @cfg does not need.  A handler may still be
 *         running when it returns; @exit waits for them.  May be NULL.
 * @sweep: end what only the probes trimmed away could have ended: the
 *         stamps and per-CPU state of a view @cfg switched off, counted
 *         in stats.  main.c calls it when a write switched a view off
 *         (skbprof_config_views()), and at the first trim for each view
 *         the configuration at load has off (@init registered every
 *         probe, whatever the configuration), after every part's @trim
 *         and a grace period, when no handler that read an earlier
 *         configuration still runs; a part keeps a handler that may
 *         still fire (a kretprobe's return) from adding state for a view
 *         that is off.  May be NULL.
 *         All three run in process context, serialised by the control
 *         file's mutex, once every part is up.
 * @reset: zero counters, histograms and table rows (process context,
 *         serialised by the control file's mutex).  May be NULL.
 * @stats: append this part's "key value" lines to the stats file and to
 *         counters, its machine form.  May be NULL.
 * @stats_rows: append this part's rows to the stats file, after every
 *         part's key value lines, for people; the part's own files
 *         have them as tables, for machines.  May be NULL.
 * @files: its files, @nfiles of them.
 */
struct skbprof_part {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
	int (*arm)(const struct skbprof_config *cfg, char *msg, size_t len);
	void (*trim)(const struct skbprof_config *cfg);
	void (*sweep)(const struct skbprof_config *cfg);
	void (*reset)(void);
	void (*stats)(struct seq_file *m);
	void (*stats_rows)(struct seq_file *m);
	const struct skbprof_file *files;
	unsigned int nfiles;
};

/*
 * What every part uses (part.c).
 *
 * 0 when @inode, a file of skbprof_file, may be opened: -ENODEV until the
 * module is loaded, -EPERM for a file with @flows under
 * lockdown=confidentiality.  Every file's open calls it first: until
 * skbprof_init() can no longer fail, a failing load frees the module
 * under any file that is open, whatever its reference count.
 */
int skbprof_file_ready(const struct inode *inode);

/*
 * True when the kernel keeps tracing data to itself
 * (lockdown=confidentiality): no flow, pid or comm of a packet may leave
 * the kernel, and no packet trace may start.
 */
bool skbprof_flows_locked_down(void);

/* The load can no longer fail: the files open from now on (main.c). */
void skbprof_files_enable(void);

/*
 * Open a seq_file that walks a snapshot taken at open: @take() returns it
 * (kvmalloc'd; NULL: -ENOMEM), and it becomes the seq_file's private
 * data until skbprof_snapshot_release() frees it at close.  Calls
 * skbprof_file_ready() first.
 */
int skbprof_snapshot_open(struct file *file, const struct seq_operations *ops,
			  void *(*take)(void));
int skbprof_snapshot_release(struct inode *inode, struct file *file);

/* single_open() for skbprof's files: refused until the module is loaded. */
int skbprof_single_open(struct inode *inode, struct file *file,
			int (*show)(struct seq_file *m, void *v));

/* The file_operations of a seq_file that __name##_open() opens. */
#define __SKBPROF_SEQ_FOPS(__name, __release)				\
static const struct file_operations __name##_fops = {			\
	.owner		= THIS_MODULE,					\
	.open		= __name##_open,				\
	.read		= seq_read,					\
	.llseek		= seq_lseek,					\
	.release	= __release,					\
}

/* DEFINE_SHOW_ATTRIBUTE() for skbprof's files: an open that waits for load. */
#define SKBPROF_DEFINE_SHOW_FILE(__name)				\
static int __name##_open(struct inode *inode, struct file *file)	\
{									\
	return skbprof_single_open(inode, file, __name##_show);		\
}									\
__SKBPROF_SEQ_FOPS(__name, single_release)

/*
 * A file that walks a snapshot (skbprof_snapshot_open()): its
 * seq_operations, open and __name##_fops, walking what @__take returns
 * with @__start, @__next, @__stop and @__show.
 */
#define SKBPROF_DEFINE_SNAPSHOT_FILE(__name, __take, __start, __next,	\
				     __stop, __show)			\
static const struct seq_operations __name##_seq_ops = {			\
	.start	= __start,						\
	.next	= __next,						\
	.stop	= __stop,						\
	.show	= __show,						\
};									\
									\
static int __name##_open(struct inode *inode, struct file *file)	\
{									\
	return skbprof_snapshot_open(file, &__name##_seq_ops, __take);	\
}									\
__SKBPROF_SEQ_FOPS(__name, skbprof_snapshot_release)

/*
 * For a part's reset: run @reset(cpu) for every possible CPU, on each
 * online CPU itself with interrupts off, so that no handler is half-way
 * in that CPU's data, and here for the offline ones, which run none.
 */
void skbprof_reset_cpus(void (*reset)(unsigned int cpu));

/*
 * @addr, a code address, as %pS prints it (symbol+offset/size [module])
 * into @buf (KSYM_SYMBOL_LEN bytes), or "?" where it does not resolve
 * (say, in a module unloaded since): sprint_symbol() then gives the raw
 * address, which no reader may see.  Returns what to print.
 */
const char *skbprof_location(char *buf, unsigned long addr);

/*
 * The hooks of the tests and the benchmark (fail_init_at,
 * drops_fail_init_at, probe_deny, trim_gap_ms, bench_empty, bench_skip) are module
 * parameters only in the builds of make check and make bench
 * (SKBPROF_TESTING=y, tests/lib.sh).
 * A module built by DKMS or make has none of them: each hook keeps its
 * default, and bench_empty and bench_skip are constants the compiler
 * removes.
 */
#ifdef SKBPROF_TESTING
#define SKBPROF_TEST_PARAM(name, var, type, perm, desc)			\
	module_param_named(name, var, type, perm);			\
	MODULE_PARM_DESC(name, desc)
#else
#define SKBPROF_TEST_PARAM(name, var, type, perm, desc)
#endif

/*
 * What the code relies on, checked in make check's builds
 * (SKBPROF_ASSERTS=y, tests/lib.sh) and nowhere else, not even in make
 * bench's: SKBPROF_ASSERT(cond) warns once when @cond, a broken
 * assumption, holds; the suite's guests panic on a warning.
 */
#ifdef SKBPROF_ASSERTS
#define SKBPROF_ASSERT(cond)	WARN_ON_ONCE(cond)
#else
#define SKBPROF_ASSERT(cond)	do { } while (0)
#endif

/*
 * Benchmark mode (bench_empty): every probe stays registered but its
 * handler returns at once, to measure what the probe mechanism alone
 * costs.
 */
#ifdef SKBPROF_TESTING
extern bool skbprof_bench_empty;
#else
#define skbprof_bench_empty false
#endif

/*
 * Benchmark ablation (bench_skip, a mask): each bit leaves one part of a
 * followed packet's work out, so that make bench can tell what each part
 * costs where perf cannot see (with interrupts off, under the bucket
 * locks, its samples wait for the unlock).  The figures are then wrong:
 * a measurement of cost only.
 */
enum skbprof_skip {
	SKBPROF_SKIP_RECORD = BIT(0),	/* no stage recorded (settle()) */
	SKBPROF_SKIP_LEARN = BIT(1),	/* nothing learnt at later points */
	SKBPROF_SKIP_CLOCK = BIT(2),	/* the coarse clock for the fine one */
	SKBPROF_SKIP_POINTS = BIT(3),	/* a later point: the lock alone */
	SKBPROF_SKIP_PAYERS = BIT(4),	/* no process or cgroup row */
};

#ifdef SKBPROF_TESTING
extern unsigned int skbprof_bench_skip;
#define skbprof_skips(bit)	unlikely(skbprof_bench_skip & (bit))
#else
#define skbprof_skips(bit)	false
#endif

/* The parts. */
extern const struct skbprof_part skbprof_latency_part;

#endif /* _SKBPROF_H */
