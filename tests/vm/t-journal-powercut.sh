#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-powercut: the write hole, closed.  Cut the power at a random
# moment of verified writes, restart with a member missing, and check every
# acknowledged block.
#
#	  d0    d1    d2    d3        j           dump
#	   \     \    /     /         |  journal   (boot 2: the array
#	    +-----+--+-----+----------+            is copied here, the
#	    |   /dev/md0  RAID5, 4 x 32 MiB,      host checks it)
#	    |   16K chunk, --write-journal=j
#	    +------------------------------
#
# Each cycle:
#   boot 1: "stamp write" runs 8 writers (sub-stripe and whole-stripe random
#           writes, O_DIRECT); each acknowledgement leaves the VM on the
#           result port at once; qemu is SIGKILLed 2-6 s into the writes.
#   boot 2: assemble WITHOUT one member (a different one each cycle) and
#           without --force: must start (journal replayed, no resync);
#           the array is copied to the dump disk; the member is re-added,
#           rebuilt, and "check" must report mismatch_cnt 0.
#   host:   "stamp check": every acknowledged block holds its last
#           acknowledged generation or a later one; no block is garbage.
# The cycles continue on the same array (the log wraps: small journal).
#
# WRITE_PERSONALITY / RESTART_PERSONALITY (default PERSONALITY) pick who
# writes and crashes and who recovers: raid5j's journal recovered by raid456
# and the reverse (t-journal-interop-*).
#
# JMODE=write-back switches the journal to write-back after each boot-1
# assembly and checks that
# journal_mode shows it: writes are acknowledged from the log, and the
# members lag behind (t-journal-wb-powercut).  Boot 2 always assembles in
# md's default mode (write-through): recovery must destage what was dirty.
#
# JOURNAL=0 runs the control: no journal.  Then boot 2 must refuse the
# dirty degraded start; with --force it starts, and the write hole may show
# (the report says whether the checker caught it: it can fail).
#
# Disks: 4 x 32 MiB + JOURNAL_MB (8) MiB journal + 128 MiB dump.  CYCLES
# (default 3).  Timeout: 120 s a boot.
#
# For t-journal-wb-bigcache-powercut: STRIPE_CACHE sets
# stripe_cache_size in boot 1; JWATCH=1 has boot 1 report journal_stats'
# dirty_stripes, evicted_stripes and dirty_bytes every 0.5 s (VAL jstat;
# the writer's acks then share the result port through a FIFO, see
# guest-lib.sh share_result_port) and boot 2 the data-only stripes its
# recovery destaged (recovered_wb_stripes).  With raid5j writing and
# STRIPE_CACHE set, each cycle must have seen evicted stripes and
# recovered more data-only stripes than the stripe cache holds: most of
# the dirty data had left the stripe cache for the journal.
# LOSS_RECORD=1 records lost acknowledged blocks instead of failing (the
# wrapper sets it when raid456 writes or recovers: raid456 has that bug
# there, testing.md section 7); mismatch_cnt and the restart are still asserted.
#
# Unit-by-unit recovery (journal.md section 15, "Recovery with a nearly
# full ring"): with R5J_DEBUGFS recovery_unit_by_unit=1 (raid5j's test
# hook, guest-lib.sh r5j_debugfs_set) every boot 2 of
# raid5j that destaged data-only stripes must report "journal recovery: N
# units, M tail moves" with N > 0.  REC_CUT=1 (raid5j recovering) adds a
# boot between 1 and 2: assemble as boot 2 does, and cut the power 0-0.6 s
# after recovery moved journal_tail the first time (dmesg); boot 2 then
# recovers what is left.  It fails if recovery ended before the cut.
#
# A cut at a full ring (t-journal-wb-fullring-powercut), raid5j writing:
# LOG_HIGH sets writeback_log_high in boot 1; CUT_FULL=1 (with JWATCH=1)
# has boot 1 read journal_stats every 0.1 s and "mark full" once recovery
# could no longer log the batched parity of the dirty stripes after the
# log (r5j_recovery.c: used + P x wb_stripes + ceil(wb_stripes / B) + 1
# blocks > the ring, B 203 or 127) by CUT_MARGIN percent of the room
# after the log (default 50) and CUT_SLACK sectors (default 256): the
# ring moves before the cut (a reclaim moves journal_tail, units in
# flight are lost: t-journal-wb-fullring-powercut has the numbers).  The
# power is cut 0-0.1 s after the mark, not 2-6 s into the writes; not
# full within 40 s of writes: cut then anyway (reported).  Each cycle
# prints journal_tail on disk at the cut and, raid5j recovering, the
# sectors recovery walked.  MEMBER_DRIVE_OPTS: extra qemu -drive options
# for the members (not the journal) in the writing boot, e.g.
# throttling.iops-write=N for slow members.
#
# A large write-back log (t-journal-wb-bigjournal): MEMBER_MB sets the
# members' size (default 32; the dump disk follows), STAMP_SMALL=1 makes
# every write one random 4 KiB block (data-only stripes, no whole rows),
# STAMP_SECONDS (60) how long the writers may run, WRITE_TIMEOUT (120)
# and RESTART_TIMEOUT (180) the boots' timeouts.  CUT_STRIPES=N (JWATCH=1,
# raid5j writing) marks "full" once journal_stats' wb_stripes passes N;
# the cut then comes as for CUT_FULL, and not reaching N within CUT_WAIT
# s (default 40) fails the cycle.  CUT_MS (2000) is the earliest timed cut
# (2-6 s by default).  With JWATCH=1 every journal_stats sample also
# carries the guest's MemAvailable and Slab (kB), and the cycle line
# prints them before the writes and at the cut, with the kmalloc-96/128/192
# slabs' active objects (the journal cache's index entries).
# R456_CUT=1 adds a boot between the cut and boot 2: raid456 assembles as
# boot 2 would, the members throttled as in the writing boot
# (MEMBER_DRIVE_OPTS), and the power is cut 0.3 s + 0-R456_CUT_MS ms
# (1200) after its
# recovery printed "recovering N data-only stripes" (it rewrites them after
# the log and logs their parity before its superblock leaves the old log:
# journal.md, "raid456's room"); boot 2 recovers from what that left.
# RESTART_ALL=1: no member missing after the cut (boot 2 and the raid456
# boot assemble all of them).
# REFUSE_PERSONALITY=raid456 adds a boot between the cut and boot 2 that
# assembles as boot 2 would under that personality, whose recovery must
# fail: REFUSE_MSG (a regex) in dmesg, no kernel bug.  Mainline then runs
# the array all the same, its log dropped (do_md_run() ignores md_start()'s
# error): that is recorded, and the array it serves is copied to the dump
# disk and checked (lost blocks recorded, not asserted).  The boot runs on
# qemu snapshots of the members and the journal (REFUSE_SNAPSHOT=1, the
# default): once mainline has run such an array the journal holds a new
# empty log at sector 0 (journal_tail 0), and raid5j has nothing left to
# recover.  Boot 2 then recovers the disks as the cut left them.

