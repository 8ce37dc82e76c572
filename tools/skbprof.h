/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skbprof, the reader tool: shared declarations.
 *
 * Every view is parsed into a json-c tree (the "model"); the JSON output
 * prints the tree, the Prometheus exposition and `top` walk it.  Parsers
 * find columns by the names in the files' header lines, never by position,
 * so a column added to the module's files does not break them.
 */
#ifndef SKBPROF_TOOL_H
#define SKBPROF_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <json-c/json.h>

#define DEFAULT_ROOT	"/sys/kernel/debug/skbprof"

#define ARRAY_LEN(a)	(sizeof(a) / sizeof((a)[0]))
/*
 * The control file's procfs twin, which lockdown=integrity (Secure Boot)
 * leaves writable where debugfs refuses every writable file, even to root.
 */
#define PROC_DIR	"/proc/net/skbprof"
#define PROC_CONTROL	PROC_DIR "/control"
#define LOCKDOWN_FILE	"/sys/kernel/security/lockdown"
/* The loaded module's version (its MODULE_VERSION), and its directory. */
#define MODULE_DIR	"/sys/module/skbprof"
#define MODULE_VERSION_FILE	MODULE_DIR "/version"

/* Exit codes (documented in --help and skbprof.8). */
enum {
	EXIT_OK		= 0,
	EXIT_RUNTIME	= 1,	/* no debugfs, I/O, anything not below */
	EXIT_USAGE	= 2,	/* bad command line */
	EXIT_REJECTED	= 3,	/* the module rejected a control write */
	EXIT_NOT_LOADED	= 4,	/* no module files */
	EXIT_DENIED	= 5,	/* not root, no CAP_SYS_ADMIN, another netns */
	EXIT_LOCKDOWN	= 6,	/* refused by the kernel's lockdown */
};

struct opts {
	const char *root;
	bool json;
	bool pretty;
	double interval;	/* top: seconds between frames */
	long count;		/* top: frames, 0 for no limit */
	long top_n;		/* prom: cgroups, netns, devs with series of their own, -1: all */
	unsigned int detail;	/* prom: enum prom_detail, what to add */
};

/* prom --detail: the heavier series, asked for by name. */
enum prom_detail {
	DETAIL_BUCKETS	= 1 << 0,	/* the module's fine buckets, not the coarse */
	DETAIL_OFFSET	= 1 << 1,	/* drop locations with +offset/size */
	DETAIL_CPU	= 1 << 2,	/* softnet per CPU */
	DETAIL_PROBE	= 1 << 3,	/* a series per probe */
	DETAIL_HISTOGRAMS = 1 << 4,	/* buckets for lifetime and softnet too */
};

extern struct opts opt;

/* ---- errors (util.c) ---- */

