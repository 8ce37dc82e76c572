#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch a Debian cloud kernel (image, headers, kbuild) into the project's
# cache and print the path of a shell fragment describing it.
#
#   scripts/fetch-kernel.sh 5.10|6.1|6.12|7.2|arm64-6.1|arm64-7.2|6.1-rt|debug
#
# 6.1-rt is Debian's 6.1 PREEMPT_RT flavour (rt-amd64), for builds only:
# its headers, no image or modules (the module refuses to build there, and
# tests/host/rt.sh checks that it does).
#
# arm64-VER is the arm64 cloud kernel of the same Debian suite, for a
# cross build from this amd64 host with Debian's aarch64-linux-gnu-gcc.
# The arm64 headers' kbuild helpers (fixdep, modpost, ...) come from the
# amd64 linux-kbuild package of the same series, which the host runs:
# on the host, the amd64 one is extracted in place of the arm64 one; in
# sid's chroot, apt picks it itself (linux-kbuild is Multi-Arch: foreign
# there, and the headers' gcc-N-for-host:arm64 is the cross compiler).
#
# Packages come from a private apt configuration (scripts/private-apt.sh),
# so nothing here depends on what a developer installed by hand and no
# mirror host is named in the tree.
# Downloads are reused on later runs; a newer Debian upload is picked up
# the next time the package lists are older than a day.
#
# Two ways to get a kernel's headers, one per kernel:
#   - extracted on the host next to the image (5.10, 6.1, 6.12): their
#     kbuild helpers run on the host's libc and the host has their gcc
#     (or a compatible one);
#   - installed by apt in a build chroot of the kernel's own Debian suite
#     (7.2, from sid: its headers want gcc-16 and its kbuild helpers sid's
#     libc, neither of which bookworm has).  scripts/make-chroot.sh makes
#     the chroot; KDIR is then a path inside it and lib.sh runs the build
#     there (scripts/in-chroot.sh).
# The image and its modules are always extracted on the host.
#
# The resulting $CACHE/kernels/<ver>/kernel.env sets:
#   KREL     the kernel release (uname -r in the guest)
#   KDIR     the headers tree to build modules against
#   VMLINUZ  the kernel image (not for 6.1-rt)
#   MODROOT  directory holding lib/modules/$KREL (not for 6.1-rt)
#   KCC      the C compiler to build with
#   KCHROOT  (only for chroot-built kernels) the build chroot; KDIR and
#            KCC are paths and names inside it
#   KARCH, KCROSS_COMPILE
#            (only for arm64-VER) make's ARCH and CROSS_COMPILE: arm64 and
#            aarch64-linux-gnu-

set -euo pipefail

ver=${1:?usage: fetch-kernel.sh 5.10|6.1|6.12|7.2|arm64-6.1|arm64-7.2|6.1-rt|debug|race}
top=$(cd "$(dirname "$0")/.." && pwd)

# "debug": Debian's 6.1 source built with KASAN, lockdep, kmemleak...
# (make check-debug); "race": the same with KCSAN (make check-race);
# built once, then reused.
case $ver in
debug|race) exec "$top/scripts/build-debug-kernel.sh" "$ver" ;;
esac
cache=${SKBPROF_CACHE:-$top/.cache}

# arch: the kernel's Debian architecture; series: VER without "arm64-"
arch=amd64
series=$ver
case $ver in
arm64-*) arch=arm64; series=${ver#arm64-} ;;
esac
# cross: the arm64 toolchain's prefix; empty for amd64 (the host's)
cross=
[ "$arch" = amd64 ] || cross=aarch64-linux-gnu-
# chroot: the Debian suite of the build chroot, empty to build on the host
chroot=
# headers_only: no image, no modules; a kernel to build against, not boot
headers_only=
case $arch:$series in
amd64:5.10)	dist=bullseye; image_meta=linux-image-cloud-amd64 ;;
*:6.1)		dist=bookworm; image_meta=linux-image-cloud-$arch ;;
amd64:6.1-rt)	dist=bookworm; image_meta=linux-image-rt-amd64; series=6.1
		headers_only=y ;;
amd64:6.12)	dist=bookworm; image_meta=linux-image-6.12-cloud-amd64 ;;
# sid has no per-series metapackage: its cloud kernel must still be 7.2
# (checked below).
*:7.2)		dist=sid; image_meta=linux-image-cloud-$arch; chroot=sid ;;
*)	echo "fetch-kernel: unsupported kernel '$ver' (want 5.10, 6.1, 6.12, 7.2, arm64-6.1, arm64-7.2 or 6.1-rt)" >&2
	exit 1 ;;
esac

# Physical paths in kernel.env: .cache/kernels and .cache/chroot may be
# symlinks shared by several worktrees, and the paths must outlive the
# worktree that happened to fetch the kernel.
out=$cache/kernels/$ver
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
# shellcheck source=private-apt.sh
. "$top/scripts/private-apt.sh"
private_apt "$dist" "${cross:+$arch}"

