#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-interop: the on-disk layout is mainline's, both ways, for every RAID4/5
# layout and the RAID6 layouts, with different chunk sizes: arrays
# created and written by raid5j are read, checked, degraded and written by
# raid456, then assembled degraded, read, rebuilt and checked by raid5j.
#
#	   m0      m1      m2      m3      m4      virtio, GPT, 21 partitions
#	   |p1..   |p1..   |p1..   |p1..   |p1..   of 8 MiB each
#	+--+-------+-------+-------+-------+--+
#	| md0  RAID5 left-asymmetric    64K   |    array md<i> = partition
#	| md1  RAID5 right-asymmetric  128K   |    i+1 of every disk:
#	| md2  RAID5 left-symmetric     32K   |    5 members of 8 MiB,
#	| md3  RAID5 right-symmetric   256K   |    28 MiB (RAID6: 21 MiB)
#	| md4  RAID5 parity-first       16K   |    of data
#	| md5  RAID5 parity-last        64K   |
#	| md6  RAID4                   128K   |
#	| md7..md20  RAID6, one per layout    |    R5J_INTEROP_RAID6:
#	|   (0-5, ddf 8-10, -6 16-20)         |    1 (default) right-asym.,
#	+-------------------------------------+    left-sym., parity-first,
#	                                           ddf-N-continue, right-sym.-6;
#	                                           all: the 14; 0: none
#
#	boot 1  raid5j   create (real initial sync or recovery), write A, T
#	boot 2  raid456  assemble, verify A T, check, write B, fail a member
#	                 (two for RAID6), verify A T B degraded, write C
#	                 degraded
#	boot 3  raid5j   assemble degraded, verify A T B C, re-add the failed
#	                 member(s), rebuild, verify A T B C, write D, check
#
# Data: fio verify=crc32c, mixed block sizes, one job per array, all
# arrays at once: A random over 0-9M (3 MiB), B sequential 9-11M, C random
# over 11-15M (2 MiB), D random over 15-19M (2 MiB), T sequential, the
# last MiB.
#
# Asserts:
#  - every array assembles on the other personality at the same level,
#    layout, chunk and member count, run by that boot's module;
#  - all data verifies on the other personality, whole, degraded (one
#    member failed, two for RAID6) and after the rebuild;
#  - "check": mismatch_cnt 0 under raid456 on raid5j's initial sync and
#    writes, and under raid5j after its rebuild of raid456's arrays;
#  - boot 3 assembles with md/degraded 1 (2 for RAID6) and rebuilds to
#    md/degraded 0; no kernel BUG/WARNING/Oops/hung task.
# RAID6: if raid5j refuses level 6 in boot 1 (mdadm --create fails with a
# "RAID6" kernel line), the RAID6 arrays are left out of all boots and the
# log says "SKIP t-interop/raid6"; the RAID4/5 verdict stands.
# PERSONALITY=raid456 runs all three boots on raid456 (validation).
#
# Disks: 5 x 170 MiB sparse.  Boots: 3.  Timeout: 400 s per boot
# (R5J_INTEROP_TIMEOUT); about 1-1.5 min a boot with the default set on
# an idle 2-core machine.

. "$(dirname "$0")/lib.sh"

R6=${R5J_INTEROP_RAID6:-1}
SLICE_MIB=8
NSLOTS=21
DISKS="m0 m1 m2 m3 m4"
OTHER=raid456			# the personality of boot 2
TMO=${R5J_INTEROP_TIMEOUT:-400}	# per boot

command -v python3 >/dev/null || vm_fail "python3 needed to write GPT labels"

