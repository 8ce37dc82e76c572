// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof prom: the Prometheus text exposition format, for node_exporter's
 * textfile collector (skbprof prom -o DIR/skbprof.prom, by the
 * skbprof-prom timer), shaped for one Prometheus that holds a fleet:
 *
 * - Freshness.  skbprof_up says whether the module's files were read,
 *   skbprof_last_read_timestamp_seconds when they last were.  A read that
 *   fails (no module, a file that cannot be read or parsed) still gives a
 *   document: skbprof_up 0 and the time of the last good read, carried
 *   over from the file -o replaces, never the old figures.
 *
 * - Few series, and the same ones on every host.  Histograms have coarse
 *   buckets: le at 2^k - 1 ns for k = 10..30 (about 1 us to 1.07 s), each
 *   an exact sum of the module's own buckets (which have every power of
 *   two as an edge; times are integer ns, so the bucket [lo, hi) is
 *   exactly le = hi - 1 ns).  Locations are symbols without offset and
 *   size, which change with every kernel build.  cgroup, netns and dev
 *   are bounded (--top-n): the N with the most packets keep their values,
 *   the rest add up exactly in "other".  Softnet is summed over the CPUs,
 *   probes are counted by state.  No cumulative quantiles: a p99 since
 *   the reset cannot be aggregated over hosts or time; histograms, sums
 *   and counts can.
 *
 * - Buckets where a fleet looks first: the stages.  The lifetime and
 *   softnet histograms have +Inf, _sum and _count (the mean), their
 *   buckets when asked.
 *
 * - What is heavier comes when asked (--detail, see enum prom_detail):
 *   the lifetime and softnet buckets, the module's fine buckets (319
 *   finite le), locations with offsets, softnet per CPU, a series per
 *   probe.
 *
 * - Types that cannot drift.  Every counters line exported is declared
 *   below with its type and unit; a line this tool does not know is
 *   reported on stderr and left out, never exported as a guess.
 *
 * See Documentation/skbprof.rst ("Prometheus") for the series and their
 * count.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model.h"
#include "cgroup.h"
#include "parse.h"
#include "util.h"
#include "views.h"

/* The document being built: a memory stream, printed whole or not at all. */
static FILE *out;

/* ---- the format ---- */

