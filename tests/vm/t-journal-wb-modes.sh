#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-modes: write-back mode on a running RAID5 (4 x 32 MiB, 16K
# chunk, 8 MiB journal), what a user relies on:
#   1. raid5j: write-back refused with the module parameter writeback=0,
#      taken by default; journal_mode then shows "write-through [write-back]";
#      writeback_recoverable_by reads raid456 (the default: journal_stats
#      raid456_room 1, fixed_reserve 0), and it and recovery_mem_kb (read
#      at assembly) refuse a write at run time, unchanged; the test hooks
#      are in debugfs (raid5j/raid456_stripes 32768,
#      raid5j/recovery_unit_by_unit N), not module parameters;
#   2. 512 KiB written with O_DIRECT; while stripes are dirty (raid5j:
#      journal_stats dirty_stripes > 0, members not yet written) the data
#      reads back right through chunk-aligned O_DIRECT reads (the bypass
#      must not read a member's older block) and through 4 KiB reads;
#   3. fio with verification (random 4K..64K writes) in write-back;
#      then 4 KiB random writes at iodepth 16: raid5j's journal (virtio,
#      cache=unsafe: a volatile write cache in the guest) makes its units
#      stable with batched flushes (journal.md L4): journal_stats
#      log_flushes > 0 and units / log_flushes > 1;
#   4. switching back to write-through returns once every dirty stripe is
#      on the members (raid5j: dirty_stripes 0 right after the switch);
#      "check" then counts mismatch_cnt 0;
#   5. stop (clean: raid5j leaves one empty unit) and assemble without one
#      member: the data written in 2 reads back from members and parity;
#   6. raid5j, no array left: the module reloaded with
#      writeback_recoverable_by=bogus fails to load, with a kernel line
#      naming the two values; with writeback_recoverable_by=raid5j it
#      loads, reads raid5j, and an assembled array's journal_stats shows
#      fixed_reserve 1, raid456_room 0; its data still verifies.
# ~1 minute.

. "$(dirname "$0")/lib.sh"

vm_disks 32M d0 d1 d2 d3
vm_disk j 8M
vm_boot --timeout 300 - d0 d1 d2 d3 j <<'EOF2' || vm_fail "boot"
. /test/guest-lib.sh
load_personality
journaled_raid5
JM=/sys/block/md0/md/journal_mode

if [ "$PERSONALITY" = raid5j ]; then
	P=/sys/module/raid5j/parameters/writeback
	expect_eq "$(cat $P)" Y "the writeback parameter's default"
	echo 0 > $P
	echo write-back > $JM 2>/dev/null && fail "write-back accepted with writeback=0"
	grep -q '\[write-through\]' $JM || fail "journal_mode: $(cat $JM)"
	dmesg | grep -q 'write-back journal mode is off' ||
		fail "no message for the refused switch"
	echo 1 > $P
	# read at assembly: set at load only
	expect_recoverable_by raid456
	for p in writeback_recoverable_by recovery_mem_kb; do
		f=/sys/module/raid5j/parameters/$p
		was=$(cat $f) || fail "no module parameter $p"
		(echo raid5j > $f) 2>/dev/null && fail "$p written at run time"
		expect_eq "$(cat $f)" "$was" "$p after a refused write"
	done
	for p in writeback_raid456_room writeback_fixed_reserve \
		 writeback_raid456_stripes writeback_journal_cache \
		 recovery_unit_by_unit; do
		[ -e /sys/module/raid5j/parameters/$p ] && fail "module parameter $p is back"
	done
	expect_eq "$(cat /sys/kernel/debug/raid5j/raid456_stripes)" 32768 "debugfs raid5j/raid456_stripes"
	expect_eq "$(cat /sys/kernel/debug/raid5j/recovery_unit_by_unit)" N "debugfs raid5j/recovery_unit_by_unit"
	pass "module parameters"
fi
echo write-back > $JM || fail "write-back refused"
expect_eq "$(cat $JM)" "write-through [write-back]" "journal_mode"
pass "write-back on"

# 2: dirty data read back through the aligned-read bypass
dd if=/dev/urandom of=/tmp/pat bs=64K count=8 2>/dev/null
run dd if=/tmp/pat of=/dev/md0 bs=64K oflag=direct conv=fsync
if [ "$PERSONALITY" = raid5j ]; then
	d=$(jstat dirty_stripes)
	say "dirty_stripes after the write: $d, cached_writes $(jstat cached_writes)"
	[ "${d:-0}" -gt 0 ] || fail "no dirty stripe after a write-back write"
	ar0=$(r5j_stat aligned_reads)
