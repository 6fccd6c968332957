#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-badblock: evicted write-back blocks whose journal copies do
# not read back (journal.md section 15, "Lost blocks").  RAID5 of 4 x 32
# MiB, 16K chunk, an 8 MiB journal behind dm (jdm), stripe_cache_size 32
# so that dirty stripes are evicted (raid5j's journal cache).
#   1. write-back; the ring's first 512 KiB drop writes (dm-flakey
#      drop_writes: the reads find old blocks, bad checksums); NBLK (200)
#      stamped 4 KiB blocks, one per stripe (block 12 i: the first page of
#      each chunk row); the next 512 KiB of ring then fail reads (dm-error);
#      drop_caches runs the shrinkers: the evicted entries' RAM copies go
#      (journal_stats shrunk_entries), their blocks are in the journal only;
#   2. every block read back at once (before they age out):
#      none stale or garbage, those that read EIO (raid5j: some, else the
#      scenario did not reach the path; raid456 keeps dirty data in RAM:
#      none) are each named in the kernel log ("array sectors S-");
#      journal_stats lost_blocks counts them;
#   3. the journal reads right again; 3 x the journal of random writes
#      elsewhere (fio verify) end within LIMIT_S (120) s: the lost blocks
#      pin no ring (before the fix they stayed STUCK, pinning the tail:
#      the ring filled and writes waited for ever);
#   4. mdadm --stop within 30 s; assembled again: the same blocks read
#      EIO (recorded as bad blocks: never the members' older data), every
#      other one reads back, fio's data verifies.
# ~1 minute.

. "$(dirname "$0")/lib.sh"

vm_stamp
vm_disks 32M d0 d1 d2 d3
vm_disk j 8M
vm_boot --timeout 400 --env NBLK="${NBLK:-200}" \
	--env LIMIT_S="${LIMIT_S:-120}" \
	- d0 d1 d2 d3 j <<'EOF2' || vm_fail "boot"
. /test/guest-lib.sh
load_personality
modprobe dm-mod || fail "no dm-mod"
modprobe dm-flakey || fail "no dm-flakey"
M=$(disks d0 d1 d2 d3)
J=$(disk j)
jsz=$(blockdev --getsz $J)
echo "0 $jsz linear $J 0" | dmsetup create jdm || fail "dmsetup"
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=16 \
	--assume-clean --write-journal=/dev/mapper/jdm $M
journal_mode write-back
echo 32 > /sys/block/md0/md/stripe_cache_size || fail "stripe_cache_size 32"

# jdm_table A B: the journal under jdm, the ring's first half MiB as A,
# the next as B (each a dm target and its arguments after the device)
doff=$(data_offset /dev/mapper/jdm)
half=1024
jdm_table() {
	dmsetup suspend jdm
	printf '0 %s linear %s 0\n%s %s %s\n%s %s %s\n%s %s linear %s %s\n' \
		"$doff" "$J" "$doff" "$half" "$1" "$((doff + half))" "$half" \
		"$2" "$((doff + 2 * half))" "$((jsz - doff - 2 * half))" "$J" \
		"$((doff + 2 * half))" | dmsetup load jdm ||
		fail "dmsetup load jdm: $1 / $2"
	dmsetup resume jdm
}
# A: writes vanish (the reads then find old blocks: bad checksums)
jdm_table "flakey $J $doff 0 1 1 drop_writes" "linear $J $((doff + half))"

run /test/stamp put /dev/md0 0 12 "$NBLK" 1
# B: read errors (its blocks were written, the head is far past it)
jdm_table "flakey $J $doff 0 1 1 drop_writes" "error"
# memory pressure: the shrinkers drop the evicted entries' RAM copies,
# which leaves their blocks in the journal only
echo 3 > /proc/sys/vm/drop_caches
if [ "$PERSONALITY" = raid5j ]; then
	say "after the writes: evicted_stripes $(jstat evicted_stripes), dirty_stripes $(jstat dirty_stripes), shrunk_entries $(jstat shrunk_entries), ram_copy_bytes $(jstat ram_copy_bytes)"
	[ "$(jstat evicted_stripes)" -gt 0 ] ||
		fail "no stripe evicted: the scenario does not reach the journal reads"
	[ "$(jstat shrunk_entries)" -gt 0 ] ||
		fail "drop_caches dropped no RAM copy: the shrinker did not run"
