// SPDX-License-Identifier: GPL-2.0
/*
 * The control file: /sys/kernel/debug/skbprof/control, and the same file
 * as /proc/net/skbprof/control, which lockdown=integrity leaves writable
 * (skbprof.h).
 *
 * Writing applies commands of the grammar in config.h, all or nothing:
 * the new configuration is built in a private copy and published with
 * RCU only when every line parsed, so the packet paths, which read the
 * configuration under rcu_read_lock() without any lock, never see half of
 * a write (config_live.h).  Writers are serialised by
 * skbprof_config_lock().  Only the host's administrator writes: an opener
 * with CAP_SYS_ADMIN, in the initial network namespace; anyone else gets
 * -EPERM, recorded nowhere (last_error is the host's).  A rejected write
 * returns -EINVAL (or -E2BIG, -EPERM for a packet trace under
 * lockdown=confidentiality, or -ENOENT for a cgroup that is not there),
 * records why in last_error and logs it (ratelimited); the configuration
 * in force does not change.
 *
 * The probes follow the configuration: before a write is published, every
 * part arms what it needs (a part that cannot fails the write, and
 * nothing changes); after, the probes no view needs any more come out.
 * Control does not do this itself: main.c, which orders the parts, hands
 * it the operations on every part once they are all up (control.h).
 *
 * Reading prints the configuration in the syntax writes accept, then
 * "last_error: <message>" ("none" when no write has been rejected); the
 * parser ignores that line, so the output can be written back as is.
 *
 * The module parameters filter=, sample=, stages=, trace=,
 * lifetime_sample= and softnet= give the same settings at load time.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nsproxy.h>
#include <linux/proc_fs.h>
#include <linux/rcupdate.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "config.h"
#include "config_live.h"
#include "control.h"
#include "skbprof.h"

/*
 * The operations on every part, from main.c; NULL until every part is up.
 * Under skbprof_config_lock(), as is last_error.
 */
static const struct skbprof_control_ops *control_ops;
static char last_error[SKBPROF_ERR_LEN];

static char *filter_param;
module_param_named(filter, filter_param, charp, 0400);
MODULE_PARM_DESC(filter, "Filter at load time, as after 'filter' in control");
static char *stages_param;
module_param_named(stages, stages_param, charp, 0400);
MODULE_PARM_DESC(stages, "Stages measured at load time: all or a list");
static unsigned int sample_param = 1;
module_param_named(sample, sample_param, uint, 0400);
MODULE_PARM_DESC(sample, "Keep 1 in N matching packets (default 1)");
static char *trace_param;
module_param_named(trace, trace_param, charp, 0400);
MODULE_PARM_DESC(trace, "Packet trace at load time: on, off or verbose");
static char *softnet_param;
module_param_named(softnet, softnet_param, charp, 0400);
MODULE_PARM_DESC(softnet,
		 "Time softirqs and NAPI polls per CPU from load: on or off (default)");

static char *kretprobes_param;
module_param_named(kretprobes, kretprobes_param, charp, 0400);
MODULE_PARM_DESC(kretprobes,
		 "Follow timelines through head reallocations and software GSO with kretprobes from load: on or off (default)");

static unsigned int lifetime_param;
module_param_named(lifetime_sample, lifetime_param, uint, 0400);
MODULE_PARM_DESC(lifetime_sample,
		 "Follow one skb allocation in N for lifetime at load time (default 0: off)");

/*
 * Parse @len bytes of commands and, when all of them are valid, publish
 * the result.  @reset tells whether a reset was asked for.  Called with
 * skbprof_config_lock() held.
 */
static int control_apply(const char *buf, size_t len, bool *reset)
{
	const struct skbprof_config *cur = skbprof_config_locked();
	struct skbprof_config *next;
	unsigned int actions = 0;
	char msg[SKBPROF_ERR_LEN];
	int err;

	next = skbprof_config_copy();
	if (!next)
		return -ENOMEM;
	err = skbprof_config_parse(next, &skbprof_stage_names, buf, len,
				   &actions, msg, sizeof(msg));
	/* under lockdown=confidentiality no packet trace starts (skbprof.h) */
	if (!err && next->trace > cur->trace && skbprof_flows_locked_down()) {
		snprintf(msg, sizeof(msg),
			 "trace: refused by the kernel's lockdown (confidentiality)");
		err = -EPERM;
	}
	/* what the new views need, before they are in force */
	if (!err && control_ops)
		err = control_ops->arm(next, cur, msg, sizeof(msg));
	if (err) {
		skbprof_config_discard(next);
		strscpy(last_error, msg, sizeof(last_error));
		pr_warn_ratelimited("control: %s\n", msg);
		return err;
	}
	skbprof_config_publish(next);
	if (control_ops)
		control_ops->trim(next);
	*reset = actions & SKBPROF_ACT_RESET;
	return 0;
}

