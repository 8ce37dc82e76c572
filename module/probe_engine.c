// SPDX-License-Identifier: GPL-2.0
/*
 * The probe engine: registers, serves and arms the probe groups of a
 * table (probes.c's groups[]), and draws them in their files.
 *
 * Each point of a timeline (see timeline.h) is served by a group of
 * candidates: stable tracepoints where one sits at the right place, else
 * function entries, else kretprobes where the skb is the return value.
 * A function entry gets skbprof's ftrace callback where ftrace traces the
 * function (a fraction of a kprobe's cost), a kprobe elsewhere; stats
 * names the mechanism of each ("probe GROUP SYMBOL MECHANISM ...").
 * Functions get inlined or renamed between kernels, so a group lists
 * every candidate known on the supported kernels and, at load, registers
 * the first that works ("first" groups) or every one that works ("all"
 * groups: several hand-off tracepoints, the free paths).  A candidate
 * that fails is reported in stats with its error and never fails the
 * load.
 *
 * Every group must be served on every supported kernel: stats says so per
 * group ("group NAME served").  A group is "absent", not unserved, only
 * when it watches a function younger than some supported kernel
 * (@optional) and none of its candidates exists.  A kernel that leaves a
 * group "unserved" (a newer one that renamed or inlined its functions) is
 * refused at load, naming the group, unless allow_unserved=1 asks to run
 * without its stages.
 *
 * Arming.  A group is armed only while the configuration needs it
 * (group_needed()): the points of a direction while one of its stages is
 * measured, for the protocols those stages are for (UDP's send calls,
 * tx app, only for app-udp and tx-total); the free paths while a
 * timeline or lifetime is followed, kfree_skb's (which feeds the drops
 * view) also while drops are counted; the entries of pskb_expand_head()
 * and software GSO that end a followed skb's timeline there while a
 * timeline (a transmit one, for GSO) is followed and kretprobes are off
 * (the default), and instead, with kretprobes on, the kretprobes that
 * carry it on to the new head and the segments, software GSO's also
 * while lifetime is on; a point group a kretprobe serves only with
 * kretprobes on (see compat.h for their cost); lifetime's constructors
 * while lifetime is on, and its own GRO probes while no receive stage is
 * too (the receive groups feed the same GRO tracker then); softnet's
 * softirq and NAPI tracepoints while softnet is on.
 * Every group is registered at load, to learn whether the kernel serves
 * it; main.c then disarms what the configuration does not need.  Later
 * control writes call probe_engine_arm() before the new configuration is
 * published and probe_engine_trim() after, serialised by the control file's
 * mutex; a group is armed while one of its candidates is
 * (group_armed()).  Kprobes stay registered until unload and are enabled
 * and disabled, so switching views waits for no grace period; the ftrace
 * entries a write switches join or leave the ftrace callback's filter in
 * one edit (ft_edit()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/ftrace.h>
#include <linux/hash.h>
#include <linux/kprobes.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/tracepoint.h>
#include <linux/utsname.h>

#include "config.h"
#include "probe_engine.h"

/* The table it serves: probe_engine_init()'s. */
static struct group *groups;
static unsigned int ngroups;

static bool allow_unserved;
module_param(allow_unserved, bool, 0400);
MODULE_PARM_DESC(allow_unserved,
		 "Load even when no probe serves a group on this kernel; its stages are then unavailable");

static bool entry_ftrace = true;
module_param(entry_ftrace, bool, 0400);
MODULE_PARM_DESC(entry_ftrace,
		 "Serve function entries with an ftrace callback where ftrace traces them (default); 0: kprobes");

/* writable: arming after load reads it too (under kernel_param_lock) */
static char *probe_deny;
SKBPROF_TEST_PARAM(probe_deny, probe_deny, charp, 0600,
		   "Testing only: candidates (comma-separated) to treat as absent from the kernel");

static bool ftrace_batch = true;
SKBPROF_TEST_PARAM(ftrace_batch, ftrace_batch, bool, 0600,
		   "Testing only: 0 edits ftrace's filter one address at a time, as where the kernel has no ftrace_set_filter_ips()");

u64 __percpu *probe_hits;
/* room for every candidate, filled on unload (see unregister_all) */
static struct kprobe **kp_batch;
static struct kretprobe **krp_batch;
/* the same, for the ftrace entries a control write switches (ft_edit()) */
static struct cand **ft_cands;
static unsigned long *ft_ips;

static inline struct cand *kp_cand(struct kprobe *p)
{
	return container_of(p, struct cand, kp);
}

/* ---- the function-entry probes: one ftrace callback, or kprobes ---- */

