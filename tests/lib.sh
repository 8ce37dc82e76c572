# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers of the host-side test scripts: fetch a kernel, build the
# module for it, build a guest initramfs, boot it under QEMU and judge the
# run.  Sourced by check.sh, demo.sh and selftest.sh.
#
# A run is judged failed when any of these holds:
#   - QEMU did not finish before the timeout;
#   - the completion marker is missing from the result port (ttyS1, or
#     a virtio serial port on arm64);
#   - a test reported FAIL;
#   - the guest kernel log (ttyS0) has a line matching BAD_LOG.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=${SKBPROF_OUT:-$TOP/.cache/out}
KERNELS=${SKBPROF_KERNELS:-5.10 6.1 6.12 7.2 arm64-6.1 arm64-7.2}
MARKER=SKBPROF-TESTS-COMPLETE
# make demo's kernel (SKBPROF_DEMO_KERNEL: 5.10, 6.12, 7.2), which make
# check boots in demo mode too, and the bound of that boot
DEMO_KERNEL=${SKBPROF_DEMO_KERNEL:-6.1}
DEMO_TIMEOUT=600
BAD_LOG='BUG:|WARNING:|Oops|general protection|soft lockup|hard LOCKUP|RCU stall|rcu_sched detected stalls|rcu: INFO: .* detected stalls|refcount_t:|list_add corruption|list_del corruption|Kernel panic|UBSAN:|KASAN:|kmemleak:.*new suspected'

log() { echo "$*" >&2; }
die() { echo "error: $*" >&2; exit 1; }

# kernel_env VER: fetch VER and load its kernel.env into the environment.
kernel_env() {
	local env
	env=$("$TOP/scripts/fetch-kernel.sh" "$1") || die "cannot fetch kernel $1"
	# only some kernels set KCHROOT, KARCH and KCROSS_COMPILE: none left
	# over from the previous one
	unset KCHROOT KARCH KCROSS_COMPILE
	# shellcheck disable=SC1090
	. "$env"
}

# kmake DIR ARG...: make ARG... for the kernel of kernel_env.  When the
# kernel has a build chroot (KCHROOT: its headers need a newer toolchain
# than the host's), make runs in there, with DIR visible at its own path;
# the mounts are private to that make and gone when it ends.  A cross
# build (arm64-VER: KARCH, KCROSS_COMPILE) passes ARCH and CROSS_COMPILE
# on make's command line, where they reach no other make of the scripts.
kmake() {
	local dir=$1
	local -a cross=()
	shift
	[ -z "${KARCH:-}" ] || cross+=("ARCH=$KARCH")
	[ -z "${KCROSS_COMPILE:-}" ] || cross+=("CROSS_COMPILE=$KCROSS_COMPILE")
	if [ -n "${KCHROOT:-}" ]; then
		"$TOP/scripts/in-chroot.sh" "$KCHROOT" "$dir" make "${cross[@]}" "$@"
	else
		make "${cross[@]}" "$@"
	fi
}

