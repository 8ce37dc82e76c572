// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the drop monitor's key table (module/drops_table.c). */
#include "unit.h"
#include "drops_table.c"

static struct dt_sample smp(unsigned long loc, u32 reason, u64 now,
			    u16 eth, int l4, const char *dev)
{
	struct dt_sample s;

	memset(&s, 0, sizeof(s));
	s.location = loc;
	s.reason = reason;
	s.now_ns = now;
	s.ethertype = eth;
	if (l4 >= 0) {
		s.l4 = l4;
		s.flags = DT_L4;
	}
	snprintf(s.dev, sizeof(s.dev), "%s", dev);
	return s;
}

struct tbl {
	struct dt_table t;
	struct dt_slot *slots;
};

static void tbl_init(struct tbl *x, u32 max_keys)
{
	x->slots = calloc(dt_capacity(max_keys), sizeof(*x->slots));
	dt_init(&x->t, x->slots, max_keys);
}

static void rec(struct tbl *x, unsigned long gen, unsigned long loc,
		u32 reason, u64 now)
{
	struct dt_sample s = smp(loc, reason, now, ETH_P_IP, IPPROTO_UDP, "lo");

	dt_record(&x->t, gen, &s);
}

static size_t snap(struct tbl *x, unsigned long gen, struct dt_row *rows,
		   size_t max)
{
	return dt_snapshot(&x->t, gen, rows, max);
}

/* The rows of tables @a and @b (generation 1), merged. */
static size_t merged(struct tbl *a, struct tbl *b, struct dt_row *rows,
		     size_t max)
{
	size_t n = snap(a, 1, rows, max);

	n += snap(b, 1, rows + n, max - n);
	return dt_merge(rows, n);
}

static const struct dt_row *find(const struct dt_row *rows, size_t n,
				 unsigned long loc, u32 reason)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (rows[i].location == loc && rows[i].reason == reason)
			return &rows[i];
	return NULL;
}

UNIT_TEST(capacity_keeps_load_at_most_half)
{
	u32 k;

	for (k = DT_MAX_KEYS_MIN; k <= DT_MAX_KEYS_MAX; k = k * 3 + 1) {
		u32 c = dt_capacity(k);

		EXPECT((c & (c - 1)) == 0, "capacity %u of %u keys not a power of 2", c, k);
		EXPECT(c >= 2 * k, "capacity %u < 2 * %u", c, k);
		EXPECT(c < 4 * k || c == 2, "capacity %u of %u keys too large", c, k);
	}
	EXPECT_EQ(dt_capacity(1), 2);
	EXPECT_EQ(dt_capacity(256), 512);
	EXPECT_EQ(dt_capacity(257), 1024);
}

UNIT_TEST(counts_per_location_and_reason)
{
	struct dt_row rows[8];
	struct tbl x;
	size_t n;

	tbl_init(&x, 8);
	rec(&x, 1, 0x1000, 2, 10);
	rec(&x, 1, 0x1000, 2, 20);
	rec(&x, 1, 0x1000, 3, 30);	/* same location, other reason */
	rec(&x, 1, 0x2000, 2, 40);	/* other location, same reason */
	rec(&x, 1, 0x1000, 2, 50);
	n = snap(&x, 1, rows, 8);
	EXPECT_EQ(n, 3);
	EXPECT_EQ(find(rows, n, 0x1000, 2)->count, 3);
	EXPECT_EQ(find(rows, n, 0x1000, 3)->count, 1);
	EXPECT_EQ(find(rows, n, 0x2000, 2)->count, 1);
	EXPECT_EQ(find(rows, n, 0x1000, 2)->first_ns, 10);
	EXPECT_EQ(find(rows, n, 0x1000, 2)->last_ns, 50);
	EXPECT_EQ(x.t.used, 3);
	EXPECT_EQ(x.t.total, 5);
	EXPECT_EQ(x.t.overflow, 0);
	free(x.slots);
}

