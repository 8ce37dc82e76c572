// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the control-file grammar (module/config.c): every command,
 * every documented error, canonical printing and its round trip, and the
 * packet filter's matching.  Addresses are checked against the C
 * library's inet_pton/inet_ntop as an independent reference.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"
#include "config.c"

static const char *const names[] = {
	"drv-ip", "ip-tcp", "ip-udp", "tcp-app", "udp-app", "drops",
};

static const char *name_of(unsigned int i)
{
	return names[i];
}

/* a short list of its own: the parser takes any */
static const struct skbprof_stage_names stages = { name_of, 6 };

static char err[SKBPROF_ERR_LEN];

/*
 * The cgroup hierarchy the parser sees here (the module asks the kernel):
 * "/" is 1, "/test/a" 1234, "/test/b" 5678, "/test/a/cgroup.procs" a file;
 * nothing else exists.  Counts the lookups.
 */
static unsigned int lookups;

int skbprof_cgroup_lookup(const char *path, u64 *id)
{
	static const struct { const char *path; u64 id; } tree[] = {
		{ "/", 1 }, { "/test/a", 1234 }, { "/test/b", 5678 },
	};
	size_t i;

	lookups++;
	if (!strcmp(path, "/test/a/cgroup.procs"))
		return -ENOTDIR;
	for (i = 0; i < sizeof(tree) / sizeof(*tree); i++) {
		if (!strcmp(path, tree[i].path)) {
			*id = tree[i].id;
			return 0;
		}
	}
	return -ENOENT;
}

static int apply(struct skbprof_config *cfg, const char *text,
		 unsigned int *act)
{
	unsigned int a = act ? *act : 0;
	int ret = skbprof_config_parse(cfg, &stages, text, strlen(text), &a,
				       err, sizeof(err));

	if (act)
		*act = a;
	return ret;
}

static const char *print(const struct skbprof_config *cfg)
{
	static char buf[1024];

	skbprof_config_print(cfg, &stages, buf, sizeof(buf));
	return buf;
}

/* The whole filter line a write produces, from the printed config. */
static const char *filter_line(const char *write)
{
	static char line[512];
	struct skbprof_config cfg;
	const char *p;

	skbprof_config_default(&cfg, &stages);
	if (apply(&cfg, write, NULL))
		return err;
	p = print(&cfg);
	snprintf(line, sizeof(line), "%.*s", (int)strcspn(p, "\n"), p);
	return line;
}

UNIT_TEST(default_config_prints)
{
	struct skbprof_config cfg;

	skbprof_config_default(&cfg, &stages);
	EXPECT(!strcmp(print(&cfg),
		       "filter clear\nsample 1\nstages all\nlifetime off\nprocs totals\nsoftnet off\nkretprobes off\ntrace off\n"),
	       "got '%s'", print(&cfg));
}

UNIT_TEST(every_term_round_trips)
{
	static const char *const lines[] = {
		"filter proto tcp",
		"filter proto udp family ipv6",
		"filter proto icmp",
		"filter host 10.0.0.1",
		"filter src 10.0.0.0/8 dst 192.168.1.0/24",
		"filter host 2001:db8::1",
		"filter src fe80::/10",
		"filter host ::ffff:1.2.3.4",
		"filter port 443",
		"filter proto udp sport 53 dport 1024",
		"filter dev veth0",
		"filter mark 0x9999",
		"filter mark 0x10/0xf0",
		"filter pid 1234 comm firefox",
		"filter netns 4026531840",
		"filter cgroup /test/a",
		"filter cgroup /",
		"filter cgroup 5678",
		"filter cgroup 18446744073709551615",
		"filter proto tcp family ipv4 host 10.1.2.3 src 10.1.0.0/16 dst 10.1.2.0/24 port 80 sport 1 dport 65535 dev eth0 mark 0x1 pid 1 comm a netns 1 cgroup /test/b",
	};
	char in[600], again[1024];
	struct skbprof_config cfg, cfg2;
	size_t i;

	for (i = 0; i < sizeof(lines) / sizeof(*lines); i++) {
		snprintf(in, sizeof(in), "%s\n", lines[i]);
		EXPECT(!strcmp(filter_line(in), lines[i]), "'%s' printed as '%s'",
		       lines[i], filter_line(in));
		/* printing and parsing again gives the same configuration */
		skbprof_config_default(&cfg, &stages);
		EXPECT_EQ(apply(&cfg, in, NULL), 0);
		snprintf(again, sizeof(again), "%s", print(&cfg));
		skbprof_config_default(&cfg2, &stages);
		EXPECT_EQ(apply(&cfg2, again, NULL), 0);
		EXPECT(!memcmp(&cfg, &cfg2, sizeof(cfg)), "'%s' does not round-trip",
		       lines[i]);
	}
}

