/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skbprof reader tool: cgroup v2 ids to paths (cgroup.c).
 */
#ifndef SKBPROF_CGROUP_H
#define SKBPROF_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

/*
 * The path from the cgroup2 root of the cgroup with id @id ("/",
 * "/a/b"), or NULL when no directory of $SKBPROF_CGROUP_ROOT (default
 * /sys/fs/cgroup) has that inode number.
 */
const char *cgroup_path(uint64_t id);
/* The id of a "cgroup" value: a number, or a string "1234+"; 0: none. */
uint64_t cgroup_id(json_object *v);
/*
 * How a cgroup is named to people: @id as a file gives it ("1234",
 * "1234+" for several) becomes its path ("/a/b", "/a/b+"), in @buf, when
 * it resolves; else @id itself ("-" too).
 */
const char *cgroup_name(const char *id, char *buf, size_t len);
/* Add "cgroup_path" (a string or null) to @o if it has a "cgroup". */
void add_cgroup_path(json_object *o);
/* add_cgroup_path() on every row of the array @rows. */
void add_cgroup_paths(json_object *rows);
/*
 * Print @text, a file with a "cgroup" column (procs, cgroups, drops),
 * with each row's cgroup named by cgroup_name(); the rest as it is.
 */
int print_cgroup_names(const char *text);

#endif /* SKBPROF_CGROUP_H */
