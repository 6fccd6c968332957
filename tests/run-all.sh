#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Everything `make check` runs, in order:
#   deps    scripts/install-deps.sh (apt only when something is missing)
#   build   raid5j.ko for the Debian 6.1 kernel
#   unit    make -C tests/unit run (when that directory has a Makefile)
#   vm      tests/vm/run.sh: the VM scenarios of tests/vm/ci-scenarios
#           (every t-*.sh with R5J_VM_ALL=1), PERSONALITY (raid5j)
#   vm-6.12 scripts/vm-kernel-check.sh 6.12: raid5j.ko built for Debian's
#           6.12 kernel, the core set tests/vm/ci-scenarios-6.12 booted on
#           it; R5J_VM_612=none skips it
#   debug-core  scripts/debug-kernel-check.sh --core: t-debug-faults,
#           t-fail-rebuild, t-aligned-reads on the debug kernel (built
#           once, ~10 min); R5J_DEBUG_LANE=none skips it
#
# The debug kernel's build (~6 min of both CPUs when not cached) starts in
# the background at nice 19 right after the module builds: the VM guests
# of the next steps idle often (throttled I/O, sleeps, boots), and the
# build takes only the CPU they leave, instead of a serial step of its
# own.  debug-kernel.sh's lock makes the debug lane wait for it.
#
# The VM scenarios run R5J_VM_JOBS at a time (default 2: a guest idles in
# boots, sleeps and delayed I/O, so two share the CPUs well), with every
# boot timeout doubled (VM_TIMEOUT_SCALE, default 2) for the shared CPUs.
#
# Each step counts as one test, except that a step printing its own
# "N passed, N failed" line (unit, vm) counts as those N.  The last line of
# output is "N passed, N failed"; the exit status is 1 if anything failed.

set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
MAKE=${MAKE:-make}
export PERSONALITY=${PERSONALITY:-raid5j}
export R5J_VM_JOBS=${R5J_VM_JOBS:-2}
vm_scale=${VM_TIMEOUT_SCALE:-$([ "$R5J_VM_JOBS" -gt 1 ] && echo 2 || echo 1)}
logdir=$root/build/check-logs
mkdir -p "$logdir"

passed=0 failed=0

# step NAME CMD...: run CMD with its output shown and saved; account for it.
step() {
	local name=$1 out=$logdir/$1.log rc start secs summary p f
	shift
	echo "==== $name: $*"
	start=$(date +%s)
	"$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	secs=$(($(date +%s) - start))
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$out" | tail -n 1)
	if [ -n "$summary" ]; then
		p=${summary%% passed*}
		f=${summary#*, }
		f=${f%% failed}
		[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
		passed=$((passed + p))
		failed=$((failed + f))
	elif [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	if [ "$rc" -eq 0 ]; then
		echo "==== $name: ok (${secs}s)"
	else
		echo "==== $name: FAILED (exit $rc, ${secs}s, log: $out)"
	fi
	return "$rc"
}

summary() {
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

step deps "$root/scripts/install-deps.sh" || summary

# A fresh sub-make sees the kernel that deps may just have installed.
if ! step build "$MAKE" --no-print-directory -C "$root" module; then
	echo "==== vm: not run, the module did not build"
	failed=$((failed + 1))
	build_ok=
else
	build_ok=1
fi

debug_build_pid=
if [ "${R5J_DEBUG_LANE:-core}" != none ]; then
	nice -n 19 "$root/scripts/debug-kernel.sh" build \
		> "$logdir/debug-kernel-build.log" 2>&1 &
	debug_build_pid=$!
	echo "==== debug kernel: building in the background at nice 19 (log: $logdir/debug-kernel-build.log)"
fi

if [ -f "$root/tests/unit/Makefile" ]; then
	step unit "$MAKE" --no-print-directory -C "$root" unit
else
	echo "==== unit: tests/unit/Makefile not there yet, skipped"
fi

if [ -n "$build_ok" ]; then
	if [ "${R5J_VM_ALL:-0}" = 1 ] || [ ! -f "$root/tests/vm/ci-scenarios" ]; then
		step vm env VM_TIMEOUT_SCALE="$vm_scale" "$root/tests/vm/run.sh"
	else
		# shellcheck disable=SC2046
		step vm env VM_TIMEOUT_SCALE="$vm_scale" "$root/tests/vm/run.sh" $(grep -v '^#' "$root/tests/vm/ci-scenarios")
	fi
fi

# The core set on Debian's 6.12 kernel (its own module build, under
# build/kver-6.12/).
if [ -n "$build_ok" ]; then
	case "${R5J_VM_612:-core}" in
	none) echo "==== vm-6.12: skipped (R5J_VM_612=none)" ;;
	*) step vm-6.12 "$root/scripts/vm-kernel-check.sh" 6.12 ;;
	esac
fi

# The core scenarios again on the debug kernel (KASAN, lockdep, kmemleak,
# fault injection), built from linux-source-6.1 on first use and cached
# outside the tree.  R5J_DEBUG_LANE=none skips it (a quick local run).
case "${R5J_DEBUG_LANE:-core}" in
none) echo "==== debug-core: skipped (R5J_DEBUG_LANE=none)" ;;
*)
	# A build failure is reported by the lane's own (locked) build.
	[ -n "$debug_build_pid" ] && wait "$debug_build_pid"
	step debug-core "$root/scripts/debug-kernel-check.sh" --core
	;;
esac

summary
