/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The cgroup look-up the control grammar needs (config.c, for `filter
 * cgroup PATH`).  The module's is in cgroup.c; host programs that build
 * config.c (unit tests, fuzzer) define their own.
 */
#ifndef _SKBPROF_CGROUP_H
#define _SKBPROF_CGROUP_H

#include <linux/types.h>

/*
 * The id of the cgroup v2 directory at @path ("/" or "/a/b", checked by
 * the parser), as the writer's cgroup namespace sees it; 0 or a negative
 * errno (-ENOENT: no such cgroup; -ENOTDIR: not a directory).
 */
int skbprof_cgroup_lookup(const char *path, u64 *id);

#endif /* _SKBPROF_CGROUP_H */
