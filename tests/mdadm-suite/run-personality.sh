#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host side: run mdadm tests in the VM under one personality.
#
#   VM_TEST=NAME run-personality.sh PERSONALITY OUTDIR TARBALL TEST[:TIMEOUT]...
#
# Boots the VM (tests/vm/lib.sh) with guest.sh and the tests; when a boot
# ends early (a test hung, the kernel died, arrays could not be stopped),
# boots again with the tests not yet run.  The test that was running when a
# boot died is recorded as "crash".  Writes OUTDIR/results.tsv, one line per
# test: NAME <tab> pass|fail|timeout|hang|crash|notrun <tab> SECS <tab> REASON,
# and OUTDIR/logs/NAME/ (driver output, the test's trace, mdadm's failure
# log, kernel log of the test).
#
# Disks: "mdlogs" (the guest's log tar) and "vartmp" (a fresh ext4 for the
# guest's /var/tmp), made anew for every boot.
#
# Environment: MDSUITE_TIMEOUT (one test, s; default 300), MDSUITE_MEM
# (VM memory, MB; default 3072), MDSUITE_MAX_BOOTS (default 8), and what
# tests/vm/lib.sh reads.

set -uo pipefail

[ $# -ge 3 ] || { echo "usage: $0 PERSONALITY OUTDIR TARBALL TEST..." >&2; exit 2; }
export PERSONALITY=$1
outdir=$2
tarball=$3
shift 3
tests=("$@")

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../vm/lib.sh
. "$here/../vm/lib.sh"

tmo=${MDSUITE_TIMEOUT:-300}
mem=${MDSUITE_MEM:-3072}
max_boots=${MDSUITE_MAX_BOOTS:-8}

rm -rf "$outdir"
mkdir -p "$outdir/logs"
res=$outdir/results.tsv
: > "$res"

# The guest finds the tarball as /test/mdadm-suite.tar.
stage=$BUILD/boot/$VM_TEST.files
mkdir -p "$stage"
cp "$tarball" "$stage/mdadm-suite.tar"
export VM_FILES="$stage/mdadm-suite.tar"

has_result() { awk -F'\t' -v t="$1" '$1 == t { f = 1 } END { exit !f }' "$res"; }
record() { printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >> "$res"; }

boot=0 idle=0
while :; do
	left=() names=() sum=0
	for spec in "${tests[@]}"; do
		t=${spec%%:*}
		has_result "$t" && continue
		left+=("$spec")
		names+=("$t")
		st=$tmo
		[ "$spec" != "$t" ] && st=${spec#*:}
		sum=$((sum + st + 30))
	done
	[ ${#left[@]} -eq 0 ] && break
	if [ $boot -ge "$max_boots" ]; then
		for t in "${names[@]}"; do
			record "$t" notrun 0 "not run: $max_boots boots used"
		done
		break
	fi
	boot=$((boot + 1))
	vm_disk mdlogs 64M
	vm_disk vartmp 1G
	mke2fs -q -F -t ext4 "$(vm_disk_path vartmp)" ||
		vm_fail "mke2fs on $(vm_disk_path vartmp) failed"
	btmo=$((sum + 120))
	[ $btmo -gt 14400 ] && btmo=14400
	vm_log "boot for ${#left[@]} test(s): ${names[*]}"
	vm_boot --timeout "$btmo" --mem "$mem" \
		--env "MDSUITE_TESTS=${left[*]}" --env "MDSUITE_TIMEOUT=$tmo" \
		"$here/guest.sh" mdlogs vartmp
	brc=$?
	# results of this boot
	sed -n 's/^VAL result:\([^ ]*\) \([^ ]*\) \([^ ]*\) *\(.*\)$/\1\t\2\t\3\t\4/p' \
		"$VM_RESULTS" >> "$res"
	(cd "$outdir/logs" && tar -xf "$(vm_disk_path mdlogs)") 2>/dev/null
	# a test started but without a result: the boot died under it
	started=$(sed -n 's/^VAL start:\([^ ]*\) .*/\1/p' "$VM_RESULTS" | tail -n 1)
	if [ -n "$started" ] && ! has_result "$started"; then
		why="VM boot $boot ended during the test (rc $brc)"
		kb=$(tail -c 200000 "$VM_LOG" | grep -aE "$VM_BAD_CONSOLE" | head -n 1)
		[ -n "$kb" ] && why="$why; kernel: $(echo "$kb" | cut -c1-160)"
		grep -q "boot $boot timed out\|timed out" <<< "$(tail -n 3 "$VM_LOG")" &&
			why="$why; boot timeout ${btmo}s"
		record "$started" crash 0 "$why"
	elif [ -z "$started" ] && ! grep -q '^VAL suite-done' "$VM_RESULTS" &&
	     ! grep -q '^VAL reboot-wanted' "$VM_RESULTS"; then
		# no test started: a guest setup failure, or the VM died early
		# (under a loaded host TCG sometimes panics in the boot's timer
		# check): one more try, then give up
		idle=$((idle + 1))
		[ $idle -lt 2 ] && continue
		why=$(grep -m1 '^FAIL' "$VM_RESULTS" || echo "VM boot $boot ran no test (rc $brc)")
		for t in "${names[@]}"; do
			record "$t" notrun 0 "$why"
		done
		break
	fi
	idle=0
done
rm -rf "$VM_DISK_DIR"	# logs are out; the images are of no more use
exit 0
