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
guest_tools || die "cannot build the guest programs"
build_module "$ver" || die "build failed, see $OUT/$ver/build.log"
make_initramfs "$ver" || die "cannot make the initramfs"
# the demo mode runs /usr/share/skbprof/demo.sh: run the capture instead
root=$OUT/$ver/initramfs
cp "$TOP/tests/qemu/doc-capture.sh" "$root/usr/share/skbprof/demo.sh"
(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT/$ver/initramfs.cpio.gz"
boot "$ver" demo 900 >&2 || die "capture run failed: $OUT/$ver/demo/"
log "output: $OUT/$ver/demo/result.txt"
