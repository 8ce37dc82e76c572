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
guest_tools || die "cannot build the guest programs"
vers=("$@")
[ ${#vers[@]} -gt 0 ] || vers=(5.10 6.1 6.12)
for ver in "${vers[@]}"; do
	build_module "$ver" || die "build failed, see $OUT/$ver/build.log"
	make_initramfs "$ver" || die "cannot make the initramfs"
	# the demo mode runs /usr/share/skbprof/demo.sh: run the capture instead
	root=$OUT/$ver/initramfs
	cp "$TOP/tests/qemu/capture.sh" "$root/usr/share/skbprof/demo.sh"
	(cd "$root" && find . | cpio -o -H newc --quiet | gzip -1) > "$OUT/$ver/initramfs.cpio.gz"
	boot "$ver" demo 600 >&2 || die "capture run failed: $OUT/$ver/demo/"
	dst=$TOP/tests/host/fixtures/$ver
	rm -rf "$dst/t0" "$dst/t1"
	awk -v dst="$dst" '
		/^=== BEGIN / { f = dst "/" $3; d = f; sub(/\/[^\/]*$/, "", d);
				system("mkdir -p " d); printf "" > f; next }
		/^=== END$/ { close(f); f = ""; next }
		f != "" { print > f }
	' "$OUT/$ver/demo/result.txt"
	log "fixtures of $ver in $dst"
done
