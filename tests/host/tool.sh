#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of the reader tool against fixture directories: what it
# prints, its errors and its exit codes.  One ok/FAIL line per test.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tool=$top/tools/skbprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

t() {	# t NAME WANT_RC WANT_OUTPUT_PATTERN COMMAND...
	local name=$1 want_rc=$2 pat=$3 out rc
	shift 3
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc -ne "$want_rc" ]; then
		echo "FAIL host/tool/$name: exit $rc, want $want_rc: $out"
	elif ! grep -E -q -- "$pat" <<< "$out"; then
		echo "FAIL host/tool/$name: output lacks '$pat': $out"
	else
		echo "ok host/tool/$name"
	fi
}

make -s -C "$top/tools" >/dev/null || { echo "FAIL host/tool/build"; exit 1; }

mkdir -p "$tmp/root"
printf 'version 9.9.9\nkernel fixture\n' > "$tmp/root/stats"

t prints_view 0 '^version 9\.9\.9$' "$tool" --root "$tmp/root" stats
t env_root 0 '^kernel fixture$' env SKBPROF_ROOT="$tmp/root" "$tool" stats
t missing_root 1 "$tmp/none: No such file" "$tool" --root "$tmp/none" stats
t unknown_view 2 "unknown view 'nosuch'" "$tool" --root "$tmp/root" nosuch
t no_view 2 '^usage:' "$tool" --root "$tmp/root"
t help 0 '^usage:' "$tool" --help
t bad_option 2 '^usage:' "$tool" --bogus
rm "$tmp/root/stats"
t missing_file 1 "stats: No such file" "$tool" --root "$tmp/root" stats

