#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-lvm-raid: LVM RAID (dm-raid) with raid5j installed the documented way:
# raid5j.ko and raid5j_dmraid.ko in /lib/modules/KVER/extra, depmod, and
# the project's modprobe.d rules in /etc/modprobe.d: tools/boot/raid5j.conf
# redirects every load of raid456 to raid5j (and raid5j_dmraid, dm-raid's
# dependency while installed); raid5j-dmraid.conf keeps dm-raid loadable
# beside raid456.
#
#	   d0     d1     d2     d3     d4        virtio, 64 MiB each, PVs of VG vg
#	    \      \      |      /      /
#	     +------+-----+-----+------+
#	     | vg/r5  raid5, 3 stripes  |        24 MiB, on 4 PVs
#	     | vg/r6  raid6, 3 stripes  |        24 MiB, on 5 PVs
#	     | vg/r1  raid1, 2 images   |         8 MiB
#	     +--------------------------+
#
# Asserts:
#  - raid5j.ko installed as DKMS leaves it (updates/dkms, depmod) without
#    make install-boot: dm-raid depends on raid456, not raid5j, and
#    modprobe dm-raid loads raid456;
#  - /sbin/modprobe dm-raid (kmod, the rule in place) succeeds; raid5j is
#    loaded and raid456 is not;
#  - and so dm-raid links against raid5j_dmraid, which holds raid5j;
#  - lvcreate --type raid5 -i 3, raid6 -i 3, raid4 -i 3, raid1 -m 1 and
#    raid10 -i 2 -m 1 succeed and the LVs sync to 100%; raid5j runs the
#    raid5/raid6/raid4 sets (refcnt 4: raid5j_dmraid and the three; dm's
#    tables say raid5_ls, raid6_zr);
#  - fio write+verify on every LV (crc32c, O_DIRECT); the data verifies
#    again after lvchange -an / -ay;
#  - lvchange --syncaction check on r5, r6 and r4 ends with
#    raid_mismatch_count 0;
#  - a table reloaded with stripe_cache 1024 (dmsetup) shows it back in
#    dmsetup table; the data still verifies;
#  - vgchange -an deactivates all;
#  - raid456 loaded by hand (modprobe --ignore-install raid456, the rule's
#    escape hatch) with raid5j installed: modprobe dm-raid still loads
#    dm-raid, linked against raid456, and vg/r5's data verifies on it;
#  - no kernel BUG/WARNING/Oops/hung task.
# PERSONALITY=raid456 (validation): no module, no rule; the same steps
# run on raid456.
#
# Disks: 5 x 64 MiB.  Boots: 1.  Timeout: 150 s.

. "$(dirname "$0")/lib.sh"

export VM_FILES="${VM_FILES:+$VM_FILES }$R5J_ROOT/tools/boot/raid5j.conf $R5J_ROOT/tools/boot/raid5j-dmraid.conf"
vm_disks 64M d0 d1 d2 d3 d4
vm_boot --timeout 150 - d0 d1 d2 d3 d4 <<'EOF'
. /test/guest-lib.sh
other=raid5j
if [ "$PERSONALITY" = raid5j ]; then
	other=raid456
	# DKMS alone, no make install-boot: raid5j.ko in updates/dkms
	# changes nothing for dm-raid, which pulls raid456 (and so md's
	# RAID4/5/6 arrays stay on raid456)
	kv=$(uname -r)
	run mkdir -p "/lib/modules/$kv/updates/dkms"
	run cp "$R5J_KO" "/lib/modules/$kv/updates/dkms/raid5j.ko"
	run depmod -a
	deps=$(/sbin/modprobe --show-depends dm-raid 2>&1)
	log "dm-raid, DKMS alone: $(echo "$deps" | tr '\n' ' ')"
	echo "$deps" | grep -q raid5j &&
		fail "DKMS alone: modprobe dm-raid would load raid5j: $(echo "$deps" | grep raid5j)"
	echo "$deps" | grep -qE '/raid456\.ko' ||
		fail "DKMS alone: dm-raid does not depend on raid456"
	run /sbin/modprobe dm-raid
	grep -qw '^raid456' /proc/modules || fail "DKMS alone: modprobe dm-raid did not load raid456"
	grep -qw '^raid5j' /proc/modules && fail "DKMS alone: modprobe dm-raid loaded raid5j"
	run rmmod dm_raid raid456
	run rm "/lib/modules/$kv/updates/dkms/raid5j.ko"
	pass "t-lvm-raid/dkms-alone"
	install_boot_rule
	log "dm-raid: $(/sbin/modprobe --show-depends dm-raid 2>&1 | tr '\n' ' ')"
fi
# kmod's modprobe, which runs modprobe.d's install rules
run /sbin/modprobe dm-raid
grep -qw "^$PERSONALITY" /proc/modules || fail "modprobe dm-raid did not load $PERSONALITY"
grep -qw "^$other" /proc/modules && fail "$other is loaded"
pass "t-lvm-raid/modprobe"
fast_sync

