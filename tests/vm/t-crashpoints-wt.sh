#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-crashpoints-wt: every crash point of a logged run, write-through journal
# (the other t-crashpoints-* set the variables below and run this script).
#
#	base disk: [ d0 | d1 | d2 | d3 | j ]   dm-linear slices of one device
#	             \____ log-writes ____/     every write, in one order,
#	                        |               with its flush/FUA flags,
#	                    log disk            lands in the log disk
#
# One boot.  Writing: RAID5 (LEVEL=6: five members) over the slices,
# --write-journal on j (JOURNAL=0: none), JMODE write-through or
# write-back; "stamp batches" writes BATCHES rounds of 4 stamped writes
# (O_DIRECT | O_DSYNC: acknowledged = durable) and after each round
# records the acknowledgements and issues a log-writes mark "bN".
# Checking: tests/crashpoints/lwreplay rebuilds the base device at every
# EVERY-th flush or FUA entry of the log after the first mark (default:
# so that about POINTS points are checked), in order;
# at each such point a copy of the rebuilt device is sliced again and the
# array assembled from it, with all members and with one missing (d0, d1,
# ... in turn from point to point; MISSING_ALL=1: each at every point),
# never with --force (JOURNAL=0: degraded starts need --force, and the
# write hole may show).  With a journal no resync may start.  There
# "stamp check" verifies: every write acknowledged before the last mark
# at or before the point reads back intact (its generation or a later
# one), every other block reads back zero or a valid stamp of itself.
# With all members present and a journal, "check" must then give
# mismatch_cnt 0 (every MISMATCH_EVERY-th point).
# CRASH_SEEDS=K (CrashMonkey): at each checked point that is a flush, K
# more states: the log replayed to the previous flush, the FUA writes
# since, and a seeded random half of the other writes since (lwreplay
# crash); each checked like the in-order points.
#
# Asserts: with a journal, no point fails (PERSONALITY=raid456 records
# its failures instead, RECORD=1); without, at least one degraded point
# shows the write hole (which proves the instrument can see a loss).
# A failure's reproducer: the log disk (kept as
# build/vm-logs/<test>.<personality>.log.img),
# the entry and the seed: "lwreplay replay log.img OUT 0 ENTRY" or
# "lwreplay crash log.img OUT ENTRY SEED" rebuilds the base device.
#
# Variables: LEVEL (5), JOURNAL (1), JMODE (write-through), BATCHES (24),
# POINTS (30) or EVERY, POINT_FLAGS (FU: flush and FUA entries; F:
# flushes only), MISSING_ALL (0), MISMATCH_EVERY (4), CRASH_SEEDS (0),
# TIMEOUT (600 s a boot).  An assembly costs ~5 s in TCG (journal
# recovery of up to ~100 stripes included): the CI variants check a few
# dozen points, the -long ones every point.

. "$(dirname "$0")/lib.sh"

LEVEL=${LEVEL:-5}
JOURNAL=${JOURNAL:-1}
JMODE=${JMODE:-write-through}
BATCHES=${BATCHES:-24}
EVERY=${EVERY:-}
POINTS=${POINTS:-30}
POINT_FLAGS=${POINT_FLAGS:-FU}
MISMATCH_EVERY=${MISMATCH_EVERY:-4}
CRASH_SEEDS=${CRASH_SEEDS:-0}
MISSING_ALL=${MISSING_ALL:-0}
TIMEOUT=${TIMEOUT:-600}
RECORD=${RECORD:-0}
[ "$PERSONALITY" = raid456 ] && RECORD=1
NMEMBERS=4
[ "$LEVEL" = 6 ] && NMEMBERS=5

vm_stamp
LWREPLAY=$BUILD/lwreplay
vm_host_cc "$LWREPLAY" -O2 -Wall -static "$R5J_ROOT/tests/crashpoints/lwreplay.c" ||
	vm_fail "cannot build tests/crashpoints/lwreplay.c"
