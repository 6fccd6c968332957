#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-resize: mdadm --grow --size on journaled arrays.
#
#	a0 a1 a2 a3 (32 MiB)  + ja (8 MiB journal)   md0, --size=16384 (16 MiB)
#	b0 b1 b2 b3 (32 MiB)  + jb (16 MiB journal)  md1, --size=4096  (4 MiB)
#
# md core caps every size request at the smallest device, the journal
# included, and hands --size=max to the personality as that size.
# Per level (RAID5, then RAID6), boot 1:
#  - md0 (journal smaller than the members): --size=max and --size=65536
#    must not change the size (raid5j and raid456 refuse both); data
#    verified after each;
#  - md1 (journal larger than the used size): --size=max grows md1 to the
#    journal's size under raid5j (raid456 refuses: unchanged); raid5j: the
#    new space is written and verified;
#  - md0: writes to its last MiB, then at once --size=6144 (explicit
#    shrink; md core refuses anything above the journal's 7 MiB): raid5j shrinks to exactly that, raid456 refuses; a power
#    cut 1 s later.
# Boot 2: both arrays assemble read-write (recovery must accept the log:
# nothing past the new sizes), sizes as left by boot 1, all data still there verifies,
# check: mismatch_cnt 0.
#
# Without the fix, raid5j's --size=max shrank md0 to the journal's size,
# and after the shrink the log still held blocks past the new end: boot 2
# found them, recovery failed and md0 came up read-only.
#
# Disks: 8 x 32 MiB, 8 + 16 MiB journals.  Boots: 4.  ~3 minutes.

. "$(dirname "$0")/lib.sh"

for LEVEL in ${LEVELS:-5 6}; do
vm_disks 32M a0 a1 a2 a3
vm_disks 32M b0 b1 b2 b3
vm_disk ja 8M
vm_disk jb 16M
vm_boot --timeout 240 --kill-mark shrunk --kill-after 1 --env LEVEL=$LEVEL - \
	a0 a1 a2 a3 ja b0 b1 b2 b3 jb <<'EOF' || vm_fail "RAID$LEVEL boot 1"
. /test/guest-lib.sh
load_personality
fast_sync
ND=$((LEVEL == 6 ? 2 : 3))	# data members of 4
csize() { md_sysfs "$1" component_size; }
asize() { echo $(($(blockdev --getsize64 "$1") / 1024)); }
grow() {	# grow DEV SIZE: mdadm --grow --size, output logged, rc returned
	log "+ mdadm --grow $1 --size=$2"
	mdadm --grow "$1" --size="$2" 2>&1
}

run mdadm --create /dev/md0 --run --level=$LEVEL --raid-devices=4 --chunk=64 \
	--size=16384 --assume-clean --write-journal=$(disk ja) $(disks a0 a1 a2 a3)
run mdadm --create /dev/md1 --run --level=$LEVEL --raid-devices=4 --chunk=64 \
	--size=4096 --assume-clean --write-journal=$(disk jb) $(disks b0 b1 b2 b3)
expect_eq "$(csize md0)" 16384 "md0 component size"
LOW="--rw=write --bs=64k --offset=0 --size=$((6144 * ND))k"
HIGH="--rw=randwrite --bs=64k --offset=$((6144 * ND))k --size=$((6144 * ND - 1024))k"
fio_verify LOW /dev/md0 $LOW
fio_verify HIGH /dev/md0 $HIGH
OLD1="--rw=randwrite --bs=16k --offset=0 --size=$((4096 * ND))k"
fio_verify OLD1 /dev/md1 $OLD1

# md0: the journal (7 MiB of data area) is the smallest device
before=$(asize /dev/md0)
grow /dev/md0 max
report max_rc $?
expect_eq "$(csize md0)" 16384 "md0 component size after --size=max"
expect_eq "$(asize /dev/md0)" "$before" "md0 size after --size=max"
fio_verify LOW /dev/md0 $LOW --verify_only
fio_verify HIGH /dev/md0 $HIGH --verify_only
pass "RAID$LEVEL: --size=max with a small journal does not shrink"

grow /dev/md0 65536
report bigger_rc $?
expect_eq "$(csize md0)" 16384 "md0 component size after --size=65536"
fio_verify HIGH /dev/md0 $HIGH --verify_only
pass "RAID$LEVEL: --size=65536 past the journal's size: unchanged"

