// SPDX-License-Identifier: GPL-2.0
/*
 * The trace stream's file mechanics: non-blocking reads, a blocked reader
 * returning on a signal, the buffer allocated when tracing is switched on.
 * What the lines say is tested with the parts that write them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define TRACE DEBUGFS_DIR "/trace"

static void on_signal(int sig)
{
	(void)sig;
}

TEST(trace_nonblocking_and_poll_when_empty)
{
	struct pollfd pfd;
	char buf[256];
	int fd, err;
	ssize_t n;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	fd = open(TRACE, O_RDONLY | O_NONBLOCK);
	CHECK(fd >= 0, "open %s: %s", TRACE, strerror(errno));
	n = read(fd, buf, sizeof(buf));
	err = errno;
	pfd.fd = fd;
	pfd.events = POLLIN;
	pfd.revents = 0;
	CHECK(n < 0 && err == EAGAIN, "empty non-blocking read gave %zd (%s)",
	      n, strerror(err));
	CHECK(poll(&pfd, 1, 100) == 0, "poll says an empty trace is readable");
	close(fd);
	/* root passes the 0400 mode check; the file itself refuses */
	CHECK(open(TRACE, O_WRONLY) < 0 && errno == EINVAL,
	      "trace opened for writing");
	return 0;
}

TEST(trace_blocked_reader_returns_on_signal)
{
	struct timespec t0, t1;
	int err, st, fd;
	pid_t pid;

	err = skbprof_load(NULL);
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	CHECK(write_file(DEBUGFS_DIR "/control", "trace on\n") == 0, "trace on");
	fflush(stdout);
	pid = fork();
	CHECK(pid >= 0, "fork");
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_signal };
		char buf[64];
		ssize_t n;

		sigaction(SIGUSR1, &sa, NULL);	/* no SA_RESTART */
		fd = open(TRACE, O_RDONLY);
		if (fd < 0)
			_exit(2);
		n = read(fd, buf, sizeof(buf));
		_exit(n < 0 && errno == EINTR ? 0 : 1);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	usleep(300000);
	/* still blocked after 300 ms: no data means no return */
	CHECK(waitpid(pid, &st, WNOHANG) == 0, "the reader returned without data");
	kill(pid, SIGUSR1);
	CHECK(waitpid(pid, &st, 0) == pid, "waitpid");
	clock_gettime(CLOCK_MONOTONIC, &t1);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "the blocked reader did not return EINTR on a signal (status %d)", st);
	return 0;
}

TEST(trace_buffer_allocated_on_demand)
{
	int err;

	err = skbprof_load("trace_buffer_kb=64");
	CHECK(err == 0, "loading skbprof: %s", strerror(-err));
	CHECK(stat_value("trace_buffer_bytes") == 0,
	      "a trace buffer exists before tracing was switched on");
	CHECK(write_file(DEBUGFS_DIR "/control", "trace verbose\n") == 0,
	      "trace verbose");
	CHECK(stat_value("trace_buffer_bytes") == 65536,
	      "no 64 KiB trace buffer after trace verbose");
	err = skbprof_unload();
	CHECK(err == 0, "unload: %s", strerror(-err));
	err = skbprof_load("trace_buffer_kb=0");
	CHECK(err == -EINVAL, "trace_buffer_kb=0 gave %d, want -EINVAL", err);
	return 0;
}
