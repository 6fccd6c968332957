#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-replay-read-error: a member read fails while the journal
# recovery destages write-back stripes at assembly (data logged, no parity
# yet: the recovery reads the stripe's other blocks).  As at run time:
# the block is rebuilt from the others, written back, read
# back; the member stays.
#
#	boot 1	RAID5 (64K chunk, 4 x 16M, --assume-clean over zeroed
#		disks), write journal, write-back,
#		members on dm-linear; the array made dirty, then the members
#		suspended (dmsetup suspend --noflush: their I/O waits); two
#		4K writes of known data, array block 197 (row 4, md10 dev
#		552) and 245 (row 5, md13 dev 680), reach the log and are
#		acknowledged; the destage's pre-reads wait; power cut
#	boot 2	members are md "faulty" devices over the disks: md12 dev 552
#		(array block 229, row 4, a clean data block: zeros) fails
#		reads until rewritten (rf); md11 dev 680 (array block 277,
#		row 5, zeros) fails every read (rp).  Assemble: the recovery
#		destage reads both.
#
# Asserted right after the assemble, before any read of the array:
#   md12: "read error corrected (8 sectors at <offset + 552> on md12)",
#         dev-md12/errors 8, its dev 552 reads zeros directly (rewritten);
#   md11: "read error NOT corrected!! (sector <offset + 680> on md11)",
#         offset + 680 in its bad block log (sysfs);
#   [UUUU]; then blocks 197 and 245 read the written data, the rest of
#   the first 2M zeros (229 and 277 included), "check" mismatch_cnt 0.
# Then, at run time in write-back, a destage read fails (md12 dev 120,
# rf; see below): "read error corrected", md12 errors 16.
# raid456 6.1 (asserted): its recovery rewrites the data-only stripes to
# the log and keeps them in its cache, reading no member at assembly
# (errors 0, nothing recorded), and its switch to write-through does not
# destage; its later reads of the 2M correct both md12 blocks.
# Before the fix, raid5j rebuilt both blocks for the parity but left the
# members as they were: no line, errors 0, md12 dev 552 still unreadable,
# nothing recorded on md11.
#	boot 3	boot 1 again on fresh disks
#	boot 4	md12 dev 552 fails reads (rf); assembled without md13 (row
#		4's parity): row 4 cannot be rebuilt.  raid5j: "read error
#		not correctable (sector <offset + 552> on md12)", the range in
#		md12's bad block log, the array runs read-write [UUU_], block
#		229 reads as an I/O error, every other block of 2M verified
#		(197 and 245, whose member is missing, the written data).
#		Before (the first fix alone): "too many members unreadable to
#		destage it", journal recovery failed, array read-only.
#		raid456 6.1 (asserted): "read error not correctable" and the
#		assembly hangs (r5c_recovery_flush_data_only_stripes() waits
#		for the stripe it cannot destage): mdadm still running 30 s on.
# Disks: 5 x 16 MiB.  Boots: 4.  ~50 s.

. "$(dirname "$0")/lib.sh"

# power_cut: boot 1 on fresh disks (the array, the two writes, the power cut)
power_cut() {
	rm -rf "$VM_DISK_DIR"
	vm_disks 16M a b c d j

	vm_boot --timeout 120 --kill-mark cut --kill-after 0.5 - a b c d j <<'EOF' ||
. /test/guest-lib.sh
load_personality
linear_members a b c d
run mdadm --create /dev/md0 --run --level=5 --chunk=64 --raid-devices=4 \
	--size=12M --assume-clean --write-journal "$(disk j)" $M
check raid5 /dev/md0
echo write-back > /sys/block/md0/md/journal_mode || fail "write-back refused"
# dirty now, so that the writes below need no superblock write
echo 3600 > /sys/block/md0/md/safe_mode_delay
run dd if=/dev/zero of=/dev/md0 bs=4k count=1 oflag=direct status=none
for d in a b c d; do
	run dmsetup suspend --noflush --nolockfs "lin$d"
done
seq -w 1 100000 | head -c 8192 > /tmp/new
run dd if=/tmp/new of=/dev/md0 bs=4k seek=197 count=1 oflag=direct status=none
run dd if=/tmp/new of=/dev/md0 bs=4k skip=1 seek=245 count=1 oflag=direct \
	status=none
log "$(grep -A1 '^md0 ' /proc/mdstat | tail -n 1)"
mark cut
sleep 100
EOF
		vm_fail "boot 1 ($PERSONALITY)"
	[ "$VM_KILLED" = 1 ] || vm_fail "boot 1: the VM was not killed"
}
power_cut

