#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-r5jtool-mdadm: the journal blocks that real mdadm --create and the
# kernel write validate with raid5j's format library (via r5jtool).
#
#	   a0 a1 a2 a3  ja        RAID5 + journal (/dev/md0)
#	   b0 b1 b2 b3  jb        RAID6 + journal (/dev/md1)   16 MiB each
#
#	boot:  mdadm --create --write-journal --assume-clean both, stop them
#	host:  mdadm wrote an empty meta block at ring sector 0 (seq S) and
#	       journal_tail 0; the kernel's recovery at the first start found
#	       it, wrote an empty block at 8 with seq S + 1 + 10000 and moved
#	       journal_tail to 8.  So:
#	         r5jtool dump --from 0: "txn seq S pos 0 sectors 8 pages 0 ok",
#	                                then "end pos 8 ... seq-mismatch"
#	         r5jtool dump:          "log start 8 seq S+10001"
#	       and mdadm --examine agrees the journal superblock is sound.
#
# The kernel side is mainline raid456 (R5J_REF_PERSONALITY to change).
# Disks: 10 x 16 MiB.  Boots: 1.  Timeout: 180 s.

PERSONALITY=${R5J_REF_PERSONALITY:-raid456}
. "$(dirname "$0")/lib.sh"

if [ -n "${R5JTOOL:-}" ]; then
	TOOL=$R5JTOOL
else
	TOOL=$R5J_ROOT/tools/r5jtool
	make -s -C "$R5J_ROOT/tools" || vm_fail "building r5jtool failed"
fi

vm_disks 16M a0 a1 a2 a3 ja b0 b1 b2 b3 jb
vm_boot --timeout 180 - a0 a1 a2 a3 ja b0 b1 b2 b3 jb <<'EOF' || vm_fail "boot"
. /test/guest-lib.sh
load_personality
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --assume-clean \
	--write-journal=$(disk ja) $(disks a0 a1 a2 a3)
run mdadm --create /dev/md1 --run --level=6 --raid-devices=4 --assume-clean \
	--write-journal=$(disk jb) $(disks b0 b1 b2 b3)
cat /proc/mdstat
run mdadm --stop /dev/md0
run mdadm --stop /dev/md1
check dmesg
EOF

for j in ja jb; do
	img=$(vm_disk_path $j)
	out=$("$TOOL" dump --from 0 "$img") || vm_fail "$j: r5jtool dump --from 0 failed"
	printf '%s\n' "$out" | sed "s/^/[$j] /"
	seq=$(printf '%s\n' "$out" | sed -n 's/^txn seq \([0-9]*\) pos 0 sectors 8 pages 0 ok$/\1/p')
	[ -n "$seq" ] || vm_fail "$j: mdadm's meta block at 0 does not validate"
	printf '%s\n' "$out" | grep -qx "end pos 8 seq $((seq + 1)) reason seq-mismatch" ||
		vm_fail "$j: the kernel's block at 8 is not seq $((seq + 1)) + 10000"
	out=$("$TOOL" dump "$img") || vm_fail "$j: r5jtool dump failed"
	printf '%s\n' "$out" | grep -qx "log start 8 seq $((seq + 10001))" ||
		vm_fail "$j: journal_tail is not 8 with seq $((seq + 10001)): $out"
	mdadm --examine "$img" | grep -q 'Checksum : .* correct' ||
		vm_fail "$j: mdadm says the superblock checksum is wrong"
	vm_log "$j: mdadm block seq $seq and the kernel's block validate"
done
echo "PASS $VM_TEST"
