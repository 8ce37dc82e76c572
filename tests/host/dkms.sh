#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS for real: install Debian's header packages of the supported
# bookworm kernels (6.1, 6.12), then `make dkms-src`, `dkms add`, `dkms
# build`, `dkms install` for each, check the installed module's vermagic
# names that kernel, and `make dkms-remove`.  Leaves nothing of skbprof
# behind (the header packages stay, like any other test dependency).
#
# 5.10 is not tested here: bullseye's header packages do not install on
# bookworm (they depend on gcc-10).
#
# Skipped with SKBPROF_SKIP_DKMS=1 (it installs packages on the host).

set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
[ -n "${SKBPROF_SKIP_DKMS:-}" ] && exit 0
ver=$(cat "$top/VERSION")

if [ "$(id -u)" != 0 ]; then
	echo "FAIL host/dkms: needs root"
	exit 0
fi

krels=()
for k in 6.1 6.12; do
	env=$("$top/scripts/fetch-kernel.sh" "$k" 2>/dev/null) || {
		echo "FAIL host/dkms/$k: cannot resolve the kernel"; continue; }
	krels+=("$(. "$env"; echo "$KREL")")
done

missing=()
for krel in "${krels[@]}"; do
	dpkg-query -W -f='${Status}\n' "linux-headers-$krel" 2>/dev/null |
		grep -q '^install ok installed' || missing+=("linux-headers-$krel")
done
dpkg-query -W -f='${Status}\n' dkms 2>/dev/null | grep -q '^install ok installed' ||
	missing+=(dkms)
if [ ${#missing[@]} -gt 0 ]; then
	DEBIAN_FRONTEND=noninteractive apt-get -q install -y --no-install-recommends \
		"${missing[@]}" > /tmp/skbprof-dkms-apt.log 2>&1 ||
		{ echo "FAIL host/dkms: cannot install ${missing[*]}"; exit 0; }
fi

cleanup() {
	make -s -C "$top" dkms-remove >/dev/null 2>&1
}
cleanup
trap cleanup EXIT

log=$(mktemp)
if ! make -s -C "$top" dkms-src > "$log" 2>&1 ||
   ! dkms add "skbprof/$ver" >> "$log" 2>&1; then
	echo "FAIL host/dkms/add: $(tail -n 5 "$log" | tr '\n' '|')"
	exit 0
fi
echo "ok host/dkms/add: skbprof/$ver"

for krel in "${krels[@]}"; do
	if ! dkms build "skbprof/$ver" -k "$krel" > "$log" 2>&1 ||
	   ! dkms install "skbprof/$ver" -k "$krel" >> "$log" 2>&1; then
		echo "FAIL host/dkms/$krel: $(tail -n 8 "$log" | tr '\n' '|')"
		continue
	fi
	ko=/lib/modules/$krel/updates/dkms/skbprof.ko
	[ -e "$ko" ] || ko=$(ls /lib/modules/"$krel"/updates/dkms/skbprof.ko* 2>/dev/null | head -n1)
	vm=$(modinfo -F vermagic "$ko" 2>/dev/null)
	mv=$(modinfo -F version "$ko" 2>/dev/null)
	if [ "${vm%% *}" != "$krel" ] || [ "$mv" != "$ver" ]; then
		echo "FAIL host/dkms/$krel: $ko has vermagic '$vm', version '$mv'"
	else
		echo "ok host/dkms/$krel: built, installed, vermagic $krel"
	fi
done

make -s -C "$top" dkms-remove > "$log" 2>&1
left=$(find /usr/src /var/lib/dkms /lib/modules/*/updates -name 'skbprof*' 2>/dev/null)
if [ -n "$left" ]; then
	echo "FAIL host/dkms/remove: left behind: $(tr '\n' ' ' <<< "$left")"
else
	echo "ok host/dkms/remove: nothing left behind"
fi
rm -f "$log"
