/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe engine (probe_engine.c): what serves a table of probe groups
 * (probes.c), by mechanism, and what every handler of the table uses: a
 * candidate's description, hit() to count it, ARG() to read the probed
 * function's arguments.
 */
#ifndef _SKBPROF_PROBE_ENGINE_H
#define _SKBPROF_PROBE_ENGINE_H

#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/tracepoint.h>

#include "skbprof.h"

/* How a candidate is declared: a tracepoint, a function entry, a return. */
enum cand_type { CT_TP, CT_ENTRY, CT_KRETPROBE };

/*
 * What serves it on the running kernel, chosen at load: a function entry
 * gets the ftrace callback where ftrace can trace the function, else a
 * kprobe.
 */
enum cand_mech { CM_NONE, CM_TRACEPOINT, CM_FTRACE, CM_KPROBE, CM_KRETPROBE };

/* What a group serves, and so when it must be armed (group_needed()). */
enum group_view {
	GV_POINT,	/* a timeline point: its direction's stages */
	GV_UDP_CALL,	/* UDP's tx app: app-udp, tx-total */
	GV_REKEY,	/* any timeline, kretprobes on */
	GV_REKEY_END,	/* any timeline, kretprobes off */
	GV_TX,		/* lifetime, or any transmit timeline, kretprobes on */
	GV_TX_END,	/* any transmit timeline, kretprobes off */
	GV_FREE,	/* any timeline, or lifetime */
	GV_DROP,	/* the drops view, any timeline, or lifetime */
	GV_LIFETIME,	/* lifetime */
	GV_LIFE_GRO,	/* lifetime, while no receive stage feeds GRO's tracker */
	GV_SOFTNET,	/* softnet */
};

/*
 * CS_ACTIVE: armed.  CS_IDLE: served at load, disarmed since as no view
 * needs it (a kprobe disabled, a tracepoint probe unregistered).
 * CS_STANDBY: another candidate of its group serves.
 */
enum cand_state { CS_UNTRIED, CS_ACTIVE, CS_IDLE, CS_STANDBY, CS_FAILED };

struct cand;

/*
 * An entry handler reads the probed function's arguments where its
 * mechanism saved them, with ARG(n): ftrace's registers @f, or a kprobe's
 * @regs when @f is NULL.  Nothing is copied that the handler does not read.
 */
typedef void (*entry_fn)(struct cand *c, SKBPROF_FREGS *f,
			 struct pt_regs *regs);
/* The arguments an entry handler may read: the probed function's first. */
#define ENTRY_ARGS	5

static __always_inline unsigned long entry_arg(SKBPROF_FREGS *f,
					       struct pt_regs *regs,
					       unsigned int n)
{
	return f ? skbprof_ftrace_arg(f, n) : regs_get_kernel_argument(regs, n);
}

struct cand {
	const char *sym;
	const char *group;		/* its group's name, set at load */
	u8 type;
	void *tp_fn;
	entry_fn en;
	u8 arg;			/* en_point(): the argument that is the skb */
	kretprobe_handler_t entry, ret;
	size_t data_size;
	/* set at load; a point's from its group (en_point(), tp_point()) */
	s8 kind;
	u8 point;
	u8 proto;
	u8 mech;
	u8 state;
	int err;
	unsigned int id;		/* slot in hits[] */
	bool ftrace_off;		/* failed: on ftrace's site, ftrace off */
	unsigned long ip;		/* CM_FTRACE: the traced call site */
	atomic_long_t missed;		/* CM_FTRACE: hits the guard refused */
	struct tracepoint *tp;
	struct kprobe kp;
	struct kretprobe krp;
};

struct group {
	const char *name;
	s8 kind;		/* STAMP_RX, STAMP_TX; -1: not a timeline point */
	s8 point;
	u8 proto;		/* IPPROTO_TCP, IPPROTO_UDP; 0: either */
	bool all;		/* every candidate that works, not the first */
	u8 view;		/* enum group_view: what needs it */
	bool optional;		/* its function is younger than some kernels */
	struct cand *c;
	unsigned int n;
	/* called before it is armed: what its probes saw is out of date */
	void (*arming)(void);
};

/* Each candidate's hits, per CPU, by its id (set at load). */
extern u64 __percpu *probe_hits;

/*
 * Count a hit; false in benchmark mode, where handlers do nothing else,
 * and in NMI context (a panic through netconsole), where a handler could
 * spin on a bucket lock the interrupted context holds.
 */
static inline bool hit(struct cand *c)
{
	/* every handler runs with preemption off (SKBPROF_TP_ENTER()) */
	SKBPROF_ASSERT(preemptible());
	if (skbprof_bench_empty || in_nmi())
		return false;
	this_cpu_inc(probe_hits[c->id]);
	return true;
}

/* argument @n of a probed function: of an entry handler, of a kretprobe's */
#define ARG(n)	({ BUILD_BUG_ON((n) >= ENTRY_ARGS);			\
		   (void *)entry_arg(f, regs, n); })
#define REG_ARG(regs, n)	((void *)regs_get_kernel_argument(regs, n))

static inline struct cand *krp_cand(struct kretprobe_instance *ri)
{
	return container_of(skbprof_kretprobe_of(ri), struct cand, krp);
}

/*
 * The engine's side of the probes part (probes.c): serve the @n groups of
 * @table, which must outlive the engine (see the top of probe_engine.c),
 * and take them out again; arm what a configuration needs, trim what it
 * does not; zero the hits; the lines of stats; and the files probes,
 * groups and stages.
 */
int probe_engine_init(struct group *table, unsigned int n);
void probe_engine_exit(void);
const char *probe_engine_name(unsigned int id);
int probe_engine_arm(const struct skbprof_config *cfg, char *msg, size_t len);
void probe_engine_trim(const struct skbprof_config *cfg);
void probe_engine_reset(void);
void probe_engine_stats(struct seq_file *m);
void probe_engine_stats_rows(struct seq_file *m);

#define PROBE_ENGINE_NFILES	3
extern const struct skbprof_file probe_engine_files[PROBE_ENGINE_NFILES];

#endif /* _SKBPROF_PROBE_ENGINE_H */
