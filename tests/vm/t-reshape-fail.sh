#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-reshape-fail: a member of the old geometry fails in the middle of a
# grow under verified I/O; the grow finishes degraded, as raid456's does
# (Documentation/reshape.md section 7).
#
#	  f0 f1 f2 +f3     md0  RAID5 3->4, 64K chunk, no backup file (mdadm
#	                        moves data_offset); f1 fails mid-way, then is
#	                        added back and rebuilt
#	  +f4                   then 4->5, the veto set during it
#	  g0 g1 g2 g3 +g4  md0  boot 2: RAID6 4->5, no backup file; g1 fails
#	                        mid-way, g2 further on; both added back
#	  (virtio, 32 MiB each, 64K chunk, created --assume-clean)
#
#	boot 1  PERSONALITY: fio A (random, 0-16M) and T (the last 2 MiB of
#	        the old size); add f3; md/sync_max HOLD; grow; wait until the
#	        reshape sits at HOLD (so it is mid-way for sure); fio passes
#	        over B (random, 16-32M, write and verify, a new seed each
#	        pass) start in the background; mdadm --fail f1; sync_max max;
#	        the reshape runs on degraded; the B passes go on until it ends.
#
# Asserts:
#  - the reshape was held inside the array (reshape_position between 0 and
#    the old size) when f1 failed, and was still pending right after;
#  - the reshape completes degraded: md/raid_disks 4, reshape_position
#    none, md/degraded 1, mdadm --detail "Raid Devices : 4" and "Array
#    Size" = component x 3, the block device that size;
#  - every fio pass of B (written across the failure and the rest of the
#    reshape) verified, and at least one ran while the reshape did;
#  - A, the last B, T verify after it; C is written and verifies in the
#    space the grow added;
#  - f1 (superblock zeroed) added back: rebuilt to [4/4] [UUUU], check
#    mismatch_cnt 0, A B T C verify again;
#  - then 4->5 (f4): 2 s into it raid5j's veto reshape=0 is set (raid456:
#    nothing set); fio writes and verifies 16 MiB over the whole old extent
#    within 90 s (no request waits on a position the stopped engine would
#    never write), the grow finishes (5 members, size 4 x component),
#    that data verifies again, check 0; no kernel warning.
# Both personalities assert the same.  First, raid5j only (raid456 makes
# the change): with the module parameter reshape=0 the grow itself is
# refused: mdadm fails, a kernel line "md/raid:md0: raid5j: reshape is
# off: ...", raid_disks, chunk_size, layout, size unchanged, no
# reshape_position; A and T verify afterwards.
#
# Boot 2 (RAID6 4->5, both personalities alike): sync_max HOLD6_1, held
# there; B passes in the background; g1 fails (degraded 1, the reshape
# still pending); sync_max HOLD6_2: the reshape moves on degraded and is
# held again further on; g2 fails (degraded 2, still pending); released:
#  - the reshape completes doubly degraded: raid_disks 5, no position,
#    degraded 2, --detail 5 devices, size component x 3;
#  - every B pass verified, at least one during the reshape; A, the last
#    B, T verify; C is written and verifies in the added space;
#  - g1 and g2 (superblocks zeroed) added: [5/5] [UUUUU], degraded 0,
#    check mismatch_cnt 0, A B T C verify again; no kernel warning.
#
# Disks: 10 x 32 MiB.  Boots: 2.  Timeout: 240 s and 200 s (x
# VM_TIMEOUT_SCALE).

. "$(dirname "$0")/lib.sh"

HOLD=16384			# md/sync_max, sectors of each member
HOLD6_1=8192 HOLD6_2=20480	# RAID6: the first and the second failure
R6="g0 g1 g2 g3 g4"
vm_disks 32M f0 f1 f2 f3 f4 $R6

