#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Debian packages, for real, on this host: `make deb` builds
# skbprof-dkms and skbprof-tools with dpkg-buildpackage; their version is
# VERSION's; skbprof-dkms holds exactly the module's source and a dkms.conf
# with the version written out, under /usr/src/skbprof-<version>/; lintian
# finds no error.  Each package carries the README and
# Documentation/skbprof.rst with the .rst files it refers to under
# /usr/share/doc/<package>/, and skbprof-tools every *.json and *.yml of
# tools/prometheus/ (and its README) under /usr/share/skbprof/prometheus/.
# A plain `make deb` builds skbprof-tools for the host's
# architecture alone; with DEB_ARCHES="<host> arm64" it is also
# cross-built for arm64: an
# AArch64 binary, the same files as the amd64 package, Depends on libc6
# and libjson-c5 from the arm64 libraries' symbols files.  Installing both (apt-get install ./*.deb, which runs
# dpkg) makes DKMS build and install the module for each kernel with
# headers (6.1 and 6.12: the header packages tests/host/dkms.sh installs;
# the running kernel has none, which must not fail the installation);
# each module's vermagic names its kernel, and with DKMS pointed at a
# throwaway signing key (mok_signing_key, mok_certificate) each carries its
# signature; reinstalled with no signing key to be had, each is built
# again, unsigned.  The systemd units are installed disabled, and the
# postinst's start skips them.  `apt-get purge` leaves nothing behind.
# Cleans up after itself, also on failure.
# Skipped with SKBPROF_SKIP_DKMS=1 (slow; installs packages on the host).

set -u
# shellcheck source=tests/host/dkms-lib.bash
. "$(dirname "$0")/dkms-lib.bash"

[ -n "${SKBPROF_SKIP_DKMS:-}" ] && exit 0
dkms_setup deb || exit 0
"$top/scripts/deps.sh" deb arm64 > /tmp/skbprof-deb-deps.log 2>&1 || {
	echo "FAIL host/deb: scripts/deps.sh deb: see /tmp/skbprof-deb-deps.log"; exit 0; }
start=$(date +%s)
tmp=$(mktemp -d)
cleanup() {
	skbprof_purge
	rm -rf "$tmp"
}
skbprof_purge
trap cleanup EXIT
trap 'exit 1' INT TERM HUP	# so that the EXIT trap runs on these too

# make deb as the README has it: the host's architecture only
host_arch=$(dpkg --print-architecture)
if ! make -s -C "$top" deb DEBDIR="$tmp/native" > "$tmp/make-native.log" 2>&1; then
	echo "FAIL host/deb/host-arch: $(tail -n 8 "$tmp/make-native.log" | tr '\n' '|')"
else
	got=$(cd "$tmp/native" && ls skbprof-dkms_*.deb skbprof-tools_*.deb | tr '\n' ' ')
	if [ "$got" != "skbprof-dkms_${ver}_all.deb skbprof-tools_${ver}_$host_arch.deb " ]; then
		echo "FAIL host/deb/host-arch: make deb built $got"
	else
		echo "ok host/deb/host-arch: make deb without DEB_ARCHES: $got"
	fi
fi
rm -rf "$tmp/native"
if ! make -s -C "$top" deb DEB_ARCHES="$host_arch arm64" DEBDIR="$tmp/deb" \
	> "$tmp/make.log" 2>&1; then
	echo "FAIL host/deb/build: $(tail -n 8 "$tmp/make.log" | tr '\n' '|')"
	exit 0
fi
dkms_deb=$tmp/deb/skbprof-dkms_${ver}_all.deb
tools_deb=$tmp/deb/skbprof-tools_${ver}_$(dpkg --print-architecture).deb
arm_deb=$tmp/deb/skbprof-tools_${ver}_arm64.deb
absent=
for f in "$dkms_deb" "$tools_deb" "$arm_deb"; do
	[ -e "$f" ] || absent+=" $(basename "$f")"
done
if [ -n "$absent" ]; then
	echo "FAIL host/deb/build: no$absent: $(ls "$tmp/deb" | tr '\n' ' ')"
	exit 0
