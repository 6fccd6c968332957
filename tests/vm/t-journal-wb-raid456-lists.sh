#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-raid456-lists: raid456's stripe limit (journal.md section
# 15, "raid456's stripe limit").  raid456's journal recovery holds every
# data-only stripe of a log in its stripe cache: at most 32768 heads in 8
# hash lists of 4096, a stripe taking a head of its own list only (bits
# 3-5 of its sector); one list short, and md runs the array without its
# log, acknowledged writes lost.  So raid5j keeps each list's data-only
# stripes (destages whose parity is not yet durable included) under 4096
# less a margin of 288 heads, whatever stripe_cache_size is.
# RAID5 of 4 x MEMBER_MB (160) MiB, 16K chunk, a 128 MiB journal (large
# enough that only the lists bind), write-back.  Boot 1, the members'
# I/O throttled (THROTTLE_IOPS 100 a second, reads too: a destage reads
# before it logs parity, so it is slower than the writers): fio writes
# WRITE_BLOCKS (4400) 4 KiB blocks qd16, one every 96 KiB (two rows of
# chunks, so every block lands in a stripe of hash list 0), the worst
# case for one list.  raid5j: journal_stats raid456_list_max never above
# raid456_list_cap (sampled every 0.2 s), and the cap reached (the writers
# outran the destage, so it held them).  Then the power is cut with every
# write acknowledged.  Boot 2, RESTART_PERSONALITY (default raid456), no
# throttle: the array assembles with its journal, fio --verify_only
# checks every block, check: mismatch_cnt 0.  A cap above raid456's
# share makes raid456's recovery fail there ("Cannot increase cache
# size") and the verify fail.  Under PERSONALITY=raid456 (writing too)
# the same I/O, cut and verify, without the journal assertions.
# Measured (6.1): the fullest list reached 3808 and no more;
# raid456 "recovering 3643 data-only stripes and 724 data-parity
# stripes", every block verified; 42 s.  With the cap above raid456's
# share (R5J_DEBUGFS=raid456_stripes=36000: 4212) raid456
# prints "Cannot increase cache size", runs the array without its log,
# and boot 2 fails, on that line and (without it) on the verify.
. "$(dirname "$0")/lib.sh"

MEMBER_MB=${MEMBER_MB:-160}
D="d0 d1 d2 d3"
vm_disks "${MEMBER_MB}M" $D
vm_disk j 128M
RESTART=${RESTART_PERSONALITY:-raid456}
thr=throttling.iops-total=${THROTTLE_IOPS:-100}
# a 4 KiB block every 96 KiB: rw=write with a 92 KiB hole after each
FIO="--rw=write:92k --bs=4k --iodepth=16 --ioengine=libaio --direct=1 \
--size=$((${WRITE_BLOCKS:-4400} * 96))k --verify=crc32c --verify_fatal=1 --do_verify=0"

vm_boot --timeout 600 --kill-after 0.5 --kill-mark filled --env D="$D" \
	--env FIO="$FIO" - d0,$thr d1,$thr d2,$thr d3,$thr j <<'EOF2' || vm_fail "boot 1"
. /test/guest-lib.sh
load_personality
MD=/sys/block/md0/md
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=16 \
	--assume-clean --bitmap=none --write-journal=$(disk j) $(disks $D)
journal_mode write-back
r5j=false
[ "$PERSONALITY" = raid5j ] && r5j=true
$r5j && jstat_watch_start raid456_list_max wb_stripes dirty_stripes
t0=$(cut -d' ' -f1 /proc/uptime)
# shellcheck disable=SC2086
fio_verify lists /dev/md0 $FIO
t1=$(cut -d' ' -f1 /proc/uptime)
say "$(echo "$t0 $t1" | awk '{ print $2 - $1 }') s of writes"
if $r5j; then
	jstat_watch_stop
	cap=$(jstat raid456_list_cap) most=$(jstat_max raid456_list_max)
	say "raid456's lists: cap $cap, fullest list at most $most, wb_stripes at most $(jstat_max wb_stripes), dirty_stripes at most $(jstat_max dirty_stripes); now: list max $(jstat raid456_list_max), wb_stripes $(jstat wb_stripes), cached_writes $(jstat cached_writes)"
	say "journal_stats: $(grep -E '^(destaged_full|destaged_partial|destage_reads|destaged_rmw|x_units|parity_waits|evictions|log_use|used_sectors|ring_sectors|space_waits|raid456_data_only|raid456_recovery_sectors) ' $MD/journal_stats | tr '\n' ' ')"
	[ "$cap" -gt 0 ] || fail "journal_stats raid456_list_cap is $cap"
	[ "$most" -le "$cap" ] ||
		fail "a raid456 hash list got $most data-only stripes, more than its cap $cap"
	[ "$most" -ge $((cap - 16)) ] ||
		fail "the cap never held the writers: fullest list at most $most of $cap (members too fast?)"
fi
mark filled
sleep 60
fail "not killed"
EOF2
[ "$VM_KILLED" = 1 ] || vm_fail "boot 1 was not cut"

PERSONALITY=$RESTART vm_boot --timeout 600 --env D="$D" --env FIO="$FIO" \
	- $D j <<'EOF2' || vm_fail "boot 2 ($RESTART)"
. /test/guest-lib.sh
load_personality
run mdadm --assemble /dev/md0 $(disks $D j)
dmesg | grep -E "md/raid:md0: (recovering|Cannot|journal)" | head -5 |
	while read -r l; do say "$l"; done
# shellcheck disable=SC2086
fio_verify lists /dev/md0 $FIO --verify_only --do_verify=1
# raid456's recovery short of stripe heads: md runs the array without
# the log (the verify above sees the old data then)
dmesg | grep -qE "md/raid:md0: Cannot (increase cache size|get enough stripes)" &&
	fail "raid456's recovery could not hold the log's data-only stripes: the array runs without its log"
check mismatch /dev/md0
run mdadm --stop /dev/md0
check dmesg
pass
EOF2
echo "PASS $VM_TEST"
exit 0
