// SPDX-License-Identifier: GPL-2.0
/*
 * dm-raid's journal_mode on raid5j (see r5j_dmraid.c).  Its own file:
 * the headers are those of raid456's raid5-cache.c, where mainline
 * defines r5c_journal_mode_set(), so that genksyms gives it the CRC
 * dm-raid recorded.
 */
#include <linux/kernel.h>
#include <linux/wait.h>
#include <linux/blkdev.h>
#include <linux/slab.h>
#include <linux/raid/md_p.h>
#include <linux/crc32c.h>
#include <linux/random.h>
#include <linux/kthread.h>
#include <linux/types.h>
#include "md.h"
#include "raid5.h"
#include "md-bitmap.h"
#include "../r5j_dm.h"

/*
 * dm-raid: the journal_mode table argument (R5C_JOURNAL_MODE_*), just
 * after md_start(), reconfig_mutex held.
 */
int r5c_journal_mode_set(struct mddev *mddev, int mode)
{
	if (mode != R5C_JOURNAL_MODE_WRITE_THROUGH &&
	    mode != R5C_JOURNAL_MODE_WRITE_BACK)
		return -EINVAL;
	return r5j_dm_journal_mode_set(mddev,
				       mode == R5C_JOURNAL_MODE_WRITE_BACK);
}
EXPORT_SYMBOL(r5c_journal_mode_set);