/* A label value, escaped as the format wants (\\, \", \n). */
static void put_label(const char *name, const char *v, bool first)
{
	fprintf(out, "%s%s=\"", first ? "" : ",", name);
	for (; v && *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(out, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", out);
		else
			fputc(*v, out);
	}
	fputc('"', out);
}

static void family(const char *name, const char *type, const char *help)
{
	fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* "NAME{k1="v1",k2="v2"" of the keys of @o (no closing brace). */
static void series(const char *name, json_object *o, const char *const *keys)
{
	int i;

	fprintf(out, "%s{", name);
	for (i = 0; keys[i]; i++)
		put_label(keys[i], jget_str(o, keys[i]), i == 0);
}

/* @ns nanoseconds as an exact decimal of seconds: "0.000012287", "3". */
static const char *seconds(char *buf, size_t len, uint64_t ns)
{
	int n = snprintf(buf, len, "%llu.%09llu", (unsigned long long)(ns / 1000000000ULL),
			 (unsigned long long)(ns % 1000000000ULL));

	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = 0;
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = 0;
	return buf;
}

/* ---- histograms ---- */

/* The coarse le: 2^k - 1 ns for k from COARSE_FIRST to COARSE_LAST. */
#define COARSE_FIRST	10
#define COARSE_LAST	30

/*
 * Is the module's bound @b an edge of the le set asked for?  Every inner
 * bound for --detail buckets; else the powers of two of the coarse set.
 */
static bool le_edge(uint64_t b)
{
	if (opt.detail & DETAIL_BUCKETS)
		return true;
	return b >= 1ULL << COARSE_FIRST && b <= 1ULL << COARSE_LAST && !(b & (b - 1));
}

/*
 * A histogram family's series for @row (a row of a *_buckets file):
 * cumulative counts at each le of @bounds that le_edge() keeps (never
 * the first bound, 0, nor the open top; none unless @buckets), +Inf,
 * _sum and _count.
 */
static void histogram(const char *name, json_object *row, const char *const *keys,
		      json_object *bounds, bool buckets)
{
	json_object *h = json_object_object_get(row, "histogram"), *b;
	uint64_t count = jget_u64(row, "count"), cum = 0, edge;
	size_t i = 0, n = json_object_array_length(h), k;
	size_t nb = json_object_array_length(bounds);
	char sname[128], le[32];

	snprintf(sname, sizeof(sname), "%s_bucket", name);
	for (k = 1; buckets && k + 1 < nb; k++) {
		edge = json_object_get_uint64(json_object_array_get_idx(bounds, k));
		if (!le_edge(edge))
			continue;
		for (; i < n; i++) {
			b = json_object_array_get_idx(h, i);
			if (jget_u64(b, "hi") > edge)
				break;
			cum += jget_u64(b, "count");
		}
		series(sname, row, keys);
		put_label("le", seconds(le, sizeof(le), edge - 1), !keys[0]);
		fprintf(out, "} %llu\n", (unsigned long long)cum);
	}
	series(sname, row, keys);
	put_label("le", "+Inf", !keys[0]);
	fprintf(out, "} %llu\n", (unsigned long long)count);
	snprintf(sname, sizeof(sname), "%s_sum", name);
	series(sname, row, keys);
	fprintf(out, "} %s\n", seconds(le, sizeof(le), jget_u64(row, "sum")));
	snprintf(sname, sizeof(sname), "%s_count", name);
	series(sname, row, keys);
	fprintf(out, "} %llu\n", (unsigned long long)count);
}

static void latency(json_object *lat, json_object *life, json_object *st)
{
	static const char *const keys[] = { "dir", "stage", NULL };
	static const char *const none[] = { NULL };
	json_object *rows = json_object_object_get(lat, "rows");
	json_object *bounds = json_object_object_get(lat, "bounds");
	json_object *counters = json_object_object_get(st, "counters");
	size_t i;

	family("skbprof_stage_latency_seconds", "histogram",
	       "Time packets spent in a stage of the network stack.");
	for (i = 0; i < json_object_array_length(rows); i++)
		histogram("skbprof_stage_latency_seconds",
			  json_object_array_get_idx(rows, i), keys, bounds, true);
	/* while the lifetime view is on (lifetime_sample > 0) */
	rows = json_object_object_get(life, "rows");
	bounds = json_object_object_get(life, "bounds");
	if (json_object_array_length(rows) > 0 && jget_u64(counters, "lifetime_sample")) {
		family("skbprof_skb_lifetime_seconds", "histogram",
		       "Lifetime of sampled socket buffers, allocation to free.");
		histogram("skbprof_skb_lifetime_seconds",
			  json_object_array_get_idx(rows, 0), none, bounds,
			  opt.detail & DETAIL_HISTOGRAMS);
	}
}

/* ---- bounded labels ---- */

static bool digits(const char *s)
{
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Order of two label values: numbers by value, the rest as strings. */
static int value_cmp(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	if (digits(a) && digits(b) && la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a, b);
}

/*
 * The value of @r's labels @keys that the bound ranks, in @buf: the
 * labels' values joined by blanks ("-" for one without), a cgroup by its
 * id ("1234+", several cgroups, counts as 1234); NULL when none has one.
 */
static const char *bound_value(json_object *r, const char *const *keys, char *buf,
			       size_t len)
{
	const char *v;
	char id[24];
	bool any = false;
	size_t n = 0;
	uint64_t c;
	int i;

	buf[0] = 0;
	for (i = 0; keys[i]; i++) {
		if (strcmp(keys[i], "cgroup")) {
			v = jget_str(r, keys[i]);
		} else {
			c = cgroup_id(json_object_object_get(r, keys[i]));
			snprintf(id, sizeof(id), "%llu", (unsigned long long)c);
			v = c ? id : NULL;
		}
		any |= v != NULL;
		n += snprintf(buf + n, n < len ? len - n : 0, "%s%s", i ? " " : "", v ? v : "-");
	}
	return any && n < len ? buf : NULL;
}

struct tally {
	char *value;
	uint64_t packets;
};

/* Most packets first; ties to the lower value, so the choice is stable. */
static int by_packets(const void *a, const void *b)
{
	const struct tally *x = a, *y = b;

	if (x->packets != y->packets)
		return x->packets < y->packets ? 1 : -1;
	return value_cmp(x->value, y->value);
}

/*
 * Bound the values of labels @keys over @rows to opt.top_n: the values
 * (of the labels together, see bound_value()) with the most packets
 * (@weight of their rows summed) keep theirs, every other row's labels
 * become "other" (not a path, which starts with "/", an id, a device's or
 * a namespace's name); rows without any keep none.  Kept cgroups are
 * then named by their paths (cgroup_name()).
 */
static int bound(json_object *rows, const char *const *keys,
		 uint64_t (*weight)(json_object *r))
{
	size_t n = json_object_array_length(rows), i, j, nt = 0, keep;
	struct tally *t = calloc(n ? n : 1, sizeof(*t));
	const char *v;
	json_object *r;
	char buf[128], path[4096];
	int rc = 0, k;

	if (!t)
		return report(EXIT_RUNTIME, ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(rows, i);
		v = bound_value(r, keys, buf, sizeof(buf));
		if (!v)
			continue;
		for (j = 0; j < nt && strcmp(t[j].value, v); j++)
			;
		if (j == nt) {
			t[nt].value = strdup(v);
			if (!t[nt++].value) {
				rc = report(EXIT_RUNTIME, ENOMEM, "out of memory");
				goto out;
			}
		}
		t[j].packets += weight(r);
	}
	qsort(t, nt, sizeof(*t), by_packets);
	keep = opt.top_n < 0 || (size_t)opt.top_n > nt ? nt : (size_t)opt.top_n;
	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(rows, i);
		v = bound_value(r, keys, buf, sizeof(buf));
		if (!v)
			continue;
		for (j = 0; j < keep && strcmp(t[j].value, v); j++)
			;
		for (k = 0; keys[k]; k++) {
			if (j == keep) {
				json_object_object_add(r, keys[k], json_object_new_string("other"));
			} else if (!strcmp(keys[k], "cgroup")) {
				v = jget_str(r, keys[k]);
				if (cgroup_name(v, path, sizeof(path)) != v)
					json_object_object_add(r, keys[k],
							       json_object_new_string(path));
			}
		}
	}
out:
	for (i = 0; i < nt; i++)
		free(t[i].value);
	free(t);
	return rc;
}

static uint64_t count_of(json_object *r)
{
	return jget_u64(r, "count");
}

/* A drops_devices row: every counter of the device (not its netns). */
static uint64_t device_drops_of(json_object *r)
{
	uint64_t n = 0;

	json_object_object_foreach(r, k, v)
		if (strcmp(k, "netns") && json_object_is_type(v, json_type_int))
			n += json_object_get_uint64(v);
	return n;
}

static bool folded(json_object *r)
{
	return json_object_object_get_ex(r, "folded", NULL);
}

static bool listed(const char *s, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(s, *list))
			return true;
	return false;
}

/* Add @r's integers to @q's: "max" the larger, the rest summed. */
static void add_row(json_object *q, json_object *r, const char *const *keys)
{
	json_object *qv;
	uint64_t a, b;

	json_object_object_foreach(r, k, v) {
		if (listed(k, keys) || !json_object_is_type(v, json_type_int) ||
		    !json_object_object_get_ex(q, k, &qv))
			continue;
		a = json_object_get_uint64(qv);
		b = json_object_get_uint64(v);
		json_object_object_add(q, k, json_object_new_uint64(!strcmp(k, "max") ?
								     (a > b ? a : b) : a + b));
	}
}

/*
 * Rows of @rows whose labels @keys are the same (after bound() and the
 * location's offset cut) add up in the first of them (add_row()); the
 * others get "folded" and are not printed.
 */
static void fold(json_object *rows, const char *const *keys)
{
	size_t n = json_object_array_length(rows), i, j;
	json_object *r, *q;
	int k;

	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(rows, i);
		for (j = 0; j < i; j++) {
			q = json_object_array_get_idx(rows, j);
			if (folded(q))
				continue;
			for (k = 0; keys[k]; k++) {
				const char *a = jget_str(r, keys[k]), *b = jget_str(q, keys[k]);

				if (strcmp(a ? a : "", b ? b : ""))
					break;
			}
			if (keys[k])
				continue;
			add_row(q, r, keys);
			json_object_object_add(r, "folded", json_object_new_boolean(1));
			break;
		}
	}
}

