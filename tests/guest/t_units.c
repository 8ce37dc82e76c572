// SPDX-License-Identifier: GPL-2.0
/*
 * The systemd units of the Debian packages (systemd/), in the guest: the
 * command of skbprof-prom.service, read from the unit file as the package
 * ships it, run against the live module after some UDP, and promtool's
 * verdict on the file it writes; its tx app-udp count is the kernel's
 * OutDatagrams rise.  And the module options skbprof.service loads with
 * (systemd/skbprof.modprobe.conf, installed as /etc/modprobe.d/skbprof.conf):
 * loaded as modprobe would pass them, they are in force and armed, and
 * sampling keeps what they say.  tests/host/units.sh verifies the units
 * themselves.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "harness.h"

/* make_initramfs copies it here; /usr/sbin/skbprof is the tool */
#define PROM_UNIT	"/usr/share/skbprof/skbprof-prom.service"
#define TEXTFILE_DIR	"/tmp/node-exporter"
#define MODPROBE_CONF	"/usr/share/skbprof/skbprof.modprobe.conf"

/* The value of the first "@key=" line of unit file @unit (malloc'd), or NULL. */
static char *unit_value(const char *unit, const char *key)
{
	char *text = read_file(unit), *l, *v = NULL;
	size_t n = strlen(key);

	for (l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, key, n) && l[n] == '=') {
			v = strndup(l + n + 1, strcspn(l + n + 1, "\n"));
			break;
		}
	}
	free(text);
	return v;
}

TEST(prom_unit_writes_textfile)
{
	char *cmd, *out, *prom, want[128];
	long long out0, out1;
	int st;

	cmd = unit_value(PROM_UNIT, "ExecStart");
	CHECK(cmd, "no ExecStart= in " PROM_UNIT);
	note("ExecStart=%s", cmd);
	CHECK(skbprof_load(NULL) == 0, "load");
	CHECK(sh("rm -rf " TEXTFILE_DIR " && mkdir " TEXTFILE_DIR) == 0, "mkdir");
	out0 = snmp_value("Udp", "OutDatagrams");
	CHECK(sh("skbprof-traffic udp-pair 127.0.0.1 9140 40 100") == 0, "traffic");
	out1 = snmp_value("Udp", "OutDatagrams");
	CHECK(out0 >= 0 && out1 - out0 == 40, "OutDatagrams %lld -> %lld, want 40 more",
	      out0, out1);
	/*
	 * As systemd runs it, with the directory /etc/default/skbprof would
	 * give; the shell expands ${SKBPROF_PROM_DIR} as systemd does.
	 */
	out = sh_out(&st, "export SKBPROF_PROM_DIR=" TEXTFILE_DIR "; %s 2>&1", cmd);
	CHECK(st == 0, "'%s' exited %d: %.300s", cmd, st, out);
	free(out);
	free(cmd);
	/* the file and nothing else: no skbprof.prom.tmp left */
	out = sh_out(&st, "ls -A " TEXTFILE_DIR);
	CHECK(st == 0 && out && !strcmp(out, "skbprof.prom\n"),
	      TEXTFILE_DIR " holds '%s', want skbprof.prom alone", out);
	free(out);
	out = sh_out(&st, "promtool check metrics < " TEXTFILE_DIR "/skbprof.prom 2>&1");
	CHECK(st == 0, "promtool check metrics: exit %d: %.500s", st, out);
	free(out);
	prom = read_file(TEXTFILE_DIR "/skbprof.prom");
	CHECK(prom, "cannot read " TEXTFILE_DIR "/skbprof.prom");
	snprintf(want, sizeof(want), "skbprof_info{version=\"%s\"", SKBPROF_VERSION);
	CHECK(strstr(prom, want), "no '%s' in %.300s", want, prom);
	snprintf(want, sizeof(want),
		 "\nskbprof_stage_latency_seconds_count{dir=\"tx\",stage=\"app-udp\"} %lld\n",
		 out1 - out0);
	CHECK(strstr(prom, want), "no '%s' in the file", want + 1);
	note("%zu bytes, promtool accepts them", strlen(prom));
	free(prom);
	/*
	 * The module gone: the service still succeeds, and the file says so
	 * (skbprof_up 0), with none of the old figures.
	 */
	CHECK(skbprof_unload() == 0, "unload");
	cmd = unit_value(PROM_UNIT, "ExecStart");
	CHECK(cmd, "no ExecStart= in " PROM_UNIT);
	out = sh_out(&st, "export SKBPROF_PROM_DIR=" TEXTFILE_DIR "; %s 2>&1", cmd);
	free(cmd);
	CHECK(st == 0, "module unloaded: exited %d: %.300s", st, out);
	free(out);
	prom = read_file(TEXTFILE_DIR "/skbprof.prom");
	CHECK(prom && strstr(prom, "\nskbprof_up 0\n") &&
	      strstr(prom, "\nskbprof_last_read_timestamp_seconds ") &&
	      !strstr(prom, "skbprof_stage_latency_seconds"),
	      "module unloaded: the file is not up 0 alone: %.500s", prom);
	free(prom);
	return 0;
}

