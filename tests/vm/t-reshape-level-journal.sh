#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-reshape-level-journal: a journaled RAID4 taken over to RAID5 and back
# (Documentation/reshape.md 8.1): the new conf takes the old
# conf's drained log over; writes after the takeover are logged, a power
# cut after it is replayed, and every acknowledged block survives.
#
#	  e0 e1 e2  ej  md1  RAID4, 16K chunk, --write-journal=ej
#	  dump           64 MiB: boot 2 copies the stamped half here
#	  (members virtio, 24 MiB each, created --assume-clean)
#
#   boot 1  PERSONALITY: create RAID4; raid5j: the takeover refused in
#           write-back mode ("journal in write-back mode"), then back to
#           write-through; fio F (upper half) written and verified;
#           mdadm --grow --level=5: raid5 parity-last, the journal still
#           the array's (mdadm --detail, consistency_policy); raid5j:
#           "journal handed over", the log as the quiesce left it (one
#           empty unit, next_seq and head carried over), journal units
#           written after it; F
#           verifies, G written and verified; raid5j: RAID5 -> RAID6
#           refused ("array has a journal"); then "stamp write" over the
#           lower half (8 writers, each acknowledgement to the host at
#           once); the power is cut 1.5-3 s into it.
#   host    every member's superblock says raid5.
#   boot 2  PERSONALITY: assemble without e1 (--run, no --force): the
#           journal is replayed, no resync; the stamped half is copied to
#           the dump disk; F and G verify; e1 added and rebuilt; check 0;
#           mdadm --grow --level=4; F G verify, H written and verified;
#           check 0; stopped and assembled again: raid4 with its journal.
#   host    "stamp check": every acknowledged block holds its last
#           acknowledged generation or a later one, nothing is garbage.
#
# raid456 runs the same boots; the raid5j-only steps (write-back refusal,
# journal_stats, the RAID6 refusal, which raid456 accepts) are skipped.
# raid456 (6.1) is expected to differ after the takeover: it accepts it,
# but the log its new conf opens is never loaded (md core's level change
# calls no ->start, where r5l_load_log() sets the ring size), so its
# first write waits for log space for ever (reshape.md 8.1).  The probe
# write then sees no completion in 10 s: the scenario says "KNOWN", cuts
# the power (the hung VM cannot power off), and boot 2 assembles the
# RAID5 and verifies F.  Should raid456 ever complete the write, it runs
# the whole scenario like raid5j.
#
# Disks: 3 x 24 MiB, 16 MiB journal, 64 MiB dump.  Boots: 2.  Timeouts:
# 120 s a boot (x VM_TIMEOUT_SCALE).

. "$(dirname "$0")/lib.sh"

vm_stamp
MEMBERS="e0 e1 e2"
STRIPE_BLOCKS=8			# 2 data members x 16 KiB / 4 KiB
vm_disks 24M $MEMBERS
vm_disk ej 16M
vm_disk dump 64M
kill_ms=$((1500 + RANDOM % 1500))

vm_boot --timeout 120 --kill-mark writing \
	--kill-after "$(printf '%d.%03d' $((kill_ms / 1000)) $((kill_ms % 1000)))" \
	- $MEMBERS ej <<'EOF' || vm_fail "boot 1 ($PERSONALITY)"
. /test/guest-lib.sh
load_personality
M=1048576
D=/dev/md1
F="--rw=randwrite --bssplit=4k/40:16k/30:64k/30 --iodepth=8 --size=6m --io_size=3m"
# kernel lines since the last mark_kmsg
mark_kmsg() { kmsg0=$(dmesg | wc -l); }
new_kmsg() { dmesg | tail -n +$((kmsg0 + 1)); }
# refuse LEVEL PATTERN: raid5j refuses md/level LEVEL, naming PATTERN
refuse() {
	local lvl0
	lvl0=$(md_sysfs $D level)
	mark_kmsg
	echo "$1" > /sys/block/md1/md/level 2>/dev/null &&
		fail "md/level $1 accepted: $(new_kmsg | tr '\n' ' ')"
	new_kmsg | grep -qF "raid5j: takeover from $lvl0 to raid$1 refused: $2" ||
		fail "no refusal naming '$2': $(new_kmsg | tr '\n' ' ')"
	expect_eq "$(md_sysfs $D level)" "$lvl0" "md/level after the refusal"
	say "raid$1 refused: $2"
}
run mdadm --create $D --run --level=4 --chunk=16 --raid-devices=3 \
	--assume-clean --write-journal=$(disk ej) $(disks e0 e1 e2)