/* ---- drops ---- */

/* "__udp4_lib_rcv+0x545/0xde0" becomes "__udp4_lib_rcv" (--detail offset keeps it). */
static void cut_offsets(json_object *rows)
{
	size_t i, n = json_object_array_length(rows);
	const char *loc, *plus;
	json_object *r;

	if (opt.detail & DETAIL_OFFSET)
		return;
	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(rows, i);
		loc = jget_str(r, "location");
		plus = loc ? strchr(loc, '+') : NULL;
		if (plus && plus > loc)
			json_object_object_add(r, "location",
					       json_object_new_string_len(loc, plus - loc));
	}
}

/* The labels of @keys bounded, then rows with the same labels added up. */
static int bound_and_fold(json_object *rows, const char *const *keys,
			  uint64_t (*weight)(json_object *r))
{
	static const char *const bounded[][2] = { { "cgroup" }, { "netns" }, { "dev" } };
	size_t i;

	for (i = 0; i < ARRAY_LEN(bounded); i++)
		if (listed(bounded[i][0], keys) && bound(rows, bounded[i], weight))
			return EXIT_RUNTIME;
	fold(rows, keys);
	return 0;
}

/*
 * A counter family of @rows' column @col, a series per row not folded,
 * labelled by @keys: the integer, or (@secs) ns as exact seconds.
 */
