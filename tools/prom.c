// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof prom: the Prometheus text exposition format, for node_exporter's
 * textfile collector (skbprof prom > DIR/skbprof.prom.$$ && mv ...).
 *
 * Histograms are the module's own, from latency_buckets and
 * lifetime_buckets, with nothing lost: every edge of the module's bucket
 * scheme (the files' "# bounds" line) is an le, whether its bucket is
 * empty or not, so the set of series is the same on every scrape and, for
 * one module version, on every host.  Times are integer nanoseconds, so
 * the bucket [lo, hi) is exactly le = hi - 1 ns; the last bucket is open
 * and counts in +Inf alone.  le and _sum are printed as exact decimals of
 * seconds ("0.000012287"), not rounded floats.  _sum is the module's exact
 * sum.  See Documentation/skbprof.rst for the cost: 319 finite le.
 *
 * Cgroups are bounded (--top-n): the N with the most packets keep their
 * series, the rest add up in cgroup="other", so that series do not grow
 * with short-lived cgroups and the sums stay exact.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "skbprof.h"

/* A label value, escaped as the format wants (\\, \", \n). */
static void put_label(const char *name, const char *v, bool first)
{
	printf("%s%s=\"", first ? "" : ",", name);
	for (; v && *v; v++) {
		if (*v == '\\' || *v == '"')
			printf("\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", stdout);
		else
			putchar(*v);
	}
	putchar('"');
}

static void family(const char *name, const char *type, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Labels from keys of @o: "{k1="v1",k2="v2"" (no closing brace). */
static void put_labels(json_object *o, const char *const *keys)
{
	int i;

	putchar('{');
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

static void histogram(const char *name, json_object *row, const char *const *keys,
		      json_object *bounds)
{
	json_object *h = json_object_object_get(row, "histogram"), *b;
	uint64_t count = jget_u64(row, "count"), cum = 0, edge;
	size_t i = 0, n = json_object_array_length(h), k;
	size_t nb = json_object_array_length(bounds);
	char le[32];

	/* b_k - 1 ns for every edge but the first and the open top */
	for (k = 1; k + 1 < nb; k++) {
		edge = json_object_get_uint64(json_object_array_get_idx(bounds, k));
		for (; i < n; i++) {
			b = json_object_array_get_idx(h, i);
			if (jget_u64(b, "hi") > edge)
				break;
			cum += jget_u64(b, "count");
		}
		printf("%s_bucket", name);
		put_labels(row, keys);
		put_label("le", seconds(le, sizeof(le), edge - 1), !keys[0]);
		printf("} %llu\n", (unsigned long long)cum);
	}
	printf("%s_bucket", name);
	put_labels(row, keys);
	put_label("le", "+Inf", !keys[0]);
	printf("} %llu\n", (unsigned long long)count);
	printf("%s_sum", name);
	put_labels(row, keys);
	printf("} %s\n", seconds(le, sizeof(le), jget_u64(row, "sum")));
	printf("%s_count", name);
	put_labels(row, keys);
	printf("} %llu\n", (unsigned long long)count);
}

static void latency(json_object *lat, json_object *life)
{
	static const char *const keys[] = { "dir", "stage", NULL };
	static const char *const none[] = { NULL };
	json_object *rows = json_object_object_get(lat, "rows");
	json_object *bounds = json_object_object_get(lat, "bounds");
	size_t i;

	family("skbprof_stage_latency_seconds", "histogram",
	       "Time packets spent in a stage of the network stack.");
	for (i = 0; i < json_object_array_length(rows); i++)
		histogram("skbprof_stage_latency_seconds",
			  json_object_array_get_idx(rows, i), keys, bounds);
	rows = json_object_object_get(life, "rows");
	bounds = json_object_object_get(life, "bounds");
	if (json_object_array_length(rows) > 0) {
		family("skbprof_skb_lifetime_seconds", "histogram",
		       "Lifetime of sampled socket buffers, allocation to free.");
		histogram("skbprof_skb_lifetime_seconds",
			  json_object_array_get_idx(rows, 0), none, bounds);
	}
}

/* Replace a row's "cgroup" id by its path, when it resolves. */
static void cgroup_label(json_object *r)
{
	const char *id = jget_str(r, "cgroup"), *name;
	char buf[4096];

	name = cgroup_name(id, buf, sizeof(buf));
	if (name != id)
		json_object_object_add(r, "cgroup", json_object_new_string(name));
}

struct cg_packets {
	uint64_t id, packets;
};

static int by_id(const void *a, const void *b)
{
	const struct cg_packets *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Most packets first; ties to the lower id, so the choice is stable. */
static int by_packets(const void *a, const void *b)
{
	const struct cg_packets *x = a, *y = b;

	if (x->packets != y->packets)
		return x->packets < y->packets ? 1 : -1;
	return by_id(a, b);
}

/*
 * Bound the cgroups of @rows to opt.top_n: the rows of the N cgroups
 * with the most packets ("count" summed over their rows) keep theirs,
 * every other row's cgroup becomes "other" (never a path, which starts
 * with "/", nor an id); rows without a cgroup keep none.  Then their
 * ids are named (cgroup_label()).
 */
static int bound_cgroups(json_object *rows)
{
	size_t n = json_object_array_length(rows), i, j, ncg = 0, keep;
	struct cg_packets *t = calloc(n ? n : 1, sizeof(*t));
	json_object *r;
	uint64_t id;

	if (!t)
		return report(EXIT_RUNTIME, ENOMEM, "out of memory");
	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(rows, i);
		t[i].id = cgroup_id(json_object_object_get(r, "cgroup"));
		t[i].packets = t[i].id ? jget_u64(r, "count") : 0;
	}
	/* one entry per cgroup, its packets summed */
	qsort(t, n, sizeof(*t), by_id);
	for (i = 0; i < n; i++) {
		if (!t[i].id)
			continue;
		if (ncg && t[ncg - 1].id == t[i].id)
			t[ncg - 1].packets += t[i].packets;
		else
			t[ncg++] = t[i];
	}
	qsort(t, ncg, sizeof(*t), by_packets);
	keep = opt.top_n < 0 || (size_t)opt.top_n > ncg ? ncg : (size_t)opt.top_n;
	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(rows, i);
		id = cgroup_id(json_object_object_get(r, "cgroup"));
		for (j = 0; id && j < keep && t[j].id != id; j++)
			;
		if (id && j == keep)
			json_object_object_add(r, "cgroup", json_object_new_string("other"));
		else
			cgroup_label(r);
	}
	free(t);
	return 0;
}

static bool folded(json_object *r)
{
	return json_object_object_get_ex(r, "folded", NULL);
}

/*
 * Rows of @rows whose labels @keys are the same add up in the first of
 * them: its "count" the sum, its "max" (if it has one) the largest; the
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
			json_object_object_add(q, "count",
					       json_object_new_uint64(jget_u64(q, "count") +
								      jget_u64(r, "count")));
			if (json_object_object_get_ex(q, "max", NULL) &&
			    jget_u64(r, "max") > jget_u64(q, "max"))
				json_object_object_add(q, "max",
						       json_object_new_uint64(jget_u64(r, "max")));
			json_object_object_add(r, "folded", json_object_new_boolean(1));
			break;
		}
	}
}

static bool is_other(json_object *r)
{
	const char *cg = jget_str(r, "cgroup");

	return cg && !strcmp(cg, "other");
}

static int drops(json_object *d)
{
	static const char *const keys[] = {
		"reason", "location", "proto", "dev", "netns", "cgroup", "stage",
		NULL
	};
	json_object *rows = json_object_object_get(d, "drops"), *r;
	size_t n = json_object_array_length(rows), i;

	/* the cgroup label: its path, its id, or other past the top N */
	if (bound_cgroups(rows))
		return EXIT_RUNTIME;
	/* rows with the same labels (say, two "-+" devices) add up */
	fold(rows, keys);
	family("skbprof_drops_total", "counter",
	       "Packets freed as dropped, by drop reason, code location and network namespace.");
	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(rows, i);
		if (folded(r))
			continue;
		fputs("skbprof_drops_total", stdout);
		put_labels(r, keys);
		printf("} %llu\n", (unsigned long long)jget_u64(r, "count"));
	}
	return 0;
}