. "$(dirname "$0")/lib.sh"

CYCLES=${CYCLES:-3}
JOURNAL=${JOURNAL:-1}
JMODE=${JMODE:-write-through}
LEVEL=${LEVEL:-5}		# 6: five members, P and Q logged
if [ "$LEVEL" = 6 ]; then
	MEMBERS="d0 d1 d2 d3 d4" NMEMBERS=5 DATA_DISKS=3
else
	MEMBERS="d0 d1 d2 d3" NMEMBERS=4 DATA_DISKS=3
fi
# Interop: who writes (and crashes) and who recovers.
WRITE_PERSONALITY=${WRITE_PERSONALITY:-$PERSONALITY}
RESTART_PERSONALITY=${RESTART_PERSONALITY:-$PERSONALITY}
vm_stamp

MEMBER_MB=${MEMBER_MB:-32}
vm_disks "${MEMBER_MB}M" $MEMBERS
JOURNAL_MB=${JOURNAL_MB:-8}
STAMP_SMALL=${STAMP_SMALL:-0}
STAMP_SECONDS=${STAMP_SECONDS:-60}
WRITE_TIMEOUT=${WRITE_TIMEOUT:-120}
RESTART_TIMEOUT=${RESTART_TIMEOUT:-180}
CUT_STRIPES=${CUT_STRIPES:-}
CUT_WAIT=${CUT_WAIT:-40}
CUT_MS=${CUT_MS:-2000}
REFUSE_PERSONALITY=${REFUSE_PERSONALITY:-}
REFUSE_MSG=${REFUSE_MSG:-Cannot increase cache size|Cannot get enough stripes}
REFUSE_SNAPSHOT=${REFUSE_SNAPSHOT:-1}
STRIPE_CACHE=${STRIPE_CACHE:-}
JWATCH=${JWATCH:-0}
LOSS_RECORD=${LOSS_RECORD:-0}
REC_CUT=${REC_CUT:-0}
R456_CUT=${R456_CUT:-0}
RESTART_ALL=${RESTART_ALL:-0}
R456_CUT_MS=${R456_CUT_MS:-1200}
LOG_HIGH=${LOG_HIGH:-}
CUT_FULL=${CUT_FULL:-0}
CUT_MARGIN=${CUT_MARGIN:-50}
CUT_SLACK=${CUT_SLACK:-256}
[ "$CUT_FULL" = 1 ] || [ -n "$CUT_STRIPES" ] && [ "$WRITE_PERSONALITY" = raid5j ] &&
	[ "$JWATCH" != 1 ] && vm_fail "CUT_FULL=1 and CUT_STRIPES need JWATCH=1"
