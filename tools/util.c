// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof reader tool: errors, reading the module's files, JSON output.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

struct opts opt = {
	.root = DEFAULT_ROOT,
	.interval = 1.0,
	.top_n = 10,
};

int report(int exit_code, int err, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (opt.json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "error", json_object_new_string(msg));
		json_object_object_add(o, "errno", json_object_new_int(err));
		print_json(o);
	} else {
		fprintf(stderr, "skbprof: %s\n", msg);
	}
	return exit_code;
}

const char *module_version(char *buf, size_t len)
{
	FILE *f = fopen(MODULE_VERSION_FILE, "re");
	char *nl;

	if (!f) {
		if (errno == ENOENT && access(MODULE_DIR, F_OK) && errno == ENOENT) {
			snprintf(buf, len, "%s", "");
			return buf;
		}
		return NULL;
	}
	nl = fgets(buf, len, f);
	fclose(f);
	if (!nl)
		return NULL;
	buf[strcspn(buf, "\n")] = 0;
	return *buf ? buf : NULL;
}

void version_warn(const char *v)
{
	if (v && *v && strcmp(v, SKBPROF_VERSION))
		fprintf(stderr,
			"skbprof: warning: the tool is version %s, the loaded module %s (%s):"
			" views may be misread; install the same version of both"
			" (a new module loads with modprobe -r skbprof; modprobe skbprof)\n",
			SKBPROF_VERSION, v, MODULE_VERSION_FILE);
}

void version_check(void)
{
	static bool done;
	char mod[128];

	if (done || strcmp(opt.root, DEFAULT_ROOT))
		return;
	done = true;
	version_warn(module_version(mod, sizeof(mod)));
}

/* Explain why the module's directory cannot be used. */
int check_root(void)
{
	const char *root = opt.root;
	struct stat st, st2;

	if (stat(root, &st) == 0) {
		if (!S_ISDIR(st.st_mode))
			return report(EXIT_RUNTIME, ENOTDIR, "%s: not a directory", root);
		version_check();
		return 0;
	}
	if (errno == EACCES || errno == EPERM)
		return open_error(root, errno);
	if (errno == ENOENT && strcmp(root, DEFAULT_ROOT) == 0) {
		/* debugfs mounted: its own file system, not the one of sysfs */
		if (stat("/sys/kernel/debug", &st) == 0 &&
		    stat("/sys/kernel", &st2) == 0 && st.st_dev == st2.st_dev)
			return report(EXIT_RUNTIME, ENOENT,
				      "debugfs is not mounted (mount -t debugfs none /sys/kernel/debug)");
		return report(EXIT_NOT_LOADED, ENOENT,
			      "module not loaded: no %s (modprobe skbprof)", root);
	}
	if (errno == ENOENT)
		return report(EXIT_NOT_LOADED, ENOENT,
			      "%s: No such file or directory (module not loaded?)", root);
	return report(EXIT_RUNTIME, errno, "%s: %s", root, strerror(errno));
}

/*
 * The kernel's lockdown mode ("integrity", "confidentiality") into @buf,
 * "" when there is none, NULL when securityfs does not say.
 */
static const char *lockdown_mode(char *buf, size_t len)
{
	char line[128], *a, *b;
	FILE *f = fopen(LOCKDOWN_FILE, "re");

	if (!f)
		return NULL;
	a = fgets(line, sizeof(line), f);
	fclose(f);
	/* "none [integrity] confidentiality": the one in force bracketed */
	if (!a || !(a = strchr(line, '[')) || !(b = strchr(a, ']')))
		return NULL;
	*b = 0;
	snprintf(buf, len, "%s", strcmp(a + 1, "none") ? a + 1 : "");
	return buf;
}

bool lockdown_confidential(void)
{
	char mode[32];
	const char *ld = lockdown_mode(mode, sizeof(mode));

	return ld && !strcmp(ld, "confidentiality");
}

/* Control's twin is only in the initial network namespace's /proc/net. */
bool other_netns(void)
{
	return access("/sys/module/skbprof", F_OK) == 0 &&
	       access("/proc/self/ns/net", F_OK) == 0 &&
	       access(PROC_DIR, F_OK) != 0 && errno == ENOENT;
}

