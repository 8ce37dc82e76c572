/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configuration in force: the one struct skbprof_config (config.h)
 * that every part reads, replaced whole with RCU.  A leaf: it calls
 * nothing of skbprof but config.c and the stage table.
 *
 * Readers, in any context, call skbprof_config() and never see half of a
 * change.  Its writer, the control file, holds skbprof_config_lock() and
 * builds the next configuration in a private copy (skbprof_config_copy()),
 * then publishes it (skbprof_config_publish()) or throws it away
 * (skbprof_config_discard()).
 */
#ifndef _SKBPROF_CONFIG_LIVE_H
#define _SKBPROF_CONFIG_LIVE_H

#include <linux/rcupdate.h>

#include "config.h"

/* The configuration in force and its grace period; see config_live.c. */
struct skbprof_config_box {
	struct rcu_head rcu;
	struct skbprof_config cfg;
};

extern struct skbprof_config_box __rcu *skbprof_config_cur;

/*
 * The configuration in force.  Call under rcu_read_lock() or
 * rcu_read_lock_sched() (or with preemption disabled: every grace period
 * waits for such sections) and do not keep the pointer past it.  Inline:
 * every probe hit reads it.
 */
static inline const struct skbprof_config *skbprof_config(void)
{
	/* the probes read it with preemption off, as RCU-sched readers */
	return &rcu_dereference_check(skbprof_config_cur,
				      rcu_read_lock_sched_held())->cfg;
}

/*
 * The views of @cfg that keep state between probe hits (stamps in the
 * stamp table, softnet's runs in flight), which must end when the view
 * is switched off (struct skbprof_part's sweep).
 */
enum {
	SKBPROF_VIEW_RX = 1 << 0,	/* a receive stage */
	SKBPROF_VIEW_TX = 1 << 1,	/* a transmit stage */
	SKBPROF_VIEW_LIFETIME = 1 << 2,	/* lifetime N */
	SKBPROF_VIEW_SOFTNET = 1 << 3,	/* softnet on */
	SKBPROF_VIEWS_ALL = (1 << 4) - 1,
};

unsigned int skbprof_config_views(const struct skbprof_config *cfg);

/* Serialise the writers of the configuration (process context). */
void skbprof_config_lock(void);
void skbprof_config_unlock(void);

/* The configuration in force, to a writer (skbprof_config_lock() held). */
const struct skbprof_config *skbprof_config_locked(void);

/*
 * A copy of the configuration in force, for the writer to change; NULL
 * when out of memory.  It must be published or discarded before the lock
 * is released.
 */
struct skbprof_config *skbprof_config_copy(void);

/* Put @next in force; the one it replaces is freed after a grace period. */
void skbprof_config_publish(struct skbprof_config *next);

/* Throw away a copy that was not published. */
void skbprof_config_discard(struct skbprof_config *next);

/*
 * Put the configuration at load in force (everything measured, no
 * filter); -ENOMEM.  Undone by skbprof_config_live_exit(), when nobody
 * reads it any more.
 */
int skbprof_config_live_init(void);
void skbprof_config_live_exit(void);

#endif /* _SKBPROF_CONFIG_LIVE_H */