static void counters_of(const char *name, const char *help, json_object *rows,
			const char *const *keys, const char *col, bool secs)
{
	size_t i, n = json_object_array_length(rows);
	json_object *r;
	char s[32];

	family(name, "counter", help);
	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(rows, i);
		if (folded(r))
			continue;
		series(name, r, keys);
		if (secs)
			fprintf(out, "} %s\n", seconds(s, sizeof(s), jget_u64(r, col)));
		else
			fprintf(out, "} %llu\n", (unsigned long long)jget_u64(r, col));
	}
}

static int drops(json_object *d)
{
	static const char *const keys[] = {
		"reason", "location", "proto", "dev", "netns", "cgroup", "stage",
		NULL
	};
	json_object *rows = json_object_object_get(d, "drops");

	cut_offsets(rows);
	if (bound_and_fold(rows, keys, count_of))
		return EXIT_RUNTIME;
	counters_of("skbprof_drops_total",
		    "Packets freed as dropped, by drop reason, code location and network namespace.",
		    rows, keys, "count", false);
	return 0;
}

/* drops_devices: a series per device and counter with a count. */
static int device_drops(json_object *t)
{
	static const char *const keys[] = { "netns", "dev", NULL };
	json_object *rows = json_object_object_get(t, "devices");
	size_t i, n = json_object_array_length(rows);

	/* a device is its namespace and name: the top N of those pairs */
	if (bound(rows, keys, device_drops_of))
		return EXIT_RUNTIME;
	fold(rows, keys);
	family("skbprof_device_drops_total", "counter",
	       "Drops a network device counted since the reset (dev_get_stats()), by counter.");
	for (i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(rows, i);

		if (folded(r))
			continue;
		json_object_object_foreach(r, k, v) {
			if (listed(k, keys) || !json_object_is_type(v, json_type_int) ||
			    !json_object_get_uint64(v))
				continue;
			series("skbprof_device_drops_total", r, keys);
			put_label("counter", k, false);
			fprintf(out, "} %llu\n", (unsigned long long)json_object_get_uint64(v));
		}
	}
	return 0;
}

/* ---- cgroups ---- */

/*
 * The cgroups view: per cgroup and stage, the packets measured and the
 * sum of their times (the mean is rate(seconds) / rate(packets), over
 * any hosts and window).  Past the top N cgroups, "other" per stage.
 */
