// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof reader tool: parsers of the module's files into json-c trees.
 *
 * Table columns are found by the names of the header line, so columns the
 * module adds later (or moves) are picked up by name.  The last column of
 * a table takes the rest of the line (a drop location may hold a space:
 * "sym+0x1/0x2 [module]").
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>

#include "skbprof.h"

#define MAXTOK	64

int split(char *line, char **tok, int max)
{
	int n = 0;
	char *p = line, *e;

	while (n < max) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		tok[n++] = p;
		if (n == max) {
			/* the last one takes the rest, less trailing blanks */
			e = p + strlen(p);
			while (e > p && (e[-1] == ' ' || e[-1] == '\t'))
				e--;
			*e = 0;
			break;
		}
		while (*p && *p != ' ' && *p != '\t')
			p++;
		if (*p)
			*p++ = 0;
	}
	return n;
}

bool is_uint(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

bool is_decimal(const char *s)
{
	const char *dot = strchr(s, '.');
	size_t i, n = strlen(s);

	if (!dot || dot == s || !dot[1])
		return false;
	for (i = 0; i < n; i++)
		if (s + i != dot && !isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/*
 * Columns that hold names even when they look like numbers.  A cgroup is
 * one: its id ("7001"), or "7001+" when a drops row had several.
 */
static bool string_column(const char *name)
{
	static const char *const names[] = {
		"dir", "stage", "reason", "proto", "dev", "location", "comm",
		"label", "cgroup", "cgroup_path", "src", "dst", "what", NULL
	};
	int i;

	for (i = 0; name && names[i]; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

json_object *value_of(const char *name, const char *s)
{
	if (!strcmp(s, "-"))
		return NULL;	/* json null */
	/* softnet's sums: a CPU number or null, not a number or a string */
	if (name && !strcmp(name, "cpu") && !strcmp(s, "all"))
		return NULL;
	if (string_column(name))
		return json_object_new_string(s);
	if (is_uint(s))
		return json_object_new_uint64(strtoull(s, NULL, 10));
	if (is_decimal(s))
		return json_object_new_double_s(strtod(s, NULL), s);
	return json_object_new_string(s);
}

uint64_t jget_u64(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !v)
		return 0;
	return json_object_get_uint64(v);
}

const char *jget_str(json_object *o, const char *key)
{
	json_object *v;

	if (!o || !json_object_object_get_ex(o, key, &v) || !v)
		return NULL;
	return json_object_get_string(v);
}

/* Next line of *p, NUL-terminated in place; NULL at the end. */
static char *next_line(char **p)
{
	char *l = *p, *nl;

	if (!l || !*l)
		return NULL;
	nl = strchr(l, '\n');
	if (nl) {
		*nl = 0;
		*p = nl + 1;
	} else {
		*p = l + strlen(l);
	}
	return l;
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

/* ---- tables with a header line ---- */

struct header {
	int n;
	char names[MAXTOK][32];
};

/* Take the names of a header line (tokens; "#" and "(ns)" dropped). */
static void set_header(struct header *h, char **tok, int n)
{
	int i;

	h->n = 0;
	for (i = 0; i < n && h->n < MAXTOK; i++) {
		if (!strcmp(tok[i], "#") || !strcmp(tok[i], "(ns)"))
			continue;
		snprintf(h->names[h->n++], sizeof(h->names[0]), "%s",
			 tok[i][0] == '#' ? tok[i] + 1 : tok[i]);
	}
}

/* Row of @line under @h; @label: the row may carry a leading name. */
static json_object *table_row(const struct header *h, char *line, bool label)
{
	char *tok[MAXTOK + 1];
	json_object *r;
	int n, i, off = 0;

	if (h->n == 0)
		return NULL;
	n = split(line, tok, h->n + (label ? 1 : 0));
	if (label && n == h->n + 1)
		off = 1;
	else if (n != h->n)
		return NULL;
	r = json_object_new_object();
	if (off)
		json_object_object_add(r, "label", json_object_new_string(tok[0]));
	for (i = 0; i < h->n; i++)
		json_object_object_add(r, h->names[i], value_of(h->names[i], tok[i + off]));
	return r;
}

/*
 * A file of comment lines, a header line ("# NAME..."), then rows, such
 * as softnet and softnet_counters: {@rows_key: [rows by the header's
 * names]}.  The header is the last comment line before the first row.
 */
json_object *parse_table(char *text, const char *rows_key)
{
	json_object *o = json_object_new_object();
	json_object *rows = json_object_new_array();
	char *p = text, *line, *tok[MAXTOK];
	struct header h = { 0 };
	json_object *r;
	int n;

	while ((line = next_line(&p))) {
		if (line[0] == '#') {
			n = split(line, tok, MAXTOK);
			if (!json_object_array_length(rows))
				set_header(&h, tok, n);
			continue;
		}
		r = table_row(&h, line, false);
		if (r)
			json_object_array_add(rows, r);
	}
	json_object_object_add(o, rows_key, rows);
	return o;
}

/* ---- stats: counters and the probe engine's tables ---- */

json_object *read_table(const char *name, const char *rows_key, int *rc)
{
	char *text = read_view(name, rc);
	json_object *o;

	if (!text)
		return NULL;
	o = parse_table(text, rows_key);
	free(text);
	return o;
}

int read_table_if(const char *name, const char *rows_key, json_object **t)
{
	int rc = 0;

	*t = root_has(name) ? read_table(name, rows_key, &rc) : NULL;
	return rc;
}

/*
 * "key value" lines: numbers into @counters, the rest (version, ...) into
 * @o, or nowhere when @o is NULL.
 */
static void counter_lines(char *text, json_object *o, json_object *counters)
{
	char *p = text, *line, *v;

	while ((line = next_line(&p))) {
		v = strchr(line, ' ');
		if (!v || v == line || *line == '#')
			continue;
		*v++ = 0;
		if (is_uint(v))
			json_object_object_add(counters, line, value_of(line, v));
		else if (o)
			json_object_object_add(o, line, json_object_new_string(v));
	}
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

/* A probes row: "type" the mechanism; hits and nmissed, or reason and error. */
static void probe_row(json_object *r)
{
	json_object *v;
	const char *why;
	char *par, buf[64];

	if (json_object_object_get_ex(r, "mechanism", &v))
		json_object_object_add(r, "type", json_object_get(v));
	json_object_object_del(r, "mechanism");
	why = jget_str(r, "why");
	if (why) {
		/* "no-such-symbol(-2)" or "another-candidate-serves" */
		snprintf(buf, sizeof(buf), "%s", why);
		par = strchr(buf, '(');
		if (par) {
			json_object_object_add(r, "error", json_object_new_int(atoi(par + 1)));
			*par = 0;
		}
		json_object_object_add(r, "reason", json_object_new_string(buf));
		json_object_object_del(r, "hits");
		json_object_object_del(r, "nmissed");
	}
	json_object_object_del(r, "why");
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
	char *text;
	size_t i;

	text = read_view("counters", rc);
	if (!text)
		goto bad;
	counter_lines(text, o, counters);
	free(text);
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

/* The drops file's clocks, read when it was opened. */
struct clock_ref {
	bool known;
	uint64_t boot_ns;	/* CLOCK_BOOTTIME, the rows' clock */
	uint64_t real_ns;	/* CLOCK_REALTIME */
};

/* "# clock boottime_ns B realtime_ns R" */
static bool clock_line(char **tok, int n, struct clock_ref *c)
{
	if (n != 6 || strcmp(tok[0], "#") || strcmp(tok[1], "clock") ||
	    strcmp(tok[2], "boottime_ns") || !is_uint(tok[3]) ||
	    strcmp(tok[4], "realtime_ns") || !is_uint(tok[5]))
		return false;
	c->boot_ns = strtoull(tok[3], NULL, 10);
	c->real_ns = strtoull(tok[5], NULL, 10);
	c->known = true;
	return true;
}

/* "6.686472": seconds with up to 9 decimals, in ns, exactly. */
static bool secs_ns(const char *s, uint64_t *ns)
{
	const char *dot = strchr(s, '.');
	uint64_t frac = 0;
	int i;

	if ((!is_decimal(s) && !is_uint(s)) || (dot && strlen(dot + 1) > 9) ||
	    strtoull(s, NULL, 10) > UINT64_MAX / 1000000000ULL - 1)
		return false;
	for (i = 1; i <= 9; i++) {
		frac = frac * 10 + (dot && dot[1] ? dot[1] - '0' : 0);
		if (dot && dot[1])
			dot++;
	}
	*ns = strtoull(s, NULL, 10) * 1000000000ULL + frac;
	return true;
}

/*
 * The wall-clock time, ns since the epoch, of @t ns of the drops file's
 * boot clock: the wall clock at reading less the boot time gone by since.
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

/*
 * The wall-clock time of @s, seconds of the drops file's boot clock:
 * "2026-11-23T08:41:47.123456Z" (see utc_time()).
 */
static bool wall_time(const struct clock_ref *c, const char *s, char *buf,
		      size_t size)
{
	uint64_t t, wall;

	return secs_ns(s, &t) && real_ns(c, t, &wall) && utc_time(wall, buf, size);
}

/*
 * A drops row's time columns: the file's seconds since boot become
 * integer ns, since boot and (with the clock line) since the epoch, and
 * the RFC 3339 text of the latter; each null when it cannot be had.
 */
static const char *const time_cols[][4] = {
	{ "first", "first_boottime_ns", "first_realtime_ns", "first_utc" },
	{ "last", "last_boottime_ns", "last_realtime_ns", "last_utc" },
};

static void drop_times(json_object *r, const struct clock_ref *clk,
		       const char *col, const char *s)
{
	uint64_t t, wall;
	bool boot, real;
	char buf[64];
	size_t i;

	for (i = 0; i < ARRAY_LEN(time_cols); i++) {
		if (strcmp(col, time_cols[i][0]))
			continue;
		boot = secs_ns(s, &t);
		real = boot && real_ns(clk, t, &wall) && utc_time(wall, buf, sizeof(buf));
		json_object_object_del(r, col);
		json_object_object_add(r, time_cols[i][1],
				       boot ? json_object_new_uint64(t) : NULL);
		json_object_object_add(r, time_cols[i][2],
				       real ? json_object_new_uint64(wall) : NULL);
		json_object_object_add(r, time_cols[i][3],
				       real ? json_object_new_string(buf) : NULL);
	}
}

json_object *parse_drops(char *text)
{
	json_object *o = json_object_new_object();
	json_object *rows = json_object_new_array();
	json_object *other = json_object_new_array();
	char *p = text, *line, *tok[MAXTOK], raw[1024];
	struct clock_ref clk = { 0 };
	struct header h = { 0 };
	json_object *r;
	int n, c;

	while ((line = next_line(&p))) {
		snprintf(raw, sizeof(raw), "%s", line);
		if (h.n == 0) {
			n = split(line, tok, MAXTOK);
			if (clock_line(tok, n, &clk))
				continue;
			if (n > 0 && (!strcmp(tok[0], "count") || !strcmp(tok[0], "#")))
				set_header(&h, tok, n);
			continue;
		}
		r = table_row(&h, line, false);
		if (!r) {
			if (raw[strspn(raw, " \t")])
				json_object_array_add(other, json_object_new_string(raw));
			continue;
		}
		/* the times from the row's own text, not a double's */
		split(raw, tok, h.n);
		for (c = 0; c < h.n; c++)
			drop_times(r, &clk, h.names[c], tok[c]);
		json_object_array_add(rows, r);
	}
	if (clk.known) {
		json_object *c = json_object_new_object();

		json_object_object_add(c, "boottime_ns", json_object_new_uint64(clk.boot_ns));
		json_object_object_add(c, "realtime_ns", json_object_new_uint64(clk.real_ns));
		json_object_object_add(o, "clock", c);
	}
	json_object_object_add(o, "drops", rows);
	if (json_object_array_length(other))
		json_object_object_add(o, "other", other);
	else
		json_object_put(other);
	return o;
}

/*
 * A drops file with a clock line, with its first and last columns in
 * wall-clock time and the columns padded again; as it is without one.
 */
int print_drops(char *text)
{
	char *copy = strdup(text), *p, *line, *tok[MAXTOK], wall[64], raw[1024];
	char cg[4096];
	struct clock_ref clk = { 0 };
	struct header h = { 0 };
	char ***rows = NULL;
	int w[MAXTOK] = { 0 };
	size_t nrows = 0, r, i;
	int n, c, rc = 0;

	if (!copy)
		return report(EXIT_RUNTIME, ENOMEM, "out of memory");
	/* the clock line is first, the header next */
	p = copy;
	line = next_line(&p);
	if (line)
		n = split(line, tok, MAXTOK);
	if (!line || !clock_line(tok, n, &clk) || !(line = next_line(&p))) {
		free(copy);
		return print_cgroup_names(text);
	}
	printf("%.*s\n", (int)strcspn(text, "\n"), text);
	n = split(line, tok, MAXTOK);
	set_header(&h, tok, n);
	for (c = 0; c < h.n; c++)
		w[c] = strlen(h.names[c]);
	while ((line = next_line(&p))) {
		char **row = calloc(h.n, sizeof(*row)), ***more;

		more = realloc(rows, (nrows + 1) * sizeof(*rows));
		if (!row || !more) {
			free(row);
			rc = report(EXIT_RUNTIME, ENOMEM, "out of memory");
			goto out;
		}
		rows = more;
		rows[nrows++] = row;
		snprintf(raw, sizeof(raw), "%s", line);
		if (split(line, tok, h.n) != h.n) {
			row[0] = strdup(raw);	/* not a row: as it is */
			continue;
		}
		for (c = 0; c < h.n; c++) {
			for (i = 0; i < ARRAY_LEN(time_cols); i++)
				if (!strcmp(h.names[c], time_cols[i][0]) &&
				    wall_time(&clk, tok[c], wall, sizeof(wall)))
					tok[c] = wall;
			row[c] = strdup(strcmp(h.names[c], "cgroup") ? tok[c] :
					cgroup_name(tok[c], cg, sizeof(cg)));
			if (row[c] && (int)strlen(row[c]) > w[c])
				w[c] = strlen(row[c]);
		}
	}
	/* count right-aligned, the last column unpadded */
	for (c = 0; c < h.n; c++)
		w[c] = c == h.n - 1 ? 0 : strcmp(h.names[c], "count") ? -w[c] : w[c];
	for (c = 0; c < h.n; c++)
		printf("%s%*s", c ? " " : "", w[c], h.names[c]);
	putchar('\n');
	for (r = 0; r < nrows; r++) {
		if (!rows[r][1]) {
			printf("%s\n", rows[r][0] ? rows[r][0] : "");
			continue;
		}
		for (c = 0; c < h.n; c++)
			printf("%s%*s", c ? " " : "", w[c], rows[r][c] ? rows[r][c] : "-");
		putchar('\n');
	}
	rc = fflush(stdout) ? EXIT_RUNTIME : 0;
out:
	for (r = 0; r < nrows; r++) {
		for (c = 0; c < h.n; c++)
			free(rows[r][c]);
		free(rows[r]);
	}
	free(rows);
	free(copy);
	return rc;
}

/* ---- latency_buckets, lifetime_buckets ---- */

/* Tokens of a line of a *_buckets file: up to every bucket and a few. */
#define MAXBTOK	1024

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

/* The figures of a *_buckets line, which must be numbers. */
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

/* One histogram line; NULL with why in @err. */
static json_object *buckets_row(const struct header *h, char **tok, int n,
				json_object *bounds, char *err, size_t len)
{
	json_object *r, *hist;
	size_t nb = json_object_array_length(bounds), k = 0;
	uint64_t v[3], prev = 0;
	int cols, i, off = 0;

	for (cols = 0; cols < n && !strchr(tok[cols], ':'); cols++)
		;
	if (cols == h->n + 1)
		off = 1;
	else if (cols != h->n) {
		snprintf(err, len, "%d columns before the buckets, want %d", cols, h->n);
		return NULL;
	}
	r = json_object_new_object();
	if (off)
		json_object_object_add(r, "label", json_object_new_string(tok[0]));
	for (i = 0; i < h->n; i++) {
		if (figure_column(h->names[i]) && !is_uint(tok[i + off])) {
			snprintf(err, len, "%s '%s' is not a number", h->names[i], tok[i + off]);
			json_object_put(r);
			return NULL;
		}
		json_object_object_add(r, h->names[i], value_of(h->names[i], tok[i + off]));
	}
	hist = json_object_new_array();
	json_object_object_add(r, "histogram", hist);
	for (i = cols; i < n; i++) {
		bool ok = bucket_token(tok[i], v) && v[0] < v[1] &&
			  (i == cols || v[0] >= prev);
		json_object *b;

		/* a bucket of the scheme: between two consecutive bounds */
		while (ok && k < nb && bound(bounds, k) < v[0])
			k++;
		if (!ok || k + 1 >= nb || bound(bounds, k) != v[0] ||
		    bound(bounds, k + 1) != v[1]) {
			snprintf(err, len, "bad bucket '%s' (lo:hi:count, [lo, hi) between "
				 "two consecutive bounds, ascending)", tok[i]);
			json_object_put(r);
			return NULL;
		}
		prev = v[1];
		b = json_object_new_object();
		json_object_object_add(b, "lo", json_object_new_uint64(v[0]));
		json_object_object_add(b, "hi", json_object_new_uint64(v[1]));
		json_object_object_add(b, "count", json_object_new_uint64(v[2]));
		json_object_array_add(hist, b);
	}
	return r;
}

json_object *parse_buckets(char *text, char *err, size_t len)
{
	json_object *o = json_object_new_object();
	json_object *rows = json_object_new_array();
	json_object *bounds = json_object_new_array();
	char *p = text, *line, **tok, why[256];
	struct header h = { 0 };
	uint64_t v;
	int n, i, lineno = 0;

	json_object_object_add(o, "bounds", bounds);
	json_object_object_add(o, "rows", rows);
	tok = calloc(MAXBTOK, sizeof(*tok));
	if (!tok) {
		snprintf(err, len, "out of memory");
		goto bad;
	}
	while ((line = next_line(&p))) {
		lineno++;
		n = split(line, tok, MAXBTOK);
		if (n == MAXBTOK) {
			snprintf(err, len, "line %d: more than %d fields", lineno, MAXBTOK - 1);
			goto bad;
		}
		if (n >= 2 && !strcmp(tok[0], "#") && !strcmp(tok[1], "bounds")) {
			for (i = 2; i < n; i++) {
				if (!parse_u64(tok[i], strlen(tok[i]), &v) ||
				    (i > 2 && v <= bound(bounds, i - 3))) {
					snprintf(err, len, "line %d: bad bound '%s' (ascending integers)",
						 lineno, tok[i]);
					goto bad;
				}
				json_object_array_add(bounds, json_object_new_uint64(v));
			}
			continue;
		}
		if (n > 0 && tok[0][0] == '#') {
			/* "# dir stage count sum min max buckets (ns; ...)" */
			for (i = 0; i < n && strcmp(tok[i], "buckets"); i++)
				;
			if (i < n)
				set_header(&h, tok, i);
			continue;
		}
		if (n == 0)
			continue;
		if (h.n == 0) {
			snprintf(err, len, "line %d: a row before the header", lineno);
			goto bad;
		}
		if (!json_object_array_length(bounds)) {
			snprintf(err, len, "line %d: a row before the '# bounds' line", lineno);
			goto bad;
		}
		{
			json_object *r = buckets_row(&h, tok, n, bounds, why, sizeof(why));

			if (!r) {
				snprintf(err, len, "line %d: %s", lineno, why);
				goto bad;
			}
			json_object_array_add(rows, r);
		}
	}
	free(tok);
	return o;
bad:
	free(tok);
	json_object_put(o);
	return NULL;
}

json_object *read_buckets(const char *name, int *rc)
{
	char *text = read_view(name, rc), err[512];
	json_object *o;

	if (!text)
		return NULL;
	o = parse_buckets(text, err, sizeof(err));
	free(text);
	if (!o)
		*rc = report(EXIT_RUNTIME, EINVAL, "%s/%s: %s", opt.root, name, err);
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
	char *text;
	uint64_t n;

	text = read_view("counters", rc);
	if (!text)
		return NULL;
	c = json_object_new_object();
	counter_lines(text, NULL, c);
	free(text);
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
	json_object *o = json_object_new_object();
	char *p = text, *line, *sp;

	while ((line = next_line(&p))) {
		if (!strncmp(line, "last_error:", 11)) {
			const char *e = line + 11 + strspn(line + 11, " ");

			json_object_object_add(o, "last_error", strcmp(e, "none") ?
					       json_object_new_string(e) : NULL);
			continue;
		}
		sp = strchr(line, ' ');
		if (!sp || line[0] == '#')
			continue;
		*sp++ = 0;
		/* no filter, lifetime off: null, not a string */
		if ((!strcmp(line, "filter") && !strcmp(sp, "clear")) ||
		    (!strcmp(line, "lifetime") && !strcmp(sp, "off")))
			json_object_object_add(o, line, NULL);
		else if (is_uint(sp))
			json_object_object_add(o, line, value_of(line, sp));
		else
			json_object_object_add(o, line, json_object_new_string(sp));
	}
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
	json_object *o = json_object_new_object(), *kv = json_object_new_object();
	char buf[2048], *tok[MAXTOK], *eq;
	const char *kind;
	int n, i;

	snprintf(buf, sizeof(buf), "%s", line);
	n = split(buf, tok, MAXTOK);
	for (i = 0; i < n; i++) {
		eq = strchr(tok[i], '=');
		if (!eq || eq == tok[i])
			goto unknown;
		*eq = 0;
		json_object_object_add(kv, tok[i], value_of(tok[i], eq + 1));
	}
	if (n == 1 && json_object_object_get_ex(kv, "lost", NULL)) {
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
