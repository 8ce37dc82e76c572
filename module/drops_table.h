/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The drop monitor's key table: the pure logic, without kernel hooks, so
 * that it also builds in userspace for the host unit tests.
 *
 * Each CPU owns one table.  A table is an open-addressed hash of
 * dt_capacity(max_keys) slots, keyed by (location, reason, stage, netns), of
 * which at most max_keys are ever used: the load factor stays at or below 1/2, so a
 * probe sequence always ends at the key or at an empty slot, and a drop
 * with a new key is counted as overflow, never allocated.
 *
 * Writers: only the owning CPU, with interrupts off, so one writer at a
 * time.  Readers: any CPU, at any time; every slot carries a seqcount, so a
 * reader copies a slot either wholly before or wholly after an update.
 *
 * Reset is lazy: the owner of a table compares the table's generation with
 * the global one on its next drop and clears the table first if they
 * differ; readers skip tables of an old generation.  Resetting is thus one
 * store, without cross-CPU calls, and a CPU that drops nothing after a
 * reset simply keeps a table nobody reads.
 */
#ifndef _SKBPROF_DROPS_TABLE_H
#define _SKBPROF_DROPS_TABLE_H

#include <linux/seqlock.h>
#include <linux/types.h>

/* Length of a device name, NUL included (IFNAMSIZ). */
#define DT_DEVLEN	16

/* dt_row.flags */
#define DT_L4		0x01	/* l4 is valid */
#define DT_PROTO_MIXED	0x02	/* drops of this key had several protocols */
#define DT_DEV_MIXED	0x04	/* drops of this key had several devices */
#define DT_CGROUP_MIXED	0x08	/* drops of this key had several cgroups */

/* Reason of a drop on a kernel without drop reasons. */
#define DT_NO_REASON	0

/* Stage of a drop whose packet had no timeline. */
#define DT_NO_STAGE	0xff

/* What one drop contributes. */
struct dt_sample {
	unsigned long location;	/* caller of kfree_skb, never 0 */
	u32 reason;		/* the kernel's enum skb_drop_reason value */
	u8 stage;		/* the last stage the packet reached */
	u16 ethertype;		/* skb->protocol, host order; 0: none */
	u8 l4;			/* IP protocol / IPv6 next header */
	u8 flags;		/* DT_L4 */
	u32 netns;		/* inode of its network namespace; 0: unknown */
	u64 cgroup;		/* cgroup v2 id of its socket; 0: none */
	u64 now_ns;
	char dev[DT_DEVLEN];	/* "": no device; zero-padded */
};

/* One key and what is known about its drops. */
struct dt_row {
	unsigned long location;	/* 0: empty slot */
	u32 reason;
	u8 stage;		/* DT_NO_STAGE: not known */
	u16 ethertype;		/* of the latest drop */
	u8 l4;			/* of the latest drop */
	u8 flags;
	u32 netns;		/* 0: not known */
	u64 cgroup;		/* of the latest drop */
	u64 count;
	u64 first_ns;
	u64 last_ns;
	char dev[DT_DEVLEN];	/* of the latest drop */
};

struct dt_slot {
	seqcount_t seq;
	struct dt_row row;
};

struct dt_table {
	unsigned long gen;	/* generation the contents belong to */
	u32 max_keys;		/* keys the table may hold */
	u32 mask;		/* number of slots - 1 */
	u32 used;		/* keys held */
	u64 total;		/* drops seen, overflow included */
	u64 overflow;		/* drops whose key did not fit */
	struct dt_slot *slots;
};

/* Largest and smallest max_keys accepted. */
#define DT_MAX_KEYS_MIN	1
#define DT_MAX_KEYS_MAX	16384

/* Number of slots of a table holding max_keys keys. */
u32 dt_capacity(u32 max_keys);

/* Set up @t over @slots (dt_capacity(max_keys) zeroed slots). */
void dt_init(struct dt_table *t, struct dt_slot *slots, u32 max_keys);

/*
 * Account one drop in @t, the caller's own table, as of generation @gen.
 * Returns false when the key was new and the table full (overflow).
 * The caller excludes other writers of @t (interrupts off on its CPU).
 */
bool dt_record(struct dt_table *t, unsigned long gen,
	       const struct dt_sample *s);

/*
 * Copy the rows of @t into @out (at most @max) if @t belongs to generation
 * @gen; returns the number copied.  Safe against a concurrent writer.
 */
size_t dt_snapshot(struct dt_table *t, unsigned long gen,
		   struct dt_row *out, size_t max);

/*
 * Merge rows of equal keys (from different CPUs) and sort the result: most
 * drops first, ties by location then reason.  Returns the new count.
 */
size_t dt_merge(struct dt_row *rows, size_t n);

/*
 * Write the protocol of a row ("ipv4/udp", "ipv6/58", "arp", "0x88cc",
 * "-") into @buf: its latest, when its drops had several (DT_PROTO_MIXED).
 */
void dt_proto_name(char *buf, size_t len, const struct dt_row *r);

/*
 * Is @name, read from a pointer that may not point to a net_device at all,
 * a plausible device name: non-empty, terminated within DT_DEVLEN, and
 * only of characters dev_valid_name() allows (no '/', ':' or whitespace)
 * that are also printable?
 */
bool dt_dev_name_ok(const char *name);

/* Zero the bytes after the NUL of a name dt_dev_name_ok() accepted. */
void dt_dev_name_pad(char *name);

#endif /* _SKBPROF_DROPS_TABLE_H */
