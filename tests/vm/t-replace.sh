#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-replace: `mdadm --replace` copies a working member onto a spare while
# the array stays whole and writable; the copy survives a stop halfway.
#
#	   d0   d1   d2   d3   d4           e0   e1   e2   e3   e4   ej
#	    \    \   /    /    :             \    \   /    /    :    |
#	   +--------------+    :            +--------------+    :  journal
#	   |   /dev/md0   | <..: replaces   |   /dev/md1   | <..:
#	   +--------------+      d1, then   +--------------+     replaces e2
#	   RAID5, 64K chunk      d1 -> d0   RAID6, 64K chunk, write journal
#
# Asserts:
#  - md0: "mdadm --replace d1 --with d4" makes d4 a replacement
#    (dev state "replacement") while the array stays [4/4] [UUUU] and
#    degraded 0; writes during the copy, to blocks it has passed, verify
#    (and would not if they skipped the replacement); after it d4 sits in slot 1,
#    d1 is faulty and removable; all data verifies; check: mismatch_cnt 0;
#  - md0 stopped halfway through a second replacement (d0 by d1): at
#    assembly the replacement is recognised (state "replacement", slot 0)
#    and the copy resumes, not restarting from 0; then as above;
#  - the array assembled from the new members alone, no resync, verifies;
#  - md1 (RAID6, journal): the same replace under writes, verified,
#    mismatch_cnt 0; no kernel BUG/WARNING/Oops/hung task.
#
# Disks: 11 x 32 MiB.  Boots: 1.  Timeout: 300 s.

. "$(dirname "$0")/lib.sh"

vm_disks 32M d0 d1 d2 d3 d4 e0 e1 e2 e3 e4 ej
vm_boot --timeout 300 - d0 d1 d2 d3 d4 e0 e1 e2 e3 e4 ej <<'EOF'
. /test/guest-lib.sh
load_personality
fast_sync
d0=$(disk d0) d1=$(disk d1) d4=$(disk d4)

dev_attr() {	# dev_attr MD DEV ATTR: md/dev-*/ATTR of member DEV
	cat "/sys/block/${1##*/}/md/dev-${2##*/}/$3" 2>/dev/null
}
slow() {
	echo "$1" > /proc/sys/dev/raid/speed_limit_min
	echo "$1" > /proc/sys/dev/raid/speed_limit_max
}
# copied MD: sectors done of the running recovery (0 if none)
copied() {
	local c
	c=$(md_sysfs "$1" sync_completed)
	case "$c" in *" / "*) echo "${c%% *}" ;; *) echo 0 ;; esac
}
wait_copied() {	# wait_copied MD SECTORS: the copy is past SECTORS
	local t=0
	while [ "$(copied "$1")" -lt "$2" ]; do
		[ $t -ge 600 ] && fail "$1: copy not past sector $2 after 60 s: $(md_sysfs "$1" sync_completed)"
		sleep 0.1
		t=$((t + 1))
	done
	log "$1: copy at $(md_sysfs "$1" sync_completed)"
}

run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=64 \
	$(disks d0 d1 d2 d3)
wait_sync /dev/md0
# B and Q are written during a copy, behind it (on blocks it has copied
# already): only writes that reach the replacement too keep them
A="--rw=write --bs=128k --iodepth=8 --offset=16m --size=48m"
B="--rw=randwrite --bs=8k --iodepth=16 --offset=0 --size=12m"
C="--rw=randwrite --bs=16k --iodepth=8 --offset=64m --size=16m"
fio_verify A /dev/md0 $A

# ---- replace d1 by d4, writing during the copy --------------------------
run mdadm /dev/md0 --add $d4
check spares 1 /dev/md0
slow 2000
run mdadm /dev/md0 --replace $d1 --with $d4
wait_copied /dev/md0 10240	# 5 MiB of each member: B's 12 MiB of array
check recovery
grep -A3 '^md0 ' /proc/mdstat
st=$(dev_attr /dev/md0 $d4 state)
log "d4 state during the copy: $st"
case "$st" in *replacement*) ;; *) fail "d4 is not a replacement: '$st'" ;; esac
case "$(dev_attr /dev/md0 $d1 state)" in
*want_replacement*) ;;
*) fail "d1 does not want replacement: '$(dev_attr /dev/md0 $d1 state)'" ;;
esac
check degraded 0 /dev/md0
check state '[4/4] [UUUU]' /dev/md0
fio_verify B /dev/md0 $B
fast_sync
wait_sync /dev/md0
sleep 1
grep -A3 '^md0 ' /proc/mdstat
expect_eq "$(dev_attr /dev/md0 $d4 slot)" 1 "slot of d4 after the copy"
case "$(dev_attr /dev/md0 $d4 state)" in
*in_sync*) ;; *) fail "d4 not in sync: '$(dev_attr /dev/md0 $d4 state)'" ;;
esac
case "$(dev_attr /dev/md0 $d1 state)" in
*faulty*) ;; *) fail "d1 not faulty after the copy: '$(dev_attr /dev/md0 $d1 state)'" ;;
esac
check state '[4/4] [UUUU]' /dev/md0
check degraded 0 /dev/md0
run mdadm /dev/md0 --remove $d1
fio_verify A /dev/md0 $A --verify_only
fio_verify B /dev/md0 $B --verify_only
check mismatch /dev/md0
pass "t-replace/replace"