/*
 * The cgroups view: per cgroup and stage, the packets measured and their
 * p50, p99 and max, as the module's file gives them (no histograms).
 * Past the top N cgroups, one "other" per stage: the sum of the packets
 * and the largest max; no p50 or p99, which the rows' cannot give.
 */
static int cgroups(json_object *c)
{
	static const char *const keys[] = { "dir", "stage", "cgroup", NULL };
	static const struct {
		const char *name, *col, *help;
	} q[] = {
		{ "skbprof_cgroup_stage_p50_seconds", "p50",
		  "Median time of a stage, packets of processes of a cgroup." },
		{ "skbprof_cgroup_stage_p99_seconds", "p99",
		  "99th percentile time of a stage, packets of processes of a cgroup." },
		{ "skbprof_cgroup_stage_max_seconds", "max",
		  "Longest time of a stage, packets of processes of a cgroup." },
	};
	json_object *rows = json_object_object_get(c, "cgroups"), *r;
	size_t i, n = json_object_array_length(rows), k;
	if (bound_cgroups(rows))
		return EXIT_RUNTIME;
	fold(rows, keys);
	family("skbprof_cgroup_stage_packets_total", "counter",
	       "Packets measured in a stage, charged to processes of a cgroup (cgroup v2).");
	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(rows, i);
		if (folded(r))
			continue;
		fputs("skbprof_cgroup_stage_packets_total", stdout);
		put_labels(r, keys);
		printf("} %llu\n", (unsigned long long)jget_u64(r, "count"));
	}
	for (k = 0; k < sizeof(q) / sizeof(q[0]); k++) {
		family(q[k].name, "gauge", q[k].help);
		for (i = 0; i < n; i++) {
			r = json_object_array_get_idx(rows, i);
			if (folded(r) || (is_other(r) && strcmp(q[k].col, "max")))
				continue;
			fputs(q[k].name, stdout);
			put_labels(r, keys);
			printf("} %.9f\n", jget_u64(r, q[k].col) * 1e-9);
		}
	}
	return 0;
}