/*
 * Every function entry ftrace serves goes to one ftrace_ops, registered
 * for the module's lifetime: unregistering an ops waits for RCU-tasks
 * grace periods, one ops per function would wait once for each.  Arming
 * a candidate adds its function to the ops' filter, disarming removes it.
 * The filter always holds skbprof_ftrace_park() too, which nothing calls:
 * an ops whose filter is empty traces every function in the kernel.
 *
 * ftrace calls the ops through a trampoline of its own while no other
 * tracer (a kprobe, the function tracer) is on the same function; with
 * another there, every hit walks the list of ops on it.
 *
 * ft_table maps a traced call site to its candidate; it is filled at load,
 * before the ops traces the site, and read only since.
 *
 * kernel.ftrace_enabled=0 makes ftrace call nothing: not this ops, nor
 * the kprobes that sit on ftrace's call sites (KPROBES_ON_FTRACE, every
 * function entry on x86-64), which would stay "active" and never fire.
 * So the ops is FTRACE_OPS_FL_PERMANENT, as livepatch's are: while it is
 * registered the kernel refuses to set the sysctl to 0 (EBUSY), and it
 * is registered even with entry_ftrace=0, tracing only the park, to hold
 * the sysctl for those kprobes.  Loaded while the sysctl is 0, the
 * registration fails with EBUSY (ft_off): the candidates that would need
 * ftrace are then unavailable ("ftrace-disabled"), not falsely active.
 */
#define FT_BITS		6
static struct cand *ft_table[1 << FT_BITS];
static bool ft_registered;
static int ft_err;		/* why the ops could not be registered */
static bool ft_off;		/* kernel.ftrace_enabled was 0 at load */

static noinline void skbprof_ftrace_park(void)
{
	barrier();
}

/*
 * The callback's guard: one bit per context (task, softirq, hardirq) on
 * each CPU, so that a handler never runs inside itself (a function it
 * calls being traced), while a softirq that interrupts a handler still
 * gets its own hits, which kprobes would miss (nmissed).  In an NMI,
 * hit() declines.  Preemption stays off while the handler runs, as in a
 * kprobe's.
 */
static DEFINE_PER_CPU(unsigned int, ft_busy);

static __always_inline int ft_trylock(void)
{
	unsigned long pc = preempt_count();
	int bit = pc & HARDIRQ_MASK ? 2 : pc & SOFTIRQ_OFFSET ? 1 : 0;

	preempt_disable_notrace();
	if (unlikely(__this_cpu_read(ft_busy) & BIT(bit))) {
		preempt_enable_notrace();
		return -1;
	}
	__this_cpu_or(ft_busy, BIT(bit));
	return bit;
}

static __always_inline void ft_unlock(int bit)
{
	__this_cpu_and(ft_busy, ~BIT(bit));
	preempt_enable_notrace();
}

static inline unsigned int ft_slot(unsigned long ip)
{
	return hash_long(ip, FT_BITS);
}

static struct cand *ft_cand(unsigned long ip)
{
	unsigned int i = ft_slot(ip), n;

	for (n = 0; n < ARRAY_SIZE(ft_table); n++) {
		if (!ft_table[i] || ft_table[i]->ip == ip)
			return ft_table[i];
		i = (i + 1) % ARRAY_SIZE(ft_table);
	}
	return NULL;
}

static void notrace skbprof_ftrace_entry(unsigned long ip,
					 unsigned long parent_ip,
					 struct ftrace_ops *op,
					 SKBPROF_FREGS *f)
{
	struct cand *c = ft_cand(ip);
	int bit;

	if (unlikely(!c))
		return;			/* skbprof_ftrace_park() */
	bit = ft_trylock();
	if (unlikely(bit < 0)) {
		atomic_long_inc(&c->missed);
		return;
	}
	if (hit(c))
		c->en(c, f, NULL);
	ft_unlock(bit);
}

static struct ftrace_ops ft_ops = {
	.func	= skbprof_ftrace_entry,
	.flags	= SKBPROF_FTRACE_OPS_FLAGS | FTRACE_OPS_FL_PERMANENT,
};

/*
 * Register the ops, tracing only the park.  On error, kprobes serve; but
 * with kernel.ftrace_enabled=0 (EBUSY, see above) not those on ftrace's
 * call sites.
 */
static void ft_init(void)
{
	unsigned long park = (unsigned long)skbprof_ftrace_park;

	memset(ft_table, 0, sizeof(ft_table));
	ft_off = false;
	ft_err = ftrace_set_filter_ip(&ft_ops, park, 0, 1);
	if (ft_err)
		goto out;
	ft_err = register_ftrace_function(&ft_ops);
	if (ft_err)
		ftrace_set_filter_ip(&ft_ops, park, 1, 0);
out:
	ft_registered = !ft_err;
	ft_off = ft_err == -EBUSY;
	if (ft_off)
		pr_warn("kernel.ftrace_enabled is 0: no probe on ftrace's call sites can fire, and those that need one are unavailable (ftrace-disabled); set it to 1 and load again\n");
	else if (ft_err)
		pr_warn("no ftrace callback (%d): function entries get kprobes\n",
			ft_err);
}

static void ft_exit(void)
{
	size_t i;

	if (!ft_registered)
		return;
	unregister_ftrace_function(&ft_ops);
	ft_registered = false;
	/*
	 * Empty the filter, which frees its entries: 5.10 does not export
	 * ftrace_free_filter().  The ops traces nothing now.
	 */
	for (i = 0; i < ARRAY_SIZE(ft_table); i++)
		if (ft_table[i])
			ftrace_set_filter_ip(&ft_ops, ft_table[i]->ip, 1, 0);
	ftrace_set_filter_ip(&ft_ops, (unsigned long)skbprof_ftrace_park, 1, 0);
}

/*
 * Give @c the callback at @ip, if ftrace traces a call site there: enter
 * it in ft_table, then in the ops' filter, which refuses any other
 * address.  On refusal the slot is emptied again: it ends its probe
 * sequence, so every other candidate stays reachable.
 */
