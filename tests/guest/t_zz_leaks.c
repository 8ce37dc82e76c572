// SPDX-License-Identifier: GPL-2.0
/*
 * The suite's last test (files link in name order): on a kernel with
 * kmemleak (make check-debug), scan for memory leaked by the tests that
 * ran before.  The guest's /init cleared what boot left, so a report here
 * is new.  A leak is ours when its backtrace names skbprof or an address
 * in module space that no longer resolves (the module is unloaded by now,
 * so its frames print as raw addresses).
 */
#define _GNU_SOURCE
#include <stdio.h>

#include "harness.h"

TEST(kmemleak_no_skbprof_leaks)
{
	int reports, ours;

	if (module_loaded("skbprof"))
		CHECK(skbprof_unload() == 0, "unloading skbprof");
	ours = kmemleak_skbprof_leaks(&reports);
	if (ours < 0) {
		note("no kmemleak in this kernel: nothing to scan");
		return 0;
	}
	note("kmemleak: %d reports, %d of skbprof", reports, ours);
	return ours ? -1 : 0;
}
