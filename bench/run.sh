#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: what skbprof costs, against no module, the bare probes
# (bench_empty=1) and bpftrace doing the same work.  For each kernel one
# guest boot runs the fixed workloads in every mode, interleaved in rounds;
# bench/report.py turns the guest's lines into bench/results.md.
#
# Environment:
#   SKBPROF_KERNELS  kernels to run (default: 5.10 6.1 6.12 7.2 arm64-6.1
#                    arm64-7.2)
#   BENCH_SECS       guest seconds per workload run (default 1)
#   BENCH_ROUNDS     rounds (default 5)
#   BENCH_MODES      comma-separated modes (default: all of them)
#   BENCH_ICOUNT     N (default 4): run QEMU with -icount shift=N,sleep=off:
#                    guest time advances 2^N ns per instruction executed, so
#                    figures do not depend on the host's load; "off": plain
#                    TCG, guest time is the host's (noisy on a shared host)
#   BENCH_JOBS       guests at once (default: the number of CPUs)
#   BENCH_RESULTS    where the report goes (default bench/results.md)
#   BENCH_TIMEOUT    seconds per guest boot (default 5400)
#   BENCH_PROFILE    the workload the profile modes run (default udp-flood;
#                    udp-drop: the drop path)
#   BENCH_EXT        a directory for the ext mode: copied into the guest,
#                    its `start` runs before that mode's workloads and its
#                    `stop` after (another tool, measured like the modes)
#
# make bench-scale (BENCH_SCALE=1; bench/README, "Scale"): the scale
# benchmark instead, bench/scale.sh in each boot of BENCH_SCALE_BOOTS,
# on SKBPROF_KERNELS (default 6.1 there); its section of bench/results.md
# is replaced, the rest kept.
#   BENCH_SCALE_BOOTS  boots, space-separated, each TAG:SMP:DIMS[:off[:ROUNDS]]
#                      (DIMS comma-separated; "off": plain TCG, no
#                      -icount; ROUNDS: this boot's, else BENCH_ROUNDS,
#                      default 3); default: see scale_boots below
#   BENCH_MS           guest milliseconds per scale run (default 500)
#   BENCH_SCALE_BEFORE the SKBPROF_BENCH_OUT of an earlier run, whose
#                      figures the report sets beside these;
#                      BENCH_SCALE_BEFORE_TEXT says what it ran

set -u
. "$(dirname "$0")/../tests/lib.sh"

# own output tree: a bench run never clobbers make check's guests
OUT=${SKBPROF_BENCH_OUT:-$TOP/.cache/bench}
# the build without make check's assertions (module/skbprof.h)
export SKBPROF_ASSERTS=
secs=${BENCH_SECS:-1}
icount=${BENCH_ICOUNT-4}
[ "$icount" = off ] && icount=
rounds=${BENCH_ROUNDS:-5}
modes=${BENCH_MODES:-none,drops,rx,tx,all,boot,sample100,sample100f,lifetime,softnet,trace,empty,all-kprobe,empty-kprobe,bpftrace,profile-none,profile-empty}
results=${BENCH_RESULTS:-$TOP/bench/results.md}
mem=3G
# TSC as on real machines: TCG's HPET costs an emulated MMIO exit per read,
# which would make every time stamp (skbprof's and bpftrace's) dominate
clock=${BENCH_CLOCK-clocksource=tsc tsc=reliable}

scale=${BENCH_SCALE:-}
# two CPUs online, 2 or 64 possible, under -icount
scale_boots=${BENCH_SCALE_BOOTS:-p2:2,maxcpus=2:flows,inflight,cgroups,crosscpu,devices p64:2,maxcpus=64:flows,inflight,cgroups,crosscpu}

"$TOP/scripts/deps.sh" bench || die "cannot install the benchmark's dependencies"
case ,$modes, in
*,ext,*) [ -x "${BENCH_EXT:-}/start" ] && [ -x "$BENCH_EXT/stop" ] ||
		die "the ext mode wants BENCH_EXT: a directory with executable start and stop" ;;
