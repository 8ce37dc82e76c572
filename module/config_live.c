// SPDX-License-Identifier: GPL-2.0
/*
 * The configuration in force; see config_live.h.
 */
#include <linux/lockdep.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "config_live.h"
#include "stages.h"

/* Serialises the writers of skbprof_config_cur. */
static DEFINE_MUTEX(config_lock);

/* Replaced under config_lock, read under RCU (skbprof_config()). */
struct skbprof_config_box __rcu *skbprof_config_cur;

unsigned int skbprof_config_views(const struct skbprof_config *cfg)
{
	return (cfg->stages & SKBPROF_RX_STAGES ? SKBPROF_VIEW_RX : 0) |
	       (cfg->stages & SKBPROF_TX_STAGES ? SKBPROF_VIEW_TX : 0) |
	       (cfg->lifetime ? SKBPROF_VIEW_LIFETIME : 0) |
	       (cfg->softnet ? SKBPROF_VIEW_SOFTNET : 0);
}

void skbprof_config_lock(void)
{
	mutex_lock(&config_lock);
}

void skbprof_config_unlock(void)
{
	mutex_unlock(&config_lock);
}

static struct skbprof_config_box *config_held(void)
{
	return rcu_dereference_protected(skbprof_config_cur,
					 lockdep_is_held(&config_lock));
}

const struct skbprof_config *skbprof_config_locked(void)
{
	return &config_held()->cfg;
}

struct skbprof_config *skbprof_config_copy(void)
{
	struct skbprof_config_box *next;

	lockdep_assert_held(&config_lock);
	next = kmalloc(sizeof(*next), GFP_KERNEL);
	if (!next)
		return NULL;
	next->cfg = config_held()->cfg;
	return &next->cfg;
}

void skbprof_config_publish(struct skbprof_config *next)
{
	struct skbprof_config_box *old = config_held();
	struct skbprof_config_box *box = container_of(next, struct skbprof_config_box, cfg);

	rcu_assign_pointer(skbprof_config_cur, box);
	kfree_rcu(old, rcu);
}

void skbprof_config_discard(struct skbprof_config *next)
{
	lockdep_assert_held(&config_lock);
	kfree(container_of(next, struct skbprof_config_box, cfg));
}

int skbprof_config_live_init(void)
{
	struct skbprof_config_box *box;

	box = kzalloc(sizeof(*box), GFP_KERNEL);
	if (!box)
		return -ENOMEM;
	skbprof_config_default(&box->cfg, &skbprof_stage_names);
	RCU_INIT_POINTER(skbprof_config_cur, box);
	return 0;
}

void skbprof_config_live_exit(void)
{
	kfree(rcu_dereference_protected(skbprof_config_cur, 1));
	RCU_INIT_POINTER(skbprof_config_cur, NULL);
}