vm_boot --timeout 240 --env HOLD=$HOLD - f0 f1 f2 f3 f4 <<'EOF' ||
. /test/guest-lib.sh
load_personality
M=1048576
D=/dev/md0
reg_A="--rw=randwrite --bssplit=4k/30:16k/30:64k/40 --iodepth=8 --offset=0 --size=16m --io_size=6m"
reg_B() { echo "--rw=randwrite --bssplit=4k/40:32k/30:128k/30 --iodepth=8 --offset=16m --size=16m --io_size=3m --randseed=$1"; }
reg_T() { echo "--rw=write --bs=128k --iodepth=4 --offset=$(($1 - 2 * M)) --size=2m"; }
reg_C() { echo "--rw=randwrite --bssplit=4k/50:64k/50 --iodepth=8 --offset=$1 --size=8m --io_size=4m"; }

run mdadm --create $D --run --level=5 --chunk=64 --raid-devices=3 \
	--assume-clean $(disks f0 f1 f2)
old=$(blockdev --getsize64 $D)
fio_verify A $D $reg_A
fio_verify T $D $(reg_T $old)

# raid5j: what its engine does not do yet (and everything, with the veto
# reshape=0) is refused: mdadm fails, the kernel says why, the array keeps
# its shape and data.  raid456 makes these changes: skipped there.
refused() {	# refused KERNEL-LINE WHAT MDADM-ARGS...
	local pat=$1 what=$2 n
	shift 2
	n=$(dmesg | wc -l)
	mdadm "$@" > /tmp/refused.out 2>&1 && { cat /tmp/refused.out; fail "$what: mdadm accepted it"; }
	log "$what: $(tr '\n' ' ' < /tmp/refused.out)"
	dmesg | tail -n +$((n + 1)) | grep -F "md/raid:md0: raid5j: $pat" ||
		fail "$what: no kernel line 'raid5j: $pat': $(dmesg | tail -n +$((n + 1)) | tr '\n' ' ')"
	expect_eq "$(md_sysfs $D raid_disks) $(md_sysfs $D chunk_size) $(md_sysfs $D layout)" \
		"3 65536 2" "$what: raid_disks chunk_size layout"
	expect_eq "$(md_sysfs $D reshape_position)" none "$what: reshape_position"
	expect_eq "$(blockdev --getsize64 $D)" "$old" "$what: size"
	pass "$what refused"
}
if [ "$PERSONALITY" = raid5j ]; then
	# (--chunk and --layout are accepted: t-reshape-layout; shrinks
	# too: t-reshape-shrink)
	run mdadm $D --add $(disk f3)
	echo 0 > /sys/module/raid5j/parameters/reshape
	refused "reshape is off: module parameter reshape=0" veto \
		--grow $D --raid-devices=4
	echo 1 > /sys/module/raid5j/parameters/reshape
	run mdadm $D --remove $(disk f3)
	run mdadm --zero-superblock $(disk f3)
	fio_verify A $D $reg_A --verify_only
	fio_verify T $D $(reg_T $old) --verify_only
	check dmesg
else
	log "refusals: raid456 makes these changes, skipped"
fi

run mdadm $D --add $(disk f3)
check spares 1 $D
t0=$(cut -d' ' -f1 /proc/uptime)
grow_held $D 4 $HOLD raid5

# B passes across the failure and the rest of the reshape
passes_during_reshape $D reg_B
sleep 1
run mdadm $D --fail $(disk f1)
log "$(cat /proc/mdstat)"
check degraded 1 $D
reshaping $D || fail "the reshape ended when f1 failed"
say "f1 failed at reshape_position $(md_sysfs $D reshape_position)"
release_reshape $D raid5
t1=$(cut -d' ' -f1 /proc/uptime)
say "reshape done in $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.1f", b - a }') s (held part included); $passes B passes, $during while it ran"
[ "$during" -ge 1 ] || fail "no B pass ran while the reshape did"
log "$(cat /proc/mdstat)"
expect_eq "$(md_sysfs $D raid_disks)" 4 "md/raid_disks"
expect_eq "$(md_sysfs $D reshape_position)" none "md/reshape_position"
check raid5 $D
check degraded 1 $D
comp=$(md_sysfs $D component_size)
mdadm --detail $D > /tmp/detail
expect_eq "$(sed -n 's/^ *Raid Devices : \([0-9]*\)$/\1/p' /tmp/detail)" 4 "mdadm --detail Raid Devices"
expect_eq "$(sed -n 's/^ *Array Size : \([0-9]*\) .*/\1/p' /tmp/detail)" $((comp * 3)) "mdadm --detail Array Size (KiB)"
expect_eq "$(blockdev --getsize64 $D)" $((comp * 3 * 1024)) "size of $D (bytes)"
fio_verify A $D $reg_A --verify_only
fio_verify B$passes $D $(reg_B $passes) --verify_only
fio_verify T $D $(reg_T $old) --verify_only
fio_verify C $D $(reg_C $old)
pass "grow finished degraded, data verified"

