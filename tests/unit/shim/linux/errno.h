/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for <linux/errno.h>: the uapi numbers. */
#include_next <linux/errno.h>
