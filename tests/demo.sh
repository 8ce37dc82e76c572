#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build skbprof for Debian's 6.1 cloud kernel, boot it in QEMU,
# load the module, make TCP and UDP traffic and a few drops, and print what
# the files under /sys/kernel/debug/skbprof/ and the reader tool show.
# SKBPROF_DEMO_KERNEL picks another kernel (5.10, 6.12, 7.2).

set -u
. "$(dirname "$0")/lib.sh"

ver=$DEMO_KERNEL
"$TOP/scripts/deps.sh" demo || die "cannot install the demo's dependencies"
log "== building skbprof for Debian's $ver kernel"
build_module "$ver" || die "build failed, see $OUT/$ver/build.log"
guest_tools || die "cannot build the guest programs"
make_initramfs "$ver" || die "cannot make the initramfs"
log "== booting $KREL under QEMU (TCG), this takes a few seconds"
status=$(boot "$ver" demo "$DEMO_TIMEOUT")
rc=$?
grep -v "^$MARKER\$" "$OUT/$ver/demo/result.txt"
echo
echo "$status"
[ $rc -eq 0 ] || log "demo failed; guest console: $OUT/$ver/demo/console.log"
exit $rc
