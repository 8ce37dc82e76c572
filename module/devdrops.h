/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Device drops (devdrops.c): the drops network devices count, per device
 * and network namespace, since the last reset; read, not probed.
 */
#ifndef _SKBPROF_DEVDROPS_H
#define _SKBPROF_DEVDROPS_H

#include "skbprof.h"

extern const struct skbprof_part skbprof_devdrops_part;

#endif /* _SKBPROF_DEVDROPS_H */