static int cgroups(json_object *c)
{
	static const char *const keys[] = { "dir", "stage", "cgroup", NULL };
	json_object *rows = json_object_object_get(c, "cgroups");

	if (bound_and_fold(rows, keys, count_of))
		return EXIT_RUNTIME;
	counters_of("skbprof_cgroup_stage_packets_total",
		    "Packets measured in a stage, charged to processes of a cgroup (cgroup v2).",
		    rows, keys, "count", false);
	counters_of("skbprof_cgroup_stage_seconds_total",
		    "Time the packets of a cgroup spent in a stage, summed.",
		    rows, keys, "sum", true);
	return 0;
}

/* ---- softnet ---- */

/* A row of the sums over the CPUs: its cpu ("all" in the file) is null. */
static bool all_cpus(json_object *r)
{
	return !json_object_is_type(json_object_object_get(r, "cpu"), json_type_int);
}

/*
 * The softnet view, while it is on: its histograms (softnet_buckets), the
 * "all" rows summed over the CPUs by the module, or a series per CPU with
 * --detail cpu; and the kernel's softnet counters (softnet_counters),
 * which count whether the view is on or not.
 */
static void softnet(json_object *b, json_object *c, bool on)
{
	static const char *const counters[] = {
		"net_rx", "NET_RX softirqs run (the kernel's count).",
		"polls", "NAPI polls seen.",
		"polls_full", "NAPI polls that used their whole budget.",
		"time_squeeze", "NET_RX runs that ended with work left (the kernel's time_squeeze).",
		"backlog_drops", "Packets dropped by a full receive backlog (the kernel's count).",
		"ksoftirqd", "NET_RX runs in ksoftirqd.",
		"processed", "Packets taken off the backlog or polled (the kernel's count).",
	};
	static const char *const what[] = { "what", NULL };
	static const char *const cpu_what[] = { "cpu", "what", NULL };
	static const char *const cpu[] = { "cpu", NULL };
	bool per_cpu = opt.detail & DETAIL_CPU;
	const char *hname = per_cpu ? "skbprof_softnet_cpu_seconds" : "skbprof_softnet_seconds";
	json_object *rows, *r;
	char name[96];
	size_t i, j;

	rows = json_object_object_get(b, "rows");
	if (on && rows) {
		family(hname, "histogram",
		       "Softirq waits and runs, and NAPI polls, timed.");
		for (i = 0; i < json_object_array_length(rows); i++) {
			r = json_object_array_get_idx(rows, i);
			if (all_cpus(r) != per_cpu)
				histogram(hname, r, per_cpu ? cpu_what : what,
					  json_object_object_get(b, "bounds"),
					  opt.detail & DETAIL_HISTOGRAMS);
		}
	}
	rows = json_object_object_get(c, "counters");
	for (j = 0; j < ARRAY_LEN(counters); j += 2) {
		snprintf(name, sizeof(name), "skbprof_softnet_%s%s_total",
			 per_cpu ? "cpu_" : "", counters[j]);
		family(name, "counter", counters[j + 1]);
		for (i = 0; i < json_object_array_length(rows); i++) {
			r = json_object_array_get_idx(rows, i);
			if (all_cpus(r) == per_cpu)
				continue;
			if (per_cpu) {
				series(name, r, cpu);
				fputc('}', out);
			} else {
				fputs(name, out);
			}
			fprintf(out, " %llu\n", (unsigned long long)jget_u64(r, counters[j]));
		}
	}
}

/* ---- probes and stages ---- */

static void probe_family(json_object *rows, const char *name, const char *type,
			 const char *help, const char *col)
{
	static const char *const keys[] = { "group", "symbol", "type", NULL };
	size_t i, n = json_object_array_length(rows);
	json_object *r;
	bool active;

	family(name, type, help);
	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(rows, i);
		active = !strcmp(jget_str(r, "state"), "active");
		if (!active && col)
			continue;
		series(name, r, keys);
		fprintf(out, "} %llu\n", (unsigned long long)(col ? jget_u64(r, col) : active));
	}
}

