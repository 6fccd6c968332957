#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-persist: the journal mode survives stop/assemble, reboot
# and a power cut with no user step (Documentation/journal.md, section 15,
# "Persistence"); the journal stays raid456's.  RAID5, 4 x 32 MiB, 16K
# chunk, 8 MiB journal; the module parameter writeback is left at its
# default (on) except where boot 1 sets it to 0.
#   boot 1  write-back on, 512 KiB written, stop, assemble: write-back;
#           data intact.  Switch to write-through, stop, assemble:
#           write-through.  Write-back again, stop, assemble with
#           writeback=0: write-through and a message saying
#           why.  Write-back again, 512 KiB more, stop.
#   boot 2  raid456 assembles the same journal: write-through (it knows no
#           record), both patterns intact; 512 KiB more; stop.
#   boot 3  assemble: write-through (raid456's blocks record 0).  Switch
#           to write-back, stop.
#   boot 4  (a reboot) assemble: write-back.  512 KiB written and synced
#           (raid5j: dirty stripes left), random writes elsewhere, power
#           cut 1 s into them.
#   boot 5  assemble: recovery (raid5j: data-only stripes destaged), mode
#           write-back, every pattern intact, check: mismatch_cnt 0.
# raid456 (PERSONALITY=raid456) forgets the mode at every assembly: the
# same steps assert write-through after each assembly, and boot 4 switches
# to write-back by hand before the power cut.
# ~2.5 minutes.

. "$(dirname "$0")/lib.sh"

P=$BUILD/vm-data/$VM_TEST
mkdir -p "$P"
for i in 1 2 3 4; do
	head -c 512K /dev/urandom > "$P/pat$i"
done
export VM_FILES="${VM_FILES:+$VM_FILES }$P/pat1 $P/pat2 $P/pat3 $P/pat4"
vm_disks 32M d0 d1 d2 d3
vm_disk j 8M
D="d0 d1 d2 d3 j"

# Guest helpers, sourced by every boot.
cat > "$P/persist-lib.sh" <<'EOF'
JM=/sys/block/md0/md/journal_mode
WT="[write-through] write-back"
WB="write-through [write-back]"
PARAM=/sys/module/raid5j/parameters/writeback
param() { [ "$PERSONALITY" = raid5j ] && echo "$1" > $PARAM; return 0; }
assemble() { run mdadm --assemble /dev/md0 $(disks d0 d1 d2 d3) $(disk j); }
# mode_after_assembly RAID5J_EXPECTS WHAT: raid456 always starts write-through
mode_after_assembly() {
	local want=$1
	[ "$PERSONALITY" = raid5j ] || want=$WT
	expect_eq "$(cat $JM)" "$want" "journal_mode $2"
	say "journal_mode $2: $(cat $JM)"
}
# pat_at N SEEK64K: pattern N reads back at that offset (64 KiB units)
pat_at() {
	run dd if=/dev/md0 of=/tmp/rd bs=64K count=8 skip=$2 iflag=direct
	cmp /test/pat$1 /tmp/rd || fail "pattern $1 lost ($3)"
}
pat_write() { run dd if=/test/pat$1 of=/dev/md0 bs=64K seek=$2 oflag=direct conv=fsync; }
EOF
export VM_FILES="$VM_FILES $P/persist-lib.sh"

vm_boot --timeout 240 - $D <<'EOF2' || vm_fail "boot 1"
. /test/guest-lib.sh
. /test/persist-lib.sh
load_personality
journaled_raid5
echo write-back > $JM || fail "write-back refused"
expect_eq "$(cat $JM)" "$WB" "journal_mode after the switch"
pat_write 1 0
run mdadm --stop /dev/md0
assemble
mode_after_assembly "$WB" "after stop/assemble"
pat_at 1 0 "stop/assemble in write-back"
pass "stop/assemble keeps write-back"

