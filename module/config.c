// SPDX-License-Identifier: GPL-2.0
/*
 * Parser and printer of the control-file grammar (see config.h), and the
 * packet filter.  Builds in the kernel and in userspace: it uses nothing
 * but string and formatting functions both provide, so the exact code the
 * module runs is unit-tested and fuzzed on the host.
 */
#include <linux/errno.h>
#include <linux/kernel.h>
#include <linux/string.h>

#include "cgroup.h"
#include "config.h"

/* The longest part of a bad token quoted in an error message. */
#define QUOTE_MAX 40

struct token {
	const char *s;
	size_t n;
};

struct parser {
	const char *p, *end;	/* rest of the current line */
	char *err;
	size_t errlen;
	char quote[QUOTE_MAX + 1];
};

static __printf(2, 3) int perr(struct parser *ps, const char *fmt, ...)
{
	va_list ap;

	if (ps->err && ps->errlen) {
		va_start(ap, fmt);
		vsnprintf(ps->err, ps->errlen, fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

/* At most QUOTE_MAX characters of a token, for an error message. */
static const char *q(struct parser *ps, struct token t)
{
	size_t n = t.n < QUOTE_MAX ? t.n : QUOTE_MAX;

	memcpy(ps->quote, t.s, n);
	ps->quote[n] = 0;
	return ps->quote;
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* The next whitespace-separated token of the line; n == 0 at its end. */
static struct token next_token(struct parser *ps)
{
	struct token t;

	while (ps->p < ps->end && is_blank(*ps->p))
		ps->p++;
	t.s = ps->p;
	while (ps->p < ps->end && !is_blank(*ps->p))
		ps->p++;
	t.n = ps->p - t.s;
	return t;
}

static bool tok_is(struct token t, const char *word)
{
	size_t n = strlen(word);

	return t.n == n && !memcmp(t.s, word, n);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A decimal or 0x-hex number no larger than max. */
static bool parse_num(struct token t, u64 max, u64 *val)
{
	unsigned int base = 10;
	size_t i = 0;
	u64 v = 0;
	int d;

	if (t.n > 2 && t.s[0] == '0' && (t.s[1] == 'x' || t.s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i >= t.n)
		return false;
	for (; i < t.n; i++) {
		d = hexval(t.s[i]);
		if (d < 0 || (unsigned int)d >= base)
			return false;
		if (v > (max - d) / base)
			return false;
		v = v * base + d;
	}
	*val = v;
	return true;
}

static bool is_decimal(struct token t)
{
	size_t i;

	for (i = 0; i < t.n; i++)
		if (t.s[i] < '0' || t.s[i] > '9')
			return false;
	return t.n > 0;
}

/* Strict dotted quad: four decimal parts 0-255, no leading zeros. */
static bool parse_ipv4(const char *s, size_t n, u8 *out)
{
	unsigned int part = 0, digits = 0, val = 0;
	size_t i;

	for (i = 0; i <= n; i++) {
		if (i == n || s[i] == '.') {
			if (!digits || part > 3)
				return false;
			out[part++] = val;
			digits = 0;
			val = 0;
			continue;
		}
		if (s[i] < '0' || s[i] > '9')
			return false;
		if (digits && val == 0)
			return false;	/* leading zero */
		val = val * 10 + (s[i] - '0');
		if (++digits > 3 || val > 255)
			return false;
	}
	return part == 4;
}

/*
 * RFC 4291 text form: up to eight groups of 1-4 hex digits, at most one
 * "::", optionally ending in a dotted quad that stands for two groups.
 */
static bool parse_ipv6(const char *s, size_t n, u8 *out)
{
	u16 words[8];
	int nw = 0, gap = -1, i;
	size_t pos = 0;

	if (n >= 2 && s[0] == ':' && s[1] == ':') {
		gap = 0;
		pos = 2;
		if (pos == n)
			goto done;
	} else if (n && s[0] == ':') {
		return false;
	}
	for (;;) {
		size_t start = pos;
		unsigned int v = 0;

		while (pos < n && hexval(s[pos]) >= 0 && pos - start < 5)
			v = v * 16 + hexval(s[pos++]);
		if (pos < n && s[pos] == '.') {
			u8 v4[4];

			/* an embedded IPv4 address ends the text */
			if (nw > 6 || !parse_ipv4(s + start, n - start, v4))
				return false;
			words[nw++] = v4[0] << 8 | v4[1];
			words[nw++] = v4[2] << 8 | v4[3];
			break;
		}
		if (pos == start || pos - start > 4 || nw == 8)
			return false;
		words[nw++] = v;
		if (pos == n)
			break;
		if (s[pos] != ':')
			return false;
		pos++;
		if (pos < n && s[pos] == ':') {
			if (gap >= 0)
				return false;
			gap = nw;
			pos++;
			if (pos == n)
				break;
		} else if (pos == n) {
			return false;	/* trailing single ':' */
		}
	}
done:
	if (gap < 0 ? nw != 8 : nw > 7)
		return false;
	memset(out, 0, 16);
	for (i = 0; i < nw; i++) {
		int at = (gap >= 0 && i >= gap) ? 8 - nw + i : i;

		out[2 * at] = words[i] >> 8;
		out[2 * at + 1] = words[i] & 0xff;
	}
	return true;
}

/* ADDR[/LEN] of either family; host bits beyond LEN are cleared. */
static int parse_prefix(struct parser *ps, const char *term, struct token t,
			struct skbprof_prefix *pfx)
{
	struct token len_tok = { NULL, 0 };
	size_t alen = t.n, i;
	unsigned int max;
	u64 len;

	for (i = 0; i < t.n; i++) {
		if (t.s[i] == '/') {
			alen = i;
			len_tok.s = t.s + i + 1;
			len_tok.n = t.n - i - 1;
			break;
		}
	}
	memset(pfx, 0, sizeof(*pfx));
	if (parse_ipv4(t.s, alen, pfx->addr)) {
		pfx->family = SKBPROF_AF_INET;
		max = 32;
	} else if (parse_ipv6(t.s, alen, pfx->addr)) {
		pfx->family = SKBPROF_AF_INET6;
		max = 128;
	} else {
		return perr(ps, "%s: '%s' is not an IPv4 or IPv6 address",
			    term, q(ps, t));
	}
	len = max;
	if (len_tok.s && (!is_decimal(len_tok) || !parse_num(len_tok, max, &len)))
		return perr(ps, "%s: bad prefix length in '%s' (0-%u)", term,
			    q(ps, t), max);
	pfx->len = len;
	for (i = 0; i < 16; i++) {
		if (i * 8 >= len)
			pfx->addr[i] = 0;
		else if (i * 8 + 8 > len)
			pfx->addr[i] &= (u8)(0xff << (8 - (len - i * 8)));
	}
	return 0;
}

/* An interface or command name: 1-15 printable characters. */
static int parse_name(struct parser *ps, const char *term, struct token t,
		      bool ifname, char *out)
{
	size_t i;

	if (t.n == 0 || t.n >= SKBPROF_NAME_LEN)
		return perr(ps, "%s: '%s' must be 1-%d characters", term,
			    q(ps, t), SKBPROF_NAME_LEN - 1);
	for (i = 0; i < t.n; i++) {
		unsigned char c = t.s[i];

		if (c < 0x21 || c > 0x7e || (ifname && (c == '/' || c == ':')))
			return perr(ps, "%s: '%s' has an invalid character",
				    term, q(ps, t));
	}
	if (ifname && (tok_is(t, ".") || tok_is(t, "..")))
		return perr(ps, "%s: '%s' is not an interface name", term,
			    q(ps, t));
	memcpy(out, t.s, t.n);
	out[t.n] = 0;
	return 0;
}

struct term_desc {
	const char *name;
	u32 flag;
};

static const struct term_desc terms[] = {
	{ "proto", SKBPROF_F_PROTO },	{ "family", SKBPROF_F_FAMILY },
	{ "host", SKBPROF_F_HOST },	{ "src", SKBPROF_F_SRC },
	{ "dst", SKBPROF_F_DST },	{ "port", SKBPROF_F_PORT },
	{ "sport", SKBPROF_F_SPORT },	{ "dport", SKBPROF_F_DPORT },
	{ "dev", SKBPROF_F_DEV },	{ "mark", SKBPROF_F_MARK },
	{ "pid", SKBPROF_F_PID },	{ "comm", SKBPROF_F_COMM },
	{ "netns", SKBPROF_F_NETNS },	{ "cgroup", SKBPROF_F_CGROUP },
};

#define ADDR_TERMS (SKBPROF_F_HOST | SKBPROF_F_SRC | SKBPROF_F_DST)
#define PORT_TERMS (SKBPROF_F_PORT | SKBPROF_F_SPORT | SKBPROF_F_DPORT)

static int parse_port(struct parser *ps, const char *term, struct token t,
		      u16 *port)
{
	u64 v;

	if (!parse_num(t, 65535, &v) || v == 0)
		return perr(ps, "%s: '%s' is not a port (1-65535)", term,
			    q(ps, t));
	*port = v;
	return 0;
}

/*
 * `cgroup PATH|ID`: an id, or an absolute path without empty, "." or ".."
 * components and without a trailing '/' (but "/" itself), looked up now.
 */
static int parse_cgroup(struct parser *ps, struct token v,
			struct skbprof_filter *f)
{
	size_t i, start;
	int err;
	u64 n;

	if (v.s[0] != '/') {
		if (!parse_num(v, ~0ull, &n) || n == 0)
			return perr(ps, "cgroup: '%s' is not a %s or a cgroup id",
				    q(ps, v), "path from the cgroup2 root (/...)");
		f->cgroup = n;
		f->cgroup_path[0] = 0;
		return 0;
	}
	if (v.n >= SKBPROF_CGROUP_PATH_LEN)
		return perr(ps, "cgroup: '%s...' is longer than %d characters",
			    q(ps, v), SKBPROF_CGROUP_PATH_LEN - 1);
	for (i = 0; i < v.n; i++) {
		unsigned char c = v.s[i];

		if (c < 0x21 || c > 0x7e)
			return perr(ps, "cgroup: '%s' has an invalid character",
				    q(ps, v));
	}
	for (start = 1; v.n > 1 && start <= v.n; start = i + 1) {
		for (i = start; i < v.n && v.s[i] != '/'; i++)
			;
		if (i == start || (i - start == 1 && v.s[start] == '.') ||
		    (i - start == 2 && v.s[start] == '.' && v.s[start + 1] == '.'))
			return perr(ps, "cgroup: '%s' has an empty, '.' or '..' component",
				    q(ps, v));
	}
	memcpy(f->cgroup_path, v.s, v.n);
	f->cgroup_path[v.n] = 0;
	err = skbprof_cgroup_lookup(f->cgroup_path, &f->cgroup);
	if (err == -ENOTDIR)
		return perr(ps, "cgroup: '%s' is not a cgroup directory",
			    q(ps, v));
	if (err) {
		perr(ps, "cgroup: no cgroup '%s' in the cgroup2 hierarchy",
		     q(ps, v));
		return -ENOENT;
	}
	return 0;
}

static int parse_term(struct parser *ps, const struct term_desc *d,
		      struct token v, struct skbprof_filter *f)
{
	struct token mask = { NULL, 0 };
	u64 n;
	size_t i;

	switch (d->flag) {
	case SKBPROF_F_PROTO:
		if (tok_is(v, "tcp"))
			f->proto = SKBPROF_PROTO_TCP;
		else if (tok_is(v, "udp"))
			f->proto = SKBPROF_PROTO_UDP;
		else if (tok_is(v, "icmp"))
			f->proto = SKBPROF_PROTO_ICMP;
		else
			return perr(ps, "proto: '%s' is not tcp, udp or icmp",
				    q(ps, v));
		return 0;
	case SKBPROF_F_FAMILY:
		if (tok_is(v, "ipv4"))
			f->family = SKBPROF_AF_INET;
		else if (tok_is(v, "ipv6"))
			f->family = SKBPROF_AF_INET6;
		else
			return perr(ps, "family: '%s' is not ipv4 or ipv6",
				    q(ps, v));
		return 0;
	case SKBPROF_F_HOST:
		return parse_prefix(ps, d->name, v, &f->host);
	case SKBPROF_F_SRC:
		return parse_prefix(ps, d->name, v, &f->src);
	case SKBPROF_F_DST:
		return parse_prefix(ps, d->name, v, &f->dst);
	case SKBPROF_F_PORT:
		return parse_port(ps, d->name, v, &f->port);
	case SKBPROF_F_SPORT:
		return parse_port(ps, d->name, v, &f->sport);
	case SKBPROF_F_DPORT:
		return parse_port(ps, d->name, v, &f->dport);
	case SKBPROF_F_DEV:
		return parse_name(ps, d->name, v, true, f->dev);
	case SKBPROF_F_COMM:
		return parse_name(ps, d->name, v, false, f->comm);
	case SKBPROF_F_MARK:
		for (i = 0; i < v.n; i++) {
			if (v.s[i] == '/') {
				mask.s = v.s + i + 1;
				mask.n = v.n - i - 1;
				v.n = i;
				break;
			}
		}
		if (!parse_num(v, 0xffffffffu, &n))
			return perr(ps, "mark: '%s' is not a 32-bit number",
				    q(ps, v));
		f->mark = n;
		f->mark_mask = 0xffffffffu;
		if (mask.s) {
			if (!parse_num(mask, 0xffffffffu, &n) || n == 0)
				return perr(ps, "mark: mask '%s' is not a non-zero 32-bit number",
					    q(ps, mask));
			f->mark_mask = n;
		}
		f->mark &= f->mark_mask;
		return 0;
	case SKBPROF_F_PID:
		if (!parse_num(v, 4194304, &n) || n == 0)
			return perr(ps, "pid: '%s' is not a process id",
				    q(ps, v));
		f->pid = n;
		return 0;
	case SKBPROF_F_NETNS:
		if (!parse_num(v, 0xffffffffu, &n) || n == 0)
			return perr(ps, "netns: '%s' is not a namespace inode number",
				    q(ps, v));
		f->netns = n;
		return 0;
	case SKBPROF_F_CGROUP:
		return parse_cgroup(ps, v, f);
	}
	return perr(ps, "internal error: term %s", d->name);
}

static const char *family_name(u8 family)
{
	return family == SKBPROF_AF_INET ? "ipv4" : "ipv6";
}

static int parse_filter(struct parser *ps, struct skbprof_filter *out)
{
	const struct term_desc *d;
	struct skbprof_filter f;
	struct token t, v;
	u8 fam = 0;
	size_t i;
	int err;

	memset(&f, 0, sizeof(f));
	t = next_token(ps);
	if (!t.n)
		return perr(ps, "filter: no terms (use 'filter clear' to remove it)");
	if (tok_is(t, "clear")) {
		t = next_token(ps);
		if (t.n)
			return perr(ps, "filter clear: unexpected '%s'", q(ps, t));
		*out = f;
		return 0;
	}
	for (; t.n; t = next_token(ps)) {
		d = NULL;
		for (i = 0; i < ARRAY_SIZE(terms); i++)
			if (tok_is(t, terms[i].name))
				d = &terms[i];
		if (!d)
			return perr(ps, "filter: unknown term '%s'", q(ps, t));
		if (f.terms & d->flag)
			return perr(ps, "filter: '%s' given twice", d->name);
		v = next_token(ps);
		if (!v.n)
			return perr(ps, "filter: '%s' needs a value", d->name);
		err = parse_term(ps, d, v, &f);
		if (err)
			return err;
		f.terms |= d->flag;
	}

	/* Terms that can never match together are a mistake: say so. */
	if (f.terms & SKBPROF_F_FAMILY)
		fam = f.family;
	for (i = 0; i < 3; i++) {
		static const u32 flag[] = {
			SKBPROF_F_HOST, SKBPROF_F_SRC, SKBPROF_F_DST
		};
		const struct skbprof_prefix *p[] = { &f.host, &f.src, &f.dst };

		if (!(f.terms & flag[i]))
			continue;
		if (fam && p[i]->family != fam)
			return perr(ps, "filter: %s address contradicts %s",
				    terms[2 + i].name, family_name(fam));
		fam = p[i]->family;
	}
	if ((f.terms & SKBPROF_F_PROTO) && f.proto == SKBPROF_PROTO_ICMP &&
	    (f.terms & PORT_TERMS))
		return perr(ps, "filter: icmp has no ports");
	*out = f;
	return 0;
}

static int parse_stages(struct parser *ps,
			const struct skbprof_stage_names *st, u32 *out)
{
	struct token t = next_token(ps), name, extra;
	unsigned int i;
	size_t pos;
	u32 mask = 0;

	if (!t.n)
		return perr(ps, "stages: needs 'all' or a comma-separated list");
	extra = next_token(ps);
	if (extra.n)
		return perr(ps, "stages: unexpected '%s' (separate names with commas)",
			    q(ps, extra));
	if (tok_is(t, "all")) {
		*out = st->count >= 32 ? 0xffffffffu : (1u << st->count) - 1;
		return 0;
	}
	for (pos = 0; pos <= t.n; pos++) {
		name.s = t.s + pos;
		name.n = 0;
		while (pos + name.n < t.n && t.s[pos + name.n] != ',')
			name.n++;
		pos += name.n;
		for (i = 0; i < st->count; i++)
			if (tok_is(name, st->name(i)))
				break;
		if (i == st->count)
			return perr(ps, "stages: unknown stage '%s'", q(ps, name));
		mask |= 1u << i;
	}
	*out = mask;
	return 0;
}

static int parse_number_cmd(struct parser *ps, const char *cmd, u64 min,
			    u64 max, u32 *out)
{
	struct token t = next_token(ps), extra = next_token(ps);
	u64 v;

	if (!t.n)
		return perr(ps, "%s: needs a number", cmd);
	if (extra.n)
		return perr(ps, "%s: unexpected '%s'", cmd, q(ps, extra));
	if (!parse_num(t, max, &v) || v < min)
		return perr(ps, "%s: '%s' is not a number in %llu-%llu", cmd,
			    q(ps, t), (unsigned long long)min,
			    (unsigned long long)max);
	*out = v;
	return 0;
}

/*
 * `CMD WORD`, WORD one of @words (NULL-terminated, @list in messages):
 * its index in *@out.
 */
static int parse_choice(struct parser *ps, const char *cmd,
			const char *const *words, const char *list, u8 *out)
{
	struct token t = next_token(ps);
	unsigned int i;

	for (i = 0; words[i] && !tok_is(t, words[i]); i++)
		;
	if (!words[i])
		return perr(ps, "%s: '%s' is not %s", cmd, q(ps, t), list);
	t = next_token(ps);
	if (t.n)
		return perr(ps, "%s: unexpected '%s'", cmd, q(ps, t));
	*out = i;
	return 0;
}

static int parse_line(struct parser *ps, struct skbprof_config *cfg,
		      const struct skbprof_stage_names *st,
		      unsigned int *actions)
{
	struct token cmd = next_token(ps), t;
	int ret;
	u8 v;

	if (!cmd.n || cmd.s[0] == '#')
		return 0;
	if (cmd.n >= 11 && !memcmp(cmd.s, "last_error:", 11))
		return 0;
	if (tok_is(cmd, "filter"))
		return parse_filter(ps, &cfg->filter);
	if (tok_is(cmd, "sample"))
		return parse_number_cmd(ps, "sample", 1, 0xffffffffu,
					&cfg->sample);
	if (tok_is(cmd, "stages"))
		return parse_stages(ps, st, &cfg->stages);
	if (tok_is(cmd, "lifetime")) {
		const char *at = ps->p;

		t = next_token(ps);
		if (!t.n)
			return perr(ps, "lifetime: needs a number or 'off'");
		if (!tok_is(t, "off")) {
			ps->p = at;
			return parse_number_cmd(ps, "lifetime", 1, 0xffffffffu,
						&cfg->lifetime);
		}
		t = next_token(ps);
		if (t.n)
			return perr(ps, "lifetime: unexpected '%s'", q(ps, t));
		cfg->lifetime = 0;
		return 0;
	}
	if (tok_is(cmd, "procs")) {
		static const char *const procs_words[] = { "totals", "stages",
							   NULL };

		ret = parse_choice(ps, "procs", procs_words, "totals or stages",
				   &v);
		if (!ret)
			cfg->procs_stages = v;
		return ret;
	}
	if (tok_is(cmd, "softnet")) {
		static const char *const softnet_words[] = { "off", "on",
							     NULL };

		ret = parse_choice(ps, "softnet", softnet_words, "on or off",
				   &v);
		if (!ret)
			cfg->softnet = v;
		return ret;
	}
	if (tok_is(cmd, "kretprobes")) {
		static const char *const krp_words[] = { "off", "on", NULL };

		ret = parse_choice(ps, "kretprobes", krp_words, "on or off",
				   &v);
		if (!ret)
			cfg->kretprobes = v;
		return ret;
	}
	if (tok_is(cmd, "trace")) {
		static const char *const trace_words[] = {
			[SKBPROF_TRACE_OFF] = "off",
			[SKBPROF_TRACE_ON] = "on",
			[SKBPROF_TRACE_VERBOSE] = "verbose",
			NULL
		};

		ret = parse_choice(ps, "trace", trace_words,
				   "on, off or verbose", &v);
		if (!ret)
			cfg->trace = v;
		return ret;
	}
	if (tok_is(cmd, "reset")) {
		t = next_token(ps);
		if (t.n)
			return perr(ps, "reset: unexpected '%s'", q(ps, t));
		*actions |= SKBPROF_ACT_RESET;
		return 0;
	}
	return perr(ps, "unknown command '%s'", q(ps, cmd));
}

void skbprof_config_default(struct skbprof_config *cfg,
			    const struct skbprof_stage_names *stages)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->sample = 1;
	cfg->stages = stages->count >= 32 ? 0xffffffffu :
		      (1u << stages->count) - 1;
	cfg->trace = SKBPROF_TRACE_OFF;
}

int skbprof_config_parse(struct skbprof_config *cfg,
			 const struct skbprof_stage_names *stages,
			 const char *buf, size_t len, unsigned int *actions,
			 char *err, size_t errlen)
{
	struct parser ps = { .err = err, .errlen = errlen };
	struct skbprof_config next = *cfg;
	const char *line = buf, *nl;
	unsigned int act = 0;
	size_t i;
	int ret;

	if (err && errlen)
		err[0] = 0;
	if (len > SKBPROF_CONFIG_MAX) {
		perr(&ps, "write of %zu bytes is larger than %d", len,
		     SKBPROF_CONFIG_MAX);
		return -E2BIG;
	}
	for (i = 0; i < len; i++)
		if (buf[i] == '\0')
			return perr(&ps, "NUL byte at offset %zu", i);
	if (len && buf[len - 1] != '\n') {
		struct token last;

		for (i = len; i > 0 && buf[i - 1] != '\n'; i--)
			;
		last.s = buf + i;
		last.n = len - i;
		return perr(&ps, "partial line '%s' (commands end with a newline)",
			    q(&ps, last));
	}
	while (line < buf + len) {
		nl = memchr(line, '\n', buf + len - line);
		ps.p = line;
		ps.end = nl;
		ret = parse_line(&ps, &next, stages, &act);
		if (ret)
			return ret;
		line = nl + 1;
	}
	*cfg = next;
	*actions = act;
	return 0;
}

/* snprintf into a running buffer; tracks the length it would need. */
struct out {
	char *buf;
	size_t size, len;
};

static __printf(2, 3) void put(struct out *o, const char *fmt, ...)
{
	size_t room = o->len < o->size ? o->size - o->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += n;
}

static void put_ipv6(struct out *o, const u8 *a)
{
	int best = -1, best_len = 0, run, i;
	u16 w[8];

	for (i = 0; i < 8; i++)
		w[i] = a[2 * i] << 8 | a[2 * i + 1];
	/*
	 * IPv4-mapped and IPv4-compatible addresses keep their dotted quad,
	 * as inet_ntop() and so ip(8) print them.
	 */
	if (!w[0] && !w[1] && !w[2] && !w[3] && !w[4] &&
	    (w[5] == 0xffff || (!w[5] && w[6]))) {
		put(o, "::%s%u.%u.%u.%u", w[5] ? "ffff:" : "", a[12], a[13],
		    a[14], a[15]);
		return;
	}
	/* compress the first longest run of two or more zero groups */
	for (i = 0; i < 8; i += run ? run : 1) {
		for (run = 0; i + run < 8 && !w[i + run]; run++)
			;
		if (run > best_len && run >= 2) {
			best = i;
			best_len = run;
		}
	}
	for (i = 0; i < 8; i++) {
		if (i == best) {
			put(o, "::");
			i += best_len - 1;
			continue;
		}
		if (i && i != best + best_len)
			put(o, ":");
		put(o, "%x", w[i]);
	}
}

static void put_prefix(struct out *o, const char *term,
		       const struct skbprof_prefix *p)
{
	put(o, " %s ", term);
	if (p->family == SKBPROF_AF_INET)
		put(o, "%u.%u.%u.%u", p->addr[0], p->addr[1], p->addr[2],
		    p->addr[3]);
	else
		put_ipv6(o, p->addr);
	if (p->len != (p->family == SKBPROF_AF_INET ? 32 : 128))
		put(o, "/%u", p->len);
}

int skbprof_config_print(const struct skbprof_config *cfg,
			 const struct skbprof_stage_names *stages,
			 char *buf, size_t size)
{
	const struct skbprof_filter *f = &cfg->filter;
	struct out o = { buf, size, 0 };
	u32 all = stages->count >= 32 ? 0xffffffffu : (1u << stages->count) - 1;
	unsigned int i;
	bool first;

	if (size)
		buf[0] = 0;
	if (!f->terms) {
		put(&o, "filter clear\n");
	} else {
		put(&o, "filter");
		if (f->terms & SKBPROF_F_PROTO)
			put(&o, " proto %s", f->proto == SKBPROF_PROTO_TCP ? "tcp" :
			    f->proto == SKBPROF_PROTO_UDP ? "udp" : "icmp");
		if (f->terms & SKBPROF_F_FAMILY)
			put(&o, " family %s", family_name(f->family));
		if (f->terms & SKBPROF_F_HOST)
			put_prefix(&o, "host", &f->host);
		if (f->terms & SKBPROF_F_SRC)
			put_prefix(&o, "src", &f->src);
		if (f->terms & SKBPROF_F_DST)
			put_prefix(&o, "dst", &f->dst);
		if (f->terms & SKBPROF_F_PORT)
			put(&o, " port %u", f->port);
		if (f->terms & SKBPROF_F_SPORT)
			put(&o, " sport %u", f->sport);
		if (f->terms & SKBPROF_F_DPORT)
			put(&o, " dport %u", f->dport);
		if (f->terms & SKBPROF_F_DEV)
			put(&o, " dev %s", f->dev);
		if (f->terms & SKBPROF_F_MARK) {
			put(&o, " mark 0x%x", f->mark);
			if (f->mark_mask != 0xffffffffu)
				put(&o, "/0x%x", f->mark_mask);
		}
		if (f->terms & SKBPROF_F_PID)
			put(&o, " pid %u", f->pid);
		if (f->terms & SKBPROF_F_COMM)
			put(&o, " comm %s", f->comm);
		if (f->terms & SKBPROF_F_NETNS)
			put(&o, " netns %llu", (unsigned long long)f->netns);
		if ((f->terms & SKBPROF_F_CGROUP) && f->cgroup_path[0])
			put(&o, " cgroup %s", f->cgroup_path);
		else if (f->terms & SKBPROF_F_CGROUP)
			put(&o, " cgroup %llu", (unsigned long long)f->cgroup);
		put(&o, "\n");
	}
	put(&o, "sample %u\n", cfg->sample);
	if ((cfg->stages & all) == all) {
		put(&o, "stages all\n");
	} else {
		put(&o, "stages");
		first = true;
		for (i = 0; i < stages->count; i++) {
			if (!(cfg->stages & (1u << i)))
				continue;
			put(&o, "%s%s", first ? " " : ",", stages->name(i));
			first = false;
		}
		put(&o, "\n");
	}
	if (cfg->lifetime)
		put(&o, "lifetime %u\n", cfg->lifetime);
	else
		put(&o, "lifetime off\n");
	put(&o, "procs %s\n", cfg->procs_stages ? "stages" : "totals");
	put(&o, "softnet %s\n", cfg->softnet ? "on" : "off");
	put(&o, "kretprobes %s\n", cfg->kretprobes ? "on" : "off");
	put(&o, "trace %s\n", cfg->trace == SKBPROF_TRACE_ON ? "on" :
	    cfg->trace == SKBPROF_TRACE_VERBOSE ? "verbose" : "off");
	return o.len;
}

static bool prefix_match(const struct skbprof_prefix *p, u8 family,
			 const u8 *addr)
{
	unsigned int full = p->len / 8, rest = p->len % 8;

	if (p->family != family)
		return false;
	if (memcmp(p->addr, addr, full))
		return false;
	return !rest || !((p->addr[full] ^ addr[full]) & (u8)(0xff << (8 - rest)));
}

bool skbprof_filter_match(const struct skbprof_filter *f,
			  const struct skbprof_pktinfo *p)
{
	u32 t = f->terms;

	if (!t)
		return true;
	if ((t & (SKBPROF_F_PROTO | SKBPROF_F_FAMILY | ADDR_TERMS | PORT_TERMS)) &&
	    !p->family)
		return false;
	if ((t & SKBPROF_F_FAMILY) && p->family != f->family)
		return false;
	if (t & SKBPROF_F_PROTO) {
		if (f->proto == SKBPROF_PROTO_ICMP ?
		    p->proto != SKBPROF_PROTO_ICMP && p->proto != SKBPROF_PROTO_ICMPV6 :
		    p->proto != f->proto)
			return false;
	}
	if ((t & SKBPROF_F_HOST) &&
	    !prefix_match(&f->host, p->family, p->saddr) &&
	    !prefix_match(&f->host, p->family, p->daddr))
		return false;
	if ((t & SKBPROF_F_SRC) && !prefix_match(&f->src, p->family, p->saddr))
		return false;
	if ((t & SKBPROF_F_DST) && !prefix_match(&f->dst, p->family, p->daddr))
		return false;
	if (t & PORT_TERMS) {
		if (p->proto != SKBPROF_PROTO_TCP && p->proto != SKBPROF_PROTO_UDP)
			return false;
		if ((t & SKBPROF_F_PORT) && p->sport != f->port &&
		    p->dport != f->port)
			return false;
		if ((t & SKBPROF_F_SPORT) && p->sport != f->sport)
			return false;
		if ((t & SKBPROF_F_DPORT) && p->dport != f->dport)
			return false;
	}
	if ((t & SKBPROF_F_DEV) &&
	    (!p->dev || strncmp(p->dev, f->dev, SKBPROF_NAME_LEN)))
		return false;
	if ((t & SKBPROF_F_MARK) && (p->mark & f->mark_mask) != f->mark)
		return false;
	if ((t & SKBPROF_F_PID) && p->pid != f->pid)
		return false;
	if ((t & SKBPROF_F_COMM) &&
	    (!p->comm || strncmp(p->comm, f->comm, SKBPROF_NAME_LEN)))
		return false;
	if ((t & SKBPROF_F_NETNS) && p->netns != f->netns)
		return false;
	if ((t & SKBPROF_F_CGROUP) && p->cgroup != f->cgroup)
		return false;
	return true;
}
