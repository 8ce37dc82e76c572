#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The documentation is valid reStructuredText: every Documentation/*.rst
# goes through docutils (Debian's python3-docutils, as the kernel's
# Sphinx build would parse it) and any warning or error fails it.  One
# ok/FAIL line per file.
#
# debian/changelog, committed: dpkg-parsechangelog reads it without a
# warning, its version is VERSION's and its maintainer debian/control's.

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

# debian/changelog: what dpkg-buildpackage versions the packages by
if ! command -v dpkg-parsechangelog >/dev/null; then
	echo "FAIL docs/debian/changelog: no dpkg-parsechangelog (install dpkg-dev)"
elif ! cl=$(dpkg-parsechangelog -l debian/changelog 2>&1) ||
     grep -q 'warning' <<< "$cl"; then
	echo "FAIL docs/debian/changelog: dpkg-parsechangelog: $(tr '\n' '|' <<< "$cl")"
else
	cl_ver=$(sed -n 's/^Version: //p' <<< "$cl")
	cl_maint=$(sed -n 's/^Maintainer: //p' <<< "$cl")
	ctl_maint=$(sed -n 's/^Maintainer: //p' debian/control)
	if [ "$cl_ver" != "$(cat VERSION)" ]; then
		echo "FAIL docs/debian/changelog: version '$cl_ver', VERSION says '$(cat VERSION)'"
	elif [ "$cl_maint" != "$ctl_maint" ]; then
		echo "FAIL docs/debian/changelog: maintainer '$cl_maint', debian/control says '$ctl_maint'"
	else
		echo "ok docs/debian/changelog: version $cl_ver, VERSION's; maintainer debian/control's"
	fi
fi

# The filter terms: every term the module's parser takes (the terms[]
# table of module/config.c) is in the man page's filter list and in
# Documentation/skbprof.rst's table, and neither lists one it does not take.
grammar=$(sed -n '/^static const struct term_desc terms\[\] = {/,/^};/p' module/config.c |
	grep -o '{ "[a-z0-9_]*"' | tr -d '{ "' | sort)
man_terms=$(sed -n '/^\.BI "filter " \\(aqTERMS\\(aq$/,/^\.RE$/p' tools/skbprof.8 |
	sed -n 's/^\.BI \([a-z0-9_]*\) .*/\1/p' | sort)
rst_terms=$(sed -n '/^``filter TERM\.\.\.``$/,/^``filter clear``$/p' Documentation/skbprof.rst |
	sed -n 's/^  ``\([a-z0-9_]*\)[ `].*/\1/p' | sort -u)
for f in tools/skbprof.8:"$man_terms" Documentation/skbprof.rst:"$rst_terms"; do
	have=${f#*:}
	if [ -z "$grammar" ]; then
		echo "FAIL docs/filter-terms: no terms[] table in module/config.c"
		break
	elif [ "$have" != "$grammar" ]; then
		echo "FAIL docs/filter-terms/${f%%:*}: lacks [$(comm -23 <(echo "$grammar") <(echo "$have") | tr '\n' ' ')], the module does not take [$(comm -13 <(echo "$grammar") <(echo "$have") | tr '\n' ' ')]"
	else
		echo "ok docs/filter-terms/${f%%:*}: the module's $(wc -l <<< "$grammar") filter terms: $(tr '\n' ' ' <<< "$grammar")"
	fi
done