static ssize_t control_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	bool reset = false;
	char *buf;
	int err;

	/*
	 * The opener's credentials, as for any file handed to another task:
	 * CAP_SYS_ADMIN, the kernel's own bar for arming kprobes and tracing
	 * host-wide, which a container's CAP_NET_ADMIN does not reach.
	 */
	if (!file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;
	if (len > SKBPROF_CONFIG_MAX) {
		skbprof_config_lock();
		snprintf(last_error, sizeof(last_error),
			 "write of %zu bytes is larger than %d", len,
			 SKBPROF_CONFIG_MAX);
		skbprof_config_unlock();
		pr_warn_ratelimited("control: write of %zu bytes is larger than %d\n",
				    len, SKBPROF_CONFIG_MAX);
		return -E2BIG;
	}
	buf = memdup_user(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);

	skbprof_config_lock();
	err = control_apply(buf, len, &reset);
	if (!err && reset && control_ops)
		control_ops->reset();
	skbprof_config_unlock();
	kfree(buf);
	return err ? err : len;
}

static int control_show(struct seq_file *m, void *v)
{
	char *buf;
	int len;

	buf = kmalloc(SKBPROF_CONFIG_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	skbprof_config_lock();
	len = skbprof_config_print(skbprof_config_locked(),
				   &skbprof_stage_names, buf,
				   SKBPROF_CONFIG_MAX);
	seq_write(m, buf, min(len, SKBPROF_CONFIG_MAX - 1));
	seq_printf(m, "last_error: %s\n", last_error[0] ? last_error : "none");
	skbprof_config_unlock();
	kfree(buf);
	return 0;
}

static int control_open(struct inode *inode, struct file *file)
{
	/*
	 * The configuration is the host's: a writer must be in the initial
	 * network namespace.  /proc/<pid>/net/skbprof/ reaches this file from
	 * any namespace that sees the host's pids, and a container without a
	 * user namespace may hold capabilities of the initial one.  The
	 * namespace is not in the opener's credentials: judged here.
	 */
	if ((file->f_mode & FMODE_WRITE) &&
	    !net_eq(current->nsproxy->net_ns, &init_net))
		return -EPERM;
	return skbprof_single_open(inode, file, control_show);
}

static const struct file_operations control_fops = {
	.owner		= THIS_MODULE,
	.open		= control_open,
	.read		= seq_read,
	.write		= control_write,
	.llseek		= seq_lseek,
	.release	= single_release,
};

static const struct proc_ops control_proc_ops = {
	.proc_open	= control_open,
	.proc_read	= seq_read,
	.proc_write	= control_write,
	.proc_lseek	= seq_lseek,
	.proc_release	= single_release,
};

/* Apply one module parameter as the control line "<cmd> <value>". */
static int control_param(const char *cmd, const char *value)
{
	bool reset;
	char *line;
	int err;

	line = kasprintf(GFP_KERNEL, "%s %s\n", cmd, value);
	if (!line)
		return -ENOMEM;
	skbprof_config_lock();
	err = control_apply(line, strlen(line), &reset);
	if (err)
		pr_err("module parameter %s=\"%s\": %s\n", cmd, value,
		       last_error);
	skbprof_config_unlock();
	kfree(line);
	return err;
}

void skbprof_control_start(const struct skbprof_control_ops *ops)
{
	skbprof_config_lock();
	control_ops = ops;
	ops->trim(skbprof_config_locked());
	skbprof_config_unlock();
}

static void control_exit(void)
{
	/* The files are gone and every part has stopped: nobody reads it. */
	control_ops = NULL;
	skbprof_config_live_exit();
	last_error[0] = 0;
}

static int control_init(void)
{
	char num[16];
	int err;

	err = skbprof_config_live_init();
	if (err)
		return err;
	if (filter_param && *filter_param)
		err = control_param("filter", filter_param);
	if (!err && stages_param && *stages_param)
		err = control_param("stages", stages_param);
	if (!err && trace_param && *trace_param)
		err = control_param("trace", trace_param);
	if (!err && softnet_param && *softnet_param)
		err = control_param("softnet", softnet_param);
	if (!err && kretprobes_param && *kretprobes_param)
		err = control_param("kretprobes", kretprobes_param);
	if (!err) {
		snprintf(num, sizeof(num), "%u", sample_param);
		err = control_param("sample", num);
	}
	if (!err && lifetime_param) {
		snprintf(num, sizeof(num), "%u", lifetime_param);
		err = control_param("lifetime", num);
	}
	if (err)
		control_exit();
	return err;
}

static const struct skbprof_file control_files[] = {
	{ "control", 0600, &control_fops, &control_proc_ops },
};

const struct skbprof_part skbprof_control_part = {
	.name	= "control",
	.init	= control_init,
	.exit	= control_exit,
	.files	= control_files,
	.nfiles	= ARRAY_SIZE(control_files),
};
