/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the supported kernels (Debian's 5.10, 6.1,
 * 6.12 and 7.2), in one place.  Callers use the wrappers below and stay
 * free of version checks.
 *
 * Every difference is decided by the kernel's own headers, never by its
 * version: distributions backport interfaces (RHEL 9's 5.14 and Ubuntu's
 * 5.15 have 5.17's drop reasons, RHEL 9.3 6.4's drop reason tables), so a
 * version number can pick the wrong branch.  Either a macro of the header
 * itself is tested here, or module/Kbuild greps the header for the
 * declaration and defines SKBPROF_HAVE_... ("Kernel differences" in
 * Documentation/skbprof.rst lists them all).  The version in a comment
 * below is only the upstream release that brought the change.
 */
#ifndef _SKBPROF_COMPAT_H
#define _SKBPROF_COMPAT_H

#include <linux/rcupdate.h>
#include <linux/skbuff.h>
#include <linux/types.h>

/*
 * PREEMPT_RT (Debian's -rt flavour) is refused at build time.  There a
 * spinlock_t is a sleeping lock, and the probe handlers take the stamp
 * table's spinlock_t with preemption off (kprobes, ftrace callbacks,
 * tracepoints): a bug on every packet.  dkms.conf's
 * BUILD_EXCLUSIVE_CONFIG makes DKMS skip such kernels before building.
 */
#ifdef CONFIG_PREEMPT_RT
#error "skbprof: PREEMPT_RT kernels are not supported (CONFIG_PREEMPT_RT=y)"
#error "skbprof: its probe handlers take spinlock_t with preemption off; under RT it sleeps"
#endif

/*
 * The position of tcp_recvmsg()'s flags among its arguments: 5.19 dropped
 * the nonblock one before them (module/Kbuild tests <net/tcp.h> for it;
 * RHEL 9.3 still has it).
 */
#ifdef SKBPROF_HAVE_TCP_RECVMSG_NONBLOCK
#define SKBPROF_TCP_RECVMSG_FLAGS_ARG	4
#else
#define SKBPROF_TCP_RECVMSG_FLAGS_ARG	3
#endif

/*
 * How a tracepoint calls its probes.  Until 6.x with preemption off (an
 * RCU-sched reader); since tracepoints guard their probes with SRCU-fast
 * (7.x; module/Kbuild finds the guard in <linux/tracepoint.h> and defines
 * SKBPROF_TP_PREEMPTIBLE), with preemption on wherever the caller had it
 * on: a task freeing or copying an skb, on a PREEMPT_LAZY or full kernel.
 * skbprof's handlers use per-CPU data and locks throughout, and the sweep
 * waits for them with synchronize_rcu(): SKBPROF_TP_ENTER(), a tracepoint
 * probe's first statement, turns preemption off for the rest of the probe
 * where the tracepoint does not.
 */
#ifdef SKBPROF_TP_PREEMPTIBLE
#define SKBPROF_TP_ENTER()	guard(preempt_notrace)()
#else
#define SKBPROF_TP_ENTER()	do { } while (0)
#endif

/*
 * The kfree_skb tracepoint.  Its prototype grew over time:
 *   before 5.17:  (skb, location)
 *   5.17 to 6.10: (skb, location, reason)
 *   6.11 on:      (skb, location, reason, rx_sk)
 *   7.x:          rx_sk became const
 * module/Kbuild tests <trace/events/skb.h> for each and defines
 * SKBPROF_HAVE_KFREE_SKB_REASON, SKBPROF_HAVE_KFREE_SKB_RX_SK and
 * SKBPROF_KFREE_SKB_CONST_RX_SK (RHEL 9 and Ubuntu's 5.15 have the
 * reason).
 * SKBPROF_TP_KFREE_SKB_ARGS is the probe's parameter list.
 * SKBPROF_DEFINE_KFREE_SKB_PROBE(name, handler) defines a probe @name with
 * the running kernel's prototype that calls
 *	handler(void *data, struct sk_buff *skb, void *location, u32 reason,
 *		const struct sock *rx_sk)
 * with reason SKBPROF_NO_DROP_REASON on kernels without drop reasons, and
 * rx_sk NULL on kernels without it.  The
 * caller type-checks the probe with check_trace_callback_type_kfree_skb()
 * from <trace/events/skb.h>, so a prototype change fails the build.
 */