/*
 * A line per CPU row of @rows, "all" left out (the sums): @name, the
 * labels @keys and the column @col, in seconds from ns when @secs.
 */
static void per_cpu(const char *name, json_object *rows,
		    const char *const *keys, const char *col, bool secs)
{
	size_t i, n = json_object_array_length(rows);
	json_object *r;

	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(rows, i);
		if (!json_object_is_type(json_object_object_get(r, "cpu"), json_type_int))
			continue;
		fputs(name, stdout);
		put_labels(r, keys);
		if (secs)
			printf("} %.9f\n", jget_u64(r, col) * 1e-9);
		else
			printf("} %llu\n", (unsigned long long)jget_u64(r, col));
	}
}

/*
 * The softnet view, per CPU (its "all" rows are the sums: left out): the
 * softirq runs and polls timed and their p50, p99 and max, and the
 * counters since the reset.
 */
static void softnet(json_object *t, json_object *c)
{
	static const char *const keys[] = { "cpu", "what", NULL };
	static const struct {
		const char *name, *col, *help;
	} q[] = {
		{ "skbprof_softnet_p50_seconds", "p50",
		  "Median time of a softirq wait or run, or a NAPI poll, per CPU." },
		{ "skbprof_softnet_p99_seconds", "p99",
		  "99th percentile time of a softirq wait or run, or a NAPI poll, per CPU." },
		{ "skbprof_softnet_max_seconds", "max",
		  "Longest softirq wait or run, or NAPI poll, per CPU." },
	};
	static const struct {
		const char *col, *name, *help;
	} k[] = {
		{ "net_rx", "skbprof_softnet_net_rx_total", "NET_RX softirqs run (the kernel's count)." },
		{ "polls", "skbprof_softnet_polls_total", "NAPI polls seen." },
		{ "polls_full", "skbprof_softnet_polls_full_total", "NAPI polls that used their whole budget." },
		{ "time_squeeze", "skbprof_softnet_time_squeeze_total",
		  "NET_RX runs that ended with work left (the kernel's time_squeeze)." },
		{ "backlog_drops", "skbprof_softnet_backlog_drops_total",
		  "Packets dropped by a full receive backlog (the kernel's count)." },
		{ "ksoftirqd", "skbprof_softnet_ksoftirqd_total", "NET_RX runs in ksoftirqd." },
		{ "processed", "skbprof_softnet_processed_total",
		  "Packets taken off the backlog or polled (the kernel's count)." },
	};
	static const char *const cpu_keys[] = { "cpu", NULL };
	size_t j;

	family("skbprof_softnet_events_total", "counter",
	       "Softirq waits and runs, and NAPI polls, timed per CPU.");
	per_cpu("skbprof_softnet_events_total", json_object_object_get(t, "softnet"),
		keys, "count", false);
	for (j = 0; j < sizeof(q) / sizeof(q[0]); j++) {
		family(q[j].name, "gauge", q[j].help);
		per_cpu(q[j].name, json_object_object_get(t, "softnet"), keys,
			q[j].col, true);
	}
	for (j = 0; j < sizeof(k) / sizeof(k[0]); j++) {
		family(k[j].name, "counter", k[j].help);
		per_cpu(k[j].name, json_object_object_get(c, "counters"),
			cpu_keys, k[j].col, false);
	}
}

