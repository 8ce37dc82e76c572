// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof reader tool: the views' models, json-c trees made from the
 * module's machine files as parse.c reads them (the tables and records
 * of Documentation/skbprof.rst's "Machine files"), and the drops view
 * drawn for people from drops_rows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "model.h"
#include "parse.h"
#include "util.h"

/* ---- tables of the module's directory ---- */

/* ROOT/@name's text as a table; NULL with *@rc set (reported). */
static json_object *table_of(const char *name, char *text, const char *rows_key,
			     json_object **meta, row_check check, void *arg,
			     int *rc)
{
	char err[512];
	json_object *o;

	o = parse_table(text, rows_key, meta, check, arg, err, sizeof(err));
	if (!o)
		*rc = report(EXIT_RUNTIME, EINVAL, "%s/%s: %s", opt.root, name, err);
	return o;
}

json_object *read_table(const char *name, const char *rows_key, int *rc)
{
	char *text = read_view(name, rc);
	json_object *o;

	if (!text)
		return NULL;
	o = table_of(name, text, rows_key, NULL, NULL, NULL, rc);
	free(text);
	return o;
}

int read_table_if(const char *name, const char *rows_key, json_object **t)
{
	int rc = 0;

	*t = root_has(name) ? read_table(name, rows_key, &rc) : NULL;
	return rc;
}

/* "a,b,c" (or "none") as an array of strings. */
static json_object *list_of(const char *s)
{
	json_object *a = json_object_new_array();
	const char *p = s, *c;

	if (!strcmp(s, "none"))
		return a;
	while (*p) {
		c = strchr(p, ',');
		if (!c)
			c = p + strlen(p);
		json_object_array_add(a, json_object_new_string_len(p, c - p));
		p = *c ? c + 1 : c;
	}
	return a;
}

/* ---- stats: counters and the probe engine's tables ---- */

/*
 * A file of "name value..." rows, counters or control (a value may hold
 * blanks: "entry_probes kprobe ftrace-disabled -16", "filter proto udp
 * dport 53"), read as the table "# name value...", whatever header it
 * has or lacks; {"rows": [{"name", "value": [tokens]}]}.
 */
static json_object *name_values(const char *text, char *err, size_t len)
{
	static const char head[] = "# name value...\n";
	const char *s = text;
	json_object *t;
	char *copy;

	if (*s == '#')
		s += strcspn(s, "\n") + (s[strcspn(s, "\n")] ? 1 : 0);
	copy = malloc(sizeof(head) + strlen(s));
	if (!copy) {
		snprintf(err, len, "out of memory");
		return NULL;
	}
	strcpy(copy, head);
	strcat(copy, s);
	t = parse_table(copy, "rows", NULL, NULL, NULL, err, len);
	free(copy);
	return t;
}

/* A name_values() row's value, its tokens joined by a blank; false if too long. */
static bool joined_value(json_object *r, char *buf, size_t size)
{
	json_object *v = json_object_object_get(r, "value");
	size_t k, len = 0;

	buf[0] = 0;
	for (k = 0; k < json_object_array_length(v); k++) {
		len += snprintf(buf + len, len < size ? size - len : 0, "%s%s", k ? " " : "",
				json_object_get_string(json_object_array_get_idx(v, k)));
		if (len >= size)
			return false;
	}
	return true;
}

/*
 * counters: numbers into @counters, the rest (version, ...) into @o, or
 * nowhere when @o is NULL.
 */
static int read_counters(json_object *o, json_object *counters)
{
	char *text, buf[4096], err[512];
	json_object *tab, *rows, *r;
	const char *name;
	size_t i;
	int rc;

	text = read_view("counters", &rc);
	if (!text)
		return rc;
	tab = name_values(text, err, sizeof(err));
	free(text);
	if (!tab)
		return report(EXIT_RUNTIME, EINVAL, "%s/counters: %s", opt.root, err);
	rows = json_object_object_get(tab, "rows");
	for (i = 0; i < json_object_array_length(rows); i++) {
		r = json_object_array_get_idx(rows, i);
		name = jget_str(r, "name");
		if (!name || !joined_value(r, buf, sizeof(buf)) || !*buf)
			continue;
		if (is_uint(buf))
			json_object_object_add(counters, name, value_of(name, buf));
		else if (o)
			json_object_object_add(o, name, json_object_new_string(buf));
	}
	json_object_put(tab);
	return 0;
}

/*
 * A row's five flow columns as {"proto", "src", "sport", "dst", "dport"},
 * as trace's records have it (a column that is "-" left out); null
 * without proto, src or dst.
 */