UNIT_REC=0
printf ' %s ' "${R5J_DEBUGFS:-}" | grep -Eq ' recovery_unit_by_unit=(1|Y|y) ' &&
	UNIT_REC=1
vm_disk j "${JOURNAL_MB}M"
dump_mb=$((DATA_DISKS * MEMBER_MB + 16))
[ $dump_mb -lt 128 ] && dump_mb=128
vm_disk dump "${dump_mb}M"

# Data blocks of the array: written by the guest in boot 1 (VAL blocks).
PERSONALITY=$WRITE_PERSONALITY vm_boot --timeout 120 --env JOURNAL="$JOURNAL" \
	--env LEVEL="$LEVEL" --env MEMBERS="$MEMBERS" --env NMEMBERS=$NMEMBERS \
	- $MEMBERS j <<'EOF' ||
. /test/guest-lib.sh
load_personality
J=
[ "$JOURNAL" = 1 ] && J="--write-journal=$(disk j)"
run mdadm --create /dev/md0 --run --level=$LEVEL --raid-devices=$NMEMBERS \
	--chunk=16 --assume-clean $J $(disks $MEMBERS)
report blocks $(( $(blockdev --getsize64 /dev/md0) / 4096 ))
run mdadm --stop /dev/md0
pass create
EOF
	vm_fail "create failed"
BLOCKS=$(vm_val blocks)
# The disks at the last cut and the log from journal_tail (r5jtool dump);
# kept for a failing cycle, which cut_report points at.
CUT_DIR=$BUILD/vm-logs/$VM_TEST.cut
R5JTOOL=$R5J_ROOT/tools/r5jtool
[ "$JOURNAL" = 1 ] && { [ -x "$R5JTOOL" ] || make -s -C "$R5J_ROOT/tools" ||
	vm_fail "building r5jtool failed"; }
# cut_report: for the first bad blocks the checker named, the payloads of
# the log at the cut that hold them (none: the log did not have them).
cut_report() {
	local b n=0

	for b in $(sed -n 's/^stamp: block \([0-9]*\): .*/\1/p' "$CUT_DIR/check.txt"); do
		n=$((n + 1))
		[ $n -gt 5 ] && break
		echo "cycle $cycle: block $b (array sector $((b * 8))) in the log at the cut:" \
			"$(grep -c " array $((b * 8)) " "$CUT_DIR/log.txt") payload(s)"
	done
	echo "cycle $cycle: $(tail -n 1 "$CUT_DIR/log.txt"); disks and log at the cut kept in $CUT_DIR"
}
[ -n "$BLOCKS" ] || vm_fail "no array size"
STRIPE_BLOCKS=$((DATA_DISKS * 4))	# data members x 16 KiB chunk / 4 KiB
: > "$BUILD/vm-logs/$VM_TEST.acks"
caught=0

