/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The packet trace stream, /sys/kernel/debug/skbprof/trace and
 * trace_records.
 *
 * Producers (any context) add events with skbprof_trace_event(); readers
 * consume them like trace_pipe.  The stream lives in a kernel ring buffer
 * (per CPU, lockless, overwriting the oldest lines when full; readers are
 * told how many they lost), allocated the first time tracing is switched on
 * (at load or by the part's arm).
 */
#ifndef _SKBPROF_PKTTRACE_H
#define _SKBPROF_PKTTRACE_H

#include <linux/build_bug.h>
#include <linux/types.h>

/*
 * Events, not lines: a producer adds the data of an event and the
 * function that prints it; the readers print it when they read, each in
 * its form.  trace prints SKBPROF_TRACE_TEXT, the lines for people;
 * trace_records prints SKBPROF_TRACE_RECORD, "key=value" lines for
 * programs.  Both read the one stream: every event goes to one reader.
 */
enum skbprof_trace_form {
	SKBPROF_TRACE_TEXT,
	SKBPROF_TRACE_RECORD,
};

/* The most data an event carries. */
#define SKBPROF_TRACE_DATA_MAX 224

/*
 * Print the event @data in @form at @buf (scnprintf's return), without
 * the time and CPU the reader puts first; @sym is the code address the
 * event named, as skbprof_location() prints it ("-" for none).  Called
 * in process context, from the reader.
 */
typedef int (*skbprof_trace_fmt_t)(char *buf, size_t size, const void *data,
				   enum skbprof_trace_form form,
				   const char *sym);

/*
 * Add the event *@ev (any context), printed by @fmt; @sym, a code
 * address or 0, is resolved to its name only when the event is read.  An
 * event larger than SKBPROF_TRACE_DATA_MAX does not build.
 */
#define skbprof_trace_event(fmt, ev, sym)				\
	do {								\
		BUILD_BUG_ON(sizeof(*(ev)) > SKBPROF_TRACE_DATA_MAX);	\
		skbprof_trace_add(fmt, ev, sizeof(*(ev)), sym);		\
	} while (0)

void skbprof_trace_add(skbprof_trace_fmt_t fmt, const void *data, size_t len,
		       unsigned long sym);

struct lat_stamp;
/*
 * The verbose trace's event of a probe hit at @point of the kept timeline
 * @s, served by the probe @symbol (a string of the module's, kept) at @t
 * (CLOCK_MONOTONIC, as ktime_get_mono_fast_ns()).
 */
void skbprof_trace_hit(const struct lat_stamp *s, unsigned int point,
		       const char *symbol, u64 t);
/* The event of a completed, kept timeline: stages, flow, cgroup, process. */
void skbprof_trace_timeline(const struct lat_stamp *s);

extern const struct skbprof_part skbprof_trace_part;

#endif /* _SKBPROF_PKTTRACE_H */