static json_object *flow_of(json_object *r)
{
	static const char *const cols[] = { "proto", "src", "sport", "dst", "dport" };
	json_object *f, *v;
	size_t i;

	if (!jget_str(r, "proto") || !jget_str(r, "src") || !jget_str(r, "dst"))
		return NULL;
	f = json_object_new_object();
	for (i = 0; i < ARRAY_LEN(cols); i++)
		if (json_object_object_get_ex(r, cols[i], &v) && v)
			json_object_object_add(f, cols[i], json_object_get(v));
	return f;
}

/* Replace @r's flow columns by "flow" (see flow_of()). */
static void join_flow(json_object *r)
{
	static const char *const cols[] = { "proto", "src", "sport", "dst", "dport" };
	size_t i;

	json_object_object_add(r, "flow", flow_of(r));
	for (i = 0; i < ARRAY_LEN(cols); i++)
		json_object_object_del(r, cols[i]);
}
/*
 * A probes row: "type" the mechanism; hits and nmissed while active, or
 * reason and, if it failed, error (the reason alone, null, is left out).
 */
static void probe_row(json_object *r)
{
	json_object *v, *reason = json_object_get(json_object_object_get(r, "reason"));
	const char *e = jget_str(r, "error");
	bool failed = e;
	int error = e ? atoi(e) : 0;

	json_object_object_del(r, "error");
	json_object_object_del(r, "reason");
	if (json_object_object_get_ex(r, "mechanism", &v))
		json_object_object_add(r, "type", json_object_get(v));
	json_object_object_del(r, "mechanism");
	if (!reason)
		return;
	if (failed)
		json_object_object_add(r, "error", json_object_new_int(error));
	json_object_object_add(r, "reason", reason);
	json_object_object_del(r, "hits");
	json_object_object_del(r, "nmissed");
}

/* Apply @fn to every row of @o's @key. */
static void each_row(json_object *o, const char *key, void (*fn)(json_object *r))
{
	json_object *rows = json_object_object_get(o, key);
	size_t i;

	for (i = 0; i < json_object_array_length(rows); i++)
		fn(json_object_array_get_idx(rows, i));
}

static void stage_row(json_object *r)
{
	const char *k[] = { "from", "to" };
	size_t i;

	for (i = 0; i < 2; i++) {
		const char *v = jget_str(r, k[i]);

		json_object_object_add(r, k[i], list_of(v ? v : "none"));
	}
}

static void group_row(json_object *r)
{
	const char *a = jget_str(r, "armed");

	json_object_object_add(r, "armed", json_object_new_boolean(a && !strcmp(a, "armed")));
}

json_object *read_stats(int *rc)
{
	static const struct {
		const char *file, *key;
		void (*fix)(json_object *r);
	} tables[] = {
		{ "probes", "probes", probe_row },
		{ "groups", "groups", group_row },
		{ "stages", "stages", stage_row },
		{ "inflight", "inflight", join_flow },
	};
	json_object *o = json_object_new_object();
	json_object *counters = json_object_new_object(), *t;
	size_t i;

	*rc = read_counters(o, counters);
	if (*rc)
		goto bad;
	json_object_object_add(o, "counters", counters);
	counters = NULL;
	for (i = 0; i < ARRAY_LEN(tables); i++) {
		t = read_table(tables[i].file, tables[i].key, rc);
		if (!t)
			goto bad;
		each_row(t, tables[i].key, tables[i].fix);
		json_object_object_add(o, tables[i].key,
				       json_object_get(json_object_object_get(t, tables[i].key)));
		json_object_put(t);
	}
	return o;
bad:
	json_object_put(counters);
	json_object_put(o);
	return NULL;
}


/* ---- drops ---- */

/* drops_rows' clocks, read when it was opened. */
struct clock_ref {
	bool known;
	uint64_t boot_ns;	/* CLOCK_BOOTTIME, the rows' clock */
	uint64_t real_ns;	/* CLOCK_REALTIME */
};

/* The meta line "# boottime_ns=B realtime_ns=R", if there. */
static struct clock_ref clock_of(json_object *meta)
{
	struct clock_ref c = { 0 };
	json_object *b, *r;

	if (json_object_object_get_ex(meta, "boottime_ns", &b) && b &&
	    json_object_is_type(b, json_type_int) &&
	    json_object_object_get_ex(meta, "realtime_ns", &r) && r &&
	    json_object_is_type(r, json_type_int)) {
		c.known = true;
		c.boot_ns = json_object_get_uint64(b);
		c.real_ns = json_object_get_uint64(r);
	}
	return c;
}

