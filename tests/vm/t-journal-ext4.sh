#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-ext4: a filesystem on a journaled array survives power cuts.
#
#	  d0    d1    d2    d3        j
#	   \     \    /     /         |  journal
#	    +-----+--+-----+----------+
#	    |  /dev/md0  RAID5 4 x 48 MiB, 64K chunk  |  ext4
#	    +--------------------------------------------
#
# Each cycle: 4 writers create files (content: seq 1..N), each fsync'd
# (dd conv=fsync); every fsync'd file is acknowledged on the result port;
# the VM is killed 3-7 s in.  Restart WITHOUT a member (a different one
# each cycle): the array starts (journal replay, no --force); e2fsck -fn
# finds the filesystem clean, before and after ext4's own journal replay
# (the read-only mount); every acknowledged file is there, intact.
# Then the member is re-added and rebuilt; check: mismatch_cnt 0.
#
# Disks: 4 x 48 MiB + 16 MiB journal.  CYCLES (default 2).  Boots: 1+2/cycle.
#
# JMODE=write-back switches the journal to write-back after each writing
# boot's assembly (t-journal-wb-ext4): fsync returns once the data is in
# the log, the members lag behind.  MISSING=even restarts without a member
# on even cycles only (odd cycles restart whole, then "check" must count
# mismatch_cnt 0), MISSING=none never; the default restarts degraded every
# cycle.

. "$(dirname "$0")/lib.sh"

CYCLES=${CYCLES:-2}
JMODE=${JMODE:-write-through}
MISSING=${MISSING:-all}
vm_disks 48M d0 d1 d2 d3
vm_disk j 16M

vm_boot --timeout 120 - d0 d1 d2 d3 j <<'EOF' || vm_fail "create failed"
. /test/guest-lib.sh
load_personality
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=64 \
	--assume-clean --write-journal=$(disk j) $(disks d0 d1 d2 d3)
run mkfs.ext4 -q -F /dev/md0
run mdadm --stop /dev/md0
pass create
EOF

for cycle in $(seq 1 "$CYCLES"); do
	missing=d$(( (cycle - 1) % 4 ))
	[ "$MISSING" = even ] && [ $((cycle % 2)) = 1 ] && missing=none
	[ "$MISSING" = none ] && missing=none
	kill_ms=$(( 3000 + RANDOM % 4000 ))
	vm_boot --timeout 120 --kill-mark writing \
		--kill-after "$(printf '%d.%03d' $((kill_ms / 1000)) $((kill_ms % 1000)))" \
		--env CYCLE="$cycle" --env JMODE="$JMODE" - d0 d1 d2 d3 j <<'EOF'
. /test/guest-lib.sh
load_personality
run mdadm --assemble /dev/md0 $(disks d0 d1 d2 d3) $(disk j)
[ "$JMODE" = write-back ] && journal_mode write-back
mkdir -p /mnt
run mount -t ext4 /dev/md0 /mnt
mkdir -p /mnt/c$CYCLE
writer() {
	local w=$1 i=0 n
	while :; do
		i=$((i + 1))
		n=$(( (i * 7919 + w * 131) % 20000 + 1 ))
		seq 1 $n | dd of=/mnt/c$CYCLE/w$w-$i conv=fsync 2>/dev/null || exit 1
		echo "F c$CYCLE/w$w-$i $n" > "$R5J_RESULT_PORT"
	done
}
mark writing
for w in 1 2 3 4; do writer $w & done
wait
fail "the writers stopped before the power cut"
EOF
	[ "$VM_KILLED" = 1 ] || vm_fail "cycle $cycle: the VM was not killed"
	grep '^F ' "$VM_RESULTS" > "$BUILD/vm-logs/$VM_TEST.c$cycle.files"
	nfiles=$(wc -l < "$BUILD/vm-logs/$VM_TEST.c$cycle.files")
	echo "cycle $cycle: power cut after $kill_ms ms, $nfiles files fsync'd; restarting without $missing"
	[ "$nfiles" -gt 0 ] || vm_fail "cycle $cycle: no file was fsync'd"
	cp "$BUILD/vm-logs/$VM_TEST.c$cycle.files" "$BUILD/ext4-files.txt"

	VM_FILES="$BUILD/ext4-files.txt" vm_boot --timeout 240 \
		--env MISSING="$missing" - d0 d1 d2 d3 j <<'EOF' ||
. /test/guest-lib.sh
load_personality
members=
for d in d0 d1 d2 d3; do
	[ "$d" = "$MISSING" ] || members="$members $(disk $d)"
done
run mdadm --assemble --run /dev/md0 $members $(disk j)
if [ "$MISSING" = none ]; then
	check state '[4/4]' /dev/md0
else
	check state '[4/3]' /dev/md0
fi
dmesg | grep 'journal:' | tail -1
e2fsck -fn /dev/md0 > /tmp/fsck.out 2>&1 || { cat /tmp/fsck.out; fail "e2fsck -fn found damage"; }
tail -2 /tmp/fsck.out
mkdir -p /mnt
run mount -t ext4 -o ro /dev/md0 /mnt
bad=0 n=0
while read -r tag f len; do
	n=$((n + 1))
	if ! seq 1 "$len" | cmp -s - "/mnt/$f"; then
		bad=$((bad + 1))
		say "fsync'd file $f is missing or damaged"
	fi
done < /test/ext4-files.txt
report checked $n
umount /mnt
# the first e2fsck -n saw the file system before ext4's journal replay
# (the mount did it): check what the replay left too
e2fsck -fn /dev/md0 > /tmp/fsck.out 2>&1 || { cat /tmp/fsck.out; fail "e2fsck -fn after the journal replay found damage"; }
[ $bad = 0 ] || fail "$bad of $n fsync'd files missing or damaged"
if [ "$MISSING" != none ]; then
	run mdadm /dev/md0 --add $(disk $MISSING)
	fast_sync
	wait_sync /dev/md0
	check state '[4/4]' /dev/md0
fi
check mismatch /dev/md0
run mdadm --stop /dev/md0
pass restart
EOF
		vm_fail "cycle $cycle: restart/verify failed"
	echo "cycle $cycle: $(vm_val checked) fsync'd files intact, e2fsck clean, mismatch_cnt 0"
done
echo "PASS $VM_TEST: $CYCLES power cuts"
exit 0
