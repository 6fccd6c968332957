#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-check-repair: parity scrubbing.  Blocks of members are overwritten
# behind md's back (at Data Offset + the layout's position, from mdadm
# --examine); "check" must count them, "repair" must fix them the way md
# does (parity recomputed from the data), the next "check" must be clean.
#
#	   d0      d1      d2      d3        virtio, 32 MiB each
#	    \       \      /       /
#	     +-------+----+-------+
#	     |      /dev/md0      |          RAID5 left-symmetric, 64K chunk;
#	     +--------------------+          then RAID6 (R5J_CR_RAID6=1)
#	      ^       ^      ^     ^
#	      dd while the array is stopped: P blocks of chunk stripes 2, 5, 8
#	      (4K, 512 bytes, 8K), a data block of chunk stripe 3 (4K), and
#	      for RAID6 a Q block of chunk stripe 6 (4K)
#
# Asserts, for each level:
#  - after a fio write of the first 32 MiB (verify=crc32c), stop/assemble,
#    "check" finds mismatch_cnt 0;
#  - after the injection, "check" finds exactly 8 per damaged 4K stripe
#    (40 for RAID5, 48 for RAID6) and changes nothing (the same count
#    again); "repair" reports the same count; the next "check" is 0;
#  - repair kept the data block as found (md recomputes parity from data):
#    the array reads back the injected bytes there;
#  - with the original data written back, all data verifies, also with
#    the member(s) failed whose data the repaired P/Q must rebuild;
#  - RAID6 with a member missing: a wrong Q (the lost block rebuilt from
#    P) and a wrong P (the lost block is Q) are counted (16) and repaired,
#    the next check is 0, rebuilt and checked again: 0, data verifies;
#  - no kernel BUG/WARNING/Oops/hung task.
# RAID6 is skipped (SKIP line) when the personality refuses level 6.
#
# Disks: 4 x 32 MiB.  Boots: 1.  Timeout: 300 s.

. "$(dirname "$0")/lib.sh"

vm_disks 32M d0 d1 d2 d3
vm_boot --timeout 300 --env R6="${R5J_CR_RAID6:-1}" - d0 d1 d2 d3 <<'EOF'
. /test/guest-lib.sh
load_personality
fast_sync
D=$(disks d0 d1 d2 d3)
DA=($D)
N=4 CHUNK=65536

data_offset() {	# sectors, from mdadm --examine
	mdadm --examine "$1" | sed -n 's/^ *Data Offset : \([0-9]*\) sectors.*/\1/p'
}

# disk_of LEVEL K WHAT: raid disk of P, Q or data block 0 ("D") of chunk
# stripe K, left-symmetric (mainline: pd = n-1 - k mod n, Q after P, data
# after the parity, wrapping).
disk_of() {
	local p=$(((N - 1) - $2 % N))
	case $3 in
	P) echo $p ;;
	Q) echo $(((p + 1) % N)) ;;
	D) [ "$1" = 6 ] && echo $(((p + 2) % N)) || echo $(((p + 1) % N)) ;;
	esac
}

# data_at LEVEL K OFF: array byte offset of OFF in chunk stripe K's data
# block 0
data_at() {
	local ndata=$((N - 1))
	[ "$1" = 6 ] && ndata=$((N - 2))
	echo $(($2 * ndata * CHUNK + $3))
}

# inject LEVEL K WHAT OFF LEN: LEN random bytes at OFF in chunk stripe K's
# WHAT block, written to the member (array stopped); a copy of a data
# block's bytes goes to /tmp/inj-data.
inject() {
	local lv=$1 k=$2 what=$3 off=$4 len=$5 dd dof pos
	dd=$(disk_of $lv $k $what)
	dof=$(data_offset ${DA[dd]})
	[ -n "$dof" ] || fail "no Data Offset on ${DA[dd]}"
	pos=$((dof * 512 + k * CHUNK + off))
	log "inject $len bytes into $what of chunk stripe $k: ${DA[dd]} byte $pos"
	dd if=/dev/urandom of=/tmp/inj bs=$len count=1 2>/dev/null
	dd if=/tmp/inj of=${DA[dd]} bs=512 seek=$((pos / 512)) count=$((len / 512)) \
		conv=notrunc,fsync 2>/dev/null || fail "dd to ${DA[dd]} failed"
	[ "$what" = D ] && cp /tmp/inj /tmp/inj-data
}

sync_run() {	# sync_run ACTION: run check or repair, print mismatch_cnt
	wait_sync /dev/md0 >&2
	echo "$1" > /sys/block/md0/md/sync_action || fail "cannot start $1"
	wait_sync /dev/md0 >&2
	md_sysfs md0 mismatch_cnt
}

