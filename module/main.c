// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof: where time goes and where packets die in the network stack.
 *
 * Module entry and exit, the debugfs directory every view lives in, its
 * procfs twin for the files lockdown must not refuse, and the stats
 * file.  The parts of skbprof are brought up in the order of the parts[]
 * table and taken down in reverse, on unload and on any failure during
 * load, so a failed load leaves nothing behind.  The files come
 * last, when every part is up, and open only once the load can no longer
 * fail: no reader reaches a part that is not ready.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/utsname.h>
#include <net/net_namespace.h>

#include "config_live.h"
#include "control.h"
#include "devdrops.h"
#include "drops.h"
#include "lifetime.h"
#include "pkttrace.h"
#include "probes.h"
#include "softnet.h"
#include "skbprof.h"
#include "stamp.h"

/* /sys/kernel/debug/skbprof/, made once every part is up. */
static struct dentry *skbprof_debugfs;

/*
 * /proc/net/skbprof/, made with it, for the files that have a procfs twin
 * (struct skbprof_file): in the initial network namespace only, as the
 * configuration is global and drop_monitor's netlink family is too.
 */
static struct proc_dir_entry *skbprof_procfs;

/*
 * Test hook: make module initialisation fail at step N (0: never), so the
 * in-guest suite can prove that every failure path unwinds completely.
 * Steps are numbered by skbprof_init() in the order it takes them.
 */
static int fail_init_at;
SKBPROF_TEST_PARAM(fail_init_at, fail_init_at, int, 0400,
		   "Testing only: fail module initialisation at step N (0: never)");

static int skbprof_init_fault(int step)
{
	return fail_init_at == step ? -ENOMEM : 0;
}

/*
 * The parts, in initialisation order.  Control comes first: it puts the
 * configuration of the module parameters in force, which the others read
 * at their init (the trace part allocates its buffer for trace=on).  The
 * device cache (pktinfo) follows every device before anything reads one.  The
 * stamp table comes before the timelines and lifetimes kept in it.  The
 * views (the timelines, lifetime, the drop tables and softnet) come before
 * the probes that feed them, which go first at unload.
 */
static const struct skbprof_part *const parts[] = {
	&skbprof_control_part,
	&skbprof_pktinfo_part,
	&skbprof_trace_part,
	&skbprof_stamp_part,
	&skbprof_latency_part,
	&skbprof_lifetime_part,
	&skbprof_drops_part,
	&skbprof_devdrops_part,
	&skbprof_softnet_part,
	&skbprof_probes_part,
};

/* every part's "name value" rows: the counters' and the stats' first */
static void counter_rows(struct seq_file *m)
{
	size_t i;

	seq_printf(m, "version %s\n", SKBPROF_VERSION);
	seq_printf(m, "kernel %s\n", init_utsname()->release);
	for (i = 0; i < ARRAY_SIZE(parts); i++)
		if (parts[i]->stats)
			parts[i]->stats(m);
}

/*
 * counters: a table of every part's "name value" rows, for programs; a
 * value of several tokens (entry_probes') is the rest of its row.
 */
static int counters_show(struct seq_file *m, void *v)
{
	seq_puts(m, "# name value...\n");
	counter_rows(m);
	return 0;
}

/* stats, for people: the counters, then every part's rows */
static int stats_show(struct seq_file *m, void *v)
{
	size_t i;

	counter_rows(m);
	for (i = 0; i < ARRAY_SIZE(parts); i++)
		if (parts[i]->stats_rows)
			parts[i]->stats_rows(m);
	return 0;
}

SKBPROF_DEFINE_SHOW_FILE(counters);
SKBPROF_DEFINE_SHOW_FILE(stats);

static const struct skbprof_file main_files[] = {
	{ "stats", 0400, &stats_fops },
	{ "counters", 0400, &counters_fops },
};

/*
 * What a control write does to the parts (struct skbprof_control_ops).
 * Control knows no other part: main.c hands it these once every part is
 * up, and control calls them under its lock.
 */
static void parts_reset(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(parts); i++)
		if (parts[i]->reset)
			parts[i]->reset();
}

static int parts_arm(const struct skbprof_config *next,
		     const struct skbprof_config *cur, char *msg, size_t len)
{
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		if (!parts[i]->arm)
			continue;
		err = parts[i]->arm(next, msg, len);
		if (!err)
			continue;
		/* back to what @cur needs, the failing part's half-done work too */
		do {
			if (parts[i]->trim)
				parts[i]->trim(cur);
		} while (i--);
		return err;
	}
	return 0;
}

