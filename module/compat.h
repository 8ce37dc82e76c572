/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the supported kernels (Debian's 5.10, 6.1
 * and 6.12), in one place.  Callers use the wrappers below and stay free of
 * version checks.
 *
 * Debian's 6.1 sublevel is above 255, which LINUX_VERSION_CODE cannot
 * represent (KERNEL_VERSION() saturates the sublevel), so checks here only
 * ever compare major.minor, or test for a feature directly.
 */
#ifndef _SKBPROF_COMPAT_H
#define _SKBPROF_COMPAT_H

#include <linux/version.h>

#define SKBPROF_KERNEL_AT_LEAST(maj, min) \
	(KERNEL_VERSION(maj, min, 0) <= LINUX_VERSION_CODE)

#endif /* _SKBPROF_COMPAT_H */
