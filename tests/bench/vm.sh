#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One benchmark VM: tests/bench/vm.sh PERSONALITY PLAN
#
# Started twice by bench.sh, once per personality, both VMs up at the same
# time; each runs tests/bench/guest.sh, which waits for the host's "go"
# before every step.  The disk recipe is the same for both:
#
#	t0..t<N-1>  members, throttled (HDD-like: BENCH_IOPS IOPS, BENCH_MBPS MB/s)
#	tj          journal of the throttled arrays, unthrottled
#	u0..u<N-1>  members, unthrottled
#	uj          journal of the unthrottled arrays
#	ctl         1 MiB control disk: the host writes "go <step>" into it
#
# All are sparse raw images (cache=unsafe, discard=unmap: the guest
# discards them before each array, so every array starts on zeroed disks).
#
# Environment (from bench.sh): BENCH_DISKS, BENCH_MEMBER_SIZE,
# BENCH_JOURNAL_SIZE, BENCH_IOPS, BENCH_MBPS, BENCH_TIMEOUT, BENCH_MEMBER_WBT,
# BENCH_STRIPE_CACHE
# (passed to the guest).

set -u
PERSONALITY=$1
plan=$2
export PERSONALITY
export VM_TEST=bench-$PERSONALITY
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../vm/lib.sh"

n=${BENCH_DISKS:-4}
throttle="throttling.iops-total=${BENCH_IOPS:-150},throttling.bps-total=$((${BENCH_MBPS:-150} * 1000000))"
disks=()
for i in $(seq 0 $((n - 1))); do
	vm_disk "t$i" "${BENCH_MEMBER_SIZE:-512M}"
	vm_disk "u$i" "${BENCH_MEMBER_SIZE:-512M}"
done
vm_disk tj "${BENCH_JOURNAL_SIZE:-128M}"
vm_disk uj "${BENCH_JOURNAL_SIZE:-128M}"
vm_disk ctl 1M
for i in $(seq 0 $((n - 1))); do
	disks+=("t$i,$throttle")
done
disks+=(tj)
for i in $(seq 0 $((n - 1))); do
	disks+=("u$i")
done
disks+=(uj ctl)

# no_timer_check: under TCG on a loaded host the kernel's IO-APIC timer
# check can fail and panic at boot.  A boot that dies before the guest is
# ready is tried once more (same boot number, so the same result file).
export VM_APPEND="${VM_APPEND:+$VM_APPEND }no_timer_check"
for try in 1 2; do
	# shellcheck disable=SC2034	# vm_boot's boot counter
	VM_BOOTS=0
	VM_FILES=$plan vm_boot --timeout "${BENCH_TIMEOUT:-3600}" --show \
		--env BENCH_MEMBER_WBT="${BENCH_MEMBER_WBT:-default}" \
		--env BENCH_STRIPE_CACHE="${BENCH_STRIPE_CACHE:-}" \
		--drive-opts discard=unmap "$here/guest.sh" "${disks[@]}" && exit 0
	grep -qx 'MARK ready' "$VM_RESULTS" && exit 1
	[ $try = 1 ] && vm_log "boot died before the guest was ready; booting again"
done
exit 1
