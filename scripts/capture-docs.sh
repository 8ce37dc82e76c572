#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Capture the real output quoted in Documentation/skbprof.rst that the
# reader tool's fixtures do not hold: boot a guest of one kernel (default
# 6.12), run tests/qemu/doc-capture.sh in it and print where its output is.
# Nothing in the tree is changed.
#
#   scripts/capture-docs.sh [VER]

set -u
. "$(dirname "$0")/../tests/lib.sh"

ver=${1:-6.12}
"$TOP/scripts/deps.sh" demo || die "cannot install the dependencies"
run_script "$ver" "$TOP/tests/qemu/doc-capture.sh" 900 >&2 ||
	die "capture run failed: $OUT/$ver/demo/"
log "output: $OUT/$ver/demo/result.txt"
