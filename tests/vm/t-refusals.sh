#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-refusals: what raid5j does not run, it refuses cleanly, says why in
# the kernel log, and leaves the members untouched for raid456; the module
# will not load beside raid456 nor unload under a running array.
#
#	   r0  r1  r2  r3  r4     RAID5 4 disks (64K chunk), grown to 5 with
#	    \   \   |   /  /      --backup-file: power cut mid-reshape
#	     +---[md0]----+
#	   u0  u1  u2             RAID5, superblock layout set to 7 (unknown)
#	    +--[md1]--+           on the host, checksum recomputed
#	   s0  s1  s2  s3         RAID6 (refused until raid5j runs RAID6)
#	    +---[md2]---+
#	   x0  x1  x2             RAID5 running while "rmmod" is tried
#	    +--[md3]--+           (all virtio, 32 MiB)
#
#	boot 1  raid456: create md1, md2 with data, stop; create md0, write
#	        data, add r4, grow to 5 devices; killed 1 s after the reshape
#	        passed 2 MiB.  Host: layout of md1's superblocks -> 7.
#	boot 2  the personality under test: assemble md2, md0, md1; create
#	        md3, rmmod, stop md3, rmmod; modprobe raid456, insmod raid5j.
#	boot 3  raid456: md1's layout restored on the host first; md0's
#	        reshape resumes and ends, md0 md1 md2 data verify, check 0.
#
# Asserts (boot 2, raid5j loaded with reshape=0, its veto on reshapes):
#  - md0 (reshape in progress) assembles with the reshape held (kernel
#    line "md/raid:md0: reshape interrupted at", no reshape line in
#    /proc/mdstat) and its data verifies (raid5j serves an interrupted
#    reshape; t-reshape-serve tests it fully);
#  - assembling md1 (layout 7) fails, with "md/raid:md1: ... layout ...";
#  - md2 (RAID6) fails with a line naming RAID6; if raid5j runs RAID6,
#    that part is skipped ("SKIP" line) and md2's data is verified instead;
#  - the images of every refused array (md1, and md2 if refused) are
#    bit-identical before and after boot 2 (host sha256), superblocks
#    included;
#  - "rmmod raid5j" fails while md3 runs ("in use"), succeeds once it is
#    stopped; "insmod raid5j.ko" with raid456 loaded fails, with the
#    module's "raid456 is loaded" line or the kernel's "exports duplicate
#    symbol ... (owned by raid456)" (raid5j exports dm-raid's symbols);
#  - boot 3: raid456 finishes the reshape, all data verifies, check 0.
# Under PERSONALITY=raid456 (validation) boot 2 expects mainline's
# answers: md0's reshape resumes and finishes, md1 is refused
# ("unsupported parity algorithm"), md2 runs; rmmod raid456 fails while
# md3 runs; insmod raid5j.ko still fails beside raid456.
#
# Disks: 16 x 32 MiB.  Boots: 3.  Timeout: 150 s per boot.

. "$(dirname "$0")/lib.sh"

R_DISKS="r0 r1 r2 r3 r4" U_DISKS="u0 u1 u2" S_DISKS="s0 s1 s2 s3"
X_DISKS="x0 x1 x2"
ALL_DISKS="$R_DISKS $U_DISKS $S_DISKS $X_DISKS"
vm_disks 32M $ALL_DISKS
export VM_FILES="${VM_FILES:+$VM_FILES }$R5J_KO"	# insmod raid5j in every boot
[ -f "$R5J_KO" ] || vm_fail "$R5J_KO not built (make)"

