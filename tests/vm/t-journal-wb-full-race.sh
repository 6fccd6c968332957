#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-full-race: cached writes decided at the edge of a full
# write-back ring while more blocks of their stripe keep arriving; no
# write may fail (journal.md section 15, "Cached writes and the ring").
#
#	 d0 .. d5 (writes throttled: THROTTLE_BPS, 128 KiB/s)
#	    |  /dev/md0 RAID5 6 x 8 MiB, 4K chunk: a row is 5 blocks
#	    |  journal: dm-linear sized to a ring of JRING (24) blocks
#
# fio writes ROWS (320) rows of 4 KiB blocks in order, 16 submitted at
# once, crc32c verify: the submitter is still adding a row's blocks when
# the daemon looks at the row, and the tiny ring (slow destages behind
# the throttled members) keeps every cached write at the edge of its
# room.  Before the fix the room was counted on the blocks queued when the
# write was first looked at, all queued blocks were then taken and
# logged, the journal refused them, and the write failed (EIO on a
# healthy array).
#   - fio: no error, the data verifies;
#   - raid5j: cached_writes > 0;
#   - stop, assemble: the data verifies again; check: mismatch 0.
# PERSONALITY=raid456 runs the same writes and checks with a 256-block
# ring (on 24 blocks raid456 6.1 hits its BUG() in r5l_write_stripe()).
# ~1 minute.

. "$(dirname "$0")/lib.sh"

# raid456 (6.1) hits its BUG() in r5l_write_stripe() (no log space) on
# a ring this small in write-back: it runs with a 256-block ring
JRING=${JRING:-24}
[ "$PERSONALITY" = raid456 ] && JRING=256
D="d0 d1 d2 d3 d4 d5"
vm_disks 8M $D
vm_disk j 8M
thr=throttling.bps-write=${THROTTLE_BPS:-131072}
tdisks() { local d; for d in $D; do echo "$d,$thr"; done; }

# shellcheck disable=SC2046
vm_boot --timeout 400 --env D="$D" --env ROWS="${ROWS:-320}" \
	--env LOOPS="${LOOPS:-1}" --env JRING="$JRING" - $(tdisks) j <<'EOF' || vm_fail "boot"
. /test/guest-lib.sh
load_personality
MD=/sys/block/md0/md
modprobe dm-mod || fail "no dm-mod"
J=$(disk j)
jdm() {		# jdm SECTORS: (re)make /dev/mapper/jdm that size
	dmsetup remove jdm 2>/dev/null
	echo "0 $1 linear $J 0" | dmsetup create jdm >/dev/null || fail "dmsetup"
	dmsetup mknodes jdm
}
create() {
	# shellcheck disable=SC2046
	mdadm --create /dev/md0 --run --level=5 --raid-devices=6 --chunk=4 \
		--assume-clean --bitmap=none --write-journal=/dev/mapper/jdm \
		$(disks $D) >/dev/null 2>&1 || fail "create"
}
ring() {	# the journal's data area, in sectors, in 4 KiB blocks
	local kb
	kb=$(cat /sys/block/md0/md/dev-dm-*/size) || fail "no journal in md0"
	echo $((kb * 2 / 8 * 8))
}
# a ring of JRING blocks: every cached write is decided at its edge
want=$((JRING * 8))
size=16384
for try in 1 2 3; do
	jdm $size
	create
	r=$(ring)
	[ "$r" = "$want" ] && break
	mdadm --stop /dev/md0 >/dev/null
	# shellcheck disable=SC2046
	mdadm --zero-superblock $(disks $D) /dev/mapper/jdm >/dev/null 2>&1
	size=$((size - r + want))
done
[ "$r" = "$want" ] || fail "could not size the ring to $want sectors (got $r)"
journal_mode write-back
size=$((ROWS * 20))k
jobs() {	# jobs LOOPS [OPTION]
	# 4 KiB blocks in order, 16 submitted at once: the submitter is
	# still adding a row's next blocks when the daemon looks at the row
	printf '[global]\nfilename=/dev/md0\nbs=4k\nrw=write\niodepth=16\niodepth_batch_submit=16\nsize=%s\nloops=%s\n%s\n[w]\n' \
		"$size" "$1" "${2:-}"
}
jobs "$LOOPS" > /tmp/race.fio
jobs "$LOOPS" verify_only=1 > /tmp/check.fio
t0=$(cut -d' ' -f1 /proc/uptime)
fio_jobs /dev/md0 /tmp/race.fio
t1=$(cut -d' ' -f1 /proc/uptime)
say "$LOOPS passes over $ROWS rows: $(echo "$t0 $t1" | awk '{ print $2 - $1 }') s"
if [ "$PERSONALITY" = raid5j ]; then
	say "journal_stats: $(grep -E '^(cached_writes|space_waits|parity_waits|destaged_full|destaged_partial|stripes|ring_sectors|raid456_list_cap|room_short) ' $MD/journal_stats | tr '\n' ' ')"
	[ "$(jstat cached_writes)" -gt 0 ] || fail "no write was cached"
fi
dmesg | grep -E 'md/raid:md0|WARN' | tail -n 5
run mdadm --stop /dev/md0
# shellcheck disable=SC2046
run mdadm --assemble /dev/md0 $(disks $D) /dev/mapper/jdm
fio_jobs /dev/md0 /tmp/check.fio
check mismatch /dev/md0
run mdadm --stop /dev/md0
check dmesg
pass
EOF
echo "PASS $VM_TEST"
exit 0
