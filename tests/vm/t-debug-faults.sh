#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-debug-faults: injected I/O errors and allocation failures (debug kernel
# only: make check-debug; exit 77 on a kernel without fail_make_request).
#
#	  d0    d1    d2    d3       j (16 MiB)      j2: spare journal
#	   \     \    /     /        |  journal
#	    +-----+--+-----+---------+
#	    |  /dev/md0 RAID5 4 x 40 MiB, 64K chunk, --write-journal
#	    |   [0, 16 MiB)    "stamp" writers (acknowledged-write checker)
#	    |   [64, 88 MiB)   fio with crc32c verification
#	    +-------------------------------
#
# Boot 1, I/O errors (fail_make_request, random rates, reported):
#  1. members: one random member fails a random 1-10% of its bios during
#     fio randwrite + verify (bs 4k-64k): fio must see no error and verify
#     (reads and writes are redone from the other members); the array may
#     lose that member, never more; with injection off the data verifies
#     again; re-adding the member rebuilds it and check finds no mismatch.
#  2. journal: the journal fails a random 1-20% of its bios under 4 stamp
#     writers: writes may fail (the journal is dead), but every write
#     that was acknowledged reads back intact and nothing is garbage; a
#     dead journal is replaced (--add-journal j2) and writes work again.
# Boot 2, allocation failures (failslab + fail_page_alloc):
#  3. I/O path: md0's kernel threads (md0_raid5, journal) fail a random
#     1-10% of their slab and page allocations (task-filter, sleeping
#     allocations included) under 4 stamp writers: no write may fail, no
#     member or journal may fail, every acknowledged write reads back,
#     check: mismatch_cnt 0.
#  4. start/stop: "echo active|inactive > md/array_state" with exactly one
#     failed allocation at a random point of that write (fail-nth), ROUNDS
#     (default 10) times each: each either succeeds or fails cleanly, and
#     the array then starts whole, with its journal, writable; at the end
#     a plain assemble finds the data intact.
# All along: any KASAN report, lockdep splat, WARN, BUG, hang or leak
# (kmemleak, debug kernels) fails the boot.
#
# Disks: 4 x 40 MiB, 2 x 16 MiB.  Boots: 2.  Timeout: 300 s a boot (times
# VM_TIMEOUT_SCALE).

. "$(dirname "$0")/lib.sh"

# Debian's kernel has no fault injection: skip without booting it.
if [ -z "${VM_KERNEL:-}" ]; then
	kv=${KVER:-$("$R5J_ROOT/scripts/kver.sh" --image 2>/dev/null)}
	if [ -f "/boot/config-$kv" ] &&
	   ! grep -q '^CONFIG_FAIL_MAKE_REQUEST=y' "/boot/config-$kv"; then
		echo "SKIP (kernel $kv has no fail_make_request: make check-debug)"
		exit 77
	fi
fi

vm_stamp

vm_disks 40M d0 d1 d2 d3
vm_disks 16M j j2

# Shared by both guest scripts: fault-injection knobs and the array.
# shellcheck disable=SC2016 # expanded in the guest
FAULT_LIB='
F=/sys/kernel/debug
BLOCKS=4096		# stamp region: 16 MiB
STRIPE_BLOCKS=48	# 3 data members x 64 KiB / 4 KiB
FIO="--rw=randwrite --bsrange=4k-64k --iodepth=16 --offset=64m --size=24m"

# fault NAME KNOB=VALUE...: set knobs of /sys/kernel/debug/NAME
fault() {
	local d=$F/$1 kv
	shift
	for kv in "$@"; do
		echo "${kv#*=}" > "$d/${kv%%=*}" || fail "cannot set $d/${kv%%=*}"
	done
}

# injected NAME: failures injected since "times" was set to 1000000
injected() {
	echo $((1000000 - $(cat $F/$1/times)))
}