/*
 * The probes by state and their missed calls summed; a series per probe
 * with --detail probe.  The stages: 1 when both ends are active.
 */
static void probes(json_object *st)
{
	static const char *const skeys[] = { "dir", "stage", NULL };
	json_object *rows = json_object_object_get(st, "probes"), *r;
	size_t i, j, n = json_object_array_length(rows);
	uint64_t missed = 0;

	if (opt.detail & DETAIL_PROBE) {
		probe_family(rows, "skbprof_probe_active", "gauge",
			     "1 when the probe is registered and counting, else 0.", NULL);
		probe_family(rows, "skbprof_probe_hits_total", "counter",
			     "Times an active probe fired.", "hits");
		probe_family(rows, "skbprof_probe_missed_total", "counter",
			     "Times a probe could not run (nmissed of the kprobe).", "nmissed");
	} else {
		family("skbprof_probes", "gauge", "Probes in each state (skbprof stats).");
		for (i = 0; i < n; i++) {
			const char *s = jget_str(json_object_array_get_idx(rows, i), "state");
			unsigned int k = 0;

			for (j = 0; j < i; j++)
				if (!strcmp(s, jget_str(json_object_array_get_idx(rows, j), "state")))
					break;
			if (j < i)
				continue;	/* counted at its first row */
			for (j = i; j < n; j++)
				k += !strcmp(s, jget_str(json_object_array_get_idx(rows, j), "state"));
			fprintf(out, "skbprof_probes{state=\"%s\"} %u\n", s, k);
		}
		family("skbprof_probe_missed_total", "counter",
		       "Times an active probe could not run (nmissed), summed over the probes.");
		for (i = 0; i < n; i++) {
			r = json_object_array_get_idx(rows, i);
			if (!strcmp(jget_str(r, "state"), "active"))
				missed += jget_u64(r, "nmissed");
		}
		fprintf(out, "skbprof_probe_missed_total %llu\n", (unsigned long long)missed);
	}
	rows = json_object_object_get(st, "stages");
	family("skbprof_stage_active", "gauge",
	       "1 when both ends of the stage have an active probe, else 0.");
	for (i = 0; i < json_object_array_length(rows); i++) {
		r = json_object_array_get_idx(rows, i);
		series("skbprof_stage_active", r, skeys);
		fprintf(out, "} %d\n", !strcmp(jget_str(r, "state"), "active"));
	}
}

/* ---- the counters lines ---- */

enum kind { COUNTER, GAUGE };

/*
 * Every numeric counters line the tool exports, with its type, unit and
 * meaning (Documentation/skbprof.rst, "stats"): skbprof_stats_LINE, and
 * _total for counters.  incomplete_DIR_WHY and timelines_DIR_VERDICT are
 * families with labels (below).
 */
