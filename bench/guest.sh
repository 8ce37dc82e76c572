#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of `make bench` (bench/run.sh boots it): runs the fixed
# workloads in every mode, interleaved in rounds (A, B, C, A, B, C, ...),
# and prints machine-readable lines for the host:
#   info KEY VALUE...
#   run round=R mode=M workload=W key=value...     (from skbprof-load)
#   counters round=R mode=M key=value...           (skbprof's own stats)
#   mem key=value...                               (what the module holds)
#   error ...
# Parameters from the kernel command line: skbprof.bench_secs,
# skbprof.bench_rounds, skbprof.bench_modes (comma-separated).

secs=2
rounds=5
modes=none,drops,rx,tx,all,boot,sample100,sample100f,lifetime,softnet,trace,empty,all-kprobe,empty-kprobe,bpftrace
profile_load=udp-flood
for arg in $(cat /proc/cmdline); do
	case $arg in
	skbprof.bench_secs=*) secs=${arg#*=} ;;
	skbprof.bench_rounds=*) rounds=${arg#*=} ;;
	skbprof.bench_modes=*) modes=${arg#*=} ;;
	skbprof.bench_profile=*) profile_load=${arg#*=} ;;
	esac
done
modes=$(echo "$modes" | tr , ' ')
# make bench-scale: its own guest half
grep -q 'skbprof.bench_scale=' /proc/cmdline && exec /bin/sh /usr/share/skbprof/scale.sh

KO=/lib/skbprof/skbprof.ko
D=/sys/kernel/debug/skbprof
BT=/tmp/stages.bt
T=/sys/kernel/debug/tracing
# the ext mode's directory: BENCH_EXT on the host, copied in by run.sh
EXT=/usr/share/skbprof/ext

# The options of the shipped /etc/modprobe.d/skbprof.conf
# (systemd/skbprof.modprobe.conf, which make_initramfs copies in), as
# modprobe reads them: every "options skbprof ..." line, in order; a
# line continues after a trailing backslash.  Values keep their double
# quotes, which the kernel's parameter parser takes out.
BOOT_CONF=/usr/share/skbprof/skbprof.modprobe.conf
boot_options() {
	sed -e ':a' -e '/\\$/{N;s/\\\n/ /;ba' -e '}' $BOOT_CONF |
		awk '$1 == "options" && $2 == "skbprof" {
			sub(/^[ \t]*options[ \t]+skbprof[ \t]*/, "")
			printf "%s%s", sep, $0
			sep = " "
		}'
}

# ---- workloads ----
workloads() {
	r=$1 m=$2
	for w in udp-flood udp-drop tcp-stream udp-rr; do
		case $w in
		udp-flood) out=$(skbprof-load udp-flood "$secs" 64 2>&1) ;;
		udp-drop) out=$(skbprof-load udp-drop "$secs" 64 2>&1) ;;
		tcp-stream) out=$(skbprof-load tcp-stream bench-a bench-b 10.99.0.2 "$secs" 2>&1) ;;
		udp-rr) out=$(skbprof-load udp-rr bench-a bench-b 10.99.0.2 "$secs" 64 2>&1) ;;
		esac
		case $out in
		"result $w "*) echo "run round=$r mode=$m workload=$w ${out#result $w }" ;;
		*) echo "error round=$r mode=$m workload=$w: $out" | tr '\n' ' '; echo ;;
		esac
	done
}

# bench.sh --workloads ROUND MODE T0: only the workloads (bpftrace's child)
if [ "${1:-}" = --workloads ]; then
	echo "info bpftrace_attach_s $(($(date +%s) - $4))"
	workloads "$2" "$3"
	exit 0
fi

mount -t tracefs tracefs /sys/kernel/tracing 2>/dev/null
ulimit -l unlimited

