#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-reshape-serve: arrays a grow was interrupted on (by raid456) are
# assembled by the personality under test, which reads and writes through
# both geometries, also degraded; raid456 then finishes the grows and
# reads the same data (Documentation/reshape.md section 5.1).
#
#	  r0 r1 r2 +r3        md0  RAID5 3->4, 64K chunk
#	  s0 s1 s2 s3 +s4     md1  RAID6 4->5, 32K chunk
#	  (32 MiB members, --assume-clean, no backup file: mdadm moves the
#	  data offset)
#
# For each array:
#   boot 1  raid456: X [0,4M) Y [4M,20M) Z [20M, end-1M) written by fio;
#           add the last member, md/sync_max HOLD, grow by one; wait until
#           the reshape sits at sync_max; stop.  Host: every member's
#           superblock has the reshape in progress.
#   boot 2  PERSONALITY: assemble.  raid5j, loaded with reshape=0 (the
#           veto: it starts and continues no reshape): a kernel line
#           "reshape interrupted at", one saying why it is held (the
#           parameter), reshape_position as boot 1 left it and still
#           there 3 s later, no reshape line in /proc/mdstat, the size the
#           old one.  raid456 (validation): its reshape resumes.  Both:
#           X Y Z verify (Y straddles the position), Y2 written over Y and
#           verified, X Z verify; the second member failed (RAID6: then
#           the third too), X Y2 Z verify degraded each time (blocks
#           rebuilt from prev- and next-geometry stripes).
#   boot 3  raid456: assemble (failed members stale: left out), the
#           reshape ends (degraded), X Y2 Z verify; the members added back
#           and rebuilt; no position, size data members x component;
#           X Y2 Z verify, check: mismatch_cnt 0.
#
# Disks: 9 x 32 MiB.  Boots: 3.  Timeouts: 300 s a boot (x VM_TIMEOUT_SCALE).

. "$(dirname "$0")/lib.sh"

R="r0 r1 r2 r3" S="s0 s1 s2 s3 s4"
HOLD=8192			# md/sync_max, sectors of each member
vm_disks 32M $R $S

# What every boot does it does for each line "md level chunk old-count
# members...": the last member is the one the grow adds.
ARRAYS="md0 5 64 3 $R
md1 6 32 4 $S"

PERSONALITY=raid456 vm_boot --timeout 300 --env HOLD=$HOLD --env "ARRAYS=$ARRAYS" \
	- $R $S <<'GUEST' ||