run mdadm $D --remove $(disk f1)
run mdadm --zero-superblock $(disk f1)
run mdadm $D --add $(disk f1)
fast_sync
sleep 0.5
wait_sync $D
check state '[4/4] [UUUU]' $D
check mismatch $D
fio_verify A $D $reg_A --verify_only
fio_verify B$passes $D $(reg_B $passes) --verify_only
fio_verify T $D $(reg_T $old) --verify_only
fio_verify C $D $(reg_C $old) --verify_only
pass "f1 rebuilt, check 0"

# raid5j: the veto set while a grow runs stops nothing half-way: the grow
# finishes and I/O anywhere completes (raid456 has no veto: plain grow)
old4=$(blockdev --getsize64 $D)
run mdadm $D --add $(disk f4)
echo 6000 > /sys/block/md0/md/sync_speed_max
echo 3000 > /sys/block/md0/md/sync_speed_min
run mdadm --grow $D --raid-devices=5
say "4->5: $(wait_reshape_line $D)"
sleep 2
if [ "$PERSONALITY" = raid5j ]; then
	echo 0 > /sys/module/raid5j/parameters/reshape
	say "4->5: reshape=0 set at reshape_position $(md_sysfs $D reshape_position), $(mdstat_reshape $D)"
fi
# the whole old extent, read and written while the veto is set
reg_V="--rw=randwrite --bs=64k --iodepth=8 --size=$old4 --io_size=16m"
# (in the background: a request stuck in the kernel cannot be killed)
fio --name=V --filename=$D --direct=1 --ioengine=libaio $reg_V \
	--verify=crc32c --verify_fatal=1 > /tmp/fio-v.out 2>&1 &
vpid=$!
t=0
while [ -d /proc/$vpid ]; do
	[ $t -ge 900 ] && fail "4->5: I/O during the grow not done in 90 s: $(tr '\n' ' ' < /proc/mdstat)"
	sleep 0.1
	t=$((t + 1))
done
wait $vpid || { tail -n 20 /tmp/fio-v.out; fail "4->5: fio V failed"; }
t=0
while reshaping $D; do
	[ $t -ge 1200 ] && fail "4->5: reshape still running 120 s on: $(tr '\n' ' ' < /proc/mdstat)"
	sleep 0.1
	t=$((t + 1))
done
wait_sync $D
[ "$PERSONALITY" = raid5j ] && echo 1 > /sys/module/raid5j/parameters/reshape
expect_eq "$(md_sysfs $D raid_disks)" 5 "4->5: md/raid_disks"
expect_eq "$(md_sysfs $D reshape_position)" none "4->5: md/reshape_position"
expect_eq "$(blockdev --getsize64 $D)" $(($(md_sysfs $D component_size) * 4 * 1024)) "4->5: size"
fio_verify V $D $reg_V --verify_only
check mismatch $D
pass "grow 4->5 finished with the veto set during it"
run mdadm --stop $D
check dmesg
EOF
	vm_fail "boot 1 ($PERSONALITY): member failure during the grow"
B1=$VM_BOOT_SECS

