# SPDX-License-Identifier: GPL-2.0
#
# Shared by tests/host/dkms.sh and tests/host/deb.sh, which install
# skbprof with DKMS on this host for real (sourced; not a test itself).
#
# dkms_setup: returns non-zero (after printing why) when the tests cannot
# run.  Takes a lock, so that two runs (two worktrees' `make check`) do not
# share DKMS's state at once; installs the header packages of the bookworm
# kernels 6.1 and 6.12 and dkms if missing.  Sets:
#   top, ver     the tree and its VERSION
#   krels        releases of the installed header packages (6.1, 6.12)
#   krel510, kdir510   the 5.10 kernel and its extracted headers tree:
#                bullseye's header packages do not install on bookworm
#                (they need bullseye's gcc-10 and linux-kbuild-5.10)
#   env_arm64    the kernel.env of arm64-6.1 (KREL, KDIR, KARCH,
#                KCROSS_COMPILE), empty if it cannot be had: Debian's
#                arm64 headers, extracted, for a cross build with
#                aarch64-linux-gnu-gcc (installed if missing)
#
# skbprof_purge: removes every trace of skbprof from packages, DKMS,
# /usr/src, /lib/modules and DKMS's configuration (sign_restore).  skbprof_leftovers prints what is left.
# check_ko KREL KO: vermagic and version of a built module (KO may have a
# compression suffix), and none of the test builds' parameters.
#
# Module signing (DKMS 3.x signs every module it builds when it finds the
# kernel's sign-file, with mok_signing_key and mok_certificate of its
# framework configuration; without them it uses /var/lib/dkms/mok.key and
# mok.pub, generating them when absent):
# sign_with NAME DIR: a throwaway key and certificate made in DIR, DKMS
# pointed at them by a framework.conf.d drop-in; sets sign_cn and
# sign_serial (FAIL line for test NAME if openssl fails).
# sign_without DIR: DKMS pointed at a key that is absent and cannot be
# made, so that it builds unsigned.  sign_restore removes the drop-in (the
# callers' cleanup traps run it).  check_signed KREL KO [CONFIG]: signed
# by sign_with's key with the kernel's CONFIG_MODULE_SIG_HASH (from CONFIG,
# by default /lib/modules/KREL/build/.config); check_unsigned
# KO: no signature.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ver=$(cat "$top/VERSION")
apt_opts=(-q -y --no-install-recommends -o DPkg::Lock::Timeout=600)

installed() {
	dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q '^install ok installed'
}

# kernel_env_file VER: the kernel.env of VER, from the cache when the guest
# runs fetched it already (fetch-kernel.sh takes ~40 s to check for a newer
# upload; the guest runs of make check do that).
kernel_env_file() {
	local f=${SKBPROF_CACHE:-$top/.cache}/kernels/$1/kernel.env
	if [ -e "$f" ]; then
		echo "$f"
	else
		"$top/scripts/fetch-kernel.sh" "$1" 2>/dev/null
	fi
}