/*
 * The wall-clock time, ns since the epoch, of @t ns of drops_rows' boot
 * clock: the wall clock at reading less the boot time gone by since.
 */
static bool real_ns(const struct clock_ref *c, uint64_t t, uint64_t *wall)
{
	int64_t w;

	if (!c->known || t > INT64_MAX || c->boot_ns > INT64_MAX ||
	    c->real_ns > INT64_MAX)
		return false;
	w = (int64_t)c->real_ns - ((int64_t)c->boot_ns - (int64_t)t);
	if (w < 0)
		return false;
	*wall = w;
	return true;
}

/* A value and its "several" flag as people read it: "lo+", "-+", null. */
static const char *flagged(json_object *r, const char *col, const char *flag,
			   char *buf, size_t len)
{
	const char *s = jget_str(r, col);
	bool mixed = jget_u64(r, flag);

	if (!s && !mixed)
		return NULL;
	snprintf(buf, len, "%s%s", s ? s : "-", mixed ? "+" : "");
	return buf;
}

/* "sym+0x1/0x2", or "sym+0x1/0x2 [module]" in a module's code */
static const char *location_of(json_object *r, char *buf, size_t len)
{
	const char *loc = jget_str(r, "location"), *mod = jget_str(r, "module");

	if (!loc)
		return NULL;
	snprintf(buf, len, "%s%s%s%s", loc, mod ? " [" : "", mod ? mod : "",
		 mod ? "]" : "");
	return buf;
}

static json_object *string_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *copy_of(json_object *r, const char *col)
{
	return json_object_get(json_object_object_get(r, col));
}

/*
 * A drops row's times: ns since boot, and (with the clock line) since
 * the epoch and its RFC 3339 text; each null when it cannot be had.
 */
static void drop_time(json_object *d, json_object *r, const struct clock_ref *clk,
		      const char *col, const char *name)
{
	json_object *v = json_object_object_get(r, col);
	bool boot = v && json_object_is_type(v, json_type_int), real;
	uint64_t t = boot ? json_object_get_uint64(v) : 0, wall;
	char key[64], buf[64];

	real = boot && real_ns(clk, t, &wall) && utc_time(wall, buf, sizeof(buf));
	snprintf(key, sizeof(key), "%s_boottime_ns", name);
	json_object_object_add(d, key, boot ? json_object_new_uint64(t) : NULL);
	snprintf(key, sizeof(key), "%s_realtime_ns", name);
	json_object_object_add(d, key, real ? json_object_new_uint64(wall) : NULL);
	snprintf(key, sizeof(key), "%s_utc", name);
	json_object_object_add(d, key, real ? json_object_new_string(buf) : NULL);
}

/* A drops_rows row as the drops view has it (skbprof.8, JSON). */
static json_object *drop_of(json_object *r, const struct clock_ref *clk)
{
	json_object *d = json_object_new_object();
	char buf[512];

	json_object_object_add(d, "count", copy_of(r, "count"));
	json_object_object_add(d, "reason", copy_of(r, "reason"));
	json_object_object_add(d, "proto",
			       string_or_null(flagged(r, "proto", "proto_mixed", buf, sizeof(buf))));
	json_object_object_add(d, "dev",
			       string_or_null(flagged(r, "dev", "dev_mixed", buf, sizeof(buf))));
	json_object_object_add(d, "netns", copy_of(r, "netns"));
	json_object_object_add(d, "cgroup",
			       string_or_null(flagged(r, "cgroup", "cgroup_mixed", buf, sizeof(buf))));
	json_object_object_add(d, "stage", copy_of(r, "stage"));
	json_object_object_add(d, "location", string_or_null(location_of(r, buf, sizeof(buf))));
	drop_time(d, r, clk, "first_ns", "first");
	drop_time(d, r, clk, "last_ns", "last");
	return d;
}

/* drops_rows as a table, and its clocks; NULL with *@rc on failure. */
static json_object *drops_table(struct clock_ref *clk, int *rc)
{
	char *text = read_view("drops_rows", rc);
	json_object *t, *meta = NULL;

	if (!text)
		return NULL;
	t = table_of("drops_rows", text, "rows", &meta, NULL, NULL, rc);
	free(text);
	*clk = clock_of(meta);
	json_object_put(meta);
	return t;
}

