// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof reader tool: the readers of the module's machine files, into
 * json-c trees (Documentation/skbprof.rst, "Machine files").
 *
 * A table is found by the names of its header line, so columns the
 * module adds later (or moves) are picked up by name; a record by its
 * keys.  What a view makes of them is model.c's.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

/* Tokens of a line: up to every bucket of a *_buckets row and a few. */
#define MAXTOK		1024
/* Columns of a header, and the length of a name. */
#define MAXCOLS		64
#define NAMELEN		32

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

/* Columns that hold names even when they look like numbers (a cgroup id). */
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

/* ---- tables ---- */

struct header {
	int n;			/* columns; 0: no header yet */
	bool rest;		/* the last takes the rest of a row */
	char names[MAXCOLS][NAMELEN];
};

/* Is every token (after "#") of a comment line key=value? */
static bool meta_line(char **tok, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		const char *eq = strchr(tok[i], '=');

		if (!eq || eq == tok[i])
			return false;
	}
	return n > 0;
}

static void add_meta(json_object *meta, char **tok, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		char *eq = strchr(tok[i], '=');

		*eq = 0;
		json_object_object_add(meta, tok[i], value_of(tok[i], eq + 1));
	}
}

/* The header's names; false if there are too many or too long. */
static bool set_header(struct header *h, char **tok, int n)
{
	size_t len;
	int i;

	if (n < 1 || n > MAXCOLS)
		return false;
	for (i = 0; i < n; i++) {
		len = strlen(tok[i]);
		if (len >= NAMELEN)
			return false;
		/* "buckets...": the rest of the row, under "buckets" */
		h->rest = i == n - 1 && len > 3 && !strcmp(tok[i] + len - 3, "...");
		if (h->rest)
			len -= 3;
		snprintf(h->names[i], NAMELEN, "%.*s", (int)len, tok[i]);
	}
	h->n = n;
	return true;
}

/* The row of @n tokens under @h (n checked). */
static json_object *table_row(const struct header *h, char **tok, int n)
{
	json_object *r = json_object_new_object(), *rest;
	int i, last = h->rest ? h->n - 1 : h->n;

	for (i = 0; i < last; i++)
		json_object_object_add(r, h->names[i], value_of(h->names[i], tok[i]));
	if (h->rest) {
		rest = json_object_new_array();
		for (i = last; i < n; i++)
			json_object_array_add(rest, json_object_new_string(tok[i]));
		json_object_object_add(r, h->names[last], rest);
	}
	return r;
}

json_object *parse_table(char *text, const char *rows_key, json_object **meta,
			 row_check check, void *arg, char *err, size_t len)
{
	json_object *o = json_object_new_object(), *rows = json_object_new_array();
	json_object *m = json_object_new_object(), *r;
	char *p = text, *line, **tok, why[256];
	struct header h = { 0 };
	int n, lineno = 0, off;

	json_object_object_add(o, rows_key, rows);
	tok = calloc(MAXTOK, sizeof(*tok));
	if (!tok) {
		snprintf(err, len, "out of memory");
		goto bad;
	}
	while ((line = next_line(&p))) {
		lineno++;
		n = split(line, tok, MAXTOK);
		if (n == MAXTOK) {
			snprintf(err, len, "line %d: more than %d fields", lineno, MAXTOK - 1);
			goto bad;
		}
		if (n == 0)
			continue;
		if (tok[0][0] == '#') {
			/* "# a b" or "#a b": the tokens after the '#' */
			off = tok[0][1] ? 0 : 1;
			if (!off)
				tok[0]++;
			if (meta_line(tok + off, n - off)) {
				add_meta(m, tok + off, n - off);
				continue;
			}
			if (h.n) {
				snprintf(err, len, "line %d: a second header line", lineno);
				goto bad;
			}
			if (!set_header(&h, tok + off, n - off)) {
				snprintf(err, len, "line %d: a bad header line", lineno);
				goto bad;
			}
			continue;
		}
		if (!h.n) {
			snprintf(err, len, "line %d: a row before the header", lineno);
			goto bad;
		}
		if (n != h.n && !(h.rest && n >= h.n - 1)) {
			snprintf(err, len, "line %d: %d fields, want %d", lineno, n, h.n);
			goto bad;
		}
		r = table_row(&h, tok, n);
		json_object_array_add(rows, r);
		if (check && !check(r, m, arg, why, sizeof(why))) {
			snprintf(err, len, "line %d: %s", lineno, why);
			goto bad;
		}
	}
	free(tok);
	if (meta)
		*meta = m;
	else
		json_object_put(m);
	return o;
bad:
	free(tok);
	json_object_put(m);
	json_object_put(o);
	return NULL;
}

/* ---- records ---- */

json_object *parse_record(const char *line)
{
	json_object *kv = json_object_new_object();
	char *buf = strdup(line), **tok = calloc(MAXTOK, sizeof(*tok)), *eq;
	int n, i;

	if (!buf || !tok)
		goto bad;
	n = split(buf, tok, MAXTOK);
	if (n == MAXTOK)
		goto bad;
	for (i = 0; i < n; i++) {
		eq = strchr(tok[i], '=');
		if (!eq || eq == tok[i])
			goto bad;
		*eq = 0;
		json_object_object_add(kv, tok[i], value_of(tok[i], eq + 1));
	}
	free(tok);
	free(buf);
	return kv;
bad:
	free(tok);
	free(buf);
	json_object_put(kv);
	return NULL;
}
