#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-crashpoints-crash: the CrashMonkey mode, CI-sized: at about 6 flush
# points (write-through journal; JMODE=write-back), besides the in-order
# state, two seeded states that keep a random half of the writes
# since the previous flush (lwreplay crash; the seed is in each failure).
export POINTS=${POINTS:-6} POINT_FLAGS=${POINT_FLAGS:-F} CRASH_SEEDS=${CRASH_SEEDS:-2}
export VM_TEST=${VM_TEST:-t-crashpoints-crash}
exec "$(dirname "$0")/t-crashpoints-wt.sh"
