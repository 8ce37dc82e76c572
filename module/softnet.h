/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The softnet view (softnet.c): below the stack, per CPU, how long the
 * NET_RX and NET_TX softirqs wait once raised and how long they run, how
 * long each NAPI poll takes, and the kernel's own per-CPU counters
 * (softirqs, squeezes, backlog drops) since the last reset.  The probes
 * part (probes.c) calls it from the softirq and napi_poll tracepoints
 * while `softnet on`.
 */
#ifndef _SKBPROF_SOFTNET_H
#define _SKBPROF_SOFTNET_H

#include "skbprof.h"

/* The irq:softirq_* tracepoints, any vector (@vec). */
void softnet_raise(unsigned int vec);
void softnet_entry(unsigned int vec);
void softnet_exit(unsigned int vec);
/* napi:napi_poll: a poll did @work of its @budget. */
void softnet_poll(int work, int budget);

extern const struct skbprof_part skbprof_softnet_part;

#endif /* _SKBPROF_SOFTNET_H */