export VM_FILES="$VM_FILES $LWREPLAY"

MEMBER_MB=16 JOURNAL_MB=8
vm_disk base "$((NMEMBERS * MEMBER_MB + JOURNAL_MB))M"
vm_disk log 1G

t0=$(date +%s)
vm_boot --timeout "$TIMEOUT" --mem 2048 --env LEVEL="$LEVEL" \
	--env NMEMBERS=$NMEMBERS --env JOURNAL="$JOURNAL" --env JMODE="$JMODE" \
	--env BATCHES="$BATCHES" --env EVERY="$EVERY" --env POINTS="$POINTS" \
	--env POINT_FLAGS="$POINT_FLAGS" \
	--env MISMATCH_EVERY="$MISMATCH_EVERY" --env CRASH_SEEDS="$CRASH_SEEDS" \
	--env MISSING_ALL="$MISSING_ALL" --env MEMBER_MB=$MEMBER_MB --env JOURNAL_MB=$JOURNAL_MB \
	- base log <<'EOF' || vm_fail "the guest failed (see $VM_LOG)"
. /test/guest-lib.sh
load_personality
modprobe dm-log-writes || fail "no dm-log-writes"
MS=$((MEMBER_MB * 2048)) JS=$((JOURNAL_MB * 2048))
SIZE=$((NMEMBERS * MS + JS))
BASE=$(disk base) LOG=$(disk log)
BLOCKS=768 STRIPE_BLOCKS=12	# 64 stripes of 3 data chunks of 16 KiB

# slices PREFIX DEV: the table (dmsetup create --concise: one call, each
# exec costs in TCG) of the members PREFIXd0.. and the journal PREFIXj on DEV
slices() {
	local i spec=
	for i in $(seq 0 $((NMEMBERS - 1))); do
		spec="$spec;$1d$i,,,rw,0 $MS linear $2 $((i * MS))"
	done
	echo "${spec#;};$1j,,,rw,0 $JS linear $2 $((NMEMBERS * MS))"
}
unslice() {
	local i names=
	for i in $(seq 0 $((NMEMBERS - 1))); do
		names="$names $1d$i"
	done
	dmsetup remove $names "$1j" || fail "dmsetup remove$names $1j"
}
# members PREFIX SKIP: the member slices but SKIP (d0, d1...)
members() {
	local i out=
	for i in $(seq 0 $((NMEMBERS - 1))); do
		[ "d$i" = "$2" ] || out="$out /dev/mapper/$1d$i"
	done
	echo "$out"
}

# ---- writing, logged ----
echo "0 $SIZE log-writes $BASE $LOG" | dmsetup create lw || fail "dmsetup create lw"
dmsetup create --concise "$(slices w /dev/mapper/lw)" || fail "dmsetup create w*"
J=
[ "$JOURNAL" = 1 ] && J=--write-journal=/dev/mapper/wj
run mdadm --create /dev/md0 --run --level=$LEVEL --raid-devices=$NMEMBERS \
	--chunk=16 --assume-clean $J $(members w -)
if [ "$JMODE" = write-back ]; then
	echo write-back > /sys/block/md0/md/journal_mode ||
		fail "journal_mode write-back refused"
	grep -q '\[write-back\]' /sys/block/md0/md/journal_mode ||
		fail "journal_mode: $(cat /sys/block/md0/md/journal_mode)"
fi
run dmsetup message lw 0 mark start
tw=$(date +%s)
run /test/stamp batches /dev/md0 $BLOCKS $STRIPE_BLOCKS 4 "$BATCHES" /tmp/acks 0 \
	"dmsetup message lw 0 mark"
report write_secs $(($(date +%s) - tw))
run mdadm --stop /dev/md0
unslice w
run dmsetup remove lw
/test/lwreplay info "$LOG"
/test/lwreplay list "$LOG" > /tmp/list || fail "lwreplay list failed"
report log "$(/test/lwreplay info "$LOG"), $(grep -c ' M ' /tmp/list) marks"

