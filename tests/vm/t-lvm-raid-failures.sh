#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-lvm-raid-failures: an LVM RAID5 LV (dm-raid) loses a PV under writes
# and is repaired onto a spare PV, then takes a power cut under writes.
# raid5j installed as make install-boot leaves it (install_boot_rule).
#
#	  pv0    pv1    pv2    pv3    pv4        dm-linear over d0..d4 (64 MiB),
#	   |      |      |      |      |         the VG's PVs (lvm sees no other)
#	 +-+------+------+------+-+    |
#	 | vg/r5 raid5, 3 stripes |  spare       12 MiB, 64 KiB stripe unit
#	 +------------------------+
#
#   boot 1  lvcreate on pv0..pv3; fio writes (crc32c) at a bounded rate
#           and pv1 becomes dm-error 2 s in; the writes end, verify;
#           lvconvert --repair onto pv4, vgreduce --removemissing, sync,
#           verify; the LV zeroed
#   boot 2  (d1 left out) activate; stamp writes, 8 threads; the power
#           is cut 2-4 s in (qemu killed)
#   boot 3  activate, the LV copied to disk dump; on the host every
#           block acknowledged in boot 2 is checked (stamp check);
#           repair (its mismatch count recorded: this activation resyncs
#           nothing, raid456 alike), check: mismatch 0
#
# Asserts: the writes across the failure all complete and verify; the
# failed leg shows 'D' in raid_health; --repair replaces it on pv4 (the
# LV's images are no longer on pv1) and the data verifies after the
# rebuild; after the cut every acknowledged block is intact; the check
# after boot 3's repair finds no mismatch; no kernel BUG/WARNING/Oops/hung
# task.
# PERSONALITY=raid456 (validation): the same on raid456.
#
# Disks: 5 x 64 MiB and dump (16 MiB).  Boots: 3.  Timeout: 150 s each.

. "$(dirname "$0")/lib.sh"

vm_stamp
export VM_FILES="${VM_FILES:+$VM_FILES }$R5J_ROOT/tools/boot/raid5j.conf $R5J_ROOT/tools/boot/raid5j-dmraid.conf"
BLOCKS=$((12 * 256))		# the LV, 4 KiB blocks
STRIPE_BLOCKS=$((3 * 16))	# 3 data PVs x 64 KiB
vm_disks 64M d0 d1 d2 d3 d4
vm_disk dump 16M

# The guest's preamble, every boot: the module and rules, PVs pvN over
# the disks given (dm-linear, so that one can become dm-error), lvm
# filtered to them.
PRE='. /test/guest-lib.sh
[ "$PERSONALITY" = raid5j ] && install_boot_rule
run /sbin/modprobe dm-raid
lvm_setup
for d in $PVS; do
	dev=$(disk $d)
	run dmsetup create pv${d#d} --table "0 $(blockdev --getsz $dev) linear $dev 0"
done
# lvm.conf as in the base image (tests/vm/mkinitramfs.sh), and the filter
cat > /etc/lvm/lvm.conf <<LVMCONF
devices {
	obtain_device_list_from_udev = 0
	external_device_info_source = "none"
	scan = [ "/dev" ]
	filter = [ "a|^/dev/mapper/pv|", "r|.*|" ]
}
global {
	use_lvmlockd = 0
	event_activation = 0
}
activation {
	udev_sync = 0
	udev_rules = 0
	monitoring = 0
}
LVMCONF
# lvm_q CMD...: run, with lvm'"'"'s warnings about the missing PV reworded:
# the console scan takes "WARNING:" for the kernel'"'"'s
lvm_q() {
	local out rc
	log "+ $*"
	out=$("$@" 2>&1)
	rc=$?
	printf "%s\n" "$out" | sed "s/WARNING:/lvm warning:/"
	[ $rc -eq 0 ] || fail "$* exited with $rc"
}
'

t0=$SECONDS
G=$PRE$(cat <<'EOF'
fast_sync
P="/dev/mapper/pv0 /dev/mapper/pv1 /dev/mapper/pv2 /dev/mapper/pv3"
run pvcreate -y $P /dev/mapper/pv4
run vgcreate vg $P /dev/mapper/pv4
run lvcreate -y -Wn --type raid5 -i 3 -I 64k -L 12M -n r5 vg $P
lv_wait_idle r5
[ "$PERSONALITY" = raid5j ] && expect_eq "$(cat /sys/module/raid5j/refcnt)" 2 \
	"raid5j refcnt (raid5j_dmraid, vg/r5)"

F="--rw=write --bs=64k --iodepth=4 --size=12m"
# a bounded rate, so that the failure comes in the middle of the writes
fio_verify lost /dev/vg/r5 $F --rate=2m > /tmp/fio.out 2>&1 &
fiopid=$!
sleep 2
sz=$(blockdev --getsz /dev/mapper/pv1)
run dmsetup suspend pv1
run dmsetup reload pv1 --table "0 $sz error"
run dmsetup resume pv1
log "pv1 is dm-error"
wait $fiopid || { cat /tmp/fio.out; fail "fio across the lost PV failed"; }
cat /tmp/fio.out
health=$(dmsetup status vg-r5 | awk '{ print $6 }')
log "vg-r5 health after the failure: $health"
case $health in
*D*) ;;
*) fail "vg-r5: no failed leg after pv1 went dm-error: $health" ;;
esac
pass "t-lvm-raid-failures/lost-pv"

