// SPDX-License-Identifier: GPL-2.0
/*
 * The module's cgroup look-up for the control grammar; see cgroup.h.  A
 * leaf below config.c: the kernel answers (compat.h).
 */
#include "cgroup.h"
#include "compat.h"

/* resolved in the cgroup namespace of the task writing control */
int skbprof_cgroup_lookup(const char *path, u64 *id)
{
	return skbprof_cgroup_path_id(path, id);
}
