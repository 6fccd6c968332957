#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-sb-cuts: the long tier of t-journal-sb-powercut, many aimed
# power cuts in one boot (xfstests style: every device's writes dropped at
# once instead of killing the VM), so hundreds of cycles fit in an hour.
#
#	vdX --- pX (linear; at the cut: flakey drop_writes) --- sX (dm-delay:
#	         writes and flushes held DELAY_MS, 2 s: the cut in the guest
#	         takes longer than the host's kill) --- md0 member
#	vdj --- pj (linear; at the cut: flakey drop_writes) -------- md0 journal
#	/dev/md0 RAID5 or RAID6 (LEVEL), 4 x 32 MiB, 64K chunk
#
# Each cycle, in the guest:
#   write   "stamp write" (8 threads, acks to a file); a watcher reads the
#           journal device's superblock (O_DIRECT, from vdj) every 20 ms;
#           the moment it changes (or after 8-20 s) the writer is stopped
#           (SIGSTOP: no ack after this point) and the power is cut: every
#           pX is suspended first (nothing completes any more), then all
#           get drop_writes tables and resume; held member writes of the
#           same superblock update are dropped when dm-delay lets them go.
#   stop    the writer is killed, md0 stopped (its writes vanish), the
#           linear tables restored, every cache dropped.
#   restart stock `mdadm --assemble --run`, no --force, without one member
#           on even cycles: must start read-write with no resync (raid456:
#           a journal one event ahead is refused, and the test fails, in
#           its first cycle when tried); every acknowledged block intact
#           ("stamp check" of md0); the member re-added and rebuilt; check
#           finds no mismatch.  The array stays up for the next cycle.
# CYCLES (default 100), LEVEL (5), DELAY_MS (2000).  ~30 s a cycle.
# Not in CI (see t-journal-sb-powercut); numbers in testing.md.

. "$(dirname "$0")/lib.sh"

CYCLES=${CYCLES:-100}
LEVEL=${LEVEL:-5}
DELAY_MS=${DELAY_MS:-2000}
MEMBERS="d0 d1 d2 d3"
vm_stamp

vm_disks 32M $MEMBERS
vm_disk j 8M

vm_boot --timeout $((CYCLES * 60 + 120)) --env LEVEL="$LEVEL" \
	--env MEMBERS="$MEMBERS" --env CYCLES="$CYCLES" \
	--env DELAY_MS="$DELAY_MS" - $MEMBERS j <<'EOF' ||
. /test/guest-lib.sh
load_personality
sz() { blockdev --getsz "$(disk "$1")"; }
linear() { echo "0 $(sz "$1") linear $(disk "$1") 0"; }
dead() { echo "0 $(sz "$1") flakey $(disk "$1") 0 0 1000000 1 drop_writes"; }
devs="$MEMBERS j"
for d in $devs; do
	run dmsetup create "p$d" --table "$(linear "$d")"
	run dmsetup mknodes "p$d"
done
for d in $MEMBERS; do
	run dmsetup create "s$d" --table \
		"0 $(sz "$d") delay /dev/mapper/p$d 0 0 /dev/mapper/p$d 0 $DELAY_MS"
	run dmsetup mknodes "s$d"
done
# member writes held DELAY_MS while writing; not while recovering, whose
# replay writes one block at a time
delay() {
	local d
	for d in $MEMBERS; do
		dmsetup suspend "s$d"
		dmsetup load "s$d" --table \
			"0 $(sz "$d") delay /dev/mapper/p$d 0 0 /dev/mapper/p$d 0 $1"
		dmsetup resume "s$d"
	done
}
member_path() { echo "/dev/mapper/s$1"; }
all_members() { local d; for d in $MEMBERS; do member_path "$d"; done; }
run mdadm --create /dev/md0 --run --level=$LEVEL --raid-devices=4 \
	--chunk=64 --assume-clean --write-journal=/dev/mapper/pj $(all_members)
