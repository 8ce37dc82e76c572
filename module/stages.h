/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stages skbprof measures, in one table: their names (the control
 * grammar's `stages` and every file), their direction and the timeline
 * points each runs between (the timelines, the probes that must serve
 * those points, and stats).  A leaf: it calls nothing else of skbprof.
 *
 * A stage runs between two points of one direction's timeline; the
 * points are in timeline order, and a stage between consecutive points
 * may be for one transport protocol only (ip-tcp, ip-udp).  The totals
 * span the whole timeline.  The backlog is the wait of a packet queued
 * at its first point (netif_rx(), RPS) to the stack's core: a stage
 * within that point, from == to, which only such packets pass; their
 * drv-ip starts where it ends.  `drops` is the drop monitor's, on no
 * timeline.
 */
#ifndef _SKBPROF_STAGES_H
#define _SKBPROF_STAGES_H

#include <linux/bits.h>
#include <linux/types.h>

#include "config.h"

/* The directions; also the kinds of the stamp table's timelines. */
enum skbprof_dir {
	SKBPROF_RX,
	SKBPROF_TX,
	SKBPROF_DIRS
};

/* Points of the receive timeline, in order. */
enum rx_point {
	RXP_DRV,	/* the driver hands the skb to the stack */
	RXP_IP,		/* IP receive */
	RXP_L4,		/* transport receive */
	RXP_APP,	/* copied to the application */
	RXP_POINTS
};

/* Points of the transmit timeline, in order. */
enum tx_point {
	TXP_APP,	/* the application's data became an skb */
	TXP_L4,		/* transport transmit */
	TXP_IP,		/* IP output */
	TXP_DEV,	/* dev_queue_xmit */
	TXP_DRV,	/* the driver's transmit */
	TXP_POINTS
};

/* Most points a timeline has. */
#define SKBPROF_MAX_POINTS	TXP_POINTS

/*
 * The stages, in the order the control file's `stages` lists them; each
 * is described by its entry of skbprof_stages[].
 */
enum skbprof_stage {
	SKBPROF_STAGE_BACKLOG,
	SKBPROF_STAGE_DRV_IP,
	SKBPROF_STAGE_IP_TCP,
	SKBPROF_STAGE_IP_UDP,
	SKBPROF_STAGE_TCP_APP,
	SKBPROF_STAGE_UDP_APP,
	SKBPROF_STAGE_RX_TOTAL,
	SKBPROF_STAGE_APP_TCP,
	SKBPROF_STAGE_APP_UDP,
	SKBPROF_STAGE_TCP_IP,
	SKBPROF_STAGE_UDP_IP,
	SKBPROF_STAGE_IP_DEV,
	SKBPROF_STAGE_DEV_DRV,
	SKBPROF_STAGE_TX_TOTAL,
	SKBPROF_STAGE_DROPS,
	SKBPROF_NR_STAGES
};

/* The stages of the timelines: all but drops. */
#define SKBPROF_TIMELINE_STAGES	SKBPROF_STAGE_DROPS
#define SKBPROF_RX_STAGES	GENMASK(SKBPROF_STAGE_RX_TOTAL, \
					SKBPROF_STAGE_BACKLOG)
#define SKBPROF_TX_STAGES	GENMASK(SKBPROF_STAGE_TX_TOTAL, \
					SKBPROF_STAGE_APP_TCP)

struct skbprof_stage_def {
	const char *name;
	u8 dir;			/* enum skbprof_dir (drops: SKBPROF_DIRS) */
	u8 from, to;		/* the points it runs between */
	u8 proto;		/* IPPROTO_TCP/UDP when for one; 0: any */
	bool total;		/* first point to last */
	bool within;		/* within its point (the backlog): from == to */
};

extern const struct skbprof_stage_def skbprof_stages[SKBPROF_NR_STAGES];

/* The names, as the control grammar takes them (config.h). */
extern const struct skbprof_stage_names skbprof_stage_names;

/* "drv-ip", ...; "?" out of range. */
const char *skbprof_stage_name(unsigned int stage);

/* "rx" or "tx". */
const char *skbprof_dir_name(unsigned int dir);

/*
 * A point of a @dir timeline: "drv", "ip", "l4", "app", "dev"; "?" out
 * of range.
 */
const char *skbprof_point_name(unsigned int dir, unsigned int point);

/* The last point of a @dir timeline. */
static inline u8 skbprof_last_point(unsigned int dir)
{
	return dir == SKBPROF_RX ? RXP_APP : TXP_DRV;
}

/* Derive the lookup of skbprof_stage_ending(); before any probe runs. */
void skbprof_stages_init(void);

/*
 * The stage ending at each point, per direction and transport slot
 * (skbprof_proto_slot()), derived from the table by
 * skbprof_stages_init(); -1 where none.  Read it through
 * skbprof_stage_ending().
 */
extern s8 skbprof_stage_endings[SKBPROF_DIRS][SKBPROF_MAX_POINTS][3];

/* 1: TCP, 2: UDP, 0: any other transport. */
static inline unsigned int skbprof_proto_slot(u8 proto)
{
	return proto == SKBPROF_PROTO_TCP ? 1 : proto == SKBPROF_PROTO_UDP ? 2 : 0;
}

/*
 * The stage that ends at @point of a @dir timeline carrying @proto (not
 * a total), or -1.  Inline: the hot path asks at every point.
 */
static inline int skbprof_stage_ending(unsigned int dir, unsigned int point,
				       u8 proto)
{
	if (dir >= SKBPROF_DIRS || point >= SKBPROF_MAX_POINTS)
		return -1;
	return skbprof_stage_endings[dir][point][skbprof_proto_slot(proto)];
}

/*
 * How far a packet got (the drops view): the last stage its timeline
 * completed, or one of these.
 */
#define SKBPROF_REACHED_RX_DRV	0xfd	/* the driver hand-off, no stage done */
#define SKBPROF_REACHED_TX_APP	0xfe	/* made for the application, no more */
#define SKBPROF_REACHED_NONE	0xff	/* no timeline */

/* "ip-udp", "rx-drv", "tx-app" or "-" for such a value. */
const char *skbprof_reached_name(u8 reached);

#endif /* _SKBPROF_STAGES_H */
