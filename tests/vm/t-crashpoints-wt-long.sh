#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-crashpoints-wt-long: t-crashpoints-wt at every flush/FUA point of a
# longer log (BATCHES 40), every member missing in turn at each, and two
# CrashMonkey states at every flush point (CRASH_SEEDS).  Not CI: hours
# in TCG.
export BATCHES=${BATCHES:-40} EVERY=${EVERY:-1} MISSING_ALL=${MISSING_ALL:-1}
export CRASH_SEEDS=${CRASH_SEEDS:-2} TIMEOUT=${TIMEOUT:-20000}
export VM_TEST=${VM_TEST:-t-crashpoints-wt-long}
exec "$(dirname "$0")/t-crashpoints-wt.sh"
