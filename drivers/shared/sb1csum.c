// SPDX-License-Identifier: GPL-2.0
/* md v1.x superblock checksum.  See include/raid5j/sb1csum.h. */
#include "raid5j/types.h"
#include "raid5j/sb1csum.h"

__le32 r5j_sb1_csum(const struct mdp_superblock_1 *sb)
{
	const u8 *b = (const u8 *)sb;
	u32 max_dev = le32_to_cpu(sb->max_dev);
	u32 size, i;
	__le32 w;
	u64 sum = 0;

	if (max_dev > (R5J_SB1_MAX_BYTES - 256) / 2)
		max_dev = (R5J_SB1_MAX_BYTES - 256) / 2;
	size = 256 + 2 * max_dev;
	for (i = 0; i + 4 <= size; i += 4) {
		if (i == offsetof(struct mdp_superblock_1, sb_csum))
			continue;
		memcpy(&w, b + i, 4);
		sum += le32_to_cpu(w);
	}
	if (size - i == 2) {
		__le16 h;

		memcpy(&h, b + i, 2);
		sum += le16_to_cpu(h);
	}
	return cpu_to_le32((u32)((sum & 0xffffffffu) + (sum >> 32)));
}
