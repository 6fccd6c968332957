#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-bad: a journal left by a power cut, damaged on the host in one
# way per case, then assembled under raid5j.
#
#	boot 1: arrays A and B (RAID5, 4 x 32 MiB, 16K chunk, 64 MiB
#	        journal, members throttled so the log runs ahead), verified
#	        writes on both, qemu SIGKILLed 3 s in: a power cut.  The
#	        images are kept untouched in build/vm-disks/t-journal-bad/crash.
#	host:   A's images copied once per case; in each copy (tests/tools/
#	        jcorrupt) the log is split at a transaction CUT: canaries are
#	        written over every member block the replay of [0, CUT) must
#	        write, and over every block of the stripes only [CUT, end)
#	        names; then the journal is damaged at CUT.  r5jtool dump of
#	        every damaged journal is kept.
#	boot 2, 3: five cases each (25 disks), assembled under raid5j one
#	        after the other (the copies share A's uuid); the module's
#	        journal lines, and r5jtool dump of the journal as it stands
#	        right after recovery, go to the host; the undamaged case is
#	        read back and verified; every array is stopped.
#	host:   per case: dmesg verdict == expected == r5jtool dump verdict;
#	        jcorrupt check: every block of the replayed prefix holds its
#	        logged page, every canary past the cut is intact, nothing else
#	        in the data areas changed; the new log starts where the module
#	        said with seq + 10000 and, both right after recovery and after
#	        the clean stop, holds only empty blocks: nothing stale chains
#	        on for the next assembly to replay.
#
# Cases (mainline 6.1 behaviour, raid5-cache.c, and what is expected):
#   clean    undamaged: everything replayed; the array verifies (stamp check
#            of every acknowledged write, check mismatch_cnt 0).
#   magic0   bad magic in the block at journal_tail: r5l_load_log starts a
#            new log ("no valid log at sector T (bad-magic)"), nothing
#            replayed; assembles.
#   magic, version, mcsum, seq
#            bad magic / version 2 / checksum / seq + 1 (a gap) in a meta
#            block in the middle: the log ends there ("log ended at sector
#            P seq S (bad-magic|bad-version|bad-meta-checksum|
#            seq-mismatch)"), what precedes is replayed; assembles.
#   pcsum    one byte of one page of a middle transaction: mainline skips
#            that transaction (-EAGAIN) and goes on one block later, which
#            is its first page: "transaction seq S at P skipped:
#            bad-page-checksum", "log ended at sector P+8 seq S+1
#            (bad-magic)"; assembles.
#   torn     the last transaction's write cut short (half its pages zeroed,
#            the first of them from its sector 3 on): the same, at the end.
#   uuid     (a) the log area of array B's journal (and B's journal_tail)
#            behind A's journal superblock: the block at journal_tail fails
#            its checksum with A's uuid: "no valid log ... (bad-meta-
#            checksum)", new log, none of B's stripes written; assembles.
#            (b) first, B's whole journal device in place of A's: mdadm
#            4.2 refuses ("superblock on ... doesn't match others -
#            assembly aborted"), nothing written.
#   tail     journal_tail past the end of the device (superblock edited,
#            checksum fixed): mainline reads from 0 instead.  Block 0 is
#            the one mdadm wrote at create; block 8 the empty one recovery
#            wrote then (seq + 10000): the log from 0 ends at 8
#            (seq-mismatch) and the real log is not replayed; assembles.
#
# Boots: 3.  Disks: 10, then 2 x 25 (+1) sparse copies.  3-4 minutes.
# REUSE_CRASH=1 skips boot 1 and reuses the images of an earlier run.

. "$(dirname "$0")/lib.sh"

MEMBERS="0 1 2 3"
GROUP1="clean magic0 magic version mcsum"
GROUP2="pcsum torn seq uuid tail"

TOOL=${R5JTOOL:-$R5J_ROOT/tools/r5jtool}
vm_stamp
vm_build_jcorrupt
if [ -z "${R5JTOOL:-}" ]; then
	make -s -C "$R5J_ROOT/tools" || vm_fail "building r5jtool failed"
