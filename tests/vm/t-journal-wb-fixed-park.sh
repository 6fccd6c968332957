#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-wb-fixed-park: t-journal-wb-jcache-park with the module
# loaded with writeback_recoverable_by=raid5j (L12, journal.md
# "Beyond half the ring"): members slower than the writers fill the
# ring, so the parity of the stripes pinning the oldest unit waits for
# and goes into one unit X (x_units > 0 asserted, fixed_reserve 1), the
# other destages park as under L11, nothing hangs, room_short 0, no
# WARNING, and every block verifies after the switch to write-through
# and after a reassembly.  Under raid456 the same I/O and checks without
# the journal assertions.
export RECOVERABLE_BY=raid5j
export VM_TEST=${VM_TEST:-t-journal-wb-fixed-park}
exec "$(dirname "$0")/t-journal-wb-jcache-park.sh"
