/* SPDX-License-Identifier: GPL-2.0 */
/*
 * raid5j write journal: the one seam between the stripe engine and the log.
 *
 * Write-through path of a stripe (see Documentation/journal.md):
 *
 *   handle_writes: bios copied into pages, parity computed
 *        |  r5j_journal_write_stripe()
 *        v
 *   open unit  --(end of daemon pass: r5j_journal_submit())-->  unit I/O
 *        |                      (a later pass: one journal flush    |
 *        |                       if the journal has a write cache)  |
 *        |  all earlier units stable too                            v
 *        +------------------------------------------------>  stripe LOGGED:
 *                                                            member writes
 *   member writes done: r5j_journal_stripe_done() -> unit done -> reclaim
 *   moves journal_tail past done units once the members are flushed.
 */
#ifndef RAID5J_JOURNAL_KERNEL_H
#define RAID5J_JOURNAL_KERNEL_H

#include "r5j.h"

struct r5j_journal;

/* run(): set up the log on @rdev (the Journal member); no I/O yet. */
int r5j_journal_init(struct r5j_conf *conf, struct md_rdev *rdev);
/* start(): recover from the journal, then open a new log. */
int r5j_journal_start(struct r5j_conf *conf);
void r5j_journal_exit(struct r5j_conf *conf);
/* takeover of a journaled RAID4 <-> RAID5 (Documentation/reshape.md 8.1) */
int r5j_journal_takeover_prepare(struct r5j_conf *conf);
bool r5j_journal_hand_over(struct r5j_conf *from, struct r5j_conf *to);

/*
 * Daemon: put a prepared stripe (pages and parity final) in the open unit.
 * 0: the stripe comes back with R5J_W_TO_MEMBERS once the log has it, or
 *    was parked (R5J_W_PARKED) until reclaim frees log space;
 * -EIO: the journal has failed.
 */
int r5j_journal_write_stripe(struct r5j_journal *log, struct r5j_stripe *sh);
/*
 * Write-back (Documentation/journal.md, section 15).  Daemon only.
 * write_data: log the stripe's written blocks alone (no parity); -EAGAIN
 *   if the ring has no room for them and a later parity (nothing parked).
 * write_parity: a destage logs the parity of its dirty stripe in the room
 *   kept for it; parks (R5J_W_PARKED) until reclaim frees room unless its
 *   stripe pins the oldest unit (L11).
 * data_stable: the data-only unit is stable (bios acknowledged): the
 *   stripe's oldest unit with dirty data stays pinned until its destage.
 * destaged: the members have every dirty block: unpin.
 */
int r5j_journal_write_data(struct r5j_journal *log, struct r5j_stripe *sh);
int r5j_journal_write_parity(struct r5j_journal *log, struct r5j_stripe *sh);
void r5j_journal_data_stable(struct r5j_journal *log, struct r5j_stripe *sh);
void r5j_journal_destaged(struct r5j_journal *log, struct r5j_stripe *sh);
void r5j_journal_wb_forget(struct r5j_journal *log, struct r5j_stripe *sh);
bool r5j_journal_data_fits(struct r5j_journal *log, struct r5j_stripe *sh,
			   int pages);
void r5j_journal_count_destage(struct r5j_journal *log, int full, int reads);
void r5j_journal_count_rmw(struct r5j_journal *log, int saved);
/* Ring used beyond half: dirty stripes should go to the members. */
bool r5j_journal_over_high(struct r5j_journal *log, int high, u64 *limit);
bool r5j_journal_space_waits(struct r5j_journal *log);

/*
 * Daemon, end of a pass: send the open unit; retry parked stripes; send
 * the journal flush that makes completed units stable (journal.md L4).
 */
void r5j_journal_submit(struct r5j_journal *log);
/* Daemon: the members have the stripe's logged blocks. */
void r5j_journal_stripe_done(struct r5j_journal *log, struct r5j_stripe *sh);

bool r5j_journal_failed(struct r5j_journal *log);
/*
 * An array with a journal takes no write past it: not while the journal
 * has failed, nor once the failed journal was removed (MD_HAS_JOURNAL stays
 * set until a new one is added).
 */
static inline bool r5j_journal_blocks_writes(struct r5j_conf *conf)
{
	if (conf->log)
		return r5j_journal_failed(conf->log);
	return test_bit(MD_HAS_JOURNAL, &conf->mddev->flags);
}
struct md_rdev *r5j_journal_rdev(struct r5j_journal *log);
/* Called with reconfig_mutex held: drain the log, leave an empty unit. */
void r5j_journal_quiesce(struct r5j_journal *log);
void r5j_journal_error(struct r5j_journal *log);
/* reconfig_mutex held: move journal_tail now if anything can be freed. */
void r5j_journal_reclaim_locked(struct r5j_journal *log);
/* hot-add of a journal after the old one failed or went missing. */
int r5j_journal_replace(struct r5j_conf *conf, struct md_rdev *rdev);
bool r5j_journal_idle(struct r5j_journal *log);
/* Nothing in the log but the empty unit at its tail (after a quiesce). */
bool r5j_journal_empty(struct r5j_journal *log);
ssize_t r5j_journal_stats_show(struct r5j_journal *log, char *page);

#endif /* RAID5J_JOURNAL_KERNEL_H */
