#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# PREEMPT_RT kernels are refused (module/compat.h says why), against
# Debian's 6.1 -rt-amd64 headers (scripts/fetch-kernel.sh 6.1-rt):
#   - build: a build by hand stops at once with the message naming
#     PREEMPT_RT, and no other error; no module is made;
#   - dkms.conf: BUILD_EXCLUSIVE_CONFIG, read as DKMS reads it ("!" for
#     an option that must be off), excludes the -rt configuration and
#     not the same one without CONFIG_PREEMPT_RT;
#   - DKMS: a real `dkms build` for the -rt kernel, in a DKMS tree of its
#     own (nothing of the host's DKMS state touched), is skipped with
#     DKMS's "skipped" status 77, before building.  Skipped with
#     SKBPROF_SKIP_DKMS=1.
# One ok/FAIL line per test.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok host/rt/$1${2:+: $2}"; }
fail() { echo "FAIL host/rt/$1: $2"; }

msg='skbprof: PREEMPT_RT kernels are not supported (CONFIG_PREEMPT_RT=y)'

env=$("$top/scripts/fetch-kernel.sh" 6.1-rt) || { fail kernel "cannot fetch 6.1-rt"; exit 0; }
# shellcheck disable=SC1090
. "$env"
if ! grep -q '^CONFIG_PREEMPT_RT=y$' "$KDIR/.config"; then
	fail kernel "$KREL's .config has no CONFIG_PREEMPT_RT=y"
	exit 0
fi

# A build by hand: refused, saying why, with nothing built.
mkdir -p "$tmp/src"
cp -r "$top/Kbuild" "$top/VERSION" "$top/module" "$tmp/src/"
log=$tmp/build.log
if make -C "$KDIR" M="$tmp/src" CC="$KCC" modules > "$log" 2>&1; then
	fail build "a build against $KREL succeeded"
elif ! grep -q -F "error: #error \"$msg" "$log"; then
	fail build "no clear refusal: $(grep -m 3 'error' "$log" | tr '\n' '|')"
elif grep 'error:' "$log" | grep -q -v -F 'error: #error "skbprof: '; then
	fail build "other errors besides the refusal: $(grep 'error:' "$log" | grep -v -F 'error: #error "skbprof: ' | head -n 3 | tr '\n' '|')"
elif [ -e "$tmp/src/module/skbprof.ko" ]; then
	fail build "a module was made"
else
	ok build "a build against $KREL stops, naming PREEMPT_RT"
fi

# dkms.conf's rule, as DKMS applies it to a kernel's .config.
excluded() {	# excluded CONFIG: 0 when DKMS would skip that kernel
	local kconf conf=$1 x=1
	for kconf in $(bash -c '. "$1"; echo "$BUILD_EXCLUSIVE_CONFIG"' _ "$top/dkms.conf"); do
		case $kconf in
		!*)	grep -q -E "^${kconf#!}=[ym]" "$conf" && x=0 ;;
		*)	grep -q -E "^${kconf}=[ym]" "$conf" || x=0 ;;
		esac
	done
	return $x
}
# the same configuration without PREEMPT_RT, as the other flavours have it
grep -v '^CONFIG_PREEMPT_RT=' "$KDIR/.config" > "$tmp/nort.config"
echo '# CONFIG_PREEMPT_RT is not set' >> "$tmp/nort.config"
if ! excluded "$KDIR/.config"; then
	fail dkms-conf "BUILD_EXCLUSIVE_CONFIG does not exclude $KREL"
elif excluded "$tmp/nort.config"; then
	fail dkms-conf "BUILD_EXCLUSIVE_CONFIG excludes $KREL's configuration without PREEMPT_RT too"
else
	ok dkms-conf "BUILD_EXCLUSIVE_CONFIG excludes $KREL, not its configuration without PREEMPT_RT"
fi

[ -n "${SKBPROF_SKIP_DKMS:-}" ] && exit 0
if ! command -v dkms > /dev/null; then
	fail dkms "no dkms (scripts/deps.sh check)"
	exit 0
fi
# The source as the package installs it, in a DKMS tree of this test's.
ver=$(cat "$top/VERSION")
make -s -C "$top" dkms-src DESTDIR="$tmp/pkg" > "$tmp/src.log" 2>&1 ||
	{ fail dkms "make dkms-src: $(tail -n 3 "$tmp/src.log" | tr '\n' '|')"; exit 0; }
mkdir -p "$tmp/dkms" "$tmp/inst"
dkms build "skbprof/$ver" -k "$KREL" --kernelsourcedir "$KDIR" \
	--dkmstree "$tmp/dkms" --sourcetree "$tmp/pkg/usr/src" \
	--installtree "$tmp/inst" > "$tmp/dkms.log" 2>&1
rc=$?
if [ $rc -ne 77 ]; then
	fail dkms "dkms build for $KREL exited $rc (want 77): $(tail -n 3 "$tmp/dkms.log" | tr '\n' '|')"
elif ! grep -q 'BUILD_EXCLUSIVE directive which does not match' "$tmp/dkms.log" ||
	find "$tmp/dkms" -name '*.o' -o -name '*.ko' | grep -q .; then
	fail dkms "not skipped before building: $(tail -n 3 "$tmp/dkms.log" | tr '\n' '|')"
else
	ok dkms "dkms skips $KREL (BUILD_EXCLUSIVE_CONFIG !CONFIG_PREEMPT_RT, exit 77)"
fi
