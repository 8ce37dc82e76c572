/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for <linux/seqlock.h>.  Single-threaded: the
 * seqcount only counts, which lets tests check that writers bracket
 * their updates.
 */
#ifndef SKBPROF_SHIM_SEQLOCK_H
#define SKBPROF_SHIM_SEQLOCK_H
#include <stdlib.h>

typedef struct {
	unsigned int sequence;
} seqcount_t;

static inline void seqcount_init(seqcount_t *s)
{
	s->sequence = 0;
}

static inline void write_seqcount_begin(seqcount_t *s)
{
	s->sequence++;
}

static inline void write_seqcount_end(seqcount_t *s)
{
	s->sequence++;
}

static inline unsigned int read_seqcount_begin(const seqcount_t *s)
{
	if (s->sequence & 1)
		abort();	/* a writer left a section open */
	return s->sequence;
}

static inline int read_seqcount_retry(const seqcount_t *s, unsigned int start)
{
	return s->sequence != start;
}
#endif
