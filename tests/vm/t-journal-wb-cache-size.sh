#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-cache-size: write-back caches at any stripe_cache_size
# (journal.md section 15, "raid456's stripe limit").  The cap on
# data-only stripes per raid456 hash list once subtracted
# stripe_cache_size + 32 from 4096: from 4064 on, every write went
# through while journal_mode still said write-back.
#
#	  d0 d1 d2 d3 (32 MiB)      j (16 MiB)
#	    |  /dev/md0 RAID5, 16K chunk, write-back
#
# For each of SIZES (8192 32768): stripe_cache_size set, fio writes 2000
# random 4 KiB blocks qd16 and verifies them; raid5j: journal_stats
# cached_writes grew (the writes were cached) and raid456_list_cap > 0.
# Then stop, assemble, every block verifies again.  raid456 runs the same
# writes and checks.  ~1 minute.

. "$(dirname "$0")/lib.sh"

D="d0 d1 d2 d3"
vm_disks 32M $D
vm_disk j 16M

vm_boot --timeout 300 --mem 3072 --env D="$D" --env SIZES="${SIZES:-8192 32768}" \
	- $D j <<'EOF' || vm_fail "boot"
. /test/guest-lib.sh
load_personality
MD=/sys/block/md0/md
# shellcheck disable=SC2046
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=16 \
	--assume-clean --bitmap=none --write-journal=$(disk j) $(disks $D)
journal_mode write-back
seed=1
for size in $SIZES; do
	echo "$size" > $MD/stripe_cache_size || fail "stripe_cache_size $size refused"
	expect_eq "$(cat $MD/stripe_cache_size)" "$size" "stripe_cache_size"
	c0=$(jstat cached_writes)
	# shellcheck disable=SC2086
	fio_verify "c$size" /dev/md0 --rw=randwrite --bs=4k --iodepth=16 \
		--size=64M --io_size=8000k --randseed=$seed
	if [ "$PERSONALITY" = raid5j ]; then
		c1=$(jstat cached_writes)
		say "stripe_cache_size $size: cached_writes +$((c1 - c0)), raid456_list_cap $(jstat raid456_list_cap), raid456_list_max $(jstat raid456_list_max), dirty_stripes $(jstat dirty_stripes)"
		[ "$(jstat raid456_list_cap)" -gt 0 ] ||
			fail "stripe_cache_size $size: raid456_list_cap 0"
		[ "$c1" -gt "$c0" ] ||
			fail "stripe_cache_size $size: no write cached (cached_writes $c0 -> $c1) though journal_mode is $(cat $MD/journal_mode)"
	fi
	seed=$((seed + 1))
done
run mdadm --stop /dev/md0
# shellcheck disable=SC2046
run mdadm --assemble /dev/md0 $(disks $D) $(disk j)
seed=1
for size in $SIZES; do
	# the last pass wrote last: verify it; earlier ones may be rewritten
	last=$size
	lseed=$seed
	seed=$((seed + 1))
done
# shellcheck disable=SC2086
fio_verify "c$last" /dev/md0 --rw=randwrite --bs=4k --iodepth=16 \
	--size=64M --io_size=8000k --randseed=$lseed --verify_only
check mismatch /dev/md0
run mdadm --stop /dev/md0
check dmesg
pass
EOF
echo "PASS $VM_TEST"
exit 0
