#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-member-errors: members that start failing I/O under load.  One failed
# member is survived with all data intact; a second one fails the array
# cleanly (I/O errors, no hang, no kernel bug); read errors on a range of
# a member are served from parity.
#
#	   d0      d1      d2      d3         virtio, 32 MiB each
#	   |       |       |       |
#	   e0      e1      e2      e3         dm tables over them (dmsetup):
#	    \       \      /       /          linear, switched while fio runs to
#	     +-------+----+-------+           e1: flakey, down for good
#	     |      /dev/md0      |           e2: error
#	     +--------------------+           e3: linear | 1 MiB error | linear
#	       RAID5, 4 x dm, 64K chunk, --assume-clean
#
# Asserts:
#  1. fio (verify=crc32c, 4k-64k random writes) runs while e1 turns into
#     flakey-down (every I/O fails): md fails e1 (/proc/mdstat "(F)",
#     [4/3] [U_UU]), the kernel log has "md/raid:md0: Disk failure on
#     <e1>, disabling device" and "Operation continuing on 3 devices",
#     and fio verification passes;
#  2. fio writes on the degraded array while e2 turns into dm-error: fio
#     ends with an I/O error within 60 s (no hang), "Cannot continue
#     operation (2/4 failed)" is logged, a read of md0 fails, mdadm --stop
#     works;
#  3. a new array with whole data; a 1 MiB range of e3's data area turns
#     into dm-error; fio reads and verifies everything twice: all data
#     comes back right; e3 either is failed (with a kernel line saying
#     so) or has bad blocks recorded, all inside the error range;
#  and no kernel BUG/WARNING/Oops/hung task at any point.
#
# Disks: 4 x 32 MiB.  Boots: 1.  Timeout: 180 s.

. "$(dirname "$0")/lib.sh"

vm_disks 32M d0 d1 d2 d3
vm_boot --timeout 180 - d0 d1 d2 d3 <<'EOF' || vm_fail "boot 1 ($PERSONALITY)"
. /test/guest-lib.sh
load_personality
fast_sync
modprobe dm-mod && modprobe dm-flakey || fail "dm modules"
DEV=($(disks d0 d1 d2 d3))
SZ=$(blockdev --getsz ${DEV[0]})
for k in 0 1 2 3; do
	run dmsetup create e$k --table "0 $SZ linear ${DEV[k]} 0"
done
E="/dev/mapper/e0 /dev/mapper/e1 /dev/mapper/e2 /dev/mapper/e3"
dmname() { echo "dm-$(dmsetup info -c --noheadings -o minor "$1" | tr -d ' ')"; }
swap_table() {	# swap_table NAME TABLE: load and switch, I/O in flight or not
	log "dm $1 -> $2"
	printf '%s\n' "$2" | dmsetup load "$1" || fail "dmsetup load $1"
	dmsetup resume "$1" || fail "dmsetup resume $1"
}
LOGN=$(dmesg | wc -l)
newlog() {
	local n
	n=$(dmesg | wc -l)
	dmesg | tail -n +$((LOGN + 1))
	LOGN=$n
}
wait_faulty() {	# wait_faulty DMNAME: md has failed it, at most 30 s
	local t=0 st
	while :; do
		st=$(cat /sys/block/md0/md/dev-$1/state 2>/dev/null)
		case $st in *faulty*) break ;; esac
		[ $t -ge 300 ] && fail "$1 not failed by md after 30 s (state '$st')"
		sleep 0.1
		t=$((t + 1))
	done
}

# ---- 1. one member fails under verified writes --------------------------
run mdadm --create /dev/md0 --run --level=5 --chunk=64 --raid-devices=4 --assume-clean $E
check raid5 /dev/md0
E1=$(dmname e1) E2=$(dmname e2) E3=$(dmname e3)
W="--rw=randwrite --bssplit=4k/40:16k/30:64k/30 --iodepth=16 --offset=0 --size=48m"
# Writes are rate-limited so that the member fails while fio still writes,
# however fast the machine: unlimited, fio could end before the switch.
fio_verify w /dev/md0 $W --rate=,8m > /tmp/fio1.out 2>&1 &
fpid=$!
sleep 2
newlog > /dev/null
swap_table e1 "0 $SZ flakey ${DEV[1]} 0 0 3600"
kill -0 $fpid 2>/dev/null || fail "fio ended before the member failed (too fast)"
wait $fpid
rc=$?
cat /tmp/fio1.out
[ $rc = 0 ] || fail "fio with e1 failing: $(grep -E 'FAIL|bad|err' /tmp/fio1.out | head -n 2 | tr '\n' ' ')"
wait_faulty $E1
lines=$(newlog)
printf '%s\n' "$lines" | grep -E 'md/raid:md0|md0'
cat /proc/mdstat
grep -A1 '^md0 ' /proc/mdstat | grep -q "$E1\[[0-9]*\](F)" || fail "mdstat does not show $E1 (F)"
check state '[4/3] [U_UU]' /dev/md0
printf '%s\n' "$lines" | grep -q "md/raid:md0: Disk failure on $E1, disabling device" ||
	fail "no 'Disk failure on $E1' line"
