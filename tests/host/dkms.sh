#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# DKMS from the source tree, for real, on this host:
#   - dkms.conf's kernel range (BUILD_EXCLUSIVE_KERNEL) against release
#     names in and out of range, and a real `dkms build` for a kernel out
#     of range, which DKMS must skip (exit 77) without building;
#   - `make dkms-install KVER=<6.1>`: source to /usr/src, dkms add, build,
#     install; the installed module's vermagic names 6.1; with DKMS pointed
#     at a throwaway signing key (mok_signing_key, mok_certificate), the
#     module carries its signature;
#   - AUTOINSTALL: the hook a kernel package runs on installation
#     (/etc/kernel/postinst.d/dkms) builds and installs it for 6.12; with
#     no signing key to be had, unsigned;
#   - 5.10: bullseye's header packages do not install on bookworm (they
#     need bullseye's gcc-10 and linux-kbuild-5.10), so DKMS builds against
#     the extracted headers tree (--kernelsourcedir) with bookworm's gcc
#     standing in for gcc-10; built and vermagic checked, not installed
#     (this host has no /lib/modules for 5.10);
#   - arm64: Debian's arm64 6.1 headers (scripts/fetch-kernel.sh
#     arm64-6.1), `dkms build -a arm64` with CROSS_COMPILE: an AArch64
#     module whose vermagic names the arm64 kernel; not installed;
#   - 32-bit kernels: DKMS skips one (BUILD_EXCLUSIVE_CONFIG, exit 77), and
#     a build by hand stops at once, naming CONFIG_64BIT;
#   - 7.2: sid's headers need its gcc-16 and libc, so DKMS itself runs in
#     the sid build chroot (scripts/make-chroot.sh): add, build against
#     the chroot's 7.2 headers, vermagic checked, removed again;
#   - `make dkms-remove` leaves nothing behind.
# Cleans up after itself, also on failure.  The header packages stay, like
# any other test dependency.  Skipped with SKBPROF_SKIP_DKMS=1.

set -u
# shellcheck source=tests/host/dkms-lib.bash
. "$(dirname "$0")/dkms-lib.bash"

# The kernel range, without DKMS: release names in and out of it.
range=$(bash -c '. "$1"; echo "$BUILD_EXCLUSIVE_KERNEL"' _ "$top/dkms.conf")
bad=
for r in 5.10.0-46-cloud-amd64 5.15.0-1-amd64 5.19.17 6.1.0-56-cloud-amd64 \
	6.12.117+deb12-cloud-amd64 6.18.44-fc-v595 7.0.0-1-amd64 \
	7.2.13+deb14-cloud-amd64; do
	[[ $r =~ $range ]] || bad+=" $r (refused)"
done
for r in 4.19.0-27-amd64 5.4.0-1-amd64 5.9.16 3.16.0-11-amd64 8.0.0-1-amd64 \
	60.1.0 70.1.0; do
	[[ $r =~ $range ]] && bad+=" $r (accepted)"
done
if [ -n "$bad" ]; then
	echo "FAIL host/dkms/range: '$range':$bad"
else
	echo "ok host/dkms/range: '$range' takes 5.10 to 7.x, refuses older and 8"
fi

[ -n "${SKBPROF_SKIP_DKMS:-}" ] && exit 0
dkms_setup dkms || exit 0
start=$(date +%s)
log=$(mktemp)
shim=$(mktemp -d)
cleanup() {
	skbprof_purge
	rm -rf "$log" "$shim"
}
skbprof_purge
trap cleanup EXIT
trap 'exit 1' INT TERM HUP	# so that the EXIT trap runs on these too

krel61=${krels[0]:-}
krel612=${krels[1]:-}

if [ -n "$krel61" ]; then
	mkdir "$shim/sign"
	sign_with dkms "$shim/sign"
	if ! make -s -C "$top" dkms-install KVER="$krel61" > "$log" 2>&1; then
		echo "FAIL host/dkms/$krel61: make dkms-install: $(tail -n 8 "$log" | tr '\n' '|')"
	elif ! dkms status "skbprof/$ver" -k "$krel61" 2>/dev/null | grep -q ': installed$'; then
		echo "FAIL host/dkms/$krel61: dkms status: $(dkms status skbprof 2>&1)"
	elif err=$(check_ko "$krel61" "/lib/modules/$krel61/updates/dkms/skbprof.ko"); then
		echo "ok host/dkms/$krel61: make dkms-install: added, built, installed, vermagic $krel61"
	else
		echo "FAIL host/dkms/$krel61: $err"
	fi
	if err=$(check_signed "$krel61" "/lib/modules/$krel61/updates/dkms/skbprof.ko"); then
		echo "ok host/dkms/$krel61/signed: signed by the key DKMS was given ($(modinfo -F sig_hashalgo "/lib/modules/$krel61/updates/dkms/skbprof.ko"))"
	else
		echo "FAIL host/dkms/$krel61/signed: $err"
	fi
else
	# make dkms-install adds the source; the steps below need it too
	make -s -C "$top" dkms-src > /dev/null && dkms add "skbprof/$ver" > /dev/null