# ---- the points: flush/FUA entries after the first mark, with the last
# mark at or before each; every EVERY-th ----
all=$(awk -v f="[$POINT_FLAGS]" '$2 ~ /M/ && $3 == "start" { on = 1 } on && $2 ~ f' /tmp/list | wc -l)
every=$EVERY
[ -z "$every" ] && every=$(( (all + POINTS - 1) / POINTS ))
[ "$every" -ge 1 ] || every=1
awk -v every="$every" -v f="[$POINT_FLAGS]" '
	$2 ~ /M/ { m = $3; if (m == "start") on = 1; next }
	on && $2 ~ f { if (n++ % every == 0) print $1, $2, m }' /tmp/list > /tmp/points
report points_all "$all"
report every "$every"
report points "$(wc -l < /tmp/points)"

truncate -s $((SIZE * 512)) /tmp/replay.img
# loop_on FILE: a free loop device attached to FILE (busybox: no --show)
loop_on() {
	local d
	d=$(losetup -f) && losetup "$d" "$1" && echo "$d"
}
modprobe loop

checked=0 failed=0 holes=0 mism=0 nmism=0
# check_state IMAGE WHAT MARK: assemble from a copy of IMAGE, all members
# and one missing (MISSING_ALL=1: each), and check the stamps acknowledged up to MARK
check_state() {
	local origin=$1 what=$2 mk=$3 miss out rc force
	if [ "$mk" = start ]; then : > /tmp/acks.pt; else
		sed "/^M $mk\$/q" /tmp/acks > /tmp/acks.pt
	fi
	misses="- d$((np % NMEMBERS))"
	[ "$MISSING_ALL" = 1 ] &&
		misses="- $(for i in $(seq 0 $((NMEMBERS - 1))); do echo d$i; done)"
	for miss in $misses; do
		cp "$origin" /tmp/work.img || fail "cp $origin"
		WLOOP=$(loop_on /tmp/work.img) || fail "losetup work.img"
		dmsetup create --concise "$(slices c "$WLOOP")" || fail "dmsetup create c*"
		J=
		[ "$JOURNAL" = 1 ] && J=/dev/mapper/cj
		force=
		[ "$JOURNAL" = 0 ] && [ "$miss" != - ] && force=--force
		if ! out=$(mdadm --assemble --run $force /dev/md0 $(members c "$miss") $J 2>&1); then
			failed=$((failed + 1))
			report cpfail "$what missing $miss mark $mk: assembly failed: $(echo "$out" | tail -n 1)"
			mdadm --stop /dev/md0 >/dev/null 2>&1
			unslice c
			losetup -d "$WLOOP"
			continue
		fi
		checked=$((checked + 1))
		if [ "$JOURNAL" = 1 ] && grep -q resync /proc/mdstat; then
			failed=$((failed + 1))
			report cpfail "$what missing $miss mark $mk: a resync started despite the journal"
		fi
		rc=0
		out=$(/test/stamp check /dev/md0 $BLOCKS /tmp/acks.pt) || rc=$?
		if [ $rc != 0 ]; then
			if [ "$JOURNAL" = 0 ]; then
				holes=$((holes + 1))
				report hole "$what missing $miss mark $mk: $(echo "$out" | tail -n 1)"
			else
				failed=$((failed + 1))
				report cpfail "$what missing $miss mark $mk: $(echo "$out" | head -n 2 | tr '\n' ' ')$(echo "$out" | tail -n 1)"
			fi
		fi
		if [ "$miss" = - ] && [ "$JOURNAL" = 1 ] && [ "$DO_MISMATCH" = 1 ]; then
			wait_sync /dev/md0
			echo check > /sys/block/md0/md/sync_action
			wait_sync /dev/md0
			nmism=$((nmism + 1))
			m=$(cat /sys/block/md0/md/mismatch_cnt)
			if [ "$m" != 0 ]; then
				mism=$((mism + 1))
				failed=$((failed + 1))
				report cpfail "$what mark $mk: mismatch_cnt $m after check"
			fi
		fi
		mdadm --stop /dev/md0 >/dev/null 2>&1 || fail "mdadm --stop"
		unslice c
		losetup -d "$WLOOP"
	done
}