# gpt IMAGE FIRST_MIB PART_MIB NPARTS: protective MBR, primary and backup
# GPT with NPARTS "Linux RAID" partitions of PART_MIB from FIRST_MIB on.
gpt() {
	python3 - "$@" <<'PY' || vm_fail "writing the GPT of $1 failed"
import os, struct, sys, uuid, zlib
img, first, psize, nparts = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
nsec = os.path.getsize(img) // 512
ents = bytearray(128 * 128)
raid = uuid.UUID('a19d880f-05fc-4d3b-a006-743f0f84911e').bytes_le
base = os.path.basename(img)
for i in range(nparts):
    start = (first + i * psize) * 2048
    end = start + psize * 2048 - 1
    assert end <= nsec - 34, "disk too small"
    ents[i * 128:(i + 1) * 128] = struct.pack('<16s16sQQQ72s', raid,
        uuid.uuid5(uuid.NAMESPACE_OID, '%s-%d' % (base, i)).bytes_le,
        start, end, 0, ('p%d' % (i + 1)).encode('utf-16-le'))
ecrc = zlib.crc32(bytes(ents)) & 0xffffffff
dguid = uuid.uuid5(uuid.NAMESPACE_OID, base).bytes_le
def hdr(cur, alt, elba):
    h = struct.pack('<8sIIIIQQQQ16sQIII', b'EFI PART', 0x10000, 92, 0, 0,
                    cur, alt, 34, nsec - 34, dguid, elba, 128, 128, ecrc)
    h = h[:16] + struct.pack('<I', zlib.crc32(h) & 0xffffffff) + h[20:]
    return h + bytes(512 - len(h))
mbr = bytearray(512)
mbr[446:462] = struct.pack('<B3sB3sII', 0, b'\x00\x02\x00', 0xee,
                           b'\xff\xff\xff', 1, min(nsec - 1, 0xffffffff))
mbr[510:512] = b'\x55\xaa'
with open(img, 'r+b') as f:
    f.write(mbr + hdr(1, nsec - 1, 2) + ents)
    f.seek((nsec - 33) * 512)
    f.write(ents + hdr(nsec - 1, 1, nsec - 33))
PY
}

for d in $DISKS; do
	vm_disk "$d" "$((1 + NSLOTS * SLICE_MIB + 1))M"
	gpt "$(vm_disk_path "$d")" 1 "$SLICE_MIB" "$NSLOTS"
done

# The guest scripts share this prelude (boot-specific part appended).
GUEST_DIR=$BUILD/boot/$VM_TEST.guest
mkdir -p "$GUEST_DIR"
cat > "$GUEST_DIR/prelude.sh" <<'EOF'
. /test/guest-lib.sh
load_personality
fast_sync
DEVS=$(disks m0 m1 m2 m3 m4)

# index level layout-name layout-number chunk(K) [*: in the default RAID6 set]
TABLE="
0 5 left-asymmetric 0 64
1 5 right-asymmetric 1 128
2 5 left-symmetric 2 32
3 5 right-symmetric 3 256
4 5 parity-first 4 16
5 5 parity-last 5 64
6 4 - - 128
7 6 left-asymmetric 0 64
8 6 right-asymmetric 1 32 *
9 6 left-symmetric 2 128 *
10 6 right-symmetric 3 16
11 6 parity-first 4 64 *
12 6 parity-last 5 256
13 6 ddf-zero-restart 8 64
14 6 ddf-N-restart 9 32
15 6 ddf-N-continue 10 128 *
16 6 left-asymmetric-6 16 64
17 6 right-asymmetric-6 17 16
18 6 left-symmetric-6 18 128
19 6 right-symmetric-6 19 32 *
20 6 parity-first-6 20 64
"
# the arrays of this run: RAID4/5, plus RAID6 (R6=1: the starred ones,
# R6=all: all 14, R6=0: none); their
# geometry in bash arrays.  Processes are slow under TCG (0.05-0.1 s
# each), so per-array checks use shell builtins only.
LIST=
while read -r i lv lay layn ch star; do
	[ -n "$i" ] || continue
	if [ "$lv" = 6 ]; then
		case ${R6:-1} in
		all) ;;
		1) [ "$star" = '*' ] || continue ;;
		*) continue ;;
		esac
	fi
	LIST="$LIST $i"
	LV[i]=$lv LAY[i]=$lay LAYN[i]=$layn CH[i]=$ch
	if [ "$lv" = 4 ]; then NAME[i]="md$i/raid4/${ch}K"
	else NAME[i]="md$i/raid$lv/$lay/${ch}K"; fi
