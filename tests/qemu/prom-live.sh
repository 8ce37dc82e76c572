#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of tests/host/prometheus.sh: run skbprof-prom.service's
# command (ExecStart= of the unit as shipped, with SKBPROF_PROM_DIR from
# the EnvironmentFile, /etc/default/skbprof as the package installs it)
# before and after known traffic, and once more after rmmod, and print
# each file it wrote, and the kernel's UDP counters at each step, between
# "=== BEGIN <name>" and "=== END" lines for the host.  The traffic's
# sizes come from /usr/share/skbprof/prom-live.env (the host writes it):
#   UDP_OK      datagrams to a bound IPv4 port (received)
#   UDP_CLOSED  datagrams to a closed IPv4 port (dropped, NO_SOCKET)
#   TCP_BYTES   bytes of TCP over loopback
#   TUN_SENT    datagrams into sktun0, a tun device nobody reads: past
#               its queue, the device drops them itself (tx_dropped,
#               printed from sysfs beside each file)

set -e
. /usr/share/skbprof/prom-live.env
unit=/usr/share/skbprof/skbprof-prom.service

# the unit's Environment= defaults, then its EnvironmentFile= (a leading
# '-': optional), as systemd reads them
eval "$(sed -n 's/^Environment=//p' "$unit")"
envfile=$(sed -n 's/^EnvironmentFile=-\{0,1\}//p' "$unit")
[ ! -e "$envfile" ] || . "$envfile"
cmd=$(sed -n 's/^ExecStart=//p' "$unit")
[ -n "$cmd" ] && [ -n "$SKBPROF_PROM_DIR" ] || { echo "no ExecStart= or SKBPROF_PROM_DIR"; exit 1; }
export SKBPROF_PROM_DIR
mkdir -p "$SKBPROF_PROM_DIR"
echo "unit: $cmd (SKBPROF_PROM_DIR=$SKBPROF_PROM_DIR)"

# run the unit's command as systemd would (it expands ${VAR}), then keep
# what it wrote as NAME, with the kernel's UDP counters beside it
snap() {
	rc=0
	eval "$cmd" || rc=$?
	echo "unit exit $rc"
	cp "$SKBPROF_PROM_DIR/skbprof.prom" "/tmp/$1.prom"
	grep -E '^Udp: ' /proc/net/snmp > "/tmp/$1.snmp"
	echo "TunTxDropped: $(cat /sys/class/net/sktun0/statistics/tx_dropped)" >> "/tmp/$1.snmp"
}

# sktun0: made persistent, IPv6 off (no router solicitations), up, with
# 10.203.0.0/24 behind it
modprobe tun
skbprof-traffic tun-drop 10.203.0.2 9 0
echo 1 > /proc/sys/net/ipv6/conf/sktun0/disable_ipv6
ip addr add 10.203.0.1/24 dev sktun0
ip link set sktun0 up

# lifetime and softnet on: every series of the default set is there
insmod /lib/skbprof/skbprof.ko lifetime_sample=1 softnet=on
# some of every kind first, so that file 1 has every series file 2 has
skbprof-traffic udp-pair 127.0.0.1 9000 20 200
skbprof-traffic udp 127.0.0.1 9999 3
skbprof-traffic tcp 127.0.0.1 9001 100000
skbprof-traffic tcp-syn 127.0.0.1 9998
skbprof-traffic tun-drop 10.203.0.2 9 "$TUN_SENT"
snap f1
skbprof-traffic udp-pair 127.0.0.1 9000 "$UDP_OK" 200
skbprof-traffic udp 127.0.0.1 9999 "$UDP_CLOSED"
skbprof-traffic tcp 127.0.0.1 9001 "$TCP_BYTES"
skbprof-traffic tcp-syn 127.0.0.1 9998
skbprof-traffic tun-drop 10.203.0.2 9 "$TUN_SENT"
snap f2
rmmod skbprof
snap f3
for f in f1.prom f1.snmp f2.prom f2.snmp f3.prom f3.snmp; do
	echo "=== BEGIN $f"
	cat "/tmp/$f"
	echo "=== END"
done