# build_module VER: build skbprof.ko, with its test and benchmark hooks
# (SKBPROF_TESTING) and, unless SKBPROF_ASSERTS is set empty (make
# bench), its assertions, and the self-test module for VER with
# W=1 and sparse (C=2) into $OUT/VER/build; the build log is
# $OUT/VER/build.log.  Fails on any compiler, sparse or modpost warning,
# and when kbuild could not run sparse.
build_module() {
	local ver=$1 b=$OUT/$1/build
	kernel_env "$ver"
	mkdir -p "$b"
	# copy preserving times, so an unchanged tree does not rebuild
	rm -rf "$b/src.new"
	mkdir -p "$b/src.new"
	cp -p "$TOP/Kbuild" "$TOP/VERSION" "$b/src.new/"
	cp -rp "$TOP/module" "$TOP/tests/selftest" "$b/src.new/"
	if [ -d "$b/src" ] && diff -rq -x '*.o' -x '*.ko' -x '.*' -x '*.mod*' \
		-x 'modules.order' -x 'Module.symvers' "$b/src.new" "$b/src" >/dev/null 2>&1; then
		rm -rf "$b/src.new"
	else
		rm -rf "$b/src"
		mv "$b/src.new" "$b/src"
	fi
	{
		kmake "$b" -C "$KDIR" M="$b/src" CC="$KCC" W=1 C=2 SKBPROF_WERROR=y SKBPROF_TESTING=y \
			SKBPROF_ASSERTS="${SKBPROF_ASSERTS-y}" modules &&
		kmake "$b" -C "$KDIR" M="$b/src/selftest" CC="$KCC" modules
	} > "$OUT/$ver/build.log" 2>&1
	local rc=$?
	if [ $rc -ne 0 ]; then
		tail -n 30 "$OUT/$ver/build.log" >&2
		return 1
	fi
	# kbuild (7.x) drops C=2 with a plain note when sparse is unusable
	if grep -E -i 'warning:|warn:|specified, but .* not available' "$OUT/$ver/build.log" >&2; then
		return 1
	fi
	return 0
}

