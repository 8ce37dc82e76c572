// SPDX-License-Identifier: GPL-2.0
/*
 * skbprof - read and steer the skbprof module (see skbprof.8).
 *
 *   skbprof [OPTIONS] latency|drops|procs|cgroups|lifetime|softnet|stats|control
 *   skbprof [OPTIONS] control 'COMMAND'
 *   skbprof [OPTIONS] filter ['TERMS'|clear]
 *   skbprof [OPTIONS] reset|trace|top|prom
 *   skbprof [OPTIONS] -o FILE prom
 *   skbprof [-j] --version
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "model.h"
#include "parse.h"
#include "util.h"
#include "views.h"


/* prom -o FILE */
static const char *output;

static void usage(FILE *f)
{
	fprintf(f,
		"usage: skbprof [OPTIONS] VIEW\n"
		"views:\n"
		"  latency             per-stage latency: count, percentiles, histograms\n"
		"  drops               dropped packets by reason and location;\n"
		"                      first, last: wall-clock time, UTC\n"
		"  procs               per-process stage latency\n"
		"  cgroups             per-cgroup stage latency\n"
		"  lifetime            skb lifetime, allocation to free\n"
		"  softnet             softirqs and NAPI polls per CPU, and the\n"
		"                      kernel's softnet counters since the reset\n"
		"  stats               probes, stages, tables, counters\n"
		"  control             the configuration in force and last_error\n"
		"  control 'COMMAND'   apply one control command (see skbprof.8)\n"
		"  filter ['TERMS']    show, or set the filter (see skbprof.8)\n"
		"  filter clear        remove the filter\n"
		"  reset               zero every counter and histogram\n"
		"  trace               stream the packet trace (until SIGINT)\n"
		"  top                 live screen: rates and percentiles per interval\n"
		"  prom                Prometheus text exposition format\n"
		"options:\n"
		"  -j, --json          JSON output (trace, top: one object per line)\n"
		"  -p, --pretty        pretty JSON (implies --json)\n"
		"  -i, --interval SEC  top: seconds between frames (default 1)\n"
		"  -n, --count N       top: stop after N frames\n"
		"  -t, --top-n N       prom: the N cgroups, network namespaces and\n"
		"                      devices with the most packets get series of\n"
		"                      their own, the rest one \"other\" (default 10,\n"
		"                      or $SKBPROF_TOP_N; all: no bound)\n"
		"  -d, --detail LIST   prom: heavier series (or $SKBPROF_DETAIL):\n"
		"                      histograms (buckets for lifetime and softnet),\n"
		"                      buckets (the module's fine buckets), offset\n"
		"                      (drop locations with offsets), cpu (softnet\n"
		"                      per CPU), probe (a series per probe), or all\n"
		"  -o, --output FILE   prom: write FILE.tmp, then rename it to FILE;\n"
		"                      skbprof_up 0 when the files cannot be read\n"
		"  -r, --root DIR      read the files from DIR (default %s,\n"
		"                      or $SKBPROF_ROOT)\n"
		"  -V, --version       the tool's version and the loaded module's\n"
		"  -h, --help          this text\n"
		"exit codes: 0 success; 1 debugfs not mounted or I/O error;\n"
		"2 usage error; 3 the module rejected a control write (its\n"
		"last_error is printed); 4 the module is not loaded; 5 permission\n"
		"denied (not root); 6 refused by the kernel's lockdown\n",
		DEFAULT_ROOT);
}

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "skbprof: ");
	fprintf(stderr, fmt, arg);
	fputc('\n', stderr);
	usage(stderr);
	return EXIT_USAGE;
}

/*
 * A --detail value: "all", or names of enum prom_detail, comma-separated,
 * into *@d; false with the offending name in @bad if one is not known.
 */
static bool parse_detail(const char *s, unsigned int *d, char *bad, size_t len)
{
	static const struct {
		const char *name;
		unsigned int bit;
	} names[] = {
		{ "buckets", DETAIL_BUCKETS }, { "offset", DETAIL_OFFSET },
		{ "cpu", DETAIL_CPU }, { "probe", DETAIL_PROBE },
		{ "histograms", DETAIL_HISTOGRAMS },
		{ "all", DETAIL_BUCKETS | DETAIL_OFFSET | DETAIL_CPU | DETAIL_PROBE |
			 DETAIL_HISTOGRAMS },
	};
	const char *p = s, *c;
	size_t i, n;

	*d = 0;
	do {
		c = strchr(p, ',');
		n = c ? (size_t)(c - p) : strlen(p);
		for (i = 0; i < ARRAY_LEN(names); i++)
			if (strlen(names[i].name) == n && !strncmp(p, names[i].name, n))
				break;
		if (i == ARRAY_LEN(names)) {
			snprintf(bad, len, "%.*s", (int)n, p);
			return false;
		}
		*d |= names[i].bit;
		p = c + 1;
	} while (c);
	return true;
}