size=$(blockdev --getsize64 $D)
half=$((size / 2 / M * M))
report blocks $((half / 4096))
report half $half
if [ "$PERSONALITY" = raid5j ]; then
	journal_mode write-back $D
	refuse 5 "journal in write-back mode: switch to write-through first"
	journal_mode write-through $D
fi
# F after the switch's quiesce: the takeover's quiesce has units to drain
fio_verify F $D $F --offset=$half
if [ "$PERSONALITY" = raid5j ]; then
	u0=$(jstat units $D)
	s0=$(jstat next_seq $D) h0=$(jstat head $D)
fi
mark_kmsg
if ! mdadm --grow $D --level=5 > /tmp/grow.out 2>&1; then
	cat /tmp/grow.out
	fail "mdadm --grow --level=5 failed: $(tail -n 2 /tmp/grow.out | tr '\n' ' ')| kernel: $(new_kmsg | tr '\n' ' ')"
fi
say "RAID4 -> RAID5: $(new_kmsg | tr '\n' ' ')"
expect_eq "$(md_sysfs $D level)" raid5 "md/level"
expect_eq "$(md_sysfs $D layout)" 5 "md/layout (parity-last)"
expect_eq "$(md_sysfs $D consistency_policy)" journal "md/consistency_policy"
mdadm --detail $D | grep -q "journal *$(disk ej)" ||
	fail "mdadm --detail lists no journal: $(mdadm --detail $D | tail -n 5 | tr '\n' ' ')"
if [ "$PERSONALITY" = raid5j ]; then
	new_kmsg | grep -q "md/raid:md1: journal handed over to raid5" ||
		fail "no 'journal handed over' line"
	# the log moved as the takeover's quiesce left it: one empty unit
	# (seq s0) at the old head (a chain break heals at the next tail
	# move, so a power cut later would not show it)
	s1=$(jstat next_seq $D) t1=$(jstat tail $D) h1=$(jstat head $D)
	say "journal before the takeover: next_seq $s0 head $h0; after: next_seq $s1 tail $t1 head $h1 used $(jstat used_sectors $D)"
	expect_eq "$(jstat used_sectors $D)" 8 "journal used_sectors after the takeover"
	expect_eq "$s1" $((s0 + 1)) "journal next_seq after the takeover"
	expect_eq "$t1" "$h0" "journal tail after the takeover (the old head)"
fi
fio_verify F $D $F --offset=$half --verify_only
# one 4 KiB write (into G's range) must complete; raid456's does not
(dd if=/dev/zero of=$D bs=4k count=1 seek=$(((half + 8 * M) / 4096)) \
	oflag=direct 2>/dev/null && touch /tmp/probe) &
for i in $(seq 100); do [ -e /tmp/probe ] && break; sleep 0.1; done
if [ ! -e /tmp/probe ]; then
	[ "$PERSONALITY" = raid456 ] ||
		fail "a 4 KiB write did not complete within 10 s of the takeover"
	say "KNOWN raid456: a write after the journaled takeover waits for ever (its new log was never loaded; reshape.md 8.1); dd in $(for p in $(pidof dd); do cat /proc/$p/wchan; echo; done | tr '\n' ' ')"
	report hang 1
	mark writing
	sleep 60
	fail "the power cut did not come"
fi
fio_verify G $D $F --offset=$((half + 8 * M))
if [ "$PERSONALITY" = raid5j ]; then
	u1=$(jstat units $D)
	[ "$u1" -gt "$u0" ] || fail "no journal unit written after the takeover ($u0 -> $u1)"
	say "journal units $u0 before the takeover, $u1 after G"
	refuse 6 "array has a journal (only RAID4 <-> RAID5 keeps it)"
fi
mark writing
/test/stamp write $D $((half / 4096)) 8 8 60 "$R5J_RESULT_PORT" 0
fail "the writer ran to its end: the power cut did not come"
EOF
[ "$VM_KILLED" = 1 ] || vm_fail "boot 1 was not killed"
hang=$(vm_val hang)
blocks=$(vm_val blocks)
half=$(vm_val half)
[ -n "$blocks" ] && [ -n "$half" ] || vm_fail "no array size"
grep '^A ' "$VM_RESULTS" > "$BUILD/vm-logs/$VM_TEST.acks"
acks=$(wc -l < "$BUILD/vm-logs/$VM_TEST.acks")
[ "$acks" -gt 0 ] || [ "$hang" = 1 ] ||
	vm_fail "no write acknowledged before the power cut"
