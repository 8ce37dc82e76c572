// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the control-file grammar (module/config.c, the code
 * the module runs).  Besides memory safety (ASan, UBSan), it checks the
 * parser's contract on every input:
 *   - a rejected write returns -EINVAL, -E2BIG or (a cgroup path that
 *     names nothing) -ENOENT, says why, and leaves the configuration as
 *     it was;
 *   - an accepted write's configuration, printed, parses back to the same
 *     configuration (what `cat control > saved; cat saved > control` does);
 *   - matching any packet against the parsed filter is safe.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "config.h"
#include "stages.h"	/* the module's own stage table */

/*
 * The cgroup hierarchy here: "/" and every path under "/a", with ids
 * from the path, so that a printed path resolves to the same id again.
 */
int skbprof_cgroup_lookup(const char *path, u64 *id)
{
	size_t i;

	if (strcmp(path, "/") && strncmp(path, "/a", 2))
		return -ENOENT;
	*id = 1;
	for (i = 0; path[i]; i++)
		*id = *id * 31 + (unsigned char)path[i];
	return 0;
}

static void bug(const char *what, const uint8_t *data, size_t size)
{
	fprintf(stderr, "config_fuzz: %s for input of %zu bytes: '%.*s'\n",
		what, size, (int)size, (const char *)data);
	abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char a[2048], b[2048];
	struct skbprof_config cfg, again;
	struct skbprof_pktinfo pkt;
	char err[SKBPROF_ERR_LEN];
	unsigned int act = 0;
	int ret;

	skbprof_config_default(&cfg, &skbprof_stage_names);
	skbprof_config_print(&cfg, &skbprof_stage_names, a, sizeof(a));
	ret = skbprof_config_parse(&cfg, &skbprof_stage_names, (const char *)data, size,
				   &act, err, sizeof(err));
	if (ret) {
		if (ret != -EINVAL && ret != -E2BIG && ret != -ENOENT)
			bug("undocumented errno", data, size);
		if (!err[0] || !memchr(err, 0, sizeof(err)))
			bug("no error message", data, size);
		skbprof_config_print(&cfg, &skbprof_stage_names, b, sizeof(b));
		if (strcmp(a, b))
			bug("rejected write changed the configuration", data, size);
		return 0;
	}
	if (skbprof_config_print(&cfg, &skbprof_stage_names, a, sizeof(a)) >= (int)sizeof(a))
		bug("printed configuration too long", data, size);
	skbprof_config_default(&again, &skbprof_stage_names);
	if (skbprof_config_parse(&again, &skbprof_stage_names, a, strlen(a), &act, err,
				 sizeof(err)))
		bug("printed configuration does not parse", data, size);
	skbprof_config_print(&again, &skbprof_stage_names, b, sizeof(b));
	if (strcmp(a, b))
		bug("configuration does not round-trip", data, size);

	/* a packet made of the input's bytes */
	memset(&pkt, 0, sizeof(pkt));
	memcpy(&pkt, data, size < sizeof(pkt) ? size : sizeof(pkt));
	pkt.dev = size > 3 ? "eth0" : NULL;
	pkt.comm = size > 5 ? "comm" : NULL;
	(void)skbprof_filter_match(&cfg.filter, &pkt);
	return 0;
}
