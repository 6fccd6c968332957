#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-sysfs-knobs: raid456's tuning files in /sys/block/md0/md/ --
# preread_bypass_threshold, skip_copy, rmw_level, ppl_write_hint -- read,
# take and refuse what raid456's do, and rmw_level steers the write method.
#
#	RAID5: d0 d1 d2 d3 + journal j     512K chunk, --assume-clean
#	RAID6: d0 .. d5    + journal j     (left-symmetric, mdadm's default)
#
#   1. RAID5, both personalities: the defaults (1, 0, 1, 0); values taken
#      and read back; refused with EINVAL: preread_bypass_threshold above
#      stripe_cache_size (also after the cache shrinks to 64), skip_copy
#      and rmw_level not numbers, rmw_level 3, every ppl_write_hint (no
#      PPL); skip_copy read back as 0/1 (7 reads 1);
#   2. skip_copy flipped 8 times (each a suspend of the array) under fio
#      random writes: no hang, the data verifies;
#   3. rmw_level's effect, on RAID5 and RAID6: 16 O_DIRECT 4 KiB writes,
#      each to a stripe not yet cached, all in chunk 0 (RAID5: data on d0,
#      P on d3; RAID6: data on d1, P on d5, Q on d0).  Both methods read
#      as many blocks (RAID5 2, RAID6 3): raid456's tie.  Member reads
#      from /sys/block/vdX/stat, in sectors: with rmw_level 0 and 1 the
#      other data members read 8 per write (rcw) and the written member
#      and parity none; with 2 the reverse (rmw).  Write-through, and
#      write-back (the switch back to write-through destages: the same
#      choice) with rmw_level 0 and 2 (not raid456 on 6.12: its switch
#      leaves the cache dirty and a stop then BUGs; said as KNOWN).
#      raid5j also: raid5j_stats rmw/rcw and journal_stats destaged_rmw
#      agree.  The blocks read back, "check" counts mismatch_cnt 0.
#
# Asserts as above, plus no kernel BUG/WARNING.  Disks: 6 x 32 MiB, journal
# 16 MiB.  Boots: 1.  Timeout: 240 s (takes 25-50 s).

. "$(dirname "$0")/lib.sh"

D="d0 d1 d2 d3 d4 d5"
vm_disks 32M $D
vm_disk j 16M

vm_boot --timeout 240 --env D="$D" - $D j <<'EOF' || vm_fail "$PERSONALITY"
. /test/guest-lib.sh
load_personality
S=/sys/block/md0/md
r5j=0
[ "$PERSONALITY" = raid5j ] && r5j=1

# wr FILE VALUE: write VALUE (with a newline, as echo does) to FILE; prints
# ok or the error text ("Invalid argument")
wr() {
	local out
	if out=$( { echo "$2" > "$S/$1"; } 2>&1 ); then
		echo ok
	else
		echo "${out##*: }"
	fi
}

# take FILE VALUE [SHOWN]: VALUE accepted, FILE then reads SHOWN (VALUE)
take() {
	expect_eq "$(wr "$1" "$2")" ok "$1 <- '$2'"
	expect_eq "$(cat "$S/$1")" "${3:-$2}" "$1 after '$2'"
}

# refuse FILE VALUE: EINVAL, FILE unchanged
refuse() {
	local was
	was=$(cat "$S/$1")
	expect_eq "$(wr "$1" "$2")" "Invalid argument" "$1 <- '$2'"
	expect_eq "$(cat "$S/$1")" "$was" "$1 after refusing '$2'"
}

# sectors read by member disk NAME so far
rd() { awk '{ print $3 }' "/sys/block/$(basename "$(disk "$1")")/stat"; }

create() {	# create LEVEL MEMBERS...
	local level=$1
	shift
	run mdadm --create /dev/md0 --run --level="$level" --raid-devices=$# \
		--chunk=512 --assume-clean --write-journal="$(disk j)" $(disks "$@")
	check "raid$level" /dev/md0
	# the first open scans for partitions: its reads are not a phase's
	run dd if=/dev/md0 of=/dev/null bs=4K count=1 iflag=direct
}

create 5 d0 d1 d2 d3

# 1. the files
for f in preread_bypass_threshold skip_copy rmw_level ppl_write_hint; do
	[ -e $S/$f ] || fail "no $S/$f"
done
expect_eq "$(cat $S/stripe_cache_size)" 256 "stripe_cache_size"
expect_eq "$(cat $S/preread_bypass_threshold)" 1 "preread_bypass_threshold default"
expect_eq "$(cat $S/skip_copy)" 0 "skip_copy default"
expect_eq "$(cat $S/rmw_level)" 1 "rmw_level default"
expect_eq "$(cat $S/ppl_write_hint)" 0 "ppl_write_hint"

take preread_bypass_threshold 0
take preread_bypass_threshold 256
refuse preread_bypass_threshold 257
refuse preread_bypass_threshold -1
refuse preread_bypass_threshold x
echo 64 > $S/stripe_cache_size || fail "stripe_cache_size 64 refused"
refuse preread_bypass_threshold 65
take preread_bypass_threshold 64
take preread_bypass_threshold 1
echo 256 > $S/stripe_cache_size || fail "stripe_cache_size 256 refused"

take skip_copy 1
take skip_copy 7 1
take skip_copy 0
refuse skip_copy -1
refuse skip_copy on

take rmw_level 0
take rmw_level 2
take rmw_level 1
refuse rmw_level 3
refuse rmw_level -1
refuse rmw_level x

