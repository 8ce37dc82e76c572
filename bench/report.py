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

MODES = ["none", "drops", "rx", "tx", "all", "boot", "sample100", "sample100f",
         "lifetime", "softnet",
         "trace", "trace-nodrain", "empty", "all-kprobe", "empty-kprobe",
         "bpftrace"]
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
}
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
        bt, floor = med(ovh.get("bpftrace")), med(ovh.get("empty"))
        for m in modes:
            thr = [float(runs[(m, wl, r)][key]) for r in rounds
                   if (m, wl, r) in runs]
            ratio = per_round(runs, m, wl, rounds,
                              lambda a, b: float(a[key]) / float(b[key]))
            row = "| %s | %s | %s |" % (MODE_TEXT[m], spread(thr, f_thr),
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
                                  else "0")
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


if __name__ == "__main__":
    main()