fi

/test/stamp get /dev/md0 0 12 "$NBLK" 1 > /tmp/get1
tail -n 1 /tmp/get1
grep -E '^(stale|garbage) ' /tmp/get1 | head -n 5
grep -qE '^(stale|garbage) ' /tmp/get1 && fail "blocks read back stale or garbage: $(tail -n 1 /tmp/get1)"
eio=$(grep -c '^eio ' /tmp/get1)
if [ "$PERSONALITY" = raid5j ]; then
	[ "$eio" -gt 0 ] ||
		fail "no block read EIO: the corrupted range held no evicted block"
else
	expect_eq "$eio" 0 "blocks that read EIO under $PERSONALITY"
fi
pass "$eio blocks whose journal copies do not read back read EIO, none stale"


# the journal reads right again: the lost blocks must not come back
jdm_table "linear $J $doff" "linear $J $((doff + half))"
/test/stamp get /dev/md0 0 12 "$NBLK" 1 > /tmp/get2
cmp -s /tmp/get1 /tmp/get2 || fail "read again: $(tail -n 1 /tmp/get2) (before: $(tail -n 1 /tmp/get1))"

# 3 x the journal through the ring: the tail must move
hang_watchdog "$LIMIT_S" reboot
fio_verify fill /dev/md0 --rw=randwrite --bs=4k --iodepth=16 \
	--offset=40M --size=48M --io_size=24M --randseed=7
: > /tmp/fio.done
kill "$wd" 2>/dev/null
pass "24 MiB written through an 8 MiB journal after the loss"

[ "$PERSONALITY" = raid5j ] &&
	expect_eq "$(jstat lost_blocks)" "$eio" "journal_stats lost_blocks (blocks that read EIO)"
t0=$(cut -d' ' -f1 /proc/uptime)
# a stop that hangs is in D state: no timeout can end it, the VM ends
mdadm --stop /dev/md0 &
sp=$!
n=0
while kill -0 $sp 2>/dev/null; do
	n=$((n + 1))
	if [ $n -gt 30 ]; then
		echo w > /proc/sysrq-trigger
		result "FAIL $R5J_TEST: mdadm --stop not done after 30 s: $(tr '\n' ' ' < /sys/block/md0/md/journal_stats 2>/dev/null | cut -c1-300)"
		sleep 5
		echo b > /proc/sysrq-trigger
	fi
	sleep 1
done
wait $sp || fail "mdadm --stop failed"
say "stop: $(echo "$(cut -d' ' -f1 /proc/uptime) $t0" | awk '{ print $1 - $2 }') s"
dmesg > /tmp/dmesg
for b in $(awk '$1 == "eio" { print $2 }' /tmp/get1); do
	grep -q "array sectors $((b * 8))-" /tmp/dmesg ||
		fail "block $b (array sector $((b * 8))) reads EIO but the kernel log does not name it"
done
grep 'lost' /tmp/dmesg | head -n 3
run mdadm --assemble /dev/md0 /dev/mapper/jdm $M
/test/stamp get /dev/md0 0 12 "$NBLK" 1 > /tmp/get3
cmp -s /tmp/get1 /tmp/get3 || fail "after assembly: $(tail -n 1 /tmp/get3) (before: $(tail -n 1 /tmp/get1))"
fio_verify fill /dev/md0 --rw=randwrite --bs=4k --iodepth=16 \
	--offset=40M --size=48M --io_size=24M --randseed=7 --verify_only
run mdadm --stop /dev/md0
pass "stop in time; after assembly the lost blocks still read EIO, all else intact"
EOF2