UNIT_TEST(new_keys_beyond_max_are_overflow)
{
	struct dt_row rows[8];
	struct dt_sample s;
	struct tbl x;
	size_t n;

	tbl_init(&x, 2);
	rec(&x, 1, 0x1000, 0, 1);
	rec(&x, 1, 0x2000, 0, 2);
	s = smp(0x3000, 0, 3, ETH_P_IP, IPPROTO_UDP, "lo");
	EXPECT(!dt_record(&x.t, 1, &s), "a third key fitted in a 2-key table");
	rec(&x, 1, 0x3000, 0, 4);
	rec(&x, 1, 0x1000, 0, 5);	/* known keys still count */
	n = snap(&x, 1, rows, 8);
	EXPECT_EQ(n, 2);
	EXPECT_EQ(find(rows, n, 0x1000, 0)->count, 2);
	EXPECT(!find(rows, n, 0x3000, 0), "overflowed key has a row");
	EXPECT_EQ(x.t.overflow, 2);
	EXPECT_EQ(x.t.total, 5);
	free(x.slots);
}

UNIT_TEST(colliding_keys_all_found)
{
	const u32 k = 300;
	struct dt_row *rows = calloc(k, sizeof(*rows));
	struct tbl x;
	size_t n, i;
	u32 j;

	tbl_init(&x, k);
	/* locations 16 bytes apart: many share hash buckets */
	for (j = 0; j < 3; j++)
		for (i = 0; i < k; i++)
			rec(&x, 7, 0xffffffff81000000ul + 16 * i, (u32)i % 3, i);
	n = snap(&x, 7, rows, k);
	EXPECT_EQ(n, k);
	for (i = 0; i < k; i++) {
		const struct dt_row *r = find(rows, n, 0xffffffff81000000ul + 16 * i,
					      (u32)i % 3);

		EXPECT(r && r->count == 3, "key %zu: %llu drops", i,
		       r ? (unsigned long long)r->count : 0ull);
	}
	EXPECT_EQ(x.t.overflow, 0);
	free(rows);
	free(x.slots);
}

UNIT_TEST(snapshot_respects_max)
{
	struct dt_row rows[3];
	struct tbl x;
	int i;

	tbl_init(&x, 16);
	for (i = 0; i < 10; i++)
		rec(&x, 1, 0x1000 + i, 0, i);
	EXPECT_EQ(snap(&x, 1, rows, 3), 3);
	free(x.slots);
}

UNIT_TEST(reset_is_a_new_generation)
{
	struct dt_row rows[8];
	struct dt_sample s;
	struct tbl x;
	size_t n;

	tbl_init(&x, 2);
	rec(&x, 1, 0x1000, 0, 1);
	rec(&x, 1, 0x2000, 0, 2);
	rec(&x, 1, 0x3000, 0, 3);	/* overflow */
	/* a reader of generation 2 sees nothing of generation 1 */
	EXPECT_EQ(snap(&x, 2, rows, 8), 0);
	/* the first drop of generation 2 empties the table */
	s = smp(0x3000, 0, 4, ETH_P_IP, IPPROTO_UDP, "lo");
	EXPECT(dt_record(&x.t, 2, &s), "table not emptied by the new generation");
	n = snap(&x, 2, rows, 8);
	EXPECT_EQ(n, 1);
	EXPECT_EQ(rows[0].location, 0x3000);
	EXPECT_EQ(rows[0].count, 1);
	EXPECT_EQ(rows[0].first_ns, 4);
	EXPECT_EQ(x.t.used, 1);
	EXPECT_EQ(x.t.total, 1);
	EXPECT_EQ(x.t.overflow, 0);
	EXPECT_EQ(snap(&x, 1, rows, 8), 0);
	free(x.slots);
}

UNIT_TEST(times_keep_min_and_max)
{
	struct dt_row rows[2];
	struct tbl x;

	tbl_init(&x, 2);
	/* an interrupted drop may record an earlier time after a later one */
	rec(&x, 1, 0x1000, 0, 50);
	rec(&x, 1, 0x1000, 0, 40);
	rec(&x, 1, 0x1000, 0, 60);
	rec(&x, 1, 0x1000, 0, 55);
	EXPECT_EQ(snap(&x, 1, rows, 2), 1);
	EXPECT_EQ(rows[0].first_ns, 40);
	EXPECT_EQ(rows[0].last_ns, 60);
	free(x.slots);
}

