/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet trace stream, /sys/kernel/debug/skbprof/trace.
 *
 * Producers (any context) add lines with skbprof_trace_printf(); readers
 * consume them like trace_pipe.  The stream lives in a kernel ring buffer
 * (per CPU, lockless, overwriting the oldest lines when full; readers are
 * told how many they lost), allocated the first time tracing is switched on
 * (at load or by the part's arm).
 */
#ifndef _SKBPROF_PKTTRACE_H
#define _SKBPROF_PKTTRACE_H

#include <linux/compiler.h>

/* Longest line a producer can add, without the time and CPU prefix. */
#define SKBPROF_TRACE_LINE_MAX 224

/* Add one line (no newline) to the stream, prefixed with time and CPU. */
__printf(1, 2) void skbprof_trace_printf(const char *fmt, ...);

/*
 * The same for a line that names the code address @addr: the first
 * SKBPROF_TRACE_SYM in its text stands for @addr as skbprof_location()
 * prints it, resolved when the line is read.
 */
#define SKBPROF_TRACE_SYM "\x01"
__printf(2, 3) void skbprof_trace_printf_sym(unsigned long addr,
					     const char *fmt, ...);

extern const struct skbprof_part skbprof_trace_part;

#endif /* _SKBPROF_PKTTRACE_H */
