#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything needed to build raid5j and run its tests on Debian 12.
# Two kernels: Debian 12's 6.1 (linux-image-amd64) and its 6.12 from
# bookworm-security (linux-image-6.12.N+deb12-amd64; no meta package, so
# the newest one apt knows when none is installed), each with its headers
# and the linux-source-SERIES of the very same package version.
# Idempotent: when every package is present (and each linux-source has the
# same package version as its kernel image) it returns at once without
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
	# LVM RAID (dm-raid) scenarios: Debian's lvm2 in the VM
	lvm2
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

SERIES=(6.1 6.12)

# Package version of the newest installed kernel image of series $1
# (e.g. 6.1.192-3, 6.12.118-1~deb12u1).
image_version() {
	local kver
	kver=$("$(dirname "$0")/kver.sh" --both "$1" 2>/dev/null) || return 0
	pkg_version "linux-image-$kver"
}

# Series $1 complete: image + headers, linux-source-$1 of the same version.
series_ok() {
	local iv
	iv=$(image_version "$1")
	[ -n "$iv" ] && [ "$(pkg_version "linux-source-$1")" = "$iv" ] &&
		[ -f "/usr/src/linux-source-$1.tar.xz" ]
}

missing=()
for p in "${PKGS[@]}"; do
	is_installed "$p" || missing+=("$p")
done
incomplete=()
for s in "${SERIES[@]}"; do
	series_ok "$s" || incomplete+=("$s")
done

summary() {
	local s out=
	for s in "${SERIES[@]}"; do
		out+=" kernel $("$(dirname "$0")/kver.sh" --both "$s"), linux-source-$s $(pkg_version "linux-source-$s");"
	done
	echo "${out%;}"
}

if [ ${#missing[@]} -eq 0 ] && [ ${#incomplete[@]} -eq 0 ]; then
	log "all dependencies present ($(summary | sed 's/^ //'))"
	exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
	log "missing packages: ${missing[*]:-} ${incomplete[*]:+kernel series ${incomplete[*]} (image, headers, linux-source)}" >&2
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

# 6.12 has no meta package in bookworm: without any 6.12 kernel, take the
# newest linux-image-6.12.N+deb12-amd64 apt knows (from bookworm-security).
if [ -z "$("$(dirname "$0")/kver.sh" --both 6.12 2>/dev/null)" ]; then
	k=$(apt-cache pkgnames linux-headers-6.12. |
		sed -nE 's/^linux-headers-(6\.12\.[0-9]+\+deb12-amd64)$/\1/p' | sort -V | tail -n 1)
	if [ -z "$k" ]; then
		log "no linux-headers-6.12.*+deb12-amd64 in the apt sources; add bookworm-security" >&2
		exit 1
	fi
	log "installing linux-image-$k linux-headers-$k"
	"${APT[@]}" install "linux-image-$k" "linux-headers-$k"
fi

# linux-source-SERIES must be the very version of the image/headers: md.h is
# private to the kernel and must match the md-mod.ko we link against.
for s in "${SERIES[@]}"; do
	iv=$(image_version "$s")
	if [ -z "$iv" ]; then
		log "no linux-image-$s.*-amd64 with matching headers is installed" >&2
		exit 1
	fi
	if [ "$(pkg_version "linux-source-$s")" != "$iv" ]; then
		log "installing linux-source-$s=$iv"
		if ! "${APT[@]}" install "linux-source-$s=$iv"; then
			log "linux-source-$s version $iv is not available from the configured" >&2
			log "mirrors; upgrade the $s kernel image and headers so all three match" >&2
			exit 1
		fi
	fi
done
log "done ($(summary | sed 's/^ //'))"