# The kernel packages PKG depends on.  sid's linux-image-<krel> holds
# nothing itself: the image is in linux-binary-<krel>, the modules in
# linux-modules-<krel>, the config and modules.builtin in linux-base-<krel>
# (bookworm's images depend on none of these).  For a cross build the
# kbuild helpers are the host's: linux-kbuild-X becomes linux-kbuild-X:amd64.
depends() {
	apt-cache "${apt_opts[@]}" show --no-all-versions "$1" |
	sed -n 's/^Depends: //p' | tr ',' '\n' |
	sed 's/^ *//; s/[ (|].*//' |
	grep -E '^linux-(image|binary|modules|base|headers|kbuild)-' |
	sed "${cross:+s/^linux-kbuild-.*/&:amd64/}" || true
}

version() {
	apt-cache "${apt_opts[@]}" show --no-all-versions "$1" | sed -n 's/^Version: //p' | head -n1
}

# The metapackage names the versioned image; headers share its suffix.
image=$(depends "$image_meta" | grep '^linux-image-' | head -n1)
[ -n "$image" ] || { echo "fetch-kernel: cannot resolve $image_meta" >&2; exit 1; }
krel=${image#linux-image-}
case $krel in
"$series".*|"$series"-*) ;;
*)	echo "fetch-kernel: $dist's $image_meta is now $krel, not $series" >&2
	exit 1 ;;
esac
headers=linux-headers-$krel
# what apt installs in a chroot: the arm64 package by its architecture
hpkg=$headers${cross:+:$arch}

