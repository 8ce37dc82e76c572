#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel style: checkpatch.pl --strict (from Debian's kernel source) on
# every kernel C file of the tree.  One ok/FAIL line per file.
#
# Ignored: LINUX_VERSION_CODE.  An out-of-tree module that builds on
# several kernels needs version checks; they all live in module/compat.h.
# MACRO_ARG_REUSE: only table macros taking an array and its ARRAY_SIZE()
# reuse an argument, which has no side effects.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cp=$("$top/scripts/fetch-checkpatch.sh" 2>/dev/null) ||
	{ echo "FAIL style/checkpatch: cannot fetch checkpatch.pl"; exit 1; }

cd "$top" || exit 1
for f in module/*.[ch] tests/selftest/*.c; do
	out=$(perl "$cp" --no-tree --strict --terse --show-types \
		--ignore LINUX_VERSION_CODE,MACRO_ARG_REUSE -f "$f" 2>&1 | grep -v '^total:')
	if [ -n "$out" ]; then
		echo "FAIL style/checkpatch/$f: $(tr '\n' '|' <<< "$out")"
	else
		echo "ok style/checkpatch/$f"
	fi
done
