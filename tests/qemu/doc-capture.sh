#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of scripts/capture-docs.sh: the real output quoted in
# Documentation/skbprof.rst that the reader-tool fixtures do not have:
# load errors, control errors, a filtered and a sampled run, a verbose
# trace, an nftables drop, qdisc delay under netem, and unload.  Every
# command is printed after "### " with its output and exit status.

D=/sys/kernel/debug/skbprof
for m in nf_tables nft_counter sch_netem; do
	modprobe $m || echo "modprobe $m failed"
done
run() {
	printf '\n### %s\n' "$*"
	sh -c "$*" 2>&1
	echo "[exit $?]"
}
# trace_for SECONDS COMMAND...: read the trace while COMMAND runs
trace_for() {
	t=$1
	shift
	printf '\n### (cat %s/trace for %ss while: %s)\n' "$D" "$t" "$*"
	timeout "$t" cat $D/trace > /tmp/trace.out 2>/dev/null &
	sleep 1
	sh -c "$*" 2>&1
	wait
	cat /tmp/trace.out
}

run "insmod /lib/skbprof/skbprof.ko drop_keys=0"
run "dmesg | grep skbprof | tail -n 2"
# the kernel splits parameters at blanks outside double quotes
run "insmod /lib/skbprof/skbprof.ko filter='proto icmp dport 53'"
run "dmesg | grep skbprof | tail -n 2"
run "insmod /lib/skbprof/skbprof.ko 'filter=\"proto icmp dport 53\"'"
run "dmesg | grep skbprof | tail -n 2"
run "insmod /lib/skbprof/skbprof.ko"
run "ls -l $D"
run "grep -H . /sys/module/skbprof/parameters/*"
run "cat $D/control"

# control errors
run "echo 'filter proto udp dport 70000' > $D/control"
run "echo 'filter family ipv4 host ::1' > $D/control"
run "echo 'stages drv-ip,ip-foo' > $D/control"
run "printf 'sample 4\nbogus\n' > $D/control"
run "dd if=/dev/zero of=$D/control bs=5000 count=1"
run "dmesg | grep 'skbprof: control' | tail -n 5"
run "cat $D/control"

# a filtered run
run "printf 'filter proto udp dport 9000\n' > $D/control"
run "cat $D/control"
run "skbprof-traffic udp-pair 127.0.0.1 9000 100"
run "skbprof-traffic udp-pair 127.0.0.1 9003 50"
run "grep -E '^(timelines|table|incomplete)' $D/stats"
run "grep -v '^[@\\[w]' $D/latency | grep ."

# sampling
run "printf 'reset\nsample 4\n' > $D/control"
run "skbprof-traffic udp-pair 127.0.0.1 9000 100"
run "grep -E '^timelines' $D/stats"
run "grep -v '^[@\\[w]' $D/latency | grep ."

# a verbose trace of two datagrams and a drop, then of a short TCP flow
run "printf 'reset\nsample 1\ntrace verbose\n' > $D/control"
trace_for 4 "skbprof-traffic udp-pair 127.0.0.1 9000 2; skbprof-traffic udp 127.0.0.1 9000 1"
run "printf 'filter proto tcp port 9001\n' > $D/control"
trace_for 5 "skbprof-traffic tcp 127.0.0.1 9001 3000"
run "grep -E '^(pkttrace|trace)' $D/stats"

# drops: nftables, a closed UDP port, a closed TCP port
run "nft add table inet doc && nft add chain inet doc in '{ type filter hook input priority 0; }' && nft add rule inet doc in udp dport 9997 counter drop"
run "printf 'filter clear\ntrace on\nreset\n' > $D/control"
run "grep -E '^Udp: ' /proc/net/snmp"
trace_for 4 "skbprof-traffic udp 127.0.0.1 9997 10; skbprof-traffic udp 127.0.0.1 9999 5; skbprof-traffic tcp-syn 127.0.0.1 9998"
run "grep -E '^Udp: ' /proc/net/snmp"
run "nft list chain inet doc in"
run "cat $D/drops"
run "grep -E '^drops' $D/stats"
run "nft delete table inet doc"

# qdisc time: netem delays every packet on lo by 10 ms
run "printf 'reset\ntrace off\n' > $D/control"
run "/usr/sbin/tc qdisc add dev lo root netem delay 10ms"
run "skbprof-traffic udp-pair 127.0.0.1 9000 50"
run "/usr/sbin/tc qdisc del dev lo root"
run "cat $D/latency"
run "cat $D/procs"
run "cat $D/stats"

run "rmmod skbprof"
run "ls $D"
run "dmesg | grep skbprof | tail -n 3"
