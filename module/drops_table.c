// SPDX-License-Identifier: GPL-2.0
/*
 * The drop monitor's key table; see drops_table.h.  Builds in the kernel
 * and, for the host unit tests, in userspace (tests/unit/shim/).
 */
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/kernel.h>
#include <linux/sort.h>
#include <linux/string.h>

#include "drops_table.h"

u32 dt_capacity(u32 max_keys)
{
	u32 n = 2;

	/* a power of two, at least twice max_keys: load factor <= 1/2 */
	while (n < 2 * max_keys)
		n <<= 1;
	return n;
}

void dt_init(struct dt_table *t, struct dt_slot *slots, u32 max_keys)
{
	u32 i, n = dt_capacity(max_keys);

	t->gen = 0;
	t->max_keys = max_keys;
	t->mask = n - 1;
	t->used = 0;
	t->total = 0;
	t->overflow = 0;
	t->slots = slots;
	for (i = 0; i < n; i++)
		seqcount_init(&slots[i].seq);
}

static u32 dt_hash(unsigned long location, u32 reason, u8 stage, u32 netns)
{
	u64 x = (u64)location ^ ((u64)reason << 32) ^ reason ^
		((u64)stage << 24) ^ ((u64)netns << 16);

	/* multiplicative hashing; the high bits are the well-mixed ones */
	x *= 0x9e3779b97f4a7c15ull;
	return (u32)(x >> 32);
}

static void dt_clear(struct dt_table *t)
{
	u32 i;

	for (i = 0; i <= t->mask; i++) {
		struct dt_slot *s = &t->slots[i];

		if (!s->row.location)
			continue;
		write_seqcount_begin(&s->seq);
		memset(&s->row, 0, sizeof(s->row));
		write_seqcount_end(&s->seq);
	}
	WRITE_ONCE(t->used, 0);
	WRITE_ONCE(t->total, 0);
	WRITE_ONCE(t->overflow, 0);
}

static bool dt_same_proto(const struct dt_row *r, const struct dt_sample *s)
{
	return r->ethertype == s->ethertype &&
	       (r->flags & DT_L4) == (s->flags & DT_L4) &&
	       (!(s->flags & DT_L4) || r->l4 == s->l4);
}

bool dt_record(struct dt_table *t, unsigned long gen,
	       const struct dt_sample *s)
{
	struct dt_slot *slot;
	struct dt_row *r;
	u32 i;

	if (t->gen != gen) {
		dt_clear(t);
		WRITE_ONCE(t->gen, gen);
	}
	WRITE_ONCE(t->total, t->total + 1);

	/*
	 * Linear probing, up to the key or an empty slot; the table is never
	 * more than half full, so there is one.
	 */
	i = dt_hash(s->location, s->reason, s->stage, s->netns) & t->mask;
	slot = &t->slots[i];
	while (slot->row.location &&
	       (slot->row.location != s->location ||
		slot->row.reason != s->reason ||
		slot->row.stage != s->stage ||
		slot->row.netns != s->netns)) {
		i = (i + 1) & t->mask;
		slot = &t->slots[i];
	}
	r = &slot->row;

	if (!r->location) {
		if (t->used >= t->max_keys) {
			WRITE_ONCE(t->overflow, t->overflow + 1);
			return false;
		}
		WRITE_ONCE(t->used, t->used + 1);
		write_seqcount_begin(&slot->seq);
		r->location = s->location;
		r->reason = s->reason;
		r->stage = s->stage;
		r->netns = s->netns;
		r->cgroup = s->cgroup;
		r->ethertype = s->ethertype;
		r->l4 = s->l4;
		r->flags = s->flags & DT_L4;
		r->count = 1;
		r->first_ns = s->now_ns;
		r->last_ns = s->now_ns;
		memcpy(r->dev, s->dev, DT_DEVLEN);
		write_seqcount_end(&slot->seq);
		return true;
	}

	write_seqcount_begin(&slot->seq);
	if (!dt_same_proto(r, s))
		r->flags |= DT_PROTO_MIXED;
	/* the same bytes are the same name: strncmp() only when not */
	if (memcmp(r->dev, s->dev, DT_DEVLEN) &&
	    strncmp(r->dev, s->dev, DT_DEVLEN))
		r->flags |= DT_DEV_MIXED;
	if (r->cgroup != s->cgroup)
		r->flags |= DT_CGROUP_MIXED;
	r->cgroup = s->cgroup;
	r->ethertype = s->ethertype;
	r->l4 = s->l4;
	r->flags = (r->flags & ~DT_L4) | (s->flags & DT_L4);
	memcpy(r->dev, s->dev, DT_DEVLEN);
	r->count++;
	/* the clock was read before interrupts went off: order may differ */
	if (s->now_ns < r->first_ns)
		r->first_ns = s->now_ns;
	if (s->now_ns > r->last_ns)
		r->last_ns = s->now_ns;
	write_seqcount_end(&slot->seq);
	return true;
}

size_t dt_snapshot(struct dt_table *t, unsigned long gen,
		   struct dt_row *out, size_t max)
{
	size_t n = 0;
	u32 i, mask;

	if (READ_ONCE(t->gen) != gen)
		return 0;
	mask = t->mask;
	for (i = 0; i <= mask && n < max; i++) {
		struct dt_slot *s = &t->slots[i];
		unsigned int seq;

		do {
			seq = read_seqcount_begin(&s->seq);
			out[n] = s->row;
		} while (read_seqcount_retry(&s->seq, seq));
		if (out[n].location)
			n++;
	}
	return n;
}

