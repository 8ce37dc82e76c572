#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: everything.
#   1. host unit tests, host tests of the tool, style checks, DKMS and the
#      Debian packages for real (tests/host/dkms.sh, deb.sh), a short
#      fuzzing run of the control grammar; the README's install blocks on
#      a fresh Debian image (tests/host/readme.sh) run beside step 3
#   2. the harness self-test (proves each failure path of a guest run is
#      caught; its deliberately failing runs are not counted, the proof is)
#   3. per kernel (5.10, 6.1, 6.12, 7.2, and Debian's arm64 6.1 and 7.2
#      cross-built and booted under qemu-system-aarch64): W=1 build, then
#      the in-guest suite; on the demo's kernel (6.1), make demo's guest
#      half as well, judged like a test run, and a boot with 4 vCPUs
#      running at once (SKBPROF_SMP=4) for the short form of t_smp.c
# Ends with one line "N passed, N failed"; exits non-zero on any failure.
#
# Environment: SKBPROF_KERNELS="6.1" to limit kernels, SKBPROF_TESTS="a b"
# to run only some guest tests, SKBPROF_SKIP_SELFTEST=1 to skip step 2,
# SKBPROF_TIMEOUT (seconds per guest boot, default 3600), SKBPROF_STALL
# (a guest in which no test finished and nothing was logged for this many
# seconds is stopped as hung, default 600; 0: only SKBPROF_TIMEOUT), SKBPROF_JOBS
# (guests at once, default the number of CPUs), SKBPROF_SKIP_DKMS=1 to skip
# the DKMS and package tests (slow; they install packages on the host, and
# tests/host/readme.sh in a chroot),
# SKBPROF_MEM (guest memory, default 1G), SKBPROF_SLOW=1 to also run the
# slow guest tests (SLOWTEST: the 100-cycle load/unload stress).
# SKBPROF_KERNELS=debug is the kernel of make check-debug, race that of
# make check-race.  SKBPROF_SMP=N boots every guest with N vCPUs running
# at once (make check-smp; see tests/lib.sh boot()), SKBPROF_SMP_SECS the
# length of t_smp.c's load.

set -u
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/deps.sh" check arm64 || die "cannot install the test dependencies"
mkdir -p "$OUT"
results=$OUT/check-results.txt
: > "$results"

record() { tee -a "$results"; }

log "== host unit tests"
make -s -C "$TOP/tests/unit" run 2>&1 | record
make -s -C "$TOP/tools" >/dev/null 2>&1 || echo "FAIL tools: build" | record
# tests/host/readme.sh spends minutes in apt and dpkg in its own chroot,
# touching nothing else: it runs beside the guests, detached (so the
# guest loop's wait -n never sees it), and its lines are read at the end.
readme_lines=$OUT/readme.lines
: > "$readme_lines"
rm -f "$readme_lines.pid"
for t in "$TOP"/tests/host/*.sh; do
	[ -e "$t" ] || continue
	case $t in
	*/readme.sh)
		[ -n "${SKBPROF_SKIP_DKMS:-}" ] ||
			(bash "$t" > "$readme_lines" 2>&1 & echo $! > "$readme_lines.pid") ;;
	*)	bash "$t" 2>&1 | record ;;
	esac
done

log "== fuzzing smoke (control grammar)"
make -s -C "$TOP/tests/fuzz" smoke 2>&1 | record

guest_tools || echo "FAIL guest: cannot build the test program" | record
# the arm64 guests' programs, cross-built once for both kernels
case " $KERNELS " in
*" arm64-"*)
	guest_tools arm64 || echo "FAIL guest/arm64: cannot cross-build the test program" | record ;;
esac

if [ -z "${SKBPROF_SKIP_SELFTEST:-}" ]; then
	log "== harness self-test"
	bash "$TOP/tests/selftest.sh" 2>&1 | record
fi

# The kernel of the short SMP boot, and its bound (about 3 minutes taken)
SMP_KERNEL=6.1
SMP_TIMEOUT=1200

# One kernel: build, initramfs, boot.  Its lines go to $OUT/VER/lines.
check_kernel() {
	local ver=$1
	mkdir -p "$OUT/$ver"
	{
		log "== kernel $ver"
		if build_module "$ver"; then
			echo "ok $ver/build: W=1 and sparse clean"
		else
			echo "FAIL $ver/build: see $OUT/$ver/build.log"
			return
		fi
		if ! make_initramfs "$ver"; then
			echo "FAIL $ver/initramfs"
			return
		fi
		SKBPROF_STALL=${SKBPROF_STALL-600} \
			boot "$ver" check "${SKBPROF_TIMEOUT:-3600}"
		# the README's first command, on its kernel: what make demo runs
		[ "$ver" != "$DEMO_KERNEL" ] || [ -n "${SKBPROF_TESTS:-}" ] ||
			boot "$ver" demo "$DEMO_TIMEOUT"
		# on one kernel, the short form of the test of real
		# parallelism (make check-smp runs the long one): its own boot,
		# 4 vCPUs at once, the one test, after the build above
		if [ "$ver" = "$SMP_KERNEL" ] && [ -z "${SKBPROF_SMP:-}" ]; then
			case " ${SKBPROF_TESTS:-smp_load} " in
			*" smp_load "*)
				SKBPROF_SMP=4 SKBPROF_TESTS=smp_load \
				SKBPROF_STALL=${SKBPROF_STALL-600} \
					boot "$ver" check "$SMP_TIMEOUT" ;;
			esac
		fi
	} > "$OUT/$ver/lines" 2> "$OUT/$ver/check.log"
}

# Each guest is one single-threaded QEMU: run SKBPROF_JOBS of them at once
# (default: the number of CPUs, at most 2 on small machines).
jobs=${SKBPROF_JOBS:-$(nproc)}
running=0
for ver in $KERNELS; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	check_kernel "$ver" &
	running=$((running + 1))
done
wait
for ver in $KERNELS; do
	record < "$OUT/$ver/lines"
	# a kernel whose run stopped short (say, its download failed) fails
	grep -q "^\(ok\|FAIL\) $ver/\(check\|build\|initramfs\)" "$OUT/$ver/lines" ||
		echo "FAIL $ver: the run stopped early: $(tail -n 3 "$OUT/$ver/check.log" | tr '\n' '|')" | record
done

if [ -s "$readme_lines.pid" ]; then
	while kill -0 "$(cat "$readme_lines.pid")" 2>/dev/null; do
		sleep 1
	done
	record < "$readme_lines"
	grep -q '^\(ok\|FAIL\) host/readme/by-hand\|^FAIL' "$readme_lines" ||
		echo "FAIL host/readme: stopped early: $(tail -n 3 "$readme_lines" | tr '\n' '|')" | record
	rm -f "$readme_lines.pid"
fi

passed=$(grep -c '^ok ' "$results")
failed=$(grep -c '^FAIL ' "$results")
grep '^FAIL ' "$results" >&2
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