# add_prog ROOT FILE DEST: copy the executable FILE to ROOT/DEST with its
# shared libraries: the host's (ldd) for a guest of the host's
# architecture, else those of $USERLAND (scripts/fetch-userland.sh),
# found by the ELF's interpreter and NEEDED entries, since ldd cannot
# read another architecture's.
add_prog() {
	local root=$1 f=$2 dest=$3 lib d
	local -a todo=("$f")
	mkdir -p "$root$(dirname "$dest")"
	cp -L "$f" "$root$dest"
	if [ -z "${USERLAND:-}" ]; then
		for lib in $(ldd "$f" 2>/dev/null | grep -o '/[^ ]*'); do
			[ -e "$root$lib" ] && continue
			mkdir -p "$root$(dirname "$lib")"
			cp -L "$lib" "$root$lib"
		done
		return 0
	fi
	while [ ${#todo[@]} -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		for lib in $(readelf -l "$f" | sed -n 's/.*interpreter: \(.*\)]/\1/p') \
			$(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)]/\1/p'); do
			case $lib in
			/*)	d=$lib ;;
			*)	for d in {/usr,}/lib/"$USERLAND_TRIPLET"/"$lib" none; do
					[ -e "$USERLAND$d" ] && break
				done ;;
			esac
			[ "$d" = none ] && { log "add_prog: no $lib for $f in $USERLAND"; return 1; }
			[ -e "$root$d" ] && continue
			mkdir -p "$root$(dirname "$d")"
			cp -L "$USERLAND$d" "$root$d"
			todo+=("$USERLAND$d")
		done
	done
}

# add_bin ROOT FILE...: add_prog each FILE at its own path.
add_bin() {
	local root=$1 f
	shift
	for f in "$@"; do
		add_prog "$root" "$f" "$f" || return 1
	done
}

# userland_env ARCH: for a guest of another architecture (kernel_env's
# KARCH), USERLAND is its Debian userland (busybox, ip, tc, nft, promtool
# and the libraries, scripts/fetch-userland.sh) and USERLAND_TRIPLET its
# GNU triplet; both empty for the host's own.
userland_env() {
	USERLAND=
	USERLAND_TRIPLET=
	[ -n "${1:-}" ] || return 0
	USERLAND=$("$TOP/scripts/fetch-userland.sh" "$1") || return 1
	# dpkg's own table (it warns that the host's gcc is not ARCH's)
	USERLAND_TRIPLET=$(dpkg-architecture -a"$1" -qDEB_HOST_MULTIARCH 2>/dev/null)
}

# find_kmod NAME: the file of kernel module NAME in the kernel's package.
find_kmod() {
	local mdir=$MODROOT/lib/modules/$KREL n
	n=$(find "$mdir/kernel" \( -name "$1.ko" -o -name "$1.ko.*" \
		-o -name "${1//_/-}.ko" -o -name "${1//_/-}.ko.*" \) | head -n1)
	[ -n "$n" ] && echo "$n"
}

# add_kmods ROOT: the modules of tests/qemu/modules.list (a name ending in
# '?' is optional: skipped where the kernel has no such module) and their
# dependencies, decompressed, with a modules.dep made by depmod.
add_kmods() {
	local root=$1 mdir=$MODROOT/lib/modules/$KREL
	local name f rel
	local -a todo
	declare -A seen=()
	read -r -a todo <<< "$(grep -v '^#' "$TOP/tests/qemu/modules.list" | tr '\n' ' ')"
	while [ ${#todo[@]} -gt 0 ]; do
		name=${todo[0]}
		todo=("${todo[@]:1}")
		[ -n "${seen[$name]:-}" ] && continue
		seen[$name]=1
		# NAME? in the list: optional (built in on some kernels)
		case $name in
		*'?')	f=$(find_kmod "${name%'?'}") || continue ;;
		*)	f=$(find_kmod "$name") || die "kernel $KREL has no module $name" ;;
		esac
		rel=${f#"$mdir"/}
		mkdir -p "$root/lib/modules/$KREL/$(dirname "$rel")"
		case $f in
		*.xz)	xz -dc "$f" > "$root/lib/modules/$KREL/${rel%.xz}" ;;
		*.zst)	zstd -qdc "$f" > "$root/lib/modules/$KREL/${rel%.zst}" ;;
		*.gz)	gzip -dc "$f" > "$root/lib/modules/$KREL/${rel%.gz}" ;;
		*)	cp "$f" "$root/lib/modules/$KREL/$rel" ;;
		esac
		todo+=($(modinfo -F depends "$f" | tr ',' ' '))
	done
	cp "$mdir"/modules.builtin* "$mdir/modules.order" "$root/lib/modules/$KREL/" 2>/dev/null || true
	depmod -b "$root" "$KREL"
}

# make_initramfs VER: $OUT/VER/initramfs.cpio.gz for the guest.  For a
# kernel of another architecture (arm64-VER), the programs come from
# guest_tools ARCH and busybox, ip, tc, nft and promtool from its userland.
make_initramfs() {
	local ver=$1 b=$OUT/$1/build root=$OUT/$1/initramfs f prog
	kernel_env "$ver"
	userland_env "${KARCH:-}" || return 1
	rm -rf "$root"
	mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,lib/skbprof,proc,sys,dev,tmp,run,root,etc,usr/share/skbprof}
	cp "$USERLAND/bin/busybox" "$root/bin/busybox"
	cp "$TOP/tests/qemu/init" "$root/init"
	chmod 755 "$root/init"
	cp "$b/src/module/skbprof.ko" "$root/lib/skbprof/"
	cp "$b/src/selftest/skbprof_selftest_warn.ko" "$root/lib/skbprof/"
	cp "${GUEST_DEMO:-$TOP/tests/qemu/demo.sh}" "$root/usr/share/skbprof/demo.sh"
	while read -r f prog; do
		add_prog "$root" "$f" "/bin/$prog" || return 1
	done < <(guest_bins "${KARCH:-}")
	# t_units.c: skbprof-prom.service's command as the package installs
	# it (the tool at /usr/sbin/skbprof), and promtool to judge its file
	# (scripts/deps.sh check installs it; make demo and bench go without)
	cp "$TOP/systemd/skbprof-prom.service" "$root/usr/share/skbprof/"
	# t_units.c and make bench's boot mode: the module's options as
	# skbprof.service loads them (/etc/modprobe.d/skbprof.conf)
	cp "$TOP/systemd/skbprof.modprobe.conf" "$root/usr/share/skbprof/"
	ln -s /bin/skbprof "$root/usr/sbin/skbprof"
	if [ -n "$USERLAND" ]; then
		add_prog "$root" "$USERLAND/usr/bin/promtool" /usr/bin/promtool || return 1
		add_prog "$root" "$USERLAND/bin/ip" /usr/sbin/ip || return 1
		add_prog "$root" "$USERLAND/sbin/tc" /usr/sbin/tc || return 1
		add_prog "$root" "$USERLAND/usr/sbin/nft" /usr/sbin/nft || return 1
	else
		if command -v promtool > /dev/null; then
			add_bin "$root" "$(command -v promtool)"
		fi
		add_bin "$root" "$(command -v ip)" "$(command -v tc)" "$(command -v nft)"
	fi
	echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
	echo 'nobody:x:65534:65534:nobody:/nonexistent:/bin/false' >> "$root/etc/passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' > "$root/etc/group"
	add_kmods "$root"
	# a caller's additions (make bench: bpftrace, its scripts, the load)
	if [ -n "${INITRAMFS_EXTRA:-}" ]; then
		"$INITRAMFS_EXTRA" "$root" || return 1
	fi
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT/$ver/initramfs.cpio.gz"
}

# monitor_nmi SOCKET: inject an NMI through a guest's QEMU monitor.
monitor_nmi() {
	python3 - "$1" <<'PY' || echo "monitor_nmi: no monitor at $1" >&2
import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"nmi\n")
time.sleep(1)
PY
}

# guest_qemu: the QEMU of kernel_env's architecture.
guest_qemu() {
	case ${KARCH:-} in
	arm64)	echo qemu-system-aarch64 ;;
	*)	echo qemu-system-x86_64 ;;
	esac
}

# run_guest VER DIR TIMEOUT "QEMU-FLAGS" "APPEND": boot VER's kernel (after
# kernel_env) with its initramfs, the kernel log on the first serial port
# (DIR/console.log), the guest's lines on the result port (DIR/result.log, with
# carriage returns stripped into DIR/result.txt); returns qemu's status,
# 124 or 137 on timeout.  Warnings panic the guest.
# With SKBPROF_STALL=N, a guest whose result port and kernel log have
# not grown for N seconds is stopped too (DIR/stalled is left behind): a
# hang is told from a slow run by whether tests still finish or say
# anything (a long test notes its steps), not by the wall clock, which a
# loaded host stretches.  Before it is stopped, the guest gets an NMI on
# its monitor (a socket in /tmp, whose path must be short): booted with
# unknown_nmi_panic, it panics, and panic_print puts every task's stack
# and every CPU's backtrace in the kernel log, to show where it hung.
run_guest() {
	local ver=$1 d=$2 timeout=$3 flags=$4 append=$5 rc qpid
	local stall=${SKBPROF_STALL:-0} size last=-1 idle=0 i mon
	local -a machine

	rm -f "$d/stalled"
	mon=$(mktemp -u "${TMPDIR:-/tmp}/skbprof-mon.XXXXXX")
	# The machine of the kernel's architecture.  arm64's virt has one
	# UART: the result port is a named virtio serial port there (see
	# tests/qemu/init), and its NMI does not reach the kernel, so a hung
	# arm64 guest is stopped without a dump.  Pointer authentication
	# with QEMU's own algorithm: the architected one (QARMA) is slow
	# under TCG.
	case ${KARCH:-} in
	arm64)	machine=("$(guest_qemu)" -M virt,gic-version=3
			-cpu max,pauth-impdef=on
			-serial "file:$d/console.log"
			-device virtio-serial-pci
			-chardev "file,id=result,path=$d/result.log"
			-device virtserialport,chardev=result,name=skbprof.result)
		append="console=ttyAMA0 $append" ;;
	*)	machine=("$(guest_qemu)" -cpu max
			-serial "file:$d/console.log" -serial "file:$d/result.log")
		append="console=ttyS0 unknown_nmi_panic=1 $append" ;;
	esac
	# shellcheck disable=SC2086
	timeout --kill-after=10 "$timeout" "${machine[@]}" $flags \
		-nodefaults -nographic -no-reboot \
		-monitor "unix:$mon,server=on,wait=off" \
		-kernel "$VMLINUZ" -initrd "$OUT/$ver/initramfs.cpio.gz" \
		-append "panic_on_warn=1 oops=panic panic=-1 softlockup_panic=1 panic_print=0x41 $append" \
		> "$d/qemu.log" 2>&1 < /dev/null &
	qpid=$!
	while [ "$stall" -gt 0 ] && kill -0 "$qpid" 2>/dev/null; do
		sleep 5
		size=$(stat -c %s "$d/result.log" "$d/console.log" 2>/dev/null |
			awk '{ n += $1 } END { print n + 0 }')
		if [ "$size" != "$last" ]; then
			last=$size
			idle=0
		else
			idle=$((idle + 5))
		fi
		if [ "$idle" -ge "$stall" ]; then
			touch "$d/stalled"
			monitor_nmi "$mon"
			# the panic's dump, then qemu's exit (-no-reboot)
			for i in $(seq 60); do
				kill -0 "$qpid" 2>/dev/null || break
				sleep 1
			done
			# timeout passes the signal on to qemu
			kill "$qpid" 2>/dev/null
			break
		fi
	done
	wait "$qpid"
	rc=$?
	rm -f "$mon"
	tr -d '\r' < "$d/result.log" > "$d/result.txt"
	return $rc
}

# Two virtio-net NICs on one QEMU hub, joined to each other only: a real
# driver path for the tests (harness.h, vnet_setup()).  The hub has no
# vnet header, so the NICs offer no offloads and TCP's large skbs are
# segmented in software (GSO) before the driver.  The MACs are the
# harness's VNET_MAC_A and VNET_MAC_B.
GUEST_NICS="-netdev hubport,id=n0,hubid=0 -device virtio-net-pci,netdev=n0,mac=52:54:00:5b:00:0a \
-netdev hubport,id=n1,hubid=0 -device virtio-net-pci,netdev=n1,mac=52:54:00:5b:00:0b"

# kcsan_split DIR: the kernel log on stdin without KCSAN's reports into
# DIR/console.nokcsan.log, and the reports sorted by whose code raced:
# DIR/kcsan-skbprof.txt when an access's own frame (the first under its
# "read to ..."/"write to ..." line) is skbprof's ("[skbprof]");
# DIR/kcsan-skbprof-callers.txt when skbprof's frames are only further
# down (the kernel's code racing with itself, called by skbprof: the
# timekeeping's seqcount latch read by ktime_get_mono_fast_ns(), say);
# DIR/kcsan-other.txt for the rest.  A report runs from its "BUG:
# KCSAN:" line to the line of "=" that closes it.
kcsan_split() {
	local d=$1
	awk -v rest="$d/console.nokcsan.log" -v ours="$d/kcsan-skbprof.txt" \
	    -v callers="$d/kcsan-skbprof-callers.txt" -v other="$d/kcsan-other.txt" '
	function flush() {
		printf "%s", block >> (mine ? ours : called ? callers : other)
		block = ""; inside = 0; closing = 0
	}
	/BUG: KCSAN:/ { inside = 1; mine = 0; called = 0; top = 0; block = "" }
	inside {
		block = block $0 "\n"
		if (top && index($0, "[skbprof]")) mine = 1
		top = $0 ~ / (to|of) 0x[0-9a-f]+ of [0-9]+ bytes by .* on cpu [0-9]+:$/
		if (index($0, "[skbprof]")) called = 1
		if ($0 ~ /Reported by Kernel Concurrency Sanitizer/) closing = 1
		if (closing && $0 ~ /^(\[[ 0-9.]+\] )?=+$/)
			flush()
		next
	}
	{ print > rest }
	END { if (inside) flush(); printf "" >> rest }'
	touch "$d/kcsan-skbprof.txt" "$d/kcsan-skbprof-callers.txt" "$d/kcsan-other.txt"
}

# boot VER MODE TIMEOUT: boot the guest; its logs land in $OUT/VER/MODE/
# ($OUT/VER/MODE-smpN/ with SKBPROF_SMP=N).
# Prints the test lines prefixed by VER/, then "ok"/"FAIL" lines about the
# run itself; returns non-zero when the run failed.
#
# The guest has 2 vCPUs that QEMU runs by turns on one thread
# (thread=single).  SKBPROF_SMP=N gives it N vCPUs on a thread each,
# running at once (multi-threaded TCG), for the tests of real parallelism
# (t_smp.c; SKBPROF_SMP_SECS: the length of its load).  Under it, kernel
# text patched while other vCPUs run hangs the guest: only tests that arm
# probes while the guest is idle can run there (Documentation/testing.rst).
boot() {
	local ver=$1 mode=$2 timeout=$3 d=$OUT/$1/$2 rc bad=0 line extra= cpus
	kernel_env "$ver"
	[ -n "${SKBPROF_TESTS:-}" ] && extra="skbprof.tests=$(echo $SKBPROF_TESTS | tr ' ' ,)"
	[ -n "${SKBPROF_SLOW:-}" ] && extra="$extra skbprof.slow=1"
	[ -n "${SKBPROF_SMP_SECS:-}" ] && extra="$extra skbprof.smp_secs=$SKBPROF_SMP_SECS"
	# The debug kernel runs tens of times slower: stress children pause
	# that much longer, or they alone saturate the guest (see t_stress.c)
	# The race kernel (KCSAN) too: at the normal pace, its first unload
	# under load ran out of retries ("cycle 0: unload: Resource
	# temporarily unavailable")
	case $ver in
	debug|race) extra="$extra skbprof.pace=10" ;;
	esac
	# KCSAN panics at its first report under panic_on_warn, and most
	# reports are the core kernel's own: judged below, by whose code
	[ "$ver" = race ] && extra="$extra panic_on_warn=0"
	cpus="-accel tcg,thread=single -smp 2"
	if [ -n "${SKBPROF_SMP:-}" ]; then
		cpus="-accel tcg,thread=multi -smp $SKBPROF_SMP"
		d=$d-smp$SKBPROF_SMP
	fi
	rm -rf "$d"
	mkdir -p "$d"
	run_guest "$ver" "$d" "$timeout" \
		"$cpus -m ${SKBPROF_MEM:-1G} $GUEST_NICS" \
		"skbprof.mode=$mode $extra"
	rc=$?
	grep -E '^(ok|FAIL) ' "$d/result.txt" | sed -E "s#^(ok|FAIL) #\1 $ver/#"
	mode=${d##*/}
	if [ -e "$d/stalled" ]; then
		if grep -q 'NMI received for unknown reason' "$d/console.log"; then
			line="the guest's tasks and CPUs are dumped in $d/console.log"
		else
			line="the guest did not dump its tasks"
		fi
		echo "FAIL $ver/$mode: no test finished and no line logged for ${SKBPROF_STALL}s; $line"
		bad=1
	elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "FAIL $ver/$mode: timeout after ${timeout}s"
		bad=1
	elif [ $rc -ne 0 ]; then
		echo "FAIL $ver/$mode: qemu exited with $rc: $(head -c 300 "$d/qemu.log")"
		bad=1
	fi
	if ! grep -q "^$MARKER\$" "$d/result.txt"; then
		echo "FAIL $ver/$mode: no completion marker"
		bad=1
	fi
	if grep -q '^FAIL ' "$d/result.txt"; then
		bad=1
	fi
	# KCSAN's reports (the race kernel) are judged by whose code they
	# name: the kernel's own races are not this module's to fix
	tr -d '\r' < "$d/console.log" | kcsan_split "$d"
	if [ -s "$d/kcsan-skbprof.txt" ]; then
		grep 'BUG: KCSAN:' "$d/kcsan-skbprof.txt" | sed 's/^\[[ 0-9.]*\] //' |
			sort | uniq -c | while read -r n line; do
			echo "FAIL $ver/$mode: $n x $line (in skbprof's code; reports in $d/kcsan-skbprof.txt)"
		done
		bad=1
	fi
	line=$(grep -E -m1 "$BAD_LOG" "$d/console.nokcsan.log")
	if [ -n "$line" ]; then
		echo "FAIL $ver/$mode: kernel log: $line"
		bad=1
	fi
	[ $bad -eq 0 ] && echo "ok $ver/$mode: clean run"
	return $bad
}

