/* SPDX-License-Identifier: GPL-2.0 */
/*
 * md's v1.x superblock checksum, shared by the kernel module (which writes
 * the journal device's superblock itself, Documentation/journal.md) and the
 * userspace tools: the 32-bit sum, carry folded once, of the little-endian
 * words of the first 256 + 2 * max_dev bytes, sb_csum counted as zero.
 */
#ifndef RAID5J_SB1CSUM_H
#define RAID5J_SB1CSUM_H

#include "types.h"
#include <linux/raid/md_p.h>

/* Bytes of a v1 superblock that may be checksummed (one 4 KiB block). */
#define R5J_SB1_MAX_BYTES	4096

/* max_dev beyond what fits in R5J_SB1_MAX_BYTES is clamped. */
__le32 r5j_sb1_csum(const struct mdp_superblock_1 *sb);

#endif /* RAID5J_SB1CSUM_H */