esac
if [ -n "${BENCH_EXT:-}" ]; then
	BENCH_EXT=$(cd "$BENCH_EXT" && pwd) || die "no directory $BENCH_EXT"
	export BENCH_EXT
fi
mkdir -p "$OUT"
guest_tools || die "cannot build the guest programs"
make -s -C "$TOP/bench" >&2 || die "cannot build the load generator"
# arm64: the same programs cross-built, the load generator beside them
case " $KERNELS " in
*" arm64-"*)
	guest_tools arm64 || die "cannot cross-build the guest programs"
	rm -rf "$OUT/guest-arm64/bench"
	mkdir -p "$OUT/guest-arm64/bench"
	cp -p "$TOP/bench/Makefile" "$TOP/bench/load.c" "$OUT/guest-arm64/bench/"
	arch_make arm64 "$OUT/guest-arm64/bench" ||
		die "cannot cross-build the load generator" ;;
esac

# INITRAMFS_EXTRA hook of make_initramfs: bpftrace and perf with their
# libraries, the script, the guest half and the load generator; for arm64
# those of its userland (scripts/fetch-userland.sh), where bpftrace takes
# its types from BTF.
bench_extra() {
	local root=$1
	cp "$TOP/bench/guest.sh" "$root/usr/share/skbprof/bench.sh"
	cp "$TOP/bench/scale.sh" "$root/usr/share/skbprof/scale.sh"
	cp "$TOP/bench/bpftrace/stages.bt" "$root/usr/share/skbprof/stages.bt"
	# the ext mode's directory, as it is (bench/README)
	if [ -n "${BENCH_EXT:-}" ]; then
		mkdir -p "$root/usr/share/skbprof/ext" &&
			cp -a "$BENCH_EXT/." "$root/usr/share/skbprof/ext/" || return 1
	fi
	if [ -n "$USERLAND" ]; then
		add_prog "$root" "$OUT/guest-$KARCH/bench/skbprof-load" /bin/skbprof-load &&
		add_prog "$root" "$USERLAND/usr/bin/bpftrace" /usr/bin/bpftrace &&
		add_prog "$root" "$USERLAND/usr/bin/perf" /usr/bin/perf
		return
	fi
	add_bin "$root" "$(command -v bpftrace)" "$(command -v perf)"
	add_prog "$root" "$TOP/bench/skbprof-load" /bin/skbprof-load
	# the kernel headers: bpftrace 0.17 wants them on 5.10 even with BTF
	# (its clang pass includes linux/types.h); /lib/modules/KREL/build
	# and source as Debian's linux-headers packages lay them out
	# (7.2, built in a chroot, has neither here; bpftrace takes its types
	# from BTF there)
	local common dir
	[ -z "${KCHROOT:-}" ] || return 0
	common=$(readlink "$MODROOT/lib/modules/$KREL/source")
	for dir in "$(readlink "$MODROOT/lib/modules/$KREL/build")" "$common"; do
		mkdir -p "$root$dir/arch/x86"
		cp -rL "$MODROOT$dir/include" "$root$dir/"
		[ -d "$MODROOT$dir/arch/x86/include" ] &&
			cp -rL "$MODROOT$dir/arch/x86/include" "$root$dir/arch/x86/"
	done
	cp -P "$MODROOT/lib/modules/$KREL/build" "$MODROOT/lib/modules/$KREL/source" \
		"$root/lib/modules/$KREL/"
}
export -f bench_extra add_bin add_prog
export INITRAMFS_EXTRA=bench_extra TOP OUT

# With -icount, QEMU 7.2 hangs bringing up a second CPU: one CPU there.
qemu_flags() {
	if [ -n "$icount" ]; then
		echo "-accel tcg,thread=single -smp 1 -m $mem -icount shift=$icount,sleep=off"
	else
		echo "-accel tcg,thread=single -smp 2 -m $mem"
	fi
}

