# SPDX-License-Identifier: GPL-2.0
#
# skbprof top-level Makefile.
#
#   make                  module (against KDIR) and tools; without json-c
#                         (libjson-c-dev, found by pkg-config) the module
#                         only, saying so in one line
#   make KVER=6.1.0-13-cloud-amd64   build against /lib/modules/$(KVER)/build
#   make KDIR=/path/to/headers       build against a headers tree
#   make check            host unit tests + the in-guest suite on every kernel
#   make demo             boot a 6.1 guest, make traffic, show the files
#   make fuzz             fuzz the control grammar for FUZZ_TIME seconds
#   make check-stress     the slow guest tests (100 load/unload cycles under
#                         traffic) on every kernel
#   make check-debug      the in-guest suite on a debug kernel (KASAN,
#                         lockdep, kmemleak, ...) built from Debian's 6.1
#                         source (built once, about an hour; then cached)
#   make check-smp        t_smp.c's 10-minute load with 4 vCPUs running at
#                         once (multi-threaded TCG) on the kernels that
#                         boot so
#   make check-race       the concurrency tests on a KCSAN kernel built
#                         from Debian's 6.1 source (built once, about an
#                         hour; then cached); fails on a race in skbprof
#   make bench            overhead benchmark on every kernel (bench/results.md)
#   make bench-scale      cost per packet as flows, packets in flight,
#                         cgroups, CPUs and devices grow (bench/results.md)
#   make install          install the module and the tool
#   make dkms-install     install the module's source under DKMS and build it
#                         for $(KVER); make dkms-remove undoes it
#   make deb              Debian packages skbprof-dkms and skbprof-tools
#                         (dpkg-buildpackage) into $(DEBDIR); skbprof-tools
#                         for the host's architecture, or for each one
#                         DEB_ARCHES names, the others cross-built:
#                         make deb DEB_ARCHES="amd64 arm64"

VERSION := $(shell cat VERSION)
KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
PREFIX ?= /usr/local
DESTDIR ?=

# Extra arguments for the kernel build (e.g. W=1 CC=gcc-12).
KBUILD_ARGS ?=

export SKBPROF_WERROR

.PHONY: all module tools no-tools clean install modules_install tools_install \
	check check-arm64 check-stress check-debug check-smp check-race unit demo fuzz bench \
	bench-scale dkms-src dkms-install dkms-remove deb

# The reader tool needs json-c; a host without it still gets the module.
PKG_CONFIG ?= pkg-config
HAVE_JSONC := $(shell $(PKG_CONFIG) --exists json-c 2>/dev/null && echo y)

all: module $(if $(HAVE_JSONC),tools,no-tools)

no-tools: module
	@echo "skbprof: built the module only; the reader tool needs json-c: apt-get install libjson-c-dev pkg-config" >&2

module:
	@if [ ! -e "$(KDIR)/Makefile" ]; then \
		echo "skbprof: no kernel build tree at $(KDIR)" >&2; \
		echo "skbprof: install the headers (linux-headers-$(KVER)) or pass KDIR=" >&2; \
		exit 1; \
	fi
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_ARGS) modules

tools:
	$(MAKE) -C tools

modules_install: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_ARGS) modules_install

tools_install: tools
	$(MAKE) -C tools install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

install: modules_install tools_install