static int ft_take(struct cand *c, unsigned long ip)
{
	unsigned int i = ft_slot(ip), n;
	int err;

	for (n = 0; ft_table[i]; n++, i = (i + 1) % ARRAY_SIZE(ft_table))
		if (n == ARRAY_SIZE(ft_table) - 1 || ft_table[i]->ip == ip)
			return -EBUSY;
	c->ip = ip;
	WRITE_ONCE(ft_table[i], c);
	err = ftrace_set_filter_ip(&ft_ops, ip, 0, 0);
	if (err)
		WRITE_ONCE(ft_table[i], NULL);
	return err;
}

/*
 * Serve @c, whose kprobe found its function, with the callback at the
 * call site ftrace traces.  With kprobes on ftrace the kprobe at the
 * entry sits on the site and says so (KPROBE_FLAG_FTRACE).  Without
 * (arm64) the site is one of the first instructions (compat.h,
 * SKBPROF_FTRACE_SITE_OFFSETS).  0, or an error: then a kprobe serves @c.
 */
static int ft_serve(struct cand *c)
{
	static const unsigned int site[] = SKBPROF_FTRACE_SITE_OFFSETS;
	unsigned long addr = (unsigned long)c->kp.addr;
	int err = -ENOENT;
	size_t i;

	if (c->kp.flags & KPROBE_FLAG_FTRACE)
		return ft_take(c, addr);
	for (i = 0; i < ARRAY_SIZE(site) && err && err != -EBUSY; i++)
		err = ft_take(c, addr + site[i]);
	return err;
}

/* A kprobe on an entry that ftrace cannot serve: the same handler. */
static int kp_entry(struct kprobe *p, struct pt_regs *regs)
{
	struct cand *c = kp_cand(p);

	if (hit(c))
		c->en(c, NULL, regs);
	return 0;
}

/* ---- registration ---- */

enum group_state { GS_SERVED, GS_ABSENT, GS_UNSERVED };

static const char *const group_state_names[] = {
	[GS_SERVED] = "served",
	[GS_ABSENT] = "absent",
	[GS_UNSERVED] = "unserved",
};

static inline bool cand_works(const struct cand *c)
{
	return c->state == CS_ACTIVE || c->state == CS_IDLE;
}

/* Is a candidate of @gr armed now? */
static bool group_armed(const struct group *gr)
{
	size_t i;

	for (i = 0; i < gr->n; i++)
		if (gr->c[i].state == CS_ACTIVE)
			return true;
	return false;
}

/* See the top of the file. */
static enum group_state group_state(const struct group *gr)
{
	bool missing = true;
	size_t i;

	for (i = 0; i < gr->n; i++) {
		if (cand_works(&gr->c[i]))
			return GS_SERVED;
		missing &= gr->c[i].state == CS_FAILED &&
			   gr->c[i].err == -ENOENT;
	}
	return gr->optional && missing ? GS_ABSENT : GS_UNSERVED;
}

/* Was a candidate of @gr refused as ftrace calls nothing (ft_off)? */
static bool group_ftrace_off(const struct group *gr)
{
	size_t i;

	for (i = 0; i < gr->n; i++)
		if (gr->c[i].ftrace_off)
			return true;
	return false;
}

/* Is @sym in the comma-separated probe_deny list? */
static bool denied(const char *sym)
{
	size_t n = strlen(sym);
	bool found = false;
	const char *p;

	kernel_param_lock(THIS_MODULE);
	p = probe_deny;
	while (p && *p && !found) {
		found = !strncmp(p, sym, n) &&
			(p[n] == ',' || !p[n] || p[n] == '\n');
		p = strchr(p, ',');
		if (p)
			p++;
	}
	kernel_param_unlock(THIS_MODULE);
	return found;
}

struct tp_find {
	const char *name;
	struct tracepoint *tp;
};

static void tp_match(struct tracepoint *tp, void *priv)
{
	struct tp_find *f = priv;

	if (!f->tp && !strcmp(tp->name, f->name))
		f->tp = tp;
}

/*
 * Does @p, a kprobe of @c, sit on an ftrace call site while ftrace calls
 * nothing (kernel.ftrace_enabled=0 at load)?  Then it would never fire:
 * @c is unavailable, and says why.
 */
static bool ft_cannot_fire(struct cand *c, const struct kprobe *p)
{
	c->ftrace_off = ft_off && (p->flags & KPROBE_FLAG_FTRACE);
	return c->ftrace_off;
}

/*
 * A function entry.  A kprobe, registered disabled, finds the function
 * (kallsyms_lookup_name() is not exported).  Where ftrace traces its
 * entry (ft_serve()) the ftrace callback serves it, and probe_engine_init()
 * takes the kprobe out again; elsewhere the kprobe serves it.
 */
