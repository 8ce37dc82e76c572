#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install the Debian packages skbprof's build, tests and demo need, if any
# are missing.  Non-interactive; needs root when something is missing.
#
#   scripts/deps.sh [build|check|demo|fuzz|debug|deb|units|arm64]...

set -euo pipefail

base=(gcc make libc6-dev libelf1 pahole kmod libkmod-dev pkg-config
      xz-utils zstd gzip cpio apt dpkg sparse perl libjson-c-dev)
guest=(qemu-system-x86 busybox-static iproute2 nftables)
fuzz=(clang-14 libclang-rt-14-dev)
# host tests of the tool: JSON parsed back by jq, promtool (in prometheus)
tool_check=(jq prometheus)
# tests/host/docs.sh: reST validation of Documentation/*.rst
docs=(python3-docutils)
# tests/host/units.sh: systemd-analyze verify, which checks Documentation=
# man pages with man
units=(systemd man-db)
kernel_build=(flex bison bc libssl-dev libelf-dev)
# dpkg-buildpackage checks for build-essential before anything else
# (make deb DEB_ARCHES="amd64 arm64" cross-builds with arm64's compiler:
# deps.sh deb arm64)
deb=(build-essential dpkg-dev debhelper dh-dkms dkms fakeroot lintian)
bench=(bpftrace python3 linux-perf)
# kernels whose module is built in a chroot of a newer Debian (7.2, sid):
# scripts/make-chroot.sh; the keyring checks the chroot's Release file
chroot=(debootstrap debian-archive-keyring)
# the module for Debian's arm64 kernels (build_module arm64-6.1, built on
# the host with bookworm's cross compiler; arm64-7.2, in the sid chroot,
# whose own cross compiler fetch-kernel.sh installs there)
# and its guests (qemu-system-aarch64; their userland comes from
# scripts/fetch-userland.sh, unpacked, not installed; dpkg-architecture
# names its GNU triplet)
arm64=(gcc-aarch64-linux-gnu qemu-system-arm dpkg-dev "${chroot[@]}")

want=("${base[@]}")
for what in "${@:-check}"; do
	case $what in
	build)	;;
	check)	want+=("${guest[@]}" "${chroot[@]}" "${fuzz[@]}" "${tool_check[@]}" "${docs[@]}"
		       "${units[@]}") ;;
	units)	want+=("${units[@]}") ;;
	fuzz)	want+=("${fuzz[@]}") ;;
	debug)	want+=("${guest[@]}" "${kernel_build[@]}") ;;
	demo)	want+=("${guest[@]}" "${chroot[@]}") ;;
	deb)	want+=("${deb[@]}") ;;
	arm64)	want+=("${arm64[@]}") ;;
	bench)	want+=("${guest[@]}" "${chroot[@]}" "${bench[@]}") ;;
	*)	echo "deps: unknown set '$what'" >&2; exit 1 ;;
	esac
done

missing=()
for p in "${want[@]}"; do
	# pahole is provided by dwarves on bookworm
	q=$p; [ "$p" = pahole ] && q=dwarves
	if ! dpkg-query -W -f='${Status}\n' "$q" 2>/dev/null | grep -q '^install ok installed'; then
		missing+=("$q")
	fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages: ${missing[*]} (run as root to install them)" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -q update >&2
# wait for another apt or dpkg run (other developers) instead of failing
apt-get -q -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}" >&2