# What is extracted on the host: the image with what it depends on, and
# the headers with theirs unless they go into a chroot.
pkgs=()
[ -n "$headers_only" ] || pkgs+=("$image")
[ -n "$chroot" ] || pkgs+=("$headers")
todo=("${pkgs[@]}")
while [ ${#todo[@]} -gt 0 ]; do
	p=${todo[0]}; todo=("${todo[@]:1}")
	for d in $(depends "$p"); do
		case " ${pkgs[*]} " in *" $d "*) continue ;; esac
		pkgs+=("$d"); todo+=("$d")
	done
done

# Versions identify the extracted tree: re-extract when Debian uploads anew.
ident=""
for p in "${pkgs[@]}"; do
	ident+="$p=$(version "$p") "
done
# headers in a chroot: a new upload means installing them there again
kroot=
if [ -n "$chroot" ]; then
	ident+="chroot:$chroot:$hpkg=$(version "$headers") "
	kroot=$(realpath -m "$cache/chroot/$chroot")
fi

if [ ! -e "$out/kernel.env" ] || [ "$(cat "$out/ident" 2>/dev/null)" != "$ident" ] ||
	{ [ -n "$kroot" ] && [ ! -e "$kroot/usr/src/$headers/.config" ]; }; then
	echo "fetch-kernel: fetching ${pkgs[*]}" >&2
	if [ -n "$cross" ] && [ -z "$chroot" ]; then
		# the host's helpers must be at least the headers' own upload
		hv=$(version "$headers")
		for p in "${pkgs[@]}"; do
			case $p in linux-kbuild-*:amd64) ;; *) continue ;; esac
			kv=$(version "$p")
			dpkg --compare-versions "$kv" ge "$hv" || {
				echo "fetch-kernel: $p is $kv, $headers wants $hv" >&2; exit 1; }
		done
	fi
	(cd "$aptdir/archives" && apt-get "${apt_opts[@]}" -q download "${pkgs[@]}" >&2)
	rm -rf "$out/root"
	mkdir -p "$out/root"
	for p in "${pkgs[@]}"; do
		# PKG:amd64 is PKG_<version>_amd64.deb, the others $arch's or all
		a=$arch
		case $p in *:*) a=${p#*:} ;; esac
		deb=$(ls -t "$aptdir/archives/${p%%:*}_"*"_$a.deb" \
			"$aptdir/archives/${p%%:*}_"*_all.deb 2>/dev/null | head -n1 || true)
		[ -n "$deb" ] || { echo "fetch-kernel: no $p in $aptdir/archives" >&2; exit 1; }
		dpkg -x "$deb" "$out/root"
	done

	# bookworm's packages install under /boot and /lib/modules, sid's
	# (merged /usr) under /usr/lib/modules only
	vmlinuz=$out/root/boot/vmlinuz-$krel
	[ -e "$vmlinuz" ] || vmlinuz=$out/root/usr/lib/modules/$krel/vmlinuz
	modroot=$out/root
	[ -d "$modroot/lib/modules/$krel" ] || modroot=$out/root/usr
	[ -n "$headers_only" ] ||
		{ [ -e "$vmlinuz" ] && [ -d "$modroot/lib/modules/$krel/kernel" ]; } ||
		{ echo "fetch-kernel: no image or modules in ${pkgs[*]}" >&2; exit 1; }

	if [ -n "$chroot" ]; then
		# apt in the chroot resolves the headers' dependencies (-common,
		# kbuild, the compiler they were built with, pahole)
		"$top/scripts/make-chroot.sh" "$chroot" "$hpkg" >/dev/null
		kdir=/usr/src/$headers
		[ -e "$kroot$kdir/.config" ] ||
			{ echo "fetch-kernel: no $kdir/.config in $kroot" >&2; exit 1; }
		# Debian's linux-kbuild-7.2 lacks scripts/checker-valid.sh,
		# which the Makefile (in the -common tree the flavour's
		# includes) runs for C=2: without it, kbuild drops sparse with
		# a note that is no "warning:".  Supply a stand-in.
		common=$(sed -n 's|^include \(/usr/src/[^ ]*\)/Makefile$|\1|p' "$kroot$kdir/Makefile")
		srctree=$kroot${common:-$kdir}
		if grep -q 'scripts/checker-valid\.sh' "$srctree/Makefile" &&
			[ ! -e "$srctree/scripts/checker-valid.sh" ]; then
			install -m 755 "$top/scripts/kbuild-checker-valid.sh" \
				"$srctree/scripts/checker-valid.sh"
		fi
	else
		# The per-flavour headers Makefile includes the -common tree by its
		# absolute installed path: point it (and the build symlinks) into
		# the extracted root instead.
		kdir=$out/root/usr/src/linux-headers-$krel
		[ -d "$kdir" ] || { echo "fetch-kernel: no headers in $headers" >&2; exit 1; }
		sed -i "s|\(include\|MAKEARGS :=.*-C\) */usr/src/|\1 $out/root/usr/src/|; s| /usr/src/| $out/root/usr/src/|g" "$kdir/Makefile"
		for l in "$kdir"/*; do
			[ -L "$l" ] || continue
			t=$(readlink "$l")
			case $t in
			/usr/src/*|/usr/lib/*) ln -sfn "$out/root$t" "$l" ;;
			esac
		done
	fi

	if [ -n "$chroot" ]; then
		# Compiler: exactly the one the kernel was built with, as
		# CONFIG_CC_VERSION_TEXT names it (x86_64-linux-gnu-gcc-16),
		# installed in the chroot by its package gcc-N; for arm64 the
		# cross compiler of that version, gcc-N-aarch64-linux-gnu (and
		# gcc-aarch64-linux-gnu, the suite's default one).
		kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ "]*gcc-[0-9][0-9]*\)[ "].*/\1/p' "$kroot$kdir/.config")
		[ -n "$kcc" ] || { echo "fetch-kernel: no gcc-N in $kdir/.config's CONFIG_CC_VERSION_TEXT" >&2; exit 1; }
		if [ -n "$cross" ]; then
			kcc=${cross}gcc-${kcc##*gcc-}
			"$top/scripts/make-chroot.sh" "$chroot" "gcc-${kcc##*gcc-}-${cross%-}" \
				"gcc-${cross%-}" >/dev/null
		else
			"$top/scripts/make-chroot.sh" "$chroot" "gcc-${kcc##*gcc-}" >/dev/null
		fi
		"$top/scripts/in-chroot.sh" "$kroot" "" sh -c 'command -v "$1"' sh "$kcc" >/dev/null ||
			{ echo "fetch-kernel: no $kcc in $kroot" >&2; exit 1; }
	else
		# Compiler: the one the kernel was built with when present,
		# else gcc (for arm64: aarch64-linux-gnu-gcc-N, else
		# aarch64-linux-gnu-gcc, from gcc-aarch64-linux-gnu).
		kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(gcc[^ ]*\).*/\1/p' "$kdir/.config" | head -n1)
		case $kcc in
		gcc-*)	command -v "$cross$kcc" >/dev/null && kcc=$cross$kcc || kcc=${cross}gcc ;;
		*)	kcc=${cross}gcc ;;
		esac
		command -v "$kcc" >/dev/null ||
			{ echo "fetch-kernel: no $kcc on this host (scripts/deps.sh${cross:+ arm64})" >&2; exit 1; }
	fi

	{
		echo "KREL=$krel"
		echo "KDIR=$kdir"
		[ -n "$headers_only" ] || echo "VMLINUZ=$vmlinuz"
		[ -n "$headers_only" ] || echo "MODROOT=$modroot"
		echo "KCC=$kcc"
		[ -z "$chroot" ] || echo "KCHROOT=$kroot"
		[ -z "$cross" ] || echo "KARCH=$arch"
		[ -z "$cross" ] || echo "KCROSS_COMPILE=$cross"
	} > "$out/kernel.env"
	echo "$ident" > "$out/ident"
fi
echo "$out/kernel.env"