/*
 * The options modprobe reads for skbprof from modprobe.d file @path: the
 * rest of every "options skbprof" line, in order, blank-separated (a line
 * ending in a backslash goes on on the next); malloc'd, "" when none,
 * NULL when the file cannot be read.
 */
static char *modprobe_options(const char *path)
{
	char *text = read_file(path), *out, *l, *next, *p;
	size_t len = 0;

	if (!text)
		return NULL;
	out = calloc(1, strlen(text) + 1);
	/* join continued lines: a backslash and its newline become a blank */
	for (p = text; (p = strstr(p, "\\\n")); )
		p[0] = p[1] = ' ';
	for (l = text; l && *l; l = next) {
		next = strchr(l, '\n');
		if (next)
			*next++ = 0;
		l += strspn(l, " \t");
		if (strncmp(l, "options", 7) || !strchr(" \t", l[7]) || !l[7])
			continue;
		l += 7 + strspn(l + 7, " \t");
		if (strncmp(l, "skbprof", 7) || !l[7] || !strchr(" \t", l[7]))
			continue;
		l += 7 + strspn(l + 7, " \t");
		len += sprintf(out + len, "%s%s", len ? " " : "", l);
	}
	free(text);
	return out;
}

/*
 * The next NAME=VALUE of module options @*p, split at blanks outside
 * double quotes as the kernel splits them, the quotes taken out of VALUE;
 * @*p moves past it.  0, or -1 at the end.
 */
static int next_option(const char **p, char *name, size_t nsize,
		       char *value, size_t vsize)
{
	const char *s = *p + strspn(*p, " \t");
	size_t n = 0, v = 0;
	bool quoted = false;

	if (!*s)
		return -1;
	while (*s && *s != '=' && !strchr(" \t", *s) && n + 1 < nsize)
		name[n++] = *s++;
	name[n] = 0;
	if (*s == '=')
		s++;
	for (; *s && (quoted || !strchr(" \t", *s)); s++) {
		if (*s == '"')
			quoted = !quoted;
		else if (v + 1 < vsize)
			value[v++] = *s;
	}
	value[v] = 0;
	*p = s;
	return 0;
}