# bench_clock: the clock arguments for this kernel's guest: the TSC on
# x86 (see clock); arm64's generic timer is a register read already.
bench_clock() {
	[ -n "${KARCH:-}" ] || echo "$clock"
}

# bench_kernel VER: build, initramfs, boot; the guest's lines land in
# $OUT/VER/bench/result.txt.
bench_kernel() {
	local ver=$1 d=$OUT/$1/bench rc
	mkdir -p "$OUT/$ver"
	build_module "$ver" || { log "bench $ver: build failed, see $OUT/$ver/build.log"; return 1; }
	make_initramfs "$ver" || { log "bench $ver: cannot make the initramfs"; return 1; }
	kernel_env "$ver"
	rm -rf "$d"
	mkdir -p "$d"
	log "bench $ver: booting $KREL ($(qemu_flags))"
	local start=$SECONDS
	run_guest "$ver" "$d" "${BENCH_TIMEOUT:-5400}" "$(qemu_flags)" \
		"$(bench_clock) skbprof.mode=bench skbprof.bench_secs=$secs skbprof.bench_rounds=$rounds skbprof.bench_modes=$modes skbprof.bench_profile=${BENCH_PROFILE:-udp-flood}"
	rc=$?
	{
		echo "info qemu_flags $(qemu_flags)"
		echo "info qemu $("$(guest_qemu)" --version | head -n1)"
		echo "info host_cpus $(nproc) load_before $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "info boot_seconds $((SECONDS - start))"
		echo "info date $(date -u +%Y-%m-%d)"
	} >> "$d/result.txt"
	if [ $rc -ne 0 ]; then
		log "bench $ver: qemu exited with $rc (timeout: 124/137), see $d/"
		return 1
	fi
	if ! grep -q "^$MARKER\$" "$d/result.txt"; then
		log "bench $ver: the guest did not finish, see $d/console.log"
		return 1
	fi
	local bad
	bad=$(tr -d '\r' < "$d/console.log" | grep -E -m1 "$BAD_LOG")
	if [ -n "$bad" ]; then
		log "bench $ver: kernel log: $bad"
		return 1
	fi
	log "bench $ver: done in $((SECONDS - start)) s"
}

# scale_kernel VER: build, initramfs, then one boot per entry of
# scale_boots; the guest's lines land in $OUT/VER/scale-TAG/result.txt.
scale_kernel() {
	local ver=$1 boot tag smp dims ic brounds d rc start flags extra bad
	mkdir -p "$OUT/$ver"
	build_module "$ver" || { log "bench $ver: build failed, see $OUT/$ver/build.log"; return 1; }
	make_initramfs "$ver" || { log "bench $ver: cannot make the initramfs"; return 1; }
	kernel_env "$ver"
	for boot in $scale_boots; do
		IFS=: read -r tag smp dims ic brounds <<< "$boot"
		d=$OUT/$ver/scale-$tag
		rm -rf "$d"
		mkdir -p "$d"
		# With -icount, QEMU 7.2 hangs bringing up a second CPU at
		# boot, not later: the guest boots on one (maxcpus=1) and
		# bench/scale.sh brings the others online.
		extra=
		if [ "$ic" = off ] || [ -z "$icount" ]; then
			flags="-accel tcg,thread=single -smp $smp -m $mem"
		else
			flags="-accel tcg,thread=single -smp $smp -m $mem -icount shift=$icount,sleep=off"
			extra=maxcpus=1
		fi
		log "bench-scale $ver $tag: booting $KREL ($flags) for $dims"
		start=$SECONDS
		run_guest "$ver" "$d" "${BENCH_TIMEOUT:-5400}" "$flags" \
			"$(bench_clock) $extra skbprof.mode=bench skbprof.bench_scale=$dims skbprof.bench_rounds=${brounds:-${BENCH_ROUNDS:-3}} skbprof.bench_ms=${BENCH_MS:-500} skbprof.bench_tag=$tag"
		rc=$?
		{
			echo "info qemu_flags $flags"
			echo "info qemu $("$(guest_qemu)" --version | head -n1)"
			echo "info host_cpus $(nproc) load_before $(cut -d' ' -f1-3 /proc/loadavg)"
			echo "info boot_seconds $((SECONDS - start))"
			echo "info date $(date -u +%Y-%m-%d)"
			echo "info tree $(git -C "$TOP" rev-parse --short HEAD 2>/dev/null || echo ?)$(git -C "$TOP" status --porcelain -- module 2>/dev/null | grep -q . && echo ', module/ modified')"
		} >> "$d/result.txt"
		if [ $rc -ne 0 ] || ! grep -q "^$MARKER\$" "$d/result.txt"; then
			log "bench-scale $ver $tag: the guest did not finish (qemu: $rc), see $d/"
			continue
		fi
		bad=$(tr -d '\r' < "$d/console.log" | grep -E -m1 "$BAD_LOG")
		[ -z "$bad" ] || log "bench-scale $ver $tag: kernel log: $bad"
		log "bench-scale $ver $tag: done in $((SECONDS - start)) s"
	done
}