#define DETAIL_HELP "(histograms, buckets, offset, cpu, probe, comma-separated, or all)"

/* A --top-n value: 0 or more, or "all" (-1); false if it is neither. */
static bool parse_top_n(const char *s, long *n)
{
	char *end;

	if (!strcmp(s, "all")) {
		*n = -1;
		return true;
	}
	errno = 0;
	*n = strtol(s, &end, 10);
	return *s >= '0' && *s <= '9' && !*end && !errno;
}

static int write_all(int fd, const char *s, size_t len)
{
	ssize_t n = write(fd, s, len);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EIO;
}

/* Write one control line; on rejection print the module's last_error. */
static int control_write(const char *line)
{
	char path[4096], cmd[512], *text;
	const char *why = NULL;
	json_object *c = NULL;
	int fd, err, rc;

	control_path(path, sizeof(path));
	/* a container's process: the module refuses it, whatever it finds */
	if (other_netns())
		return write_error(path, EPERM);
	rc = check_root();
	if (rc)
		return rc;
	snprintf(cmd, sizeof(cmd), "%.*s", (int)strcspn(line, "\n"), line);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return open_error(path, errno);
	err = -write_all(fd, line, strlen(line));
	close(fd);
	if (!err)
		return 0;
	if ((err == EPERM || err == EACCES) && !lockdown_confidential())
		return write_error(path, err);
	/* The module says why in the last_error line of control. */
	text = read_view("control", &rc);
	if (text) {
		c = parse_control(text);
		why = jget_str(c, "last_error");
	}
	/* EPERM with a reason: refused by lockdown=confidentiality */
	rc = report(err == EPERM ? EXIT_LOCKDOWN : EXIT_REJECTED, err,
		    "the module rejected '%s': %s", cmd, why ? why : strerror(err));
	json_object_put(c);
	free(text);
	return rc;
}

/* softnet: its file, then its counters; JSON: {"softnet", "counters"} */
static int softnet_view(void)
{
	json_object *o;
	char *text, *counters;
	int rc;

	text = read_view("softnet", &rc);
	if (!text)
		return rc;
	counters = read_view("softnet_counters", &rc);
	if (!counters) {
		free(text);
		return rc;
	}
	if (!opt.json) {
		rc = printf("%s\n%s", text, counters) < 0 || fflush(stdout) ?
		     EXIT_RUNTIME : 0;
		free(text);
		free(counters);
		return rc;
	}
	free(text);
	free(counters);
	/* the machine forms: softnet_buckets' figures, softnet_counters */
	o = read_softnet(&rc);
	return o ? print_json(o) : rc;
}

/* Has @text a line that is not a comment? */
static bool has_rows(const char *text)
{
	const char *p;

	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (*p != '#' && *p != '\n')
			return true;
	return false;
}

/* A new reference to @o's @key. */
static json_object *copy_rows(json_object *o, const char *key)
{
	return json_object_get(json_object_object_get(o, key));
}

/*
 * The drops devices counted, from drops_devices: NULL from a module
 * without it (*@rc 0), or on an error (*@rc set).
 */
static char *read_devices(int *rc)
{
	*rc = 0;
	return root_has("drops_devices") ? read_view("drops_devices", rc) : NULL;
}

/*
 * drops: drawn from drops_rows, then the devices' drops as drops_devices
 * has them; JSON: {"clock", "drops", "devices"}.
 */
static int drops_view(void)
{
	char *devices;
	json_object *o, *d;
	int rc;

	devices = read_devices(&rc);
	if (rc)
		return rc;
	if (!opt.json) {
		rc = print_drops();
		if (!rc && devices && has_rows(devices))
			rc = printf("\n# drops the devices counted (not freed by the stack's kfree_skb)\n%s",
				    devices) < 0 || fflush(stdout) ? EXIT_RUNTIME : 0;
		free(devices);
		return rc;
	}
	free(devices);
	o = read_drops(&rc);
	if (!o)
		return rc;
	add_cgroup_paths(json_object_object_get(o, "drops"));
	if (devices) {
		d = read_table("drops_devices", "devices", &rc);
		if (!d) {
			json_object_put(o);
			return rc;
		}
		json_object_object_add(o, "devices", copy_rows(d, "devices"));
		json_object_put(d);
	}
	return print_json(o);
}

