/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Just enough of the kernel's API for skbprof's pure-logic module code to
 * build in userspace for the host unit tests.  Single-threaded: the
 * seqcount here only counts, which lets tests check that writers bracket
 * their updates.
 */
#ifndef SKBPROF_KSHIM_H
#define SKBPROF_KSHIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/if_ether.h>
#include <linux/in.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;

#define READ_ONCE(x)		(*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v)	(*(volatile __typeof__(x) *)&(x) = (v))

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

#define sort(base, num, size, cmp, swap)	qsort(base, num, size, cmp)

#endif