json_object *read_drops(int *rc)
{
	json_object *t, *o, *rows, *drops;
	struct clock_ref clk;
	size_t i;

	t = drops_table(&clk, rc);
	if (!t)
		return NULL;
	o = json_object_new_object();
	if (clk.known) {
		json_object *c = json_object_new_object();

		json_object_object_add(c, "boottime_ns", json_object_new_uint64(clk.boot_ns));
		json_object_object_add(c, "realtime_ns", json_object_new_uint64(clk.real_ns));
		json_object_object_add(o, "clock", c);
	}
	rows = json_object_object_get(t, "rows");
	drops = json_object_new_array();
	for (i = 0; i < json_object_array_length(rows); i++)
		json_object_array_add(drops, drop_of(json_object_array_get_idx(rows, i), &clk));
	json_object_object_add(o, "drops", drops);
	json_object_put(t);
	return o;
}

/* The columns of the drawn view. */
enum { D_COUNT, D_REASON, D_PROTO, D_DEV, D_NETNS, D_CGROUP, D_STAGE,
       D_FIRST, D_LAST, D_LOCATION, D_COLS };

static const char *const drawn_names[D_COLS] = {
	"count", "reason", "proto", "dev", "netns", "cgroup", "stage",
	"first", "last", "location",
};

/* Seconds since boot, as the kernel's drops view shows them. */
static void boot_secs(json_object *r, const char *col, char *buf, size_t len)
{
	uint64_t t = jget_u64(r, col);

	snprintf(buf, len, "%llu.%06u", (unsigned long long)(t / 1000000000ULL),
		 (unsigned int)(t % 1000000000ULL / 1000));
}

/*
 * The cells of a row: the time columns in wall-clock time with the clock
 * line, else in seconds since boot; the cgroup by its id, or (@names) as
 * cgroup_name() gives it.
 */
static void drawn_row(json_object *r, const struct clock_ref *clk, bool names,
		      char cell[D_COLS][512])
{
	static const char *const times[] = { "first_ns", "last_ns" };
	char buf[512];
	uint64_t wall;
	const char *s;
	int i;

	snprintf(cell[D_COUNT], 512, "%llu", (unsigned long long)jget_u64(r, "count"));
	s = jget_str(r, "reason");
	snprintf(cell[D_REASON], 512, "%s", s ? s : "-");
	s = flagged(r, "proto", "proto_mixed", buf, sizeof(buf));
	snprintf(cell[D_PROTO], 512, "%s", s ? s : "-");
	s = flagged(r, "dev", "dev_mixed", buf, sizeof(buf));
	snprintf(cell[D_DEV], 512, "%s", s ? s : "-");
	s = jget_str(r, "netns");
	snprintf(cell[D_NETNS], 512, "%s", s ? s : "-");
	s = flagged(r, "cgroup", "cgroup_mixed", buf, sizeof(buf));
	if (s && names)
		s = cgroup_name(s, cell[D_CGROUP], 512);
	if (s != cell[D_CGROUP])
		snprintf(cell[D_CGROUP], 512, "%s", s ? s : "-");
	s = jget_str(r, "stage");
	snprintf(cell[D_STAGE], 512, "%s", s ? s : "-");
	for (i = 0; i < 2; i++) {
		if (!(real_ns(clk, jget_u64(r, times[i]), &wall) &&
		      utc_time(wall, cell[D_FIRST + i], 512)))
			boot_secs(r, times[i], cell[D_FIRST + i], 512);
	}
	s = location_of(r, buf, sizeof(buf));
	snprintf(cell[D_LOCATION], 512, "%s", s ? s : "-");
}

/*
 * Without the clock line: the kernel's own drops view, its cgroups named
 * by print_cgroup_names().
 */
static int print_drops_plain(json_object *rows)
{
	char cell[D_COLS][512], *text = NULL;
	size_t size = 0, i;
	FILE *f = open_memstream(&text, &size);
	struct clock_ref none = { 0 };
	int rc;

	if (!f)
		return report(EXIT_RUNTIME, errno, "out of memory");
	fprintf(f, "%10s %-24s %-14s %-16s %-10s %-8s %-9s %17s %17s %s\n",
		"count", "reason", "proto", "dev", "netns", "cgroup", "stage",
		"first", "last", "location");
	for (i = 0; i < json_object_array_length(rows); i++) {
		drawn_row(json_object_array_get_idx(rows, i), &none, false, cell);
		fprintf(f, "%10s %-24s %-14s %-16s %-10s %-8s %-9s %17s %17s %s\n",
			cell[D_COUNT], cell[D_REASON], cell[D_PROTO], cell[D_DEV],
			cell[D_NETNS], cell[D_CGROUP], cell[D_STAGE], cell[D_FIRST],
			cell[D_LAST], cell[D_LOCATION]);
	}
	if (fclose(f)) {
		free(text);
		return report(EXIT_RUNTIME, errno, "out of memory");
	}
	rc = print_cgroup_names(text);
	free(text);
	return rc;
}