static int entry_register(struct cand *c)
{
	int err;

	memset(&c->kp, 0, sizeof(c->kp));
	c->kp.symbol_name = c->sym;
	c->kp.pre_handler = kp_entry;
	c->kp.flags = KPROBE_FLAG_DISABLED;
	err = register_kprobe(&c->kp);
	if (err)
		return err;
	if (entry_ftrace && ft_registered && !ft_serve(c)) {
		c->mech = CM_FTRACE;
		return 0;
	}
	c->mech = CM_KPROBE;
	/* probe_engine_init() takes it out with the lookups' */
	if (ft_cannot_fire(c, &c->kp))
		return -EBUSY;
	err = enable_kprobe(&c->kp);
	if (err)
		unregister_kprobe(&c->kp);
	return err;
}

static int cand_register(struct cand *c)
{
	struct tp_find f = { .name = c->sym };
	int err;

	c->mech = CM_NONE;
	c->ftrace_off = false;
	if (denied(c->sym))
		return -ENOENT;
	switch (c->type) {
	case CT_TP:
		for_each_kernel_tracepoint(tp_match, &f);
		if (!f.tp)
			return -ENOENT;
		c->tp = f.tp;
		c->mech = CM_TRACEPOINT;
		return tracepoint_probe_register(c->tp, c->tp_fn, c);
	case CT_ENTRY:
		return entry_register(c);
	case CT_KRETPROBE:
		c->mech = CM_KRETPROBE;
		memset(&c->krp, 0, sizeof(c->krp));
		c->krp.kp.symbol_name = c->sym;
		c->krp.entry_handler = c->entry;
		c->krp.handler = c->ret;
		c->krp.data_size = c->data_size;
		/* instances for callers that sleep inside (allocations) */
		c->krp.maxactive = max_t(int, 64, 8 * num_possible_cpus());
		/*
		 * Disabled until it is known to fire: armed on ftrace while
		 * ftrace_enabled=0, a kprobe leaves flags on its record when
		 * it goes (a text update clears them, and none runs then),
		 * and when ftrace's last ops goes, its check of the records
		 * warns and disables ftrace for good (ftrace_kill()).
		 */
		c->krp.kp.flags = KPROBE_FLAG_DISABLED;
		err = register_kretprobe(&c->krp);
		if (err)
			return err;
		if (ft_cannot_fire(c, &c->krp.kp))
			err = -EBUSY;
		else
			err = enable_kretprobe(&c->krp);
		if (err)
			unregister_kretprobe(&c->krp);
		return err;
	}
	return -EINVAL;
}

static const char *why(int err)
{
	switch (err) {
	case -ENOENT:
		return "no-such-symbol";
	case -EINVAL:
		return "not-probeable";
	case -EEXIST:
		return "already-probed";
	case -EBUSY:
		return "busy";
	case -ENOMEM:
		return "no-memory";
	default:
		return "error";
	}
}

/*
 * Is @gr served by a kretprobe: its first candidate that works?  A point
 * group so served (TCP's tx app before 5.15 where the compiler inlined
 * skb_entail()) is armed only with kretprobes on.
 */
static bool group_by_kretprobe(const struct group *gr)
{
	size_t i;

	for (i = 0; i < gr->n; i++)
		if (cand_works(&gr->c[i]))
			return gr->c[i].mech == CM_KRETPROBE;
	return false;
}

/* Does @cfg need @gr armed?  See the top of the file. */
static bool group_needed(const struct group *gr,
			 const struct skbprof_config *cfg)
{
	u32 timelines = cfg->stages & (SKBPROF_RX_STAGES | SKBPROF_TX_STAGES);
	unsigned int st;

	switch (gr->view) {
	case GV_LIFETIME:
		return cfg->lifetime;
	case GV_LIFE_GRO:
		return cfg->lifetime && !(cfg->stages & SKBPROF_RX_STAGES);
	case GV_SOFTNET:
		return cfg->softnet;
	case GV_UDP_CALL:
		return cfg->stages & (BIT(SKBPROF_STAGE_APP_UDP) |
				      BIT(SKBPROF_STAGE_TX_TOTAL));
	case GV_DROP:
		if (cfg->stages & BIT(SKBPROF_STAGE_DROPS))
			return true;
		fallthrough;
	case GV_FREE:
		return cfg->lifetime || timelines;
	case GV_REKEY:
		return timelines && cfg->kretprobes;
	case GV_REKEY_END:
		return timelines && !cfg->kretprobes;
	case GV_TX:
		return cfg->lifetime ||
		       (cfg->kretprobes && (cfg->stages & SKBPROF_TX_STAGES));
	case GV_TX_END:
		return !cfg->kretprobes && (cfg->stages & SKBPROF_TX_STAGES);
	}
	if (!cfg->kretprobes && group_by_kretprobe(gr))
		return false;
	/* a point: for a stage of its direction and protocol */
	for (st = 0; st < SKBPROF_TIMELINE_STAGES; st++) {
		const struct skbprof_stage_def *d = &skbprof_stages[st];

		if ((cfg->stages & BIT(st)) && d->dir == gr->kind &&
		    (!d->proto || !gr->proto || d->proto == gr->proto))
			return true;
	}
	return false;
}

/*
 * Take every probe out at once, disarmed ones too.  Each single
 * unregister_kprobe() waits for its own grace period; the array calls
 * wait for one each, so unloading costs two grace periods however many
 * probes there are (a debug kernel under a flood takes minutes per grace
 * period).  Disarmed kprobes are skipped by the kernel before the wait,
 * so no handler runs once these return; the tracepoint probes, those
 * probe_engine_trim() took out too, need their own synchronisation.
 */
