/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/math64.h>. */
#ifndef SKBPROF_SHIM_MATH64_H
#define SKBPROF_SHIM_MATH64_H
#include <linux/types.h>
static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}
#endif