int print_drops(void)
{
	char (*cells)[D_COLS][512];
	json_object *t, *rows;
	struct clock_ref clk;
	int w[D_COLS], c, rc;
	size_t n, i;

	t = drops_table(&clk, &rc);
	if (!t)
		return rc;
	rows = json_object_object_get(t, "rows");
	n = json_object_array_length(rows);
	if (!clk.known) {
		rc = print_drops_plain(rows);
		json_object_put(t);
		return rc;
	}
	cells = calloc(n + 1, sizeof(*cells));
	if (!cells) {
		json_object_put(t);
		return report(EXIT_RUNTIME, ENOMEM, "out of memory");
	}
	for (c = 0; c < D_COLS; c++)
		w[c] = strlen(drawn_names[c]);
	for (i = 0; i < n; i++) {
		drawn_row(json_object_array_get_idx(rows, i), &clk, true, cells[i]);
		for (c = 0; c < D_COLS; c++)
			if ((int)strlen(cells[i][c]) > w[c])
				w[c] = strlen(cells[i][c]);
	}
	/* count right-aligned, the last column unpadded */
	for (c = 0; c < D_COLS; c++)
		w[c] = c == D_LOCATION ? 0 : c == D_COUNT ? w[c] : -w[c];
	printf("# clock boottime_ns %llu realtime_ns %llu\n",
	       (unsigned long long)clk.boot_ns, (unsigned long long)clk.real_ns);
	for (c = 0; c < D_COLS; c++)
		printf("%s%*s", c ? " " : "", w[c], drawn_names[c]);
	putchar('\n');
	for (i = 0; i < n; i++) {
		for (c = 0; c < D_COLS; c++)
			printf("%s%*s", c ? " " : "", w[c], cells[i][c]);
		putchar('\n');
	}
	free(cells);
	json_object_put(t);
	return fflush(stdout) ? EXIT_RUNTIME : 0;
}

/* ---- latency_buckets, lifetime_buckets, softnet_buckets ---- */

static bool parse_u64(const char *s, size_t len, uint64_t *v)
{
	char num[24], *end;

	if (!len || len >= sizeof(num))
		return false;
	memcpy(num, s, len);
	num[len] = 0;
	if (!is_uint(num))
		return false;
	errno = 0;
	*v = strtoull(num, &end, 10);
	return !errno && !*end;
}