static const struct stat_line {
	const char *line;
	enum kind kind;
	const char *help;
} stat_lines[] = {
	{ "trace_buffer_bytes", GAUGE, "Size of the packet trace's buffer (bytes)." },
	{ "pkttrace_lines", COUNTER, "Packet trace lines written." },
	{ "pkttrace_lost", COUNTER, "Packet trace lines lost to a full buffer." },
	{ "table_capacity", GAUGE, "Entries of the stamp table (timelines)." },
	{ "table_in_use", GAUGE, "Stamp table entries holding a timeline now." },
	{ "table_in_use_lifetime", GAUGE, "Stamp table entries holding a lifetime now." },
	{ "table_inserts", COUNTER, "Packets stamped into the table." },
	{ "table_lookup_misses", COUNTER, "Later points that found no stamp." },
	{ "table_evictions", COUNTER, "Timelines evicted for their age." },
	{ "table_evictions_lifetime", COUNTER, "Lifetimes evicted for their age." },
	{ "table_full", COUNTER, "Packets not measured: the stamp table was full." },
	{ "table_depot_refills", COUNTER, "Batches of free stamps a CPU took from the depot." },
	{ "table_remote_refills", COUNTER, "Batches of free stamps a CPU took from another CPU." },
	{ "udp_calls_unseen_tx", COUNTER, "UDP sends whose entry was not seen (app-udp)." },
	{ "procs_overflow", COUNTER, "Stage times not charged to a process: no free row." },
	{ "cgroups_overflow", COUNTER, "Stage times not charged to a cgroup: no free row." },
	{ "gso_forks_tx", COUNTER, "Transmit timelines forked at software GSO." },
	{ "gso_segments_tx", COUNTER, "GSO segments given a timeline." },
	{ "gso_segments_tx_full", COUNTER, "GSO segments not given one: the table was full." },
	{ "lifetime_sample", GAUGE, "The lifetime view's 1-in-N sampling (0: off)." },
	{ "lifetime_forked", COUNTER, "Lifetimes ended by a GSO fork." },
	{ "lifetime_merged", COUNTER, "Lifetimes ended by a GRO merge." },
	{ "lifetime_reused", COUNTER, "Lifetimes of skbs that napi_gro_frags() reused." },
	{ "lifetime_coalesced", COUNTER, "Lifetimes ended by coalescing." },
	{ "lifetime_disarmed", COUNTER, "Lifetimes ended by switching the view off." },
	{ "lifetime_orphaned", COUNTER, "Lifetimes whose free was missed." },
	{ "drops_keys_max", GAUGE, "Drop keys each CPU's table holds." },
	{ "drops_keys_used", GAUGE, "Drop keys used, the fullest CPU's." },
	{ "drops_total", COUNTER, "Drops counted." },
	{ "drops_overflow", COUNTER, "Drops counted without a key: the table was full." },
};

static const struct stat_line *stat_line(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(stat_lines); i++)
		if (!strcmp(key, stat_lines[i].line))
			return &stat_lines[i];
	return NULL;
}

/* "PREFIXrx_WHAT" or "PREFIXtx_WHAT": its dir in @dir, WHAT returned. */
static const char *dir_line(const char *key, const char *prefix, char dir[3])
{
	size_t n = strlen(prefix);

	if (strncmp(key, prefix, n) || (strncmp(key + n, "rx_", 3) && strncmp(key + n, "tx_", 3)))
		return NULL;
	memcpy(dir, key + n, 2);
	dir[2] = 0;
	return key + n + 3;
}

static void dir_family(json_object *c, const char *prefix, const char *name,
		       const char *label, const char *help)
{
	const char *what;
	char dir[3];

	family(name, "counter", help);
	json_object_object_foreach(c, key, val) {
		what = dir_line(key, prefix, dir);
		if (what && json_object_get_uint64(val))
			fprintf(out, "%s{dir=\"%s\",%s=\"%s\"} %llu\n", name, dir, label,
				what, (unsigned long long)json_object_get_uint64(val));
	}
}

static void counters(json_object *st)
{
	json_object *c = json_object_object_get(st, "counters");
	const struct stat_line *l;
	char name[128], dir[3];

	/* the causes a timeline ended early that happened since the reset */
	dir_family(c, "incomplete_", "skbprof_incomplete_total", "reason",
		   "Stage timelines that ended early, by direction and cause.");
	dir_family(c, "timelines_", "skbprof_timelines_total", "verdict",
		   "Timelines started, by direction and the sampler's and filter's verdict.");
	json_object_object_foreach(c, k, v) {
		if (dir_line(k, "incomplete_", dir) || dir_line(k, "timelines_", dir))
			continue;
		l = stat_line(k);
		if (!l) {
			fprintf(stderr, "skbprof: counters: '%s' is not known to this tool "
				"(left out of prom)\n", k);
			continue;
		}
		/* drops_total: skbprof_stats_drops_total, not ..._total_total */
		snprintf(name, sizeof(name), "skbprof_stats_%s%s", k,
			 l->kind == COUNTER && !strstr(k, "_total") ? "_total" : "");
		family(name, l->kind == COUNTER ? "counter" : "gauge", l->help);
		fprintf(out, "%s %llu\n", name, (unsigned long long)json_object_get_uint64(v));
	}
	family("skbprof_info", "gauge",
	       "The module's version, the kernel's release and the tool's version.");
	series("skbprof_info", st, (const char *const[]){ "version", "kernel", NULL });
	put_label("tool", SKBPROF_VERSION, false);
	fputs("} 1\n", out);
}