static int dt_cmp_key(const void *a, const void *b)
{
	const struct dt_row *x = a, *y = b;

	if (x->location != y->location)
		return x->location < y->location ? -1 : 1;
	if (x->reason != y->reason)
		return x->reason < y->reason ? -1 : 1;
	if (x->stage != y->stage)
		return x->stage < y->stage ? -1 : 1;
	if (x->netns != y->netns)
		return x->netns < y->netns ? -1 : 1;
	return 0;
}

static int dt_cmp_count(const void *a, const void *b)
{
	const struct dt_row *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return dt_cmp_key(a, b);
}

/* Fold row @b into row @a of the same key. */
static void dt_fold(struct dt_row *a, const struct dt_row *b)
{
	u8 mixed = (a->flags | b->flags) &
		   (DT_PROTO_MIXED | DT_DEV_MIXED | DT_CGROUP_MIXED);

	if (a->ethertype != b->ethertype ||
	    (a->flags & DT_L4) != (b->flags & DT_L4) ||
	    ((a->flags & DT_L4) && a->l4 != b->l4))
		mixed |= DT_PROTO_MIXED;
	if (strncmp(a->dev, b->dev, DT_DEVLEN))
		mixed |= DT_DEV_MIXED;
	if (a->cgroup != b->cgroup)
		mixed |= DT_CGROUP_MIXED;
	/* protocol, device and cgroup: those of the latest drop */
	if (b->last_ns > a->last_ns) {
		a->cgroup = b->cgroup;
		a->ethertype = b->ethertype;
		a->l4 = b->l4;
		a->flags = b->flags & DT_L4;
		memcpy(a->dev, b->dev, DT_DEVLEN);
		a->last_ns = b->last_ns;
	}
	a->flags = (a->flags & DT_L4) | mixed;
	if (b->first_ns < a->first_ns)
		a->first_ns = b->first_ns;
	a->count += b->count;
}

size_t dt_merge(struct dt_row *rows, size_t n)
{
	size_t i, out = 0;

	if (!n)
		return 0;
	sort(rows, n, sizeof(*rows), dt_cmp_key, NULL);
	for (i = 1; i < n; i++) {
		if (dt_cmp_key(&rows[out], &rows[i]) == 0)
			dt_fold(&rows[out], &rows[i]);
		else
			rows[++out] = rows[i];
	}
	n = out + 1;
	sort(rows, n, sizeof(*rows), dt_cmp_count, NULL);
	return n;
}

static const char *dt_l4_name(u16 ethertype, u8 l4)
{
	switch (l4) {
	case IPPROTO_TCP:	return "tcp";
	case IPPROTO_UDP:	return "udp";
	case IPPROTO_UDPLITE:	return "udplite";
	case IPPROTO_SCTP:	return "sctp";
	case IPPROTO_GRE:	return "gre";
	case IPPROTO_ESP:	return "esp";
	case IPPROTO_AH:	return "ah";
	case IPPROTO_IPIP:	return "ipip";
	case IPPROTO_IPV6:	return "ipv6";
	}
	if (ethertype == ETH_P_IP) {
		switch (l4) {
		case IPPROTO_ICMP:	return "icmp";
		case IPPROTO_IGMP:	return "igmp";
		}
	} else {
		/* IPv6 next header values that are not transports */
		switch (l4) {
		case 0:			return "hopopts";
		case 43:		return "routing";
		case 44:		return "frag";
		case 58:		return "icmpv6";
		case 59:		return "nonxt";
		case 60:		return "dstopts";
		}
	}
	return NULL;
}

void dt_proto_name(char *buf, size_t len, const struct dt_row *r)
{
	const char *l3 = NULL, *l4 = NULL;

	switch (r->ethertype) {
	case 0:
		l3 = "-";
		break;
	case ETH_P_IP:
		l3 = "ipv4";
		break;
	case ETH_P_IPV6:
		l3 = "ipv6";
		break;
	case ETH_P_ARP:
		l3 = "arp";
		break;
	}
	if (l3 && (r->flags & DT_L4) &&
	    (r->ethertype == ETH_P_IP || r->ethertype == ETH_P_IPV6))
		l4 = dt_l4_name(r->ethertype, r->l4);

	if (!l3)
		snprintf(buf, len, "0x%04x", r->ethertype);
	else if (!(r->flags & DT_L4) ||
		 (r->ethertype != ETH_P_IP && r->ethertype != ETH_P_IPV6))
		snprintf(buf, len, "%s", l3);
	else if (l4)
		snprintf(buf, len, "%s/%s", l3, l4);
	else
		snprintf(buf, len, "%s/%u", l3, r->l4);
}

bool dt_dev_name_ok(const char *name)
{
	size_t i;

	if (!name[0])
		return false;
	for (i = 0; i < DT_DEVLEN; i++) {
		char c = name[i];

		if (!c)
			return true;
		if (c <= ' ' || c > '~' || c == '/' || c == ':')
			return false;
	}
	return false;	/* not terminated */
}

void dt_dev_name_pad(char *name)
{
	size_t n = strnlen(name, DT_DEVLEN);

	memset(name + n, 0, DT_DEVLEN - n);
}
