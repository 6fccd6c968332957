/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ring a write-back journal keeps for the destage of its dirty
 * stripes under L12 (Documentation/journal.md, section 15), in 4 KiB
 * blocks.  Pure arithmetic shared by the run time
 * (r5j_journal.c), recovery's room check and the unit tests.
 *
 *   C  stripes one unit may pin: the parity of all of them goes into one
 *      parity unit X (one meta block, one bio) whose stripe heads come
 *      from a pool of R5J_WB_X_HEADS;
 *   R  = P x C + 1: the largest X, kept once for the whole ring;
 *   plus (P - 1) blocks per dirty stripe (none on RAID5), what releasing
 *   the oldest unit does not give back of its stripes' parity.
 */
#ifndef RAID5J_WBRESERVE_H
#define RAID5J_WBRESERVE_H

#include "types.h"

/* stripe heads kept for X beyond the stripe cache; C is at most this */
#define R5J_WB_X_HEADS		32
/* data payloads in one meta block: (4096 - 32) / (16 + 4) */
#define R5J_WB_MAX_PINS		203
/*
 * The most stripes raid456's journal recovery can hold: it keeps every
 * data-only stripe in its stripe cache, which raid5_set_cache_size()
 * caps at 32768, dealt round-robin over 8 hash lists; a stripe takes a
 * head from its own list only (bits 3-5 of its sector).  One list
 * short fails the recovery ("Cannot increase cache size"), and md then
 * runs the array without its log.
 */
#define R5J_RAID456_MAX_STRIPES	32768
#define R5J_RAID456_HASH_LISTS	8
/* heads of a list kept from data-only stripes (r5j_raid456_list_cap()) */
#define R5J_RAID456_LIST_MARGIN	288

u32 r5j_wb_pin_cap(u64 ring_sectors);
u32 r5j_wb_x_cap(u32 pin_cap, u32 parity_batch);
u64 r5j_wb_fixed_reserve(int p, u32 c);
u64 r5j_wb_fixed_kept(int p, u32 c, u64 stripes);
u64 r5j_raid456_recovery(int p, u64 stripes, u64 blocks);
u64 r5j_raid456_spare(u64 ring, u64 log, int p, u64 stripes, u64 blocks);
u32 r5j_raid456_hash(u64 sector);
u32 r5j_raid456_list_cap(u32 limit);

#endif /* RAID5J_WBRESERVE_H */
