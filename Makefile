# SPDX-License-Identifier: GPL-2.0
#
# Developer entry point for raid5j.  Kernel build settings live in Kbuild;
# this file finds the kernel, fetches md core's private headers and runs
# the checks and tests.
#
#   make                    build raid5j.ko for the Debian 6.1 kernel and r5jtool
#   make W=1 | V=1          passed through to kbuild
#   make KVER=6.1.0-57-amd64 | KVER=6.12 | KDIR=/path/to/headers
#   make check              deps, module, unit tests, VM suite
#   make check-long [LONG_CYCLES=100]  write-back power cuts, RAID5 and RAID6 (not CI)
#   make check-slow  the VM scenarios CI leaves out for their time
#   make vm T="create-assemble fio-verify" PERSONALITY=raid456
#   make demo
#   make bench [QUICK=1] [BENCH=basic] [LEVEL=6] [DISKS=N]  raid5j vs raid456
#   make fuzz [FUZZ_SECONDS=60] [FUZZ_TARGETS="bounds replay"]  libFuzzer, ASan/UBSan
#
# The target kernel is Debian's 6.1 (linux-image-6.1.*-amd64) or, with
# KVER=6.12, its 6.12 (linux-image-6.12.*+deb12-amd64); never the host's
# running kernel: `uname -r` is not used.

KVER ?= $(shell $(CURDIR)/scripts/kver.sh --headers 2>/dev/null)
# A bare series (KVER=6.1, KVER=6.12) means its newest installed kernel.
ifneq ($(filter 6.1 6.12,$(KVER)),)
override KVER := $(shell $(CURDIR)/scripts/kver.sh --headers $(KVER) 2>/dev/null)
endif
KVER := $(KVER)
KDIR ?= /lib/modules/$(KVER)/build

BUILD     := $(CURDIR)/build
MDHDR     := $(BUILD)/md-headers/$(KVER)
MD_FILES  := drivers/md/md.h drivers/md/md-cluster.h drivers/md/md-bitmap.h \
	     drivers/md/raid5.h
