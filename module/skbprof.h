/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SKBPROF_H
#define _SKBPROF_H

#include <linux/debugfs.h>
#include <linux/types.h>

#include "compat.h"

/* Root of the module's debugfs files: /sys/kernel/debug/skbprof/. */
extern struct dentry *skbprof_debugfs;

/*
 * Test hook: make module initialisation fail at step N (0: never), so the
 * in-guest suite can prove that every failure path unwinds completely.
 */
extern int skbprof_fail_init_at;

static inline int skbprof_init_fault(int step)
{
	return skbprof_fail_init_at == step ? -ENOMEM : 0;
}

#endif /* _SKBPROF_H */
