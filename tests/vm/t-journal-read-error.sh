#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-read-error: the journal device cannot be read when the array
# is assembled (a read error on the journal itself fails the journal;
# member read errors in recovery are t-journal-replay-read-error).
#	RAID5 (4 x 16M, 64K chunk) with a write journal on dm-linear "jdm";
#	1M of data written, the array stopped; jdm's table then fails every
#	read past the journal's data offset (dm "error"; the superblock
#	stays readable); assemble.
# raid5j: "journal: cannot read the log", "journal recovery failed (-5):
# array is read-only, the journal is left as it was"; the array is
# read-only with every member in it ([UUUU]), the 1M reads back, a write
# fails; jdm linear again: the log area is exactly as before; a stop and
# assemble recovers, the data reads back and a write succeeds.
# raid456 (6.1): the array runs read-write without the journal and says
# nothing (r5l_start() drops the log when its first block cannot be read;
# md core ignores the error); the next assembly with a readable journal
# replays that old log ("recovering 0 data-only stripes and 8
# data-parity stripes"), over anything written in between (asserted:
# read-write, no journal line).
# Disks: 5 x 16 MiB.  Boots: 1.  ~30 s.

. "$(dirname "$0")/lib.sh"

vm_disks 16M a b c d j

vm_boot --timeout 180 - a b c d j <<'EOF' || vm_fail "$PERSONALITY"
. /test/guest-lib.sh
load_personality
modprobe dm-mod 2>/dev/null
M=$(disks a b c d)
J=$(disk j)
jsz=$(blockdev --getsz $J)
run dmsetup create jdm --table "0 $jsz linear $J 0"
run mdadm --create /dev/md0 --run --level=5 --chunk=64 --raid-devices=4 \
	--assume-clean --write-journal /dev/mapper/jdm $M
check raid5 /dev/md0
dd if=/dev/urandom of=/tmp/data bs=64k count=16 status=none
run dd if=/tmp/data of=/dev/md0 bs=64k oflag=direct status=none
run mdadm --stop /dev/md0
JOFF=$(mdadm --examine /dev/mapper/jdm |
	sed -n 's/^ *Data Offset : \([0-9]*\) sectors.*/\1/p')
[ -n "$JOFF" ] || fail "no data offset on the journal"
log "journal data offset $JOFF of $jsz sectors"
dd if=$J of=/tmp/log bs=512 skip=$JOFF status=none || fail "read the log"

printf '0 %s linear %s 0\n%s %s error\n' $JOFF $J $JOFF $((jsz - JOFF)) |
	dmsetup load jdm || fail "dmsetup load"
run dmsetup suspend jdm
run dmsetup resume jdm
dd if=/dev/mapper/jdm of=/dev/null bs=512 skip=$JOFF count=8 iflag=direct \
	status=none 2>/dev/null && fail "the log area is still readable"
LOGN=$(dmesg | wc -l)
mdadm --assemble --run /dev/md0 $M /dev/mapper/jdm
rc=$?
L=$(dmesg | tail -n +$((LOGN + 1)))
printf '%s\n' "$L" | grep -E 'md0|jdm|dm-'
st=$(cat /sys/block/md0/md/array_state 2>/dev/null)
log "assemble rc $rc, array_state '$st'"
grep -A2 '^md0 ' /proc/mdstat
report state "$st"
if [ "$PERSONALITY" = raid5j ]; then
	printf '%s\n' "$L" | grep -q "md0: journal: cannot read the log" ||
		fail "no 'journal: cannot read the log' line"
	printf '%s\n' "$L" | grep -q "md0: journal recovery failed (-5): array is read-only, the journal is left as it was" ||
		fail "no 'journal recovery failed (-5)' line"
	expect_eq "$st" readonly "array_state"
	check state '[UUUU]' /dev/md0
	cmp /tmp/data <(dd if=/dev/md0 bs=64k count=16 iflag=direct \
		status=none) || fail "data differs on the read-only array"
	dd if=/tmp/data of=/dev/md0 bs=4k count=1 seek=1000 oflag=direct \
		status=none 2>/dev/null && fail "a write to the read-only array succeeded"
	pass "journal unreadable: the array is read-only, members kept"
else
	# 6.1 r5l_start(): r5l_load_log() fails, r5l_exit_log() drops the
	# journal, md core ignores ->start's result: read-write, no journal,
	# not a line in the kernel log
	case $st in clean|active) ;; *) fail "raid456: array_state '$st'" ;; esac
	printf '%s\n' "$L" | grep -q "md0: journal\|md/raid:md0: .*journal" &&
		fail "raid456: a journal line"
	check state '[UUUU]' /dev/md0
	log "raid456: the journal dropped silently, the array read-write"
fi
mdadm --stop /dev/md0
printf '0 %s linear %s 0\n' $jsz $J | dmsetup load jdm || fail "dmsetup load"
run dmsetup suspend jdm
run dmsetup resume jdm
cmp /tmp/log <(dd if=$J bs=512 skip=$JOFF status=none) ||
	fail "the log area changed"
pass "journal left as it was"
run mdadm --assemble --run /dev/md0 $M /dev/mapper/jdm
check state '[UUUU]' /dev/md0
st=$(cat /sys/block/md0/md/array_state)
case $st in clean|active) ;; *) fail "array_state '$st' after the second assemble" ;; esac
cmp /tmp/data <(dd if=/dev/md0 bs=64k count=16 iflag=direct status=none) ||
	fail "data differs after the second assemble"
run dd if=/tmp/data of=/dev/md0 bs=4k count=1 seek=1000 oflag=direct status=none
pass "t-journal-read-error"
run mdadm --stop /dev/md0
check dmesg
EOF
echo "PASS $VM_TEST"