fi

if [ -n "$krel612" ]; then
	sign_without "$shim"
	if ! /etc/kernel/postinst.d/dkms "$krel612" > "$log" 2>&1; then
		echo "FAIL host/dkms/$krel612: autoinstall hook: $(tail -n 8 "$log" | tr '\n' '|')"
	elif ! dkms status "skbprof/$ver" -k "$krel612" 2>/dev/null | grep -q ': installed$'; then
		echo "FAIL host/dkms/$krel612: AUTOINSTALL: the kernel's hook did not install it: $(dkms status skbprof 2>&1 | tr '\n' '|')"
	elif ! err=$(check_ko "$krel612" "/lib/modules/$krel612/updates/dkms/skbprof.ko"); then
		echo "FAIL host/dkms/$krel612: $err"
	elif ! err=$(check_unsigned "/lib/modules/$krel612/updates/dkms/skbprof.ko"); then
		echo "FAIL host/dkms/$krel612: without a signing key: $err"
	else
		echo "ok host/dkms/$krel612: AUTOINSTALL: the kernel's postinst hook built and installed it, vermagic $krel612; without a signing key, unsigned"
	fi
	sign_restore
fi

# DKMS skips a kernel out of range, with its "skipped" status 77.
if [ -n "$krel61" ]; then
	dkms build "skbprof/$ver" -k 4.19.0-27-amd64 \
		--kernelsourcedir "/lib/modules/$krel61/build" > "$log" 2>&1
	rc=$?
	if [ $rc -ne 77 ] || [ -e /var/lib/dkms/skbprof/"$ver"/4.19.0-27-amd64 ]; then
		echo "FAIL host/dkms/out-of-range: dkms build for 4.19 exited $rc (want 77): $(tail -n 3 "$log" | tr '\n' '|')"
	else
		echo "ok host/dkms/out-of-range: dkms skips 4.19 (BUILD_EXCLUSIVE_KERNEL, exit 77)"
	fi
fi

# A 32-bit kernel: 6.1's configuration without CONFIG_64BIT.
if [ -n "$krel61" ]; then
	k32=$shim/k32
	mkdir -p "$k32"
	grep -v '^CONFIG_64BIT=' "/lib/modules/$krel61/build/.config" > "$k32/.config"
	dkms build "skbprof/$ver" -k "$krel61-i686" --kernelsourcedir "$k32" > "$log" 2>&1
	rc=$?
	if [ $rc -ne 77 ] || [ -e /var/lib/dkms/skbprof/"$ver"/"$krel61-i686" ]; then
		echo "FAIL host/dkms/32-bit: dkms build for a kernel without CONFIG_64BIT exited $rc (want 77): $(tail -n 3 "$log" | tr '\n' '|')"
	else
		echo "ok host/dkms/32-bit: dkms skips a kernel without CONFIG_64BIT (exit 77)"
	fi
	# By hand: Kbuild stops before compiling anything, and says why.
	src=$shim/src
	mkdir -p "$src"
	cp -r "$top/Kbuild" "$top/VERSION" "$top/module" "$src/"
	if make -C "/lib/modules/$krel61/build" M="$src" CONFIG_64BIT= modules > "$log" 2>&1; then
		echo "FAIL host/kbuild/32-bit: a build with CONFIG_64BIT unset succeeded"
	elif ! grep -q 'skbprof: needs a 64-bit kernel (CONFIG_64BIT)' "$log" ||
	     ls "$src"/module/*.o > /dev/null 2>&1; then
		echo "FAIL host/kbuild/32-bit: no clear stop: $(tail -n 3 "$log" | tr '\n' '|')"
	else
		echo "ok host/kbuild/32-bit: a build with CONFIG_64BIT unset stops, naming CONFIG_64BIT"
	fi
	# and the check leaves Kbuild's clean alone (it reads no .config)
	if make -C "/lib/modules/$krel61/build" M="$src" clean > "$log" 2>&1; then
		echo "ok host/kbuild/clean: make clean works on a 64-bit kernel"
	else
		echo "FAIL host/kbuild/clean: $(tail -n 3 "$log" | tr '\n' '|')"
	fi
fi

if [ -z "$krel510" ]; then
	echo "FAIL host/dkms/5.10: cannot fetch the 5.10 kernel"
else
	ln -s "$(command -v gcc)" "$shim/gcc-10"
	ko=/var/lib/dkms/skbprof/$ver/$krel510/$(uname -m)/module/skbprof.ko
	if ! PATH=$shim:$PATH dkms build "skbprof/$ver" -k "$krel510" \
		--kernelsourcedir "$kdir510" > "$log" 2>&1; then
		echo "FAIL host/dkms/$krel510: dkms build: $(tail -n 8 "$log" | tr '\n' '|')"
	elif err=$(check_ko "$krel510" "$ko"); then
		echo "ok host/dkms/$krel510: built against the extracted headers (bullseye's header packages do not install on bookworm; gcc $(gcc -dumpversion) for gcc-10), vermagic $krel510; not installed"
	else
		echo "FAIL host/dkms/$krel510: $err"
	fi
fi

# arm64: Debian's arm64 6.1, cross-built by this host's DKMS.  DKMS 3.0's
# --arch only names the build's directory (and is $arch in dkms.conf); the
# kernel's own make variables do the rest: the headers' .kernelvariables
# set ARCH=arm64 and CC=$(CROSS_COMPILE)gcc-12, which DKMS evaluates with
# the environment's CROSS_COMPILE, and make takes ARCH and CROSS_COMPILE
# from the environment.  DKMS's own strip is the host's, which cannot
# read an arm64 module: with CROSS_COMPILE set, dkms.conf strips it with
# the cross toolchain's instead.  Built and checked, not installed.
if [ -z "$env_arm64" ]; then
	echo "FAIL host/dkms/arm64-6.1: cannot fetch the arm64 6.1 kernel"
else
	krelarm=$(. "$env_arm64"; echo "$KREL")
	kdirarm=$(. "$env_arm64"; echo "$KDIR")
	karch=$(. "$env_arm64"; echo "$KARCH")
	kcross=$(. "$env_arm64"; echo "$KCROSS_COMPILE")
	ko=/var/lib/dkms/skbprof/$ver/$krelarm/$karch/module/skbprof.ko
	# DKMS signs it with the host's sign-file (linux-kbuild-6.1): a
	# throwaway key, not one DKMS would generate and leave behind
	mkdir "$shim/sign-arm64"
	sign_with dkms "$shim/sign-arm64"
	if ! ARCH=$karch CROSS_COMPILE=$kcross dkms build "skbprof/$ver" -k "$krelarm" \
		-a "$karch" --kernelsourcedir "$kdirarm" > "$log" 2>&1; then
		echo "FAIL host/dkms/$krelarm: dkms build -a $karch: $(tail -n 8 "$log" | tr '\n' '|')"
	elif ! err=$(check_ko "$krelarm" "$ko"); then
		echo "FAIL host/dkms/$krelarm: $err"
	elif machine=$(readelf -h "$(module_file "$ko")" 2>&1 | sed -n 's/^ *Machine: *//p') &&
	     [ "$machine" != AArch64 ]; then
		echo "FAIL host/dkms/$krelarm: $ko is for '$machine', not AArch64"
	elif readelf -S -W "$(module_file "$ko")" | grep -q ' \.debug_info ' ||
	     grep -q '^strip: ' "$log"; then
		echo "FAIL host/dkms/$krelarm: not stripped: $(grep '^strip: ' "$log" | tr '\n' '|')$(readelf -S -W "$(module_file "$ko")" | grep -o ' \.debug_info ')"
	elif ! err=$(check_signed "$krelarm" "$ko" "$kdirarm/.config"); then
		echo "FAIL host/dkms/$krelarm: $err"
	else
		echo "ok host/dkms/$krelarm: dkms build -a $karch with CROSS_COMPILE=$kcross: an AArch64 module, vermagic $krelarm, stripped, signed; not installed"
	fi
	sign_restore