static void unregister_all(void)
{
	unsigned int nkp = 0, nkrp = 0;
	size_t g, i;

	for (g = 0; g < ngroups; g++) {
		for (i = 0; i < groups[g].n; i++) {
			struct cand *c = &groups[g].c[i];

			if (c->mech == CM_TRACEPOINT && c->state == CS_ACTIVE)
				tracepoint_probe_unregister(c->tp, c->tp_fn, c);
			else if (c->mech == CM_KPROBE && cand_works(c))
				kp_batch[nkp++] = &c->kp;
			else if (c->mech == CM_KRETPROBE && cand_works(c))
				krp_batch[nkrp++] = &c->krp;
			c->state = CS_UNTRIED;
		}
	}
	unregister_kprobes(kp_batch, nkp);
	unregister_kretprobes(krp_batch, nkrp);
	ft_exit();
	tracepoint_synchronize_unregister();
}

/*
 * Arm a candidate registered at load: kprobes stay registered and are
 * only enabled and disabled (as the kernel's kprobe events do), without
 * waiting for a grace period; a tracepoint probe is registered again.
 */
static int cand_arm(struct cand *c)
{
	if (denied(c->sym))
		return -ENOENT;
	switch (c->mech) {
	case CM_TRACEPOINT:
		return tracepoint_probe_register(c->tp, c->tp_fn, c);
	case CM_FTRACE:
		return ftrace_set_filter_ip(&ft_ops, c->ip, 0, 0);
	case CM_KPROBE:
		return enable_kprobe(&c->kp);
	case CM_KRETPROBE:
		return enable_kretprobe(&c->krp);
	}
	return -EINVAL;
}

/*
 * Disarm an armed candidate.  A handler may still run on another CPU
 * when this returns: harmless, as it touches only what lives until
 * unload, and unregister_all() waits for them all.
 */
static void cand_disarm(struct cand *c)
{
	switch (c->mech) {
	case CM_TRACEPOINT:
		/* should it fail (no memory), the probe stays armed */
		if (tracepoint_probe_unregister(c->tp, c->tp_fn, c))
			return;
		break;
	case CM_FTRACE:
		/* the same; skbprof_ftrace_park() keeps the filter from going empty */
		if (ftrace_set_filter_ip(&ft_ops, c->ip, 1, 0))
			return;
		break;
	case CM_KPROBE:
		disable_kprobe(&c->kp);
		break;
	case CM_KRETPROBE:
		disable_kretprobe(&c->krp);
		break;
	}
	c->state = CS_IDLE;
}

/*
 * Test hook: sleep this long between the disarming of two candidates of
 * a group, so that a test sees what the probes of a half-disarmed group
 * leave behind (the sweep must end it).
 */
static unsigned int trim_gap_ms;
SKBPROF_TEST_PARAM(trim_gap_ms, trim_gap_ms, uint, 0400,
		   "Testing only: sleep N ms between the disarming of a group's probes (0: none)");

/*
 * Disarm every armed candidate of @gr but its ftrace entries, which join
 * ft_cands[] (*@nft of them) for ft_edit(), in the reverse of the order
 * group_arm() arms them: a group that lists its exits first (life-gro,
 * softnet) loses its entries first, so no entry is seen whose exit is
 * not, and softnet's raise goes before its entry.  What a run in flight
 * leaves still takes the sweep (struct skbprof_part).
 */
static void group_disarm(struct group *gr, unsigned int *nft)
{
	bool gap = false;
	size_t i = gr->n;

	while (i--) {
		struct cand *c = &gr->c[i];

		if (c->state != CS_ACTIVE)
			continue;
		if (c->mech == CM_FTRACE) {
			ft_cands[(*nft)++] = c;
			continue;
		}
		if (gap)
			msleep(trim_gap_ms);
		cand_disarm(c);
		gap = trim_gap_ms;
	}
}

/*
 * Arm (@arm) or disarm the @n ftrace entries of ft_cands[]: one edit of
 * the ops' filter where the kernel has one for many addresses (compat.h),
 * so one scan of ftrace's records and one round of text patching however
 * many entries a control write switches (19 between "stages drops" and
 * "stages all").  Where it has none, or the edit failed (which leaves the
 * filter as it was), one address at a time, which names the one that
 * fails.  0, or the error of *@bad, which stays disarmed with those after
 * it; a removal that fails leaves its entry armed, as cand_disarm() does.
 */
static int ft_edit(unsigned int n, bool arm, const struct cand **bad)
{
	unsigned int i;
	int err;

	if (!n)
		return 0;
	for (i = 0; i < n; i++)
		ft_ips[i] = ft_cands[i]->ip;
	if (READ_ONCE(ftrace_batch) &&
	    !skbprof_ftrace_set_filter_ips(&ft_ops, ft_ips, n, !arm)) {
		for (i = 0; i < n; i++)
			ft_cands[i]->state = arm ? CS_ACTIVE : CS_IDLE;
		return 0;
	}
	for (i = 0; i < n; i++) {
		if (!arm) {
			cand_disarm(ft_cands[i]);
			continue;
		}
		err = cand_arm(ft_cands[i]);
		if (err) {
			*bad = ft_cands[i];
			return err;
		}
		ft_cands[i]->state = CS_ACTIVE;
	}
	return 0;
}