# ---- a second replacement, stopped halfway -----------------------------
run mdadm --zero-superblock $d1
run mdadm /dev/md0 --add $d1
slow 1000
run mdadm /dev/md0 --replace $d0 --with $d1
t=0
while [ "$(copied /dev/md0)" -lt 8192 ]; do
	[ $t -ge 300 ] && fail "replacement copy does not advance: $(md_sysfs md0 sync_completed)"
	sleep 0.1
	t=$((t + 1))
done
before=$(copied /dev/md0)
log "copy at sector $before of $(md_sysfs md0 sync_completed): stopping"
run mdadm --stop /dev/md0
run mdadm --assemble /dev/md0 $(disks d0 d1 d2 d3 d4)
t=0
while [ "$(copied /dev/md0)" = 0 ]; do
	[ $t -ge 100 ] && fail "no recovery 10 s after assembly: $(tr '\n' ' ' < /proc/mdstat)"
	sleep 0.1
	t=$((t + 1))
done
grep -A3 '^md0 ' /proc/mdstat
st=$(dev_attr /dev/md0 $d1 state)
case "$st" in *replacement*) ;; *) fail "after assembly d1 is not a replacement: '$st'" ;; esac
expect_eq "$(dev_attr /dev/md0 $d1 slot)" 0 "slot of the replacement after assembly"
check degraded 0 /dev/md0
after=$(copied /dev/md0)
log "copy resumed at sector $after (was $before before the stop)"
[ "$after" -ge $((before / 2)) ] || fail "copy restarted at $after, not near $before"
fio_verify C /dev/md0 $C
fast_sync
wait_sync /dev/md0
sleep 1
expect_eq "$(dev_attr /dev/md0 $d1 slot)" 0 "slot of d1 after the copy"
case "$(dev_attr /dev/md0 $d0 state)" in
*faulty*) ;; *) fail "d0 not faulty after the copy: '$(dev_attr /dev/md0 $d0 state)'" ;;
esac
run mdadm /dev/md0 --remove $d0
for j in A B C; do
	fio_verify $j /dev/md0 ${!j} --verify_only
done
check mismatch /dev/md0
pass "t-replace/stopped-halfway"

# ---- the new members alone --------------------------------------------
run mdadm --stop /dev/md0
run mdadm --assemble /dev/md0 $(disks d1 d2 d3 d4)
check state '[4/4] [UUUU]' /dev/md0
check nosync
for j in A B C; do
	fio_verify $j /dev/md0 ${!j} --verify_only
done
run mdadm --stop /dev/md0
pass "t-replace/new-members"

# ---- RAID6 with a journal ----------------------------------------------
e2=$(disk e2) e4=$(disk e4)
fast_sync
run mdadm --create /dev/md1 --run --level=6 --raid-devices=4 --chunk=64 \
	--write-journal=$(disk ej) $(disks e0 e1 e2 e3)
wait_sync /dev/md1
P="--rw=write --bs=128k --iodepth=8 --offset=16m --size=32m"
Q="--rw=randwrite --bs=4k --iodepth=16 --offset=0 --size=8m"
fio_verify P /dev/md1 $P
run mdadm /dev/md1 --add $e4
slow 1500
run mdadm /dev/md1 --replace $e2 --with $e4
wait_copied /dev/md1 10240	# 5 MiB of each member: Q's 8 MiB of array
check recovery
case "$(dev_attr /dev/md1 $e4 state)" in
*replacement*) ;; *) fail "e4 is not a replacement: '$(dev_attr /dev/md1 $e4 state)'" ;;
esac
fio_verify Q /dev/md1 $Q
fast_sync
wait_sync /dev/md1
sleep 1
expect_eq "$(dev_attr /dev/md1 $e4 slot)" 2 "slot of e4 after the copy"
run mdadm /dev/md1 --remove $e2
check state '[4/4] [UUUU]' /dev/md1
fio_verify P /dev/md1 $P --verify_only
fio_verify Q /dev/md1 $Q --verify_only
check mismatch /dev/md1
run mdadm --stop /dev/md1
pass "t-replace/raid6-journal"
check dmesg
EOF
