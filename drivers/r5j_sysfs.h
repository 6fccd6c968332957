/* SPDX-License-Identifier: GPL-2.0 */
#ifndef RAID5J_SYSFS_H
#define RAID5J_SYSFS_H

struct mddev;

void r5j_sysfs_register(struct mddev *mddev);
void r5j_sysfs_unregister(struct mddev *mddev);
/* reconfig_mutex held */
int r5j_journal_mode_set(struct mddev *mddev, bool wb);
int r5j_stripe_cache_set(struct mddev *mddev, unsigned long size);
/* md core's change_consistency_policy; takes reconfig_mutex */
int r5j_change_consistency_policy(struct mddev *mddev, const char *buf);

#endif
