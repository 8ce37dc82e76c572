// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof trace: stream the module's packet trace, line by line: trace's
 * lines as they are, or with -j trace_records' records as JSON Lines.
 *
 * The trace file blocks until lines arrive and never ends, so the stream
 * stops on SIGINT/SIGTERM (exit 0) or when the reader of our output goes
 * away (SIGPIPE ignored, EPIPE: exit 0).  A regular file (a fixture) ends
 * at its end.  Output is flushed after every line.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "model.h"
#include "parse.h"
#include "util.h"
#include "views.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* 0, or 1 when the output is gone (stop quietly), or EXIT_RUNTIME. */
static int emit(const char *line)
{
	if (opt.json) {
		json_object *o = parse_trace_record(line);
		int flags = JSON_C_TO_STRING_NOSLASHESCAPE | JSON_C_TO_STRING_PLAIN;

		/* JSON Lines: one object per line even with --pretty */
		fputs(json_object_to_json_string_ext(o, flags), stdout);
		json_object_put(o);
		fputc('\n', stdout);
	} else {
		fputs(line, stdout);
		fputc('\n', stdout);
	}
	if (fflush(stdout) == 0)
		return 0;
	if (errno == EPIPE)
		return 1;
	fprintf(stderr, "skbprof: write: %s\n", strerror(errno));
	return EXIT_RUNTIME;
}

int trace_main(void)
{
	struct sigaction sa;
	char path[4096], buf[65536];
	size_t len = 0;
	ssize_t n;
	int fd, rc;
	char *nl, *p;

	rc = check_root();
	if (rc)
		return rc;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: the read returns */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* people get the lines of trace, programs the records */
	snprintf(path, sizeof(path), "%s/%s", opt.root, opt.json ? "trace_records" : "trace");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return open_error(path, errno);
	rc = 0;
	while (!stop) {
		n = read(fd, buf + len, sizeof(buf) - 1 - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;	/* stop says whether to end */
			rc = report(EXIT_RUNTIME, errno, "%s: %s", path, strerror(errno));
			break;
		}
		if (n == 0) {
			/* end of a regular file: the last line may lack '\n' */
			if (len) {
				buf[len] = 0;
				rc = emit(buf);
			}
			break;
		}
		len += n;
		buf[len] = 0;
		p = buf;
		while (!rc && (nl = strchr(p, '\n'))) {
			*nl = 0;
			rc = emit(p);
			p = nl + 1;
		}
		if (rc)
			break;
		len -= p - buf;
		memmove(buf, p, len);
		if (len == sizeof(buf) - 1) {
			/* a line longer than the buffer: pass it on in parts */
			buf[len] = 0;
			rc = emit(buf);
			len = 0;
		}
	}
	close(fd);
	return rc == 1 ? 0 : rc;
}
