#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-bitmap-resize: growing the component size while writes run keeps the
# write-intent bitmap's counts right.
#
# md_bitmap_resize() quiesces the array, then swaps in new counters that
# keep only the "needs sync" bits.  A write that took its bitmap count
# before quiesce waited for it (raid5j counted before taking its stripe,
# then slept in the quiesce) loses its count: its member writes go out with
# no bit on disk, and its end decrements a counter it never raised, which
# wraps to COUNTER_MAX, after which every write to that bitmap chunk sleeps
# forever.
#
#	   d0   d1   d2   d3     virtio 64 MiB
#	    \    \   /    /
#	   +--------------+
#	   |   /dev/md0   |      RAID5, 64K chunk, --size=24M (of 64M)
#	   +--------------+      internal bitmap, 64K bitmap chunk
#	         |
#	   fio 4k randwrite, 2 jobs x iodepth 16 over 0-16M
#	   while the size grows 24M -> 32M -> 40M -> 48M (each: a quiesce,
#	   md_bitmap_resize(), a resync of the new space)
#
#	boot 1  create, "pre" data at 64M+4M (fio-verified), then
#	        1. the writes above end within 60 s of their run time
#	        2. a sequential verified write of all of 0-16M (every bitmap
#	           chunk there) ends within 120 s: no chunk's counter wrapped
#	        3. the bitmap on disk is clean within 30 s (bitmap/time_base 1 s)
#	        4. random writes again, one more size change (48M -> 56M) under
#	           them, then a power cut (qemu SIGKILLed 2 s later)
#	boot 2  mdadm -X: dirty bits; assemble: component size 56M, a
#	        bitmap-driven resync runs and completes; "check" mismatch_cnt 0;
#	        "pre" verifies; after a clean stop no dirty bits are left
#
# Before the fix boot 1 fails at 1 or 2 (writes hang in md_bitmap_startwrite).
# Asserts as above, plus no kernel BUG/WARNING/Oops/hung task.
# Disks: 4 x 64 MiB.  Boots: 2.  Timeout: 300 + 150 s.

. "$(dirname "$0")/lib.sh"

DISKS="d0 d1 d2 d3"
vm_disks 64M $DISKS

vm_boot --timeout 300 --kill-mark writing --kill-after 2 - $DISKS <<'EOF'
. /test/guest-lib.sh
load_personality
fast_sync
D=$(disks d0 d1 d2 d3)
d0=$(disk d0)
run mdadm --create /dev/md0 --run --level=5 --chunk=64 --raid-devices=4 \
	--size=24M --bitmap=internal --bitmap-chunk=64K $D
check raid5 /dev/md0
echo 1 > /sys/block/md0/md/bitmap/time_base || fail "cannot set bitmap/time_base"
wait_sync /dev/md0
fio_verify pre /dev/md0 --rw=write --bs=64k --iodepth=8 --offset=64m --size=4m

# wait_writes PID SECS WHAT: the background writer PID must end within
# SECS; a write sleeping on a wrapped bitmap counter never does
wait_writes() {
	local pid=$1 t=0
	while kill -0 "$pid" 2>/dev/null; do
		if [ $t -ge $(($2 * 10)) ]; then
			echo "---- blocked tasks ----"
			echo w > /proc/sysrq-trigger
			dmesg | tail -n 60
			fail "$3: still running $2 s later (writes hang on the bitmap)"
		fi
		sleep 0.1
		t=$((t + 1))
	done
	wait "$pid" || fail "$3: fio failed"
}

# grow SIZE_M: component size to SIZE_M MiB under the running writes
grow() {
	run mdadm --grow /dev/md0 --size=${1}M
	expect_eq "$(md_sysfs md0 component_size)" $(($1 * 1024)) "md0 component_size"
}

randwrite() {	# randwrite SECS: background random writes over 0-16M
	fio --direct=1 --ioengine=libaio --rw=randwrite --bs=4k --iodepth=16 \
		--numjobs=2 --offset=0 --size=16m --time_based --runtime="$1" \
		--randrepeat=0 --name=rw --filename=/dev/md0 > /tmp/rw.out 2>&1 &
	RW=$!
}

# ---- 1. size changes under writes --------------------------------------
randwrite 25
sleep 3
for s in 32 40 48; do
	grow $s
	sleep 1
	wait_sync /dev/md0
done
say "grew 24M -> 48M under random writes"
wait_writes $RW 85 "random writes across the size changes"
pass "t-bitmap-resize/writes-end"

# ---- 2. every chunk of the region is still writable --------------------
fio_verify seq /dev/md0 --rw=write --bs=64k --iodepth=8 --offset=0 \
	--size=16m > /tmp/seq.out 2>&1 &
wait_writes $! 120 "verified write of 0-16M after the size changes"
cat /tmp/seq.out
pass "t-bitmap-resize/chunks-writable"

# ---- 3. counts back to zero: the bitmap goes clean ---------------------
t=0
while :; do
	blockdev --flushbufs $d0
	dirty=$(mdadm -X $d0 | sed -n 's/^ *Bitmap : .* bits (chunks), \([0-9]*\) dirty.*/\1/p')
	[ "$dirty" = 0 ] && break
	[ $t -ge 30 ] && fail "bitmap still has $dirty dirty bits 30 s after the last write (a count never ended)"
	sleep 1
	t=$((t + 1))
done
log "bitmap clean on disk after $t s"
pass "t-bitmap-resize/bitmap-clean"
check dmesg

# ---- 4. once more, then a power cut ------------------------------------
randwrite 100
sleep 2
grow 56
wait_bitmap_dirty $d0
mark writing
wait
fail "fio ended before the power cut"
EOF
B1=$?
[ "$VM_KILLED" = 1 ] || vm_fail "boot 1 was not killed"

vm_boot --timeout 150 - $DISKS <<'EOF' || vm_fail "boot 2 ($PERSONALITY)"
. /test/guest-lib.sh
load_personality
fast_sync
D=$(disks d0 d1 d2 d3)
d0=$(disk d0)
blockdev --flushbufs $d0
dirty=$(mdadm -X $d0 | sed -n 's/^ *Bitmap : .* bits (chunks), \([0-9]*\) dirty.*/\1/p')
say "bitmap after the power cut: ${dirty:-?} dirty bits"
[ "${dirty:-0}" -gt 0 ] || fail "no dirty bits after a power cut under writes"
run mdadm --assemble /dev/md0 $D
check raid5 /dev/md0
expect_eq "$(md_sysfs md0 component_size)" $((56 * 1024)) "md0 component_size after the power cut"
wait_sync /dev/md0
dmesg | grep -q 'md: resync of RAID array md0' || fail "md0: no resync after the power cut"
dmesg | grep -q 'md: md0: resync done' || fail "md0: resync did not complete"
pass "t-bitmap-resize/resync"
check mismatch /dev/md0
fio_verify pre /dev/md0 --rw=write --bs=64k --iodepth=8 --offset=64m --size=4m --verify_only
pass "t-bitmap-resize/consistent"
run mdadm --stop /dev/md0
blockdev --flushbufs $d0
dirty=$(mdadm -X $d0 | sed -n 's/^ *Bitmap : .* bits (chunks), \([0-9]*\) dirty.*/\1/p')
expect_eq "$dirty" 0 "dirty bits after the resync and a clean stop"
check dmesg
EOF
[ "$B1" = 0 ] || vm_fail "boot 1: see its FAIL lines"
echo "PASS $VM_TEST"