UNIT_TEST(mixed_protocols_and_devices_are_flagged)
{
	struct dt_row rows[4];
	struct dt_sample s;
	struct tbl x;
	char buf[32];

	tbl_init(&x, 4);
	s = smp(0x1000, 0, 1, ETH_P_IP, IPPROTO_UDP, "eth0");
	dt_record(&x.t, 1, &s);
	dt_record(&x.t, 1, &s);
	EXPECT_EQ(snap(&x, 1, rows, 4), 1);
	EXPECT_EQ(rows[0].flags & (DT_PROTO_MIXED | DT_DEV_MIXED), 0);

	s = smp(0x1000, 0, 2, ETH_P_IPV6, IPPROTO_TCP, "eth0");
	dt_record(&x.t, 1, &s);
	EXPECT_EQ(snap(&x, 1, rows, 4), 1);
	EXPECT(rows[0].flags & DT_PROTO_MIXED, "protocol change not flagged");
	EXPECT(!(rows[0].flags & DT_DEV_MIXED), "device flagged as changed");
	dt_proto_name(buf, sizeof(buf), &rows[0]);
	EXPECT(!strcmp(buf, "ipv6/tcp"), "proto '%s'", buf);

	s = smp(0x1000, 0, 3, ETH_P_IPV6, IPPROTO_TCP, "");
	dt_record(&x.t, 1, &s);
	EXPECT_EQ(snap(&x, 1, rows, 4), 1);
	EXPECT(rows[0].flags & DT_DEV_MIXED, "device change not flagged");
	EXPECT_EQ(rows[0].dev[0], 0);

	/* same ethertype, one with and one without a transport */
	s = smp(0x2000, 0, 4, ETH_P_IP, IPPROTO_UDP, "lo");
	dt_record(&x.t, 1, &s);
	s = smp(0x2000, 0, 5, ETH_P_IP, -1, "lo");
	dt_record(&x.t, 1, &s);
	EXPECT_EQ(snap(&x, 1, rows, 4), 2);
	EXPECT(find(rows, 2, 0x2000, 0)->flags & DT_PROTO_MIXED,
	       "l4 loss not flagged");
	free(x.slots);
}

UNIT_TEST(writers_close_their_seqcount_sections)
{
	struct tbl x;
	u32 i;

	tbl_init(&x, 4);
	rec(&x, 1, 0x1000, 0, 1);
	rec(&x, 1, 0x1000, 0, 2);
	rec(&x, 1, 0x2000, 0, 3);
	rec(&x, 2, 0x3000, 0, 4);	/* clears */
	for (i = 0; i <= x.t.mask; i++)
		EXPECT_EQ(x.slots[i].seq.sequence & 1, 0);
	free(x.slots);
}

UNIT_TEST(merge_sums_keys_across_cpus_and_sorts)
{
	struct dt_row rows[16];
	struct tbl a, b;
	size_t n;

	tbl_init(&a, 4);
	tbl_init(&b, 4);
	rec(&a, 1, 0x1000, 2, 10);
	rec(&a, 1, 0x1000, 2, 30);
	rec(&a, 1, 0x3000, 0, 5);
	rec(&b, 1, 0x1000, 2, 5);
	rec(&b, 1, 0x1000, 2, 20);
	rec(&b, 1, 0x2000, 0, 7);
	rec(&b, 1, 0x2000, 0, 8);
	rec(&b, 1, 0x0500, 0, 9);
	n = snap(&a, 1, rows, 16);
	n += snap(&b, 1, rows + n, 16 - n);
	EXPECT_EQ(n, 5);
	n = dt_merge(rows, n);
	EXPECT_EQ(n, 4);
	/* most drops first, ties by location */
	EXPECT_EQ(rows[0].location, 0x1000);
	EXPECT_EQ(rows[0].count, 4);
	EXPECT_EQ(rows[0].first_ns, 5);
	EXPECT_EQ(rows[0].last_ns, 30);
	EXPECT_EQ(rows[1].location, 0x2000);
	EXPECT_EQ(rows[1].count, 2);
	EXPECT_EQ(rows[2].location, 0x0500);
	EXPECT_EQ(rows[3].location, 0x3000);
	EXPECT_EQ(dt_merge(rows, 0), 0);
	free(a.slots);
	free(b.slots);
}