fi
OUT=$BUILD/vm-logs/$VM_TEST
DISKS=$VM_DISK_DIR
CRASH=$DISKS/crash	# boot 1's images, untouched; REUSE_CRASH=1 reuses them
mkdir -p "$OUT"
rm -f "$OUT"/*
if [ "${REUSE_CRASH:-0}" = 1 ] && [ -f "$CRASH/blocks" ]; then
	find "$DISKS" -maxdepth 1 -name '*.img' -delete
else
	REUSE_CRASH=0
	rm -rf "$DISKS"
	mkdir -p "$CRASH"
fi

FAILS=()
# bad CASE MSG: record a failed assertion, go on with the other cases.
bad() {
	echo "FAIL $VM_TEST: $1: $2"
	FAILS+=("$1: $2")
}

img() {	# img NAME -> path
	echo "$DISKS/$1.img"
}

# ---- boot 1: two arrays, writes, power cut ----------------------------

if [ "$REUSE_CRASH" = 1 ]; then
	vm_log "reusing the power-cut images of an earlier run"
	BLOCKS=$(cat "$CRASH/blocks")
	cp "$CRASH/acks" "$OUT/acks"
else
	# A power cut may land inside a journal write and tear it (qemu's
	# multi-page write is not atomic when it is killed): the cases below
	# damage intact transactions on purpose, so cut again (3 tries).
	cut=0
	while :; do
		cut=$((cut + 1))
		vm_disks 32M a0 a1 a2 a3 b0 b1 b2 b3
		vm_disk aj 64M
		vm_disk bj 64M
		T=,throttling.iops-total=150
		export VM_FILES="$STAMP"
		vm_boot --timeout 180 --kill-mark writing --kill-after 3 - \
			a0$T a1$T a2$T a3$T aj b0$T b1$T b2$T b3$T bj <<'EOF'
. /test/guest-lib.sh
load_personality
for x in a b; do
	n=1
	[ $x = b ] && n=2
	run mdadm --create /dev/md$n --run --level=5 --raid-devices=4 --chunk=16 \
		--assume-clean --write-journal=$(disk ${x}j) $(disks ${x}0 ${x}1 ${x}2 ${x}3)
done
report blocks $(( $(blockdev --getsize64 /dev/md1) / 4096 ))
dmesg | grep 'journal:'
mark writing
/test/stamp write /dev/md2 "$(( $(blockdev --getsize64 /dev/md2) / 4096 ))" 12 2 60 /dev/null 500000000 &
/test/stamp write /dev/md1 "$(( $(blockdev --getsize64 /dev/md1) / 4096 ))" 12 3 60 "$R5J_RESULT_PORT" 1000000000
fail "the writer ran to its end: the power cut did not come"
EOF
		[ "$VM_KILLED" = 1 ] || vm_fail "boot 1 was not killed"
		BLOCKS=$(vm_val blocks)
		[ -n "$BLOCKS" ] || vm_fail "no array size from boot 1"
		grep '^A ' "$VM_RESULTS" > "$OUT/acks"
		for d in a0 a1 a2 a3 aj b0 b1 b2 b3 bj; do
			mv "$(img $d)" "$CRASH/"
		done
		echo "$BLOCKS" > "$CRASH/blocks"
		cp "$OUT/acks" "$CRASH/acks"
		torn=$("$JC" list "$CRASH/aj.img" | awk '$1 == "txn" && $NF != "ok"')
		[ -z "$torn" ] && break
		[ $cut -lt 3 ] || vm_fail "3 power cuts each tore a transaction in A's journal: $torn"
		vm_log "power cut $cut tore a transaction in A's journal ($torn): cutting again"
	done
fi
vm_log "power cut after $(wc -l < "$OUT/acks") acknowledged writes on A"

# ---- host: the journals as the power cut left them ---------------------

"$JC" list "$CRASH/aj.img" > "$OUT/a.list" || vm_fail "jcorrupt list of A's journal failed"
"$JC" list "$CRASH/bj.img" > "$OUT/b.list" || vm_fail "jcorrupt list of B's journal failed"
"$TOOL" dump "$CRASH/aj.img" > "$OUT/a.dump" || vm_fail "r5jtool dump of A's journal failed"
vm_log "A: $(grep -c '^txn' "$OUT/a.list") transactions, $(tail -n 1 "$OUT/a.list")"
vm_log "B: $(grep -c '^txn' "$OUT/b.list") transactions, $(tail -n 1 "$OUT/b.list")"
grep -q '^start ' "$OUT/a.list" || vm_fail "A's journal holds no log: $(sed -n 2p "$OUT/a.list")"
RING=$(sed -n 's/^tail [0-9]* ring \([0-9]*\) .*/\1/p' "$OUT/a.list")
A_TAIL=$(sed -n 's/^tail \([0-9]*\) .*/\1/p' "$OUT/a.list")
B_TAIL=$(sed -n 's/^tail \([0-9]*\) .*/\1/p' "$OUT/b.list")
NTXN=$(grep -c '^txn' "$OUT/a.list")
# transactions with pages: the damage goes there
mapfile -t DTX < <(awk '$1 == "txn" && $8 > 0 { print $2 }' "$OUT/a.list")
M=${#DTX[@]}
[ "$M" -ge 4 ] || vm_fail "the power cut left only $M transactions with data in A's journal (need 4)"
grep -q '^txn .* pages [1-9]' "$OUT/b.list" || vm_fail "B's journal holds no transaction with data"
txn_field() {	# txn_field IDX pos|seq
	awk -v i="$1" -v f="$2" '$1 == "txn" && $2 == i {
		for (k = 3; k < NF; k += 2) if ($k == f) print $(k + 1) }' "$OUT/a.list"
}