#define SKBPROF_NO_DROP_REASON	0

#if defined(SKBPROF_KFREE_SKB_CONST_RX_SK)
#define SKBPROF_TP_KFREE_SKB_ARGS \
	void *data, struct sk_buff *skb, void *location, \
	enum skb_drop_reason reason, const struct sock *rx_sk
#define SKBPROF_TP_KFREE_SKB_REASON	((u32)reason)
#elif defined(SKBPROF_HAVE_KFREE_SKB_RX_SK)
#define SKBPROF_TP_KFREE_SKB_ARGS \
	void *data, struct sk_buff *skb, void *location, \
	enum skb_drop_reason reason, struct sock *rx_sk
#define SKBPROF_TP_KFREE_SKB_REASON	((u32)reason)
#elif defined(SKBPROF_HAVE_KFREE_SKB_REASON)
#define SKBPROF_TP_KFREE_SKB_ARGS \
	void *data, struct sk_buff *skb, void *location, \
	enum skb_drop_reason reason
#define SKBPROF_TP_KFREE_SKB_REASON	((u32)reason)
#else
#define SKBPROF_TP_KFREE_SKB_ARGS \
	void *data, struct sk_buff *skb, void *location
#define SKBPROF_TP_KFREE_SKB_REASON	SKBPROF_NO_DROP_REASON
#endif

/*
 * The socket whose receive path dropped the skb (rx_sk, 6.11 on): alive
 * for the tracepoint's call, and of any family or state (a time-wait or
 * request socket too).  NULL before 6.11.
 */
#ifdef SKBPROF_HAVE_KFREE_SKB_RX_SK
#define SKBPROF_TP_KFREE_SKB_RX_SK	((const struct sock *)rx_sk)
#else
#define SKBPROF_TP_KFREE_SKB_RX_SK	((const struct sock *)NULL)
#endif

#define SKBPROF_DEFINE_KFREE_SKB_PROBE(name, handler)			\
static void name(SKBPROF_TP_KFREE_SKB_ARGS)				\
{									\
	SKBPROF_TP_ENTER();						\
	handler(data, skb, location, SKBPROF_TP_KFREE_SKB_REASON,	\
		SKBPROF_TP_KFREE_SKB_RX_SK);				\
}

/*
 * TCP's reasons for discarding a received segment, 6.0 on (5.10's
 * tcp_drop() frees with __kfree_skb(), no tracepoint, no reason):
 *   TCP_OLD_DATA, TCP_OFOMERGE, TCP_OFO_DROP: by their definition the
 *            data had come already (in order, or in the out-of-order
 *            queue);
 *   TCP_INVALID_SEQUENCE, TCP_RFC7323_PAWS: outside the window, or an
 *            old timestamp; the sequence numbers tell an old segment
 *            apart, with rx_sk (6.11 on);
 *   TCP_OLD_SEQUENCE: the part of TCP_INVALID_SEQUENCE before the
 *            window (6.12 on; module/Kbuild tests the header for it and
 *            defines SKBPROF_DROP_TCP_OLD_SEQUENCE).
 * module/Kbuild finds the first five among the drop reasons (in
 * <linux/skbuff.h>, <net/dropreason.h> or <net/dropreason-core.h>; RHEL
 * 9.2 on has them) and defines SKBPROF_HAVE_TCP_DROP_REASONS.
 */
#ifdef SKBPROF_HAVE_TCP_DROP_REASONS
#define SKBPROF_TCP_DROP_REASONS
#endif

