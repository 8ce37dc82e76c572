/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skbprof reader tool: the views' models (model.c), json-c trees made
 * from the module's machine files.  Every view is parsed into such a
 * tree; the JSON output prints it, the Prometheus exposition and `top`
 * walk it.  Each function returns a new tree, or NULL with *rc set to
 * the exit code (the error reported, see report()).
 */
#ifndef SKBPROF_MODEL_H
#define SKBPROF_MODEL_H

#include <json-c/json.h>

/* ROOT/@name, a table, as {@rows_key: [rows]} (parse_table()). */
json_object *read_table(const char *name, const char *rows_key, int *rc);
/*
 * The same into *@t, or NULL where the module (an older one) has no such
 * file: 0, or the exit code of the failed read.
 */
int read_table_if(const char *name, const char *rows_key, json_object **t);
/*
 * stats from its machine forms: counters (name value) and the tables
 * probes, groups, stages and inflight.
 */
json_object *read_stats(int *rc);
/*
 * latency from latency_buckets and latency_worst: {"stages": [rows of
 * the buckets file, each with "worst"]}.
 */
json_object *read_latency(int *rc);
/* lifetime from lifetime_buckets and counters: {"sample", "lifetime"}. */
json_object *read_lifetime(int *rc);
/*
 * drops from drops_rows: {"clock", "drops": [rows]}, each row's times
 * since boot and, with the clock line, since the epoch and in UTC.
 */
json_object *read_drops(int *rc);
/*
 * The drops view drawn for people from drops_rows: first and last in
 * wall-clock time, cgroups named by cgroup_name(); an exit code.
 */
int print_drops(void);
/*
 * latency_buckets, lifetime_buckets and softnet_buckets: {"bounds":
 * [every bucket edge], "rows": [{the named columns, "histogram": [{"lo",
 * "hi", "count"}]}]}.  A malformed file is an error naming its line and
 * token: the numbers must be exact, or nothing.
 */
json_object *read_buckets(const char *name, int *rc);
/* softnet from softnet_buckets and softnet_counters: {"softnet", "counters"}. */
json_object *read_softnet(int *rc);
json_object *parse_control(char *text);
/*
 * A line of trace_records (a record) as the JSON of a trace event:
 * {"time", "cpu", "type": "packet"|"drop"|"hit", ...}, {"type": "lost",
 * "lost"}, or {"type": "unknown", "raw"} for a line it cannot read.
 */
json_object *parse_trace_record(const char *line);

#endif /* SKBPROF_MODEL_H */
