#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-nowait: REQ_NOWAIT (RWF_NOWAIT, io_uring's inline submission), which md
# core advertises for the array when every member supports it: a request
# that would sleep in the array ends with EAGAIN instead; raid456 6.1 does
# so only where a reshape would hold it, and sleeps elsewhere (said as
# KNOWN).  Secure erase, discard and write zeroes are not advertised and
# are refused (no member of this VM offers secure erase, so the refusal
# path itself cannot be reached from here).
#
#	   d0   d1   d2   d3     virtio 64 MiB, each under dm-linear (lin*:
#	    \    \   /    /      NOWAIT-capable, d3's can be suspended)
#	   +--------------+
#	   |   /dev/md0   |      RAID5, 64K chunk, --assume-clean,
#	   +--------------+      stripe_cache_size 32
#
#	1. discard_max_bytes and write_zeroes_max_bytes are 0;
#	   blkdiscard, blkdiscard -s fail (not supported), no kernel warning
#	2. array dirty (safe_mode_delay 3600): 16 NOWAIT writes and reads of
#	   4K succeed (the array takes NOWAIT at all)
#	3. array clean after an idle spell (safe_mode_delay 0.1): a NOWAIT
#	   write would wait for the superblock: raid5j EAGAIN at once
#	4. lind3 suspended, a writer fills the stripe cache with stripes
#	   waiting for it: raid5j: NOWAIT writes elsewhere end with EAGAIN
#	   within 2 s (not blocked), a NOWAIT read of a chunk of d3 too (the
#	   member said EAGAIN: no retry through the stuck stripes), a NOWAIT
#	   read of a chunk of d0 succeeds; lind3 resumed, the writer's data
#	   verifies
#	5. fio io_uring (which submits with NOWAIT and retries in its worker
#	   on EAGAIN), iodepth 32, random writes then verify, 8 s, cache 32
#
# Asserts as above, plus no kernel BUG/WARNING.  Disks: 4 x 64 MiB.
# Boots: 1.  Timeout: 150 s.

. "$(dirname "$0")/lib.sh"

NOWAIT_IO=$BUILD/nowait_io
vm_host_cc "$NOWAIT_IO" -O2 -Wall -static "$R5J_ROOT/tests/tools/nowait_io.c" ||
	vm_fail "cannot build tests/tools/nowait_io.c"
export VM_FILES="${VM_FILES:+$VM_FILES }$NOWAIT_IO"

DISKS="d0 d1 d2 d3"
vm_disks 64M $DISKS

vm_boot --timeout 150 - $DISKS <<'EOF' || vm_fail "$PERSONALITY"
. /test/guest-lib.sh
load_personality
linear_members d0 d1 d2 d3
run mdadm --create /dev/md0 --run --level=5 --chunk=64 --raid-devices=4 \
	--assume-clean $M
check raid5 /dev/md0
echo 32 > /sys/block/md0/md/stripe_cache_size || fail "stripe_cache_size 32 refused"
r5j=0
[ "$PERSONALITY" = raid5j ] && r5j=1

# nw OP OFFSET LEN COUNT STEP: nowait_io, its line in $out; sets ok,
# eagain, other, max_ms
nw() {
	out=$(/test/nowait_io "$1" /dev/md0 "${@:2}") || fail "nowait_io $*: could not run"
	log "nowait_io $*: $out"
	set -- $out
	ok=$2 eagain=$4 other=$6 max_ms=${10}
}

# 1. nothing but reads and writes is advertised, nor accepted
q=/sys/block/md0/queue
expect_eq "$(cat $q/discard_max_bytes)" 0 "md0 discard_max_bytes"
expect_eq "$(cat $q/write_zeroes_max_bytes)" 0 "md0 write_zeroes_max_bytes"
for opt in "" -s; do
	if out=$(blkdiscard $opt -o 0 -l 1048576 /dev/md0 2>&1); then
		fail "blkdiscard $opt on md0 succeeded"
	fi
	log "blkdiscard $opt: $out"
	echo "$out" | grep -qi "not supported" ||
		fail "blkdiscard $opt: '$out', expected 'not supported'"
done
pass "t-nowait/ops"

# 2. the array takes NOWAIT requests
echo 3600 > /sys/block/md0/md/safe_mode_delay
run dd if=/dev/zero of=/dev/md0 bs=4k count=1 oflag=direct
nw write 0 4096 16 65536
[ "$ok" = 16 ] || fail "NOWAIT writes on an idle dirty array: $out"
nw read 0 4096 16 65536
[ "$ok" = 16 ] || fail "NOWAIT reads on an idle array: $out"
pass "t-nowait/advertised"