UNIT_TEST(canonical_forms)
{
	EXPECT(!strcmp(filter_line("filter host 2001:0DB8:0:0:0:0:0:1\n"),
		       "filter host 2001:db8::1"), "%s", filter_line("filter host 2001:0DB8:0:0:0:0:0:1\n"));
	EXPECT(!strcmp(filter_line("filter host 10.1.2.3/8\n"),
		       "filter host 10.0.0.0/8"), "host bits not cleared");
	EXPECT(!strcmp(filter_line("filter src 10.0.0.1/32\n"),
		       "filter src 10.0.0.1"), "full prefix printed");
	EXPECT(!strcmp(filter_line("filter mark 4095\n"), "filter mark 0xfff"),
	       "mark not hex");
	EXPECT(!strcmp(filter_line("filter mark 0xff/0xf\n"),
		       "filter mark 0xf/0xf"), "mark not masked");
	EXPECT(!strcmp(filter_line("filter port 0x50\n"), "filter port 80"),
	       "hex port");
	EXPECT(!strcmp(filter_line("  filter\tport   80  \n"), "filter port 80"),
	       "whitespace");
	EXPECT(!strcmp(filter_line("filter dport 1 proto udp\n"),
		       "filter proto udp dport 1"), "term order");
}

/* Every IPv6 text form parses to what inet_pton says, prints as inet_ntop. */
UNIT_TEST(ipv6_against_libc)
{
	static const char *const good[] = {
		"::", "::1", "1::", "1:2:3:4:5:6:7:8", "1::8", "1:2::7:8",
		"::2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "fe80::1:2",
		"::ffff:10.0.0.1", "::10.0.0.1", "64:ff9b::192.0.2.33",
		"1:2:3:4:5:6:1.2.3.4", "2001:db8:0:0:1:0:0:1", "0:0:1::",
		"abcd:ef01:2345:6789:abcd:ef01:2345:6789", "1:0:0:2::3",
		"::a00:1", "::ffff:0:1", "::1:0:0:0", "1:0:0:1:0:0:0:1",
	};
	static const char *const bad[] = {
		"", ":", ":::", "1:::2", "1::2::3", "1:2:3:4:5:6:7:8:9",
		"1:2:3:4:5:6:7", "12345::", "1:", ":1", "::g", "1::2:",
		"::1.2.3", "::1.2.3.4.5", "::256.1.1.1", "1:2:3:4:5:6:7:1.2.3.4",
		"::01.2.3.4", "1.2.3.4::", "::1.2.3.4:5", "1:2:3:4:5:6:7:8::",
		"::1:2:3:4:5:6:7:8",
	};
	u8 mine[16], ref[16];
	char ntop[INET6_ADDRSTRLEN];
	struct out o;
	char buf[64];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(*good); i++) {
		EXPECT(parse_ipv6(good[i], strlen(good[i]), mine),
		       "'%s' rejected", good[i]);
		EXPECT(inet_pton(AF_INET6, good[i], ref) == 1, "libc: %s", good[i]);
		EXPECT(!memcmp(mine, ref, 16), "'%s' parsed wrong", good[i]);
		o = (struct out){ buf, sizeof(buf), 0 };
		put_ipv6(&o, ref);
		inet_ntop(AF_INET6, ref, ntop, sizeof(ntop));
		EXPECT(!strcmp(buf, ntop), "'%s' printed '%s', libc '%s'",
		       good[i], buf, ntop);
	}
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		EXPECT(!parse_ipv6(bad[i], strlen(bad[i]), mine),
		       "'%s' accepted", bad[i]);
}