/* drops_devices: a series per device and counter with a count. */
static void device_drops(json_object *t)
{
	json_object *rows = json_object_object_get(t, "devices");
	size_t i, n = json_object_array_length(rows);

	family("skbprof_device_drops_total", "counter",
	       "Drops a network device counted since the reset (dev_get_stats()), by counter.");
	for (i = 0; i < n; i++) {
		json_object *r = json_object_array_get_idx(rows, i);

		json_object_object_foreach(r, k, v) {
			if (!strcmp(k, "netns") || !strcmp(k, "dev") ||
			    !json_object_get_uint64(v))
				continue;
			fputs("skbprof_device_drops_total", stdout);
			put_labels(r, (const char *const[]){ "netns", "dev", NULL });
			put_label("counter", k, false);
			printf("} %llu\n", (unsigned long long)json_object_get_uint64(v));
		}
	}
}

static bool is_gauge(const char *key)
{
	static const char *const gauges[] = {
		"table_capacity", "table_in_use", "drops_keys_max",
		"drops_keys_used", "lifetime_sample", "trace_buffer_bytes", NULL
	};
	int i;

	for (i = 0; gauges[i]; i++)
		if (!strcmp(key, gauges[i]))
			return true;
	return false;
}

static void probes(json_object *st)
{
	static const char *const keys[] = { "group", "symbol", "type", NULL };
	static const char *const skeys[] = { "dir", "stage", NULL };
	json_object *rows = json_object_object_get(st, "probes"), *r;
	size_t i, n = json_object_array_length(rows);

	family("skbprof_probe_active", "gauge",
	       "1 when the probe is registered and counting, else 0.");
	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(rows, i);
		fputs("skbprof_probe_active", stdout);
		put_labels(r, keys);
		printf("} %d\n", !strcmp(jget_str(r, "state"), "active"));
	}
	family("skbprof_probe_hits_total", "counter", "Times an active probe fired.");
	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(rows, i);
		if (strcmp(jget_str(r, "state"), "active"))
			continue;
		fputs("skbprof_probe_hits_total", stdout);
		put_labels(r, keys);
		printf("} %llu\n", (unsigned long long)jget_u64(r, "hits"));
	}
	family("skbprof_probe_missed_total", "counter",
	       "Times a probe could not run (nmissed of the kprobe).");
	for (i = 0; i < n; i++) {
		r = json_object_array_get_idx(rows, i);
		if (strcmp(jget_str(r, "state"), "active"))
			continue;
		fputs("skbprof_probe_missed_total", stdout);
		put_labels(r, keys);
		printf("} %llu\n", (unsigned long long)jget_u64(r, "nmissed"));
	}
	rows = json_object_object_get(st, "stages");
	family("skbprof_stage_active", "gauge",
	       "1 when both ends of the stage have an active probe, else 0.");
	for (i = 0; i < json_object_array_length(rows); i++) {
		r = json_object_array_get_idx(rows, i);
		fputs("skbprof_stage_active", stdout);
		put_labels(r, skeys);
		printf("} %d\n", !strcmp(jget_str(r, "state"), "active"));
	}
}