dkms_setup() {	# dkms_setup NAME
	local name=$1 k env missing=()
	if [ "$(id -u)" != 0 ]; then
		echo "FAIL host/$name: needs root"
		return 1
	fi
	exec 9> /run/lock/skbprof-dkms.lock
	flock -w 1800 9 || { echo "FAIL host/$name: the DKMS lock is held"; return 1; }
	krels=()
	for k in 6.1 6.12; do
		env=$(kernel_env_file "$k") || {
			echo "FAIL host/$name/$k: cannot resolve the kernel"; continue; }
		krels+=("$(. "$env"; echo "$KREL")")
	done
	krel510= kdir510=
	if env=$(kernel_env_file 5.10); then
		krel510=$(. "$env"; echo "$KREL")
		kdir510=$(. "$env"; echo "$KDIR")
	fi
	for k in "${krels[@]}"; do
		installed "linux-headers-$k" || missing+=("linux-headers-$k")
	done
	installed dkms || missing+=(dkms)
	installed gcc-aarch64-linux-gnu || missing+=(gcc-aarch64-linux-gnu)
	if [ ${#missing[@]} -gt 0 ] &&
	   ! DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" install \
		"${missing[@]}" > /tmp/skbprof-dkms-apt.log 2>&1; then
		echo "FAIL host/$name: cannot install ${missing[*]}: see /tmp/skbprof-dkms-apt.log"
		return 1
	fi
	# after the cross compiler: fetch-kernel.sh wants it
	env_arm64=$(kernel_env_file arm64-6.1) || env_arm64=
	return 0
}

skbprof_purge() {
	local p v
	for p in skbprof-dkms skbprof-tools; do
		dpkg-query -W "$p" >/dev/null 2>&1 || continue
		DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" purge "$p" >/dev/null 2>&1 ||
			dpkg --purge --force-all "$p" >/dev/null 2>&1
	done
	for v in /var/lib/dkms/skbprof/*/; do
		[ -d "$v" ] || continue
		v=$(basename "$v")
		dkms remove "skbprof/$v" --all >/dev/null 2>&1
	done
	rm -rf /var/lib/dkms/skbprof /usr/src/skbprof-*
	rm -f /lib/modules/*/updates/dkms/skbprof.ko*
	sign_restore
}

skbprof_leftovers() {
	find /usr/src /var/lib/dkms /lib/modules/*/updates /usr/sbin/skbprof \
		"$sign_conf" /etc/modprobe.d /etc/default /lib/systemd/system \
		/etc/systemd/system /var/lib/systemd/deb-systemd-helper-enabled \
		-maxdepth 4 -name '*skbprof*' 2>/dev/null
	dpkg-query -W -f='${Package} ${Status}\n' skbprof-dkms skbprof-tools 2>/dev/null |
		grep -v ' not-installed$'
	dkms status 2>/dev/null | grep '^skbprof'
}

sign_conf=/etc/dkms/framework.conf.d/zz-skbprof-test-signing.conf

sign_with() {	# sign_with NAME DIR
	local d=$2
	sign_cn="skbprof test signing key $$ $(date +%s)"
	sign_serial=
	if ! openssl req -new -x509 -nodes -days 1 -subj "/CN=$sign_cn" \
		-newkey rsa:2048 -keyout "$d/mok.key" -outform DER -out "$d/mok.der" \
		> "$d/openssl.log" 2>&1; then
		echo "FAIL host/$1/sign: openssl: $(tail -n 3 "$d/openssl.log" | tr '\n' '|')"
		return 1
	fi
	sign_serial=$(openssl x509 -inform DER -in "$d/mok.der" -noout -serial | sed 's/^serial=//')
	printf 'mok_signing_key="%s"\nmok_certificate="%s"\n' "$d/mok.key" "$d/mok.der" > "$sign_conf"
}

sign_without() {	# sign_without DIR
	printf 'mok_signing_key="%s"\nmok_certificate="%s"\n' \
		"$1/absent/mok.key" "$1/absent/mok.der" > "$sign_conf"
}

sign_restore() {
	rm -f "$sign_conf"
}

# module_file KO: KO or KO with the compression suffix DKMS gave it
module_file() {
	local z
	for z in "" .xz .zst .gz; do
		[ -e "$1$z" ] && echo "$1$z" && return 0
	done
	echo "$1"
	return 1
}

check_signed() {	# check_signed KREL KO [CONFIG]: prints an error, returns non-zero if wrong
	local ko signer key algo want
	ko=$(module_file "$2") || { echo "no module at $ko"; return 1; }
	signer=$(modinfo -F signer "$ko" 2>/dev/null)
	key=$(modinfo -F sig_key "$ko" 2>/dev/null | tr -d ':')
	algo=$(modinfo -F sig_hashalgo "$ko" 2>/dev/null)
	want=$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"$/\1/p' "${3:-/lib/modules/$1/build/.config}" 2>/dev/null)
	if [ "$signer" != "$sign_cn" ] || [ "$key" != "$sign_serial" ] ||
	   [ "$algo" != "${want:-sha512}" ]; then
		echo "$ko: signer '$signer', sig_key '$key', sig_hashalgo '$algo' (want '$sign_cn', $sign_serial, ${want:-sha512})"
		return 1
	fi
}

check_unsigned() {	# check_unsigned KO: prints an error, returns non-zero if signed
	local ko
	ko=$(module_file "$1") || { echo "no module at $ko"; return 1; }
	if [ -n "$(modinfo -F sig_id "$ko" 2>/dev/null)" ]; then
		echo "$ko is signed by '$(modinfo -F signer "$ko")'"
		return 1
	fi
}

check_ko() {	# check_ko KREL KO: prints an error, returns non-zero if wrong
	local krel=$1 ko vm mv tp
	# DKMS compresses the module like the kernel's own (6.12: xz)
	ko=$(module_file "$2") || { echo "no module at $ko"; return 1; }
	vm=$(modinfo -F vermagic "$ko" 2>/dev/null)
	mv=$(modinfo -F version "$ko" 2>/dev/null)
	if [ "${vm%% *}" != "$krel" ] || [ "$mv" != "$ver" ]; then
		echo "$ko has vermagic '$vm', version '$mv' (want $krel, $ver)"
		return 1
	fi
	# the hooks of make check and make bench (SKBPROF_TESTING) stay out
	tp=$(modinfo -F parm "$ko" 2>/dev/null | grep -o -E '^(fail_init_at|drops_fail_init_at|probe_deny|bench_empty):')
	if [ -n "$tp" ]; then
		echo "$ko has the test parameters $(echo $tp)"
		return 1
	fi
}
