#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-reshape-grow-quick: t-reshape-grow's RAID5 3->4 alone (md0, no backup
# file; boot 2 the other personality reads it), for the 6.12 CI lane
# (tests/vm/ci-scenarios-6.12), where a reshape must start under
# action_store()'s reconfig_mutex alone (Documentation/reshape.md 5.2).
RESHAPE_GROW_QUICK=1 exec bash "$(dirname "$0")/t-reshape-grow.sh"
