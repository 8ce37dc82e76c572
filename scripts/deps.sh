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
# host tests of the tool: JSON parsed back by jq, promtool (in prometheus);
# tests/host/prometheus.sh runs the real prometheus and node_exporter
tool_check=(jq prometheus prometheus-node-exporter)
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

# tests/host/prometheus.sh type-checks the Grafana dashboard against
# Grafana's own schema: the npm packages @grafana/schema (its TypeScript
# types) and typescript, at the versions and checksums of
# tools/prometheus/schema/package-lock.json, installed with the machine's
# npm into $SKBPROF_CACHE/npm/grafana-schema (outside the tree: no
# node_modules in the packages' sources).
npm_schema() {
	local top cache dst
	top=$(cd "$(dirname "$0")/.." && pwd)
	cache=${SKBPROF_CACHE:-$top/.cache}
	dst=$cache/npm/grafana-schema
	if cmp -s "$top/tools/prometheus/schema/package-lock.json" "$dst/package-lock.json" &&
	   [ -e "$dst/node_modules/@grafana/schema/package.json" ] &&
	   [ -e "$dst/node_modules/typescript/bin/tsc" ]; then
		return 0
	fi
	if ! command -v npm > /dev/null; then
		echo "deps: npm is missing (Node.js's npm installs Grafana's dashboard schema)" >&2
		return 1
	fi
	echo "deps: installing @grafana/schema and typescript into $dst" >&2
	rm -rf "$dst"
	mkdir -p "$dst"
	cp "$top/tools/prometheus/schema/package.json" "$top/tools/prometheus/schema/package-lock.json" "$dst/"
	(cd "$dst" && npm ci --no-audit --no-fund --ignore-scripts) >&2
}

# Without them, tests/host/prometheus.sh fails its one schema check
# (saying why) and everything else still runs: no reason to stop here.
npm_schema_or_warn() {
	npm_schema ||
		echo "deps: could not install Grafana's dashboard schema; tests/host/prometheus.sh will fail dashboard-schema" >&2
}

want=("${base[@]}")
npm=
for what in "${@:-check}"; do
	case $what in
	build)	;;
	check)	npm=1
		want+=("${guest[@]}" "${chroot[@]}" "${fuzz[@]}" "${tool_check[@]}" "${docs[@]}"
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
if [ ${#missing[@]} -eq 0 ]; then
	[ -z "$npm" ] || npm_schema_or_warn
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "deps: missing packages: ${missing[*]} (run as root to install them)" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -q update >&2
# wait for another apt or dpkg run (other developers) instead of failing
apt-get -q -o DPkg::Lock::Timeout=600 install -y --no-install-recommends "${missing[@]}" >&2
[ -z "$npm" ] || npm_schema_or_warn
