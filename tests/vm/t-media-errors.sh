#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-media-errors: unreadable and unwritable sectors on members are handled
# as raid456 handles them: a read error is rebuilt from the
# others and written back, the member stays; a write error or a sector that
# cannot be rebuilt goes to the member's bad block log; a rebuild that
# cannot read a stripe records it and completes.
#
#	   a      b      c      d        s  t  j       virtio 64 MiB each
#	   |      |      |      |        (spares,
#	                                  journal)
#	 md10   md11   md12   md13      md's "faulty" personality over a-d
#	    \      \      /      /       (mdadm --build --level=faulty): a
#	   +----------------------+      layout armed once (rf, wp) makes the
#	   |       /dev/md0       |      next read (write) fail and the sector
#	   +----------------------+      keep failing: rf until rewritten, wp
#	   RAID5, 64K chunk, 4 x 32M,    writes for good
#	   --assume-clean, bad block
#	   log (mdadm 1.2 default)
#
# A fault is placed at member dev sector S (relative to the data offset)
# by arming the one-shot mode and reading (rf) or rewriting (wp) that 4K
# of the faulty device directly.  Random data (a file) is written over
# array 0-24M first; "data verified" compares the whole range with it.
#
#	1. read errors on three members in different stripes (md11 dev 24,
#	   md12 dev 288, md13 dev 424, all data blocks): reading 0-24M
#	   returns the data; nothing failed ([UUUU]); each of the three has
#	   errors (corrected sectors) 8 and the kernel line "read error
#	   corrected (8 sectors at <offset + S> on mdNN)"
#	2. max_read_errors 2, then three read errors on md10 (dev 8, 136,
#	   264): data verified.  Neither personality uses max_read_errors
#	   (raid456's limit is stripe_cache_size read errors in a row, with
#	   no good read between): all three corrected, md10 errors 24,
#	   [UUUU], no "Too many read errors"; the test then fails md10 itself
#	3. md10 removed; a read error on md11 dev 936 (row 117: parity on
#	   slot 0, md11 holds array sector 2728); spare s added: the rebuild
#	   completes, [UUUU]; the kernel says "read error not correctable";
#	   md11 and s list dev 936 in their bad block logs (sysfs and
#	   mdadm --examine-badblocks); array 4K block 341 (that sector) reads
#	   as an I/O error, every other block of 0-24M is verified.  A 4K
#	   write of new data to block 341: raid456 fails it (two members of
#	   a RAID5 row recorded bad: it fails the stripe's writes), both
#	   entries stay and the block stays lost; raid5j takes it (a
#	   reconstruct-write), both entries go and the block reads the new
#	   data from then on
#	4. md12 dev 552 takes no writes (wp): a 4K write of new data to array
#	   block 229 (md12's block there): the member stays ([UUUU]), dev 552
#	   is in md12's bad block log (sysfs, --examine-badblocks after the
#	   superblock write), the block reads back the new data (rebuilt from
#	   parity); md12's fault is flushed and block 229 written again: md12
#	   failed a write (WriteErrorSeen), so the write skips its recorded
#	   range, dev 552 stays listed, the block reads the newest data; after
#	   a stop and assemble the data verifies, and (WriteErrorSeen is not
#	   on disk) the read of block 229 rewrites md12's range and clears it
#	4b. md13 never failed a write: dev 320 recorded bad through sysfs
#	   (dev-md13/bad_blocks), a 4K write to array block 120 (md13's
#	   block there) succeeds, reads back, and clears the entry; dev 360
#	   recorded bad, a read of array block 125 returns the data (rebuilt)
#	   and rewrites the block, which clears that entry too; [UUUU]
#	5. RAID6 on the four (faults flushed, new superblocks); md12 and md13
#	   failed and removed; a read error on md11 dev 168 (row 21: P and Q
#	   on the removed slots, md11 holds array sector 424); s and t added:
#	   the rebuild of both completes, [UUUU], "read error not
#	   correctable"; md11, s and t list dev 168 as bad; array 4K block 53
#	   reads as an I/O error, every other block verified; a 4K write to
#	   block 53: raid456 fails it (three of four recorded), all three
#	   entries stay; raid5j takes it, the entries go, it reads back
#	6. RAID5 with a write journal (j), assembled again (empty stripe
#	   cache); a read error on md10 dev 48; a 512-byte write to array
#	   sector 48 (md10's block: rmw and rcw both pre-read it): the pre-read
#	   error is corrected ("read error corrected", md10 errors 8), [UUUU],
#	   data verified
#  and no kernel BUG/WARNING/Oops.
#
# Before the fix (raid5j): step 1 failed md11 and md12 ("Cannot continue
# operation (2/4 failed)"); from step 3 alone, the rebuild failed md11 and
# ended [__UU].  raid456 passes all.  Until raid5j stopped using
# max_read_errors, it failed md10 in step 2 ("Too many read
# errors, failing device md10", [_UUU]).
# Before the clearing of recorded ranges (main at 59741d1), raid5j
# failed step 4 after the assemble ("md12: 2600 still in bad_blocks")
# and step 4b at the write ("md13: 2368 still in bad_blocks").  raid456
# passes steps 4 and 4b (it also rewrites md13's block after the write
# and logs "read error corrected" for it).
# Disks: 7 x 64 MiB.  Boots: 1.  Timeout: 240 s.

