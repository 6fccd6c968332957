#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-crashpoints-nojournal: the control of t-crashpoints-wt, no journal.
# Degraded assemblies need --force; at least one point must show the
# write hole (lost or garbage acknowledged blocks), which proves that the
# replay and the checker can see a loss.  About 16 points,
# every member missing at each (no journal recovery: assemblies are quicker).
export JOURNAL=0 MISSING_ALL=${MISSING_ALL:-1} POINTS=${POINTS:-16}
export VM_TEST=${VM_TEST:-t-crashpoints-nojournal}
exec "$(dirname "$0")/t-crashpoints-wt.sh"
