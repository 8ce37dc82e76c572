#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The harness self-test: boot guests that fail on purpose, one way each,
# and check that the harness reports each failure for the right reason.
# Prints "ok selftest/<case>" when the failure was caught, "FAIL ..." when
# the harness let it through.  The deliberately failing runs' own lines
# are not counted.
#
#   fail      a test reports failure           -> the FAIL line is seen
#   kmsg      a "BUG:" line in the kernel log,
#             everything else clean            -> the log scan catches it
#   warn      a module WARNs (panic_on_warn)   -> log scan + no marker
#   nomarker  tests pass, no completion marker -> the missing marker
#   hang      the guest never finishes         -> the timeout
#   stall     the same, run with SKBPROF_STALL -> no test finished for N s,
#             and the guest dumped its tasks

set -u
. "$(dirname "$0")/lib.sh"

ver=${SKBPROF_SELFTEST_KERNEL:-6.1}
build_module "$ver" >/dev/null 2>&1 || { echo "FAIL selftest: build for $ver"; exit 1; }
guest_tools
make_initramfs "$ver"

# expect CASE TIMEOUT PATTERN...: the run fails and prints every PATTERN.
# The guest runs selftest-$SELFTEST_MODE when set, else selftest-CASE.
expect() {
	local case=$1 timeout=$2 out rc p
	shift 2
	out=$(boot "$ver" "selftest-${SELFTEST_MODE:-$case}" "$timeout")
	rc=$?
	if [ $rc -eq 0 ]; then
		echo "FAIL selftest/$case: the harness passed a failing run"
		return
	fi
	for p in "$@"; do
		if ! grep -E -q -- "$p" <<< "$out"; then
			echo "FAIL selftest/$case: expected '$p' in: $(tr '\n' '|' <<< "$out")"
			return
		fi
	done
	echo "ok selftest/$case: caught"
}

expect fail 120 "^FAIL $ver/selftest_must_fail: .*deliberate failure" "^ok $ver/load_creates_debugfs"
expect kmsg 120 "^FAIL $ver/selftest-kmsg: kernel log: .*BUG: skbprof harness self-test"
expect warn 120 "^FAIL $ver/selftest-warn: kernel log: .*WARNING:" "^FAIL $ver/selftest-warn: no completion marker"
expect nomarker 120 "^FAIL $ver/selftest-nomarker: no completion marker"
expect hang 25 "^FAIL $ver/selftest-hang: timeout after 25s"
# a hang caught by the stall watchdog long before the boot's timeout
SKBPROF_STALL=20 SELFTEST_MODE=hang expect stall 600 \
	"^FAIL $ver/selftest-hang: no test finished and no line logged for 20s; the guest's tasks and CPUs are dumped"