fi

# 7.2, with sid's own DKMS in the sid chroot the harness builds 7.2 in.
if env72=$(kernel_env_file 7.2) && krel72=$(. "$env72"; echo "$KREL") &&
   root72=$(. "$env72"; echo "$KCHROOT") && [ -n "$root72" ] &&
   "$top/scripts/make-chroot.sh" sid dkms > "$log" 2>&1; then
	src72=$shim/dkms72
	make -s -C "$top" dkms-src DESTDIR="$src72" > /dev/null
	"$top/scripts/in-chroot.sh" "$root72" "$src72" bash -c '
		dkms add "$1/usr/src/skbprof-$2" && dkms build "skbprof/$2" -k "$3"
		rc=$?
		modinfo -F vermagic /var/lib/dkms/skbprof/"$2"/"$3"/*/module/skbprof.ko* 2>&1 | head -n1
		dkms remove "skbprof/$2" --all > /dev/null 2>&1
		rm -rf "/usr/src/skbprof-$2"
		exit $rc' dkms72 "$src72" "$ver" "$krel72" > "$log" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		echo "FAIL host/dkms/$krel72: dkms build in the sid chroot exited $rc: $(tail -n 8 "$log" | tr '\n' '|')"
	elif ! grep -q "^$krel72 " "$log"; then
		echo "FAIL host/dkms/$krel72: vermagic: $(tail -n 3 "$log" | tr '\n' '|')"
	else
		echo "ok host/dkms/$krel72: sid's DKMS built it in the sid chroot, vermagic $krel72"
	fi
else
	echo "FAIL host/dkms/7.2: no 7.2 kernel or sid chroot: $(tail -n 3 "$log" | tr '\n' '|')"
fi

make -s -C "$top" dkms-remove > "$log" 2>&1
left=$(skbprof_leftovers)
if [ -n "$left" ]; then
	echo "FAIL host/dkms/remove: left behind: $(tr '\n' ' ' <<< "$left")"
else
	echo "ok host/dkms/remove: make dkms-remove leaves nothing behind ($(($(date +%s) - start)) s in all)"
fi