if [ -n "$scale" ]; then
	# one guest at a time: the boots of a kernel run in turn
	for ver in $KERNELS; do
		scale_kernel "$ver"
	done
	files=()
	for ver in $KERNELS; do
		for boot in $scale_boots; do
			f=$OUT/$ver/scale-${boot%%:*}/result.txt
			if [ -s "$f" ] && grep -q "^$MARKER\$" "$f"; then
				files+=("$ver/${boot%%:*}=$f")
			else
				log "bench-scale: no results for $ver ${boot%%:*}"
			fi
		done
	done
	[ ${#files[@]} -gt 0 ] || die "no boot produced results"
	# BENCH_SCALE_BEFORE: the output tree of an earlier run (its
	# SKBPROF_BENCH_OUT), compared in the report
	if [ -n "${BENCH_SCALE_BEFORE:-}" ]; then
		for ver in $KERNELS; do
			for boot in $scale_boots; do
				f=$BENCH_SCALE_BEFORE/$ver/scale-${boot%%:*}/result.txt
				[ -s "$f" ] && files+=("before:$ver/${boot%%:*}=$f")
			done
		done
		files=(--before-text "${BENCH_SCALE_BEFORE_TEXT:-an earlier tree}" "${files[@]}")
	fi
	python3 "$TOP/bench/report.py" --scale "$results" "${files[@]}" ||
		die "report failed"
	log "bench-scale: wrote the scale section of $results"
	exit 0
fi

jobs=${BENCH_JOBS:-$(nproc)}
running=0
for ver in $KERNELS; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	bench_kernel "$ver" &
	running=$((running + 1))
done
wait

# the profile modes alone: their lines, no report
if [ -z "$(echo "$modes" | tr , '\n' | grep -v '^profile')" ]; then
	for ver in $KERNELS; do
		echo "== $ver"
		grep '^profile' "$OUT/$ver/bench/result.txt"
	done
	exit 0
fi

files=()
for ver in $KERNELS; do
	f=$OUT/$ver/bench/result.txt
	if [ -s "$f" ] && grep -q "^$MARKER\$" "$f"; then
		files+=("$ver=$f")
	else
		log "bench: no results for $ver"
	fi
done
[ ${#files[@]} -gt 0 ] || die "no kernel produced results"
python3 "$TOP/bench/report.py" "${files[@]}" > "$results.new" || die "report failed"
# make bench-scale's section and the hand-written side-by-side sections
# (bench/README, "Another tool"), kept from the previous file
[ -f "$results" ] && sed -n '/^<!-- \(scale\|ext\):begin -->$/,/^<!-- \(scale\|ext\):end -->$/p' "$results" >> "$results.new"
mv "$results.new" "$results"
log "bench: wrote $results"
[ ${#files[@]} -eq "$(echo $KERNELS | wc -w)" ]
