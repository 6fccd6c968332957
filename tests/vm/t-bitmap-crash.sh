#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-bitmap-crash: after a power cut under writes, an array with a
# write-intent bitmap resyncs only its dirty chunks; one without resyncs
# everything.  Both end consistent.
#
#	   b0   b1   b2   b3            n0   n1   n2   n3     virtio
#	    \    \   /    /              \    \   /    /      64 / 32 MiB
#	   +--------------+            +--------------+
#	   |   /dev/md0   |            |   /dev/md1   |       RAID5, 64K chunk
#	   +--------------+            +--------------+
#	   internal bitmap, 256K chunk  no bitmap, --assume-clean
#	   initial resync
#	         \                            /
#	          fio 4k randwrite in 16M-24M of each, qemu SIGKILLed
#	          2 s after md0's bitmap shows dirty bits on disk (a power cut)
#
#	boot 1  create both, fio-verified data "pre" (128M+4M / 64M+4M),
#	        md0's bitmap must be clean on disk within 30 s (mdadm -X;
#	        bitmap/time_base 1 s: mainline is clean within a few s), random writes,
#	        power cut
#	boot 2  before assembly, mdadm -X b0..b3: dirty bits, no more than
#	        the random writes' 11 chunks (+ boundaries: 14);
#	        assemble md0: a resync runs (md: resync ... done) and reads
#	        from each member no more than the dirty chunks (+1 MiB),
#	        under a quarter of the member; assemble md1 (slowed): a resync
#	        runs over the whole member (sync_completed total = member size)
#	        and reads >= 90% of each member; then "check" mismatch_cnt 0
#	        on both, "pre" verifies on both
#	        after the stop, mdadm -X: no dirty bits left
#
# Asserts as above, plus no kernel BUG/WARNING/Oops/hung task.
# Disks: 4 x 64 MiB + 4 x 32 MiB.  Boots: 2.  Timeout: 150 s per boot.

. "$(dirname "$0")/lib.sh"

B_DISKS="b0 b1 b2 b3" N_DISKS="n0 n1 n2 n3"
vm_disks 64M $B_DISKS
vm_disks 32M $N_DISKS
BM_CHUNK_K=256

vm_boot --timeout 150 --kill-mark writing --kill-after 2 \
	--env BM_CHUNK_K=$BM_CHUNK_K - $B_DISKS $N_DISKS <<'EOF'
. /test/guest-lib.sh
load_personality
fast_sync
# md0 gets a real initial resync: created --assume-clean, its bitmap would
# start all dirty and stay so
run mdadm --create /dev/md0 --run --level=5 --chunk=64 --raid-devices=4 \
	--bitmap=internal --bitmap-chunk=${BM_CHUNK_K}K $(disks b0 b1 b2 b3)
run mdadm --create /dev/md1 --run --level=5 --chunk=64 --raid-devices=4 \
	--assume-clean --bitmap=none $(disks n0 n1 n2 n3)
check raid5 /dev/md0
check raid5 /dev/md1
grep -A3 '^md0 ' /proc/mdstat | grep -q bitmap || fail "md0 has no bitmap"
grep -A3 '^md1 ' /proc/mdstat | grep -q bitmap && fail "md1 has a bitmap"
# clear bits after 1 s instead of 5
echo 1 > /sys/block/md0/md/bitmap/time_base || fail "cannot set bitmap/time_base"
wait_sync /dev/md0
fio_verify pre /dev/md0 --rw=write --bs=64k --iodepth=8 --offset=128m --size=4m
fio_verify pre /dev/md1 --rw=write --bs=64k --iodepth=8 --offset=64m --size=4m
# wait for a clean bitmap on disk: the dirty bits after the power cut are
# then the random writes' alone
b0=$(disk b0)
t=0
while :; do
	blockdev --flushbufs $b0
	dirty=$(mdadm -X $b0 | sed -n 's/^ *Bitmap : .* bits (chunks), \([0-9]*\) dirty.*/\1/p')
	[ "$dirty" = 0 ] && break
	if [ $t -ge 30 ]; then
		# reported, but the power cut still tells how the resync goes
		result "FAIL $R5J_TEST: md0's bitmap still has $dirty dirty bits 30 s after the last write (bitmap/time_base 1 s)"
		break
	fi
	sleep 1
	t=$((t + 1))
