#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: raid5j at work in a VM, with nothing but stock mdadm and fio.
#
#	   d0      d1      d2      d3        d4     virtio, 128 MiB each
#	    \       \      /       /         :
#	     +-------+----+-------+          :  replacement disk
#	     |      /dev/md0      |  <.......:
#	     +--------------------+          RAID5 on raid5j
#
# Creates the array with plain mdadm --create, shows /proc/mdstat and
# mdadm --detail, writes data with fio (crc32c checksums) and verifies it,
# fails a disk, reads the data back degraded, rebuilds onto a new disk and
# verifies again.  PERSONALITY=raid456 runs the same on mainline raid456.
# Part 2 (two more boots): a RAID5 with a write journal takes stamped,
# verified random writes, the VM is killed mid-write (a power cut), and the
# array comes back with a disk missing, without --force: the journal is
# replayed and every acknowledged block reads back intact (checked on the
# host by tests/tools/stamp.c).
# Full console: build/vm-logs/demo.log.

VM_TEST=demo
VM_LOG=${VM_LOG:-$(cd "$(dirname "$0")/../.." && pwd)/build/vm-logs/demo.log}
. "$(dirname "$0")/lib.sh"

mkdir -p "$(dirname "$VM_LOG")"
: > "$VM_LOG"
echo "raid5j demo: booting a VM (Debian 6.1 kernel under qemu TCG; takes a minute or two)"
start=$(date +%s)
vm_disks 128M d0 d1 d2 d3 d4
vm_boot --show --timeout 300 - d0 d1 d2 d3 d4 <<'EOF'
. /test/guest-lib.sh
say "== VM up: kernel $(uname -r), personality under test: $PERSONALITY"
load_personality
say "   loaded: $(cut -d' ' -f1 /proc/modules | grep -E '^(raid5j|raid456|md_mod)$' | tr '\n' ' ')"
fast_sync
D=$(disks d0 d1 d2 d3)
set -- $D

say ""
say "== 1. Create a RAID5 array from 4 disks with plain mdadm"
say "\$ mdadm --create /dev/md0 --level=5 --raid-devices=4 $D"
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 $D
wait_sync /dev/md0
check raid5 /dev/md0
check state '[4/4] [UUUU]' /dev/md0
say_cmd cat /proc/mdstat
say_cmd mdadm --detail /dev/md0

say ""
say "== 2. Write 128 MiB with fio, each block carrying a crc32c, then verify"
DATA="--rw=randwrite --bs=64k --iodepth=16 --size=128m"
t0=$(date +%s)
fio_verify demo /dev/md0 $DATA
say "   written and verified in $(($(date +%s) - t0)) s: no mismatch"

say ""
say "== 3. A disk dies: mdadm --fail $2"
run mdadm /dev/md0 --fail "$2"
check state '[4/3] [U_UU]' /dev/md0
say_cmd grep -A1 '^md0' /proc/mdstat
fio_verify demo /dev/md0 $DATA --verify_only
say "   all data still verifies, rebuilt from parity on the fly"

say ""
say "== 4. Replace it: mdadm --remove $2; mdadm --add $(disk d4)"
run mdadm /dev/md0 --remove "$2"
run mdadm /dev/md0 --add "$(disk d4)"
sleep 1
say_cmd grep -A2 '^md0' /proc/mdstat
t0=$(date +%s)
wait_sync /dev/md0
say "   recovery finished in $(($(date +%s) - t0)) s"
check state '[4/4] [UUUU]' /dev/md0
say_cmd grep -A1 '^md0' /proc/mdstat
fio_verify demo /dev/md0 $DATA --verify_only
say "   all data verifies on the rebuilt array"
check mismatch /dev/md0
say "   parity check: mismatch_cnt $(md_sysfs /dev/md0 mismatch_cnt)"
check dmesg
pass demo
EOF
rc=$?
[ $rc -eq 0 ] || { echo "Demo FAILED:"; grep -h '^FAIL' "$VM_RESULTS" 2>/dev/null; exit $rc; }

echo
echo "== Part 2: a journaled array survives a power cut"
STAMP=$BUILD/stamp
vm_host_cc "$STAMP" -O2 -static -pthread "$R5J_ROOT/tests/tools/stamp.c" || exit 1
export VM_FILES=$STAMP
vm_disks 64M d0 d1 d2 d3
vm_disk j 16M
vm_disk dump 256M
vm_boot --show --timeout 120 --kill-mark writing --kill-after 5 - d0 d1 d2 d3 j <<'EOF'
. /test/guest-lib.sh
load_personality
say "== 5. RAID5 with a write journal: mdadm --create ... --write-journal=$(disk j)"
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=64 \
	--assume-clean --write-journal=$(disk j) $(disks d0 d1 d2 d3)
say_cmd grep -A1 '^md0' /proc/mdstat
say_cmd cat /sys/block/md0/md/journal_mode /sys/block/md0/md/consistency_policy
report blocks $(( $(blockdev --getsize64 /dev/md0) / 4096 ))
say "== 6. 8 writers, random sub-stripe and full-stripe writes; the power goes in 5 s"
mark writing
/test/stamp write /dev/md0 $(( $(blockdev --getsize64 /dev/md0) / 4096 )) 48 8 60 "$R5J_RESULT_PORT"
EOF
[ "$VM_KILLED" = 1 ] || { echo "Demo FAILED: the power cut did not happen"; exit 1; }
blocks=$(vm_val blocks)
grep '^A ' "$VM_RESULTS" > "$BUILD/vm-logs/demo.acks"
echo "   power cut: $(wc -l < "$BUILD/vm-logs/demo.acks") writes had been acknowledged"
vm_boot --show --timeout 240 - d0 d1 d2 d3 j dump <<'EOF'
. /test/guest-lib.sh
load_personality
say "== 7. Power back, and disk d2 is gone: assemble without it, no --force"
say "\$ mdadm --assemble --run /dev/md0 (d0 d1 d3 + journal)"
run mdadm --assemble --run /dev/md0 $(disks d0 d1 d3) $(disk j)
say_cmd grep -A1 '^md0' /proc/mdstat
say "   $(dmesg | grep -o 'journal: recovered.*' | tail -1)"
dd if=/dev/md0 of=$(disk dump) bs=1M 2>/dev/null
say "== 8. Put d2 back, rebuild, check parity"
run mdadm /dev/md0 --add $(disk d2)
fast_sync
wait_sync /dev/md0
check mismatch /dev/md0
say "   rebuilt; parity check: mismatch_cnt $(md_sysfs /dev/md0 mismatch_cnt)"
check dmesg
pass demo-journal
EOF
rc=$?
echo "== 9. Every acknowledged block, as read back degraded after the crash:"
vm_stamp_check "$(vm_disk_path dump)" "$blocks" "$BUILD/vm-logs/demo.acks" || rc=1
secs=$(($(date +%s) - start))
echo
if [ $rc -eq 0 ]; then
	echo "Summary: RAID5 on $PERSONALITY created with mdadm, 128 MiB written and"
	echo "verified, one disk failed and rebuilt, data verified again, parity"
	echo "consistent.  With a write journal: power cut mid-write, restarted with"
	echo "a disk missing and no --force, every acknowledged block intact, parity"
	echo "consistent after the rebuild, no kernel warnings.  ${secs}s."
	echo "Console: $VM_LOG"
else
	echo "Demo FAILED after ${secs}s:"
	grep -h '^FAIL' "$VM_RESULTS" 2>/dev/null
	echo "Console log: $VM_LOG"
fi
exit $rc
