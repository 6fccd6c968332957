#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-rmw: a destage of a wide stripe with one dirty block reads
# fewer members by rmw than by rcw, and its parity is right.
# RAID5 and RAID6 of 8 x 16 MiB, 16K chunk, 8 MiB journal, write-back:
# one 4 KiB block written (O_DIRECT) in each of 32 stripes, then the switch
# to write-through destages them all.
#   raid5j: journal_stats destaged_rmw 32; destage_reads 32 x (1 old block
#           + parity pages) = 64 (RAID5) / 96 (RAID6) where rcw reads
#           32 x 6 = 192 / 32 x 5 = 160; destage_reads_saved the
#           difference (128 / 64);
#   both:   the blocks read back, "check" counts mismatch_cnt 0 (the rmw
#           parity matches the data), and again after a stop/assemble
#           without one member (data computed from that parity).
# raid456 has no journal_stats: the data and mismatch_cnt are asserted.
# ~1 minute.

. "$(dirname "$0")/lib.sh"

vm_disks 16M d0 d1 d2 d3 d4 d5 d6 d7
vm_disk j 8M
D="d0 d1 d2 d3 d4 d5 d6 d7"

vm_boot --timeout 240 --env D="$D" - $D j <<'EOF2' || vm_fail "boot"
. /test/guest-lib.sh
load_personality
JM=/sys/block/md0/md/journal_mode
N=32
for level in 5 6; do
	for d in $D j; do
		dd if=/dev/zero of=$(disk $d) bs=1M count=16 2>/dev/null
	done
	run mdadm --create /dev/md0 --run --level=$level --raid-devices=8 \
		--chunk=16 --assume-clean --write-journal=$(disk j) $(disks $D)
	par=$((level - 4))
	data=$((8 - par))
	echo write-back > $JM || fail "write-back refused"
	expect_eq "$(cat $JM)" "write-through [write-back]" "journal_mode"
	if [ "$PERSONALITY" = raid5j ]; then
		r0=$(jstat destage_reads) m0=$(jstat destaged_rmw) s0=$(jstat destage_reads_saved)
	fi
	# stripe i: 4 KiB at chunk row 0 of the i-th full stripe, on the
	# data member (i % data)
	dd if=/dev/urandom of=/tmp/blocks bs=4K count=$N 2>/dev/null
	for i in $(seq 0 $((N - 1))); do
		off=$(( (i * data + i % data) * 4 ))	# 16K chunk = 4 x 4K
		dd if=/tmp/blocks of=/dev/md0 bs=4K skip=$i seek=$off count=1 \
			oflag=direct 2>/dev/null || fail "write $i"
	done
	echo write-through > $JM || fail "write-through refused"
	if [ "$PERSONALITY" = raid5j ]; then
		expect_eq "$(jstat dirty_stripes)" 0 "RAID$level dirty stripes after the switch"
		reads=$(( $(jstat destage_reads) - r0 ))
		rmw=$(( $(jstat destaged_rmw) - m0 ))
		saved=$(( $(jstat destage_reads_saved) - s0 ))
		report reads$level $reads
		say "RAID$level: $N stripes destaged, $reads member reads (rcw: $((N * (data - 1)))), destaged_rmw $rmw, destage_reads_saved $saved"
		expect_eq "$reads" $((N * (1 + par))) "RAID$level destage member reads"
		expect_eq "$rmw" $N "RAID$level destaged_rmw"
		expect_eq "$saved" $((N * (data - 1 - 1 - par))) "RAID$level destage_reads_saved"
	fi
	for i in $(seq 0 $((N - 1))); do
		off=$(( (i * data + i % data) * 4 ))
		a=$(dd if=/dev/md0 bs=4K skip=$off count=1 iflag=direct 2>/dev/null | md5sum)
		b=$(dd if=/tmp/blocks bs=4K skip=$i count=1 2>/dev/null | md5sum)
		expect_eq "$a" "$b" "RAID$level block $i"
	done
	echo check > /sys/block/md0/md/sync_action
	wait_sync /dev/md0
	expect_eq "$(cat /sys/block/md0/md/mismatch_cnt)" 0 "RAID$level mismatch_cnt"
	run mdadm --stop /dev/md0
	run mdadm --assemble --run /dev/md0 $(disks_but d3 $D) $(disk j)
	for i in $(seq 0 $((N - 1))); do
		off=$(( (i * data + i % data) * 4 ))
		a=$(dd if=/dev/md0 bs=4K skip=$off count=1 iflag=direct 2>/dev/null | md5sum)
		b=$(dd if=/tmp/blocks bs=4K skip=$i count=1 2>/dev/null | md5sum)
		expect_eq "$a" "$b" "RAID$level block $i without d3"
	done
	run mdadm --stop /dev/md0
	pass "RAID$level rmw destage"
done
scan_dmesg || fail "kernel complained"
EOF2
echo "PASS $VM_TEST: RAID5 $(vm_val reads5) / RAID6 $(vm_val reads6) destage reads"
exit 0