# sb_layout IMAGE [NEW]: print the v1.2 superblock's layout; with NEW,
# set it and recompute md's checksum.
sb_layout() {
	python3 - "$@" <<'PY' || vm_fail "superblock edit of $1 failed"
import struct, sys
img = sys.argv[1]
with open(img, 'r+b') as f:
    f.seek(4096)
    sb = bytearray(f.read(4096))
    magic, major = struct.unpack_from('<II', sb, 0)
    assert magic == 0xa92b4efc and major == 1, "no v1.2 superblock"
    print(struct.unpack_from('<I', sb, 76)[0])
    if len(sys.argv) > 2:
        struct.pack_into('<I', sb, 76, int(sys.argv[2]))
        max_dev = struct.unpack_from('<I', sb, 220)[0]
        struct.pack_into('<I', sb, 216, 0)
        n = 256 + 2 * max_dev
        s = sum(struct.unpack_from('<%dI' % (n // 4), sb, 0))
        if n % 4:
            s += struct.unpack_from('<H', sb, n - 2)[0]
        s = (s & 0xffffffff) + (s >> 32)
        struct.pack_into('<I', sb, 216, s & 0xffffffff)
        f.seek(4096)
        f.write(sb)
PY
}

sums() {	# sums DISK...: sha256 of the images
	local d
	for d in "$@"; do
		echo "$d $(sha256sum < "$(vm_disk_path "$d")" | cut -d' ' -f1)"
	done
}

# ---- boot 1 (raid456): the arrays, then a power cut mid-reshape --------
PERSONALITY=raid456 vm_boot --timeout 150 --kill-mark reshaping --kill-after 1 \
	- $ALL_DISKS <<'EOF' || vm_fail "boot 1"
. /test/guest-lib.sh
load_personality
fast_sync
U=$(disks u0 u1 u2) S=$(disks s0 s1 s2 s3) R=$(disks r0 r1 r2 r3)

run mdadm --create /dev/md1 --run --level=5 --chunk=64 --raid-devices=3 --assume-clean $U
fio_verify u /dev/md1 --rw=randwrite --bs=16k --iodepth=8 --size=16m
run mdadm --stop /dev/md1
run mdadm --create /dev/md2 --run --level=6 --chunk=64 --raid-devices=4 --assume-clean $S
fio_verify s /dev/md2 --rw=randwrite --bs=16k --iodepth=8 --size=16m
run mdadm --stop /dev/md2

run mdadm --create /dev/md0 --run --level=5 --chunk=64 --raid-devices=4 --assume-clean $R
fio_verify r /dev/md0 --rw=write --bs=64k --iodepth=8 --size=64m
run mdadm /dev/md0 --add $(disk r4)
echo 2000 > /proc/sys/dev/raid/speed_limit_max
echo 1000 > /proc/sys/dev/raid/speed_limit_min
run mdadm --grow /dev/md0 --raid-devices=5 --backup-file=/run/md0-grow.bak
t=0
while :; do
	pos=$(md_sysfs md0 reshape_position)
	log "reshape_position $pos; $(grep -A2 '^md0' /proc/mdstat | tail -n 1)"
	case $pos in ''|none) ;; *) [ "$pos" -gt 4096 ] && break ;; esac
	[ $t -ge 60 ] && fail "reshape does not progress: $(tr '\n' ' ' < /proc/mdstat)"
	sleep 0.5
	t=$((t + 1))
done
report reshape_position "$pos"
sync
mark reshaping
sleep 100
fail "still alive 100 s after mark reshaping"
EOF
[ "$VM_KILLED" = 1 ] || vm_fail "boot 1 was not killed mid-reshape"
vm_log "power cut at reshape_position $(vm_val reshape_position)"

for d in $R_DISKS; do
	mdadm --examine "$(vm_disk_path "$d")" | grep -q 'Reshape pos' ||
		vm_fail "$d: no reshape in progress in its superblock"
done
for d in $U_DISKS; do
	[ "$(sb_layout "$(vm_disk_path "$d")" 7)" = 2 ] ||
		vm_fail "$d: layout was not left-symmetric (2)"
	mdadm --examine "$(vm_disk_path "$d")" | grep -Eq 'Checksum : .* correct' ||
		vm_fail "$d: superblock checksum wrong after the edit"
done
sums $R_DISKS $U_DISKS $S_DISKS > "$BUILD/vm-logs/$VM_TEST.sums-before"

# ---- boot 2: the personality under test ---------------------------------
# (a failed boot 2 is judged at the end, after the checksums and boot 3)
# raid5j with reshape=0: the veto holds md0's reshape (raid5j's engine,
# on by default, would continue it: t-reshape-interop tests that)
R5J_MODPARAMS=reshape=0 vm_boot --timeout 150 - $ALL_DISKS <<'EOF'
. /test/guest-lib.sh
load_personality
fast_sync
U=$(disks u0 u1 u2) S=$(disks s0 s1 s2 s3) R=$(disks r0 r1 r2 r3 r4)
X=$(disks x0 x1 x2)
KO=/test/raid5j.ko

# newlog: the kernel lines since the last call
LOGN=$(dmesg | wc -l)
newlog() {
	local n
	n=$(dmesg | wc -l)
	dmesg | tail -n +$((LOGN + 1))
	LOGN=$n
}
# soft_fail MSG: report a failure but go on (the other refusals and the
# host's checksums still tell something); the boot fails at the end.
SOFT=0
soft_fail() {
	result "FAIL $R5J_TEST: $*"
	SOFT=1
}
# refused MD WHAT PATTERN DEV...: assembling must fail, the array must not
# run, a kernel line must match PATTERN
refused() {
	local md=$1 what=$2 pat=$3 lines
	shift 3
	newlog > /dev/null
	must_fail mdadm --assemble $md "$@"
	lines=$(newlog)
	printf '%s\n' "$lines"
	grep -q "^$(md_name $md) : active" /proc/mdstat &&
		fail "$md ($what) is running: $(grep "^$(md_name $md) " /proc/mdstat)"
	mdadm --stop $md 2>/dev/null
	if ! printf '%s\n' "$lines" | grep -E "$pat"; then
		soft_fail "$what refused without a kernel line matching '$pat' (kernel said: $(printf '%s\n' "$lines" | sed 's/^\[[ 0-9.]*\] //' | tr '\n' '|'))"
		return
	fi
	say "$what refused: $(printf '%s\n' "$lines" | grep -E "$pat" | head -n 1 | sed 's/^\[[ 0-9.]*\] //')"
	pass "t-refusals/$what"
}

# RAID6
newlog > /dev/null
if mdadm --assemble /dev/md2 $S; then
	newlog
	check raid6 /dev/md2
	[ "$PERSONALITY" = raid5j ] && say "SKIP t-refusals/raid6: $PERSONALITY runs RAID6"
	fio_verify s /dev/md2 --rw=randwrite --bs=16k --iodepth=8 --size=16m --verify_only
	run mdadm --stop /dev/md2
	report raid6 runs
else
	lines=$(newlog)
	printf '%s\n' "$lines"
	printf '%s\n' "$lines" | grep -E 'md/raid:md2: .*RAID6' ||
		fail "RAID6 refused without a 'md/raid:md2: ... RAID6' kernel line"
	mdadm --stop /dev/md2 2>/dev/null
	report raid6 refused
	pass "t-refusals/raid6"
fi

# reshape in progress
if [ "$PERSONALITY" = raid456 ]; then
	# mainline resumes it: the setup is a genuine interrupted reshape
	run mdadm --assemble /dev/md0 --backup-file=/run/md0-grow.bak --invalid-backup $R
	check raid5 /dev/md0
	wait_sync /dev/md0
	check state '[5/5] [UUUUU]' /dev/md0
	fio_verify r /dev/md0 --rw=write --bs=64k --iodepth=8 --size=64m --verify_only
	run mdadm --stop /dev/md0
	pass "t-refusals/reshape-resumed-by-raid456"
	PAT_LAYOUT='md/raid:md1: .*(unsupported parity algorithm|layout)'
else
	# raid5j runs it with the reshape held (reshape.md, build step 1)
	newlog > /dev/null
	run mdadm --assemble /dev/md0 --backup-file=/run/md0-grow.bak --invalid-backup $R
	lines=$(newlog)
	printf '%s\n' "$lines"
	check raid5 /dev/md0
	printf '%s\n' "$lines" | grep -E 'md/raid:md0: reshape interrupted at' ||
		soft_fail "reshape: no 'md/raid:md0: reshape interrupted at' kernel line"
	fio_verify r /dev/md0 --rw=write --bs=64k --iodepth=8 --size=64m --verify_only
	grep -A3 '^md0 ' /proc/mdstat | grep -q 'reshape =' &&
		soft_fail "reshape: raid5j shows a running reshape: $(tr '\n' ' ' < /proc/mdstat)"
	run mdadm --stop /dev/md0
	pass "t-refusals/reshape-held-by-raid5j"
	PAT_LAYOUT='md/raid:md1: .*layout'
fi

# unknown layout
refused /dev/md1 unknown-layout "$PAT_LAYOUT" $U

# rmmod under a running array, then insmod beside raid456
MOD=$PERSONALITY
run mdadm --create /dev/md3 --run --level=5 --raid-devices=3 --assume-clean $X
check raid5 /dev/md3
must_fail rmmod $MOD
grep -qi 'in use' /tmp/must_fail.out || fail "rmmod $MOD: no 'in use' message"
grep -qw "^$MOD" /proc/modules || fail "$MOD unloaded under a running array"
check raid5 /dev/md3
run mdadm --stop /dev/md3
run rmmod $MOD
grep -qw "^$MOD" /proc/modules && fail "$MOD still loaded after rmmod"
pass "t-refusals/rmmod-in-use"

rm -f /etc/modprobe.d/no-raid456.conf
grep -qw '^raid456' /proc/modules || run modprobe raid456
newlog > /dev/null
must_fail insmod $KO
grep -qw '^raid5j' /proc/modules && fail "raid5j loaded beside raid456"
lines=$(newlog)
printf '%s\n' "$lines"
# the kernel refuses raid5j's exports for dm-raid while raid456 has them
# (before the module's own check could say "raid456 is loaded")
printf '%s\n' "$lines" | grep -E 'raid5j: raid456 is loaded|raid5j: exports duplicate symbol [a-z0-9_]+ \(owned by raid456\)' ||
	fail "insmod raid5j beside raid456: no 'raid5j: raid456 is loaded' or duplicate symbol line"
pass "t-refusals/insmod-beside-raid456"
check dmesg
[ $SOFT = 0 ] || exit 1
EOF
B2_OK=$?
R6_STATE=$(vm_val raid6)
sums $R_DISKS $U_DISKS $S_DISKS > "$BUILD/vm-logs/$VM_TEST.sums-after"
same=$U_DISKS
[ "$R6_STATE" = refused ] && same="$same $S_DISKS"
for d in $same; do
	grep -qx "$(grep "^$d " "$BUILD/vm-logs/$VM_TEST.sums-before")" \
		"$BUILD/vm-logs/$VM_TEST.sums-after" ||
		vm_fail "$d changed in boot 2 although its array was refused"
done
vm_log "unchanged by boot 2: $same"
[ "$R6_STATE" = runs ] && [ "$PERSONALITY" = raid5j ] &&
	echo "SKIP t-refusals/raid6: $PERSONALITY runs RAID6 (data verified instead)"

# ---- boot 3 (raid456): the refused arrays are whole -------------------
for d in $U_DISKS; do
	sb_layout "$(vm_disk_path "$d")" 2 > /dev/null
done
PERSONALITY=raid456 vm_boot --timeout 150 - $ALL_DISKS <<'EOF' || vm_fail "boot 3"
. /test/guest-lib.sh
load_personality
fast_sync
U=$(disks u0 u1 u2) S=$(disks s0 s1 s2 s3) R=$(disks r0 r1 r2 r3 r4)
run mdadm --assemble /dev/md0 --backup-file=/run/md0-grow.bak --invalid-backup $R
wait_sync /dev/md0
check state '[5/5] [UUUUU]' /dev/md0
expect_eq "$(md_sysfs md0 raid_disks)" 5 "md0 raid_disks after the reshape"
fio_verify r /dev/md0 --rw=write --bs=64k --iodepth=8 --size=64m --verify_only
check mismatch /dev/md0
run mdadm --assemble /dev/md1 $U
check raid5 /dev/md1
fio_verify u /dev/md1 --rw=randwrite --bs=16k --iodepth=8 --size=16m --verify_only
run mdadm --assemble /dev/md2 $S
check raid6 /dev/md2
fio_verify s /dev/md2 --rw=randwrite --bs=16k --iodepth=8 --size=16m --verify_only
check mismatch /dev/md2
pass "t-refusals/intact-for-raid456"
check dmesg
EOF
[ $B2_OK = 0 ] || vm_fail "boot 2 ($PERSONALITY): see its FAIL lines"
echo "PASS $VM_TEST"