/*
 * Names of drop reasons, from the running kernel's own tables (the enum's
 * values shift between versions, so no copy of it is kept here):
 *   6.4 on:  drop_reasons_by_subsys[] (exported; RCU-protected, subsystems
 *            such as mac80211 and openvswitch register their own lists;
 *            a reason's top 16 bits select the subsystem)
 *   6.0 on:  drop_reasons[] (exported), indexed by reason, up to
 *            SKB_DROP_REASON_MAX
 *   5.17 to 5.19: reasons exist, but no table is exported; the names are
 *            unknown and the numbers are printed.
 *   before 5.17: no reasons.
 * skbprof_drop_reason_name() returns the name or NULL; the caller holds
 * rcu_read_lock() and copies the name out before dropping it.  Reasons
 * are there where the kfree_skb tracepoint passes one; module/Kbuild
 * finds <net/dropreason.h> (SKBPROF_HAVE_DROPREASON_H) and drop_reasons[]
 * in it (SKBPROF_HAVE_DROP_REASONS_ARRAY); the subsystems' tables define
 * SKB_DROP_REASON_SUBSYS_SHIFT.  RHEL 9.0 and 9.1 have reasons without a
 * table, 9.2 drop_reasons[], 9.3 the subsystems' tables.
 */
#ifdef SKBPROF_HAVE_KFREE_SKB_REASON
#define SKBPROF_HAVE_DROP_REASONS	1
#else
#define SKBPROF_HAVE_DROP_REASONS	0
#endif

#ifdef SKBPROF_HAVE_DROPREASON_H
#include <net/dropreason.h>
#endif

#if defined(SKB_DROP_REASON_SUBSYS_SHIFT)
#define SKBPROF_DROP_REASON_TABLE	"drop_reasons_by_subsys"
static inline const char *skbprof_drop_reason_name(u32 reason)
{
	u32 subsys = reason >> SKB_DROP_REASON_SUBSYS_SHIFT;
	u32 idx = reason & ~(u32)SKB_DROP_REASON_SUBSYS_MASK;
	const struct drop_reason_list *list;

	if (subsys >= SKB_DROP_REASON_SUBSYS_NUM)
		return NULL;
	list = rcu_dereference(drop_reasons_by_subsys[subsys]);
	if (!list || idx >= list->n_reasons)
		return NULL;
	return list->reasons[idx];
}
#elif defined(SKBPROF_HAVE_DROP_REASONS_ARRAY)
#define SKBPROF_DROP_REASON_TABLE	"drop_reasons"
static inline const char *skbprof_drop_reason_name(u32 reason)
{
	if (reason >= SKB_DROP_REASON_MAX)
		return NULL;
	return drop_reasons[reason];
}
#else
#define SKBPROF_DROP_REASON_TABLE	"none"
static inline const char *skbprof_drop_reason_name(u32 reason)
{
	return NULL;
}
#endif

/*
 * Sparse's lock-context annotations.  7.x replaced them with Clang's
 * context analysis and dropped __cond_lock(); where it is gone, a
 * conditionally taken lock is just the expression.
 */
#ifdef __cond_lock
#define skbprof_cond_lock(x, c)	__cond_lock(x, c)
#else
#define skbprof_cond_lock(x, c)	(c)
#endif

/*
 * The backlog drops of a CPU's softnet_data, as /proc/net/softnet_stat
 * shows them (softnet.c): an unsigned int, an atomic_t from 6.9, NUMA
 * drop counters in 7.x; module/Kbuild tests the header for the last two.
 */
#include <linux/netdevice.h>

#if defined(SKBPROF_SOFTNET_NUMA_DROPS)
#define skbprof_softnet_dropped(sd)	((unsigned int)numa_drop_read(&(sd)->drop_counters))
#elif defined(SKBPROF_SOFTNET_ATOMIC_DROPS)
#define skbprof_softnet_dropped(sd)	((unsigned int)atomic_read(&(sd)->dropped))
#else
#define skbprof_softnet_dropped(sd)	READ_ONCE((sd)->dropped)
#endif

/* Stage latency (timeline.c, probes.c). */
#include <linux/kprobes.h>

/*
 * What a kretprobe takes on each call of its function, followed skb or
 * not (no interface differs, so nothing to test here; see "Global state
 * per call" in Documentation/skbprof.rst): on 5.10 its rp->lock, and the
 * hashed kretprobe_table_lock to file the instance and at the return;
 * from 5.11 to 6.6 a freelist head shared by every CPU (rethook's where
 * the architecture has one, x86 from 5.18); from 6.7 a per-CPU objpool.
 * The kernel takes the instance before the entry handler runs and gives
 * it back when the handler declines: declining spares the return, not
 * that.
 */

