#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-debug-wb-alloc: allocation failures while evicted write-back stripes
# are read back from the journal and while a degraded destage rebuilds a
# lost clean block from the old stripe (rebuild_clean()).  Debug kernel
# only (failslab, fail_page_alloc): scripts/debug-kernel-check.sh
# t-debug-wb-alloc; exit 77 on a kernel without fault injection.
#
#	  d0    d1    d2    d3        j (8 MiB journal)
#	   +-----+--+--+-----+--------+
#	   /dev/md0 RAID5 4 x 32 MiB, 16K chunk, write-back,
#	   stripe_cache_size 32: dirty stripes are evicted
#	   blocks 4 k (k < 3 NROWS): page 0 of every chunk, gen 1
#	   (write-through); then blocks 12 i (i < NROWS), gen 2 (write-back)
#
#  1. drop_caches (the shrinker drops the evicted entries' RAM copies:
#     journal_stats shrunk_entries > 0); md0's threads (md0_*) fail a
#     random RATE (5-30) % of their slab and page allocations (task
#     filter, sleeping allocations too) while every stamped block is
#     read back (evicted stripes reload from the journal): each reads
#     its generation, none EIO, stale or garbage;
#  2. blocks 12 i written again (gen 3: the reads and aging destaged
#     many), drop_caches again; with the same injection a member fails
#     (mdadm --fail) and every block is read back (the clean blocks of
#     the failed member in dirty stripes need a destage, which rebuilds
#     them from the old stripe: rebuild_clean()'s page allocations
#     fail; aging destages the others the same way), then
#     journal_mode write-through destages every dirty stripe; some of
#     rebuild_clean()'s allocations failed (the failures' stacks in the
#     kernel log name destage(), which inlines it);
#  3. injection off: dirty_stripes reaches 0 within 60 s, journal_stats
#     lost_blocks and journal_read_failures 0, no stripe reported
#     STUCK ("cannot be destaged"), every block reads its generation;
#     mdadm --stop within 60 s; assembled degraded, every block reads
#     back; the member re-added and rebuilt, check: mismatch_cnt 0.
# Any KASAN report, lockdep splat, WARN, BUG or hung task fails it.
#
# raid456 keeps dirty data in RAM and destages as it likes: the same
# assertions hold for it but the journal_stats ones (raid5j only).
# Disks: 4 x 32 MiB, 8 MiB.  Boots: 1.  Timeout: 300 s (x VM_TIMEOUT_SCALE).

. "$(dirname "$0")/lib.sh"

# Debian's kernel has no fault injection: skip without booting it.
if [ -z "${VM_KERNEL:-}" ]; then
	kv=${KVER:-$("$R5J_ROOT/scripts/kver.sh" --image 2>/dev/null)}
	if [ -f "/boot/config-$kv" ] &&
	   ! grep -q '^CONFIG_FAILSLAB=y' "/boot/config-$kv"; then
		echo "SKIP (kernel $kv has no failslab: scripts/debug-kernel-check.sh)"
		exit 77
	fi
fi

vm_stamp
vm_disks 32M d0 d1 d2 d3
vm_disk j 8M
vm_boot --timeout 300 --env NROWS="${NROWS:-300}" \
	--env RATE="${RATE:-$((5 + RANDOM % 26))}" \
	- d0 d1 d2 d3 j <<'EOF2' || vm_fail "boot"
. /test/guest-lib.sh
F=/sys/kernel/debug
if [ ! -d $F/failslab ] || [ ! -d $F/fail_page_alloc ]; then
	report nofault 1
	pass "no failslab: not a debug kernel"
	exit 0
fi
load_personality
fast_sync
M=$(disks d0 d1 d2 d3)
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=16 \
	--assume-clean --write-journal=$(disk j) $M
NBLK=$((3 * NROWS))
run /test/stamp put /dev/md0 0 4 "$NBLK" 1
journal_mode write-back
echo 32 > /sys/block/md0/md/stripe_cache_size || fail "stripe_cache_size 32"
G2=2
run /test/stamp put /dev/md0 0 12 "$NROWS" $G2

faults_on() {
	local a p
	for a in failslab fail_page_alloc; do
		for kv in probability=$RATE interval=1 times=1000000 verbose=0 \
			  space=0 task-filter=Y ignore-gfp-wait=N; do
			echo "${kv#*=}" > "$F/$a/${kv%%=*}" ||
				fail "cannot set $a/${kv%%=*}"
		done
	done
	echo 0 > $F/fail_page_alloc/min-order
	echo N > $F/fail_page_alloc/ignore-gfp-highmem
	for p in /proc/[0-9]*; do
		case $(cat "$p/comm" 2>/dev/null) in
		md0_*) echo 1 > "$p/make-it-fail" ;;
		esac
	done
}
injected() {	# failures of NAME since faults_on
	echo $((1000000 - $(cat $F/$1/times)))
}
faults_off() {
	local a p
	for a in failslab fail_page_alloc; do
		echo 0 > $F/$a/probability
	done
	for p in /proc/[0-9]*/make-it-fail; do
		echo 0 > "$p" 2>/dev/null
	done
}
# verify WHAT: every block reads its generation
verify() {
	/test/stamp get /dev/md0 0 4 "$NBLK" 1 | grep -vE '^ok|^stamp get' |
		awk '$1 != "garbage" || $2 % 12 != 0' > /tmp/bad1
	/test/stamp get /dev/md0 0 12 "$NROWS" "$G2" > /tmp/get2
	grep -vE '^stamp get' /tmp/get2 >> /tmp/bad1
	[ -s /tmp/bad1 ] &&
		fail "$1: $(wc -l < /tmp/bad1) blocks wrong: $(head -n 5 /tmp/bad1 | tr '\n' ' ')"
	log "$1: every block reads back"
}

