#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scripts/build-debug-kernel.sh [debug|race]
#
# Build a checking kernel from Debian's 6.1 kernel source, cache it under
# $SKBPROF_CACHE/kernels/FLAVOR, and print the path of its kernel.env (the
# same shape fetch-kernel.sh gives).  Two flavors, because KCSAN cannot
# share a kernel with KASAN:
#
#   debug (make check-debug; the default)
#     KASAN (generic, inline)          use-after-free, out-of-bounds
#     PROVE_LOCKING, PROVE_RCU         lockdep and RCU usage checks
#     DEBUG_KMEMLEAK                   leaks (scanned by the guest suite)
#     DEBUG_ATOMIC_SLEEP               sleeping in atomic context
#     DEBUG_OBJECTS (+ RCU head, timers, work, free)
#   race (make check-race)
#     KCSAN                            data races, by watchpoints
#     not KCSAN_STRICT: the kernel's default rules (a race is reported
#     when a plain access conflicts and the value changed; aligned plain
#     writes up to a word count as atomic).  Strict mode also reports
#     every unmarked access of the core network stack that the kernel
#     itself does not annotate, which drowns the module's own reports,
#     and its weak-memory modelling slows a guest that already crawls
#     under TCG.  No KASAN (KCSAN excludes it), no lockdep (its own
#     accesses multiply KCSAN's work and it is check-debug's job).
#     KCSAN_REPORT_ONCE_IN_MS=1000: a race repeats millions of times a
#     run; once a second per race is enough to see it and keeps the log
#     readable.
#
# KCSAN_SELFTEST proves at boot that the detector reports races (the
# guest's log says "kcsan: selftest: 3/3 tests passed").
#
# Both start from Debian's cloud config, reduced to the modules the guest
# tests load (localmodconfig).  Takes a long time (about an hour on two
# cores); reused once built.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${SKBPROF_CACHE:-$top/.cache}
flavor=${1:-debug}
case $flavor in
debug|race) ;;
*)	echo "build-debug-kernel: unknown flavor '$flavor' (want debug or race)" >&2
	exit 1 ;;
esac
out=$cache/kernels/$flavor
jobs=${JOBS:-$(nproc)}

if [ -e "$out/kernel.env" ]; then
	echo "$out/kernel.env"
	exit 0
fi

"$top/scripts/deps.sh" debug
base_env=$("$top/scripts/fetch-kernel.sh" 6.1)
# shellcheck disable=SC1090
. "$base_env"
base_config=$MODROOT/boot/config-$KREL
base_krel=$KREL

mkdir -p "$out"
src=$out/src
if [ ! -e "$src/Makefile" ]; then
	# shellcheck source=private-apt.sh
	. "$top/scripts/private-apt.sh"
	tmp=$(mktemp -d)
	private_apt_extract bookworm linux-source-6.1 \
		usr/src/linux-source-6.1.tar.xz "$tmp"
	rm -rf "$src.new"
	mkdir -p "$src.new"
	tar -xJf "$tmp/usr/src/linux-source-6.1.tar.xz" -C "$src.new" --strip-components=1
	rm -rf "$tmp"
	mv "$src.new" "$src"
fi

cd "$src"
cp "$base_config" .config
# Keep only the modules the guest tests load, and what they depend on.
lsmod_file=$out/lsmod
{
	echo "Module Size Used"
	grep -v '^#' "$top/tests/qemu/modules.list" | while read -r m; do
		m=${m%\?}
		[ -n "$m" ] && echo "$m 0 0"
	done
	for m in nf_tables nfnetlink nf_conntrack nf_defrag_ipv4 nf_defrag_ipv6 \
		nf_reject_ipv4 nf_reject_ipv6 libcrc32c nft_reject nft_chain_nat \
		nf_nat; do
		echo "$m 0 0"
	done
} > "$lsmod_file"
make LSMOD="$lsmod_file" localmodconfig < /dev/null >&2 || true

sc=scripts/config
$sc --disable DEBUG_INFO --enable DEBUG_INFO_NONE --disable DEBUG_INFO_BTF \
    --disable DEBUG_INFO_DWARF5 --disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT
$sc --set-str SYSTEM_TRUSTED_KEYS "" --set-str SYSTEM_REVOCATION_KEYS "" \
    --disable MODULE_SIG_ALL --disable MODULE_SIG_FORCE \
    --set-str MODULE_SIG_KEY "certs/signing_key.pem"
$sc --set-str LOCALVERSION "-skbprof-$flavor" --disable LOCALVERSION_AUTO
$sc --enable KPROBES --enable KRETPROBES --enable DEBUG_FS --enable KALLSYMS_ALL
case $flavor in
debug)
	checks="KASAN PROVE_LOCKING PROVE_RCU DEBUG_KMEMLEAK DEBUG_ATOMIC_SLEEP DEBUG_OBJECTS"
	$sc --enable KASAN --enable KASAN_GENERIC --enable KASAN_INLINE \
    --enable PROVE_LOCKING --enable PROVE_RCU --enable DEBUG_LOCKDEP \
    --enable DEBUG_KMEMLEAK --enable DEBUG_KMEMLEAK_AUTO_SCAN \
    --set-val DEBUG_KMEMLEAK_MEM_POOL_SIZE 16000 \
    --disable DEBUG_KMEMLEAK_DEFAULT_OFF \
    --enable DEBUG_ATOMIC_SLEEP \
    --enable DEBUG_OBJECTS --enable DEBUG_OBJECTS_FREE \
    --enable DEBUG_OBJECTS_TIMERS --enable DEBUG_OBJECTS_WORK \
    --enable DEBUG_OBJECTS_RCU_HEAD --enable DEBUG_OBJECTS_PERCPU_COUNTER \
    --set-val DEBUG_OBJECTS_ENABLE_DEFAULT 1 ;;
race)
	checks=KCSAN
	$sc --disable KASAN --disable PROVE_LOCKING --disable DEBUG_LOCKDEP \
	    --enable KCSAN --disable KCSAN_STRICT --disable KCSAN_WEAK_MEMORY \
	    --enable KCSAN_REPORT_VALUE_CHANGE_ONLY \
	    --enable KCSAN_ASSUME_PLAIN_WRITES_ATOMIC \
	    --set-val KCSAN_REPORT_ONCE_IN_MS 1000 --enable KCSAN_SELFTEST ;;
esac
make olddefconfig >&2
for opt in $checks KPROBES KRETPROBES; do
	grep -q "^CONFIG_$opt=y" .config || {
		echo "build-debug-kernel: CONFIG_$opt did not stick" >&2
		exit 1
	}
done

make -j"$jobs" bzImage modules >&2
rm -rf "$out/modroot"
make INSTALL_MOD_PATH="$out/modroot" modules_install >&2
krel=$(make -s kernelrelease)
cat > "$out/kernel.env" <<ENV
KREL=$krel
KDIR=$src
VMLINUZ=$src/arch/x86/boot/bzImage
MODROOT=$out/modroot
KCC=gcc
BASE_KREL=$base_krel
ENV
echo "$out/kernel.env"
