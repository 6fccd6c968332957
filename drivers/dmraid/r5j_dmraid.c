// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j_dmraid.ko: dm-raid (LVM RAID) on raid5j (Documentation/design.md,
 * "dm-raid (LVM RAID)").  dm-raid.ko is linked against raid456: it calls
 * raid5_set_cache_size() and r5c_journal_mode_set(), and reads struct
 * r5conf's max_nr_stripes and min_nr_stripes through mddev->private.
 * This module exports the two functions under raid456's names and
 * prototypes, so the modversion CRCs dm-raid recorded match, and passes
 * them on to raid5j; raid5j keeps the two fields where dm-raid reads them
 * (struct r5j_conf's prefix, checked below against the kernel's own
 * raid5.h).  A module exporting a symbol another loaded module exports is
 * refused by the kernel: this one and raid456 never run side by side.
 *
 * A module of its own, installed by `make install-boot` only: depmod
 * makes dm-raid depend on whichever installed module exports the two
 * functions, and raid5j.ko alone must not take dm-raid's sets.
 *
 * genksyms computes an export's CRC from the types visible where it is
 * defined: this file includes what raid456's raid5.c includes, and
 * r5j_dmraid_journal.c what its raid5-cache.c includes.
 */
#include <linux/blkdev.h>
#include <linux/kthread.h>
#include <linux/raid/pq.h>
#include <linux/async_tx.h>
#include <linux/module.h>
#include <linux/async.h>
#include <linux/seq_file.h>
#include <linux/cpu.h>
#include <linux/slab.h>
#include <linux/ratelimit.h>
#include <linux/nodemask.h>

#include <trace/events/block.h>
#include <linux/list_sort.h>
#include "md.h"
#include "raid5.h"
#include "md-bitmap.h"
#include "../r5j.h"
#include "../r5j_dm.h"

/* dm-raid's reads of mddev->private land on these */
static_assert(offsetof(struct r5j_conf, nr_stripes) ==
	      offsetof(struct r5conf, max_nr_stripes));
static_assert(offsetof(struct r5j_conf, max_nr_stripes) ==
	      offsetof(struct r5conf, min_nr_stripes));
static_assert(sizeof_field(struct r5j_conf, nr_stripes) ==
	      sizeof_field(struct r5conf, max_nr_stripes));
static_assert(sizeof_field(struct r5j_conf, max_nr_stripes) ==
	      sizeof_field(struct r5conf, min_nr_stripes));

/* dm-raid: the stripe_cache table argument, reconfig_mutex held */
int raid5_set_cache_size(struct mddev *mddev, int size)
{
	return r5j_dm_set_cache_size(mddev, size);
}
EXPORT_SYMBOL(raid5_set_cache_size);

static int __init r5j_dmraid_init(void)
{
	r5j_dm_link(true);
	return 0;
}

static void __exit r5j_dmraid_exit(void)
{
	r5j_dm_link(false);
}

module_init(r5j_dmraid_init);
module_exit(r5j_dmraid_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("dm-raid's RAID4/5/6 sets on raid5j (raid456's exports for dm-raid)");
MODULE_AUTHOR("raid5j developers");