static void probes_free(void)
{
	kfree(ft_ips);
	ft_ips = NULL;
	kfree(ft_cands);
	ft_cands = NULL;
	kfree(krp_batch);
	krp_batch = NULL;
	kfree(kp_batch);
	kp_batch = NULL;
	free_percpu(probe_hits);
	probe_hits = NULL;
}

int probe_engine_init(struct group *table, unsigned int n)
{
	unsigned int id = 0, unserved = 0, nlookup = 0;
	size_t g, i;

	groups = table;
	ngroups = n;

	for (g = 0; g < ngroups; g++) {
		for (i = 0; i < groups[g].n; i++) {
			struct cand *c = &groups[g].c[i];

			c->id = id++;
			c->group = groups[g].name;
			c->kind = groups[g].kind;
			c->point = groups[g].point;
			c->proto = groups[g].proto;
		}
	}
	probe_hits = __alloc_percpu(sizeof(u64) * id, sizeof(u64));
	kp_batch = kcalloc(id, sizeof(*kp_batch), GFP_KERNEL);
	krp_batch = kcalloc(id, sizeof(*krp_batch), GFP_KERNEL);
	ft_cands = kcalloc(id, sizeof(*ft_cands), GFP_KERNEL);
	ft_ips = kcalloc(id, sizeof(*ft_ips), GFP_KERNEL);
	if (!probe_hits || !kp_batch || !krp_batch || !ft_cands || !ft_ips) {
		probes_free();
		return -ENOMEM;
	}
	ft_init();

	for (g = 0; g < ngroups; g++) {
		struct group *gr = &groups[g];
		bool served = false;

		for (i = 0; i < gr->n; i++) {
			struct cand *c = &gr->c[i];

			c->err = 0;
			if (served && !gr->all) {
				c->state = CS_STANDBY;
				continue;
			}
			c->err = cand_register(c);
			c->state = c->err ? CS_FAILED : CS_ACTIVE;
			served |= !c->err;
			if (c->mech == CM_FTRACE ||
			    (c->type == CT_ENTRY && c->ftrace_off))
				kp_batch[nlookup++] = &c->kp;
		}
		if (group_state(gr) != GS_UNSERVED)
			continue;
		unserved++;
		if (group_ftrace_off(gr) && allow_unserved)
			pr_warn("no probe serves %s while kernel.ftrace_enabled is 0: its stages are unavailable\n",
				gr->name);
		else if (group_ftrace_off(gr))
			pr_err("no probe serves %s while kernel.ftrace_enabled is 0; allow_unserved=1 loads without its stages\n",
			       gr->name);
		else if (allow_unserved)
			pr_warn("no probe serves %s on this kernel: its stages are unavailable\n",
				gr->name);
		else
			pr_err("no probe serves %s on this kernel (%s): not supported; allow_unserved=1 loads without its stages\n",
			       gr->name, init_utsname()->release);
	}
	/* the kprobes that found ftrace's functions: one grace period */
	unregister_kprobes(kp_batch, nlookup);
	if (unserved && !allow_unserved) {
		unregister_all();
		probes_free();
		return -ENOENT;
	}
	return 0;
}

/*
 * The symbol or tracepoint of probe @id, for the verbose trace: called
 * from the handlers, which run only between probe_engine_init() and
 * probe_engine_exit().
 */
const char *probe_engine_name(unsigned int id)
{
	size_t g, i;

	for (g = 0; g < ngroups; g++)
		for (i = 0; i < groups[g].n; i++)
			if (groups[g].c[i].id == id)
				return groups[g].c[i].sym;
	return "?";
}

void probe_engine_exit(void)
{
	unregister_all();
	probes_free();
}

/*
 * Arm the candidates of @gr that served at load, but its ftrace entries,
 * which join ft_cands[] (*@nft of them) for ft_edit(); *@bad: which
 * failed.
 */
static int group_arm(struct group *gr, const struct cand **bad,
		     unsigned int *nft)
{
	size_t i;
	int err;

	if (gr->arming)
		gr->arming();
	for (i = 0; i < gr->n; i++) {
		struct cand *c = &gr->c[i];

		if (c->state != CS_IDLE)
			continue;
		if (c->mech == CM_FTRACE && !denied(c->sym)) {
			ft_cands[(*nft)++] = c;
			continue;
		}
		err = cand_arm(c);
		if (err) {
			*bad = c;
			return err;
		}
		c->state = CS_ACTIVE;
	}
	return 0;
}

int probe_engine_arm(const struct skbprof_config *cfg, char *msg, size_t len)
{
	const struct cand *bad = NULL;
	unsigned int nft = 0;
	size_t g;
	int err = 0;

	for (g = 0; g < ngroups && !err; g++)
		if (!group_armed(&groups[g]) && group_needed(&groups[g], cfg))
			err = group_arm(&groups[g], &bad, &nft);
	if (!err)
		err = ft_edit(nft, true, &bad);
	/* main.c (parts_arm()) trims what this call armed */
	if (err)
		snprintf(msg, len, "cannot arm probe group %s: %s %s(%d)",
			 bad->group, bad->sym, why(err), err);
	return err;
}