for cycle in $(seq 1 "$CYCLES"); do
	missing=d$(( (cycle - 1) % NMEMBERS ))
	[ "$RESTART_ALL" = 1 ] && missing=
	kill_ms=$(( CUT_MS + RANDOM % 4000 ))
	wmembers=
	for m in $MEMBERS; do
		wmembers="$wmembers $m${MEMBER_DRIVE_OPTS:+,$MEMBER_DRIVE_OPTS}"
	done
	cut_mark=writing cut_full=0
	if { [ "$CUT_FULL" = 1 ] || [ -n "$CUT_STRIPES" ]; } &&
	   [ "$WRITE_PERSONALITY" = raid5j ]; then
		kill_ms=$((RANDOM % 100)) cut_mark=full cut_full=1
	fi
	PERSONALITY=$WRITE_PERSONALITY vm_boot --timeout "$WRITE_TIMEOUT" \
		--kill-mark $cut_mark \
		--kill-after "$(printf '%d.%03d' $((kill_ms / 1000)) $((kill_ms % 1000)))" \
		--env LEVEL="$LEVEL" --env LOG_HIGH="$LOG_HIGH" \
		--env CUT_FULL=$cut_full --env CUT_MARGIN="$CUT_MARGIN" \
		--env CUT_STRIPES="$CUT_STRIPES" --env CUT_WAIT="$CUT_WAIT" \
		--env STAMP_SMALL="$STAMP_SMALL" --env STAMP_SECONDS="$STAMP_SECONDS" \
		--env CUT_SLACK="$CUT_SLACK" \
		--env BLOCKS="$BLOCKS" --env STRIPE_BLOCKS=$STRIPE_BLOCKS \
		--env GEN_BASE=$((cycle * 1000000000)) --env JOURNAL="$JOURNAL" \
		--env JMODE="$JMODE" --env STRIPE_CACHE="$STRIPE_CACHE" \
		--env JWATCH="$JWATCH" \
		--env MEMBERS="$MEMBERS" - $wmembers j <<'EOF'
. /test/guest-lib.sh
load_personality
J=
[ "$JOURNAL" = 1 ] && J=$(disk j)
run mdadm --assemble /dev/md0 $(disks $MEMBERS) $J
[ -e /dev/md0 ] || fail "no md0"
if [ "$JMODE" = write-back ]; then
	echo write-back > /sys/block/md0/md/journal_mode ||
		fail "journal_mode write-back refused"
	grep -q '\[write-back\]' /sys/block/md0/md/journal_mode ||
		fail "journal_mode: $(cat /sys/block/md0/md/journal_mode)"
fi
if [ -n "$STRIPE_CACHE" ]; then
	echo "$STRIPE_CACHE" > /sys/block/md0/md/stripe_cache_size ||
		fail "stripe_cache_size $STRIPE_CACHE refused"
fi
if [ -n "$LOG_HIGH" ] && [ "$PERSONALITY" = raid5j ]; then
	echo "$LOG_HIGH" > /sys/block/md0/md/writeback_log_high ||
		fail "writeback_log_high $LOG_HIGH refused"
fi
# MemAvailable and Slab (kB); the kmalloc slabs holding the journal
# cache's index entries (80 + 16 bytes a dirty block): active objects
meminfo() {
	awk '$1 == "MemAvailable:" { a = $2 } $1 == "Slab:" { s = $2 }
	     END { printf "mem_avail_kb=%d slab_kb=%d", a, s }' /proc/meminfo
}
kmallocs() {
	awk '$1 ~ /^(kmalloc-(96|128|192)|biovec-max)$/ { printf " %s=%d", $1, $2 }' \
		/proc/slabinfo 2>/dev/null
}
if [ "$JWATCH" = 1 ] && [ "$PERSONALITY" = raid5j ]; then
	report wbcache 1
	report mem0 "$(meminfo)$(kmallocs)"
	share_result_port
	# P parity pages a stripe, B stripes a parity meta block (recovery)
	P=1 B=203
	[ "$LEVEL" = 6 ] && P=2 B=127
	(
		i=0 full=0
		while :; do
			l= used=0 ring=0 wb=0
			while read -r k v; do
				case $k in
				dirty_stripes | evicted_stripes | dirty_bytes | \
				wb_reserved_sectors | fixed_reserve | tail | head | \
				journal_reads) l="$l $k=$v" ;;
				used_sectors) l="$l $k=$v" used=$v ;;
				wb_stripes) l="$l $k=$v" wb=$v ;;
				ring_sectors) l="$l $k=$v" ring=$v ;;
				esac
			done < /sys/block/md0/md/journal_stats
			l="$l $(meminfo)"
			# recovery's batched parity and empty unit, in sectors,
			# against the ring after the log with the margin
			need=$(( (P * wb + (wb + B - 1) / B + 1) * 8 ))
			if [ "$CUT_FULL" = 1 ] && [ -z "$CUT_STRIPES" ] &&
			   [ $full = 0 ] && [ $wb -gt 0 ] &&
			   [ $need -gt $(( (ring - used) * (100 + CUT_MARGIN) / 100 + CUT_SLACK )) ]; then
				full=1
				report jstat$l
				report jfull "used=$used wb_stripes=$wb ring=$ring$l"
				mark full
			elif [ -n "$CUT_STRIPES" ] && [ $full = 0 ] &&
			     [ $wb -gt "$CUT_STRIPES" ]; then
				full=1
				report jstat$l
				report jfull "used=$used wb_stripes=$wb ring=$ring$l$(kmallocs)"
				mark full
			elif [ "$CUT_FULL" = 1 ] && [ $full = 0 ] &&
			     [ $i -ge $((CUT_WAIT * 10)) ]; then
				full=1
				if [ -n "$CUT_STRIPES" ]; then
					report jfull "not reached: wb_stripes $wb <= $CUT_STRIPES in $CUT_WAIT s: used=$used ring=$ring"
				else
					report jfull "not full in $CUT_WAIT s, cut anyway: used=$used wb_stripes=$wb ring=$ring"
				fi
				mark full
			fi
			# every 0.5 s
			if [ "$CUT_FULL" != 1 ] || [ $((i % 5)) = 0 ]; then
				report jstat$l
			fi
			i=$((i + 1))
			if [ "$CUT_FULL" = 1 ]; then sleep 0.1; else sleep 0.5; fi
		done
	) &