# The block at ring sector 0: mdadm's, and recovery's empty one at 8 (the
# tail case expects exactly this; if the log wrapped, it cannot).
"$TOOL" dump --from 0 "$CRASH/aj.img" > "$OUT/a.from0" || vm_fail "r5jtool dump --from 0 failed"
S0=$(sed -n 's/^log start 0 seq \([0-9]*\)$/\1/p' "$OUT/a.from0")
[ -n "$S0" ] || vm_fail "no meta block at ring sector 0 of A's journal"
grep -qx "end pos 8 seq $((S0 + 1)) reason seq-mismatch" "$OUT/a.from0" ||
	vm_fail "the log from 0 does not end at 8 with seq-mismatch (did the ring wrap?): $(tail -n 1 "$OUT/a.from0")"

# ---- host: the cases -----------------------------------------------------

declare -A CUT EXPECT JORIG
# prepare CASE CUT [JOURNAL]: copy A, plant the canaries for a split at
# transaction CUT of JOURNAL (default A's), as the power cut left it
prepare() {
	local c=$1 cut=$2 m
	for m in $MEMBERS; do
		cp --sparse=always "$CRASH/a$m.img" "$(img "$c$m")"
	done
	cp --sparse=always "$CRASH/aj.img" "$(img "${c}j")"
	JORIG[$c]=$CRASH/${3:-aj}.img
	CUT[$c]=$cut
	"$JC" canary "${JORIG[$c]}" "$cut" $(for m in $MEMBERS; do img "$c$m"; done) \
		> "$OUT/$c.canary" || vm_fail "$c: jcorrupt canary failed"
}

end_line() {	# end_line IDX REASON: the log ends at transaction IDX
	echo "end $1 $(txn_field "$1" pos) $(txn_field "$1" seq) $2"
}

skip_lines() {	# skip_lines IDX: transaction IDX skipped, the end one block on
	local pos seq
	pos=$(txn_field "$1" pos)
	seq=$(txn_field "$1" seq)
	echo "skip $seq $pos bad-page-checksum"
	echo "end $1 $(( (pos + 8) % RING )) $((seq + 1)) bad-magic"
}

prepare clean "$NTXN"
EXPECT[clean]="end $NTXN $(tail -n 1 "$OUT/a.list" | awk '{ print $3, $5, $6 }')"

