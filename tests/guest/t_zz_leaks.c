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
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define KMEMLEAK "/sys/kernel/debug/kmemleak"

/* Does one report (from "unreferenced object" to the next) look ours? */
static bool report_is_ours(const char *r, size_t len)
{
	char *s = strndup(r, len);
	bool ours;

	ours = s && (strstr(s, "skbprof") || strstr(s, "] 0xffffffffc"));
	free(s);
	return ours;
}

TEST(kmemleak_no_skbprof_leaks)
{
	const char *p, *next;
	int reports = 0, ours = 0, i;
	char *s;

	if (access(KMEMLEAK, W_OK)) {
		note("no kmemleak in this kernel: nothing to scan");
		return 0;
	}
	if (module_loaded("skbprof"))
		CHECK(skbprof_unload() == 0, "unloading skbprof");
	/*
	 * An object is reported once it is older than 5 s and was found
	 * unreferenced, with unchanged contents, by two scans in a row.
	 */
	sleep(6);
	for (i = 0; i < 2; i++) {
		int err = write_file(KMEMLEAK, "scan");

		CHECK(err == 0, "kmemleak scan: %s", strerror(-err));
	}
	s = read_file(KMEMLEAK);
	CHECK(s, "reading %s: %s", KMEMLEAK, strerror(errno));
	for (p = strstr(s, "unreferenced object"); p; p = next) {
		next = strstr(p + 1, "unreferenced object");
		reports++;
		if (report_is_ours(p, next ? (size_t)(next - p) : strlen(p))) {
			if (!ours++)
				fail("kmemleak reports a leak of skbprof: %.1500s", p);
		}
	}
	note("kmemleak: %d reports, %d of skbprof", reports, ours);
	if (reports)
		printf("%s\n", s);
	free(s);
	return ours ? -1 : 0;
}
