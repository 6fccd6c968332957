// SPDX-License-Identifier: GPL-2.0
/*
 * Write-back ring reserve (L12); see include/raid5j/wbreserve.h.
 * Pure logic shared by the kernel module and userspace.
 */
#include "raid5j/types.h"
#include "raid5j/wbreserve.h"

/*
 * Stripes one unit may pin under L11 (ring blocks / 32, at least 1,
 * at most one meta block's data payloads): a small part of the ring.
 */
u32 r5j_wb_pin_cap(u64 ring_sectors)
{
	u64 c = ring_sectors >> 8;	/* / (8 sectors x 32) */

	if (c < 1)
		return 1;
	return c > R5J_WB_MAX_PINS ? R5J_WB_MAX_PINS : (u32)c;
}

/*
 * C under L12: the parity of every stripe pinning a unit fits one
 * meta block and one bio (@parity_batch, r5j_parity_batch()) and their
 * stripe heads fit X's pool.
 */
u32 r5j_wb_x_cap(u32 pin_cap, u32 parity_batch)
{
	u32 c = pin_cap;

	if (c > parity_batch)
		c = parity_batch;
	if (c > R5J_WB_X_HEADS)
		c = R5J_WB_X_HEADS;
	return c ? c : 1;
}

/* R = P x C + 1: the largest parity unit X (C stripes' parity + meta). */
u64 r5j_wb_fixed_reserve(int p, u32 c)
{
	return (u64)p * c + 1;
}

/*
 * Blocks kept for @stripes dirty stripes whose parity is not logged:
 * R once, plus P - 1 per stripe.  Nothing when there are none.
 */
u64 r5j_wb_fixed_kept(int p, u32 c, u64 stripes)
{
	if (!stripes)
		return 0;
	return r5j_wb_fixed_reserve(p, c) + (u64)(p - 1) * stripes;
}

/*
 * raid456's recovery of a write-back log (journal.md, L13):
 * the blocks it writes after the log it found, all before its superblock
 * moves journal_tail.  It rewrites each of the @stripes data-only stripes
 * (@blocks dirty blocks in all) as a meta block and its data, then an
 * empty meta block, and sets its in-memory tail there; then it releases
 * them all at once, each logging a meta block and P parity pages.  The
 * superblock write waits for reconfig_mutex, which assembly holds, so the
 * log it found stays the one on disk until the whole recovery is done.
 */
u64 r5j_raid456_recovery(int p, u64 stripes, u64 blocks)
{
	return stripes ? stripes * (2 + (u64)p) + blocks + 1 : 0;
}

/*
 * Blocks of a ring of @ring blocks left beside a log of @log blocks and
 * raid456's whole recovery of it; 0 when that does not fit.  The log
 * found at the old journal_tail must survive a power cut at any point of
 * the recovery, so nothing raid456 writes may reach it: log + recovery
 * within the ring, with one block more because raid456's free-space test
 * is strict (the stripe at its new tail finding no room is a BUG()).
 * With no data-only stripe raid456 rewrites nothing: the log alone, as
 * in write-through (a tiny ring needs that block).  @stripes counts
 * every stripe raid456 would find data-only: dirty ones and destages
 * whose parity is not durable yet.
 */
u64 r5j_raid456_spare(u64 ring, u64 log, int p, u64 stripes, u64 blocks)
{
	u64 need = stripes ? r5j_raid456_recovery(p, stripes, blocks) + 1 : 0;

	if (log >= ring || need >= ring - log)
		return 0;
	return ring - log - need;
}

/* raid456's stripe hash list of the stripe at member sector @sector */
u32 r5j_raid456_hash(u64 sector)
{
	return (u32)(sector >> 3) & (R5J_RAID456_HASH_LISTS - 1);
}

/*
 * Data-only stripes the log may hold in one raid456 hash list: the
 * list's share of raid456's @limit, less R5J_RAID456_LIST_MARGIN heads.
 * The caller counts a destage as data-only until its parity is durable
 * (raid456 finds it so until then).  The margin is empirical: with one
 * head (the stripe with parity raid456's recovery replays and frees)
 * t-journal-wb-raid456-lists still took raid456 past its limit at 4095;
 * 288 (the margin once taken for the default stripe cache) holds.
 */
u32 r5j_raid456_list_cap(u32 limit)
{
	u32 share = limit / R5J_RAID456_HASH_LISTS;

	if (share <= R5J_RAID456_LIST_MARGIN)
		return share > 1 ? 1 : 0;
	return share - R5J_RAID456_LIST_MARGIN;
}