. "$(dirname "$0")/lib.sh"

DISKS="a b c d s t j"
vm_disks 64M $DISKS

vm_boot --timeout 240 - $DISKS <<'EOF' || vm_fail "$PERSONALITY"
. /test/guest-lib.sh
load_personality
fast_sync
faulty_members a b c d
run mdadm --create /dev/md0 --run --level=5 --chunk=64 --raid-devices=4 \
	--size=32M --assume-clean $F
check raid5 /dev/md0
# no superblock writes between the writes below (a clean/dirty switch
# would write every member and could take an armed write fault)
echo 3600 > /sys/block/md0/md/safe_mode_delay
OFF=$(md_sysfs md0 dev-md10/offset)
log "data offset $OFF"
dd if=/dev/urandom of=/tmp/data bs=1M count=24 status=none
run dd if=/tmp/data of=/dev/md0 bs=1M oflag=direct status=none
LOGN=$(dmesg | wc -l)
newlog() {	# L: kernel lines since the last call (shown)
	local n
	n=$(dmesg | wc -l)
	L=$(dmesg | tail -n +$((LOGN + 1)))
	LOGN=$n
	printf '%s\n' "$L" | grep -E 'md0|md1[0-3]'
}

# fault rf|wp DEV S: DEV's member sector S (of data) fails reads until
# rewritten (rf), or every write (wp).
fault() {
	local blk=$(((OFF + $3) / 8))
	run mdadm --grow "$2" --layout="$1"
	case $1 in
	rf)
		dd if="$2" of=/dev/null bs=4k skip=$blk count=1 iflag=direct \
			status=none 2>/dev/null && fail "$2: rf fault not taken"
		;;
	wp)
		dd if="$2" of=/tmp/blk bs=4k skip=$blk count=1 iflag=direct \
			status=none || fail "$2: read before wp"
		dd if=/tmp/blk of="$2" bs=4k seek=$blk count=1 oflag=direct \
			status=none 2>/dev/null && fail "$2: wp fault not taken"
		;;
	esac
	log "fault $1 on $2 at $((OFF + $3)): $(grep -A1 "^$(basename "$2") " /proc/mdstat | tail -n 1)"
}

