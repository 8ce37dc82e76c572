/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SKBPROF_H
#define _SKBPROF_H

#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/types.h>

#include "compat.h"

/* Root of the module's debugfs files: /sys/kernel/debug/skbprof/. */
extern struct dentry *skbprof_debugfs;

/*
 * A part of skbprof (drop monitor, stage latency, ...).  main.c brings the
 * parts up in the order of its table and takes them down in reverse.
 *
 * @init:  allocate, create debugfs files under skbprof_debugfs, register
 *         probes.  Must undo everything itself when it fails.
 * @exit:  unregister probes, wait for running handlers, free.
 * @reset: zero counters, histograms and table rows (process context,
 *         serialised by the control file's mutex).  May be NULL.
 * @stats: append this part's "key value" lines to the stats file.  May be
 *         NULL.
 */
struct skbprof_part {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
	void (*reset)(void);
	void (*stats)(struct seq_file *m);
};

/*
 * Test hook: make module initialisation fail at step N (0: never), so the
 * in-guest suite can prove that every failure path unwinds completely.
 * Steps are numbered by skbprof_init() in the order it takes them.
 */
int skbprof_init_fault(int step);

/* The parts. */
extern const struct skbprof_part skbprof_latency_part;

/* Create a root-only debugfs file; returns 0 or a negative errno. */
int skbprof_create_file(const char *name, umode_t mode, void *data,
			const struct file_operations *fops);

#endif /* _SKBPROF_H */
