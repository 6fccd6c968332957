#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-to-resync: consistency_policy journal -> resync, the way an
# array whose journal died or went missing gets writes back without a new
# journal device (md/consistency_policy, as raid456).
#
#   boot 1, A: RAID5 d0-d3 (32 MiB, 16K chunk), journal on dm "jdm",
#      write-back; NBLK stamped blocks (gen 1).  "resync" and "ppl" are
#      refused while the journal works.  The journal dies (dm-error):
#      writes fail, every stamp reads back; "resync" is refused while the
#      failed device is in the array (EBUSY); mdadm --remove takes it out
#      (retried: the dirty data reaches the members first); "resync" is
#      taken: consistency_policy and mdadm --detail say resync; writes
#      work (gen 2 stamps); check: mismatch_cnt 0; every stamp verifies.
#   boot 1, B: RAID5 e0-e3, journal j2 (write-through), gen 1 stamps;
#      stopped, assembled without the journal (--force): read-only,
#      a write fails; "resync" is taken; mdadm --readwrite; gen 2 stamps
#      written; mismatch_cnt 0; every stamp verifies.
#   boot 2: both arrays assemble without --force and without a journal,
#      read-write, policy resync; every stamp of both generations reads
#      back.

. "$(dirname "$0")/lib.sh"

vm_stamp
vm_disks 32M d0 d1 d2 d3 e0 e1 e2 e3
vm_disks 8M j j2
vm_boot --timeout 300 --env NBLK="${NBLK:-100}" - d0 d1 d2 d3 j e0 e1 e2 e3 j2 <<'EOF' || vm_fail "boot 1"
. /test/guest-lib.sh
load_personality
modprobe dm-mod || fail "no dm-mod"
P=/sys/block/md0/md/consistency_policy

# set_policy DEV VALUE: echo VALUE > consistency_policy; the errno's text
set_policy() {
	( echo "$2" > "/sys/block/$1/md/consistency_policy" ) 2>&1
}

# writes_after_switch MD LABEL: mdadm --detail says resync, generation 2
# written, check counts 0, both generations read back; MD stopped
writes_after_switch() {
	local md=/dev/$1
	mdadm --detail $md | grep -E 'State :|Consistency Policy|journal'
	mdadm --detail $md | grep -q 'Consistency Policy : resync' ||
		fail "mdadm --detail does not say resync ($1)"
	run /test/stamp put $md 6 12 "$NBLK" 2
	check mismatch $md 0
	/test/stamp get $md 0 12 "$NBLK" 1 | tail -n 1 > /tmp/g1
	/test/stamp get $md 6 12 "$NBLK" 2 | tail -n 1 > /tmp/g2
	expect_eq "$(cat /tmp/g1)" "stamp get: ok $NBLK eio 0 stale 0 garbage 0" "$2 gen 1"
	expect_eq "$(cat /tmp/g2)" "stamp get: ok $NBLK eio 0 stale 0 garbage 0" "$2 gen 2"
	run mdadm --stop $md
}

# ---- A: the journal dies under a running write-back array ----
J=$(disk j)
jsz=$(blockdev --getsz $J)
echo "0 $jsz linear $J 0" | dmsetup create jdm || fail "dmsetup"
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=16 \
	--assume-clean --write-journal=/dev/mapper/jdm $(disks d0 d1 d2 d3)
journal_mode write-back
run /test/stamp put /dev/md0 0 12 "$NBLK" 1

out=$(set_policy md0 resync) && fail "resync taken with a working journal"
say "resync with a working journal: $out"
out=$(set_policy md0 ppl) && fail "ppl taken on a journaled array"
say "ppl on a journaled array: $out"
expect_eq "$(cat $P)" journal "policy after refusals"
out=$(mdadm --grow /dev/md0 --consistency-policy=resync 2>&1)
say "mdadm --grow --consistency-policy=resync (working journal): rc $? $out"
expect_eq "$(cat $P)" journal "policy after mdadm --grow"

dmsetup suspend jdm
echo "0 $jsz error" | dmsetup load jdm
dmsetup resume jdm
dd if=/dev/zero of=/dev/md0 bs=4K count=1 seek=7000 oflag=direct 2>/dev/null
dd if=/dev/zero of=/dev/md0 bs=4K count=1 seek=7001 oflag=direct 2>/dev/null &&
	fail "a write succeeded with the journal dead"
