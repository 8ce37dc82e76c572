// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof reader tool: cgroup v2 ids to paths.
 *
 * The module reports a cgroup by its id, the id of its kernfs node, which
 * on 64-bit kernels is the inode number of the cgroup's directory under
 * the cgroup2 mount.  So the tool walks that mount once ($SKBPROF_CGROUP_ROOT,
 * default /sys/fs/cgroup) and maps inode numbers to paths from its root:
 * "/" for the root, "/system.slice/x.service" below.  An id not found is
 * looked for again in a new walk, at most once a second (the trace runs
 * for long); a cgroup removed since, or a mount that is not there, leaves
 * the id without a path.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "parse.h"
#include "util.h"

#define MAX_DEPTH		32
#define MAX_CGROUPS		100000

struct cg {
	uint64_t ino;
	char *path;
};

static struct cg *cgs;
static size_t ncgs, cap;
static time_t walked;	/* when, 0: never */

static void add(uint64_t ino, const char *path)
{
	struct cg *n;

	if (ncgs == cap) {
		if (cap >= MAX_CGROUPS)
			return;
		n = realloc(cgs, (cap ? cap * 2 : 64) * sizeof(*cgs));
		if (!n)
			return;
		cgs = n;
		cap = cap ? cap * 2 : 64;
	}
	cgs[ncgs].path = strdup(path);
	if (cgs[ncgs].path)
		cgs[ncgs++].ino = ino;
}

/* Every directory below @dirfd (at @path from the root, "" for it). */
static void walk(int dirfd, const char *path, int depth)
{
	struct dirent *e;
	struct stat st;
	char sub[4096];
	DIR *d;
	int fd;

	d = fdopendir(dirfd);
	if (!d) {
		close(dirfd);
		return;
	}
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN)
			continue;
		fd = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) || snprintf(sub, sizeof(sub), "%s/%s", path,
					       e->d_name) >= (int)sizeof(sub)) {
			close(fd);
			continue;
		}
		add(st.st_ino, sub);
		if (depth < MAX_DEPTH)
			walk(fd, sub, depth + 1);
		else
			close(fd);
	}
	closedir(d);
}

static void walk_root(void)
{
	const char *root = getenv("SKBPROF_CGROUP_ROOT");
	struct stat st;
	int fd;

	while (ncgs)
		free(cgs[--ncgs].path);
	walked = time(NULL);
	if (!root || !*root)
		root = "/sys/fs/cgroup";
	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st)) {
		close(fd);
		return;
	}
	add(st.st_ino, "/");
	walk(fd, "", 0);
}

static const char *find(uint64_t id)
{
	size_t i;

	for (i = 0; i < ncgs; i++)
		if (cgs[i].ino == id)
			return cgs[i].path;
	return NULL;
}

const char *cgroup_path(uint64_t id)
{
	const char *p;

	if (!id)
		return NULL;
	if (!walked)
		walk_root();
	p = find(id);
	if (!p && time(NULL) != walked) {
		walk_root();
		p = find(id);
	}
	return p;
}

uint64_t cgroup_id(json_object *v)
{
	const char *s;

	if (!v)
		return 0;
	if (json_object_is_type(v, json_type_int))
		return json_object_get_uint64(v);
	s = json_object_get_string(v);
	return s && *s >= '0' && *s <= '9' ? strtoull(s, NULL, 10) : 0;
}

const char *cgroup_name(const char *id, char *buf, size_t len)
{
	const char *p;

	if (!id || *id < '0' || *id > '9')
		return id;
	p = cgroup_path(strtoull(id, NULL, 10));
	if (!p)
		return id;
	/* "1234+": several cgroups, the latest's path marked so */
	snprintf(buf, len, "%s%s", p, strchr(id, '+') ? "+" : "");
	return buf;
}

void add_cgroup_path(json_object *o)
{
	json_object *v;
	const char *p;

	if (!json_object_object_get_ex(o, "cgroup", &v))
		return;
	p = cgroup_path(cgroup_id(v));
	json_object_object_add(o, "cgroup_path", p ? json_object_new_string(p) : NULL);
}

void add_cgroup_paths(json_object *rows)
{
	size_t i;

	for (i = 0; i < json_object_array_length(rows); i++)
		add_cgroup_path(json_object_array_get_idx(rows, i));
}

/*
 * Is @line (split in place) a table's header (it names a "count"
 * column)?  Then *@col is the index of its "cgroup" column, -1 if none.
 */
static bool header_cgroup(char *line, int *col)
{
	int n, i, k = 0, cg = -1;
	bool header = false;
	char *tok[64];

	n = split(line, tok, 64);
	for (i = 0; i < n; i++) {
		const char *t = tok[i][0] == '#' ? tok[i] + 1 : tok[i];

		if (!*t)
			continue;
		if (!strcmp(t, "cgroup"))
			cg = k;
		header |= !strcmp(t, "count");
		k++;
	}
	if (header)
		*col = cg;
	return header;
}

int print_cgroup_names(const char *text)
{
	const char *l, *e, *t, *te = NULL;
	bool head, seen = false;
	char id[32], buf[4096];
	int col = -1, i;

	for (l = text; *l; l = e) {
		e = l + strcspn(l, "\n");
		if (*e)
			e++;
		/* a comment, or a first line like drops' "count reason ..." */
		head = false;
		if (*l == '#' || !seen) {
			snprintf(buf, sizeof(buf), "%.*s", (int)strcspn(l, "\n"), l);
			head = header_cgroup(buf, &col);
			seen |= head;
		}
		/* the col-th token of a row */
		for (i = 0, t = l; *l != '#' && !head && col >= 0; i++, t = te) {
			t += strspn(t, " \t");
			te = t + strcspn(t, " \t\n");
			if (t == te || i == col)
				break;
		}
		if (*l == '#' || head || col < 0 || t == te || te - t >= (long)sizeof(id)) {
			fwrite(l, 1, e - l, stdout);
			continue;
		}
		snprintf(id, sizeof(id), "%.*s", (int)(te - t), t);
		printf("%.*s%s", (int)(t - l), l, cgroup_name(id, buf, sizeof(buf)));
		fwrite(te, 1, e - te, stdout);
	}
	return fflush(stdout) || ferror(stdout) ? EXIT_RUNTIME : 0;
}
