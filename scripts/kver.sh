#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the release string (e.g. 6.1.0-57-amd64, 6.12.118+deb12-amd64) of
# the newest Debian kernel of one series installed on this machine.  This is
# the kernel raid5j is built for and booted in the test VM; it is never the
# host's running kernel, so `uname -r` is not used anywhere.
#
#   scripts/kver.sh [WHAT] [SERIES]
#     WHAT   --headers  newest kver whose headers package is installed (default)
#            --image    ... whose image package is installed
#            --both     ... with both image and headers installed
#     SERIES 6.1 (default, Debian 12's kernel) or 6.12 (Debian 12's
#            bookworm-security backport, Debian 13's kernel)
#
#   scripts/kver.sh --series KVER   print the series of a kver (6.1, 6.12)
#
# Prints nothing and exits 1 when there is none.

set -euo pipefail

want=${1:---headers}
series=${2:-6.1}

if [ "$want" = --series ]; then
	s=$(printf '%s\n' "${2:-}" | sed -nE 's/^([0-9]+\.[0-9]+)\.[0-9]+[-+].*$/\1/p')
	[ -n "$s" ] || exit 1
	echo "$s"
	exit 0
fi

case $series in
6.1|6.12) ;;
*) echo "$0: unsupported kernel series '$series' (6.1 or 6.12)" >&2; exit 2 ;;
esac
# 6.1.0-57-amd64 (ABI number) or 6.12.118+deb12-amd64 (upload version)
re="${series//./\\.}\\.[0-9]+(-[0-9]+|\\+deb[0-9]+)-amd64"

installed() {	# $1: headers|image; prints the kvers of installed matches
	dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "linux-$1-$series.*" 2>/dev/null |
		awk '$2 == "ii" { print $1 }' |
		sed -nE "s/^linux-(headers|image)-($re)\$/\\2/p"
}

case $want in
--headers) list=$(installed headers) ;;
--image)   list=$(installed image) ;;
--both)    list=$(comm -12 <(installed headers | sort) <(installed image | sort)) ;;
*) echo "usage: $0 [--headers|--image|--both] [6.1|6.12]" >&2; exit 2 ;;
esac

kver=$(printf '%s\n' $list | sort -V | tail -n 1)
[ -n "$kver" ] || exit 1
echo "$kver"
