#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dm-raid.ko imports raid5_set_cache_size and r5c_journal_mode_set from
# raid456; raid5j_dmraid.ko exports them for it (drivers/dmraid/).  The kernel
# refuses to load dm-raid when an export's modversion CRC differs from the
# one dm-raid recorded, which is raid456's in the kernel's Module.symvers:
#
#   scripts/check-dmraid-crcs.sh KDIR MODULE.SYMVERS

set -euo pipefail

[ $# -eq 2 ] || { echo "usage: $0 KDIR MODULE.SYMVERS" >&2; exit 2; }
kernel=$1/Module.symvers ours=$2
[ -f "$kernel" ] || { echo "check-dmraid-crcs: no $kernel: nothing to compare" >&2; exit 0; }
rc=0
for sym in raid5_set_cache_size r5c_journal_mode_set; do
	want=$(awk -v s="$sym" '$2 == s && $3 ~ /raid456$/ { print $1 }' "$kernel")
	have=$(awk -v s="$sym" '$2 == s { print $1 }' "$ours")
	[ -n "$want" ] || continue	# a kernel without raid456's export
	if [ "$have" != "$want" ]; then
		echo "check-dmraid-crcs: error: $sym has CRC ${have:-none} in raid5j_dmraid, raid456's is $want: dm-raid would not load" >&2
		rc=1
	fi
done
exit $rc