# every fault type off, every task flag cleared
faults_off() {
	local a p
	for a in fail_make_request failslab fail_page_alloc; do
		echo 0 > $F/$a/probability
	done
	for p in /proc/[0-9]*/task/*/make-it-fail; do
		echo 0 > "$p" 2>/dev/null
	done
	for p in /sys/block/*/make-it-fail; do
		echo 0 > "$p" 2>/dev/null
	done
}

# md_threads: PIDs of md0 kernel threads (md0_raid5, the journal thread...)
md_threads() {
	local p
	for p in /proc/[0-9]*; do
		case $(cat "$p/comm" 2>/dev/null) in md0_*) echo "${p#/proc/}" ;; esac
	done
}

# journal_dead: md0 has a journal device marked faulty
journal_dead() {
	local s
	for s in /sys/block/md0/md/dev-*/state; do
		grep -q journal "$s" 2>/dev/null && grep -q faulty "$s" && return 0
	done
	return 1
}

mdstat() {
	grep -A2 "^md0" /proc/mdstat | tr "\n" " "
}
'

# ---- boot 1: I/O errors -------------------------------------------------

vm_boot --timeout 300 --env FAULT_LIB="$FAULT_LIB" \
	- d0 d1 d2 d3 j j2 <<'EOF' || vm_fail "boot 1 (I/O errors)"
. /test/guest-lib.sh
eval "$FAULT_LIB"
if [ ! -d $F/fail_make_request ]; then
	report nofault 1
	pass "no fail_make_request: not a debug kernel"
	exit 0
fi
load_personality
fast_sync
run mdadm --create /dev/md0 --run --level=5 --raid-devices=4 --chunk=64 \
	--assume-clean --write-journal=$(disk j) $(disks d0 d1 d2 d3)
check raid5 /dev/md0
check state '[4/4] [UUUU]' /dev/md0

# 1. member errors
victim=d$((RANDOM % 4))
vdev=$(basename $(disk $victim))
rate=$((1 + RANDOM % 10))
say "members: $victim ($vdev) fails $rate% of its bios during fio"
fault fail_make_request probability=$rate interval=1 times=1000000 verbose=0 space=0
echo 1 > /sys/block/$vdev/make-it-fail
fio_verify M /dev/md0 $FIO
n=$(injected fail_make_request)
faults_off
report member_errors "$victim $rate% $n"
say "members: $n errors injected; $(mdstat)"
check dmesg
deg=$(md_sysfs /dev/md0 degraded)
[ "$deg" -le 1 ] || fail "member errors on $victim alone took $deg members: $(mdstat)"
for d in d0 d1 d2 d3; do
	[ $d = $victim ] && continue
	grep "^md0" /proc/mdstat | grep -q "$(basename $(disk $d))\[[0-9]*\](F)" &&
		fail "$d failed, but only $victim had errors"
done
fio_verify M-again /dev/md0 $FIO --verify_only
if [ "$deg" = 1 ]; then
	run mdadm /dev/md0 --remove failed
	run mdadm /dev/md0 --add $(disk $victim)
	wait_sync /dev/md0
fi
check state '[4/4] [UUUU]' /dev/md0
check mismatch /dev/md0
fio_verify M-rebuilt /dev/md0 $FIO --verify_only
pass "members"

# 2. journal errors
rate=$((1 + RANDOM % 20))
jdev=$(basename $(disk j))
say "journal: fails $rate% of its bios under 4 writers"
fault fail_make_request probability=$rate interval=1 times=1000000 verbose=0 space=0
echo 1 > /sys/block/$jdev/make-it-fail
/test/stamp write /dev/md0 $BLOCKS $STRIPE_BLOCKS 4 15 /tmp/acks 0 > /tmp/stamp.out 2>&1
src=$?
n=$(injected fail_make_request)
faults_off
report journal_errors "$rate% $n stamp-rc $src"
say "journal: $n errors injected, writer exit $src ($(tail -n 1 /tmp/stamp.out)); $(grep -c '^A' /tmp/acks) writes acknowledged"
check dmesg
if [ "$src" != 0 ] && ! journal_dead; then
	fail "a write failed, yet the journal is not marked failed: $(cat /tmp/stamp.out)"