int open_error(const char *path, int err)
{
	char mode[32];
	const char *ld;

	if (err != EACCES && err != EPERM)
		return report(EXIT_RUNTIME, err, "%s: %s", path, strerror(err));
	if (geteuid() != 0)
		return report(EXIT_DENIED, err,
			      "%s: permission denied (skbprof needs root)", path);
	/*
	 * Root is refused a debugfs file by lockdown (EPERM): under
	 * integrity every file that can be written; under confidentiality
	 * the files that name packets or processes (trace, trace_records,
	 * latency_worst, procs, inflight), as the module refuses them.
	 */
	ld = lockdown_mode(mode, sizeof(mode));
	if (ld && *ld)
		return report(EXIT_LOCKDOWN, err,
			      "%s: refused by the kernel's lockdown (%s)%s", path, ld,
			      strcmp(ld, "integrity") ?
			      ": flows, pids and comms stay in the kernel" :
			      "; control is " PROC_CONTROL " there, which this module lacks (an older skbprof?)");
	if (!ld && err == EPERM)
		return report(EXIT_LOCKDOWN, err,
			      "%s: refused to root: the kernel's lockdown? (%s does not say)",
			      path, LOCKDOWN_FILE);
	return report(EXIT_DENIED, err, "%s: permission denied", path);
}

int write_error(const char *path, int err)
{
	if (other_netns())
		return report(EXIT_DENIED, err,
			      "%s: refused: control takes writers in the host's network namespace only, and this process is in another (a container's?)",
			      path);
	return report(EXIT_DENIED, err,
		      "%s: permission denied (a control write needs root with CAP_SYS_ADMIN)",
		      path);
}

const char *control_path(char *buf, size_t len)
{
	if (!strcmp(opt.root, DEFAULT_ROOT) && access(PROC_CONTROL, F_OK) == 0)
		snprintf(buf, len, "%s", PROC_CONTROL);
	else
		snprintf(buf, len, "%s/control", opt.root);
	return buf;
}

char *read_view(const char *name, int *rc)
{
	size_t len = 0, size = 65536;
	char path[4096], *buf;
	ssize_t n;
	int fd;

	*rc = check_root();
	if (*rc)
		return NULL;
	if (!strcmp(name, "control"))
		control_path(path, sizeof(path));
	else
		snprintf(path, sizeof(path), "%s/%s", opt.root, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		*rc = open_error(path, errno);
		return NULL;
	}
	buf = malloc(size);
	if (!buf)
		goto nomem;
	for (;;) {
		if (len + 1 >= size) {
			char *b = realloc(buf, size * 2);

			if (!b)
				goto nomem;
			buf = b;
			size *= 2;
		}
		n = read(fd, buf + len, size - len - 1);
		if (n == 0)
			break;
		if (n < 0) {
			int err = errno;

			if (err == EINTR)
				continue;
			*rc = report(EXIT_RUNTIME, err, "%s: %s", path, strerror(err));
			free(buf);
			close(fd);
			return NULL;
		}
		len += n;
	}
	close(fd);
	buf[len] = 0;
	if (strlen(buf) != len) {
		*rc = report(EXIT_RUNTIME, EINVAL, "%s: has a NUL byte", path);
		free(buf);
		return NULL;
	}
	return buf;
nomem:
	free(buf);
	close(fd);
	*rc = report(EXIT_RUNTIME, ENOMEM, "out of memory");
	return NULL;
}

int print_json(json_object *o)
{
	int flags = JSON_C_TO_STRING_NOSLASHESCAPE;
	int rc = 0;

	flags |= opt.pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
			      JSON_C_TO_STRING_PLAIN;
	if (puts(json_object_to_json_string_ext(o, flags)) < 0 || fflush(stdout))
		rc = EXIT_RUNTIME;
	json_object_put(o);
	return rc;
}

bool utc_time(uint64_t ns, char *buf, size_t size)
{
	time_t sec = ns / 1000000000;
	struct tm tm;
	size_t len;

	if (!gmtime_r(&sec, &tm))
		return false;
	len = strftime(buf, size, "%Y-%m-%dT%H:%M:%S", &tm);
	return len && (size_t)snprintf(buf + len, size - len, ".%06uZ",
				       (unsigned int)(ns % 1000000000 / 1000)) < size - len;
}

bool root_has(const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", opt.root, name);
	return access(path, F_OK) == 0;
}
