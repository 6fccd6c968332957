/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raid5j's module parameters (drivers/r5j_params.c), read where they are
 * used through the functions below.
 */
#ifndef RAID5J_PARAMS_H
#define RAID5J_PARAMS_H

#include <linux/compiler.h>
#include <linux/types.h>

/*
 * Who may recover a write-back log after a crash (journal.md section 15),
 * read when a journal is loaded (assembly):
 *  raid456  the log stays within what raid456's recovery can rewrite and
 *           flush after a power cut (log->raid456_room): a payload that
 *           caches writes (DATA) is logged only while both bounds hold, a
 *           write that does not fit goes through or joins its stripe's
 *           destage.
 *  raid5j   the journal's whole capacity (log->fixed): a fixed ring
 *           reserve and one parity unit X for the stripes pinning the
 *           oldest unit, in place of P pages per dirty stripe; only raid5j
 *           (or r5jtool replay) recovers the log.
 */
enum r5j_recoverable_by {
	R5J_RECOVERABLE_BY_RAID456,
	R5J_RECOVERABLE_BY_RAID5J,
};

extern bool r5j_param_writeback;		/* writeback */
extern bool r5j_param_reshape;			/* reshape */
extern int r5j_param_recoverable_by;		/* writeback_recoverable_by */
extern unsigned int r5j_param_recovery_mem_kb;	/* recovery_mem_kb */

/* journal_mode write-back may be switched on or kept at assembly */
static inline bool r5j_writeback_allowed(void)
{
	return READ_ONCE(r5j_param_writeback);
}

/* reshapes may start and continue */
static inline bool r5j_reshape_allowed(void)
{
	return READ_ONCE(r5j_param_reshape);
}

/* who may recover a write-back log: read when a journal is loaded */
static inline enum r5j_recoverable_by r5j_wb_recoverable_by(void)
{
	return READ_ONCE(r5j_param_recoverable_by);
}

/* journal recovery's stripe table cap, KiB; 0: sized by the journal */
static inline unsigned int r5j_recovery_mem_kb(void)
{
	return READ_ONCE(r5j_param_recovery_mem_kb);
}

#endif
