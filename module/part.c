// SPDX-License-Identifier: GPL-2.0
/*
 * What every part of skbprof uses (see skbprof.h): the opens of its files,
 * which wait for the load to complete, the reset of its per-CPU data, and
 * the benchmark switch (test builds).  A leaf below every part and main.c: it calls
 * nothing of skbprof.
 */
#include <linux/cpu.h>
#include <linux/kallsyms.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/security.h>
#include <linux/seq_file.h>
#include <linux/smp.h>

#include "skbprof.h"

/* Set by skbprof_files_enable() when the load has nothing left that can fail. */
static bool skbprof_loaded;

#ifdef SKBPROF_TESTING
bool skbprof_bench_empty __read_mostly;
SKBPROF_TEST_PARAM(bench_empty, skbprof_bench_empty, bool, 0400,
		   "Benchmark only: register every probe but return from its handler at once (the cost floor of the probes themselves)");
unsigned int skbprof_bench_skip __read_mostly;
SKBPROF_TEST_PARAM(bench_skip, skbprof_bench_skip, uint, 0400,
		   "Benchmark only: leave parts of a followed packet's work out (skbprof.h, enum skbprof_skip)");
#endif

void skbprof_files_enable(void)
{
	/* pairs with skbprof_file_ready() */
	smp_store_release(&skbprof_loaded, true);
}

bool skbprof_flows_locked_down(void)
{
	return security_locked_down(LOCKDOWN_TRACEFS) != 0;
}

int skbprof_file_ready(const struct inode *inode)
{
	/* the row create_files() made the debugfs file with; procfs: none */
	const struct skbprof_file *f = inode->i_private;

	/* pairs with the release in skbprof_files_enable() */
	if (!smp_load_acquire(&skbprof_loaded))
		return -ENODEV;
	if (f && f->flows && skbprof_flows_locked_down())
		return -EPERM;
	return 0;
}

int skbprof_single_open(struct inode *inode, struct file *file,
			int (*show)(struct seq_file *m, void *v))
{
	int err = skbprof_file_ready(inode);

	return err ? err : single_open(file, show, inode->i_private);
}

int skbprof_snapshot_open(struct file *file, const struct seq_operations *ops,
			  void *(*take)(void))
{
	void *snap;
	int err;

	err = skbprof_file_ready(file_inode(file));
	if (err)
		return err;
	snap = take();
	if (!snap)
		return -ENOMEM;
	err = seq_open(file, ops);
	if (err) {
		kvfree(snap);
		return err;
	}
	((struct seq_file *)file->private_data)->private = snap;
	return 0;
}

int skbprof_snapshot_release(struct inode *inode, struct file *file)
{
	struct seq_file *m = file->private_data;

	kvfree(m->private);
	return seq_release(inode, file);
}

const char *skbprof_location(char *buf, unsigned long addr)
{
	sprint_symbol(buf, addr);
	return strncmp(buf, "0x", 2) ? buf : "?";
}

struct reset_cpus_arg {
	void (*reset)(unsigned int cpu);
};

static void reset_here(void *p)
{
	const struct reset_cpus_arg *a = p;

	a->reset(smp_processor_id());
}

void skbprof_reset_cpus(void (*reset)(unsigned int cpu))
{
	struct reset_cpus_arg a = { .reset = reset };
	unsigned int cpu;

	/* no CPU comes or goes meanwhile */
	cpus_read_lock();
	on_each_cpu(reset_here, &a, 1);
	for_each_possible_cpu(cpu)
		if (!cpu_online(cpu))
			reset(cpu);
	cpus_read_unlock();
}
