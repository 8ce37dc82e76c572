/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/bitops.h>. */
#ifndef SKBPROF_SHIM_BITOPS_H
#define SKBPROF_SHIM_BITOPS_H
#include <linux/bits.h>
#include <linux/types.h>
static inline int fls64(u64 v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}
#endif
