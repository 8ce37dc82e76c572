#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A Debian chroot to build the module in, for kernels whose headers need a
# newer toolchain than the host's: sid's 7.2 headers name gcc-16 in their
# .config, and their kbuild helpers (fixdep, modpost, ...) are linked
# against sid's libc.  Made once with debootstrap from the Debian mirror
# configured on this machine (no host name in the tree), with the tools a
# W=1 C=2 module build needs; reused afterwards, and shared by worktrees
# whose .cache/chroot points to the same directory.
#
#   scripts/make-chroot.sh SUITE [PKG[:ARCH]]...
#   scripts/make-chroot.sh --bare SUITE
#
# Creates $SKBPROF_CACHE/chroot/SUITE when missing, installs those PKGs
# that are not installed yet with the chroot's own apt, and prints the
# chroot's path.  Run commands in it with scripts/in-chroot.sh.  Needs
# root.  Remove the directory to start afresh.
#
# --bare makes $SKBPROF_CACHE/chroot/SUITE-bare instead: debootstrap's
# minimal system and nothing more, apt as Debian configures it (recommends
# on), the stand-in for a fresh host that tests/host/readme.sh follows the
# README on.  Its users change it only through an overlay.

set -euo pipefail

bare=
if [ "${1:-}" = --bare ]; then
	bare=-bare
	shift
fi
suite=${1:?usage: make-chroot.sh [--bare] SUITE [PKG]...}
shift
[ -z "$bare" ] || [ $# -eq 0 ] || { echo "make-chroot: --bare takes no packages" >&2; exit 2; }
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${SKBPROF_CACHE:-$top/.cache}
base=$cache/chroot
dir=$base/$suite$bare
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
# what every module build needs; the kernel's headers and compiler come
# from the caller (scripts/fetch-kernel.sh)
toolchain=(make libc6-dev libelf-dev sparse)

mkdir -p "$base"
# one creator or installer at a time, across worktrees too
exec 9> "$base/.$suite$bare.lock"
flock 9

in_chroot() {
	"$top/scripts/in-chroot.sh" "$dir" "" "$@"
}

apt_install() {
	in_chroot env DEBIAN_FRONTEND=noninteractive apt-get -q update >&2
	in_chroot env DEBIAN_FRONTEND=noninteractive \
		apt-get -q install -y --no-install-recommends "$@" >&2
}

if [ ! -e "$dir/.skbprof-ready" ]; then
	# shellcheck source=private-apt.sh
	. "$top/scripts/private-apt.sh"
	uri=$(debian_uri) || { echo "make-chroot: no Debian repository configured in /etc/apt" >&2; exit 1; }
	echo "make-chroot: creating the $suite chroot in $dir (a few minutes)" >&2
	rm -rf "$dir" "$dir.new"
	# The Release signature is checked against the host's Debian keyring.
	# debootstrap mounts /proc and /sys in the target: in a private mount
	# namespace those mounts die with it, even when it fails.
	if ! unshare --mount --propagation private -- \
		debootstrap --variant=minbase --components=main \
			--keyring="$keyring" "$suite" "$dir.new" "$uri" \
			> "$base/$suite$bare.debootstrap.log" 2>&1; then
		tail -n 20 "$base/$suite$bare.debootstrap.log" >&2
		echo "make-chroot: debootstrap failed, see $base/$suite$bare.debootstrap.log" >&2
		rm -rf "$dir.new"
		exit 1
	fi
	if [ -n "$bare" ]; then
		# as Debian installs it; no pty for dpkg's log (in-chroot.sh
		# mounts no /dev/pts)
		echo 'Dpkg::Use-Pty "false";' > "$dir.new/etc/apt/apt.conf.d/90skbprof"
		mv "$dir.new" "$dir"
	else
		# sid's Release is valid for a week and re-signed daily: a
		# lagging mirror reads as expired (signatures are still
		# checked).  No recommends, no translations: a build chroot.
		cat > "$dir.new/etc/apt/apt.conf.d/90skbprof" <<'CONF'
Acquire::Check-Valid-Until "false";
Acquire::Languages "none";
APT::Install-Recommends "false";
Dpkg::Use-Pty "false";
CONF
		mv "$dir.new" "$dir"
		apt_install "${toolchain[@]}" || {
			echo "make-chroot: cannot install ${toolchain[*]} in $dir" >&2; exit 1; }
		in_chroot apt-get clean
	fi
	touch "$dir/.skbprof-ready"
fi

# PKG:ARCH (linux-headers-...:arm64 for a cross build): dpkg takes ARCH's
# packages once it is a foreign architecture; apt's next update fetches
# its package lists.
for p in "$@"; do
	case $p in
	*:*)	in_chroot dpkg --print-foreign-architectures | grep -qx "${p#*:}" ||
			in_chroot dpkg --add-architecture "${p#*:}" ;;
	esac
done

missing=()
for p in "$@"; do
	in_chroot dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q '^install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "make-chroot: installing ${missing[*]} in $dir" >&2
	apt_install "${missing[@]}" || {
		echo "make-chroot: cannot install ${missing[*]} in $dir" >&2; exit 1; }
	in_chroot apt-get clean
fi
echo "$dir"
