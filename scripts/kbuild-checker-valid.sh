#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Stand-in for a kernel tree's scripts/checker-valid.sh where a headers
# package lacks it (Debian's linux-kbuild-7.2): on 7.x the kernel's
# Makefile runs that script for C=1/C=2 and, when it cannot, silently
# builds without sparse.  scripts/fetch-kernel.sh installs this file in
# its place, in the build chroot only.
#
#   checker-valid.sh CHECKER [FLAG]...
#
# Prints 1 when CHECKER exists and parses __typeof_unqual__ (which 7.x
# headers use under sparse) without an error, else 0.  sparse exits 0
# even on errors, so its output is what counts.

command -v "$1" >/dev/null 2>&1 || { echo 0; exit 0; }
src=$(mktemp --suffix=.c) || { echo 0; exit 0; }
trap 'rm -f "$src"' EXIT
printf '%s\n' 'int skbprof_unqual(const int *p)' '{' \
	'	__typeof_unqual__(*p) v = *p;' '	return v;' '}' > "$src"
if "$@" "$src" 2>&1 | grep -q -i error; then
	echo 0
else
	echo 1
fi