static int cat_or_json(const char *view)
{
	char *text;
	json_object *o;
	int rc;

	/* the views whose human form is art: their machine forms */
	if (opt.json && (!strcmp(view, "stats") || !strcmp(view, "latency") ||
			 !strcmp(view, "lifetime"))) {
		o = !strcmp(view, "stats") ? read_stats(&rc) :
		    !strcmp(view, "latency") ? read_latency(&rc) : read_lifetime(&rc);
		return o ? print_json(o) : rc;
	}
	if (!strcmp(view, "drops"))
		return drops_view();
	text = read_view(view, &rc);
	if (!text)
		return rc;
	if (!opt.json && (!strcmp(view, "procs") || !strcmp(view, "cgroups"))) {
		/* cgroups by path, where they resolve */
		rc = print_cgroup_names(text);
		free(text);
		return rc;
	}
	if (!opt.json) {
		rc = fputs(text, stdout) < 0 || fflush(stdout) ? EXIT_RUNTIME : 0;
		free(text);
		return rc;
	}
	if (!strcmp(view, "control")) {
		o = parse_control(text);
		free(text);
		return print_json(o);
	}
	free(text);
	/* procs and cgroups: rows by process or cgroup, with its path */
	o = read_table(view, view, &rc);
	if (!o)
		return rc;
	add_cgroup_paths(json_object_object_get(o, view));
	return print_json(o);
}

/*
 * Write "@what ARGS...", or just the arguments when @what is "control", as
 * one control line; with -j, then print the configuration in force.
 */
static int command_write(const char *what, int argc, char **argv)
{
	const char *sep = "";
	char line[4096];
	size_t len = 0;
	int i, rc;

	if (strcmp(what, "control")) {
		len = snprintf(line, sizeof(line), "%s", what);
		sep = " ";
	}
	for (i = 0; i < argc && len < sizeof(line); i++, sep = " ")
		len += snprintf(line + len, sizeof(line) - len, "%s%s", sep, argv[i]);
	if (len + 2 > sizeof(line))
		return report(EXIT_USAGE, E2BIG, "%s: too long", what);
	if (strchr(line, '\n'))
		return report(EXIT_USAGE, EINVAL, "%s: the command holds a newline", what);
	strcat(line, "\n");
	rc = control_write(line);
	if (!rc && opt.json)
		return cat_or_json("control");
	return rc;
}

/* The filter in force: "filter TERMS" or "filter clear"; {"filter"}. */
static int filter_show(void)
{
	json_object *c;
	const char *f;
	char *text;
	int rc;

	text = read_view("control", &rc);
	if (!text)
		return rc;
	c = parse_control(text);
	free(text);
	f = jget_str(c, "filter");
	if (opt.json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "filter", f ? json_object_new_string(f) : NULL);
		json_object_put(c);
		return print_json(o);
	}
	printf("filter %s\n", f ? f : "clear");
	json_object_put(c);
	return fflush(stdout) ? EXIT_RUNTIME : 0;
}

/*
 * prom -o FILE: write FILE.tmp, in FILE's directory, then rename it over
 * FILE, so that a reader (node_exporter's textfile collector, which reads
 * *.prom only) sees the old file or the new one, never part of one.  A
 * read that fails still replaces FILE, with a document that says so
 * (skbprof_up 0): the old figures must not look current.  A module that
 * is not loaded is such a state, reported by the file, not an error of
 * the run (exit 0), so that the timer's service does not fail for it.
 * On a write error FILE is left as it was and FILE.tmp is removed.
 */
static int prom_to_file(const char *file)
{
	char tmp[4096];
	int fd, saved, rc, err, wrc = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", file) >= (int)sizeof(tmp))
		return report(EXIT_USAGE, ENAMETOOLONG, "%s: name too long", file);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return report(EXIT_RUNTIME, errno, "%s: %s", tmp, strerror(errno));
	saved = fflush(stdout) ? -1 : dup(STDOUT_FILENO);
	if (saved < 0 || dup2(fd, STDOUT_FILENO) < 0) {
		err = errno;
		close(fd);
		unlink(tmp);
		return report(EXIT_RUNTIME, err, "%s: %s", tmp, strerror(err));
	}
	close(fd);
	rc = prom_main(file);
	if (fflush(stdout))
		wrc = report(EXIT_RUNTIME, errno, "%s: %s", tmp, strerror(errno));
	if (!wrc && fsync(STDOUT_FILENO))
		wrc = report(EXIT_RUNTIME, errno, "%s: %s", tmp, strerror(errno));
	dup2(saved, STDOUT_FILENO);
	close(saved);
	if (!wrc && rename(tmp, file))
		wrc = report(EXIT_RUNTIME, errno, "%s: %s", file, strerror(errno));
	if (wrc) {
		unlink(tmp);
		return wrc;
	}
	return rc == EXIT_NOT_LOADED ? 0 : rc;
}