echo write-through > $JM || fail "write-through refused"
run mdadm --stop /dev/md0
assemble
mode_after_assembly "$WT" "after a switch to write-through and stop/assemble"
pass "stop/assemble keeps write-through"

if [ "$PERSONALITY" = raid5j ]; then
	echo write-back > $JM || fail "write-back refused"
	run mdadm --stop /dev/md0
	param 0
	dmesg -C
	assemble
	expect_eq "$(cat $JM)" "$WT" "journal_mode with writeback=0"
	dmesg | grep -q 'the log says write-back, but the module parameter writeback is 0' ||
		fail "no message for a write-back record with writeback=0"
	param 1
	pass "writeback=0: write-through, with a message"
fi
echo write-back > $JM || fail "write-back refused"
pat_write 2 8
run mdadm --stop /dev/md0
scan_dmesg || fail "kernel complained"
pass "boot 1"
EOF2

PERSONALITY=raid456 vm_boot --timeout 180 - $D <<'EOF2' || vm_fail "boot 2 (raid456)"
. /test/guest-lib.sh
. /test/persist-lib.sh
load_personality
assemble
expect_eq "$(cat $JM)" "$WT" "raid456's journal_mode"
pat_at 1 0 "raid456 after raid5j"
pat_at 2 8 "raid456 after raid5j"
pat_write 3 16
run mdadm --stop /dev/md0
scan_dmesg || fail "kernel complained"
pass "raid456 assembles the journal"
EOF2

vm_boot --timeout 180 - $D <<'EOF2' || vm_fail "boot 3"
. /test/guest-lib.sh
. /test/persist-lib.sh
load_personality
assemble
mode_after_assembly "$WT" "after raid456 used the journal"
pat_at 3 16 "back from raid456"
echo write-back > $JM || fail "write-back refused"
run mdadm --stop /dev/md0
scan_dmesg || fail "kernel complained"
pass "back from raid456: write-through"
EOF2

vm_boot --timeout 180 --kill-mark writing --kill-after 1 - $D <<'EOF2' ||
	vm_fail "boot 4"
. /test/guest-lib.sh
. /test/persist-lib.sh
load_personality
assemble
mode_after_assembly "$WB" "after a reboot"
[ "$PERSONALITY" = raid5j ] || echo write-back > $JM || fail "write-back refused"
pat_write 4 24
if [ "$PERSONALITY" = raid5j ]; then
	d=$(jstat dirty_stripes)
	say "dirty_stripes before the power cut: $d"
	[ "${d:-0}" -gt 0 ] || fail "no dirty stripe before the power cut"
fi
mark writing
while :; do
	dd if=/dev/urandom of=/dev/md0 bs=4K count=1 seek=$((2048 + RANDOM % 2048)) \
		oflag=direct 2>/dev/null
done
EOF2
[ "$VM_KILLED" = 1 ] || vm_fail "boot 4: the VM was not killed"

vm_boot --timeout 240 - $D <<'EOF2' || vm_fail "boot 5"
. /test/guest-lib.sh
. /test/persist-lib.sh
load_personality
assemble
dmesg | grep -E 'journal|r5l|recover' | tail -4
mode_after_assembly "$WB" "after a power cut in write-back"
if [ "$PERSONALITY" = raid5j ]; then
	r=$(jstat recovered_wb_stripes)
	say "recovered_wb_stripes $r"
	[ "${r:-0}" -gt 0 ] || fail "recovery destaged no write-back stripe"
fi
pat_at 1 0 "power cut"
pat_at 2 8 "power cut"
pat_at 3 16 "power cut"
pat_at 4 24 "power cut"
fast_sync
echo check > /sys/block/md0/md/sync_action
wait_sync /dev/md0
expect_eq "$(cat /sys/block/md0/md/mismatch_cnt)" 0 "mismatch_cnt after the power cut"
run mdadm --stop /dev/md0
scan_dmesg || fail "kernel complained"
pass "power cut in write-back: recovered, mode kept"
EOF2
echo "PASS $VM_TEST"
exit 0
