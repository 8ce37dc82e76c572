#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The first build on a fresh host, as the README tells it.  The README's
# hand-build block installs every package the build asks for, and `make`
# on a host without json-c (pkg-config finds none) still builds the module
# and says in one line what the reader tool needs, while `make tools`
# there stops with that line.  One ok/FAIL line per test.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok host/build/$1${2:+: $2}"; }
fail() { echo "FAIL host/build/$1: $2"; }

# The packages the tool's build names when json-c is missing.
need=$(sed -n 's/.*apt-get install \([a-z0-9 -]*\)).*/\1/p' "$top/tools/Makefile")
# The README's hand-build block: from its heading line to the next blank.
block=$(awk '/^Or build and load by hand/ { on = 1 } on && /^$/ && n++ { exit } on' \
	"$top/README")
missing=
for p in build-essential $need; do
	grep -q -- "[[:space:]]$p\b" <<< "$block" || missing+=" $p"
done
if [ -z "$need" ]; then
	fail readme-packages "tools/Makefile names no package"
elif [ -n "$missing" ]; then
	fail readme-packages "the hand-build block does not install:$missing"
else
	ok readme-packages "the hand-build block installs build-essential $need"
fi

# A copy of the tree, built for a kernel whose headers the project fetches.
(cd "$top" && git ls-files -co --exclude-standard | grep -v '^\.cache' |
	cpio -pdm --quiet "$tmp/src") || { fail copy "cannot copy the tree"; exit 0; }
env=$("$top/scripts/fetch-kernel.sh" 6.1) || { fail kernel "cannot fetch 6.1"; exit 0; }
# shellcheck disable=SC1090
. "$env"

out=$(make -C "$tmp/src" KDIR="$KDIR" KBUILD_ARGS="CC=$KCC" PKG_CONFIG=false \
	2>&1 >/dev/null)
rc=$?
lines=$(grep -c 'needs json-c' <<< "$out")
if [ $rc -ne 0 ]; then
	fail make-without-jsonc "exit $rc: $(tail -3 <<< "$out")"
elif [ ! -e "$tmp/src/module/skbprof.ko" ] || [ -e "$tmp/src/tools/skbprof" ]; then
	fail make-without-jsonc "want module/skbprof.ko and no tools/skbprof"
elif [ "$lines" -ne 1 ] || ! grep -q "apt-get install $need" <<< "$out"; then
	fail make-without-jsonc "want one line naming $need, got: $out"
else
	ok make-without-jsonc "module built; $(grep 'needs json-c' <<< "$out")"
fi

# module/Kbuild's feature tests ("Kernel differences" in
# Documentation/skbprof.rst) find in 6.1's headers what 6.1 has, as
# compat.h's version checks decided before them: a pattern that stops
# matching, or matches too much, shows here.
want="-DSKBPROF_HAVE_DO_TCP_SENDPAGES -DSKBPROF_HAVE_DROPREASON_H
-DSKBPROF_HAVE_DROP_REASONS_ARRAY -DSKBPROF_HAVE_FTRACE_REGS
-DSKBPROF_HAVE_FTRACE_SET_FILTER_IPS -DSKBPROF_HAVE_GET_KRETPROBE
-DSKBPROF_HAVE_GET_KRETPROBE_RETADDR -DSKBPROF_HAVE_KFREE_SKB_REASON
-DSKBPROF_HAVE_TCP_DROP_REASONS"
got=$(grep -s -o -- '-DSKBPROF_[A-Z0-9_]*' "$tmp/src/module/.probes.o.cmd" |
	grep -v -x -- -DSKBPROF_VERSION | sort -u)
if [ "$(tr ' ' '\n' <<< "$want" | sort -u)" != "$got" ]; then
	fail feature-tests "6.1's headers give: $(tr '\n' ' ' <<< "$got")"
else
	ok feature-tests "6.1's headers give the $(wc -l <<< "$got") features 6.1 has"
fi

out=$(make -C "$tmp/src" tools PKG_CONFIG=false 2>&1)
rc=$?
if [ $rc -eq 0 ] || ! grep -q "needs json-c.*apt-get install $need" <<< "$out"; then
	fail tools-without-jsonc "exit $rc: $out"
else
	ok tools-without-jsonc "make tools stops: $(grep -o 'the reader tool.*' <<< "$out")"
fi
