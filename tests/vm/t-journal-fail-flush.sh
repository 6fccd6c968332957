#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-fail-flush: after the journal fails, fsync must still make
# acknowledged writes durable on the members.
#
#	  d0    d1    d2    d3          j (8 MiB) under dm-linear "jdm"
#	  (throttled: member writes queue up)   (switched to dm-error)
#	    |  /dev/md0 RAID5 4 x 32 MiB, 64K chunk
#
# Every disk sits behind a volatile write cache (VM_NBD_CACHE=1: nbdkit's
# cache filter; a write is durable only once a flush or FUA reached it).
# Boot 2: fio random 4 KiB writes (64 in flight, each block once, every
# completion logged with its offset: the acknowledgements) on members
# throttled so member writes lag the journal; the journal dies under them
# (dm-error) and fio stops at its first error.  sync_action is frozen
# first: md core then keeps the failed journal configured (otherwise it
# detaches it once no stripe is active, and from then on raid5j, having
# no journal, flushed as it should; under load the failed journal stays).
# Then fsync(/dev/md0):
#  - each member's flush counter (/sys/block/X/stat) must grow: the flush
#    reaches the members (without the fix raid5j completed it at once
#    because a journal was configured, though it had failed);
#  - the power cut right after the fsync.
# Boot 3: the members assemble without the dead journal (--force,
# read-only); the array is copied to the dump disk and the host checks
# that every block acknowledged before the fsync holds its pattern.
# raid5j must pass both; raid456 completes the flush at once (the same
# shortcut): reported, not asserted.
#
# Disks: 4 x 32 MiB + 8 MiB journal + 128 MiB dump.  Boots: 3.  ~2 minutes.

. "$(dirname "$0")/lib.sh"

export VM_NBD_CACHE=1
M="d0 d1 d2 d3"
THR=${FAIL_FLUSH_IOPS:-200}	# member iops: member writes lag the journal
vm_disks 32M $M
vm_disk j 8M
vm_disk dump 128M
tdisks() { local d; for d in $M; do echo "$d,throttling.iops-total=$THR"; done; }

vm_boot --timeout 120 - $M j <<'EOF' || vm_fail "create"
. /test/guest-lib.sh
load_personality
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=64 \
	--assume-clean --write-journal=$(disk j) $(disks d0 d1 d2 d3)
report blocks $(( $(blockdev --getsize64 /dev/md0) / 4096 ))
run mdadm --stop /dev/md0
pass create
EOF
BLOCKS=$(vm_val blocks)

# shellcheck disable=SC2046
vm_boot --timeout 240 --kill-mark fsynced --kill-after 0.2 --env BLOCKS="$BLOCKS" \
	- $(tdisks) j <<'EOF' ||
. /test/guest-lib.sh
load_personality
modprobe dm-mod || fail "no dm-mod"
jsz=$(blockdev --getsz $(disk j))
echo "0 $jsz linear $(disk j) 0" | dmsetup create jdm || fail "dmsetup"
run mdadm --assemble /dev/md0 $(disks d0 d1 d2 d3) /dev/mapper/jdm
check state '[4/4] [UUUU]' /dev/md0
# random 4 KiB writes, each block at most once, 64 in flight; fio logs
# every completed write with its offset: the acknowledgements
fio --name=w --filename=/dev/md0 --direct=1 --ioengine=libaio \
	--rw=randwrite --bs=4k --iodepth=64 --size=$((BLOCKS * 4))k \
	--buffer_pattern=0x72356a21 --write_lat_log=/tmp/w --log_offset=1 \
	> /tmp/fio.out 2>&1 &
fio=$!
sleep 4
# md core detaches a failed journal as soon as no stripe is active;
# frozen, it leaves it configured, as it stays while I/O goes on
echo frozen > /sys/block/md0/md/sync_action
dmsetup suspend jdm
echo "0 $jsz error" | dmsetup load jdm
dmsetup resume jdm
wait $fio
report fio_rc $?
tail -n 3 /tmp/fio.out
grep -q '(J)(F)' /proc/mdstat || fail "the journal did not fail"
dmesg | grep -E 'journal|flushed|dm-0' | tail -n 4
cat /tmp/w_clat.*.log > /tmp/lat
awk -F', *' '{print "A " $5 / 4096}' /tmp/lat > "$R5J_RESULT_PORT"
report acks $(wc -l < /tmp/lat)
# fsync(/dev/md0): a flush request to md0; each member must see a flush
# (field 16 of /sys/block/X/stat: flush requests completed)
flushes() { local d; for d in d0 d1 d2 d3; do
	awk '{printf "%s ", $16}' /sys/block/$(basename $(disk $d))/stat; done; }
sleep 1	# md's own superblock update after the failure settles
idle0=$(flushes)
sleep 2
before=$(flushes)
report idle_flushes "$idle0-> $before"
jm=$(cat /sys/block/md0/md/journal_mode 2>/dev/null)
report journal_mode "$jm"
[ -n "$jm" ] || fail "the failed journal was detached before the fsync: the test proves nothing"
dd if=/dev/null of=/dev/md0 conv=fsync,notrunc 2>/dev/null
report fsync_rc $?
after=$(flushes)
report member_flushes "$before-> $after"
set -- $before
unflushed=0
for a in $after; do
	[ "$a" -gt "$1" ] || unflushed=$((unflushed + 1))
	shift
done
report unflushed_members $unflushed
grep -A3 '^md0' /proc/mdstat
mark fsynced
sleep 1000
EOF
	vm_fail "boot 2"
[ "$VM_KILLED" = 1 ] || vm_fail "boot 2 was not cut"
[ "$(vm_val fsync_rc)" = 0 ] || vm_fail "fsync after the journal failure failed"
unflushed=$(vm_val unflushed_members)
vm_log "member flush counts around the fsync: $(vm_val member_flushes)"
if [ "$PERSONALITY" = raid5j ] && [ "$unflushed" != 0 ]; then
	vm_fail "fsync after the journal failure: $unflushed members saw no flush"
fi
vm_fail_flush_lost "$M"
vm_log "$PERSONALITY: $lost of $acked acknowledged blocks lost after the power cut"
if [ "$PERSONALITY" = raid5j ] && [ "$lost" != 0 ]; then
	vm_fail "$lost blocks acknowledged before the fsync were lost"
fi
echo "PASS $VM_TEST: $PERSONALITY: fsync reached $((4 - unflushed)) of 4 members; $lost of $acked acknowledged blocks lost"
exit 0