fi
mark writing
small=
[ "$STAMP_SMALL" = 1 ] && small=small
/test/stamp write /dev/md0 "$BLOCKS" "$STRIPE_BLOCKS" 8 "$STAMP_SECONDS" \
	"$R5J_RESULT_PORT" "$GEN_BASE" $small
fail "the writer ran to its end: the power cut did not come"
EOF
	[ "$VM_KILLED" = 1 ] || vm_fail "cycle $cycle: the VM was not killed"
	if [ "$JOURNAL" = 1 ]; then
		# journal_tail at the cut (v1.2 superblock 4 KiB in, byte 152),
		# to compare with where recovery says the log ended
		jt=$(od -An -t u8 -j $((4096 + 152)) -N 8 "$(vm_disk_path j)" | tr -d ' ')
		echo "cycle $cycle: journal_tail on disk at the cut: ${jt:-?}"
		# the disks as the cut left them, and the log recovery will
		# walk: a failing cycle can be replayed and read offline
		rm -rf "$CUT_DIR" && mkdir -p "$CUT_DIR"
		for m in $MEMBERS j; do
			cp --sparse=always "$(vm_disk_path $m)" "$CUT_DIR/" ||
				vm_fail "cycle $cycle: cannot keep the disks at the cut"
		done
		"$R5JTOOL" dump "$(vm_disk_path j)" > "$CUT_DIR/log.txt" 2>&1
	fi
	grep '^A ' "$VM_RESULTS" >> "$BUILD/vm-logs/$VM_TEST.acks"
	acks=$(grep -c '^A ' "$VM_RESULTS")
	if [ $cut_full = 1 ]; then
		echo "cycle $cycle: power cut ${kill_ms} ms after the ring was full ($(vm_val jfull)), $acks writes acknowledged, restarting without $missing"
	else
		echo "cycle $cycle: power cut after ${kill_ms} ms, $acks writes acknowledged, restarting without $missing"
	fi
	wbcache=$(vm_val wbcache)
	if [ "$JWATCH" = 1 ] && [ "$WRITE_PERSONALITY" = raid5j ]; then
		jmax() {
			sed -n "s/^VAL jstat.* $1=\([0-9]*\).*/\1/p" "$VM_RESULTS" | sort -n | tail -n 1
		}
		ev_max=$(jmax evicted_stripes)
		echo "cycle $cycle: last journal_stats before the cut:$(vm_val jstat | sed 's/^/ /');" \
			"max evicted_stripes ${ev_max:-n/a}, max dirty_stripes $(jmax dirty_stripes)"
		if [ "$wbcache" = 1 ] && [ "${ev_max:-0}" -le 0 ]; then
			vm_fail "cycle $cycle: raid5j wrote, but no stripe was evicted before the cut"
		fi
		jring=$(jmax ring_sectors)
		dmax=$(jmax dirty_bytes)
		echo "cycle $cycle: at the cut: max dirty_bytes ${dmax:-?}" \
			"($(( ${dmax:-0} * 100 / (${jring:-0} * 512 + 1) )) % of the ring, $(( ${dmax:-0} / 4096 )) blocks)," \
			"max wb_stripes $(jmax wb_stripes), max evicted_stripes ${ev_max:-?}," \
			"journal_reads $(jmax journal_reads)"
		echo "cycle $cycle: guest memory before the writes: $(vm_val mem0);" \
			"at the cut: $(vm_val jstat | grep -o 'mem_avail_kb=.*')$(vm_val jfull | grep -o ' kmalloc-.*\| biovec-max.*')" \
			"(lowest MemAvailable $(sed -n 's/^VAL jstat.* mem_avail_kb=\([0-9]*\).*/\1/p' "$VM_RESULTS" | sort -n | head -n 1) kB," \
			"highest Slab $(jmax slab_kb) kB)"
		if [ -n "$CUT_STRIPES" ] && vm_val jfull | grep -q '^not reached'; then
			vm_fail "cycle $cycle: $(vm_val jfull)"
		fi
	fi

	if [ -n "$REFUSE_PERSONALITY" ]; then
		# on qemu snapshots of the members and the journal unless
		# REFUSE_SNAPSHOT=0: mainline runs the array anyway and then
		# starts a new log over raid5j's (journal.md section 15)
		rdisks=
		for m in $MEMBERS j; do
			rdisks="$rdisks $m"
			[ "$REFUSE_SNAPSHOT" = 1 ] && rdisks="$rdisks,snapshot=on"
		done
		PERSONALITY=$REFUSE_PERSONALITY vm_boot --timeout "$RESTART_TIMEOUT" \
			--env MISSING="$missing" --env MEMBERS="$MEMBERS" \
			--env REFUSE_MSG="$REFUSE_MSG" - $rdisks dump <<'EOF' ||
