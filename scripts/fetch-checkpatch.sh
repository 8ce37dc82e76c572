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

# shellcheck source=private-apt.sh
. "$top/scripts/private-apt.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
private_apt_extract bookworm linux-source-6.1 usr/src/linux-source-6.1.tar.xz "$tmp"
mkdir -p "$out.new"
tar -xJf "$tmp/usr/src/linux-source-6.1.tar.xz" -C "$out.new" --strip-components=1 \
	--wildcards '*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
	'*/scripts/const_structs.checkpatch'
rm -rf "$out"
mv "$out.new" "$out"
echo "$out/scripts/checkpatch.pl"
