#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-reshape-crafted: disks mid-reshape with crafted reshape fields or a
# crafted journal (Documentation/reshape.md section 4, "Crafted
# reshape fields").  A superblock and a journal are untrusted input:
# nothing read from them may make the kernel write outside the members'
# data areas.
#
#	boot 1  raid5j (whatever PERSONALITY: raid456 refuses to grow a
#	        journaled array, J6): two RAID5 3->4 grows, 16K chunk, no
#	        backup file (mdadm moves data_offset down), held at
#	        md/sync_max and stopped cleanly:
#	          md1  p0 p1 p2 +p3        (no journal)
#	          md2  q0 q1 q2 +q3, jj    (write-through journal)
#	host    one copy of an array's images per case, crafted:
#	  md1 (superblock fields, python below; checksum recomputed):
#	    ok        nothing (the control: it assembles)
#	    posend    reshape_position 96 << 34 on every member (a step
#	              boundary, past the end)
#	    posunal   reshape_position + 8 (not on a step boundary)
#	    offsb     new_offset: next data at the superblock (every member)
#	    offbblog  new_offset of member 1: next data at its bad block log
#	    offend    new_offset of member 1: + the device size (past its end)
#	    offwrap   new_offset of member 1: data_offset + new_offset wraps
#	              below 0, so that the next-geometry row at the position
#	              (dev sector pos / 3) lands on the superblock (sector 8)
#	    delta     delta_disks 100
#	    level     new_level 6
#	    layout    new_layout 99
#	    chunk     new_chunk 24 sectors (12K)
#	  md2 (a transaction appended to the log, tests/tools/jcorrupt craft
#	  txn, P the on-disk position, prev ahead of it, next behind):
#	    jok       DATA on a prev row wholly ahead of P with the PARITY of
#	              that row, then DATA on a next row wholly behind P with
#	              its next PARITY (the control: both replayed)
#	    jstraddle DATA ahead of P and DATA behind it in one stripe (J3)
#	    jparity   DATA ahead of P, PARITY at its next-geometry row (J3)
#	        Before and after, per image: sha256 of the reserved area
#	        [0, lowest data offset) but the superblock's 4 KiB, of those
#	        4 KiB, and of the rest (data areas; the journal's log).
#	boot 2  one disk per case, its members mapped by dm-linear (PCI
#	        slots are fewer than images); each case assembled in turn (mdadm
#	        --assemble), its md lines, mdadm's words and array_state
#	        reported, stopped.
#
# Asserts under raid5j: every refused case (all but ok and jok) names its
# reason in a kernel line, the array is not running (superblock cases)
# or read-only (journal cases, journal.md section 8), and not one byte of
# any image changed.  ok and jok assemble and run (the reshape resumes)
# and no reserved area changed; jok replays its 2 stripes.
# Under PERSONALITY=raid456 (mainline): the md2 cases are refused
# whole ("don't support reshape with journal", J6), nothing changed:
# asserted.  The md1 cases are reported only (state, lines, changed
# regions): see the log and Documentation/reshape.md section 4.
#
# Disks: 9 (8 x 32 MiB, 16 MiB), then 13 sparse case disks and 3 journals.  Boots: 2.

. "$(dirname "$0")/lib.sh"

SB_CASES="ok posend posunal offsb offbblog offend offwrap delta level layout chunk"
J_CASES="jok jstraddle jparity"
HOLD=4096			# md/sync_max, sectors of each member
CHUNK=32			# sectors
vm_crafted_setup	# $JC, $OUT, bad, img, field, regions_diff, crafted_verdict