fi
run /test/stamp check /dev/md0 $BLOCKS /tmp/acks
fio_verify M-after-journal /dev/md0 $FIO --verify_only
check state '[4/4]' /dev/md0
if journal_dead; then
	say "journal: dead, replacing it with j2"
	dd if=/dev/zero of=/dev/md0 bs=4k count=1 seek=100 oflag=direct 2>/dev/null &&
		fail "a write succeeded with the journal dead"
	run mdadm /dev/md0 --remove $(disk j)
	mdadm --readonly /dev/md0 2>/dev/null
	run mdadm /dev/md0 --add-journal $(disk j2)
	mdadm --readwrite /dev/md0 2>/dev/null
	report journal_replaced 1
fi
/test/stamp write /dev/md0 $BLOCKS $STRIPE_BLOCKS 4 3 /tmp/acks 1000000000 ||
	fail "writes fail after the journal phase"
run /test/stamp check /dev/md0 $BLOCKS /tmp/acks
check mismatch /dev/md0
run mdadm --stop /dev/md0
pass "journal"
EOF

if [ "$(vm_val nofault)" = 1 ]; then
	echo "SKIP (the VM kernel has no fail_make_request: make check-debug)"
	exit 77
fi
echo "member errors: $(vm_val member_errors); journal errors: $(vm_val journal_errors)"
J=j
[ "$(vm_val journal_replaced)" = 1 ] && J=j2

# ---- boot 2: allocation failures ---------------------------------------

vm_boot --timeout 300 --env FAULT_LIB="$FAULT_LIB" --env J="$J" \
	--env ASSEMBLIES="${ROUNDS:-10}" \
	- d0 d1 d2 d3 j j2 <<'EOF' || vm_fail "boot 2 (allocation failures)"
. /test/guest-lib.sh
eval "$FAULT_LIB"
load_personality
fast_sync
MEMBERS="$(disks d0 d1 d2 d3) $(disk $J)"
run mdadm --assemble /dev/md0 $MEMBERS
check state '[4/4] [UUUU]' /dev/md0
fio_verify M-boot2 /dev/md0 $FIO --verify_only

# 3. allocation failures in the I/O path
rate=$((1 + RANDOM % 10))
say "I/O path: md0 threads ($(md_threads | tr "\n" " ")) fail $rate% of their allocations"
for a in failslab fail_page_alloc; do
	fault $a probability=$rate interval=1 times=1000000 verbose=0 space=0 \
		task-filter=Y ignore-gfp-wait=N
done
fault fail_page_alloc min-order=0 ignore-gfp-highmem=N
: > /tmp/acks
/test/stamp write /dev/md0 $BLOCKS $STRIPE_BLOCKS 4 20 /tmp/acks 2000000000 \
	> /tmp/stamp.out 2>&1 &
spid=$!
sleep 1
# (not the writers: their own output and acks on tmpfs would fail too,
# and their write errors could not be told from the array's)
for p in $(md_threads); do
	echo 1 > /proc/$p/make-it-fail
done
wait $spid
src=$?
ns=$(injected failslab) np=$(injected fail_page_alloc)
faults_off
report io_alloc_failures "$rate% slab $ns page $np stamp-rc $src"
say "I/O path: $ns slab + $np page allocation failures, writer exit $src ($(tail -n 1 /tmp/stamp.out)); $(mdstat)"
check dmesg
[ "$src" = 0 ] || fail "writes failed under allocation failures (they must wait, not fail): $(cat /tmp/stamp.out)"
journal_dead && fail "allocation failures killed the journal: $(dmesg | grep -iE 'journal' | tail -n 2)"
check state '[4/4] [UUUU]' /dev/md0
run /test/stamp check /dev/md0 $BLOCKS /tmp/acks
check mismatch /dev/md0
fio_verify M-io-alloc /dev/md0 $FIO --verify_only
pass "io-path allocation failures"

