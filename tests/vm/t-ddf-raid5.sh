#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# t-ddf-raid5: t-imsm-raid5 with a DDF container (mdadm -e ddf, mdmon).

META=ddf SPARE_AT_CREATE=1
. "$(dirname "$0")/t-imsm-raid5.sh"