# sb IMAGE [FIELD=VALUE...]: print the v1.2 superblock's reshape fields
# ("doff N noff N ..."), or set fields and recompute md's checksum.
sb() {
	python3 - "$@" <<'PY' || vm_fail "superblock of $1"
import struct, sys
F = {'reshape_position': ('<Q', 104), 'delta_disks': ('<i', 112),
     'new_level': ('<i', 100), 'new_layout': ('<I', 116),
     'new_chunk': ('<I', 120), 'new_offset': ('<i', 124)}
f = open(sys.argv[1], 'r+b')
f.seek(8 * 512)
sb = bytearray(f.read(4096))
if struct.unpack_from('<I', sb, 0)[0] != 0xa92b4efc:
    sys.exit('no v1.2 superblock')
if len(sys.argv) == 2:
    fm, = struct.unpack_from('<I', sb, 8)
    doff, dsize = struct.unpack_from('<QQ', sb, 128)
    bbsize, bboff = struct.unpack_from('<Hi', sb, 186)
    print('fm %d doff %d dsize %d bbl %d %d size %d pos %d noff %d' % (
        fm, doff, dsize, bboff, bbsize, struct.unpack_from('<Q', sb, 80)[0],
        struct.unpack_from('<Q', sb, 104)[0],
        struct.unpack_from('<i', sb, 124)[0] if fm & 64 else 0))
    sys.exit(0)
for a in sys.argv[2:]:
    k, v = a.split('=')
    fmt, off = F[k]
    struct.pack_into(fmt, sb, off, int(v, 0))
    if k == 'new_offset':
        struct.pack_into('<I', sb, 8, struct.unpack_from('<I', sb, 8)[0] | 64)
max_dev, = struct.unpack_from('<I', sb, 220)
size = 256 + 2 * max_dev
struct.pack_into('<I', sb, 216, 0)
s = sum(struct.unpack_from('<%dI' % (size // 4), sb, 0))
if size % 4:
    s += struct.unpack_from('<H', sb, size - 2)[0]
struct.pack_into('<I', sb, 216, ((s & 0xffffffff) + (s >> 32)) & 0xffffffff)
f.seek(8 * 512)
f.write(sb)
PY
}

# regions IMAGE LO: "reserved SHA sb SHA data SHA": [0, LO) but the
# superblock's 4 KiB at sector 8, those 4 KiB, [LO, end).  A LO not
# between the superblock and the image end fails the test: the hashes
# would cover other regions than those named.
regions() {
	python3 - "$1" "$2" <<'PY' || vm_fail "regions of $1 (above)"
import hashlib, os, sys
f = open(sys.argv[1], 'rb')
lo = int(sys.argv[2])
end = os.fstat(f.fileno()).st_size // 512
if not 16 <= lo <= end:
    sys.exit('%s: lowest data offset %d outside [16, %d]' % (sys.argv[1], lo, end))
low = f.read(lo * 512)
h = lambda b: hashlib.sha256(b).hexdigest()[:16]
data = hashlib.sha256()
while True:
    b = f.read(1 << 20)
    if not b:
        break
    data.update(b)
print('reserved %s sb %s data %s' % (h(low[:4096] + low[8192:]),
      h(low[4096:8192]), data.hexdigest()[:16]))
PY
}

# ---- boot 1: two arrays mid-reshape (raid5j: raid456 refuses md2's) -----

vm_disks 32M p0 p1 p2 p3 q0 q1 q2 q3
vm_disk jj 16M
PERSONALITY=raid5j vm_boot --timeout 150 --env HOLD=$HOLD \
	- p0 p1 p2 p3 q0 q1 q2 q3 jj <<'EOF' || vm_fail "boot 1 failed"
. /test/guest-lib.sh
load_personality
run mdadm --create /dev/md1 --run --level=5 --chunk=16 --raid-devices=3 \
	--assume-clean $(disks p0 p1 p2)
run mdadm --create /dev/md2 --run --level=5 --chunk=16 --raid-devices=3 \
	--assume-clean --write-journal=$(disk jj) $(disks q0 q1 q2)
for md in md1 md2; do
	run dd if=/dev/urandom of=/dev/$md bs=1M count=8 oflag=direct status=none
done
run mdadm /dev/md1 --add $(disk p3)
run mdadm /dev/md2 --add $(disk q3)
grow_held /dev/md1 4 $HOLD md1
grow_held /dev/md2 4 $HOLD md2
report size2 $(blockdev --getsize64 /dev/md2)
wait_grow_children
for md in md1 md2; do
	echo frozen > /sys/block/$md/md/sync_action
	run mdadm --stop /dev/$md
done
EOF

# the lowest data offset of an image: reserved below, data above
lo_of() {
	local s doff noff
	s=$(sb "$1")
	doff=$(field "$s" doff) noff=$(field "$s" noff)
	[ "$noff" -lt 0 ] && doff=$((doff + noff))
	echo "$doff"
}
for d in p0 p1 p2 p3 q0 q1 q2 q3 jj; do
	s=$(sb "$(img $d)")
	vm_log "$d: $s"
	echo "$d $(lo_of "$(img $d)")" >> "$OUT/lo"
	[ $d = jj ] && continue
	[ "$(field "$s" pos)" -gt 0 ] && [ "$(field "$s" noff)" -lt 0 ] ||
		vm_fail "$d: no reshape with a moved data offset on disk: $s"
done
lo() {	# lo CASE-IMAGE: the original image's lowest data offset
	local n=${1: -1}
	case $1 in
	j*j) n=jj ;;
	j*) n=q$n ;;
	*) n=p$n ;;
	esac
	sed -n "s/^$n //p" "$OUT/lo"
}

# ---- host: crafted copies -------------------------------------------------

