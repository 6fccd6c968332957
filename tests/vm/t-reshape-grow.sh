#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-reshape-grow: mdadm --grow --raid-devices=N+1 of RAID5 and RAID6 under
# verified I/O, with and without --backup-file; the grown arrays are then
# read by the other personality (Documentation/reshape.md 7).
#
#	  a0 a1 a2 +a3       md0  RAID5 3->4, no backup file (mdadm moves
#	  b0 b1 b2 +b3       md1  RAID5 3->4, --backup-file      data_offset)
#	  c0 c1 c2 c3 +c4    md2  RAID6 4->5, no backup file
#	  e0 e1 e2 e3 +e4    md3  RAID6 4->5, --backup-file
#	  h0 h1 h2 +h3       md4  RAID4 3->4, no backup file
#	  j0 j1 j2 +j3 (jj)  md5  RAID5 with a write journal (jj) in
#	                          write-back mode: the grow is refused
#	                          (boot 1 only)
#	  (virtio, 32 MiB each, 64K chunk, created --assume-clean)
#
#	boot 1  PERSONALITY: per array, one after the other: create; fio
#	        writes A (random, 0-16M) and T (the last 2 MiB); add the
#	        spare; grow (reshape held to 3-6 MB/s so it lasts seconds);
#	        while it runs: fio passes over B (random, 16-32M, write and
#	        verify, a new seed each pass) and read-verify A; after it:
#	        verify A, B (last pass), T; write and verify C in the space the
#	        grow added; check.
#	boot 2  INTEROP (default: the other personality): assemble all five,
#	        verify A, B, T, C again, check.
#
# Asserts, per array:
#  - mdadm --grow succeeds (raid5j before the engine: refused, the boot
#    fails with mdadm's message and the kernel's last lines);
#  - /proc/mdstat shows a reshape line in raid456's format while it runs;
#  - at least one fio pass of B overlapped the reshape (started while it
#    ran, and it was still running at the pass's end or
#    md/reshape_position moved meanwhile) and verified;
#  - after it: md/raid_disks N+1, md/reshape_position none, mdadm --detail
#    "Raid Devices : N+1" and "Array Size" = component size x data members,
#    the block device that size, larger than before; every region verifies;
#    check: mismatch_cnt 0;
#  - boot 2: the other personality runs each array at its level with N+1
#    members and that size, every region verifies, mismatch_cnt 0.
# md5 (journal, switched to write-back): mdadm --grow --raid-devices=4
# fails under both (raid456's check_reshape refuses an array with a log;
# raid5j reshapes journaled arrays in write-through only, J5, and says
# so: "raid5j: reshape of an array in write-back journal mode not
# supported"; the write-through grow is t-reshape-journal's); mdadm's
# message says the kernel refused;
# raid_disks 3, no reshape_position, size and spare unchanged, also after
# stop and assemble; A and T verify; check 0.
#
# Disks: 27 x 32 MiB.  Boots: 2.  Timeout: 300 s and 200 s (x
# VM_TIMEOUT_SCALE).
#
# RESHAPE_GROW_QUICK=1 (t-reshape-grow-quick, 6.12's CI lane): md0 only,
# both boots, no md5: a reshape starts, runs under I/O, ends, and the
# other personality reads it.

. "$(dirname "$0")/lib.sh"

case $PERSONALITY in
raid5j) INTEROP=${INTEROP:-raid456} ;;
*) INTEROP=${INTEROP:-raid5j} ;;
esac
ALL="a0 a1 a2 a3 b0 b1 b2 b3 c0 c1 c2 c3 c4 e0 e1 e2 e3 e4 h0 h1 h2 h3"
JDISKS="j0 j1 j2 j3 jj"		# the journaled array (boot 1 only)
QUICK=${RESHAPE_GROW_QUICK:-0}
if [ "$QUICK" = 1 ]; then
	ALL="a0 a1 a2 a3" JDISKS= MDS=0
else
	MDS="0 1 2 3 4"
fi
vm_disks 32M $ALL $JDISKS

