#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Fetch checkpatch.pl (with its spelling and const_structs lists) from
# Debian's kernel source package into the project's cache and print its
# path.  The package is large; only these files are kept.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${SKBPROF_CACHE:-$top/.cache}
out=$cache/checkpatch
if [ -x "$out/scripts/checkpatch.pl" ]; then
	echo "$out/scripts/checkpatch.pl"
	exit 0
fi

# Reuse fetch-kernel.sh's private apt configuration for bookworm.
"$top/scripts/fetch-kernel.sh" 6.1 >/dev/null
aptdir=$cache/apt/bookworm
apt_opts=(
	-o "Dir::Etc::sourcelist=$aptdir/etc/sources.list"
	-o "Dir::Etc::sourceparts=-"
	-o "Dir::Etc::preferencesparts=$aptdir/etc/preferences.d"
	-o "Dir::Etc::parts=$aptdir/etc/apt.conf.d"
	-o "Dir::State::Lists=$aptdir/lists"
	-o "Dir::State::status=/dev/null"
	-o "Dir::Cache=$aptdir/cache"
	-o "APT::Sandbox::User=root"
	-o "Debug::NoLocking=1"
)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get "${apt_opts[@]}" -q download linux-source-6.1 >&2)
dpkg-deb --fsys-tarfile "$tmp"/linux-source-6.1_*.deb |
	tar -x -C "$tmp" --wildcards './usr/src/linux-source-6.1.tar.xz'
mkdir -p "$out.new"
tar -xJf "$tmp/usr/src/linux-source-6.1.tar.xz" -C "$out.new" --strip-components=1 \
	--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
	'*/scripts/const_structs.checkpatch'
rm -rf "$out"
mv "$out.new" "$out"
echo "$out/scripts/checkpatch.pl"
