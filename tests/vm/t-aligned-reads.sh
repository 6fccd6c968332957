#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-aligned-reads: many chunk-aligned O_DIRECT reads at once, on both CPUs
# of the guest: the read bypass (straight to the member, timed with the
# read's own clone) returns the right data and leaves md0's iostat right.
# On the debug kernel (core lane) KASAN, lockdep and DEBUG_ATOMIC_SLEEP
# watch the bypass and its completion with completions and new reads
# really side by side.
#
# The use-after-free this once had (the completion read the clone's front
# pad after bio_put()) is not something KASAN can see on 6.1: bio slabs are
# SLAB_TYPESAFE_BY_RCU (block/bio.c), which KASAN never poisons on free
# (mm/kasan/common.c), and SLUB keeps such an object's contents intact
# while free; the old module ran this scenario clean on the debug kernel.
#
#	   d0   d1   d2   d3     virtio 64 MiB
#	    \    \   /    /
#	   +--------------+
#	   |   /dev/md0   |      RAID5, 64K chunk, --assume-clean (zeroed)
#	   +--------------+
#
#	1. the guest has 2 CPUs online (nproc)
#	2. write 96M, note its md5 (O_DIRECT, 1M reads)
#	3. fio: 4 jobs x iodepth 8 of 64K random reads, chunk-aligned,
#	   O_DIRECT, 8 s (time-based)
#	4. the md5 is the same; md0's stat counts the fio reads (sectors and
#	   requests) and has none in flight; raid5j: raid5j_stats aligned_reads
#	   grew by at least fio's reads (each is one chunk of an optimal
#	   array: all of them bypass the stripe cache)
#
# Asserts as above, plus no kernel BUG/WARNING/Oops (KASAN on the debug
# kernel).  Disks: 4 x 64 MiB.  Boots: 1.  Timeout: 120 s.

. "$(dirname "$0")/lib.sh"

DISKS="d0 d1 d2 d3"
vm_disks 64M $DISKS

vm_boot --timeout 120 --smp 2 - $DISKS <<'EOF' || vm_fail "$PERSONALITY"
. /test/guest-lib.sh
load_personality
D=$(disks d0 d1 d2 d3)
report cpus "$(nproc)"
expect_eq "$(nproc)" 2 "CPUs online in the guest"
run mdadm --create /dev/md0 --run --level=5 --chunk=64 --raid-devices=4 \
	--assume-clean $D
check raid5 /dev/md0
fio_verify data /dev/md0 --rw=write --bs=192k --iodepth=8 --size=96m
sum0=$(dd if=/dev/md0 bs=1M count=96 iflag=direct 2>/dev/null | md5sum)

[ "$PERSONALITY" = raid5j ] && a0=$(r5j_stat aligned_reads)
read -r r0 _ rs0 _ < /sys/block/md0/stat
out=$(fio --direct=1 --ioengine=libaio --rw=randread --bs=64k --iodepth=8 \
	--numjobs=4 --size=96m --time_based --runtime=8 --group_reporting \
	--name=ar --filename=/dev/md0 --output-format=terse --terse-version=3 2>&1) ||
	fail "fio: $out"
# terse v3: field 6 is the kB read (field 8 is IOPS, not a count)
kb=$(printf '%s\n' "$out" | tail -n 1 | cut -d';' -f6)
ios=$((kb / 64))
read -r r1 _ rs1 _ _ _ _ _ inflight _ < /sys/block/md0/stat
say "4 jobs x iodepth 8: $ios reads of 64K in 8 s"
report reads "$ios"
[ "${ios:-0}" -ge 100 ] || fail "fio did only '${ios}' reads"
log "md0 stat: $((r1 - r0)) reads, $((rs1 - rs0)) sectors, $inflight in flight"
[ $((rs1 - rs0)) -ge $((kb * 2)) ] || fail "md0 stat counted $((rs1 - rs0)) sectors read of $((kb * 2))"
[ $((r1 - r0)) -ge "$ios" ] || fail "md0 stat counted $((r1 - r0)) reads of $ios"
[ "$inflight" = 0 ] || fail "md0 stat: $inflight I/Os in flight after fio"
if [ "$PERSONALITY" = raid5j ]; then
	a1=$(r5j_stat aligned_reads)
	log "aligned_reads $a0 -> $a1"
	[ $((a1 - a0)) -ge "$ios" ] ||
		fail "only $((a1 - a0)) of $ios reads went straight to a member"
fi
sum1=$(dd if=/dev/md0 bs=1M count=96 iflag=direct 2>/dev/null | md5sum)
expect_eq "$sum1" "$sum0" "md5 of the data after the reads"
pass "t-aligned-reads/concurrent"
run mdadm --stop /dev/md0
check dmesg
EOF
echo "PASS $VM_TEST"