# The guest scripts share this prelude.
GUEST_DIR=$BUILD/boot/$VM_TEST.guest
mkdir -p "$GUEST_DIR"
cat > "$GUEST_DIR/prelude.sh" <<'EOF'
. /test/guest-lib.sh
load_personality
# md LEVEL OLD-MEMBERS BACKUP DISKS (the last one is added by the grow)
ARRAYS="
0 5 3 0 a0 a1 a2 a3
1 5 3 1 b0 b1 b2 b3
2 6 4 0 c0 c1 c2 c3 c4
3 6 4 1 e0 e1 e2 e3 e4
4 4 3 0 h0 h1 h2 h3
"
[ "${QUICK:-0}" = 1 ] && ARRAYS="0 5 3 0 a0 a1 a2 a3"
M=1048576
# fio regions; OLD is the array's size (bytes) before the grow
reg_A() { echo "--rw=randwrite --bssplit=4k/30:16k/30:64k/40 --iodepth=8 --offset=0 --size=16m --io_size=6m"; }
reg_B() { echo "--rw=randwrite --bssplit=4k/40:32k/30:128k/30 --iodepth=8 --offset=16m --size=16m --io_size=3m --randseed=$1"; }
reg_T() { echo "--rw=write --bs=128k --iodepth=4 --offset=$(($1 - 2 * M)) --size=2m"; }
reg_C() { echo "--rw=randwrite --bssplit=4k/50:64k/50 --iodepth=8 --offset=$1 --size=8m --io_size=4m"; }
EOF

# ---- boot 1: grow under I/O ----------------------------------------------
g=$(guest 1 <<'EOF'
while read -r md lv nold bk dl; do
	[ -n "$md" ] || continue
	dl=($dl)
	D=/dev/md$md nnew=$((nold + 1)) par=1
	[ "$lv" = 6 ] && par=2
	what="md$md raid$lv $nold->$nnew"
	bkopt=
	if [ "$bk" = 1 ]; then
		bkopt=--backup-file=/run/md$md.bak
		what="$what --backup-file"
	fi
	say "$what"
	run mdadm --create $D --run --level=$lv --chunk=64 --raid-devices=$nold \
		--assume-clean $(disks ${dl[@]:0:$nold})
	old=$(blockdev --getsize64 $D)
	fio_verify A$md $D $(reg_A)
	fio_verify T$md $D $(reg_T $old)
	run mdadm $D --add $(disk ${dl[$nold]})
	check spares 1 $D
	# slow enough that the I/O below meets it, fast enough for CI
	echo 6000 > /sys/block/md$md/md/sync_speed_max
	echo 3000 > /sys/block/md$md/md/sync_speed_min
	t0=$(cut -d' ' -f1 /proc/uptime)
	if ! mdadm --grow $D --raid-devices=$nnew $bkopt > /tmp/grow.out 2>&1; then
		cat /tmp/grow.out
		fail "$what: mdadm --grow failed under $PERSONALITY: $(tail -n 2 /tmp/grow.out | tr '\n' ' ')| kernel: $(dmesg | tail -n 3 | tr '\n' ' ')"
	fi
	cat /tmp/grow.out
	line=$(wait_reshape_line $D)
	say "  $line"
	fio_over_reshape "$what" $D $md 0
	i=$seed
	say "  reshape done in $(awk -v a=$t0 -v b=$t1 'BEGIN { printf "%.1f", b - a }') s; $i fio passes of B, $moved during it"
	expect_eq "$(md_sysfs $D raid_disks)" $nnew "$what md/raid_disks"
	expect_eq "$(md_sysfs $D reshape_position)" none "$what md/reshape_position"
	check raid$lv $D
	check nosync
	comp=$(md_sysfs $D component_size)
	want=$((comp * (nnew - par)))
	mdadm --detail $D > /tmp/detail
	rd=$(sed -n 's/^ *Raid Devices : \([0-9]*\)$/\1/p' /tmp/detail)
	as=$(sed -n 's/^ *Array Size : \([0-9]*\) .*/\1/p' /tmp/detail)
	expect_eq "$rd" $nnew "$what mdadm --detail Raid Devices"
	expect_eq "$as" $want "$what mdadm --detail Array Size (KiB)"
	new=$(blockdev --getsize64 $D)
	expect_eq "$new" $((want * 1024)) "$what size of $D (bytes)"
	[ "$new" -gt "$old" ] || fail "$what: size $new not above $old"
	fio_verify A$md $D $(reg_A) --verify_only
	fio_verify B$md $D $(reg_B $i) --verify_only
	fio_verify T$md $D $(reg_T $old) --verify_only
	fio_verify C$md $D $(reg_C $old)
	check mismatch $D
	report md$md "$old $new $i"
	pass "$what"
	run mdadm --stop $D
done <<< "$ARRAYS"
if [ "$QUICK" = 1 ]; then
	check dmesg
	exit 0
fi

# A grow of an array with a write-back journal is refused, by raid5j
# (write-through only, reshape.md J5) as by raid456 (whose check_reshape
# refuses any array with a log): mdadm fails, nothing moves.
D=/dev/md5
run mdadm --create $D --run --level=5 --chunk=64 --raid-devices=3 \
	--assume-clean --write-journal=$(disk jj) $(disks j0 j1 j2)
old=$(blockdev --getsize64 $D)
fio_verify AJ $D $(reg_A)
fio_verify TJ $D $(reg_T $old)
run mdadm $D --add $(disk j3)
check spares 1 $D
echo write-back > /sys/block/md5/md/journal_mode ||
	fail "journal: write-back refused"
n=$(dmesg | wc -l)
if mdadm --grow $D --raid-devices=4 > /tmp/grow.out 2>&1; then
	cat /tmp/grow.out
	fail "journal: mdadm --grow accepted under $PERSONALITY"
fi
say "journal: mdadm: $(tr '\n' ' ' < /tmp/grow.out)"
say "journal: kernel: $(dmesg | tail -n +$((n + 1)) | grep md5 | tr '\n' ' ')"
if [ "$PERSONALITY" = raid5j ]; then
	dmesg | tail -n +$((n + 1)) | grep -F "md/raid:md5: raid5j: reshape of an array in write-back journal mode not supported" ||
		fail "journal: no raid5j kernel line saying why"
fi
grep -q "Cannot set device shape\|Invalid argument" /tmp/grow.out ||
	fail "journal: mdadm's message does not say the kernel refused: $(tr '\n' ' ' < /tmp/grow.out)"
wait_grow_children
expect_eq "$(md_sysfs $D raid_disks)" 3 "journal: md/raid_disks"
expect_eq "$(md_sysfs $D reshape_position)" none "journal: md/reshape_position"
expect_eq "$(blockdev --getsize64 $D)" "$old" "journal: size"
check spares 1 $D
fio_verify AJ $D $(reg_A) --verify_only
fio_verify TJ $D $(reg_T $old) --verify_only
run mdadm --stop $D
run mdadm --assemble $D $(disks j0 j1 j2 j3 jj)
expect_eq "$(md_sysfs $D raid_disks)" 3 "journal: md/raid_disks after reassembly"
expect_eq "$(md_sysfs $D reshape_position)" none "journal: md/reshape_position after reassembly"
expect_eq "$(blockdev --getsize64 $D)" "$old" "journal: size after reassembly"
check spares 1 $D
check degraded 0 $D
fio_verify AJ $D $(reg_A) --verify_only
fio_verify TJ $D $(reg_T $old) --verify_only
check mismatch $D
pass "journal: grow refused, array unchanged"
run mdadm --stop $D
check dmesg
EOF
)
vm_boot --timeout 300 --env QUICK="$QUICK" "$g" $ALL $JDISKS ||
	vm_fail "boot 1 ($PERSONALITY): grow"
