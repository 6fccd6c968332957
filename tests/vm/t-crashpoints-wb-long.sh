#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-crashpoints-wb-long: t-crashpoints-wt-long, journal in write-back mode.
export JMODE=write-back VM_TEST=${VM_TEST:-t-crashpoints-wb-long}
exec "$(dirname "$0")/t-crashpoints-wt-long.sh"
