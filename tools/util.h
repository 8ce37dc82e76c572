/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skbprof, the reader tool: what every part of it shares (util.c): the
 * options, the exit codes, errors, reading the module's files, output.
 * It includes no other header of the tool's.
 */
#ifndef SKBPROF_UTIL_H
#define SKBPROF_UTIL_H

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

/* The command line's options (util.c; skbprof.c sets them). */
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

#endif /* SKBPROF_UTIL_H */
