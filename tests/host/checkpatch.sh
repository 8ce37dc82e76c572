#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel style: checkpatch.pl --strict (from Debian's kernel source) on
# every kernel C file of the tree.  One ok/FAIL line per file.
#
# Not ignored: LINUX_VERSION_CODE.  Kernel differences are decided by
# feature tests of the headers (module/Kbuild), never by the version, which
# distributions' backports make wrong.
# Ignored: MACRO_ARG_REUSE.  Only table macros taking an array and its
# ARRAY_SIZE() reuse an argument, which has no side effects.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cp=$("$top/scripts/fetch-checkpatch.sh" 2>/dev/null) ||
	{ echo "FAIL style/checkpatch: cannot fetch checkpatch.pl"; exit 1; }

cd "$top" || exit 1
for f in module/*.[ch] tests/selftest/*.c; do
	out=$(perl "$cp" --no-tree --strict --terse --show-types \
		--ignore MACRO_ARG_REUSE -f "$f" 2>&1 | grep -v '^total:')
	if [ -n "$out" ]; then
		echo "FAIL style/checkpatch/$f: $(tr '\n' '|' <<< "$out")"
	else
		echo "ok style/checkpatch/$f"
	fi
done
