#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host tests of `skbprof prom -o FILE`, the textfile writer of the
# skbprof-prom service, against a fixture directory captured from a guest
# (tests/host/fixtures/README): FILE holds what `skbprof prom` prints and
# passes promtool; it replaces the old FILE by a rename (a hard link to the
# old FILE keeps the old contents, so no reader saw a part-written file)
# and leaves no FILE.tmp behind; files that cannot be read (no module, a
# file that does not parse) give a FILE that says so (skbprof_up 0, the
# last good read's time), exit 0 for no module; a directory that cannot
# be written leaves the old FILE as it was, with no FILE.tmp; -o with
# another view is a usage error; --help and the man page say so.
# One ok/FAIL line per test.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
fix=$top/tests/host/fixtures/6.1/t1
tool=$top/tools/skbprof
tmp=$(mktemp -d)
chmod 755 "$tmp"	# for the run as nobody below
trap 'rm -rf "$tmp"' EXIT
export SKBPROF_CGROUP_ROOT=$tmp/no-cgroup2

ok() { echo "ok host/prom-file/$1"; }
fail() { echo "FAIL host/prom-file/$1: $2"; }

command -v promtool >/dev/null || { fail deps "promtool is missing (scripts/deps.sh check)"; exit 1; }
make -s -C "$top/tools" >/dev/null || { fail build "make -C tools"; exit 1; }

d=$tmp/textfile
mkdir "$d"
f=$d/skbprof.prom
echo old > "$f"
ln "$f" "$tmp/old-link"
"$tool" --root "$fix" -o "$f" prom > "$tmp/out" 2>&1
rc=$?
"$tool" --root "$fix" prom > "$tmp/stdout.prom"
if [ $rc -ne 0 ] || [ -s "$tmp/out" ]; then
	fail write "exit $rc: $(head -c 300 "$tmp/out")"
elif ! cmp -s <(grep -v '^skbprof_last_read_timestamp_seconds ' "$f") \
	     <(grep -v '^skbprof_last_read_timestamp_seconds ' "$tmp/stdout.prom") || [ ! -s "$f" ]; then
	fail write "$f differs from what skbprof prom prints"
else
	ok write
fi
if promtool check metrics < "$f" > "$tmp/promtool.out" 2>&1; then
	ok promtool
else
	fail promtool "$(head -c 300 "$tmp/promtool.out")"
fi
if [ "$(cat "$tmp/old-link")" = old ] && [ "$(stat -c %i "$f")" != "$(stat -c %i "$tmp/old-link")" ]; then
	ok renamed
else
	fail renamed "the old file was written in place, not replaced"
fi
left=$(ls -A "$d" | grep -vx skbprof.prom)
if [ -z "$left" ]; then ok no-tmp-left; else fail no-tmp-left "left: $left"; fi
# mode 0644: node_exporter runs as its own user
mode=$(umask 022; "$tool" --root "$fix" -o "$d/mode.prom" prom && stat -c %a "$d/mode.prom")
if [ "$mode" = 644 ]; then ok mode; else fail mode "mode '$mode', want 644"; fi
rm -f "$d/mode.prom"

# no module: exit 0 (the timer's service does not fail), and the file
# says so, skbprof_up 0, with the time of the last good read carried over;
# none of the old figures; no FILE.tmp
last=$(awk '$1 == "skbprof_last_read_timestamp_seconds" { print $2 }' "$f")
out=$("$tool" --root "$tmp/none" -o "$f" prom 2>&1)
rc=$?
if [ $rc -ne 0 ] || ! grep -q 'No such file' <<< "$out"; then
	fail no-module "exit $rc, want 0 and why on stderr: $out"
elif [ "$(grep -v '^#' "$f")" != "skbprof_up 0
skbprof_last_read_timestamp_seconds $last" ] || [ -z "$last" ] || [ -e "$f.tmp" ]; then
	fail no-module "the file is not up 0 and the last read $last: $(head -c 300 "$f")"
elif ! promtool check metrics < "$f" > "$tmp/promtool.out" 2>&1; then
	fail no-module "promtool: $(head -c 300 "$tmp/promtool.out")"
else
	ok no-module
fi
# the stdout form says the same, and exits 4 (not loaded)
out=$("$tool" --root "$tmp/none" prom 2>/dev/null)
rc=$?
if [ $rc -eq 4 ] && [ "$(grep -v '^#' <<< "$out")" = "skbprof_up 0" ]; then
	ok no-module-stdout
else
	fail no-module-stdout "exit $rc, want 4 and skbprof_up 0: $out"
fi
# a file that cannot be parsed: exit 1, and the file says up 0 too
mkdir "$tmp/bad" && cp "$fix"/* "$tmp/bad/" && echo "rx bad" >> "$tmp/bad/latency_buckets"
"$tool" --root "$fix" -o "$f" prom
out=$("$tool" --root "$tmp/bad" -o "$f" prom 2>&1)
rc=$?
if [ $rc -eq 1 ] && grep -q 'latency_buckets: line' <<< "$out" &&
   [ "$(awk '$1 == "skbprof_up" { print $2 }' "$f")" = 0 ] && ! grep -q '^skbprof_drops_total' "$f"; then
	ok unreadable
else
	fail unreadable "exit $rc, want 1, and up 0 in the file: $out"
fi
mkdir "$tmp/ro"
chmod 555 "$tmp/ro"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
	"$tool" --root "$fix" -o "$tmp/ro/skbprof.prom" prom 2>&1)
rc=$?
if [ $rc -ne 1 ] || ! grep -q 'skbprof.prom.tmp: Permission denied' <<< "$out" ||
   [ -n "$(ls -A "$tmp/ro")" ]; then
	fail unwritable "exit $rc, want 1 and nothing written: $out"
else
	ok unwritable
fi
out=$("$tool" --root "$fix" -o "$f" latency 2>&1)
rc=$?
if [ $rc -eq 2 ] && grep -q -- '-o is for prom only' <<< "$out"; then
	ok other-view
else
	fail other-view "exit $rc, want 2: $(head -n 1 <<< "$out")"
fi
man_txt=$(MANWIDTH=80 man -l "$top/tools/skbprof.8" 2>/dev/null)
help=$("$tool" --help)
if grep -q -- '-o, --output FILE' <<< "$man_txt" && grep -q -- '-o, --output FILE' <<< "$help"; then
	ok documented
else
	fail documented "--output is missing from skbprof.8 or --help"
fi