prepare magic0 0
"$JC" corrupt "$(img magic0j)" magic 0 > "$OUT/magic0.corrupt" || vm_fail "corrupt magic0"
EXPECT[magic0]="nolog $A_TAIL bad-magic"

k=${DTX[1]}
prepare magic "$k"
"$JC" corrupt "$(img magicj)" magic "$k" > "$OUT/magic.corrupt" || vm_fail "corrupt magic"
EXPECT[magic]=$(end_line "$k" bad-magic)

k=${DTX[$((M / 2))]}
prepare version "$k"
"$JC" corrupt "$(img versionj)" version "$k" > "$OUT/version.corrupt" || vm_fail "corrupt version"
EXPECT[version]=$(end_line "$k" bad-version)

k=${DTX[$((M - 2))]}
prepare mcsum "$k"
"$JC" corrupt "$(img mcsumj)" meta-csum "$k" > "$OUT/mcsum.corrupt" || vm_fail "corrupt mcsum"
EXPECT[mcsum]=$(end_line "$k" bad-meta-checksum)

k=${DTX[$(((M - 1) / 2))]}
prepare pcsum "$k"
"$JC" corrupt "$(img pcsumj)" page-csum "$k" > "$OUT/pcsum.corrupt" || vm_fail "corrupt pcsum"
EXPECT[pcsum]=$(skip_lines "$k")

k=${DTX[$((M - 1))]}
prepare torn "$k"
"$JC" corrupt "$(img tornj)" torn "$k" > "$OUT/torn.corrupt" || vm_fail "corrupt torn"
EXPECT[torn]=$(skip_lines "$k")

k=${DTX[$(((M + 2) / 3))]}
prepare seq "$k"
"$JC" corrupt "$(img seqj)" seq "$k" > "$OUT/seq.corrupt" || vm_fail "corrupt seq"
EXPECT[seq]=$(end_line "$k" seq-mismatch)

# B's log behind A's superblock; canaries where B's log would write
prepare uuid 0 bj
"$JC" copy-log "$CRASH/bj.img" "$(img uuidj)" > "$OUT/uuid.corrupt" || vm_fail "copy-log"
EXPECT[uuid]="nolog $B_TAIL bad-meta-checksum"
cp --sparse=always "$CRASH/bj.img" "$(img uuidbj)"	# (b): B's journal device itself

prepare tail 0
"$JC" set-tail "$(img tailj)" past-end > "$OUT/tail.corrupt" || vm_fail "set-tail"
PAST=$(sed -n 's/^journal_tail [0-9]* -> \([0-9]*\) .*/\1/p' "$OUT/tail.corrupt")
EXPECT[tail]="tail-reset $PAST
end 1 8 $((S0 + 1)) seq-mismatch"

for c in $GROUP1 $GROUP2; do
	vm_log "$c: $(cat "$OUT/$c.corrupt" 2>/dev/null || echo undamaged); $(cat "$OUT/$c.canary")"
	"$TOOL" dump "$(img "${c}j")" > "$OUT/$c.dump" || bad "$c" "r5jtool dump failed"
done

# Verdicts, normalized: "tail-reset T", "nolog POS REASON",
# "skip SEQ POS REASON", "end TXNS POS SEQ REASON".
kernel_verdict() {	# kernel_verdict RESULTS MD
	sed -nE "/^K $2 /{
		s/.*journal_tail ([0-9]+) is past the journal or unaligned; scanning from 0.*/tail-reset \1/p
		s/.*no valid log at sector ([0-9]+) \(([^)]*)\).*/nolog \1 \2/p
		s/.*transaction seq ([0-9]+) at ([0-9]+) skipped: ([a-z-]+).*/skip \1 \2 \3/p
		s/.*recovered ([0-9]+) transactions.*log ended at sector ([0-9]+) seq ([0-9]+) \(([^)]*)\).*/end \1 \2 \3 \4/p
	}" "$1"
}

