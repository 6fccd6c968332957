// SPDX-License-Identifier: GPL-2.0
/* md v1.x superblock reader and writer (userspace).  See raid5j/mdsb.h. */
#include <stdio.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <linux/fs.h>
#include "raid5j/types.h"
#include "raid5j/bounds.h"
#include "raid5j/mdsb.h"
#include "raid5j/sb1csum.h"

u64 mdsb_location(int minor, u64 dev_sectors)
{
	switch (minor) {
	case 0:
		if (dev_sectors < 16)
			return ~0ull;
		return (dev_sectors - 16) & ~7ull;
	case 1:
		return 0;
	default:
		return 8;
	}
}

__le32 mdsb_csum(const struct mdp_superblock_1 *sb)
{
	return r5j_sb1_csum(sb);
}

s64 mdsb_dev_sectors(int fd)
{
	struct stat st;
	u64 bytes;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &bytes) < 0)
			return -errno;
	} else {
		bytes = (u64)st.st_size;
	}
	return (s64)(bytes / 512);
}

int mdsb_read(int fd, struct mdsb *s)
{
	static const int order[] = { 2, 1, 0 };
	s64 sectors = mdsb_dev_sectors(fd);
	unsigned int k;
	ssize_t n;
	u64 at;

	if (sectors < 0)
		return (int)sectors;
	for (k = 0; k < 3; k++) {
		memset(s, 0, sizeof(*s));
		s->minor = order[k];
		s->dev_sectors = (u64)sectors;
		at = mdsb_location(s->minor, s->dev_sectors);
		if (at == ~0ull || at + 8 > s->dev_sectors)
			continue;
		n = pread(fd, s->raw, MDSB_BYTES, (off_t)(at * 512));
		if (n < 0)
			return -errno;
		if (n != MDSB_BYTES)
			continue;
		if (le32_to_cpu(s->sb.magic) != MD_SB_MAGIC ||
		    le32_to_cpu(s->sb.major_version) != 1 ||
		    le32_to_cpu(s->sb.max_dev) > (MDSB_BYTES - 256) / 2 ||
		    le64_to_cpu(s->sb.super_offset) != at ||
		    mdsb_csum(&s->sb) != s->sb.sb_csum)
			continue;
		s->sb_sector = at;
		return 0;
	}
	return -ENOENT;
}

int mdsb_check(const struct mdsb *s, const char **why)
{
	u64 doff = le64_to_cpu(s->sb.data_offset);
	u64 dsize = le64_to_cpu(s->sb.data_size);
	/* md's sb_size: 256 + 2 * max_dev bytes in whole (512 B) sectors */
	u64 sb_end = s->sb_sector +
		     (256 + 2 * (u64)le32_to_cpu(s->sb.max_dev) + 511) / 512;

	if (dsize < 10) {
		*why = "data_size too small";
		return -EINVAL;
	}
	if (s->minor) {
		if (doff < sb_end) {
			*why = "data_offset inside or before the superblock";
			return -EINVAL;
		}
		if (!r5j_range_ok(doff, dsize, s->dev_sectors)) {
			*why = "data area past the end of the device";
			return -EINVAL;
		}
	} else if (!r5j_range_ok(doff, dsize, s->sb_sector)) {
		*why = "data area overlaps the superblock or the device end";
		return -EINVAL;
	}
	return 0;
}

int mdsb_write(int fd, struct mdsb *s)
{
	/* only the superblock's own sectors: a bad block log may follow */
	size_t bytes = (256 + 2 * le32_to_cpu(s->sb.max_dev) + 511) & ~511u;
	ssize_t n;

	if (bytes > MDSB_BYTES)
		return -EINVAL;
	s->sb.sb_csum = mdsb_csum(&s->sb);
	n = pwrite(fd, s->raw, bytes, (off_t)(s->sb_sector * 512));
	if (n < 0)
		return -errno;
	if ((size_t)n != bytes)
		return -EIO;
	if (fsync(fd) < 0)
		return -errno;
	return 0;
}

int mdsb_role(const struct mdsb *s)
{
	u32 nr = le32_to_cpu(s->sb.dev_number);

	if (nr >= le32_to_cpu(s->sb.max_dev))
		return MD_DISK_ROLE_SPARE;
	return le16_to_cpu(s->sb.dev_roles[nr]);
}

void mdsb_uuid_str(const u8 uuid[16], char out[36])
{
	static const char hex[] = "0123456789abcdef";
	unsigned int i, o = 0;

	for (i = 0; i < 16; i++) {
		if (i && i % 4 == 0)
			out[o++] = ':';
		out[o++] = hex[uuid[i] >> 4];
		out[o++] = hex[uuid[i] & 15];
	}
	out[o] = 0;
}
