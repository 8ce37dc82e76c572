#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make demo`: load skbprof, make some TCP and UDP
# traffic and a few drops, and show what the files and the tool say.
# Runs in the test guest (busybox), output goes to the host's terminal.

set -e
step() { printf '\n### %s\n' "$*"; }

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
grep -E '^Udp: ' /proc/net/snmp

for f in /sys/kernel/debug/skbprof/*; do
	[ "${f##*/}" = control ] && continue
	[ "${f##*/}" = trace ] && continue
	step "cat $f"
	cat "$f"
done

step "skbprof stats (the reader tool)"
skbprof stats

step "rmmod skbprof"
rmmod skbprof
ls /sys/kernel/debug/skbprof 2>&1 || true
