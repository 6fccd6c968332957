#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Extract a few files from Debian's kernel source tarball into a cache dir.
#
#   scripts/extract-kernel-source.sh KVER OUTDIR PATH...
#
# PATHs are relative to the top of the kernel tree (drivers/md/md.h, ...) and
# land flat in OUTDIR.  Only those tar members are read out of
# /usr/src/linux-source-SERIES.tar.xz (tar stops at the last one wanted),
# SERIES being KVER's kernel series (6.1 or 6.12, scripts/kver.sh --series).
# OUTDIR/.source-version records the linux-source-SERIES package version; a
# cache made from another version is thrown away and extracted again.
#
# Refuses to run when the linux-source-SERIES package version differs from the
# linux-headers-KVER package version: md.h is private to the kernel, so a
# module built from a mismatching md.h may corrupt memory at run time.

set -euo pipefail

die() { echo "extract-kernel-source: error: $*" >&2; exit 1; }

[ $# -ge 3 ] || die "usage: $0 KVER OUTDIR PATH..."
kver=$1 out=$2
shift 2

series=$("$(dirname "$0")/kver.sh" --series "$kver") ||
	die "cannot tell the kernel series of '$kver'"
src=linux-source-$series
tarball=/usr/src/$src.tar.xz
top=$src

src_ver=$(dpkg-query -W -f='${Version}' "$src" 2>/dev/null) || src_ver=
hdr_ver=$(dpkg-query -W -f='${Version}' "linux-headers-$kver" 2>/dev/null) || hdr_ver=
[ -n "$src_ver" ] && [ -f "$tarball" ] ||
	die "$src is not installed (run: make deps)"
[ -n "$hdr_ver" ] ||
	die "linux-headers-$kver is not installed (run: make deps)"
[ "$src_ver" = "$hdr_ver" ] ||
	die "$src is version $src_ver but linux-headers-$kver is $hdr_ver;
  install the matching source: apt-get install $src=$hdr_ver"

have_all() {
	local p
	[ "$(cat "$out/.source-version" 2>/dev/null)" = "$src_ver" ] || return 1
	for p in "$@"; do
		[ -f "$out/$(basename "$p")" ] || return 1
	done
}
have_all "$@" && exit 0

echo "  EXTRACT $* ($src $src_ver)"
mkdir -p "$(dirname "$out")"
tmp=$(mktemp -d "${out%/}.tmp.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
members=()
for p in "$@"; do
	members+=("$top/$p")
done
tar -xJmf "$tarball" -C "$tmp" --occurrence=1 "${members[@]}"
mkdir -p "$out"
for p in "$@"; do
	mv -f "$tmp/$top/$p" "$out/"
done
echo "$src_ver" > "$out/.source-version"