# verify_data [LOST]: 0-24M of md0 equals the file; 4K block LOST (if
# given) instead fails to read.
same() {	# same SKIP COUNT BS: COUNT blocks of BS at SKIP of md0 are the file's
	cmp -s <(dd if=/dev/md0 bs=$3 skip=$1 count=$2 iflag=direct status=none) \
		<(dd if=/tmp/data bs=$3 skip=$1 count=$2 status=none)
}
verify_data() {
	local lost=${1:--1} c=384 b
	[ "$lost" -ge 0 ] && c=$((lost / 16))
	same 0 $c 64k || fail "array 64K blocks 0-$c differ"
	if [ "$lost" -ge 0 ]; then
		for b in $(seq $((c * 16)) $((c * 16 + 15))); do
			if [ $b -eq "$lost" ]; then
				dd if=/dev/md0 of=/dev/null bs=4k skip=$b count=1 \
					iflag=direct status=none 2>/dev/null &&
					fail "lost block $b read without error"
				continue
			fi
			same $b 1 4k || fail "4K block $b differs"
		done
		same $((c + 1)) $((383 - c)) 64k ||
			fail "array 64K blocks $((c + 1))-383 differ"
	fi
	log "data verified (lost block: $lost)"
}

errors() {	# errors MEMBER: its corrected read errors (sectors)
	md_sysfs md0 "dev-$1/errors"
}

# bad_listed MEMBER DEVICE S: S (of data) is in MEMBER's bad block log,
# in sysfs and on disk (mdadm --examine-badblocks DEVICE)
bad_listed() {
	local bb off
	off=$(md_sysfs md0 "dev-$1/offset")
	bb=$(md_sysfs md0 "dev-$1/bad_blocks")
	log "$1 bad_blocks: $(echo $bb)"
	echo "$bb" | grep -qx "$((off + $3)) 8" ||
		fail "$1: $((off + $3)) not in bad_blocks '$(echo $bb)'"
	for t in $(seq 50); do
		mdadm --examine-badblocks "$2" |
			grep -Eq "^ *$((off + $3)) for 8 sectors" && return 0
		sleep 0.1
	done
	mdadm --examine-badblocks "$2"
	fail "$2: $((off + $3)) not listed by --examine-badblocks"
}

# not_listed MEMBER S: S (of data) leaves MEMBER's bad block log in sysfs
# (the clearing follows the write's completion: wait up to 5 s)
not_listed() {
	local bb off t
	off=$(md_sysfs md0 "dev-$1/offset")
	for t in $(seq 50); do
		bb=$(md_sysfs md0 "dev-$1/bad_blocks")
		echo "$bb" | grep -qx "$((off + $2)) 8" || return 0
		sleep 0.1
	done
	fail "$1: $((off + $2)) still in bad_blocks '$(echo $bb)'"
}

# rewrite_lost BLOCK: a 4K write of new data to array block BLOCK, lost
# with its parity (all recorded bad).  raid456 fails it: LOST=BLOCK.
# raid5j takes it (a reconstruct-write clears the ranges) and the block
# holds the new data: LOST=-1.
rewrite_lost() {
	head -c 4096 /dev/urandom > /tmp/new
	if dd if=/tmp/new of=/dev/md0 bs=4k seek=$1 count=1 oflag=direct \
		status=none 2>/dev/null; then
		[ "$PERSONALITY" = raid5j ] ||
			fail "$PERSONALITY: write to lost block $1 succeeded"
		dd if=/tmp/new of=/tmp/data bs=4k seek=$1 count=1 conv=notrunc \
			status=none
		LOST=-1
		log "write to lost block $1 succeeded"
	else
		[ "$PERSONALITY" = raid456 ] ||
			fail "$PERSONALITY: write to lost block $1 failed"
		LOST=$1
		log "write to lost block $1 failed"
	fi
}
# rewritten_listed MEMBER DEVICE S: as bad_listed while the block is lost;
# once rewritten, S has left MEMBER's log
rewritten_listed() {
	if [ "$LOST" = -1 ]; then
		not_listed "$1" "$3"
	else
		bad_listed "$@"
	fi
}

# ---- 1. read errors on three members -----------------------------------
fault rf /dev/md11 24
fault rf /dev/md12 288
fault rf /dev/md13 424
verify_data
newlog
check state '[UUUU]' /dev/md0
for m in "md11 24" "md12 288" "md13 424"; do
	set -- $m
	expect_eq "$(errors $1)" 8 "$1 errors"
	printf '%s\n' "$L" | grep -q "md0: read error corrected (8 sectors at $((OFF + $2)) on $1)" ||
		fail "no 'read error corrected' line for $1"
