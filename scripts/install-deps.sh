#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything needed to build raid5j and run its tests on Debian 12.
# Idempotent: when every package is present (and linux-source-6.1 has the
# same package version as the 6.1 kernel image) it returns at once without
# touching apt.  Otherwise it runs apt-get update + install, non-interactive.

set -euo pipefail

PKGS=(
	# kernel to build for and to boot in the VM, with md's private headers
	linux-image-amd64 linux-headers-amd64
	# toolchain and kernel-style checks
	gcc make sparse perl
	# VM harness
	qemu-system-x86 busybox-static kmod cpio xz-utils zstd
	# volatile disk cache model for power cuts (VM_NBD_CACHE=1)
	nbdkit
	# userspace under test, copied into the VM
	mdadm fio e2fsprogs dmsetup bash coreutils util-linux
	# installing the way users do (t-dkms-boot): DKMS, a real initramfs
	dkms initramfs-tools
)

log() { echo "install-deps: $*"; }

is_installed() {
	[ "$(dpkg-query -W -f='${db:Status-Abbrev}' "$1" 2>/dev/null)" = "ii " ]
}

pkg_version() {
	dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true
}

# Package version of the newest installed 6.1 kernel image (e.g. 6.1.192-3).
image_version() {
	local kver
	kver=$("$(dirname "$0")/kver.sh" --both 2>/dev/null) || return 0
	pkg_version "linux-image-$kver"
}

missing=()
for p in "${PKGS[@]}"; do
	is_installed "$p" || missing+=("$p")
done

iv=$(image_version)
sv=$(pkg_version linux-source-6.1)
if [ ${#missing[@]} -eq 0 ] && [ -n "$iv" ] && [ "$sv" = "$iv" ] &&
   [ -f /usr/src/linux-source-6.1.tar.xz ]; then
	log "all dependencies present (kernel $("$(dirname "$0")/kver.sh" --both), linux-source-6.1 $sv)"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	log "missing packages: ${missing[*]:-} ${iv:+linux-source-6.1=$iv}" >&2
	log "run as root (or: sudo $0)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -y -q -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold
     --no-install-recommends)

log "installing: ${missing[*]:-(none)}"
apt-get -q update
if [ ${#missing[@]} -gt 0 ]; then
	"${APT[@]}" install "${missing[@]}"
fi

# linux-source-6.1 must be the very version of the image/headers: md.h is
# private to the kernel and must match the md-mod.ko we link against.
iv=$(image_version)
if [ -z "$iv" ]; then
	log "no linux-image-6.1.*-amd64 with matching headers is installed" >&2
	exit 1
fi
if [ "$(pkg_version linux-source-6.1)" != "$iv" ]; then
	log "installing linux-source-6.1=$iv"
	if ! "${APT[@]}" install "linux-source-6.1=$iv"; then
		log "linux-source-6.1 version $iv is not available from the configured" >&2
		log "mirrors; upgrade linux-image-amd64/linux-headers-amd64 so both match" >&2
		exit 1
	fi
fi
log "done (kernel $("$(dirname "$0")/kver.sh" --both), linux-source-6.1 $(pkg_version linux-source-6.1))"
