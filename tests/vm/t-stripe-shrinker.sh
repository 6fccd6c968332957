#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-stripe-shrinker: the stripe cache gives memory back under memory
# pressure and the array goes on.
#
#	RAID5: d0 d1 d2 d3 + journal j, write-back, stripe_cache_size 4096
#
#   1. fio random 4 KiB writes with verify run while the page cache and
#      slab are dropped (drop_caches) and a tmpfs file takes all but
#      128 MiB of the free memory (of 768 MiB), twice: fio finishes and verifies, no
#      task hangs (watchdog 150 s);
#   2. raid5j: stripes_allocated (raid5j_stats) falls during the pressure
#      and stripes_shrunk counts it; after it, more writes grow the cache
#      back to stripe_cache_size, which reads 4096 throughout.  raid456
#      frees only stripes above stripe_cache_size, which it treats as its
#      floor: its leg checks 1 and 3 alone (said as KNOWN);
#   3. write-through again (the cache drains), "check" counts mismatch_cnt
#      0, and a last write reads back.
#
# Asserts as above, plus no kernel BUG/WARNING.  Disks: 4 x 64 MiB,
# journal 32 MiB.  Boots: 1.  Timeout: 300 s.

. "$(dirname "$0")/lib.sh"

D="d0 d1 d2 d3"
vm_disks 64M $D
vm_disk j 32M

vm_boot --timeout 300 --mem 768 --env D="$D" - $D j <<'EOF' || vm_fail "$PERSONALITY"
. /test/guest-lib.sh
load_personality
S=/sys/block/md0/md
r5j=0
[ "$PERSONALITY" = raid5j ] && r5j=1

r5j_stat() { awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }' $S/raid5j_stats 2>/dev/null; }

# pressure: drop caches, then fill tmpfs up to 128 MiB of free memory
pressure() {
	local avail
	echo 3 > /proc/sys/vm/drop_caches
	avail=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
	log "MemAvailable ${avail} MiB, stripes $(r5j_stat stripes_allocated)"
	mkdir -p /tmp/hog
	mount -t tmpfs -o size=90% none /tmp/hog
	dd if=/dev/zero of=/tmp/hog/f bs=1M count=$((avail - 128)) 2>/dev/null
	log "hog: $(du -m /tmp/hog/f | cut -f1) MiB, stripes $(r5j_stat stripes_allocated)"
	echo 3 > /proc/sys/vm/drop_caches
	rm -f /tmp/hog/f
	umount /tmp/hog
}

# lowest stripes_allocated seen until /tmp/fio.done
watch_stripes() {
	(
		low=$(r5j_stat stripes_allocated)
		while [ ! -e /tmp/fio.done ]; do
			n=$(r5j_stat stripes_allocated)
			[ "$n" -lt "$low" ] && low=$n
			echo "$low" > /tmp/stripes.low
			sleep 0.2
		done
	) &
}

run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=64 \
	--assume-clean --write-journal="$(disk j)" $(disks $D)
check raid5 /dev/md0
journal_mode write-back
echo 4096 > $S/stripe_cache_size || fail "stripe_cache_size 4096 refused"
[ $r5j = 1 ] && expect_eq "$(r5j_stat stripes_allocated)" 4096 "stripes allocated"

# 1. writes under memory pressure
rm -f /tmp/fio.done
hang_watchdog 150
[ $r5j = 1 ] && watch_stripes
(fio_verify W /dev/md0 --rw=randwrite --bs=4k --iodepth=16 --size=128m \
	--time_based --runtime=15 --verify_backlog=256 &&
 : > /tmp/fio.ok) &
fio=$!
sleep 3
pressure
sleep 1
pressure
wait $fio
: > /tmp/fio.done
kill "$wd" 2>/dev/null
[ -e /tmp/fio.ok ] || fail "fio under memory pressure"
pass "t-stripe-shrinker/writes"

# 2. memory given back, and grown back
expect_eq "$(cat $S/stripe_cache_size)" 4096 "stripe_cache_size after pressure"
if [ $r5j = 1 ]; then
	low=$(cat /tmp/stripes.low)
	shrunk=$(r5j_stat stripes_shrunk)
	log "stripes: lowest $low, shrunk $shrunk"
	[ "$low" -lt 2048 ] || fail "stripe cache kept $low stripes under pressure"
	[ "$shrunk" -gt 0 ] || fail "stripes_shrunk is 0"
	sleep 2
	fio_verify G /dev/md0 --rw=randwrite --bs=4k --iodepth=16 --size=128m \
		--time_based --runtime=5
	expect_eq "$(r5j_stat stripes_allocated)" 4096 "stripes grown back"
	pass "t-stripe-shrinker/given-back"
else
	log "KNOWN: raid456 keeps stripe_cache_size as its floor: nothing to give back"
fi

# 3. drained and consistent
journal_mode write-through
check mismatch /dev/md0
fio_verify C /dev/md0 --rw=write --bs=64k --iodepth=8 --size=32m
run mdadm --stop /dev/md0
check dmesg
EOF
echo "PASS $VM_TEST"
