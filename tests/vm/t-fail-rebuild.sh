#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-fail-rebuild: lose a member, keep serving verified data degraded,
# rebuild onto a spare (with writes during recovery), then onto the
# re-added old member.
#
#	   d0      d1      d2      d3        d4     virtio, 32 MiB each
#	    \       \      /       /         :
#	     +-------+----+-------+          :  spare, added after d1 fails
#	     |      /dev/md0      |  <.......:
#	     +--------------------+          RAID5, 4 devices, 64K chunk
#
# Asserts:
#  - data written whole verifies after "mdadm --fail d1" ([4/3] [U_UU],
#    md/degraded 1): reads of d1's chunks reconstruct from parity, the
#    others go straight to their member (raid5j_stats); degraded writes
#    verify;
#  - "mdadm --add d4" starts a recovery visible in /proc/mdstat; fio writes
#    during recovery verify; after it, [4/4] [UUUU] and all data verifies;
#  - fail d2, zero its superblock, add it back: second recovery, all data
#    verifies;
#  - stop/assemble: whole, no resync, data verifies; "check" finds
#    mismatch_cnt 0; no kernel BUG/WARNING/Oops/hung task.
#
# Disks: 5 x 32 MiB.  Boots: 1.  Timeout: 180 s.

. "$(dirname "$0")/lib.sh"

vm_disks 32M d0 d1 d2 d3 d4
vm_boot --timeout 180 - d0 d1 d2 d3 d4 <<'EOF'
. /test/guest-lib.sh
load_personality
fast_sync
D=$(disks d0 d1 d2 d3)
d1=$(disk d1) d2=$(disk d2) d4=$(disk d4)

run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=64 $D
wait_sync /dev/md0
check state '[4/4] [UUUU]' /dev/md0

# A: written whole, read degraded;  B: written degraded;
# C: written during recovery.  Disjoint ranges.
A="--rw=write --bs=128k --iodepth=8 --offset=0 --size=32m"
B="--rw=randwrite --bs=8k --iodepth=16 --offset=32m --size=8m"
C="--rw=randwrite --bs=32k --iodepth=8 --offset=48m --size=16m"
fio_verify A /dev/md0 $A

run mdadm /dev/md0 --fail $d1
check state '[4/3] [U_UU]' /dev/md0
check degraded 1 /dev/md0
[ "$PERSONALITY" = raid5j ] && ar0=$(r5j_stat aligned_reads) dr0=$(r5j_stat degraded_reads)
fio_verify A /dev/md0 $A --verify_only
if [ "$PERSONALITY" = raid5j ]; then
	# chunks on live members are read straight from them, only d1's
	# (a quarter of 512 chunks) go through the stripe cache
	ar=$(($(r5j_stat aligned_reads) - ar0)) dr=$(($(r5j_stat degraded_reads) - dr0))
	log "degraded verify: $ar aligned reads, $dr degraded stripe reads"
	[ "$ar" -ge 350 ] || fail "only $ar of 384 live chunks read straight from their member"
	[ "$dr" -ge 128 ] || fail "only $dr stripe reads reconstructed d1's 128 chunks"
fi
fio_verify B /dev/md0 $B
pass "t-fail-rebuild/degraded"

run mdadm /dev/md0 --remove $d1
# slow the recovery down enough to see it and to write during it
echo 5000 > /proc/sys/dev/raid/speed_limit_min
echo 5000 > /proc/sys/dev/raid/speed_limit_max
run mdadm /dev/md0 --add $d4
sleep 1
check recovery
grep -A2 '^md0 ' /proc/mdstat
fio_verify C /dev/md0 $C
fast_sync
wait_sync /dev/md0
check state '[4/4] [UUUU]' /dev/md0
check degraded 0 /dev/md0
for j in A B C; do
	fio_verify $j /dev/md0 ${!j} --verify_only
done
pass "t-fail-rebuild/spare"

run mdadm /dev/md0 --fail $d2
run mdadm /dev/md0 --remove $d2
check state '[4/3] [UU_U]' /dev/md0
run mdadm --zero-superblock $d2
run mdadm /dev/md0 --add $d2
wait_sync /dev/md0
check state '[4/4] [UUUU]' /dev/md0
for j in A B C; do
	fio_verify $j /dev/md0 ${!j} --verify_only
done
pass "t-fail-rebuild/re-add"

NEW=$(disks d0 d2 d3 d4)
run mdadm --stop /dev/md0
run mdadm --assemble /dev/md0 $NEW
check state '[4/4] [UUUU]' /dev/md0
check nosync
fio_verify A /dev/md0 $A --verify_only
check mismatch /dev/md0
pass "t-fail-rebuild/assemble"
check dmesg
EOF