B1=$VM_BOOT_SECS
facts=
for md in $MDS; do
	f=$(vm_val md$md)
	[ -n "$f" ] || vm_fail "boot 1 reported nothing for md$md"
	facts="$facts${facts:+;}$md $f"
done

# ---- boot 2: the other personality reads the grown arrays ----------------
g=$(guest 2 <<'EOF'
IFS=';' read -r -a F <<< "$FACTS"
while read -r md lv nold bk dl; do
	[ -n "$md" ] || continue
	dl=($dl)
	D=/dev/md$md nnew=$((nold + 1))
	for f in "${F[@]}"; do
		set -- $f
		[ "$1" = "$md" ] && { old=$2 new=$3 passes=$4; }
	done
	what="md$md raid$lv $nold->$nnew (grown by $GROWN_BY)"
	run mdadm --assemble $D $(disks ${dl[@]})
	check raid$lv $D
	check nosync
	expect_eq "$(md_sysfs $D raid_disks)" $nnew "$what md/raid_disks"
	expect_eq "$(blockdev --getsize64 $D)" "$new" "$what size"
	fio_verify A$md $D $(reg_A) --verify_only
	fio_verify B$md $D $(reg_B $passes) --verify_only
	fio_verify T$md $D $(reg_T $old) --verify_only
	fio_verify C$md $D $(reg_C $old) --verify_only
	check mismatch $D
	pass "$what read by $PERSONALITY"
	run mdadm --stop $D
done <<< "$ARRAYS"
check dmesg
EOF
)
PERSONALITY=$INTEROP vm_boot --timeout 200 --env QUICK="$QUICK" \
	--env FACTS="$facts" \
	--env GROWN_BY="$PERSONALITY" "$g" $ALL ||
	vm_fail "boot 2 ($INTEROP): the grown arrays"
echo "boot times: ${B1}s (grow, $PERSONALITY) ${VM_BOOT_SECS}s (read, $INTEROP)"
echo "PASS $VM_TEST"