fi
echo "ok host/deb/build: $(basename "$dkms_deb") $(basename "$tools_deb") $(basename "$arm_deb") ($(($(date +%s) - start)) s)"

# The docs each package carries under /usr/share/doc/PKG/, uncompressed:
# the README, Documentation/skbprof.rst and every .rst of Documentation/
# it refers to.
docs_of() {
	local f
	for f in README Documentation/skbprof.rst $(grep -o '[A-Za-z0-9_-]*\.rst' \
		"$top/Documentation/skbprof.rst" | sort -u); do
		[ -e "$top/Documentation/${f##*/}" ] || [ "$f" = README ] || continue
		echo "./usr/share/doc/$1/${f##*/}"
	done | sort -u
}
# what `skbprof prom` goes with: tools/prometheus/'s files as they are
prom_files() {
	local f
	for f in "$top"/tools/prometheus/*.json "$top"/tools/prometheus/*.yml \
		"$top"/tools/prometheus/README; do
		[ -e "$f" ] && echo "./usr/share/skbprof/prometheus/${f##*/}"
	done
}

# Contents: the module's source exactly, and nothing else but the docs.
src=/usr/src/skbprof-$ver
want=$( ( (cd "$top" && ls Kbuild VERSION dkms.conf module/Kbuild module/*.c module/*.h) |
	sed "s#^#.$src/#"
	echo ./etc/modprobe.d/skbprof.conf
	echo ./lib/systemd/system/skbprof.service) | sort)
have=$(dpkg-deb --fsys-tarfile "$dkms_deb" | tar -t | grep -v '/$' |
	grep -v '^\./usr/share/doc/skbprof-dkms/' | sort)
if [ "$want" != "$have" ]; then
	echo "FAIL host/deb/dkms-contents: differs from the tree: $(diff <(echo "$want") <(echo "$have") | grep '^[<>]' | tr '\n' ' ')"
else
	echo "ok host/deb/dkms-contents: $src/ holds exactly the module's source ($(wc -l <<< "$have") files with the unit and modprobe.d file)"
fi
for f in skbprof-dkms:"$dkms_deb" skbprof-tools:"$tools_deb"; do
	want=$(docs_of "${f%%:*}")
	[ "${f%%:*}" = skbprof-tools ] && want+=$'\n'$(prom_files)
	list=$(dpkg-deb --fsys-tarfile "${f#*:}" | tar -t)
	absent=$(comm -23 <(sort <<< "$want") <(sort <<< "$list") | tr '\n' ' ')
	if [ -n "$absent" ]; then
		echo "FAIL host/deb/${f%%:*}-docs: lacks $absent"
	else
		echo "ok host/deb/${f%%:*}-docs: $(tr '\n' ' ' <<< "$want")"
	fi
done
dpkg-deb -x "$dkms_deb" "$tmp/x"
conf_ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$tmp/x$src/dkms.conf")
sourced=$(bash -c '. "$1"; echo "$PACKAGE_NAME/$PACKAGE_VERSION"' _ "$tmp/x$src/dkms.conf")
bad=
for f in skbprof-dkms:"$dkms_deb" skbprof-tools:"$tools_deb"; do
	p=$(dpkg-deb -f "${f#*:}" Package) v=$(dpkg-deb -f "${f#*:}" Version)
	[ "$p" = "${f%%:*}" ] && [ "$v" = "$ver" ] || bad+=" ${f##*/} is $p $v;"
done
[ "$conf_ver" = "$ver" ] && [ "$sourced" = "skbprof/$ver" ] ||
	bad+=" dkms.conf says '$conf_ver' (sourced: '$sourced');"
dpkg-deb -f "$dkms_deb" Depends | grep -q '^dkms' || bad+=" skbprof-dkms does not depend on dkms;"
dpkg-deb -f "$dkms_deb" Architecture | grep -qx all || bad+=" skbprof-dkms is not Architecture: all;"
if [ -n "$bad" ]; then
	echo "FAIL host/deb/version:$bad"
else
	echo "ok host/deb/version: packages and dkms.conf at VERSION $ver"
fi
want="./usr/sbin/skbprof ./lib/systemd/system/skbprof-prom.service"
want+=" ./lib/systemd/system/skbprof-prom.timer ./etc/default/skbprof"
[ -e "$top/tools/skbprof.8" ] && want+=" ./usr/share/man/man8/skbprof.8.gz"
absent=
list=$(dpkg-deb -c "$tools_deb")
for f in $want; do
	grep -q " $f\$" <<<"$list" || absent+=" $f"
done
if [ -n "$absent" ]; then
	echo "FAIL host/deb/tools-contents: lacks$absent"
else
	echo "ok host/deb/tools-contents: $want"
fi

# skbprof-tools for arm64, cross-built: the same package for another
# machine, linked against bookworm's arm64 libc and json-c.
bad=
for f in Package:skbprof-tools Version:"$ver" Architecture:arm64; do
	v=$(dpkg-deb -f "$arm_deb" "${f%%:*}")
	[ "$v" = "${f#*:}" ] || bad+=" ${f%%:*} is '$v';"
done
dpkg-deb -x "$arm_deb" "$tmp/arm64"
machine=$(readelf -h "$tmp/arm64/usr/sbin/skbprof" 2>&1 | sed -n 's/^ *Machine: *//p')
[ "$machine" = AArch64 ] || bad+=" usr/sbin/skbprof's machine is '$machine';"
# the same files, modes and owners as the native package's
files() { dpkg-deb -c "$1" | awk '{ print $1, $2, $6 }' | sort; }
d=$(diff <(files "$tools_deb") <(files "$arm_deb") | grep '^[<>]' | tr '\n' ' ')
[ -z "$d" ] || bad+=" files differ from $(basename "$tools_deb"): $d;"
# Depends from the arm64 libraries (a cross build must not fall back on
# the host's): libc6 and libjson-c5 with a minimum version, and the same
# packages as the native one's
dep=$(dpkg-deb -f "$arm_deb" Depends)
for p in libc6 libjson-c5; do
	grep -Eq "(^|, )$p \(>= [^)]+\)(,|$)" <<< "$dep" || bad+=" Depends lacks $p (>= ...);"
done
names() { tr ',' '\n' <<< "$1" | sed 's/^ *//; s/ .*//' | sort | tr '\n' ' '; }
[ "$(names "$dep")" = "$(names "$(dpkg-deb -f "$tools_deb" Depends)")" ] ||
	bad+=" Depends '$dep' names other packages than $(basename "$tools_deb")'s;"
if [ -n "$bad" ]; then
	echo "FAIL host/deb/tools-arm64:$bad"
else
	echo "ok host/deb/tools-arm64: $(basename "$arm_deb"): $machine binary, $(wc -l < <(files "$arm_deb")) entries as in $(basename "$tools_deb"), Depends: $dep"
fi

# each build's .changes: the native one and arm64's
if command -v lintian >/dev/null; then
	changes=$(cd "$tmp/deb" && ls ./*.changes | sed 's#^\./##' | tr '\n' ' ' | sed 's/ $//')
	lintian --pedantic "$tmp"/deb/*.changes > "$tmp/lintian.log" 2>&1
	errors=$(grep '^E: ' "$tmp/lintian.log")
	warnings=$(grep -E '^(W|P): ' "$tmp/lintian.log" | tr '\n' ';')
	if [ -n "$errors" ]; then
		echo "FAIL host/deb/lintian: $(tr '\n' ';' <<< "$errors")"
	elif [ ! -e "$tmp/deb/skbprof_${ver}_arm64.changes" ]; then
		echo "FAIL host/deb/lintian: no skbprof_${ver}_arm64.changes: $changes"
	else
		echo "ok host/deb/lintian: no errors in $changes${warnings:+ (warnings: $warnings)}"
	fi
fi

# Install for real: the postinst runs DKMS for the kernels with headers.
mkdir "$tmp/sign"
sign_with deb "$tmp/sign"
if ! DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install \
	"$dkms_deb" "$tools_deb" > "$tmp/install.log" 2>&1; then
	echo "FAIL host/deb/install: $(tail -n 12 "$tmp/install.log" | tr '\n' '|')"
	exit 0
fi
echo "ok host/deb/install: installed although $(uname -r) (running) has no headers"
for krel in "${krels[@]}"; do
	if ! dkms status "skbprof/$ver" -k "$krel" 2>/dev/null | grep -q ': installed$'; then
		echo "FAIL host/deb/$krel: dkms status: $(dkms status skbprof 2>&1 | tr '\n' '|')"
	elif ! err=$(check_ko "$krel" "/lib/modules/$krel/updates/dkms/skbprof.ko"); then
		echo "FAIL host/deb/$krel: $err"
	elif ! err=$(check_signed "$krel" "/lib/modules/$krel/updates/dkms/skbprof.ko"); then
		echo "FAIL host/deb/$krel: $err"
	else
		echo "ok host/deb/$krel: the postinst built and installed it, vermagic $krel, signed by the key DKMS was given"
	fi
done
# Without a signing key: the package's scripts build it again, unsigned.
sign_without "$tmp/sign"
if ! DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install --reinstall \
	"$dkms_deb" > "$tmp/reinstall.log" 2>&1; then
	echo "FAIL host/deb/unsigned: reinstall: $(tail -n 12 "$tmp/reinstall.log" | tr '\n' '|')"
fi
for krel in "${krels[@]}"; do
	if ! err=$(check_ko "$krel" "/lib/modules/$krel/updates/dkms/skbprof.ko") ||
	   ! err=$(check_unsigned "/lib/modules/$krel/updates/dkms/skbprof.ko"); then
		echo "FAIL host/deb/$krel/unsigned: $err"
	else
		echo "ok host/deb/$krel/unsigned: without a signing key, built and installed unsigned"
	fi
done
sign_restore
# The units: installed, enabled by nobody, and started by nobody: the
# postinst starts them through deb-systemd-invoke, which skips disabled
# units (policy-rc.d, which denies everything on a build host, left out)
state=$(systemctl is-enabled skbprof.service skbprof-prom.timer skbprof-prom.service 2>&1 | tr '\n' ' ')
if [ "$state" != "disabled disabled static " ]; then
	echo "FAIL host/deb/units-disabled: systemctl is-enabled: $state"
else
	echo "ok host/deb/units-disabled: skbprof.service, skbprof-prom.timer disabled; skbprof-prom.service static"
fi
mkdir "$tmp/nopolicy"
DPKG_ROOT=$tmp/nopolicy deb-systemd-invoke start skbprof.service skbprof-prom.timer \
	skbprof-prom.service > "$tmp/invoke.log" 2>&1
rc=$?
if [ $rc -ne 0 ] || [ "$(grep -c 'is a disabled or a static unit, not starting it' "$tmp/invoke.log")" != 3 ]; then
	echo "FAIL host/deb/units-not-started: deb-systemd-invoke start exited $rc: $(tr '\n' '|' < "$tmp/invoke.log")"
else
	echo "ok host/deb/units-not-started: deb-systemd-invoke start, as the postinst runs it, starts none of them"
fi
if [ -x /usr/sbin/skbprof ]; then
	echo "ok host/deb/tool: /usr/sbin/skbprof"
else
	echo "FAIL host/deb/tool: no /usr/sbin/skbprof"
fi

DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" purge skbprof-dkms skbprof-tools \
	> "$tmp/purge.log" 2>&1 || echo "FAIL host/deb/purge: $(tail -n 5 "$tmp/purge.log" | tr '\n' '|')"
left=$(skbprof_leftovers)
if [ -n "$left" ]; then
	echo "FAIL host/deb/purge: left behind: $(tr '\n' ' ' <<< "$left")"
else
	echo "ok host/deb/purge: nothing left behind ($(($(date +%s) - start)) s in all)"
fi