from=0 np=0 crashes=0
tc=$(date +%s)
while read -r entry flags mk; do
	run /test/lwreplay replay "$LOG" /tmp/replay.img $from "$entry"
	from=$((entry + 1))
	DO_MISMATCH=0
	[ $((np % MISMATCH_EVERY)) = 0 ] && DO_MISMATCH=1
	check_state /tmp/replay.img "entry $entry" "$mk"
	np=$((np + 1))
	case $flags in *F*) ;; *) continue ;; esac
	s=1
	while [ $s -le "$CRASH_SEEDS" ]; do
		rm -f /tmp/crash.img
		truncate -s $((SIZE * 512)) /tmp/crash.img
		kept=$(/test/lwreplay crash "$LOG" /tmp/crash.img "$entry" "$s") ||
			fail "lwreplay crash $entry $s failed"
		DO_MISMATCH=0
		check_state /tmp/crash.img "entry $entry seed $s ($kept)" "$mk"
		np=$((np + 1))
		crashes=$((crashes + 1))
		s=$((s + 1))
	done
done < /tmp/points
report check_secs $(($(date +%s) - tc))
report summary "points $((np - crashes)) crash_states $crashes assemblies $checked failures $failed write_holes $holes mismatch_checks $nmism mismatches $mism"
report failed $failed
report holes $holes
scan_dmesg || fail "kernel reported a bug"
pass crashpoints
EOF

secs=$(( $(date +%s) - t0 ))
echo "log: $(vm_val log); flush/FUA points after the first mark: $(vm_val points_all), checked $(vm_val points) (every $(vm_val every))"
echo "writing $(vm_val write_secs) s, checking $(vm_val check_secs) s, all $secs s"
grep '^VAL \(cpfail\|hole\) ' "$VM_RESULTS" | head -n 20 | sed 's/^VAL //'
echo "summary ($PERSONALITY, RAID$LEVEL, journal ${JOURNAL/#1/$JMODE}): $(vm_val summary)"
failed=$(vm_val failed) holes=$(vm_val holes)
[ -n "$failed" ] || vm_fail "no summary from the guest"
# run.sh deletes a passing scenario's disks: a failure's log is kept
if [ "$failed" -gt 0 ] || [ "${holes:-0}" -gt 0 ]; then
	KEPT=$BUILD/vm-logs/$VM_TEST.$PERSONALITY.log.img
	cp --sparse=always "$(vm_disk_path log)" "$KEPT" || vm_fail "cannot keep the log"
	echo "reproducer: the log is kept in $KEPT; lwreplay replay LOG OUT 0 ENTRY (crash: lwreplay crash LOG OUT ENTRY SEED) onto a zeroed OUT of $(stat -c %s "$(vm_disk_path base)") bytes"
fi
if [ "$JOURNAL" = 0 ]; then
	[ "${holes:-0}" -gt 0 ] ||
		vm_fail "no point showed the write hole without a journal: the instrument saw nothing"
	echo "PASS $VM_TEST: without a journal, the write hole shows at $holes degraded assemblies"
elif [ "$failed" -gt 0 ] && [ "$RECORD" = 1 ]; then
	echo "PASS $VM_TEST: RECORDED ($PERSONALITY): $failed failures"
elif [ "$failed" -gt 0 ]; then
	vm_fail "$failed failures at crash points"
else
	echo "PASS $VM_TEST: every point intact"
fi
exit 0