echo "info kernel $(uname -r)"
echo "info clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
echo "info clocksource_available $(cat /sys/devices/system/clocksource/clocksource0/available_clocksource)"
echo "info cpus $(grep -c ^processor /proc/cpuinfo)"
echo "info memtotal_kb $(awk '/^MemTotal/ {print $2}' /proc/meminfo)"
echo "info secs $secs rounds $rounds modes $modes"
echo "info bpftrace $(bpftrace --version 2>&1)"
echo "info btf $([ -e /sys/kernel/btf/vmlinux ] && echo yes || echo no)"
echo "info boot_options $(boot_options)"
[ -d $EXT ] && echo "info ext_files $(ls $EXT | tr '\n' ' ')"

# ---- the network: two namespaces joined by a veth pair ----
#   bench-a: va 02:00:00:00:00:0a 10.99.0.1 --- bench-b: vb 02:00:00:00:00:0b 10.99.0.2
# built by the tests' own helper (harness.c, veth_pair()), so that the
# benchmark's pair and the tests' are made by the same steps: static
# neighbours, links and lo up, IPv6 and GRO as the kernel makes them
skbprof-test --veth-pair \
	ns=bench-a,dev=va,mac=02:00:00:00:00:0a,ip4=10.99.0.1/24 \
	ns=bench-b,dev=vb,mac=02:00:00:00:00:0b,ip4=10.99.0.2/24 \
	neigh,up,lo-up || echo "error cannot set up the veth pair"

# ---- the bpftrace script: the template with this kernel's functions ----
# first of the candidates that the kernel can probe (as probes.c does)
pick() {
	for f in "$@"; do
		if grep -q "^$f\$" "$T/available_filter_functions" 2>/dev/null ||
		   grep -q "^$f " "$T/available_filter_functions" 2>/dev/null; then
			echo "$f"
			return
		fi
	done
	echo "error none of $* can be probed" >&2
	echo "$1"
}
ip_rcv=$(pick ip_rcv_core ip_rcv)
udp_rcv=$(pick udp_rcv __udp4_lib_rcv)
tcp_xmit=$(pick __tcp_transmit_skb tcp_transmit_skb)
if grep -q "^tcp_skb_entail" "$T/available_filter_functions"; then
	tcp_app="kprobe:tcp_skb_entail"
	tcp_app_skb="arg1"
else
	tcp_app="kretprobe:$(pick sk_stream_alloc_skb tcp_stream_alloc_skb)"
	tcp_app_skb="retval"
fi
sed -e "s/@IP_RCV@/$ip_rcv/; s/@UDP_RCV@/$udp_rcv/; s/@TCP_XMIT@/$tcp_xmit/" \
	-e "s/@TCP_APP@/$tcp_app/; s/@TCP_APP_SKB@/$tcp_app_skb/" \
	/usr/share/skbprof/stages.bt > $BT
# 5.x: bpftrace 0.17 cannot take these types from BTF alone there (its clang
# pass wants linux/types.h, then does not know struct sk_buff): the kernel
# headers, as bpftrace needs without BTF
case $(uname -r) in
5.*)	sed -i '1i #include <linux/skbuff.h>' $BT
	echo "info bpftrace_types kernel headers (#include <linux/skbuff.h>)" ;;
*)	echo "info bpftrace_types BTF" ;;
esac
echo "info bpftrace_probes $(grep -E '^(kprobe|kretprobe|tracepoint):' $BT | tr '\n' ' ')"

# ---- modes ----
# the stage groups of each direction (module/stages.c), for the rx and tx
# modes: each measured alone, beside drops
RX_STAGES=drv-ip,ip-tcp,ip-udp,tcp-app,udp-app,rx-total
TX_STAGES=app-tcp,app-udp,tcp-ip,udp-ip,ip-dev,dev-drv,tx-total
reader=
# ext_run start|stop: the ext mode's program, its output in /tmp/ext.NAME
ext_run() {
	if [ ! -x $EXT/$1 ]; then
		echo "error ext: no $EXT/$1 (BENCH_EXT on the host)"
		return
	fi
	$EXT/$1 > /tmp/ext.$1 2>&1 ||
		echo "error ext $1 failed: $(head -c 600 /tmp/ext.$1 | tr '\n' '|')"
}

skbprof_load() {
	insmod $KO "$@" || echo "error insmod $KO $* failed"
}

ctl() {
	echo "$1" > $D/control || echo "error control '$1': $(tail -n1 $D/control)"
}