for d in $MEMBERS; do
	lvl=$(mdadm --examine "$(vm_disk_path "$d")" | sed -n 's/^ *Raid Level : //p')
	[ "$lvl" = raid5 ] || vm_fail "$d: superblock says '$lvl', expected raid5"
done
echo "power cut ${kill_ms} ms into the writes, $acks writes acknowledged"

vm_boot --timeout 120 --env HALF="$half" --env BLOCKS="$blocks" \
	--env HANG="$hang" - $MEMBERS ej dump <<'EOF' || vm_fail "boot 2 ($PERSONALITY: replay, back to RAID4)"
. /test/guest-lib.sh
load_personality
M=1048576
D=/dev/md1
F="--rw=randwrite --bssplit=4k/40:16k/30:64k/30 --iodepth=8 --size=6m --io_size=3m"
if [ "$HANG" = 1 ]; then
	# raid456 after its hang: the array assembles as RAID5, F intact
	run mdadm --assemble $D $(disks e0 e1 e2) $(disk ej)
	expect_eq "$(md_sysfs $D level)" raid5 "md/level after the cut"
	fio_verify F $D $F --offset=$HALF --verify_only
	run mdadm --stop $D
	pass "raid456: assembled after its hang, F verifies"
	exit 0
fi
run mdadm --assemble --run $D $(disks e0 e2) $(disk ej)
dmesg | grep -E 'md1.*(journal|recover)' | tail -n 3
expect_eq "$(md_sysfs $D level)" raid5 "md/level after the cut"
check degraded 1 $D
grep -q resync /proc/mdstat && fail "a resync started despite the journal"
if [ "$PERSONALITY" = raid5j ]; then
	dmesg | grep -q 'md/raid:md1: journal: recovered' ||
		fail "no journal recovery line"
fi
dd if=$D of=$(disk dump) bs=4096 count=$BLOCKS iflag=direct 2>/dev/null ||
	fail "copying the stamped half failed"
sync
fio_verify F $D $F --offset=$HALF --verify_only
fio_verify G $D $F --offset=$((HALF + 8 * M)) --verify_only
run mdadm $D --add $(disk e1)
fast_sync
sleep 1
wait_sync $D
check degraded 0 $D
check mismatch $D
if ! mdadm --grow $D --level=4 > /tmp/grow.out 2>&1; then
	cat /tmp/grow.out
	fail "mdadm --grow --level=4 failed: $(tail -n 2 /tmp/grow.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
fi
expect_eq "$(md_sysfs $D level)" raid4 "md/level"
expect_eq "$(md_sysfs $D consistency_policy)" journal "md/consistency_policy"
if [ "$PERSONALITY" = raid5j ]; then
	dmesg | grep -q "md/raid:md1: journal handed over to raid4" ||
		fail "no 'journal handed over' line"
fi
fio_verify F $D $F --offset=$HALF --verify_only
fio_verify G $D $F --offset=$((HALF + 8 * M)) --verify_only
fio_verify H $D $F --offset=$((HALF + 14 * M))
check mismatch $D
run mdadm --stop $D
run mdadm --assemble $D $(disks e0 e1 e2) $(disk ej)
expect_eq "$(md_sysfs $D level)" raid4 "md/level after a restart"
expect_eq "$(md_sysfs $D consistency_policy)" journal "md/consistency_policy after a restart"
fio_verify H $D $F --offset=$((HALF + 14 * M)) --verify_only
run mdadm --stop $D
check dmesg
pass "journaled RAID5 after the cut: replayed, back to RAID4"
EOF
if [ "$hang" = 1 ]; then
	echo "PASS $VM_TEST ($PERSONALITY: KNOWN, writes hang after the journaled takeover)"
	exit 0
fi
vm_stamp_check "$(vm_disk_path dump)" "$blocks" "$BUILD/vm-logs/$VM_TEST.acks" ||
	vm_fail "acknowledged writes lost or garbage after the cut ($PERSONALITY)"
echo "PASS $VM_TEST ($PERSONALITY)"
