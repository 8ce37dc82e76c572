// SPDX-License-Identifier: GPL-2.0
/*
 * The stage table; see stages.h.
 */
#include <linux/kernel.h>

#include "stages.h"

#define TCP	SKBPROF_PROTO_TCP
#define UDP	SKBPROF_PROTO_UDP

#define STAGE(id, nm, d, f, t, p)				\
	[SKBPROF_STAGE_##id] = {				\
		.name = nm, .dir = d, .from = f, .to = t, .proto = p }
#define TOTAL(id, nm, d, f, t)					\
	[SKBPROF_STAGE_##id] = {				\
		.name = nm, .dir = d, .from = f, .to = t, .total = true }

const struct skbprof_stage_def skbprof_stages[SKBPROF_NR_STAGES] = {
	[SKBPROF_STAGE_BACKLOG] = { .name = "backlog", .dir = SKBPROF_RX,
				    .from = RXP_DRV, .to = RXP_DRV,
				    .within = true },
	STAGE(DRV_IP,	"drv-ip",   SKBPROF_RX, RXP_DRV, RXP_IP,  0),
	STAGE(IP_TCP,	"ip-tcp",   SKBPROF_RX, RXP_IP,  RXP_L4,  TCP),
	STAGE(IP_UDP,	"ip-udp",   SKBPROF_RX, RXP_IP,  RXP_L4,  UDP),
	STAGE(TCP_APP,	"tcp-app",  SKBPROF_RX, RXP_L4,  RXP_APP, TCP),
	STAGE(UDP_APP,	"udp-app",  SKBPROF_RX, RXP_L4,  RXP_APP, UDP),
	TOTAL(RX_TOTAL,	"rx-total", SKBPROF_RX, RXP_DRV, RXP_APP),
	STAGE(APP_TCP,	"app-tcp",  SKBPROF_TX, TXP_APP, TXP_L4,  TCP),
	STAGE(APP_UDP,	"app-udp",  SKBPROF_TX, TXP_APP, TXP_L4,  UDP),
	STAGE(TCP_IP,	"tcp-ip",   SKBPROF_TX, TXP_L4,  TXP_IP,  TCP),
	STAGE(UDP_IP,	"udp-ip",   SKBPROF_TX, TXP_L4,  TXP_IP,  UDP),
	STAGE(IP_DEV,	"ip-dev",   SKBPROF_TX, TXP_IP,  TXP_DEV, 0),
	STAGE(DEV_DRV,	"dev-drv",  SKBPROF_TX, TXP_DEV, TXP_DRV, 0),
	TOTAL(TX_TOTAL,	"tx-total", SKBPROF_TX, TXP_APP, TXP_DRV),
	/* the drop monitor's: on no timeline */
	[SKBPROF_STAGE_DROPS] = { .name = "drops", .dir = SKBPROF_DIRS },
};

const char *skbprof_stage_name(unsigned int stage)
{
	return stage < SKBPROF_NR_STAGES ? skbprof_stages[stage].name : "?";
}

const struct skbprof_stage_names skbprof_stage_names = {
	.name = skbprof_stage_name,
	.count = SKBPROF_NR_STAGES,
};

const char *skbprof_dir_name(unsigned int dir)
{
	return dir == SKBPROF_RX ? "rx" : dir == SKBPROF_TX ? "tx" : "-";
}

static const char *const point_names[SKBPROF_DIRS][SKBPROF_MAX_POINTS] = {
	[SKBPROF_RX] = { "drv", "ip", "l4", "app" },
	[SKBPROF_TX] = { "app", "l4", "ip", "dev", "drv" },
};

const char *skbprof_point_name(unsigned int dir, unsigned int point)
{
	if (dir >= SKBPROF_DIRS || point >= SKBPROF_MAX_POINTS ||
	    !point_names[dir][point])
		return "?";
	return point_names[dir][point];
}

const char *skbprof_reached_name(u8 reached)
{
	if (reached < SKBPROF_TIMELINE_STAGES)
		return skbprof_stages[reached].name;
	if (reached == SKBPROF_REACHED_RX_DRV)
		return "rx-drv";
	if (reached == SKBPROF_REACHED_TX_APP)
		return "tx-app";
	return "-";
}

/*
 * The stage ending at each point, per direction and transport (0: other,
 * 1: TCP, 2: UDP), derived from the table by skbprof_stages_init(); -1
 * where none.
 */
s8 skbprof_stage_endings[SKBPROF_DIRS][SKBPROF_MAX_POINTS][3];

void skbprof_stages_init(void)
{
	unsigned int st, d, pt, k;

	for (d = 0; d < SKBPROF_DIRS; d++)
		for (pt = 0; pt < SKBPROF_MAX_POINTS; pt++)
			for (k = 0; k < 3; k++)
				skbprof_stage_endings[d][pt][k] = -1;
	for (st = 0; st < SKBPROF_TIMELINE_STAGES; st++) {
		const struct skbprof_stage_def *s = &skbprof_stages[st];

		if (s->total || s->within)
			continue;
		for (k = 0; k < 3; k++)
			if (!s->proto || skbprof_proto_slot(s->proto) == k)
				skbprof_stage_endings[s->dir][s->to][k] = st;
	}
}
