// SPDX-License-Identifier: GPL-2.0
/*
 * Harness self-test: WARN as soon as loaded.  With panic_on_warn=1 the
 * guest panics, so the run must fail on the kernel log and on the missing
 * completion marker.  Never part of the shipped module.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init selftest_warn_init(void)
{
	WARN(1, "skbprof harness self-test: deliberate warning\n");
	return 0;
}

static void __exit selftest_warn_exit(void)
{
}

module_init(selftest_warn_init);
module_exit(selftest_warn_exit);
MODULE_DESCRIPTION("skbprof harness self-test: WARN on load");
MODULE_LICENSE("GPL");