. /test/guest-lib.sh
load_personality
M=1048576
while read -r md level chunk n members <&3; do
	D=/dev/$md
	old_members=$(echo $members | cut -d' ' -f1-$n)
	run mdadm --create $D --run --level=$level --chunk=$chunk --raid-devices=$n \
		--assume-clean $(disks $old_members)
	old=$(blockdev --getsize64 $D)
	report old_$md $old
	zsize=$(((old / M - 21) * M))
	report zsize_$md $zsize
	fio_verify X$md $D --rw=write --bs=64k --iodepth=4 --offset=0 --size=4m
	fio_verify Y$md $D --rw=randwrite --bssplit=4k/30:16k/30:64k/40 --iodepth=8 \
		--offset=4m --size=16m
	fio_verify Z$md $D --rw=write --bs=128k --iodepth=4 --offset=20m --size=$zsize
	run mdadm $D --add $(disk ${members##* })
	echo $HOLD > /sys/block/$md/md/sync_max || fail "$md: sync_max $HOLD refused"
	if ! mdadm --grow $D --raid-devices=$((n + 1)) > /tmp/grow.out 2>&1; then
		cat /tmp/grow.out
		fail "$md: mdadm --grow failed: $(tail -n 2 /tmp/grow.out | tr '\n' ' ')"
	fi
	wait_reshape_held $D $HOLD
	pos=$(md_sysfs $D reshape_position)
	say "$md: held at sync_completed $c, reshape_position $pos"
	[ "$pos" != none ] && [ "$pos" -gt $((8 * M / 512)) ] &&
		[ "$pos" -lt $((20 * M / 512)) ] ||
		fail "$md: reshape_position '$pos' not inside Y (4-20 MiB), where this test needs it"
	report pos_$md $pos
	run mdadm --stop $D
	pass "$md: grow held and stopped under raid456"
done 3<<< "$ARRAYS"
GUEST
	vm_fail "boot 1 (raid456)"
VALS=
for md in md0 md1; do
	for v in pos old zsize; do
		x=$(vm_val ${v}_$md)
		[ -n "$x" ] || vm_fail "boot 1 reported no ${v}_$md"
		VALS="$VALS ${v}_$md=$x"
	done
done
for d in $R $S; do
	p=$(mdadm --examine "$(vm_disk_path "$d")" | sed -n "s/^ *Reshape pos'n : //p")
	[ -n "$p" ] || vm_fail "$d: no reshape in progress in its superblock"
	vm_log "$d: reshape position $p"
done

# raid5j with its reshape engine vetoed (reshape=0): the reshape is held
R5J_MODPARAMS=reshape=0 PERSONALITY=$PERSONALITY vm_boot --timeout 300 --env "VALS=$VALS" \
	--env "ARRAYS=$ARRAYS" - $R $S <<'GUEST' ||
. /test/guest-lib.sh
load_personality
for v in $VALS; do eval "$v"; done
[ "$PERSONALITY" = raid456 ] && fast_sync
while read -r md level chunk n members <&3; do
	D=/dev/$md
	eval "POS=\$pos_$md OLD=\$old_$md ZSIZE=\$zsize_$md"
	set -- $members
	LOGN=$(dmesg | wc -l)
	if ! mdadm --assemble $D $(disks $members) > /tmp/asm.out 2>&1; then
		cat /tmp/asm.out
		fail "$md: assembly mid-reshape failed: $(tail -n 2 /tmp/asm.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
	fi
	check raid$level $D
	lines=$(dmesg | tail -n +$((LOGN + 1)))
	printf '%s\n' "$lines" | grep "md/raid:$md: reshape"
	if [ "$PERSONALITY" = raid5j ]; then
		printf '%s\n' "$lines" | grep -q "md/raid:$md: reshape interrupted at $POS " ||
			fail "$md: no 'reshape interrupted at $POS' kernel line"
		expect_eq "$(md_sysfs $D reshape_position)" "$POS" "$md md/reshape_position"
		sleep 3
		expect_eq "$(md_sysfs $D reshape_position)" "$POS" "$md md/reshape_position 3 s later"
		dmesg | tail -n +$((LOGN + 1)) |
			grep -q "md/raid:$md: reshape interrupted at $POS: raid5j serves I/O but does not continue it (reshape is off: module parameter reshape=0)" ||
			fail "$md: no kernel line saying why the reshape is held"
		grep -A3 "^$md " /proc/mdstat | grep -q 'reshape =' &&
			fail "$md: raid5j shows a running reshape: $(tr '\n' ' ' < /proc/mdstat)"
		expect_eq "$(blockdev --getsize64 $D)" "$OLD" "$md size mid-reshape"
		pass "$md: reshape held, array running"
	fi
	fio_verify X$md $D --rw=write --bs=64k --iodepth=4 --offset=0 --size=4m --verify_only
	fio_verify Y$md $D --rw=randwrite --bssplit=4k/30:16k/30:64k/40 --iodepth=8 \
		--offset=4m --size=16m --verify_only
	fio_verify Z$md $D --rw=write --bs=128k --iodepth=4 --offset=20m --size=$ZSIZE \
		--verify_only
	pass "$md: old data read across the position"
	fio_verify Y2$md $D --rw=randwrite --bssplit=4k/30:16k/20:64k/30:256k/20 --iodepth=8 \
		--offset=4m --size=16m
	fio_verify X$md $D --rw=write --bs=64k --iodepth=4 --offset=0 --size=4m --verify_only
	fio_verify Z$md $D --rw=write --bs=128k --iodepth=4 --offset=20m --size=$ZSIZE \
		--verify_only
	pass "$md: new data written across the position"
	fails=$2
	[ "$level" = 6 ] && fails="$2 $3"
	k=0
	for f in $fails; do
		k=$((k + 1))
		run mdadm $D --fail $(disk $f)
		check degraded $k $D
		# drop cached stripes: the reads below go to the members
		echo 17 > /sys/block/$md/md/stripe_cache_size
		echo 256 > /sys/block/$md/md/stripe_cache_size
		fio_verify X$md $D --rw=write --bs=64k --iodepth=4 --offset=0 --size=4m \
			--verify_only
		fio_verify Y2$md $D --rw=randwrite --bssplit=4k/30:16k/20:64k/30:256k/20 \
			--iodepth=8 --offset=4m --size=16m --verify_only
		fio_verify Z$md $D --rw=write --bs=128k --iodepth=4 --offset=20m --size=$ZSIZE \
			--verify_only
		pass "$md: reads across the position with $k member(s) failed"
	done
	[ "$PERSONALITY" = raid5j ] &&
		expect_eq "$(md_sysfs $D reshape_position)" "$POS" "$md md/reshape_position at the end"
	run mdadm --stop $D
done 3<<< "$ARRAYS"
check dmesg
GUEST
	vm_fail "boot 2 ($PERSONALITY)"

PERSONALITY=raid456 vm_boot --timeout 300 --env "VALS=$VALS" --env "ARRAYS=$ARRAYS" \
	- $R $S <<'GUEST' ||
. /test/guest-lib.sh
load_personality
for v in $VALS; do eval "$v"; done
fast_sync
while read -r md level chunk n members <&3; do
	D=/dev/$md
	eval "ZSIZE=\$zsize_$md"
	set -- $members
	run mdadm --assemble --run $D $(disks $members)
	check raid$level $D
	wait_sync $D
	expect_eq "$(md_sysfs $D reshape_position)" none "$md md/reshape_position after the grow"
	expect_eq "$(md_sysfs $D raid_disks)" $((n + 1)) "$md md/raid_disks"
	fio_verify X$md $D --rw=write --bs=64k --iodepth=4 --offset=0 --size=4m --verify_only
	fio_verify Y2$md $D --rw=randwrite --bssplit=4k/30:16k/20:64k/30:256k/20 --iodepth=8 \
		--offset=4m --size=16m --verify_only
	fio_verify Z$md $D --rw=write --bs=128k --iodepth=4 --offset=20m --size=$ZSIZE \
		--verify_only
	fails=$2
	[ "$level" = 6 ] && fails="$2 $3"
	for f in $fails; do
		mdadm $D --remove $(disk $f) 2>/dev/null
		run mdadm --zero-superblock $(disk $f)
		run mdadm $D --add $(disk $f)
	done
	wait_sync $D
	expect_eq "$(md_sysfs $D degraded)" 0 "$md md/degraded after the rebuild"
	data=$((n + 1 - (level == 6 ? 2 : 1)))
	expect_eq "$(blockdev --getsize64 $D)" $(($(md_sysfs $D component_size) * data * 1024)) \
		"$md size"
	fio_verify X$md $D --rw=write --bs=64k --iodepth=4 --offset=0 --size=4m --verify_only
	fio_verify Y2$md $D --rw=randwrite --bssplit=4k/30:16k/20:64k/30:256k/20 --iodepth=8 \
		--offset=4m --size=16m --verify_only
	fio_verify Z$md $D --rw=write --bs=128k --iodepth=4 --offset=20m --size=$ZSIZE \
		--verify_only
	check mismatch $D
	run mdadm --stop $D
	pass "$md: raid456 finished the grow, data intact"
done 3<<< "$ARRAYS"
check dmesg
GUEST
	vm_fail "boot 3 (raid456)"
echo "PASS $VM_TEST"
