#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-wbt: the daemon's member writes pass blk-wbt untracked
# (design.md section 4, "Member I/O": the daemon never sleeps in a
# member's write throttle; raid5j marks them REQ_SYNC | REQ_IDLE, which
# wbt lets through).  RAID5 of 4 x 32 MiB, 16K chunk, 16 MiB journal,
# writeback throttling at the kernel's default on every member (the test
# fails if a member has it off: it would see nothing):
#   1. write-back: 4 KiB random writes qd16 over 24 MiB (more than the
#      journal: destages go on all along) for 6 s;
#   2. write-through: the same for 3 s;
# meanwhile every 50 ms each member's wbt in-flight count (debugfs
# block/<dev>/rqos/wbt/inflight: the writes wbt tracks, and may sleep the
# submitter on) and its in-flight writes (/sys/block/<dev>/inflight) are
# read.  raid5j: wbt tracked at most one write of a member at a time in
# either phase -- the member flush of the journal's reclaim
# (r5j_flush_members(), blkdev_issue_flush(): one member at a time, not
# the daemon's; tracked, so it is counted) -- while member writes were
# seen in flight in both (else the sampling proves nothing).  The
# daemon's writes, qd16 of them, would be tracked many at once.  Then
# write-through, "check": mismatch_cnt 0.
# Not asserted, reported: raid5j_stats member_submit_slow (submissions of
# 100 ms or more: timing, not robust under a loaded host) and
# member_submit_us_max.
# raid456 differs: it does not exempt its member writes from wbt (they are
# tracked); its counts are reported, the data check applies.
# Without the REQ_IDLE of submit_io() the raid5j assertion fails (tracked
# writes seen in both phases).
# ~40-60 s.

. "$(dirname "$0")/lib.sh"

vm_disks 32M d0 d1 d2 d3
vm_disk j 16M
D="d0 d1 d2 d3"

vm_boot --timeout 240 --env D="$D" - $D j <<'EOF2' || vm_fail "boot"
. /test/guest-lib.sh
load_personality
MD=/sys/block/md0/md
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=16 \
	--assume-clean --bitmap=none --write-journal=$(disk j) $(disks $D)
DEVS=
for d in $D; do
	b=$(basename "$(disk $d)")
	lat=$(cat /sys/block/$b/queue/wbt_lat_usec)
	[ "$lat" -gt 0 ] 2>/dev/null ||
		fail "$b: wbt_lat_usec is '$lat': writeback throttling off, nothing to see"
	[ -r /sys/kernel/debug/block/$b/rqos/wbt/inflight ] ||
		fail "$b: no debugfs block/$b/rqos/wbt/inflight"
	DEVS="$DEVS $b"
done
say "members$DEVS, wbt_lat_usec $lat (the kernel's default)"
mkfifo /tmp/tick && exec 7<> /tmp/tick	# read -t on it: a sleep, no fork

# sample PHASE SECONDS: fio over 24 MiB for SECONDS while sampling; sets
# TRACKED (largest wbt in-flight count of a member), TSAMPLES (samples
# with one above 0) and WRITING (samples with a member write in flight).
sample() {
	local b i n r w
	rm -f /tmp/fio.done
	(
		fio --name=$1 --filename=/dev/md0 --direct=1 --ioengine=libaio \
			--rw=randwrite --bs=4k --iodepth=16 --norandommap \
			--size=24M --time_based --runtime=$2 --output=/tmp/fio.$1 \
			> /dev/null 2>&1
		echo $? > /tmp/fio.done
	) &
	TRACKED=0 TSAMPLES=0 WRITING=0
	while [ ! -e /tmp/fio.done ]; do
		for b in $DEVS; do
			while read -r i _ n; do
				[ "$n" -gt 0 ] && TSAMPLES=$((TSAMPLES + 1))
				[ "$n" -gt "$TRACKED" ] && TRACKED=$n
			done < /sys/kernel/debug/block/$b/rqos/wbt/inflight
			read -r r w < /sys/block/$b/inflight
			[ "$w" -gt 0 ] && WRITING=$((WRITING + 1))
		done
		read -r -t 0.05 -u 7 _
	done
	wait
	[ "$(cat /tmp/fio.done)" = 0 ] || fail "fio $1: $(tail -n 3 /tmp/fio.$1)"
	say "$1: wbt tracked at most $TRACKED writes of a member at once (in $TSAMPLES samples); member writes in flight in $WRITING samples"
}

r5j=false
[ "$PERSONALITY" = raid5j ] && r5j=true
stats() {
	$r5j || return 0
	say "raid5j_stats: $(grep -E '^member_(submit|batches|writes)' $MD/raid5j_stats | tr '\n' ' ')"
}

journal_mode write-back
sample write-back 6
$r5j && [ "$TRACKED" -gt 1 ] && fail "write-back: wbt tracked $TRACKED writes of a member at once"
[ "$WRITING" -gt 0 ] || fail "write-back: no member write seen in flight"
stats
journal_mode write-through
sample write-through 3
$r5j && [ "$TRACKED" -gt 1 ] && fail "write-through: wbt tracked $TRACKED writes of a member at once"
[ "$WRITING" -gt 0 ] || fail "write-through: no member write seen in flight"
stats
echo check > $MD/sync_action
wait_sync /dev/md0
expect_eq "$(cat $MD/mismatch_cnt)" 0 "mismatch_cnt"
run mdadm --stop /dev/md0
scan_dmesg || fail "kernel complained"
EOF2
exit 0