# ---- 1. reload from the journal ------------------------------------------
echo 3 > /proc/sys/vm/drop_caches
if [ "$PERSONALITY" = raid5j ]; then
	say "evicted_stripes $(jstat evicted_stripes), dirty_stripes $(jstat dirty_stripes), shrunk_entries $(jstat shrunk_entries)"
	[ "$(jstat shrunk_entries)" -gt 0 ] ||
		fail "drop_caches dropped no RAM copy: no reload reads the journal"
fi
r0=$(jstat journal_reads)
faults_on
verify "reload under $RATE% allocation failures"
n1="slab $(injected failslab) page $(injected fail_page_alloc)"
faults_off
say "reload: $RATE%: $n1 failures injected, $(($(jstat journal_reads) - r0)) journal reads"
report reload "$RATE% $n1"
check dmesg
pass "reload"

# ---- 2. degraded destage: rebuild_clean() ----------------------------------
# dirty again (the reads and aging destaged many), evicted, no RAM copies
G2=3
run /test/stamp put /dev/md0 0 12 "$NROWS" $G2
echo 3 > /proc/sys/vm/drop_caches
victim=d$((RANDOM % 4))
faults_on
# each page allocation failure's stack in the kernel log (not the
# console: quiet), to count those of the degraded destage
for kv in verbose=2 verbose_ratelimit_interval_ms=0; do
	echo "${kv#*=}" > "$F/fail_page_alloc/${kv%%=*}" ||
		fail "cannot set fail_page_alloc/${kv%%=*}"
done
dmesg -c > /dev/null
[ "$PERSONALITY" = raid5j ] &&
	say "degraded: $victim fails with dirty_stripes $(jstat dirty_stripes), evicted_stripes $(jstat evicted_stripes)"
run mdadm /dev/md0 --fail $(disk $victim)
verify "degraded ($victim failed) under $RATE% allocation failures"
journal_mode write-through
n2="slab $(injected failslab) page $(injected fail_page_alloc)"
faults_off
echo 0 > $F/fail_page_alloc/verbose
# destage() inlines rebuild_clean() and destage_rmw(), which allocates
# nothing on a degraded stripe: a failure under destage() is
# rebuild_clean()'s
nrc=$(dmesg | grep -c ' destage+')
say "degraded: $RATE%: $n2 failures injected, $nrc of them in rebuild_clean()"
report degraded "$victim $RATE% $n2 rebuild_clean $nrc"
[ "$PERSONALITY" = raid456 ] || [ "$nrc" -gt 0 ] ||
	fail "no allocation of rebuild_clean() failed: the scenario missed it"

# ---- 3. after the faults --------------------------------------------------
t=0
while [ "$PERSONALITY" = raid5j ] && [ "$(jstat dirty_stripes)" != 0 ]; do
	[ $t -ge 600 ] &&
		fail "dirty_stripes $(jstat dirty_stripes) 60 s after the faults: $(tr '\n' ' ' < /sys/block/md0/md/journal_stats | cut -c1-300)"
	sleep 0.1
	t=$((t + 1))
done
if [ "$PERSONALITY" = raid5j ]; then
	expect_eq "$(jstat lost_blocks)" 0 "journal_stats lost_blocks"
	expect_eq "$(jstat journal_read_failures)" 0 "journal_stats journal_read_failures"
fi
dmesg | grep -i 'cannot be destaged' && fail "a stripe was STUCK"
check state '[4/3]' /dev/md0
verify "degraded, faults off"
check dmesg
t0=$(cut -d' ' -f1 /proc/uptime)
mdadm --stop /dev/md0 &
sp=$!
n=0
while kill -0 $sp 2>/dev/null; do
	n=$((n + 1))
	if [ $n -gt 60 ]; then
		echo w > /proc/sysrq-trigger
		result "FAIL $R5J_TEST: mdadm --stop not done after 60 s"
		sleep 5
		echo b > /proc/sysrq-trigger
	fi
	sleep 1
done
wait $sp || fail "mdadm --stop failed"
say "stop: $(echo "$(cut -d' ' -f1 /proc/uptime) $t0" | awk '{ print $1 - $2 }') s"
run mdadm --assemble --run /dev/md0 $(disk j) $(disks_but $victim d0 d1 d2 d3)
verify "assembled degraded"
run mdadm --zero-superblock $(disk $victim)
run mdadm /dev/md0 --add $(disk $victim)
wait_sync /dev/md0
check state '[4/4] [UUUU]' /dev/md0
check mismatch /dev/md0
verify "rebuilt"
check dmesg
run mdadm --stop /dev/md0
pass "degraded destage under allocation failures, nothing lost, stop in time"
EOF2

if [ "$(vm_val nofault)" = 1 ]; then
	echo "SKIP (the VM kernel has no failslab: scripts/debug-kernel-check.sh)"
	exit 77
fi
echo "reload: $(vm_val reload); degraded: $(vm_val degraded)"
exit 0
