#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-crashpoints-wb: t-crashpoints-wt with the journal in write-back mode
# (switched after the create; the checking assemblies run md's default,
# so recovery destages what was dirty).  About 14 points: recovering a
# write-back log costs twice a write-through one.
export JMODE=write-back POINTS=${POINTS:-14} VM_TEST=${VM_TEST:-t-crashpoints-wb}
exec "$(dirname "$0")/t-crashpoints-wt.sh"