ALL="--rw=write --bs=256k --iodepth=8 --size=32m"
for level in 5 6; do
	if [ $level = 6 ] && [ "${R6:-1}" != 1 ]; then
		say "SKIP t-check-repair/raid6: disabled (R5J_CR_RAID6=0)"
		continue
	fi
	log "==== RAID$level"
	n=$(dmesg | wc -l)
	if ! mdadm --create /dev/md0 --run --level=$level --layout=left-symmetric \
		--chunk=$((CHUNK / 1024)) --raid-devices=$N $D; then
		why=$(dmesg | tail -n +$((n + 1)) | grep -i raid6 | head -n 1)
		if [ $level = 6 ] && [ -n "$why" ]; then
			say "SKIP t-check-repair/raid6: $PERSONALITY refuses RAID6: $why"
			mdadm --stop /dev/md0 2>/dev/null
			continue
		fi
		fail "mdadm --create RAID$level failed"
	fi
	wait_sync /dev/md0
	check raid$level /dev/md0
	fio_verify all /dev/md0 $ALL
	run mdadm --stop /dev/md0
	run mdadm --assemble /dev/md0 $D
	expect_eq "$(sync_run check)" 0 "RAID$level mismatch_cnt before injection"

	# the data block's original content, to put back at the end
	AT=$(data_at $level 3 8192)
	dd if=/dev/md0 of=/tmp/orig bs=4096 skip=$((AT / 4096)) count=1 \
		iflag=direct 2>/dev/null || fail "reading md0 at $AT failed"
	run mdadm --stop /dev/md0
	inject $level 2 P 4096 4096
	inject $level 5 P $((16384 + 1024)) 512
	inject $level 8 P 32768 8192
	inject $level 3 D 8192 4096
	want=40
	if [ $level = 6 ]; then
		inject $level 6 Q 12288 4096
		want=48
	fi
	run mdadm --assemble /dev/md0 $D
	check state '[4/4] [UUUU]' /dev/md0

	got=$(sync_run check)
	say "RAID$level check after injection: mismatch_cnt $got (expected $want)"
	expect_eq "$got" $want "RAID$level mismatch_cnt after injecting $((want / 8)) stripes"
	expect_eq "$(sync_run check)" $want "RAID$level second check (check must not repair)"
	got=$(sync_run repair)
	say "RAID$level repair: mismatch_cnt $got"
	expect_eq "$got" $want "RAID$level mismatch_cnt reported by repair"
	expect_eq "$(sync_run check)" 0 "RAID$level mismatch_cnt after repair"
	pass "t-check-repair/raid$level-counted-and-repaired"

	# repair trusted the data: the injected bytes are what the array holds
	dd if=/dev/md0 of=/tmp/readback bs=4096 skip=$((AT / 4096)) count=1 \
		iflag=direct 2>/dev/null || fail "reading md0 at $AT failed"
	cmp -s /tmp/readback /tmp/inj-data ||
		fail "RAID$level: after repair md0 byte $AT is not the data block as found"
	# put the original back: then all fio data must verify
	dd if=/tmp/orig of=/dev/md0 bs=4096 seek=$((AT / 4096)) count=1 \
		oflag=direct conv=notrunc 2>/dev/null || fail "restoring md0 at $AT failed"
	fio_verify all /dev/md0 $ALL --verify_only
	if [ $level = 6 ]; then
		# degraded RAID6: with member 0 missing, the stripe's lost
		# block is rebuilt from one parity and the other is checked.
		# Chunk stripe 2: member 0 holds data (rebuilt from P), Q is
		# checked; chunk stripe 4: member 0 holds Q, P is checked.
		run mdadm --stop /dev/md0
		inject 6 2 Q 4096 4096
		inject 6 4 P 8192 4096
		run mdadm --assemble --run /dev/md0 ${DA[1]} ${DA[2]} ${DA[3]}
		check state '[4/3] [_UUU]' /dev/md0
		got=$(sync_run check)
		say "RAID6 with a member missing, check: mismatch_cnt $got (expected 16)"
		expect_eq "$got" 16 "degraded RAID6 mismatch_cnt (P and Q each wrong once)"
		expect_eq "$(sync_run repair)" 16 "degraded RAID6 mismatch_cnt reported by repair"
		expect_eq "$(sync_run check)" 0 "degraded RAID6 mismatch_cnt after repair"
		run mdadm --zero-superblock ${DA[0]}
		run mdadm /dev/md0 --add ${DA[0]}
		wait_sync /dev/md0
		check state '[4/4] [UUUU]' /dev/md0
		expect_eq "$(sync_run check)" 0 "RAID6 mismatch_cnt after the rebuild"
		fio_verify all /dev/md0 $ALL --verify_only
		pass "t-check-repair/raid6-degraded-check"
	fi
	run mdadm /dev/md0 --fail ${DA[0]}
	[ $level = 6 ] && run mdadm /dev/md0 --fail ${DA[1]}
	fio_verify all /dev/md0 $ALL --verify_only
	pass "t-check-repair/raid$level-degraded-verify"
	run mdadm --stop /dev/md0
	run mdadm --zero-superblock $D
done
check dmesg
EOF
