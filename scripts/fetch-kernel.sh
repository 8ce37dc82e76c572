#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch a Debian cloud kernel (image, headers, kbuild) into the project's
# cache and print the path of a shell fragment describing it.
#
#   scripts/fetch-kernel.sh 5.10|6.1|6.12|debug
#
# Packages come from a private apt configuration (scripts/private-apt.sh),
# so nothing here depends on what a developer installed by hand and no
# mirror host is named in the tree.
# Downloads are reused on later runs; a newer Debian upload is picked up
# the next time the package lists are older than a day.
#
# The resulting $CACHE/kernels/<ver>/kernel.env sets:
#   KREL     the kernel release (uname -r in the guest)
#   KDIR     the headers tree to build modules against
#   VMLINUZ  the kernel image
#   MODROOT  directory holding lib/modules/$KREL
#   KCC      the C compiler to build with

set -euo pipefail

ver=${1:?usage: fetch-kernel.sh 5.10|6.1|6.12|debug}
top=$(cd "$(dirname "$0")/.." && pwd)

# "debug": Debian's 6.1 source built with KASAN, lockdep, kmemleak...
# (make check-debug); built once, then reused.
[ "$ver" = debug ] && exec "$top/scripts/build-debug-kernel.sh"
cache=${SKBPROF_CACHE:-$top/.cache}

case $ver in
5.10)	dist=bullseye; image_meta=linux-image-cloud-amd64 ;;
6.1)	dist=bookworm; image_meta=linux-image-cloud-amd64 ;;
6.12)	dist=bookworm; image_meta=linux-image-6.12-cloud-amd64 ;;
*)	echo "fetch-kernel: unsupported kernel '$ver' (want 5.10, 6.1 or 6.12)" >&2
	exit 1 ;;
esac

out=$cache/kernels/$ver
mkdir -p "$out"
# shellcheck source=private-apt.sh
. "$top/scripts/private-apt.sh"
private_apt "$dist"

depends() {
	apt-cache "${apt_opts[@]}" show --no-all-versions "$1" |
	sed -n 's/^Depends: //p' | tr ',' '\n' |
	sed 's/^ *//; s/[ (|].*//' | grep -E '^linux-(image|headers|kbuild)-' || true
}

# The metapackage names the versioned image; headers share its suffix.
image=$(depends "$image_meta" | grep '^linux-image-' | head -n1)
[ -n "$image" ] || { echo "fetch-kernel: cannot resolve $image_meta" >&2; exit 1; }
krel=${image#linux-image-}
headers=linux-headers-$krel

pkgs=("$image" "$headers")
todo=("$headers")
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
	v=$(apt-cache "${apt_opts[@]}" show --no-all-versions "$p" | sed -n 's/^Version: //p' | head -n1)
	ident+="$p=$v "
done

if [ ! -e "$out/kernel.env" ] || [ "$(cat "$out/ident" 2>/dev/null)" != "$ident" ]; then
	echo "fetch-kernel: fetching ${pkgs[*]}" >&2
	(cd "$aptdir/archives" && apt-get "${apt_opts[@]}" -q download "${pkgs[@]}" >&2)
	rm -rf "$out/root"
	mkdir -p "$out/root"
	for p in "${pkgs[@]}"; do
		deb=$(ls -t "$aptdir/archives/${p}_"*.deb | head -n1)
		dpkg -x "$deb" "$out/root"
	done

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

	# Compiler: the one the kernel was built with when present, else gcc.
	kcc=$(sed -n 's/^CONFIG_CC_VERSION_TEXT="\(gcc[^ ]*\).*/\1/p' "$kdir/.config" | head -n1)
	case $kcc in
	gcc-*)	command -v "$kcc" >/dev/null || kcc=gcc ;;
	*)	kcc=gcc ;;
	esac

	cat > "$out/kernel.env" <<ENV
KREL=$krel
KDIR=$kdir
VMLINUZ=$out/root/boot/vmlinuz-$krel
MODROOT=$out/root
KCC=$kcc
ENV
	echo "$ident" > "$out/ident"
fi
echo "$out/kernel.env"
