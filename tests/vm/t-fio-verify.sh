#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-fio-verify: data integrity of the write paths (partial stripe,
# read-modify-write and reconstruct-write, full stripe, multi-stripe) with
# fio verify=crc32c, on RAID5.
#
#	   d0      d1      d2      d3        virtio, 64 MiB each
#	    \       \      /       /
#	     +-------+----+-------+
#	     |      /dev/md0      |          RAID5, 4 devices, 64K chunk
#	     +--------------------+          (full stripe = 192K of data)
#	             |
#	            fio  rw = write, randwrite
#	                 bs = 4k, 64k, 1M;  iodepth = 1, 16
#
# Asserts:
#  - every fio job of the 2 x 3 x 2 matrix writes then reads back its data
#    with crc32c verification, O_DIRECT, no error;
#  - data of an early job, left untouched by the later ones, still
#    verifies at the end and after stop/assemble;
#  - /sys/block/md0/stat counts those reads, none left in flight;
#  - the array ends with mismatch_cnt 0 after "check", and no kernel
#    BUG/WARNING/Oops/hung task.
#
# Disks: 4 x 64 MiB.  Boots: 1.  Timeout: 150 s.

. "$(dirname "$0")/lib.sh"

vm_disks 64M d0 d1 d2 d3
vm_boot --timeout 150 - d0 d1 d2 d3 <<'EOF'
. /test/guest-lib.sh
load_personality
fast_sync
D=$(disks d0 d1 d2 d3)

run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=64 $D
wait_sync /dev/md0
check raid5 /dev/md0
check state '[4/4] [UUUU]' /dev/md0

# Kept until the end: the last 15 MiB of the 186 MiB array.
KEEP="--rw=write --bs=192k --iodepth=4 --offset=160m --size=15m"
fio_verify keep /dev/md0 $KEEP

# One fio process runs the matrix, one job after the other (stonewall);
# each job writes its range then verifies it.  All stay below 160m.
{
	echo "[global]"
	echo "filename=/dev/md0"
	echo "stonewall"
	for rw in write randwrite; do
		for bs in 4k 64k 1M; do
			case $bs in
			4k) size=4m off=0 ;;
			64k) size=24m off=8m ;;
			1M) size=64m off=40m ;;
			esac
			for qd in 1 16; do
				echo "[$rw-$bs-qd$qd]"
				echo "rw=$rw"
				echo "bs=$bs"
				echo "iodepth=$qd"
				echo "offset=$off"
				echo "size=$size"
			done
		done
	done
} > /tmp/matrix.fio
cat /tmp/matrix.fio
fio_jobs /dev/md0 /tmp/matrix.fio
n=$(grep -c '^\[' /tmp/matrix.fio)
pass "t-fio-verify/matrix-$((n - 1))-jobs"

read -r r0 _ rs0 _ < /sys/block/md0/stat
fio_verify keep /dev/md0 $KEEP --verify_only
# iostat on md0 counts the reads (chunk-aligned ones bypass the stripe
# cache and are timed by the personality itself), and none stays in flight.
read -r r1 _ rs1 _ _ _ _ _ inflight _ < /sys/block/md0/stat
log "md0 stat: $((r1 - r0)) reads, $((rs1 - rs0)) sectors, $inflight in flight"
[ $((rs1 - rs0)) -ge $((15 * 2048)) ] || fail "md0 stat counted $((rs1 - rs0)) sectors read of 30720"
[ $((r1 - r0)) -ge $((15 * 1024 / 192)) ] || fail "md0 stat counted $((r1 - r0)) reads"
[ "$inflight" = 0 ] || fail "md0 stat: $inflight I/Os in flight after fio"
run mdadm --stop /dev/md0
run mdadm --assemble /dev/md0 $D
check state '[4/4] [UUUU]' /dev/md0
fio_verify keep /dev/md0 $KEEP --verify_only
check mismatch /dev/md0
pass "t-fio-verify/persist"
check dmesg
EOF
