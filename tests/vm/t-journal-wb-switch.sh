#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-switch: journal_mode switched write-back <-> write-through
# under load, and a power cut right after a switch.
#
#	  d0    d1    d2    d3        j           dump
#	   \     \    /     /         |  journal   (restart boots copy the
#	    +-----+--+-----+----------+            array here; the host
#	    |   /dev/md0  RAID5, 4 x 32 MiB,      checks it)
#	    |   16K chunk, --write-journal=j
#	    +------------------------------
#
# boot 1: fio writes 48 MiB at random (4K..64K, O_DIRECT, qd 8) verifying
#         as it goes (verify_backlog) while journal_mode is switched every
#         0.3 s, each switch checked in md/journal_mode; then a second,
#         read-only verify pass over everything fio wrote; then "check":
#         mismatch_cnt 0 (the last switch was to write-through); the
#         array is zeroed for the cycles' checker.
# Each cycle:
#   boot A: write-back on; "stamp write" (8 writers, each acknowledgement
#           sent to the host at once) while journal_mode is switched
#           SWITCHES times (3..6); the last switch is to write-back on odd
#           cycles, to write-through on even ones (which returns only once
#           every dirty stripe is on the members); the host cuts the power
#           50 ms after that last switch returned (to write-through), or
#           500 ms after (to write-back: the switch flushed everything, so
#           the cut must leave time for write-back writes after it).  Every disk sits
#           behind a volatile write cache (VM_NBD_CACHE=1): what was
#           neither flushed nor FUA is lost at the cut, so the switch to
#           write-through must flush the destaged members before it
#           lets the log forget their data.
#   boot B: assemble (all members, no --force), copy the array to dump,
#           "check": mismatch_cnt 0.  Host: every acknowledged block holds
#           its last acknowledged generation or a later one.
# CYCLES (default 2).  Disks: 4 x 32 MiB + 8 MiB journal + 128 MiB dump.

. "$(dirname "$0")/lib.sh"

CYCLES=${CYCLES:-2}
vm_stamp
vm_disks 32M d0 d1 d2 d3
vm_disk j 8M
vm_disk dump 128M

vm_boot --timeout 400 - d0 d1 d2 d3 j <<'EOF' || vm_fail "boot 1 (fio while switching) failed"
. /test/guest-lib.sh
load_personality
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=16 \
	--assume-clean --write-journal=$(disk j) $(disks d0 d1 d2 d3)
report blocks $(( $(blockdev --getsize64 /dev/md0) / 4096 ))
journal_mode write-back
switcher() {
	local i=0 m
	while [ ! -e /tmp/stop ]; do
		sleep 0.3
		i=$((i + 1))
		m=write-through
		[ $((i % 2)) = 0 ] && m=write-back
		journal_mode $m
		echo $i > /tmp/switches
	done
	[ "$m" = write-back ] && journal_mode write-through
	echo $((i + 1)) > /tmp/switches
}
switcher &
sw=$!
F="--rw=randwrite --bsrange=4k-64k --size=48M --offset=1M --iodepth=8"
fio_verify sw /dev/md0 $F --verify_backlog=64
touch /tmp/stop
wait $sw || fail "the switcher failed"
n=$(cat /tmp/switches)
say "$n switches during fio"
[ "$n" -ge 4 ] || fail "only $n mode switches during fio"
report switches $n
grep -q '\[write-through\]' /sys/block/md0/md/journal_mode || fail "not in write-through at the end"
fio_verify sw /dev/md0 $F --verify_only
check mismatch /dev/md0
# the power-cut cycles' checker takes any block that is neither zero nor
# one of its stamps for garbage
dd if=/dev/zero of=/dev/md0 bs=1M oflag=direct 2>/dev/null
run mdadm --stop /dev/md0
pass "fio while switching"
EOF
BLOCKS=$(vm_val blocks)
[ -n "$BLOCKS" ] || vm_fail "no array size"
echo "boot 1: fio verified while switching $(vm_val switches) times, verify pass and mismatch_cnt 0 after"
: > "$BUILD/vm-logs/$VM_TEST.acks"

for cycle in $(seq 1 "$CYCLES"); do
	if [ $((cycle % 2)) = 1 ]; then
		last=write-back switches=$((4 + 2 * (RANDOM % 2))) cut=0.5
	else
		last=write-through switches=$((3 + 2 * (RANDOM % 2))) cut=0.05
	fi
	VM_NBD_CACHE=1 vm_boot --timeout 240 --kill-mark switched --kill-after $cut \
		--env BLOCKS="$BLOCKS" --env GEN_BASE=$((cycle * 1000000000)) \
		--env SWITCHES=$switches - d0 d1 d2 d3 j <<'EOF'
. /test/guest-lib.sh
load_personality
run mdadm --assemble /dev/md0 $(disks d0 d1 d2 d3) $(disk j)
journal_mode write-back
# stamp holds the result port open (a second opener gets EBUSY): the
# switcher's mark and stamp's acknowledgements share it through a FIFO.
mkfifo /tmp/res
cat /tmp/res > "$R5J_RESULT_PORT" &
exec 3> /tmp/res
R5J_RESULT_PORT=/tmp/res
(
	i=0
	while [ $i -lt "$SWITCHES" ]; do
		sleep 0.5
		i=$((i + 1))
		m=write-through
		[ $((i % 2)) = 0 ] && m=write-back
		journal_mode $m
	done
	mark switched
) &
mark writing
/test/stamp write /dev/md0 "$BLOCKS" 12 8 60 "$R5J_RESULT_PORT" "$GEN_BASE"
fail "the writer ran to its end: the power cut did not come"
EOF
	[ "$VM_KILLED" = 1 ] || vm_fail "cycle $cycle: the VM was not killed"
	vm_result '^MARK switched' > /dev/null ||
		vm_fail "cycle $cycle: killed before the last switch"
	grep '^A ' "$VM_RESULTS" >> "$BUILD/vm-logs/$VM_TEST.acks"
	acks=$(grep -c '^A ' "$VM_RESULTS")
	echo "cycle $cycle: $switches switches, power cut ${cut}s after the one to $last, $acks writes acknowledged"

	VM_NBD_CACHE=1 vm_boot --timeout 240 - d0 d1 d2 d3 j dump <<'EOF' ||
		vm_fail "cycle $cycle: restart failed"
. /test/guest-lib.sh
load_personality
run mdadm --assemble --run /dev/md0 $(disks d0 d1 d2 d3) $(disk j)
check state '[4/4]' /dev/md0
dmesg | grep -E 'journal:|r5l|recover' | tail -3
grep -q resync /proc/mdstat && fail "a resync started despite the journal"
dd if=/dev/md0 of=$(disk dump) bs=1M 2>/dev/null || fail "copying the array failed"
sync
fast_sync
check mismatch /dev/md0
run mdadm --stop /dev/md0
pass restart
EOF
	vm_stamp_check "$(vm_disk_path dump)" "$BLOCKS" "$BUILD/vm-logs/$VM_TEST.acks" ||
		vm_fail "cycle $cycle: acknowledged data lost or garbage after a cut right after a switch to $last"
	echo "cycle $cycle: every acknowledged block intact, mismatch_cnt 0"
done
echo "PASS $VM_TEST: fio while switching, $CYCLES power cuts right after a switch"
exit 0