done
log "bitmap: $dirty dirty bits on disk after $t s"
report stale "$dirty"
sync
fio --direct=1 --ioengine=libaio --rw=randwrite --bs=4k --iodepth=16 \
	--offset=16m --size=8m --time_based --runtime=100 --randrepeat=0 \
	--name=w0 --filename=/dev/md0 --name=w1 --filename=/dev/md1 \
	> /dev/null 2>&1 &
# the power cut must come after writes are under way: the bitmap bits
# are set on disk before the first write goes to a member, so wait for them
wait_bitmap_dirty $b0
grep -A1 '^md0 ' /proc/mdstat
mark writing
wait
fail "fio ended before the power cut"
EOF
B1=$?
[ "$VM_KILLED" = 1 ] || vm_fail "boot 1 was not killed"
STALE=$(vm_val stale)

vm_boot --timeout 150 --env BM_CHUNK_K=$BM_CHUNK_K --env STALE="${STALE:-0}" \
	- $B_DISKS $N_DISKS <<'EOF' || vm_fail "boot 2 ($PERSONALITY)"
. /test/guest-lib.sh
load_personality
fast_sync
B=$(disks b0 b1 b2 b3) N=$(disks n0 n1 n2 n3)

reads() {	# reads DEV...: sectors read so far, one number per device
	local d s
	for d in "$@"; do
		read -r _ _ s _ < /sys/block/${d##*/}/stat
		echo "$s"
	done
}
# member_reads MD BEFORE...: largest number of sectors read from a member
# of MD since BEFORE (the output of reads, in member order)
max_delta() {
	local before=($1) after=($2) i m=0 dlt
	for i in "${!before[@]}"; do
		dlt=$((after[i] - before[i]))
		[ $dlt -gt $m ] && m=$dlt
	done
	echo $m
}
min_delta() {
	local before=($1) after=($2) i m= dlt
	for i in "${!before[@]}"; do
		dlt=$((after[i] - before[i]))
		[ -z "$m" ] || [ $dlt -lt $m ] && m=$dlt
	done
	echo $m
}
member_sectors() {	# Used Dev Size, in sectors
	local k
	k=$(mdadm --detail "$1" | sed -n 's/^ *Used Dev Size : \([0-9]*\) .*/\1/p')
	echo $((k * 2))
}

# bitmap_bits DEV: "total dirty" from mdadm -X ("Bitmap : N bits (chunks),
# M dirty (x%)"), read past the page cache
bitmap_bits() {
	blockdev --flushbufs "$1"
	mdadm -X "$1" | sed -n 's/^ *Bitmap : \([0-9]*\) bits (chunks), \([0-9]*\) dirty.*/\1 \2/p'
}

# ---- the bitmap after the power cut, before assembly --------------------
DIRTY=0
for d in $B; do
	read -r total dirty <<< "$(bitmap_bits $d)"
	[ -n "$dirty" ] || fail "$d: mdadm -X shows no bitmap"
	log "$d: bitmap $total bits, $dirty dirty"
	[ "$dirty" -gt "$DIRTY" ] && DIRTY=$dirty
done
say "bitmap after the power cut: $total bits, $DIRTY dirty"
report dirty $DIRTY
[ "$DIRTY" -gt 0 ] || fail "no dirty bits after a power cut under writes"
# 8 MiB of array = 2.7 MiB per member = 11 chunks, + chunk boundaries,
# + what boot 1 saw still dirty before the random writes (0 if all is well)
[ "$DIRTY" -le $((14 + STALE)) ] || fail "$DIRTY dirty bits: more than the writes could dirty"

# ---- with bitmap: only the dirty chunks --------------------------------
before=$(reads $B)
t0=$(cut -d' ' -f1 /proc/uptime)
run mdadm --assemble /dev/md0 $B
check raid5 /dev/md0
wait_sync /dev/md0
t1=$(cut -d' ' -f1 /proc/uptime)
after=$(reads $B)
dmesg | grep -E 'md0' | grep -Ei 'resync|reconstruction|bitmap'
dmesg | grep -q 'md: resync of RAID array md0' ||
	fail "md0: no resync after the power cut"
dmesg | grep -q 'md: md0: resync done' || fail "md0: resync did not complete"
MS=$(member_sectors /dev/md0)
r=$(max_delta "$before" "$after")
limit=$((DIRTY * BM_CHUNK_K * 2 + 2048))
say "md0 (bitmap, $DIRTY dirty bits): resync in $(awk "BEGIN{print $t1-$t0}") s, read at most $((r / 2048)) MiB of a $((MS / 2048)) MiB member (limit $((limit / 2048)) MiB)"
report md0_resync_read_sectors $r
[ $r -le $limit ] ||
	fail "md0: resync read $r sectors from a member; $DIRTY dirty bits of ${BM_CHUNK_K}K allow $limit"
[ $r -lt $((MS / 4)) ] || fail "md0: resync read $r of $MS sectors: not a bitmap resync"
pass "t-bitmap-crash/bitmap-resync"

# ---- without bitmap: everything ---------------------------------------
echo 4000 > /proc/sys/dev/raid/speed_limit_max
echo 1000 > /proc/sys/dev/raid/speed_limit_min
before=$(reads $N)
t0=$(cut -d' ' -f1 /proc/uptime)
run mdadm --assemble /dev/md1 $N
check raid5 /dev/md1
sleep 1
check resync
grep -A3 '^md1 ' /proc/mdstat
MS=$(member_sectors /dev/md1)
sc=$(md_sysfs md1 sync_completed)
log "md1 sync_completed: $sc"
expect_eq "${sc#* / }" "$MS" "md1 sync_completed total (full resync over the member)"
fast_sync
wait_sync /dev/md1
t1=$(cut -d' ' -f1 /proc/uptime)
after=$(reads $N)
dmesg | grep -q 'md: resync of RAID array md1' || fail "md1: no resync"
r=$(min_delta "$before" "$after")
say "md1 (no bitmap): resync in $(awk "BEGIN{print $t1-$t0}") s, read at least $((r / 2048)) MiB of each $((MS / 2048)) MiB member"
[ $r -ge $((MS * 9 / 10)) ] || fail "md1: full resync read only $r of $MS sectors"
pass "t-bitmap-crash/full-resync"

check mismatch /dev/md0
check mismatch /dev/md1
fio_verify pre /dev/md0 --rw=write --bs=64k --iodepth=8 --offset=128m --size=4m --verify_only
fio_verify pre /dev/md1 --rw=write --bs=64k --iodepth=8 --offset=64m --size=4m --verify_only
pass "t-bitmap-crash/consistent"
run mdadm --stop /dev/md0
run mdadm --stop /dev/md1
for d in $B; do
	read -r total dirty <<< "$(bitmap_bits $d)"
	expect_eq "$dirty" 0 "$d: dirty bits after the resync and a clean stop"
done
pass "t-bitmap-crash/bitmap-clean"
check dmesg
EOF
vm_log "bitmap: $(vm_val dirty) dirty bits; md0 resync read $(($(vm_val md0_resync_read_sectors) / 2048)) MiB per member at most"
[ "$B1" = 0 ] || vm_fail "boot 1: see its FAIL lines"
echo "PASS $VM_TEST"
