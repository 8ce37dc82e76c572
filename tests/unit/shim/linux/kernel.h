/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/kernel.h>. */
#ifndef SKBPROF_SHIM_KERNEL_H
#define SKBPROF_SHIM_KERNEL_H
#include <stdarg.h>
#include <stdio.h>
#include <linux/types.h>
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))
#define __printf(a, b) __attribute__((format(printf, a, b)))
#endif
