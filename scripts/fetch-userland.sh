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
#
# DIR/var/lib/dpkg is a dpkg database of the unpacked packages (status,
# each package's file list, shlibs and symbols files) for dpkg-shlibdeps
# --admindir (scripts/build-deb.sh: the Depends of a cross-built
# skbprof-tools, from the libraries' own symbols files).  Its file lists
# name the files where they are on this host, DIR's physical path
# (recorded in var/lib/dpkg/root): dpkg-shlibdeps looks up the libraries
# it finds under DIR by those paths.  A tree fetched before the database
# existed, or moved since, gets (only) the database again.

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

# proot: where DIR is, without symbolic links (.cache/userland may be one,
# shared by worktrees): the database's file lists name it
mkdir -p "$cache/userland"
proot=$(cd "$cache/userland" && pwd -P)/$arch
have_db() {
	[ "$(cat "$root/var/lib/dpkg/root" 2>/dev/null)" = "$proot" ]
}
if [ -e "$root/.complete" ] && have_db; then
	echo "$root"
	exit 0
fi

# make_db DEBS DIR: the dpkg database of the packages in DEBS, installed
# at $proot, into DIR (replaced)
make_db() {
	local debs=$1 db=$2 deb pkg a name ctl
	rm -rf "$db"
	mkdir -p "$db/info" "$db/updates"
	: > "$db/status"
	echo "$arch" > "$db/arch"
	# format 1: files of Multi-Arch: same packages are named PKG:ARCH.*
	echo 1 > "$db/info/format"
	ctl=$(mktemp -d)
	for deb in "$debs"/*.deb; do
		pkg=$(dpkg-deb -f "$deb" Package)
		a=$(dpkg-deb -f "$deb" Architecture)
		# Multi-Arch: same packages' files are named PKG:ARCH.*
		name=$pkg
		[ "$(dpkg-deb -f "$deb" Multi-Arch)" != same ] || name=$pkg:$a
		{
			dpkg-deb -f "$deb" | sed '/^Package: /a Status: install ok installed'
			echo
		} >> "$db/status"
		dpkg-deb --fsys-tarfile "$deb" | tar -t |
			sed -e 's#/$##' -e 's#^\.##' -e "s#^#$proot#" > "$db/info/$name.list"
		rm -rf "${ctl:?}"/*
		dpkg-deb -e "$deb" "$ctl"
		for f in shlibs symbols; do
			[ ! -e "$ctl/$f" ] || cp "$ctl/$f" "$db/info/$name.$f"
		done
	done
	rm -rf "$ctl"
	echo "$proot" > "$db/root"
}

# shellcheck source=scripts/private-apt.sh
. "$top/scripts/private-apt.sh"
private_apt bookworm "$arch"
debs=$cache/userland/$arch.debs
rm -rf "$debs" "$root.new"
mkdir -p "$debs/partial"
echo "fetch-userland: fetching bookworm's $arch userland" >&2
# an empty dpkg status (private_apt): every dependency is downloaded
apt-get "${apt_opts[@]}" -o "Dir::Cache::archives=$debs" -q -y \
	--no-install-recommends install --download-only "${build[@]}" "${guest[@]}" >&2
if [ -e "$root/.complete" ]; then
	# the tree is there (and may be in use): its database only
	make_db "$debs" "$root/var/lib/dpkg.new"
	rm -rf "$root/var/lib/dpkg"
	mv "$root/var/lib/dpkg.new" "$root/var/lib/dpkg"
	rm -rf "$debs"
	echo "$root"
	exit 0
fi
mkdir -p "$root.new"
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

make_db "$debs" "$root.new/var/lib/dpkg"
touch "$root.new/.complete"
rm -rf "$root" "$debs"
mv "$root.new" "$root"
echo "$root"
