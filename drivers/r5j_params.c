// SPDX-License-Identifier: GPL-2.0
/*
 * raid5j's module parameters, all of them (/sys/module/raid5j/parameters/;
 * their names and values are user ABI).  The code reads them through
 * r5j_params.h.
 */
#include <linux/moduleparam.h>
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/string.h>
#include "r5j_params.h"

/*
 * An administrator's veto on write-back (Documentation/journal.md, section
 * 15): with writeback=0 the switch is refused and a log that recorded
 * write-back starts in write-through.  On by default.
 */
bool r5j_param_writeback = true;
module_param_named(writeback, r5j_param_writeback, bool, 0644);
MODULE_PARM_DESC(writeback,
		 "allow journal_mode write-back (default on; 0 refuses it)");

/*
 * An administrator's veto, like writeback: with reshape=0 raid5j starts
 * and continues no reshape (an interrupted one runs held, section 5.1).
 */
bool r5j_param_reshape = true;
module_param_named(reshape, r5j_param_reshape, bool, 0644);
MODULE_PARM_DESC(reshape,
		 "allow reshapes (default on; 0 refuses every reshape)");

static const char * const recoverable_by_names[] = {
	[R5J_RECOVERABLE_BY_RAID456] = "raid456",
	[R5J_RECOVERABLE_BY_RAID5J] = "raid5j",
};

int r5j_param_recoverable_by = R5J_RECOVERABLE_BY_RAID456;

static int recoverable_by_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(recoverable_by_names, val);

	if (i < 0) {
		pr_err("raid5j: writeback_recoverable_by=%s: must be raid456 or raid5j\n",
		       val);
		return -EINVAL;
	}
	*(int *)kp->arg = i;
	return 0;
}

static int recoverable_by_get(char *buf, const struct kernel_param *kp)
{
	return scnprintf(buf, PAGE_SIZE, "%s\n",
			 recoverable_by_names[*(int *)kp->arg]);
}

static const struct kernel_param_ops recoverable_by_ops = {
	.set = recoverable_by_set,
	.get = recoverable_by_get,
};

module_param_cb(writeback_recoverable_by, &recoverable_by_ops,
		&r5j_param_recoverable_by, 0444);
MODULE_PARM_DESC(writeback_recoverable_by,
		 "write-back: who may recover the log after a crash: raid456 (the log stays within what raid456's recovery takes, less than the whole journal for dirty data) or raid5j (the journal's whole capacity, only raid5j assembles the array after a crash); read at assembly (default raid456)");

/*
 * Budget for the stripes a recovery tracks at once (entries of a few
 * dozen bytes, not pages).  0, the default: as many as the journal has
 * blocks, so no log is refused for its size and the memory follows what
 * the log holds (a write-back journal's dirty data is bounded by the
 * journal, journal.md section 15, "Run time").  Set: a cap, 16 MiB tracks
 * ~190,000 stripes of a 4-member array; a journal needing more is
 * refused, never half replayed.
 */
unsigned int r5j_param_recovery_mem_kb;
module_param_named(recovery_mem_kb, r5j_param_recovery_mem_kb, uint, 0444);
MODULE_PARM_DESC(recovery_mem_kb,
		 "memory cap for journal recovery's stripe table, KiB; 0: sized by the journal; read at assembly (default 0)");