/* "lo:hi:count" */
static bool bucket_token(const char *t, uint64_t v[3])
{
	const char *c1 = strchr(t, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

	return c2 && parse_u64(t, c1 - t, &v[0]) &&
	       parse_u64(c1 + 1, c2 - c1 - 1, &v[1]) &&
	       parse_u64(c2 + 1, strlen(c2 + 1), &v[2]);
}

static uint64_t bound(json_object *bounds, size_t k)
{
	return json_object_get_uint64(json_object_array_get_idx(bounds, k));
}

/* The figures of a *_buckets row, which must be numbers. */
static bool figure_column(const char *name)
{
	static const char *const names[] = {
		"count", "sum", "min", "max", "p50", "p90", "p99", "avg", NULL
	};
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* The meta line's "bounds=0,1,2,...", ascending integers, into @bounds. */
static bool bounds_of(json_object *meta, json_object *bounds, char *err, size_t len)
{
	const char *s = jget_str(meta, "bounds"), *p, *c;
	uint64_t v;

	for (p = s; p && *p; p = *c ? c + 1 : c) {
		c = p + strcspn(p, ",");
		if (!parse_u64(p, c - p, &v) ||
		    (json_object_array_length(bounds) &&
		     v <= bound(bounds, json_object_array_length(bounds) - 1))) {
			snprintf(err, len, "bad bound '%.*s' (ascending integers)", (int)(c - p), p);
			return false;
		}
		json_object_array_add(bounds, json_object_new_uint64(v));
	}
	return true;
}

/*
 * A row of a *_buckets table (parse_table()'s row_check): its figures
 * numbers, its "buckets" the histogram [{"lo", "hi", "count"}], each
 * bucket [lo, hi) between two consecutive bounds, ascending.  @arg: the
 * bounds, read from the meta line at the first row.
 */
static bool bucket_row(json_object *r, json_object *meta, void *arg, char *err,
		       size_t len)
{
	json_object *bounds = arg, *hist, *b, *buckets;
	size_t nb, k = 0, i;
	uint64_t v[3], prev = 0;
	const char *t;

	if (!json_object_object_get_ex(meta, "bounds", NULL)) {
		snprintf(err, len, "a row before the '# bounds=' line");
		return false;
	}
	if (!json_object_array_length(bounds) && !bounds_of(meta, bounds, err, len))
		return false;
	nb = json_object_array_length(bounds);
	json_object_object_foreach(r, key, val) {
		if (figure_column(key) && !(val && json_object_is_type(val, json_type_int))) {
			snprintf(err, len, "%s '%s' is not a number", key,
				 val ? json_object_get_string(val) : "-");
			return false;
		}
	}
	buckets = json_object_get(json_object_object_get(r, "buckets"));
	json_object_object_del(r, "buckets");
	hist = json_object_new_array();
	json_object_object_add(r, "histogram", hist);
	for (i = 0; i < json_object_array_length(buckets); i++) {
		bool ok;

		t = json_object_get_string(json_object_array_get_idx(buckets, i));
		ok = bucket_token(t, v) && v[0] < v[1] && (i == 0 || v[0] >= prev);
		/* a bucket of the scheme: between two consecutive bounds */
		while (ok && k < nb && bound(bounds, k) < v[0])
			k++;
		if (!ok || k + 1 >= nb || bound(bounds, k) != v[0] ||
		    bound(bounds, k + 1) != v[1]) {
			snprintf(err, len, "bad bucket '%s' (lo:hi:count, [lo, hi) between "
				 "two consecutive bounds, ascending)", t);
			json_object_put(buckets);
			return false;
		}
		prev = v[1];
		b = json_object_new_object();
		json_object_object_add(b, "lo", json_object_new_uint64(v[0]));
		json_object_object_add(b, "hi", json_object_new_uint64(v[1]));
		json_object_object_add(b, "count", json_object_new_uint64(v[2]));
		json_object_array_add(hist, b);
	}
	json_object_put(buckets);
	return true;
}

json_object *read_buckets(const char *name, int *rc)
{
	char *text = read_view(name, rc), err[512];
	json_object *o, *t, *meta = NULL, *bounds = json_object_new_array();

	if (!text) {
		json_object_put(bounds);
		return NULL;
	}
	t = table_of(name, text, "rows", &meta, bucket_row, bounds, rc);
	free(text);
	if (t && !json_object_array_length(bounds) && !bounds_of(meta, bounds, err, sizeof(err))) {
		*rc = report(EXIT_RUNTIME, EINVAL, "%s/%s: %s", opt.root, name, err);
		json_object_put(t);
		t = NULL;
	}
	json_object_put(meta);
	if (!t) {
		json_object_put(bounds);
		return NULL;
	}
	/* {"bounds": [every bucket edge], "rows": [...]} */
	o = json_object_new_object();
	json_object_object_add(o, "bounds", bounds);
	json_object_object_add(o, "rows", json_object_get(json_object_object_get(t, "rows")));
	json_object_put(t);
	return o;
}

/* The row of @rows that @b, a row of a *_buckets file, is about. */
static json_object *same_row(json_object *rows, json_object *b)
{
	const char *bl = jget_str(b, "label"), *bd = jget_str(b, "dir");
	const char *bs = jget_str(b, "stage");
	size_t i;

	for (i = 0; i < json_object_array_length(rows); i++) {
		json_object *r = json_object_array_get_idx(rows, i);
		const char *l = jget_str(r, "label"), *d = jget_str(r, "dir");
		const char *s = jget_str(r, "stage");

		if (bl && l && !strcmp(bl, l))
			return r;
		if (bd && bs && d && s && !strcmp(bd, d) && !strcmp(bs, s))
			return r;
	}
	return NULL;
}

/* ---- latency and lifetime: their machine forms ---- */

/* A latency_worst row as {"ns", "at_ns", "flow", "pid", "comm"}. */
static json_object *worst_of(json_object *w)
{
	json_object *o = json_object_new_object(), *v;

	json_object_object_add(o, "ns", json_object_new_uint64(jget_u64(w, "ns")));
	/* ns of CLOCK_MONOTONIC, as the file has it */
	json_object_object_add(o, "at_ns", json_object_new_uint64(jget_u64(w, "at_ns")));
	json_object_object_add(o, "flow", flow_of(w));
	json_object_object_add(o, "pid", json_object_new_int64(jget_u64(w, "pid")));
	v = json_object_object_get(w, "comm");
	json_object_object_add(o, "comm", v ? json_object_get(v) : NULL);
	return o;
}

json_object *read_latency(int *rc)
{
	json_object *b, *w, *o, *rows, *wrows;
	size_t i;

	b = read_buckets("latency_buckets", rc);
	if (!b)
		return NULL;
	/* the worst packets' flows stay in a kernel locked down to confidentiality */
	w = lockdown_confidential() ? NULL : read_table("latency_worst", "worst", rc);
	if (!w && *rc) {
		json_object_put(b);
		return NULL;
	}
	rows = json_object_object_get(b, "rows");
	wrows = json_object_object_get(w, "worst");
	for (i = 0; wrows && i < json_object_array_length(wrows); i++) {
		json_object *x = json_object_array_get_idx(wrows, i);
		json_object *r = same_row(rows, x);

		if (r)
			json_object_object_add(r, "worst", worst_of(x));
	}
	o = json_object_new_object();
	json_object_object_add(o, "stages", json_object_get(rows));
	json_object_put(b);
	json_object_put(w);
	return o;
}

json_object *read_lifetime(int *rc)
{
	json_object *b, *o, *c, *life = NULL, *rows;
	uint64_t n;

	c = json_object_new_object();
	*rc = read_counters(NULL, c);
	if (*rc) {
		json_object_put(c);
		return NULL;
	}
	n = jget_u64(c, "lifetime_sample");
	json_object_put(c);
	b = read_buckets("lifetime_buckets", rc);
	if (!b)
		return NULL;
	o = json_object_new_object();
	/* null when lifetime is off */
	json_object_object_add(o, "sample", n ? json_object_new_uint64(n) : NULL);
	rows = json_object_object_get(b, "rows");
	if (json_object_array_length(rows) > 0) {
		life = json_object_get(json_object_array_get_idx(rows, 0));
		json_object_object_del(life, "label");
	}
	json_object_object_add(o, "lifetime", life);
	json_object_put(b);
	return o;
}

/* ---- control ---- */

json_object *parse_control(char *text)
{
	json_object *o = json_object_new_object(), *t, *rows, *r;
	char buf[4096], err[512];
	const char *name;
	size_t i;

	/* "name value" lines, and "last_error: text" */
	t = name_values(text, err, sizeof(err));
	rows = json_object_object_get(t, "rows");
	for (i = 0; i < json_object_array_length(rows); i++) {
		r = json_object_array_get_idx(rows, i);
		name = jget_str(r, "name");
		if (!name || !joined_value(r, buf, sizeof(buf)))
			continue;
		if (!strcmp(name, "last_error:")) {
			json_object_object_add(o, "last_error", strcmp(buf, "none") ?
					       json_object_new_string(buf) : NULL);
			continue;
		}
		if (!*buf)
			continue;
		/* no filter, lifetime off: null, not a string */
		if ((!strcmp(name, "filter") && !strcmp(buf, "clear")) ||
		    (!strcmp(name, "lifetime") && !strcmp(buf, "off")))
			json_object_object_add(o, name, NULL);
		else if (is_uint(buf))
			json_object_object_add(o, name, value_of(name, buf));
		else
			json_object_object_add(o, name, json_object_new_string(buf));
	}
	json_object_put(t);
	return o;
}

/* ---- trace_records ---- */

/* "drv-ip:23104,ip-udp:5200" as [{"stage", "ns"}]; NULL if malformed. */
static json_object *stages_of(const char *v)
{
	json_object *a = json_object_new_array(), *s;
	char buf[1024], *p, *save = NULL, *c;
	uint64_t ns;

	snprintf(buf, sizeof(buf), "%s", v);
	if (!strcmp(buf, "-"))
		return a;
	for (p = strtok_r(buf, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
		c = strchr(p, ':');
		if (!c || !is_uint(c + 1) || c == p) {
			json_object_put(a);
			return NULL;
		}
		*c = 0;
		ns = strtoull(c + 1, NULL, 10);
		s = json_object_new_object();
		json_object_object_add(s, "stage", json_object_new_string(p));
		json_object_object_add(s, "ns", json_object_new_uint64(ns));
		json_object_array_add(a, s);
	}
	return a;
}

/* The record's flow keys as {"proto", "src", "sport", "dst", "dport"}. */
static json_object *record_flow(json_object *kv)
{
	static const char *const keys[] = { "proto", "src", "sport", "dst", "dport" };
	json_object *f, *v;
	size_t i;

	if (!jget_str(kv, "proto"))
		return NULL;
	f = json_object_new_object();
	for (i = 0; i < ARRAY_LEN(keys); i++)
		if (json_object_object_get_ex(kv, keys[i], &v) && v)
			json_object_object_add(f, keys[i], json_object_get(v));
	return f;
}

/* Move @key of @kv, if there, to @o. */
static void move(json_object *o, json_object *kv, const char *key)
{
	json_object *v;

	if (json_object_object_get_ex(kv, key, &v))
		json_object_object_add(o, key, json_object_get(v));
}

/* RFC 3339, UTC, of the record's realtime_ns (see utc_time()) */
static json_object *time_of(uint64_t ns)
{
	char buf[64];

	return utc_time(ns, buf, sizeof(buf)) ? json_object_new_string(buf) : NULL;
}

json_object *parse_trace_record(const char *line)
{
	json_object *o = json_object_new_object(), *kv = parse_record(line);
	const char *kind;

	if (!kv)
		goto unknown;
	if (json_object_object_length(kv) == 1 &&
	    json_object_object_get_ex(kv, "lost", NULL)) {
		json_object_object_add(o, "type", json_object_new_string("lost"));
		move(o, kv, "lost");
		goto out;
	}
	kind = jget_str(kv, "kind");
	if (!kind || !json_object_object_get_ex(kv, "realtime_ns", NULL))
		goto unknown;
	json_object_object_add(o, "time", time_of(jget_u64(kv, "realtime_ns")));
	json_object_object_add(o, "realtime_ns",
			       json_object_new_uint64(jget_u64(kv, "realtime_ns")));
	move(o, kv, "cpu");
	if (!strcmp(kind, "rx") || !strcmp(kind, "tx")) {
		json_object *st = stages_of(jget_str(kv, "stages") ?: "");

		if (!st)
			goto unknown;
		json_object_object_add(o, "type", json_object_new_string("packet"));
		json_object_object_add(o, "dir", json_object_new_string(kind));
		json_object_object_add(o, "stages", st);
		json_object_object_add(o, "flow", record_flow(kv));
		move(o, kv, "cgroup");
		move(o, kv, "comm");
		move(o, kv, "pid");
		/* the process's cgroup, and its path */
		add_cgroup_path(o);
	} else if (!strcmp(kind, "drop")) {
		const char *loc = jget_str(kv, "location"), *mod = jget_str(kv, "module");
		char where[512];

		json_object_object_add(o, "type", json_object_new_string("drop"));
		move(o, kv, "reason");
		/* "sym+0x1/0x2", or "sym+0x1/0x2 [module]" in a module's code */
		snprintf(where, sizeof(where), "%s%s%s%s", loc ? loc : "", mod ? " [" : "",
			 mod ? mod : "", mod ? "]" : "");
		json_object_object_add(o, "location", loc ? json_object_new_string(where) : NULL);
		json_object_object_add(o, "flow", record_flow(kv));
		move(o, kv, "dev");
		move(o, kv, "stage");
		move(o, kv, "netns");
	} else if (!strcmp(kind, "hit")) {
		json_object_object_add(o, "type", json_object_new_string("hit"));
		move(o, kv, "dir");
		move(o, kv, "point");
		move(o, kv, "symbol");
		json_object_object_add(o, "mono_ns",
				       json_object_new_uint64(jget_u64(kv, "mono_ns")));
		json_object_object_add(o, "offset_ns",
				       json_object_new_uint64(jget_u64(kv, "offset_ns")));
		json_object_object_add(o, "flow", record_flow(kv));
	} else {
		goto unknown;
	}
out:
	json_object_put(kv);
	return o;
unknown:
	json_object_put(kv);
	json_object_put(o);
	o = json_object_new_object();
	json_object_object_add(o, "type", json_object_new_string("unknown"));
	json_object_object_add(o, "raw", json_object_new_string(line));
	return o;
}

/* ---- softnet ---- */

json_object *read_softnet(int *rc)
{
	static const char *const cols[] = {
		"cpu", "what", "count", "min", "p50", "p90", "p99", "max", "avg"
	};
	json_object *b, *c, *o, *rows, *out;
	size_t i, k;

	b = read_buckets("softnet_buckets", rc);
	if (!b)
		return NULL;
	c = read_table("softnet_counters", "counters", rc);
	if (!c) {
		json_object_put(b);
		return NULL;
	}
	/* the figures softnet shows, without the histogram */
	rows = json_object_object_get(b, "rows");
	out = json_object_new_array();
	for (i = 0; i < json_object_array_length(rows); i++) {
		json_object *r = json_object_array_get_idx(rows, i);
		json_object *s = json_object_new_object();

		for (k = 0; k < ARRAY_LEN(cols); k++)
			json_object_object_add(s, cols[k], copy_of(r, cols[k]));
		json_object_array_add(out, s);
	}
	o = json_object_new_object();
	json_object_object_add(o, "softnet", out);
	json_object_object_add(o, "counters", copy_of(c, "counters"));
	json_object_put(b);
	json_object_put(c);
	return o;
}
