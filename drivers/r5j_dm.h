/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RAID5J_DM_H
#define RAID5J_DM_H

#include <linux/types.h>

struct mddev;

/*
 * raid5j's side of dm-raid, called by raid5j_dmraid.ko
 * (drivers/dmraid/), which holds the two functions dm-raid imports under
 * raid456's names.  reconfig_mutex held.
 */
int r5j_dm_set_cache_size(struct mddev *mddev, int size);
int r5j_dm_journal_mode_set(struct mddev *mddev, bool wb);
/* raid5j_dmraid.ko loaded (true) or gone (false) */
void r5j_dm_link(bool linked);

/*
 * raid5j may run this array: an md array, or a dm-raid set with dm-raid
 * linked against raid5j_dmraid.ko
 */
bool r5j_dm_may_run(struct mddev *mddev);

#endif