. /test/guest-lib.sh
load_personality
t0=$(date +%s)
mdadm --assemble --run /dev/md0 $(disks_but "$MISSING" $MEMBERS) $(disk j)
rc=$?
t1=$(date +%s)
dmesg | grep -E 'md/raid|md0' | tail -n 6
line=$(dmesg | grep -E "$REFUSE_MSG" | head -n 1 | sed 's/^\[[^]]*\] *//')
[ -n "$line" ] || fail "no '$REFUSE_MSG' in dmesg (mdadm exit $rc)"
scan_dmesg || fail "kernel reported a bug"
report refused "mdadm exit $rc after $((t1 - t0)) s: $line"
if grep -q '^md0 : active' /proc/mdstat; then
	# mainline ignores the personality's start() error (md_start() in
	# do_md_run()): the array runs with its log dropped (r5l_exit_log())
	report ran "$(grep '^md0' /proc/mdstat); journal_mode '$(cat /sys/block/md0/md/journal_mode 2>/dev/null)'"
	dd if=/dev/md0 of=$(disk dump) bs=1M 2>/dev/null || fail "copying the array failed"
	sync
	report dumped 1
fi
mdadm --stop /dev/md0 >/dev/null 2>&1
pass refuse
EOF
			vm_fail "cycle $cycle: no '$REFUSE_MSG' from $REFUSE_PERSONALITY's recovery, or a kernel bug"
		echo "cycle $cycle: $REFUSE_PERSONALITY could not recover the log: $(vm_val refused)"
		if [ -n "$(vm_val ran)" ]; then
			# what it served instead: recorded, not asserted
			echo "cycle $cycle: yet $REFUSE_PERSONALITY ran the array without its log: $(vm_val ran)"
			vm_stamp_check "$(vm_disk_path dump)" "$BLOCKS" \
				"$BUILD/vm-logs/$VM_TEST.acks" | tail -n 1 |
				sed "s/^/cycle $cycle: $REFUSE_PERSONALITY's array (RECORDED): /"
		else
			echo "cycle $cycle: $REFUSE_PERSONALITY did not run the array"
		fi
	fi

	if [ "$REC_CUT" = 1 ] && [ "$RESTART_PERSONALITY" = raid5j ]; then
		# 0-0.6 s after the first move: a few to ~40 units in
		# (t-journal-wb-bigcache-powercut: ~15 ms a unit in TCG)
		cut_ms=$((RANDOM % 600))
		PERSONALITY=raid5j vm_boot --timeout 180 --kill-mark tailmoved \
			--kill-after "0.$(printf '%03d' $cut_ms)" --env MISSING="$missing" \
			--env MEMBERS="$MEMBERS" - $MEMBERS j <<'EOF' ||
