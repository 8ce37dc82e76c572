#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Instructions per packet, per symbol, from the guest's profile lines.

    bench/profile.py RESULT.TXT [N [MODE]]

RESULT.TXT is a bench guest's result.txt with the `profile-none` mode and
`profile` (every stage) or another profile-MODE (BENCH_MODES=profile-none,
profile make bench, or bench/run.sh); MODE picks one, `profile` by
default.  Under QEMU -icount a cpu-clock sample stands for a fixed
number of instructions, so each symbol's samples times that number over
the packets sent is its instructions per packet.  Prints the N symbols
(default 40) whose cost grew most with skbprof loaded, then the totals.
"""
import re
import sys
from collections import defaultdict

NS_PER_INSN = 16  # -icount shift=4


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    mode = sys.argv[3] if len(sys.argv) > 3 else 'profile'
    packets, period, syms = {}, {}, defaultdict(lambda: defaultdict(int))
    probes, hit_packets = defaultdict(list), {}
    for line in open(path):
        m = re.match(r'profile round=\S+ mode=(\S+) period_ns=(\d+) .*packets=(\d+)', line)
        if m:
            period[m[1]] = int(m[2]) // NS_PER_INSN
            packets[m[1]] = int(m[3])
            continue
        m = re.match(r'profile_hits mode=(\S+) .*packets=(\d+)', line)
        if m:
            hit_packets[m[1]] = int(m[2])
            continue
        m = re.match(r'profile_probe mode=(\S+) probe (\S+) (\S+) (\S+) \S+ hits (\d+)', line)
        if m:
            probes[m[1]].append((m[3], m[4], int(m[5])))
            continue
        m = re.match(r'profile_sym mode=(\S+)\s+(\d+)\s+\[.\]\s+(\S+)', line)
        if m:
            syms[m[1]][m[3]] += int(m[2])
    if not packets:
        sys.exit("profile.py: no profile lines in " + path)

    def per_pkt(mode, sym):
        if mode not in packets:
            return 0.0
        return syms[mode][sym] * period[mode] / packets[mode]

    names = set(syms[mode]) | set(syms.get('profile-none', {}))
    rows = sorted(((per_pkt(mode, s) - per_pkt('profile-none', s), s)
                   for s in names), reverse=True)
    print(f"{'symbol':40} {'with':>8} {'without':>8} {'extra':>8}  (instructions per packet)")
    for extra, s in rows[:top]:
        print(f"{s:40} {per_pkt(mode, s):8.0f} {per_pkt('profile-none', s):8.0f} {extra:8.0f}")
    for sym, mech, hits in probes[mode]:
        per = hits / hit_packets.get(mode, packets[mode])
        print(f"probe {sym:34} {mech:10} {per:6.2f} hits per packet")
    for mode in packets:
        tot = sum(syms[mode].values()) * period[mode] / packets[mode]
        print(f"total {mode}: {tot:.0f} instructions per packet ({packets[mode]} packets)")


if __name__ == '__main__':
    main()
