/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/sort.h>. */
#ifndef SKBPROF_SHIM_SORT_H
#define SKBPROF_SHIM_SORT_H
#include <stdlib.h>
#define sort(base, num, size, cmp, swap)	qsort(base, num, size, cmp)
#endif