# RAID5 dev sector of array sector $1 with $2 data members (any layout)
dev_of() {
	local a=$1 nd=$2 c=$(($1 / CHUNK))
	echo $(((c / nd) * CHUNK + a % CHUNK))
}
P=$(field "$(sb "$(img q0)")" pos)
size2=$(vm_val size2)
[ -n "$size2" ] || vm_fail "no md2 size"
for c in $SB_CASES $J_CASES; do
	case $c in
	j*) set -- q0 q1 q2 q3 jj ;;
	*) set -- p0 p1 p2 p3 ;;
	esac
	imgs=()
	for d in "$@"; do
		n=$c${d: -1}
		cp --sparse=always "$(img $d)" "$(img $n)"
		imgs+=("$n")
	done
	s=$(sb "$(img ${c}1)")
	doff=$(field "$s" doff) bbo=$(field "$s" bbl) pos=$(field "$s" pos)
	what=
	case $c in
	posend)	for n in "${imgs[@]}"; do sb "$(img $n)" reshape_position=$((3 * CHUNK << 34)); done ;;
	posunal) for n in "${imgs[@]}"; do sb "$(img $n)" reshape_position=$((pos + 8)); done ;;
	offsb)	for n in "${imgs[@]}"; do
			sb "$(img $n)" new_offset=$((8 - $(field "$(sb "$(img $n)")" doff)))
		done ;;
	offbblog)
		[ "$bbo" -gt 0 ] || vm_fail "${c}1: no bad block log ($s)"
		sb "$(img ${c}1)" new_offset=$((8 + bbo - doff)) ;;
	offend)	sb "$(img ${c}1)" new_offset=65536 ;;
	offwrap) sb "$(img ${c}1)" new_offset=$((8 - pos / 3 - doff)) ;;
	delta)	for n in "${imgs[@]}"; do sb "$(img $n)" delta_disks=100; done ;;
	level)	for n in "${imgs[@]}"; do sb "$(img $n)" new_level=6; done ;;
	layout)	for n in "${imgs[@]}"; do sb "$(img $n)" new_layout=99; done ;;
	chunk)	for n in "${imgs[@]}"; do sb "$(img $n)" new_chunk=24; done ;;
	j*)
		# prev (3 members, 2 data) ahead of P, next (4, 3 data) behind
		a=$(((P / (2 * CHUNK) + 2) * 2 * CHUNK))	# a prev row wholly ahead
		b=$(((P / (3 * CHUNK) - 2) * 3 * CHUNK))	# a next row wholly behind
		[ $b -ge 0 ] && [ $((a + 8)) -le $((size2 / 512)) ] ||
			vm_fail "P $P: no room for the journal cases"
		pa=$(dev_of $a 2) pb=$(dev_of $b 3) na=$(dev_of $a 3)
		[ "$na" != "$pa" ] || vm_fail "P $P: prev and next rows of $a coincide"
		case $c in
		jok)	what="$pa:$a $pb:$b" ;;
		jstraddle) what="$pa:$a,$b" ;;
		jparity) what="$na:$a" ;;
		esac
		for t in $what; do
			"$JC" craft "$(img ${c}j)" txn "$t" >> "$OUT/$c.craft" ||
				vm_fail "$c: jcorrupt craft failed: $(cat "$OUT/$c.craft")"
		done
		what="P $P: txn $what"
		;;
	esac
	vm_log "$c: ${what:-$(sb "$(img ${c}1)")}"
	for n in "${imgs[@]}"; do
		regions "$(img $n)" "$(lo $n)" > "$OUT/$n.before"
	done
	echo "${imgs[*]}" > "$OUT/$c.imgs"
done

# ---- boot 2: assemble each ----------------------------------------------------

# One disk per case, member i at (1 + 32 i) MiB, mapped in the guest by
# dm-linear (partitions of one disk would make md warn that they share
# it; the journal image stays a disk of its own): fewer PCI slots than
# images, one boot instead of three.
pack() {	# pack CASE
	local n off=1 mb
	read -ra imgs < "$OUT/$1.imgs"
	rm -f "$(img D$1)" "$OUT/$1.pack"
	for n in "${imgs[@]}"; do
		[ "${n: -1}" = j ] && continue
		mb=$(($(stat -c %s "$(img $n)") >> 20))
		dd if="$(img $n)" of="$(img D$1)" bs=1M seek=$off conv=sparse,notrunc status=none
		echo "$n $off $mb" >> "$OUT/$1.pack"
		off=$((off + mb))
	done
}
unpack() {	# unpack CASE: the partitions back over the images
	local n off mb
	while read -r n off mb; do
		dd if="$(img D$1)" of="$(img $n)" bs=1M skip=$off count=$mb conv=sparse status=none
	done < "$OUT/$1.pack"
}
disks=()
for c in $SB_CASES $J_CASES; do
	pack $c
	disks+=("D$c")
	case $c in j*) disks+=("${c}j") ;; esac
