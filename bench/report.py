#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn the guest lines of `make bench` into bench/results.md.

    report.py VER=RESULT.TXT...

Every figure is computed from one boot: per round, each mode is compared
with the no-module run of the same round; the report gives the median over
rounds and the spread (min-max).
"""
import re
import statistics
import sys

# The ablation modes (bench/README): every stage less one part of the work.
SKIP_PARTS = [("record", "recording the stages"),
              ("payers", "process and cgroup rows (part of recording)"),
              ("learn", "learning at later points"),
              ("clock", "the fine clock over the coarse"),
              ("points", "later points' work past the lock"),
              ("all", "all of these")]
MODES = ["none", "drops", "rx", "tx", "all", "boot", "sample100", "sample100f",
         "lifetime", "softnet",
         "trace", "trace-nodrain", "empty", "all-kprobe", "empty-kprobe",
         "bpftrace", "ext"] + ["skip-" + p for p, _ in SKIP_PARTS]
MODE_TEXT = {
    "none": "no module",
    "drops": "skbprof drops only",
    "rx": "receive stages only",
    "tx": "transmit stages only",
    "all": "skbprof all stages",
    "boot": "boot default (skbprof.modprobe.conf)",
    "sample100": "all stages, sample 100",
    "sample100f": "all stages, sample 100, filter proto udp",
    "lifetime": "drops + lifetime 16",
    "softnet": "drops + softnet on",
    "trace": "all stages, trace on (drained)",
    "trace-nodrain": "all stages, trace on (not read)",
    "empty": "empty handlers (floor)",
    "all-kprobe": "all stages, entry_ftrace=0 (kprobes)",
    "empty-kprobe": "empty handlers, entry_ftrace=0 (kprobes)",
    "bpftrace": "bpftrace, same stages",
    "ext": "another tool (BENCH_EXT), no module",
}
MODE_TEXT.update({"skip-" + p: "all stages less " + t for p, t in SKIP_PARTS})
SKBPROF_MODES = ["drops", "rx", "tx", "all", "boot", "sample100", "sample100f",
                 "lifetime", "softnet",
                 "trace", "trace-nodrain", "all-kprobe"]
# The per-view table: what each view costs on its own (mode, column head).
VIEW_COLUMNS = [("drops", "drops"), ("rx", "rx stages"), ("tx", "tx stages"),
                ("all", "all stages = insmod defaults"),
                ("boot", "boot default"),
                ("sample100", "all, sample 100"),
                ("sample100f", "all, sample 100, filter proto udp"),
                ("lifetime", "lifetime 16"), ("softnet", "softnet"),
                ("trace", "all + trace"), ("empty", "probe floor"),
                ("all-kprobe", "all stages, kprobes"),
                ("empty-kprobe", "probe floor, kprobes")]
WORKLOADS = {
    # name: (throughput key, unit, text)
    "udp-flood": ("pps", "pps", "UDP datagrams over loopback, 64 B, sent and read back"),
    "udp-drop": ("pps", "pps", "UDP datagrams to a closed port over loopback, 64 B: all dropped"),
    "tcp-stream": ("MBps", "MB/s", "TCP stream between two netns over veth"),
    "udp-rr": ("tps", "trans/s", "UDP request/response over veth, 64 B"),
}


def kv(words):
    out = {}
    for w in words:
        if "=" in w:
            k, v = w.split("=", 1)
            out[k] = v
    return out


def parse(path):
    info, runs, counters, mem, errors = {}, {}, {}, {}, []
    # the profile modes: {mode: {"period", "packets", "syms": {}, "probes": []}}
    prof = {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "profile":
                d = kv(w[1:])
                if "packets" in d:
                    prof.setdefault(d["mode"], {"syms": {}, "probes": []}).update(
                        period=int(d["period_ns"]), packets=int(d["packets"]))
            elif w[0] == "profile_hits":
                d = kv(w[1:])
                if "packets" in d:
                    prof.setdefault(d["mode"], {"syms": {}, "probes": []})[
                        "hit_packets"] = int(d["packets"])
            elif w[0] == "profile_sym" and len(w) >= 5:
                m = prof.setdefault(kv(w[1:2])["mode"], {"syms": {}, "probes": []})
                m["syms"][w[4]] = m["syms"].get(w[4], 0) + int(w[2])
            elif w[0] == "profile_probe" and len(w) >= 9:
                # profile_probe mode=M probe GROUP SYMBOL MECHANISM STATE hits N
                m = prof.setdefault(kv(w[1:2])["mode"], {"syms": {}, "probes": []})
                m["probes"].append((w[4], w[5], int(w[8])))
            elif w[0] == "info" and w[1:2] == ["bpftrace_out"]:
                info.setdefault("bpftrace_out", []).append(" ".join(w[2:]))
            elif w[0] == "info" and w[1:2] == ["ext_out"]:
                info.setdefault("ext_out", []).append(" ".join(w[2:]))
            elif w[0] == "info" and w[1:2] == ["bpftrace_types"]:
                info["bpftrace_types"] = " ".join(w[2:])    # the last word
            elif w[0] == "info" and len(w) > 1:
                info.setdefault(w[1], " ".join(w[2:]))
            elif w[0] == "run":
                d = kv(w[1:])
                runs[(d["mode"], d["workload"], int(d["round"]))] = d
            elif w[0] == "counters":
                d = kv(w[1:])
                counters[(d["mode"], int(d["round"]))] = d
            elif w[0] == "mem" and len(w) > 1:
                if w[1] in ("before", "after"):
                    mem[w[1]] = {k: int(v) for k, v in kv(w[2:]).items()}
                elif w[1] == "stat":
                    mem[w[2]] = w[3]
                else:
                    mem.update(kv(w[1:]))
            elif w[0] == "error":
                errors.append(line.strip())
    info["profile"] = prof
    return info, runs, counters, mem, errors


def med(xs):
    return statistics.median(xs) if xs else None


def spread(xs, fmt):
    if not xs:
        return "-"
    m = med(xs)
    if len(xs) == 1:
        return fmt(m)
    return "%s (%s..%s)" % (fmt(m), fmt(min(xs)), fmt(max(xs)))


def f_thr(x):
    return "%.0f" % x if x >= 100 else "%.2f" % x


def f_ratio(x):
    return "%.3f" % x


def f_ns(x):
    return "%.0f" % x


def f_us(x):
    return "%.0f" % x


def per_round(runs, mode, wl, rounds, fn):
    """fn(run of mode, run of none in the same round) for each round."""
    out = []
    for r in rounds:
        a, b = runs.get((mode, wl, r)), runs.get(("none", wl, r))
        if a and b:
            out.append(fn(a, b))
    return out


def overhead_ns(a, b):
    """Extra time per packet: 1/pps of the mode minus 1/pps of none.

    For a byte stream, the extra time to move the bytes of one packet of
    the no-module run: TCP builds bigger skbs when the sender is slower,
    so the skb rate understates the cost.
    """
    if "bytes" in a:
        bpp = float(b["bytes"]) / float(b["packets"])
        return (1 / float(a["MBps"]) - 1 / float(b["MBps"])) / 1e6 * bpp * 1e9
    return (1 / float(a["pps"]) - 1 / float(b["pps"])) * 1e9


def icount_shift(info):
    m = re.search(r"-icount shift=(\d+)", info.get("qemu_flags", ""))
    return int(m.group(1)) if m else None


# The symbols of skbprof's ftrace callback: ftrace's trampoline and the
# callback; on arm64 before 6.4 (no per-ops trampolines) ftrace's common
# entry code and the list function with its filter-hash test, which call
# an ops of a module; compiler suffixes (.isra.0) aside.
FTRACE_SYMS = ("ftrace_trampoline", "skbprof_ftrace_entry",
               "ftrace_caller", "ftrace_regs_caller", "ftrace_common",
               "ftrace_call", "ftrace_ops_list_func", "hash_contains_ip")


def mechanisms(info, runs, rounds, shift):
    """Instructions per hit of each mechanism on udp-flood, or None.

    From the profile of the empty handlers (profile-empty): the hits per
    datagram of each mechanism, and the instructions of skbprof's ftrace
    callback (ftrace's trampoline and the callback, which only it runs);
    from the floor (the empty mode's extra instructions per datagram):
    what the tracepoints cost, the rest; from the floor with kprobes
    (empty-kprobe): what a kprobe on the same function entries costs.
    Every figure includes skbprof's own dispatch up to the handler's
    first test, which returns at once.
    """
    prof = info.get("profile", {}).get("profile-empty")
    if not prof or shift is None or "packets" not in prof:
        return None
    pkts = prof["packets"]
    hits = {}
    for sym, mech, n in prof["probes"]:
        hits[mech] = hits.get(mech, 0) + n / prof.get("hit_packets", pkts)
    n_ft, n_tp = hits.get("ftrace", 0), hits.get("tracepoint", 0)
    floor = med(per_round(runs, "empty", "udp-flood", rounds, overhead_ns))
    if not n_ft or not n_tp or floor is None:
        return None
    per_sample = prof["period"] / 2 ** shift
    ft = sum(n for s, n in prof["syms"].items()
             if s.split(".")[0] in FTRACE_SYMS) * per_sample / pkts
    c_ft = ft / n_ft
    c_tp = (floor / 2 ** shift - ft) / n_tp
    fk = med(per_round(runs, "empty-kprobe", "udp-flood", rounds, overhead_ns))
    c_kp = (fk / 2 ** shift - n_tp * c_tp) / n_ft if fk is not None else None
    return {"n_ft": n_ft, "n_tp": n_tp, "floor": floor / 2 ** shift,
            "c_ft": c_ft, "c_tp": c_tp, "c_kp": c_kp}


def kernel_section(ver, path):
    info, runs, counters, mem, errors = parse(path)
    shift = icount_shift(info)
    rounds = sorted({k[2] for k in runs})
    modes = [m for m in MODES if any(k[0] == m for k in runs)]
    out = []
    p = out.append
    p("## Kernel %s (%s)" % (ver, info.get("kernel", "?")))
    p("")
    p("- date: %s; clocksource: %s; guest CPUs: %s; guest memory: %s kB"
      % (info.get("date", "?"), info.get("clocksource", "?"),
         info.get("cpus", "?"), info.get("memtotal_kb", "?")))
    p("- QEMU: `%s` (%s); host CPUs %s, load average before the boot %s"
      % (info.get("qemu_flags", "?"), info.get("qemu", "?"),
         info.get("host_cpus", "?").split()[0],
         info.get("host_cpus", "? load_before ?").split("load_before")[-1].strip()))
    if shift is not None:
        p("- guest time: QEMU -icount, %d ns per instruction executed: times "
          "measure instructions, independent of the host's load" % 2 ** shift)
    else:
        p("- guest time: the host's (plain TCG): times include the host's load")
    p("- %s rounds, each mode in turn per round, %s s per workload run; "
      "the boot took %s s" % (len(rounds), info.get("secs", "?").split()[0],
                              info.get("boot_seconds", "?")))
    p("- bpftrace: %s, kernel types from %s (BTF present: %s), attach time %s s "
      "(guest time); probes: `%s`"
      % (info.get("bpftrace", "?"), info.get("bpftrace_types", "?"), info.get("btf", "?"),
         info.get("bpftrace_attach_s", "?"), info.get("bpftrace_probes", "?")))
    if errors:
        p("- **errors in the run**:")
        for e in errors[:10]:
            p("  - `%s`" % e)
    p("")

    # the ext mode's tool did not start or stop cleanly
    ext_failed = any(e.startswith("error ext") for e in errors)
    summary = []
    for wl, (key, unit, text) in WORKLOADS.items():
        if not any(k[1] == wl for k in runs):
            continue
        p("### %s (%s)" % (wl, text))
        p("")
        rr = wl == "udp-rr"
        head = "| mode | %s | ratio to none |" % unit
        if rr:
            head += " RTT p50 / p90 / p99 us |"
        head += " overhead ns/packet |"
        if shift is not None:
            head += " extra instructions/packet |"
        head += " skbprof / bpftrace | skbprof / floor |"
        p(head)
        p("|" + "---|" * (head.count("|") - 1))
        ovh = {m: per_round(runs, m, wl, rounds, overhead_ns) for m in modes}
        if ext_failed and "ext" in ovh:
            ovh["ext"] = []     # its figures are those of no tool
        bt, floor = med(ovh.get("bpftrace")), med(ovh.get("empty"))
        for m in modes:
            thr = [float(runs[(m, wl, r)][key]) for r in rounds
                   if (m, wl, r) in runs]
            ratio = per_round(runs, m, wl, rounds,
                              lambda a, b: float(a[key]) / float(b[key]))
            text = MODE_TEXT[m]
            if m == "ext" and ext_failed:
                text += " **(failed to start: see the errors)**"
            row = "| %s | %s | %s |" % (text, spread(thr, f_thr),
                                        spread(ratio, f_ratio) if m != "none" else "1")
            if rr:
                pc = []
                for q in ("rtt_p50_us", "rtt_p90_us", "rtt_p99_us"):
                    pc.append(f_us(med([float(runs[(m, wl, r)][q]) for r in rounds
                                        if (m, wl, r) in runs])))
                row += " %s |" % " / ".join(pc)
            o = med(ovh[m])
            row += " %s |" % (spread(ovh[m], f_ns) if m != "none" else "0")
            if shift is not None:
                row += " %s |" % ("%.0f" % (o / 2 ** shift) if m != "none" and o is not None
                                  else "0" if m == "none" else "-")
            if m in SKBPROF_MODES and o is not None:
                row += " %s |" % ("%.0f%%" % (100 * o / bt) if bt and bt > 0 else "-")
                row += " %s |" % ("%.2fx" % (o / floor) if floor and floor > 0 else "-")
            else:
                row += " | |"
            p(row)
        p("")
        summary.append((wl, ovh, bt, floor, runs, key, shift))
    # counters
    p("### skbprof's own counters (summed over rounds and workloads)")
    p("")
    p("| mode | probe hits | nmissed | table_full | table_evictions | "
      "drops_overflow | pkttrace_lost | lost events? |")
    p("|---|---|---|---|---|---|---|---|")
    for m in modes:
        cs = [counters[(m, r)] for r in rounds if (m, r) in counters]
        if not cs:
            continue

        def tot(k):
            return sum(int(c.get(k, 0)) for c in cs)
        lost = [k for k in ("nmissed", "table_full", "drops_overflow",
                            "pkttrace_lost") if tot(k)]
        p("| %s | %d | %d | %d | %d | %d | %d | %s |"
          % (MODE_TEXT[m], tot("hits"), tot("nmissed"), tot("table_full"),
             tot("table_evictions"), tot("drops_overflow"),
             tot("pkttrace_lost"), "yes: " + ", ".join(lost) if lost else "no"))
    p("")
    def total(m, k):
        return sum(int(counters[(m, r)].get(k, 0)) for r in rounds
                   if (m, r) in counters)
    ins_all = total("all", "table_inserts")
    if ins_all and total("drops", "table_inserts") >= ins_all / 2:
        p("Note: with `stages drops` the module still stamped every packet "
          "(table_inserts %d, against %d with all stages): this version does "
          "not switch the latency stamping off, so that mode costs what all "
          "stages cost." % (total("drops", "table_inserts"), ins_all))
        p("")
    ins_s = total("sample100", "table_inserts")
    if ins_all and ins_s:
        p("With `sample 100` the module made %d stamps, against %d with all "
          "stages: without a filter a packet is sampled at its first point, "
          "on receive and on transmit, and a sampled-out one gets no stamp, "
          "so later probes miss it cheaply.  What is left is the probes "
          "themselves and a miss in the stamp table at each."
          % (ins_s, ins_all))
        p("")
    if info.get("ext_out"):
        p("The ext mode's tool (%s) printed, first round:"
          % info.get("ext_files", "?").strip())
        p("")
        p("```")
        p("\n".join(info["ext_out"]))
        p("```")
        p("")
    outs = info.get("bpftrace_out", [])
    p("bpftrace's maps do not count what they lose.  Its drop counts, first "
      "round: %s." % (", ".join("`%s`" % v for v in outs) or "none"))
    p("")
    # memory
    if "before" in mem and "after" in mem:
        b, a = mem["before"], mem["after"]
        d = {k: a.get(k, 0) - b.get(k, 0) for k in ("Slab", "Percpu", "VmallocUsed")}
        p("### Memory the module holds (loaded, after traffic)")
        p("")
        p("module core %s bytes; /proc/vmallocinfo skbprof lines %s bytes; "
          "/proc/meminfo deltas: Slab %+d kB, Percpu %+d kB, VmallocUsed %+d kB; "
          "table_capacity %s, drops_keys_max %s, trace_buffer_bytes %s"
          % (mem.get("coresize", "?"), mem.get("vmalloc_skbprof", "?"),
             d["Slab"], d["Percpu"], d["VmallocUsed"],
             mem.get("table_capacity", "?"), mem.get("drops_keys_max", "?"),
             mem.get("trace_buffer_bytes", "?")))
        tb = [int(c.get("trace_buffer_bytes", 0)) for c in counters.values()]
        if tb and max(tb):
            p("With `trace on` the trace buffer adds %d bytes (trace_buffer_bytes)."
              % max(tb))
            p("")
    return out, summary, mechanisms(info, runs, rounds, shift), \
        info.get("boot_options")


# The bar the service's boot default is chosen against (bench/README).
BOOT_BAR = 0.95


def boot_section(summaries, boot_opts):
    """The boot mode's ratio to none per kernel and workload, or []."""
    rows = []
    for ver, summary in summaries:
        cells = []
        for wl, ovh, bt, floor, runs, key, shift in summary:
            rounds = sorted({k[2] for k in runs})
            ratio = per_round(runs, "boot", wl, rounds,
                              lambda a, b: float(a[key]) / float(b[key]))
            m = med(ratio)
            cell = spread(ratio, f_ratio) if ratio else "-"
            cells.append("**%s**" % cell if m is not None and m < BOOT_BAR else cell)
        if any(c != "-" for c in cells):
            rows.append("| %s | `%s` | %s |" % (ver, boot_opts.get(ver) or "(none)",
                                                " | ".join(cells)))
    if not rows:
        return []
    wls = [w for w in WORKLOADS]
    out = ["## The service's boot default",
           "",
           "The `boot` mode loads the module with the options of "
           "systemd/skbprof.modprobe.conf as shipped (skbprof.service's "
           "`modprobe skbprof` reads them from /etc/modprobe.d/skbprof.conf); "
           "ratio to no module, in bold below %.2f." % BOOT_BAR,
           "",
           "| kernel | options | " + " | ".join(wls) + " |",
           "|---|---|" + "---|" * len(wls)]
    return out + rows + [""]


def skip_table(summaries):
    """Every stage's cost less each skip mode's: each part's instructions."""
    if not any(ovh.get("skip-record") for ver, summary in summaries
               for wl, ovh, bt, floor, runs, key, shift in summary):
        return
    print("## Where every stage's instructions go")
    print()
    print("Extra instructions per packet of every stage (-icount, medians), "
          "and what each part of a followed packet's work costs: every "
          "stage less the same with that part left out (the skip modes, "
          "bench/README), in the same boot.  The parts overlap (the "
          "process rows are part of recording; learning, the clock and "
          "the later points overlap), so only `all of these` is their "
          "sum; what it leaves is the rest: the probes, starting the "
          "timelines, finding and ending them in the stamp table.")
    print()
    heads = ["every stage"] + [t for p, t in SKIP_PARTS] + ["the rest"]
    print("| kernel | workload | " + " | ".join(heads) + " |")
    print("|---|---|" + "---|" * len(heads))
    for ver, summary in summaries:
        for wl, ovh, bt, floor, runs, key, shift in summary:
            a = med(ovh.get("all")) if ovh.get("all") else None
            if shift is None or a is None or not ovh.get("skip-all"):
                continue
            cells = ["%.0f" % (a / 2 ** shift)]
            for p, t in SKIP_PARTS:
                o = med(ovh.get("skip-" + p)) if ovh.get("skip-" + p) else None
                cells.append("%.0f" % ((a - o) / 2 ** shift)
                             if o is not None else "-")
            rest = med(ovh["skip-all"])
            cells.append("%.0f" % (rest / 2 ** shift))
            print("| %s | %s | %s |" % (ver, wl, " | ".join(cells)))
    print()


def ext_section(summaries):
    """skbprof's receive stages, the ext mode's tool and every stage, or []."""
    rows = []
    for ver, summary in summaries:
        for wl, ovh, bt, floor, runs, key, shift in summary:
            if "ext" not in ovh or shift is None:
                continue
            rounds = sorted({k[2] for k in runs})
            cells = []
            for m in ("rx", "ext", "all"):
                o = med(ovh.get(m)) if ovh.get(m) else None
                cells.append("%.0f" % (o / 2 ** shift) if o is not None else "-")
            for m in ("rx", "ext", "all"):
                ratio = per_round(runs, m, wl, rounds,
                                  lambda a, b: float(a[key]) / float(b[key]))
                cells.append(f_ratio(med(ratio)) if ratio else "-")
            if not ovh["ext"]:
                cells[1] = cells[4] = "failed"
            rx, ext = med(ovh.get("rx") or []), med(ovh["ext"])
            cells.append("%.0f%%" % (100 * rx / ext)
                         if rx is not None and ext is not None and ext > 0 else "-")
            rows.append("| %s | %s | %s |" % (ver, wl, " | ".join(cells)))
    if not rows:
        return []
    return ["## Receive stages against the ext mode's tool",
            "",
            "Extra instructions per packet over no module (-icount, medians) "
            "and the rate as a ratio to no module: skbprof's receive stages "
            "(`rx`), the tool of BENCH_EXT (`ext`, no module) and every "
            "stage (`all`), same boot, same rounds.",
            "",
            "| kernel | workload | rx | ext | all | rx ratio | ext ratio | "
            "all ratio | rx / ext |",
            "|---|---|---|---|---|---|---|---|---|"] + rows + [""]


def main():
    secs = []
    summaries = []
    mechs = []
    boot_opts = {}
    for arg in sys.argv[1:]:
        ver, path = arg.split("=", 1)
        lines, summary, mech, boot_opts[ver] = kernel_section(ver, path)
        secs.append(lines)
        summaries.append((ver, summary))
        mechs.append((ver, mech))
    print("# skbprof overhead: `make bench` results")
    print()
    print("Generated by bench/run.sh (method: bench/README).  Guests run under QEMU")
    print("software emulation (TCG): absolute times are emulated, so every figure")
    print("is relative to the no-module run of the same round of the same boot;")
    print("medians over rounds, (min..max) in brackets.  With -icount (the default)")
    print("guest time advances a fixed step per instruction executed: times count")
    print("instructions, as on an ideal CPU without caches, and do not depend on")
    print("the host's load.  Overhead per packet")
    print("is 1/pps of the mode minus 1/pps with no module (for udp-rr, two packets")
    print("per transaction); for tcp-stream, whose skbs grow when the sender slows")
    print("down, it is the extra time to move the bytes of one packet of the")
    print("no-module run (packets: the skbs that crossed the veth, both ways).  \"skbprof / bpftrace\" is skbprof's overhead as a")
    print("percentage of bpftrace's; \"skbprof / floor\" is it as a multiple of the")
    print("empty handlers' (the probes alone).")
    print()
    print("## Summary: all stages against bpftrace and the floor")
    print()
    print("| kernel | workload | all stages: ratio to none | overhead ns/packet: "
          "all stages / bpftrace / floor | the same in instructions (-icount) | "
          "skbprof / bpftrace | skbprof / floor |")
    print("|---|---|---|---|---|---|---|")
    for ver, summary in summaries:
        for wl, ovh, bt, floor, runs, key, shift in summary:
            rounds = sorted({k[2] for k in runs})
            ratio = per_round(runs, "all", wl, rounds,
                              lambda a, b: float(a[key]) / float(b[key]))
            o = med(ovh.get("all"))
            if o is None:
                continue
            if shift is not None:
                ins = " / ".join("%.0f" % (x / 2 ** shift) if x is not None else "-"
                                 for x in (o, bt, floor))
            else:
                ins = "-"
            print("| %s | %s | %s | %s / %s / %s | %s | %s | %s |"
                  % (ver, wl, f_ratio(med(ratio)), f_ns(o),
                     f_ns(bt) if bt is not None else "-",
                     f_ns(floor) if floor is not None else "-", ins,
                     "%.0f%%" % (100 * o / bt) if bt else "-",
                     "%.2fx" % (o / floor) if floor else "-"))
    print()
    for line in boot_section(summaries, boot_opts):
        print(line)
    for line in ext_section(summaries):
        print(line)
    print("## What each view costs")
    print()
    print("Extra instructions per packet (-icount, medians), each view "
          "configured alone: `stages drops`; the receive or the transmit "
          "stages (with drops); every stage, which is what `insmod skbprof.ko` "
          "with no parameters arms; the service's boot default "
          "(systemd/skbprof.modprobe.conf); every stage sampled 1 in 100, without "
          "a filter and with `filter proto udp` (applied at IP on receive); "
          "`stages drops` with `lifetime 16`; `stages drops` with `softnet on`; "
          "every stage with `trace on` "
          "and a reader; and the empty handlers of every probe.")
    print()
    heads = [h for m, h in VIEW_COLUMNS]
    print("| kernel | workload | " + " | ".join(heads) + " |")
    print("|---|---|" + "---|" * len(heads))
    for ver, summary in summaries:
        for wl, ovh, bt, floor, runs, key, shift in summary:
            if shift is None:
                continue
            cells = []
            for m, h in VIEW_COLUMNS:
                o = med(ovh.get(m)) if ovh.get(m) else None
                cells.append("%.0f" % (o / 2 ** shift) if o is not None else "-")
            print("| %s | %s | %s |" % (ver, wl, " | ".join(cells)))
    print()
    skip_table(summaries)
    if any(m for v, m in mechs):
        print("## Instructions per hit, by mechanism")
        print()
        print("udp-flood, the empty handlers (each returns at its first test), "
              "-icount.  The hits per datagram of each mechanism and the "
              "instructions of skbprof's ftrace callback (ftrace's trampoline, "
              "or on arm64 before 6.4 its entry code and list function, "
              "and `skbprof_ftrace_entry`, sampled by perf in the "
              "`profile-empty` mode) are measured; a tracepoint's cost is the "
              "rest of the probe floor over its hits; a kprobe's is the floor "
              "with `entry_ftrace=0` less the tracepoints, over the same "
              "function entries.  Kretprobes are on no datagram's path.  "
              "Floors differ between boots by up to about 100 instructions "
              "(7.2 gave 638 and 734 in two runs of the same code), between "
              "the rounds of one boot by about 10; the ftrace column is "
              "sampled (one sample per 62,500 instructions), so the "
              "tracepoint column, a small rest, is good to about 20.")
        print()
        print("| kernel | tracepoint | ftrace callback | kprobe | hits per "
              "datagram: tracepoints / function entries | probe floor |")
        print("|---|---|---|---|---|---|")
        for ver, m in mechs:
            if not m:
                continue
            print("| %s | %.0f | %.0f | %s | %.0f / %.0f | %.0f |"
                  % (ver, m["c_tp"], m["c_ft"],
                     "%.0f" % m["c_kp"] if m["c_kp"] is not None else "-",
                     m["n_tp"], m["n_ft"], m["floor"]))
        print()
    for lines in secs:
        print("\n".join(lines))


# ---- make bench-scale (bench/scale.sh): --scale RESULTS.MD VER/TAG=FILE... ----

SCALE_BEGIN = "<!-- scale:begin -->"
SCALE_END = "<!-- scale:end -->"
# The target of issue #39: flat within 10% of the smallest case; a packet
# that finds the table full at most 1.2x one that finds a stamp.
SCALE_FLAT = 1.10
# what "before" figures were run on (run.sh: BENCH_SCALE_BEFORE_TEXT)
BEFORE_TEXT = "an earlier tree"
SCALE_FULL = 1.2
SCALE_DIMS = {
    # dim: (title, x label, what a point is)
    "flows": ("Concurrent flows", "flows",
              "udp-flood from that many sockets in turn, each bound to its "
              "own address and port (one flow each), to one reader"),
    "inflight": ("Packets in flight (stamps held), table_size=%s",
                 "datagrams held",
                 "udp-flood after that many datagrams were queued unread on "
                 "another socket, each holding its receive stamp, skbprof "
                 "loaded with a small table_size: from an empty table to "
                 "full (the table's size) and past it"),
    "cgroups": ("Cgroups", "cgroups",
                "udp-flood whose process moves to the next of that many "
                "cgroups (cgroup v2) before each burst of 32, so the "
                "packets' owners go round them (the move costs the same "
                "with no module, so it cancels out)"),
    "crosscpu": ("Receive CPU against the reader's CPU", "softirq CPU",
                 "udp-flood with the process on CPU 0; `same`: RPS off, "
                 "the receive softirq runs on CPU 0 too; `cross`: RPS on "
                 "lo steers it to CPU 1, so a packet's receive stamp is "
                 "made on CPU 1 and freed on CPU 0.  Under -icount the two "
                 "CPUs run in turn and guest time counts the instructions "
                 "of both"),
}


def parse_scale(path):
    info, runs, counters, errors = {}, {}, {}, []
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "info" and len(w) > 1:
                info.setdefault(w[1], " ".join(w[2:]))
            elif w[0] == "scale":
                d = kv(w[1:])
                runs.setdefault((d["dim"], d["point"], d["mode"]), {})[
                    int(d["round"])] = d
            elif w[0] == "scounters":
                d = kv(w[1:])
                counters.setdefault((d["dim"], d["point"]), {})[
                    int(d["round"])] = d
            elif w[0] == "error":
                errors.append(line.strip())
    return info, runs, counters, errors


def point_key(p):
    try:
        return (0, float(p), "")
    except ValueError:
        # crosscpu: the softirq on the reader's CPU first
        return (1, {"same": 0, "cross": 1}.get(p, 2), p)


def scale_points(runs, dim):
    return sorted({k[1] for k in runs if k[0] == dim}, key=point_key)


def extra_per_packet(runs, dim, point, shift):
    """Per round: (1/pps with skbprof - 1/pps without) in instructions
    (-icount) or ns (plain TCG)."""
    a, b = runs.get((dim, point, "all"), {}), runs.get((dim, point, "none"), {})
    out = []
    for r in sorted(a):
        if r in b:
            ns = (1 / float(a[r]["pps"]) - 1 / float(b[r]["pps"])) * 1e9
            out.append(ns / 2 ** shift if shift is not None else ns)
    return out


def plot(labels, ys, unit, flat=None, height=10, width=9):
    """An ASCII line chart: a column per point, y from 0; with @flat, a
    dashed line at that level (the target)."""
    top = max([y for y in ys if y is not None] + [flat or 0]) * 1.05
    if top <= 0:
        return []
    rows = []
    ncol = len(labels)
    grid = [[" "] * (ncol * width) for _ in range(height)]

    def row_of(y):
        return min(height - 1, max(0, int(round(y / top * (height - 1)))))
    if flat:
        fr = row_of(flat)
        for c in range(ncol * width):
            grid[fr][c] = "-"
    cols = [i * width + width // 2 for i in range(ncol)]
    prev = None
    for i, y in enumerate(ys):
        if y is None:
            prev = None
            continue
        r = row_of(y)
        if prev is not None:
            # the line between two points
            (c0, r0), c1 = prev, cols[i]
            for c in range(c0 + 1, c1):
                rr = int(round(r0 + (r - r0) * (c - c0) / (c1 - c0)))
                grid[rr][c] = "." if grid[rr][c] in " -" else grid[rr][c]
        grid[r][cols[i]] = "*"
        prev = (cols[i], r)
    lw = len("%.0f" % top)
    for h in range(height - 1, -1, -1):
        label = "%.0f" % (top * h / (height - 1)) if h % 3 == 0 or h == height - 1 else ""
        rows.append("%*s |%s" % (lw, label, "".join(grid[h]).rstrip()))
    rows.append("%*s +%s" % (lw, "", "-" * (ncol * width)))
    rows.append("%*s  %s" % (lw, "", "".join(("%s" % l).center(width) for l in labels)))
    rows.append("%*s  (%s)" % (lw, "", unit))
    return rows


def online(info):
    """The CPUs online during the runs (scale.sh brings them up)."""
    return info.get("cpus_online_now", info.get("cpus_online", "?"))


def ncpus(info):
    """The number of possible CPUs, from sysfs's "0-N"."""
    try:
        return str(int(info.get("cpus_possible", "?").split("-")[-1]) + 1)
    except ValueError:
        return "?"


def scale_section(args):
    """The scale section of results.md, as lines."""
    boots, before = [], {}
    for arg in args:
        name, path = arg.split("=", 1)
        info, runs, counters, errors = parse_scale(path)
        b = (name, info, runs, counters, errors, icount_shift(info))
        # before:NAME=FILE: an earlier run of the same boot, for the
        # comparison in "Against the target" alone
        if name.startswith("before:"):
            before[name[len("before:"):]] = b
        else:
            boots.append(b)
    out = [SCALE_BEGIN, "# Scale: cost per packet as the work grows (`make bench-scale`)", ""]
    p = out.append
    p("Generated by `make bench-scale` (bench/run.sh with BENCH_SCALE, the "
      "guest half bench/scale.sh; method: bench/README, \"Scale\").  Each "
      "point runs udp-flood (64-byte datagrams over loopback, sent and read "
      "back in bursts of 32) with no module and with skbprof loaded, every "
      "stage (`insmod` with no parameters), in the same boot, interleaved "
      "in rounds; the figure is skbprof's extra instructions per packet, "
      "(1/pps with skbprof - 1/pps without) / ns per instruction, the "
      "definition of `make bench`; median over rounds, (min..max).  The "
      "dashed line of each chart is the target, %.0f%% above the smallest "
      "case; a packet that finds the stamp table full should cost at most "
      "%.1fx one that finds a stamp." % ((SCALE_FLAT - 1) * 100, SCALE_FULL))
    p("")
    for name, info, runs, counters, errors, shift in boots:
        p("- boot `%s`: tree %s, kernel %s, QEMU `%s`, possible CPUs %s, online %s, "
          "%s rounds of %s ms per run, boot took %s s, host load before %s, %s"
          % (name, info.get("tree", "?"), info.get("kernel", "?"), info.get("qemu_flags", "?"),
             info.get("cpus_possible", "?"), online(info),
             info.get("ms", "? rounds ?").split("rounds")[1].split()[0],
             info.get("ms", "?").split()[0], info.get("boot_seconds", "?"),
             info.get("host_cpus", "? load_before ?").split("load_before")[-1].strip(),
             info.get("date", "?")))
        for e in errors[:5]:
            p("  - **error**: `%s`" % e)
    p("")
    summary = []

    def dim_block(dim, bootlist):
        title, xlabel, text = SCALE_DIMS[dim]
        if "%s" in title:
            title = title % bootlist[0][1].get("inflight_table", "?")
        p("## %s" % title)
        p("")
        p(text + ".")
        p("")
        for name, info, runs, counters, errors, shift in bootlist:
            pts = scale_points(runs, dim)
            if not pts:
                continue
            unit = "instructions" if shift is not None else "ns (plain TCG)"
            ext = {pt: extra_per_packet(runs, dim, pt, shift) for pt in pts}
            meds = [med(ext[pt]) for pt in pts]
            base = meds[0]
            p("Boot `%s` (possible CPUs %s, online %s):"
              % (name, info.get("cpus_possible", "?"), online(info)))
            p("")
            p("| %s | pps, no module | pps, skbprof | extra %s/packet | "
              "against the first | skbprof's table_full / table_inserts%s |"
              % (xlabel, unit, " / cgroups_overflow / procs_overflow" if dim == "cgroups" else ""))
            p("|---|---|---|---|---|---|")
            for pt, m in zip(pts, meds):
                def pps(mode):
                    xs = [float(d["pps"]) for d in runs.get((dim, pt, mode), {}).values()]
                    return f_thr(med(xs)) if xs else "-"
                cs = list(counters.get((dim, pt), {}).values())
                c = cs[-1] if cs else {}
                p("| %s | %s | %s | %s | %s | %s / %s%s |"
                  % (pt, pps("none"), pps("all"), spread(ext[pt], f_ns),
                     "%.2fx" % (m / base) if m is not None and base else "-",
                     c.get("table_full", "-"), c.get("table_inserts", "-"),
                     " / %s / %s" % (c.get("cgroups_overflow", "-"), c.get("procs_overflow", "-"))
                     if dim == "cgroups" else ""))
            p("")
            p("```")
            for line in plot(pts, meds, "extra %s per packet against %s, boot %s"
                             % (unit, xlabel, name),
                             flat=base * SCALE_FLAT if base and base > 0 else None):
                p(line)
            p("```")
            p("")
            if dim == "crosscpu":
                where = []
                for pt in pts:
                    for mode in ("none", "all"):
                        d = kv(info.get("crosscpu_softnet_%s_%s" % (pt, mode), "").split())
                        try:
                            b = [int(x) for x in d["before"].split(",") if x]
                            a = [int(x) for x in d["after"].split(",") if x]
                        except (KeyError, ValueError):
                            continue
                        where.append("%s, %s: %s" % (
                            pt, "no module" if mode == "none" else "skbprof",
                            " / ".join("CPU %d %d" % (i, y - x)
                                       for i, (x, y) in enumerate(zip(b, a)))))
                if where:
                    p("Where the receive softirq ran (packets each CPU's "
                      "softirq processed in round 1, /proc/net/softnet_stat): "
                      + "; ".join(where) + ".")
                    p("")
            if base:
                worst = max((m for m in meds if m is not None), default=base)
                summary.append((dim, name, base, worst, pts, meds, shift))

    dims = [d for d in ("flows", "inflight", "cgroups", "crosscpu")
            if any(k[0] == d for b in boots for k in b[2])]
    for dim in dims:
        dim_block(dim, [b for b in boots if any(k[0] == dim for k in b[2])])

    # possible CPUs: the first point of each dimension, boot against boot
    icb = [b for b in boots if b[5] is not None]
    if len(icb) > 1:
        p("## Possible CPUs")
        p("")
        p("The same points in the boots with another number of possible CPUs "
          "(`-smp 2,maxcpus=N`, two CPUs online: with -icount QEMU hangs "
          "bringing up a second CPU at boot, so the guest boots with "
          "maxcpus=1 and bench/scale.sh brings CPU 1 online; every run is "
          "on CPU 0).  Extra instructions per packet, medians; each boot's "
          "figure against its own no-module runs.")
        p("")
        names = [b[0] for b in icb]
        p("| dimension | point | " + " | ".join("`%s` (%s possible)" % (b[0], ncpus(b[1])) for b in icb) + " | last against first |")
        p("|---|---|" + "---|" * len(icb) + "---|")
        for dim in ("flows", "inflight", "cgroups", "crosscpu"):
            pts = scale_points(icb[0][2], dim)
            for pt in pts:
                vals = [med(extra_per_packet(b[2], dim, pt, b[5])) for b in icb]
                if all(v is None for v in vals):
                    continue
                p("| %s | %s | %s | %s |" % (
                    dim, pt, " | ".join("%.0f" % v if v is not None else "-" for v in vals),
                    "%.2fx" % (vals[-1] / vals[0]) if vals[0] and vals[-1] is not None else "-"))
        p("")
        base_pts = [med(extra_per_packet(b[2], "flows", "1", b[5])) for b in icb]
        if all(v is not None for v in base_pts):
            p("```")
            for line in plot([ncpus(b[1]) for b in icb],
                             base_pts, "extra instructions per packet, 1 flow, "
                             "against possible CPUs",
                             flat=base_pts[0] * SCALE_FLAT):
                p(line)
            p("```")
            p("")

    # drops_devices
    for name, info, runs, counters, errors, shift in boots:
        pts = scale_points(runs, "devices")
        if not pts:
            continue
        p("## drops_devices: read time against devices (boot `%s`)" % name)
        p("")
        p("skbprof loaded; veth pairs added in steps (down, no traffic: the "
          "file has no rows, a read walks every device's counters); a read "
          "is open, read to the end, close, repeated and timed in the guest.")
        p("")
        unit = "instructions" if shift is not None else "ns"
        p("| devices | %s per read | %s per device | bytes per read |" % (unit, unit))
        p("|---|---|---|---|")
        ys = []
        for pt in pts:
            rs = runs[("devices", pt, "all")].values()
            per = [float(d["ns_per_read"]) / (2 ** shift if shift is not None else 1) for d in rs]
            ys.append(med(per))
            p("| %s | %s | %.0f | %s |" % (pt, spread(per, f_ns), med(per) / float(pt),
                                          list(rs)[0].get("bytes_per_read", "?")))
        p("")
        p("```")
        for line in plot(pts, ys, "%s per read of drops_devices against devices" % unit):
            p(line)
        p("```")
        p("")

    # the summary against the target
    def worst_of(b, dim):
        """(smallest case, worst, worst / smallest) of @dim in boot @b."""
        if not b:
            return None
        pts = scale_points(b[2], dim)
        meds = [med(extra_per_packet(b[2], dim, pt, b[5])) for pt in pts]
        meds = [m for m in meds if m is not None]
        if not meds or not meds[0]:
            return None
        return meds[0], max(meds), max(meds) / meds[0]

    def full_of(b):
        """(full, found a stamp, ratio) of the inflight points of @b."""
        if not b:
            return None
        try:
            cap = int(b[1].get("inflight_table", "0"))
        except ValueError:
            return None
        pts = scale_points(b[2], "inflight")
        meds = [med(extra_per_packet(b[2], "inflight", pt, b[5])) for pt in pts]
        full = [m for pt, m in zip(pts, meds) if float(pt) >= cap and m is not None]
        if not full or not meds or not meds[0]:
            return None
        return max(full), meds[0], max(full) / meds[0]

    if summary:
        p("## Against the target")
        p("")
        if before:
            p("\"Before\": the same boot, run on %s." % BEFORE_TEXT)
            p("")
        p("| dimension | boot | smallest case | worst | worst / smallest | flat within %.0f%%? |%s"
          % ((SCALE_FLAT - 1) * 100, " before: smallest / worst / ratio |" if before else ""))
        p("|---|---|---|---|---|---|%s" % ("---|" if before else ""))
        for dim, name, base, worst, pts, meds, shift in summary:
            if shift is None:
                continue
            row = ("| %s | %s | %.0f (%s) | %.0f | %.2fx | %s |"
                   % (dim, name, base, pts[0], worst, worst / base,
                      "yes" if worst <= base * SCALE_FLAT else "**no**"))
            if before:
                w = worst_of(before.get(name), dim)
                row += " %s |" % ("%.0f / %.0f / %.2fx" % w if w else "-")
            p(row)
        p("")
        for name, info, runs, counters, errors, shift in boots:
            f = full_of((name, info, runs, counters, errors, shift))
            if not f:
                continue
            line = ("Table full, boot `%s`: a packet that finds the table full "
                    "(%s or more held) costs %.0f instructions against %.0f for "
                    "one that finds a stamp (empty table): %.2fx (target %.1fx: %s)."
                    % (name, info.get("inflight_table"), f[0], f[1], f[2], SCALE_FULL,
                       "met" if f[2] <= SCALE_FULL else "**not met**"))
            fb = full_of(before.get(name))
            if fb:
                line += "  Before: %.0f against %.0f, %.2fx." % fb
            p(line)
            p("")
        for dim, name, base, worst, pts, meds, shift in summary:
            if shift is not None:
                continue
            line = ("%s, boot `%s` (plain TCG, ns): %s" % (
                dim, name, ", ".join("%s %.0f ns" % (pt, m) for pt, m in zip(pts, meds)
                                     if m is not None)))
            if len(meds) > 1 and meds[0] and meds[-1] is not None:
                line += "; %s against %s: %.2fx" % (pts[-1], pts[0], meds[-1] / meds[0])
            p(line + ".")
            p("")
    p(SCALE_END)
    return out


def scale_main(argv):
    global BEFORE_TEXT
    results, args = argv[0], argv[1:]
    if args[:1] == ["--before-text"]:
        BEFORE_TEXT, args = args[1], args[2:]
    section = "\n".join(scale_section(args)) + "\n"
    try:
        with open(results) as f:
            old = f.read()
    except FileNotFoundError:
        old = ""
    if SCALE_BEGIN in old and SCALE_END in old:
        a = old.index(SCALE_BEGIN)
        b = old.index(SCALE_END) + len(SCALE_END) + 1
        new = old[:a] + section + old[b:]
    else:
        new = old + ("\n" if old and not old.endswith("\n\n") else "") + section
    with open(results + ".new", "w") as f:
        f.write(new)
    import os
    os.replace(results + ".new", results)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--scale"]:
        scale_main(sys.argv[2:])
    else:
        main()