printf '%s\n' "$lines" | grep -q "md/raid:md0: Operation continuing on 3 devices" ||
	fail "no 'Operation continuing on 3 devices' line"
fio_verify w /dev/md0 $W --verify_only
pass "t-member-errors/one-member-failed"

# ---- 2. a second member fails: the array fails cleanly ------------------
timeout 60 fio --direct=1 --ioengine=libaio --rw=randwrite --bs=16k --iodepth=16 \
	--offset=48m --size=32m --time_based --runtime=30 --name=x --filename=/dev/md0 \
	> /tmp/fio2.out 2>&1 &
fpid=$!
sleep 2
kill -0 $fpid 2>/dev/null || fail "fio ended before the second failure"
swap_table e2 "0 $SZ error"
wait $fpid
rc=$?
tail -n 20 /tmp/fio2.out
[ $rc = 124 ] && fail "fio hung on the failed array (killed by timeout after 60 s)"
[ $rc = 0 ] && fail "fio writes on an array with 2 of 4 members failed succeeded"
grep -Eq 'err= *5|Input/output error' /tmp/fio2.out || fail "fio failed, but not with EIO"
wait_faulty $E2
lines=$(newlog)
printf '%s\n' "$lines" | grep -E 'md0' | head -n 20
cat /proc/mdstat
printf '%s\n' "$lines" | grep -q "md/raid:md0: Disk failure on $E2, disabling device" ||
	fail "no 'Disk failure on $E2' line"
printf '%s\n' "$lines" | grep -q "md/raid:md0: Cannot continue operation (2/4 failed)" ||
	fail "no 'Cannot continue operation (2/4 failed)' line"
must_fail timeout 30 dd if=/dev/md0 of=/dev/null bs=64k count=64 iflag=direct
grep -q 'Input/output error\|I/O error' /tmp/must_fail.out || fail "read: no I/O error"
run timeout 30 mdadm --stop /dev/md0
check dmesg
pass "t-member-errors/array-failed"

# ---- 3. read errors on a range of a member ------------------------------
swap_table e1 "0 $SZ linear ${DEV[1]} 0"
swap_table e2 "0 $SZ linear ${DEV[2]} 0"
run mdadm --zero-superblock $E
run mdadm --create /dev/md0 --run --level=5 --chunk=64 --raid-devices=4 --assume-clean $E
ALL="--rw=write --bssplit=4k/30:64k/40:256k/30 --iodepth=8 --offset=0 --size=80m"
fio_verify all /dev/md0 $ALL
DOF=$(mdadm --examine /dev/mapper/e3 | sed -n 's/^ *Data Offset : \([0-9]*\) sectors.*/\1/p')
[ -n "$DOF" ] || fail "no Data Offset on e3"
BAD=$((DOF + 8192))	# 4 MiB into e3's data, 1 MiB long
newlog > /dev/null
swap_table e3 "0 $BAD linear ${DEV[3]} 0
$BAD 2048 error
$((BAD + 2048)) $((SZ - BAD - 2048)) linear ${DEV[3]} $((BAD + 2048))"
dmsetup table e3
fio_verify all /dev/md0 $ALL --verify_only
fio_verify all /dev/md0 $ALL --verify_only
lines=$(newlog)
printf '%s\n' "$lines" | grep -E 'md0|dm-' | head -n 20
st=$(cat /sys/block/md0/md/dev-$E3/state 2>/dev/null)
bb=$(cat /sys/block/md0/md/dev-$E3/bad_blocks 2>/dev/null)
say "after read errors: $E3 state '$st', bad_blocks '$(echo $bb)'"
cat /proc/mdstat
# Either way is md's: fail the member (and say so), or rewrite the data
# from parity and, the rewrite failing too, record bad blocks (mainline,
# quietly) inside the error range [BAD, BAD + 2048) of the member.
case $st in
*faulty*)
	check state '[4/3] [UUU_]' /dev/md0
	printf '%s\n' "$lines" | grep -Eq "md/raid:md0: .*read error.*$E3|md/raid:md0: Disk failure on $E3" ||
		fail "$E3 failed without a read error / disk failure line"
	;;
*)
	[ -n "$bb" ] || fail "$E3 neither failed nor has bad blocks after read errors"
	printf '%s\n' "$bb" | while read -r b len; do
		[ "$b" -ge $BAD ] && [ $((b + len)) -le $((BAD + 2048)) ] ||
			fail "$E3 bad block $b+$len outside the error range $BAD+2048"
	done || exit 1
	;;
esac
pass "t-member-errors/read-errors"
run mdadm --stop /dev/md0
check dmesg
EOF
echo "PASS $VM_TEST"