CP_DIR    := $(BUILD)/checkpatch/$(KVER)
CP_FILES  := scripts/checkpatch.pl scripts/spelling.txt scripts/const_structs.checkpatch
STYLE_SRC  = $(wildcard drivers/*.c drivers/dmraid/*.c drivers/shared/*.c include/raid5j/*.h)

VERSION   := $(shell git -C $(CURDIR) describe --always --dirty 2>/dev/null || echo 0.1)
VERSION   := $(patsubst v%,%,$(VERSION))

KBUILD     = $(MAKE) -C $(KDIR) M=$(CURDIR) R5J_MDHDR=$(MDHDR)

all: module tools

kver:
	@if [ -z "$(KVER)" ]; then \
		echo "error: no Debian 6.1/6.12 kernel headers installed (run: make deps)" >&2; \
		exit 1; \
	fi
	@if [ ! -e "$(KDIR)/Makefile" ]; then \
		echo "error: kernel build dir $(KDIR) not found (run: make deps)" >&2; \
		exit 1; \
	fi

md-headers: kver
	@$(CURDIR)/scripts/extract-kernel-source.sh $(KVER) $(MDHDR) $(MD_FILES)

module: md-headers
	$(KBUILD) modules
	@$(CURDIR)/scripts/check-dmraid-crcs.sh $(KDIR) $(CURDIR)/Module.symvers

# r5jtool (tools/Makefile): plain userspace C, no kernel needed.
tools:
	$(MAKE) -C tools

sparse: md-headers
	$(KBUILD) C=2 CHECK="sparse" modules

# checkpatch runs from its cache dir: outside a git tree it keeps its
# CamelCase cache there, not in the top of this repository.
style: kver
	@$(CURDIR)/scripts/extract-kernel-source.sh $(KVER) $(CP_DIR) $(CP_FILES)
	@mkdir -p $(CP_DIR)/include
	cd $(CP_DIR) && perl ./checkpatch.pl --no-tree --root=$(CP_DIR) --strict \
		-f $(addprefix $(CURDIR)/,$(STYLE_SRC))

deps:
	$(CURDIR)/scripts/install-deps.sh

unit:
	@if [ -f tests/unit/Makefile ]; then \
		$(MAKE) -C tests/unit run; \
	else \
		echo "unit: tests/unit/Makefile not there yet, nothing to run"; \
	fi

# One or more VM scenarios by name (T="a b"); all of them when T is empty.
# They boot the kernel built for (KVER=6.12: Debian's 6.12).
vm: module
	KVER=$(KVER) $(CURDIR)/tests/vm/run.sh $(T)

check:
	@$(CURDIR)/tests/run-all.sh

# The long tier (not CI): power cuts in write-back mode, RAID5 and RAID6,
# LONG_CYCLES each, a member missing at every restart, the two levels side by
# side (Documentation/testing.md, "What make check runs": make check-long).
LONG_CYCLES ?= 100
check-long: module
	CYCLES=$(LONG_CYCLES) R5J_VM_JOBS=2 VM_TIMEOUT_SCALE=$${VM_TIMEOUT_SCALE:-2} \
		$(CURDIR)/tests/vm/run.sh journal-wb-powercut journal-wb-powercut-raid6

# The VM scenarios CI leaves out for their time (tests/vm/slow-scenarios).
check-slow: module
	R5J_VM_JOBS=2 VM_TIMEOUT_SCALE=$${VM_TIMEOUT_SCALE:-2} \
		$(CURDIR)/tests/vm/run.sh $$(grep -v '^#' tests/vm/slow-scenarios)

# libFuzzer targets over untrusted journals and superblocks, FUZZ_SECONDS
# each (tests/fuzz/run.sh); not part of check.
FUZZ_SECONDS ?= 60
fuzz:
	@$(CURDIR)/tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The debug lane: VM scenarios on a KASAN/lockdep/kmemleak/fault-injection
# kernel built from linux-source-6.1 and cached in /var/cache/raid5j-debug-kernel
# (scripts/debug-kernel.sh).  check-debug: every scenario (T= to choose);
# check-debug-core: the short list CI can afford.
check-debug:
	@$(CURDIR)/scripts/debug-kernel-check.sh $(T)

check-debug-core:
	@$(CURDIR)/scripts/debug-kernel-check.sh --core $(T)

demo: deps
	@$(MAKE) --no-print-directory module
	@$(CURDIR)/tests/vm/demo.sh

# raid5j vs raid456 numbers (tests/bench/bench.sh, Documentation/benchmarks.md)
.PHONY: bench
bench: deps
	@$(MAKE) --no-print-directory module
	@$(CURDIR)/tests/bench/bench.sh

# raid5j.ko only: raid5j_dmraid.ko comes with make install-boot
install: module
	install -D -m 644 raid5j.ko $(DESTDIR)/lib/modules/$(KVER)/extra/raid5j.ko
	depmod -a $(KVER)
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools install; fi

# DKMS: sources to /usr/src/raid5j-VERSION, built and installed for every
# installed kernel dkms.conf supports (DKMS_KVERS= to name them).
dkms-install:
	$(CURDIR)/scripts/dkms-install.sh $(VERSION) $(DKMS_KVERS)

dkms-remove:
	dkms remove -m raid5j -v $(VERSION) --all
	rm -rf /usr/src/raid5j-$(VERSION)

# md loads raid5j where it would load raid456, at boot too (tools/boot/):
# md arrays and LVM RAID sets.  On the running system (no DESTDIR, or /)
# tools/boot/preflight.sh first refuses if an array uses what raid5j does
# not support yet.  r5jtool too: the rule runs it before it falls back to
# raid456.  raid5j_dmraid.ko, which makes dm-raid load raid5j, goes into
# every kernel that has raid5j (scripts/dmraid-module.sh), and with it
# tools/boot/raid5j-dmraid.conf.
install-boot: tools
	@if [ -z "$(DESTDIR)" ] || [ "$(DESTDIR)" = / ]; then \
		$(CURDIR)/tools/boot/preflight.sh; fi
	$(MAKE) -C tools install DESTDIR=$(DESTDIR)
	install -D -m 644 tools/boot/raid5j.conf $(DESTDIR)/etc/modprobe.d/raid5j.conf
	install -D -m 644 tools/boot/raid5j-dmraid.conf $(DESTDIR)/etc/modprobe.d/raid5j-dmraid.conf
	install -D -m 755 tools/boot/initramfs-hook $(DESTDIR)/etc/initramfs-tools/hooks/raid5j
	DESTDIR=$(DESTDIR) $(CURDIR)/scripts/dmraid-module.sh install $(CURDIR)/raid5j_dmraid.ko $(KVER)
	@if [ -z "$(DESTDIR)" ] && command -v update-initramfs >/dev/null; then \
		update-initramfs -u -k all; fi

uninstall-boot:
	rm -f $(DESTDIR)/etc/modprobe.d/raid5j.conf $(DESTDIR)/etc/modprobe.d/raid5j-dmraid.conf \
		$(DESTDIR)/etc/initramfs-tools/hooks/raid5j
	DESTDIR=$(DESTDIR) $(CURDIR)/scripts/dmraid-module.sh remove
	@if [ -z "$(DESTDIR)" ] && command -v update-initramfs >/dev/null; then \
		update-initramfs -u -k all; fi

clean:
	@if [ -e "$(KDIR)/Makefile" ]; then $(KBUILD) clean; fi
	@if [ -f tests/unit/Makefile ]; then $(MAKE) -C tests/unit clean; fi
	@if [ -f tools/Makefile ]; then $(MAKE) -C tools clean; fi
	rm -rf $(BUILD)/vm-logs $(BUILD)/vm-disks $(BUILD)/boot

# Also drop the caches: extracted headers, checkpatch, initramfs.
distclean: clean
	rm -rf $(BUILD)

.PHONY: all kver md-headers module tools sparse style deps unit vm check check-long demo fuzz \
	check-debug check-debug-core \
	install install-boot uninstall-boot dkms-install dkms-remove clean distclean