/*
 * The kretprobe a kretprobe_instance belongs to: get_kretprobe() from 5.11
 * (module/Kbuild tests <linux/kprobes.h>), the field before.
 */
#ifdef SKBPROF_HAVE_GET_KRETPROBE
#define skbprof_kretprobe_of(ri)	get_kretprobe(ri)
#else
#define skbprof_kretprobe_of(ri)	((ri)->rp)
#endif

/*
 * Where a kretprobe_instance's function returns to: get_kretprobe_retaddr()
 * from 5.18, with rethook (module/Kbuild tests <linux/kprobes.h>; RHEL
 * 9.2 on has it), the field before.
 */
#ifdef SKBPROF_HAVE_GET_KRETPROBE_RETADDR
#define skbprof_kretprobe_retaddr(ri)	get_kretprobe_retaddr(ri)
#else
#define skbprof_kretprobe_retaddr(ri)	((unsigned long)(ri)->ret_addr)
#endif

/*
 * The functions that allocate TCP's skbs for the application's data
 * (probes.c): tcp_sendmsg_locked() and do_tcp_sendpages(), the callers of
 * tcp_skb_entail() since 5.15 (do_tcp_sendpages() went in 6.5).  Before
 * 5.15 tcp_skb_entail() is static, so the transmit timeline starts at the
 * return of sk_stream_alloc_skb(), which tcp_fragment(), tso_fragment(),
 * tcp_mtu_probe(), tcp_connect() and tcp_send_syn_data() call too: the
 * return address tells the application's skbs from those.  Both are
 * exported (GPL) wherever they exist; module/Kbuild tests <net/tcp.h>
 * for do_tcp_sendpages() (RHEL 9.3 still has it).
 * skbprof_tcp_app_allocators() puts their addresses in @addr, which has
 * room for SKBPROF_TCP_APP_ALLOCATORS_MAX, and returns how many.
 */
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <net/tcp.h>

#define SKBPROF_TCP_APP_ALLOCATORS_MAX	2

static inline unsigned int skbprof_tcp_app_allocators(unsigned long *addr)
{
	unsigned int n = 0;

	addr[n++] = (unsigned long)tcp_sendmsg_locked;
#ifdef SKBPROF_HAVE_DO_TCP_SENDPAGES
	addr[n++] = (unsigned long)do_tcp_sendpages;
#endif
	return n;
}

/*
 * The end of the function that starts at @addr, from kallsyms ("name+0x0/
 * 0xsize"; kallsyms_lookup_size_offset() is not exported): 0 if @addr is
 * not the start of a function kallsyms knows.
 */
static inline unsigned long skbprof_function_end(unsigned long addr)
{
	char buf[KSYM_SYMBOL_LEN];
	unsigned long size;
	char *p;

	sprint_symbol(buf, addr);
	p = strstr(buf, "+0x0/");
	if (!p || kstrtoul(p + strlen("+0x0/"), 16, &size) || !size)
		return 0;
	return addr + size;
}

/*
 * ftrace_ops callbacks, which serve the function entries of the probe
 * engine (probe_engine.c).
 *   5.10:    the callback's last parameter is struct pt_regs *, NULL
 *            unless the ops asks FTRACE_OPS_FL_SAVE_REGS; with
 *            FTRACE_OPS_FL_RECURSION_SAFE the ops guards itself against
 *            recursion, else ftrace wraps it in a slower helper.
 *   5.11 on: it is struct ftrace_regs *, and an ops guards itself unless
 *            it asks FTRACE_OPS_FL_RECURSION.  DYNAMIC_FTRACE_WITH_ARGS
 *            saves the argument registers for every ops (x86-64 from
 *            5.11); ftrace_regs_get_argument() reads them where the
 *            header defines it (x86-64 from 6.2), the pt_regs inside
 *            before.  Without it only SAVE_REGS saves them.
 *   arm64:   DYNAMIC_FTRACE_WITH_REGS up to 6.1 (SAVE_REGS, the last
 *            case below); from 6.2 DYNAMIC_FTRACE_WITH_ARGS instead,
 *            whose ftrace_regs holds no pt_regs (ftrace_get_regs() is
 *            NULL, and an ops asking SAVE_REGS fails to register with
 *            -EINVAL), with ftrace_regs_get_argument() an inline
 *            function of asm/ftrace.h from the start, not a macro.
 * SKBPROF_FREGS is the parameter's type, SKBPROF_FTRACE_OPS_FLAGS the
 * ops' flags, skbprof_ftrace_arg(f, n) the traced function's argument n.
 * module/Kbuild tests ftrace_func_t in <linux/ftrace.h> for struct
 * ftrace_regs (SKBPROF_HAVE_FTRACE_REGS); the flags changed with it.
 */