/test/stamp get /dev/md0 0 12 "$NBLK" 1 > /tmp/get
expect_eq "$(tail -n 1 /tmp/get)" "stamp get: ok $NBLK eio 0 stale 0 garbage 0" \
	"gen 1 with the journal dead"

out=$(set_policy md0 resync) && fail "resync taken with the failed journal still in the array"
say "resync with the failed journal in the array: $out"
echo "$out" | grep -q "busy" || fail "not EBUSY with the failed journal in the array: $out"
expect_eq "$(cat $P)" journal "policy with the failed journal in the array"

n=0
until mdadm /dev/md0 --remove /dev/mapper/jdm 2>/dev/null; do
	n=$((n + 1))
	[ $n -le 30 ] || fail "the failed journal cannot be removed in 30 s"
	sleep 1
done
say "failed journal removed after ${n} retries"
dd if=/dev/zero of=/dev/md0 bs=4K count=1 seek=7001 oflag=direct 2>/dev/null &&
	fail "a write succeeded with the journal removed and the policy journal"

out=$(set_policy md0 resync) ||
	fail "echo resync > consistency_policy after the journal died and left: $out"
expect_eq "$(cat $P)" resync "policy after the switch"
grep -q 'md0 : active raid5' /proc/mdstat || fail "md0 not active read-write"
run dd if=/dev/zero of=/dev/md0 bs=4K count=1 seek=7001 oflag=direct
writes_after_switch md0 A
pass "t-journal-to-resync/journal-failed"

# ---- B: the journal is missing at assembly ----
run mdadm --create /dev/md1 --run --level=5 --raid-devices=4 --chunk=16 \
	--assume-clean --write-journal=$(disk j2) $(disks e0 e1 e2 e3)
run /test/stamp put /dev/md1 0 12 "$NBLK" 1
run mdadm --stop /dev/md1
must_fail mdadm --assemble /dev/md1 $(disks e0 e1 e2 e3)
mdadm --stop /dev/md1 2>/dev/null
run mdadm --assemble --force /dev/md1 $(disks e0 e1 e2 e3)
grep -q 'md1 : active (read-only)' /proc/mdstat || fail "md1 not read-only without its journal"
dd if=/dev/zero of=/dev/md1 bs=4K count=1 seek=7001 oflag=direct 2>/dev/null &&
	fail "a write succeeded with the journal missing"
out=$(set_policy md1 resync) ||
	fail "echo resync > consistency_policy with the journal missing: $out"
expect_eq "$(cat /sys/block/md1/md/consistency_policy)" resync "md1 policy"
run mdadm --readwrite /dev/md1
writes_after_switch md1 B
pass "t-journal-to-resync/journal-missing"
EOF

vm_boot --timeout 200 --env NBLK="${NBLK:-100}" - d0 d1 d2 d3 e0 e1 e2 e3 <<'EOF' || vm_fail "boot 2"
. /test/guest-lib.sh
load_personality
run mdadm --assemble /dev/md0 $(disks d0 d1 d2 d3)
run mdadm --assemble /dev/md1 $(disks e0 e1 e2 e3)
cat /proc/mdstat
for md in md0 md1; do
	grep -q "$md : active raid5" /proc/mdstat || fail "$md not active read-write"
	expect_eq "$(cat /sys/block/$md/md/consistency_policy)" resync "$md policy"
	/test/stamp get /dev/$md 0 12 "$NBLK" 1 | tail -n 1 > /tmp/g1
	/test/stamp get /dev/$md 6 12 "$NBLK" 2 | tail -n 1 > /tmp/g2
	expect_eq "$(cat /tmp/g1)" "stamp get: ok $NBLK eio 0 stale 0 garbage 0" "$md gen 1"
	expect_eq "$(cat /tmp/g2)" "stamp get: ok $NBLK eio 0 stale 0 garbage 0" "$md gen 2"
	run mdadm --stop /dev/$md
done
pass "t-journal-to-resync/reassembled"
EOF
exit 0