/* Is @word an item of comma-separated @list? */
static bool in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p;

	for (p = list; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (!strncmp(p, word, n) && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* A bool parameter reads Y or N, whichever of 1/y/Y or 0/n/N was written. */
static bool same_bool(const char *got, const char *value)
{
	if (!value[0] || value[1])
		return false;
	return (!strcmp(got, "Y") && strchr("1yY", value[0])) ||
	       (!strcmp(got, "N") && strchr("0nN", value[0]));
}

/* The stages a loopback UDP datagram crosses, read back by its sender. */
static const char *const udp_stages[][2] = {
	{ "rx", "drv-ip" }, { "rx", "ip-udp" }, { "rx", "udp-app" },
	{ "rx", "rx-total" }, { "tx", "app-udp" }, { "tx", "udp-ip" },
	{ "tx", "ip-dev" }, { "tx", "dev-drv" }, { "tx", "tx-total" },
};

struct drops_wait {
	const char *fn;
	unsigned long long want;
};

static bool drops_reached(void *arg)
{
	struct drops_wait *w = arg;

	return drops_at(w->fn) >= w->want;
}

/*
 * skbprof.service's `modprobe skbprof` with the shipped
 * /etc/modprobe.d/skbprof.conf: the module loads with the file's options;
 * each is in /sys/module/skbprof/parameters as written, the control file
 * says what they say, the stages file has the stages they name active
 * and no other, the drop monitor is armed when they name it; and after
 * UDP over loopback, each stage named that such a datagram crosses has
 * counted 1 in `sample` of them, and the drop monitor 1 in `sample` of
 * the datagrams sent to a closed port.  A file without options would
 * have the service arm every stage, which is for a person at a terminal,
 * not a fleet: that fails too.
 */
TEST(boot_conf_loads_and_arms)
{
	char *opts, *ctl, *st, *lat, name[64], value[256], want[340];
	char stages[256] = "all", line[128];
	long long ncpu = sysconf(_SC_NPROCESSORS_ONLN), lo, hi;
	unsigned long long sample = 1, got;
	bool filtered = false, drops;
	struct drops_wait w;
	struct table tab;
	const char *p;
	size_t i;
	int err, n, r;

	opts = modprobe_options(MODPROBE_CONF);
	CHECK(opts, "cannot read " MODPROBE_CONF);
	CHECK(opts[0], MODPROBE_CONF " has no 'options skbprof' line: the service would arm every stage");
	note("options skbprof %s", opts);
	err = skbprof_load(opts);
	CHECK(err == 0, "loading skbprof with '%s': %s", opts, strerror(-err));

	/* every option as the kernel took it, and in control */
	st = read_file(DEBUGFS_DIR "/control");
	CHECK(st, "cannot read control");
	/* a newline before the first line too, to find whole lines */
	CHECK(asprintf(&ctl, "\n%s", st) > 0, "asprintf");
	free(st);
	for (p = opts; !next_option(&p, name, sizeof(name), value, sizeof(value)); ) {
		char path[128], *got_v;

		snprintf(path, sizeof(path), "/sys/module/skbprof/parameters/%s", name);
		got_v = read_file(path);
		CHECK(got_v, "option '%s': no %s", name, path);
		got_v[strcspn(got_v, "\n")] = 0;
		CHECK(!strcmp(got_v, value) || same_bool(got_v, value),
		      "option %s: the module has '%s', the file '%s'",
		      name, got_v, value);
		free(got_v);
		want[0] = 0;
		if (!strcmp(name, "stages"))
			snprintf(stages, sizeof(stages), "%s", value);
		else if (!strcmp(name, "sample"))
			sample = strtoull(value, NULL, 10);
		else if (!strcmp(name, "filter"))
			filtered = true;
		if (!strcmp(name, "sample") || !strcmp(name, "filter") ||
		    !strcmp(name, "softnet") || !strcmp(name, "trace"))
			snprintf(want, sizeof(want), "\n%s %s\n", name, value);
		else if (!strcmp(name, "lifetime_sample"))
			snprintf(want, sizeof(want), "\nlifetime %s\n",
				 strcmp(value, "0") ? value : "off");
		if (want[0] && !strstr(ctl, want))
			return fail("option %s=%s: control reads '%s'", name,
				    value, ctl + 1);
	}
	/* control's stages, in its own order: the same set */
	p = strstr(ctl, "\nstages ");
	CHECK(p, "no stages line in control: '%s'", ctl + 1);
	p += strlen("\nstages ");
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
	free(ctl);
	if (strcmp(stages, "all")) {
		for (p = stages; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(p, ","), p);
			CHECK(in_list(line, name), "control's 'stages %s' lacks %s",
			      line, name);
		}
		for (p = line; p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
			snprintf(name, sizeof(name), "%.*s", (int)strcspn(p, ","), p);
			CHECK(in_list(stages, name), "control's 'stages %s' has %s, the file not",
			      line, name);
		}
	} else {
		CHECK(!strcmp(line, "all"), "control's 'stages %s', want all", line);
	}
	drops = !strcmp(stages, "all") || in_list(stages, "drops");

	/* the stages file: those named active, the rest off */
	CHECK(table_read(&tab, "stages") == 0, "cannot read stages");
	for (r = 0; r < tab.nrows; r++) {
		const char *dir = table_str(&tab, r, "dir");
		const char *stage = table_str(&tab, r, "stage");
		const char *state = table_str(&tab, r, "state");

		snprintf(want, sizeof(want), "%s",
			 !strcmp(stages, "all") || in_list(stages, stage) ?
			 "active" : "off");
		if (strcmp(state, want)) {
			note("stages:\n%s", tab.text);
			table_free(&tab);
			return fail("stage %s %s is %s, want %s", dir, stage, state, want);
		}
	}
	table_free(&tab);
	CHECK(table_read(&tab, "groups") == 0, "cannot read groups");
	r = table_find(&tab, 0, "group", "free-drop", NULL);
	snprintf(line, sizeof(line), "%s", r >= 0 ? table_str(&tab, r, "armed") : "");
	table_free(&tab);
	CHECK(r >= 0, "no free-drop row in groups");
	CHECK(!strcmp(line, "armed") == drops, "groups: free-drop %s, drops %s",
	      line, drops ? "named" : "not named");

	if (filtered) {
		note("a filter: the loopback counts are not judged");
		free(opts);
		return 0;
	}
	/* sampling in force: 1 in `sample`, give or take one per CPU */
	n = sample > 1000 ? 0 : (int)(20 * sample);
	if (!n) {
		note("sample %llu: too sparse to count here", sample);
		free(opts);
		return 0;
	}
	lo = n / sample - ncpu;
	hi = n / sample + ncpu;
	CHECK(sh("skbprof-traffic udp-pair 127.0.0.1 9141 %d", n) == 0, "udp-pair");
	lat = read_file(DEBUGFS_DIR "/latency_buckets");
	CHECK(lat, "cannot read latency");
	for (i = 0; i < sizeof(udp_stages) / sizeof(udp_stages[0]); i++) {
		const char *dir = udp_stages[i][0], *stage = udp_stages[i][1];
		bool on = !strcmp(stages, "all") || in_list(stages, stage);

		got = row_count(lat, dir, stage);
		if (on ? (long long)got < lo || (long long)got > hi : got != 0) {
			note("latency:\n%s", lat);
			free(lat);
			return fail("%s %s counted %llu of %d datagrams, want %s",
				    dir, stage, got, n,
				    on ? "1 in sample" : "none");
		}
		if (on)
			note("%s %s: %llu of %d", dir, stage, got, n);
	}
	free(lat);
	w.fn = udp_noport_fn(AF_INET);
	w.want = drops ? (unsigned long long)(lo > 0 ? lo : 1) : 0;
	CHECK(sh("skbprof-traffic udp 127.0.0.1 9142 %d", n) == 0, "udp to a closed port");
	wait_until(drops_reached, &w, WAIT_MS);
	got = drops_at(w.fn);
	note("drops at %s: %llu of %d", w.fn, got, n);
	CHECK(drops ? (long long)got >= lo && (long long)got <= hi : got == 0,
	      "drops at %s: %llu of %d, want %s", w.fn, got, n,
	      drops ? "1 in sample" : "none");
	free(opts);
	return 0;
}
