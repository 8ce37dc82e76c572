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
# skbprof-tools is built for the architectures DEB_ARCHES names
# (Debian's names, e.g. DEB_ARCHES="amd64 arm64"), by default the host's
# alone; skbprof-dkms (Architecture: all) once, in the native build, which
# also builds the host's skbprof-tools when DEB_ARCHES names the host.
# Every other architecture is cross-built (dpkg-buildpackage -aARCH -B:
# the architecture-dependent package only) with bookworm's cross compiler
# (arm64: aarch64-linux-gnu-gcc, scripts/deps.sh arm64) and, instead of
# that architecture's packages installed on the host (dpkg
# --add-architecture), the sysroot of scripts/fetch-userland.sh ARCH;
# debian/rules says how.
#
# The version is debian/changelog's, committed; tests/host/docs.sh checks
# that it is VERSION's.  dpkg-buildpackage takes SOURCE_DATE_EPOCH from
# its date (reproducible builds).
# OUTDIR receives the .deb files, .buildinfo and .changes; the build logs
# are OUTDIR/build.log and OUTDIR/build-ARCH.log for each cross build.
# Prints the paths of the .deb files.

set -euo pipefail

out=${1:?usage: build-deb.sh OUTDIR}
top=$(cd "$(dirname "$0")/.." && pwd)
ver=$(cat "$top/VERSION")
# the architectures skbprof-tools is built for: the host's natively,
# the others cross-built
host=$(dpkg --print-architecture)
native=-A	# skbprof-dkms only, unless DEB_ARCHES names the host
cross=()
for a in ${DEB_ARCHES:-$host}; do
	if [ "$a" = "$host" ]; then
		native=-b
	elif ! dpkg-architecture -a"$a" -qDEB_HOST_GNU_TYPE >/dev/null 2>&1; then
		echo "build-deb: DEB_ARCHES: '$a' is not a Debian architecture" >&2
		exit 2
	else
		cross+=("$a")
	fi
done
for p in dpkg-buildpackage dh dh_dkms; do
	command -v "$p" >/dev/null || {
		echo "build-deb: $p is missing: run scripts/deps.sh deb" >&2; exit 1; }
done
for a in "${cross[@]}"; do
	gnu=$(dpkg-architecture -a"$a" -qDEB_HOST_GNU_TYPE 2>/dev/null)
	command -v "$gnu-gcc" >/dev/null || {
		echo "build-deb: $gnu-gcc is missing (DEB_ARCHES names $a): apt-get install gcc-$gnu (arm64: scripts/deps.sh arm64)" >&2
		exit 1; }
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

if ! (cd "$src" && dpkg-buildpackage "$native" -us -uc) > "$out/build.log" 2>&1; then
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
