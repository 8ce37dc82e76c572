/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probes part: the candidates that serve the timeline points
 * (probes.c), their registration at load, their arming per view, and
 * their lines in stats (its engine, probe_engine.c).  It drives the
 * timelines (timeline.h), the drops view (drops.h) and lifetime
 * (lifetime.h); nothing calls it but main.c, through its part.
 */
#ifndef _SKBPROF_PROBES_H
#define _SKBPROF_PROBES_H

#include "skbprof.h"

extern const struct skbprof_part skbprof_probes_part;

#endif /* _SKBPROF_PROBES_H */
