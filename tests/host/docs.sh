#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The documentation is valid reStructuredText: every Documentation/*.rst
# goes through docutils (Debian's python3-docutils, as the kernel's
# Sphinx build would parse it) and any warning or error fails it.  One
# ok/FAIL line per file.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
if [ -x /usr/bin/rst2html ]; then
	rst=(/usr/bin/rst2html)
elif /usr/bin/python3 -c 'import docutils' 2>/dev/null; then
	rst=(/usr/bin/python3 -m docutils)
else
	echo "FAIL docs: no docutils (install python3-docutils)"
	exit 1
fi

cd "$top" || exit 1
n=0
for f in Documentation/*.rst; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	# report and stop at warnings; no file insertion, no raw output
	out=$("${rst[@]}" --report=2 --halt=2 --exit-status=2 \
		--no-file-insertion --no-raw --input-encoding=utf-8 \
		"$f" /dev/null 2>&1)
	rc=$?
	if [ $rc -ne 0 ] || [ -n "$out" ]; then
		echo "FAIL docs/$f: $(tr '\n' '|' <<< "$out") (exit $rc)"
	else
		echo "ok docs/$f"
	fi
done
[ $n -gt 0 ] || echo "FAIL docs: no Documentation/*.rst"
