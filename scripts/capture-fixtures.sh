#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Capture the reader tool's host-test fixtures from a real run: boot a
# guest of each kernel (default 5.10 6.1 6.12), run tests/qemu/capture.sh
# in it and split its output into tests/host/fixtures/<kernel>/{t0,t1}/.
#
#   scripts/capture-fixtures.sh [VER...]

set -u
. "$(dirname "$0")/../tests/lib.sh"

"$TOP/scripts/deps.sh" demo || die "cannot install the dependencies"
vers=("$@")
[ ${#vers[@]} -gt 0 ] || vers=(5.10 6.1 6.12)
for ver in "${vers[@]}"; do
	run_script "$ver" "$TOP/tests/qemu/capture.sh" 600 >&2 ||
		die "capture run failed: $OUT/$ver/demo/"
	dst=$TOP/tests/host/fixtures/$ver
	rm -rf "$dst/t0" "$dst/t1"
	split_sections "$OUT/$ver/demo/result.txt" "$dst"
	log "fixtures of $ver in $dst"
done