# md1: the journal is larger than the used size; max is the journal's
jsize=$(( $(cat /sys/block/md1/md/dev-$(basename $(disk jb))/size) / 64 * 64 ))
grow /dev/md1 max
report max1_rc $?
c1=$(csize md1)
report md1_size $c1
report md1_journal_size $jsize
if [ "$PERSONALITY" = raid5j ]; then
	expect_eq "$c1" "$jsize" "md1 component size after --size=max"
	expect_eq "$(asize /dev/md1)" $((jsize * ND)) "md1 array size"
	wait_sync /dev/md1
	NEW1="--rw=randwrite --bs=64k --offset=$((4096 * ND))k --size=$(((jsize - 4096) * ND))k"
	fio_verify NEW1 /dev/md1 $NEW1
else
	expect_eq "$c1" 4096 "md1 component size after --size=max (raid456 refuses)"
fi
fio_verify OLD1 /dev/md1 $OLD1 --verify_only
pass "RAID$LEVEL: md1 --size=max"

# md0: blocks past the new end still in the log, then the shrink
fio_verify TAIL /dev/md0 --rw=write --bs=4k --offset=$((16384 * ND - 1024))k --size=1m
grow /dev/md0 6144
rc=$?
report shrink_rc $rc
if [ "$PERSONALITY" = raid5j ]; then
	expect_eq "$rc" 0 "mdadm --size=6144 exit status"
	expect_eq "$(csize md0)" 6144 "md0 component size after --size=6144"
	expect_eq "$(asize /dev/md0)" $((6144 * ND)) "md0 array size"
else
	expect_eq "$(csize md0)" 16384 "md0 component size (raid456 refuses)"
fi
pass "RAID$LEVEL: explicit shrink"
# cut before the periodic reclaim (5 s) could empty the log; boot 2
# verifies the data
mark shrunk
sleep 1000
EOF
[ "$VM_KILLED" = 1 ] || vm_fail "RAID$LEVEL: boot 1 was not cut"
vm_log "RAID$LEVEL: --size=max rc $(vm_val max_rc), --size=65536 rc $(vm_val bigger_rc), md1 max rc $(vm_val max1_rc) size $(vm_val md1_size) (journal $(vm_val md1_journal_size)), shrink rc $(vm_val shrink_rc)"

vm_boot --timeout 240 --env LEVEL=$LEVEL - a0 a1 a2 a3 ja b0 b1 b2 b3 jb <<'EOF' ||
. /test/guest-lib.sh
load_personality
fast_sync
ND=$((LEVEL == 6 ? 2 : 3))
csize() { md_sysfs "$1" component_size; }
run mdadm --assemble /dev/md0 $(disks a0 a1 a2 a3 ja)
run mdadm --assemble /dev/md1 $(disks b0 b1 b2 b3 jb)
dmesg | grep -E 'journal|md/raid' | tail -n 12
# recovery accepted both logs: nothing logged past the arrays' ends
dmesg | grep -q 'journal recovery failed' && fail "journal recovery failed"
check readwrite /dev/md0
check readwrite /dev/md1
LOW="--rw=write --bs=64k --offset=0 --size=$((6144 * ND))k"
HIGH="--rw=randwrite --bs=64k --offset=$((6144 * ND))k --size=$((6144 * ND - 1024))k"
OLD1="--rw=randwrite --bs=16k --offset=0 --size=$((4096 * ND))k"
fio_verify LOW /dev/md0 $LOW --verify_only
fio_verify OLD1 /dev/md1 $OLD1 --verify_only
jsize=$(( $(cat /sys/block/md1/md/dev-$(basename $(disk jb))/size) / 64 * 64 ))
if [ "$PERSONALITY" = raid5j ]; then
	expect_eq "$(csize md0)" 6144 "md0 component size after the power cut"
	expect_eq "$(csize md1)" "$jsize" "md1 component size after the power cut"
	NEW1="--rw=randwrite --bs=64k --offset=$((4096 * ND))k --size=$(((jsize - 4096) * ND))k"
	fio_verify NEW1 /dev/md1 $NEW1 --verify_only
else
	expect_eq "$(csize md0)" 16384 "md0 component size after the power cut"
	expect_eq "$(csize md1)" 4096 "md1 component size after the power cut"
	fio_verify HIGH /dev/md0 $HIGH --verify_only
	fio_verify TAIL /dev/md0 --rw=write --bs=4k --offset=$((16384 * ND - 1024))k --size=1m --verify_only
fi
check mismatch /dev/md0
check mismatch /dev/md1
run mdadm --stop /dev/md0
run mdadm --stop /dev/md1
pass "RAID$LEVEL: after the power cut"
EOF
	vm_fail "RAID$LEVEL boot 2"
done
exit 0