vm_boot --timeout 180 - a b c d j <<'EOF' || vm_fail "$PERSONALITY (boot 2)"
. /test/guest-lib.sh
load_personality
faulty_members a b c d
OFF=$(data_offset /dev/md12)
z4k() { cmp -s "$1" <(head -c 4096 /dev/zero); }
for f in "md12 552 rf" "md11 680 rp"; do
	set -- $f
	blk=$(((OFF + $2) / 8))
	dd if=/dev/$1 of=/tmp/blk bs=4k skip=$blk count=1 iflag=direct \
		status=none || fail "read $1 dev $2"
	z4k /tmp/blk || fail "$1 dev $2 is not zero before the assemble"
	run mdadm --grow /dev/$1 --layout=$3
	dd if=/dev/$1 of=/dev/null bs=4k skip=$blk count=1 iflag=direct \
		status=none 2>/dev/null && fail "$1: $3 fault not taken"
done
# the data went to the log only (no power cut otherwise)
dd if=/dev/md10 of=/tmp/blk bs=4k skip=$(((OFF + 552) / 8)) count=1 \
	iflag=direct status=none || fail "read md10"
z4k /tmp/blk || fail "md10 dev 552 already holds the data before the assemble"
LOGN=$(dmesg | wc -l)
run mdadm --assemble --run /dev/md0 $F "$(disk j)"
L=$(dmesg | tail -n +$((LOGN + 1)))
printf '%s\n' "$L" | grep -E 'md0|md1[0-3]'
check state '[UUUU]' /dev/md0
e12=$(md_sysfs md0 dev-md12/errors)
bb11=$(md_sysfs md0 dev-md11/bad_blocks)
log "md12 errors $e12, md11 bad_blocks: $(echo $bb11)"
report errors12 "$e12"
BAD=
if [ "$PERSONALITY" = raid456 ]; then
	# its recovery puts the data-only stripes back into the log and the
	# stripe cache: no member read at assembly (6.1 r5c_recovery_*())
	printf '%s\n' "$L" | grep -q "md0: read error" &&
		fail "raid456: a read error line at assembly"
	expect_eq "$e12" 0 "raid456: md12 errors after the assemble"
	[ -z "$bb11" ] || fail "raid456: md11 bad_blocks '$bb11'"
	log "raid456: no member read at assembly, nothing counted or recorded"
else
	# every finding first (the data check runs either way), then fail
	bad() { log "NOT AS EXPECTED: $*"; BAD="$BAD; $*"; }
	printf '%s\n' "$L" | grep -q "md0: read error corrected (8 sectors at $((OFF + 552)) on md12)" ||
		bad "no 'read error corrected (8 sectors at $((OFF + 552)) on md12)'"
	[ "$e12" = 8 ] || bad "md12 errors $e12, expected 8"
	if dd if=/dev/md12 of=/tmp/blk bs=4k skip=$(((OFF + 552) / 8)) count=1 \
		iflag=direct status=none 2>/dev/null; then
		z4k /tmp/blk || bad "md12 dev 552 was rewritten with other than zeros"
	else
		bad "md12 dev 552 still unreadable"
	fi
	printf '%s\n' "$L" | grep -q "md0: read error NOT corrected!! (sector $((OFF + 680)) on md11)" ||
		bad "no 'read error NOT corrected!! (sector $((OFF + 680)) on md11)'"
	echo "$bb11" | grep -qx "$((OFF + 680)) 8" ||
		bad "md11: $((OFF + 680)) not in bad_blocks '$(echo $bb11)'"
	[ -n "$BAD" ] ||
		pass "read errors of the recovery corrected / recorded, members kept"
