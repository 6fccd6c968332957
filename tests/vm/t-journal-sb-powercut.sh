#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-sb-powercut: power cuts aimed at superblock updates never leave
# an array that stock mdadm refuses to assemble (Documentation/journal.md,
# "Superblock updates").
#
#	 d0     d1     d2     d3           j
#	  |      |      |      |           |  journal, direct: its
#	 dm-delay on every member:         |  superblock lands at once
#	 writes and flushes held DELAY_MS  |
#	  +------+------+------+-----------+
#	  |  /dev/md0  RAID5, then RAID6 (LEVELS), 4 x 32 MiB, 64K chunk
#
# Per level, a new array and CYCLES cycles.  Cycle c restarts without a
# member when c is even, and with every member when c is odd; cycles 2,
# 3 and 6, 7, ... (c mod 4 in 2..3) run on a volatile disk cache model:
# every disk behind nbdkit's write-back cache (VM_NBD_CACHE), whose
# unflushed writes are lost at the cut.  Each cycle:
#   boot 1: verified random writes ("stamp write", 8 threads); a watcher
#           reads the journal device's superblock (O_DIRECT) every 20 ms
#           and, the moment it changes, marks "sbwrite": the host cuts
#           the power 50 ms later, while the members' superblock writes of
#           the same update (if any) are still held by dm-delay.  With no
#           superblock write within 3-10 s the power is cut anyway.
#   boot 2: stock `mdadm --assemble --run`, no --force, without one member
#           on even cycles and with all of them on odd ones: must start
#           (raid456: a journal one event ahead is refused, "Not safe to
#           assemble with missing or stale journal device"); the array is
#           copied to the dump disk, the missing member re-added and
#           rebuilt, and `check` must find no mismatch.
#   host:   every acknowledged block is intact ("stamp check").
# Passes only if at least MIN_AIMED cycles (default: half) cut the power
# right after a journal superblock write, so it cannot pass vacuously.
#
# CYCLES per level (default 1), LEVELS ("5 6"), DELAY_MS (500).  The
# n-th level's cycles are numbered from n (RAID5: 1.., RAID6: 2..), so the
# default two cycles cover both restarts (with every member, without d0)
# and both disk models (direct, volatile cache) once each, ~2.5 min in
# all.  Long tier: CYCLES=100 (numbers in Documentation/testing.md).
# Disks: 4 x 32 MiB + 8 MiB journal + 128 MiB dump.  ~55 s a cycle.

. "$(dirname "$0")/lib.sh"

CYCLES=${CYCLES:-1}
LEVELS=${LEVELS:-5 6}
DELAY_MS=${DELAY_MS:-500}
MEMBERS="d0 d1 d2 d3"
NMEMBERS=4
vm_stamp

total=0 aimed=0 first=0
for LEVEL in $LEVELS; do
	first=$((first + 1))
	vm_disks 32M $MEMBERS
	vm_disk j 8M
	vm_disk dump 128M

	vm_boot --timeout 120 --env LEVEL="$LEVEL" --env MEMBERS="$MEMBERS" \
		--env NMEMBERS=$NMEMBERS - $MEMBERS j <<'EOF' || vm_fail "create failed"
	. /test/guest-lib.sh
	load_personality
	run mdadm --create /dev/md0 --run --level=$LEVEL --raid-devices=$NMEMBERS \
		--chunk=64 --assume-clean --write-journal=$(disk j) $(disks $MEMBERS)
	report blocks $(( $(blockdev --getsize64 /dev/md0) / 4096 ))
	run mdadm --stop /dev/md0
	# writes, journal_tail moves and a clean stop: how often does each
	# device's event count move?
	events() { mdadm --examine $1 | sed -n 's/^ *Events : //p'; }
	run mdadm --assemble /dev/md0 $(disks $MEMBERS j)
	e0=$(events $(disk j))
	run dd if=/dev/zero of=/dev/md0 bs=1M count=12 oflag=direct
	sleep 6
	report writes "$e0 $(events $(disk j)) $(events $(disk d0))"
	run mdadm --stop /dev/md0
	report stop "$(events $(disk j)) $(events $(disk d0))"
	pass create