done
pass "t-media-errors/corrected"

# ---- 2. more than max_read_errors -------------------------------------
echo 2 > /sys/block/md0/md/max_read_errors
fault rf /dev/md10 8
fault rf /dev/md10 136
fault rf /dev/md10 264
verify_data
newlog
check state '[UUUU]' /dev/md0
expect_eq "$(errors md10)" 24 "md10 errors"
printf '%s\n' "$L" | grep -q "Too many read errors" &&
	fail "md10 failed for corrected read errors"
run mdadm /dev/md0 --fail /dev/md10
pass "t-media-errors/max-read-errors"

# ---- 3. rebuild with a read error on a source --------------------------
run mdadm /dev/md0 --remove /dev/md10
fault rf /dev/md11 936
run mdadm /dev/md0 --add $(disk s)
sleep 1
wait_sync /dev/md0
newlog
check state '[UUUU]' /dev/md0
printf '%s\n' "$L" | grep -q "md0: read error not correctable (sector $((OFF + 936)) on md11)" ||
	fail "no 'read error not correctable' line"
S=$(basename "$(disk s)")
bad_listed md11 /dev/md11 936
bad_listed "$S" "$(disk s)" 936
verify_data 341
rewrite_lost 341
rewritten_listed md11 /dev/md11 936
rewritten_listed "$S" "$(disk s)" 936
verify_data $LOST
pass "t-media-errors/rebuild"

# ---- 4. a write error with a bad block log -----------------------------
fault wp /dev/md12 552
head -c 4096 /dev/urandom > /tmp/new
run dd if=/tmp/new of=/dev/md0 bs=4k seek=229 count=1 oflag=direct status=none
dd if=/tmp/new of=/tmp/data bs=4k seek=229 count=1 conv=notrunc status=none
newlog
check state '[UUUU]' /dev/md0
bad_listed md12 /dev/md12 552
cmp -s /tmp/new <(dd if=/dev/md0 bs=4k skip=229 count=1 iflag=direct status=none) ||
	fail "block 229 does not read back the new data"
# a member that failed a write is not written over its recorded ranges
# (without the fault, a write there would succeed and clear the entry)
run mdadm --grow /dev/md12 --layout=flush
head -c 4096 /dev/urandom > /tmp/new
run dd if=/tmp/new of=/dev/md0 bs=4k seek=229 count=1 oflag=direct status=none
dd if=/tmp/new of=/tmp/data bs=4k seek=229 count=1 conv=notrunc status=none
sleep 1
bad_listed md12 /dev/md12 552
cmp -s /tmp/new <(dd if=/dev/md0 bs=4k skip=229 count=1 iflag=direct status=none) ||
	fail "block 229 does not read back the newest data"
run mdadm --stop /dev/md0
run mdadm --assemble /dev/md0 /dev/md11 /dev/md12 /dev/md13 $(disk s)
check state '[UUUU]' /dev/md0
verify_data $LOST
# WriteErrorSeen is not on disk: once assembled again, md12 is a member
# that never failed a write, and the read of block 229 above rebuilt,
# rewrote and cleared its range
not_listed md12 552
pass "t-media-errors/write-error"

# ---- 4b. recorded ranges of a member with no write error are cleared ----
# row 40 (dev 320) and row 45 (dev 360): parity on slot 1, md13 holds
# array blocks 120 and 125
OFF13=$(md_sysfs md0 dev-md13/offset)
echo "$((OFF13 + 320)) 8" > /sys/block/md0/md/dev-md13/bad_blocks
md_sysfs md0 dev-md13/bad_blocks | grep -qx "$((OFF13 + 320)) 8" ||
	fail "md13: 320 not recorded through sysfs"