fi

# A destage read at run time, write-back: blocks 15-31 (68K, one write)
# cover row 15's first two data blocks (md10, md11 dev 120), so its
# destage reads md12 dev 120 (rcw: one read; rmw would read three); that
# read fails (rf).  The switch to write-through destages every stripe
# (raid5j; raid456 6.1 keeps its cache: its outcome asserted).
JM=/sys/block/md0/md/journal_mode
echo write-back > $JM || fail "write-back refused"
expect_eq "$(cat $JM)" "write-through [write-back]" "journal_mode"
blk=$(((OFF + 120) / 8))
run mdadm --grow /dev/md12 --layout=rf
dd if=/dev/md12 of=/dev/null bs=4k skip=$blk count=1 iflag=direct \
	status=none 2>/dev/null && fail "md12: rf fault not taken"
head -c 69632 /dev/urandom > /tmp/wb
LOGN=$(dmesg | wc -l)
run dd if=/tmp/wb of=/dev/md0 bs=4k seek=15 count=17 oflag=direct status=none
echo write-through > $JM || fail "write-through refused"
L=$(dmesg | tail -n +$((LOGN + 1)))
printf '%s\n' "$L" | grep -E 'md0|md1[0-3]'
check state '[UUUU]' /dev/md0
e12=$(md_sysfs md0 dev-md12/errors)
report errors12wb "$e12"
log "destage: md12 errors $e12"
if [ "$PERSONALITY" = raid456 ]; then
	# 6.1: the mode switch does not destage the cache (no member read)
	printf '%s\n' "$L" | grep -q "md0: read error" &&
		fail "raid456: a read error line at the switch"
	expect_eq "$e12" 0 "raid456: md12 errors after the switch"
	log "raid456: the switch to write-through read no member"
else
	printf '%s\n' "$L" | grep -q "md0: read error corrected (8 sectors at $((OFF + 120)) on md12)" ||
		fail "no 'read error corrected (8 sectors at $((OFF + 120)) on md12)' (destage)"
	expect_eq "$e12" 16 "md12 errors after the destage"
	dd if=/dev/md12 of=/dev/null bs=4k skip=$blk count=1 iflag=direct \
		status=none || fail "md12 dev 120 still unreadable after the destage"
	pass "write-back destage read error corrected, member kept"
fi

seq -w 1 100000 | head -c 8192 > /tmp/new	# as boot 1 wrote it
same() {	# same BLOCK FILE FILE_BLOCK: array 4K block BLOCK is FILE's
	cmp -s <(dd if=/dev/md0 bs=4k skip=$1 count=1 iflag=direct status=none) \
		<(dd if=$2 bs=4k skip=$3 count=1 status=none)
}
same 197 /tmp/new 0 || fail "array block 197: not the written data"
same 245 /tmp/new 1 || fail "array block 245: not the written data"
head -c 2097152 /dev/zero > /tmp/exp
dd if=/tmp/wb of=/tmp/exp bs=4k seek=15 count=17 conv=notrunc status=none
dd if=/tmp/new of=/tmp/exp bs=4k seek=197 count=1 conv=notrunc status=none
dd if=/tmp/new of=/tmp/exp bs=4k skip=1 seek=245 count=1 conv=notrunc status=none
cmp /tmp/exp <(dd if=/dev/md0 bs=64k count=32 iflag=direct status=none) ||
	fail "array 0-2M differs"
check state '[UUUU]' /dev/md0
echo check > /sys/block/md0/md/sync_action
wait_sync /dev/md0
expect_eq "$(cat /sys/block/md0/md/mismatch_cnt)" 0 "mismatch_cnt"
log "data verified, mismatch_cnt 0; md12 errors $(md_sysfs md0 dev-md12/errors), md11 bad_blocks $(echo $(md_sysfs md0 dev-md11/bad_blocks))"
report errors12end "$(md_sysfs md0 dev-md12/errors)"
[ -z "$BAD" ] || fail "${BAD#; }"
pass "t-journal-replay-read-error"
run mdadm --stop /dev/md0
check dmesg
EOF