/* Report an error (text on stderr, or {"error", "errno"} JSON on stdout). */
int report(int exit_code, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Check the module's directory; explains what is wrong. 0 when usable. */
int check_root(void);
/*
 * Explain why opening @path failed with @err (not root, lockdown, ...) and
 * return the exit code.
 */
int open_error(const char *path, int err);
/*
 * Explain why the module refused to let this process write control
 * (EPERM or EACCES on open or write): no CAP_SYS_ADMIN, or a network
 * namespace other than the host's.  Returns the exit code.
 */
int write_error(const char *path, int err);
/* True when the kernel is locked down to confidentiality. */
bool lockdown_confidential(void);
/*
 * True when the module is loaded but its /proc/net twin is not in this
 * process's /proc/net (and procfs is there): another network namespace
 * than the host's.
 */
bool other_netns(void);
/*
 * The control file to use, in @buf: PROC_CONTROL when the files are the
 * module's own (the default root) and it exists, else ROOT/control.
 */
const char *control_path(char *buf, size_t len);

/*
 * Read ROOT/NAME (control: control_path()) into a malloc'd NUL-terminated
 * string.  On failure prints
 * the reason (see report()) and returns NULL with *rc set to the exit code.
 */
char *read_view(const char *name, int *rc);
/* Is there a ROOT/NAME?  (A module older than the tool may lack a file.) */
bool root_has(const char *name);

/*
 * The loaded module's version into @buf: "" when it is not loaded, NULL
 * when it is but does not say (or the file cannot be read).
 */
const char *module_version(char *buf, size_t len);
/*
 * Warn on stderr when @v, the loaded module's version from
 * module_version(), is known and not the tool's.
 */
void version_warn(const char *v);
/*
 * Once per run, for the module's own files (the default root): warn on
 * stderr when the loaded module's version is not the tool's.
 */
void version_check(void);

/* ---- output (util.c) ---- */

/* Print a JSON tree on stdout, one line (or pretty); drops the tree. */
int print_json(json_object *o);
/*
 * @ns since the epoch as RFC 3339 in UTC, to the microsecond, into @buf:
 * "2026-11-23T08:41:47.123456Z" (the JSON's *_utc and time strings; the
 * exact time is the integer *_ns beside them).  False if it does not fit.
 */
bool utc_time(uint64_t ns, char *buf, size_t size);

/* ---- tokens (parse.c) ---- */

/* Split line (modified in place) at whitespace into at most max tokens. */
int split(char *line, char **tok, int max);
bool is_uint(const char *s);
bool is_decimal(const char *s);
/* A value: null for "-", number for digits, else a string. */
json_object *value_of(const char *name, const char *s);

/* ---- parsers (parse.c): each returns a new tree or NULL ---- */

/*
 * stats from its machine forms: counters (key value) and the tables
 * probes, groups, stages and inflight; NULL with *rc on failure.
 */
json_object *read_stats(int *rc);
/*
 * latency from latency_buckets and latency_worst: {"stages": [rows of
 * the buckets file, each with "worst"]}; NULL with *rc on failure.
 */
json_object *read_latency(int *rc);
/* lifetime from lifetime_buckets and counters: {"sample", "lifetime"}. */
json_object *read_lifetime(int *rc);
/*
 * The drops file; with its clock line, every row also has first_utc and
 * last_utc, wall-clock times (see wall_time()).
 */
json_object *parse_drops(char *text);
/*
 * The drops file as text, its first and last columns in wall-clock time
 * and its cgroups named by cgroup_name().
 */
int print_drops(char *text);
/*
 * latency_buckets and lifetime_buckets: {"bounds": [every bucket edge],
 * "rows": [{["label",] the named columns, "histogram": [{"lo", "hi",
 * "count"}]}]}.  NULL for a malformed file, with why in @err (line and
 * token): the numbers must be exact, or nothing.
 */
json_object *parse_buckets(char *text, char *err, size_t len);
/* Read and parse ROOT/NAME, a *_buckets file; as read_view() on failure. */
json_object *read_buckets(const char *name, int *rc);
json_object *parse_control(char *text);
/* Comment lines, a "# NAME..." header, rows: {@rows_key: [rows]}. */
json_object *parse_table(char *text, const char *rows_key);
/* ROOT/@name as parse_table() gives it; NULL with *rc on failure. */
json_object *read_table(const char *name, const char *rows_key, int *rc);
/*
 * The same into *@t, or NULL where the module (an older one) has no such
 * file: 0, or the exit code of the failed read.
 */
int read_table_if(const char *name, const char *rows_key, json_object **t);
/*
 * A line of trace_records ("key=value" ...) as the JSON of a trace event:
 * {"time", "cpu", "type": "packet"|"drop"|"hit", ...}, {"type": "lost",
 * "lost"}, or {"type": "unknown", "raw"} for a line it cannot read.
 */
json_object *parse_trace_record(const char *line);

/* Look-ups in parsed trees. */
uint64_t jget_u64(json_object *o, const char *key);
const char *jget_str(json_object *o, const char *key);

/* ---- cgroups (cgroup.c) ---- */

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

/* ---- views ---- */

int prom_main(const char *prev);
int top_main(void);
int trace_main(void);

#endif /* SKBPROF_TOOL_H */
