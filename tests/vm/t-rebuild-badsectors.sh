#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-rebuild-badsectors: a rebuild and a check that meet dozens of
# unreadable sectors run to the end, as raid456's do: a read error that
# cannot be corrected (the stripe is degraded) is recorded as a bad
# block, never counted toward failing the member; a corrected one does
# not fail it either (md's max_read_errors is not raid456's limit); a
# stripe that cannot be repaired does not stop a check.
#
#	   a      b      c      d        s       virtio 64 MiB each
#	   |      |      |      |        (spare)
#	 md10   md11   md12   md13       md's "faulty" personality over a-d
#	    \      \      /      /       (mdadm --build --level=faulty); the
#	   +----------------------+      layout rf1 makes every read fail and
#	   |       /dev/md0       |      remembers its sector as read-fixable
#	   +----------------------+      (fails until rewritten); "clear"
#	   RAID5, 64K chunk, 4 x 16M,    disarms, the sectors stay bad
#	   --assume-clean, bad block
#	   log (mdadm 1.2 default)
#
# Rows are 4K member rows (member sector 8 * row past the data offset);
# left-symmetric: row r has parity on slot 3 - (r / 16) % 4.  Random data
# is written over array 0-24M (member rows 0-2047) first.
#
#	1. rebuild: md10 failed and removed; 40 read-fixable sectors on md11
#	   (rows 16 + 48 i); spare s added: the recovery ends "done" and
#	   [UUUU]; "read error not correctable" logged, no "Too many read
#	   errors"; md11's and s's bad block lists (sysfs) are exactly those
#	   40 rows (md11's on disk too, mdadm --examine-badblocks); reading
#	   0-24M 4K at a time, the data blocks of slots 0 and 1 in those rows
#	   fail (I/O errors, counted) and every other block verifies
#	2. check: row 4 recorded bad on md13 (sysfs), and 41 read-fixable
#	   sectors on md12: row 4 (a stripe with a known bad block on one
#	   member and a read error on another) and rows 25 + 100 i (to row
#	   3925 of 4096); "check": it ends "data-check done" (not
#	   interrupted), mismatch_cnt 0, md12's errors 320 (its 40 read
#	   errors in repairable stripes corrected, 8 sectors each), [UUUU],
#	   md11's and s's lists unchanged, md13 lists row 4.  The data then
#	   verifies as in 1, row 4's data block (md12's) failing too, and
#	   md12 lists row 4 and nothing else.  raid5j records md12's row 4
#	   when the check meets it; raid456 only when a read meets it (the
#	   check leaves the error in its stripe cache): both list it after
#	   the read
#	3. "repair" (md's requested resync) through the same stripes: it
#	   ends "requested-resync done", mismatch_cnt 0, [UUUU], every bad
#	   block list as before
#  and no kernel BUG/WARNING/Oops.
#
# Before the fix (raid5j): step 1 failed md11 after 21 read errors
# ("21 read errors > max_read_errors 20", 2 of 4 failed); with only that
# fixed, step 2's check stopped at the first stripe it could not repair
# ("data-check interrupted").  raid456 passes.
# Disks: 5 x 64 MiB.  Boots: 1.  Timeout: 240 s.

. "$(dirname "$0")/lib.sh"

DISKS="a b c d s"
vm_disks 64M $DISKS

vm_boot --timeout 240 - $DISKS <<'EOF' || vm_fail "$PERSONALITY"
. /test/guest-lib.sh
load_personality
fast_sync
faulty_members a b c d
run mdadm --create /dev/md0 --run --level=5 --chunk=64 --raid-devices=4 \
	--size=16M --assume-clean $F
check raid5 /dev/md0
NB=6144		# 4K blocks of array 0-24M
dd if=/dev/urandom of=/tmp/data bs=4k count=$NB status=none
run dd if=/tmp/data of=/dev/md0 bs=1M oflag=direct status=none
S=$(basename "$(disk s)")
LOGN=$(dmesg | wc -l)
newlog() {	# L: kernel lines since the last call (md lines shown)
	local n
	n=$(dmesg | wc -l)
	L=$(dmesg | tail -n +$((LOGN + 1)))
	LOGN=$n
	printf '%s\n' "$L" | grep -E 'md0|md1[0-3]' | tail -n 30
}

# faults DEV ROW...: each ROW of member DEV fails reads until rewritten
faults() {
	local dev=$1 off r
	shift
	off=$(md_sysfs md0 "dev-$(basename "$dev")/offset")
	run mdadm --grow "$dev" --layout=rf1
	for r in "$@"; do
		dd if="$dev" of=/dev/null bs=4k skip=$((off / 8 + r)) count=1 \
			iflag=direct status=none 2>/dev/null &&
			fail "$dev: rf fault at row $r not taken"
	done
	run mdadm --grow "$dev" --layout=clear
	log "$# read faults on $dev"
}

