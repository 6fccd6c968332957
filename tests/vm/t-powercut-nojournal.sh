#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-powercut-nojournal: the control of t-journal-powercut, without a
# journal.  Asserts that the dirty degraded restart is refused without
# --force ("cannot start dirty degraded array"); with --force it starts and
# the report says whether the checker caught the write hole (it did in 1 of
# 3 cycles when first run: the power-cut test can fail).
# Disks and cycles as t-journal-powercut (CYCLES default 2 here).
export JOURNAL=0 CYCLES=${CYCLES:-2} VM_TEST=t-powercut-nojournal
exec "$(dirname "$0")/t-journal-powercut.sh"
