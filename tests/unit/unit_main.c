// SPDX-License-Identifier: GPL-2.0
/* Runner of the host unit tests; see unit.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

extern const struct unit_test __start_unit_tests[];
extern const struct unit_test __stop_unit_tests[];

static char why[1024];

void unit_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (why[0])
		return;
	n = snprintf(why, sizeof(why), "%s:%d: ", file, line);
	va_start(ap, fmt);
	vsnprintf(why + n, sizeof(why) - n, fmt, ap);
	va_end(ap);
}

int main(int argc, char **argv)
{
	const struct unit_test *t;
	const char *prog = argc > 0 ? strrchr(argv[0], '/') : NULL;
	int failed = 0;

	prog = prog ? prog + 1 : argv[0];
	for (t = __start_unit_tests; t < __stop_unit_tests; t++) {
		why[0] = 0;
		t->fn();
		if (why[0]) {
			printf("FAIL unit/%s/%s: %s\n", prog, t->name, why);
			failed++;
		} else {
			printf("ok unit/%s/%s\n", prog, t->name);
		}
	}
	return failed ? 1 : 0;
}