dump_verdict() {	# dump_verdict DUMP
	awk '
	/^journal_tail [0-9]+ is past the ring/ { print "tail-reset", $2 }
	/^no log at / { sub(":", "", $4); print "nolog", $4, $5 }
	/^txn seq / { if ($10 == "ok") n++; else print "skip", $3, $5, $10 }
	/^end pos / { print "end", n + 0, $3, $5, $7 }' "$1"
}

# ---- boots 2 and 3: assemble ----------------------------------------------

GUEST=$OUT/guest.sh
cat > "$GUEST" <<'EOF'
. /test/guest-lib.sh
load_personality
# One array at a time: the copies of A share its uuid.
n=0
for c in $CASES; do
	n=$((n + 1))
	md=/dev/md$n
	# a subshell: a failed check ends this case, not the others
	(
	if [ "$c" = uuid ]; then
		# (b) B's whole journal device: mdadm must refuse
		must_fail mdadm --assemble /dev/md99 $(disks uuid0 uuid1 uuid2 uuid3 uuidbj)
		result "R $c $(tr '\n' ' ' < /tmp/must_fail.out)"
		mdadm --stop /dev/md99 >/dev/null 2>&1
	fi
	run mdadm --assemble $md $(disks ${c}0 ${c}1 ${c}2 ${c}3 ${c}j)
	check raid5 $md
	check state "[4/4]" $md
	check readwrite $md
	expect_eq "$(md_sysfs $md consistency_policy)" journal "$c: consistency_policy"
	grep -A2 "^md$n " /proc/mdstat | grep -Eq 'resync|recovery' &&
		fail "$c: a resync started"
	dmesg | sed -n "s/^\[[^]]*\] //; /md\/raid:md$n: journal/p" > /tmp/k
	while IFS= read -r l; do result "K md$n $l"; done < /tmp/k
	# the journal as a power cut right now would leave it, from where
	# the new log starts
	from=$(sed -n 's/.*log ended at sector \([0-9]*\) .*/\1/p' /tmp/k | tail -n 1)
	/test/r5jtool dump --from "${from:-0}" $(disk ${c}j) > /tmp/d 2>&1 ||
		fail "$c: r5jtool dump in the guest failed: $(tail -n 1 /tmp/d)"
	grep -v '^  ' /tmp/d | while IFS= read -r l; do result "D md$n $l"; done
	if [ "$c" = "$CLEAN" ]; then
		/test/stamp check $md "$BLOCKS" /test/acks ||
			fail "$c: acknowledged writes lost after recovery"
		check mismatch $md
		pass "verify $c"
	fi
	run mdadm --stop $md
	pass "assemble $c"
	)
	mdadm --stop $md >/dev/null 2>&1
done
check dmesg
EOF

declare -A MDN RES
assemble() {	# assemble GROUP...
	local c n=0 disks=() clean=
	for c in "$@"; do
		n=$((n + 1))
		MDN[$c]=md$n
		disks+=("${c}0" "${c}1" "${c}2" "${c}3" "${c}j")
		[ "$c" = uuid ] && disks+=(uuidbj)
		[ "$c" = clean ] && clean=clean
	done
	VM_FILES="$STAMP $OUT/acks $TOOL" vm_boot --timeout 240 --env CASES="$*" \
		--env CLEAN="$clean" --env BLOCKS="$BLOCKS" "$GUEST" "${disks[@]}" ||
		bad "boot" "assembling $* failed"
	for c in "$@"; do
		RES[$c]=$VM_RESULTS
	done
}
assemble $GROUP1
assemble $GROUP2

# ---- host: judge every case ---------------------------------------------