mode_start() {
	case $1 in
	none)	;;
	drops)	skbprof_load; ctl "stages drops" ;;
	rx)	skbprof_load; ctl "stages $RX_STAGES" ;;
	tx)	skbprof_load; ctl "stages $TX_STAGES" ;;
	all)	skbprof_load ;;
	# what skbprof.service loads: the shipped file's options, one
	# argument, which insmod hands to the kernel as it is
	boot)	skbprof_load "$(boot_options)" ;;
	lifetime) skbprof_load; ctl "stages drops"; ctl "lifetime 16" ;;
	softnet) skbprof_load; ctl "stages drops"; ctl "softnet on" ;;
	sample100) skbprof_load; ctl "sample 100" ;;
	sample100f) skbprof_load; ctl "filter proto udp"; ctl "sample 100" ;;
	trace)	skbprof_load; ctl "trace on"
		cat $D/trace > /dev/null &
		reader=$! ;;
	trace-nodrain) skbprof_load; ctl "trace on" ;;
	empty)	skbprof_load bench_empty=1 ;;
	# every stage with parts of the work left out (module/skbprof.h,
	# enum skbprof_skip): what each part costs
	skip-record) skbprof_load bench_skip=1 ;;
	skip-learn) skbprof_load bench_skip=2 ;;
	skip-clock) skbprof_load bench_skip=4 ;;
	skip-points) skbprof_load bench_skip=8 ;;
	skip-payers) skbprof_load bench_skip=16 ;;
	skip-all) skbprof_load bench_skip=31 ;;
	# function entries on kprobes instead of the ftrace callback
	all-kprobe) skbprof_load entry_ftrace=0 ;;
	empty-kprobe) skbprof_load bench_empty=1 entry_ftrace=0 ;;
	bpftrace) ;;	# see run_mode
	# another tool, no module: BENCH_EXT's start (bench/README)
	ext)	ext_run start ;;
	*)	echo "error unknown mode $1" ;;
	esac
}

# skbprof's own counters: probe hits and nmissed, table and trace losses
counters() {
	awk -v r="$1" -v m="$2" '
		$1 == "probe" && $5 == "active" { hits += $7; missed += $9 }
		$1 ~ /^(table_(full|evictions|inserts|in_use)|drops_(total|overflow)|pkttrace_(lines|lost)|procs_overflow|trace_buffer_bytes)$/ { v[$1] = $2 }
		$1 ~ /^incomplete_/ { inc += $2 }
		END {
			printf "counters round=%s mode=%s hits=%d nmissed=%d incomplete=%d", r, m, hits, missed, inc
			for (k in v)
				printf " %s=%s", k, v[k]
			printf "\n"
		}' $D/stats
}

mode_stop() {
	case $1 in
	none)	;;
	bpftrace) ;;
	ext)	ext_run stop
		# what it printed, first round only
		[ "$2" = 1 ] && cat /tmp/ext.start /tmp/ext.stop |
			head -n 80 | sed 's/^/info ext_out /' ;;
	*)
		[ -n "$reader" ] && kill $reader && wait $reader 2>/dev/null
		reader=
		counters "$2" "$1"
		rmmod skbprof || echo "error rmmod failed" ;;
	esac
}

meminfo() {
	awk '/^(Slab|Percpu|VmallocUsed|MemFree):/ { printf " %s=%s", $1, $2 }' /proc/meminfo |
		tr -d :
}

# ---- memory the module holds: meminfo before and after load ----
# (the same workload runs before both readings, so socket and skb caches
# are warm in both)
skbprof-load udp-flood 1 64 > /dev/null
sync
echo 3 > /proc/sys/vm/drop_caches
before=$(meminfo)
skbprof_load
skbprof-load udp-flood 1 64 > /dev/null
sync
echo 3 > /proc/sys/vm/drop_caches
after=$(meminfo)
echo "mem before$before"
echo "mem after$after"
echo "mem coresize=$(cat /sys/module/skbprof/coresize)"
echo "mem vmalloc_skbprof=$(awk '/skbprof/ { s += $2 } END { print s + 0 }' /proc/vmallocinfo)"
grep -E '^table_capacity|^drops_keys_max|^trace_buffer_bytes' $D/stats | sed 's/^/mem stat /'
rmmod skbprof