UNIT_TEST(ipv4_strict)
{
	static const char *const bad[] = {
		"", "1", "1.2.3", "1.2.3.4.5", "256.1.1.1", "1.2.3.-4",
		"01.2.3.4", "1..3.4", ".1.2.3", "1.2.3.4.", "1.2.3.a",
		"1234.1.1.1", " 1.2.3.4",
	};
	u8 a[4];
	size_t i;

	EXPECT(parse_ipv4("0.0.0.0", 7, a) && !a[0] && !a[3], "0.0.0.0");
	EXPECT(parse_ipv4("255.255.255.255", 15, a) && a[0] == 255, "max");
	EXPECT(parse_ipv4("10.20.30.40", 11, a) && a[0] == 10 && a[1] == 20 &&
	       a[2] == 30 && a[3] == 40, "order");
	for (i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		EXPECT(!parse_ipv4(bad[i], strlen(bad[i]), a), "'%s' accepted",
		       bad[i]);
}

struct bad_case {
	const char *write;
	int err;
	const char *msg;	/* must appear in the error message */
};

UNIT_TEST(bad_input_is_rejected_and_changes_nothing)
{
	static const struct bad_case cases[] = {
		{ "bogus\n", -EINVAL, "unknown command 'bogus'" },
		{ "filter\n", -EINVAL, "filter: no terms" },
		{ "filter port 70000\n", -EINVAL, "'70000' is not a port" },
		{ "filter port 0\n", -EINVAL, "'0' is not a port" },
		{ "filter port -1\n", -EINVAL, "'-1' is not a port" },
		{ "filter port\n", -EINVAL, "'port' needs a value" },
		{ "filter host 999.1.1.1\n", -EINVAL, "'999.1.1.1' is not an IPv4 or IPv6 address" },
		{ "filter host 10.0.0.1/33\n", -EINVAL, "bad prefix length in '10.0.0.1/33'" },
		{ "filter host ::1/129\n", -EINVAL, "bad prefix length" },
		{ "filter host 10.0.0.1/\n", -EINVAL, "bad prefix length" },
		{ "filter host 10.0.0.1/0x8\n", -EINVAL, "bad prefix length" },
		{ "filter proto sctp\n", -EINVAL, "'sctp' is not tcp, udp or icmp" },
		{ "filter family ipx\n", -EINVAL, "'ipx' is not ipv4 or ipv6" },
		{ "filter frob 1\n", -EINVAL, "unknown term 'frob'" },
		{ "filter port 1 port 2\n", -EINVAL, "'port' given twice" },
		{ "filter family ipv4 host ::1\n", -EINVAL, "host address contradicts ipv4" },
		{ "filter src 10.0.0.1 dst ::1\n", -EINVAL, "dst address contradicts ipv4" },
		{ "filter proto icmp port 1\n", -EINVAL, "icmp has no ports" },
		{ "filter dev a/b\n", -EINVAL, "'a/b' has an invalid character" },
		{ "filter dev 0123456789abcdef\n", -EINVAL, "must be 1-15 characters" },
		{ "filter dev ..\n", -EINVAL, "is not an interface name" },
		{ "filter mark 0x100000000\n", -EINVAL, "not a 32-bit number" },
		{ "filter mark 1/0\n", -EINVAL, "mask '0'" },
		{ "filter pid 0\n", -EINVAL, "'0' is not a process id" },
		{ "filter pid 99999999\n", -EINVAL, "is not a process id" },
		{ "filter netns x\n", -EINVAL, "'x' is not a namespace inode" },
		{ "filter cgroup /test/c\n", -ENOENT, "no cgroup '/test/c' in the cgroup2 hierarchy" },
		{ "filter cgroup /test/a/cgroup.procs\n", -EINVAL, "'/test/a/cgroup.procs' is not a cgroup directory" },
		{ "filter cgroup test/a\n", -EINVAL, "'test/a' is not a path from the cgroup2 root" },
		{ "filter cgroup 0\n", -EINVAL, "'0' is not a path from the cgroup2 root (/...) or a cgroup id" },
		{ "filter cgroup 18446744073709551616\n", -EINVAL, "is not a path" },
		{ "filter cgroup /test/a/\n", -EINVAL, "'/test/a/' has an empty, '.' or '..' component" },
		{ "filter cgroup //test\n", -EINVAL, "empty, '.' or '..' component" },
		{ "filter cgroup /test/../a\n", -EINVAL, "empty, '.' or '..' component" },
		{ "filter cgroup /./test\n", -EINVAL, "empty, '.' or '..' component" },
		{ "filter cgroup /test/a port 0\n", -EINVAL, "'0' is not a port" },
		{ "filter cgroup /test/a cgroup 1\n", -EINVAL, "'cgroup' given twice" },
		{ "filter cgroup /test/\x01\n", -EINVAL, "has an invalid character" },
		{ "filter clear now\n", -EINVAL, "unexpected 'now'" },
		{ "sample 0\n", -EINVAL, "sample: '0' is not a number in 1-4294967295" },
		{ "sample\n", -EINVAL, "sample: needs a number" },
		{ "sample 10 20\n", -EINVAL, "unexpected '20'" },
		{ "sample 4294967296\n", -EINVAL, "'4294967296'" },
		{ "stages foo\n", -EINVAL, "unknown stage 'foo'" },
		{ "stages drv-ip,,drops\n", -EINVAL, "unknown stage ''" },
		{ "stages drv-ip drops\n", -EINVAL, "unexpected 'drops'" },
		{ "stages\n", -EINVAL, "stages: needs" },
		{ "lifetime 0\n", -EINVAL, "lifetime: '0' is not a number in 1-4294967295" },
		{ "lifetime\n", -EINVAL, "lifetime: needs a number or 'off'" },
		{ "lifetime never\n", -EINVAL, "lifetime: 'never' is not a number" },
		{ "lifetime off now\n", -EINVAL, "lifetime: unexpected 'now'" },
		{ "procs\n", -EINVAL, "procs: '' is not totals or stages" },
		{ "procs rows\n", -EINVAL, "procs: 'rows' is not totals or stages" },
		{ "procs stages now\n", -EINVAL, "procs: unexpected 'now'" },
		{ "softnet\n", -EINVAL, "softnet: '' is not on or off" },
		{ "softnet yes\n", -EINVAL, "softnet: 'yes' is not on or off" },
		{ "softnet on off\n", -EINVAL, "softnet: unexpected 'off'" },
		{ "kretprobes\n", -EINVAL, "kretprobes: '' is not on or off" },
		{ "kretprobes yes\n", -EINVAL, "kretprobes: 'yes' is not on or off" },
		{ "kretprobes on off\n", -EINVAL, "kretprobes: unexpected 'off'" },
		{ "lifetime 8 9\n", -EINVAL, "lifetime: unexpected '9'" },
		{ "trace sideways\n", -EINVAL, "'sideways' is not on, off or verbose" },
		{ "trace\n", -EINVAL, "'' is not on, off or verbose" },
		{ "reset now\n", -EINVAL, "reset: unexpected 'now'" },
		{ "reset", -EINVAL, "partial line 'reset'" },
		{ "sample 2\nreset", -EINVAL, "partial line 'reset'" },
		{ "sample 2\nbogus\n", -EINVAL, "unknown command 'bogus'" },
	};
	struct skbprof_config cfg, before;
	unsigned int act;
	size_t i;
	int ret;

	skbprof_config_default(&cfg, &stages);
	EXPECT_EQ(apply(&cfg, "filter port 7\nsample 3\n", NULL), 0);
	before = cfg;
	for (i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		act = 0x55;
		ret = apply(&cfg, cases[i].write, &act);
		EXPECT(ret == cases[i].err, "'%s' returned %d", cases[i].write, ret);
		EXPECT(strstr(err, cases[i].msg), "'%s' said '%s', want '%s'",
		       cases[i].write, err, cases[i].msg);
		EXPECT(!memcmp(&cfg, &before, sizeof(cfg)), "'%s' changed the config",
		       cases[i].write);
		EXPECT_EQ(act, 0x55);
	}
}

UNIT_TEST(size_and_nul_limits)
{
	struct skbprof_config cfg;
	unsigned int act;
	char *big;

	skbprof_config_default(&cfg, &stages);
	big = malloc(1 << 20);
	memset(big, '\n', 1 << 20);
	EXPECT_EQ(skbprof_config_parse(&cfg, &stages, big, 1 << 20, &act, err,
				       sizeof(err)), -E2BIG);
	EXPECT(strstr(err, "1048576 bytes"), "said '%s'", err);
	/* the largest accepted write: blank lines are fine */
	EXPECT_EQ(skbprof_config_parse(&cfg, &stages, big, SKBPROF_CONFIG_MAX,
				       &act, err, sizeof(err)), 0);
	free(big);
	EXPECT_EQ(skbprof_config_parse(&cfg, &stages, "reset\0x\n", 8, &act, err,
				       sizeof(err)), -EINVAL);
	EXPECT(strstr(err, "NUL byte at offset 5"), "said '%s'", err);
	/* an empty write is no command at all */
	EXPECT_EQ(skbprof_config_parse(&cfg, &stages, "", 0, &act, err,
				       sizeof(err)), 0);
	EXPECT_EQ(act, 0);
}

UNIT_TEST(commands_and_actions)
{
	struct skbprof_config cfg;
	unsigned int act;

	skbprof_config_default(&cfg, &stages);
	EXPECT_EQ(apply(&cfg, "sample 100\ntrace verbose\nstages drops,drv-ip\n"
			"# a comment\n\nreset\n", &act), 0);
	EXPECT_EQ(act, SKBPROF_ACT_RESET);
	EXPECT_EQ(cfg.sample, 100);
	EXPECT_EQ(cfg.trace, SKBPROF_TRACE_VERBOSE);
	EXPECT_EQ(cfg.stages, (1u << 0) | (1u << 5));
	EXPECT(!strcmp(print(&cfg), "filter clear\nsample 100\n"
		       "stages drv-ip,drops\nlifetime off\nprocs totals\nsoftnet off\nkretprobes off\ntrace verbose\n"), "got '%s'", print(&cfg));
	/* what reading control shows, error line included, writes back */
	EXPECT_EQ(apply(&cfg, "filter clear\nsample 100\nstages drv-ip,drops\nlifetime off\n"
			"trace verbose\nlast_error: filter: unknown term 'x'\n",
			&act), 0);
	EXPECT_EQ(act, 0);
	EXPECT_EQ(apply(&cfg, "stages all\nlifetime off\nprocs totals\nsoftnet off\nkretprobes off\ntrace on\n", &act), 0);
	EXPECT(!strcmp(print(&cfg), "filter clear\nsample 100\nstages all\nlifetime off\n"
		       "procs totals\nsoftnet off\nkretprobes off\ntrace on\n"), "got '%s'", print(&cfg));
	EXPECT_EQ(apply(&cfg, "procs stages\n", &act), 0);
	EXPECT(cfg.procs_stages, "procs stages");
	EXPECT_EQ(apply(&cfg, "softnet on\n", &act), 0);
	EXPECT(cfg.softnet, "softnet on");
	EXPECT(strstr(print(&cfg), "\nsoftnet on\n"), "got '%s'", print(&cfg));
	EXPECT_EQ(apply(&cfg, "softnet off\n", &act), 0);
	EXPECT(!cfg.softnet, "softnet off");
	EXPECT_EQ(apply(&cfg, "kretprobes on\n", &act), 0);
	EXPECT(cfg.kretprobes, "kretprobes on");
	EXPECT(strstr(print(&cfg), "\nkretprobes on\n"), "got '%s'", print(&cfg));
	EXPECT_EQ(apply(&cfg, "kretprobes off\n", &act), 0);
	EXPECT(!cfg.kretprobes, "kretprobes off");
	EXPECT(strstr(print(&cfg), "\nprocs stages\n"), "got '%s'", print(&cfg));
	EXPECT_EQ(apply(&cfg, "procs totals\n", &act), 0);
	EXPECT(!cfg.procs_stages, "procs totals");
	EXPECT_EQ(apply(&cfg, "lifetime 8\n", &act), 0);
	EXPECT_EQ(cfg.lifetime, 8);
	EXPECT(strstr(print(&cfg), "\nlifetime 8\n"), "got '%s'", print(&cfg));
	EXPECT_EQ(apply(&cfg, "lifetime off\n", &act), 0);
	EXPECT_EQ(cfg.lifetime, 0);
	/* later lines of one write win */
	EXPECT_EQ(apply(&cfg, "filter port 1\nfilter port 2\n", &act), 0);
	EXPECT_EQ(cfg.filter.port, 2);
	EXPECT_EQ(apply(&cfg, "filter clear\n", &act), 0);
	EXPECT_EQ(cfg.filter.terms, 0);
}

UNIT_TEST(print_reports_needed_length)
{
	struct skbprof_config cfg;
	char small[8];
	int need;

	skbprof_config_default(&cfg, &stages);
	need = skbprof_config_print(&cfg, &stages, small, sizeof(small));
	EXPECT_EQ(need, (int)strlen("filter clear\nsample 1\nstages all\nlifetime off\nprocs totals\nsoftnet off\nkretprobes off\ntrace off\n"));
	EXPECT_EQ(strlen(small), sizeof(small) - 1);
}

static struct skbprof_pktinfo pkt4(const char *s, const char *d, int proto,
				   int sport, int dport)
{
	struct skbprof_pktinfo p = { 0 };

	p.family = SKBPROF_AF_INET;
	p.proto = proto;
	inet_pton(AF_INET, s, p.saddr);
	inet_pton(AF_INET, d, p.daddr);
	p.sport = sport;
	p.dport = dport;
	return p;
}

static bool matches(const char *filter, const struct skbprof_pktinfo *p)
{
	struct skbprof_config cfg;

	skbprof_config_default(&cfg, &stages);
	if (apply(&cfg, filter, NULL)) {
		unit_fail(__FILE__, __LINE__, "'%s': %s", filter, err);
		return false;
	}
	return skbprof_filter_match(&cfg.filter, p);
}

UNIT_TEST(filter_matching)
{
	struct skbprof_pktinfo p = pkt4("10.1.2.3", "192.168.0.9", 6, 40000, 443);
	struct skbprof_pktinfo q = { 0 };

	EXPECT(matches("filter clear\n", &p), "clear");
	EXPECT(matches("filter proto tcp\n", &p), "proto");
	EXPECT(!matches("filter proto udp\n", &p), "proto udp");
	EXPECT(matches("filter family ipv4\n", &p), "family");
	EXPECT(!matches("filter family ipv6\n", &p), "family ipv6");
	EXPECT(matches("filter port 443\n", &p), "port matches dport");
	EXPECT(matches("filter port 40000\n", &p), "port matches sport");
	EXPECT(!matches("filter port 80\n", &p), "port 80");
	EXPECT(matches("filter sport 40000 dport 443\n", &p), "sport dport");
	EXPECT(!matches("filter sport 443\n", &p), "sport is not dport");
	EXPECT(matches("filter host 192.168.0.9\n", &p), "host matches dst");
	EXPECT(matches("filter host 10.0.0.0/8\n", &p), "host prefix");
	EXPECT(matches("filter src 10.1.2.0/23\n", &p), "src /23");
	EXPECT(!matches("filter src 10.1.4.0/23\n", &p), "src other /23");
	EXPECT(matches("filter src 10.1.2.3/31\n", &p), "/31");
	EXPECT(matches("filter dst 0.0.0.0/0\n", &p), "/0 matches all");
	EXPECT(!matches("filter dst ::/0\n", &p), "v6 /0 is not v4");
	EXPECT(!matches("filter dst 10.1.2.3\n", &p), "dst is not src");
	EXPECT(!matches("filter proto tcp port 443 host 10.9.9.9\n", &p), "AND");

	p.mark = 0x9999;
	EXPECT(matches("filter mark 0x9999\n", &p), "mark");
	EXPECT(!matches("filter mark 0x9998\n", &p), "other mark");
	EXPECT(matches("filter mark 0x9000/0xf000\n", &p), "masked mark");
	p.dev = "veth0";
	p.comm = "firefox";
	p.pid = 42;
	p.netns = 4026531840ull;
	EXPECT(matches("filter dev veth0\n", &p), "dev");
	EXPECT(!matches("filter dev veth01\n", &p), "dev prefix is not a match");
	EXPECT(!matches("filter dev veth\n", &p), "dev shorter");
	EXPECT(matches("filter comm firefox pid 42\n", &p), "comm pid");
	EXPECT(!matches("filter pid 43\n", &p), "pid");
	EXPECT(matches("filter netns 4026531840\n", &p), "netns");
	EXPECT(!matches("filter cgroup /test/a\n", &p), "cgroup not known");
	p.cgroup = 1234;
	EXPECT(matches("filter cgroup /test/a\n", &p), "cgroup path");
	EXPECT(matches("filter cgroup 1234 pid 42\n", &p), "cgroup id");
	EXPECT(!matches("filter cgroup /test/b\n", &p), "other cgroup");
	EXPECT(!matches("filter cgroup /\n", &p), "the root is not its children");

	/* not IP: only device, mark, pid, comm, netns terms can match */
	q.dev = "eth0";
	EXPECT(matches("filter dev eth0\n", &q), "non-IP dev");
	EXPECT(!matches("filter family ipv4\n", &q), "non-IP family");
	EXPECT(!matches("filter port 1\n", &q), "non-IP port");
	EXPECT(!matches("filter dev eth1\n", &q), "non-IP other dev");
	EXPECT(!matches("filter comm x\n", &q), "unknown comm");

	/* ICMP covers ICMPv6; ports never match ICMP packets */
	q = pkt4("1.1.1.1", "2.2.2.2", 1, 0, 0);
	EXPECT(matches("filter proto icmp\n", &q), "icmp");
	q.family = SKBPROF_AF_INET6;
	q.proto = 58;
	memset(q.saddr, 0, 16);
	q.saddr[15] = 1;
	EXPECT(matches("filter proto icmp\n", &q), "icmpv6");
	EXPECT(matches("filter family ipv6 src ::1\n", &q), "v6 src");
	EXPECT(matches("filter host ::/127\n", &q), "v6 prefix");
	EXPECT(!matches("filter host ::2/128\n", &q), "v6 other");
}

UNIT_TEST(cgroup_path_limits_and_lookups)
{
	char line[SKBPROF_CGROUP_PATH_LEN + 32], path[SKBPROF_CGROUP_PATH_LEN + 1];
	struct skbprof_config cfg;
	unsigned int before;

	skbprof_config_default(&cfg, &stages);
	/* the longest path is looked up (and is not there); one more is not */
	memset(path, 'x', sizeof(path));
	path[0] = '/';
	path[SKBPROF_CGROUP_PATH_LEN - 1] = 0;
	snprintf(line, sizeof(line), "filter cgroup %s\n", path);
	before = lookups;
	EXPECT_EQ(apply(&cfg, line, NULL), -ENOENT);
	EXPECT_EQ(lookups, before + 1);
	path[SKBPROF_CGROUP_PATH_LEN - 1] = 'x';
	path[SKBPROF_CGROUP_PATH_LEN] = 0;
	snprintf(line, sizeof(line), "filter cgroup %s\n", path);
	EXPECT_EQ(apply(&cfg, line, NULL), -EINVAL);
	EXPECT(strstr(err, "is longer than 255 characters"), "said '%s'", err);
	EXPECT_EQ(lookups, before + 1);
	/* an id is taken as is: nothing is looked up */
	EXPECT_EQ(apply(&cfg, "filter cgroup 0x10\n", NULL), 0);
	EXPECT_EQ(cfg.filter.cgroup, 16);
	EXPECT_EQ(lookups, before + 1);
	/* a path resolves when written, to the id the filter matches */
	EXPECT_EQ(apply(&cfg, "filter cgroup /test/b\n", NULL), 0);
	EXPECT_EQ(cfg.filter.cgroup, 5678);
	EXPECT(!strcmp(cfg.filter.cgroup_path, "/test/b"), "path '%s'",
	       cfg.filter.cgroup_path);
	/* a later filter without it forgets the path */
	EXPECT_EQ(apply(&cfg, "filter cgroup 7\n", NULL), 0);
	EXPECT(!strcmp(filter_line("filter cgroup 7\n"), "filter cgroup 7"),
	       "%s", filter_line("filter cgroup 7\n"));
}