lvm_setup
D=$(disks d0 d1 d2 d3 d4)
run pvcreate -y $D
run vgcreate vg $D
run lvcreate -y -Wn --type raid5 -i 3 -I 64k -L 24M -n r5 vg
run lvcreate -y -Wn --type raid6 -i 3 -I 64k -L 24M -n r6 vg
run lvcreate -y -Wn --type raid1 -m 1 -L 8M -n r1 vg
run lvcreate -y -Wn --type raid4 -i 3 -I 64k -L 12M -n r4 vg
run lvcreate -y -Wn --type raid10 -i 2 -m 1 -I 64k -L 8M -n r10 vg

for lv in r5 r6 r1 r4 r10; do
	lv_wait_idle $lv
done
log "$(lvs -a -o name,segtype,stripes,sync_percent,raid_sync_action,raid_mismatch_count vg)"
expect_eq "$(dmsetup table vg-r5 | awk '{ print $3, $4 }')" "raid raid5_ls" "vg-r5 table"
expect_eq "$(dmsetup table vg-r6 | awk '{ print $3, $4 }')" "raid raid6_zr" "vg-r6 table"
if [ "$PERSONALITY" = raid5j ]; then
	# dm-raid is linked against raid5j_dmraid, which is linked
	# against raid5j (one reference), which runs the three parity sets
	# (one each)
	[ -e /sys/module/raid5j_dmraid/holders/dm_raid ] ||
		fail "dm_raid does not hold raid5j_dmraid: $(ls /sys/module/raid5j_dmraid/holders 2>&1)"
	[ -e /sys/module/raid5j/holders/raid5j_dmraid ] ||
		fail "raid5j_dmraid does not hold raid5j: $(ls /sys/module/raid5j/holders)"
	expect_eq "$(cat /sys/module/raid5j/refcnt)" 4 "raid5j refcnt (raid5j_dmraid, vg/r5, vg/r6, vg/r4)"
fi
pass "t-lvm-raid/create"

F="--rw=write --bs=64k --iodepth=8 --size=24m"
fio_verify r5 /dev/vg/r5 $F
fio_verify r6 /dev/vg/r6 $F
fio_verify r1 /dev/vg/r1 --rw=write --bs=64k --iodepth=4 --size=8m
fio_verify r4 /dev/vg/r4 --rw=write --bs=64k --iodepth=4 --size=12m
fio_verify r10 /dev/vg/r10 --rw=write --bs=64k --iodepth=4 --size=8m
run lvchange -an vg/r5 vg/r6 vg/r1 vg/r4 vg/r10
[ -e /dev/mapper/vg-r5 ] && fail "vg/r5 still active after lvchange -an"
run lvchange -ay vg/r5 vg/r6 vg/r1 vg/r4 vg/r10
for lv in r5 r6 r1 r4 r10; do
	lv_wait_idle $lv
done
fio_verify r5 /dev/vg/r5 $F --verify_only
fio_verify r6 /dev/vg/r6 $F --verify_only
fio_verify r1 /dev/vg/r1 --rw=write --bs=64k --iodepth=4 --size=8m --verify_only
fio_verify r4 /dev/vg/r4 --rw=write --bs=64k --iodepth=4 --size=12m --verify_only
fio_verify r10 /dev/vg/r10 --rw=write --bs=64k --iodepth=4 --size=8m --verify_only
pass "t-lvm-raid/reactivate"

for lv in r5 r6 r4; do
	lv_check $lv
done
pass "t-lvm-raid/check"

# dm-raid's stripe_cache table argument (lvm2 has no option for it):
# reload the table with it; the status reads it back from the conf
# (r5conf's max_nr_stripes on raid456)
base=$(dmsetup table vg-r5)
new=$(echo "$base" | awk '{ $5 = $5 + 2; $6 = $6 " stripe_cache 1024"; print }')
run dmsetup suspend vg-r5
run dmsetup reload vg-r5 --table "$new"
run dmsetup resume vg-r5
t=$(dmsetup table vg-r5)
log "vg-r5 after reload: $t"
echo "$t" | grep -q " stripe_cache 1024" || fail "vg-r5: stripe_cache 1024 not in the table: $t"
fio_verify r5 /dev/vg/r5 $F --verify_only
pass "t-lvm-raid/stripe-cache"

run vgchange -an vg
dmsetup ls | grep -q '^vg-' && fail "LVs still active: $(dmsetup ls)"

if [ "$PERSONALITY" = raid5j ]; then
	# raid456 loaded beside the installed raid5j (the rule's escape
	# hatch, or its fallback): dm-raid still loads, on raid456, though
	# depmod says it needs raid5j (raid5j-dmraid.conf)
	run rmmod dm_raid raid5j_dmraid raid5j
	run /sbin/modprobe --ignore-install raid456
	run /sbin/modprobe dm-raid
	[ -e /sys/module/raid456/holders/dm_raid ] ||
		fail "dm_raid beside raid456 does not hold raid456"
	grep -qwE '^raid5j(_dmraid)?' /proc/modules && fail "raid5j loaded beside raid456"
	run vgchange -ay vg
	lv_wait_idle r5
	fio_verify r5 /dev/vg/r5 $F --verify_only
	run vgchange -an vg
	pass "t-lvm-raid/beside-raid456"
fi
check dmesg
pass
EOF
[ $? -eq 0 ] || vm_fail "the guest failed"
exit 0