# ---- boots 3, 4: md13 missing, so row 4 cannot be rebuilt ---------------
power_cut
vm_boot --timeout 180 - a b c d j <<'EOF' || vm_fail "$PERSONALITY (boot 4)"
. /test/guest-lib.sh
load_personality
faulty_members a b c d
OFF=$(data_offset /dev/md12)
blk=$(((OFF + 552) / 8))
run mdadm --grow /dev/md12 --layout=rf
dd if=/dev/md12 of=/dev/null bs=4k skip=$blk count=1 iflag=direct \
	status=none 2>/dev/null && fail "md12: rf fault not taken"
LOGN=$(dmesg | wc -l)
if [ "$PERSONALITY" = raid456 ]; then
	# 6.1: r5c_recovery_flush_data_only_stripes() waits for a stripe
	# whose destage fails: the assembly never returns
	mdadm --assemble --run /dev/md0 /dev/md10 /dev/md11 /dev/md12 "$(disk j)" &
	apid=$!
	for t in $(seq 60); do
		kill -0 $apid 2>/dev/null || break
		sleep 0.5
	done
	L=$(dmesg | tail -n +$((LOGN + 1)))
	printf '%s\n' "$L" | grep -E 'md0|md1[0-3]'
	kill -0 $apid 2>/dev/null ||
		fail "raid456: the assembly returned (recorded as hanging)"
	printf '%s\n' "$L" | grep -q "md0: read error not correctable (sector $((OFF + 552)) on md12)" ||
		fail "raid456: no 'read error not correctable' line"
	report assemble hang
	log "raid456: the assembly hangs (mdadm still running after 30 s)"
	pass "raid456: the degraded recovery hangs on the stripe it cannot destage"
	# init's clean shutdown would wait on the hung array: power off here
	dmesg | tail -n +$((LOGN + 1))
	result "DONE 0"
	echo o > /proc/sysrq-trigger
	sleep 60
fi
run mdadm --assemble --run /dev/md0 /dev/md10 /dev/md11 /dev/md12 "$(disk j)"
L=$(dmesg | tail -n +$((LOGN + 1)))
printf '%s\n' "$L" | grep -E 'md0|md1[0-3]'
check state '[UUU_]' /dev/md0
st=$(cat /sys/block/md0/md/array_state)
bb12=$(md_sysfs md0 dev-md12/bad_blocks)
log "degraded: array_state $st, md12 bad_blocks: $(echo $bb12)"
seq -w 1 100000 | head -c 8192 > /tmp/new
head -c 2097152 /dev/zero > /tmp/exp
dd if=/tmp/new of=/tmp/exp bs=4k seek=197 count=1 conv=notrunc status=none
dd if=/tmp/new of=/tmp/exp bs=4k skip=1 seek=245 count=1 conv=notrunc status=none
rd229() {
	dd if=/dev/md0 of=/tmp/b229 bs=4k skip=229 count=1 iflag=direct \
		status=none 2>/dev/null
}
printf '%s\n' "$L" | grep -q "md0: read error not correctable (sector $((OFF + 552)) on md12)" ||
	fail "no 'read error not correctable (sector $((OFF + 552)) on md12)'"
echo "$bb12" | grep -qx "$((OFF + 552)) 8" ||
	fail "md12: $((OFF + 552)) not in bad_blocks '$(echo $bb12)'"
case $st in clean|active) ;; *) fail "array_state '$st'" ;; esac
rd229 && fail "array block 229 (lost) read without error"
cmp <(head -c 937984 /tmp/exp) \
	<(dd if=/dev/md0 bs=4k count=229 iflag=direct status=none) ||
	fail "array blocks 0-228 differ"
cmp <(tail -c +937985 /tmp/exp | tail -c +4097) \
	<(dd if=/dev/md0 bs=4k skip=230 count=282 iflag=direct status=none) ||
	fail "array blocks 230-511 differ"
log "degraded: every block but 229 verified"
pass "degraded: the unrebuildable block recorded, the rest destaged"
run mdadm --stop /dev/md0
check dmesg
EOF
echo "PASS $VM_TEST"