. /test/guest-lib.sh
load_personality
(
	while ! dmesg | grep -q 'journal recovery: journal_tail moved'; do
		sleep 0.02
	done
	report tailmove "$(dmesg | sed -n 's/.*journal recovery: //p' | head -n 1)"
	mark tailmoved
) &
mdadm --assemble --run /dev/md0 $(disks_but "$MISSING" $MEMBERS) $(disk j)
report recdone "$(dmesg | sed -n 's/.*journal recovery: \([0-9]* units.*\)/\1/p')"
sleep 60
EOF
			vm_fail "cycle $cycle: the boot cut during recovery failed"
		[ "$VM_KILLED" = 1 ] ||
			vm_fail "cycle $cycle: recovery was not cut (no journal_tail move seen)"
		[ -n "$(vm_val recdone)" ] &&
			vm_fail "cycle $cycle: recovery ended ($(vm_val recdone)) before the power cut"
		echo "cycle $cycle: power cut during recovery, $cut_ms ms after: $(vm_val tailmove)"
	fi

	if [ "$R456_CUT" = 1 ]; then
		# raid456's recovery rewrites the data-only stripes after the
		# log and logs their parity; its superblock keeps the old
		# journal_tail until assembly ends, so the old log must survive
		# (members throttled as in the writing boot: the stripes'
		# member writes, which its assembly waits for, take seconds)
		cut_ms=$((300 + RANDOM % R456_CUT_MS))
		rmembers=
		for m in $MEMBERS; do
			rmembers="$rmembers $m${MEMBER_DRIVE_OPTS:+,$MEMBER_DRIVE_OPTS}"
		done
		PERSONALITY=raid456 vm_boot --timeout 180 --kill-mark r456rec \
			--kill-after "$((cut_ms / 1000)).$(printf '%03d' $((cut_ms % 1000)))" \
			--env MISSING="$missing" --env MEMBERS="$MEMBERS" \
			- $rmembers j <<'EOF' ||
. /test/guest-lib.sh
load_personality
(
	while ! dmesg | grep -q 'data-only stripes'; do
		sleep 0.02
	done
	report r456rec "$(dmesg | grep -o 'recovering [0-9]* data-only.*' | head -n 1)"
	mark r456rec
) &
mdadm --assemble --run /dev/md0 $(disks_but "$MISSING" $MEMBERS) $(disk j)
report r456done "mdadm exit $?"
sleep 60
EOF
			vm_fail "cycle $cycle: the raid456 boot cut during its recovery failed"
		# raid456 writing (validating the test) may leave no data-only
		# stripe; raid5j's log at a cut under these writes always has
		if [ "$VM_KILLED" = 1 ]; then
			echo "cycle $cycle: power cut during raid456's recovery, $cut_ms ms after: $(vm_val r456rec); assembly: $(vm_val r456done)"
		elif [ "$WRITE_PERSONALITY" = raid456 ]; then
			echo "cycle $cycle: raid456's recovery found no data-only stripe: not cut ($(vm_val r456done))"
		else
			vm_fail "cycle $cycle: raid456's recovery was not cut (no data-only stripes seen)"
		fi
	fi

	PERSONALITY=$RESTART_PERSONALITY vm_boot --timeout "$RESTART_TIMEOUT" \
		--env JOURNAL="$JOURNAL" --env MISSING="$missing" \
		--env MEMBERS="$MEMBERS" --env NMEMBERS=$NMEMBERS \
		- $MEMBERS j dump <<'EOF' || vm_fail "cycle $cycle: restart failed"
. /test/guest-lib.sh
load_personality
members=$(disks_but "$MISSING" $MEMBERS)
if [ "$JOURNAL" = 1 ]; then
	run mdadm --assemble --run /dev/md0 $members $(disk j)
	up=$NMEMBERS
	[ -n "$MISSING" ] && up=$((NMEMBERS - 1))
	check state "[$NMEMBERS/$up]" /dev/md0
	dmesg | grep -E 'journal:|r5l|recover' | tail -3
	grep -q resync /proc/mdstat && fail "a resync started despite the journal"
	report recovered "$(jstat recovered_wb_stripes)"
	report recunits "$(dmesg | sed -n 's/.*journal recovery: \([0-9]*\) units, \([0-9]*\) tail moves.*/\1 \2/p')"
	report logend "$(dmesg | sed -n 's/.*log ended at sector \([0-9]*\) .*/\1/p' | tail -n 1)"
