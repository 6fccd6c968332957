#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-tracepoints: raid5j's tracepoints (events/raid5j in tracefs) fire under
# load, their lines parse, and nothing warns.
#
#	RAID5: d0 d1 d2 d3 + journal j, 64K chunk, --assume-clean
#
#   1. every event of raid5j enabled; write-through fio random writes with
#      verify: r5j_stripe_get/handle/release, r5j_member_submit/end (as
#      many ends as submits), r5j_unit_submit/stable and
#      r5j_journal_reclaim each fire;
#   2. write-back, stripe_cache_size 32, random writes over 16 MiB:
#      r5j_wb_cache, r5j_wb_evict and r5j_wb_destage fire; the shrinker
#      drops the evicted stripes' RAM copies (drop_caches), and reading
#      them back fires r5j_wb_reload; the data verifies;
#   3. back to write-through (the cache drains), events off, "check"
#      counts mismatch_cnt 0.
# raid456 has no tracepoints: its leg runs the load and checks 3 (KNOWN).
#
# Asserts as above, plus no kernel BUG/WARNING.  Disks: 4 x 64 MiB,
# journal 32 MiB.  Boots: 1.  Timeout: 240 s.

. "$(dirname "$0")/lib.sh"

D="d0 d1 d2 d3"
vm_disks 64M $D
vm_disk j 32M

vm_boot --timeout 240 --env D="$D" - $D j <<'EOF' || vm_fail "$PERSONALITY"
. /test/guest-lib.sh
load_personality
S=/sys/block/md0/md
T=/sys/kernel/tracing
r5j=0
[ "$PERSONALITY" = raid5j ] && r5j=1

[ -d $T/events ] || mount -t tracefs nodev $T || fail "no tracefs"

# phase_start: empty buffer, raid5j events on
phase_start() {
	echo 0 > $T/tracing_on
	echo > $T/trace
	echo 1 > $T/events/raid5j/enable || fail "enable raid5j events"
	echo 1 > $T/tracing_on
}

# phase_end: tracing off, the buffer to /tmp/trace; lost events fail
phase_end() {
	echo 0 > $T/tracing_on
	cat $T/trace > /tmp/trace
	grep -q 'LOST' /tmp/trace && log "some events overwritten (buffer full)"
	log "events: $(grep -oE ' r5j_[a-z_]+:' /tmp/trace | sort | uniq -c | tr -s ' \n' ' ')"
}

# fired EVENT...: each EVENT has at least one line in /tmp/trace
fired() {
	local e
	for e in "$@"; do
		grep -q " $e: md0 " /tmp/trace || fail "no $e event"
	done
}

run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=64 \
	--assume-clean --write-journal="$(disk j)" $(disks $D)
check raid5 /dev/md0
echo 8192 > $T/buffer_size_kb

# 1. write-through
[ $r5j = 1 ] && phase_start
fio_verify WT /dev/md0 --rw=randwrite --bs=4k --iodepth=8 --size=4m
if [ $r5j = 1 ]; then
	phase_end
	fired r5j_stripe_get r5j_stripe_handle r5j_stripe_release \
		r5j_member_submit r5j_member_end r5j_unit_submit r5j_unit_stable \
		r5j_journal_reclaim
	grep -q 'LOST' /tmp/trace || expect_eq \
		"$(grep -c ' r5j_member_end: ' /tmp/trace)" \
		"$(grep -c ' r5j_member_submit: ' /tmp/trace)" "member ends = submits"
	grep -m1 ' r5j_unit_submit: ' /tmp/trace |
		grep -qE 'md0 seq=[0-9]+ pos=[0-9]+ sectors=[0-9]+' ||
		fail "r5j_unit_submit line: $(grep -m1 ' r5j_unit_submit: ' /tmp/trace)"
	# design.md's worked example: a journal unit's p99 submit-to-stable
	p99=$(awk '/ r5j_unit_(submit|stable): / {
		match($0, / seq=[0-9]+/); q = substr($0, RSTART + 5, RLENGTH - 5)
		for (i = 2; i <= NF; i++) if ($i ~ /^r5j_unit_/) t = $(i - 1) + 0 }
		/ r5j_unit_submit: / { s[q] = t }
		/ r5j_unit_stable: / && (q in s) { print (t - s[q]) * 1e6 }' /tmp/trace |
		sort -n | awk '{ a[NR] = $1 } END { print int(a[int(NR * 0.99) + 1]) }')
	log "journal unit submit to stable: p99 $p99 us"
	[ "${p99:-0}" -gt 0 ] || fail "worked example: no p99"
	pass "t-tracepoints/write-through"
fi

# 2. write-back with a small cache
journal_mode write-back
echo 32 > $S/stripe_cache_size || fail "stripe_cache_size 32"
[ $r5j = 1 ] && phase_start
fio_verify WB /dev/md0 --rw=randwrite --bs=4k --iodepth=8 --size=16m \
	--offset=16m --do_verify=0
echo 3 > /proc/sys/vm/drop_caches
fio_verify WB /dev/md0 --rw=randwrite --bs=4k --iodepth=8 --size=16m \
	--offset=16m --verify_only
if [ $r5j = 1 ]; then
	phase_end
	fired r5j_wb_cache r5j_wb_evict r5j_wb_reload r5j_wb_destage
	pass "t-tracepoints/write-back"
else
	log "KNOWN: raid456 has no tracepoints"
fi

# 3. drained, consistent
journal_mode write-through
[ $r5j = 1 ] && echo 0 > $T/events/raid5j/enable
check mismatch /dev/md0
run mdadm --stop /dev/md0
check dmesg
EOF
echo "PASS $VM_TEST"
