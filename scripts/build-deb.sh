#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Debian packages skbprof-dkms and skbprof-tools with
# dpkg-buildpackage (debhelper + dh-dkms), in a copy of the tree: the
# build writes its results into the parent directory of the tree it runs
# in, and it must not touch the working tree.
#
#   scripts/build-deb.sh OUTDIR
#
# skbprof-tools is built for the host's architecture and, cross-built,
# for arm64 (dpkg-buildpackage -aarm64 -B: the architecture-dependent
# package only; skbprof-dkms is Architecture: all, built once).  The cross
# build uses bookworm's aarch64-linux-gnu-gcc and, instead of arm64
# packages installed on the host (dpkg --add-architecture), the arm64
# sysroot of scripts/fetch-userland.sh; debian/rules says how.
#
# The version is debian/changelog's, committed; tests/host/docs.sh checks
# that it is VERSION's.  dpkg-buildpackage takes SOURCE_DATE_EPOCH from
# its date (reproducible builds).
# OUTDIR receives the .deb files, .buildinfo and .changes; the build logs
# are OUTDIR/build.log and OUTDIR/build-arm64.log.  Prints the paths of
# the .deb files.

set -euo pipefail

out=${1:?usage: build-deb.sh OUTDIR}
top=$(cd "$(dirname "$0")/.." && pwd)
ver=$(cat "$top/VERSION")
# the architectures skbprof-tools is cross-built for: arm64, unless it is
# the host's own
host=$(dpkg --print-architecture)
cross=()
[ "$host" = arm64 ] || cross+=(arm64)
for p in dpkg-buildpackage dh dh_dkms ${cross:+aarch64-linux-gnu-gcc}; do
	command -v "$p" >/dev/null || {
		echo "build-deb: $p is missing: run scripts/deps.sh deb" >&2; exit 1; }
done

mkdir -p "$out"
out=$(cd "$out" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$tmp/skbprof-$ver
mkdir "$src"
# the tree as it is (uncommitted edits included), without what git ignores
# or git's own files.  tar's --exclude-vcs-ignores does not understand
# anchored patterns such as /.cache/, so the caches (kernels, chroots that
# another test may be writing) are named here.
tar -C "$top" --exclude-vcs --exclude-vcs-ignores \
	--exclude=./build --exclude=./.cache --exclude=./out -cf - . |
	tar -C "$src" -xf -

if ! (cd "$src" && dpkg-buildpackage -b -us -uc) > "$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" >&2
	echo "build-deb: dpkg-buildpackage failed, see $out/build.log" >&2
	exit 1
fi
for a in "${cross[@]}"; do
	# the sysroot by its physical path: its dpkg database names it so
	if ! sysroot=$("$top/scripts/fetch-userland.sh" "$a" 2>"$out/build-$a.log") ||
	   ! sysroot=$(cd "$sysroot" && pwd -P); then
		tail -n 30 "$out/build-$a.log" >&2
		echo "build-deb: cannot fetch the $a sysroot, see $out/build-$a.log" >&2
		exit 1
	fi
	# -d: the Build-Depends of $a (libjson-c-dev:$a) are in the sysroot,
	# not installed.  CC: the cross compiler, for dpkg-architecture's
	# check too (debian/rules adds --sysroot); nocheck: nothing to run
	# (the tests need kernels), and dh says so at length otherwise.
	gnu=$(dpkg-architecture -a"$a" -qDEB_HOST_GNU_TYPE 2>/dev/null)
	if ! (cd "$src" && SKBPROF_SYSROOT=$sysroot CC=$gnu-gcc \
		DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:+$DEB_BUILD_OPTIONS }nocheck" \
		dpkg-buildpackage -a"$a" -B -d -us -uc) >> "$out/build-$a.log" 2>&1; then
		tail -n 30 "$out/build-$a.log" >&2
		echo "build-deb: dpkg-buildpackage -a$a failed, see $out/build-$a.log" >&2
		exit 1
	fi
done
rm -f "$out"/skbprof-*.deb "$out"/skbprof-*.ddeb "$out"/skbprof_*
for f in "$tmp"/*.deb "$tmp"/*.ddeb "$tmp"/*.buildinfo "$tmp"/*.changes; do
	[ -e "$f" ] && mv "$f" "$out/"
done
ls "$out"/skbprof-*.deb