/*
 * --version: "skbprof VERSION" and "module VERSION" (or "module not
 * loaded", "module unknown": loaded, but it does not say); with -j,
 * {"tool", "module"} (module null unless known).  A mismatch is also
 * warned about on stderr, as by every view.
 */
static int version_main(void)
{
	const char *v;
	char mod[128];

	v = module_version(mod, sizeof(mod));
	version_warn(v);
	if (opt.json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "tool", json_object_new_string(SKBPROF_VERSION));
		json_object_object_add(o, "module",
				       v && *v ? json_object_new_string(v) : NULL);
		return print_json(o);
	}
	printf("skbprof %s\nmodule %s\n", SKBPROF_VERSION,
	       !v ? "unknown" : *v ? v : "not loaded");
	return fflush(stdout) ? EXIT_RUNTIME : 0;
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "interval", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "top-n", required_argument, NULL, 't' },
		{ "output", required_argument, NULL, 'o' },
		{ "detail", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	static const char *const views[] = {
		"stats", "drops", "latency", "procs", "cgroups", "lifetime",
		"control", NULL
	};
	const char *env = getenv("SKBPROF_ROOT"), *view;
	bool version = false;
	char *end, bad[64];
	int c, i, rc;

	if (env && *env)
		opt.root = env;
	env = getenv("SKBPROF_TOP_N");
	if (env && *env && !parse_top_n(env, &opt.top_n))
		return usage_error("bad SKBPROF_TOP_N '%s' (a number from 0, or all)", env);
	env = getenv("SKBPROF_DETAIL");
	if (env && *env && !parse_detail(env, &opt.detail, bad, sizeof(bad)))
		return usage_error("bad SKBPROF_DETAIL '%s' " DETAIL_HELP, bad);
	while ((c = getopt_long(argc, argv, "r:jpi:n:t:o:d:hV", lopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			opt.root = optarg;
			break;
		case 'j':
			opt.json = true;
			break;
		case 'p':
			opt.json = opt.pretty = true;
			break;
		case 'i':
			opt.interval = strtod(optarg, &end);
			if (*end || end == optarg || !(opt.interval >= 0.01 && opt.interval <= 86400))
				return usage_error("bad interval '%s' (seconds, 0.01-86400)", optarg);
			break;
		case 'n':
			errno = 0;
			opt.count = strtol(optarg, &end, 10);
			if (*end || end == optarg || errno || opt.count < 1)
				return usage_error("bad count '%s' (a positive number)", optarg);
			break;
		case 't':
			if (!parse_top_n(optarg, &opt.top_n))
				return usage_error("bad top-n '%s' (a number from 0, or all)", optarg);
			break;
		case 'o':
			output = optarg;
			break;
		case 'd':
			if (!parse_detail(optarg, &opt.detail, bad, sizeof(bad)))
				return usage_error("bad detail '%s' " DETAIL_HELP, bad);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			version = true;
			break;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (version)
		return version_main();
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	view = argv[optind++];
	if (output && strcmp(view, "prom"))
		return usage_error("%s: -o is for prom only", view);
	if (!strcmp(view, "filter") && optind == argc)
		return filter_show();
	if ((!strcmp(view, "filter") || !strcmp(view, "control")) && optind < argc)
		return command_write(view, argc - optind, argv + optind);
	if (optind != argc)
		return usage_error("%s: unexpected arguments", view);
	for (i = 0; views[i]; i++)
		if (!strcmp(view, views[i]))
			return cat_or_json(view);
	if (!strcmp(view, "reset")) {
		rc = control_write("reset\n");
		if (!rc && opt.json)
			return print_json(json_object_new_object());
		return rc;
	}
	if (!strcmp(view, "trace"))
		return trace_main();
	if (!strcmp(view, "top"))
		return top_main();
	if (!strcmp(view, "softnet"))
		return softnet_view();
	if (!strcmp(view, "prom") && output)
		return prom_to_file(output);
	if (!strcmp(view, "prom")) {
		rc = prom_main(NULL);
		return fflush(stdout) && !rc ? EXIT_RUNTIME : rc;
	}
	return usage_error("unknown view '%s'", view);
}