/* ---- the document ---- */

/* Read every file and write the families into out; an exit code. */
static int collect(void)
{
	json_object *st, *lat = NULL, *life = NULL, *drp = NULL, *cg = NULL;
	json_object *dd = NULL, *sn = NULL, *snc = NULL;
	const char *s;
	int rc = 0;

	st = read_stats(&rc);
	if (!st)
		goto out;
	lat = read_buckets("latency_buckets", &rc);
	if (!lat)
		goto out;
	life = read_buckets("lifetime_buckets", &rc);
	if (!life)
		goto out;
	drp = read_drops(&rc);
	if (!drp)
		goto out;
	/* cgroups, drops_devices, softnet_buckets: a module before them has none */
	rc = read_table_if("cgroups", "cgroups", &cg);
	if (!rc)
		rc = read_table_if("drops_devices", "devices", &dd);
	if (!rc)
		rc = read_table_if("softnet_counters", "counters", &snc);
	if (!rc && snc && root_has("softnet_buckets"))
		sn = read_buckets("softnet_buckets", &rc);
	if (rc)
		goto out;
	latency(lat, life, st);
	rc = drops(drp);
	if (!rc && cg)
		rc = cgroups(cg);
	if (!rc && dd)
		rc = device_drops(dd);
	if (rc)
		goto out;
	s = jget_str(st, "softnet");
	if (snc)
		softnet(sn, snc, s && !strcmp(s, "on"));
	probes(st);
	counters(st);
out:
	json_object_put(st);
	json_object_put(lat);
	json_object_put(life);
	json_object_put(drp);
	json_object_put(cg);
	json_object_put(dd);
	json_object_put(sn);
	json_object_put(snc);
	return rc;
}

#define LAST_READ	"skbprof_last_read_timestamp_seconds"

/*
 * The time of the last good read that @prev, the file -o replaces, says:
 * its LAST_READ line's value, in @buf; NULL if there is none.
 */
static const char *last_read(const char *prev, char *buf, size_t len)
{
	char line[256];
	const char *v = NULL;
	FILE *f;

	f = prev ? fopen(prev, "re") : NULL;
	if (!f)
		return NULL;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, LAST_READ " ", sizeof(LAST_READ)))
			continue;
		line[strcspn(line, "\n")] = 0;
		if ((is_decimal(line + sizeof(LAST_READ)) || is_uint(line + sizeof(LAST_READ))) &&
		    strlen(line + sizeof(LAST_READ)) < len) {
			strcpy(buf, line + sizeof(LAST_READ));
			v = buf;
		}
		break;
	}
	fclose(f);
	return v;
}

/*
 * The document on stdout (the caller flushes it): the families, or
 * skbprof_up 0 and the time of the last good read of @prev (the file -o
 * replaces; NULL: none) when a read failed.  Returns the read's exit code.
 */
int prom_main(const char *prev)
{
	char *body = NULL, when[32];
	const char *t = NULL;
	struct timespec now;
	size_t len = 0;
	int rc;

	out = open_memstream(&body, &len);
	if (!out)
		return report(EXIT_RUNTIME, errno, "out of memory");
	rc = collect();
	if (fclose(out) && !rc)
		rc = report(EXIT_RUNTIME, ENOMEM, "out of memory");
	out = stdout;
	if (!rc) {
		clock_gettime(CLOCK_REALTIME, &now);
		snprintf(when, sizeof(when), "%lld.%03ld", (long long)now.tv_sec,
			 now.tv_nsec / 1000000);
		t = when;
	} else {
		t = last_read(prev, when, sizeof(when));
	}
	family("skbprof_up", "gauge",
	       "1 when skbprof's files were read, 0 when not (module not loaded, unreadable).");
	printf("skbprof_up %d\n", !rc);
	if (t) {
		family(LAST_READ, "gauge", "Unix time of the last good read of skbprof's files.");
		printf(LAST_READ " %s\n", t);
	}
	if (!rc)
		fwrite(body, 1, len, stdout);
	free(body);
	return rc;
}
