#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-crashpoints-wb: t-crashpoints-wt with the journal in write-back mode
# (switched after the create; the checking assemblies run md's default,
# so recovery destages what was dirty).
export JMODE=write-back VM_TEST=${VM_TEST:-t-crashpoints-wb}
exec "$(dirname "$0")/t-crashpoints-wt.sh"