EOF
	# raid5j: neither the writes (clean->dirty), the tail moves, nor the
	# stop bump the event count (journal.md section 13)
	echo "RAID$LEVEL events (journal before, after writes; member): $(vm_val writes); after stop (journal, member): $(vm_val stop)"
	if [ "$PERSONALITY" = raid5j ]; then
		read -r e0 e1 m1 <<< "$(vm_val writes)"
		read -r e2 m2 <<< "$(vm_val stop)"
		[ "$e0" = "$e1" ] && [ "$e1" = "$m1" ] && [ "$e2" = "$e1" ] &&
			[ "$m2" = "$e1" ] ||
			vm_fail "RAID$LEVEL: superblock updates during writes or at stop: events $e0 -> $e1 (member $m1) -> stop $e2 (member $m2)"
	fi
	BLOCKS=$(vm_val blocks)
	[ -n "$BLOCKS" ] || vm_fail "no array size"
	DATA_DISKS=$((NMEMBERS - LEVEL + 4))	# 3 for RAID5, 2 for RAID6
	STRIPE_BLOCKS=$((DATA_DISKS * 16))	# data members x 64 KiB chunk / 4 KiB
	ACKS=$BUILD/vm-logs/$VM_TEST.acks
	: > "$ACKS"

	for cycle in $(seq $first $((first + CYCLES - 1))); do
		missing=
		[ $((cycle % 2)) = 0 ] && missing=d$(( (cycle / 2 - 1) % NMEMBERS ))
		fallback_ms=$(( 3000 + RANDOM % 7000 ))
		model=direct
		case $((cycle % 4)) in 2 | 3) model=volatile-cache ;; esac
		export VM_NBD_CACHE=0
		[ $model = volatile-cache ] && VM_NBD_CACHE=1
		total=$((total + 1))
		vm_boot --timeout 150 --kill-mark sbwrite --kill-after 0.05 \
			--env BLOCKS="$BLOCKS" --env STRIPE_BLOCKS=$STRIPE_BLOCKS \
			--env GEN_BASE=$((cycle * 1000000000)) --env MEMBERS="$MEMBERS" \
			--env DELAY_MS="$DELAY_MS" --env FALLBACK_MS=$fallback_ms \
			- $MEMBERS j <<'EOF'
	. /test/guest-lib.sh
	load_personality
	delayed=$(slow_members $DELAY_MS $MEMBERS)
	run mdadm --assemble /dev/md0 $delayed $(disk j)
	[ -e /dev/md0 ] || fail "no md0"
	base=$(journal_sb_sum j)
	share_result_port
	/test/stamp write /dev/md0 "$BLOCKS" "$STRIPE_BLOCKS" 8 120 \
		"$R5J_RESULT_PORT" "$GEN_BASE" &
	end=$(( $(cut -d. -f1 /proc/uptime) * 1000 + FALLBACK_MS ))
	while [ $(( $(cut -d. -f1 /proc/uptime) * 1000 )) -lt $end ]; do
		if [ "$(journal_sb_sum j)" != "$base" ]; then
			mark sbwrite
			report cut aimed
			sleep 100
		fi
		sleep 0.02
	done
	report cut fallback
	mark sbwrite
	sleep 100
EOF
		[ "$VM_KILLED" = 1 ] || vm_fail "RAID$LEVEL cycle $cycle: the VM was not killed"
		grep '^A ' "$VM_RESULTS" >> "$ACKS"
		acks=$(grep -c '^A ' "$VM_RESULTS")
		cut=$(vm_val cut)
		[ "$cut" = aimed ] && aimed=$((aimed + 1))
		how="with every member"
		[ -n "$missing" ] && how="without $missing"
		echo "RAID$LEVEL cycle $cycle ($model): power cut ${cut:-?} (aimed: right after a journal superblock write), $acks writes acknowledged, restarting $how"

		vm_boot --timeout 240 --env MISSING="$missing" --env MEMBERS="$MEMBERS" \
			--env NMEMBERS=$NMEMBERS - $MEMBERS j dump <<'EOF' ||
	. /test/guest-lib.sh
	load_personality
	members=$(disks_but "$MISSING" $MEMBERS)
	for d in $members $(disk j); do
		echo "$d: $(mdadm --examine $d | grep -E 'Events|Device Role' | tr -s ' ' | tr '\n' ' ')"
	done
	if ! mdadm --assemble --run /dev/md0 $members $(disk j); then
		report refused 1
		fail "stock mdadm refused to assemble without --force"
	fi
	want="[$NMEMBERS/$NMEMBERS]"
	[ -n "$MISSING" ] && want="[$NMEMBERS/$((NMEMBERS - 1))]"
	check state "$want" /dev/md0
	check readwrite /dev/md0
	grep -q resync /proc/mdstat && fail "a resync started despite the journal"
	dd if=/dev/md0 of=$(disk dump) bs=1M 2>/dev/null || fail "copying the array failed"
	sync
	if [ -n "$MISSING" ]; then
		run mdadm /dev/md0 --add $(disk $MISSING)
		fast_sync
		sleep 1
		wait_sync /dev/md0
		check state "[$NMEMBERS/$NMEMBERS]" /dev/md0
	fi
	check mismatch /dev/md0
	run mdadm --stop /dev/md0
	pass restart
EOF
			vm_fail "RAID$LEVEL cycle $cycle ($model): restart failed (see $VM_LOG)"
		vm_stamp_check "$(vm_disk_path dump)" "$BLOCKS" "$ACKS" ||
			vm_fail "RAID$LEVEL cycle $cycle: acknowledged data lost or garbage"
	done
done
MIN_AIMED=${MIN_AIMED:-$(((total + 1) / 2))}
[ "$aimed" -ge "$MIN_AIMED" ] ||
	vm_fail "only $aimed of $total power cuts came right after a journal superblock write (want $MIN_AIMED)"
echo "PASS $VM_TEST: $total power cuts ($aimed aimed at a journal superblock write), every assembly without --force, every acknowledged block intact"
exit 0
