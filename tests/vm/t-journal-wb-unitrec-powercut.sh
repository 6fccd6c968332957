#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-unitrec-powercut: t-journal-wb-bigcache-powercut with
# recovery's unit-by-unit destage forced (the test hook
# recovery_unit_by_unit=1 in debugfs, R5J_DEBUGFS: journal_tail moved
# after each unit's parity
# transaction, journal.md section 15, "Recovery with a nearly full ring"),
# and a power cut during that recovery (REC_CUT=1): right after its first
# journal_tail move, with a member missing; the next assembly (without the
# same member) must recover everything, every acknowledged block intact,
# and report the units it recovered so.  One cycle (CYCLES=N for more).
# Under raid456 the hook does not exist and there is no cut during
# recovery (t-journal-powercut.sh runs it for raid5j only): the scenario
# is then t-journal-wb-bigcache-powercut's first cycle.
export R5J_DEBUGFS="${R5J_DEBUGFS:+$R5J_DEBUGFS }recovery_unit_by_unit=1"
export CYCLES=${CYCLES:-1} REC_CUT=${REC_CUT:-1}
export VM_TEST=${VM_TEST:-t-journal-wb-unitrec-powercut}
exec "$(dirname "$0")/t-journal-wb-bigcache-powercut.sh"