static void counters(json_object *st)
{
	json_object *c = json_object_object_get(st, "counters");
	char name[128], dir[4];
	int pass, i;

	/* incomplete_<dir>_<why>: one family with labels */
	family("skbprof_incomplete_total", "counter",
	       "Stage timelines that ended early, by direction and cause.");
	json_object_object_foreach(c, key, val) {
		if (sscanf(key, "incomplete_%2[rtx]_", dir) != 1)
			continue;
		printf("skbprof_incomplete_total{dir=\"%s\",reason=\"%s\"} %llu\n",
		       dir, key + 14, (unsigned long long)json_object_get_uint64(val));
	}
	for (pass = 0; pass < 2; pass++) {
		json_object_object_foreach(c, k, v) {
			size_t len = strlen(k);

			if (!strncmp(k, "incomplete_", 11) || is_gauge(k) != (pass == 0))
				continue;
			if (len > 6 && !strcmp(k + len - 6, "_total"))
				len -= 6;
			snprintf(name, sizeof(name), "skbprof_stats_%.*s%s", (int)len, k,
				 pass ? "_total" : "");
			for (i = 0; name[i]; i++)
				if (!isalnum((unsigned char)name[i]) && name[i] != '_')
					name[i] = '_';
			family(name, pass ? "counter" : "gauge", "skbprof stats line of the same name.");
			printf("%s %llu\n", name, (unsigned long long)json_object_get_uint64(v));
		}
	}
	family("skbprof_info", "gauge", "The module's version and the kernel's release.");
	fputs("skbprof_info", stdout);
	put_labels(st, (const char *const[]){ "version", "kernel", NULL });
	fputs("} 1\n", stdout);
}

int prom_main(void)
{
	json_object *st, *lat = NULL, *life = NULL, *drp = NULL, *cg = NULL;
	json_object *dd = NULL, *sn = NULL, *snc = NULL;
	char *text;
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
	text = read_view("drops", &rc);
	if (!text)
		goto out;
	drp = parse_drops(text);
	free(text);
	latency(lat, life);
	rc = drops(drp);
	if (rc)
		goto out;
	/* cgroups, drops_devices, softnet: a module before them has none */
	rc = read_table_if("cgroups", "cgroups", &cg);
	if (!rc && cg)
		rc = cgroups(cg);
	if (!rc)
		rc = read_table_if("drops_devices", "devices", &dd);
	if (!rc)
		rc = read_table_if("softnet", "softnet", &sn);
	if (!rc && sn) {
		snc = read_table("softnet_counters", "counters", &rc);
		if (!snc)
			goto out;
	}
	if (rc)
		goto out;
	if (dd)
		device_drops(dd);
	if (sn)
		softnet(sn, snc);
	probes(st);
	counters(st);
	rc = fflush(stdout) ? EXIT_RUNTIME : 0;
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
