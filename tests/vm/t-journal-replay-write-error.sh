#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-replay-write-error: a member write fails while the journal is
# replayed at assembly.  With a bad block log (mdadm 1.2's default) the
# member is kept and the stripe recorded, as for a write error at run
# time.
#
#	boot 1	RAID5 (64K chunk, 4 x 16M, --assume-clean over zeroed
#		disks) with a write journal, members on dm-linear; the
#		array made dirty, then the four members suspended
#		(dmsetup suspend --noflush: their I/O waits); a 192K write of
#		known data over row 4 (array blocks 192-239, a full row: no
#		pre-read) reaches the journal, not the members; power cut
#	boot 2	members are md "faulty" devices over the disks; md12's
#		block of row 4 at dev 552 (array block 229) is made to fail
#		writes (wp); it still holds zeros.  Assemble: the replay's
#		write to md12 at dev 552 fails.
#
# raid5j: "journal replay: write to md12 failed", md12 kept ([UUUU]),
# dev 552 in its bad block log (sysfs and mdadm --examine-badblocks),
# blocks 192-239 read the logged data (229 rebuilt from parity), the
# rest of the first 2M reads zeros.
# raid456 (6.1 r5l_recovery_replay_one_stripe() ignores the result of
# its member writes): md12 kept, nothing recorded (asserted as raid456's
# outcome).  md "faulty" submits a write it fails to the disk below all
# the same, so there block 229 reads the logged data under raid456 too;
# on a disk whose failed write leaves the old block, raid456 would read
# it back as valid, stale against the parity.
# Before the fix, raid5j failed md12 ([UU_U]).
# Disks: 5 x 16 MiB.  Boots: 2.  ~40 s.

. "$(dirname "$0")/lib.sh"

rm -rf "$VM_DISK_DIR"
vm_disks 16M a b c d j

vm_boot --timeout 120 --kill-mark cut --kill-after 0.5 - a b c d j <<'EOF' ||
. /test/guest-lib.sh
load_personality
linear_members a b c d
run mdadm --create /dev/md0 --run --level=5 --chunk=64 --raid-devices=4 \
	--size=12M --assume-clean --write-journal "$(disk j)" $M
check raid5 /dev/md0
# dirty now, so that the write below needs no superblock write
echo 3600 > /sys/block/md0/md/safe_mode_delay
run dd if=/dev/zero of=/dev/md0 bs=4k count=1 oflag=direct status=none
for d in a b c d; do
	run dmsetup suspend --noflush --nolockfs "lin$d"
done
seq -w 1 100000 | head -c 196608 > /tmp/new
dd if=/tmp/new of=/dev/md0 bs=192k seek=4 count=1 oflag=direct \
	status=none &
sleep 5
log "$(grep -A1 '^md0 ' /proc/mdstat | tail -n 1)"
mark cut
sleep 100
EOF
	vm_fail "boot 1 ($PERSONALITY)"
[ "$VM_KILLED" = 1 ] || vm_fail "boot 1: the VM was not killed"

vm_boot --timeout 120 - a b c d j <<'EOF' || vm_fail "$PERSONALITY"
. /test/guest-lib.sh
load_personality
faulty_members a b c d
OFF=$(data_offset /dev/md12)
blk=$(((OFF + 552) / 8))
dd if=/dev/md12 of=/tmp/blk bs=4k skip=$blk count=1 iflag=direct status=none ||
	fail "read md12 dev 552"
cmp -s /tmp/blk <(head -c 4096 /dev/zero) ||
	fail "md12 dev 552 is not zero before the replay (no power cut?)"
run mdadm --grow /dev/md12 --layout=wp
dd if=/tmp/blk of=/dev/md12 bs=4k seek=$blk count=1 oflag=direct \
	status=none 2>/dev/null && fail "md12: wp fault not taken"
LOGN=$(dmesg | wc -l)
run mdadm --assemble --run /dev/md0 $F "$(disk j)"
dmesg | tail -n +$((LOGN + 1)) | grep -E 'md0|md1[0-3]'
check state '[UUUU]' /dev/md0
seq -w 1 100000 | head -c 196608 > /tmp/new
same() {	# same BLOCK FILE FILE_BLOCK: array 4K block BLOCK is FILE's
	cmp -s <(dd if=/dev/md0 bs=4k skip=$1 count=1 iflag=direct status=none) \
		<(dd if=$2 bs=4k skip=$3 count=1 status=none)
}
for b in $(seq 192 239); do
	same $b /tmp/new $((b - 192)) || fail "array block $b: not the logged data"
done
cmp -s <(dd if=/dev/md0 bs=64k count=12 iflag=direct status=none) \
	<(head -c 786432 /dev/zero) || fail "array 0-768K is not zero"
cmp -s <(dd if=/dev/md0 bs=64k skip=15 count=17 iflag=direct status=none) \
	<(head -c 1114112 /dev/zero) || fail "array 960K-2M is not zero"
bb=$(md_sysfs md0 dev-md12/bad_blocks)
log "md12 bad_blocks: $(echo $bb)"
if [ "$PERSONALITY" = raid456 ]; then
	[ -z "$bb" ] || fail "raid456: md12 has bad blocks '$bb'"
	log "raid456: md12 kept, nothing recorded"
else
	dmesg | grep -q "md0: journal replay: write to md12 failed" ||
		fail "no 'journal replay: write to md12 failed' line"
	echo "$bb" | grep -qx "$((OFF + 552)) 8" ||
		fail "md12: $((OFF + 552)) not in bad_blocks '$(echo $bb)'"
	mdadm --examine-badblocks /dev/md12 |
		grep -Eq "^ *$((OFF + 552)) for 8 sectors" ||
		fail "md12: $((OFF + 552)) not listed by --examine-badblocks"
fi
pass "t-journal-replay-write-error"
run mdadm --stop /dev/md0
check dmesg
EOF
echo "PASS $VM_TEST"
