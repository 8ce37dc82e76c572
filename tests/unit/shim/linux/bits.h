/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/bits.h>. */
#ifndef SKBPROF_SHIM_BITS_H
#define SKBPROF_SHIM_BITS_H
#define BIT(nr) (1UL << (nr))
#endif