for c in $GROUP1 $GROUP2; do
	r=${RES[$c]}
	md=${MDN[$c]}
	grep -qx "PASS assemble $c" "$r" || { bad "$c" "did not assemble"; continue; }
	kernel_verdict "$r" "$md" > "$OUT/$c.kernel"
	dump_verdict "$OUT/$c.dump" > "$OUT/$c.tool"
	printf '%s\n' "${EXPECT[$c]}" > "$OUT/$c.expect"
	cmp -s "$OUT/$c.kernel" "$OUT/$c.expect" ||
		bad "$c" "module said '$(tr '\n' ';' < "$OUT/$c.kernel")', expected '$(tr '\n' ';' < "$OUT/$c.expect")'"
	cmp -s "$OUT/$c.tool" "$OUT/$c.kernel" ||
		bad "$c" "r5jtool dump says '$(tr '\n' ';' < "$OUT/$c.tool")', the module '$(tr '\n' ';' < "$OUT/$c.kernel")'"

	# the members: replayed prefix, canaries intact, nothing else changed
	orig=() post=()
	for m in $MEMBERS; do
		orig+=("$CRASH/a$m.img")
		post+=("$(img "$c$m")")
	done
	"$JC" check "${JORIG[$c]}" "${CUT[$c]}" "${orig[@]}" -- "${post[@]}" \
		> "$OUT/$c.check" 2>&1 ||
		bad "$c" "members: $(grep -v '^check:' "$OUT/$c.check" | head -n 3 | tr '\n' ';') $(tail -n 1 "$OUT/$c.check")"

	# the journal recovery left, as a power cut just after it (read in
	# the guest) and as the clean stop left it: the new log starts where
	# the module said, with seq + 10000, and holds only empty blocks;
	# nothing stale chains on for the next assembly to replay
	read -r _ _ kpos kseq _ < <(grep '^end ' "$OUT/$c.kernel")
	sed -n "s/^D $md //p" "$r" > "$OUT/$c.live"
	if grep -q '^nolog ' "$OUT/$c.kernel"; then
		start="log start 0 seq [0-9]*"
	elif grep -q '^tail-reset ' "$OUT/$c.kernel"; then
		# journal_tail was not trusted: neither is the seq read at
		# the ring start, the module draws a fresh one
		start="log start $kpos seq [0-9]*"
	else
		start="log start $kpos seq $((kseq + 10000))"
	fi
	grep -qx "$start" "$OUT/$c.live" ||
		bad "$c" "the new log does not start as '$start': $(grep -m1 -E '^(log start|no log)' "$OUT/$c.live")"
	stale=$(grep '^txn ' "$OUT/$c.live" | grep -v ' pages 0 ok$' | head -n 1)
	[ -z "$stale" ] ||
		bad "$c" "just after recovery the journal holds $(grep '^txn ' "$OUT/$c.live" | grep -vc ' pages 0 ok$') non-empty valid transactions after the new log start (first: '$stale', $(grep '^end ' "$OUT/$c.live")): stale blocks chain on; a power cut now would replay them"
	"$TOOL" dump "$(img "${c}j")" > "$OUT/$c.after" || bad "$c" "r5jtool dump after the stop failed"
	stale=$(grep '^txn ' "$OUT/$c.after" | grep -v ' pages 0 ok$' | head -n 1)
	[ -z "$stale" ] && grep -q '^txn ' "$OUT/$c.after" ||
		bad "$c" "after the clean stop the log is not a few empty blocks: '$stale'"
done

# (b) of uuid: mdadm refused (must_fail checked that it failed); say why
grep -Eq "^R uuid .*(doesn't match others - assembly aborted|Not safe to assemble with missing or stale journal)" "${RES[uuid]}" ||
	bad uuid "B's journal device: mdadm failed, but not for the journal: $(grep '^R uuid' "${RES[uuid]}")"

# ---- summary ---------------------------------------------------------------

echo "case     module verdict / members"
for c in $GROUP1 $GROUP2; do
	printf '%-8s %s | %s\n' "$c" "$(tr '\n' ';' < "$OUT/$c.kernel" 2>/dev/null)" \
		"$(tail -n 1 "$OUT/$c.check" 2>/dev/null)"
done
if [ ${#FAILS[@]} -gt 0 ]; then
	echo "FAIL $VM_TEST: ${#FAILS[@]} assertion(s) failed:"
	printf '  %s\n' "${FAILS[@]}"
	exit 1
fi
echo "PASS $VM_TEST: 10 damaged-journal cases and the undamaged one agree with mainline and r5jtool"
exit 0