UNIT_TEST(stage_is_part_of_the_key)
{
	struct dt_sample s = smp(0x1000, 2, 10, ETH_P_IP, IPPROTO_UDP, "lo");
	struct dt_row rows[8];
	struct tbl a, b;
	size_t n;

	tbl_init(&a, 8);
	tbl_init(&b, 8);
	s.stage = 2;
	dt_record(&a.t, 1, &s);
	dt_record(&b.t, 1, &s);
	s.stage = DT_NO_STAGE;		/* same place and reason, no timeline */
	dt_record(&a.t, 1, &s);
	s.stage = 9;
	dt_record(&b.t, 1, &s);
	dt_record(&b.t, 1, &s);
	EXPECT_EQ(a.t.used, 2);
	EXPECT_EQ(b.t.used, 2);
	n = merged(&a, &b, rows, 8);
	EXPECT_EQ(n, 3);
	/* two each for stages 2 and 9; ties by location, reason, stage */
	EXPECT_EQ(rows[0].stage, 2);
	EXPECT_EQ(rows[0].count, 2);
	EXPECT_EQ(rows[1].stage, 9);
	EXPECT_EQ(rows[1].count, 2);
	EXPECT_EQ(rows[2].stage, DT_NO_STAGE);
	EXPECT_EQ(rows[2].count, 1);
	free(a.slots);
	free(b.slots);
}

UNIT_TEST(netns_is_part_of_the_key)
{
	struct dt_sample s = smp(0x1000, 2, 10, ETH_P_IP, IPPROTO_UDP, "lo");
	struct dt_row rows[8];
	struct tbl a, b;
	size_t n, i;
	u64 sum[3] = { 0 };

	tbl_init(&a, 8);
	tbl_init(&b, 8);
	/* one place, one reason, in three namespaces on two CPUs */
	s.netns = 4026531840u;
	for (i = 0; i < 5; i++)
		dt_record(&a.t, 1, &s);
	s.netns = 4026532000u;
	for (i = 0; i < 3; i++)
		dt_record(&b.t, 1, &s);
	dt_record(&a.t, 1, &s);
	s.netns = 0;
	dt_record(&b.t, 1, &s);
	EXPECT_EQ(a.t.used, 2);
	EXPECT_EQ(b.t.used, 2);
	n = merged(&a, &b, rows, 8);
	EXPECT_EQ(n, 3);
	for (i = 0; i < n; i++)
		sum[rows[i].netns == 4026531840u ? 0 :
		    rows[i].netns == 4026532000u ? 1 : 2] += rows[i].count;
	EXPECT_EQ(sum[0], 5);
	EXPECT_EQ(sum[1], 4);
	EXPECT_EQ(sum[2], 1);
	/* a new namespace is a new key: past max_keys, overflow */
	free(a.slots);
	tbl_init(&a, 1);
	s.netns = 1;
	EXPECT(dt_record(&a.t, 1, &s), "first key");
	s.netns = 2;
	EXPECT(!dt_record(&a.t, 1, &s), "second namespace fits in one key");
	EXPECT_EQ(a.t.overflow, 1);
	free(a.slots);
	free(b.slots);
}

