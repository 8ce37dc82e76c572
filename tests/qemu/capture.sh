#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of scripts/capture-fixtures.sh: load skbprof, make known
# traffic and drops, and print every file of /sys/kernel/debug/skbprof/
# twice (snapshots t0 and t1, more traffic in between) between
# "=== BEGIN <snapshot>/<file>" and "=== END" lines, for the host to split
# into tests/host/fixtures/<kernel>/; then the trace stream, and the
# records of known traffic after it.

set -e
D=/sys/kernel/debug/skbprof
dump() {	# dump SNAPSHOT
	for f in stats counters probes groups stages inflight drops drops_rows latency \
		 latency_buckets latency_worst procs cgroups lifetime \
		 lifetime_buckets control; do
		echo "=== BEGIN $1/$f"
		cat "$D/$f"
		echo "=== END"
	done
}
insmod /lib/skbprof/skbprof.ko lifetime_sample=4
echo "trace on" > $D/control
skbprof-traffic udp-pair 127.0.0.1 9000 400 200
skbprof-traffic tcp 127.0.0.1 9001 2000000
skbprof-traffic udp-pair ::1 9002 100 1000
skbprof-traffic udp 127.0.0.1 9999 25
skbprof-traffic tcp-syn 127.0.0.1 9998
skbprof-traffic tcp-syn ::1 9998
dump t0
echo "=== BEGIN t0/snmp"
grep -E '^Udp: ' /proc/net/snmp
echo "=== END"
skbprof-traffic udp-pair 127.0.0.1 9000 300 200
skbprof-traffic udp 127.0.0.1 9999 17
skbprof-traffic tcp-syn 127.0.0.1 9998
dump t1
echo "=== BEGIN t1/snmp"
grep -E '^Udp: ' /proc/net/snmp
echo "=== END"
echo "=== BEGIN t1/trace"
# into a file first: a reader killed while printing cuts its last line;
# the read blocks, so timeout ends it, and that is no failure
timeout 3 cat $D/trace > /tmp/trace.out 2>/dev/null || true
cat /tmp/trace.out
echo "=== END"
# the records of known traffic: 20 datagrams to a bound port, 5 to a
# closed one (the trace above took every earlier event)
skbprof-traffic udp-pair 127.0.0.1 9000 20 200
skbprof-traffic udp 127.0.0.1 9999 5
echo "=== BEGIN t1/trace_records"
timeout 3 cat $D/trace_records > /tmp/records.out 2>/dev/null || true
cat /tmp/records.out
echo "=== END"
rmmod skbprof
