#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-boot-wb-guard: the boot rule's fallback to raid456 never walks into a
# dirty write-back log.
#
#	   d0      d1      d2      d3      j          virtio, 64 MiB each
#	    \       \      /       /      /           (members throttled in
#	     +-------+----+-------+------+            boot 1)
#	     |   /dev/md0 RAID5 + journal |
#	     +----------------------------+
#
#	boot 1: $PERSONALITY, journal in write-back, 4 MiB of random 4 KiB
#	        writes (fio, verify stamps) acknowledged; the power is cut
#	        0.2 s later, the members far behind
#	host:   r5jtool writeback-check finds data-only stripes in the log
#	boot 2: a kernel without raid5j: tools/boot/raid5j.conf in
#	        /etc/modprobe.d, r5jtool in /usr/local/sbin (as make
#	        install-boot and its initramfs hook leave them), raid5j.ko
#	        nowhere modprobe looks
#	        1. mdadm --assemble: md core's request_module runs the rule;
#	           it must refuse raid456 (assembly fails within 120 s, no
#	           hang), raid456 not loaded, the kernel log names the journal
#	           and says what to do
#	        2. mdadm --stop; r5jtool replay; writeback-check now clean
#	        3. mdadm --assemble: the rule loads raid456, which runs the
#	           array; every block of boot 1 verifies; check: mismatch 0
#
# PERSONALITY picks who writes in boot 1 (raid456 validates the test: the
# rule looks at the log, not at who wrote it).  BOOT_CONF=FILE replaces
# tools/boot/raid5j.conf (the rule without the check fails step 1).
# Disks: 5 x 64 MiB.  Boots: 2.  Timeout: 120 s and 240 s.

. "$(dirname "$0")/lib.sh"

CONF=${BOOT_CONF:-$R5J_ROOT/tools/boot/raid5j.conf}
make -s -C "$R5J_ROOT/tools" || vm_fail "building r5jtool failed"
mkdir -p "$BUILD/vm-files/$VM_TEST"
cp "$CONF" "$BUILD/vm-files/$VM_TEST/raid5j.conf"
cp "$R5J_ROOT/tools/r5jtool" "$BUILD/vm-files/$VM_TEST/r5jtool"
export VM_FILES="${VM_FILES:+$VM_FILES }$BUILD/vm-files/$VM_TEST/raid5j.conf $BUILD/vm-files/$VM_TEST/r5jtool"

slow=,throttling.iops-total=20
vm_disks 64M d0 d1 d2 d3 j
vm_boot --timeout 120 --kill-mark go --kill-after 0.2 - \
	d0$slow d1$slow d2$slow d3$slow j <<'EOF' || vm_fail "boot 1"
. /test/guest-lib.sh
load_personality
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=64 \
	--assume-clean --write-journal=$(disk j) $(disks d0 d1 d2 d3)
journal_mode write-back
fio_verify region /dev/md0 --rw=randwrite --bs=4k --size=4m --iodepth=16 \
	--do_verify=0
mark go
sleep 30
fail "not killed"
EOF
[ "$VM_KILLED" = 1 ] || vm_fail "boot 1 was not killed"

"$R5J_ROOT/tools/r5jtool" writeback-check "$(vm_disk_path j)" > "$BUILD/vm-logs/$VM_TEST.wbcheck"
rc=$?
vm_log "host: $(cat "$BUILD/vm-logs/$VM_TEST.wbcheck")"
[ $rc -eq 1 ] || vm_fail "no data-only stripes in the log at the cut (writeback-check exit $rc)"

vm_boot --timeout 240 - d0 d1 d2 d3 j <<'EOF' || vm_fail "boot 2"
. /test/guest-lib.sh
D=$(disks d0 d1 d2 d3)
J=$(disk j)
run mkdir -p /etc/modprobe.d /usr/local/sbin
run cp /test/raid5j.conf /etc/modprobe.d/raid5j.conf
run cp /test/r5jtool /usr/local/sbin/r5jtool
export PATH=/usr/local/sbin:$PATH
modinfo raid5j >/dev/null 2>&1 && fail "modprobe can find raid5j: this boot is a kernel without it"
run modprobe md_mod

log "==== 1: the rule refuses raid456 over the dirty write-back log"
t0=$(date +%s)
timeout 120 mdadm --assemble /dev/md0 $D $J
rc=$?
log "mdadm --assemble: exit $rc after $(($(date +%s) - t0)) s"
[ $rc -eq 124 ] && fail "mdadm --assemble hung (120 s)"
grep -qw '^raid456' /proc/modules && fail "raid456 was loaded over a dirty write-back log"
grep -Eq '^md0 : active' /proc/mdstat && fail "md0 runs: $(grep -A1 '^md0' /proc/mdstat | tr '\n' ' ')"
dmesg | grep 'r5jtool: ' | tail -n 2
dmesg | grep -q "r5jtool: $J (array .*) holds [1-9][0-9]* write-back stripes not yet on the members; raid456 is not started" ||
	fail "the kernel log does not name $J and its write-back stripes"
dmesg | grep -q "r5jtool replay $J" || fail "the kernel log does not say what to do"
pass "t-boot-wb-guard/refused"

log "==== 2: replayed offline"
# a failed RUN_ARRAY may have stopped it already
[ -e /sys/block/md0/md ] && run mdadm --stop /dev/md0
# shellcheck disable=SC2086 # device lists are words
run r5jtool replay $J $D
run r5jtool writeback-check $J

log "==== 3: the rule loads raid456 now"
# shellcheck disable=SC2086
run timeout 120 mdadm --assemble /dev/md0 $D $J
grep -qw '^raid456' /proc/modules || fail "raid456 not loaded"
PERSONALITY=raid456 check raid5 /dev/md0
fio_verify region /dev/md0 --rw=randwrite --bs=4k --size=4m --iodepth=16 \
	--verify_only
PERSONALITY=raid456 check mismatch /dev/md0
run mdadm --stop /dev/md0
pass "t-boot-wb-guard/replayed"
check dmesg
EOF
exit 0