UNIT_TEST(cgroup_is_the_latest_and_flags_differences)
{
	struct dt_sample s = smp(0x1000, 2, 10, ETH_P_IP, IPPROTO_UDP, "lo");
	struct dt_row rows[4];
	struct tbl a, b;
	size_t n;

	tbl_init(&a, 2);
	tbl_init(&b, 2);
	s.cgroup = 77;
	dt_record(&a.t, 1, &s);
	dt_record(&a.t, 1, &s);
	n = snap(&a, 1, rows, 4);
	EXPECT_EQ(rows[0].cgroup, 77);
	EXPECT(!(rows[0].flags & DT_CGROUP_MIXED), "one cgroup flagged mixed");
	/* another CPU saw it later in another cgroup */
	s.cgroup = 88;
	s.now_ns = 20;
	dt_record(&b.t, 1, &s);
	n += snap(&b, 1, rows + n, 4 - n);
	n = dt_merge(rows, n);
	EXPECT_EQ(n, 1);
	EXPECT_EQ(rows[0].count, 3);
	EXPECT_EQ(rows[0].cgroup, 88);
	EXPECT(rows[0].flags & DT_CGROUP_MIXED, "cgroup difference not flagged");
	/* and on one CPU */
	s.cgroup = 0;
	dt_record(&a.t, 1, &s);
	n = snap(&a, 1, rows, 4);
	EXPECT_EQ(rows[0].cgroup, 0);
	EXPECT(rows[0].flags & DT_CGROUP_MIXED, "cgroup difference not flagged");
	free(a.slots);
	free(b.slots);
}

UNIT_TEST(merge_takes_latest_attributes_and_flags_differences)
{
	struct dt_row rows[4];
	struct dt_sample s;
	struct tbl a, b;
	char buf[32];
	size_t n;

	tbl_init(&a, 2);
	tbl_init(&b, 2);
	s = smp(0x1000, 0, 100, ETH_P_IPV6, IPPROTO_UDP, "eth1");
	dt_record(&a.t, 1, &s);
	s = smp(0x1000, 0, 50, ETH_P_IP, IPPROTO_UDP, "eth0");
	dt_record(&b.t, 1, &s);
	n = merged(&b, &a, rows, 4);
	EXPECT_EQ(n, 1);
	EXPECT_EQ(rows[0].count, 2);
	EXPECT(!strcmp(rows[0].dev, "eth1"), "dev '%s', want the latest", rows[0].dev);
	EXPECT(rows[0].flags & DT_DEV_MIXED, "device difference not flagged");
	EXPECT(rows[0].flags & DT_PROTO_MIXED, "protocol difference not flagged");
	dt_proto_name(buf, sizeof(buf), &rows[0]);
	EXPECT(!strcmp(buf, "ipv6/udp"), "proto '%s', want the latest", buf);
	free(a.slots);
	free(b.slots);
}

static const char *pname(u16 eth, int l4, u8 flags)
{
	static char buf[32];
	struct dt_row r;

	memset(&r, 0, sizeof(r));
	r.ethertype = eth;
	if (l4 >= 0) {
		r.l4 = l4;
		r.flags = DT_L4;
	}
	r.flags |= flags;
	dt_proto_name(buf, sizeof(buf), &r);
	return buf;
}

