#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run VM scenarios: tests/vm/run.sh [NAME...]
#
# NAME is "fail-rebuild", "t-fail-rebuild" or a path to a t-*.sh script;
# without names every tests/vm/t-*.sh runs, in name order.  PERSONALITY
# (raid5j, the default, or raid456) selects what the scenarios test.
#
# Prints "PASS t-name (12s)" or "FAIL t-name (12s)" with the guest's FAIL
# lines and the tail of build/vm-logs/t-name.log, then a last line
# "N passed, N failed".  Exit status 1 if anything failed.
#
# R5J_VM_JOBS=N runs N scenarios at once (default 1; make check uses 2):
# results are printed as scenarios end, so not in list order.

set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export PERSONALITY=${PERSONALITY:-raid5j}
build=${R5J_BUILD:-$root/build}
logdir=$build/vm-logs
mkdir -p "$logdir"

tests=()
if [ $# -eq 0 ]; then
	for t in "$here"/t-*.sh; do
		[ -e "$t" ] && tests+=("$t")
	done
else
	for n in "$@"; do
		case $n in
		*/*) t=$n ;;
		t-*) t=$here/${n%.sh}.sh ;;
		*) t=$here/t-${n%.sh}.sh ;;
		esac
		tests+=("$t")
	done
fi

passed=0 failed=0 skipped=0

# Kernel, module and initramfs are checked and cached once, up front.
setup_err=$( (VM_TEST=setup; . "$here/lib.sh"; _vm_setup) 2>&1 )
setup_rc=$?
[ -n "$setup_err" ] && echo "$setup_err"
echo "VM suite: personality $PERSONALITY, ${#tests[@]} scenario(s)"

# run_one T: run scenario T, its output to its log; leaves "RC SECS" in
# $logdir/NAME.status for report_one.
run_one() {
	local t=$1 name log start rc
	name=$(basename "$t" .sh)
	log=$logdir/$name.log
	rm -f "$logdir/$name".boot*.results "$logdir/$name.status"
	: > "$log"
	start=$(date +%s)
	VM_TEST=$name VM_LOG=$log bash "$t" >> "$log" 2>&1 < /dev/null
	rc=$?
	echo "$rc $(($(date +%s) - start))" > "$logdir/$name.status"
}

# kernel_splat LOG: the first kernel Oops/BUG/WARNING of LOG with what
# follows it (RIP, Code, Call Trace), so that a CI log, which keeps only
# this summary, shows where the kernel stopped and not just that it did.
kernel_splat() {
	local first
	first=$(grep -anE 'Oops|BUG:|kernel BUG|WARNING:|general protection fault' \
		"$1" | head -n 1 | cut -d: -f1)
	[ -n "$first" ] || return 0
	echo "    --- first kernel report in $1 (line $first) ---"
	tail -n +$((first > 10 ? first - 10 : 1)) "$1" | head -n 60 | sed 's/^/    /'
}

# report_one NAME: print and count the result run_one left.
report_one() {
	local name=$1 log=$logdir/$1.log rc secs
	read -r rc secs < "$logdir/$name.status" || { rc=1 secs=?; }
	rm -f "$logdir/$name.status"
	if [ "$rc" -eq 0 ]; then
		echo "PASS $name (${secs}s)"
		passed=$((passed + 1))
		# disk images of a passing test are of no more use
		rm -rf "$build/vm-disks/$name" "$build/boot/$name".*
	elif [ "$rc" -eq 77 ]; then
		echo "SKIP $name: $(grep -m1 '^SKIP' "$log" || echo skipped)"
		skipped=$((skipped + 1))
	else
		echo "FAIL $name (${secs}s)"
		grep -aE "^(  guest: )?FAIL " "$log" | sed 's/^/    /' | head -n 10
		kernel_splat "$log"
		echo "    --- last 25 lines of $log ---"
		tail -n 25 "$log" | sed 's/^/    /'
		failed=$((failed + 1))
	fi
}

# R5J_VM_JOBS scenarios run at once (default 1).  Every scenario has its own
# disks, boot files, logs and nbd sockets, so they do not share state; they
# share only the CPUs, which is what VM_TIMEOUT_SCALE is for.
jobs_max=${R5J_VM_JOBS:-1}
declare -A running=()
suite_start=$(date +%s)

# reap: wait for one running scenario to end and report it.
reap() {
	local pid
	wait -n -p pid "${!running[@]}"
	report_one "${running[$pid]}"
	unset "running[$pid]"
}

for t in "${tests[@]}"; do
	name=$(basename "$t" .sh)
	if [ $setup_rc -ne 0 ]; then
		echo "FAIL $name (setup failed)"
		failed=$((failed + 1))
		continue
	fi
	if [ ! -f "$t" ]; then
		echo "FAIL $name (no such test: $t)"
		failed=$((failed + 1))
		continue
	fi
	if [ "$jobs_max" -le 1 ]; then
		run_one "$t"
		report_one "$name"
		continue
	fi
	while [ ${#running[@]} -ge "$jobs_max" ]; do
		reap
	done
	run_one "$t" &
	running[$!]=$name
done
while [ ${#running[@]} -gt 0 ]; do
	reap
done
[ "$jobs_max" -gt 1 ] &&
	echo "VM suite: $((passed + failed + skipped)) scenario(s) in $(($(date +%s) - suite_start))s, $jobs_max at a time"

[ $skipped -gt 0 ] && echo "($skipped skipped)"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
