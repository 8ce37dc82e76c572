#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make bench-scale` (bench/run.sh with BENCH_SCALE;
# bench/guest.sh hands over to it): what skbprof costs per packet as the
# work grows, one dimension at a time, against no module in the same
# boot, interleaved in rounds.  Prints, for the host (bench/report.py
# --scale):
#   info KEY VALUE...
#   scale round=R dim=D point=P mode=M key=value...   (from skbprof-load)
#   scounters round=R dim=D point=P key=value...      (skbprof's stats)
#   error ...
# Parameters from the kernel command line: skbprof.bench_scale (the
# dimensions, comma-separated), skbprof.bench_rounds, skbprof.bench_ms
# (guest milliseconds per run), skbprof.bench_tag (the boot's name).
#
# Dimensions (each point runs with no module and with every stage):
#   flows     udp-flood from FLOWS sockets in turn, each its own flow
#   inflight  udp-flood after HOLD datagrams were queued unread (each
#             holds its receive stamp), skbprof loaded with table_size=
#             INFLIGHT_TABLE: from an empty table to past full
#   cgroups   udp-flood whose process moves to the next of N cgroups
#             before each burst of 32
#   devices   (module only) the time to read drops_devices with N
#             network devices (veth pairs, made once, in steps)
#   crosscpu  udp-flood with the receive softirq on the reading
#             process's CPU (RPS off) or on the other one (RPS to CPU 1)
# Every run is pinned on CPU 0 (taskset).

rounds=3
ms=500
dims=flows,inflight,cgroups,devices
tag=
for arg in $(cat /proc/cmdline); do
	case $arg in
	skbprof.bench_rounds=*) rounds=${arg#*=} ;;
	skbprof.bench_scale=*) dims=${arg#*=} ;;
	skbprof.bench_ms=*) ms=${arg#*=} ;;
	skbprof.bench_tag=*) tag=${arg#*=} ;;
	esac
done
dims=$(echo "$dims" | tr , ' ')

KO=/lib/skbprof/skbprof.ko
# iproute2's (busybox's sh runs its own applet for a bare "ip")
IP=/usr/sbin/ip
# every run on CPU 0; with RPS off its receive softirq runs there too
PIN="taskset -c 0"
D=/sys/kernel/debug/skbprof
CG=/sys/fs/cgroup

FLOWS="1 10 100 1000 10000 100000"
INFLIGHT_TABLE=1024
# empty, a quarter ... the last that leaves room for a burst (32),
# full, twice full
INFLIGHT="0 256 512 768 992 1024 2048"
CGROUPS="1 10 100 1000"
DEVICES="1 100 1000 10000"

echo "info kernel $(uname -r)"
echo "info tag $tag"
echo "info clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "info cpus $(grep -c ^processor /proc/cpuinfo)"
echo "info cpus_possible $(cat /sys/devices/system/cpu/possible)"
echo "info cpus_online $(cat /sys/devices/system/cpu/online)"
echo "info memtotal_kb $(awk '/^MemTotal/ {print $2}' /proc/meminfo)"
echo "info ms $ms rounds $rounds dims $dims"
echo "info inflight_table $INFLIGHT_TABLE"

ctl() {
	echo "$1" > $D/control || echo "error control '$1': $(tail -n1 $D/control)"
}

# After a load or an unload: let deferred work end (RCU callbacks, the
# freeing of per-CPU data; idle guest time costs no host time under
# -icount) and warm the caches again, so that the first point of a
# dimension runs in the same state as the others.
settle() {
	sleep 1
	$PIN skbprof-load scale 100 1 0 0 > /dev/null
}

load() {
	insmod $KO "$@" || echo "error insmod $KO $* failed"
	settle
}

unload() {
	rmmod skbprof || echo "error rmmod failed"
	settle
}

# skbprof's counters of the run just made (reset before it)
counters() {
	awk -v pre="$1" '
		$1 == "probe" && $5 == "active" { hits += $7; missed += $9 }
		$1 ~ /^(table_(full|inserts|in_use|capacity|evictions)|procs_overflow|cgroups_overflow)$/ { v[$1] = $2 }
		END {
			printf "scounters %s hits=%d nmissed=%d", pre, hits, missed
			for (k in v)
				printf " %s=%s", k, v[k]
			printf "\n"
		}' $D/stats
}

# run R DIM POINT MODE ARGS...: one run of the scale workload
run() {
	r=$1 dim=$2 point=$3 mode=$4
	shift 4
	[ "$mode" = none ] || ctl reset
	out=$("$@" 2>&1)
	case $out in
	"result scale "*|"result udp-flood "*)
		echo "scale round=$r dim=$dim point=$point mode=$mode ${out#result * }" ;;
	*)	echo "error round=$r dim=$dim point=$point mode=$mode: $out" | tr '\n' ' '; echo ;;
	esac
	[ "$mode" = none ] || counters "round=$r dim=$dim point=$point"
}