blocks=$(( $(blockdev --getsize64 /dev/md0) / 4096 ))
stripe_blocks=$(( (4 - LEVEL + 4) * 16 ))
# the power cut: suspend every device first, so no write completes on one
# after another has died, then drop every write
power_cut() {
	local d
	for d in $devs; do dmsetup suspend --noflush "p$d"; done
	for d in $devs; do dmsetup load "p$d" --table "$(dead "$d")"; done
	for d in $devs; do dmsetup resume "p$d"; done
}
restore() {
	local d
	for d in $devs; do
		dmsetup suspend "p$d"
		dmsetup load "p$d" --table "$(linear "$d")"
		dmsetup resume "p$d"
	done
}
fast_sync
: > /tmp/acks
aimed=0
for cycle in $(seq 1 $CYCLES); do
	base=$(journal_sb_sum j)
	/test/stamp write /dev/md0 $blocks $stripe_blocks 8 120 \
		/tmp/acks.cur $((cycle * 1000000000)) > /dev/null &
	spid=$!
	fallback=$(( $(cut -d. -f1 /proc/uptime) + 8 + RANDOM % 12 ))
	how=fallback
	while [ "$(cut -d. -f1 /proc/uptime)" -lt $fallback ]; do
		if [ "$(journal_sb_sum j)" != "$base" ]; then
			how=aimed
			break
		fi
		sleep 0.02
	done
	log "cycle $cycle: $how cut"
	kill -STOP $spid
	power_cut
	log "cycle $cycle: writes dropped"
	kill -KILL $spid
	wait $spid 2>/dev/null
	log "cycle $cycle: writer gone"
	[ $how = aimed ] && aimed=$((aimed + 1))
	cat /tmp/acks.cur >> /tmp/acks
	n=$(wc -l < /tmp/acks.cur)
	rm -f /tmp/acks.cur
	delay 0		# what it still holds is dropped below: no need to wait
	mdadm --stop /dev/md0 > /dev/null 2>&1 || fail "cycle $cycle: cannot stop md0"
	log "cycle $cycle: stopped"
	restore
	log "cycle $cycle: restored"
	echo 3 > /proc/sys/vm/drop_caches
	missing=
	[ $((cycle % 2)) = 0 ] && missing=d$(( (cycle / 2) % 4 ))
	members=
	for d in $MEMBERS; do
		[ "$d" = "$missing" ] || members="$members $(member_path $d)"
	done
	( sleep 120; dmesg -n 8; echo w > /proc/sysrq-trigger;
	  echo l > /proc/sysrq-trigger ) &
	dog=$!
	asm=0
	mdadm --assemble --run /dev/md0 $members /dev/mapper/pj > /tmp/asm 2>&1 ||
		asm=1
	kill $dog 2>/dev/null
	log "cycle $cycle: assembled ($asm)"
	if [ $asm = 1 ]; then
		cat /tmp/asm
		for d in $members /dev/mapper/pj; do
			echo "$d: $(mdadm --examine $d | grep -E 'Events' | tr -s ' ')"
		done
		report refused_at $cycle
		fail "cycle $cycle ($how): stock mdadm refused to assemble without --force"
	fi
	check readwrite /dev/md0
	grep -q resync /proc/mdstat && fail "cycle $cycle: a resync started"
	echo 3 > /proc/sys/vm/drop_caches
	/test/stamp check /dev/md0 $blocks /tmp/acks > /tmp/check 2>&1 ||
		fail "cycle $cycle ($how${missing:+, without $missing}): $(cat /tmp/check | tail -3 | tr '\n' ' ')"
	if [ -n "$missing" ]; then
		run mdadm /dev/md0 --add $(member_path $missing)
		sleep 0.5
		wait_sync /dev/md0
	fi
	check state "[4/4]" /dev/md0
	check mismatch /dev/md0
	delay $DELAY_MS
	restart="every member"
	[ -n "$missing" ] && restart="without $missing, re-added"
	say "cycle $cycle: $how, $n acks, $restart: $(tail -1 /tmp/check)"
done
report aimed $aimed
run mdadm --stop /dev/md0
pass cuts
EOF
	vm_fail "see $VM_LOG"
echo "PASS $VM_TEST: RAID$LEVEL, $CYCLES power cuts in one boot ($(vm_val aimed) aimed at a journal superblock write), none refused, every acknowledged block intact"
exit 0
