#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# raid5j_dmraid.ko (drivers/dmraid/: raid456's two exports for dm-raid) is
# in a kernel's module tree only while make install-boot's redirect is:
# depmod makes dm-raid depend on whichever installed module exports them,
# so with it installed `modprobe dm-raid` loads raid5j (Documentation/
# design.md, "dm-raid (LVM RAID)").  DKMS builds it with raid5j.ko but does
# not install it; these steps do.
#
#   dmraid-module.sh dkms-build MODDIR          dkms.conf POST_BUILD: keep the
#        built raid5j_dmraid.ko (cwd: dkms's build dir) in MODDIR, beside
#        dkms's copy of raid5j.ko
#   dmraid-module.sh dkms-install MODDIR INSTALL_TREE KVER   POST_INSTALL:
#        install it for KVER if the redirect is installed (a kernel
#        installed later gets it too)
#   dmraid-module.sh dkms-remove INSTALL_TREE KVER           POST_REMOVE
#   dmraid-module.sh install KO KVER            make install-boot: every
#        kernel with raid5j gets it (from DKMS's tree, or KO for KVER's
#        extra/raid5j.ko of make install); depmod
#   dmraid-module.sh remove                     make uninstall-boot
#
# DESTDIR (default /) and DKMS_TREE (default /var/lib/dkms) for tests.

set -eu

ko=raid5j_dmraid.ko
root=${DESTDIR:-/}
root=${root%/}
dkms_tree=${DKMS_TREE:-/var/lib/dkms}

# redirect ROOT: is make install-boot's rule installed under ROOT?
redirect() {
	[ -f "$1/etc/modprobe.d/raid5j.conf" ]
}

case ${1:-} in
dkms-build)
	cp -f "$ko" "$2/"
	;;
dkms-install)
	moddir=$2 tree=$3 kver=$4
	if redirect "${tree%/lib/modules}" && [ -f "$moddir/$ko" ]; then
		install -D -m 644 "$moddir/$ko" "$tree/$kver/updates/dkms/$ko"
		echo "raid5j: $ko installed for $kver (make install-boot's redirect is installed)"
	fi
	;;
dkms-remove)
	rm -f "$2/$3/updates/dkms/$ko"
	;;
install)
	built=$2 built_kver=$3
	for dir in "$root"/lib/modules/*/; do
		dir=${dir%/}
		kver=${dir##*/}
		if compgen -G "$dir/updates/dkms/raid5j.ko*" >/dev/null; then
			src=$(compgen -G "$dkms_tree/raid5j/kernel-$kver-*/module/$ko" | head -n 1) || src=
			dest=$dir/updates/dkms
		elif [ -f "$dir/extra/raid5j.ko" ]; then
			src=
			[ "$kver" != "$built_kver" ] || [ ! -f "$built" ] || src=$built
			dest=$dir/extra
		else
			continue
		fi
		if [ -z "$src" ]; then
			echo "raid5j: no $ko for $kver (make dkms-install, or make install for it): the redirect falls back to raid456 there" >&2
			continue
		fi
		install -D -m 644 "$src" "$dest/$ko"
		depmod -b "${root:-/}" "$kver"
		echo "raid5j: $ko installed for $kver"
	done
	;;
remove)
	for f in "$root"/lib/modules/*/updates/dkms/$ko "$root"/lib/modules/*/extra/$ko; do
		[ -f "$f" ] || continue
		rm -f "$f"
		kver=${f#"$root"/lib/modules/}
		depmod -b "${root:-/}" "${kver%%/*}"
	done
	;;
*)
	echo "usage: $0 dkms-build|dkms-install|dkms-remove|install|remove ..." >&2
	exit 2
	;;
esac
