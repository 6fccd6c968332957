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
#      other one reads back, fio's data verifies;
#   5. rewrites: two more blocks (array 20 MiB) get their block and their
#      parity recorded bad by hand (md's sysfs bad_blocks: what a lost
#      block leaves, under either personality); a 512-byte O_DIRECT
#      write into one fails EIO (no old data to merge with); a whole
#      4 KiB write of the other: raid456 fails it (EIO: the stripe is
#      beyond its parity; the scenario ends there under raid456), raid5j
#      takes it (reconstruct-write) and it reads back; raid5j then: a
#      partial write into a block lost from the journal fails, every
#      lost block rewritten whole succeeds and reads back, every other
#      block keeps its data, no member lists a bad block any more (nor,
#      within 10 s, its superblock on disk); the same after mdadm --stop
#      and assembly; check: mismatch_cnt 0;
#   6. (raid5j) the members as a RAID6 without a journal (resynced): two
#      blocks get their block, P and Q recorded bad by hand: a partial
#      write into one fails, whole-block writes of both succeed, no bad
#      block is left; after assembly they read back, check: mismatch_cnt
#      0.
# ~90 s (raid5j).

. "$(dirname "$0")/lib.sh"

vm_stamp
vm_disks 32M d0 d1 d2 d3
vm_disk j 8M
vm_boot --timeout 400 --env NBLK="${NBLK:-200}" \
	--env LIMIT_S="${LIMIT_S:-120}" \
	- d0 d1 d2 d3 j <<'EOF2' || vm_fail "boot"
. /test/guest-lib.sh
load_personality
modprobe dm-flakey || fail "no dm-flakey"
journal_dm
journaled_raid5 /dev/mapper/jdm
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
pass "stop in time; after assembly the lost blocks still read EIO, all else intact"

# ---- 5. rewrites over lost blocks ----------------------------------------
# lsym B: member of array block B's data, member of its parity, member
# sector (from the data offset) of the row; RAID5 left-symmetric, 4
# members, 16K chunks (4 blocks)
lsym() {
	local c=$(($1 / 4)) r pd
	r=$((c / 3))
	pd=$((3 - r % 4))
	echo "$(((pd + 1 + c % 3) % 4)) $pd $((r * 32 + $1 % 4 * 8))"
}
# bad_pair B: record block B and its parity as bad blocks, by hand (md's
# sysfs): the state a lost block leaves, under either personality
set -- $M
MEMBERS="$*"
member() {
	local k=$1
	set -- $MEMBERS
	shift "$k"
	basename "$1"
}
bad_pair() {
	local d p s off
	read -r d p s <<< "$(lsym "$1")"
	off=$(data_offset /dev/$(member "$d"))
	echo "$((off + s)) 8" > /sys/block/md0/md/dev-$(member "$d")/bad_blocks ||
		fail "bad_blocks of $(member "$d")"
	echo "$((off + s)) 8" > /sys/block/md0/md/dev-$(member "$p")/bad_blocks ||
		fail "bad_blocks of $(member "$p")"
}
# partial_write B: 512 bytes into block B, O_DIRECT; prints dd's error
partial_write() {
	head -c 512 /dev/urandom > /tmp/half
	dd if=/tmp/half of=/dev/md0 bs=512 count=1 seek=$(($1 * 8 + 1)) \
		oflag=direct 2>&1 >/dev/null
}
H=5120 H2=5200		# array 20 MiB: no stamp, no fio there
bad_pair $H
bad_pair $H2
out=$(partial_write $H2) && fail "partial write over a lost block succeeded"
echo "$out" | grep -q 'Input/output error' ||
	fail "partial write over a lost block: '$out', not EIO"
if /test/stamp put /dev/md0 $H 1 1 3 2>/tmp/put.err; then
	[ "$PERSONALITY" = raid5j ] ||
		fail "$PERSONALITY rewrote a block recorded bad with its parity"
	/test/stamp get /dev/md0 $H 1 1 3 | tail -n 1 | grep -q ' ok 1 ' ||
		fail "block $H after its rewrite: $(/test/stamp get /dev/md0 $H 1 1 3 | tail -n 1)"
else
	cat /tmp/put.err
	[ "$PERSONALITY" = raid456 ] ||
		fail "a whole-block write over a block lost with its parity failed: $(cat /tmp/put.err)"
	pass "raid456: writes over a block recorded bad with its parity fail (EIO)"
	run mdadm --stop /dev/md0
	exit 0
fi
/test/stamp put /dev/md0 $H2 1 1 3 || fail "whole-block write over $H2 failed"
pass "a partial write over a lost block fails (EIO), a whole-block one succeeds"

