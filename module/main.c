// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof: where time goes and where packets die in the network stack.
 *
 * Module entry and exit, and the debugfs directory every view lives in.
 * Each view creates its files under skbprof_debugfs; everything is torn
 * down in the reverse order it was set up, on unload and on any failure
 * during load.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/err.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/utsname.h>

#include "skbprof.h"

struct dentry *skbprof_debugfs;

int skbprof_fail_init_at;
module_param_named(fail_init_at, skbprof_fail_init_at, int, 0400);
MODULE_PARM_DESC(fail_init_at,
		 "Testing only: fail module initialisation at step N (0: never)");

static int stats_show(struct seq_file *m, void *v)
{
	seq_printf(m, "version %s\n", SKBPROF_VERSION);
	seq_printf(m, "kernel %s\n", init_utsname()->release);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static int __init skbprof_init(void)
{
	struct dentry *d;
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
		goto err_debugfs;

	d = debugfs_create_file("stats", 0400, skbprof_debugfs, NULL,
				&stats_fops);
	if (IS_ERR_OR_NULL(d)) {
		err = d ? PTR_ERR(d) : -ENOMEM;
		goto err_debugfs;
	}

	err = skbprof_init_fault(3);
	if (err)
		goto err_debugfs;

	pr_info("version %s loaded\n", SKBPROF_VERSION);
	return 0;

err_debugfs:
	debugfs_remove_recursive(skbprof_debugfs);
	skbprof_debugfs = NULL;
	return err;
}

static void __exit skbprof_exit(void)
{
	debugfs_remove_recursive(skbprof_debugfs);
	skbprof_debugfs = NULL;
	pr_info("unloaded\n");
}

module_init(skbprof_init);
module_exit(skbprof_exit);

MODULE_AUTHOR("The skbprof developers");
MODULE_DESCRIPTION("Network stack latency and drop profiler");
MODULE_LICENSE("GPL");
MODULE_VERSION(SKBPROF_VERSION);