# run_script VER SCRIPT TIMEOUT: build the module and the guest programs
# and boot VER in demo mode with SCRIPT in the demo's place; its output is
# $OUT/VER/demo/result.txt, and INITRAMFS_EXTRA still adds files.
run_script() {
	local ver=$1 script=$2 timeout=$3
	guest_tools || { log "cannot build the guest programs"; return 1; }
	build_module "$ver" || { log "build failed, see $OUT/$ver/build.log"; return 1; }
	GUEST_DEMO=$script make_initramfs "$ver" || { log "cannot make the initramfs"; return 1; }
	boot "$ver" demo "$timeout"
}

# split_sections FILE DIR: each "=== BEGIN NAME" ... "=== END" section of
# a guest's output FILE as DIR/NAME (NAME may hold directories).
split_sections() {
	awk -v dst="$2" '
		/^=== BEGIN / { f = dst "/" $3; d = f; sub(/\/[^\/]*$/, "", d);
				system("mkdir -p " d); printf "" > f; next }
		/^=== END$/ { close(f); f = ""; next }
		f != "" { print > f }
	' "$1"
}

# arch_make ARCH DIR ARG...: make ARG... in DIR for ARCH: the host's
# compiler when ARCH is empty, else ARCH's cross compiler against its
# userland (scripts/fetch-userland.sh) as the sysroot, pkg-config too.
arch_make() {
	local arch=$1 dir=$2
	shift 2
	if [ -z "$arch" ]; then
		make -s -C "$dir" "$@" >&2
		return
	fi
	userland_env "$arch" || return 1
	PKG_CONFIG_SYSROOT_DIR=$USERLAND \
	PKG_CONFIG_LIBDIR=$USERLAND/usr/lib/$USERLAND_TRIPLET/pkgconfig:$USERLAND/usr/share/pkgconfig \
		make -s -C "$dir" CC="$USERLAND_TRIPLET-gcc --sysroot=$USERLAND" "$@" >&2
}

