// SPDX-License-Identifier: GPL-2.0
/*
 * LD_PRELOAD shim of the tool's host tests: a write(2) to a file named
 * "control" fails with the errno in $FAILWRITE_ERRNO, as the module's
 * control file does when it rejects a line.  Everything else is passed on.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

ssize_t write(int fd, const void *buf, size_t len)
{
	static ssize_t (*real)(int, const void *, size_t);
	const char *e = getenv("FAILWRITE_ERRNO");
	char link[64], path[4096];
	ssize_t n;

	if (!real)
		real = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (e && n > 8) {
		path[n] = 0;
		if (!strcmp(path + n - 8, "/control")) {
			errno = atoi(e);
			return -1;
		}
	}
	return real(fd, buf, len);
}