/*
 * The views (skbprof_config_views()) of the configuration the parts were
 * last trimmed to; under the control file's mutex.  Every view at load:
 * each part registered all its probes at its init, whatever the
 * configuration, so each view's handlers ran until the first trim
 * (skbprof_control_start()) and may have left state behind (a NET_RX
 * raise whose entry is disarmed, GRO's frame whose exit is): that trim
 * sweeps every view the configuration at load has off.
 */
static unsigned int trimmed_views = SKBPROF_VIEWS_ALL;

/*
 * Disarm what @cfg does not need, then, when it switched a view off,
 * sweep what only those probes could have ended, in this order: once the
 * handlers that read the configuration before have returned, nothing adds
 * to what is swept.  A write that switches no view off waits for nothing.
 */
static void parts_trim(const struct skbprof_config *cfg)
{
	unsigned int views = skbprof_config_views(cfg);
	bool off = trimmed_views & ~views;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(parts); i++)
		if (parts[i]->trim)
			parts[i]->trim(cfg);
	trimmed_views = views;
	if (!off)
		return;
	/* handlers run with preemption off: RCU-sched readers */
	synchronize_rcu();
	for (i = 0; i < ARRAY_SIZE(parts); i++)
		if (parts[i]->sweep)
			parts[i]->sweep(cfg);
}

static const struct skbprof_control_ops parts_ops = {
	.arm	= parts_arm,
	.trim	= parts_trim,
	.reset	= parts_reset,
};

static int create_files(const struct skbprof_file *f, unsigned int n)
{
	struct dentry *d;

	for (; n; n--, f++) {
		if (WARN_ON(f->mode & 0077))
			return -EINVAL;
		/* the row, for skbprof_file_ready() */
		d = debugfs_create_file(f->name, f->mode, skbprof_debugfs,
					(void *)f, f->fops);
		if (IS_ERR_OR_NULL(d))
			return d ? PTR_ERR(d) : -ENOMEM;
		if (f->proc &&
		    !proc_create(f->name, f->mode, skbprof_procfs, f->proc))
			return -ENOMEM;
	}
	return 0;
}

/* Both directories, gone; proc_remove() also closes the files left open. */
static void skbprof_files_remove(void)
{
	proc_remove(skbprof_procfs);
	skbprof_procfs = NULL;
	debugfs_remove_recursive(skbprof_debugfs);
	skbprof_debugfs = NULL;
}

/*
 * The directory and every part's files.  A file is reachable as soon as it
 * is made, but its open refuses until skbprof_files_enable(), so a failure
 * here leaves no reader behind.
 */
static int skbprof_files_init(void)
{
	struct dentry *d;
	size_t i;
	int err;

	d = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR_OR_NULL(d))
		return d ? PTR_ERR(d) : -ENOMEM;
	skbprof_debugfs = d;
	skbprof_procfs = proc_mkdir(KBUILD_MODNAME, init_net.proc_net);
	err = skbprof_procfs ? 0 : -ENOMEM;
	if (!err)
		err = create_files(main_files, ARRAY_SIZE(main_files));
	for (i = 0; !err && i < ARRAY_SIZE(parts); i++)
		err = create_files(parts[i]->files, parts[i]->nfiles);
	/* the last step that can fail: every file exists */
	if (!err)
		err = skbprof_init_fault(1 + ARRAY_SIZE(parts));
	if (err) {
		pr_err("cannot create the files: %d\n", err);
		skbprof_files_remove();
	}
	return err;
}

/* Take down parts [0, @up) in reverse. */
static void skbprof_parts_exit(size_t up)
{
	while (up--)
		parts[up]->exit();
}

static int __init skbprof_init(void)
{
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		err = skbprof_init_fault(1 + i);
		if (!err)
			err = parts[i]->init();
		if (err) {
			pr_err("cannot initialise %s: %d\n", parts[i]->name, err);
			goto err_parts;
		}
	}
	/* each part registered all its probes: keep what the views need */
	skbprof_control_start(&parts_ops);
	err = skbprof_files_init();
	if (err)
		goto err_parts;

	skbprof_files_enable();
	pr_info("version %s loaded\n", SKBPROF_VERSION);
	return 0;

err_parts:
	skbprof_parts_exit(i);
	return err;
}

static void __exit skbprof_exit(void)
{
	/*
	 * No debugfs file is open (each pins the module) and none can be
	 * opened now; removing them first waits for opens still in progress.
	 * A procfs file pins nothing: proc_remove() waits for the calls in
	 * progress and releases the files still open.
	 */
	skbprof_files_remove();
	skbprof_parts_exit(ARRAY_SIZE(parts));
	pr_info("unloaded\n");
}

module_init(skbprof_init);
module_exit(skbprof_exit);

MODULE_AUTHOR("The skbprof developers");
MODULE_DESCRIPTION("Network stack latency and drop profiler");
MODULE_LICENSE("GPL");
MODULE_VERSION(SKBPROF_VERSION);