head -c 4096 /dev/urandom > /tmp/new
run dd if=/tmp/new of=/dev/md0 bs=4k seek=120 count=1 oflag=direct status=none
dd if=/tmp/new of=/tmp/data bs=4k seek=120 count=1 conv=notrunc status=none
not_listed md13 320
cmp -s /tmp/new <(dd if=/dev/md0 bs=4k skip=120 count=1 iflag=direct status=none) ||
	fail "block 120 does not read back the new data"
echo "$((OFF13 + 360)) 8" > /sys/block/md0/md/dev-md13/bad_blocks
md_sysfs md0 dev-md13/bad_blocks | grep -qx "$((OFF13 + 360)) 8" ||
	fail "md13: 360 not recorded through sysfs"
same 125 1 4k || fail "block 125 (recorded bad on md13) differs"
not_listed md13 360
newlog
check state '[UUUU]' /dev/md0
verify_data $LOST
pass "t-media-errors/cleared"
run mdadm --stop /dev/md0

# ---- 5. RAID6: two members rebuilt, a read error on a third -------------
for m in $F; do
	run mdadm --grow $m --layout=flush	# forget every fault
done
run mdadm --zero-superblock $F $(disk s)
run mdadm --create /dev/md0 --run --level=6 --chunk=64 --raid-devices=4 \
	--size=32M --assume-clean $F
check raid6 /dev/md0
echo 3600 > /sys/block/md0/md/safe_mode_delay
run dd if=/tmp/data of=/dev/md0 bs=1M oflag=direct status=none
run mdadm /dev/md0 --fail /dev/md12 --fail /dev/md13
run mdadm /dev/md0 --remove /dev/md12 /dev/md13
# row 21: P on slot 2, Q on slot 3; md11 holds data at array sector 424
fault rf /dev/md11 168
newlog
run mdadm /dev/md0 --add $(disks s t)
sleep 1
wait_sync /dev/md0
newlog
check state '[UUUU]' /dev/md0
printf '%s\n' "$L" | grep -q "md0: read error not correctable (sector $((OFF + 168)) on md11)" ||
	fail "no 'read error not correctable' line (RAID6)"
bad_listed md11 /dev/md11 168
for d in s t; do
	bad_listed "$(basename "$(disk $d)")" "$(disk $d)" 168
done
verify_data 53
rewrite_lost 53
rewritten_listed md11 /dev/md11 168
for d in s t; do
	rewritten_listed "$(basename "$(disk $d)")" "$(disk $d)" 168
done
verify_data $LOST
pass "t-media-errors/raid6-rebuild"
run mdadm --stop /dev/md0

# ---- 6. a journaled RAID5: a pre-read hits a read error -----------------
for m in $F; do
	run mdadm --grow $m --layout=flush
done
run mdadm --zero-superblock $F
run mdadm --create /dev/md0 --run --level=5 --chunk=64 --raid-devices=4 \
	--size=32M --assume-clean --write-journal $(disk j) $F
check raid5 /dev/md0
run dd if=/tmp/data of=/dev/md0 bs=1M oflag=direct status=none
# an empty stripe cache: the write below must read its row
run mdadm --stop /dev/md0
run mdadm --assemble /dev/md0 $F $(disk j)
OFF=$(md_sysfs md0 dev-md10/offset)
# array sector 48: md10's block of row 6; a 512-byte write there reads
# that block whatever the method (rmw: it and P; rcw: all data blocks)
fault rf /dev/md10 48
newlog
head -c 512 /dev/urandom > /tmp/new
run dd if=/tmp/new of=/dev/md0 bs=512 seek=48 count=1 oflag=direct status=none
dd if=/tmp/new of=/tmp/data bs=512 seek=48 count=1 conv=notrunc status=none
newlog
check state '[UUUU]' /dev/md0
printf '%s\n' "$L" | grep -q "md0: read error corrected (8 sectors at $((OFF + 48)) on md10)" ||
	fail "no 'read error corrected' line (journal)"
expect_eq "$(errors md10)" 8 "md10 errors (journal)"
verify_data
pass "t-media-errors/journal"
run mdadm --stop /dev/md0
check dmesg
EOF
echo "PASS $VM_TEST"