done <<< "$TABLE"
LIST=${LIST# }
DEVA=($DEVS)
# MEMBERS[i]: partition i+1 of every disk;  FAILED[i]: the member numbers
# boot 2 fails: i mod 5, and (i + 2) mod 5 too for RAID6
for i in $LIST; do
	MEMBERS[i]="${DEVA[0]}$((i + 1))"
	for k in 1 2 3 4; do MEMBERS[i]="${MEMBERS[i]} ${DEVA[k]}$((i + 1))"; done
	FAILED[i]=$((i % 5))
	[ "${LV[i]}" = 6 ] && FAILED[i]="${FAILED[i]} $(((i + 2) % 5))"
done
member() { local m=(${MEMBERS[$1]}); echo "${m[$2]}"; }
nfailed() { local f=(${FAILED[$1]}); echo ${#f[@]}; }

sysval() {	# sysval VAR INDEX ATTR: VAR = /sys/block/md<INDEX>/md/ATTR
	local _v=
	read -r _v < "/sys/block/md$2/md/$3" 2>/dev/null
	printf -v "$1" %s "$_v"
}

# expect_arrays DEGRADED: every array of LIST is active at its level,
# layout, chunk, 5 raid disks, with md/degraded = DEGRADED (or "failed":
# as many as boot 2 fails), run by $PERSONALITY (one module reference
# per running array).
expect_arrays() {
	local i v want mdstat n=0 refs=0
	mdstat=$(< /proc/mdstat)
	for i in $LIST; do
		[[ "$mdstat" == *"md$i : active raid${LV[i]} "* ]] ||
			fail "${NAME[i]} is not active raid${LV[i]}: $(grep "^md$i " /proc/mdstat)"
		sysval v $i level; expect_eq "$v" "raid${LV[i]}" "${NAME[i]} md/level"
		if [ "${LV[i]}" != 4 ]; then
			sysval v $i layout; expect_eq "$v" "${LAYN[i]}" "${NAME[i]} md/layout"
		fi
		sysval v $i chunk_size; expect_eq "$v" "$((CH[i] * 1024))" "${NAME[i]} md/chunk_size"
		sysval v $i raid_disks; expect_eq "$v" 5 "${NAME[i]} md/raid_disks"
		want=$1
		[ "$want" = failed ] && want=$(nfailed $i)
		sysval v $i degraded; expect_eq "$v" "$want" "${NAME[i]} md/degraded"
		n=$((n + 1))
	done
	read -r refs < "/sys/module/$PERSONALITY/refcnt"
	[ "${refs:-0}" -ge $n ] ||
		fail "$PERSONALITY refcnt $refs: not all $n arrays run on it"
}

# wait_idle: until every array's sync_action is idle (resync, recovery,
# check done), at most MD_SYNC_TIMEOUT s.
wait_idle() {
	local i a t=0 busy
	while :; do
		busy=
		for i in $LIST; do
			sysval a $i sync_action
			[ "$a" = idle ] || { busy="md$i $a"; break; }
		done
		[ -z "$busy" ] && break
		[ $t -ge $((MD_SYNC_TIMEOUT * 5)) ] &&
			fail "$busy after ${MD_SYNC_TIMEOUT}s: $(tr '\n' ' ' < /proc/mdstat)"
		sleep 0.2
		t=$((t + 1))
	done
	grep -Eq 'resync|recovery|reshape|check|repair' /proc/mdstat &&
		fail "idle, yet: $(tr '\n' ' ' < /proc/mdstat)"
	log "all idle after $((t / 5)).$((t % 5 * 2))s"
}

# Regions (MiB of each array; arrays are >= 20 MiB): fio options.
#   A  0-9    random, 3 MiB in all, spread over the stripes
#   B  9-11   sequential
#   C  11-15  random, 2 MiB in all
#   D  15-19  random, 2 MiB in all
#   T  the last MiB, sequential
region() {	# region R INDEX
	local sz
	case $1 in
	A) echo "rw=randwrite bssplit=4k/30:16k/20:64k/30:256k/20 offset=0 size=9m io_size=3m" ;;
	B) echo "rw=write bssplit=4k/30:32k/30:1m/40 offset=9m size=2m" ;;
	C) echo "rw=randwrite bssplit=4k/50:8k/20:64k/30 offset=11m size=4m io_size=2m iodepth=16" ;;
	D) echo "rw=randwrite bssplit=4k/20:12k/20:128k/60 offset=15m size=4m io_size=2m" ;;
	T)
		read -r sz < /sys/block/md$2/size
		echo "rw=write bssplit=8k/50:128k/50 offset=$((sz * 512 - 1048576)) size=1m"
		;;
	esac
}