fi
run dd if=/dev/md0 of=/tmp/rd16 bs=16K count=32 iflag=direct
cmp /tmp/pat /tmp/rd16 || fail "chunk-aligned reads returned other data than was written"
run dd if=/dev/md0 of=/tmp/rd4 bs=4K count=128 iflag=direct
cmp /tmp/pat /tmp/rd4 || fail "4K reads returned other data than was written"
if [ "$PERSONALITY" = raid5j ]; then
	ar1=$(r5j_stat aligned_reads)
	say "aligned reads bypassing the cache meanwhile: $((ar1 - ar0)); dirty_stripes now $(jstat dirty_stripes)"
fi
pass "dirty data read back"

# 3: verified random writes in write-back
fio_verify wb /dev/md0 --rw=randwrite --bsrange=4k-64k --size=16M \
	--offset=1M --iodepth=8 --numjobs=1
pass "fio verify in write-back"

# 3b: one journal flush for several units under a queue depth of 16
if [ "$PERSONALITY" = raid5j ]; then
	jdev=$(basename "$(readlink -f "$(disk j)")")
	expect_eq "$(cat /sys/block/$jdev/queue/write_cache)" "write back" \
		"the journal's write cache (the setup)"
	u0=$(jstat units) f0=$(jstat log_flushes)
fi
fio_verify qd16 /dev/md0 --rw=randwrite --bs=4k --size=4M --offset=20M \
	--iodepth=16 --numjobs=1
if [ "$PERSONALITY" = raid5j ]; then
	u=$(( $(jstat units) - u0 )) f=$(( $(jstat log_flushes) - f0 ))
	say "qd16 4k writes: $u units, $f journal flushes"
	[ "$f" -gt 0 ] || fail "no journal flush with a volatile journal cache"
	[ "$u" -gt "$f" ] || fail "journal flushes not batched: $u units, $f flushes"
fi
pass "journal flushes batched at qd16"

# 4: back to write-through: every dirty stripe destaged first
run dd if=/tmp/pat of=/dev/md0 bs=64K oflag=direct seek=320
echo write-through > $JM || fail "write-through refused"
expect_eq "$(cat $JM)" "[write-through] write-back" "journal_mode"
if [ "$PERSONALITY" = raid5j ]; then
	expect_eq "$(jstat dirty_stripes)" 0 "dirty stripes after the switch"
	say "$(grep -E 'cached|destage' /sys/block/md0/md/journal_stats | tr '\n' ' ')"
fi
echo check > /sys/block/md0/md/sync_action
wait_sync /dev/md0
expect_eq "$(cat /sys/block/md0/md/mismatch_cnt)" 0 "mismatch_cnt after the switch"
pass "switch to write-through"

# 5: clean stop, degraded assembly: members and parity hold the data
run mdadm --stop /dev/md0
run mdadm --assemble --run /dev/md0 $(disks_but d2 d0 d1 d2 d3) $(disk j)
run dd if=/dev/md0 of=/tmp/rd bs=64K count=8 iflag=direct
cmp /tmp/pat /tmp/rd || fail "data lost after stop and degraded assembly"
run dd if=/dev/md0 of=/tmp/rd bs=64K count=8 skip=320 iflag=direct
cmp /tmp/pat /tmp/rd || fail "data written before the switch lost"
fio_verify wb /dev/md0 --rw=randwrite --bsrange=4k-64k --size=16M \
	--offset=1M --iodepth=8 --numjobs=1 --verify_only
run mdadm --stop /dev/md0
scan_dmesg || fail "kernel complained"
pass "stop, degraded assembly, data intact"

# 6: writeback_recoverable_by at load
if [ "$PERSONALITY" = raid5j ]; then
	run rmmod raid5j
	must_fail insmod "$R5J_KO" writeback_recoverable_by=bogus
	grep -qw '^raid5j' /proc/modules && fail "raid5j loaded with writeback_recoverable_by=bogus"
	dmesg | grep -q 'raid5j: writeback_recoverable_by=bogus: must be raid456 or raid5j' ||
		fail "no kernel line for writeback_recoverable_by=bogus"
	r5j_insmod writeback_recoverable_by=raid5j
	run mdadm --assemble --run /dev/md0 $(disks_but d2 d0 d1 d2 d3) $(disk j)
	expect_recoverable_by raid5j
	run dd if=/dev/md0 of=/tmp/rd bs=64K count=8 iflag=direct
	cmp /tmp/pat /tmp/rd || fail "data lost after the reload"
	run mdadm --stop /dev/md0
	scan_dmesg || fail "kernel complained"
	pass "writeback_recoverable_by at load"
fi
EOF2
