#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch a Debian userland of another architecture into the project's cache
# and print its directory: what the guests of that architecture run
# (busybox, ip, tc, nft, promtool, bpftrace, perf and their libraries)
# and what the test
# programs and the tool are built against (a sysroot for the cross
# compiler: libc6-dev, libkmod-dev, libjson-c-dev).
#
#   scripts/fetch-userland.sh arm64
#
# The packages are bookworm's, resolved with their dependencies by apt
# (scripts/private-apt.sh: no state shared with the machine's apt) and
# unpacked, not installed: nothing of theirs runs on the host.  Absolute
# symbolic links (libfoo.so -> /lib/...) are made relative, so that they
# resolve inside the tree.  Made once; remove the directory to refetch.

set -euo pipefail

arch=${1:?usage: fetch-userland.sh arm64}
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${SKBPROF_CACHE:-$top/.cache}
root=$cache/userland/$arch

case $arch in
arm64)	;;
*)	echo "fetch-userland: unsupported architecture '$arch' (want arm64)" >&2; exit 1 ;;
esac

# build: the sysroot of tests/guest, tools and bench; guest: what
# make_initramfs copies (tests/lib.sh), and make bench's bpftrace and perf
# (bench/run.sh); promtool comes from prometheus, one file of it
build=(libc6-dev libkmod-dev libjson-c-dev)
guest=(busybox-static iproute2 nftables bpftrace linux-perf)

if [ -e "$root/.complete" ]; then
	echo "$root"
	exit 0
fi

# shellcheck source=scripts/private-apt.sh
. "$top/scripts/private-apt.sh"
private_apt bookworm "$arch"
debs=$cache/userland/$arch.debs
rm -rf "$debs" "$root.new"
mkdir -p "$debs/partial" "$root.new"
echo "fetch-userland: fetching bookworm's $arch userland" >&2
# an empty dpkg status (private_apt): every dependency is downloaded
apt-get "${apt_opts[@]}" -o "Dir::Cache::archives=$debs" -q -y \
	--no-install-recommends install --download-only "${build[@]}" "${guest[@]}" >&2
for deb in "$debs"/*.deb; do
	dpkg-deb -x "$deb" "$root.new"
done
(cd "$debs" && apt-get "${apt_opts[@]}" -q download prometheus >&2)
dpkg-deb --fsys-tarfile "$debs"/prometheus_*.deb | tar -x -C "$root.new" ./usr/bin/promtool

# libfoo.so -> /lib/aarch64-linux-gnu/libfoo.so.1: relative to the tree
find "$root.new" -type l -lname '/*' | while read -r link; do
	target=$(readlink "$link")
	ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$root.new$target")" "$link"
done

touch "$root.new/.complete"
rm -rf "$root" "$debs"
mv "$root.new" "$root"
echo "$root"