# What DKMS needs to build the module, and nothing else.  The installed
# dkms.conf has the version written out: dh_dkms reads it as text.
DKMS_FILES := Kbuild VERSION module/Kbuild \
	$(wildcard module/*.c) $(wildcard module/*.h)
DKMS_DIR := $(DESTDIR)/usr/src/skbprof-$(VERSION)

dkms-src:
	rm -rf $(DKMS_DIR)
	for f in $(DKMS_FILES); do install -D -m 0644 $$f $(DKMS_DIR)/$$f; done
	sed 's/^PACKAGE_VERSION=.*/PACKAGE_VERSION="$(VERSION)"/' dkms.conf > $(DKMS_DIR)/dkms.conf
	grep -q '^PACKAGE_VERSION="$(VERSION)"$$' $(DKMS_DIR)/dkms.conf

dkms-install: dkms-src
	dkms add skbprof/$(VERSION)
	dkms build skbprof/$(VERSION) -k $(KVER)
	dkms install skbprof/$(VERSION) -k $(KVER)

dkms-remove:
	-dkms remove skbprof/$(VERSION) --all
	rm -rf $(DKMS_DIR)

# Debian packages, built by dpkg-buildpackage in a copy of the tree (it
# writes its results next to the tree); the .deb files land in $(DEBDIR).
# skbprof-tools for each architecture in DEB_ARCHES (default: the host's).
DEBDIR ?= $(CURDIR)/build/deb
DEB_ARCHES ?= $(shell dpkg --print-architecture 2>/dev/null)
deb:
	DEB_ARCHES="$(DEB_ARCHES)" scripts/build-deb.sh $(DEBDIR)

unit:
	$(MAKE) -C tests/unit run

check:
	tests/check.sh

# The arm64 kernels alone (cross-built, booted under qemu-system-aarch64),
# with the host tests; make check runs them too.
check-arm64:
	SKBPROF_KERNELS="arm64-6.1 arm64-7.2" SKBPROF_SKIP_SELFTEST=1 tests/check.sh

# Minutes per kernel under TCG, so not in make check; 12 to 25 minutes a
# kernel when guests share the host's cores, so an hour allowed per boot.
# Its one test runs that long without a line: no stall watchdog.
STRESS_TIMEOUT ?= 3600
check-stress:
	SKBPROF_SKIP_SELFTEST=1 SKBPROF_SLOW=1 SKBPROF_TESTS=stress_load_unload_100 \
		SKBPROF_TIMEOUT=$(STRESS_TIMEOUT) SKBPROF_STALL=0 tests/check.sh

# Debug kernels under TCG are slow: a long timeout, more memory for KASAN,
# and no stall watchdog (its stress test alone runs for half an hour).
DEBUG_TIMEOUT ?= 10800
check-debug:
	scripts/build-debug-kernel.sh >/dev/null
	SKBPROF_KERNELS=debug SKBPROF_SKIP_SELFTEST=1 SKBPROF_MEM=2G SKBPROF_SLOW=1 \
		SKBPROF_TIMEOUT=$(DEBUG_TIMEOUT) SKBPROF_STALL=0 tests/check.sh

# The long form of t_smp.c: 10 minutes of load with 4 vCPUs at once, one
# guest at a time (each takes 4 host threads), on every supported kernel:
# each boots and runs under multi-threaded TCG, arm64 too (45-second runs
# of smp_load passed on all six).
SMP_KERNELS ?= 5.10 6.1 6.12 7.2 arm64-6.1 arm64-7.2
SMP_SECS ?= 600
check-smp:
	SKBPROF_KERNELS="$(SMP_KERNELS)" SKBPROF_SMP=4 SKBPROF_SMP_SECS=$(SMP_SECS) \
		SKBPROF_TESTS=smp_load SKBPROF_JOBS=1 SKBPROF_SKIP_SELFTEST=1 \
		SKBPROF_SKIP_DKMS=1 SKBPROF_TIMEOUT=3600 tests/check.sh

# KCSAN, the data-race detector: the tests whose children run beside the
# module's handlers.  smp_load arms its probes while idle, so runs with 4
# vCPUs at once; the load/unload stress tests patch kernel text under
# load, which hangs multi-threaded TCG, so they run in the default boot,
# 2 vCPUs by turns (KCSAN's watchpoints still stall one vCPU while the
# other runs), with stress_exhaustion, whose count of the kernel's own
# drop counters came out one short of what it sent with 4 vCPUs at once.
# A KCSAN report whose racing access is skbprof's fails the run
# (tests/lib.sh, kcsan_split).
RACE_TIMEOUT ?= 7200
check-race:
	scripts/build-debug-kernel.sh race >/dev/null
	SKBPROF_KERNELS=race SKBPROF_SMP=4 SKBPROF_TESTS=smp_load \
		SKBPROF_SKIP_SELFTEST=1 SKBPROF_SKIP_DKMS=1 SKBPROF_MEM=2G \
		SKBPROF_TIMEOUT=$(RACE_TIMEOUT) SKBPROF_STALL=0 tests/check.sh
	SKBPROF_KERNELS=race SKBPROF_SLOW=1 \
		SKBPROF_TESTS="stress_exhaustion lifecycle_failing_loads stress_load_unload_100" \
		SKBPROF_SKIP_SELFTEST=1 SKBPROF_SKIP_DKMS=1 SKBPROF_MEM=2G \
		SKBPROF_TIMEOUT=$(RACE_TIMEOUT) SKBPROF_STALL=0 tests/check.sh

FUZZ_TIME ?= 300
fuzz:
	scripts/deps.sh fuzz
	$(MAKE) -C tests/fuzz run FUZZ_TIME=$(FUZZ_TIME)

demo:
	tests/demo.sh

# Not part of check: a benchmark, not a timed test (bench/README).
bench:
	bench/run.sh

# The scale benchmark (bench/README, "Scale"): 6.1 unless SKBPROF_KERNELS.
bench-scale:
	BENCH_SCALE=1 SKBPROF_KERNELS="$${SKBPROF_KERNELS:-6.1}" bench/run.sh

# Not Kbuild's clean: it deletes every *.ko below M=, which would include
# the kernels downloaded into .cache/.
clean:
	rm -f module/*.o module/*.ko module/*.mod module/*.mod.c \
		module/.*.cmd module/modules.order module/*.dwo module/.*.d \
		Module.symvers modules.order .*.cmd .module-common.o
	rm -rf build
	$(MAKE) -C tools clean
	$(MAKE) -C tests/unit clean
	$(MAKE) -C tests/fuzz clean
	$(MAKE) -C bench clean
