#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make demo`: load skbprof, make some TCP and UDP
# traffic and a few drops, and show what the files and the tool say.
# Runs in the test guest (busybox), output goes to the host's terminal.

set -e
step() { printf '\n### %s\n' "$*"; }
# The files that stream (a read waits for the next packet, like the
# kernel's trace_pipe): the demo shows them through the tool's
# bounded reads, never with cat.  Every other file is read to its end
# within a bound; a new file that blocks fails the demo, and make check,
# which runs it.
streaming=" trace trace_records "
bound=120	# seconds; the slowest file reads in about 1 s under TCG

step "insmod skbprof.ko"
insmod /lib/skbprof/skbprof.ko
ls -l /sys/kernel/debug/skbprof/

step "traffic: 2000 UDP datagrams over loopback, 16 MB of TCP, drops"
skbprof-traffic udp-pair 127.0.0.1 9000 2000 200
skbprof-traffic tcp 127.0.0.1 9001 16000000
skbprof-traffic udp-pair ::1 9002 500 1000
# datagrams to a closed port and SYNs to a closed port are dropped
skbprof-traffic udp 127.0.0.1 9999 25
skbprof-traffic tcp-syn 127.0.0.1 9998
skbprof-traffic tcp-syn ::1 9998
# the kernel's own counters: IPv4's, then IPv6's
grep -E '^Udp: ' /proc/net/snmp
grep -E '^Udp6' /proc/net/snmp6

for f in /sys/kernel/debug/skbprof/*; do
	name=${f##*/}
	case $streaming in
	*" $name "*)
		step "$f: streams; skbprof trace follows it"
		continue ;;
	esac
	[ "$name" = control ] && continue
	step "cat $f"
	timeout "$bound" cat "$f" || {
		echo "FAIL demo: cat $f did not end within ${bound}s (a streaming file missing from the demo's list?)"
		exit 1
	}
done

step "cat /sys/kernel/debug/skbprof/control"
cat /sys/kernel/debug/skbprof/control

step "skbprof stats (the reader tool)"
skbprof stats

step "rmmod skbprof"
rmmod skbprof
ls /sys/kernel/debug/skbprof 2>&1 || true