# fio_phase NAME REGION... [-- fio options]: one fio run, one job per region
# and array.  A phase's job file is always the same list in the same order:
# fio seeds its random generators by job number, and --verify_only must
# replay the very sequence of offsets and block sizes that was written.
fio_phase() {
	local ph=$1 r i o regions=()
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do regions+=("$1"); shift; done
	[ "${1:-}" = -- ] && shift
	{
		echo "[global]"
		echo "iodepth=8"
		for r in "${regions[@]}"; do
			for i in $LIST; do
				echo "[$r-md$i]"
				echo "filename=/dev/md$i"
				for o in $(region "$r" "$i"); do echo "$o"; done
			done
		done
	} > /tmp/phase-$ph.fio
	fio_run "phase $ph (${regions[*]}) $*" /tmp/phase-$ph.fio "$@"
}
W1="W1 A T" W2="W2 B" W3="W3 C" W4="W4 D"

# check_all: "check" on every array at once, each must end with 0.
check_all() {
	local i v
	wait_idle
	for i in $LIST; do
		echo check > /sys/block/md$i/md/sync_action ||
			fail "cannot start check on md$i"
	done
	wait_idle
	for i in $LIST; do
		sysval v $i mismatch_cnt
		expect_eq "$v" 0 "${NAME[i]} mismatch_cnt after check"
	done
}

assemble_all() {
	local i
	for i in $LIST; do
		run mdadm --assemble /dev/md$i ${MEMBERS[i]}
	done
}

stop_all() {
	local i
	for i in $LIST; do run mdadm --stop /dev/md$i; done
}
say "boot $R5J_BOOT, $PERSONALITY: arrays $LIST"
EOF


# ---- boot 1: create under the personality under test, write A and T ----
g=$(guest 1 <<'EOF'
R6_STATE=off
case ${R6:-1} in 1 | all) R6_STATE=on ;; esac
for i in $LIST; do
	lv=${LV[i]}
	opts="--level=$lv --chunk=${CH[i]}"
	[ "$lv" = 4 ] || opts="$opts --layout=${LAY[i]}"
	[ "$lv" = 6 ] && [ "$R6_STATE" = refused ] && continue
	if [ "$lv" = 6 ] && [ "$R6_STATE" = on ]; then
		# the first RAID6 array tells whether the personality runs it
		n=$(dmesg | wc -l)
		if ! mdadm --create /dev/md$i --run --raid-devices=5 $opts ${MEMBERS[i]}; then
			why=$(dmesg | tail -n +$((n + 1)) | grep -i raid6 | head -n 1)
			[ -n "$why" ] ||
				fail "mdadm --create ${NAME[i]} failed, no RAID6 line in dmesg"
			say "SKIP t-interop/raid6: $PERSONALITY refuses RAID6: $why"
			R6_STATE=refused
			mdadm --stop /dev/md$i 2>/dev/null
			continue
		fi
		R6_STATE=runs
		continue
	fi
	run mdadm --create /dev/md$i --run --raid-devices=5 $opts ${MEMBERS[i]}
