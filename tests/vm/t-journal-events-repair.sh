#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-events-repair: an array left with its journal one event ahead
# of the members (by raid456, or by raid5j before journal_tail moves stopped
# bumping the event count) comes back with `r5jtool match-events` and stock
# mdadm, without --force, degraded, with every acknowledged block.
#
#	 d0..d3 behind dm-delay (writes held 500 ms), journal j direct
#	 /dev/md0 RAID5, 4 x 32 MiB, 64K chunk, --write-journal=j
#
#   boot 1: raid456 always (it makes the state): verified random writes;
#           4 s in, the moment the journal's superblock changes the
#           power is cut, while the members' superblocks of that update
#           are held.
#   host:   `r5jtool match-events --dry-run` must see the journal exactly
#           one event ahead (else the cut is tried again, 4 times at most).
#   boot 2: PERSONALITY: stock `mdadm --assemble --run` without d0 must be
#           refused ("Not safe to assemble with missing or stale journal").
#   host:   `r5jtool match-events`: the journal's log checked, its
#           superblock given the members' event count.
#   boot 3: PERSONALITY: `mdadm --assemble --run` without d0, no --force:
#           starts read-write, journal replayed, no resync; the array is
#           copied to the dump disk; d0 re-added and rebuilt; check finds
#           no mismatch; stopped and assembled again with every member.
#   host:   every acknowledged block is intact ("stamp check"); a second
#           match-events says there is nothing to do.
# Disks: 4 x 32 MiB + 8 MiB journal + 128 MiB dump.  About 2 minutes.

. "$(dirname "$0")/lib.sh"

MEMBERS="d0 d1 d2 d3"
TOOL=$R5J_ROOT/tools/r5jtool
make -s -C "$R5J_ROOT/tools" || vm_fail "building r5jtool failed"
vm_stamp
ACKS=$BUILD/vm-logs/$VM_TEST.acks
: > "$ACKS"

images() {
	local d out=
	for d in "$@"; do
		out="$out $(vm_disk_path "$d")"
	done
	echo "$out"
}

ahead=
for try in 1 2 3 4; do
	vm_disks 32M $MEMBERS
	vm_disk j 8M
	vm_disk dump 128M
	PERSONALITY=raid456 vm_boot --timeout 150 --kill-mark sbwrite \
		--kill-after 0.05 --env MEMBERS="$MEMBERS" - $MEMBERS j <<'EOF'
. /test/guest-lib.sh
load_personality
delayed=$(slow_members 500 $MEMBERS)
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=64 \
	--assume-clean --write-journal=$(disk j) $delayed
blocks=$(( $(blockdev --getsize64 /dev/md0) / 4096 ))
report blocks $blocks
share_result_port
/test/stamp write /dev/md0 "$blocks" 48 8 120 "$R5J_RESULT_PORT" 0 &
# past the first write's clean->dirty update: aim at a later one (a
# journal_tail move), so that acknowledged writes are at stake
sleep 4
base=$(journal_sb_sum j)
while [ "$(journal_sb_sum j)" = "$base" ]; do
	sleep 0.02
done
mark sbwrite
sleep 100
EOF
	[ "$VM_KILLED" = 1 ] || vm_fail "try $try: the VM was not killed"
	BLOCKS=$(vm_val blocks)
	[ -n "$BLOCKS" ] || vm_fail "no array size"
	grep '^A ' "$VM_RESULTS" > "$ACKS"
	[ -s "$ACKS" ] || vm_fail "try $try: no write was acknowledged"
	# shellcheck disable=SC2046
	out=$("$TOOL" match-events --dry-run $(images j $MEMBERS) 2>&1)
	echo "try $try: $(grep -E '^journal ' <<< "$out")"
	if grep -q 'dry run' <<< "$out"; then
		ahead=1
		break
	fi
done
[ -n "$ahead" ] || vm_fail "raid456 never left the journal ahead in 4 power cuts"

vm_boot --timeout 120 --env MEMBERS="$MEMBERS" - $MEMBERS j <<'EOF' ||
. /test/guest-lib.sh
load_personality
must_fail mdadm --assemble --run /dev/md0 $(disks d1 d2 d3 j)
grep -q 'Not safe to assemble' /tmp/must_fail.out ||
	fail "refused, but not for the journal"
pass refused
EOF
	vm_fail "stock mdadm did not refuse the journal one event ahead"

# shellcheck disable=SC2046
"$TOOL" match-events $(images j $MEMBERS) || vm_fail "r5jtool match-events failed"

vm_boot --timeout 240 --env MEMBERS="$MEMBERS" - $MEMBERS j dump <<'EOF' ||
. /test/guest-lib.sh
load_personality
run mdadm --assemble --run /dev/md0 $(disks d1 d2 d3 j)
check state "[4/3]" /dev/md0
check readwrite /dev/md0
dmesg | grep -E 'journal:' | tail -2
grep -q resync /proc/mdstat && fail "a resync started despite the journal"
dd if=/dev/md0 of=$(disk dump) bs=1M 2>/dev/null || fail "copying the array failed"
sync
run mdadm /dev/md0 --add $(disk d0)
fast_sync
sleep 1
wait_sync /dev/md0
check state "[4/4]" /dev/md0
check mismatch /dev/md0
run mdadm --stop /dev/md0
run mdadm --assemble /dev/md0 $(disks $MEMBERS j)
check state "[4/4]" /dev/md0
run mdadm --stop /dev/md0
pass repaired
EOF
	vm_fail "the repaired array did not come back"

vm_stamp_check "$(vm_disk_path dump)" "$BLOCKS" "$ACKS" ||
	vm_fail "acknowledged data lost or garbage"
# shellcheck disable=SC2046
"$TOOL" match-events --dry-run $(images j $MEMBERS) | grep -q 'nothing to do' ||
	vm_fail "match-events after the repair does not find the array normal"
echo "PASS $VM_TEST: journal one event ahead (raid456, try $try), refused by stock mdadm, repaired by r5jtool match-events, every acknowledged block intact"
exit 0
