// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof - read the skbprof module's views.
 *
 *   skbprof [--root DIR] VIEW     print /sys/kernel/debug/skbprof/VIEW
 *
 * Exit codes: 0 success, 1 runtime error (module not loaded, debugfs not
 * mounted, permission denied, I/O error), 2 usage error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_ROOT "/sys/kernel/debug/skbprof"

static const char *const views[] = {
	"stats", "drops", "latency", "procs", "lifetime", NULL
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: skbprof [--root DIR] VIEW\n"
		"views: stats, drops, latency, procs, lifetime\n"
		"  -r, --root DIR  read the files from DIR (default %s,\n"
		"                  or $SKBPROF_ROOT)\n"
		"  -h, --help      this text\n", DEFAULT_ROOT);
}

/* Explain why the module's directory cannot be used. */
static int root_error(const char *root)
{
	struct stat st;

	if (stat(root, &st) == 0)
		return 0;
	if (errno == EACCES) {
		fprintf(stderr, "skbprof: %s: permission denied (run as root)\n", root);
	} else if (stat("/sys/kernel/debug", &st) == 0 && strcmp(root, DEFAULT_ROOT) == 0) {
		struct stat st2;

		if (stat("/sys/kernel", &st2) == 0 && st.st_dev == st2.st_dev)
			fprintf(stderr, "skbprof: debugfs is not mounted (mount -t debugfs none /sys/kernel/debug)\n");
		else
			fprintf(stderr, "skbprof: module not loaded (no %s; modprobe skbprof)\n", root);
	} else {
		fprintf(stderr, "skbprof: %s: %s\n", root, strerror(errno));
	}
	return -1;
}

static int cat_view(const char *root, const char *view)
{
	char path[4096], buf[65536];
	ssize_t n;
	int fd;

	if (root_error(root))
		return 1;
	snprintf(path, sizeof(path), "%s/%s", root, view);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "skbprof: %s: %s\n", path,
			errno == EACCES ? "permission denied (run as root)" : strerror(errno));
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (fwrite(buf, 1, n, stdout) != (size_t)n) {
			perror("skbprof: write");
			close(fd);
			return 1;
		}
	}
	if (n < 0) {
		fprintf(stderr, "skbprof: %s: %s\n", path, strerror(errno));
		close(fd);
		return 1;
	}
	close(fd);
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *root = getenv("SKBPROF_ROOT");
	int c, i;

	if (!root || !*root)
		root = DEFAULT_ROOT;
	while ((c = getopt_long(argc, argv, "r:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			root = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	for (i = 0; views[i]; i++)
		if (strcmp(argv[optind], views[i]) == 0)
			return cat_view(root, views[i]);
	fprintf(stderr, "skbprof: unknown view '%s'\n", argv[optind]);
	usage(stderr);
	return 2;
}
