/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control file, /sys/kernel/debug/skbprof/control and
 * /proc/net/skbprof/control (control.c).
 */
#ifndef _SKBPROF_CONTROL_H
#define _SKBPROF_CONTROL_H

#include <linux/types.h>

struct skbprof_config;

/*
 * What a control write does to every part, done by main.c, which orders
 * the parts: control sits below main.c and knows no other part, so main.c
 * hands it these at load, once every part is up (skbprof_control_start()).
 * Control calls them under its lock (skbprof_config_lock()).
 *
 * @arm:   arm what @next needs in every part (struct skbprof_part); when
 *         a part cannot, trim it and the parts before it back to @cur, and
 *         return the errno with why in @msg.  Called before @next is
 *         published.
 * @trim:  disarm what @cfg, just published, does not need, and end what
 *         only the disarmed probes could have ended (a view switched off
 *         leaves no stamp behind when the write returns).
 * @reset: zero every part's counters (the `reset` command).
 */
struct skbprof_control_ops {
	int (*arm)(const struct skbprof_config *next,
		   const struct skbprof_config *cur, char *msg, size_t len);
	void (*trim)(const struct skbprof_config *cfg);
	void (*reset)(void);
};

/*
 * Every part is up: trim every part to the configuration in force, and
 * from now on arm, trim and reset through @ops.  Until then (the module
 * parameters, applied at control's init, before the other parts are up)
 * no part is armed or trimmed: each registers all its probes at its own
 * init, so this first trim also sweeps what they left of every view the
 * configuration has off.  Control forgets @ops when it goes down, the
 * last of the parts.
 */
void skbprof_control_start(const struct skbprof_control_ops *ops);

extern const struct skbprof_part skbprof_control_part;

#endif /* _SKBPROF_CONTROL_H */