# the blocks lost from the journal: a partial write fails, whole ones work
first=$(awk '$1 == "eio" { print $2; exit }' /tmp/get1)
out=$(partial_write "$first") && fail "partial write over lost block $first succeeded"
for b in $(awk '$1 == "eio" { print $2 }' /tmp/get1); do
	/test/stamp put /dev/md0 "$b" 1 1 2 ||
		fail "whole-block write over lost block $b failed"
	/test/stamp get /dev/md0 "$b" 1 1 2 | tail -n 1 | grep -q ' ok 1 ' ||
		fail "lost block $b after its rewrite: $(/test/stamp get /dev/md0 "$b" 1 1 2 | tail -n 1)"
done
pass "$eio lost blocks rewritten whole, each reads back"
# verify: the old blocks gen 1, the rewritten ones gen 2 (get: "garbage")
verify_rewritten() {
	/test/stamp get /dev/md0 0 12 "$NBLK" 1 > /tmp/get4
	awk '$1 == "eio" { print "garbage " $2 }' /tmp/get1 > /tmp/want4
	grep -E '^(eio|stale|garbage) ' /tmp/get4 | cmp -s - /tmp/want4 ||
		fail "$1: $(tail -n 1 /tmp/get4), expected the $eio rewritten blocks alone to differ"
	for b in $(awk '$1 == "eio" { print $2 }' /tmp/get1) $H $H2; do
		g=2
		[ "$b" -ge $H ] && g=3
		/test/stamp get /dev/md0 "$b" 1 1 $g | tail -n 1 | grep -q ' ok 1 ' ||
			fail "$1: block $b: $(/test/stamp get /dev/md0 "$b" 1 1 $g | tail -n 1)"
	done
	# every range recorded was rewritten: md cleared them all
	for d in $MEMBERS; do
		bb=$(md_sysfs md0 "dev-$(basename "$d")/bad_blocks")
		[ -z "$bb" ] ||
			fail "$1: $(basename "$d") still has bad blocks '$(echo $bb)'"
	done
}
verify_rewritten "after the rewrites"
# and the superblocks say so without a stop (a crash now must not bring
# the ranges back): the destages done, md writes them at once
t=0
while :; do
	n=0
	for d in $MEMBERS; do
		n=$((n + $(mdadm --examine-badblocks "$d" 2>/dev/null |
			grep -cE '^ *[0-9]+ for [0-9]+ sectors')))
	done
	[ $n = 0 ] && break
	[ $t -ge 100 ] &&
		fail "10 s after the rewrites the superblocks still list $n bad ranges (dirty_stripes $(jstat dirty_stripes))"
	sleep 0.1
	t=$((t + 1))
done
log "superblocks without bad blocks after $((t / 10)).$((t % 10)) s"
run mdadm --stop /dev/md0
run mdadm --assemble /dev/md0 /dev/mapper/jdm $M
verify_rewritten "after assembly"
fast_sync
check mismatch /dev/md0
run mdadm --stop /dev/md0
pass "rewritten lost blocks read back after assembly, check finds no mismatch"

# ---- 6. RAID6: a block lost with both parities ---------------------------
# left-symmetric, 4 members, 16K chunks: 2 data chunks a row, P on
# 3 - row % 4, Q after it, data after Q
run mdadm --create /dev/md0 --run --level=6 --raid-devices=4 --chunk=16 $M
wait_sync /dev/md0	# the members hold RAID5 data: parity from it
bad_triple() {
	local c=$(($1 / 4)) r pd k d off s
	r=$((c / 2))
	pd=$((3 - r % 4))
	s=$((r * 32 + $1 % 4 * 8))
	for k in $(((pd + 2 + c % 2) % 4)) $pd $(((pd + 1) % 4)); do
		d=$(member "$k")
		off=$(data_offset /dev/$d)
		echo "$((off + s)) 8" > /sys/block/md0/md/dev-$d/bad_blocks ||
			fail "bad_blocks of $d"
	done
}
bad_triple $H
bad_triple $H2
out=$(partial_write $H2) && fail "RAID6: partial write over a lost block succeeded"
/test/stamp put /dev/md0 $H 1 1 5 ||
	fail "RAID6: a whole-block write over a block lost with P and Q failed"
/test/stamp put /dev/md0 $H2 1 1 5 || fail "RAID6: whole-block write over $H2 failed"
for d in $MEMBERS; do
	bb=$(md_sysfs md0 "dev-$(basename "$d")/bad_blocks")
	[ -z "$bb" ] || fail "RAID6: $(basename "$d") still has bad blocks '$(echo $bb)'"
done
run mdadm --stop /dev/md0
run mdadm --assemble /dev/md0 $M
for b in $H $H2; do
	/test/stamp get /dev/md0 $b 1 1 5 | tail -n 1 | grep -q ' ok 1 ' ||
		fail "RAID6: block $b: $(/test/stamp get /dev/md0 $b 1 1 5 | tail -n 1)"
done
check mismatch /dev/md0
run mdadm --stop /dev/md0
pass "RAID6: whole-block writes over blocks lost with P and Q read back, no mismatch"
EOF2
