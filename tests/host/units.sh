#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The systemd units, as the Debian packages install them: `make deb`, both
# packages unpacked into a temporary root, and `systemd-analyze verify
# --root` on each unit there.  verify loads the unit with the units it
# names (multi-user.target, timers.target, sys-kernel-debug.mount: the
# root gets this host's /lib/systemd/system first, the packages' units on
# top), checks that every ExecStart/ExecStop program exists in the root
# and is executable (/usr/sbin/skbprof from skbprof-tools; /sbin/modprobe
# comes with kmod, which dkms depends on, and is copied from this host)
# and that each Documentation= man page exists (skbprof(8) from the
# root's skbprof-tools, modprobe.d(5) from this host's kmod).  A unit
# verified from the source tree instead would pass with a binary path the
# packages do not install.  Then: each package ships the units it should
# (skbprof.service in skbprof-dkms; skbprof-prom.service and .timer in
# skbprof-tools); tests/host/deb.sh installs them and checks that nothing
# is enabled or started.  One ok/FAIL line per test.

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
ver=$(cat "$top/VERSION")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { echo "ok host/units/$1${2:+: $2}"; }
fail() { echo "FAIL host/units/$1: $2"; }

"$top/scripts/deps.sh" deb units > "$tmp/deps.log" 2>&1 ||
	{ fail deps "scripts/deps.sh deb units: $(tail -n 3 "$tmp/deps.log" | tr '\n' '|')"; exit 0; }
if ! make -s -C "$top" deb DEBDIR="$tmp/deb" > "$tmp/make.log" 2>&1; then
	fail build "make deb: $(tail -n 8 "$tmp/make.log" | tr '\n' '|')"
	exit 0
fi

root=$tmp/root
mkdir -p "$root/lib/systemd/system" "$root/sbin"
cp -a /lib/systemd/system/. "$root/lib/systemd/system/"
rm -f "$root"/lib/systemd/system/skbprof*	# a host with the packages installed
for p in skbprof-dkms skbprof-tools; do
	deb=$(ls "$tmp"/deb/"${p}_${ver}"_*.deb 2>/dev/null | head -n1)
	[ -n "$deb" ] || { fail build "no ${p}_${ver}_*.deb"; exit 0; }
	dpkg-deb -x "$deb" "$root"
	units=$(dpkg-deb -c "$deb" | grep -o 'lib/systemd/system/[^ /]\+$' | sed 's#.*/##' | sort | tr '\n' ' ')
	case $p in
	skbprof-dkms)	want="skbprof.service " ;;
	*)		want="skbprof-prom.service skbprof-prom.timer " ;;
	esac
	if [ "$units" = "$want" ]; then
		ok "$p/ships" "$units"
	else
		fail "$p/ships" "units '$units', want '$want'"
	fi
done
cp -L /sbin/modprobe "$root/sbin/modprobe"

for u in skbprof.service skbprof-prom.service skbprof-prom.timer; do
	if [ ! -e "$root/lib/systemd/system/$u" ]; then
		fail "verify/$u" "not in the packages"
	elif (cd "$root" && MANPATH=$root/usr/share/man:/usr/share/man \
		systemd-analyze verify --root="$root" "$u") > "$tmp/verify.log" 2>&1 &&
		[ ! -s "$tmp/verify.log" ]; then
		ok "verify/$u" "systemd-analyze verify"
	else
		fail "verify/$u" "$(tr '\n' '|' < "$tmp/verify.log")"
	fi
done
