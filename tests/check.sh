#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: everything.
#   1. host unit tests, host tests of the tool, style checks, a short
#      fuzzing run of the control grammar
#   2. the harness self-test (proves each failure path of a guest run is
#      caught; its deliberately failing runs are not counted, the proof is)
#   3. per kernel (5.10, 6.1, 6.12): W=1 build, then the in-guest suite
# Ends with one line "N passed, N failed"; exits non-zero on any failure.
#
# Environment: SKBPROF_KERNELS="6.1" to limit kernels, SKBPROF_TESTS="a b"
# to run only some guest tests, SKBPROF_SKIP_SELFTEST=1 to skip step 2,
# SKBPROF_TIMEOUT (seconds per guest boot, default 900).

set -u
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/deps.sh" check || die "cannot install the test dependencies"
mkdir -p "$OUT"
results=$OUT/check-results.txt
: > "$results"

record() { tee -a "$results"; }

log "== host unit tests"
make -s -C "$TOP/tests/unit" run 2>&1 | record
make -s -C "$TOP/tools" >/dev/null 2>&1 || echo "FAIL tools: build" | record
for t in "$TOP"/tests/host/*.sh; do
	[ -e "$t" ] || continue
	bash "$t" 2>&1 | record
done

log "== fuzzing smoke (control grammar)"
make -s -C "$TOP/tests/fuzz" smoke 2>&1 | record

guest_tools || echo "FAIL guest: cannot build the test program" | record

if [ -z "${SKBPROF_SKIP_SELFTEST:-}" ]; then
	log "== harness self-test"
	bash "$TOP/tests/selftest.sh" 2>&1 | record
fi

for ver in $KERNELS; do
	log "== kernel $ver"
	if build_module "$ver"; then
		echo "ok $ver/build: W=1 and sparse clean" | record
	else
		echo "FAIL $ver/build: see $OUT/$ver/build.log" | record
		continue
	fi
	make_initramfs "$ver" || { echo "FAIL $ver/initramfs" | record; continue; }
	boot "$ver" check "${SKBPROF_TIMEOUT:-900}" | record
done

passed=$(grep -c '^ok ' "$results")
failed=$(grep -c '^FAIL ' "$results")
grep '^FAIL ' "$results" >&2
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
