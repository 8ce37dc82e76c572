#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch a Debian cloud kernel (image, headers, kbuild) into the project's
# cache and print the path of a shell fragment describing it.
#
#   scripts/fetch-kernel.sh 5.10|6.1|6.12|7.2|debug
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
#   VMLINUZ  the kernel image
#   MODROOT  directory holding lib/modules/$KREL
#   KCC      the C compiler to build with
#   KCHROOT  (only for chroot-built kernels) the build chroot; KDIR and
#            KCC are paths and names inside it

set -euo pipefail

ver=${1:?usage: fetch-kernel.sh 5.10|6.1|6.12|7.2|debug}
top=$(cd "$(dirname "$0")/.." && pwd)

# "debug": Debian's 6.1 source built with KASAN, lockdep, kmemleak...
# (make check-debug); built once, then reused.
[ "$ver" = debug ] && exec "$top/scripts/build-debug-kernel.sh"
cache=${SKBPROF_CACHE:-$top/.cache}

# chroot: the Debian suite of the build chroot, empty to build on the host
chroot=
case $ver in
5.10)	dist=bullseye; image_meta=linux-image-cloud-amd64 ;;
6.1)	dist=bookworm; image_meta=linux-image-cloud-amd64 ;;
6.12)	dist=bookworm; image_meta=linux-image-6.12-cloud-amd64 ;;
# sid has no per-series metapackage: its cloud kernel must still be 7.2
# (checked below).
7.2)	dist=sid; image_meta=linux-image-cloud-amd64; chroot=sid ;;
*)	echo "fetch-kernel: unsupported kernel '$ver' (want 5.10, 6.1, 6.12 or 7.2)" >&2
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
private_apt "$dist"

# The kernel packages PKG depends on.  sid's linux-image-<krel> holds
# nothing itself: the image is in linux-binary-<krel>, the modules in
# linux-modules-<krel>, the config and modules.builtin in linux-base-<krel>
# (bookworm's images depend on none of these).
depends() {
	apt-cache "${apt_opts[@]}" show --no-all-versions "$1" |
	sed -n 's/^Depends: //p' | tr ',' '\n' |
	sed 's/^ *//; s/[ (|].*//' |
	grep -E '^linux-(image|binary|modules|base|headers|kbuild)-' || true
}

version() {
	apt-cache "${apt_opts[@]}" show --no-all-versions "$1" | sed -n 's/^Version: //p' | head -n1
}

# The metapackage names the versioned image; headers share its suffix.
image=$(depends "$image_meta" | grep '^linux-image-' | head -n1)
[ -n "$image" ] || { echo "fetch-kernel: cannot resolve $image_meta" >&2; exit 1; }
krel=${image#linux-image-}
case $krel in
"$ver".*|"$ver"-*) ;;
*)	echo "fetch-kernel: $dist's $image_meta is now $krel, not $ver" >&2
	exit 1 ;;
esac
headers=linux-headers-$krel

# What is extracted on the host: the image with what it depends on, and
# the headers with theirs unless they go into a chroot.
pkgs=("$image")
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
	ident+="chroot:$chroot:$headers=$(version "$headers") "
	kroot=$(realpath -m "$cache/chroot/$chroot")
fi

if [ ! -e "$out/kernel.env" ] || [ "$(cat "$out/ident" 2>/dev/null)" != "$ident" ] ||
	{ [ -n "$kroot" ] && [ ! -e "$kroot/usr/src/$headers/.config" ]; }; then
	echo "fetch-kernel: fetching ${pkgs[*]}" >&2
	(cd "$aptdir/archives" && apt-get "${apt_opts[@]}" -q download "${pkgs[@]}" >&2)
	rm -rf "$out/root"
	mkdir -p "$out/root"
	for p in "${pkgs[@]}"; do
		deb=$(ls -t "$aptdir/archives/${p}_"*.deb | head -n1)
		dpkg -x "$deb" "$out/root"
	done

	# bookworm's packages install under /boot and /lib/modules, sid's
	# (merged /usr) under /usr/lib/modules only
	vmlinuz=$out/root/boot/vmlinuz-$krel
	[ -e "$vmlinuz" ] || vmlinuz=$out/root/usr/lib/modules/$krel/vmlinuz
	modroot=$out/root
	[ -d "$modroot/lib/modules/$krel" ] || modroot=$out/root/usr
	[ -e "$vmlinuz" ] && [ -d "$modroot/lib/modules/$krel/kernel" ] ||
		{ echo "fetch-kernel: no image or modules in ${pkgs[*]}" >&2; exit 1; }

	if [ -n "$chroot" ]; then
		# apt in the chroot resolves the headers' dependencies (-common,
		# kbuild, the compiler they were built with, pahole)
		"$top/scripts/make-chroot.sh" "$chroot" "$headers" >/dev/null
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
		# installed in the chroot by its package gcc-N.
		kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\([^ "]*gcc-[0-9][0-9]*\)[ "].*/\1/p' "$kroot$kdir/.config")
		[ -n "$kcc" ] || { echo "fetch-kernel: no gcc-N in $kdir/.config's CONFIG_CC_VERSION_TEXT" >&2; exit 1; }
		"$top/scripts/make-chroot.sh" "$chroot" "gcc-${kcc##*gcc-}" >/dev/null
		"$top/scripts/in-chroot.sh" "$kroot" "" sh -c 'command -v "$1"' sh "$kcc" >/dev/null ||
			{ echo "fetch-kernel: no $kcc in $kroot" >&2; exit 1; }
	else
		# Compiler: the one the kernel was built with when present,
		# else gcc.
		kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(gcc[^ ]*\).*/\1/p' "$kdir/.config" | head -n1)
		case $kcc in
		gcc-*)	command -v "$kcc" >/dev/null || kcc=gcc ;;
		*)	kcc=gcc ;;
		esac
	fi

	{
		echo "KREL=$krel"
		echo "KDIR=$kdir"
		echo "VMLINUZ=$vmlinuz"
		echo "MODROOT=$modroot"
		echo "KCC=$kcc"
		[ -z "$chroot" ] || echo "KCHROOT=$kroot"
	} > "$out/kernel.env"
	echo "$ident" > "$out/ident"
fi
echo "$out/kernel.env"