# 4. one allocation failure at a random point of starting / stopping the
# array: bash writes array_state itself (no exec in between), with
# /proc/thread-self/fail-nth armed, so the N-th allocation of that very
# write fails (md core and the personality's run() or stop paths); each
# failure is logged with its stack (verbose=2).
for a in failslab fail_page_alloc; do
	fault $a probability=0 verbose=2 task-filter=N ignore-gfp-wait=N
done
fault fail_page_alloc min-order=0 ignore-gfp-highmem=N
A=/sys/block/md0/md/array_state

# with_nth N CMD...: run CMD in a subshell whose N-th allocation fails;
# prints "hit" when it was injected.
with_nth() {
	local n=$1
	shift
	(
		echo "$n" > /proc/thread-self/fail-nth || exit 99
		"$@"
		rc=$?
		read -r left < /proc/thread-self/fail-nth
		echo 0 > /proc/thread-self/fail-nth
		[ "$left" = 0 ] && echo hit >&2
		exit $rc
	)
}
set_state() {
	echo "$1" > $A
}

# healthy: whole, with its journal, writable; a write goes through
healthy() {
	journal_dead && fail "$1: journal faulty: $(mdstat)"
	check state '[4/4] [UUUU]' /dev/md0
	grep '^md0' /proc/mdstat | grep -q '(J)' || fail "$1: no journal: $(mdstat)"
	check readwrite /dev/md0
	dd if=/dev/urandom of=/dev/md0 bs=4k count=8 seek=$((5000 + RANDOM % 64 * 8)) \
		oflag=direct 2>/dev/null || fail "$1: a write failed"
}

run set_state inactive
starts=0 shits=0 sfails=0 stops=0 thits=0 tfails=0
for i in $(seq "$ASSEMBLIES"); do
	nth=$((1 + RANDOM % 2000))
	with_nth $nth set_state active 2> /tmp/nth.err
	rc=$?
	grep -q hit /tmp/nth.err && shits=$((shits + 1))
	starts=$((starts + 1))
	st=$(cat $A)
	if [ $rc != 0 ]; then
		sfails=$((sfails + 1))
		log "start with fail-nth $nth failed ($(head -n 1 /tmp/nth.err)): array_state $st"
		case $st in inactive | clear) ;;
		*) fail "a failed start (fail-nth $nth) left array_state '$st'" ;;
		esac
		run set_state active
	fi
	healthy "start with fail-nth $nth"
	check dmesg

	nth=$((1 + RANDOM % 400))
	with_nth $nth set_state inactive 2> /tmp/nth.err
	rc=$?
	grep -q hit /tmp/nth.err && thits=$((thits + 1))
	stops=$((stops + 1))
	if [ $rc != 0 ] || [ "$(cat $A)" != inactive ]; then
		tfails=$((tfails + 1))
		log "stop with fail-nth $nth: rc $rc, array_state $(cat $A)"
		run set_state inactive
	fi
	run set_state active
	healthy "stop with fail-nth $nth, then start"
	run set_state inactive
	check dmesg
done
say "start: $starts with fail-nth, $shits injected, $sfails failed cleanly; stop: $stops, $thits injected, $tfails failed"
report start "$starts tries $shits injected $sfails failed"
report stop "$stops tries $thits injected $tfails failed"
run mdadm --stop /dev/md0
nth=

run mdadm --assemble /dev/md0 $MEMBERS
journal_dead && fail "journal faulty after a stop with fail-nth $nth: $(mdstat)"
check state '[4/4] [UUUU]' /dev/md0
check readwrite /dev/md0
grep -q "^md0 : active raid5" /proc/mdstat || fail "md0 not active raid5 read-write: $(mdstat)"
run /test/stamp check /dev/md0 $BLOCKS /tmp/acks
fio_verify M-final /dev/md0 $FIO --verify_only
fio_verify W-final /dev/md0 --rw=randwrite --bs=4k --iodepth=8 --offset=90m --size=4m
check mismatch /dev/md0
run mdadm --stop /dev/md0
pass "start/stop allocation failures"
EOF

echo "I/O-path allocation failures: $(vm_val io_alloc_failures); start: $(vm_val start); stop: $(vm_val stop)"
exit 0