#include <linux/ftrace.h>

#ifndef SKBPROF_HAVE_FTRACE_REGS
#define SKBPROF_FREGS	struct pt_regs
#define SKBPROF_FTRACE_OPS_FLAGS \
	(FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_RECURSION_SAFE)
#define skbprof_ftrace_arg(f, n)	regs_get_kernel_argument(f, n)
#elif defined(ftrace_regs_get_argument) || \
	(defined(CONFIG_ARM64) && defined(CONFIG_DYNAMIC_FTRACE_WITH_ARGS))
#define SKBPROF_FREGS	struct ftrace_regs
#define SKBPROF_FTRACE_OPS_FLAGS	0
#define skbprof_ftrace_arg(f, n)	ftrace_regs_get_argument(f, n)
#elif defined(CONFIG_HAVE_DYNAMIC_FTRACE_WITH_ARGS) && defined(CONFIG_X86_64)
#define SKBPROF_FREGS	struct ftrace_regs
#define SKBPROF_FTRACE_OPS_FLAGS	0
#define skbprof_ftrace_arg(f, n)	regs_get_kernel_argument(&(f)->regs, n)
#else
#define SKBPROF_FREGS	struct ftrace_regs
#define SKBPROF_FTRACE_OPS_FLAGS	FTRACE_OPS_FL_SAVE_REGS
#define skbprof_ftrace_arg(f, n) \
	regs_get_kernel_argument(ftrace_get_regs(f), n)
#endif

/*
 * Add (@remove 0) or remove @cnt addresses to or from @ops' filter in one
 * edit: ftrace_set_filter_ips() (5.18 on, for fprobe; module/Kbuild tests
 * the header) edits a copy of the filter and, with the ops registered,
 * scans ftrace's records and patches the text once for them all, where
 * ftrace_set_filter_ip() does both for each address.  An address it
 * refuses fails the whole edit, and the filter stays as it was.  Where
 * the kernel lacks it, -EOPNOTSUPP: the caller edits one address at a
 * time.
 */
#ifdef SKBPROF_HAVE_FTRACE_SET_FILTER_IPS
static inline int skbprof_ftrace_set_filter_ips(struct ftrace_ops *ops,
						unsigned long *ips,
						unsigned int cnt, int remove)
{
	return ftrace_set_filter_ips(ops, ips, cnt, remove, 0);
}
#else
static inline int skbprof_ftrace_set_filter_ips(struct ftrace_ops *ops,
						unsigned long *ips,
						unsigned int cnt, int remove)
{
	return -EOPNOTSUPP;
}
#endif

/*
 * Where ftrace traces a function, for probe_engine.c's ft_serve() on kernels
 * without kprobes on ftrace (KPROBE_FLAG_FTRACE tells it on the others):
 * offsets from the function's entry, tried in order; ftrace accepts only
 * its own call site (ftrace_location() is not exported).  arm64 builds
 * with two patchable NOPs at the entry, the second becoming the call to
 * ftrace's trampoline, whose ip is that call's address; a function that
 * is a branch target starts with a BTI landing pad before them.  (With
 * DYNAMIC_FTRACE_WITH_CALL_OPS, 6.4 on, two more NOPs come before the
 * entry, which does not move the call.)
 */
