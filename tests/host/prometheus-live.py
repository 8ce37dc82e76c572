#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The live half of tests/host/prometheus.sh, run against real servers.

  prometheus-live.py PROM_URL TEXTFILE_DIR GUEST_DIR DASHBOARD RULES

PROM_URL is a Prometheus that scrapes, every second, a node_exporter whose
textfile collector reads TEXTFILE_DIR, and evaluates RULES every second.
GUEST_DIR holds what tests/qemu/prom-live.sh printed in a guest: f1.prom,
f2.prom (skbprof-prom.service's file before and after the known traffic),
f3.prom (after rmmod), f*.snmp (the kernel's Udp counters then) and
prom-live.env (the traffic's sizes).

Feeds the files to node_exporter one after the other, each time polling
Prometheus (a bounded number of polls) until it serves the file's values,
and checks: every value served equals the file's; the traffic's counts
(instant values at the two times, no rate: rate and increase
extrapolate) against the traffic sent and the kernel's counters; every
dashboard query (check-dashboard.py --exprs) over a window from a scrape
of file 1 to a scrape of file 2, where rate() is exact, against values
worked out from the two files, and variable selector; every recording
rule has series; the rules load without error; SkbprofDown goes pending
on the up-0 file and not before.  One "ok NAME" or "FAIL NAME: why" line
per check.

The exact window relies on Prometheus 2's range selectors, which take
the sample at the window's start (Prometheus 3 leaves it out).
"""

import json
import math
import os
import re
import subprocess
import sys
import time
import urllib.parse
import urllib.request

PREFIX = "host/prometheus/"
POLL = 0.25     # seconds between polls
POLLS = 240     # polls before a wait gives up (60 s)
failed = 0
quiet = False   # while the harness checks itself: no lines, no count


def ok(name):
    if not quiet:
        print(f"ok {PREFIX}{name}", flush=True)


def fail(name, why):
    global failed
    if quiet:
        return
    failed += 1
    print(f"FAIL {PREFIX}{name}: {why}", flush=True)


def check(name, cond, why):
    if cond:
        ok(name)
    else:
        fail(name, why)
    return cond


class Prom:
    def __init__(self, url):
        self.url = url.rstrip("/")

    def get(self, path, **params):
        q = urllib.parse.urlencode(params)
        with urllib.request.urlopen(f"{self.url}{path}?{q}", timeout=10) as r:
            body = json.load(r)
        if body.get("status") != "success":
            raise RuntimeError(f"{path} {params}: {body}")
        return body["data"]

    def query(self, expr, at=None):
        """An instant query: [(labels, value)], value a float."""
        params = {"query": expr}
        if at is not None:
            params["time"] = f"{at:.3f}"
        data = self.get("/api/v1/query", **params)
        if data["resultType"] == "scalar":
            return [({}, float(data["result"][1]))]
        return [(r["metric"], float(r["value"][1])) for r in data["result"]]


def norm(label, value):
    return repr(float(value)) if label == "le" else value


def parse_prom(path):
    """A textfile's samples: {(name, frozenset(labels)): value}."""
    samples = {}
    line_re = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\d+)?$')
    label_re = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            m = line_re.match(line)
            if not m:
                raise ValueError(f"{path}: cannot parse {line!r}")
            # as Prometheus stores them: an empty label is no label, and
            # node_exporter prints le again as a Go float ("1e-09")
            labels = {k: norm(k, v.encode().decode("unicode_escape"))
                      for k, v in label_re.findall(m.group(3) or "") if v}
            samples[(m.group(1), frozenset(labels.items()))] = float(m.group(4))
    return samples


def parse_snmp(path):
    """/proc/net/snmp's two Udp lines, then "TunTxDropped: N"."""
    with open(path) as f:
        lines = f.read().splitlines()
    head, vals = [l.split()[1:] for l in lines[:2]]
    got = dict(zip(head, map(int, vals)))
    for l in lines[2:]:
        k, _, v = l.partition(": ")
        got[k] = int(v)
    return got


def same(a, b):
    return a == b or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def file_value(samples, name, **want):
    return sum(v for (n, ls), v in samples.items()
               if n == name and all((k, w) in ls for k, w in want.items()))


def poll(fn):
    """fn() until it gives something true, at most POLLS times, POLL apart."""
    for _ in range(POLLS):
        got = fn()
        if got:
            return got
        time.sleep(POLL)
    return got


def wait_for(prom, name, samples, textfile, src):
    """Put src in the textfile directory (by a rename, as the tool does)
    and poll until Prometheus serves its markers; the time then, or None."""
    dst = os.path.join(textfile, "skbprof.prom")
    with open(src) as f:
        text = f.read()
    with open(dst + ".tmp", "w") as f:
        f.write(text)
    os.rename(dst + ".tmp", dst)
    markers = [(n, dict(ls), v) for (n, ls), v in samples.items()
               if n in ("skbprof_up", "skbprof_last_read_timestamp_seconds") or
               (n == "skbprof_stage_latency_seconds_count" and ("stage", "udp-app") in ls)]
    if not markers:
        fail(f"{name}/fed", f"{src} has no skbprof_up, last read or udp-app count to wait for")
        return None
    gone = "skbprof_stage_latency_seconds_count"
    absent = not any(n == gone for n, _ in samples)
    for _ in range(POLLS):
        t = time.time()
        seen = True
        for n, ls, v in markers:
            sel = n + "{" + ",".join(f'{k}="{w}"' for k, w in ls.items()) + "}"
            got = prom.query(sel, t)
            if len(got) != 1 or not same(got[0][1], v):
                seen = False
                break
        if seen and absent and prom.query(gone, t):
            seen = False
        if seen:
            ok(f"{name}/fed")
            return t
        time.sleep(POLL)
    fail(f"{name}/fed", f"Prometheus did not serve {src}'s values within {POLLS} polls")
    return None


def served_equal(prom, name, samples, at):
    """Every skbprof series Prometheus has at `at` is the file's, same value."""
    got = prom.query('{__name__=~"skbprof_.+"}', at)
    served = {}
    for ls, v in got:
        ls = {k: norm(k, w) for k, w in ls.items() if k not in ("instance", "job")}
        served[(ls.pop("__name__"), frozenset(ls.items()))] = v
    missing = [k for k in samples if k not in served]
    extra = [k for k in served if k not in samples]
    wrong = [k for k in samples if k in served and not same(samples[k], served[k])]
    check(f"{name}/served", not missing and not extra and not wrong and samples,
          f"{len(samples)} in the file, {len(served)} served: missing {missing[:3]}, "
          f"not in the file {extra[:3]}, other values {[(k, samples[k], served[k]) for k in wrong[:3]]}")


class Files:
    """The two files' series, and what a query over the window from a
    scrape of file 1 to a scrape of file 2 (w seconds) must give: with
    samples on both ends of the window, Prometheus's rate and increase do
    not extrapolate, so rate = (value in file 2 - value in file 1) / w
    exactly.  A series new in file 2 adds 0 (two samples of one value
    by the second scrape); one gone from file 2 has one sample in the
    window, no rate, and adds nothing."""

    def __init__(self, f1, f2, w):
        self.f1, self.f2, self.w = f1, f2, w

    def _group(self, by, ls):
        return frozenset((k, v) for k, v in ls if k in by)

    def delta(self, name, by, match=lambda ls: True):
        out = {}
        for key in self.f2:
            n, ls = key
            if n != name or not match(dict(ls)):
                continue
            g = self._group(by, ls)
            d = self.f2[key] - self.f1[key] if key in self.f1 else 0.0
            out[g] = out.get(g, 0.0) + d
        return out

    def rate(self, name, by, match=lambda ls: True):
        return {g: v / self.w for g, v in self.delta(name, by, match).items()}

    def gauge(self, name, by):
        out = {}
        for (n, ls), v in self.f2.items():
            if n == name:
                g = self._group(by, ls)
                out[g] = out.get(g, 0.0) + v
        return out

    def ratio(self, num, den, by):
        a, b = self.delta(num, by), self.delta(den, by)
        return {g: (a[g] / b[g] if b[g] else math.nan) for g in b if g in a}

    def quantile(self, q, name, by):
        """histogram_quantile(q, sum by (BY, le) (rate(NAME[w]))), as
        Prometheus 2.42 computes it (promql/quantile.go)."""
        rates = self.rate(name, set(by) | {"le"})
        groups = {}
        for g, v in rates.items():
            d = dict(g)
            le = float(d.pop("le"))
            groups.setdefault(frozenset(d.items()), []).append((le, v))
        return {g: bucket_quantile(q, b) for g, b in groups.items()}


def bucket_quantile(q, buckets):
    buckets = sorted(buckets)
    if not buckets or buckets[-1][0] != math.inf or len(buckets) < 2:
        return math.nan
    mono = []
    top = -math.inf
    for le, c in buckets:      # ensureMonotonic
        top = max(top, c)
        mono.append((le, top))
    total = mono[-1][1]
    if total == 0:
        return math.nan
    rank = q * total
    b = next(i for i, (_, c) in enumerate(mono) if c >= rank)
    if b == len(mono) - 1:
        return mono[-2][0]
    if b == 0 and mono[0][0] <= 0:
        return mono[0][0]
    start, end, count = 0.0, mono[b][0], mono[b][1]
    if b > 0:
        start = mono[b - 1][0]
        count -= mono[b - 1][1]
        rank -= mono[b - 1][1]
    return start + (end - start) * (rank / count)


def expectations(fs, t_end):
    """What each dashboard query must return at t_end over the window
    fs.w: {title: {refId: {group: value} or a test(results) -> (ok, why)}},
    a group being the output's labels but instance, job and __name__."""
    f2 = fs.f2
    info = [dict(ls) for (n, ls), _ in f2.items() if n == "skbprof_info"]
    lr = [v for (n, _), v in f2.items() if n == "skbprof_last_read_timestamp_seconds"]

    def ages(rs):
        return (bool(rs) and all(0 <= v < 60 for _, v in rs), "an age of 0 to 60 s")

    def version(rs):
        return (len(rs) == 1 and bool(info) and
                all(rs[0][0].get(k) == w for k, w in info[0].items()),
                f"the file's skbprof_info labels {info}")

    def last_read(rs):
        return (len(rs) == 1 and len(lr) == 1 and same(rs[0][1], t_end - lr[0]),
                f"{t_end:.3f} - the file's {lr}")

    def topk(k, want):
        def test(rs):
            got = {group(ls): v for ls, v in rs}
            return (len(got) == min(k, len(want)) and
                    all(g in want and same(v, want[g]) for g, v in got.items()) and
                    all(v >= w for v in got.values() for g, w in want.items() if g not in got),
                    f"the {k} largest of {sorted(want.items(), key=lambda x: -x[1])[:5]}...")
        return test

    sn = {c: fs.rate(f"skbprof_softnet_{c}_total", ()) for c in
          ("net_rx", "polls", "processed", "ksoftirqd", "polls_full", "time_squeeze", "backlog_drops")}
    drops = "skbprof_drops_total"
    return {
        "Up": {"A": fs.gauge("skbprof_up", ())},
        "skbprof.prom age": {"A": ages},
        "Last good read": {"A": last_read},
        "Table full (range)": {"A": fs.delta("skbprof_stats_table_full_total", ())},
        "Stamp table in use": {"A": {frozenset(): fs.gauge("skbprof_stats_table_in_use", ())[frozenset()] /
                                     fs.gauge("skbprof_stats_table_capacity", ())[frozenset()]}},
        "Probes": {"A": fs.gauge("skbprof_probes", ("state",))},
        "Incomplete timelines by reason": {"A": fs.rate("skbprof_incomplete_total", ("dir", "reason"))},
        "Timelines by verdict": {"A": fs.rate("skbprof_timelines_total", ("dir", "verdict"))},
        "Probe misses and table full": {"A": fs.rate("skbprof_probe_missed_total", ()),
                                        "B": fs.rate("skbprof_stats_table_full_total", ())},
        "Version": {"A": version},
        "$stage latency": {"A": fs.rate("skbprof_stage_latency_seconds_bucket", ("le",))},
        "p99 per stage": {"A": fs.quantile(0.99, "skbprof_stage_latency_seconds_bucket", ("dir", "stage"))},
        "p50 per stage": {"A": fs.quantile(0.5, "skbprof_stage_latency_seconds_bucket", ("dir", "stage"))},
        "Mean time per stage": {"A": fs.ratio("skbprof_stage_latency_seconds_sum",
                                              "skbprof_stage_latency_seconds_count", ("dir", "stage"))},
        "Packets timed per stage": {"A": fs.rate("skbprof_stage_latency_seconds_count", ("dir", "stage"))},
        "Stages active": {"A": fs.gauge("skbprof_stage_active", ("dir", "stage"))},
        "skb lifetime": {"A": fs.ratio("skbprof_skb_lifetime_seconds_sum",
                                       "skbprof_skb_lifetime_seconds_count", ())},
        "Drops by reason": {"A": fs.rate(drops, ("reason",))},
        "Drops by location": {"A": fs.rate(drops, ("location",))},
        "Drops by protocol and stage": {"A": fs.rate(drops, ("proto", "stage"))},
        "Drops by device, netns and cgroup": {"A": fs.rate(drops, ("netns", "dev")),
                                              "B": fs.rate(drops, ("cgroup",))},
        "Device drop counters": {"A": fs.rate("skbprof_device_drops_total", ("netns", "dev", "counter"))},
        "Top drops over the range": {"A": topk(20, fs.delta(drops, ("reason", "location", "proto", "stage")))},
        "Softnet mean time": {"A": fs.ratio("skbprof_softnet_seconds_sum",
                                            "skbprof_softnet_seconds_count", ("what",))},
        "Softnet events": {"A": fs.rate("skbprof_softnet_seconds_count", ("what",))},
        "Softnet work": {"A": sn["net_rx"], "B": sn["polls"], "C": sn["processed"], "D": sn["ksoftirqd"]},
        "Softnet trouble": {"A": sn["polls_full"], "B": sn["time_squeeze"], "C": sn["backlog_drops"]},
        "Packets per cgroup": {"A": fs.rate("skbprof_cgroup_stage_packets_total", ("cgroup", "dir", "stage"))},
        "Mean time per packet per cgroup": {"A": fs.ratio("skbprof_cgroup_stage_seconds_total",
                                                          "skbprof_cgroup_stage_packets_total",
                                                          ("cgroup", "dir", "stage"))},
        "Cgroups over the range": {"A": fs.delta("skbprof_cgroup_stage_packets_total", ("cgroup", "dir", "stage")),
                                   "B": fs.ratio("skbprof_cgroup_stage_seconds_total",
                                                 "skbprof_cgroup_stage_packets_total",
                                                 ("cgroup", "dir", "stage"))},
    }


def group(ls):
    return frozenset((k, norm(k, v)) for k, v in ls.items() if k not in ("instance", "job", "__name__"))


def show(d):
    return ", ".join(f"{{{','.join(f'{k}={v}' for k, v in sorted(g))}}} {v:g}"
                     for g, v in sorted(d.items(), key=lambda x: sorted(x[0]))[:4]) + \
        (f" ... ({len(d)})" if len(d) > 4 else "")


def run_panels(prom, queries, at, expect, tag):
    """Run every dashboard query at `at`: the series and values expect
    says, for every group and no other."""
    bad = 0
    for q in queries:
        if q["kind"] == "variable":
            name = f"{tag}/variable/{q['name']}"
            try:
                rs = prom.query(q["expr"], at)
            except Exception as e:  # noqa: BLE001 (any error is the check's)
                fail(name, f"{q['expr']}: {e}")
                bad += 1
                continue
            if not check(name, any(q["label"] in ls for ls, _ in rs),
                         f"{q['expr']}: no series with label {q['label']}"):
                bad += 1
            continue
        name = f"{tag}/panel/{q['panel']}/{q['refId']}"
        want = expect.get(q["title"], {}).get(q["refId"])
        try:
            rs = prom.query(q["expr"], at)
        except Exception as e:  # noqa: BLE001
            fail(name, f"{q['title']!r}: {q['expr']}: {e}")
            bad += 1
            continue
        if want is None:
            why = "the test has no expectation for this query: add one"
        elif not rs:
            why = "no series"
        elif callable(want):
            good, desc = want(rs)
            why = None if good else f"want {desc}, got {[(group(ls), v) for ls, v in rs][:4]}"
        else:
            got = {group(ls): v for ls, v in rs}
            why = None
            if set(got) != set(want) or not all(same(got[g], want[g]) for g in want):
                why = f"want {show(want)}; got {show(got)}"
        if why:
            fail(name, f"{q['title']!r}: {why}: {q['expr']}")
            bad += 1
        else:
            ok(name)
    return bad


def scrapes(prom, selector, value, at):
    """Timestamps (ms) of the samples of selector equal to value, up to at."""
    data = prom.get("/api/v1/query", query=f"{selector}[10m]", time=f"{at:.3f}")
    return sorted(round(float(t) * 1000) for r in data["result"]
                  for t, v in r["values"] if same(float(v), value))


def main(argv):
    url, textfile, guest, dashboard, rules = argv
    prom = Prom(url)
    here = os.path.dirname(os.path.abspath(__file__))
    checker = os.path.join(here, "..", "..", "tools", "prometheus", "check-dashboard.py")
    env = {}
    with open(os.path.join(guest, "prom-live.env")) as f:
        for line in f:
            k, _, v = line.strip().partition("=")
            if k:
                env[k] = int(v)
    f1, f2, f3 = (parse_prom(os.path.join(guest, f"f{i}.prom")) for i in (1, 2, 3))
    s1, s2 = (parse_snmp(os.path.join(guest, f"f{i}.snmp")) for i in (1, 2))

    # rules loaded, no evaluation error
    groups = prom.get("/api/v1/rules")["groups"]
    records = [r["name"] for g in groups for r in g["rules"] if r["type"] == "recording"]
    alerts = [r["name"] for g in groups for r in g["rules"] if r["type"] == "alerting"]
    with open(rules) as f:
        want_rules = re.findall(r"^\s*- (?:record|alert): (\S+)", f.read(), re.M)
    check("rules-loaded", sorted(records + alerts) == sorted(want_rules),
          f"Prometheus has {records + alerts}, {rules} {want_rules}")

    t1 = wait_for(prom, "f1", f1, textfile, os.path.join(guest, "f1.prom"))
    if t1 is None:
        return 1
    served_equal(prom, "f1", f1, t1)
    t2 = wait_for(prom, "f2", f2, textfile, os.path.join(guest, "f2.prom"))
    if t2 is None:
        return 1
    served_equal(prom, "f2", f2, t2)

    # the traffic's counts: instant values at t1 and t2, against what was
    # sent and the kernel's own counters
    def delta(expr):
        a, b = prom.query(expr, t1), prom.query(expr, t2)
        return (b[0][1] - a[0][1]) if a and b else None
    sent_ok, sent_closed = env["UDP_OK"], env["UDP_CLOSED"]
    d = delta('sum(skbprof_drops_total{reason="NO_SOCKET",proto="ipv4/udp"})')
    nop = s2["NoPorts"] - s1["NoPorts"]
    check("udp-closed-drops", d == sent_closed == nop,
          f"NO_SOCKET ipv4/udp drops grew by {d}, {sent_closed} datagrams sent to a closed port, "
          f"NoPorts grew by {nop}")
    d = delta('sum(skbprof_drops_total{reason="NO_SOCKET",location="__udp4_lib_rcv"})')
    check("udp-closed-location", d == sent_closed,
          f"NO_SOCKET drops at __udp4_lib_rcv grew by {d}, want {sent_closed}")
    d = delta('sum(skbprof_stage_latency_seconds_count{dir="rx",stage="udp-app"})')
    ind = s2["InDatagrams"] - s1["InDatagrams"]
    check("udp-app-count", d == sent_ok == ind,
          f"rx udp-app count grew by {d}, {sent_ok} datagrams sent to a bound port, "
          f"InDatagrams grew by {ind}")
    d = delta('sum(skbprof_stage_latency_seconds_bucket{dir="rx",stage="udp-app",le="+Inf"})')
    check("udp-app-inf-bucket", d == sent_ok, f"rx udp-app +Inf bucket grew by {d}, want {sent_ok}")
    d = delta('sum(skbprof_stage_latency_seconds_count{dir="tx",stage="app-udp"})')
    outd = s2["OutDatagrams"] - s1["OutDatagrams"]
    sent = sent_ok + sent_closed + env["TUN_SENT"]
    check("app-udp-count", d == sent == outd,
          f"tx app-udp count grew by {d}, {sent} datagrams sent (to the bound and "
          f"closed ports and into sktun0), OutDatagrams grew by {outd}")
    d = delta('sum(skbprof_device_drops_total{dev="sktun0",counter="tx_dropped"})')
    tun = s2["TunTxDropped"] - s1["TunTxDropped"]
    check("tun-tx-dropped", d == tun > 0,
          f"sktun0's tx_dropped grew by {d}, by {tun} in sysfs "
          f"({env['TUN_SENT']} datagrams sent into it)")
    rs = prom.query('skbprof_stage_latency_seconds_bucket{le="+Inf"} != on (instance, job, dir, stage) '
                    'skbprof_stage_latency_seconds_count', t2)
    n = prom.query("count(skbprof_stage_latency_seconds_count)", t2)
    check("histogram-inf-is-count", not rs and n and n[0][1] > 0,
          f"stages whose +Inf bucket is not their count: {rs}")
    a = prom.query('sum(skbprof_cgroup_stage_packets_total{dir="rx",stage="rx-total"})', t2)
    b = prom.query('sum(skbprof_stage_latency_seconds_count{dir="rx",stage="rx-total"})', t2)
    check("cgroup-rows-add-up", a and b and a[0][1] == b[0][1] > 0,
          f"per-cgroup rx rx-total packets add up to {a}, the stage counted {b}")

    # Every dashboard query, as Grafana would send it, at the time of a
    # scrape of file 2 (the second: even a series new in file 2 has two
    # samples), over a window back to the last scrape of file 1: exact
    # values, no extrapolation.
    marker = 'skbprof_stage_latency_seconds_count{dir="rx",stage="udp-app"}'
    c1 = file_value(f1, "skbprof_stage_latency_seconds_count", dir="rx", stage="udp-app")
    c2 = file_value(f2, "skbprof_stage_latency_seconds_count", dir="rx", stage="udp-app")
    for _ in range(POLLS):
        s2s = scrapes(prom, marker, c2, time.time())
        if len(s2s) >= 2:
            break
        time.sleep(POLL)
    s1s = scrapes(prom, marker, c1, time.time())
    if not s1s or len(s2s) < 2:
        fail("window", f"scrapes of file 1 {s1s[-3:]}, of file 2 {s2s[:3]}: want one and two")
        return 1
    t_end, w_ms = s2s[1] / 1000, s2s[1] - s1s[-1]
    ok(f"window: {w_ms} ms from the last scrape of file 1 to the second of file 2")
    out = subprocess.run([sys.executable, checker, "--exprs",
                          "--var", f"__rate_interval={w_ms}ms", "--var", f"__range={w_ms}ms",
                          "--var", f"__interval={w_ms}ms", dashboard],
                         capture_output=True, text=True)
    queries = [json.loads(l) for l in out.stdout.splitlines()]
    check("dashboard-exprs", out.returncode == 0 and len(queries) > 10,
          f"check-dashboard.py --exprs: exit {out.returncode}: {out.stderr[:300]}")
    fs = Files(f1, f2, w_ms / 1000)
    expect = expectations(fs, t_end)
    titles = {q.get("title") for q in queries}
    check("expectations-match", set(expect) <= titles,
          f"expected panels not in the dashboard: {sorted(set(expect) - titles)}")
    run_panels(prom, queries, t_end, expect, "f2")
    # ... and what the traffic fixes, through the panels' queries
    panel = {(q["title"], q["refId"]): q["expr"] for q in queries if q["kind"] == "panel"}
    for title, sel, want, what in (
            ("Drops by location", {"location": "__udp4_lib_rcv"}, sent_closed, "datagrams to a closed port"),
            ("Packets timed per stage", {"dir": "rx", "stage": "udp-app"}, sent_ok, "datagrams to a bound port"),
            ("Device drop counters", {"dev": "sktun0", "counter": "tx_dropped"}, tun, "sktun0's tx_dropped in sysfs")):
        rs = prom.query(panel.get((title, "A"), "vector(0)"), t_end) if (title, "A") in panel else []
        got = [v * fs.w for ls, v in rs if all(ls.get(k) == w for k, w in sel.items())]
        check(f"traffic/{title.replace(' ', '-').lower()}", len(got) == 1 and round(got[0], 6) == want,
              f"{title!r} {sel} times the window: {got}, want {want} ({what})")
    # the harness can fail: one query with a misspelled metric must
    mutant = [dict(q, expr=q["expr"].replace("skbprof_drops_total", "skbprof_drop_total"))
              for q in queries if "skbprof_drops_total" in q["expr"]][:1]
    mutant += [dict(q, expr=q["expr"].replace("sum by (reason)", "sum by (reason, proto)"))
               for q in queries if "sum by (reason)" in q["expr"]][:1]
    global quiet
    quiet = True
    bad = run_panels(prom, mutant, t_end, expect, "mutant")
    quiet = False
    check("mutant-fails", len(mutant) == 2 and bad == len(mutant),
          f"of {len(mutant)} queries broken (a misspelled metric, a label too many), {bad} failed the checks")

    # the recording rules, evaluated by Prometheus every second: poll until
    # an evaluation saw file 2, then every rule must have series
    rule_ok = poll(lambda: prom.query(
        'instance_dir_stage:skbprof_stage_packets:rate5m{dir="rx",stage="udp-app"} > 0'))
    check("rules-evaluated", rule_ok, f"no rx udp-app packet rate recorded within {POLLS} polls")
    for r in records:
        rs = prom.query(r)
        check(f"rule/{r}", rs, "no series")
    p = {q: prom.query(f'instance_dir_stage:skbprof_stage_latency_seconds:{q}_rate5m{{dir="rx",stage="udp-app"}}')
         for q in ("p50", "p90", "p99", "mean")}
    vals = {q: (rs[0][1] if rs else float("nan")) for q, rs in p.items()}
    check("rule-quantiles-ordered", 0 < vals["p50"] <= vals["p90"] <= vals["p99"] <= 4.294967295 and
          0 < vals["mean"] <= 4.294967295, f"rx udp-app p50, p90, p99, mean: {vals}")
    for rule, label, value in (("instance_reason:skbprof_drops:rate5m", "reason", "NO_SOCKET"),
                               ("instance_location:skbprof_drops:rate5m", "location", "__udp4_lib_rcv")):
        rs = prom.query(f'{rule}{{{label}="{value}"}} > 0')
        check(f"rule-{label}", rs, f"{rule} has no {label} {value} above 0")
    rs = prom.query('ALERTS{alertname="SkbprofDown"}')
    check("down-not-before", not rs, f"SkbprofDown while up is 1: {rs}")

    # module unloaded: what the tool writes then
    t3 = wait_for(prom, "f3", f3, textfile, os.path.join(guest, "f3.prom"))
    if t3 is None:
        return 1
    served_equal(prom, "f3", f3, t3)
    up = prom.query("skbprof_up", t3)
    check("f3/up-0", len(up) == 1 and up[0][1] == 0, f"skbprof_up: {up}")
    lr2 = file_value(f2, "skbprof_last_read_timestamp_seconds")
    lr = prom.query("skbprof_last_read_timestamp_seconds", t3)
    check("f3/last-read-carried", len(lr) == 1 and lr2 > 0 and same(lr[0][1], lr2),
          f"last read {lr}, file 2 said {lr2}")
    pending = poll(lambda: prom.query('ALERTS{alertname="SkbprofDown",alertstate="pending"}'))
    check("f3/down-pending", pending, f"SkbprofDown not pending within {POLLS} polls")
    health = {q["title"]: q for q in queries if q["kind"] == "panel"}
    for title, test, desc in (("Up", lambda rs: rs and all(v == 0 for _, v in rs), "0"),
                              ("Last good read", lambda rs: rs and all(v >= 0 for _, v in rs), "an age")):
        q = health.get(title)
        rs = prom.query(q["expr"], t3) if q else []
        check(f"f3/panel/{title.replace(' ', '-').lower()}", test(rs), f"want {desc}, got {rs}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