else
	must_fail mdadm --assemble --run /dev/md0 $members
	dmesg | grep -q 'cannot start dirty degraded array' ||
		fail "no 'cannot start dirty degraded array' message"
	mdadm --stop /dev/md0 2>/dev/null
	run mdadm --assemble --run --force /dev/md0 $members
fi
dd if=/dev/md0 of=$(disk dump) bs=1M 2>/dev/null || fail "copying the array failed"
sync
if [ -n "$MISSING" ]; then
	run mdadm /dev/md0 --add $(disk $MISSING)
	fast_sync
	wait_sync /dev/md0
fi
check state "[$NMEMBERS/$NMEMBERS]" /dev/md0
echo check > /sys/block/md0/md/sync_action
wait_sync /dev/md0
report mismatch $(cat /sys/block/md0/md/mismatch_cnt)
run mdadm --stop /dev/md0
pass restart
EOF
	mismatch=$(vm_val mismatch)
	logend=$(vm_val logend)
	if [ -n "$logend" ] && [ -n "$jt" ]; then
		ring=$(( $(od -An -t u8 -j $((4096 + 136)) -N 8 "$(vm_disk_path j)" | tr -d ' ') & ~7 ))
		echo "cycle $cycle: the log recovery walked: $(( (logend - jt + ring) % ring )) sectors (journal_tail $jt to $logend, ring $ring)"
	fi
	echo "cycle $cycle: mismatch_cnt after rebuild: $mismatch"
	rec=$(vm_val recovered)
	if [ "$UNIT_REC" = 1 ] && [ "$RESTART_PERSONALITY" = raid5j ] &&
	   [ "$JOURNAL" = 1 ]; then
		set -- $(vm_val recunits)
		echo "cycle $cycle: recovery destaged ${rec:-?} data-only stripes in ${1:-no} units, ${2:-no} tail moves"
		[ "${rec:-0}" -gt 0 ] && [ "${1:-0}" -le 0 ] &&
			vm_fail "cycle $cycle: recovery_unit_by_unit=1, but no unit-by-unit recovery reported"
	fi
	# (after a cut during recovery, boot 2 destages only what was left)
	if [ "$JWATCH" = 1 ] && [ "$RESTART_PERSONALITY" = raid5j ]; then
		echo "cycle $cycle: recovery destaged ${rec:-?} data-only stripes"
		if [ "$wbcache" = 1 ] && [ "$REC_CUT" != 1 ] &&
		   [ -n "$STRIPE_CACHE" ] && [ "${rec:-0}" -le "$STRIPE_CACHE" ]; then
			vm_fail "cycle $cycle: raid5j wrote, but recovery destaged only ${rec:-0} data-only stripes (stripe cache $STRIPE_CACHE): the dirty data was not beyond the stripe cache"
		fi
	fi
	mkdir -p "$CUT_DIR"
	bad=0
	vm_stamp_check "$(vm_disk_path dump)" "$BLOCKS" \
		"$BUILD/vm-logs/$VM_TEST.acks" > "$CUT_DIR/check.txt" || bad=1
	cat "$CUT_DIR/check.txt"
	if [ $bad = 1 ]; then
		caught=$((caught + 1))
		[ "$JOURNAL" = 1 ] && cut_report
		if [ "$JOURNAL" = 1 ] && [ "$LOSS_RECORD" = 1 ]; then
			echo "cycle $cycle: RECORDED, not asserted (LOSS_RECORD=1): acknowledged data lost or garbage with the journal"
		elif [ "$JOURNAL" = 1 ]; then
			vm_fail "cycle $cycle: acknowledged data lost or garbage with the journal"
		fi
	fi
	[ "$JOURNAL" = 1 ] && [ "$mismatch" != 0 ] &&
		vm_fail "cycle $cycle: mismatch_cnt $mismatch after rebuild"
done

if [ "$JOURNAL" = 1 ] && [ "$caught" -gt 0 ]; then
	echo "PASS $VM_TEST: $CYCLES power cuts, acknowledged data lost in $caught (recorded: LOSS_RECORD=1)"
elif [ "$JOURNAL" = 1 ]; then
	echo "PASS $VM_TEST: $CYCLES power cuts, every acknowledged block intact"
else
	echo "control (no journal): the checker caught the write hole in $caught of $CYCLES cycles"
fi
exit 0
