// SPDX-License-Identifier: GPL-2.0
/*
 * The systemd units of the Debian packages (systemd/), in the guest: the
 * command of skbprof-prom.service, read from the unit file as the package
 * ships it, run against the live module after some UDP, and promtool's
 * verdict on the file it writes; its tx app-udp count is the kernel's
 * OutDatagrams rise.  tests/host/units.sh verifies the units themselves.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* make_initramfs copies it here; /usr/sbin/skbprof is the tool */
#define PROM_UNIT	"/usr/share/skbprof/skbprof-prom.service"
#define TEXTFILE_DIR	"/tmp/node-exporter"

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
