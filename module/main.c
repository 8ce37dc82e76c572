// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof: where time goes and where packets die in the network stack.
 *
 * Module entry and exit, the debugfs directory every view lives in and the
 * stats file.  The parts of skbprof are brought up in the order of the
 * parts[] table and taken down in reverse, on unload and on any failure
 * during load, so a failed load leaves nothing behind.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/utsname.h>

#include "pkttrace.h"
#include "skbprof.h"

struct dentry *skbprof_debugfs;

static int fail_init_at;
module_param(fail_init_at, int, 0400);
MODULE_PARM_DESC(fail_init_at,
		 "Testing only: fail module initialisation at step N (0: never)");

/*
 * Parts brought up so far.  The stats file exists while the parts come
 * up: readers use it with acquire, so they only ask parts that are up.
 */
static int init_step;

bool skbprof_bench_empty __read_mostly;
module_param_named(bench_empty, skbprof_bench_empty, bool, 0400);
MODULE_PARM_DESC(bench_empty,
		 "Benchmark only: register every probe but return from its handler at once (the cost floor of the probes themselves)");

int skbprof_init_fault(int step)
{
	return fail_init_at == step ? -ENOMEM : 0;
}

/* The parts, in initialisation order: control first, others read it. */
static const struct skbprof_part *const parts[] = {
	&skbprof_control_part,
	&skbprof_trace_part,
	/* before drops, whose rows ask the timelines how far a packet got */
	&skbprof_latency_part,
	&skbprof_drops_part,
};

int skbprof_create_file(const char *name, umode_t mode, void *data,
			const struct file_operations *fops)
{
	struct dentry *d;

	if (WARN_ON(mode & 0077))
		return -EINVAL;
	d = debugfs_create_file(name, mode, skbprof_debugfs, data, fops);
	if (IS_ERR_OR_NULL(d))
		return d ? PTR_ERR(d) : -ENOMEM;
	return 0;
}

static int stats_show(struct seq_file *m, void *v)
{
	int i, up;

	/* pairs with the release in skbprof_init(): parts 0..up-1 are up */
	up = smp_load_acquire(&init_step);
	seq_printf(m, "version %s\n", SKBPROF_VERSION);
	seq_printf(m, "kernel %s\n", init_utsname()->release);
	for (i = 0; i < up; i++)
		if (parts[i]->stats)
			parts[i]->stats(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

void skbprof_reset_all(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(parts); i++)
		if (parts[i]->reset)
			parts[i]->reset();
}

static void skbprof_cleanup(void)
{
	/* Files first, so no reader enters a part being torn down. */
	debugfs_remove_recursive(skbprof_debugfs);
	skbprof_debugfs = NULL;
	while (init_step > 0) {
		init_step--;
		parts[init_step]->exit();
	}
}

static int __init skbprof_init(void)
{
	struct dentry *d;
	size_t i;
	int err;

	err = skbprof_init_fault(1);
	if (err)
		return err;

	d = debugfs_create_dir(KBUILD_MODNAME, NULL);
	if (IS_ERR_OR_NULL(d)) {
		err = d ? PTR_ERR(d) : -ENOMEM;
		pr_err("cannot create debugfs directory: %d\n", err);
		return err;
	}
	skbprof_debugfs = d;

	err = skbprof_init_fault(2);
	if (err)
		goto err;

	err = skbprof_create_file("stats", 0400, NULL, &stats_fops);
	if (err)
		goto err;

	for (i = 0; i < ARRAY_SIZE(parts); i++) {
		err = skbprof_init_fault(3 + i);
		if (!err)
			err = parts[i]->init();
		if (err) {
			pr_err("cannot initialise %s: %d\n", parts[i]->name, err);
			goto err;
		}
		/* pairs with stats_show(): part i is up before it is shown */
		smp_store_release(&init_step, init_step + 1);
	}

	err = skbprof_init_fault(3 + ARRAY_SIZE(parts));
	if (err)
		goto err;

	pr_info("version %s loaded\n", SKBPROF_VERSION);
	return 0;

err:
	skbprof_cleanup();
	return err;
}

static void __exit skbprof_exit(void)
{
	skbprof_cleanup();
	pr_info("unloaded\n");
}

module_init(skbprof_init);
module_exit(skbprof_exit);

MODULE_AUTHOR("The skbprof developers");
MODULE_DESCRIPTION("Network stack latency and drop profiler");
MODULE_LICENSE("GPL");
MODULE_VERSION(SKBPROF_VERSION);
