#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-journal-powercut-raid6: t-journal-powercut on RAID6 (5 members, P and Q
# both logged); restart with one member missing.  CYCLES default 2.
export LEVEL=6 CYCLES=${CYCLES:-2} VM_TEST=t-journal-powercut-raid6
exec "$(dirname "$0")/t-journal-powercut.sh"
