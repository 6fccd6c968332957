#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug lane: VM scenarios on a KASAN + lockdep + kmemleak + fault
# injection kernel (scripts/debug-kernel.sh, built once and cached).
#
#   scripts/debug-kernel-check.sh [--core] [NAME...]
#
# 1. builds the debug kernel unless it is cached (outside the work tree),
# 2. builds raid5j.ko against it in build/debug/module/ (a copy of the
#    sources: the work tree's own raid5j.ko, for Debian's kernel, stays),
# 3. runs tests/vm/run.sh on it with everything under build/debug/
#    (logs in build/debug/vm-logs/), every boot timeout x VM_TIMEOUT_SCALE
#    (default 4),
# 4. prints each kernel report (KASAN, lockdep, "sleeping function called
#    from invalid context", WARN, kmemleak, ...) found in the logs of the
#    failing scenarios, and the times of each phase.
#
# NAME...: scenarios as for run.sh; none: all of them, or with --core the
# CORE list below.  The last line is run.sh's "N passed, N failed"; a
# kernel or module build failure counts as one failed test.

set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1

# What `make check-debug-core` runs: the fault-injection scenarios plus
# the basic paths (create/assemble/stop with verified I/O, failure and
# rebuild: t-fail-rebuild) and concurrent bypass reads on both guest CPUs
# (KASAN).  t-create-assemble (93 s here) is left out for CI's budget
# (CI ran 62.5 min with it); two debug guests at once run no faster
# (R5J_DEBUG_JOBS=2: t-create-assemble took 192 s instead of 93).
CORE=(debug-faults fail-rebuild aligned-reads)

core=
if [ "${1:-}" = --core ]; then
	core=1
	shift
fi
tests=("$@")
[ ${#tests[@]} -eq 0 ] && [ -n "$core" ] && tests=("${CORE[@]}")

export R5J_BUILD=$root/build/debug
export VM_TIMEOUT_SCALE=${VM_TIMEOUT_SCALE:-4}
# One debug guest at a time (R5J_DEBUG_JOBS): two of them beside other
# VMs stalled one in early boot, before md ran (in APIC calibration).
export R5J_VM_JOBS=${R5J_DEBUG_JOBS:-1}
# qemu's ACPI _PRT method runs into ACPICA's 30 s loop timeout on this
# kernel (KASAN + lockdep, TCG): PCI interrupts routed from the MP table.
# The MP table also gives the IO-APIC (CONFIG_X86_MPPARSE), without which
# the kernel falls back to one CPU; virtio uses MSI-X (CONFIG_PCI_MSI).
export VM_APPEND="${VM_APPEND:+$VM_APPEND }acpi=noirq"
mkdir -p "$R5J_BUILD"

t0=$(date +%s)
kernel_note=built
[ -f "$("$root/scripts/debug-kernel.sh" dir 2>/dev/null)/.complete" ] && kernel_note=cached
fail_build() {
	echo "debug-kernel-check: $*"
	echo "0 passed, 1 failed"
	exit 1
}

# ---- 1. kernel ---------------------------------------------------------

envs=$("$root/scripts/debug-kernel.sh" env) || fail_build "building the debug kernel failed"
eval "$envs"
export KVER VM_KERNEL VM_MODROOT
t1=$(date +%s)

# ---- 2. module ---------------------------------------------------------

mod=$R5J_BUILD/module
rm -rf "$mod"
mkdir -p "$mod"
cp -a Kbuild drivers include "$mod/"
find "$mod" \( -name '*.o' -o -name '*.cmd' -o -name '*.ko' \) -delete
# -g: the kernel has no debug info, the module gets it (faddr2line).
echo "debug-kernel-check: building raid5j.ko for $KVER"
make -C "$KDIR" M="$mod" R5J_MDHDR="$R5J_MDHDR" KCFLAGS=-g modules \
	> "$R5J_BUILD/module.log" 2>&1 || {
	tail -n 30 "$R5J_BUILD/module.log"
	fail_build "raid5j.ko did not build against $KDIR"
}
export R5J_KO=$mod/raid5j.ko
t2=$(date +%s)

# ---- 3. scenarios ------------------------------------------------------

echo "debug-kernel-check: kernel $KVER ($R5J_DEBUG_DIR), timeouts x$VM_TIMEOUT_SCALE"
"$root/tests/vm/run.sh" "${tests[@]}" | tee "$R5J_BUILD/run.log"
rc=${PIPESTATUS[0]}
t3=$(date +%s)

# ---- 4. reports --------------------------------------------------------

# kernel_reports LOG: the splats in a console log, each from its first line
# to the end of its trace (or 120 lines), at most 6 different ones (init
# prints dmesg again at the end: the same splat twice is shown once).
kernel_reports() {
	tr -d '\r' < "$1" | awk '
	/BUG: |WARNING: |Oops|general protection fault|kernel BUG|INFO: task .* blocked|INFO: trying to register non-static key|list_(add|del) corruption|refcount_t:|UBSAN:|---- kmemleak: [0-9]/ {
		if (!inrep) {
			key = $0
			sub(/^\[ *[0-9.]+\] /, "", key)
			if (key in seen) { skip = 1; inrep = 1; n = 0 }
			else {
				if (nrep >= 6) exit
				seen[key] = 1; nrep++; skip = 0; inrep = 1; n = 0
				print "  ----"
			}
		}
	}
	inrep {
		if (!skip) print "  " $0
		n++
		if (n > 3 && ($0 ~ /---\[ end trace|====================[ ]*$|---- end of kmemleak/) || n >= 120)
			inrep = 0
	}'
}

failed_tests=$(sed -n 's/^FAIL \(t-[a-z0-9-]*\).*/\1/p' "$R5J_BUILD/run.log" | sort -u)
for t in $failed_tests; do
	log=$R5J_BUILD/vm-logs/$t.log
	[ -f "$log" ] || continue
	reps=$(kernel_reports "$log")
	[ -n "$reps" ] || continue
	echo "==== kernel reports in $t ($log):"
	printf '%s\n' "$reps"
done

echo "debug-kernel-check: times: kernel $((t1 - t0)) s ($kernel_note; a build took $(cat "$R5J_DEBUG_DIR/build-seconds") s wall, $(cat "$R5J_DEBUG_DIR/build-cpu" 2>/dev/null || echo '?') s CPU), module $((t2 - t1)) s, scenarios $((t3 - t2)) s, total $((t3 - t0)) s"
tail -n 1 "$R5J_BUILD/run.log"
exit "$rc"