void probe_engine_trim(const struct skbprof_config *cfg)
{
	unsigned int nft = 0;
	size_t g;

	for (g = 0; g < ngroups; g++)
		if (group_armed(&groups[g]) && !group_needed(&groups[g], cfg))
			group_disarm(&groups[g], &nft);
	ft_edit(nft, false, NULL);
}

/*
 * On @cpu itself (an IPI) or an offline CPU: see skbprof_reset_cpus().
 * Zeroing another CPU's counters from here would race its hit(): its
 * this_cpu_inc() reads and writes the counter back in one instruction,
 * but not atomically against another CPU's store, which it could undo.
 */
static void reset_hits(unsigned int cpu)
{
	size_t g, i;

	for (g = 0; g < ngroups; g++)
		for (i = 0; i < groups[g].n; i++)
			per_cpu(probe_hits[groups[g].c[i].id], cpu) = 0;
}

void probe_engine_reset(void)
{
	skbprof_reset_cpus(reset_hits);
}

static bool group_matches(const struct group *gr, int kind, int point,
			  u8 proto)
{
	return gr->kind == kind && gr->point == point &&
	       (!gr->proto || !proto || gr->proto == proto);
}

static bool probes_point_served(int kind, int point, u8 proto)
{
	size_t g, i;

	for (g = 0; g < ngroups; g++) {
		if (!group_matches(&groups[g], kind, point, proto))
			continue;
		for (i = 0; i < groups[g].n; i++)
			if (cand_works(&groups[g].c[i]))
				return true;
	}
	return false;
}

static void probes_point_names(struct seq_file *m, int kind, int point,
			       u8 proto)
{
	bool first = true;
	size_t g, i;

	for (g = 0; g < ngroups; g++) {
		if (!group_matches(&groups[g], kind, point, proto))
			continue;
		for (i = 0; i < groups[g].n; i++) {
			if (!cand_works(&groups[g].c[i]))
				continue;
			seq_printf(m, "%s%s", first ? "" : ",",
				   groups[g].c[i].sym);
			first = false;
		}
	}
	if (first)
		seq_puts(m, "none");
}

/* what serves a candidate, or for one that failed, what it was to be */
static const char *const mech_names[] = {
	[CM_TRACEPOINT] = "tracepoint",
	[CM_FTRACE] = "ftrace",
	[CM_KPROBE] = "kprobe",
	[CM_KRETPROBE] = "kretprobe",
};

static const char *const type_names[] = {
	[CT_TP] = "tracepoint",
	[CT_ENTRY] = "entry",
	[CT_KRETPROBE] = "kretprobe",
};

/*
 * What stats and the machine tables say of a candidate: its mechanism,
 * its state and, while active, its hits and the hits its mechanism
 * skipped; otherwise why it is not active, and the error if it failed.
 */
struct cand_view {
	const char *mech;
	const char *state;
	bool active;
	u64 hits;
	unsigned long missed;
	const char *why;
	bool failed;
	int err;
};

static void cand_view(const struct cand *c, struct cand_view *v)
{
	int cpu;

	v->mech = c->mech ? mech_names[c->mech] : type_names[c->type];
	v->active = c->state == CS_ACTIVE;
	v->hits = 0;
	v->missed = 0;
	v->why = NULL;
	v->failed = false;
	v->err = 0;
	switch (c->state) {
	case CS_ACTIVE:
		v->state = "active";
		/*
		 * Each CPU counts its own while we sum (KCSAN: a race of
		 * unknown origin, this_cpu_inc() being uninstrumented):
		 * benign, a sum that misses a hit in progress is the sum
		 * read a moment earlier.  READ_ONCE: one load each, untorn.
		 */
		for_each_possible_cpu(cpu)
			v->hits += READ_ONCE(*per_cpu_ptr(probe_hits + c->id, cpu));
		if (c->mech == CM_FTRACE)
			v->missed = atomic_long_read(&c->missed);
		else if (c->mech == CM_KPROBE)
			v->missed = c->kp.nmissed;
		else if (c->mech == CM_KRETPROBE)
			v->missed = c->krp.nmissed + c->krp.kp.nmissed;
		break;
	case CS_IDLE:
		v->state = "idle";
		v->why = "no-view-needs-it";
		break;
	case CS_FAILED:
		v->state = "unavailable";
		v->why = c->ftrace_off ? "ftrace-disabled" : why(c->err);
		v->failed = true;
		v->err = c->err;
		break;
	default:
		v->state = "standby";
		v->why = "another-candidate-serves";
		break;
	}
}

/*
 * Is @kind's @point (for @proto) served by kretprobes alone: each of its
 * groups that is served, by one (group_by_kretprobe())?  Then it is armed
 * only with kretprobes on.
 */
static bool point_by_kretprobe(int kind, int point, u8 proto)
{
	bool any = false;
	size_t g;

	for (g = 0; g < ngroups; g++) {
		if (!group_matches(&groups[g], kind, point, proto) ||
		    group_state(&groups[g]) != GS_SERVED)
			continue;
		if (!group_by_kretprobe(&groups[g]))
			return false;
		any = true;
	}
	return any;
}

/*
 * "needs-kretprobes": a stage asked for whose end a kretprobe alone
 * serves, with kretprobes off (TCP's tx app where 5.10's skb_entail() is
 * inlined).
 */
