/* SPDX-License-Identifier: GPL-2.0 */
/*
 * skbprof reader tool: the views that run on their own, called by
 * skbprof.c's main(): prom (prom.c), top (top.c), trace (trace.c).
 */
#ifndef SKBPROF_VIEWS_H
#define SKBPROF_VIEWS_H

int prom_main(const char *prev);
int top_main(void);
int trace_main(void);

#endif /* SKBPROF_VIEWS_H */