# 3. the first write after the array went clean waits for the superblock
echo 0.1 > /sys/block/md0/md/safe_mode_delay
sleep 1
expect_eq "$(cat /sys/block/md0/md/array_state)" clean "md0 array_state after 1 s idle"
nw write 1048576 4096 1 0
if [ $r5j = 1 ]; then
	[ "$eagain" = 1 ] || fail "NOWAIT write to a clean array: $out (expected EAGAIN)"
else
	say "KNOWN raid456: a NOWAIT write to a clean array waits for the superblock ($out)"
fi
echo 3600 > /sys/block/md0/md/safe_mode_delay
run dd if=/dev/zero of=/dev/md0 bs=4k count=1 oflag=direct
pass "t-nowait/write-start"

# 4. stripe cache full of stripes waiting for a suspended member
run dmsetup suspend --nolockfs lind3
(fio_verify A /dev/md0 --rw=write --bs=64k --iodepth=16 --size=8m \
	--offset=0 > /tmp/fio_a.out 2>&1; echo $? > /tmp/fio_a.rc) &
apid=$!
# until the writes hold the whole cache (a slow kernel starts fio late)
for i in $(seq 600); do
	[ "$(cat /sys/block/md0/md/stripe_cache_active)" -ge 32 ] && break
	[ -e /tmp/fio_a.rc ] && break
	sleep 0.1
done
sleep 1
log "stripe_cache_active $(cat /sys/block/md0/md/stripe_cache_active) after $((i / 10)) s"
[ -e /tmp/fio_a.rc ] && fail "fio A ended with d3 suspended: $(cat /tmp/fio_a.out)"
# left-symmetric, 4 members: chunk 3r+k of row r is on member (p+1+k)%4,
# p = 3 - r%4; row 201 (37.7 MiB): chunk 603 on d3, chunk 604 on d0
/test/nowait_io write /dev/md0 $((96 << 20)) 65536 4 $((1 << 20)) > /tmp/nw_w.out &
wpid=$!
/test/nowait_io read /dev/md0 $((603 * 65536)) 65536 1 0 > /tmp/nw_r3.out &
rpid=$!
nw read $((604 * 65536)) 65536 1 0
r0=$out
sleep 2
blocked=
kill -0 $wpid 2>/dev/null && blocked="$blocked write"
kill -0 $rpid 2>/dev/null && blocked="$blocked read-d3"
log "after 2 s: blocked:${blocked:- none}; write: $(cat /tmp/nw_w.out); read d3: $(cat /tmp/nw_r3.out); read d0: $r0"
why=
if [ $r5j = 1 ]; then
	# judged after the resume: a failure must not leave md0 hung
	if [ -n "$blocked" ]; then
		why="NOWAIT requests slept with the stripe cache full:$blocked"
	elif ! set -- $(cat /tmp/nw_w.out) || [ "$4" -lt 1 ] || [ "$6" != 0 ]; then
		why="NOWAIT writes, cache full: $(cat /tmp/nw_w.out) (expected EAGAIN)"
	elif ! set -- $(cat /tmp/nw_r3.out) || [ "$4" != 1 ]; then
		why="NOWAIT read of a suspended member's chunk: $(cat /tmp/nw_r3.out) (expected EAGAIN)"
	elif ! set -- $r0 || [ "$2" != 1 ]; then
		why="NOWAIT read of a live member's chunk: $r0 (expected ok)"
	fi
else
	say "KNOWN raid456: with the stripe cache full, blocked:${blocked:- none}"
fi
run dmsetup resume lind3
[ -z "$why" ] || fail "$why"
wait $apid
[ "$(cat /tmp/fio_a.rc)" = 0 ] || fail "fio A: $(tail -n 20 /tmp/fio_a.out)"
wait $wpid
wait $rpid
log "after the resume: write: $(cat /tmp/nw_w.out); read d3: $(cat /tmp/nw_r3.out)"
fio_verify A /dev/md0 --rw=write --bs=64k --iodepth=16 --size=8m --offset=0 \
	--verify_only
pass "t-nowait/stripe-cache"

# 5. io_uring: NOWAIT submissions, EAGAIN retried by io_uring itself
fio_verify U /dev/md0 --ioengine=io_uring --rw=randwrite --bs=16k \
	--iodepth=32 --offset=16m --size=32m
pass "t-nowait/io_uring"
run mdadm --stop /dev/md0
check dmesg
EOF
echo "PASS $VM_TEST"