for v in 0 1 65535 65536 x; do
	expect_eq "$(wr ppl_write_hint $v)" "Invalid argument" "ppl_write_hint <- '$v' (no PPL)"
done
expect_eq "$(cat $S/ppl_write_hint)" 0 "ppl_write_hint after the writes"
pass "t-sysfs-knobs/files"

# 2. skip_copy suspends the array around each change
(fio_verify S /dev/md0 --rw=randwrite --bs=4k --iodepth=8 --offset=16m \
	--size=8m > /tmp/fio_s.out 2>&1; echo $? > /tmp/fio_s.rc) &
fpid=$!
for i in 1 2 3 4 5 6 7 8; do
	sleep 0.3
	echo $((i % 2)) > $S/skip_copy || fail "skip_copy $((i % 2)) under fio"
done
wait $fpid
[ "$(cat /tmp/fio_s.rc)" = 0 ] || fail "fio under skip_copy changes: $(tail -n 20 /tmp/fio_s.out)"
expect_eq "$(cat $S/skip_copy)" 0 "skip_copy after the flips"
pass "t-sysfs-knobs/skip_copy"

# 3. rmw_level: writes to blocks B..B+15 of chunk 0 (4K each, stripe rows
# B..B+15), each block once; B moves on per phase so no stripe is cached
N=16
B=32
dd if=/dev/urandom of=/tmp/data bs=4K count=$((5 * N)) 2>/dev/null

# phase LEVEL MODE METHOD WRITTEN_AND_PARITY OTHER_DATA
phase() {
	local level=$1 mode=$2 method=$3 rmwset=$4 rcwset=$5
	local d rmw0 rcw0 drmw0 before=() i=0 n expect readers
	local what="RAID$raid rmw_level $level $mode"

	echo "$level" > $S/rmw_level || fail "rmw_level $level refused"
	journal_mode "$mode"
	for d in $rmwset $rcwset; do
		before+=("$(rd "$d")")
	done
	rmw0=$(r5j_stat rmw) rcw0=$(r5j_stat rcw) drmw0=$(jstat destaged_rmw)
	for n in $(seq $B $((B + N - 1))); do
		dd if=/tmp/data of=/dev/md0 bs=4K skip=$((n - 32)) seek=$n \
			count=1 oflag=direct 2>/dev/null || fail "$what: write $n"
	done
	journal_mode write-through	# write-back: destage all
	readers=$rcwset
	[ "$method" = rmw ] && readers=$rmwset
	for d in $rmwset $rcwset; do
		n=$(( $(rd "$d") - before[i] ))
		i=$((i + 1))
		expect=0
		case " $readers " in
		*" $d "*) expect=$((N * 8)) ;;
		esac
		log "$what: $d read $n sectors"
		expect_eq "$n" "$expect" "$what ($method): sectors read by $d"
	done
	if [ $r5j = 1 ]; then
		n=0
		[ "$method" = rmw ] && n=$N
		if [ "$mode" = write-through ]; then
			expect_eq "$(( $(r5j_stat rmw) - rmw0 ))" $n "$what: raid5j_stats rmw"
			expect_eq "$(( $(r5j_stat rcw) - rcw0 ))" $((N - n)) "$what: raid5j_stats rcw"
		else
			expect_eq "$(( $(jstat destaged_rmw) - drmw0 ))" $n "$what: journal_stats destaged_rmw"
		fi
	fi
	B=$((B + N))
	pass "t-sysfs-knobs/raid$raid-$mode-$level"
}

knobs_rmw() {	# knobs_rmw WRITTEN_AND_PARITY OTHER_DATA
	B=32
	phase 0 write-through rcw "$1" "$2"
	phase 1 write-through rcw "$1" "$2"
	phase 2 write-through rmw "$1" "$2"
	if [ $wb_destages = 1 ]; then
		phase 0 write-back rcw "$1" "$2"
		phase 2 write-back rmw "$1" "$2"
	fi
	a=$(dd if=/dev/md0 bs=4K skip=32 count=$((B - 32)) iflag=direct 2>/dev/null | md5sum)
	b=$(head -c $(((B - 32) * 4096)) /tmp/data | md5sum)
	expect_eq "$a" "$b" "RAID$raid blocks 32..$((B - 1)) read back"
	echo check > $S/sync_action
	wait_sync /dev/md0
	expect_eq "$(cat $S/mismatch_cnt)" 0 "RAID$raid mismatch_cnt"
}

# raid456 on 6.12 switches to write-through without destaging (its
# suspend no longer quiesces), and a stop then hits BUG_ON in
# r5c_make_stripe_write_out(): no write-back there
wb_destages=1
case $PERSONALITY/$(uname -r) in
raid456/6.12.*)
	wb_destages=0
	say "KNOWN raid456 6.12: write-back phases skipped (the switch to write-through leaves the cache dirty, the stop then BUGs)"
	;;
esac

raid=5
knobs_rmw "d0 d3" "d1 d2"
run mdadm --stop /dev/md0
# --assume-clean: the RAID6 members must agree with their parity (zeros)
for d in d0 d1 d2 d3 j; do
	dd if=/dev/zero of="$(disk $d)" bs=1M oflag=direct 2>/dev/null
done

raid=6
create 6 $D
log "$(dmesg | grep -m1 'raid6: using')"
expect_eq "$(cat $S/rmw_level)" 1 "RAID6 rmw_level default (the raid6 library has xor_syndrome)"
knobs_rmw "d0 d1 d5" "d2 d3 d4"
run mdadm --stop /dev/md0
check dmesg
EOF
echo "PASS $VM_TEST"
