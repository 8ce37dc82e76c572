/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skbprof reader tool: the readers of the module's machine files
 * (parse.c), the one table reader and the one record reader of
 * Documentation/skbprof.rst's "Machine files", and their values.
 */
#ifndef SKBPROF_PARSE_H
#define SKBPROF_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

/*
 * Split @line (modified in place) at blanks into at most @max tokens, the
 * last of which takes the rest of the line; the number of tokens.
 */
int split(char *line, char **tok, int max);
bool is_uint(const char *s);
bool is_decimal(const char *s);
/*
 * The JSON of the value @s of column or key @name: null for "-", a
 * number for digits, else a string (names that look like numbers, such
 * as a cgroup id, stay strings).
 */
json_object *value_of(const char *name, const char *s);

/*
 * A table's row as it is read: false, with why in @err, rejects the
 * file (the reader names the line).  @meta: the meta lines' keys so far.
 */
typedef bool (*row_check)(json_object *row, json_object *meta, void *arg,
			  char *err, size_t len);

/*
 * A machine table: "# key=value ..." meta lines, one "# name ..." header
 * line, then rows of exactly one token per column ("-": null, see
 * value_of()); a last column named "name..." takes the rest of a row's
 * tokens, as an array of strings under "name".  Returns {@rows_key:
 * [{name: value}]}, with the meta lines' keys in *@meta (when @meta is
 * not NULL: the caller puts it); @check, if not NULL, sees each row.
 * NULL for a malformed table, with why (and its line) in @err.
 */
json_object *parse_table(char *text, const char *rows_key, json_object **meta,
			 row_check check, void *arg, char *err, size_t len);

/*
 * A record: one line of key=value tokens, as {key: value_of(key, value)};
 * NULL when a token is not key=value.
 */
json_object *parse_record(const char *line);

/* Look-ups in parsed trees: 0 and NULL for a key absent or null. */
uint64_t jget_u64(json_object *o, const char *key);
const char *jget_str(json_object *o, const char *key);

#endif /* SKBPROF_PARSE_H */
