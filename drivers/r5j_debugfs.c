// SPDX-License-Identifier: GPL-2.0
/*
 * Test hooks, in debugfs (/sys/kernel/debug/raid5j/) rather than module
 * parameters: they let tests reach paths a real array reaches only with
 * a large journal, and are no user's choice.  Each is read when a
 * journal is loaded (assembly).  Without debugfs the module runs with
 * the defaults.
 */
#include <linux/debugfs.h>
#include "r5j.h"
#include "raid5j/wbreserve.h"

/*
 * raid456's stripe limit (its recovery holds a log's data-only stripes in
 * its stripe cache, at most 32768 in 8 hash lists), which the log keeps
 * below when raid456 may recover it: lower, tests reach it with small
 * journals.
 */
u32 r5j_hook_raid456_stripes = R5J_RAID456_MAX_STRIPES;

/*
 * Recovery destages write-back stripes unit by unit, journal_tail moved
 * after each unit, even where the batched destage fits: the path a nearly
 * full ring needs.
 */
bool r5j_hook_recovery_unit_by_unit;

static struct dentry *r5j_debugfs_dir;

void r5j_debugfs_init(void)
{
	/* errors are not checked: debugfs is optional (its own rule) */
	r5j_debugfs_dir = debugfs_create_dir("raid5j", NULL);
	debugfs_create_u32("raid456_stripes", 0644, r5j_debugfs_dir,
			   &r5j_hook_raid456_stripes);
	debugfs_create_bool("recovery_unit_by_unit", 0644, r5j_debugfs_dir,
			    &r5j_hook_recovery_unit_by_unit);
}

void r5j_debugfs_exit(void)
{
	debugfs_remove_recursive(r5j_debugfs_dir);
}