done
vm_boot --timeout 200 --env "CASES=$SB_CASES $J_CASES" - "${disks[@]}" <<'EOF' ||
. /test/guest-lib.sh
load_personality
for c in $CASES; do
	d=$(disk D$c)
	n0=$(dmesg | wc -l)
	j=
	case $c in j*) j=$(disk ${c}j) ;; esac
	m=
	for i in 0 1 2 3; do
		run dmsetup create $c$i --table "0 65536 linear $d $(((1 + 32 * i) * 2048))"
		m="$m /dev/mapper/$c$i"
	done
	mdadm --assemble /dev/md1 $m $j > /tmp/asm.out 2>&1
	report "$c.rc" $?
	report "$c.state" "$(cat /sys/block/md1/md/array_state 2>/dev/null || echo none)"
	report "$c.rpos" "$(cat /sys/block/md1/md/reshape_position 2>/dev/null || echo none)"
	dmesg | tail -n +$((n0 + 1)) | grep -E 'md1|md/raid|md:' | while IFS= read -r line; do
		result "LOG $c ${line#*] }"
	done
	while IFS= read -r line; do
		result "LOG $c mdadm: $line"
	done < /tmp/asm.out
	echo frozen > /sys/block/md1/md/sync_action 2>/dev/null
	mdadm --stop /dev/md1 >/dev/null 2>&1
	wait_grow_children
	for i in 0 1 2 3; do
		run dmsetup remove $c$i
	done
done
EOF
	bad boot2 "boot 2 failed"
grep '^LOG ' "$VM_RESULTS" > "$OUT/md-lines"
val() {
	vm_val "$@"
}
for c in $SB_CASES $J_CASES; do
	unpack $c
done

# ---- host: verdicts ----------------------------------------------------------

for c in $SB_CASES $J_CASES; do
	changed=
	read -ra imgs < "$OUT/$c.imgs"
	for n in "${imgs[@]}"; do
		regions "$(img $n)" "$(lo $n)" > "$OUT/$n.after"
		changed="$changed$(regions_diff $n reserved sb data)"
	done
	state=$(val "$c.state")
	lines=$(sed -n "s/^LOG $c //p" "$OUT/md-lines")
	vm_log "$c: $PERSONALITY: state $state, reshape_position $(val "$c.rpos"), changed:${changed:- nothing}"
	printf '%s\n' "$lines" | sed 's/^/    /'

	if [ "$PERSONALITY" = raid456 ]; then
		case $c in
		j*)
			printf '%s\n' "$lines" | grep -q "don't support reshape with journal" ||
				bad $c "no raid456 refusal (J6)"
			case $state in none|inactive|clear) ;; *) bad $c "raid456: array_state $state" ;; esac
			[ -z "$changed" ] || bad $c "raid456 refused, yet changed:$changed" ;;
		esac
		continue
	fi
	case $c in
	ok|jok)
		case $state in
		clean|active|read-auto) ;;
		*) bad $c "array_state $state, expected it running" ;;
		esac
		[ $c = jok ] && ! printf '%s\n' "$lines" |
			grep -qE 'journal: recovered [0-9]+ transactions, replayed 2 stripes' &&
			bad $c "the 2 crafted stripes were not replayed"
		for x in $changed; do
			case $x in
			*:reserved) bad $c "$x changed" ;;
			esac
		done
		continue
		;;
	posend)		want='not resumable: reshape_position past the end' ;;
	posunal)	want='not resumable: reshape_position not on a reshape step boundary' ;;
	offsb)		want='does not have a valid v1.2 superblock' ;;
	offbblog)	want='not resumable: new_offset of .* over the bad block log' ;;
	offend|offwrap)	want='not resumable: new_offset of .* past the end of the device' ;;
	delta)		want='not resumable: bad device count change' ;;
	level)		want='not resumable: a reshape keeps the level' ;;
	layout)		want='not resumable: ' ;;
	chunk)		want='not resumable: chunk size must be a power of two' ;;
	jstraddle|jparity) want='not the row of its data .*: corrupt log, refused, nothing written' ;;
	esac
	printf '%s\n' "$lines" | grep -qE "$want" ||
		bad $c "no md line matching '$want'"
	case $c in
	j*)	[ "$state" = readonly ] || bad $c "array_state $state, expected readonly" ;;
	*)	case $state in none|inactive|clear) ;; *) bad $c "array_state $state, expected no array" ;; esac ;;
	esac
	[ -z "$changed" ] || bad $c "refused, yet changed:$changed"
done

crafted_verdict