done
report raid6 $R6_STATE
if [ $R6_STATE = refused ]; then
	z=
	for i in $LIST; do [ "${LV[i]}" = 6 ] && z="$z ${MEMBERS[i]}"; done
	mdadm --zero-superblock $z 2>/dev/null
	LIST=$(for i in $LIST; do [ "${LV[i]}" = 6 ] || echo $i; done)
	LIST=$(echo $LIST)
fi
report list $LIST
wait_idle
expect_arrays 0
for i in $LIST; do
	read -r sz < /sys/block/md$i/size
	[ $sz -ge $((20 * 2048)) ] || fail "${NAME[i]} has only $sz sectors"
done
say "created and synced: $(grep -c '^md' /proc/mdstat) arrays"
fio_phase $W1
pass "t-interop/boot1-written"
stop_all
check dmesg
EOF
)
vm_boot --timeout "$TMO" --env R6="$R6" "$g" $DISKS || vm_fail "boot 1 ($PERSONALITY)"
B1=$VM_BOOT_SECS
LIST=$(vm_val list)
[ -n "$LIST" ] || vm_fail "boot 1 reported no arrays"
case $(vm_val raid6) in
refused)
	echo "SKIP t-interop/raid6: $PERSONALITY refuses RAID6 (md7..md20 left out)"
	R6=0
	;;
off) echo "note: RAID6 arrays disabled (R5J_INTEROP_RAID6=0)" ;;
esac

# ---- boot 2: raid456 reads, checks, degrades, writes ----------------------
g=$(guest 2 <<'EOF'
assemble_all
expect_arrays 0
check nosync
fio_phase $W1 -- --verify_only
pass "t-interop/boot2-read"
check_all
pass "t-interop/boot2-check"
fio_phase $W2
for i in $LIST; do
	for k in ${FAILED[i]}; do
		m=$(member $i $k)
		log "md$i: fail ${m##*/}"
		echo faulty > /sys/block/md$i/md/dev-${m##*/}/state ||
			fail "${NAME[i]}: cannot fail $m"
	done
done
expect_arrays failed
fio_phase $W1 -- --verify_only
fio_phase $W2 -- --verify_only
pass "t-interop/boot2-degraded-read"
fio_phase $W3
pass "t-interop/boot2-degraded-write"
stop_all
check dmesg
EOF
)
PERSONALITY=$OTHER vm_boot --timeout "$TMO" --env R6="$R6" "$g" $DISKS ||
	vm_fail "boot 2 ($OTHER)"
B2=$VM_BOOT_SECS

# ---- boot 3: back on the personality under test: degraded, rebuild -----
g=$(guest 3 <<'EOF'
assemble_all
expect_arrays failed
for w in "$W1" "$W2" "$W3"; do fio_phase $w -- --verify_only; done
pass "t-interop/boot3-degraded-read"
z=
for i in $LIST; do
	for k in ${FAILED[i]}; do z="$z $(member $i $k)"; done
done
run mdadm --zero-superblock $z
for i in $LIST; do
	a=
	for k in ${FAILED[i]}; do a="$a $(member $i $k)"; done
	run mdadm /dev/md$i --add $a
done
wait_idle
expect_arrays 0
pass "t-interop/boot3-rebuilt"
for w in "$W1" "$W2" "$W3"; do fio_phase $w -- --verify_only; done
fio_phase $W4
check_all
pass "t-interop/boot3-check"
stop_all
check dmesg
EOF
)
vm_boot --timeout "$TMO" --env R6="$R6" "$g" $DISKS || vm_fail "boot 3 ($PERSONALITY)"
echo "boot times: ${B1}s ${B2}s ${VM_BOOT_SECS}s"
echo "PASS $VM_TEST"
