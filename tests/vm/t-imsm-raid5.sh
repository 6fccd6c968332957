#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-imsm-raid5: a RAID5 volume in an external-metadata container (IMSM;
# META=ddf for DDF, t-ddf-raid5), run by mdmon, under the personality.
#
#   boot 1: container of d0-d3 (IMSM_NO_PLATFORM=1, device names as
#      serials), a RAID5 volume in it (64K chunk, 16 MiB a member);
#      mdmon runs; NBLK stamped blocks (gen 1).
#      Blocked: mdmon stopped (SIGSTOP), d1 failed: a write to the volume
#      does not complete.  Then "active" is written to array_state (what
#      mdmon writes for an earlier write-pending, which clears md core's
#      pending flag): under raid5j the write still waits, since d1 is
#      Blocked until mdmon has recorded its failure; under raid456 this
#      is only reported (its handle_stripe() checks Blocked on working
#      members only).  mdmon continued: the write completes, the metadata
#      on d0 records the failure (mdadm --examine), d1 leaves the volume.
#      Degraded writes (gen 2); e added to the container: mdmon rebuilds
#      onto it; check: mismatch_cnt 0; gen 1 and gen 2 read back.
#      Power cut: "stamp write" (8 writers) runs, qemu is killed 2 s in.
#   boot 2: the container (d0 d2 d3 e, under the same names) assembled, the volume started by
#      mdadm --incremental, mdmon resyncs what the dirty shutdown left;
#      check: mismatch_cnt 0; the volume copied out; on the host, every
#      acknowledged block holds its last acknowledged stamp (stamp check).

. "$(dirname "$0")/lib.sh"

META=${META:-imsm}	# t-ddf-raid5 sets ddf
# 1: e is a spare of the container from the start (mdmon rebuilds onto it
# at the failure) instead of added after it (mdadm 4.2 crashes adding a
# spare to a DDF container)
SPARE_AT_CREATE=${SPARE_AT_CREATE:-0}
NBLK=${NBLK:-100}
vm_stamp
vm_disks 64M d0 d1 d2 d3 e
vm_disk dump 64M
: > "$BUILD/vm-logs/$VM_TEST.acks"

vm_boot --timeout 300 --kill-mark cut --kill-after 2 --env META="$META" \
	--env NBLK="$NBLK" --env SPARE_AT_CREATE="$SPARE_AT_CREATE" \
	- d0 d1 d2 d3 e <<'EOF'
. /test/guest-lib.sh
load_personality
export IMSM_NO_PLATFORM=1 IMSM_DEVNAME_AS_SERIAL=1 MDADM_NO_SYSTEMCTL=1
mkdir -p /run/mdadm
fast_sync
# failure_recorded < EXAMINE: mdadm --examine shows a member failed
failure_recorded() {
	case $META in
	imsm) grep -Eq 'Map State : degraded' ;;
	*) grep -Eq 'Failed|failed|degraded' ;;
	esac
}
if [ "$SPARE_AT_CREATE" = 1 ]; then
	run mdadm --create /dev/md/cont -e "$META" -n 5 --run $(disks d0 d1 d2 d3 e)
	run mdadm --create /dev/md/vol -l 5 -n 4 --chunk=64 --size=16M \
		--assume-clean --run $(disks d0 d1 d2 d3)
else
	run mdadm --create /dev/md/cont -e "$META" -n 4 --run $(disks d0 d1 d2 d3)
	run mdadm --create /dev/md/vol -l 5 -n 4 --chunk=64 --size=16M \
		--assume-clean --run /dev/md/cont
fi
V=/dev/$(basename "$(readlink -f /dev/md/vol)")
C=$(basename "$(readlink -f /dev/md/cont)")
S=/sys/block/$(basename $V)/md
cat /proc/mdstat
expect_eq "$(cat $S/level)" raid5 "$V md/level"
check personality
expect_eq "$(cat $S/metadata_version)" "external:/$C/0" "metadata_version"
pidf=/run/mdadm/$C.pid
t=0
until [ -s $pidf ]; do
	t=$((t + 1)); [ $t -le 50 ] || fail "no mdmon for $C"; sleep 0.1
done
MDMON=$(cat $pidf)
[ -d /proc/$MDMON ] || fail "mdmon $MDMON not running"
say "mdmon pid $MDMON for $C, volume $V ($(cat $S/array_state))"
report blocks $(( $(blockdev --getsize64 $V) / 4096 ))
run /test/stamp put $V 0 12 "$NBLK" 1
mdadm -E $(disk d0) > /tmp/exam0
cat /tmp/exam0
failure_recorded < /tmp/exam0 && fail "metadata records a failure before any"

# ---- a member fails while mdmon cannot record it ----
D1=$(basename $(disk d1))
kill -STOP $MDMON
echo faulty > $S/dev-$D1/state || fail "cannot fail $D1"
say "$D1 state: $(cat $S/dev-$D1/state); array_state $(cat $S/array_state)"
dd if=/dev/zero of=$V bs=4K count=1 seek=2000 oflag=direct 2>/dev/null &
ddpid=$!
sleep 2
[ -d /proc/$ddpid ] || fail "a write completed while mdmon had not seen the failure"
echo active > $S/array_state
say "after 'active' > array_state: $D1 $(cat $S/dev-$D1/state); array_state $(cat $S/array_state)"
sleep 3
if [ -d /proc/$ddpid ]; then
	say "write still held after the pending flag was cleared ($D1 Blocked)"