static const char *stage_state(const struct skbprof_stage_def *d, u32 stages,
			       bool kretprobes, int st)
{
	bool from = probes_point_served(d->dir, d->from, d->proto);
	bool to = probes_point_served(d->dir, d->to, d->proto);

	if (!(from && to))
		return "unavailable";
	if (!(stages & BIT(st)))
		return "off";
	if (!kretprobes &&
	    (point_by_kretprobe(d->dir, d->from, d->proto) ||
	     point_by_kretprobe(d->dir, d->to, d->proto)))
		return "needs-kretprobes";
	return "active";
}

/* The stages measured, and whether kretprobes may serve them. */
static u32 stages_in_force(bool *kretprobes)
{
	const struct skbprof_config *cfg;
	u32 stages;

	rcu_read_lock();
	cfg = skbprof_config();
	stages = cfg->stages;
	*kretprobes = cfg->kretprobes;
	rcu_read_unlock();
	return stages;
}

/*
 * Per stage: whether its points are served and measured, and by what;
 * "stage DIR NAME STATE FROM -> TO" for stats (@row false), or the
 * stages table's row "DIR NAME STATE FROM TO".
 */
static void stage_rows(struct seq_file *m, bool row)
{
	bool kretprobes;
	u32 stages = stages_in_force(&kretprobes);
	int st;

	for (st = 0; st < SKBPROF_TIMELINE_STAGES; st++) {
		const struct skbprof_stage_def *d = &skbprof_stages[st];

		seq_printf(m, "%s%s %s %s ", row ? "" : "stage ",
			   skbprof_dir_name(d->dir), d->name,
			   stage_state(d, stages, kretprobes, st));
		probes_point_names(m, d->dir, d->from, d->proto);
		seq_puts(m, row ? " " : " -> ");
		probes_point_names(m, d->dir, d->to, d->proto);
		seq_putc(m, '\n');
	}
}

static void group_rows(struct seq_file *m, bool row)
{
	size_t g;

	for (g = 0; g < ngroups; g++)
		seq_printf(m, "%s%s %s %s\n", row ? "" : "group ",
			   groups[g].name,
			   group_state_names[group_state(&groups[g])],
			   group_armed(&groups[g]) ? "armed" : "disarmed");
}

/*
 * Every candidate: "probe GROUP SYMBOL MECH active hits N nmissed M" or
 * "probe GROUP SYMBOL MECH STATE WHY[(ERR)]" for stats, or the probes
 * table's row "GROUP SYMBOL MECH STATE HITS NMISSED REASON ERROR" ("-"
 * where none).
 */
static void cand_rows(struct seq_file *m, bool row)
{
	struct cand_view v;
	size_t g, i;

	for (g = 0; g < ngroups; g++) {
		const struct group *gr = &groups[g];

		for (i = 0; i < gr->n; i++) {
			cand_view(&gr->c[i], &v);
			seq_printf(m, "%s%s %s %s %s ", row ? "" : "probe ",
				   gr->name, gr->c[i].sym, v.mech, v.state);
			if (row && v.active)
				seq_printf(m, "%llu %lu - -\n", v.hits, v.missed);
			else if (row && v.failed)
				seq_printf(m, "- - %s %d\n", v.why, v.err);
			else if (row)
				seq_printf(m, "- - %s -\n", v.why);
			else if (v.active)
				seq_printf(m, "hits %llu nmissed %lu\n", v.hits,
					   v.missed);
			else if (v.failed)
				seq_printf(m, "%s(%d)\n", v.why, v.err);
			else
				seq_printf(m, "%s\n", v.why);
		}
	}
}

void probe_engine_stats(struct seq_file *m)
{
	/* what serves function entries that ftrace traces */
	if (!entry_ftrace)
		seq_puts(m, "entry_probes kprobe entry_ftrace=0\n");
	else if (ft_registered)
		seq_puts(m, "entry_probes ftrace\n");
	else if (ft_off)
		seq_printf(m, "entry_probes kprobe ftrace-disabled %d\n", ft_err);
	else
		seq_printf(m, "entry_probes kprobe ftrace-error %d\n", ft_err);
}

void probe_engine_stats_rows(struct seq_file *m)
{
	group_rows(m, false);
	cand_rows(m, false);
	stage_rows(m, false);
}

/* The machine forms of those rows: a header, then one row each. */
static int probes_show(struct seq_file *m, void *v)
{
	seq_puts(m, "# group symbol mechanism state hits nmissed reason error\n");
	cand_rows(m, true);
	return 0;
}

static int groups_show(struct seq_file *m, void *v)
{
	seq_puts(m, "# group state armed\n");
	group_rows(m, true);
	return 0;
}

static int stages_show(struct seq_file *m, void *v)
{
	seq_puts(m, "# dir stage state from to\n");
	stage_rows(m, true);
	return 0;
}

SKBPROF_DEFINE_SHOW_FILE(probes);
SKBPROF_DEFINE_SHOW_FILE(groups);
SKBPROF_DEFINE_SHOW_FILE(stages);

const struct skbprof_file probe_engine_files[PROBE_ENGINE_NFILES] = {
	{ "probes", 0400, &probes_fops },
	{ "groups", 0400, &groups_fops },
	{ "stages", 0400, &stages_fops },
};
