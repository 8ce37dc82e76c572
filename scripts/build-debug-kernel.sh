#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build a debug kernel from Debian's 6.1 kernel source for `make
# check-debug`, cache it, and print the path of its kernel.env (the same
# shape fetch-kernel.sh gives).
#
# Configuration: Debian's cloud config, reduced to the modules the guest
# tests load (localmodconfig), plus
#   KASAN (generic, inline)          use-after-free, out-of-bounds
#   PROVE_LOCKING, PROVE_RCU         lockdep and RCU usage checks
#   DEBUG_KMEMLEAK                   leaks (scanned by the guest suite)
#   DEBUG_ATOMIC_SLEEP               sleeping in atomic context
#   DEBUG_OBJECTS (+ RCU head, timers, work, free)
# Takes a long time (about an hour on two cores); reused once built.

set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
cache=${SKBPROF_CACHE:-$top/.cache}
out=$cache/kernels/debug
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
$sc --set-str LOCALVERSION "-skbprof-debug" --disable LOCALVERSION_AUTO
$sc --enable KASAN --enable KASAN_GENERIC --enable KASAN_INLINE \
    --enable PROVE_LOCKING --enable PROVE_RCU --enable DEBUG_LOCKDEP \
    --enable DEBUG_KMEMLEAK --enable DEBUG_KMEMLEAK_AUTO_SCAN \
    --set-val DEBUG_KMEMLEAK_MEM_POOL_SIZE 16000 \
    --disable DEBUG_KMEMLEAK_DEFAULT_OFF \
    --enable DEBUG_ATOMIC_SLEEP \
    --enable DEBUG_OBJECTS --enable DEBUG_OBJECTS_FREE \
    --enable DEBUG_OBJECTS_TIMERS --enable DEBUG_OBJECTS_WORK \
    --enable DEBUG_OBJECTS_RCU_HEAD --enable DEBUG_OBJECTS_PERCPU_COUNTER \
    --set-val DEBUG_OBJECTS_ENABLE_DEFAULT 1 \
    --enable KPROBES --enable KRETPROBES --enable DEBUG_FS --enable KALLSYMS_ALL
make olddefconfig >&2
for opt in KASAN PROVE_LOCKING PROVE_RCU DEBUG_KMEMLEAK DEBUG_ATOMIC_SLEEP \
	DEBUG_OBJECTS KPROBES KRETPROBES; do
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