# guest_tools [ARCH]: build the guest's programs (the test program, the
# traffic generator, the tool): the host's in the tree; another
# architecture's (arm64) from a copy of the sources in $OUT/guest-ARCH,
# with arch_make.  Callers build each architecture once, before guests
# run in parallel.
guest_tools() {
	local arch=${1:-} src
	if [ -z "$arch" ]; then
		make -s -C "$TOP/tools" >&2 && make -s -C "$TOP/tests/guest" >&2
		return
	fi
	src=$OUT/guest-$arch
	rm -rf "$src"
	mkdir -p "$src/tests"
	cp -p "$TOP/VERSION" "$src/"
	cp -rp "$TOP/tools" "$src/"
	cp -rp "$TOP/tests/guest" "$src/tests/"
	make -s -C "$src/tools" clean >&2
	make -s -C "$src/tests/guest" clean >&2
	arch_make "$arch" "$src/tools" skbprof &&
		arch_make "$arch" "$src/tests/guest"
}

# guest_bins [ARCH]: the programs of guest_tools ARCH, as lines
# "PATH NAME-IN-GUEST".
guest_bins() {
	local d=$TOP
	[ -z "${1:-}" ] || d=$OUT/guest-$1
	echo "$d/tests/guest/skbprof-test skbprof-test"
	echo "$d/tests/guest/skbprof-traffic skbprof-traffic"
	echo "$d/tools/skbprof skbprof"
}