# ---- boot 2: RAID6 4->5 loses one old member, then a second -------------
vm_boot --timeout 200 --env HOLD1=$HOLD6_1 --env HOLD2=$HOLD6_2 - $R6 <<'EOF' ||
. /test/guest-lib.sh
load_personality
M=1048576
D=/dev/md0
reg_A="--rw=randwrite --bssplit=4k/30:16k/30:64k/40 --iodepth=8 --offset=0 --size=16m --io_size=6m"
reg_B() { echo "--rw=randwrite --bssplit=4k/40:32k/30:128k/30 --iodepth=8 --offset=16m --size=16m --io_size=3m --randseed=$1"; }
reg_T() { echo "--rw=write --bs=128k --iodepth=4 --offset=$(($1 - 2 * M)) --size=2m"; }
reg_C() { echo "--rw=randwrite --bssplit=4k/50:64k/50 --iodepth=8 --offset=$1 --size=8m --io_size=4m"; }

run mdadm --create $D --run --level=6 --chunk=64 --raid-devices=4 \
	--assume-clean $(disks g0 g1 g2 g3)
old=$(blockdev --getsize64 $D)
fio_verify A $D $reg_A
fio_verify T $D $(reg_T $old)
run mdadm $D --add $(disk g4)
check spares 1 $D
grow_held $D 5 $HOLD1 raid6
passes_during_reshape $D reg_B
sleep 1
run mdadm $D --fail $(disk g1)
check degraded 1 $D
reshaping $D || fail "raid6: the reshape ended when g1 failed"
say "raid6: g1 failed at reshape_position $(md_sysfs $D reshape_position)"
echo $HOLD2 > /sys/block/md0/md/sync_max || fail "sync_max $HOLD2 refused"
wait_reshape_held $D $HOLD2
pos2=$(md_sysfs $D reshape_position)
[ "$pos2" != none ] && [ "$pos2" -gt "$pos" ] ||
	fail "raid6: reshape did not move on degraded: '$pos' -> '$pos2'"
run mdadm $D --fail $(disk g2)
log "$(cat /proc/mdstat)"
check degraded 2 $D
reshaping $D || fail "raid6: the reshape ended when g2 failed"
say "raid6: g2 failed at reshape_position $pos2 (sync_completed $c)"
release_reshape $D raid6
say "raid6: $passes B passes, $during while the reshape ran"
[ "$during" -ge 1 ] || fail "raid6: no B pass ran while the reshape did"
log "$(cat /proc/mdstat)"
expect_eq "$(md_sysfs $D raid_disks)" 5 "raid6 md/raid_disks"
expect_eq "$(md_sysfs $D reshape_position)" none "raid6 md/reshape_position"
check raid6 $D
check degraded 2 $D
comp=$(md_sysfs $D component_size)
mdadm --detail $D > /tmp/detail
expect_eq "$(sed -n 's/^ *Raid Devices : \([0-9]*\)$/\1/p' /tmp/detail)" 5 "raid6 mdadm --detail Raid Devices"
expect_eq "$(sed -n 's/^ *Array Size : \([0-9]*\) .*/\1/p' /tmp/detail)" $((comp * 3)) "raid6 mdadm --detail Array Size (KiB)"
expect_eq "$(blockdev --getsize64 $D)" $((comp * 3 * 1024)) "raid6 size of $D (bytes)"
fio_verify A $D $reg_A --verify_only
fio_verify B$passes $D $(reg_B $passes) --verify_only
fio_verify T $D $(reg_T $old) --verify_only
fio_verify C $D $(reg_C $old)
pass "raid6 grow finished doubly degraded, data verified"

run mdadm $D --remove $(disks g1 g2)
run mdadm --zero-superblock $(disks g1 g2)
run mdadm $D --add $(disks g1 g2)
fast_sync
sleep 0.5
wait_sync $D
check state '[5/5] [UUUUU]' $D
check degraded 0 $D
check mismatch $D
fio_verify A $D $reg_A --verify_only
fio_verify B$passes $D $(reg_B $passes) --verify_only
fio_verify T $D $(reg_T $old) --verify_only
fio_verify C $D $(reg_C $old) --verify_only
pass "raid6 g1 g2 rebuilt, check 0"
run mdadm --stop $D
check dmesg
EOF
	vm_fail "boot 2 ($PERSONALITY): two member failures during a RAID6 grow"
echo "boot times: ${B1}s (raid5) ${VM_BOOT_SECS}s (raid6, $PERSONALITY)"
echo "PASS $VM_TEST"