# block ROW SLOT: the array 4K block there, nothing for parity
block() {
	local n=$(($1 / 16)) k
	k=$((($2 - (3 - n % 4) - 1 + 8) % 4))
	[ $k -lt 3 ] && echo $(((n * 3 + k) * 16 + $1 % 16))
}

# bad_rows MEMBER: its bad block list (sysfs) as rows, sorted
bad_rows() {
	local off
	off=$(md_sysfs md0 "dev-$1/offset")
	md_sysfs md0 "dev-$1/bad_blocks" |
		while read -r s n; do
			[ "$n" = 8 ] || echo "len$n@$s"
			echo $(((s - off) / 8))
		done | sort -n | tr '\n' ' '
}
expect_rows() {	# expect_rows MEMBER ROW...
	expect_eq "$(bad_rows "$1")" "$(printf '%s\n' "${@:2}" | sort -n | tr '\n' ' ')" \
		"$1 bad block rows"
}

# verify_data BLOCK...: 0-24M of md0 is the data, but each BLOCK fails
verify_data() {
	local b errs
	cp /tmp/data /tmp/exp
	for b in "$@"; do
		dd if=/dev/zero of=/tmp/exp bs=4k seek="$b" count=1 \
			conv=notrunc status=none
	done
	errs=$(dd if=/dev/md0 of=/tmp/got bs=4k count=$NB iflag=direct \
		conv=noerror,sync 2>&1 | grep -c 'Input/output error')
	cmp -s /tmp/got /tmp/exp ||
		fail "data differ (lost blocks zero): $(cmp /tmp/got /tmp/exp 2>&1 | head -n 1)"
	expect_eq "$errs" $# "blocks failing to read"
	log "data verified, $# blocks lost"
}

# ---- 1. a rebuild through 40 unreadable sectors -------------------------
run mdadm /dev/md0 --fail /dev/md10
run mdadm /dev/md0 --remove /dev/md10
RA=$(seq 16 48 1888)
faults /dev/md11 $RA
newlog
run mdadm /dev/md0 --add "$(disk s)"
sleep 1
wait_sync /dev/md0
newlog
check state '[UUUU]' /dev/md0
printf '%s\n' "$L" | grep -q 'md: md0: recovery done' ||
	fail "recovery not done"
printf '%s\n' "$L" | grep -q 'Too many read errors' &&
	fail "a member was failed for read errors"
printf '%s\n' "$L" | grep -q "md0: read error not correctable (sector [0-9]* on md11)" ||
	fail "no 'read error not correctable' line"
expect_rows md11 $RA
expect_rows "$S" $RA
for t in $(seq 50); do
	n=$(mdadm --examine-badblocks /dev/md11 | grep -c ' for 8 sectors')
	[ "$n" = 40 ] && break
	sleep 0.1
done
expect_eq "$n" 40 "md11 bad blocks on disk"
LOST=
for r in $RA; do
	LOST="$LOST $(block $r 0) $(block $r 1)"
done
verify_data $LOST
pass "t-rebuild-badsectors/rebuild"

# ---- 2. a check through a lost stripe and 40 read errors ------------------
OFF13=$(md_sysfs md0 dev-md13/offset)
echo "$((OFF13 + 32)) 8" > /sys/block/md0/md/dev-md13/bad_blocks
expect_rows md13 4
RB=$(seq 25 100 3925)
faults /dev/md12 4 $RB
newlog
echo check > /sys/block/md0/md/sync_action || fail "cannot start check"
sleep 1
wait_sync /dev/md0
newlog
printf '%s\n' "$L" | grep -q 'md: md0: data-check done' ||
	fail "check not done: $(printf '%s\n' "$L" | grep 'md: md0: data-check')"
check state '[UUUU]' /dev/md0
expect_eq "$(md_sysfs md0 mismatch_cnt)" 0 "mismatch_cnt"
expect_eq "$(md_sysfs md0 dev-md12/errors)" 320 "md12 corrected errors"
expect_rows md11 $RA
expect_rows "$S" $RA
expect_rows md13 4
log "md12 bad rows after the check: $(bad_rows md12)"
verify_data $LOST $(block 4 2)
expect_rows md12 4
check state '[UUUU]' /dev/md0
pass "t-rebuild-badsectors/check"

# ---- 3. a repair (a requested resync) through the same lost stripes ----
echo repair > /sys/block/md0/md/sync_action || fail "cannot start repair"
sleep 1
wait_sync /dev/md0
newlog
printf '%s\n' "$L" | grep -q 'md: md0: requested-resync done' ||
	fail "repair not done: $(printf '%s\n' "$L" | grep 'md: md0: requested-resync')"
check state '[UUUU]' /dev/md0
expect_eq "$(md_sysfs md0 mismatch_cnt)" 0 "mismatch_cnt after repair"
expect_rows md11 $RA
expect_rows "$S" $RA
expect_rows md12 4
expect_rows md13 4
pass "t-rebuild-badsectors/repair"
run mdadm --stop /dev/md0
check dmesg
EOF
echo "PASS $VM_TEST"