lvm_q lvconvert -y --repair vg/r5 /dev/mapper/pv4
# pv1 (unreadable: missing to lvm) out of the VG, which lvm wants before
# any other change (lvchange --syncaction), and absent from now on
lvm_q vgreduce --removemissing vg
lv_wait_idle r5
log "$(lvs -a -o name,devices,lv_health_status vg 2>&1)"
lvs --noheadings -a -o devices vg | grep -q pv1 && fail "vg/r5 still on pv1 after --repair"
lvs --noheadings -a -o devices vg | grep -q pv4 || fail "vg/r5 not on pv4 after --repair"
fio_verify lost /dev/vg/r5 $F --verify_only
# zeros for boot 2's stamps (never written blocks must read as zero)
run dd if=/dev/zero of=/dev/vg/r5 bs=1M count=12 oflag=direct
run vgchange -an vg
pass "t-lvm-raid-failures/repair"
check dmesg
EOF
)
vm_boot --timeout 150 --env PVS="d0 d1 d2 d3 d4" - d0 d1 d2 d3 d4 <<< "$G" ||
	vm_fail "boot 1 failed"
vm_log "boot 1 (lost PV, repair): $((SECONDS - t0)) s"

t0=$SECONDS
kill_ms=$((2000 + RANDOM % 2000))
G=$PRE$(cat <<'EOF'
run vgchange -ay vg
lv_wait_idle r5
mark writing
/test/stamp write /dev/vg/r5 "$BLOCKS" "$STRIPE_BLOCKS" 8 60 "$R5J_RESULT_PORT" 1000000000
fail "the writer ran to its end: the power cut did not come"
EOF
)
vm_boot --timeout 150 --kill-mark writing \
	--kill-after "$(printf '%d.%03d' $((kill_ms / 1000)) $((kill_ms % 1000)))" \
	--env PVS="d0 d2 d3 d4" --env BLOCKS=$BLOCKS --env STRIPE_BLOCKS=$STRIPE_BLOCKS \
	- d0 d2 d3 d4 <<< "$G"
[ "$VM_KILLED" = 1 ] || vm_fail "boot 2: the VM was not killed"
grep '^A ' "$VM_RESULTS" > "$BUILD/vm-logs/$VM_TEST.acks"
acks=$(grep -c '^A ' "$VM_RESULTS")
[ "$acks" -gt 0 ] || vm_fail "boot 2: no write acknowledged before the cut"
vm_log "boot 2: power cut ${kill_ms} ms into the writes, $acks writes acknowledged ($((SECONDS - t0)) s)"

t0=$SECONDS
G=$PRE$(cat <<'EOF'
fast_sync
run vgchange -ay vg
lv_wait_idle r5
run dd if=/dev/vg/r5 of=$(disk dump) bs=1M iflag=direct oflag=direct
# the stripes being written at the cut: this activation resyncs nothing
# (raid456 alike), so their parity is stale: a repair (its mismatch
# count recorded), then a check
run lvchange -y --syncaction repair vg/r5
sleep 1
lv_wait_idle r5
report cutmismatch "$(lv_field r5 raid_mismatch_count)"
lv_check r5
run vgchange -an vg
pass "t-lvm-raid-failures/reactivated"
check dmesg
EOF
)
vm_boot --timeout 150 --env PVS="d0 d2 d3 d4" - d0 d2 d3 d4 dump <<< "$G" ||
	vm_fail "boot 3 failed"
vm_log "boot 3 (reactivation, copy): $((SECONDS - t0)) s; mismatches before the repair (RECORDED): $(vm_val cutmismatch)"
out=$(vm_stamp_check "$(vm_disk_path dump)" "$BLOCKS" "$BUILD/vm-logs/$VM_TEST.acks") ||
	{ echo "$out" | tail -n 20; vm_fail "acknowledged writes lost or damaged by the power cut"; }
vm_log "after the cut: $(echo "$out" | tail -n 1)"
echo "PASS $VM_TEST/powercut"
exit 0
