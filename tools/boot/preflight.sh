#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# make install-boot runs this first: the modprobe.d rule hands every
# RAID4/5/6 array of the machine to raid5j, md arrays and LVM RAID
# (dm-raid) sets alike, so refuse when one that runs now uses what raid5j
# does not run or continue yet, naming it:
#   - PPL (md/consistency_policy ppl): raid5j refuses to run the array;
#   - a reshape in progress (md/sync_action or dm-raid's status
#     "reshape"): raid5j serves I/O through it but holds a kind of
#     reshape it does not run (Documentation/reshape.md); let it finish
#     under raid456 first.
# Exit 0: nothing found (what it looked at is printed); 1: refused.
# SYSFS (default /sys) and DMSETUP (default dmsetup) are for tests.

SYSFS=${SYSFS:-/sys}
DMSETUP=${DMSETUP:-dmsetup}
bad=0
seen=0

refuse() {
	echo "raid5j preflight: $*" >&2
	bad=1
}

for md in "$SYSFS"/block/md*/md; do
	[ -d "$md" ] || continue
	name=$(basename "$(dirname "$md")")
	level=$(cat "$md/level" 2>/dev/null)
	case $level in
	raid4 | raid5 | raid6) ;;
	*) continue ;;
	esac
	seen=$((seen + 1))
	policy=$(cat "$md/consistency_policy" 2>/dev/null)
	[ "$policy" = ppl ] &&
		refuse "$name ($level) uses a partial parity log (consistency_policy ppl), which raid5j does not run: switch it to bitmap or resync first (mdadm --grow --consistency-policy=resync /dev/$name)"
	action=$(cat "$md/sync_action" 2>/dev/null)
	[ "$action" = reshape ] &&
		refuse "$name ($level) is reshaping: let the reshape finish under raid456 first"
done

# LVM RAID: dm-raid sets; status "... raid <type> <#devs> <health> <ratio> <action> ..."
if command -v "$DMSETUP" >/dev/null 2>&1; then
	out=$("$DMSETUP" status --target raid 2>/dev/null)
	if [ -n "$out" ] && [ "$out" != "No devices found" ]; then
		tab=$(printf '%s\n' "$out" | awk '{ t = $5; if (t ~ /^raid[456]/) print $1, t, $9 }')
		seen=$((seen + $(printf '%s\n' "$tab" | grep -c .)))
		printf '%s\n' "$tab" | while read -r dev type action; do
			[ -n "$dev" ] || continue
			if [ "$action" = reshape ]; then
				echo "raid5j preflight: ${dev%:} (LVM RAID, $type) is reshaping: let the reshape finish under raid456 first" >&2
				echo bad
			fi
		done | grep -q bad && bad=1
	fi
fi

if [ $bad -ne 0 ]; then
	echo "raid5j preflight: not installing the raid456 -> raid5j redirect" >&2
	exit 1
fi
echo "raid5j preflight: $seen RAID4/5/6 array(s) or LVM RAID set(s) found, none using what raid5j does not support"
exit 0
