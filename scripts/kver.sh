#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the release string (e.g. 6.1.0-57-amd64) of the newest Debian 6.1
# kernel installed on this machine.  This is the kernel raid5j is built for
# and booted in the test VM; it is never the host's running kernel, so
# `uname -r` is not used anywhere.
#
#   scripts/kver.sh            newest 6.1 kver whose headers package is installed
#   scripts/kver.sh --image    ... whose image package is installed
#   scripts/kver.sh --both     ... with both image and headers installed
#
# Prints nothing and exits 1 when there is none.

set -euo pipefail

want=${1:---headers}

installed() {	# $1: dpkg glob; prints the kvers of installed matches
	dpkg-query -W -f='${Package} ${db:Status-Abbrev}\n' "$1" 2>/dev/null |
		awk '$2 == "ii" { print $1 }' |
		sed -nE 's/^linux-(headers|image)-(6\.1\.[0-9]+-[0-9]+-amd64)$/\2/p'
}

case $want in
--headers) list=$(installed 'linux-headers-6.1.*-amd64') ;;
--image)   list=$(installed 'linux-image-6.1.*-amd64') ;;
--both)    list=$(comm -12 <(installed 'linux-headers-6.1.*-amd64' | sort) \
			   <(installed 'linux-image-6.1.*-amd64' | sort)) ;;
*) echo "usage: $0 [--headers|--image|--both]" >&2; exit 2 ;;
esac

kver=$(printf '%s\n' $list | sort -V | tail -n 1)
[ -n "$kver" ] || exit 1
echo "$kver"