# The profile modes (BENCH_MODES=profile-none,profile, alone): all stages,
# udp-flood under perf's cpu-clock, one sample per ms of guest time.
# Under -icount that is every 62500 instructions (shift 4), so a symbol's
# samples times 62500 over the packets are its instructions per packet.
# skbprof.bench_profile=udp-drop profiles the drop path instead.
# Only the load generator's samples count: loopback runs the receive
# softirq in it, and perf's own work is left out.  profile-none: the same
# without skbprof; profile-MODE: in another mode (profile-sample100).
profile() {
	case $2 in
	profile)	mode_start all ;;
	profile-*)	mode_start "${2#profile-}" ;;
	esac
	perf record -q -e cpu-clock -c 1000000 -a -o /tmp/perf.data -- \
		skbprof-load "$profile_load" "$secs" 64 > /tmp/prof.out 2>&1
	echo "profile round=$1 mode=$2 period_ns=1000000 $(grep '^result' /tmp/prof.out)"
	perf report -i /tmp/perf.data --stdio --no-children --comms skbprof-load \
		--sort sym -F sample,sym 2>&1 | grep -v '^#' | grep . |
		sed "s/^/profile_sym mode=$2 /"
	# the probes that fired, for their hits per packet; empty handlers
	# count none, so their hits are those of a second run with real ones
	if [ "$2" = profile-empty ]; then
		rmmod skbprof || echo "error rmmod failed"
		skbprof_load
		skbprof-load "$profile_load" 1 64 > /tmp/hits.out 2>&1
		echo "profile_hits mode=$2 $(grep '^result' /tmp/hits.out)"
	fi
	[ -d $D ] && awk '$1 == "probe" && $7 > 0' $D/stats |
		sed "s/^/profile_probe mode=$2 /"
	[ "$2" != profile-none ] && [ -d $D ] &&
		{ rmmod skbprof || echo "error rmmod failed"; }
	[ "$2" = profile-ext ] && ext_run stop
}

# One mode, one round.  bpftrace runs the workloads itself (-c): it starts
# them once every probe is attached and stops when they are done.
run_mode() {
	case $1 in
	profile|profile-*)
		# a sample per ms of guest time: one round is enough
		[ "$2" = 1 ] && profile "$2" "$1"
		return ;;
	esac
	if [ "$1" = bpftrace ]; then
		t0=$(date +%s)
		if ! bpftrace -c "/bin/sh $0 --workloads $2 $1 $t0" $BT > /tmp/bt.out 2>&1 &&
		   ! grep -q '^#include' $BT &&
		   grep -q -E "Unknown struct|file not found" /tmp/bt.out; then
			# BTF alone was not enough: once more with the headers
			sed -i '1i #include <linux/skbuff.h>' $BT
			echo "info bpftrace_types kernel headers (#include <linux/skbuff.h>), BTF alone failed"
			t0=$(date +%s)
			bpftrace -c "/bin/sh $0 --workloads $2 $1 $t0" $BT > /tmp/bt.out 2>&1
		fi
		[ -n "$(grep '^run ' /tmp/bt.out)" ] ||
			echo "error bpftrace failed: $(grep -v '^run ' /tmp/bt.out | head -c 600 | tr '\n' '|')"
		grep -E '^(run|error|info) ' /tmp/bt.out
		if [ "$2" = 1 ]; then
			echo "info bpftrace_output_lines $(wc -l < /tmp/bt.out)"
			grep -E '^(@[a-z_]+(\[.*\])?: [0-9]+$|Lost|WARNING|ERROR)' /tmp/bt.out |
				head -n 20 | sed 's/^/info bpftrace_out /'
		fi
		return
	fi
	mode_start "$1"
	workloads "$2" "$1"
	mode_stop "$1" "$2"
}

# ---- the rounds ----
r=1
while [ $r -le "$rounds" ]; do
	for m in $modes; do
		run_mode "$m" "$r"
	done
	r=$((r + 1))
done
echo "info done"