elif [ "$PERSONALITY" = raid5j ]; then
	kill -CONT $MDMON
	fail "a write completed while $D1 was Blocked (mdmon had not recorded its failure)"
else
	say "$PERSONALITY completed the write while $D1 was Blocked (recorded, not asserted)"
fi
kill -CONT $MDMON
wait $ddpid || fail "the held write failed"
say "$D1 state after mdmon ran: $(cat $S/dev-$D1/state 2>/dev/null || echo removed)"
t=0
until mdadm -E $(disk d0) | failure_recorded; do
	t=$((t + 1)); [ $t -le 100 ] || fail "mdmon did not record the failure"
	sleep 0.1
done
mdadm -E $(disk d0)
t=0
while [ -e $S/dev-$D1 ]; do
	t=$((t + 1)); [ $t -le 100 ] || fail "$D1 still in the volume 10 s after its failure"
	sleep 0.1
done
[ "$SPARE_AT_CREATE" = 1 ] || check degraded 1 $V
pass "$R5J_TEST/fail-recorded"

run /test/stamp put $V 6 12 "$NBLK" 2
mdadm /dev/md/cont --remove $(disk d1) 2>/dev/null
mdadm --zero-superblock $(disk d1) 2>/dev/null
[ "$SPARE_AT_CREATE" = 1 ] || run mdadm /dev/md/cont --add $(disk e)
t=0
until grep -A3 "^$(basename $V) " /proc/mdstat | grep -q recovery; do
	t=$((t + 1))
	grep -A2 "^$(basename $V) " /proc/mdstat | grep -q '\[UUUU\]' && break
	[ $t -le 300 ] || fail "no rebuild onto the spare: $(tr '\n' ' ' < /proc/mdstat)"
	sleep 0.1
done
wait_sync $V
cat /proc/mdstat
check state '[UUUU]' $V
check mismatch $V 0
/test/stamp get $V 0 12 "$NBLK" 1 | tail -n 1 > /tmp/g1
/test/stamp get $V 6 12 "$NBLK" 2 | tail -n 1 > /tmp/g2
expect_eq "$(cat /tmp/g1)" "stamp get: ok $NBLK eio 0 stale 0 garbage 0" "gen 1 after rebuild"
expect_eq "$(cat /tmp/g2)" "stamp get: ok $NBLK eio 0 stale 0 garbage 0" "gen 2 after rebuild"
pass "$R5J_TEST/rebuilt"

# ---- power cut mid-write ----
blocks=$(( $(blockdev --getsize64 $V) / 4096 ))
mark cut
/test/stamp write $V $blocks 48 8 60 "$R5J_RESULT_PORT" 1000
fail "the writer ran to its end: the power cut did not come"
EOF
[ "$VM_KILLED" = 1 ] || vm_fail "boot 1 not killed: $(vm_result "^FAIL" | head -n 1)"
vm_result '^PASS' | grep -q rebuilt || vm_fail "boot 1 did not reach the power cut"
BLOCKS=$(vm_val blocks)
grep '^A ' "$VM_RESULTS" > "$BUILD/vm-logs/$VM_TEST.acks"
vm_log "power cut: $(wc -l < "$BUILD/vm-logs/$VM_TEST.acks") writes acknowledged"

# d1 (zeroed) stays attached: the serials are the device names (vdX)
vm_boot --timeout 240 --env META="$META" - d0 d1 d2 d3 e dump <<'EOF' || vm_fail "boot 2"
. /test/guest-lib.sh
load_personality
export IMSM_NO_PLATFORM=1 IMSM_DEVNAME_AS_SERIAL=1 MDADM_NO_SYSTEMCTL=1
mkdir -p /run/mdadm
fast_sync
run mdadm --assemble /dev/md/cont $(disks d0 d2 d3 e)
run mdadm --incremental /dev/md/cont
cat /proc/mdstat
V=/dev/$(awk '/^md[0-9]+ : .* raid5 / {print $1; exit}' /proc/mdstat)
ls -l /dev/md/
expect_eq "$(md_sysfs $V level)" raid5 "$V md/level"
check personality
say "after the power cut: $(grep -A2 "^$(basename $V) " /proc/mdstat | tr '\n' ' ')"
wait_sync $V
check state '[UUUU]' $V
check mismatch $V 0
dd if=$V of=$(disk dump) bs=1M 2>/dev/null || fail "copying the volume failed"
sync
run mdadm --stop $V
run mdadm --stop /dev/md/cont
pass "$R5J_TEST/reassembled"
EOF
vm_stamp_check "$(vm_disk_path dump)" "$BLOCKS" "$BUILD/vm-logs/$VM_TEST.acks" ||
	vm_fail "acknowledged writes lost over the power cut"
exit 0