#if defined(CONFIG_ARM64) && !defined(CONFIG_KPROBES_ON_FTRACE)
#define SKBPROF_FTRACE_SITE_OFFSETS \
	{ MCOUNT_INSN_SIZE, 2 * MCOUNT_INSN_SIZE }
#else
#define SKBPROF_FTRACE_SITE_OFFSETS	{ }
#endif

/*
 * Arguments of probes on skb:consume_skb: its location came in 6.3
 * (module/Kbuild tests <trace/events/skb.h>; RHEL 9.3 has it).  (For
 * skb:kfree_skb see SKBPROF_TP_KFREE_SKB_ARGS above.)
 */
#ifdef SKBPROF_HAVE_CONSUME_SKB_LOCATION
#define SKBPROF_TP_CONSUME_SKB_ARGS \
	void *data, struct sk_buff *skb, void *location
#else
#define SKBPROF_TP_CONSUME_SKB_ARGS \
	void *data, struct sk_buff *skb
#endif

/*
 * cgroup v2 ids (timeline.c, drops.c, cgroup.c).  The same on every
 * supported kernel: cgroup_id() (inline; the kernfs node's id, on 64-bit
 * the inode number of the cgroup's directory), task_dfl_cgroup() (inline,
 * under RCU), sock_cgroup_ptr() (inline; 5.10 before its stable backport
 * packed cgroup v1 data into sk_cgrp_data, and sock_cgroup_ptr() hid it
 * then too) and cgroup_get_from_path() (exported, GPL; relative to the
 * caller's cgroup namespace root since 6.1 and its stable backports,
 * -ENOENT or -ENOTDIR on failure).  Only the configuration differs:
 * without CONFIG_CGROUPS or CONFIG_SOCK_CGROUP_DATA every id is 0 ("not
 * known") and no path resolves.
 */
#include <linux/cgroup.h>
#include <linux/err.h>
#include <net/sock.h>

#ifdef CONFIG_CGROUPS
/* The id of @task's cgroup v2 cgroup; under rcu_read_lock(). */
static inline u64 skbprof_task_cgroup_id(struct task_struct *task)
{
	return cgroup_id(task_dfl_cgroup(task));
}

/* The id of the cgroup v2 directory @path names, or a negative errno. */
static inline int skbprof_cgroup_path_id(const char *path, u64 *id)
{
	struct cgroup *cgrp = cgroup_get_from_path(path);

	if (IS_ERR(cgrp))
		return PTR_ERR(cgrp);
	*id = cgroup_id(cgrp);
	cgroup_put(cgrp);
	return 0;
}
#else
static inline u64 skbprof_task_cgroup_id(struct task_struct *task)
{
	return 0;
}

static inline int skbprof_cgroup_path_id(const char *path, u64 *id)
{
	return -ENOENT;
}
#endif

/* The id of @sk's cgroup v2 cgroup; 0 for a socket without one. */
#ifdef CONFIG_SOCK_CGROUP_DATA
static inline u64 skbprof_sk_cgroup_id(const struct sock *sk)
{
	/* request and timewait sockets have no sk_cgrp_data */
	if (!sk_fullsock(sk))
		return 0;
	return cgroup_id(sock_cgroup_ptr((struct sock_cgroup_data *)
					 &sk->sk_cgrp_data));
}
#else
static inline u64 skbprof_sk_cgroup_id(const struct sock *sk)
{
	return 0;
}
#endif

/*
 * Is UDP_CORK set on @sk?  A flag bit of udp_sk(sk)->udp_flags since 6.7
 * (Debian's 6.1 has it too: the header defines udp_test_bit()), the field
 * corkflag before.  Read without the socket's lock, as a hint.
 */
#include <linux/udp.h>

#ifdef udp_test_bit
static inline bool skbprof_udp_corkflag(const struct sock *sk)
{
	return udp_test_bit(CORK, sk);
}
#else
static inline bool skbprof_udp_corkflag(const struct sock *sk)
{
	return READ_ONCE(udp_sk(sk)->corkflag);
}
#endif

#endif /* _SKBPROF_COMPAT_H */