UNIT_TEST(protocol_names)
{
	static const struct {
		u16 eth;
		int l4;
		const char *want;
	} cases[] = {
		{ ETH_P_IP, IPPROTO_UDP, "ipv4/udp" },
		{ ETH_P_IP, IPPROTO_TCP, "ipv4/tcp" },
		{ ETH_P_IP, IPPROTO_ICMP, "ipv4/icmp" },
		{ ETH_P_IP, IPPROTO_IGMP, "ipv4/igmp" },
		{ ETH_P_IP, 58, "ipv4/58" },
		{ ETH_P_IP, 253, "ipv4/253" },
		{ ETH_P_IP, -1, "ipv4" },
		{ ETH_P_IPV6, IPPROTO_UDP, "ipv6/udp" },
		{ ETH_P_IPV6, 58, "ipv6/icmpv6" },
		{ ETH_P_IPV6, 44, "ipv6/frag" },
		{ ETH_P_IPV6, 0, "ipv6/hopopts" },
		{ ETH_P_IPV6, IPPROTO_ICMP, "ipv6/1" },
		{ ETH_P_IPV6, IPPROTO_SCTP, "ipv6/sctp" },
		{ ETH_P_ARP, -1, "arp" },
		{ ETH_P_ARP, 6, "arp" },
		{ 0x88cc, -1, "0x88cc" },
		{ 0x0001, -1, "0x0001" },
		{ 0, -1, "-" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *got = pname(cases[i].eth, cases[i].l4, 0);

		EXPECT(!strcmp(got, cases[i].want), "0x%04x/%d: '%s', want '%s'",
		       cases[i].eth, cases[i].l4, got, cases[i].want);
	}
	/* the mixed flag is a column of its own, not part of the name */
	EXPECT(!strcmp(pname(0x88cc, -1, DT_PROTO_MIXED), "0x88cc"), "mixed");
	EXPECT(!strcmp(pname(0, -1, DT_PROTO_MIXED), "-"), "mixed none");
}

UNIT_TEST(protocol_name_truncates_safely)
{
	struct dt_row r;
	char buf[6];

	memset(&r, 0, sizeof(r));
	r.ethertype = ETH_P_IPV6;
	r.l4 = 58;
	r.flags = DT_L4 | DT_PROTO_MIXED;
	dt_proto_name(buf, sizeof(buf), &r);
	EXPECT(!strcmp(buf, "ipv6/"), "'%s'", buf);
}

static bool name_ok(const char *s)
{
	char n[DT_DEVLEN] = { 0 };

	memcpy(n, s, strlen(s));
	return dt_dev_name_ok(n);
}

UNIT_TEST(device_names_are_validated)
{
	static const char *const good[] = {
		"lo", "eth0", "veth-a.10", "br_0", "x", "123456789012345" };
	char bad_unterminated[DT_DEVLEN];
	char ptr_bytes[DT_DEVLEN] = { 0x40, (char)0x8c, 0x12, 0x05, (char)0x80,
				      (char)0x88, (char)0xff, (char)0xff };
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(*good); i++) {
		char n[DT_DEVLEN] = { 0 };

		memcpy(n, good[i], strlen(good[i]));
		EXPECT(dt_dev_name_ok(n), "'%s' rejected", good[i]);
	}
	EXPECT(!name_ok(""), "empty name accepted");
	EXPECT(!name_ok("a b"), "space accepted");
	EXPECT(!name_ok("a/b"), "slash accepted");
	EXPECT(!name_ok("a:b"), "colon accepted");
	EXPECT(!name_ok("a\tb"), "tab accepted");
	EXPECT(!name_ok("a\x7f"), "DEL accepted");
	EXPECT(!dt_dev_name_ok(ptr_bytes), "pointer bytes accepted");
	memset(bad_unterminated, 'a', sizeof(bad_unterminated));
	EXPECT(!dt_dev_name_ok(bad_unterminated), "unterminated name accepted");
}

UNIT_TEST(device_names_compare_up_to_the_nul)
{
	struct dt_row rows[2];
	struct dt_sample a, b;
	struct tbl x;

	tbl_init(&x, 2);
	a = smp(0x1000, 0, 1, ETH_P_IP, IPPROTO_UDP, "");
	b = a;
	/* what a failed or renamed read may leave behind the NUL */
	memcpy(b.dev, "\0garbage", 9);
	dt_record(&x.t, 1, &a);
	dt_record(&x.t, 1, &b);
	memcpy(a.dev, "eth0\0old-name", 14);
	memcpy(b.dev, "eth0\0", 5);
	dt_record(&x.t, 1, &a);
	EXPECT_EQ(snap(&x, 1, rows, 2), 1);
	EXPECT(rows[0].flags & DT_DEV_MIXED, "'' then eth0 not flagged");
	x.t.gen = 0;	/* start over */
	dt_record(&x.t, 1, &a);
	dt_record(&x.t, 1, &b);
	EXPECT_EQ(snap(&x, 1, rows, 2), 1);
	EXPECT(!(rows[0].flags & DT_DEV_MIXED), "same name flagged as mixed");
	free(x.slots);
}

UNIT_TEST(device_name_padding)
{
	char n[DT_DEVLEN];

	memcpy(n, "eth0\0renamed-xy", DT_DEVLEN);
	dt_dev_name_pad(n);
	EXPECT(!memcmp(n, "eth0\0\0\0\0\0\0\0\0\0\0\0", DT_DEVLEN), "not padded");
}
