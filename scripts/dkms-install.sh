#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install raid5j through DKMS for every installed kernel it supports
# (what `make dkms-install` runs).
#
#   scripts/dkms-install.sh VERSION [KVER...]
#
# 1. Copies what the module build needs to /usr/src/raid5j-VERSION: Kbuild,
#    Makefile, the sources under drivers/ and include/, scripts/*.sh (the
#    Makefile extracts md core's private headers from the matching
#    linux-source package with them, exactly as a developer build does)
#    and dkms.conf with PACKAGE_VERSION set to VERSION.
# 2. dkms add (a previous registration of the same VERSION is removed).
# 3. dkms install -k KVER for each KVER given, else for every kernel in
#    /lib/modules whose headers are installed (a build/ directory): never
#    only the running one.  Kernels dkms.conf excludes
#    (BUILD_EXCLUSIVE_KERNEL) are skipped and named.
#    raid5j_dmraid.ko, built with it, goes into the module tree only
#    while make install-boot's redirect is installed (dkms.conf's
#    POST_INSTALL, scripts/dmraid-module.sh).
# Exits non-zero when a build failed or no kernel got the module.
# AUTOINSTALL in dkms.conf makes dkms build it for kernels installed later.
#
# DKMS_ROOT=DIR: use DIR/usr/src, DIR/var/lib/dkms and DIR/lib/modules
# instead of the system's, and skip depmod: a staging tree (the VM test
# t-dkms-boot uses one so that it leaves the host's DKMS alone).

set -euo pipefail

die() { echo "dkms-install: error: $*" >&2; exit 1; }

[ $# -ge 1 ] || die "usage: $0 VERSION [KVER...]"
version=$1
shift
top=$(cd "$(dirname "$0")/.." && pwd)
command -v dkms >/dev/null || die "dkms is not installed (apt-get install dkms)"

root=${DKMS_ROOT:-}
opts=()
if [ -n "$root" ]; then
	mkdir -p "$root/usr/src" "$root/var/lib/dkms" "$root/lib/modules"
	root=$(cd "$root" && pwd)
	opts=(--sourcetree "$root/usr/src" --dkmstree "$root/var/lib/dkms"
	      --installtree "$root/lib/modules" --no-depmod)
fi
src=$root/usr/src/raid5j-$version

if [ $# -gt 0 ]; then
	kvers=("$@")
else
	kvers=()
	for d in /lib/modules/*/build; do
		[ -e "$d/Makefile" ] || continue
		d=${d%/build}
		kvers+=("${d##*/}")
	done
	[ ${#kvers[@]} -gt 0 ] || die "no kernel headers installed (linux-headers-KVER)"
fi

# A source tree holds sources only: objects of a developer build for
# another kernel must not leak into it.
if dkms status "${opts[@]}" -m raid5j -v "$version" 2>/dev/null | grep -q .; then
	echo "dkms-install: removing the earlier raid5j/$version"
	dkms remove "${opts[@]}" -m raid5j -v "$version" --all
fi
rm -rf "$src"
install -d "$src/scripts"
(cd "$top" && cp --parents Kbuild Makefile LICENSE "$src/" &&
	find drivers include -type f -name '*.[ch]' -exec cp --parents -t "$src/" {} + &&
	cp scripts/*.sh "$src/scripts/")
sed "s/^PACKAGE_VERSION=.*/PACKAGE_VERSION=\"$version\"/" "$top/dkms.conf" > "$src/dkms.conf"

dkms add "${opts[@]}" -m raid5j -v "$version"

installed=() skipped=() failed=()
for k in "${kvers[@]}"; do
	[ -z "$root" ] || mkdir -p "$root/lib/modules/$k"
	rc=0
	dkms install "${opts[@]}" -m raid5j -v "$version" -k "$k" || rc=$?
	case $rc in
	0) installed+=("$k") ;;
	77) skipped+=("$k") ;;		# BUILD_EXCLUSIVE_KERNEL
	*) failed+=("$k") ;;
	esac
done
echo "dkms-install: raid5j/$version installed for: ${installed[*]:-none}"
[ ${#skipped[@]} -eq 0 ] || echo "dkms-install: not supported, skipped: ${skipped[*]}"
[ ${#failed[@]} -eq 0 ] ||
	die "build failed for: ${failed[*]} (see the make.log under $root/var/lib/dkms/raid5j/$version/)"
[ ${#installed[@]} -gt 0 ] || die "no installed kernel is supported"
