#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The VM scenarios on another Debian kernel series than the default 6.1:
#
#   scripts/vm-kernel-check.sh SERIES [NAME...]
#
# SERIES is 6.12 (Debian 12's linux-image-6.12.*+deb12-amd64 from
# bookworm-security, Debian 13's kernel).  It builds raid5j.ko for the newest
# installed kernel of that series in build/kver-SERIES/module/ (a copy of the
# sources: the tree's own raid5j.ko stays the 6.1 one), then runs
# tests/vm/run.sh on that kernel with everything under build/kver-SERIES/:
# the scenarios named, or those listed in tests/vm/ci-scenarios-SERIES
# (t-mdadm-suite, mdadm's core tier, is one of them).
# PERSONALITY=raid456 runs them on that kernel's raid456.  The last line is
# run.sh's "N passed, N failed"; a build failure counts as one failed test.

set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
series=${1:-}
[ -n "$series" ] || { echo "usage: $0 SERIES [NAME...]" >&2; exit 2; }
shift

fail_build() {
	echo "vm-kernel-check: $*" >&2
	echo "0 passed, 1 failed"
	exit 1
}

KVER=$("$root/scripts/kver.sh" --both "$series") ||
	fail_build "no Debian $series kernel with image and headers installed (make deps)"
export KVER
export R5J_BUILD=$root/build/kver-$series
# 6.12 guests run their vCPUs in one host thread.  Under multi-threaded
# TCG (Debian 12's QEMU 7.2) a 6.12 guest once died of "Oops: int3 ...
# Fatal exception in interrupt" 3.7 s into a boot (a passing run of that
# boot loads raid5j at 5.9 s) in CI once (not reproduced in 58 boots
# since).  The kernel patches its own code through int3
# breakpoints (text_poke_bp); spurious int3 Oopses of that kind under TCG,
# once in hundreds of boots, were reported on LKML in July 2023 (QEMU 8.0).
# Single-threaded TCG still interleaves both vCPUs; 6.1 guests, with
# hundreds of boots a day and never such an Oops, keep multi-threaded TCG.
[ "$series" = 6.1 ] || export VM_TCG_THREAD=${VM_TCG_THREAD:-single}
mkdir -p "$R5J_BUILD"
t0=$(date +%s)

# md's private headers of that very kernel (version-checked)
make --no-print-directory -C "$root" KVER="$KVER" md-headers ||
	fail_build "md headers for $KVER"
mdhdr=$root/build/md-headers/$KVER

mod=$R5J_BUILD/module
rm -rf "$mod"
mkdir -p "$mod"
cp -a Kbuild drivers include "$mod/"
find "$mod" \( -name '*.o' -o -name '*.cmd' -o -name '*.ko' -o -name '.*.cmd' \) -delete
echo "vm-kernel-check: building raid5j.ko for $KVER"
make -C "/lib/modules/$KVER/build" M="$mod" R5J_MDHDR="$mdhdr" modules \
	> "$R5J_BUILD/module.log" 2>&1 || {
	tail -n 30 "$R5J_BUILD/module.log"
	fail_build "raid5j.ko did not build for $KVER"
}
export R5J_KO=$mod/raid5j.ko
t1=$(date +%s)

tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
	list=$root/tests/vm/ci-scenarios-$series
	[ -f "$list" ] || fail_build "$list missing"
	mapfile -t tests < <(grep -v -e '^#' -e '^[[:space:]]*$' "$list")
	# mdadm's suite: its every-kernel part (tests/mdadm-suite/tests.list);
	# all of core runs on 6.1, and here when t-mdadm-suite is named
	export MDADM_SUITE=${MDADM_SUITE:-every-kernel}
fi
echo "vm-kernel-check: kernel $KVER, personality ${PERSONALITY:-raid5j}, module $((t1 - t0)) s"
"$root/tests/vm/run.sh" "${tests[@]}"
rc=$?
echo "vm-kernel-check: scenarios $(($(date +%s) - t1)) s"
exit $rc
