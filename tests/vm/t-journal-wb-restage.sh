#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-restage: recovery of a write-back stripe that was destaged
# once and became dirty again, with a clean block's member missing.
#   boot 1  RAID5, 4 x 16 MiB zeroed members (--assume-clean), 8 MiB
#           journal, stopped clean;
#   host    jcorrupt craft wb-restage: stripe 0 gets DATA A (tag 4000)
#           with its PARITY, then DATA C alone (tag 4001);
#   boot 2  assemble without the member of clean block B (no --force):
#           A reads tag 4000, C tag 4001, B zeros.
# Recovery replays A with its parity, then destages C: B rebuilt from the
# members as they were.  Before the fix, pass 2 met A's PARITY with pass
# 1's end-of-log entry (C) still in its table, wrote C with A's parity,
# and B, rebuilt from the inconsistent members, read garbage.
# ~30 s.

. "$(dirname "$0")/lib.sh"

vm_build_jcorrupt
rm -rf "$VM_DISK_DIR"
vm_disks 16M d0 d1 d2 d3
vm_disk j 8M

vm_boot --timeout 120 - d0 d1 d2 d3 j <<'EOF2' || vm_fail "create"
. /test/guest-lib.sh
load_personality
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=16 \
	--assume-clean --write-journal=$(disk j) $(disks d0 d1 d2 d3)
run mdadm --stop /dev/md0
pass create
EOF2

out=$("$JC" craft "$(vm_disk_path j)" wb-restage) ||
	vm_fail "jcorrupt craft failed: $out"
vm_log "$out"
set -- $(echo "$out" | sed -n 's/^restage \([0-9]*\) \([0-9]*\) \([0-9]*\) \([0-9]*\) clean \([0-9]*\) \([0-9]*\)$/\1 \2 \3 \4 \5 \6/p')
[ $# = 6 ] || vm_fail "unexpected craft output: $out"
SA=$2 SC=$4 MB=$5 SB=$6

vm_boot --timeout 120 --env SA="$SA" --env SB="$SB" --env SC="$SC" \
	--env MISSING="d$MB" \
	- d0 d1 d2 d3 j <<'EOF2' || vm_fail "restart"
. /test/guest-lib.sh
load_personality
run mdadm --assemble --run /dev/md0 $(disks_but "$MISSING" d0 d1 d2 d3) $(disk j)
check state "[4/3]" /dev/md0
dmesg | grep -E 'journal:|data-only' | tail -3
a=$(dd if=/dev/md0 bs=512 skip=$SA count=8 iflag=direct 2>/dev/null | head -c 14)
expect_eq "$a" "craft000004000" "block A (replayed with its parity)"
c=$(dd if=/dev/md0 bs=512 skip=$SC count=8 iflag=direct 2>/dev/null | head -c 14)
expect_eq "$c" "craft000004001" "block C (data-only, destaged)"
b=$(dd if=/dev/md0 bs=512 skip=$SB count=8 iflag=direct 2>/dev/null | tr -d '\0' | wc -c)
expect_eq "$b" 0 "non-zero bytes in clean block B, rebuilt without its member"
run mdadm --stop /dev/md0
pass "restaged write-back stripe recovered, member missing"
EOF2
echo "PASS $VM_TEST"
