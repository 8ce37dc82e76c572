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

/* The stages, in the order the control file's `stages` names them. */
enum skbprof_stage {
	SKBPROF_STAGE_DRV_IP,
	SKBPROF_STAGE_IP_TCP,
	SKBPROF_STAGE_IP_UDP,
	SKBPROF_STAGE_TCP_APP,
	SKBPROF_STAGE_UDP_APP,
	SKBPROF_STAGE_RX_TOTAL,
	SKBPROF_STAGE_APP_TCP,
	SKBPROF_STAGE_APP_UDP,
	SKBPROF_STAGE_TCP_IP,
	SKBPROF_STAGE_UDP_IP,
	SKBPROF_STAGE_IP_DEV,
	SKBPROF_STAGE_DEV_DRV,
	SKBPROF_STAGE_TX_TOTAL,
	SKBPROF_STAGE_DROPS,
	SKBPROF_NR_STAGES
};

const char *skbprof_stage_name(enum skbprof_stage stage);

struct skbprof_config;

/*
 * The configuration in force (control.c).  Call under rcu_read_lock() (or
 * with preemption or bottom halves disabled) and do not keep the pointer
 * past it.
 */
const struct skbprof_config *skbprof_config(void);

/* Zero every part's counters; serialised by the control file. */
void skbprof_reset_all(void);

extern const struct skbprof_part skbprof_control_part;
extern const struct skbprof_part skbprof_drops_part;

/*
 * Test hook: make module initialisation fail at step N (0: never), so the
 * in-guest suite can prove that every failure path unwinds completely.
 * Steps are numbered by skbprof_init() in the order it takes them.
 */
int skbprof_init_fault(int step);

/*
 * Benchmark mode (module parameter bench_empty): every probe stays
 * registered but its handler returns at once, to measure what the probe
 * mechanism alone costs.
 */
extern bool skbprof_bench_empty;

/* The parts. */
extern const struct skbprof_part skbprof_latency_part;

/* Create a root-only debugfs file; returns 0 or a negative errno. */
int skbprof_create_file(const char *name, umode_t mode, void *data,
			const struct file_operations *fops);

#endif /* _SKBPROF_H */