# the packets each CPU's receive softirq processed so far (the first
# column of /proc/net/softnet_stat, a line per CPU), comma-separated:
# where crosscpu's softirq ran
softnet() {
	for h in $(awk '{ print $1 }' /proc/net/softnet_stat); do
		printf '%d,' $((0x$h))
	done
}

# points DIM R MODE: every point of DIM once
points() {
	dim=$1 r=$2 mode=$3
	case $dim in
	flows)	for p in $FLOWS; do
			run "$r" flows "$p" "$mode" $PIN skbprof-load scale "$ms" "$p" 0 0
		done ;;
	inflight)
		for p in $INFLIGHT; do
			run "$r" inflight "$p" "$mode" $PIN skbprof-load scale "$ms" 1 "$p" 0
		done ;;
	cgroups)
		for p in $CGROUPS; do
			run "$r" cgroups "$p" "$mode" $PIN skbprof-load scale "$ms" 1 0 "$p"
		done ;;
	crosscpu)
		# same: RPS off, the softirq runs where the packet is sent,
		# on CPU 0 with the process; cross: RPS steers it to CPU 1
		for p in same cross; do
			case $p in
			same) echo 0 > /sys/class/net/lo/queues/rx-0/rps_cpus ;;
			cross) echo 2 > /sys/class/net/lo/queues/rx-0/rps_cpus ;;
			esac
			before=$(softnet)
			run "$r" crosscpu "$p" "$mode" $PIN skbprof-load scale "$ms" 1 0 0
			[ "$r" = 1 ] && echo "info crosscpu_softnet_${p}_$mode before=$before after=$(softnet)"
		done
		echo 0 > /sys/class/net/lo/queues/rx-0/rps_cpus ;;
	esac
}

# ---- setup ----
ulimit -n 1048576 2>/dev/null || ulimit -n 200000
# 1000 cgroups under one parent
for d in $dims; do
	[ "$d" = cgroups ] || continue
	grep -q " $CG cgroup2 " /proc/mounts || mount -t cgroup2 none $CG ||
		echo "error cannot mount cgroup2"
	# a move takes cgroup_threadgroup_rwsem for writing, which waits
	# for an RCU grace period unless favordynmods (6.0 on): the time
	# of that wait is the other CPU's, and it made the figures wander
	mount -o remount,favordynmods $CG 2>/dev/null &&
		echo "info cgroup_favordynmods yes" || echo "info cgroup_favordynmods no"
	mkdir -p $CG/skbprof-bench
	n=$(echo $CGROUPS | tr ' ' '\n' | sort -n | tail -n1)
	(cd $CG/skbprof-bench && mkdir $(awk -v n=$n 'BEGIN { for (i = 0; i < n; i++) print "c" i }')) ||
		echo "error cannot make $n cgroups"
done
# Every present CPU online: with -icount QEMU hangs bringing up a second
# CPU at boot, so run.sh boots with maxcpus=1 and they come up here.
for f in /sys/devices/system/cpu/cpu[0-9]*/online; do
	[ "$(cat $f)" = 0 ] && { echo 1 > $f || echo "error cannot bring ${f%/online} online"; }
done
echo "info cpus_online_now $(cat /sys/devices/system/cpu/online)"
# warm: socket and skb caches, the sockets' slabs
$PIN skbprof-load scale "$ms" 1000 0 0 > /dev/null

# ---- the rounds ----
r=1
while [ "$r" -le "$rounds" ]; do
	for d in $dims; do
		case $d in
		devices) continue ;;
		inflight) opts="table_size=$INFLIGHT_TABLE" ;;
		*) opts= ;;
		esac
		points "$d" "$r" none
		# shellcheck disable=SC2086
		load $opts
		points "$d" "$r" all
		unload
	done
	r=$((r + 1))
done

# ---- drops_devices: read time as devices are added (module loaded) ----
for d in $dims; do
	[ "$d" = devices ] || continue
	modprobe veth || echo "error cannot load veth"
	load
	have=$(ls /sys/class/net | wc -l)
	i=0
	for n in $DEVICES; do
		# veth pairs, two devices each, made by one ip process
		k=$(((n - have) / 2))
		if [ "$k" -gt 0 ]; then
			awk -v i=$i -v k=$k 'BEGIN { for (j = i; j < i + k; j++)
				print "link add scv" j " type veth peer name scp" j }' > /tmp/batch
			$IP -batch /tmp/batch || echo "error ip -batch for $n devices"
			i=$((i + k))
		fi
		have=$(ls /sys/class/net | wc -l)
		reads=$((20000 / n))
		[ $reads -lt 3 ] && reads=3
		[ $reads -gt 50 ] && reads=50
		r=1
		while [ "$r" -le "$rounds" ]; do
			out=$(skbprof-load read $D/drops_devices $reads 2>&1)
			echo "scale round=$r dim=devices point=$have mode=all ${out#result read }"
			r=$((r + 1))
		done
	done
	unload
done
echo "info done"
